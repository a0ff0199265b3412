/*
 * help.c - the help overlay (F1, or ? off the form's fields): what benchtop does in three lines,
 * the keys that work everywhere, then the keys of the screen it was opened
 * on (so it fits 80x24). Any key closes it.
 */
#include <string.h>

#include "tui/app.h"

static const char *const help_text[] = {
	"#Pick a workload (left), set its parameters (middle), press r.",
	"#The live view shows throughput, latency and ops per thread while it",
	"#runs; the results table and scaling chart follow. Every run is recorded.",
	"",
	"=Everywhere",
	"F1 ?      this help              t        next colour theme",
	"mouse     click to pick, wheel scrolls (settings: mouse = off)",
	"q F10     quit (stops a run)     Ctrl-C   quit",
	"o F2      recorded sessions (workbench, results)",
	"=Workbench",
	"Tab       workloads <-> parameters",
	"Up/Down   move (also j k)        Left/Right  pick a tick, cycle (h l)",
	"Space     tick / toggle / cycle  Enter    edit, choose, or Run",
	"0-9       type a number          a,b,c    typed lists sweep",
	"?         the field's whole help, range, default and an example",
	"r F5      run the sweep          S / L    save / list plans (p: a path)",
	"x         explore: one open-ended run, change settings as it goes",
	"v         last results",
	"=Live view",
	"Esc s     stop the sweep now (the recording ends \"interrupted\")",
	"c         latency pane: next channel (kv incr/read, http response ...)",
	"=Results",
	"Up/Down   pick a cell            PgUp/PgDn Left/Right  scroll table",
	"e         export .md .csv .json .hgrm to a folder (= export --format all)",
	"r         run again              Esc w    back",
	"=Sessions",
	"Up/Down   pick a recording       Enter    replay it",
	"Space     mark                   c        compare the marked (oldest = A)",
	"R         its plan into the form, machine differences; then r runs it",
	"/         search every field     s        sort by the next column",
	"f         next workload filter   F        no filter, no search",
	"d Del     delete (asks y/n)      F5       read the directory again",
	"=Replay",
	"Space     pause / play           1 2 8    speed x1 x2 x8",
	"[ ]       previous / next cell   Left/Right  the same",
	"Home g    from the start         v End    to the results",
	"c         latency pane: next channel",
	"Esc       back to the sessions   (reps under 1 s are shown for 1 s)",
	"=Explore",
	"+ -       one thread more / fewer  0-9   type the thread count",
	"c Enter   change a live setting  l n w p  lock, notify, wait, pin",
	"s         the values visited into the form as a sweep; save it",
	"z         chart span: 30 s, 2 min, all   q Esc  end: the segments' results",
	"=Compare",
	"Up/Down PgUp/PgDn  scroll        Left/Right  pan      Esc  back",
	NULL,
};

/* Length of the key name at the start of t: up to two spaces. */
static int key_len(const char *t)
{
	const char *e = strstr(t, "  ");

	return e ? (int)(e - t) : (int)strlen(t);
}

/* Is section (a "=Name" heading) shown on this screen? */
static int section_on(const char *name, enum bt_screen scr)
{
	static const char *const of[] = { "Workbench", "Live view", "Results", "Sessions", "Replay",
					  "Compare", "Explore" };

	return !strcmp(name, "Everywhere") || !strcmp(name, of[scr]);
}

void bt_help_draw(WINDOW *w, const struct bt_app *a)
{
	const char *lines[64];
	struct bt_rect box, in;
	int n = 0, width = 0, on = 1;

	for (int i = 0; help_text[i] != NULL && n < 64; i++) {
		const char *t = help_text[i];
		int len = (int)strlen(t) + 1;

		if (t[0] == '=')
			on = section_on(t + 1, a->screen);
		if (!on)
			continue;
		lines[n++] = t;
		if (len > width)
			width = len;
	}
	box.w = width + 4 < a->cols ? width + 4 : a->cols;
	box.h = n + 3 < a->rows ? n + 3 : a->rows;
	box.y = (a->rows - box.h) / 2;
	box.x = (a->cols - box.w) / 2;
	bt_app_clear(w, box);
	in = bt_box_draw(w, box, "Help - any key closes", 1, a->utf8);
	for (int i = 0; i < n && i < in.h; i++) {
		const char *t = lines[i];

		if (t[0] == '=')
			bt_app_put(w, in.y + i, in.x, in.w, ROLE_TITLE, t + 1);
		else if (t[0] == '#')
			bt_app_put(w, in.y + i, in.x, in.w, ROLE_NORMAL, t + 1);
		else {
			bt_app_put(w, in.y + i, in.x + 1, in.w - 1, ROLE_FOOTER, t);
			bt_app_putf(w, in.y + i, in.x + 1, in.w - 1, ROLE_KEY, "%.*s", key_len(t), t);
			if (strlen(t) > 33 && t[32] == ' ' && t[33] != ' ')
				bt_app_putf(w, in.y + i, in.x + 34, in.w - 34, ROLE_KEY, "%.*s",
					    key_len(t + 33), t + 33);
		}
	}
}
