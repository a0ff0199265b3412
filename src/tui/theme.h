/*
 * theme.h - colour roles and themes (htop's way): widgets draw with roles,
 * a theme file maps each role to a foreground, background and attributes.
 *
 * Theme file (themes/NAME.theme, or $XDG_CONFIG_HOME/benchtop/themes/NAME.theme):
 *   # comment
 *   name = Default dark
 *   <role> = <fg> [on <bg>] [bold] [dim] [reverse] [underline]
 * colours: default black red green yellow blue magenta cyan white,
 * bright-<colour> (8..15), or a number 0..255 (used only in 256-colour
 * terminals; the theme may give a fallback: "208/yellow").
 * Roles are the lower-case names below without ROLE_ ("p99", "series0").
 */
#ifndef BT_TUI_THEME_H
#define BT_TUI_THEME_H

#include <ncurses.h>

#include "core/err.h"

enum bt_role {
	ROLE_NORMAL,
	ROLE_TITLE,		/* screen and pane titles */
	ROLE_BORDER,
	ROLE_FOCUS,		/* border/title of the focused pane */
	ROLE_SELECT,		/* selected row */
	ROLE_DIM,		/* secondary text, unavailable items */
	ROLE_LABEL,		/* axis labels, field names */
	ROLE_VALUE,		/* field values */
	ROLE_GOOD,
	ROLE_BAD,
	ROLE_WARN,
	ROLE_ERROR,		/* inline error messages */
	ROLE_P50,
	ROLE_P90,
	ROLE_P99,
	ROLE_P999,
	ROLE_MAX,
	ROLE_BAR,		/* histogram and per-thread bars */
	ROLE_USER,		/* CPU user time */
	ROLE_SYS,		/* CPU sys time */
	ROLE_SERIES0,		/* chart series, 8 of them, cycled */
	ROLE_SERIES1,
	ROLE_SERIES2,
	ROLE_SERIES3,
	ROLE_SERIES4,
	ROLE_SERIES5,
	ROLE_SERIES6,
	ROLE_SERIES7,
	ROLE_HIGHLIGHT,		/* the running cell's series */
	ROLE_IDEAL,		/* ideal linear scaling line */
	ROLE_KEY,		/* footer: key names */
	ROLE_FOOTER,		/* footer: key descriptions */
	ROLE_COUNT
};

struct bt_role_style {
	short fg, bg;		/* -1 = terminal default; 0..255 */
	short fg8, bg8;		/* fallback for 8/16-colour terminals */
	attr_t attr;		/* A_BOLD, A_DIM, A_REVERSE, A_UNDERLINE */
};

struct bt_theme {
	char name[64];
	struct bt_role_style role[ROLE_COUNT];
};

/* Role name <-> enum ("p99" <-> ROLE_P99); -1 when unknown. */
int bt_role_parse(const char *name);
const char *bt_role_name(enum bt_role r);

/* The built-in default (dark) theme; always valid. */
void bt_theme_default(struct bt_theme *t);

/*
 * Parse a theme file. Errors name the file, line and problem:
 * "themes/x.theme:7: unknown colour 'purplish' (black, red, ..., 0..255)".
 * On error *t holds the default theme.
 */
int bt_theme_load(const char *path, struct bt_theme *t, struct bt_err *err);

/*
 * Parse a theme held in memory (text[0..len), no NUL needed) exactly as
 * bt_theme_load parses a file; name stands for the path in messages.
 */
int bt_theme_parse(const char *text, size_t len, const char *name, struct bt_theme *t,
		   struct bt_err *err);

/*
 * Find theme NAME: $XDG_CONFIG_HOME/benchtop/themes (or ~/.config/...),
 * then the source tree's themes/ (BT_SOURCE_THEMES_DIR), then the installed
 * BT_THEMES_DIR. Fills path. 0 or -ENOENT.
 */
int bt_theme_find(const char *name, char *path, size_t n);

/* Names of all themes found in those places, sorted, deduplicated; returns count. */
int bt_theme_list(char names[][64], int max);

/*
 * Make t current: init_pair for every role for the terminal's colours
 * (COLORS: 256 uses fg/bg, 8 or 16 uses fg8/bg8); with no colour support
 * or NO_COLOR set, only the attributes are used. Call after start_color().
 */
void bt_theme_apply(const struct bt_theme *t, int use_color);

/* The attribute (colour pair | attrs) to draw role r with, under the current theme. */
attr_t bt_role_attr(enum bt_role r);

#endif
