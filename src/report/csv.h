/*
 * csv.h - RFC 4180 CSV fields, shared by every CSV writer (report, compare,
 * export) so that quoting is one piece of code.
 */
#ifndef BT_REPORT_CSV_H
#define BT_REPORT_CSV_H

#include <stdio.h>

/* One text field, preceded by a comma unless first; quoted when it holds a comma, quote or line break. */
void bt_csv_str(FILE *f, const char *s, int first);

/* One number field (always preceded by a comma), exact to 17 digits; empty when not finite. */
void bt_csv_num(FILE *f, double v);

#endif
