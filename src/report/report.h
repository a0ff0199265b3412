/*
 * report.h - the results table, from a struct bt_results (live or read back).
 *
 * Text (for a terminal) and Markdown: the classic published shape. Rows are
 * the values of the first axis (threads); columns the combinations of the
 * other axes; each cell shows median throughput in the workload's unit per
 * second with its stddev as a percentage of the median, then wall / user /
 * sys seconds (medians over reps) and context switches (voluntary +
 * involuntary, median). With no axes there is one row. Cells not finished
 * show "-" (or "failed"). Under the table, one line per cell with the latency
 * percentiles (p50 p90 p99 p99.9 max, mean, count, "1/N timed" when sampled),
 * and, when the session did not complete, a line saying so
 * ("session interrupted: 3 of 14 cells finished").
 *
 * CSV: a header row, then one row per cell with every summary field
 * (axis values, reps, ops/s min median max mean stddev ci95, bytes/s median,
 * wall/user/sys medians, vcsw/ivcsw medians, p50..max in ns, lat_every).
 * JSON: {"workload":..,"unit":..,"status":..,"axes":[..],"cells":[{...same fields...}]}.
 */
#ifndef BT_REPORT_REPORT_H
#define BT_REPORT_REPORT_H

#include <stdio.h>

#include "core/results.h"

enum bt_format {
	BT_FMT_TEXT,
	BT_FMT_MARKDOWN,
	BT_FMT_CSV,
	BT_FMT_JSON,
	BT_FMT_OPENSSL,	/* `openssl speed`'s table: rows the first non-threads axis, columns the next,
			 * values median bytes/s in 1000s ("%.2fk"); one table per other axes' values */
};

/* "text", "markdown" (or "md"), "csv", "json", "openssl" -> 0; else -EINVAL. */
int bt_format_parse(const char *s, enum bt_format *out);

/* Write the table. 0 or -errno. */
int bt_report_write(FILE *f, const struct bt_results *res, enum bt_format fmt);

#endif
