/*
 * results.h - what a run produced, whether it is running now or was read
 * back from a recording: per-rep records, per-cell summaries, interval
 * samples, the machine, the plan, and how the session ended.
 *
 * Faces (table, TUI results screen, show, export, compare) read only this,
 * so a live run and a recording look the same to them. Axis names and cell
 * values are kept as text, so a recording can be shown without the schema
 * of the build that wrote it.
 */
#ifndef BT_CORE_RESULTS_H
#define BT_CORE_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/hist.h"
#include "core/stats.h"
#include "core/sysinfo.h"

#define BT_RES_AXES 8
#define BT_RES_TEXT 64

#define BT_RES_METRICS 16	/* = BT_METRICS_MAX (engines/worker.h) */
/*
 * Extra latency channels (= BT_LAT_CH_MAX, engines/worker.h): named
 * histograms beside the main one (kv's "incr" and "read" service times).
 * Each is kept like the main one: dense while a rep is made, sparse per rep
 * in bt_results, merged per cell over the counted reps.
 */
#define BT_RES_LAT_CH 3

/* struct bt_metric_info.kind: the values of engines/workload.h enum bt_metric_kind. */
enum { BT_MI_COUNTER, BT_MI_GAUGE, BT_MI_RATIO, BT_MI_TIME, BT_MI_NKINDS };

/*
 * A typed metric as the results know it: the workload's declaration
 * (engines/workload.h: struct bt_metric) as text, so that a recording shows
 * and compares without the schema of the build that wrote it.
 */
struct bt_metric_info {
	char name[32];
	char unit[16];
	int kind;		/* enum bt_metric_kind: 0 counter, 1 gauge, 2 ratio, 3 time */
	int error;		/* 1: an error kind (errors is their sum) */
	char num[32], den[32];	/* ratio: the two metrics; time: per what; "" */
	char help[96];
};

/* One interval of the sampler. */
struct bt_sample {
	int cell, rep;
	double t;		/* s since the rep started (end of the interval) */
	double dt;		/* interval length, s */
	double ops_s, bytes_s;	/* rates over the interval */
	uint64_t ops;		/* ops completed so far in this rep */
	uint64_t lat_count;	/* latencies recorded in the interval */
	uint64_t p50, p90, p99, p999, max;	/* ns; 0 when lat_count == 0 */
	double cpu_pct;		/* process CPU (user+sys) over the interval, % of one CPU */
	double user_pct, sys_pct;
};

/* One worker thread of one rep. */
struct bt_worker_result {
	uint64_t ops;
	int cpu_first, cpu_last;	/* sched_getcpu() at start and end; -1 unknown */
	int pinned;			/* CPU it was pinned to, -1 when not pinned */
	int pid;			/* the process it ran in; 0 unknown (older recordings) */
};

/*
 * A rep's latencies once it is in bt_results: the figures tables and exports
 * show, and the non-zero buckets. A dense histogram is 270 KiB, mostly
 * zeros, and a sweep keeps thousands of reps: a rep keeps this instead.
 */
struct bt_rep_lat {
	uint64_t count, min, max;	/* count 0: no latencies */
	uint64_t p50, p90, p99, p999;
	double mean, sum;
	uint32_t n;			/* non-zero buckets */
	uint32_t *idx;			/* [n], in cnt's block */
	uint64_t *cnt;			/* owned [n], then idx: free(cnt) frees both */
};

/* One finished repetition. */
struct bt_rep {
	int cell, rep;		/* rep counts warmups first: 0..warmup-1 are warmups */
	int warmup;		/* 1: not counted */
	int ok;			/* 1: ran and verified */
	/*
	 * "ok" or what failed. A producer points it at its own text (NULL:
	 * "ok" when ok) for bt_results_add_rep, which copies it; in
	 * bt_results it is owned, or bt_rep_ok for the common "ok", so a rep
	 * that says nothing more costs no message buffer.
	 */
	const char *verify;
	uint64_t ops, bytes, errors;
	double wall_s, user_s, sys_s;
	double vcsw, ivcsw;	/* context switches, voluntary and involuntary */
	double ops_s, bytes_s;
	uint32_t lat_every;	/* 1 in N ops timed; 0 = latency off */
	char engine[16];	/* the engine the workers ran on ("processes"); "": not said */
	/*
	 * What else the machine did during the rep (core/noise.h), -1 where
	 * unknown (a recording older than the fields, a machine that does not
	 * say): steal in % of all CPU time, the mean of runnable tasks not the
	 * run's, the mean CPU frequency at its end (0 unknown), throttle events.
	 */
	double steal_pct, runq, freq_mhz, throttled;
	double metric[BT_RES_METRICS];	/* by bt_results.metrics index, as recorded: counters,
					 * gauges and times raw (times in ns, total), ratios derived
					 * by bt_results_add_rep (NAN for 0/0) */
	struct bt_hist *hist;	/* owned; NULL when latency was off; always NULL in bt_results */
	struct bt_rep_lat lat;	/* in bt_results: hist, made sparse by bt_results_add_rep */
	struct bt_hist *ch_hist[BT_RES_LAT_CH];	/* extra channels, as hist (NULL: none) */
	struct bt_rep_lat ch_lat[BT_RES_LAT_CH];	/* extra channels, as lat */
	int nworkers;
	struct bt_worker_result *workers;	/* owned, [nworkers] */
};

/*
 * The thresholds past which a cell's figures are marked as noisy in the
 * tables (bt_cell.noise): sd in % of the mean, mean steal in %, the
 * bimodality gap as a fraction of the median (stats.h bt_stats_bimodal),
 * and Tukey's factor for outlier reps.
 */
#define BT_NOISE_CV_PCT 5.0
#define BT_NOISE_STEAL_PCT 2.0
#define BT_NOISE_BIMODAL_GAP 0.05
#define BT_NOISE_TUKEY_K 1.5
#define BT_AUTO_MIN_REPS 3	/* reps=auto: the fewest counted reps before the interval may stop it */

/* bt_cell.noise: why a cell's number is not to be trusted as it stands. */
enum {
	BT_NOISE_SD = 1 << 0,		/* sd% (cv_pct) past BT_NOISE_CV_PCT */
	BT_NOISE_STEAL = 1 << 1,	/* steal_pct past BT_NOISE_STEAL_PCT */
	BT_NOISE_BIMODAL = 1 << 2,	/* the reps fall in two groups */
	BT_NOISE_FIRST_SLOW = 1 << 3,	/* the first counted rep is a slow outlier */
	BT_NOISE_CI_WIDE = 1 << 4,	/* reps=auto: the cap came before the target interval */
};

/* bt_cell.stop under reps=auto. */
enum { BT_STOP_FIXED, BT_STOP_CI, BT_STOP_CAP };

/* One cell: the summary over its counted reps. */
struct bt_cell {
	int index;
	char label[256];			/* "threads=4 notify=signal" */
	char values[BT_RES_AXES][BT_RES_TEXT];	/* value on each axis */
	int total_reps;		/* reps planned (counted ones); reps=auto: the cap (max_reps) */
	double ci_target;	/* reps=auto: the target 95% half-width in % of the median; 0 fixed reps */
	int nreps;		/* counted reps finished */
	int done;		/* 1: all reps finished and summarized (reps=auto: target or cap reached) */
	int stop;		/* BT_STOP_*: why a reps=auto cell ended (FIXED while it runs) */
	/*
	 * Noise over the counted reps (of ops_s), set by summarize: the
	 * sd in % of the median (the tables' sd%), the reps outside Tukey's fences (slow,
	 * fast side), the bimodality flag, the mean steal % (-1 unknown), the
	 * 95% half-width in % of the median, and noise = BT_NOISE_* marks.
	 */
	double cv_pct, steal_pct, ci_pct;
	int out_slow, out_fast, bimodal;
	unsigned noise;
	int failed;		/* 1: a rep failed (error in bt_rep.verify) */
	struct bt_summary ops_s, bytes_s, wall_s, user_s, sys_s, vcsw, ivcsw;
	struct bt_summary cpu_s;	/* user + sys per rep */
	struct bt_summary par;		/* (user + sys) / wall per rep: effective parallelism */
	struct bt_summary metric[BT_RES_METRICS];	/* by bt_results.metrics index: of
					 * bt_results_metric_rep over the counted reps that have a
					 * value (n = 0: none has) */
	struct bt_hist *hist;	/* owned; counted reps merged; NULL when latency was off */
	struct bt_hist *ch_hist[BT_RES_LAT_CH];	/* owned; extra channels likewise; NULL: none */
	uint32_t lat_every;	/* largest 1-in-N of its reps */
	char verify[BT_ERR_MAX];	/* what its last counted rep's check said ("ok (timeouts: 3)") */
};

struct bt_results {
	char version[32];		/* benchtop version that ran it */
	uint64_t start_unix_ns;
	char workload[64];
	char unit[32];			/* what an op is: "items", "bytes", "requests" */
	char lat_what[96];		/* what a latency is: "end-to-end per message" */
	char baseline[64];		/* the cell speedups are relative to: "mode=serial"; "" */
	double timer_cost_ns;
	char *plan_json;		/* owned: bt_plan_to_json of the plan */
	struct bt_sysinfo machine;
	int naxes;
	char axes[BT_RES_AXES][BT_RES_TEXT];	/* axes[0] makes the rows of the tables */
	int axis_workers[BT_RES_AXES];	/* 1: the axis counts workers (BT_PF_WORKERS) */
	int nmetrics;
	struct bt_metric_info metrics[BT_RES_METRICS];	/* the workload's typed metrics */
	int nch;			/* extra latency channels */
	char ch_names[BT_RES_LAT_CH][32];	/* their names ("incr", "read") */
	int ncells;
	struct bt_cell *cells;		/* owned [ncells] */
	int nreps, reps_cap;
	struct bt_rep *reps;		/* owned, in the order they finished */
	int nsamples, samples_cap;
	struct bt_sample *samples;	/* owned */
	char status[16];		/* "running", "complete", "interrupted", "failed" */
	char error[BT_ERR_MAX];		/* why it failed or was interrupted; "" */
	int torn;			/* reader: the last line was cut short */
	char note[BT_ERR_MAX];		/* reader: what it ignored ("unknown fields: rep.foo"); "" */
};

/* The shared "ok" of bt_rep.verify in bt_results (never freed). */
extern const char bt_rep_ok[];

/* Zero res and allocate ncells cells (each with index set). 0 or -ENOMEM. */
int bt_results_init(struct bt_results *res, int ncells);
void bt_results_destroy(struct bt_results *res);

/*
 * Append a copy of *r (r->verify copied, "ok" shared), deriving its ratio
 * metrics from their num and den (res->metrics must be set first); ownership
 * of r->hist and r->workers moves to res,
 * also on failure (-EINVAL for a cell out of range, -ENOMEM: then they are
 * freed), and both are set to NULL in *r. The histogram is merged into its
 * cell's (when the rep counts), kept as r->lat (sparse) and freed: memory
 * per rep follows its occupied buckets, not the histogram's 270 KiB.
 */
int bt_results_add_rep(struct bt_results *res, struct bt_rep *r);
int bt_results_add_sample(struct bt_results *res, const struct bt_sample *s);

/*
 * Recompute cell c's summary from its counted (non-warmup, ok) reps: the
 * statistics, nreps, failed, the noise figures (the merged histogram is kept
 * up to date by bt_results_add_rep). Sets done when nreps has reached
 * total_reps or, with ci_target set (reps=auto), when at least
 * BT_AUTO_MIN_REPS reps give a 95% half-width within ci_target % of the
 * median (stop says which).
 */
int bt_results_summarize_cell(struct bt_results *res, int c);

/* Every cell that has reps, in one pass over the reps (readers: linear, not cells x reps). */
int bt_results_summarize_all(struct bt_results *res);

/*
 * The noise marks of a cell as one line of text: "sd 7.2%, bimodal (4 + 3
 * reps), steal 3.1%, first rep slow" ("" when none). Returns buf.
 */
char *bt_cell_noise_text(const struct bt_cell *cell, char *buf, size_t n);

/*
 * How a reps=auto cell ended: "ci 1.4% after 9 reps" or "cap 30 reached,
 * ci 3.1%"; "" for fixed reps or a cell not done. Returns buf.
 */
char *bt_cell_stop_text(const struct bt_cell *cell, char *buf, size_t n);

/* dst += the latencies in lat. */
void bt_rep_lat_add(struct bt_hist *dst, const struct bt_rep_lat *lat);

/* Number of cells with done set. */
int bt_results_cells_done(const struct bt_results *res);

/* Index of the metric called name in res->metrics, or -1. */
int bt_results_metric_find(const struct bt_results *res, const char *name);

/*
 * Rep r's value of metric m as it is shown and summarized: a counter or a
 * gauge as recorded; a ratio num / den of the same rep (times 100 when its
 * unit is "%"); a time in ns, divided by its den metric when it has one (mean
 * ns per event). NAN when it does not exist: a ratio or a per-event time
 * whose den is 0 (0/0 is no ratio), or a num/den name the results lack.
 */
double bt_results_metric_rep(const struct bt_results *res, const struct bt_rep *r, int m);

/* The same over a metric table mis[nm] and one rep's raw values metric[nm] (the recorder). */
double bt_metric_value(const struct bt_metric_info *mis, int nm, const double *metric, int m);

/*
 * Metric m's value as text with its unit: "3", "1.20k keys", "45.0%",
 * "850ns"; "-" for NAN. Times use bt_fmt_ns, bytes bt_fmt_bytes.
 */
char *bt_results_metric_fmt(const struct bt_metric_info *mi, double v, char *buf, size_t n);

/* A metric's name with its unit for a CSV column: "timeouts_waits", "connect_ns", "hit_ratio_pct". */
char *bt_results_metric_stem(const struct bt_metric_info *mi, char *buf, size_t n);

/*
 * A cell's value on an axis as a number: plain ("100", "2.5"), a size in
 * bytes ("64K") or a duration in ns ("5ms"). 0, or -EINVAL for other text.
 */
int bt_results_axis_value(const char *text, double *out);

/*
 * 1 when axis a has at least two values and every cell's value on it is a
 * number (bt_results_axis_value): a scaling chart and speedups apply.
 */
int bt_results_axis_numeric(const struct bt_results *res, int a);

/*
 * The plan's fixed values: "threads=64 work=0" - every parameter of plan
 * (the plan object of a recording, or plan_json's text) that has one value
 * and describes what ran rather than how it was measured. The run controls
 * (reps, warmup, duration, ops, lat, lat_every, sample, rows) are left out,
 * and so are pin=none and as=threads or auto, which change nothing; swept parameters
 * are left out too (the cell labels name them). Values are in the plan's
 * order, booleans as on/off. buf is "" when there is nothing or the plan
 * cannot be read. Returns buf.
 */
struct json_t;
char *bt_results_fixed_of(const struct json_t *plan, char *buf, size_t n);
char *bt_results_fixed(const char *plan_json, char *buf, size_t n);

/*
 * What to call cell c: its label ("threads=4 lock=spin"); with no swept
 * axes, the fixed values ("threads=64"); else the workload name.
 */
char *bt_results_cell_name(const struct bt_results *res, int c, char *buf, size_t n);

#endif
