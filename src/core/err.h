/*
 * err.h - error messages for the user.
 *
 * Functions return 0 or a negative errno-style code; where the user needs to
 * know more they fill a caller-owned struct bt_err with one line that names
 * what is wrong and what is allowed ("threads=0: must be 1..1024").
 */
#ifndef BT_CORE_ERR_H
#define BT_CORE_ERR_H

#define BT_ERR_MAX 320

struct bt_err {
	char msg[BT_ERR_MAX];
};

/*
 * Format a message into err (which may be NULL) and return code, so that a
 * caller can write "return bt_err_set(err, -EINVAL, ...);". A message that
 * is already set is overwritten.
 */
int bt_err_set(struct bt_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prepend "prefix: " to the message already in err (for file/line context). */
void bt_err_prefix(struct bt_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
