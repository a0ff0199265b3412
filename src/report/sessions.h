/*
 * sessions.h - recorded sessions: find and summarize them cheaply, and
 * export one recording's raw data (per-rep CSV, one .hgrm per cell).
 *
 * Listing must stay fast with many large recordings, so a session is
 * summarized without reading it whole: the header line (workload, time,
 * machine, axes, cells) is parsed; the rest is scanned line by line, but
 * only the short "cell" and "end" lines are parsed, and rep and sample lines
 * are skipped by their first bytes. A file above BT_SESSIONS_SCAN_MAX is not
 * scanned: only its last line is read (seeking to the end), and its count of
 * finished cells is unknown (-1). A file that is not a readable recording is
 * listed with readable = 0 and the reason, never an error for the list.
 *
 * Nothing here prints except the exporters, which write to the FILE or
 * directory they are given. The TUI's sessions screen and the CLI share it.
 */
#ifndef BT_REPORT_SESSIONS_H
#define BT_REPORT_SESSIONS_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "core/results.h"
#include "report/report.h"

#define BT_SESSIONS_SCAN_MAX (64ll << 20)	/* bytes: larger files are not scanned whole */

struct bt_session_info {
	char path[4096];
	char name[256];		/* the file name (the last part of path) */
	int readable;		/* 0: not a readable recording; error says why */
	char error[BT_ERR_MAX];	/* unreadable: why; else the end line's error, "" */
	uint64_t start_unix_ns;	/* header time; else the file's mtime */
	uint64_t size;		/* bytes */
	char workload[64];
	char host[64];
	char version[32];	/* benchtop that wrote it */
	char axes[256];		/* "threads=1,2,4 notify=signal,broadcast"; "" with no axes */
	char fixed[256];	/* the plan's fixed values (bt_results_fixed): "threads=64 work=0" */
	int ncells;		/* cells in the plan */
	int cells_done;		/* cells finished (a cell line with all reps); -1 unknown */
	int cells_failed;	/* cells that ended failed */
	char status[16];	/* "complete", "interrupted", "failed"; "unreadable" */
	int torn;		/* the last line is cut short */
};

/*
 * Summarize one file into info (always filled: path, name, size, and either
 * the summary or readable = 0 with the reason). Returns 0 when it is a
 * readable recording, -EINVAL (bad file) or -errno (cannot open or read).
 */
int bt_sessions_probe(const char *path, struct bt_session_info *info);

/*
 * Every "*.jsonl" file directly in dir (dot files skipped), probed, newest
 * first (by start time, then by name, both descending). When workload is
 * not NULL only readable sessions of that workload are kept. *out is
 * malloc'd (free with free()), *n its length. A missing dir gives 0
 * sessions; another error opening it returns -errno with err set.
 */
int bt_sessions_list(const char *dir, const char *workload, struct bt_session_info **out,
		     int *n, struct bt_err *err);

/*
 * The plan in key=value words, as a listing shows it: the axes with their
 * values, then the fixed values ("threads=1,2 work=0"); "-" when neither.
 * Longer than BT_SESSIONS_PLAN_W columns, it is cut after a whole value and
 * ends in "..." (show prints the whole plan).
 */
#define BT_SESSIONS_PLAN_W 64
char *bt_sessions_plan_text(const struct bt_session_info *s, char *buf, size_t n);

/*
 * One CSV row per cell and rep (warmups included, in cell then rep order),
 * with a header: cell index, the axis values, rep, warmup, ok, verify,
 * ops, bytes, errors, wall_s, user_s, sys_s, vcsw, ivcsw, ops_s, bytes_s,
 * lat_every, and p50/p90/p99/p999/max/mean (ns) and count of that rep's own
 * histogram (empty without one). Numbers are exact, in their shortest form (csv.h). 0 or -errno.
 */
int bt_sessions_export_csv(FILE *f, const struct bt_results *res);

/*
 * "cell-<index>-<label with [^A-Za-z0-9._-] as '_'>.hgrm" for cell c, into
 * buf[n] (the name only).
 */
void bt_sessions_hgrm_name(const struct bt_results *res, int c, char *buf, size_t n);

/*
 * Write one .hgrm (HdrHistogram percentile distribution, microseconds, 5
 * ticks per half distance) per cell that has a merged latency histogram
 * into dir (created with its parents). For each file written, cb (when not
 * NULL) gets its path. Returns the number of files written (0: no cell has
 * latencies), or -errno with err set.
 */
int bt_sessions_export_hgrm(const struct bt_results *res, const char *dir,
			    void (*cb)(const char *path, void *arg), void *arg, struct bt_err *err);

/*
 * The export file set, the one both faces write (`benchtop export --format
 * all --out DIR` and the TUI's `e`): into dir (created with its parents)
 * BASE.md (machine lines and the results table), BASE.csv (one row per cell
 * and rep, bt_sessions_export_csv), BASE.json (the results table) and, per
 * cell with latencies, BASE-<bt_sessions_hgrm_name>.hgrm. BASE is the
 * recording's file name without ".jsonl" (bt_sessions_export_base). Every
 * file goes through bt_file_out (never truncating one it did not create);
 * cb gets each path written. Returns the number of .hgrm files, or -errno
 * with err set (files already written stay).
 */
int bt_sessions_export_set(const struct bt_results *res, const char *dir, const char *base,
			   void (*cb)(const char *path, void *arg), void *arg, struct bt_err *err);

/* BASE of the file set: path's last part without ".jsonl"; "benchtop-WORKLOAD" without a path. */
void bt_sessions_export_base(const char *path, const char *workload, char *buf, size_t n);

/*
 * The lines above a text or markdown table (workload, machine, check, and
 * "recording: ORIGIN" when origin is not NULL), then a blank line: what show
 * and export print. Nothing for the other formats.
 */
void bt_sessions_write_header(FILE *f, const struct bt_results *res, enum bt_format fmt,
			      const char *origin);

#endif
