/*
 * units.h - human-readable numbers: "1.23M", "850ns", "12.4us", "1.50GiB".
 * All functions write a NUL-terminated string into buf and return buf.
 */
#ifndef BT_CORE_UNITS_H
#define BT_CORE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Decimal SI with 3 significant digits: 1234567 -> "1.23M", 999 -> "999", 0.5 -> "0.500". */
char *bt_fmt_si(double v, char *buf, size_t n);

/* A duration in ns with a fitting unit and 3 significant digits: "850ns", "12.4us", "3.20ms", "1.50s". */
char *bt_fmt_ns(double ns, char *buf, size_t n);

/* Bytes with binary units: "512B", "64.0KiB", "1.50GiB". */
char *bt_fmt_bytes(double bytes, char *buf, size_t n);

#endif
