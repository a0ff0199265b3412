/*
 * grid.h - a table of strings, measured and printed aligned: as text
 * (columns two spaces apart, column groups by " | ") or as a Markdown table.
 * The results table and the comparison draw through it, so both align,
 * escape and measure width the same way.
 */
#ifndef BT_REPORT_GRID_H
#define BT_REPORT_GRID_H

#include <stdio.h>

#define BT_GRID_CELL 160	/* bytes per cell, NUL included; longer text is cut */

struct bt_grid {
	int rows, cols;
	char *s;		/* rows * cols cells of BT_GRID_CELL bytes */
	int *w;			/* display width of each column (bt_grid_measure) */
	char *right;		/* 1: column is right-aligned */
	int group;		/* columns per group after the first (" | " between groups); 0 = none */
};

/* Allocate an empty rows x cols grid. 0 or -ENOMEM (then free it with bt_grid_free). */
int bt_grid_init(struct bt_grid *g, int rows, int cols);
void bt_grid_free(struct bt_grid *g);

char *bt_grid_cell(const struct bt_grid *g, int r, int c);
void bt_grid_set(struct bt_grid *g, int r, int c, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Columns a string takes on a terminal: UTF-8 code points (all we print are one column wide). */
int bt_grid_dwidth(const char *s);

/* Set w[] from the contents. */
void bt_grid_measure(struct bt_grid *g);

/* Markdown cells must not contain '|': escape it in place (truncating if needed). */
void bt_grid_md_escape(struct bt_grid *g);

/* s padded to w columns; trailing padding is left out when last is set. */
void bt_grid_pad(FILE *f, const char *s, int w, int right, int last);

/* Row r as text: columns two spaces apart, groups (when set) by " | ". */
void bt_grid_text_row(FILE *f, const struct bt_grid *g, int r);

/* Every row as text. */
void bt_grid_print_text(FILE *f, const struct bt_grid *g);

/* The grid as a Markdown table; row 0 is the header (cells at least 3 wide). */
void bt_grid_print_md(FILE *f, const struct bt_grid *g);

#endif
