#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int bt_err_set(struct bt_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

void bt_err_prefix(struct bt_err *err, const char *fmt, ...)
{
	char pre[BT_ERR_MAX], old[BT_ERR_MAX];
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old);
}
