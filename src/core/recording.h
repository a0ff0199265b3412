/*
 * recording.h - the session recording: JSON Lines, versioned.
 *
 * Line 1  {"type":"header","benchtop_recording":1,"version":"0.1.0",
 *          "time":"2026-11-30T01:02:03Z","start_unix_ns":...,"workload":"pipeline",
 *          "unit":"items","lat_what":"...","timer_cost_ns":18.5,
 *          "machine":{...bt_sysinfo fields...},"plan":{...bt_plan_to_json...},
 *          "axes":["threads","notify"],
 *          "metrics":[{"name":"timeouts","unit":"waits","kind":"counter","error":false,
 *                      "num":"","den":"","help":"..."},...],   (absent when none)
 *          "cells":[{"index":0,"label":"threads=1 notify=signal","values":["1","signal"],"reps":5},...]}
 * then, as they happen:
 *         {"type":"sample","cell":0,"rep":1,"t":0.1,"dt":0.1,"ops_s":...,"bytes_s":...,"ops":...,
 *          "lat_count":...,"p50":...,"p90":...,"p99":...,"p999":...,"max":...,
 *          "cpu_pct":...,"user_pct":...,"sys_pct":...}
 *         {"type":"rep","cell":0,"rep":1,"warmup":false,"ok":true,"verify":"ok",
 *          "ops":...,"bytes":...,"errors":...,"wall_s":...,"user_s":...,"sys_s":...,
 *          "vcsw":...,"ivcsw":...,"ops_s":...,"bytes_s":...,"lat_every":1,
 *          "hist":{"min":..,"max":..,"sum":..,"b":[[index,count],...]} or null,
 *          "workers":[{"ops":..,"cpu_first":0,"cpu_last":1,"pinned":-1},...],
 *          "metrics":{"timeouts":3,"hit_ratio":0.5,...}}   (by name; a ratio derived, null for 0/0)
 *         {"type":"cell","cell":0,"label":"...","nreps":5,"failed":false,
 *          "ops_s":{"n":5,"min":..,"median":..,"max":..,"mean":..,"stddev":..,"ci95":..},
 *          "bytes_s":{...},"wall_s":{...},"user_s":{...},"sys_s":{...},"vcsw":{...},"ivcsw":{...},
 *          "lat":{"p50":..,"p90":..,"p99":..,"p999":..,"max":..,"mean":..,"count":..} or null,
 *          "metrics":{"timeouts":{"n":5,"min":..,...same as ops_s...},...}}
 * last:   {"type":"end","status":"complete|interrupted|failed","error":"...","time":"..."}
 *
 * Each line is written whole and flushed, so a crash or kill leaves a readable
 * prefix. The reader accepts a torn last line (and a missing end line) and
 * reports the session as interrupted; it ignores unknown fields and unknown
 * line types (a newer minor version) and rejects a newer major version.
 * Metrics are optional (a recording from before them has none); a metric
 * kind this build does not know is read as a gauge (its values shown as
 * they are) and a value named by no declaration is ignored, both with the
 * one-line note (res->note).
 */
#ifndef BT_CORE_RECORDING_H
#define BT_CORE_RECORDING_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "core/results.h"

#define BT_RECORDING_VERSION 1

/*
 * What the reader accepts (README "Limits"): past any of these a recording
 * is refused with one line naming the limit, so no file can make the reader
 * take unbounded memory or time. The file itself: a regular file of at most
 * BT_FILE_MAX_RECORDING (core/file.h).
 */
#define BT_REC_MAX_LINE (16u << 20)	/* bytes in one line (a rep with every bucket is ~1 MiB) */
#define BT_REC_MAX_CELLS 4096		/* header cells, as a plan (BT_PLAN_MAX_CELLS) */
#define BT_REC_MAX_REPS 250000		/* rep lines */
#define BT_REC_MAX_SAMPLES 2000000	/* sample lines */
#define BT_REC_MAX_REP_INDEX 1000000	/* a rep number, a cell's rep count */
#define BT_REC_MAX_WORKERS 65536	/* workers of one rep */
#define BT_REC_MAX_LAT ((uint64_t)1 << 62)	/* latencies counted in all histograms together */

struct bt_recw {
	FILE *f;
	char path[4096];
	int error;	/* sticky: the first write error (-errno), 0 while all is well */
	int nmetrics;	/* the header's metric declarations: rep and cell lines name their values */
	struct bt_metric_info metrics[BT_RES_METRICS];
	int nch;	/* the header's latency channels: rep and cell lines name theirs */
	char ch_names[BT_RES_LAT_CH][32];
};

/* The default directory: $XDG_STATE_HOME/benchtop/sessions, else ~/.local/state/benchtop/sessions. */
int bt_rec_default_dir(char *buf, size_t n);

/*
 * A readable file name in dir for a new session:
 * "<dir>/20261130-010203-pipeline-host.jsonl" (made unique with -2, -3 ...).
 * The name is reserved: the file is created empty (with dir and its parents),
 * exclusively, so runs started in the same second get different names.
 * -errno (-ENOTDIR: a component of dir is a file).
 */
int bt_rec_default_path(char *buf, size_t n, const char *dir, const char *workload,
			const char *host, uint64_t unix_ns);

/*
 * Give back a name reserved by bt_rec_default_path when the run did not
 * start: path is removed if it is still an empty regular file. 0, or
 * -EEXIST (not empty, not a regular file: kept), or -errno.
 */
int bt_rec_unreserve(const char *path);

/*
 * Create path (and missing parent directories). Nothing is truncated: path
 * must not exist, or be an empty regular file (reserved by
 * bt_rec_default_path) or a character device. 0 or -errno with err set.
 */
int bt_recw_open(struct bt_recw *w, const char *path, struct bt_err *err);

/* Each writes one line and flushes it. 0 or -errno (the error is sticky: later writes fail too). */
int bt_recw_header(struct bt_recw *w, const struct bt_results *res);
int bt_recw_sample(struct bt_recw *w, const struct bt_sample *s);
int bt_recw_rep(struct bt_recw *w, const struct bt_rep *r);
int bt_recw_cell(struct bt_recw *w, const struct bt_cell *c);
int bt_recw_end(struct bt_recw *w, const char *status, const char *error);
/*
 * Explore sessions (header "explore": true, no cells, "workers_axis"): a
 * segment line when segment c begins, {"type":"segment","cell":c,"t":..,
 * "settings":"threads=4 lock=spin"} (it appends cell c; its sample, rep and
 * cell lines follow), and before it the change that began it,
 * {"type":"change","cell":c,"t":..,"key":"threads","value":"4","plan":{...}}
 * whose plan is the values visited so far as a sweep (it replaces the
 * header's for show, rerun and export). The reader makes the changed keys
 * the axes (results.h bt_results_segment_axes). bt_recw_header of explore
 * results that already have segments (a session written again whole) writes
 * their change and segment lines right after the header.
 */
int bt_recw_segment(struct bt_recw *w, const struct bt_results *res, int c);
int bt_recw_change(struct bt_recw *w, const struct bt_change *ch, const char *plan_json);
/* Flush and close; returns the recording's first write error (0: all of it is on disk). */
int bt_recw_close(struct bt_recw *w);

/*
 * Read a recording into res (initialized here; destroy with
 * bt_results_destroy). Cells get their summaries recomputed from the rep
 * lines (cell lines are checked, not trusted). Status comes from the end line;
 * with no end line, or a torn last line, it is "interrupted" (res->torn set
 * for a torn line). Errors (-EINVAL, -errno) name the file and line:
 * "s.jsonl:1: not a benchtop recording (no header)",
 * "s.jsonl:7: invalid JSON: ...", "s.jsonl:1: recording version 3 is newer than this benchtop (1)".
 * An empty file, a binary file, a bad header are errors; a bad line after
 * the header other than the last is an error too.
 */
int bt_rec_read(const char *path, struct bt_results *res, struct bt_err *err);

#endif
