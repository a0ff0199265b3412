/*
 * runner.c - the run API (see runner.h): a controller thread walks the cells
 * of a plan, runs warmup + reps of each on an engine, keeps the
 * results and writes the recording as they arrive. It names no engine: as=
 * picks one (engine.h), and the workload's run, cell and rep hooks frame the
 * cells (workload.h).
 */
#include "engines/runner.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_config.h"
#include "core/clock.h"
#include "core/noise.h"
#include "core/ratewin.h"
#include "core/recording.h"
#include "core/sysinfo.h"
#include "core/topo.h"
#include "engines/engine.h"
#include "engines/engine_pick.h"
#include "engines/pin.h"

enum {
	C_REPS, C_WARMUP, C_DURATION, C_OPS, C_PIN, C_LAT, C_LAT_EVERY, C_SAMPLE, C_ROWS, C_AS,
	C_ORDER, C_SEED, C_MAX_REPS, C_CI, C_COUNT
};

enum { ORDER_SEQUENTIAL, ORDER_INTERLEAVED, ORDER_SHUFFLED };

static const char *const order_names[] = { "sequential", "interleaved", "shuffled", NULL };

/* ci=: a percentage of the median, "2%" or "2", above 0 and at most 100. */
static int check_ci(const char *text, struct bt_err *err)
{
	char *end;
	double v = strtod(text, &end);

	if (end != text && (*end == '\0' || strcmp(end, "%") == 0) && v > 0 && v <= 100)
		return 0;
	return bt_err_set(err, -EINVAL, "ci=%s: must be a percentage of the median like 2%% or 0.5%% (0..100%%)",
			  text);
}

/* ci='s value in % (validated by check_ci). */
static double ci_value(const char *text)
{
	return strtod(text, NULL);
}

const struct bt_param bt_common_params[] = {
	[C_REPS] = { .name = "reps", .kind = BT_P_INT, .def = "5", .min = 1, .max = 1000,
		     .help = "measured repetitions of every cell (auto: until the 95% interval is within ci=, at most max_reps=)",
		     .zero_word = "auto", .flags = BT_PF_NOSWEEP },
	[C_WARMUP] = { .name = "warmup", .kind = BT_P_INT, .def = "1", .min = 0, .max = 100,
		       .help = "repetitions run first and not counted", .flags = BT_PF_NOSWEEP },
	[C_DURATION] = { .name = "duration", .kind = BT_P_DURATION, .def = "0", .min = 0,
			 .max = 24 * 3600 * 1000000000ll,
			 .help = "stop each rep after this long (0: the workload's default rule)",
			 .flags = BT_PF_NOSWEEP },
	[C_OPS] = { .name = "ops", .kind = BT_P_INT, .def = "0", .min = 0, .max = 1000000000000000ll,
		    .help = "stop each rep after this many ops in total (0: the workload's default rule)",
		    .flags = BT_PF_NOSWEEP },
	[C_PIN] = { .name = "pin", .kind = BT_P_STRING, .def = "none",
		    .help = "CPU pinning: none, compact, scatter or list:0,2,4-7",
		    .ticks = "none,compact,scatter", .check = bt_pin_check,
		    .flags = BT_PF_QUIET | BT_PF_LIVE },
	[C_LAT] = { .name = "lat", .kind = BT_P_BOOL, .def = "on",
		    .help = "record latencies (an axis: lat=off,on order=interleaved measures what timing costs)",
		    .flags = BT_PF_QUIET },
	[C_LAT_EVERY] = { .name = "lat_every", .kind = BT_P_INT, .def = "0", .min = 0, .max = 65536,
			  .help = "time 1 in N ops (0: adapt so timing costs ~1% of an op)",
			  .flags = BT_PF_QUIET },
	[C_SAMPLE] = { .name = "sample", .kind = BT_P_DURATION, .def = "100ms", .min = 10000000ll,
		       .max = 10000000000ll, .help = "interval of the live samples",
		       .flags = BT_PF_NOSWEEP },
	[C_ROWS] = { .name = "rows", .kind = BT_P_STRING, .def = "",
		     .help = "the swept parameter whose values make the table rows (default: the first swept)",
		     .flags = BT_PF_NOSWEEP | BT_PF_ROWS },
	[C_AS] = { .name = "as", .kind = BT_P_ENUM, .def = "auto", .choices = bt_as_choices,
		   .help = "run the workers as threads or as forked processes (where the workload can); auto: as the cell's values say (grep how=processes), else threads",
		   .flags = BT_PF_QUIET },
	[C_ORDER] = { .name = "order", .kind = BT_P_ENUM, .def = "sequential", .choices = order_names,
		      .help = "the order of the reps: each cell's in a row, rep 1 of every cell then rep 2 ..., or each round shuffled",
		      .flags = BT_PF_NOSWEEP },
	[C_SEED] = { .name = "order_seed", .kind = BT_P_INT, .def = "0", .min = 0, .max = 2147483647,
		     .help = "order=shuffled: the seed of the order (0: one is picked and recorded)",
		     .flags = BT_PF_NOSWEEP },
	[C_MAX_REPS] = { .name = "max_reps", .kind = BT_P_INT, .def = "30", .min = 3, .max = 1000,
			 .help = "reps=auto: the most reps of a cell", .flags = BT_PF_NOSWEEP },
	[C_CI] = { .name = "ci", .kind = BT_P_STRING, .def = "2%", .check = check_ci,
		   .help = "reps=auto: the target 95% interval half-width, in % of the median",
		   .flags = BT_PF_NOSWEEP },
};

const size_t bt_common_nparams = C_COUNT;

int bt_run_plan_init(struct bt_plan *pl, const struct bt_workload *wl, struct bt_err *err)
{
	return bt_plan_init(pl, wl->name, bt_common_params, bt_common_nparams, wl->params,
			    wl->nparams, err);
}

int bt_run_plan_finalize(struct bt_plan *pl, const struct bt_workload *wl, struct bt_err *err)
{
	if (wl->stop_default == NULL || pl->vals[C_DURATION][0].i || pl->vals[C_OPS][0].i)
		return 0;
	return bt_plan_set_arg(pl, wl->stop_default, err);
}

/* The value of common parameter i in a plan (never swept: value 0). */
static const struct bt_value *common(const struct bt_plan *pl, int i)
{
	return &pl->vals[i][0];
}

int bt_run_validate(const struct bt_workload *wl, const struct bt_plan *pl, struct bt_err *err)
{
	const struct bt_value *cv[BT_PLAN_MAX_PARAMS];
	const struct bt_value *dur = common(pl, C_DURATION), *ops = common(pl, C_OPS);
	const char *why = wl->unavailable ? wl->unavailable() : NULL;
	struct bt_topo topo;
	int rc = 0;

	if (why != NULL)
		return bt_err_set(err, -ENOTSUP, "%s is unavailable: %s", wl->name, why);
	if (wl->stop_default == NULL && (dur->i || ops->i))
		return bt_err_set(err, -EINVAL,
				  "%s=%s: %s does a fixed amount of work set by its own parameters; duration= and ops= do not apply",
				  dur->i ? "duration" : "ops", dur->i ? dur->text : ops->text, wl->name);
	if (dur->i && ops->i)
		return bt_err_set(err, -EINVAL,
				  "duration=%s ops=%s: give one stop rule, not both", dur->text, ops->text);
	if (bt_topo_load(&topo, err) < 0)
		return -EINVAL;
	for (int c = 0; c < pl->ncells && rc == 0; c++) {
		int cpus[1024];

		bt_plan_cell(pl, c, cv);
		rc = bt_engine_pick(wl, cv[C_AS], cv + bt_common_nparams, err) < 0 ? -EINVAL : 0;
		if (rc == 0 && wl->check != NULL)
			rc = wl->check(cv + bt_common_nparams, err);
		/* The pin syntax is checked at parse time; here the CPUs must exist. */
		if (rc == 0 && bt_pin_plan(&topo, cv[C_PIN]->text, 1, cpus, err) < 0)
			rc = -EINVAL;
	}
	bt_topo_destroy(&topo);
	return rc;
}

struct bt_run {
	const struct bt_workload *wl;
	char verify[BT_ERR_MAX];	/* the running rep's bt_rep.verify (runner thread) */
	struct bt_plan plan;		/* our copy (values re-parsed from JSON) */
	struct bt_results res;		/* under lock */
	pthread_mutex_t lock;
	pthread_t thread;
	int have_thread;
	_Atomic int cancel;
	_Atomic int finished;
	int status;			/* 0, -EINTR, -EIO */
	struct bt_recw rec;
	int recording;
	int rec_error;			/* bt_recw_close's result */
	char record_path[4096];
	struct bt_topo topo;
	double clock_cost;
	uint64_t t_start;

	struct bt_noise noise;		/* the running rep's (controller and sampler, never at once) */

	struct bt_hist *live;		/* under lock: the rep in progress, intervals merged */
	struct bt_hist *live_ch[BT_LAT_CH_MAX];	/* under lock: the same per extra channel */
	int live_cell, live_rep;	/* under lock; -1 before the first rep */

	pthread_mutex_t snap_lock;	/* never taken by workers */
	struct bt_snapshot snap;
	uint64_t rep_t0;		/* under snap_lock: when the running rep started */
	/*
	 * For the ETA: the mean rep time of the latest cell. A sweep usually
	 * grows (more threads, bigger blocks), so the latest cell predicts the
	 * rest better than the mean over all of them.
	 */
	double rep_time_sum;		/* of the reps of cell rep_time_cell (all cells unless sequential) */
	int reps_timed;
	int rep_time_cell;
	int reps_done;			/* under snap_lock: reps finished, warmups included */
};

static void on_sample(void *arg, const struct bt_sample *s, const uint64_t *ops, int n)
{
	struct bt_run *r = arg;

	bt_noise_tick(&r->noise, n + 1);	/* the workers and the sampler are ours */
	pthread_mutex_lock(&r->snap_lock);
	r->snap.last = *s;
	r->snap.sample_seq++;
	r->snap.nworkers = n;
	for (int i = 0; i < n && i < BT_SNAP_WORKERS; i++)
		r->snap.worker_ops[i] = ops[i];
	pthread_mutex_unlock(&r->snap_lock);

	pthread_mutex_lock(&r->lock);
	bt_results_add_sample(&r->res, s);
	pthread_mutex_unlock(&r->lock);
	if (r->recording)
		bt_recw_sample(&r->rec, s);
}

static void on_interval_hist(void *arg, const struct bt_hist *ival)
{
	struct bt_run *r = arg;

	pthread_mutex_lock(&r->lock);
	if (r->live != NULL)
		bt_hist_add(r->live, ival);
	pthread_mutex_unlock(&r->lock);
}

static void on_interval_ch(void *arg, int ch, const struct bt_hist *ival)
{
	struct bt_run *r = arg;

	pthread_mutex_lock(&r->lock);
	if (ch >= 1 && ch <= BT_LAT_CH_MAX && r->live_ch[ch - 1] != NULL)
		bt_hist_add(r->live_ch[ch - 1], ival);
	pthread_mutex_unlock(&r->lock);
}

static void on_metrics(void *arg, const uint64_t *metric, int nm, uint64_t errors)
{
	struct bt_run *r = arg;

	pthread_mutex_lock(&r->snap_lock);
	r->snap.metrics_cell = r->snap.cell;
	r->snap.metrics_rep = r->snap.rep;
	r->snap.nmetrics = nm;
	memcpy(r->snap.metric, metric, sizeof(*metric) * (size_t)nm);
	r->snap.errors = errors;
	pthread_mutex_unlock(&r->snap_lock);
}

int bt_run_live_hist(struct bt_run *r, struct bt_hist *dst, int *cell, int *rep)
{
	return bt_run_live_hist_ch(r, 0, dst, cell, rep);
}

int bt_run_live_hist_ch(struct bt_run *r, int ch, struct bt_hist *dst, int *cell, int *rep)
{
	struct bt_hist *src = NULL;	/* set once by bt_run_start: no lock needed to read */
	int rc = -ENODATA;

	if (ch == 0)
		src = r->live;
	else if (ch >= 1 && ch <= BT_LAT_CH_MAX)
		src = r->live_ch[ch - 1];
	pthread_mutex_lock(&r->lock);
	if (src != NULL && r->live_cell >= 0) {
		bt_hist_reset(dst);
		bt_hist_add(dst, src);
		*cell = r->live_cell;
		*rep = r->live_rep;
		rc = 0;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

/* A new rep starts: its live histogram starts empty. */
static void live_reset(struct bt_run *r, int cell, int rep)
{
	pthread_mutex_lock(&r->lock);
	if (r->live != NULL)
		bt_hist_reset(r->live);
	for (int k = 0; k < BT_LAT_CH_MAX; k++)
		if (r->live_ch[k] != NULL)
			bt_hist_reset(r->live_ch[k]);
	r->live_cell = cell;
	r->live_rep = rep;
	pthread_mutex_unlock(&r->lock);
}

static void set_snap(struct bt_run *r, int cell, int rep, enum bt_run_state st)
{
	pthread_mutex_lock(&r->snap_lock);
	if (st == BT_RUN_RUNNING)
		r->rep_t0 = 0;		/* until this rep's setup is done */
	r->snap.cell = cell;
	r->snap.rep = rep;
	r->snap.state = st;
	pthread_mutex_unlock(&r->snap_lock);
}

/*
 * Run one rep of cell c. Fills *rep; returns 0 when it ran (rep->ok says
 * whether it verified), or -EINTR when cancelled.
 */
static int run_rep(struct bt_run *r, const struct bt_value *const *cv, const struct bt_job *cell,
		   int c, int i, struct bt_rep *rep)
{
	const struct bt_workload *wl = r->wl;
	const struct bt_plan *pl = &r->plan;
	struct bt_job job = {
		.params = cv + bt_common_nparams,
		.run_state = cell->run_state,
		.cell_state = cell->cell_state,
		.pshared = cell->pshared,
		.engine = cell->engine,
		.ops = (uint64_t)common(pl, C_OPS)->i,
		.duration_ns = (uint64_t)common(pl, C_DURATION)->i,
		.lat_on = (int)cv[C_LAT]->i,
		.cancel = &r->cancel,
	};
	struct bt_engine_out out = { 0 };
	struct bt_noise_out nout;
	struct bt_err err = { "" };
	int *cpus = NULL, *team_cpus = NULL;
	int rc, s0;

	memset(rep, 0, sizeof(*rep));
	rep->verify = r->verify;	/* bt_results_add_rep copies it */
	rep->cell = c;
	rep->rep = i;
	rep->warmup = i < (int)common(pl, C_WARMUP)->i;
	rep->steal_pct = rep->runq = rep->throttled = -1;
	snprintf(rep->engine, sizeof(rep->engine), "%s", bt_engine_names[job.engine]);
	snprintf(r->verify, sizeof(r->verify), "not run");

	if (wl->setup(&job, &err) < 0) {
		snprintf(r->verify, sizeof(r->verify), "setup: %s", err.msg);
		bt_job_shared_free_all(&job);
		/* A long setup that saw the cancel (bt_job_cancelled) gave up: interrupted, not failed. */
		if (atomic_load(&r->cancel))
			return -EINTR;
		return 0;
	}
	pthread_mutex_lock(&r->snap_lock);
	r->snap.counted_first = job.counted_n > 0 ? job.counted_first : 0;
	r->snap.counted_n = job.counted_n > 0 ? job.counted_n : job.nworkers;
	r->snap.rep_total_ops = job.total_ops;
	r->snap.rep_duration_s = (double)job.duration_ns / 1e9;
	r->snap.rep_ops_quota = job.ops;
	r->rep_t0 = bt_now_ns();
	pthread_mutex_unlock(&r->snap_lock);
	cpus = malloc(sizeof(*cpus) * (size_t)(job.nworkers > 0 ? job.nworkers : 1));
	if (cpus == NULL || bt_pin_plan(&r->topo, cv[C_PIN]->text, job.nworkers, cpus, &err) < 0) {
		snprintf(r->verify, sizeof(r->verify), "%s", cpus ? err.msg : "out of memory");
		goto out;
	}
	/* The CPUs of a workload's own threads (workload.h: team), same policy. */
	if (job.team > 0 && strcmp(cv[C_PIN]->text, "none") != 0) {
		team_cpus = malloc(sizeof(*team_cpus) * (size_t)job.team);
		if (team_cpus == NULL ||
		    bt_pin_plan(&r->topo, cv[C_PIN]->text, job.team, team_cpus, &err) < 0) {
			snprintf(r->verify, sizeof(r->verify), "%s",
				 team_cpus ? err.msg : "out of memory");
			goto out;
		}
		job.team_cpus = team_cpus;
	}
	if (job.lat_on && (out.hist = bt_hist_new()) == NULL) {
		snprintf(r->verify, sizeof(r->verify), "out of memory");
		goto out;
	}
	for (int k = 0; job.lat_on && k < r->res.nch; k++) {
		if ((out.ch_hist[k] = bt_hist_new()) == NULL) {
			snprintf(r->verify, sizeof(r->verify), "out of memory");
			goto out;
		}
	}

	struct bt_engine_cfg cfg = {
		.engine = bt_engine_get(job.engine),
		.worker = wl->worker,
		.job = &job,
		.cpus = strcmp(cv[C_PIN]->text, "none") ? cpus : NULL,
		.lat_on = job.lat_on,
		.nch = r->res.nch,
		.lat_every = (uint32_t)cv[C_LAT_EVERY]->i,
		.clock_cost_ns = r->clock_cost,
		.sample_ns = (uint64_t)common(pl, C_SAMPLE)->i,
		.on_sample = on_sample,
		.on_interval_hist = on_interval_hist,
		.on_interval_ch = on_interval_ch,
		.on_metrics = on_metrics,
		.arg = r,
		.cancel = &r->cancel,
		.metrics = wl->metrics,
		.nmetrics = (int)wl->nmetrics,
		.cell = c,
		.rep = i,
	};
	pthread_mutex_lock(&r->lock);
	s0 = r->res.nsamples;	/* this rep's samples follow */
	pthread_mutex_unlock(&r->lock);
	bt_noise_begin(&r->noise);
	rc = bt_engine_run(&cfg, &out, &err);
	job.workers_metric = out.metric;	/* for verify */
	bt_noise_end(&r->noise, &nout);
	rep->steal_pct = nout.steal_pct;
	rep->runq = nout.runnable_mean;
	rep->freq_mhz = nout.freq_mhz;
	rep->throttled = (double)nout.throttled;
	if (rc < 0) {
		snprintf(r->verify, sizeof(r->verify), "%s", err.msg);
	} else if (out.cancelled) {
		snprintf(r->verify, sizeof(r->verify), "cancelled");
	} else if (out.failed) {
		snprintf(r->verify, sizeof(r->verify), "%s", err.msg);
	} else if (wl->verify != NULL && wl->verify(&job, &err) < 0) {
		snprintf(r->verify, sizeof(r->verify), "verify: %s", err.msg);
	} else {
		rep->ok = 1;
		snprintf(r->verify, sizeof(r->verify), "%s", err.msg[0] ? err.msg : "ok");
	}
	rep->ops = out.ops;
	rep->bytes = out.bytes;
	rep->errors = out.errors;
	rep->wall_s = out.wall_s;
	rep->user_s = out.user_s;
	rep->sys_s = out.sys_s;
	rep->vcsw = out.vcsw;
	rep->ivcsw = out.ivcsw;
	if (out.wall_s > 0) {
		rep->ops_s = (double)out.ops / out.wall_s;
		rep->bytes_s = (double)out.bytes / out.wall_s;
	}
	rep->lat_every = out.lat_every;
	/* The rate over the rep's sample windows (ratewin.h: why the sample interval). */
	pthread_mutex_lock(&r->lock);
	bt_rate_windows(r->res.samples + s0, r->res.nsamples - s0, (double)cfg.sample_ns / 1e9,
			(double)cfg.sample_ns / 1e9, &rep->rate);
	pthread_mutex_unlock(&r->lock);
	for (size_t m = 0; m < wl->nmetrics && m < BT_METRICS_MAX; m++)
		rep->metric[m] = (double)(out.metric[m] + job.metric[m]);
	rep->hist = out.hist;
	out.hist = NULL;
	for (int k = 0; k < BT_LAT_CH_MAX; k++) {
		rep->ch_hist[k] = out.ch_hist[k];
		out.ch_hist[k] = NULL;
	}
	rep->nworkers = out.nworkers;
	rep->workers = out.workers;
	out.workers = NULL;
out:
	if (wl->teardown != NULL)
		wl->teardown(&job);
	bt_job_shared_free_all(&job);
	bt_hist_free(out.hist);
	for (int k = 0; k < BT_LAT_CH_MAX; k++)
		bt_hist_free(out.ch_hist[k]);
	free(out.workers);
	free(cpus);
	free(team_cpus);
	return out.cancelled ? -EINTR : 0;
}

/* Note why the run failed (the first reason only) and that it did. */
static void run_failed(struct bt_run *r, const char *what, const char *msg)
{
	pthread_mutex_lock(&r->lock);
	if (r->res.error[0] == '\0')
		snprintf(r->res.error, sizeof(r->res.error), "%s: %s", what, msg);
	pthread_mutex_unlock(&r->lock);
	r->status = -EIO;
}

/*
 * The run level (workload.h struct bt_run_ctx): every cell's workload
 * values for run_setup. cells is malloc'd [ncells * BT_PLAN_MAX_PARAMS]
 * and rows [ncells]; both are freed by run_end.
 */
struct run_level {
	struct bt_run_ctx ctx;
	const struct bt_value **cells;
	const struct bt_value *const **rows;
	int held;			/* run_setup succeeded: run_teardown is owed */
};

static int run_begin(struct bt_run *r, struct run_level *rl)
{
	const struct bt_plan *pl = &r->plan;
	struct bt_err err = { "" };

	rl->cells = calloc((size_t)pl->ncells * BT_PLAN_MAX_PARAMS, sizeof(*rl->cells));
	rl->rows = calloc((size_t)pl->ncells, sizeof(*rl->rows));
	if (rl->cells == NULL || rl->rows == NULL) {
		run_failed(r, "run setup", "out of memory");
		return -ENOMEM;
	}
	for (int c = 0; c < pl->ncells; c++) {
		const struct bt_value **cv = rl->cells + (size_t)c * BT_PLAN_MAX_PARAMS;

		bt_plan_cell(pl, c, cv);
		rl->rows[c] = cv + bt_common_nparams;
	}
	rl->ctx.ncells = pl->ncells;
	rl->ctx.cells = rl->rows;
	if (r->wl->run_setup == NULL)
		return 0;
	if (r->wl->run_setup(&rl->ctx, &err) < 0) {
		run_failed(r, "run setup", err.msg);
		return -EIO;
	}
	rl->held = 1;
	return 0;
}

static void run_end(struct bt_run *r, struct run_level *rl)
{
	if (rl->held && r->wl->run_teardown != NULL)
		r->wl->run_teardown(&rl->ctx);
	rl->held = 0;
	free(rl->cells);
	free(rl->rows);
}

/*
 * The cell level of one cell (workload.h): its job, whether cell_teardown
 * is owed, and how far its reps have come.
 */
struct cell_level {
	const struct bt_value *const *cv;	/* its values, common ones first (the run level's) */
	struct bt_job job;
	int held;		/* cell_setup succeeded: cell_teardown is owed */
	int next;		/* index of its next rep (warmups first) */
	int counted;		/* counted reps finished */
	int ended;		/* done or failed, and its cell line written */
};

/* The order's state: the cell levels, the order they were set up in, the shuffle. */
struct order {
	struct cell_level *cl;	/* [ncells] */
	int *held_order;	/* [ncells]: cells in the order of their cell_setup */
	int nheld;
	uint64_t rng;		/* order=shuffled: splitmix64 state */
};

/* splitmix64: a small, well-mixed generator; the seed fixes the whole order. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Set up cell c's level unless it is held. 0, -EINTR (cancelled) or -EIO
 * (r->status set). Its values are the run level's (rl->cells), which
 * outlive every cell.
 */
static int cell_open(struct bt_run *r, struct order *o, int c, const struct run_level *rl)
{
	const struct bt_workload *wl = r->wl;
	struct cell_level *cl = &o->cl[c];
	const struct bt_value *const *cv = rl->cells + (size_t)c * BT_PLAN_MAX_PARAMS;
	struct bt_err err = { "" };

	if (cl->held)
		return 0;
	if (atomic_load(&r->cancel)) {
		r->status = -EINTR;
		return -EINTR;
	}
	cl->cv = cv;
	cl->job = (struct bt_job){ .params = rl->rows[c], .run_state = rl->ctx.state,
				   .engine = bt_engine_pick(wl, cv[C_AS], rl->rows[c], &err) };
	cl->job.pshared = cl->job.engine == BT_ENGINE_PROCESSES;
	if (cl->job.engine < 0 ||
	    (wl->cell_setup != NULL && wl->cell_setup(&cl->job, &err) < 0)) {
		char what[sizeof(r->res.cells[c].label) + 16];

		snprintf(what, sizeof(what), "%s: cell setup",
			 r->res.cells[c].label[0] ? r->res.cells[c].label : "cell 1");
		run_failed(r, what, err.msg);
		return -EIO;
	}
	cl->held = 1;
	o->held_order[o->nheld++] = c;
	return 0;
}

/* Tear cell c's level down when it is held. */
static void cell_close(struct bt_run *r, struct order *o, int c)
{
	struct cell_level *cl = &o->cl[c];

	if (!cl->held)
		return;
	if (r->wl->cell_teardown != NULL)
		r->wl->cell_teardown(&cl->job);
	cl->held = 0;
}

/*
 * Summarize cell c and, when it has ended (done or failed), write its cell
 * line once. Under reps=auto this runs after every counted rep: the cell's
 * interval decides whether it is done (results.h bt_results_summarize_cell).
 */
static void cell_progress(struct bt_run *r, struct order *o, int c)
{
	struct bt_cell *cell = &r->res.cells[c];
	int ended;

	pthread_mutex_lock(&r->lock);
	bt_results_summarize_cell(&r->res, c);
	ended = cell->done || cell->failed;
	pthread_mutex_unlock(&r->lock);
	if (ended && !o->cl[c].ended) {
		o->cl[c].ended = 1;
		if (r->recording)
			bt_recw_cell(&r->rec, cell);
	}
	pthread_mutex_lock(&r->snap_lock);
	r->snap.cells_done = bt_results_cells_done(&r->res);
	pthread_mutex_unlock(&r->snap_lock);
}

/*
 * One rep of cell c (its next one): run, time, record, keep. Sets r->status
 * to -EINTR (cancelled) or -EIO (the rep failed) and returns it.
 */
static int one_rep(struct bt_run *r, struct order *o, int c)
{
	struct cell_level *cl = &o->cl[c];
	int i = cl->next, sequential = common(&r->plan, C_ORDER)->i == ORDER_SEQUENTIAL;
	struct bt_rep rep;
	uint64_t t0 = bt_now_ns();
	int rc;

	if (atomic_load(&r->cancel)) {
		r->status = -EINTR;
		return r->status;
	}
	live_reset(r, c, i);
	set_snap(r, c, i, BT_RUN_RUNNING);
	rc = run_rep(r, cl->cv, &cl->job, c, i, &rep);
	if (rc == -EINTR) {
		/* An abandoned rep is not a result: it is not recorded. */
		bt_hist_free(rep.hist);
		for (int k = 0; k < BT_LAT_CH_MAX; k++)
			bt_hist_free(rep.ch_hist[k]);
		free(rep.workers);
		r->status = -EINTR;
		return r->status;
	}
	cl->next++;
	pthread_mutex_lock(&r->snap_lock);
	/* Sequential: the latest cell predicts the rest best; else every cell takes turns. */
	if (sequential && r->rep_time_cell != c) {
		r->rep_time_cell = c;
		r->rep_time_sum = 0;
		r->reps_timed = 0;
	}
	r->rep_time_sum += (double)(bt_now_ns() - t0) / 1e9;
	r->reps_timed++;
	r->reps_done++;
	pthread_mutex_unlock(&r->snap_lock);
	if (r->recording)
		bt_recw_rep(&r->rec, &rep);
	if (!rep.ok) {
		pthread_mutex_lock(&r->lock);
		snprintf(r->res.error, sizeof(r->res.error), "%s, rep %d: %s",
			 r->res.cells[c].label[0] ? r->res.cells[c].label : "cell 1", i + 1, rep.verify);
		pthread_mutex_unlock(&r->lock);
		r->status = -EIO;
	}
	if (!rep.warmup && rep.ok)
		cl->counted++;
	pthread_mutex_lock(&r->lock);
	bt_results_add_rep(&r->res, &rep);
	pthread_mutex_unlock(&r->lock);
	/* A fixed count needs a summary only at its end; reps=auto after every counted rep. */
	if (r->status != 0 || r->res.cells[c].ci_target > 0 ||
	    cl->counted >= r->res.cells[c].total_reps)
		cell_progress(r, o, c);
	return r->status;
}

/* 1 while cell c still has reps to run. */
static int cell_open_reps(const struct bt_run *r, const struct order *o, int c)
{
	return !o->cl[c].ended && o->cl[c].counted < r->res.cells[c].total_reps;
}

/*
 * One turn of cell c: its warmups when it has run nothing yet, then one
 * counted rep. A cell's warmups run right before its first counted rep in
 * every order, so the state they warm (caches, page cache, a server's
 * pools) is that cell's when it is measured.
 */
static int cell_turn(struct bt_run *r, struct order *o, int c)
{
	int warmup = (int)common(&r->plan, C_WARMUP)->i;

	while (r->status == 0 && o->cl[c].next < warmup)
		one_rep(r, o, c);
	if (r->status == 0)
		one_rep(r, o, c);
	return r->status;
}

/*
 * order=sequential: each cell's reps in a row between its cell_setup and
 * cell_teardown. interleaved: rounds, each runs one turn of every cell that
 * has reps left, in cell order; shuffled: the same with each round's cells
 * in a seeded random order (a randomized block design: drift spreads evenly
 * over the cells, and each cell's reps stay spread over the whole run).
 * When cells take turns, every cell's level stays held from its first rep to
 * the end of the run, then all are torn down in reverse order of setup.
 */
static void run_cells(struct bt_run *r, const struct run_level *rl)
{
	const struct bt_plan *pl = &r->plan;
	int order = (int)common(pl, C_ORDER)->i;
	struct order o = { .rng = (uint64_t)common(pl, C_SEED)->i };
	int *round = NULL;

	o.cl = calloc((size_t)pl->ncells, sizeof(*o.cl));
	o.held_order = calloc((size_t)pl->ncells, sizeof(*o.held_order));
	round = calloc((size_t)pl->ncells, sizeof(*round));
	if (o.cl == NULL || o.held_order == NULL || round == NULL) {
		run_failed(r, "run", "out of memory");
		goto out;
	}
	if (order == ORDER_SEQUENTIAL) {
		for (int c = 0; c < pl->ncells && r->status == 0; c++) {
			if (cell_open(r, &o, c, rl) < 0)
				break;
			while (r->status == 0 && cell_open_reps(r, &o, c))
				cell_turn(r, &o, c);
			cell_close(r, &o, c);
		}
		goto out;
	}
	while (r->status == 0) {
		int n = 0;

		for (int c = 0; c < pl->ncells; c++)
			if (cell_open_reps(r, &o, c))
				round[n++] = c;
		if (n == 0)
			break;
		for (int k = n - 1; order == ORDER_SHUFFLED && k > 0; k--) {
			int j = (int)(rng_next(&o.rng) % (uint64_t)(k + 1)), t = round[k];

			round[k] = round[j];
			round[j] = t;
		}
		for (int k = 0; k < n && r->status == 0; k++)
			if (cell_open(r, &o, round[k], rl) == 0)
				cell_turn(r, &o, round[k]);
	}
out:
	for (int k = o.nheld - 1; k >= 0; k--)
		cell_close(r, &o, o.held_order[k]);
	free(o.cl);
	free(o.held_order);
	free(round);
}

/*
 * The controller thread: the run level around the cells, the cell level
 * around the reps (workload.h); whatever ends the run, each level's
 * teardown runs once its setup did, innermost first.
 */
static void *run_main(void *arg)
{
	struct bt_run *r = arg;
	const struct bt_plan *pl = &r->plan;
	struct run_level rl = { .held = 0 };
	const char *status = "complete";

	if (run_begin(r, &rl) == 0)
		run_cells(r, &rl);
	run_end(r, &rl);
	if (r->status == 0 && atomic_load(&r->cancel) && r->snap.cells_done < pl->ncells)
		r->status = -EINTR;

	if (r->status == -EINTR)
		status = "interrupted";
	else if (r->status < 0)
		status = "failed";
	pthread_mutex_lock(&r->lock);
	snprintf(r->res.status, sizeof(r->res.status), "%s", status);
	if (r->status == -EINTR && r->res.error[0] == '\0')
		snprintf(r->res.error, sizeof(r->res.error), "stopped by the user");
	pthread_mutex_unlock(&r->lock);
	if (r->recording) {
		bt_recw_end(&r->rec, status, r->res.error);
		r->rec_error = bt_recw_close(&r->rec);
		r->recording = 0;
	}
	set_snap(r, r->snap.cell, r->snap.rep, BT_RUN_DONE);
	atomic_store(&r->finished, 1);
	return NULL;
}

/* 1 when some cell records latencies (lat= may be an axis). */
static int any_lat(const struct bt_plan *pl)
{
	for (int k = 0; k < pl->nvals[C_LAT]; k++)
		if (pl->vals[C_LAT][k].i)
			return 1;
	return 0;
}

/* Counted reps planned per cell: reps=, or under reps=auto its cap max_reps=. */
static int64_t reps_planned(const struct bt_plan *pl)
{
	return common(pl, C_REPS)->i ? common(pl, C_REPS)->i : common(pl, C_MAX_REPS)->i;
}

int bt_run_metric_infos(const struct bt_workload *wl, struct bt_metric_info *out)
{
	int n = (int)wl->nmetrics < BT_RES_METRICS ? (int)wl->nmetrics : BT_RES_METRICS;

	for (int m = 0; m < n; m++) {
		const struct bt_metric *d = &wl->metrics[m];
		struct bt_metric_info *mi = &out[m];

		snprintf(mi->name, sizeof(mi->name), "%s", d->name);
		snprintf(mi->unit, sizeof(mi->unit), "%s", d->unit ? d->unit : "");
		mi->kind = (int)d->kind;
		mi->error = d->error;
		snprintf(mi->num, sizeof(mi->num), "%s", d->num ? d->num : "");
		snprintf(mi->den, sizeof(mi->den), "%s", d->den ? d->den : "");
		snprintf(mi->help, sizeof(mi->help), "%s", d->help ? d->help : "");
	}
	return n;
}

int bt_run_results_init(struct bt_results *res, const struct bt_workload *wl,
			const struct bt_plan *pl, int ncells, double clock_cost, struct bt_err *err)
{
	if (bt_results_init(res, ncells) < 0)
		return bt_err_set(err, -ENOMEM, "out of memory");
	snprintf(res->version, sizeof(res->version), "%s", BT_VERSION);
	res->start_unix_ns = bt_unix_ns();
	snprintf(res->workload, sizeof(res->workload), "%s", wl->name);
	snprintf(res->unit, sizeof(res->unit), "%s", wl->unit);
	snprintf(res->lat_what, sizeof(res->lat_what), "%s", wl->lat_what ? wl->lat_what : "");
	snprintf(res->baseline, sizeof(res->baseline), "%s", wl->baseline ? wl->baseline : "");
	snprintf(res->rate_what, sizeof(res->rate_what), "%s", wl->rate_what ? wl->rate_what : "");
	res->timer_cost_ns = clock_cost;
	res->plan_json = bt_plan_to_json(pl);
	bt_sysinfo_collect(&res->machine);
	_Static_assert(BT_RES_METRICS == BT_METRICS_MAX, "results and workers agree on the metric count");
	_Static_assert(BT_RES_LAT_CH == BT_LAT_CH_MAX, "results and workers agree on the channels");
	for (int k = 0; wl->lat_channels != NULL && wl->lat_channels[k] != NULL &&
			k < BT_RES_LAT_CH; k++) {
		snprintf(res->ch_names[k], sizeof(res->ch_names[k]), "%s", wl->lat_channels[k]);
		res->nch = k + 1;
	}
	res->nmetrics = bt_run_metric_infos(wl, res->metrics);
	res->naxes = pl->naxes;
	for (int a = 0; a < pl->naxes; a++)
	{
		snprintf(res->axes[a], sizeof(res->axes[a]), "%s", pl->params[pl->axes[a]]->name);
		res->axis_workers[a] = (pl->params[pl->axes[a]]->flags & BT_PF_WORKERS) != 0;
	}
	snprintf(res->status, sizeof(res->status), "running");
	return res->plan_json ? 0 : bt_err_set(err, -ENOMEM, "out of memory");
}

/* Fill the results' header part from the plan, the workload and the machine. */
static int results_header(struct bt_run *r, struct bt_err *err)
{
	const struct bt_plan *pl = &r->plan;
	struct bt_results *res = &r->res;

	if (bt_run_results_init(res, r->wl, pl, pl->ncells, r->clock_cost, err) < 0)
		return -ENOMEM;
	for (int c = 0; c < pl->ncells; c++) {
		struct bt_cell *cell = &res->cells[c];
		int idx[BT_PLAN_MAX_AXES];

		bt_plan_cell_label(pl, c, cell->label, sizeof(cell->label));
		bt_plan_cell_coords(pl, c, idx);
		for (int a = 0; a < pl->naxes; a++)
			snprintf(cell->values[a], sizeof(cell->values[a]), "%s",
				 pl->vals[pl->axes[a]][idx[a]].text);
		cell->total_reps = (int)reps_planned(pl);
		cell->ci_target = common(pl, C_REPS)->i == 0 ? ci_value(common(pl, C_CI)->text) : 0;
	}
	snprintf(res->status, sizeof(res->status), "running");
	return res->plan_json ? 0 : bt_err_set(err, -ENOMEM, "out of memory");
}

int bt_run_start(struct bt_run **out, const struct bt_workload *wl, const struct bt_plan *plan,
		 const char *record_path, struct bt_err *err)
{
	struct bt_run *r = calloc(1, sizeof(*r));
	char *json = NULL;
	int rc;

	*out = NULL;
	if (r == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	r->wl = wl;
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->snap_lock, NULL);
	atomic_init(&r->cancel, 0);
	atomic_init(&r->finished, 0);

	/* Copy the plan through its JSON form: the copy owns its values. */
	json = bt_plan_to_json(plan);
	if (json == NULL) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	rc = bt_run_plan_init(&r->plan, wl, err);
	if (rc == 0)
		rc = bt_plan_apply_json(&r->plan, json, "plan", err);
	free(json);
	if (rc < 0)
		goto fail;
	/* A shuffled order is recorded with its seed, so that a rerun repeats it. */
	if (common(&r->plan, C_ORDER)->i == ORDER_SHUFFLED && common(&r->plan, C_SEED)->i == 0) {
		char arg[32];

		snprintf(arg, sizeof(arg), "order_seed=%d", (int)(bt_unix_ns() % 2147483646) + 1);
		if ((rc = bt_plan_set_arg(&r->plan, arg, err)) < 0)
			goto fail;
	}
	if ((rc = bt_topo_load(&r->topo, err)) < 0)
		goto fail;
	r->clock_cost = bt_clock_read_cost_ns();
	r->live_cell = -1;
	if (any_lat(&r->plan) && (r->live = bt_hist_new()) == NULL) {
		rc = bt_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	if ((rc = results_header(r, err)) < 0)
		goto fail;
	for (int k = 0; r->live != NULL && k < r->res.nch; k++) {
		if ((r->live_ch[k] = bt_hist_new()) == NULL) {
			rc = bt_err_set(err, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	if (record_path != NULL && record_path[0]) {
		snprintf(r->record_path, sizeof(r->record_path), "%s", record_path);
		if ((rc = bt_recw_open(&r->rec, record_path, err)) < 0)
			goto fail;
		r->recording = 1;
		if ((rc = bt_recw_header(&r->rec, &r->res)) < 0) {
			bt_err_set(err, rc, "%s: cannot write: %s", record_path, strerror(-rc));
			goto fail;
		}
	}
	r->snap.ncells = r->plan.ncells;
	r->snap.reps_per_cell = (int)(common(&r->plan, C_WARMUP)->i + reps_planned(&r->plan));
	r->snap.eta_s = -1;
	r->snap.metrics_cell = r->snap.metrics_rep = -1;
	r->rep_time_cell = -1;
	r->t_start = bt_now_ns();
	rc = pthread_create(&r->thread, NULL, run_main, r);
	if (rc != 0) {
		rc = bt_err_set(err, -rc, "cannot start the run thread: %s", strerror(rc));
		goto fail;
	}
	r->have_thread = 1;
	*out = r;
	return 0;
fail:
	if (r->recording) {
		bt_recw_end(&r->rec, "failed", err ? err->msg : "");
		bt_recw_close(&r->rec);
	}
	bt_run_free(r);
	return rc < 0 ? rc : -EINVAL;
}

void bt_run_snapshot(struct bt_run *r, struct bt_snapshot *s)
{
	int total, done;

	pthread_mutex_lock(&r->snap_lock);
	*s = r->snap;
	total = s->ncells * s->reps_per_cell;
	done = r->reps_done;
	s->reps_done = done;
	if (s->state == BT_RUN_DONE)
		s->eta_s = 0;
	else if (r->reps_timed > 0)
		s->eta_s = r->rep_time_sum / r->reps_timed * (total - done);
	if (r->rep_t0 != 0 && s->state == BT_RUN_RUNNING)
		s->rep_elapsed_s = (double)(bt_now_ns() - r->rep_t0) / 1e9;
	pthread_mutex_unlock(&r->snap_lock);
	s->elapsed_s = (double)(bt_now_ns() - r->t_start) / 1e9;
}

void bt_run_cancel(struct bt_run *r)
{
	atomic_store(&r->cancel, 1);
}

int bt_run_wait(struct bt_run *r)
{
	if (r->have_thread) {
		pthread_join(r->thread, NULL);
		r->have_thread = 0;
	}
	return r->status;
}

int bt_run_finished(struct bt_run *r)
{
	return atomic_load(&r->finished);
}

struct bt_results *bt_run_results(struct bt_run *r)
{
	return &r->res;
}

void bt_run_lock(struct bt_run *r)
{
	pthread_mutex_lock(&r->lock);
}

void bt_run_unlock(struct bt_run *r)
{
	pthread_mutex_unlock(&r->lock);
}

int bt_run_record_error(const struct bt_run *r)
{
	return r->rec_error;
}

void bt_run_free(struct bt_run *r)
{
	if (r == NULL)
		return;
	bt_run_wait(r);
	bt_results_destroy(&r->res);
	bt_hist_free(r->live);
	for (int k = 0; k < BT_LAT_CH_MAX; k++)
		bt_hist_free(r->live_ch[k]);
	bt_plan_destroy(&r->plan);
	bt_topo_destroy(&r->topo);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->snap_lock);
	free(r);
}
