/*
 * compare_view.c - two or more recordings compared (bt_cmp_build): the
 * recordings, how the plans and machines differ from A's, then per cell and
 * per other recording K: the median throughputs, the ratio K/A, its 95%
 * interval, the verdict (within noise / faster / slower in ROLE_DIM /
 * ROLE_GOOD / ROLE_BAD) and the change of p50 and p99. The text is built
 * into lines once when the view opens; drawing only scrolls through them.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/recording.h"
#include "core/units.h"
#include "tui/app.h"

void bt_cv_free(struct bt_app *a)
{
	struct bt_cmpview *cv = &a->cv;

	for (int i = 0; i < cv->nlines; i++)
		free(cv->lines[i].text);
	free(cv->lines);
	for (int i = 0; i < cv->nres; i++)
		bt_results_destroy(&cv->res[i]);
	memset(cv, 0, sizeof(*cv));
}

/* Append a line; the last span set by span() colours part of it. -ENOMEM on failure. */
static int add(struct bt_cmpview *cv, enum bt_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int add(struct bt_cmpview *cv, enum bt_role role, const char *fmt, ...)
{
	struct bt_cv_line *nl;
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nl = realloc(cv->lines, sizeof(*nl) * (size_t)(cv->nlines + 1));
	if (nl == NULL)
		return -ENOMEM;
	cv->lines = nl;
	nl[cv->nlines] = (struct bt_cv_line){ strdup(buf), role, role, 0, 0 };
	if (nl[cv->nlines].text == NULL)
		return -ENOMEM;
	if ((int)strlen(buf) > cv->width)
		cv->width = (int)strlen(buf);
	cv->nlines++;
	return 0;
}

/* Add each '\n'-separated line of text, indented. */
static int add_lines(struct bt_cmpview *cv, const char *text)
{
	for (const char *p = text; *p;) {
		size_t k = strcspn(p, "\n");

		if (add(cv, ROLE_NORMAL, "  %.*s", (int)k, p) < 0)
			return -ENOMEM;
		p += k;
		if (*p == '\n')
			p++;
	}
	return 0;
}

static void pct_delta(uint64_t a, uint64_t k, int ok, char *buf, size_t n)
{
	if (!ok || a == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%+.0f%%", ((double)k - (double)a) * 100.0 / (double)a);
}

static void rate(double v, char *buf, size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		bt_fmt_si(v, buf, n);
}

static enum bt_role verdict_role(enum bt_cmp_verdict v)
{
	switch (v) {
	case BT_CMP_FASTER:
		return ROLE_GOOD;
	case BT_CMP_SLOWER:
		return ROLE_BAD;
	default:
		return ROLE_DIM;
	}
}

/* All the lines of the view from the comparison c. */
static int build_lines(struct bt_cmpview *cv, const struct bt_cmp *c)
{
	char kl[16], unit[48], ha[64], hk[64], hr[32], hci[16], h50[16], h99[16], fixed[256];
	int lw = 4, wa, wk;

	for (int i = 0; i < cv->nres; i++) {
		const struct bt_results *r = &cv->res[i];
		char when[32];

		bt_format_utc(r->start_unix_ns, when, sizeof(when));
		if (add(cv, ROLE_VALUE, "%c: %s  (%s, %s, host %s, %s)", bt_cmp_letter(i), cv->names[i],
			r->workload, when, r->machine.host, r->status) < 0)
			return -ENOMEM;
	}
	for (int k = 1; k < cv->nres; k++) {
		if (add(cv, ROLE_TITLE, "plan differences, A -> %c:%s", bt_cmp_letter(k),
			c->nplan_diff[k] ? "" : " none") < 0 ||
		    (c->plan_diff[k] && add_lines(cv, c->plan_diff[k]) < 0))
			return -ENOMEM;
		if (add(cv, ROLE_TITLE, "machine differences, A -> %c:%s", bt_cmp_letter(k),
			c->nmachine_diff[k] ? "" : " none") < 0 ||
		    (c->machine_diff[k] && add_lines(cv, c->machine_diff[k]) < 0))
			return -ENOMEM;
	}
	/* A plan without axes has one cell with no label: it is called by A's fixed values. */
	bt_results_fixed(cv->res[0].plan_json, fixed, sizeof(fixed));
	for (int r = 0; r < c->nrows; r++) {
		int len = (int)strlen(c->rows[r].label[0] ? c->rows[r].label : fixed);

		if (len > lw)
			lw = len;
	}
	if (lw > 28)
		lw = 28;
	/* The heads in words: A, B and B/A (B..D when several are compared with A). */
	if (cv->nres == 2)
		snprintf(kl, sizeof(kl), "B");
	else
		snprintf(kl, sizeof(kl), "B..%c", bt_cmp_letter(cv->nres - 1));
	snprintf(unit, sizeof(unit), "%s/s", cv->res[0].unit[0] ? cv->res[0].unit : "ops");
	snprintf(ha, sizeof(ha), "A %s", unit);
	snprintf(hk, sizeof(hk), "%s %s", kl, unit);
	snprintf(hr, sizeof(hr), "%s/A", kl);
	snprintf(hci, sizeof(hci), "95%% CI");
	snprintf(h50, sizeof(h50), "p50");
	snprintf(h99, sizeof(h99), "p99");
	wa = (int)strlen(ha) > 7 ? (int)strlen(ha) : 7;
	wk = (int)strlen(hk) > 7 ? (int)strlen(hk) : 7;
	if (add(cv, ROLE_NORMAL, "%s", "") < 0 ||
	    add(cv, ROLE_DIM, "A is the base (the oldest); %s/A is %s's median throughput over A's: above 1, %s is faster",
		kl, kl, kl) < 0 ||
	    add(cv, ROLE_LABEL, "%-*s %-2s %-*s %-*s %6s  %-13s %-12s %6s %6s", lw, "cell",
		"vs", wa, ha, wk, hk, hr, hci, "verdict", h50, h99) < 0)
		return -ENOMEM;
	for (int r = 0; r < c->nrows; r++) {
		const struct bt_cmp_row *row = &c->rows[r];

		for (int k = 1; k < cv->nres; k++) {
			const struct bt_cmp_stat *st = &row->st[k];
			char ma[32], mk[32], ratio[32], ci[48], verdict[64], d50[32], d99[32], lo[24], hi[24];
			char prefix[512];
			int at;

			rate(row->median[0], ma, sizeof(ma));
			rate(row->median[k], mk, sizeof(mk));
			if (isnan(st->ratio))
				snprintf(ratio, sizeof(ratio), "-");
			else
				snprintf(ratio, sizeof(ratio), "%.3f", st->ratio);
			/* An interval that cannot be had says why, not -inf..inf. */
			if (st->na == 0 || st->nk == 0) {
				snprintf(ci, sizeof(ci), "%c: no reps", st->na == 0 ? 'A' : bt_cmp_letter(k));
			} else if (st->na == 1 && st->nk == 1) {
				snprintf(ci, sizeof(ci), "1 rep each");
			} else if (st->na == 1 || st->nk == 1) {
				snprintf(ci, sizeof(ci), "%c: 1 rep", st->na == 1 ? 'A' : bt_cmp_letter(k));
			} else if (isnan(st->lo) || isnan(st->hi)) {
				snprintf(ci, sizeof(ci), "-");
			} else if (isinf(st->lo) || isinf(st->hi)) {
				snprintf(ci, sizeof(ci), "unbounded");
			} else {
				snprintf(lo, sizeof(lo), "%.3f", st->lo);
				snprintf(hi, sizeof(hi), "%.3f", st->hi);
				snprintf(ci, sizeof(ci), "%s..%s", lo, hi);
			}
			bt_cmp_verdict_text(c, row, k, verdict, sizeof(verdict));
			pct_delta(row->p50[0], row->p50[k], row->has_lat[0] && row->has_lat[k], d50,
				  sizeof(d50));
			pct_delta(row->p99[0], row->p99[k], row->has_lat[0] && row->has_lat[k], d99,
				  sizeof(d99));
			snprintf(prefix, sizeof(prefix), "%-*.*s %-2s %-*s %-*s %6s  %-13s ", lw, lw,
				 k > 1 ? "" : row->label[0] ? row->label : fixed, (char[2]){ bt_cmp_letter(k), 0 },
				 wa, ma, wk, mk, ratio, ci);
			at = (int)strlen(prefix);
			if (add(cv, ROLE_NORMAL, "%s%-12s %6s %6s", prefix, verdict, d50, d99) < 0)
				return -ENOMEM;
			cv->lines[cv->nlines - 1].span_at = at;
			cv->lines[cv->nlines - 1].span_len = (int)strlen(verdict);
			cv->lines[cv->nlines - 1].span_role = verdict_role(st->verdict);
		}
	}
	if (add(cv, ROLE_NORMAL, "%s", "") < 0 ||
	    add(cv, ROLE_DIM, "%s/A: ratio of the median throughputs; 95%% CI of the ratio of the means", kl) < 0 ||
	    add(cv, ROLE_DIM, "%s", "(Welch's t, Fieller): within noise when it contains 1; p50/p99:") < 0 ||
	    add(cv, ROLE_DIM, "%s", "change of the latency percentiles of the merged histograms.") < 0)
		return -ENOMEM;
	return 0;
}

int bt_cv_open(struct bt_app *a, const char *const *paths, int n, struct bt_err *err)
{
	struct bt_cmpview *cv = &a->cv;
	const struct bt_results *rs[BT_CMP_MAX];
	struct bt_cmp c;
	int rc;

	if (n < 2 || n > BT_CMP_MAX)
		return bt_err_set(err, -EINVAL, "compare takes 2 to %d recordings", BT_CMP_MAX);
	bt_cv_free(a);
	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(paths[i], '/');

		if ((rc = bt_rec_read(paths[i], &cv->res[i], err)) < 0) {
			bt_cv_free(a);
			return rc;
		}
		cv->nres = i + 1;
		snprintf(cv->names[i], sizeof(cv->names[i]), "%s", slash ? slash + 1 : paths[i]);
		rs[i] = &cv->res[i];
	}
	memset(&c, 0, sizeof(c));
	rc = bt_cmp_build(&c, rs, n);
	if (rc == 0)
		rc = build_lines(cv, &c);
	bt_cmp_destroy(&c);
	if (rc < 0) {
		bt_cv_free(a);
		return bt_err_set(err, rc, "cannot compare: %s", strerror(-rc));
	}
	a->screen = SCR_COMPARE;
	a->dirty = DIRTY_ALL;
	bt_app_status(a, ROLE_NORMAL, "%d recordings compared, A = %s (the oldest)", n, cv->names[0]);
	return 0;
}

int bt_cv_key(struct bt_app *a, int ch)
{
	struct bt_cmpview *cv = &a->cv;
	int page = a->rows - 5 > 1 ? a->rows - 5 : 1;
	int maxs = cv->nlines - page > 0 ? cv->nlines - page : 0;

	switch (ch) {
	case KEY_UP:
	case 'k':
		cv->scroll--;
		break;
	case KEY_DOWN:
	case 'j':
		cv->scroll++;
		break;
	case KEY_PPAGE:
	case 'K':
		cv->scroll -= page - 1;
		break;
	case KEY_NPAGE:
	case 'J':
	case ' ':
		cv->scroll += page - 1;
		break;
	case KEY_HOME:
	case 'g':
		cv->scroll = cv->hscroll = 0;
		break;
	case KEY_END:
	case 'G':
		cv->scroll = maxs;
		break;
	case KEY_LEFT:
	case 'h':
		cv->hscroll = cv->hscroll > 8 ? cv->hscroll - 8 : 0;
		break;
	case KEY_RIGHT:
	case 'l':
		if (cv->hscroll + a->cols - 2 < cv->width)
			cv->hscroll += 8;
		break;
	default:
		return 0;
	}
	if (cv->scroll > maxs)
		cv->scroll = maxs;
	if (cv->scroll < 0)
		cv->scroll = 0;
	a->dirty |= DIRTY_TABLE;
	return 1;
}

void bt_cv_draw(WINDOW *w, const struct bt_app *a, unsigned dirty, struct bt_rect area)
{
	const struct bt_cmpview *cv = &a->cv;
	struct bt_rect in;
	char title[128];

	if (!(dirty & DIRTY_TABLE))
		return;
	bt_app_clear(w, area);
	snprintf(title, sizeof(title), "Compare: %d recordings, A = base  (Up/Down, PgUp/PgDn, Left/Right)",
		 cv->nres);
	in = bt_box_draw(w, area, title, 1, a->utf8);
	for (int i = 0; i < in.h && cv->scroll + i < cv->nlines; i++) {
		const struct bt_cv_line *ln = &cv->lines[cv->scroll + i];
		int len = (int)strlen(ln->text), hs = cv->hscroll;

		if (len > hs)
			bt_app_put(w, in.y + i, in.x, in.w, ln->role, ln->text + hs);
		if (ln->span_len > 0 && ln->span_at + ln->span_len > hs) {
			int from = ln->span_at > hs ? ln->span_at : hs;
			int x = from - hs;

			if (x < in.w)
				bt_app_putf(w, in.y + i, in.x + x, in.w - x, ln->span_role, "%.*s",
					    ln->span_at + ln->span_len - from, ln->text + from);
		}
	}
}
