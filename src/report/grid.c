/*
 * grid.c - a table of strings printed aligned (see grid.h).
 */
#include "report/grid.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int bt_grid_init(struct bt_grid *g, int rows, int cols)
{
	g->rows = rows;
	g->cols = cols;
	g->group = 0;
	g->s = calloc((size_t)rows * (size_t)cols, BT_GRID_CELL);
	g->w = calloc((size_t)cols, sizeof(*g->w));
	g->right = calloc((size_t)cols, 1);
	if (g->s == NULL || g->w == NULL || g->right == NULL)
		return -ENOMEM;
	return 0;
}

void bt_grid_free(struct bt_grid *g)
{
	free(g->s);
	free(g->w);
	free(g->right);
	g->s = NULL;
	g->w = NULL;
	g->right = NULL;
}

char *bt_grid_cell(const struct bt_grid *g, int r, int c)
{
	return g->s + ((size_t)r * (size_t)g->cols + (size_t)c) * BT_GRID_CELL;
}

void bt_grid_set(struct bt_grid *g, int r, int c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(bt_grid_cell(g, r, c), BT_GRID_CELL, fmt, ap);
	va_end(ap);
}

int bt_grid_dwidth(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

void bt_grid_measure(struct bt_grid *g)
{
	for (int c = 0; c < g->cols; c++) {
		g->w[c] = 0;
		for (int r = 0; r < g->rows; r++) {
			int w = bt_grid_dwidth(bt_grid_cell(g, r, c));

			if (w > g->w[c])
				g->w[c] = w;
		}
	}
}

void bt_grid_md_escape(struct bt_grid *g)
{
	for (int r = 0; r < g->rows; r++) {
		for (int c = 0; c < g->cols; c++) {
			char tmp[BT_GRID_CELL], *s = bt_grid_cell(g, r, c);
			size_t o = 0;

			for (const char *p = s; *p && o + 2 < sizeof(tmp); p++) {
				if (*p == '|')
					tmp[o++] = '\\';
				tmp[o++] = *p;
			}
			tmp[o] = '\0';
			memcpy(s, tmp, o + 1);
		}
	}
}

static void spaces(FILE *f, int n)
{
	while (n-- > 0)
		fputc(' ', f);
}

static void chars(FILE *f, int ch, int n)
{
	while (n-- > 0)
		fputc(ch, f);
}

void bt_grid_pad(FILE *f, const char *s, int w, int right, int last)
{
	int fill = w - bt_grid_dwidth(s);

	if (right)
		spaces(f, fill);
	fputs(s, f);
	if (!right && !last)
		spaces(f, fill);
}

void bt_grid_text_row(FILE *f, const struct bt_grid *g, int r)
{
	for (int c = 0; c < g->cols; c++) {
		if (c > 0)
			fputs(g->group > 0 && (c - 1) % g->group == 0 ? " | " : "  ", f);
		bt_grid_pad(f, bt_grid_cell(g, r, c), g->w[c], g->right[c], c == g->cols - 1);
	}
	fputc('\n', f);
}

void bt_grid_print_text(FILE *f, const struct bt_grid *g)
{
	for (int r = 0; r < g->rows; r++)
		bt_grid_text_row(f, g, r);
}

void bt_grid_print_md(FILE *f, const struct bt_grid *g)
{
	for (int r = 0; r < g->rows; r++) {
		fputc('|', f);
		for (int c = 0; c < g->cols; c++) {
			fputc(' ', f);
			bt_grid_pad(f, bt_grid_cell(g, r, c), g->w[c] < 3 ? 3 : g->w[c], g->right[c], 0);
			fputs(" |", f);
		}
		fputc('\n', f);
		if (r != 0)
			continue;
		fputc('|', f);
		for (int c = 0; c < g->cols; c++) {
			int w = g->w[c] < 3 ? 3 : g->w[c];

			fputc(g->right[c] ? '-' : ':', f);
			chars(f, '-', w);
			fputs(g->right[c] ? ":|" : "-|", f);
		}
		fputc('\n', f);
	}
}
