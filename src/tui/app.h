/*
 * app.h - the TUI's model and the seams between its files.
 *
 * One struct bt_app holds everything the screens show. Key handlers and the
 * tick change it and set dirty bits; the render step (tui.c) draws the panes
 * whose bits are set, from a const struct bt_app, and nothing else. Only the
 * main thread touches it; the run is observed through the run API.
 *
 *   tui.c        entry, options, terminal, main loop, header/status/footer
 *   form.c       the parameter form: fields, ticks, chooser, line editor
 *   workbench.c  the workload list, the side pane (topology, pinning), plans
 *   live.c       starting and stopping runs, the live model and its view
 *   resview.c    the results screen: table, scaling chart, cell, export
 *   help.c       the help overlay
 *   sessions_screen.c  recorded sessions: list, filter, delete, open, re-run, mark
 *   replay.c     a recording played back through the live view, on a replay clock
 *   compare_view.c  two or more recordings compared cell by cell
 *   cast.c       --cast FILE: the terminal output tee'd into an asciicast v2 file
 *   explore_view.c  explore mode: one open-ended run whose settings change as it runs
 */
#ifndef BT_TUI_APP_H
#define BT_TUI_APP_H

#include <ncurses.h>
#include <stdint.h>

#include "core/err.h"
#include "core/hist.h"
#include "report/compare.h"
#include "core/plan.h"
#include "core/results.h"
#include "report/sessions.h"
#include "core/topo.h"
#include "engines/explore.h"
#include "engines/runner.h"
#include "tui/theme.h"
#include "tui/widgets.h"

#define BT_MIN_COLS 80
#define BT_MIN_ROWS 24

enum bt_screen { SCR_WORKBENCH, SCR_LIVE, SCR_RESULTS, SCR_SESSIONS, SCR_REPLAY, SCR_COMPARE,
		 SCR_EXPLORE };
enum bt_pane { PANE_LIST, PANE_FORM };

/* Dirty bits: one per pane; the render step redraws only these. */
enum {
	DIRTY_HEADER = 1u << 0,
	DIRTY_LIST = 1u << 1,
	DIRTY_FORM = 1u << 2,
	DIRTY_SIDE = 1u << 3,
	DIRTY_CHART = 1u << 4,
	DIRTY_HISTO = 1u << 5,
	DIRTY_BARS = 1u << 6,
	DIRTY_CPU = 1u << 7,
	DIRTY_PROGRESS = 1u << 8,
	DIRTY_TABLE = 1u << 9,
	DIRTY_SCALING = 1u << 10,
	DIRTY_CELL = 1u << 11,
	DIRTY_STATUS = 1u << 12,
	DIRTY_FOOTER = 1u << 13,
	DIRTY_OVERLAY = 1u << 14,
	DIRTY_CLEAR = 1u << 15,		/* erase the whole screen first (resize, screen change) */
	DIRTY_ALL = 0xffffu,
};

/* A one-line text editor (form fields, the status-line prompt). */
struct bt_lineed {
	char buf[BT_VALUE_TEXT];
	int len, pos;
};

/* Result of feeding a key to a line editor. */
enum bt_ed_result { ED_CONTINUE, ED_COMMIT, ED_CANCEL };

/* The parameter form of the selected workload. */
struct bt_form {
	int cursor;		/* field row (0..nfields; nfields = the Run button) */
	int tick;		/* sub-cursor among a tick field's values */
	int scroll;		/* first visible line */
	int editing;		/* the cursor field is being typed into */
	struct bt_lineed ed;
	char err[BT_ERR_MAX];	/* inline error under field err_field */
	int err_field;
	int chooser;		/* the chooser of an enum/list field is open */
	int ch_cursor;
	uint64_t ch_mask;	/* ticked choices */
	int ch_multi;		/* several may be ticked */
	int detail;		/* ? on a field: its whole help, range, default, example */
	char plan_err[BT_ERR_MAX];	/* what r would refuse (bt_front_plan's line); "" */
	int plan_err_field;	/* the field it names; nfields (the Run button) when none */
	char *checked;		/* the plan (JSON) plan_err was computed for; malloc'd */
};

/* Throughput samples of one cell, for the live chart (x: s since the run started). */
struct bt_live_series {
	double *x, *y;
	int n, cap;
};

/* Append the point (x, y); -ENOMEM leaves the series as it was. */
int bt_live_series_push(struct bt_live_series *s, double x, double y);

/* Free n series' points and the array (NULL is nothing). */
void bt_live_series_free(struct bt_live_series *s, int n);

/*
 * What the live view shows beside the main histogram (live_extra.c): the
 * workload's extra latency channels, each kept like the main histogram (the
 * finished reps of the shown cell, plus the rep in progress), and its error
 * kinds (metrics with .error) summed over the run so far.
 */
struct bt_live_extra {
	int nch;				/* 0 also when latencies are off */
	char ch_names[BT_RES_LAT_CH][32];
	struct bt_hist *hist[BT_RES_LAT_CH];	/* finished reps of bt_live.hist_cell */
	struct bt_hist *cur[BT_RES_LAT_CH];	/* the rep in progress (bt_run_live_hist_ch) */
	int cur_cell, cur_rep;			/* of cur; -1: none */
	struct bt_hist *shown[BT_RES_LAT_CH];	/* what is drawn, as bt_live.shown */
	int view;				/* the histogram pane: 0 main, k channel k */
	int nerr;				/* error kinds */
	int err_m[BT_RES_METRICS];		/* their metric indexes */
	char err_names[BT_RES_METRICS][32];
	uint64_t err_done[BT_RES_METRICS];	/* summed over the finished reps fed */
	uint64_t err_cur[BT_RES_METRICS];	/* the rep in progress so far (snapshot) */
	uint64_t err_total[BT_RES_METRICS];	/* done + cur: what is drawn */
	double err_grew_at[BT_RES_METRICS];	/* snapshot elapsed_s when it last grew; < 0 never */
	unsigned char err_growing[BT_RES_METRICS];	/* grew within BT_LIVE_GROW_S */
	/*
	 * Ratio metrics (a cold run's page-cache residency when the rep began
	 * and ended, a hit ratio): the last finished rep's, as one line.
	 */
	int nm, nratio;
	struct bt_metric_info mis[BT_RES_METRICS];
	char ratios[256];			/* "" until a rep has finished */
};

/* What the live view shows; filled by the tick from snapshots and results. */
struct bt_live {
	int ncells;
	struct bt_live_series *series;	/* [ncells] */
	char (*labels)[64];		/* [ncells] legend text */
	int nsamples_seen;		/* results->samples consumed */
	int prev_cell, prev_rep;	/* of the last sample consumed */
	double offset, prev_t;		/* x offset of the current rep */
	int nreps_seen;			/* results->reps consumed */
	struct bt_hist *hist;		/* finished reps of hist_cell merged */
	int hist_cell, hist_reps;
	int done_cell, done_rep;	/* the last finished rep */
	struct bt_hist *cur;		/* the rep in progress so far (bt_run_live_hist) */
	int cur_cell, cur_rep;		/* -1: none */
	struct bt_hist *shown;		/* what the pane draws: hist + cur when they belong together */
	int shown_cell, shown_running;	/* cell of shown (-1: none); cur is in it */
	struct bt_snapshot snap;
	int have_snap;
	double max_x;			/* x of the latest point */
	int warmup;			/* warmup reps per cell, from the plan */
	char wl_name[64];		/* the workload, as the titles name it */
	char fixed[256];		/* the plan's fixed values (bt_results_fixed): "threads=64" */
	char unit[32];			/* what an op is ("items") */
	double xmax_fixed;		/* the chart's x range when known ahead; 0: follow the data */
	int lat_off;			/* the plan (or every recorded rep) has lat=off */
	/* An explore recording: the change that began each cell, and a marker where it is drawn. */
	char (*cell_mark)[64];		/* [ncells] "threads=4"; "" none; NULL: not explore */
	double *mark_x;			/* [ncells] */
	int nmarks;
	struct bt_live_extra x;		/* channels and error kinds */
};

/* The sessions screen: the recordings of one directory, newest first. */
struct bt_sessview {
	char dir[4096];
	struct bt_session_info *list;	/* [n], from bt_sessions_list */
	int n;
	unsigned char *marked;		/* [n] */
	int *shown;			/* [nshown] indexes into list that pass the filter */
	int nshown;
	int sel, scroll;		/* in shown */
	char filter[64];		/* workload filter ("" = all) */
	char search[128];		/* / : words every shown session has in some field; "" */
	int sort;			/* column: 0 time (newest first), 1 workload, 2 plan, 3 cells, 4 status, 5 host */
	char sel_path[4096];		/* the selected session, kept across reloads and sorts */
	uint64_t dir_mtime;		/* the folder's mtime when last read (ns) */
	int confirm;			/* list index waiting for y/n to delete, -1 none */
	int confirm_cmp;		/* waiting for y/n to compare different workloads */
	enum bt_screen back;		/* where Esc goes */
};

/* One rep of a replay on its clock: the recording's time, and the time it is shown for. */
struct bt_replay_seg {
	int cell, rep;
	int repidx;			/* index in res.reps, -1: the rep never finished */
	double rstart, rlen;		/* s, as recorded (samples' x) */
	double start, len;		/* s on the replay clock (short reps are stretched) */
};

/* A recording played back through the live view. */
struct bt_replay {
	int active;			/* a recording is loaded */
	char path[4096];
	struct bt_results res;
	struct bt_replay_seg *segs;
	int nsegs;
	int *sample_seg;		/* [res.nsamples] */
	int *rep_seg;			/* [res.nreps] */
	int warmup;
	double total, clock;		/* replay clock, s */
	double speed;			/* 1, 2, 8 */
	int paused, ended;
	uint64_t last_ns;		/* monotonic time of the last clock step */
	int nfed_samples, nfed_reps;	/* fed into the live model */
};

/* One line of the compare view; span (from .. +span_len) is drawn in span_role. */
struct bt_cv_line {
	char *text;
	enum bt_role role, span_role;
	int span_at, span_len;
};

/* The compare view: recordings (A first) and the lines drawn from their bt_cmp. */
struct bt_cmpview {
	int nres;
	struct bt_results res[BT_CMP_MAX];
	char names[BT_CMP_MAX][256];
	struct bt_cv_line *lines;
	int nlines, width;
	int scroll, hscroll;
};

/*
 * Explore mode (explore_view.c): the explore, and what its screen shows,
 * filled by the tick from snapshots and results. Series and markers are on
 * one time axis, s since the explore started.
 */
#define BT_XV_LIVE 32	/* live parameters a picker lists, at most */
struct bt_xview {
	struct bt_explore *x;		/* running, or ended with its results on screen; NULL */
	int active;			/* running: the loop ticks it */
	int ending;			/* q was pressed: it ends at the next sample */
	int wl;				/* the workload (bt_workloads index) */
	char record_path[4096];
	struct bt_explore_snap snap;
	int have_snap;
	int nseg;
	struct bt_live_series *series;	/* [nseg] */
	char (*labels)[64];		/* [nseg] legend: the segment's cell label */
	int nsamples_seen;
	int nmarks;
	double *mark_x;			/* [nmarks] when each change began its segment */
	char (*mark_labels)[64];	/* [nmarks] "threads=4" */
	struct bt_hist *hist;		/* the running segment's latencies so far */
	int hist_seg;			/* -1: none */
	double window;			/* the chart's span, s; 0: everything */
	double now_x;			/* the latest sample's x */
	char fixed[256];		/* the plan's fixed values */
	char unit[32];
	int nlive, live[BT_XV_LIVE];	/* the live parameters (plan indexes) */
	int workers;			/* plan index of the live worker count, or -1 */
	struct bt_plan plan;		/* the settings as started (schemas, choices) */
	int pick;			/* picker: 0 closed, 1 the parameters, 2 one's values */
	int pick_direct;		/* opened on the values by a key: Esc closes it */
	int pick_param;			/* index in live[] */
	int pick_cursor;
	char pick_vals[16][BT_VALUE_TEXT];	/* level 2: the values offered */
	int npick_vals;
};

/* The row kinds of the workload list. */
struct bt_list_item {
	const char *group;	/* a group heading when wl < 0 */
	int wl;			/* index in bt_workloads, or -1 */
};

#define BT_LIST_MAX 64
#define BT_THEMES_MAX 32

struct bt_app {
	/* options and terminal */
	int refresh_ms;
	int utf8, color;
	char theme_name[64];
	struct bt_theme theme;
	char themes[BT_THEMES_MAX][64];
	int nthemes;
	int rows, cols;

	/* screens */
	enum bt_screen screen;
	int help;
	unsigned dirty;
	int quit;

	/* workbench */
	struct bt_list_item items[BT_LIST_MAX];
	int nitems;
	int wl_sel;			/* index in bt_workloads */
	char wl_servers[160];		/* its spawnable servers, installed or not (bt_wb_select) */
	enum bt_pane focus;
	struct bt_plan *plans;		/* [bt_nworkloads], lazily initialized */
	int *plan_ok;			/* [bt_nworkloads] */
	struct bt_form form;
	struct bt_topo topo;
	int have_topo;
	char topo_desc[160];

	/* the run (also kept after it ends: its results are on screen) */
	struct bt_run *run;
	int run_wl;
	int running;
	int run_rc;
	char record_path[4096];
	struct bt_live live;

	/* results screen */
	const struct bt_results *res;
	char **table;
	int ntable, table_w;
	int tscroll, thscroll;
	int cell_sel;

	/* sessions, replay, compare */
	struct bt_sessview ss;
	struct bt_replay rp;
	struct bt_cmpview cv;
	struct bt_xview xv;
	char res_path[4096];		/* the recording a->res came from, when not a->run's */
	enum bt_screen res_back;	/* where Esc on the results screen goes */

	/* settings (settings.c) */
	char **set_form;		/* [bt_nworkloads] form.WORKLOAD words from the file; NULL each */
	int set_first;			/* no settings file: the first launch */
	char set_theme[64];		/* theme = ; "" */
	char set_error[600];		/* the file was ignored: why (file:line) */
	char plan_dir[4096];		/* the folder of the last plan saved or loaded; "" */
	char export_dir[4096];		/* the folder of the last export; "" */
	int mouse_off;			/* mouse = off: no clicks, no wheel */

	/* plan files (workbench.c) */
	char overwrite[4096];		/* S: the existing file waiting for y/n; "" */
	char **plan_files;		/* L: the plans folder's *.json names, [nplan_files] */
	int nplan_files, plan_sel;
	int plan_list;			/* the list is open */

	/* status line and prompt */
	char status[512];
	enum bt_role status_role;
	int status_h;			/* rows the status line took when last drawn (1..3) */
	int prompt;			/* 0, 'S' save, 'L' load, '/' sessions filter, 'e' export */
	char prompt_label[64];
	struct bt_lineed prompt_ed;
};

/* --- app.c: what every screen uses (no screen calls into tui.c) -------- */

/* Draw text as UTF-8 (1) or ASCII (0) from now on; tui.c sets it when the terminal opens. */
void bt_app_text_mode(int utf8);

/* Fill r with blanks in the normal role. */
void bt_app_clear(WINDOW *w, struct bt_rect r);
/* Print text at (y, x) in role, cut to at most maxw columns (ASCII text). */
void bt_app_put(WINDOW *w, int y, int x, int maxw, enum bt_role role, const char *text);
void bt_app_putf(WINDOW *w, int y, int x, int maxw, enum bt_role role, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Set the status line (role: ROLE_NORMAL, ROLE_GOOD, ROLE_ERROR, ...). */
void bt_app_status(struct bt_app *a, enum bt_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* --- form.c -------------------------------------------------------------- */

void bt_lineed_set(struct bt_lineed *e, const char *text);
enum bt_ed_result bt_lineed_key(struct bt_lineed *e, int ch);

/* The plan of the selected workload (initialized on first use). */
struct bt_plan *bt_form_plan(struct bt_app *a);
/* Number of fields of the selected workload (the Run button is one more row). */
int bt_form_nfields(const struct bt_app *a);
/* Plan index of field f (workload params first, then the common ones). */
int bt_form_param(const struct bt_app *a, int f);
/*
 * Put the cursor on the first field whose schema has flag (BT_PF_*): the form
 * of a new workload starts on its worker count; on the first field when none.
 */
void bt_form_focus_flag(struct bt_app *a, unsigned flag);
/*
 * Run the run path's own checks (bt_front_plan: bt_plan_check and
 * bt_run_validate) on the form's plan when it changed since the last call,
 * and keep the one line at the field it names (form.plan_err): everything r
 * would refuse is shown as the user types. Main loop, before drawing.
 */
void bt_form_validate(struct bt_app *a);
/* A key for the focused form; returns 1 when used. */
int bt_form_key(struct bt_app *a, int ch);
void bt_form_draw(WINDOW *w, struct bt_rect r, const struct bt_app *a, int focus);
/* A click at (y, x) on the form drawn in r: cursor to the field, a tick toggled, Run runs; 1 when hit. */
int bt_form_click(struct bt_app *a, struct bt_rect r, int y, int x);
void bt_form_draw_chooser(WINDOW *w, struct bt_rect r, const struct bt_app *a);
/* Lines of topology / pinning for the pin field (side pane or form help). */
int bt_form_pin_lines(const struct bt_app *a, char lines[][160], int max, int width);

/* --- workbench.c --------------------------------------------------------- */

void bt_wb_init(struct bt_app *a);
void bt_wb_destroy(struct bt_app *a);
void bt_wb_select(struct bt_app *a, int wl);
int bt_wb_key(struct bt_app *a, int ch);
void bt_wb_draw_list(WINDOW *w, struct bt_rect r, const struct bt_app *a);
/* A click at row y of the list drawn in r: that workload selected; 1 when hit. */
int bt_wb_click_list(struct bt_app *a, struct bt_rect r, int y);
void bt_wb_draw_side(WINDOW *w, struct bt_rect r, const struct bt_app *a);
/*
 * Plans: the status-line prompts 'S' and 'L' end here with a path. Saving
 * over an existing file asks first (sure = 0: a->overwrite keeps the path
 * for y). The plans folder is the last one used, else
 * $XDG_CONFIG_HOME/benchtop/plans; L lists its *.json files (plans_open
 * returns how many; 0: the caller asks for a path).
 */
void bt_wb_save_plan(struct bt_app *a, const char *path, int sure);
void bt_wb_load_plan(struct bt_app *a, const char *path);
int bt_wb_plans_dir(const struct bt_app *a, char *buf, size_t n);
int bt_wb_plans_open(struct bt_app *a);
void bt_wb_plans_close(struct bt_app *a);
int bt_wb_plans_key(struct bt_app *a, int ch);
void bt_wb_draw_plans(WINDOW *w, struct bt_rect r, const struct bt_app *a);

/* --- live.c -------------------------------------------------------------- */

/* Finalize and check the form's plan, choose the recording, start. */
void bt_live_start(struct bt_app *a);
/* Ask the run to stop (returns at once). */
void bt_live_stop(struct bt_app *a);
/* Stop and wait (quitting). */
void bt_live_abort(struct bt_app *a);
/* Per refresh tick: take a snapshot, copy new samples and reps. */
void bt_live_tick(struct bt_app *a);
void bt_live_free(struct bt_app *a);
void bt_live_draw(WINDOW *w, const struct bt_app *a, unsigned dirty, struct bt_rect area);
/* The live model for a recording's cells (replay); 0 or -ENOMEM. */
int bt_live_init_results(struct bt_live *l, const struct bt_results *res, int warmup);
/* Back to "nothing seen yet", keeping the cells and labels (a replay seeking backwards). */
void bt_live_reset(struct bt_live *l);
/* Feed one sample (drawn at x seconds) or one finished rep; return the dirty bits. */
unsigned bt_live_add_sample(struct bt_live *l, const struct bt_sample *s, double x);
unsigned bt_live_add_rep(struct bt_live *l, const struct bt_rep *r);
/* The live and explore views' panes: per-thread ops bars ("starting..." while n is 0), CPU. */
void bt_ops_pane_draw(WINDOW *w, struct bt_rect r, const char *title, const uint64_t *ops, int n,
		      int utf8);
void bt_cpu_pane_draw(WINDOW *w, struct bt_rect r, const struct bt_app *a, const struct bt_sample *last);

/*
 * The one path from results to the live model, in the order they happened
 * (a rep after its samples): a sample placed on the run's time axis (each
 * rep continues where the previous one ended), a finished rep merged (and a
 * point for a rep shorter than a sample). The live tick and the replay both
 * feed through these, so a replay draws the x axis the live view drew.
 */
unsigned bt_live_feed_sample(struct bt_live *l, const struct bt_sample *s);
unsigned bt_live_feed_rep(struct bt_live *l, const struct bt_rep *r);
/*
 * How far the running rep is, 0..1, from its stop rule: elapsed / duration,
 * ops / quota, or ops / the fixed work setup announced; 0 when none applies.
 */
double bt_live_rep_frac(const struct bt_snapshot *s);
/* The sweep's progress 0..1 counting the running rep's part, and the ETA in s (< 0 unknown). */
void bt_live_progress(const struct bt_snapshot *s, double *frac, double *eta);
/* Recompose the shown histogram from the finished reps (and the rep in progress). */
void bt_live_compose(struct bt_live *l);
/* --- live_extra.c: channels and error kinds in the live model ------------ */

/* c on the live view or a replay: the histogram pane shows the next latency channel; 1 when used. */
int bt_live_channel_key(struct bt_app *a, int ch);

/* An error kind counts as growing this long after it last grew (s of the run's time). */
#define BT_LIVE_GROW_S 1.0

/*
 * Name the channels and error kinds, from the workload (a run) or from the
 * results (a replay), and allocate the channels' histograms. Channels are
 * left out when lat_off. 0 or -ENOMEM.
 */
int bt_live_extra_init_wl(struct bt_live_extra *x, const struct bt_workload *wl, int lat_off);
int bt_live_extra_init_res(struct bt_live_extra *x, const struct bt_results *res, int lat_off);
/* Nothing seen yet (the names stay). */
void bt_live_extra_reset(struct bt_live_extra *x);
void bt_live_extra_free(struct bt_live_extra *x);
/* A finished rep: its channels into the cell's (new_cell: start them over), its errors summed. */
void bt_live_extra_rep(struct bt_live_extra *x, const struct bt_rep *r, int new_cell);
/* The running rep's channels so far (main thread, from the run API). */
void bt_live_extra_fetch(struct bt_live_extra *x, struct bt_run *run);
/* Recompose what is drawn from the model (bt_live_compose calls it). */
void bt_live_extra_compose(struct bt_live *l);
/* Rows the strip under the chart takes in a live view of height h (0: none). */
int bt_live_extra_rows(const struct bt_live *l, int h);
/*
 * The strip: error kinds (non-zero ones; ROLE_ERROR and an arrow while
 * growing), channels' p50 / p99 / count.
 */
void bt_live_extra_draw(WINDOW *w, struct bt_rect r, const struct bt_live *l, int utf8);
/*
 * One channel's figures in a line: "incr p50 31ns p99 70ns n=8000" (wide:
 * p90, p99.9 and max too). "" for an empty histogram. Returns buf.
 */
char *bt_live_ch_text(const char *name, const struct bt_hist *h, int wide, char *buf, size_t n);

/* --- sessions_screen.c --------------------------------------------------- */

/* Open the sessions screen on the default directory (reloads the list). */
void bt_ss_open(struct bt_app *a);
void bt_ss_reload(struct bt_app *a);
void bt_ss_free(struct bt_app *a);
void bt_ss_set_filter(struct bt_app *a, const char *workload);
/* / : keep the sessions that have every word of text in some field (name, workload, axes, values, host, date, status). */
void bt_ss_set_search(struct bt_app *a, const char *text);
/* Sort by column col (0 time .. 5 host; bt_ss_sort_names). */
void bt_ss_sort(struct bt_app *a, int col);
extern const char *const bt_ss_sort_names[];
/* The selection moved: remember it by path (reloads and sorts keep it). */
void bt_ss_remember_sel(struct bt_app *a);
/* Read the folder again when its mtime changed (a recording appeared). About once a second. */
void bt_ss_poll(struct bt_app *a);
int bt_ss_key(struct bt_app *a, int ch);
void bt_ss_draw(WINDOW *w, const struct bt_app *a, unsigned dirty, struct bt_rect area);
/* A click at (y, x) on the sessions drawn in area: a row selected, a column head sorts; 1 when hit. */
int bt_ss_click(struct bt_app *a, struct bt_rect area, int y, int x);

/* --- replay.c ------------------------------------------------------------ */

/* Load path and start playing it at 1x; 0, or -errno with err set (nothing changes then). */
int bt_replay_open(struct bt_app *a, const char *path, struct bt_err *err);
/* Advance the replay clock (per refresh tick); at the end the results screen opens. */
void bt_replay_tick(struct bt_app *a);
int bt_replay_key(struct bt_app *a, int ch);
/* Is the replay clock running (the loop ticks for it)? */
int bt_replay_playing(const struct bt_app *a);
void bt_replay_free(struct bt_app *a);

/* --- compare_view.c ------------------------------------------------------ */

/* Read the recordings paths[0..n-1] (A first) and build the view; 0 or -errno with err set. */
int bt_cv_open(struct bt_app *a, const char *const *paths, int n, struct bt_err *err);
int bt_cv_key(struct bt_app *a, int ch);
void bt_cv_draw(WINDOW *w, const struct bt_app *a, unsigned dirty, struct bt_rect area);
void bt_cv_free(struct bt_app *a);

/* --- explore_view.c ----------------------------------------------------- */

/* x on the workbench: explore the form's settings (no sweep, no reps). */
void bt_xv_start(struct bt_app *a);
/* Per refresh tick while it runs: snapshot, new samples and changes; at its end the results. */
void bt_xv_tick(struct bt_app *a);
/* A key on the explore screen; 1 when used (q and Esc end it, + - digits c l n w p s z change). */
int bt_xv_key(struct bt_app *a, int ch);
/* The status-line prompt 'x' ended with text (a typed value for the picked parameter). */
void bt_xv_prompt_done(struct bt_app *a, const char *text);
void bt_xv_draw(WINDOW *w, const struct bt_app *a, unsigned dirty, struct bt_rect area);
/* Stop and wait (quitting): the recording is complete. */
void bt_xv_abort(struct bt_app *a);
void bt_xv_free(struct bt_app *a);

/* --- cast.c -------------------------------------------------------------- */

/*
 * Start capturing: create path (one-line error in err when it cannot be),
 * write the asciicast v2 header, and redirect standard output through a
 * pipe whose bytes a tee thread copies to the terminal and into the file.
 * Call before the screen opens; 0 or -errno.
 */
int bt_cast_start(const char *path, struct bt_err *err);
/* A resize event ("r", "WxH"). */
void bt_cast_resize(int cols, int rows);
/* After endwin: put standard output back, drain the pipe, close the file. */
void bt_cast_stop(void);

/* --- resview.c ----------------------------------------------------------- */

/* Build the table lines from a->res (after a run ended). */
void bt_resview_load(struct bt_app *a);
void bt_resview_free(struct bt_app *a);
int bt_resview_key(struct bt_app *a, int ch);
void bt_resview_draw(WINDOW *w, const struct bt_app *a, unsigned dirty, struct bt_rect area);
/*
 * A click at (y, x) on the results drawn in area: a table row's cell, or the
 * scaling chart's point under it, becomes the cell shown; 1 when hit.
 */
int bt_resview_click(struct bt_app *a, struct bt_rect area, int y, int x);
/* The folder the export prompt offers; then write the file set into dir (status says what). */
void bt_resview_export_dir(const struct bt_app *a, char *buf, size_t n);
void bt_resview_export(struct bt_app *a, const char *dir);

/* --- settings.c ---------------------------------------------------------- */

/* Read the settings file into a (a broken one: a->set_error, nothing kept; none: a->set_first). */
void bt_settings_load(struct bt_app *a);
/* Apply the remembered form of workload w (or the first launch's plan) to its new plan pl. */
void bt_settings_form(struct bt_app *a, int w, struct bt_plan *pl);
/* Write the settings file (replacing it whole); 0 or -errno with err set. */
int bt_settings_save(const struct bt_app *a, struct bt_err *err);
void bt_settings_free(struct bt_app *a);

/* --- help.c -------------------------------------------------------------- */

void bt_help_draw(WINDOW *w, const struct bt_app *a);

#endif
