/*
 * cmd_explore.c - `benchtop explore WORKLOAD [key=value ...]`: explore mode
 * (engines/explore.h) for scripts. One open-ended run of the settings given;
 * each line on stdin is a change, key=value (several on a line, separated by
 * blanks, are several changes; "#" starts a comment), applied at the next
 * free sample boundary, one per boundary. A line that cannot apply is
 * refused with one line on stderr ("benchtop: line 3: cs=5: ...") and the
 * run goes on.
 *
 * stdout gets one line per finished segment as it finishes,
 *   segment 2  threads=4  1.23M updates/s  p50 310ns  p99 2.41us  1.00s
 * and, at the end, the table of the segments as `run` prints a sweep.
 * The end of the input ends the run once the waiting changes are applied
 * (the segment running then is finished); SIGINT, SIGTERM or SIGHUP end it
 * at the next boundary, the segment running finished and recorded: the
 * recording is complete either way. Exit status: 0, 1 failed, 2 bad usage,
 * 3 the recording is incomplete, 130 ended by a signal.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/plan.h"
#include "core/recording.h"
#include "core/units.h"
#include "engines/explore.h"
#include "workloads/registry.h"

#define LINE_MAX_LEN 4096

/* Print segment c of res as one line. Under the explore's lock. */
static void print_segment(const struct bt_results *res, int c)
{
	const struct bt_cell *cell = &res->cells[c];
	const struct bt_rep *rep = NULL;
	char name[256], rate[32], p50[32], p99[32];

	for (int i = res->nreps - 1; i >= 0; i--)
		if (res->reps[i].cell == c) {
			rep = &res->reps[i];
			break;
		}
	bt_results_cell_name(res, c, name, sizeof(name));
	bt_fmt_si(cell->ops_s.median, rate, sizeof(rate));
	if (cell->hist != NULL && cell->hist->total > 0) {
		bt_fmt_ns((double)bt_hist_percentile(cell->hist, 50), p50, sizeof(p50));
		bt_fmt_ns((double)bt_hist_percentile(cell->hist, 99), p99, sizeof(p99));
	} else {
		snprintf(p50, sizeof(p50), "-");
		snprintf(p99, sizeof(p99), "-");
	}
	printf("segment %d  %s  %s %s/s  p50 %s  p99 %s  %.2fs%s%s\n", c + 1, name, rate,
	       res->unit[0] ? res->unit : "ops", p50, p99, rep ? rep->wall_s : 0.0,
	       rep && !rep->ok ? "  FAILED: " : "", rep && !rep->ok ? rep->verify : "");
	fflush(stdout);
}

/* Print the segments finished since *printed. */
static void print_new(struct bt_explore *x, int *printed)
{
	struct bt_explore_snap s;

	bt_explore_snapshot(x, &s);
	if (s.segments_done <= *printed)
		return;
	bt_explore_lock(x);
	for (; *printed < s.segments_done && *printed < bt_explore_results(x)->ncells; (*printed)++)
		print_segment(bt_explore_results(x), *printed);
	bt_explore_unlock(x);
}

/*
 * One input line: each blank-separated key=value is a change. A line with a
 * byte that is not printable ASCII (binary on stdin) is refused whole, its
 * bytes not echoed to the terminal.
 */
static void take_line(struct bt_explore *x, char *line, long lineno)
{
	char *save = NULL, *hash;

	for (size_t i = 0; line[i] != '\0'; i++) {
		unsigned char c = (unsigned char)line[i];

		if ((c < 0x20 && c != '\t' && c != '\r') || c >= 0x7f) {
			bt_cli_error("line %ld: not text (byte 0x%02x at column %zu), ignored", lineno, c,
				     i + 1);
			return;
		}
	}
	hash = strchr(line, '#');
	if (hash != NULL)
		*hash = '\0';
	for (char *tok = strtok_r(line, " \t\r", &save); tok != NULL;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		struct bt_err err = { "" };

		if (bt_explore_change_arg(x, tok, &err) < 0)
			bt_cli_error("line %ld: %s", lineno, err.msg);
	}
}

/*
 * Read what stdin has (it is readable): whole lines are taken, a partial
 * one kept in buf. Returns 1 at the end of the input, 0 otherwise.
 */
static int read_input(struct bt_explore *x, char *buf, size_t *len, int *skipping, long *lineno)
{
	ssize_t n = read(STDIN_FILENO, buf + *len, LINE_MAX_LEN - *len);
	char *nl;

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : 1;
	if (n == 0) {
		if (*len > 0 && !*skipping) {
			buf[*len] = '\0';
			take_line(x, buf, ++*lineno);
		}
		*len = 0;
		return 1;
	}
	*len += (size_t)n;
	while ((nl = memchr(buf, '\n', *len)) != NULL) {
		size_t k = (size_t)(nl - buf);

		*nl = '\0';
		++*lineno;
		if (*skipping)
			*skipping = 0;
		else
			take_line(x, buf, *lineno);
		memmove(buf, nl + 1, *len - k - 1);
		*len -= k + 1;
	}
	if (*len == LINE_MAX_LEN) {
		/* said once per line, however many buffers it fills */
		if (!*skipping)
			bt_cli_error("line %ld: longer than %d bytes, ignored", *lineno + 1, LINE_MAX_LEN);
		*len = 0;
		*skipping = 1;
	}
	return 0;
}

int bt_cmd_explore(int argc, char **argv)
{
	struct bt_cli_args o = { 0 };
	struct bt_front_base base = { 0 };
	const struct bt_workload *wl;
	struct bt_explore *x = NULL;
	struct bt_plan pl;
	struct bt_err err = { "" };
	char path[4096] = "", buf[LINE_MAX_LEN + 1];
	size_t len = 0;
	long lineno = 0;
	int status = BT_EXIT_USAGE, printed = 0, eof = 0, skipping = 0, rc, rec_rc;

	if (bt_cli_parse_args("explore", "workload", 0, argc, argv, &o) < 0)
		goto out;
	if (o.save_plan != NULL) {
		bt_cli_error("explore: --save-plan does not apply (the recording holds the plan of the values visited)");
		goto out;
	}
	if (o.positional == NULL) {
		bt_cli_error("explore: which workload? (benchtop explore WORKLOAD [key=value ...] < changes)");
		goto out;
	}
	wl = bt_workload_find(o.positional);
	if (wl == NULL) {
		bt_cli_error("%s: no such workload (see benchtop list)", o.positional);
		goto out;
	}
	if (bt_front_plan(&pl, wl, &base, o.kv, o.nkv, NULL, &err) < 0) {
		bt_cli_error("%s", err.msg);
		goto out;
	}
	if (bt_explore_check(wl, &pl, &err) < 0) {
		bt_cli_error("%s", err.msg);
		goto out_plan;
	}
	status = BT_EXIT_FAILED;
	if (o.run.record != NULL) {
		snprintf(path, sizeof(path), "%s", o.run.record);
	} else if (!o.run.no_record && bt_front_record_path(path, sizeof(path), wl->name, &err) < 0) {
		bt_cli_error("%s, or use --record FILE or --no-record", err.msg);
		goto out_plan;
	}
	bt_front_signals_catch();
	if (bt_explore_start(&x, wl, &pl, path[0] ? path : NULL, &err) < 0) {
		bt_cli_error("%s", err.msg);
		if (o.run.record == NULL && path[0])
			bt_rec_unreserve(path);
		goto out_plan;
	}
	while (!bt_explore_finished(x)) {
		struct pollfd fds[2] = {
			{ .fd = eof ? -1 : STDIN_FILENO, .events = POLLIN },
			{ .fd = bt_front_signal_fd(), .events = POLLIN },
		};

		if (bt_front_signalled())
			bt_explore_stop(x);
		if (poll(fds, 2, 50) > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    read_input(x, buf, &len, &skipping, &lineno)) {
			eof = 1;
			bt_explore_finish(x);
		}
		print_new(x, &printed);
	}
	rc = bt_explore_wait(x);
	print_new(x, &printed);
	printf("\n");
	bt_cli_print_results(stdout, bt_explore_results(x), o.run.fmt, NULL);
	fflush(stdout);
	rec_rc = bt_explore_record_error(x);
	if (path[0] && rec_rc < 0)
		bt_cli_error("the recording %s is incomplete: %s", path, strerror(-rec_rc));
	else if (path[0])
		fprintf(stderr, "recorded: %s\n", path);
	if (rc < 0) {
		bt_cli_error("explore failed: %s", bt_explore_results(x)->error);
		status = BT_EXIT_FAILED;
	} else if (rec_rc < 0) {
		status = BT_EXIT_RECORDING;
	} else {
		status = bt_front_signalled() ? BT_EXIT_INTERRUPTED : BT_EXIT_OK;
	}
	bt_explore_free(x);
out_plan:
	bt_plan_destroy(&pl);
out:
	free(o.kv);
	return status;
}
