/*
 * live_extra.c - what the live view shows beside the main histogram: the
 * workload's extra latency channels (kv's incr and read, sql's statement and
 * commit, http's response and connect), its error kinds (timeouts,
 * refused, reset ...) and its ratio metrics as the last finished rep left
 * them (a cold copy's residency when the rep began and when it ended).
 *
 * The model (struct bt_live_extra) is fed the way the main histogram is:
 * finished reps from the results (bt_live_extra_rep, the live tick and the
 * replay alike), the rep in progress from the run API (the channels'
 * bt_run_live_hist_ch, the metrics of the snapshot). A replay has only
 * what the recording has: finished reps' channels and metrics.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "tui/app.h"

/* Keep the metric table; count the ratios among them. */
static void extra_metrics(struct bt_live_extra *x, const struct bt_metric_info *mis, int nm)
{
	x->nm = nm < BT_RES_METRICS ? nm : BT_RES_METRICS;
	memcpy(x->mis, mis, sizeof(x->mis[0]) * (size_t)x->nm);
	x->nratio = 0;
	for (int m = 0; m < x->nm; m++)
		x->nratio += x->mis[m].kind == BT_MI_RATIO;
}

static int extra_alloc(struct bt_live_extra *x)
{
	for (int k = 0; k < x->nch; k++) {
		x->hist[k] = bt_hist_new();
		x->cur[k] = bt_hist_new();
		x->shown[k] = bt_hist_new();
		if (x->hist[k] == NULL || x->cur[k] == NULL || x->shown[k] == NULL)
			return -ENOMEM;
	}
	bt_live_extra_reset(x);
	return 0;
}

int bt_live_extra_init_wl(struct bt_live_extra *x, const struct bt_workload *wl, int lat_off)
{
	memset(x, 0, sizeof(*x));
	for (int k = 0; !lat_off && wl->lat_channels != NULL && wl->lat_channels[k] != NULL &&
			k < BT_RES_LAT_CH; k++) {
		snprintf(x->ch_names[k], sizeof(x->ch_names[k]), "%s", wl->lat_channels[k]);
		x->nch = k + 1;
	}
	for (int m = 0; m < (int)wl->nmetrics && m < BT_RES_METRICS; m++) {
		if (!wl->metrics[m].error)
			continue;
		x->err_m[x->nerr] = m;
		snprintf(x->err_names[x->nerr], sizeof(x->err_names[0]), "%s", wl->metrics[m].name);
		x->nerr++;
	}
	{
		struct bt_metric_info mis[BT_RES_METRICS];

		extra_metrics(x, mis, bt_run_metric_infos(wl, mis));
	}
	return extra_alloc(x);
}

int bt_live_extra_init_res(struct bt_live_extra *x, const struct bt_results *res, int lat_off)
{
	memset(x, 0, sizeof(*x));
	x->nch = lat_off ? 0 : res->nch < BT_RES_LAT_CH ? res->nch : BT_RES_LAT_CH;
	for (int k = 0; k < x->nch; k++)
		snprintf(x->ch_names[k], sizeof(x->ch_names[k]), "%s", res->ch_names[k]);
	for (int m = 0; m < res->nmetrics && m < BT_RES_METRICS; m++) {
		if (!res->metrics[m].error)
			continue;
		x->err_m[x->nerr] = m;
		snprintf(x->err_names[x->nerr], sizeof(x->err_names[0]), "%s", res->metrics[m].name);
		x->nerr++;
	}
	extra_metrics(x, res->metrics, res->nmetrics);
	return extra_alloc(x);
}

void bt_live_extra_reset(struct bt_live_extra *x)
{
	for (int k = 0; k < x->nch; k++) {
		if (x->hist[k])
			bt_hist_reset(x->hist[k]);
		if (x->cur[k])
			bt_hist_reset(x->cur[k]);
		if (x->shown[k])
			bt_hist_reset(x->shown[k]);
	}
	x->cur_cell = x->cur_rep = -1;
	memset(x->err_done, 0, sizeof(x->err_done));
	memset(x->err_cur, 0, sizeof(x->err_cur));
	memset(x->err_total, 0, sizeof(x->err_total));
	memset(x->err_growing, 0, sizeof(x->err_growing));
	for (int i = 0; i < BT_RES_METRICS; i++)
		x->err_grew_at[i] = -1;
	x->ratios[0] = '\0';
}

void bt_live_extra_free(struct bt_live_extra *x)
{
	for (int k = 0; k < BT_RES_LAT_CH; k++) {
		bt_hist_free(x->hist[k]);
		bt_hist_free(x->cur[k]);
		bt_hist_free(x->shown[k]);
	}
	memset(x, 0, sizeof(*x));
}

void bt_live_extra_rep(struct bt_live_extra *x, const struct bt_rep *r, int new_cell)
{
	for (int k = 0; k < x->nch; k++) {
		if (new_cell)
			bt_hist_reset(x->hist[k]);
		if (r->ch_lat[k].count > 0)
			bt_rep_lat_add(x->hist[k], &r->ch_lat[k]);
	}
	/* Every rep's errors, warmups too: they happened to the server all the same. */
	for (int i = 0; i < x->nerr; i++) {
		double v = r->metric[x->err_m[i]];

		if (v > 0)
			x->err_done[i] += (uint64_t)v;
	}
	if (x->nratio > 0) {
		size_t o = (size_t)snprintf(x->ratios, sizeof(x->ratios), "last rep:");
		char v[32];

		for (int m = 0; m < x->nm && o < sizeof(x->ratios); m++)
			if (x->mis[m].kind == BT_MI_RATIO)
				o += (size_t)snprintf(x->ratios + o, sizeof(x->ratios) - o, " %s %s",
						      x->mis[m].name,
						      bt_results_metric_fmt(&x->mis[m],
									    bt_metric_value(x->mis, x->nm, r->metric, m),
									    v, sizeof(v)));
	}
}

void bt_live_extra_fetch(struct bt_live_extra *x, struct bt_run *run)
{
	for (int k = 0; k < x->nch; k++) {
		int cell, rep;

		if (bt_run_live_hist_ch(run, k + 1, x->cur[k], &cell, &rep) == 0) {
			x->cur_cell = cell;
			x->cur_rep = rep;
		}
	}
}

/*
 * The channels as the main histogram is composed (live.c bt_live_compose:
 * the finished reps of the running cell, with the rep in progress until it
 * is among them), and the errors: the finished reps' and, from the snapshot,
 * the running rep's so far while it is not yet among them.
 */
void bt_live_extra_compose(struct bt_live *l)
{
	struct bt_live_extra *x = &l->x;
	const struct bt_snapshot *s = &l->snap;
	int running = s->nmetrics > 0 && s->metrics_cell >= 0 &&
		      !(s->metrics_cell == l->done_cell && s->metrics_rep == l->done_rep);

	for (int k = 0; k < x->nch; k++) {
		bt_hist_reset(x->shown[k]);
		if (l->hist_cell >= 0 && l->hist_cell == s->cell)
			bt_hist_add(x->shown[k], x->hist[k]);
		if (x->cur_cell >= 0 && x->cur_cell == s->cell &&
		    !(x->cur_cell == l->done_cell && x->cur_rep == l->done_rep))
			bt_hist_add(x->shown[k], x->cur[k]);
	}
	for (int i = 0; i < x->nerr; i++) {
		uint64_t total;

		x->err_cur[i] = running && x->err_m[i] < s->nmetrics ? s->metric[x->err_m[i]] : 0;
		total = x->err_done[i] + x->err_cur[i];
		if (total > x->err_total[i])
			x->err_grew_at[i] = s->elapsed_s;
		x->err_total[i] = total;
		x->err_growing[i] = x->err_grew_at[i] >= 0 &&
				    s->elapsed_s - x->err_grew_at[i] < BT_LIVE_GROW_S;
	}
}

int bt_live_channel_key(struct bt_app *a, int ch)
{
	struct bt_live *l = &a->live;

	if (ch != 'c' || l->x.nch == 0)
		return 0;
	l->x.view = (l->x.view + 1) % (l->x.nch + 1);
	a->dirty |= DIRTY_HISTO;
	return 1;
}

int bt_live_extra_rows(const struct bt_live *l, int h)
{
	int want = (l->x.nch > 0) + (l->x.nerr > 0 || l->x.nratio > 0);

	/* Two rows only where the chart keeps enough of its own. */
	return want == 2 && h < 30 ? 1 : want;
}

char *bt_live_ch_text(const char *name, const struct bt_hist *h, int wide, char *buf, size_t n)
{
	char b[5][32];

	buf[0] = '\0';
	if (h == NULL || h->total == 0)
		return buf;
	bt_fmt_ns((double)bt_hist_percentile(h, 50), b[0], sizeof(b[0]));
	bt_fmt_ns((double)bt_hist_percentile(h, 99), b[1], sizeof(b[1]));
	if (!wide) {
		snprintf(buf, n, "%s p50 %s p99 %s n=%llu", name, b[0], b[1],
			 (unsigned long long)h->total);
		return buf;
	}
	bt_fmt_ns((double)bt_hist_percentile(h, 90), b[2], sizeof(b[2]));
	bt_fmt_ns((double)bt_hist_percentile(h, 99.9), b[3], sizeof(b[3]));
	bt_fmt_ns((double)h->max, b[4], sizeof(b[4]));
	snprintf(buf, n, "%s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s  n=%llu", name, b[0], b[2],
		 b[1], b[3], b[4], (unsigned long long)h->total);
	return buf;
}

/*
 * Draw ASCII text (names and figures are) at column *x of row y in r and
 * move *x past it; 0 once the row is full.
 */
static int put(WINDOW *w, struct bt_rect r, int y, int *x, const char *text, enum bt_role role)
{
	if (*x >= r.w)
		return 0;
	*x += bt_text_draw(w, r, y, *x, text, bt_role_attr(role), 0);
	return *x < r.w;
}

/*
 * "errors: connrefused 8310  connreset 3" (non-zero kinds), or "errors:
 * none". A kind that grows is red and marked with an arrow, so that it
 * shows without colour too (NO_COLOR).
 */
static void draw_errors(WINDOW *w, struct bt_rect r, int y, int *x, const struct bt_live_extra *x_,
			int utf8)
{
	char buf[64];
	int any = 0;

	put(w, r, y, x, "errors:", ROLE_LABEL);
	for (int i = 0; i < x_->nerr; i++) {
		if (x_->err_total[i] == 0)
			continue;
		if (!put(w, r, y, x, any++ ? "  " : " ", ROLE_NORMAL))
			return;
		snprintf(buf, sizeof(buf), "%s %llu", x_->err_names[i],
			 (unsigned long long)x_->err_total[i]);
		if (!put(w, r, y, x, buf, x_->err_growing[i] ? ROLE_ERROR : ROLE_WARN))
			return;
		if (x_->err_growing[i] && *x < r.w)
			*x += bt_text_draw(w, r, y, *x, utf8 ? "\u2191" : "^", bt_role_attr(ROLE_ERROR),
					   utf8);
	}
	if (!any)
		put(w, r, y, x, " none", ROLE_DIM);
}

/* "incr p50 31ns p99 70ns n=8000 | read ..." for the channels that have latencies. */
static void draw_channels(WINDOW *w, struct bt_rect r, int y, int *x, const struct bt_live *l)
{
	const struct bt_live_extra *x_ = &l->x;
	char buf[160];

	for (int k = 0; k < x_->nch; k++) {
		if (k > 0 && !put(w, r, y, x, " | ", ROLE_DIM))
			return;
		if (x_->shown[k]->total == 0)
			snprintf(buf, sizeof(buf), "%s: none yet", x_->ch_names[k]);
		else
			bt_live_ch_text(x_->ch_names[k], x_->shown[k], 0, buf, sizeof(buf));
		if (!put(w, r, y, x, buf, x_->view == k + 1 ? ROLE_HIGHLIGHT : ROLE_NORMAL))
			return;
	}
	put(w, r, y, x, "  (c: histogram)", ROLE_DIM);
}

void bt_live_extra_draw(WINDOW *w, struct bt_rect r, const struct bt_live *l, int utf8)
{
	int x = 1, y = 0;

	bt_app_clear(w, r);
	if (r.h < 1 || r.w < 10)
		return;
	r.w -= 1;
	if (l->x.nerr > 0 || l->x.nratio > 0) {
		if (l->x.nerr > 0)
			draw_errors(w, r, y, &x, &l->x, utf8);
		if (l->x.nratio > 0) {
			if (x > 1)
				put(w, r, y, &x, "  ", ROLE_NORMAL);
			put(w, r, y, &x, l->x.ratios[0] ? l->x.ratios : "ratios: after the first rep",
			    l->x.ratios[0] ? ROLE_NORMAL : ROLE_DIM);
		}
		if (r.h >= 2) {
			y++;
			x = 1;
		} else if (l->x.nch > 0) {
			put(w, r, y, &x, "  ", ROLE_NORMAL);
		}
	}
	if (l->x.nch > 0)
		draw_channels(w, r, y, &x, l);
}
