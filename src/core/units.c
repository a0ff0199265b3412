/*
 * units.c - human-readable numbers (see units.h).
 *
 * Every format decides the number of decimals from the value as printf
 * rounds it, not from the unrounded value, so transitions are right:
 * 9.996 is "10.0", 999.5 is "1.00K", never "10.00" or "1000".
 */
#include "core/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Print v (0 <= v, normally < 1000) with 3 significant digits into tmp and
 * return the value as printed; values of 1000 and more print with no
 * decimals (the caller moves to the next unit when that matters).
 */
static double fmt3(double v, char *tmp, size_t n)
{
	int d = v < 10 ? 2 : v < 100 ? 1 : 0;
	double r;

	snprintf(tmp, n, "%.*f", d, v);
	r = strtod(tmp, NULL);
	if ((d == 2 && r >= 10) || (d == 1 && r >= 100)) {
		d--;
		snprintf(tmp, n, "%.*f", d, v);
		r = strtod(tmp, NULL);
	}
	return r;
}

/* "nan", "inf", "-inf" into buf; returns 1 when v was not finite. */
static int non_finite(double v, char *buf, size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "nan");
	else if (isinf(v))
		snprintf(buf, n, "%s", v < 0 ? "-inf" : "inf");
	else
		return 0;
	return 1;
}

/*
 * a in [0, 1): 3 significant digits as a plain decimal ("0.500", "0.0123"),
 * down to 0.001; smaller values in exponent form. Returns 0, or -1 when
 * the value rounds up to 1 and belongs to the caller's >= 1 path.
 */
static int fmt_small(double a, const char *sign, const char *unit, char *buf, size_t n)
{
	char tmp[48];
	int d;
	double r;

	if (a < 0.0009995) {
		snprintf(buf, n, "%s%.2e%s", sign, a, unit);
		return 0;
	}
	d = 2 - (int)floor(log10(a));
	snprintf(tmp, sizeof(tmp), "%.*f", d, a);
	r = strtod(tmp, NULL);
	if (r >= 1)
		return -1;
	if (d > 3 && r >= pow(10, 3 - d)) {	/* 0.09996 -> "0.100", not "0.1000" */
		d--;
		snprintf(tmp, sizeof(tmp), "%.*f", d, a);
	}
	snprintf(buf, n, "%s%s%s", sign, tmp, unit);
	return 0;
}

/*
 * Scale a >= 1 by base until it is below base (after rounding), at most
 * nunits - 1 times; print with 3 significant digits and the unit's suffix.
 * Returns -1 when it is too large for the last unit.
 */
static int fmt_scaled(double a, double base, const char *const *units, int nunits,
		      const char *sign, char *buf, size_t n)
{
	char tmp[48];
	int k = 0;

	while (a >= base && k < nunits - 1) {
		a /= base;
		k++;
	}
	if (fmt3(a, tmp, sizeof(tmp)) >= base) {
		if (k == nunits - 1)
			return -1;
		a /= base;
		k++;
		fmt3(a, tmp, sizeof(tmp));
	}
	snprintf(buf, n, "%s%s%s", sign, tmp, units[k]);
	return 0;
}

char *bt_fmt_si(double v, char *buf, size_t n)
{
	static const char *const pre[] = { "", "K", "M", "G", "T", "P", "E" };
	const char *sign = v < 0 ? "-" : "";
	double a = fabs(v);

	if (n == 0 || non_finite(v, buf, n))
		return buf;
	if (a == 0) {
		snprintf(buf, n, "0");
		return buf;
	}
	if (a < 1 && fmt_small(a, sign, "", buf, n) == 0)
		return buf;
	if (a < 1)
		a = 1;	/* rounded up to 1: "1.00" */
	if (fmt_scaled(a, 1000, pre, 7, sign, buf, n) < 0)
		snprintf(buf, n, "%s%.2e", sign, a);
	return buf;
}

/*
 * Integral nanoseconds under 1000 print as integers ("850ns", "5ns"): a
 * histogram value is a whole number of ns and "5.00ns" would claim
 * precision that means nothing. Fractions (means) get 3 digits. 1000 s and
 * more print as whole seconds.
 */
char *bt_fmt_ns(double ns, char *buf, size_t n)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	const char *sign = ns < 0 ? "-" : "";
	double a = fabs(ns);

	if (n == 0 || non_finite(ns, buf, n))
		return buf;
	if (a == 0) {
		snprintf(buf, n, "0ns");
		return buf;
	}
	if (a < 1000 && a == floor(a)) {
		snprintf(buf, n, "%s%.0fns", sign, a);
		return buf;
	}
	if (a < 1 && fmt_small(a, sign, "ns", buf, n) == 0)
		return buf;
	if (a < 1)
		a = 1;
	if (fmt_scaled(a, 1000, units, 4, sign, buf, n) < 0)
		snprintf(buf, n, "%s%.0fs", sign, a / 1e9);
	return buf;
}

/* Whole bytes below 1 KiB ("512B"); 3 significant digits above ("64.0KiB", "1000KiB"). */
char *bt_fmt_bytes(double bytes, char *buf, size_t n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	const char *sign = bytes < 0 ? "-" : "";
	double a = fabs(bytes);

	if (n == 0 || non_finite(bytes, buf, n))
		return buf;
	if (a < 1024) {
		char tmp[16];

		snprintf(tmp, sizeof(tmp), "%.0f", a);
		if (strtod(tmp, NULL) < 1024) {
			snprintf(buf, n, "%s%sB", strtod(tmp, NULL) == 0 ? "" : sign, tmp);
			return buf;
		}
		a = 1024;
	}
	if (fmt_scaled(a, 1024, units, 7, sign, buf, n) < 0)
		snprintf(buf, n, "%s%.2eB", sign, a);
	return buf;
}
