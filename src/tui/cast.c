/*
 * cast.c - `--cast FILE`: the TUI session written as an asciicast v2 file
 * (https://docs.asciinema.org/manual/asciicast/v2/): a JSON header line,
 * then one [seconds, "o", "bytes"] array per chunk of terminal output and
 * [seconds, "r", "WxH"] per resize.
 *
 * ncurses writes its output with write(2) to the descriptor of the FILE it
 * is given, so a stdio cookie cannot see it. Instead standard output becomes
 * the write end of a pipe before the screen opens; ncurses then takes the
 * terminal's modes and size from standard error (its documented fallback
 * when standard output is not a terminal), so standard error is pointed at
 * the terminal for the session. A tee thread copies every chunk from the
 * pipe to the real terminal and, JSON-escaped with its time, into the file,
 * flushing each line. Valid UTF-8 is kept (a sequence cut between two chunks
 * waits for the next one), control characters are \u00XX, invalid bytes
 * become U+FFFD. The thread never touches ncurses.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "tui/app.h"

static struct {
	int on;
	FILE *f;
	int tty_fd;		/* the real terminal (a dup of standard output) */
	int saved_err;		/* standard error before the session, -1 when untouched */
	int pipe_r;
	pthread_t thread;
	pthread_mutex_t lock;
	uint64_t t0;
	unsigned char pend[4];	/* an incomplete UTF-8 sequence from the last chunk */
	int npend;
} g_cast = { .saved_err = -1, .pipe_r = -1, .tty_fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER };

/* Length of the UTF-8 sequence starting at s[0..n) (1..4); 0: incomplete; -1: invalid. */
static int utf8_len(const unsigned char *s, size_t n)
{
	int len;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return -1;
	for (int i = 1; i < len; i++) {
		if ((size_t)i >= n)
			return 0;
		if ((s[i] & 0xc0) != 0x80)
			return -1;
	}
	cp = s[0] & (0x7fu >> len);
	for (int i = 1; i < len; i++)
		cp = cp << 6 | (s[i] & 0x3fu);
	/* overlong, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	return len;
}

/* Write s[0..n) as the inside of a JSON string; returns how many bytes were consumed (a cut sequence is left). */
static size_t json_escape(FILE *f, const unsigned char *s, size_t n, int final)
{
	size_t i = 0;

	while (i < n) {
		int len = utf8_len(s + i, n - i);

		if (len == 0 && !final)
			break;
		if (len <= 0) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			i++;
			continue;
		}
		if (len == 1) {
			unsigned char c = s[i];

			if (c == '"' || c == '\\')
				fprintf(f, "\\%c", c);
			else if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		} else {
			fwrite(s + i, 1, (size_t)len, f);
		}
		i += (size_t)len;
	}
	return i;
}

static double elapsed(void)
{
	return (double)(bt_now_ns() - g_cast.t0) / 1e9;
}

/* One "o" event of buf (with what was left over from the last chunk); under the lock. */
static void write_output(const unsigned char *buf, size_t n, int final)
{
	unsigned char tmp[4096 + 4];
	size_t m = 0, used;

	memcpy(tmp, g_cast.pend, (size_t)g_cast.npend);
	m = (size_t)g_cast.npend;
	memcpy(tmp + m, buf, n);
	m += n;
	g_cast.npend = 0;
	if (m == 0)
		return;
	fprintf(g_cast.f, "[%.6f, \"o\", \"", elapsed());
	used = json_escape(g_cast.f, tmp, m, final);
	fputs("\"]\n", g_cast.f);
	fflush(g_cast.f);
	g_cast.npend = (int)(m - used);
	memcpy(g_cast.pend, tmp + used, m - used);
}

static void write_all(int fd, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void *tee_main(void *arg)
{
	unsigned char buf[4096];
	ssize_t n;

	(void)arg;
	for (;;) {
		n = read(g_cast.pipe_r, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		write_all(g_cast.tty_fd, buf, (size_t)n);
		pthread_mutex_lock(&g_cast.lock);
		write_output(buf, (size_t)n, 0);
		pthread_mutex_unlock(&g_cast.lock);
	}
	pthread_mutex_lock(&g_cast.lock);
	write_output(buf, 0, 1);
	pthread_mutex_unlock(&g_cast.lock);
	return NULL;
}

/* A JSON string value of an environment variable ("" when unset), escaped. */
static void env_json(FILE *f, const char *name)
{
	const char *v = getenv(name);

	fputc('"', f);
	if (v != NULL)
		json_escape(f, (const unsigned char *)v, strlen(v), 1);
	fputc('"', f);
}

int bt_cast_start(const char *path, struct bt_err *err)
{
	struct winsize ws = { 0 };
	int p[2], rc;

	g_cast.f = fopen(path, "w");
	if (g_cast.f == NULL)
		return bt_err_set(err, -errno, "--cast %s: %s", path, strerror(errno));
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) < 0 || ws.ws_col == 0) {
		ws.ws_col = 80;
		ws.ws_row = 24;
	}
	fprintf(g_cast.f, "{\"version\": 2, \"width\": %d, \"height\": %d, \"timestamp\": %lld, \"env\": {\"TERM\": ",
		ws.ws_col, ws.ws_row, (long long)time(NULL));
	env_json(g_cast.f, "TERM");
	fputs(", \"SHELL\": ", g_cast.f);
	env_json(g_cast.f, "SHELL");
	fputs("}}\n", g_cast.f);
	if (fflush(g_cast.f) != 0) {
		rc = -errno;
		fclose(g_cast.f);
		g_cast.f = NULL;
		return bt_err_set(err, rc, "--cast %s: %s", path, strerror(-rc));
	}
	fflush(stdout);
	g_cast.tty_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (g_cast.tty_fd < 0 || pipe2(p, O_CLOEXEC) < 0) {
		rc = -errno;
		goto fail;
	}
	/* ncurses takes the terminal's modes from standard error when standard output is a pipe. */
	if (!isatty(STDERR_FILENO)) {
		g_cast.saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
		dup2(g_cast.tty_fd, STDERR_FILENO);
	}
	g_cast.pipe_r = p[0];
	g_cast.t0 = bt_now_ns();
	if (dup2(p[1], STDOUT_FILENO) < 0) {
		rc = -errno;
		close(p[0]);
		close(p[1]);
		goto fail;
	}
	close(p[1]);
	if ((rc = -pthread_create(&g_cast.thread, NULL, tee_main, NULL)) < 0) {
		dup2(g_cast.tty_fd, STDOUT_FILENO);
		close(p[0]);
		goto fail;
	}
	g_cast.on = 1;
	return 0;
fail:
	if (g_cast.saved_err >= 0) {
		dup2(g_cast.saved_err, STDERR_FILENO);
		close(g_cast.saved_err);
		g_cast.saved_err = -1;
	}
	if (g_cast.tty_fd >= 0)
		close(g_cast.tty_fd);
	g_cast.tty_fd = -1;
	fclose(g_cast.f);
	g_cast.f = NULL;
	return bt_err_set(err, rc, "--cast %s: %s", path, strerror(-rc));
}

void bt_cast_resize(int cols, int rows)
{
	if (!g_cast.on)
		return;
	pthread_mutex_lock(&g_cast.lock);
	fprintf(g_cast.f, "[%.6f, \"r\", \"%dx%d\"]\n", elapsed(), cols, rows);
	fflush(g_cast.f);
	pthread_mutex_unlock(&g_cast.lock);
}

void bt_cast_stop(void)
{
	if (!g_cast.on)
		return;
	fflush(stdout);
	/* The pipe's last write end goes: the thread reads to the end and stops. */
	dup2(g_cast.tty_fd, STDOUT_FILENO);
	/* A child that inherited the pipe (a spawned server) must not hold the exit up. */
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 2;
		if (pthread_timedjoin_np(g_cast.thread, NULL, &ts) != 0) {
			pthread_cancel(g_cast.thread);
			pthread_join(g_cast.thread, NULL);
		}
	}
	close(g_cast.pipe_r);
	if (g_cast.saved_err >= 0) {
		dup2(g_cast.saved_err, STDERR_FILENO);
		close(g_cast.saved_err);
		g_cast.saved_err = -1;
	}
	close(g_cast.tty_fd);
	fclose(g_cast.f);
	g_cast.f = NULL;
	g_cast.on = 0;
}
