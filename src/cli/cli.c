#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "bt_config.h"
#include "core/clock.h"

void bt_cli_usage(FILE *f)
{
	fprintf(f,
		"benchtop %s - a performance workbench for one Linux server\n"
		"\n"
		"usage:\n"
		"  benchtop list [WORKLOAD]            workloads, or one workload's parameters\n"
		"  benchtop run WORKLOAD [key=value ...] [options]\n"
		"  benchtop run --plan FILE [key=value ...] [options]\n"
		"  benchtop show RECORDING [--format FMT]\n"
		"  benchtop --help | --version\n"
		"\n"
		"A value may be a comma list: each list is a sweep axis, and every\n"
		"combination of the axes is a cell, run warmup + reps times\n"
		"(e.g. benchtop run pipeline threads=1,2,4,8 notify=signal,broadcast reps=3).\n"
		"\n"
		"run options:\n"
		"  --plan FILE        read the plan (JSON) from FILE; key=value overrides it\n"
		"  --save-plan FILE   write the plan to FILE (and run it)\n"
		"  --record FILE      record the session to FILE\n"
		"                     (default: $XDG_STATE_HOME/benchtop/sessions/TIME-WORKLOAD-HOST.jsonl)\n"
		"  --no-record        do not record\n"
		"  --format FMT       results as text (default), markdown, csv or json\n"
		"  --quiet            no progress bar\n"
		"\n"
		"exit status: 0 ok, 1 the run failed, 2 bad usage, 130 interrupted (Ctrl-C)\n",
		BT_VERSION);
}

void bt_cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("benchtop: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int bt_cli_format(const char *s, enum bt_format *out)
{
	if (s == NULL || bt_format_parse(s, out) < 0) {
		bt_cli_error("--format=%s: must be one of text, markdown, csv, json", s ? s : "");
		return -1;
	}
	return 0;
}

void bt_cli_print_results(FILE *f, const struct bt_results *res, enum bt_format fmt,
			  const char *origin)
{
	if (fmt == BT_FMT_TEXT || fmt == BT_FMT_MARKDOWN) {
		char when[32];
		const struct bt_sysinfo *m = &res->machine;

		bt_format_utc(res->start_unix_ns, when, sizeof(when));
		fprintf(f, "%s%s on %s: %s, %d CPUs (%d cores x %d), governor %s; %s; benchtop %s; %s\n",
			fmt == BT_FMT_MARKDOWN ? "" : "# ", res->workload, m->host, m->cpu_model,
			m->allowed_cpus, m->physical_cores, m->smt, m->governor, m->kernel,
			res->version, when);
		if (origin != NULL)
			fprintf(f, "%srecording: %s\n", fmt == BT_FMT_MARKDOWN ? "" : "# ", origin);
		fputc('\n', f);
	}
	bt_report_write(f, res, fmt);
}
