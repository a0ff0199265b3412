#include "report/csv.h"

#include <math.h>
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
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.17g", v);
}
