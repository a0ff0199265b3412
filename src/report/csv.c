/*
 * csv.c - CSV fields (csv.h).
 */
#include "report/csv.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void bt_csv_str(FILE *f, const char *s, int first)
{
	if (!first)
		fputc(',', f);
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void bt_csv_num(FILE *f, double v)
{
	char buf[40];

	fputc(',', f);
	if (isnan(v))
		return;
	if (isinf(v)) {
		fputs(v > 0 ? "inf" : "-inf", f);
		return;
	}
	/* 15 digits are exact for most figures; 17 always are. */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

void bt_csv_nums(FILE *f, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bt_csv_num(f, v[i]);
}

void bt_csv_u64(FILE *f, uint64_t v, int have)
{
	fputc(',', f);
	if (have)
		fprintf(f, "%" PRIu64, v);
}
