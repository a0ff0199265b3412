/*
 * tui.c - the TUI's entry point, options, terminal handling and main loop.
 *
 * One loop on the main thread: poll() stdin until the next refresh tick;
 * keys change the model and set dirty bits; a tick snapshots the run; one
 * render step redraws only the dirty panes into stdscr and ncurses sends
 * only the changed cells (wnoutrefresh + doupdate). Signals go through the
 * one signal path (front.h): it cancels the run and wakes the poll; the loop
 * then stops the run, waits for it (the recording ends "interrupted") and
 * restores the terminal. Resizes arrive as KEY_RESIZE.
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_config.h"
#include "core/clock.h"
#include "front/front.h"
#include "tui/app.h"
#include "tui/tui.h"
#include "workloads/registry.h"

static SCREEN *g_screen;

/* atexit guard: whatever path ends the process, the terminal comes back. */
static void restore_terminal(void)
{
	if (g_screen != NULL && !isendwin())
		endwin();
}

/* --- themes -------------------------------------------------------------- */

/* Load theme name; on any error the default theme is used and the status line says why. */
static void load_theme(struct bt_app *a, const char *name)
{
	char path[4096], want[64];
	struct bt_err err = { "" };

	/* name may be a->theme_name itself */
	snprintf(want, sizeof(want), "%s", name);
	name = want;
	snprintf(a->theme_name, sizeof(a->theme_name), "%s", name);
	bt_theme_default(&a->theme);
	if (bt_theme_find(name, path, sizeof(path)) < 0) {
		if (strcmp(name, "default") != 0)
			bt_app_status(a, ROLE_ERROR, "theme %s: not found; default theme used (t cycles the %d found)",
				      name, a->nthemes);
		snprintf(a->theme_name, sizeof(a->theme_name), "default");
	} else if (bt_theme_load(path, &a->theme, &err) < 0) {
		const char *home = getenv("HOME");
		size_t hl = home ? strlen(home) : 0;

		/* The message starts with the file's path: ~ keeps it short. */
		if (hl > 1 && !strncmp(err.msg, home, hl) && err.msg[hl] == '/')
			bt_app_status(a, ROLE_ERROR, "default theme used: ~%s", err.msg + hl);
		else
			bt_app_status(a, ROLE_ERROR, "default theme used: %s", err.msg);
	}
	bt_theme_apply(&a->theme, a->color);
	bkgdset(' ' | bt_role_attr(ROLE_NORMAL));
	a->dirty = DIRTY_ALL;
}

static void next_theme(struct bt_app *a)
{
	int cur = -1;

	a->nthemes = bt_theme_list(a->themes, BT_THEMES_MAX);
	if (a->nthemes <= 0) {
		bt_app_status(a, ROLE_WARN, "no theme files found");
		return;
	}
	for (int i = 0; i < a->nthemes; i++)
		if (!strcmp(a->themes[i], a->theme_name))
			cur = i;
	a->status[0] = '\0';
	load_theme(a, a->themes[(cur + 1) % a->nthemes]);
	if (a->status[0] == '\0')
		bt_app_status(a, ROLE_NORMAL, "theme %s (%s)", a->theme_name, a->theme.name);
}

/* --- header, status, footer ---------------------------------------------- */

static void draw_header(WINDOW *w, const struct bt_app *a)
{
	static const char *const names[] = { "Workbench", "Live", "Results", "Sessions", "Replay",
					     "Compare", "Explore" };
	const struct bt_workload *wl = bt_workloads[a->screen == SCR_WORKBENCH ? a->wl_sel : a->run_wl];
	char buf[512];

	if (a->screen == SCR_SESSIONS)
		snprintf(buf, sizeof(buf), " benchtop %s  %s  %s", BT_VERSION, names[a->screen], a->ss.dir);
	else if (a->screen == SCR_REPLAY || a->screen == SCR_COMPARE)
		snprintf(buf, sizeof(buf), " benchtop %s  %s  %s", BT_VERSION, names[a->screen],
			 a->screen == SCR_REPLAY ? a->rp.res.workload : a->cv.res[0].workload);
	else if (a->screen == SCR_RESULTS && a->res != NULL && a->res_path[0])
		snprintf(buf, sizeof(buf), " benchtop %s  %s  %s (recorded)", BT_VERSION,
			 names[a->screen], a->res->workload);
	else
		snprintf(buf, sizeof(buf), " benchtop %s  %s  %s: %s", BT_VERSION, names[a->screen],
			 wl->name, wl->title ? wl->title : "");
	bt_rect_fill(w, (struct bt_rect){ 0, 0, 1, a->cols }, bt_role_attr(ROLE_TITLE) | A_REVERSE);
	{
		struct bt_rect r = { 0, 0, 1, a->cols };
		char right[96];
		int rw;

		snprintf(right, sizeof(right), "theme %s  ? help ", a->theme_name);
		rw = (int)strlen(right);
		r.w = a->cols - rw - 1;
		bt_text_draw(w, r, 0, 0, buf, bt_role_attr(ROLE_TITLE) | A_REVERSE, a->utf8);
		r.w = a->cols;
		bt_text_draw(w, r, 0, a->cols - rw, right, bt_role_attr(ROLE_TITLE) | A_REVERSE, a->utf8);
	}
}

/*
 * The status message in lines of at most w columns, broken at spaces where
 * it can be (a path with none is broken where it must): a message that does
 * not fit wraps rather than being cut. Returns the count (1..max).
 */
static int status_wrap(const char *msg, int w, char out[][512], int max)
{
	int n = 0, len = (int)strlen(msg);

	out[0][0] = '\0';
	if (w < 10)
		w = 10;
	while (len > 0 && n < max) {
		int take = len <= w ? len : w;

		if (take < len && n < max - 1) {
			int sp = take;

			while (sp > w / 2 && msg[sp] != ' ')
				sp--;
			if (msg[sp] == ' ')
				take = sp;
		}
		snprintf(out[n++], 512, "%.*s", take, msg);
		msg += take;
		len -= take;
		while (*msg == ' ') {
			msg++;
			len--;
		}
	}
	return n ? n : 1;
}

/* Rows the status line takes now: 1, or up to 3 for a long message (never during a prompt). */
static int status_rows(const struct bt_app *a)
{
	char lines[3][512];

	if (a->prompt || (int)strlen(a->status) <= a->cols - 2)
		return 1;
	return status_wrap(a->status, a->cols - 2, lines, 3);
}

static void draw_status(WINDOW *w, const struct bt_app *a)
{
	char lines[3][512];
	int nl = status_rows(a), y = a->rows - 1 - nl;

	bt_app_clear(w, (struct bt_rect){ y, 0, nl, a->cols });
	if (a->prompt) {
		const struct bt_lineed *e = &a->prompt_ed;
		int lw = (int)strlen(a->prompt_label) + 1;
		int room = a->cols - lw - 2, start = e->pos >= room ? e->pos - room + 1 : 0;

		bt_app_put(w, y, 0, a->cols, ROLE_LABEL, a->prompt_label);
		bt_app_put(w, y, lw, room, ROLE_VALUE, e->buf + start);
		wattron(w, A_REVERSE);
		mvwaddch(w, y, lw + e->pos - start, e->pos < e->len ? (chtype)e->buf[e->pos] : ' ');
		wattroff(w, A_REVERSE);
		return;
	}
	if (nl == 1) {
		bt_app_put(w, y, 1, a->cols - 2, a->status_role, a->status);
		return;
	}
	status_wrap(a->status, a->cols - 2, lines, 3);
	for (int i = 0; i < nl; i++)
		bt_app_put(w, y + i, 1, a->cols - 2, a->status_role, lines[i]);
}

struct key_help {
	const char *key, *what;
	int optional;		/* dropped first when the line is too narrow */
};

/* The footer's width for entries k[0..n-1] that are kept. */
static int footer_width(const struct key_help *k, const int *keep, int n)
{
	int w = 0;

	for (int i = 0; i < n; i++)
		if (keep[i])
			w += (int)(strlen(k[i].key) + strlen(k[i].what)) + 3;
	return w - 2;
}

/* The keys of the current screen, htop's way; optional ones go when it is narrow. */
static void draw_footer(WINDOW *w, const struct bt_app *a)
{
	static const struct key_help list[] = {
		{ "F1/?", "Help", 0 }, { "Tab", "Pane", 0 }, { "Up/Dn", "Workload", 1 },
		{ "Enter", "Params", 1 }, { "r", "Run", 0 }, { "o", "Sessions", 0 }, { "S", "Save", 1 },
		{ "L", "Load", 1 }, { "v", "Results", 1 }, { "t", "Theme", 1 }, { "q", "Quit", 0 },
		{ 0, 0, 0 } };
	static const struct key_help form[] = {
		{ "F1", "Help", 0 }, { "?", "Detail", 1 }, { "Tab", "Pane", 0 }, { "Enter", "Edit", 0 },
		{ "Space", "Toggle", 0 }, { "r", "Run", 0 }, { "o", "Sessions", 1 }, { "S", "Save", 1 },
		{ "L", "Load", 1 }, { "v", "Results", 1 }, { "t", "Theme", 1 }, { "q", "Quit", 0 },
		{ 0, 0, 0 } };
	static const struct key_help edit[] = {
		{ "Enter", "Set", 0 }, { "Esc", "Cancel", 0 }, { "Left/Right", "Move", 1 },
		{ "Bksp", "Delete", 1 }, { "^U", "Clear", 1 }, { 0, 0, 0 } };
	static const struct key_help chooser[] = {
		{ "Up/Dn", "Move", 0 }, { "Space", "Tick", 0 }, { "Enter", "Set", 0 },
		{ "Esc", "Cancel", 0 }, { 0, 0, 0 } };
	static const struct key_help prompt[] = {
		{ "Enter", "OK", 0 }, { "Esc", "Cancel", 0 }, { 0, 0, 0 } };
	static const struct key_help live[] = {
		{ "Esc/s", "Stop", 0 }, { "c", "Channel", 1 }, { "F1/?", "Help", 0 }, { "t", "Theme", 1 },
		{ "q", "Quit", 0 },
		{ 0, 0, 0 } };
	static const struct key_help results[] = {
		{ "F1/?", "Help", 0 }, { "Up/Dn", "Cell", 0 }, { "PgUp/Dn", "Scroll", 1 },
		{ "e", "Export", 0 }, { "r", "Rerun", 0 }, { "o", "Sessions", 0 }, { "Esc", "Back", 0 },
		{ "t", "Theme", 1 }, { "q", "Quit", 0 }, { 0, 0, 0 } };
	static const struct key_help sessions[] = {
		{ "Enter", "Replay", 0 }, { "Space", "Mark", 0 }, { "c", "Compare", 0 },
		{ "R", "Rerun", 0 }, { "/", "Search", 0 }, { "f", "Filter", 1 }, { "s", "Sort", 1 },
		{ "d", "Delete", 0 }, { "Esc", "Back", 0 },
		{ "?", "Help", 1 }, { "q", "Quit", 1 }, { 0, 0, 0 } };
	static const struct key_help confirm[] = {
		{ "y", "Delete", 0 }, { "n", "Keep", 0 }, { 0, 0, 0 } };
	static const struct key_help overwrite[] = {
		{ "y", "Replace", 0 }, { "n", "Keep", 0 }, { 0, 0, 0 } };
	static const struct key_help plans[] = {
		{ "Up/Dn", "Move", 0 }, { "Enter", "Load", 0 }, { "p", "Path", 0 }, { "Esc", "Cancel", 0 },
		{ 0, 0, 0 } };
	static const struct key_help confirm_cmp[] = {
		{ "y", "Compare", 0 }, { "n", "Cancel", 0 }, { 0, 0, 0 } };
	static const struct key_help replay[] = {
		{ "Space", "Pause", 0 }, { "1/2/8", "Speed", 0 }, { "[ ]", "Cell", 0 },
		{ "Home", "Restart", 0 }, { "v", "End", 1 }, { "c", "Channel", 1 }, { "Esc", "Back", 0 },
		{ "?", "Help", 1 },
		{ "q", "Quit", 1 }, { 0, 0, 0 } };
	static const struct key_help explore[] = {
		{ "+/-", "Threads", 0 }, { "0-9", "Set", 1 }, { "c", "Change", 0 },
		{ "l/n/w/p", "Lock/notify/wait/pin", 1 }, { "s", "Save plan", 0 }, { "z", "Span", 1 },
		{ "q/Esc", "End", 0 }, { "?", "Help", 0 }, { 0, 0, 0 } };
	static const struct key_help picker[] = {
		{ "Up/Dn", "Move", 0 }, { "Enter", "Pick", 0 }, { "Esc", "Back", 0 }, { 0, 0, 0 } };
	static const struct key_help compare[] = {
		{ "Up/Dn", "Scroll", 0 }, { "PgUp/Dn", "Page", 1 }, { "Left/Right", "Pan", 1 },
		{ "Esc", "Back", 0 }, { "?", "Help", 1 }, { "q", "Quit", 0 }, { 0, 0, 0 } };
	const struct key_help *k;
	int keep[16], n = 0, x = 0, y = a->rows - 1;

	if (a->prompt)
		k = prompt;
	else if (a->overwrite[0])
		k = overwrite;
	else if (a->plan_list)
		k = plans;
	else if (a->screen == SCR_LIVE)
		k = live;
	else if (a->screen == SCR_RESULTS)
		k = results;
	else if (a->screen == SCR_SESSIONS)
		k = a->ss.confirm_cmp ? confirm_cmp : a->ss.confirm >= 0 ? confirm : sessions;
	else if (a->screen == SCR_REPLAY)
		k = replay;
	else if (a->screen == SCR_COMPARE)
		k = compare;
	else if (a->screen == SCR_EXPLORE)
		k = a->xv.pick ? picker : explore;
	else if (a->form.chooser)
		k = chooser;
	else if (a->form.editing)
		k = edit;
	else if (a->focus == PANE_LIST)
		k = list;
	else
		k = form;
	for (n = 0; k[n].key && n < 16; n++)
		keep[n] = strcmp(k[n].key, "v") || a->res != NULL;
	for (int i = n - 1; i >= 0 && footer_width(k, keep, n) > a->cols; i--)
		if (k[i].optional)
			keep[i] = 0;
	bt_rect_fill(w, (struct bt_rect){ y, 0, 1, a->cols }, bt_role_attr(ROLE_FOOTER));
	for (int i = 0; i < n && x < a->cols; i++) {
		int kl = (int)strlen(k[i].key);

		if (!keep[i])
			continue;
		bt_app_put(w, y, x, a->cols - x, ROLE_KEY, k[i].key);
		bt_app_put(w, y, x + kl + 1, a->cols - x - kl - 1, ROLE_FOOTER, k[i].what);
		x += kl + (int)strlen(k[i].what) + 3;
	}
}

/* --- render -------------------------------------------------------------- */

/* The rows between the header and the status line(s): every screen's area. */
static struct bt_rect screen_area(const struct bt_app *a)
{
	return (struct bt_rect){ 1, 0, a->rows - 2 - (a->status_h > 0 ? a->status_h : 1), a->cols };
}

/* The workbench's three panes in area (the side pane only from 100 columns). */
static void wb_rects(const struct bt_app *a, struct bt_rect area, struct bt_rect *list,
		     struct bt_rect *form, struct bt_rect *side)
{
	int lw = a->cols >= 160 ? 24 : a->cols >= 100 ? 20 : 18;
	int rest = a->cols - lw;
	int sw = a->cols >= 100 ? rest * 2 / 5 : 0;

	*list = (struct bt_rect){ area.y, 0, area.h, lw };
	*form = (struct bt_rect){ area.y, lw, area.h, rest - sw };
	*side = (struct bt_rect){ area.y, lw + rest - sw, area.h, sw };
}

static void render(struct bt_app *a)
{
	unsigned d = a->dirty;
	struct bt_rect area;

	if (d == 0)
		return;
	a->dirty = 0;
	getmaxyx(stdscr, a->rows, a->cols);
	if (a->rows < BT_MIN_ROWS || a->cols < BT_MIN_COLS) {
		char text[160], lines[8][96];
		int nl = 0;

		/* Word-wrapped to the width there is, centred: readable even at 20x5. */
		snprintf(text, sizeof(text), "benchtop needs at least %dx%d (now %dx%d): enlarge the window",
			 BT_MIN_COLS, BT_MIN_ROWS, a->cols, a->rows);
		for (char *p = text, *word; nl < 8 && (word = strtok_r(p, " ", &p)) != NULL;) {
			size_t used = nl > 0 ? strlen(lines[nl - 1]) : 0;

			if (nl > 0 && used + 1 + strlen(word) <= (size_t)a->cols && used + 1 + strlen(word) < 96) {
				snprintf(lines[nl - 1] + used, sizeof(lines[0]) - used, " %s", word);
				continue;
			}
			snprintf(lines[nl++], sizeof(lines[0]), "%s", word);
		}
		erase();
		for (int i = 0; i < nl; i++) {
			int len = (int)strlen(lines[i]);
			int y = (a->rows - nl) / 2 + i;

			if (y < 0 || y >= a->rows)
				continue;
			bt_app_put(stdscr, y, len < a->cols ? (a->cols - len) / 2 : 0, a->cols,
				   ROLE_WARN, lines[i]);
		}
		wnoutrefresh(stdscr);
		doupdate();
		/* Everything is drawn again once there is room. */
		a->dirty = 0;
		a->rows = 0;
		return;
	}
	/* A status message that wraps takes rows from the screen above it: lay out again. */
	if (status_rows(a) != a->status_h) {
		a->status_h = status_rows(a);
		d = DIRTY_ALL;
	}
	if (d & DIRTY_CLEAR)
		erase();
	area = screen_area(a);
	switch (a->screen) {
	case SCR_WORKBENCH: {
		struct bt_rect list, form, side;
		int sw;

		wb_rects(a, area, &list, &form, &side);
		sw = side.w;
		if (d & DIRTY_LIST)
			bt_wb_draw_list(stdscr, list, a);
		if (d & (DIRTY_FORM | DIRTY_OVERLAY))
			bt_form_draw(stdscr, form, a, a->focus == PANE_FORM);
		if (sw > 0 && (d & DIRTY_SIDE))
			bt_wb_draw_side(stdscr, side, a);
		if (a->form.chooser && (d & (DIRTY_FORM | DIRTY_OVERLAY)))
			bt_form_draw_chooser(stdscr, form, a);
		if (a->plan_list && (d & (DIRTY_FORM | DIRTY_OVERLAY)))
			bt_wb_draw_plans(stdscr, form, a);
		break;
	}
	case SCR_LIVE:
	case SCR_REPLAY:
		bt_live_draw(stdscr, a, d, area);
		break;
	case SCR_RESULTS:
		bt_resview_draw(stdscr, a, d, area);
		break;
	case SCR_SESSIONS:
		bt_ss_draw(stdscr, a, d, area);
		break;
	case SCR_COMPARE:
		bt_cv_draw(stdscr, a, d, area);
		break;
	case SCR_EXPLORE:
		bt_xv_draw(stdscr, a, d, area);
		break;
	}
	if (d & DIRTY_HEADER)
		draw_header(stdscr, a);
	if (d & DIRTY_STATUS)
		draw_status(stdscr, a);
	if (d & DIRTY_FOOTER)
		draw_footer(stdscr, a);
	if (a->help)
		bt_help_draw(stdscr, a);
	wnoutrefresh(stdscr);
	doupdate();
}

/* --- keys ---------------------------------------------------------------- */

static void start_prompt(struct bt_app *a, int kind, const char *label, const char *init)
{
	a->prompt = kind;
	snprintf(a->prompt_label, sizeof(a->prompt_label), "%s", label);
	bt_lineed_set(&a->prompt_ed, init);
	a->dirty |= DIRTY_STATUS | DIRTY_FOOTER;
}

static void prompt_key(struct bt_app *a, int ch)
{
	enum bt_ed_result r = bt_lineed_key(&a->prompt_ed, ch);
	int kind = a->prompt;

	a->dirty |= DIRTY_STATUS;
	if (r == ED_CONTINUE)
		return;
	a->prompt = 0;
	a->status[0] = '\0';
	a->dirty |= DIRTY_FOOTER;
	if (r == ED_CANCEL || (a->prompt_ed.len == 0 && kind != '/'))
		return;
	if (kind == '/')
		bt_ss_set_search(a, a->prompt_ed.buf);
	else if (kind == 'e')
		bt_resview_export(a, a->prompt_ed.buf);
	else if (kind == 'S')
		bt_wb_save_plan(a, a->prompt_ed.buf, 0);
	else if (kind == 'x')
		bt_xv_prompt_done(a, a->prompt_ed.buf);
	else
		bt_wb_load_plan(a, a->prompt_ed.buf);
}

/* L without a list (or p in it): type the plan's path, starting in the plans folder. */
static void plan_path_prompt(struct bt_app *a)
{
	char dir[4096], init[4200];

	bt_wb_plans_dir(a, dir, sizeof(dir));
	snprintf(init, sizeof(init), "%s/", dir);
	start_prompt(a, 'L', "Load plan from:", init);
}

static void set_screen(struct bt_app *a, enum bt_screen s)
{
	a->screen = s;
	a->dirty = DIRTY_ALL;
}

static void handle_key(struct bt_app *a, int ch);

/*
 * A mouse event: the wheel is Up/Down for what is under the pointer (the
 * workload list or the form on the workbench; the screen's list elsewhere);
 * a press picks what is under it: a workload, a field or one of its ticks,
 * the Run button, a sessions row or column head, a results row's cell or a
 * point of the scaling chart.
 */
static void handle_mouse(struct bt_app *a)
{
	struct bt_rect area = screen_area(a), list, form, side;
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return;
	wb_rects(a, area, &list, &form, &side);
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		int key = ev.bstate & BUTTON4_PRESSED ? KEY_UP : KEY_DOWN;

		if (a->screen == SCR_WORKBENCH) {
			if (a->form.editing || a->form.chooser)
				return;
			if (ev.x < form.x)
				a->focus = PANE_LIST;
			else if (ev.x < form.x + form.w)
				a->focus = PANE_FORM;
			a->dirty |= DIRTY_LIST | DIRTY_FORM | DIRTY_FOOTER;
		}
		handle_key(a, key);
		return;
	}
	if (!(ev.bstate & BUTTON1_PRESSED))
		return;
	switch (a->screen) {
	case SCR_WORKBENCH:
		if (ev.y < area.y || ev.y >= area.y + area.h)
			return;
		if (ev.x < list.x + list.w)
			bt_wb_click_list(a, list, ev.y);
		else if (ev.x < form.x + form.w)
			bt_form_click(a, form, ev.y, ev.x);
		return;
	case SCR_SESSIONS:
		if (bt_ss_click(a, area, ev.y, ev.x))
			a->dirty |= DIRTY_FOOTER;
		return;
	case SCR_RESULTS:
		bt_resview_click(a, area, ev.y, ev.x);
		return;
	default:
		return;
	}
}

static void handle_key(struct bt_app *a, int ch)
{
	if (ch == KEY_RESIZE) {
		int rows, cols;

		getmaxyx(stdscr, rows, cols);
		bt_cast_resize(cols, rows);
		a->dirty = DIRTY_ALL;
		return;
	}
	if (a->help) {
		a->help = 0;
		a->dirty = DIRTY_ALL;
		return;
	}
	if (ch == KEY_MOUSE) {
		if (!a->prompt && !a->overwrite[0] && !a->plan_list && !a->form.editing && !a->form.chooser)
			handle_mouse(a);
		else
			getmouse(&(MEVENT){ 0 });
		return;
	}
	if (a->prompt) {
		prompt_key(a, ch);
		return;
	}
	if (a->overwrite[0]) {
		char path[4096];

		snprintf(path, sizeof(path), "%s", a->overwrite);
		a->overwrite[0] = '\0';
		a->dirty |= DIRTY_FOOTER;
		if (ch == 'y' || ch == 'Y')
			bt_wb_save_plan(a, path, 1);
		else
			bt_app_status(a, ROLE_NORMAL, "not saved: %s is as it was", path);
		return;
	}
	if (a->plan_list) {
		if (ch == 'p') {
			bt_wb_plans_close(a);
			plan_path_prompt(a);
		} else if (!bt_wb_plans_key(a, ch) && (ch == 'q' || ch == KEY_F(10))) {
			a->quit = 1;
		}
		return;
	}
	if (a->screen == SCR_WORKBENCH && a->focus == PANE_FORM && (a->form.editing || a->form.chooser)) {
		bt_form_key(a, ch);
		return;
	}
	if (ch == '?' && a->screen == SCR_WORKBENCH && a->focus == PANE_FORM &&
	    a->form.cursor < bt_form_nfields(a)) {
		/* On a field, ? opens (or closes) its detail: F1 is the whole help. */
		a->form.detail = !a->form.detail;
		a->dirty |= DIRTY_FORM;
		return;
	}
	if (ch == 27 && a->screen == SCR_WORKBENCH && a->form.detail) {
		a->form.detail = 0;
		a->dirty |= DIRTY_FORM;
		return;
	}
	if (a->screen == SCR_EXPLORE && bt_xv_key(a, ch))
		return;
	switch (ch) {
	case KEY_F(1):
	case '?':
		a->help = 1;
		a->dirty |= DIRTY_OVERLAY;
		return;
	case 'q':
	case 'Q':
	case KEY_F(10):
		a->quit = 1;
		return;
	case 't':
		next_theme(a);
		return;
	default:
		break;
	}
	switch (a->screen) {
	case SCR_LIVE:
		if (ch == 27 || ch == 's' || ch == 'S')
			bt_live_stop(a);
		else
			bt_live_channel_key(a, ch);
		return;
	case SCR_RESULTS:
		if (ch == 27 || ch == 'w' || ch == KEY_BACKSPACE || ch == 127) {
			if (a->res_back == SCR_SESSIONS)
				bt_ss_open(a);
			else
				set_screen(a, SCR_WORKBENCH);
			return;
		}
		if (ch == 'r' || ch == KEY_F(5)) {
			bt_live_start(a);
			return;
		}
		if (ch == 'o' || ch == KEY_F(2)) {
			bt_ss_open(a);
			return;
		}
		if (ch == 'e') {
			char dir[4096];

			if (a->res == NULL) {
				bt_app_status(a, ROLE_WARN, "nothing to export yet");
				return;
			}
			bt_resview_export_dir(a, dir, sizeof(dir));
			start_prompt(a, 'e', "Export to folder:", dir);
			return;
		}
		bt_resview_key(a, ch);
		return;
	case SCR_SESSIONS:
		if (a->ss.confirm < 0 && !a->ss.confirm_cmp &&
		    (ch == 27 || ch == KEY_BACKSPACE || ch == 127)) {
			set_screen(a, a->ss.back == SCR_RESULTS && a->res != NULL ? SCR_RESULTS :
				   SCR_WORKBENCH);
			return;
		}
		if (a->ss.confirm < 0 && !a->ss.confirm_cmp && ch == '/') {
			start_prompt(a, '/', "Search (workload, axes, values, host, date):", a->ss.search);
			return;
		}
		bt_ss_key(a, ch);
		bt_ss_remember_sel(a);
		a->dirty |= DIRTY_FOOTER;
		return;
	case SCR_REPLAY:
		if (ch == 27 || ch == 's' || ch == KEY_BACKSPACE || ch == 127) {
			bt_ss_open(a);
			return;
		}
		if (!bt_live_channel_key(a, ch))
			bt_replay_key(a, ch);
		return;
	case SCR_COMPARE:
		if (ch == 27 || ch == KEY_BACKSPACE || ch == 127) {
			bt_ss_open(a);
			return;
		}
		bt_cv_key(a, ch);
		return;
	case SCR_EXPLORE:
		return;
	case SCR_WORKBENCH:
		break;
	}
	switch (ch) {
	case 'r':
	case KEY_F(5):
		bt_live_start(a);
		return;
	case 'x':
		bt_xv_start(a);
		return;
	case 'S': {
		char dir[4096], path[4200];

		bt_wb_plans_dir(a, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/%s.json", dir, bt_workloads[a->wl_sel]->name);
		start_prompt(a, 'S', "Save plan to:", path);
		return;
	}
	case 'L':
		if (bt_wb_plans_open(a) == 0)
			plan_path_prompt(a);
		return;
	case 'o':
	case KEY_F(2):
		bt_ss_open(a);
		return;
	case 'v':
		if (a->res != NULL)
			set_screen(a, SCR_RESULTS);
		else
			bt_app_status(a, ROLE_DIM, "no results yet: r runs the sweep");
		return;
	default:
		bt_wb_key(a, ch);
	}
}

/* --- options ------------------------------------------------------------- */

/*
 * [--theme NAME] [--refresh MS] [WORKLOAD] [key=value ...]: the options and
 * a starting plan. Errors are one line on stderr; returns -1 then.
 */
/*
 * The workbench's command line, in the grammar every face reads
 * (bt_front_parse_args): --theme NAME, --refresh MS, --cast FILE, a
 * workload and key=value settings, in any order. On success *args holds the
 * workload and the settings (free args->kv).
 */
static int parse_args(struct bt_app *a, int argc, char **argv, const char *what,
		      struct bt_front_args *args, const char **cast)
{
	const char *theme = NULL, *refresh = NULL;
	const struct bt_front_opt opts[] = {
		{ "--theme", &theme, NULL },
		{ "--refresh", &refresh, NULL },
		{ "--cast", cast, NULL },
	};
	struct bt_err err = { "" };

	if (bt_front_parse_args("", what, opts, (int)(sizeof(opts) / sizeof(opts[0])), argc, argv,
				args, &err) < 0) {
		fprintf(stderr, "benchtop: %s (see benchtop --help)\n", err.msg);
		return -1;
	}
	if (*cast != NULL && (*cast)[0] == '\0') {
		fprintf(stderr, "benchtop: --cast needs a file name\n");
		goto fail;
	}
	if (theme != NULL)
		snprintf(a->theme_name, sizeof(a->theme_name), "%s", theme);
	if (refresh != NULL) {
		char *end;
		long ms = strtol(refresh, &end, 10);

		if (*refresh == '\0' || *end != '\0' || ms < 20 || ms > 10000) {
			fprintf(stderr, "benchtop: --refresh %s: must be 20..10000 (milliseconds)\n", refresh);
			goto fail;
		}
		a->refresh_ms = (int)ms;
	}
	return 0;
fail:
	free(args->kv);
	args->kv = NULL;
	return -1;
}

/* Apply the command line's workload and key=value to the form's plan, before the screen opens. */
static int apply_args(struct bt_app *a, const struct bt_front_args *args)
{
	struct bt_err err = { "" };
	int rc;

	if (args->positional != NULL) {
		const struct bt_workload *wl = bt_workload_find(args->positional);
		int w = -1;

		for (size_t i = 0; i < bt_nworkloads; i++)
			if (bt_workloads[i] == wl)
				w = (int)i;
		if (w < 0) {
			fprintf(stderr, "benchtop: %s: no such workload (see benchtop list)\n", args->positional);
			return -1;
		}
		bt_wb_select(a, w);
	}
	/* As the CLI reads them (a key given twice is refused). */
	rc = bt_front_set_args(bt_form_plan(a), args->kv, args->nkv, &err);
	if (rc < 0)
		fprintf(stderr, "benchtop: %s\n", err.msg);
	return rc;
}

/* --- the loop ------------------------------------------------------------ */

static void loop(struct bt_app *a)
{
	uint64_t next = bt_now_ns();

	while (!a->quit && !bt_front_signalled()) {
		struct pollfd pfd[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
					 { .fd = bt_front_signal_fd(), .events = POLLIN } };
		int timeout = -1, ch;

		if (a->screen == SCR_WORKBENCH)
			bt_form_validate(a);
		render(a);
		if (a->running || bt_replay_playing(a) || a->xv.active) {
			uint64_t now = bt_now_ns();

			timeout = now >= next ? 0 : (int)((next - now + 999999) / 1000000);
		} else if (a->screen == SCR_SESSIONS) {
			timeout = 1000;	/* the folder is polled: a new recording shows */
		}
		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, timeout) < 0 && errno != EINTR)
			break;
		if (bt_front_signalled())
			break;
		while ((ch = getch()) != ERR) {
			handle_key(a, ch);
			if (a->quit)
				break;
		}
		if (a->running || bt_replay_playing(a) || a->xv.active) {
			uint64_t now = bt_now_ns();

			if (now >= next) {
				if (a->xv.active)
					bt_xv_tick(a);
				else if (a->running)
					bt_live_tick(a);
				else
					bt_replay_tick(a);
				next += (uint64_t)a->refresh_ms * 1000000u;
				if (next < now)
					next = now + (uint64_t)a->refresh_ms * 1000000u;
			}
		} else {
			next = bt_now_ns();
		}
		if (a->screen == SCR_SESSIONS && !a->running)
			bt_ss_poll(a);
		if (pfd[0].revents & (POLLHUP | POLLERR))
			break;
	}
}

/*
 * One TUI session: options, then the workbench (replay == NULL) or the
 * replay of a recording, which is read before the screen opens so that a
 * bad file is one line on stderr.
 */
static int tui_session(int argc, char **argv, int replaying)
{
	static struct bt_app app;
	struct bt_app *a = &app;
	struct bt_front_args args;
	const char *cast = NULL, *replay;
	const char *nc = getenv("NO_COLOR");
	struct bt_err err = { "" };
	int rc, status = BT_EXIT_OK;

	setlocale(LC_ALL, "");
	memset(a, 0, sizeof(*a));
	a->refresh_ms = 250;
	a->ss.confirm = -1;
	snprintf(a->theme_name, sizeof(a->theme_name), "default");
	bt_settings_load(a);
	if (a->set_theme[0])
		snprintf(a->theme_name, sizeof(a->theme_name), "%s", a->set_theme);
	if (parse_args(a, argc, argv, replaying ? "recording" : "workload", &args, &cast) < 0) {
		bt_settings_free(a);
		return BT_EXIT_USAGE;
	}
	/* A replay's one argument is the recording, and it takes no settings. */
	if (replaying && (args.positional == NULL || args.nkv > 0)) {
		if (args.nkv > 0)
			fprintf(stderr, "benchtop: replay: unexpected argument %s (benchtop replay RECORDING [--theme NAME] [--refresh MS] [--cast FILE])\n",
				args.kv[0]);
		else
			fprintf(stderr, "benchtop: replay: which recording? (benchtop replay RECORDING; benchtop sessions lists them)\n");
		free(args.kv);
		bt_settings_free(a);
		return BT_EXIT_USAGE;
	}
	replay = replaying ? args.positional : NULL;
	/* A plan on the command line is what the user asked for, first launch or not. */
	if (args.positional != NULL || args.nkv > 0)
		a->set_first = 0;
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "benchtop: the workbench needs a terminal, and standard %s is not one (headless: benchtop run WORKLOAD ...; see benchtop --help)\n",
			isatty(STDOUT_FILENO) ? "input" : "output");
		free(args.kv);
		bt_settings_free(a);
		return BT_EXIT_USAGE;
	}
	bt_wb_init(a);
	rc = replaying ? 0 : apply_args(a, &args);
	free(args.kv);
	if (rc < 0) {
		bt_wb_destroy(a);
		bt_settings_free(a);
		return BT_EXIT_USAGE;
	}
	if (replay != NULL && bt_replay_open(a, replay, &err) < 0) {
		fprintf(stderr, "benchtop: %s\n", err.msg);
		bt_live_free(a);
		bt_wb_destroy(a);
		bt_settings_free(a);
		return BT_EXIT_FAILED;
	}
	if (cast != NULL && bt_cast_start(cast, &err) < 0) {
		fprintf(stderr, "benchtop: %s\n", err.msg);
		bt_replay_free(a);
		bt_live_free(a);
		bt_wb_destroy(a);
		bt_settings_free(a);
		return BT_EXIT_USAGE;
	}
	a->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	bt_app_text_mode(a->utf8);
	g_screen = newterm(NULL, stdout, stdin);
	if (g_screen == NULL) {
		bt_cast_stop();
		fprintf(stderr, "benchtop: cannot use this terminal (TERM=%s)\n",
			getenv("TERM") ? getenv("TERM") : "");
		bt_replay_free(a);
		bt_live_free(a);
		bt_wb_destroy(a);
		bt_settings_free(a);
		return BT_EXIT_USAGE;
	}
	atexit(restore_terminal);
	set_escdelay(25);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	if (!a->mouse_off) {
		/* Presses only (no click synthesis, which would delay every key). */
		mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
		mouseinterval(0);
	}
	if (has_colors() && (nc == NULL || nc[0] == '\0')) {
		start_color();
		use_default_colors();
		a->color = 1;
	}
	bt_front_signals_catch();
	a->nthemes = bt_theme_list(a->themes, BT_THEMES_MAX);
	{
		char keep[512];
		enum bt_role keep_role = a->status_role;

		/* A replay's status line survives the theme's (empty unless the theme failed). */
		snprintf(keep, sizeof(keep), "%s", a->status);
		a->status[0] = '\0';
		load_theme(a, a->theme_name);
		if (a->status[0] == '\0' && keep[0])
			bt_app_status(a, keep_role, "%s", keep);
	}
	if (a->set_error[0])
		bt_app_status(a, ROLE_WARN, "%s", a->set_error);
	else if (a->set_first && a->status[0] == '\0')
		bt_app_status(a, ROLE_GOOD, "Welcome: the form holds the classic experiment, signal vs broadcast at 1-64 threads (about 30 s). Press r to run it.");
	if (a->status[0] == '\0')
		bt_app_status(a, ROLE_DIM, "%s. Space ticks, Enter edits, r runs, o sessions, F1 helps, ? explains a field.",
			      a->topo_desc);
	a->dirty = DIRTY_ALL;

	loop(a);

	/* q or a signal during a run: stop it; the recording ends "interrupted". */
	bt_live_abort(a);
	bt_xv_abort(a);	/* an explore ends at its next sample: its recording is complete */
	endwin();
	delscreen(g_screen);
	g_screen = NULL;
	bt_cast_stop();
	if (replay == NULL && bt_settings_save(a, &err) < 0)
		fprintf(stderr, "benchtop: %s\n", err.msg);
	if (a->record_path[0] && a->run != NULL) {
		const struct bt_results *res = bt_run_results(a->run);

		fprintf(stderr, "benchtop: recorded %s (%s)\n", a->record_path, res->status);
	}
	if (a->xv.x != NULL)
		fprintf(stderr, "benchtop: recorded %s (explore, %d segments)\n", a->xv.record_path,
			bt_explore_results(a->xv.x)->ncells);
	/* q is the user's normal way out (0); a signal ends it like the CLI's run (130). */
	if (bt_front_signalled())
		status = BT_EXIT_INTERRUPTED;
	bt_resview_free(a);
	bt_xv_free(a);
	bt_replay_free(a);
	bt_cv_free(a);
	bt_ss_free(a);
	bt_live_free(a);
	if (a->run != NULL)
		bt_run_free(a->run);
	bt_wb_destroy(a);
	bt_settings_free(a);
	return status;
}

int bt_tui_main(int argc, char **argv)
{
	return tui_session(argc, argv, 0);
}

/*
 * `benchtop replay RECORDING [--theme NAME] [--refresh MS] [--cast FILE]`:
 * the workbench's own command line, with a recording in the workload's place.
 */
int bt_tui_replay(int argc, char **argv)
{
	return tui_session(argc, argv, 1);
}
