/*
 * csv.h - RFC 4180 CSV fields, shared by every CSV writer (report, compare,
 * export) so that quoting and number formats are one piece of code: a row of
 * one writer and a row of another that hold the same figure hold it the same
 * way.
 */
#ifndef BT_REPORT_CSV_H
#define BT_REPORT_CSV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One text field, preceded by a comma unless first; quoted when it holds a comma, quote or line break. */
void bt_csv_str(FILE *f, const char *s, int first);

/*
 * One number field (always preceded by a comma): the shortest form that
 * reads back to the same double ("0.1", not "0.10000000000000001"), "inf"
 * or "-inf" for an infinity, empty for NaN (no value).
 */
void bt_csv_num(FILE *f, double v);

/* n number fields, as bt_csv_num. */
void bt_csv_nums(FILE *f, const double *v, size_t n);

/* One integer field (preceded by a comma); empty when have is 0 (no value). */
void bt_csv_u64(FILE *f, uint64_t v, int have);

#endif
