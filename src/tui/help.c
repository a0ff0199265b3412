/*
 * help.c - the help overlay (F1 or ?): what benchtop does in three lines,
 * then every key by screen. Any key closes it.
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
	"q F10     quit (stops a run)     Ctrl-C   quit",
	"=Workbench",
	"Tab       workloads <-> parameters",
	"Up/Down   move (also j k)        Left/Right  pick a tick, cycle (h l)",
	"Space     tick / toggle / cycle  Enter    edit, choose, or Run",
	"0-9       type a number          a,b,c    typed lists sweep",
	"r F5      run the sweep          S / L    save / load a plan file",
	"v         last results",
	"=Live view",
	"Esc s     stop the sweep now (the recording ends \"interrupted\")",
	"=Results",
	"Up/Down   pick a cell            PgUp/PgDn Left/Right  scroll table",
	"e         export .md .csv .json and .hgrm next to the recording",
	"r         run again              Esc w    back to the workbench",
	NULL,
};

/* Length of the key name at the start of t: up to two spaces. */
static int key_len(const char *t)
{
	const char *e = strstr(t, "  ");

	return e ? (int)(e - t) : (int)strlen(t);
}

void bt_help_draw(WINDOW *w, const struct bt_app *a)
{
	struct bt_rect box, in;
	int n = 0, width = 0;

	while (help_text[n] != NULL) {
		int len = (int)strlen(help_text[n]) + 1;

		if (len > width)
			width = len;
		n++;
	}
	box.w = width + 4 < a->cols ? width + 4 : a->cols;
	box.h = n + 3 < a->rows ? n + 3 : a->rows;
	box.y = (a->rows - box.h) / 2;
	box.x = (a->cols - box.w) / 2;
	bt_app_clear(w, box);
	in = bt_box_draw(w, box, "Help - any key closes", 1, a->utf8);
	for (int i = 0; i < n && i < in.h; i++) {
		const char *t = help_text[i];

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
