/*
 * form.c - the parameter form, generated from the workload's schema and the
 * common run parameters. Ticks (a param with suggested sweep values) toggle
 * with Space; an enum cycles with Left/Right/Space or opens a chooser with
 * Enter; numbers and strings are typed into a line editor, validated as
 * typed with bt_param_parse's messages and committed through bt_plan_set, so
 * the form says exactly what the CLI says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/pin.h"
#include "front/front.h"
#include "tui/app.h"
#include "workloads/registry.h"

#define MAX_TICKS 32

/* --- line editor --------------------------------------------------------- */

void bt_lineed_set(struct bt_lineed *e, const char *text)
{
	snprintf(e->buf, sizeof(e->buf), "%s", text);
	e->len = (int)strlen(e->buf);
	e->pos = e->len;
}

/*
 * Feed one key: printable characters insert at the cursor, Backspace/Delete,
 * Left/Right/Home/End (and ^A ^E ^U) edit; Enter commits, Esc cancels.
 */
enum bt_ed_result bt_lineed_key(struct bt_lineed *e, int ch)
{
	switch (ch) {
	case '\n':
	case '\r':
	case KEY_ENTER:
		return ED_COMMIT;
	case 27:
		return ED_CANCEL;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (e->pos > 0) {
			memmove(e->buf + e->pos - 1, e->buf + e->pos, (size_t)(e->len - e->pos + 1));
			e->pos--;
			e->len--;
		}
		return ED_CONTINUE;
	case KEY_DC:
		if (e->pos < e->len) {
			memmove(e->buf + e->pos, e->buf + e->pos + 1, (size_t)(e->len - e->pos));
			e->len--;
		}
		return ED_CONTINUE;
	case KEY_LEFT:
		if (e->pos > 0)
			e->pos--;
		return ED_CONTINUE;
	case KEY_RIGHT:
		if (e->pos < e->len)
			e->pos++;
		return ED_CONTINUE;
	case KEY_HOME:
	case 1:
		e->pos = 0;
		return ED_CONTINUE;
	case KEY_END:
	case 5:
		e->pos = e->len;
		return ED_CONTINUE;
	case 21:
		e->buf[0] = '\0';
		e->len = e->pos = 0;
		return ED_CONTINUE;
	default:
		break;
	}
	if (ch >= 32 && ch < 127 && e->len < (int)sizeof(e->buf) - 1) {
		memmove(e->buf + e->pos + 1, e->buf + e->pos, (size_t)(e->len - e->pos + 1));
		e->buf[e->pos++] = (char)ch;
		e->len++;
	}
	return ED_CONTINUE;
}

/* --- fields -------------------------------------------------------------- */

struct bt_plan *bt_form_plan(struct bt_app *a)
{
	struct bt_err err = { "" };

	if (!a->plan_ok[a->wl_sel]) {
		if (bt_run_plan_init(&a->plans[a->wl_sel], bt_workloads[a->wl_sel], &err) < 0) {
			bt_app_status(a, ROLE_ERROR, "%s", err.msg);
			return NULL;
		}
		a->plan_ok[a->wl_sel] = 1;
		bt_settings_form(a, a->wl_sel, &a->plans[a->wl_sel]);
	}
	return &a->plans[a->wl_sel];
}

static const struct bt_plan *cplan(const struct bt_app *a)
{
	return a->plan_ok[a->wl_sel] ? &a->plans[a->wl_sel] : NULL;
}

int bt_form_nfields(const struct bt_app *a)
{
	const struct bt_plan *pl = cplan(a);

	return pl ? pl->nparams : 0;
}

int bt_form_param(const struct bt_app *a, int f)
{
	const struct bt_plan *pl = cplan(a);
	int nwl = pl->nparams - (int)bt_common_nparams;

	return f < nwl ? (int)bt_common_nparams + f : f - nwl;
}

void bt_form_focus_flag(struct bt_app *a, unsigned flag)
{
	const struct bt_plan *pl = cplan(a);

	a->form.cursor = 0;
	a->form.tick = 0;
	for (int f = pl ? pl->nparams - 1 : -1; f >= 0; f--)
		if (pl->params[bt_form_param(a, f)]->flags & flag)
			a->form.cursor = f;
}

/* duration= and ops= mean nothing for a workload with fixed work. */
static int not_applicable(const struct bt_app *a, const struct bt_param *p)
{
	return bt_workloads[a->wl_sel]->stop_default == NULL &&
	       (!strcmp(p->name, "duration") || !strcmp(p->name, "ops"));
}

/* A field's values joined by commas: what Enter starts editing with. */
static void join_values(const struct bt_plan *pl, int pi, char *buf, size_t n)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int v = 0; v < pl->nvals[pi] && o < n; v++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", v ? "," : "", pl->vals[pi][v].text);
}

/*
 * The tick values of a field: its suggested ticks, plus any value the plan
 * has that is not one of them, numerically ordered for numbers. ticked[i]
 * says whether the plan has it. Returns the count.
 */
static int tick_values(const struct bt_plan *pl, int pi, char vals[][BT_VALUE_TEXT],
		       int64_t *keys, int *ticked, int max)
{
	const struct bt_param *p = pl->params[pi];
	char **tok = NULL;
	int n = 0, nt;

	nt = bt_param_split(p->ticks, &tok);
	for (int i = 0; i < nt && n < max; i++) {
		struct bt_value v;

		if (bt_param_parse(p, tok[i], &v, NULL) < 0)
			continue;
		snprintf(vals[n], BT_VALUE_TEXT, "%s", v.text);
		keys[n] = v.i;
		ticked[n++] = 0;
	}
	if (nt > 0)
		bt_param_tokens_free(tok, nt);
	for (int v = 0; v < pl->nvals[pi]; v++) {
		int found = 0;

		for (int i = 0; i < n; i++) {
			if (!strcmp(vals[i], pl->vals[pi][v].text)) {
				ticked[i] = 1;
				found = 1;
			}
		}
		if (!found && n < max) {
			snprintf(vals[n], BT_VALUE_TEXT, "%s", pl->vals[pi][v].text);
			keys[n] = pl->vals[pi][v].i;
			ticked[n++] = 1;
		}
	}
	if (p->kind == BT_P_INT || p->kind == BT_P_SIZE || p->kind == BT_P_DURATION) {
		/* insertion sort by value: a handful of entries */
		for (int i = 1; i < n; i++) {
			for (int j = i; j > 0 && keys[j] < keys[j - 1]; j--) {
				char t[BT_VALUE_TEXT];
				int64_t k = keys[j];
				int tk = ticked[j];

				memcpy(t, vals[j], sizeof(t));
				memcpy(vals[j], vals[j - 1], sizeof(t));
				memcpy(vals[j - 1], t, sizeof(t));
				keys[j] = keys[j - 1];
				keys[j - 1] = k;
				ticked[j] = ticked[j - 1];
				ticked[j - 1] = tk;
			}
		}
	}
	return n;
}

/* Set a field from text through the plan; on error the message goes inline. */
static int set_field(struct bt_app *a, int f, const char *text)
{
	struct bt_plan *pl = bt_form_plan(a);
	int pi = bt_form_param(a, f);
	struct bt_err err = { "" };

	if (bt_plan_set(pl, pl->params[pi]->name, text, &err) < 0) {
		snprintf(a->form.err, sizeof(a->form.err), "%s", err.msg);
		a->form.err_field = f;
		return -EINVAL;
	}
	a->form.err[0] = '\0';
	a->dirty |= DIRTY_FORM | DIRTY_SIDE | DIRTY_STATUS;
	return 0;
}

void bt_form_validate(struct bt_app *a)
{
	struct bt_front_base base = { .origin = "plan" };
	const struct bt_plan *pl = cplan(a);
	struct bt_form *fm = &a->form;
	struct bt_err err = { "" };
	struct bt_plan run;
	char name[BT_ERR_MAX], *json;
	size_t len;

	if (pl == NULL)
		return;
	json = bt_plan_to_json(pl);
	if (json == NULL || (fm->checked != NULL && !strcmp(json, fm->checked))) {
		free(json);
		return;
	}
	free(fm->checked);
	fm->checked = json;
	a->dirty |= DIRTY_FORM;
	fm->plan_err[0] = '\0';
	fm->plan_err_field = pl->nparams;
	base.json = json;
	if (bt_front_plan(&run, bt_workloads[a->wl_sel], &base, NULL, 0, NULL, &err) == 0) {
		bt_plan_destroy(&run);
		return;
	}
	snprintf(fm->plan_err, sizeof(fm->plan_err), "%s", err.msg);
	/* "pin=list:0,5: CPU 5 ...", "rows=units: ...": the field is the name before '='. */
	len = strcspn(err.msg, "=: ");
	snprintf(name, sizeof(name), "%.*s", (int)len, err.msg);
	for (int f = 0; f < pl->nparams; f++)
		if (!strcmp(pl->params[bt_form_param(a, f)]->name, name))
			fm->plan_err_field = f;
}

/* Validate what is being typed, token by token, as bt_plan_set will. */
static void validate_typing(struct bt_app *a, int f)
{
	const struct bt_plan *pl = cplan(a);
	const struct bt_param *p = pl->params[bt_form_param(a, f)];
	struct bt_err err = { "" };
	char **tok = NULL;
	int n;

	a->form.err[0] = '\0';
	a->form.err_field = f;
	if (a->form.ed.len == 0)
		return;
	if (p->kind == BT_P_STRING && p->check == NULL)
		return;
	n = bt_param_split(a->form.ed.buf, &tok);
	if (n < 0) {
		snprintf(a->form.err, sizeof(a->form.err), "%s=%s: empty value", p->name, a->form.ed.buf);
		return;
	}
	if (n > 1 && (p->flags & BT_PF_NOSWEEP)) {
		snprintf(a->form.err, sizeof(a->form.err), "%s=%s: %s takes one value", p->name,
			 a->form.ed.buf, p->name);
	} else {
		for (int i = 0; i < n; i++) {
			struct bt_value v;

			if (bt_param_parse(p, tok[i], &v, &err) < 0) {
				snprintf(a->form.err, sizeof(a->form.err), "%s", err.msg);
				break;
			}
		}
	}
	bt_param_tokens_free(tok, n);
}

static void toggle_tick(struct bt_app *a, int f)
{
	const struct bt_plan *pl = cplan(a);
	int pi = bt_form_param(a, f);
	char vals[MAX_TICKS][BT_VALUE_TEXT], text[BT_VALUE_TEXT * 2];
	int64_t keys[MAX_TICKS];
	int ticked[MAX_TICKS], n, on = 0;
	size_t o = 0;

	n = tick_values(pl, pi, vals, keys, ticked, MAX_TICKS);
	if (a->form.tick >= n)
		return;
	ticked[a->form.tick] = !ticked[a->form.tick];
	if (pl->params[pi]->flags & BT_PF_NOSWEEP) {
		for (int i = 0; i < n; i++)
			ticked[i] = i == a->form.tick;
	}
	text[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (!ticked[i])
			continue;
		o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s", on ? "," : "", vals[i]);
		on++;
	}
	if (on == 0) {
		snprintf(a->form.err, sizeof(a->form.err), "%s: at least one value must be ticked",
			 pl->params[pi]->name);
		a->form.err_field = f;
		return;
	}
	set_field(a, f, text);
}

/* Left/Right/Space on an enum or bool with one value: the next or previous choice. */
static void cycle(struct bt_app *a, int f, int dir)
{
	const struct bt_plan *pl = cplan(a);
	int pi = bt_form_param(a, f);
	const struct bt_param *p = pl->params[pi];
	int n = 0, i;

	if (pl->nvals[pi] > 1) {
		snprintf(a->form.err, sizeof(a->form.err),
			 "%s is swept over %d values: Enter opens the chooser", p->name, pl->nvals[pi]);
		a->form.err_field = f;
		return;
	}
	if (p->kind == BT_P_BOOL) {
		set_field(a, f, pl->vals[pi][0].i ? "off" : "on");
		return;
	}
	while (p->choices[n] != NULL)
		n++;
	i = (int)((pl->vals[pi][0].i + dir + n) % n);
	set_field(a, f, p->choices[i]);
}

static void open_chooser(struct bt_app *a, int f)
{
	const struct bt_plan *pl = cplan(a);
	int pi = bt_form_param(a, f);
	const struct bt_param *p = pl->params[pi];

	a->form.chooser = 1;
	a->form.ch_cursor = 0;
	a->form.ch_mask = 0;
	a->form.ch_multi = p->kind == BT_P_LIST || !(p->flags & BT_PF_NOSWEEP);
	if (p->kind == BT_P_LIST) {
		a->form.ch_mask = (uint64_t)pl->vals[pi][0].i;
	} else {
		for (int v = 0; v < pl->nvals[pi]; v++)
			a->form.ch_mask |= 1ull << pl->vals[pi][v].i;
		a->form.ch_cursor = (int)pl->vals[pi][0].i;
	}
	a->dirty |= DIRTY_OVERLAY | DIRTY_FOOTER;
}

static void chooser_key(struct bt_app *a, int ch)
{
	const struct bt_plan *pl = cplan(a);
	int f = a->form.cursor;
	const struct bt_param *p = pl->params[bt_form_param(a, f)];
	int n = 0;
	char text[BT_VALUE_TEXT * 2];
	size_t o = 0;

	while (p->choices[n] != NULL)
		n++;
	a->dirty |= DIRTY_OVERLAY;
	switch (ch) {
	case KEY_UP:
	case 'k':
		a->form.ch_cursor = (a->form.ch_cursor + n - 1) % n;
		return;
	case KEY_DOWN:
	case 'j':
		a->form.ch_cursor = (a->form.ch_cursor + 1) % n;
		return;
	case ' ':
		if (a->form.ch_multi)
			a->form.ch_mask ^= 1ull << a->form.ch_cursor;
		else
			a->form.ch_mask = 1ull << a->form.ch_cursor;
		return;
	case 27:
	case 'q':
		a->form.chooser = 0;
		a->dirty = DIRTY_ALL;
		return;
	case '\n':
	case '\r':
	case KEY_ENTER:
		break;
	default:
		return;
	}
	/* Enter: a single-choice chooser takes the row under the cursor. */
	if (!a->form.ch_multi || a->form.ch_mask == 0)
		a->form.ch_mask = 1ull << a->form.ch_cursor;
	text[0] = '\0';
	for (int i = 0; i < n; i++)
		if (a->form.ch_mask & (1ull << i))
			o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s", o ? (p->kind == BT_P_LIST ? "+" : ",") : "",
					      p->choices[i]);
	a->form.chooser = 0;
	a->dirty |= DIRTY_ALL;
	set_field(a, f, text);
}

static int is_number(const struct bt_param *p)
{
	return p->kind == BT_P_INT || p->kind == BT_P_SIZE || p->kind == BT_P_DURATION;
}

static void start_edit(struct bt_app *a, int f, const char *init)
{
	const struct bt_plan *pl = cplan(a);
	char buf[BT_VALUE_TEXT];

	if (init == NULL) {
		join_values(pl, bt_form_param(a, f), buf, sizeof(buf));
		init = buf;
	}
	a->form.editing = 1;
	bt_lineed_set(&a->form.ed, init);
	validate_typing(a, f);
	a->dirty |= DIRTY_FORM | DIRTY_FOOTER;
}

int bt_form_key(struct bt_app *a, int ch)
{
	struct bt_form *fm = &a->form;
	const struct bt_plan *pl = cplan(a);
	int nf = bt_form_nfields(a), pi;
	const struct bt_param *p;

	if (pl == NULL)
		return 0;
	if (fm->chooser) {
		chooser_key(a, ch);
		return 1;
	}
	if (fm->editing) {
		enum bt_ed_result r = bt_lineed_key(&fm->ed, ch);

		a->dirty |= DIRTY_FORM;
		if (r == ED_CANCEL) {
			fm->editing = 0;
			fm->err[0] = '\0';
			a->dirty |= DIRTY_FOOTER;
		} else if (r == ED_COMMIT) {
			if (set_field(a, fm->cursor, fm->ed.buf) == 0) {
				fm->editing = 0;
				a->dirty |= DIRTY_FOOTER;
			}
		} else {
			validate_typing(a, fm->cursor);
		}
		return 1;
	}

	a->dirty |= DIRTY_FORM;
	switch (ch) {
	case KEY_UP:
	case 'k':
		if (fm->cursor > 0)
			fm->cursor--;
		goto moved;
	case KEY_DOWN:
	case 'j':
		if (fm->cursor < nf)
			fm->cursor++;
		goto moved;
	case KEY_HOME:
	case 'g':
		fm->cursor = 0;
		goto moved;
	case KEY_END:
	case 'G':
		fm->cursor = nf;
		goto moved;
	case KEY_NPAGE:
		fm->cursor = fm->cursor + 8 < nf ? fm->cursor + 8 : nf;
		goto moved;
	case KEY_PPAGE:
		fm->cursor = fm->cursor > 8 ? fm->cursor - 8 : 0;
		goto moved;
	default:
		break;
	}
	if (fm->cursor == nf) {
		/* The Run button. */
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == ' ') {
			bt_live_start(a);
			return 1;
		}
		return 0;
	}
	pi = bt_form_param(a, fm->cursor);
	p = pl->params[pi];
	if (not_applicable(a, p)) {
		if (ch == '\n' || ch == '\r' || ch == KEY_ENTER || ch == ' ' || (ch >= '0' && ch <= '9')) {
			snprintf(fm->err, sizeof(fm->err),
				 "%s: %s does a fixed amount of work set by its own parameters", p->name,
				 pl->workload);
			fm->err_field = fm->cursor;
			return 1;
		}
		return 0;
	}
	if (p->ticks != NULL) {
		char vals[MAX_TICKS][BT_VALUE_TEXT];
		int64_t keys[MAX_TICKS];
		int ticked[MAX_TICKS];
		int n = tick_values(pl, pi, vals, keys, ticked, MAX_TICKS);

		switch (ch) {
		case KEY_LEFT:
		case 'h':
			if (fm->tick > 0)
				fm->tick--;
			return 1;
		case KEY_RIGHT:
		case 'l':
			if (fm->tick < n - 1)
				fm->tick++;
			return 1;
		case ' ':
			toggle_tick(a, fm->cursor);
			return 1;
		default:
			break;
		}
	} else if (p->kind == BT_P_ENUM || p->kind == BT_P_BOOL) {
		switch (ch) {
		case KEY_LEFT:
		case 'h':
			cycle(a, fm->cursor, -1);
			return 1;
		case KEY_RIGHT:
		case 'l':
		case ' ':
			cycle(a, fm->cursor, 1);
			return 1;
		default:
			break;
		}
	}
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		if (p->kind == BT_P_ENUM || p->kind == BT_P_LIST)
			open_chooser(a, fm->cursor);
		else if (p->kind == BT_P_BOOL)
			cycle(a, fm->cursor, 1);
		else
			start_edit(a, fm->cursor, NULL);
		return 1;
	}
	if (ch >= '0' && ch <= '9' && is_number(p)) {
		char init[2] = { (char)ch, '\0' };

		start_edit(a, fm->cursor, init);
		return 1;
	}
	return 0;
moved:
	fm->tick = 0;
	fm->detail = 0;
	if (fm->err_field != fm->cursor)
		fm->err[0] = '\0';
	a->dirty |= DIRTY_SIDE | DIRTY_FOOTER;
	return 1;
}

/* --- drawing ------------------------------------------------------------- */

/* Wrap msg into lines of width w (at spaces where possible); returns the count. */
static int wrap(const char *msg, int w, char out[][BT_ERR_MAX], int max)
{
	int n = 0, len = (int)strlen(msg);

	if (w < 8)
		w = 8;
	while (len > 0 && n < max) {
		int take = len <= w ? len : w;

		if (take < len) {
			int sp = take;

			while (sp > w / 2 && msg[sp] != ' ')
				sp--;
			if (msg[sp] == ' ')
				take = sp;
		}
		snprintf(out[n++], BT_ERR_MAX, "%.*s", take, msg);
		msg += take;
		len -= take;
		while (*msg == ' ') {
			msg++;
			len--;
		}
	}
	return n;
}

/* The kinds of rows of the form, in order. */
enum row_kind { ROW_FIELD, ROW_ERROR, ROW_HEADING, ROW_RUN };

struct row {
	enum row_kind kind;
	int f;		/* field, for ROW_FIELD / ROW_ERROR */
	int line;	/* error line index */
};

/*
 * The rows in order. The typing error (form.err) goes under its field; the
 * plan's error (what r would refuse) under the field it names, or above the
 * Run button, unless the typing error already stands there. errl gets the
 * wrapped lines of both (at most 3 each); *nerr counts those after the
 * cursor's row (to keep them on screen).
 */
static int form_rows(const struct bt_app *a, struct row *rows, int max, int errw,
		     char errl[][BT_ERR_MAX], int *nerr)
{
	const struct bt_plan *pl = cplan(a);
	const struct bt_form *fm = &a->form;
	int nwl = pl->nparams - (int)bt_common_nparams, n = 0, ne = 0, np = 0;
	int pf = fm->plan_err[0] && (!fm->err[0] || fm->err_field != fm->plan_err_field) ?
		 fm->plan_err_field : -1;

	*nerr = 0;
	if (fm->err[0])
		ne = wrap(fm->err, errw, errl, 3);
	if (pf >= 0)
		np = wrap(fm->plan_err, errw, errl + ne, 3);
	if (fm->err_field == fm->cursor)
		*nerr += ne;
	if (pf == fm->cursor && pf < pl->nparams)
		*nerr += np;
	for (int f = 0; f <= pl->nparams && n < max - 8; f++) {
		if (f == nwl) {
			rows[n++] = (struct row){ ROW_HEADING, f, 0 };
		}
		if (f < pl->nparams)
			rows[n++] = (struct row){ ROW_FIELD, f, 0 };
		if (f == fm->err_field)
			for (int i = 0; i < ne; i++)
				rows[n++] = (struct row){ ROW_ERROR, f, i };
		if (f == pf)
			for (int i = 0; i < np; i++)
				rows[n++] = (struct row){ ROW_ERROR, f, ne + i };
	}
	rows[n++] = (struct row){ ROW_RUN, pl->nparams, 0 };
	return n;
}

/* Draw the value part of a field row. */
static void draw_value(WINDOW *w, int y, int x, int width, const struct bt_app *a, int f,
		       int focus)
{
	const struct bt_plan *pl = cplan(a);
	int pi = bt_form_param(a, f);
	const struct bt_param *p = pl->params[pi];
	int cur = focus && a->form.cursor == f;
	char buf[BT_VALUE_TEXT * 2];

	if (cur && a->form.editing) {
		const struct bt_lineed *e = &a->form.ed;
		int start = e->pos >= width - 1 ? e->pos - width + 2 : 0;

		bt_app_putf(w, y, x, width, ROLE_VALUE, "%-*.*s", width, width, e->buf + start);
		wattron(w, A_REVERSE);
		mvwaddch(w, y, x + e->pos - start, e->pos < e->len ? (chtype)e->buf[e->pos] : ' ');
		wattroff(w, A_REVERSE);
		return;
	}
	if (not_applicable(a, p)) {
		bt_app_put(w, y, x, width, ROLE_DIM, "n/a (fixed work)");
		return;
	}
	if (p->ticks != NULL) {
		char vals[MAX_TICKS][BT_VALUE_TEXT];
		int64_t keys[MAX_TICKS];
		int ticked[MAX_TICKS];
		int n = tick_values(pl, pi, vals, keys, ticked, MAX_TICKS), cx = x;

		for (int i = 0; i < n; i++) {
			int len = (int)strlen(vals[i]) + 3;
			enum bt_role role = ticked[i] ? ROLE_VALUE : ROLE_DIM;

			if (cx + len > x + width)
				break;
			snprintf(buf, sizeof(buf), "[%c]%s", ticked[i] ? 'x' : ' ', vals[i]);
			if (cur && a->form.tick == i)
				role = ROLE_SELECT;
			bt_app_put(w, y, cx, len, role, buf);
			cx += len + 1;
		}
		return;
	}
	join_values(pl, pi, buf, sizeof(buf));
	if ((p->kind == BT_P_ENUM || p->kind == BT_P_BOOL) && pl->nvals[pi] == 1 && cur) {
		char b2[BT_VALUE_TEXT + 8];

		snprintf(b2, sizeof(b2), "< %s >", buf);
		bt_app_put(w, y, x, width, ROLE_SELECT, b2);
		return;
	}
	if ((!strcmp(p->name, "duration") || !strcmp(p->name, "ops")) && pl->vals[pi][0].i == 0) {
		const char *def = bt_workloads[a->wl_sel]->stop_default;

		bt_app_putf(w, y, x, width, cur ? ROLE_SELECT : ROLE_DIM, "0 (default: %s)", def);
		return;
	}
	bt_app_put(w, y, x, width, cur ? ROLE_SELECT : ROLE_VALUE, buf);
}

/*
 * The focused field's help wrapped to width w, at most max lines (cut with
 * "..." and a pointer to ? when there is more) and at most room. With the
 * detail open: all of it, then the range, the default and an example.
 */
static int help_lines(const struct bt_app *a, int w, char out[][BT_ERR_MAX], int max, int room)
{
	const struct bt_plan *pl = cplan(a);
	const struct bt_workload *wl = bt_workloads[a->wl_sel];
	const struct bt_param *p;
	char text[BT_ERR_MAX * 2], allowed[160], ex[BT_VALUE_TEXT];
	int n, more;

	if (max > room)
		max = room;
	if (max < 1)
		return 0;
	if (a->form.cursor >= pl->nparams) {
		snprintf(text, sizeof(text), "%s: %s", wl->name, wl->title ? wl->title : "");
		return wrap(text, w, out, max);
	}
	p = pl->params[bt_form_param(a, a->form.cursor)];
	snprintf(text, sizeof(text), "%s: %s", p->name, p->help ? p->help : "");
	if (!a->form.detail) {
		char all[10][BT_ERR_MAX];

		more = wrap(text, w, all, 10) > max;
		n = wrap(text, w, out, max);
		if (more && n > 0) {
			int len = (int)strlen(out[n - 1]);
			int at = len + 9 <= w ? len : w - 9 > 0 ? w - 9 : 0;

			snprintf(out[n - 1] + at, BT_ERR_MAX - (size_t)at, " ... (?)");
		}
		return n;
	}
	n = wrap(text, w, out, max);
	bt_param_allowed(p, allowed, sizeof(allowed));
	if (n < max)
		snprintf(out[n++], BT_ERR_MAX, "range: %s (%s)", allowed, bt_pkind_name(p->kind));
	if (n < max)
		snprintf(out[n++], BT_ERR_MAX, "default: %s", p->def && p->def[0] ? p->def : "(none)");
	/* An example: a sweep of the suggested values, else the default. */
	if (p->ticks != NULL && !(p->flags & BT_PF_NOSWEEP)) {
		const char *t = p->ticks, *c2 = strchr(t, ',');

		c2 = c2 ? strchr(c2 + 1, ',') : NULL;
		snprintf(ex, sizeof(ex), "%.*s", c2 ? (int)(c2 - t) : (int)strlen(t), t);
	} else {
		snprintf(ex, sizeof(ex), "%s", p->def && p->def[0] ? p->def : "...");
	}
	if (n < max)
		snprintf(out[n++], BT_ERR_MAX, "example: benchtop run %s %s=%s", wl->name, p->name, ex);
	return n;
}

/* How to use the focused field, for the help lines under the form. */
static void field_hint(const struct bt_app *a, int f, char *buf, size_t n)
{
	const struct bt_plan *pl = cplan(a);
	const struct bt_param *p;
	char allowed[160];

	if (f >= pl->nparams) {
		snprintf(buf, n, "Enter or r starts the sweep: %d cell%s", pl->ncells,
			 pl->ncells == 1 ? "" : "s");
		return;
	}
	p = pl->params[bt_form_param(a, f)];
	bt_param_allowed(p, allowed, sizeof(allowed));
	if (a->form.editing)
		snprintf(buf, n, "%s: %s. Enter sets, Esc cancels%s", bt_pkind_name(p->kind), allowed,
			 p->flags & BT_PF_NOSWEEP ? "" : ", a,b,c sweeps");
	else if (p->ticks)
		snprintf(buf, n, "Left/Right pick, Space ticks, Enter types (%s)", allowed);
	else if (p->kind == BT_P_ENUM)
		snprintf(buf, n, "Left/Right/Space cycles, Enter chooses%s (%s)",
			 p->flags & BT_PF_NOSWEEP ? "" : " several", allowed);
	else if (p->kind == BT_P_BOOL)
		snprintf(buf, n, "Space toggles (%s)", allowed);
	else if (p->kind == BT_P_LIST)
		snprintf(buf, n, "Enter chooses (%s)", allowed);
	else
		snprintf(buf, n, "Enter edits (%s: %s)", bt_pkind_name(p->kind), allowed);
}

/* Where everything of the form goes inside its box: what drawing and a click both use. */
struct form_geom {
	struct row rows[BT_PLAN_MAX_PARAMS * 2 + 16];
	char errl[6][BT_ERR_MAX], helpl[10][BT_ERR_MAX], pinl[8][160];
	int namew, nrows, nerr, help_h, vis, first, npin, nhelp;
};

static void form_geom(const struct bt_app *a, struct bt_rect in, struct form_geom *g)
{
	const struct bt_plan *pl = cplan(a);
	int wide = a->cols >= 100, cline = 0;

	g->namew = 6;
	g->npin = 0;
	for (int i = 0; i < pl->nparams; i++)
		if ((int)strlen(pl->params[i]->name) > g->namew)
			g->namew = (int)strlen(pl->params[i]->name);
	g->namew += 2;
	g->nrows = form_rows(a, g->rows, (int)(sizeof(g->rows) / sizeof(g->rows[0])), in.w - 4,
			     g->errl, &g->nerr);

	/*
	 * Help lines at the bottom: the field's help (wrapped, 2 lines at most;
	 * all of it with range, default and an example after ?) and how to use
	 * it; pinning when narrow.
	 */
	g->nhelp = help_lines(a, in.w, g->helpl, a->form.detail ? 10 : 2, in.h / 2);
	g->help_h = 2 + g->nhelp;
	if (!wide && !a->form.detail && a->form.cursor < pl->nparams &&
	    !strcmp(pl->params[bt_form_param(a, a->form.cursor)]->name, "pin")) {
		g->npin = bt_form_pin_lines(a, g->pinl, in.h / 3 > 6 ? 6 : in.h / 3, in.w);
		g->help_h += g->npin;
	}
	g->vis = in.h - g->help_h;
	if (g->vis < 2) {
		g->vis = in.h;
		g->help_h = 0;
	}
	for (int i = 0; i < g->nrows; i++)
		if ((g->rows[i].kind == ROW_FIELD || g->rows[i].kind == ROW_RUN) &&
		    g->rows[i].f == a->form.cursor)
			cline = i;
	/* Keep the cursor row (and its error lines) visible; no stored scroll state. */
	g->first = cline + 1 + g->nerr - g->vis;
	if (g->first < 0)
		g->first = 0;
}

/*
 * A click at (y, x) in the form drawn in r: the field under it gets the
 * cursor (a tick under it is toggled, as Space would), the Run button runs.
 * Returns 1 when it hit something.
 */
int bt_form_click(struct bt_app *a, struct bt_rect r, int y, int x)
{
	struct bt_rect in = { r.y + 1, r.x + 1, r.h - 2, r.w - 2 };
	const struct bt_plan *pl = cplan(a);
	struct form_geom *g;
	const struct row *rw;
	int i, hit = 0;

	if (pl == NULL || in.h < 4 || in.w < 20 || y < in.y || y >= in.y + in.h || x < in.x ||
	    x >= in.x + in.w || a->form.editing || a->form.chooser)
		return 0;
	g = malloc(sizeof(*g));
	if (g == NULL)
		return 0;
	form_geom(a, in, g);
	i = g->first + (y - in.y);
	if (y - in.y >= g->vis || i >= g->nrows)
		goto out;
	rw = &g->rows[i];
	a->focus = PANE_FORM;
	a->dirty |= DIRTY_FORM | DIRTY_LIST | DIRTY_SIDE | DIRTY_FOOTER;
	if (rw->kind == ROW_RUN) {
		a->form.cursor = pl->nparams;
		bt_live_start(a);
		hit = 1;
	} else if (rw->kind == ROW_FIELD) {
		const struct bt_param *p = pl->params[bt_form_param(a, rw->f)];
		int vx = in.x + 1 + g->namew;

		if (a->form.cursor != rw->f) {
			a->form.cursor = rw->f;
			a->form.tick = 0;
			a->form.detail = 0;
			if (a->form.err_field != rw->f)
				a->form.err[0] = '\0';
		}
		hit = 1;
		if (p->ticks != NULL && !not_applicable(a, p) && x >= vx) {
			char vals[MAX_TICKS][BT_VALUE_TEXT];
			int64_t keys[MAX_TICKS];
			int ticked[MAX_TICKS];
			int n = tick_values(pl, bt_form_param(a, rw->f), vals, keys, ticked, MAX_TICKS);
			int cx = vx, width = in.w - 1 - g->namew;

			for (int t = 0; t < n; t++) {
				int len = (int)strlen(vals[t]) + 3;

				if (cx + len > vx + width)
					break;
				if (x >= cx && x < cx + len) {
					a->form.tick = t;
					toggle_tick(a, rw->f);
					break;
				}
				cx += len + 1;
			}
		}
	}
out:
	free(g);
	return hit;
}

void bt_form_draw(WINDOW *w, struct bt_rect r, const struct bt_app *a, int focus)
{
	const struct bt_plan *pl = cplan(a);
	const struct bt_workload *wl = bt_workloads[a->wl_sel];
	char title[96], hint[256];
	struct form_geom gs, *g = &gs;
	struct bt_rect in;

	snprintf(title, sizeof(title), "Parameters: %s", wl->name);
	bt_app_clear(w, r);
	in = bt_box_draw(w, r, title, focus, a->utf8);
	if (pl == NULL || in.h < 4 || in.w < 20)
		return;
	form_geom(a, in, g);
	for (int i = g->first; i < g->nrows && i - g->first < g->vis; i++) {
		int y = in.y + i - g->first;
		const struct row *rw = &g->rows[i];
		int cur = focus && rw->f == a->form.cursor;

		switch (rw->kind) {
		case ROW_HEADING:
			bt_app_put(w, y, in.x, in.w, ROLE_TITLE, "-- every run --");
			break;
		case ROW_ERROR:
			bt_app_put(w, y, in.x + 2, in.w - 2, ROLE_ERROR, g->errl[rw->line]);
			break;
		case ROW_RUN:
			bt_app_put(w, y, in.x + 2, in.w - 2,
				   cur ? ROLE_SELECT : a->form.plan_err[0] ? ROLE_DIM : ROLE_GOOD,
				   a->utf8 ? "[ \u25b6 Run the sweep ]" : "[ > Run the sweep ]");
			break;
		case ROW_FIELD: {
			const struct bt_param *p = pl->params[bt_form_param(a, rw->f)];

			bt_app_put(w, y, in.x, 2, cur ? ROLE_FOCUS : ROLE_NORMAL, cur ? ">" : " ");
			bt_app_put(w, y, in.x + 1, g->namew,
				   cur ? ROLE_FOCUS : not_applicable(a, p) ? ROLE_DIM : ROLE_LABEL, p->name);
			draw_value(w, y, in.x + 1 + g->namew, in.w - 1 - g->namew, a, rw->f, focus);
			break;
		}
		}
	}
	if (g->help_h == 0)
		return;
	{
		int y = in.y + in.h - g->help_h;
		int f = a->form.cursor;

		for (int x = 0; x < in.w; x++)
			bt_cell_draw(w, in, y - in.y, x, a->utf8 ? L'\u2500' : L'-', bt_role_attr(ROLE_BORDER));
		for (int i = 0; i < g->nhelp; i++)
			bt_app_put(w, y + 1 + i, in.x, in.w, ROLE_NORMAL, g->helpl[i]);
		field_hint(a, f, hint, sizeof(hint));
		bt_app_put(w, y + 1 + g->nhelp, in.x, in.w, ROLE_DIM, hint);
		for (int i = 0; i < g->npin; i++)
			bt_app_put(w, y + 2 + g->nhelp + i, in.x, in.w, i == 0 ? ROLE_LABEL : ROLE_NORMAL,
				   g->pinl[i]);
	}
}

/* The chooser of an enum/list field, drawn over the form below the field. */
void bt_form_draw_chooser(WINDOW *w, struct bt_rect r, const struct bt_app *a)
{
	const struct bt_plan *pl = cplan(a);
	const struct bt_param *p = pl->params[bt_form_param(a, a->form.cursor)];
	struct bt_rect box, in;
	int n = 0, maxw = 10;
	char title[80];

	while (p->choices[n] != NULL) {
		if ((int)strlen(p->choices[n]) > maxw)
			maxw = (int)strlen(p->choices[n]);
		n++;
	}
	snprintf(title, sizeof(title), "%s", p->name);
	box.h = n + 3;
	box.w = maxw + 8 > 36 ? maxw + 8 : 36;
	box.y = r.y + 3;
	box.x = r.x + r.w / 4;
	if (box.h > r.h - 2)
		box.h = r.h - 2;
	if (box.x + box.w > r.x + r.w)
		box.x = r.x + r.w - box.w;
	bt_app_clear(w, box);
	in = bt_box_draw(w, box, title, 1, a->utf8);
	for (int i = 0; i < n && i < in.h - 1; i++) {
		int on = (a->form.ch_mask >> i) & 1;
		char line[96];

		if (a->form.ch_multi)
			snprintf(line, sizeof(line), " [%c] %s", on ? 'x' : ' ', p->choices[i]);
		else
			snprintf(line, sizeof(line), " (%c) %s", on ? '*' : ' ', p->choices[i]);
		bt_app_putf(w, in.y + i, in.x, in.w, i == a->form.ch_cursor ? ROLE_SELECT : ROLE_NORMAL,
			    "%-*s", in.w, line);
	}
	bt_app_put(w, in.y + in.h - 1, in.x, in.w, ROLE_DIM,
		   a->form.ch_multi ? "Space ticks, Enter sets, Esc" : "Enter sets, Esc cancels");
}

/*
 * Topology and, for each pin policy in the plan, the CPUs its workers would
 * use for the largest threads value: what the pin field is about.
 */
int bt_form_pin_lines(const struct bt_app *a, char lines[][160], int max, int width)
{
	const struct bt_plan *pl = cplan(a);
	const struct bt_topo *t = &a->topo;
	int n = 0, pin, thr, nthreads = 4;

	if (max <= 0 || pl == NULL)
		return 0;
	if (!a->have_topo) {
		snprintf(lines[n++], 160, "topology unknown");
		return n;
	}
	snprintf(lines[n++], 160, "%s", a->topo_desc);
	/* One line per NUMA node: its cores with their SMT siblings. */
	for (int node = 0; node < t->nnodes && n < max - 1; node++) {
		char buf[160];
		size_t o;

		o = (size_t)snprintf(buf, sizeof(buf), "node %d cores:", node);
		for (int c = 0; c < t->ncores && o < sizeof(buf); c++) {
			int sib[16], ns = 0;

			for (int i = 0; i < t->ncpus && ns < 16; i++)
				if (t->cpus[i].core == c && t->cpus[i].node == node)
					sib[ns++] = t->cpus[i].os;
			if (ns == 0)
				continue;
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, " [");
			for (int i = 0; i < ns && o < sizeof(buf); i++)
				o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%d", i ? " " : "", sib[i]);
			if (o < sizeof(buf))
				o += (size_t)snprintf(buf + o, sizeof(buf) - o, "]");
		}
		if ((int)o > width && width > 4)
			snprintf(buf + width - 3, sizeof(buf) - (size_t)width + 3, "...");
		snprintf(lines[n++], 160, "%s", buf);
	}
	pin = bt_plan_index(pl, "pin");
	thr = bt_plan_find_flag(pl, BT_PF_WORKERS);
	if (thr >= 0)
		for (int v = 0; v < pl->nvals[thr]; v++)
			if (pl->vals[thr][v].i > nthreads || v == 0)
				nthreads = (int)pl->vals[thr][v].i;
	if (nthreads > 256)
		nthreads = 256;
	/* compact and scatter always (to compare), then the plan's other policies. */
	for (int v = -2; pin >= 0 && v < pl->nvals[pin] && n < max; v++) {
		const char *pol = v == -2 ? "compact" : v == -1 ? "scatter" : pl->vals[pin][v].text;
		int cpus[256], used = 0;
		struct bt_err err = { "" };
		char buf[160];
		size_t o;

		if (v >= 0 && (!strcmp(pol, "none") || !strcmp(pol, "compact") || !strcmp(pol, "scatter")))
			continue;
		for (int u = 0; u < pl->nvals[pin]; u++)
			used |= !strcmp(pl->vals[pin][u].text, pol);
		if (bt_pin_plan(t, pol, nthreads, cpus, &err) < 0) {
			snprintf(lines[n++], 160, "%s", err.msg);
			continue;
		}
		o = (size_t)snprintf(buf, sizeof(buf), "%s%s: workers 0-%d on CPUs", used ? "*" : " ",
				     pol, nthreads - 1);
		for (int i = 0; i < nthreads && o < sizeof(buf); i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, " %d", cpus[i]);
		if ((int)o > width && width > 4)
			snprintf(buf + width - 3, sizeof(buf) - (size_t)width + 3, "...");
		snprintf(lines[n++], 160, "%s", buf);
	}
	if (n < max)
		snprintf(lines[n++], 160, "(* = in the plan; none leaves placement to the scheduler)");
	return n;
}
