/*
 * box.c - boxes and the clipped drawing primitives every widget uses.
 *
 * Everything drawn goes through bt_cell_draw or bt_text_draw, which check
 * the rectangle, so a widget cannot write outside the rect it was handed
 * whatever its arithmetic does at tiny sizes.
 */
#include "tui/widgets.h"

#include <string.h>

struct bt_rect bt_rect_clip(WINDOW *win, struct bt_rect r)
{
	int my, mx, y1, x1;

	getmaxyx(win, my, mx);
	if (r.h < 0)
		r.h = 0;
	if (r.w < 0)
		r.w = 0;
	y1 = r.y + r.h;
	x1 = r.x + r.w;
	if (r.y < 0)
		r.y = 0;
	if (r.x < 0)
		r.x = 0;
	if (y1 > my)
		y1 = my;
	if (x1 > mx)
		x1 = mx;
	r.h = y1 > r.y ? y1 - r.y : 0;
	r.w = x1 > r.x ? x1 - r.x : 0;
	return r;
}

/*
 * Draw one wide character through a cchar_t. The colour pair travels in
 * setcchar's pair argument: passing 0 there would strip it from attr.
 */
void bt_cell_draw(WINDOW *win, struct bt_rect r, int y, int x, wchar_t wc, attr_t attr)
{
	struct bt_rect c = bt_rect_clip(win, r);
	int ay = r.y + y, ax = r.x + x;

	if (ay < c.y || ay >= c.y + c.h || ax < c.x || ax >= c.x + c.w)
		return;
	if (wc >= 0x20 && wc < 0x7f) {
		mvwaddch(win, ay, ax, (chtype)wc | attr);
	} else {
		wchar_t ws[2] = { wc, 0 };
		cchar_t cc;

		if (setcchar(&cc, ws, attr & ~A_COLOR, (short)PAIR_NUMBER(attr), NULL) == OK)
			mvwadd_wch(win, ay, ax, &cc);
	}
}

void bt_rect_fill(WINDOW *win, struct bt_rect r, attr_t attr)
{
	struct bt_rect c = bt_rect_clip(win, r);

	for (int y = 0; y < c.h; y++) {
		wmove(win, c.y + y, c.x);
		for (int x = 0; x < c.w; x++)
			mvwaddch(win, c.y + y, c.x + x, ' ' | attr);
	}
}

/*
 * Decode one UTF-8 sequence at s; returns its length (at least 1) and the
 * code point in *wc, U+FFFD for malformed input. By hand rather than with
 * mbrtowc, so the result does not depend on the locale.
 */
static int utf8_decode(const unsigned char *s, wchar_t *wc)
{
	unsigned c = s[0];
	int len, i;
	unsigned v;

	if (c < 0x80) {
		*wc = (wchar_t)c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		v = c & 0x07;
	} else {
		*wc = 0xfffd;
		return 1;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*wc = 0xfffd;
			return i;
		}
		v = (v << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
	    (len == 4 && (v < 0x10000 || v > 0x10ffff)))
		v = 0xfffd;
	*wc = (wchar_t)v;
	return len;
}

/* Columns of wc on the terminal; control characters are shown as '?'. */
static int char_width(wchar_t wc)
{
	int w;

	if (wc < 0x20 || wc == 0x7f)
		return -1;
	if (wc < 0x7f)
		return 1;
	w = wcwidth(wc);
	return w;
}

int bt_text_width(const char *s, int utf8)
{
	const unsigned char *p = (const unsigned char *)s;
	int cols = 0;

	if (s == NULL)
		return 0;
	if (!utf8)
		return (int)strlen(s);
	while (*p) {
		wchar_t wc;
		int w;

		p += utf8_decode(p, &wc);
		w = char_width(wc);
		cols += w < 0 ? 1 : w;
	}
	return cols;
}

int bt_text_draw(WINDOW *win, struct bt_rect r, int y, int x, const char *s, attr_t attr,
		 int utf8)
{
	const unsigned char *p = (const unsigned char *)s;
	int col = x;

	if (s == NULL || y < 0 || y >= r.h)
		return 0;
	while (*p && col < r.w) {
		wchar_t wc;
		int w;

		if (utf8) {
			p += utf8_decode(p, &wc);
		} else {
			wc = *p < 0x80 ? (wchar_t)*p : '?';
			p++;
		}
		w = char_width(wc);
		if (w < 0 || (!utf8 && wc >= 0x80)) {
			wc = '?';
			w = 1;
		}
		if (w == 0)
			continue;	/* combining marks: dropped rather than misplaced */
		if (col + w > r.w)
			break;
		if (col >= 0)
			bt_cell_draw(win, r, y, col, wc, attr);
		col += w;
	}
	return col - x;
}

struct bt_rect bt_box_draw(WINDOW *win, struct bt_rect r, const char *title, int focus, int utf8)
{
	struct bt_rect in = { r.y + 1, r.x + 1, r.h - 2, r.w - 2 };
	attr_t b = bt_role_attr(focus ? ROLE_FOCUS : ROLE_BORDER);
	attr_t ta = bt_role_attr(focus ? ROLE_FOCUS : ROLE_TITLE);
	wchar_t hl = utf8 ? 0x2500 : '-', vl = utf8 ? 0x2502 : '|';
	wchar_t tl = utf8 ? 0x250c : '+', tr = utf8 ? 0x2510 : '+';
	wchar_t bl = utf8 ? 0x2514 : '+', br = utf8 ? 0x2518 : '+';

	if (r.h < 2 || r.w < 2) {
		bt_rect_fill(win, r, bt_role_attr(ROLE_NORMAL));
		in.h = in.w = 0;
		in.y = r.y;
		in.x = r.x;
		return in;
	}
	bt_cell_draw(win, r, 0, 0, tl, b);
	bt_cell_draw(win, r, 0, r.w - 1, tr, b);
	bt_cell_draw(win, r, r.h - 1, 0, bl, b);
	bt_cell_draw(win, r, r.h - 1, r.w - 1, br, b);
	for (int x = 1; x < r.w - 1; x++) {
		bt_cell_draw(win, r, 0, x, hl, b);
		bt_cell_draw(win, r, r.h - 1, x, hl, b);
	}
	for (int y = 1; y < r.h - 1; y++) {
		bt_cell_draw(win, r, y, 0, vl, b);
		bt_cell_draw(win, r, y, r.w - 1, vl, b);
	}
	bt_rect_fill(win, in, bt_role_attr(ROLE_NORMAL));
	if (title && *title && r.w >= 7) {
		/* "┌─ title ─┐": the text fits between the two spaces */
		struct bt_rect tr_ = { r.y, r.x + 3, 1, r.w - 6 };
		int n = bt_text_draw(win, tr_, 0, 0, title, ta, utf8);

		if (n > 0) {
			bt_cell_draw(win, r, 0, 2, ' ', b);
			bt_cell_draw(win, r, 0, 3 + n, ' ', b);
		}
	}
	return in;
}

void bt_text_trim_zeros(char *s)
{
	char *dot = strchr(s, '.'), *end, *z;

	if (dot == NULL || strchr(s, 'e') != NULL)
		return;
	end = dot + 1;
	while (*end >= '0' && *end <= '9')
		end++;
	z = end;
	while (z > dot + 1 && z[-1] == '0')
		z--;
	if (z == dot + 1)
		z = dot;
	memmove(z, end, strlen(end) + 1);
}
