/*
 * sql.c - what a database costs per write: the classic insert-speed table
 * by storage engine and commit mode, and the page-view counter on SQL.
 *
 *   mode=insert    a one-column table (field INTEGER UNSIGNED NOT NULL);
 *                  nrows= random values inserted batch= rows per statement
 *                  (1: row by row; more: one extended, multi-row INSERT),
 *                  split over clients=
 *   mode=counter   nrows= increments of random keys among keys=: an
 *                  INSERT ... ON DUPLICATE KEY UPDATE cnt = cnt + 1 (SQLite:
 *                  ON CONFLICT DO UPDATE), then a SELECT of another key
 *
 * commit=end turns autocommit off and COMMITs once at the end, each leaves
 * autocommit on (every statement its own transaction), every:N COMMITs
 * after every N rows. prepared=on binds the values of one prepared
 * statement; off sends them as text.
 *
 * Backends: backend=mariadb through libmariadb (sql_mariadb.c: a mariadbd
 * spawned for the run, or an existing server), backend=sqlite embedded
 * (sql_sqlite.c); backend=auto is mariadb where mariadbd is installed and
 * the client library is built in, else sqlite. Each client is its own
 * connection, opened in its worker, so as=processes works as threads do.
 *
 * One op is a row (counter mode: an increment); a latency is one statement
 * (counter mode: the upsert and its SELECT), a COMMIT's own time is the
 * commit_time metric. Verify: COUNT(*) equals the rows committed (BLACKHOLE
 * stores nothing: 0); counter mode: SUM(cnt) equals the increments. A
 * transaction that the server rolls back (an InnoDB deadlock) is counted as
 * a deadlock error and its rows as lost, and verify expects them gone.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_config.h"
#include "core/clock.h"
#include "engines/workload.h"
#include "workloads/sql.h"

static const char *const backend_choices[] = { "auto", "sqlite", "mariadb", NULL };
static const char *const mode_choices[] = { "insert", "counter", NULL };
const char *const sql_engine_names[] = { "default", "memory", "innodb", "myisam", "aria",
					 "blackhole", NULL };
static const char *const insert_choices[] = { "plain", "delayed", "ignore", NULL };
static const char *const journal_choices[] = { "delete", "wal", "memory", "off", NULL };
static const char *const sync_choices[] = { "full", "normal", "off", NULL };
static const char *const flush_choices[] = { "1", "0", "2", NULL };

/* commit=end|each|every:N; N rows per transaction (0: end, UINT64_MAX: each). */
static int parse_commit(const char *text, uint64_t *every)
{
	char *end;
	unsigned long long n;

	if (strcmp(text, "end") == 0) {
		*every = 0;
		return 0;
	}
	if (strcmp(text, "each") == 0) {
		*every = UINT64_MAX;
		return 0;
	}
	if (strncmp(text, "every:", 6) != 0 || text[6] < '1' || text[6] > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(text + 6, &end, 10);
	if (errno || *end || n == 0 || n > 1000000000ull)
		return -EINVAL;
	*every = n;
	return 0;
}

static int check_commit(const char *text, struct bt_err *err)
{
	uint64_t every;

	if (parse_commit(text, &every) < 0)
		return bt_err_set(err, -EINVAL,
				  "commit=%s: must be end, each or every:N (N rows per transaction)",
				  text);
	return 0;
}

/* server=spawn, a Unix socket path, HOST or HOST:PORT. */
static int check_server(const char *text, struct bt_err *err)
{
	const char *colon = strrchr(text, ':');

	if (text[0] == '\0')
		return bt_err_set(err, -EINVAL, "server=: must be spawn, a socket path or HOST:PORT");
	if (text[0] != '/' && colon != NULL) {
		char *end;
		long port = strtol(colon + 1, &end, 10);

		if (colon == text || *end || port < 1 || port > 65535)
			return bt_err_set(err, -EINVAL, "server=%s: the port must be 1..65535", text);
	}
	return 0;
}

static const struct bt_param params[] = {
	[P_BACKEND] = { .name = "backend", .kind = BT_P_ENUM, .def = "auto",
			.choices = backend_choices,
			.help = "mariadb (libmariadb), sqlite (embedded), auto: mariadb where "
				"mariadbd is installed, else sqlite" },
	[P_MODE] = { .name = "mode", .kind = BT_P_ENUM, .def = "insert", .choices = mode_choices,
		     .help = "insert: rows into a one-column table; counter: upsert cnt+1 then "
			     "SELECT another key" },
	[P_ENGINE] = { .name = "engine", .kind = BT_P_ENUM, .def = "default",
		       .choices = sql_engine_names, .ticks = "memory,innodb,myisam",
		       .help = "MariaDB storage engine (default: InnoDB; myisam with "
			       "DELAY_KEY_WRITE=1); SQLite: default (a file) or memory (:memory:)" },
	[P_NROWS] = { .name = "nrows", .kind = BT_P_INT, .def = "30000", .min = 1,
		      .max = 1000000000, .ticks = "1000,30000,100000",
		      .help = "rows inserted per rep (counter: increments), split over the clients" },
	[P_BATCH] = { .name = "batch", .kind = BT_P_INT, .def = "1", .min = 1, .max = 10000,
		      .ticks = "1,10,100,1000",
		      .help = "rows per INSERT statement (1: row by row; more: extended insert)" },
	[P_COMMIT] = { .name = "commit", .kind = BT_P_STRING, .def = "end", .check = check_commit,
		       .ticks = "end,each,every:100",
		       .help = "end: autocommit off, one COMMIT; each: autocommit on; every:N: "
			       "COMMIT every N rows" },
	[P_INSERT] = { .name = "insert", .kind = BT_P_ENUM, .def = "plain",
		       .choices = insert_choices,
		       .help = "INSERT, INSERT DELAYED (MariaDB: MyISAM/MEMORY only, else run "
			       "as plain and said so) or INSERT IGNORE" },
	[P_PREPARED] = { .name = "prepared", .kind = BT_P_BOOL, .def = "on",
			 .help = "prepared statements with bound values (off: values as text)" },
	[P_CLIENTS] = { .name = "clients", .kind = BT_P_INT, .def = "1", .min = 1, .max = 1000,
			.ticks = "1,2,4,8,32,200", .flags = BT_PF_WORKERS,
			.help = "concurrent clients, each its own connection" },
	[P_KEYS] = { .name = "keys", .kind = BT_P_INT, .def = "1000", .min = 2,
		     .max = 100000000, .help = "counter mode: distinct counters" },
	[P_JOURNAL] = { .name = "journal", .kind = BT_P_ENUM, .def = "delete",
			.choices = journal_choices,
			.help = "SQLite journal_mode: delete, wal, memory or off" },
	[P_SYNC] = { .name = "sync", .kind = BT_P_ENUM, .def = "full", .choices = sync_choices,
		     .help = "SQLite synchronous: full, normal or off" },
	[P_FLUSH] = { .name = "flush", .kind = BT_P_ENUM, .def = "1", .choices = flush_choices,
		      .help = "MariaDB innodb_flush_log_at_trx_commit: 1 (sync each commit), "
			      "0 or 2 (about once a second)" },
	[P_SERVER] = { .name = "server", .kind = BT_P_STRING, .def = "spawn",
		       .check = check_server,
		       .help = "MariaDB: spawn (a scratch mariadbd for the run), a socket path "
			       "or HOST:PORT (password: $MYSQL_PWD)" },
	[P_USER] = { .name = "user", .kind = BT_P_STRING, .def = "root",
		     .help = "MariaDB user for server=HOST:PORT|SOCKET" },
};

static const struct bt_metric metrics[] = {
	[M_COMMITS] = { .name = "commits", .unit = "commits", .kind = BT_MK_COUNTER,
			.help = "explicit COMMITs (commit=end, every:N)" },
	[M_COMMIT_TIME] = { .name = "commit_time", .unit = "ns", .kind = BT_MK_TIME,
			    .den = "commits", .help = "time in COMMIT, per commit" },
	[M_SERVER_CPU] = { .name = "server_cpu", .unit = "ns", .kind = BT_MK_TIME,
			   .help = "CPU time (user+sys) of the spawned mariadbd during the rep" },
	[M_TABLE] = { .name = "table_rows", .unit = "rows", .kind = BT_MK_GAUGE, .agg = BT_MA_MAX,
		      .help = "COUNT(*) (counter: SUM(cnt)) found by verify" },
	[M_COMMITTED] = { .name = "committed", .unit = "rows", .kind = BT_MK_GAUGE,
			  .agg = BT_MA_MAX, .help = "rows (counter: increments) the clients committed" },
	[M_STORED] = { .name = "stored_pct", .unit = "%", .kind = BT_MK_RATIO, .num = "table_rows",
		       .den = "committed",
		       .help = "share of what was committed that the table holds: 100 but for "
			       "BLACKHOLE, which stores nothing (0: its rows/s are rows sent)" },
	[M_LOST] = { .name = "rolled_back", .unit = "rows", .kind = BT_MK_COUNTER,
		     .help = "rows (increments) of transactions the server rolled back" },
	[M_DEADLOCK] = { .name = "deadlock", .unit = "errors", .kind = BT_MK_COUNTER, .error = 1,
			 .help = "transactions rolled back by a deadlock" },
	[M_DELAYED] = { .name = "delayed", .unit = "", .kind = BT_MK_GAUGE, .agg = BT_MA_MAX,
			.help = "1: INSERT DELAYED was used; 0 with insert=delayed: the engine "
				"refuses it, plain INSERT ran" },
	[M_BUFFER_POOL] = { .name = "buffer_pool", .unit = "bytes", .kind = BT_MK_GAUGE,
			    .agg = BT_MA_MAX, .help = "innodb_buffer_pool_size (SQLite: cache_size)" },
	[M_FLUSH] = { .name = "flush", .unit = "", .kind = BT_MK_GAUGE, .agg = BT_MA_MAX,
		      .help = "innodb_flush_log_at_trx_commit (SQLite: synchronous 0/1/2)" },
	[M_VERSION] = { .name = "version", .unit = "", .kind = BT_MK_GAUGE, .agg = BT_MA_MAX,
			.help = "server version: MariaDB 10.11.6 = 101106, SQLite 3.40.1 = 3040001" },
};

/* backend=auto: MariaDB where it can run here, else SQLite. */
static int backend_of(const struct bt_value *const *p)
{
	if (p[P_BACKEND]->i != B_AUTO)
		return (int)p[P_BACKEND]->i;
	return sql_mariadb_usable() ? B_MARIADB : B_SQLITE;
}

void sql_spec_of(const struct bt_value *const *p, struct sql_spec *s)
{
	uint64_t every = 0;

	memset(s, 0, sizeof(*s));
	s->backend = backend_of(p);
	s->mode = (int)p[P_MODE]->i;
	s->engine = (int)p[P_ENGINE]->i;
	if (s->backend == B_MARIADB && s->engine == E_DEFAULT)
		s->engine = E_INNODB;
	s->insert = (int)p[P_INSERT]->i;
	s->prepared = (int)p[P_PREPARED]->i;
	s->journal = (int)p[P_JOURNAL]->i;
	s->sync = (int)p[P_SYNC]->i;
	s->nrows = (uint64_t)p[P_NROWS]->i;
	s->batch = (uint64_t)p[P_BATCH]->i;
	s->keys = (uint64_t)p[P_KEYS]->i;
	parse_commit(p[P_COMMIT]->text, &every);
	s->commit_each = every == UINT64_MAX;
	s->commit_every = s->commit_each ? 0 : every;
	/* MariaDB 10.11 takes DELAYED for MyISAM and MEMORY (and BLACKHOLE); InnoDB and Aria refuse it (1616). */
	s->delayed = s->insert == I_DELAYED &&
		     (s->engine == E_MYISAM || s->engine == E_MEMORY || s->engine == E_BLACKHOLE);
}

static const char *sql_unavailable(void)
{
	const char *sq = sql_sqlite_missing(), *my = sql_mariadb_missing();

	if (sq == NULL || my == NULL)
		return NULL;
	return "built without SQLite and without the MariaDB client (apt install libsqlite3-dev "
	       "libmariadb-dev; then rebuild)";
}

/* Cross-parameter checks: what one backend means and the other does not. */
static int sql_check(const struct bt_value *const *p, struct bt_err *err)
{
	int backend = backend_of(p), engine = (int)p[P_ENGINE]->i;
	const char *why;

	if (backend == B_SQLITE) {
		if ((why = sql_sqlite_missing()) != NULL)
			return bt_err_set(err, -ENOTSUP, "backend=sqlite: %s", why);
		if (engine != E_DEFAULT && engine != E_MEMORY)
			return bt_err_set(err, -EINVAL,
					  "engine=%s has no SQLite meaning: SQLite has one storage "
					  "engine (engine=default: a database file; memory: :memory:)",
					  p[P_ENGINE]->text);
		if (engine == E_MEMORY && p[P_CLIENTS]->i > 1)
			return bt_err_set(err, -EINVAL,
					  "engine=memory on SQLite is one connection's :memory: "
					  "database: use clients=1 (or a file on tmpfs: TMPDIR=/dev/shm)");
		if (p[P_INSERT]->i == I_DELAYED)
			return bt_err_set(err, -EINVAL,
					  "insert=delayed has no SQLite meaning (plain or ignore)");
		if (p[P_FLUSH]->i != 0)
			return bt_err_set(err, -EINVAL,
					  "flush=%s is MariaDB's innodb_flush_log_at_trx_commit; "
					  "SQLite's is sync=", p[P_FLUSH]->text);
		if (strcmp(p[P_SERVER]->text, "spawn") != 0)
			return bt_err_set(err, -EINVAL, "server=%s: SQLite is embedded (backend=mariadb "
					  "for a server)", p[P_SERVER]->text);
	} else {
		if ((why = sql_mariadb_missing()) != NULL)
			return bt_err_set(err, -ENOTSUP, "backend=mariadb: %s", why);
		if (engine == E_BLACKHOLE && strcmp(p[P_SERVER]->text, "spawn") == 0 &&
		    (why = sql_mariadb_no_blackhole()) != NULL)
			return bt_err_set(err, -ENOTSUP, "engine=blackhole: %s", why);
		if (p[P_JOURNAL]->i != J_DELETE || p[P_SYNC]->i != S_FULL)
			return bt_err_set(err, -EINVAL,
					  "journal= and sync= are SQLite's; on MariaDB, flush= sets "
					  "innodb_flush_log_at_trx_commit");
	}
	if (p[P_MODE]->i == MODE_COUNTER && p[P_BATCH]->i != 1)
		return bt_err_set(err, -EINVAL, "batch=%s: counter mode runs one increment per "
				  "statement (batch=1)", p[P_BATCH]->text);
	if (p[P_MODE]->i == MODE_COUNTER && p[P_INSERT]->i != I_PLAIN)
		return bt_err_set(err, -EINVAL, "insert=%s: counter mode is an upsert (insert=plain)",
				  p[P_INSERT]->text);
	return 0;
}

/* The run level: SQLite's scratch directory and/or MariaDB's server, as the cells need. */
static int sql_run_setup(struct bt_run_ctx *run, struct bt_err *err)
{
	struct sql_run *sr = calloc(1, sizeof(*sr));
	int need_sqlite = 0, need_mariadb = 0, rc = 0;

	if (sr == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	for (int c = 0; c < run->ncells; c++) {
		if (backend_of(run->cells[c]) == B_SQLITE)
			need_sqlite = 1;
		else
			need_mariadb = 1;
	}
	if (need_sqlite && (rc = sql_sqlite_run_setup(&sr->sqlite, err)) < 0)
		goto out;
	if (need_mariadb && (rc = sql_mariadb_run_setup(run, &sr->mariadb, err)) < 0)
		goto out;
out:
	if (rc < 0) {
		sql_sqlite_run_teardown(sr->sqlite);
		free(sr);
	} else {
		run->state = sr;
	}
	return rc;
}

static void sql_run_teardown(struct bt_run_ctx *run)
{
	struct sql_run *sr = run->state;

	if (sr == NULL)
		return;
	sql_mariadb_run_teardown(sr->mariadb);
	sql_sqlite_run_teardown(sr->sqlite);
	free(sr);
	run->state = NULL;
}

static int sql_cell_setup(struct bt_job *cell, struct bt_err *err)
{
	if (backend_of(cell->params) == B_MARIADB)
		return sql_mariadb_cell_setup(cell, err);
	return 0;
}

static int sql_setup(struct bt_job *job, struct bt_err *err)
{
	struct sql_job *sj = calloc(1, sizeof(*sj));
	int rc;

	if (sj == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	sql_spec_of(job->params, &sj->spec);
	sj->nworkers = (int)bt_job_param(job, P_CLIENTS)->i;
	sj->sh = bt_job_shared_alloc(job, sizeof(*sj->sh) + sizeof(uint64_t) * (size_t)sj->nworkers);
	if (sj->sh == NULL) {
		free(sj);
		return bt_err_set(err, -ENOMEM, "out of memory");
	}
	sj->sh->mem_count = -1;
	if (sj->spec.backend == B_SQLITE) {
		sj->be = &sql_sqlite_backend;
		rc = sql_sqlite_setup(job, sj, err);
	} else {
		sj->be = &sql_mariadb_backend;
		rc = sql_mariadb_setup(job, sj, err);
	}
	if (rc < 0) {
		free(sj);
		return rc;
	}
	bt_job_metric(job, M_DELAYED, (uint64_t)sj->spec.delayed);
	job->state = sj;
	job->nworkers = sj->nworkers;
	job->total_ops = sj->spec.nrows;
	return 0;
}

static void sql_teardown(struct bt_job *job)
{
	struct sql_job *sj = job->state;

	if (sj == NULL)
		return;
	if (sj->spec.backend == B_SQLITE)
		sql_sqlite_teardown(job, sj);
	else
		sql_mariadb_teardown(job, sj);
	free(sj);
	job->state = NULL;
}

/* COUNT(*) (SUM(cnt)) against the rows (increments) the workers committed. */
static int sql_verify(struct bt_job *job, struct bt_err *err)
{
	struct sql_job *sj = job->state;
	const struct sql_spec *s = &sj->spec;
	const char *what = s->mode == MODE_COUNTER ? "SUM(cnt)" : "COUNT(*)";
	const char *things = s->mode == MODE_COUNTER ? "increments" : "rows";
	uint64_t want = 0;
	int64_t found = -1;
	int rc;

	for (int i = 0; i < sj->nworkers; i++)
		want += sj->sh->done[i];
	if (s->backend == B_SQLITE)
		rc = sql_sqlite_verify(job, sj, &found, err);
	else
		rc = sql_mariadb_verify(job, sj, &found, err);
	if (rc < 0)
		return rc;
	bt_job_metric(job, M_TABLE, found < 0 ? 0 : (uint64_t)found);
	bt_job_metric(job, M_COMMITTED, want);
	if (s->engine == E_BLACKHOLE) {
		if (found != 0)
			return bt_err_set(err, -EIO, "BLACKHOLE: %s = %" PRId64 ", want 0", what,
					  found);
		bt_err_set(err, 0, "BLACKHOLE stores nothing: %s = 0 after %" PRIu64 " %s", what,
			   want, things);
		return 0;
	}
	if (found < 0 || (uint64_t)found != want)
		return bt_err_set(err, -EIO, "%s = %" PRId64 ", want %" PRIu64 " %s committed", what,
				  found, want, things);
	bt_err_set(err, 0, "%s = %" PRIu64 " %s committed%s", what, want, things,
		   s->insert == I_DELAYED && !s->delayed
			   ? " (this engine refuses DELAYED, error 1616: plain INSERT ran)" : "");
	return 0;
}

/* ---- the worker --------------------------------------------------------- */

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

/* "INSERT [DELAYED|IGNORE|OR IGNORE] INTO t (field) VALUES " in the backend's dialect. */
static const char *insert_head(const struct sql_spec *s)
{
	if (s->insert == I_IGNORE)
		return s->backend == B_SQLITE ? "INSERT OR IGNORE INTO t (field) VALUES "
					      : "INSERT IGNORE INTO t (field) VALUES ";
	if (s->delayed)
		return "INSERT DELAYED INTO t (field) VALUES ";
	return "INSERT INTO t (field) VALUES ";
}

/* One INSERT of n rows: "(?),(?),..." or the values as text. */
static void insert_text(char *buf, const struct sql_spec *s, const int64_t *vals, uint64_t n)
{
	char *p = buf + strlen(strcpy(buf, insert_head(s)));

	for (uint64_t i = 0; i < n; i++) {
		if (s->prepared)
			p += sprintf(p, i ? ",(?)" : "(?)");
		else
			p += sprintf(p, i ? ",(%" PRId64 ")" : "(%" PRId64 ")", vals[i]);
	}
}

/* prepared=off: text with each ? replaced by the next value. */
static const char *subst(char *buf, const char *text, const int64_t *vals)
{
	char *p = buf;

	for (; *text; text++) {
		if (*text == '?')
			p += sprintf(p, "%" PRId64, *vals++);
		else
			*p++ = *text;
	}
	*p = '\0';
	return buf;
}

struct wstate {
	void *conn;
	void *st_full, *st_tail, *st_up, *st_sel;
	int64_t *vals;
	char *text;
};

static void wstate_free(struct sql_job *sj, struct wstate *ws)
{
	if (ws->conn != NULL)
		sj->be->close(ws->conn);	/* frees the cached statements too */
	free(ws->vals);
	free(ws->text);
}

/*
 * The extra latency channels: every statement (counter mode: the upsert and
 * its SELECT), not 1 in N like the main histogram, and every COMMIT, so that
 * the two have their own percentiles (a statement is microseconds, two clock
 * reads are noise beside it).
 */
enum { CH_STATEMENT = 1, CH_COMMIT = 2 };
static const char *const sql_lat_channels[] = { "statement", "commit", NULL };

/* COMMIT, timed into commit_time and the commit channel; the pending rows become committed. */
static enum sql_rc do_commit(struct bt_worker *w, struct sql_job *sj, struct wstate *ws,
			     uint64_t *pending, char *msg, size_t n)
{
	uint64_t t0 = bt_now_ns();
	enum sql_rc rc = sj->be->commit(ws->conn, msg, n);

	uint64_t dt = bt_now_ns() - t0;

	bt_worker_count(w, M_COMMIT_TIME, dt);
	bt_lat_record_ch(w, CH_COMMIT, dt);
	bt_worker_count(w, M_COMMITS, 1);
	if (rc == SQL_OK)
		sj->sh->done[w->id] += *pending;
	else if (rc == SQL_ROLLBACK) {
		bt_worker_error(w, M_DEADLOCK);
		bt_worker_count(w, M_LOST, *pending);
	}
	*pending = 0;
	return rc;
}

/*
 * One client: its share of nrows, batch rows per statement, committing as
 * commit= says. Fixed work: it ends when its share is done (or stop is
 * raised: Ctrl-C, another worker's failure).
 */
static int sql_worker(struct bt_worker *w)
{
	struct sql_job *sj = w->job->state;
	const struct sql_spec *s = &sj->spec;
	const struct sql_backend *be = sj->be;
	uint64_t left = s->nrows / (uint64_t)w->nworkers +
			((uint64_t)w->id < s->nrows % (uint64_t)w->nworkers);
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1), pending = 0;
	struct wstate ws = { 0 };
	char msg[BT_ERR_MAX] = "";
	int in_trx = 0, rc = 0;
	enum sql_rc r;

	ws.vals = calloc(s->batch, sizeof(*ws.vals));
	ws.text = malloc(256 + 24 * s->batch);
	if (ws.vals == NULL || ws.text == NULL) {
		rc = bt_worker_fail(w, "out of memory");
		goto out;
	}
	ws.conn = be->open(w->job, w->id, msg, sizeof(msg));
	if (ws.conn == NULL) {
		rc = bt_worker_fail(w, "%s", msg);
		goto out;
	}
	while (left > 0 && !bt_worker_stop_raised(w)) {
		uint64_t n = left < s->batch ? left : s->batch, t, ts;

		if (!s->commit_each && !in_trx) {
			if ((r = be->begin(ws.conn, msg, sizeof(msg))) != SQL_OK) {
				rc = bt_worker_fail(w, "%s", msg);
				goto out;
			}
			in_trx = 1;
		}
		if (s->mode == MODE_COUNTER) {
			uint64_t k = rnd(&x) % s->keys;
			int64_t other = (int64_t)((k + 1 + rnd(&x) % (s->keys - 1)) % s->keys), got;

			ws.vals[0] = (int64_t)k;
			t = bt_lat_begin(w);
			ts = bt_now_ns();
			r = be->run(ws.conn, s->prepared ? &ws.st_up : NULL,
				    s->prepared ? be->upsert : subst(ws.text, be->upsert, ws.vals),
				    ws.vals, 1, NULL, msg, sizeof(msg));
			if (r == SQL_OK)
				r = be->run(ws.conn, s->prepared ? &ws.st_sel : NULL,
					    s->prepared ? be->select : subst(ws.text, be->select, &other),
					    &other, 1, &got, msg, sizeof(msg));
			bt_lat_end(w, t);
			bt_lat_record_ch(w, CH_STATEMENT, bt_now_ns() - ts);
		} else {
			for (uint64_t i = 0; i < n; i++)
				ws.vals[i] = (int64_t)(rnd(&x) >> 32);
			insert_text(ws.text, s, ws.vals, n);
			t = bt_lat_begin(w);
			ts = bt_now_ns();
			r = be->run(ws.conn, !s->prepared ? NULL : n == s->batch ? &ws.st_full : &ws.st_tail,
				    ws.text, ws.vals, (int)n, NULL, msg, sizeof(msg));
			bt_lat_end(w, t);
			bt_lat_record_ch(w, CH_STATEMENT, bt_now_ns() - ts);
		}
		if (r == SQL_FAIL) {
			rc = bt_worker_fail(w, "%s", msg);
			goto out;
		}
		left -= n;
		bt_worker_ops(w, n);
		if (r == SQL_ROLLBACK) {
			/* The server rolled the transaction back: its rows are gone. */
			bt_worker_error(w, M_DEADLOCK);
			bt_worker_count(w, M_LOST, pending + n);
			pending = 0;
			in_trx = 0;
			continue;
		}
		if (s->commit_each) {
			sj->sh->done[w->id] += n;
			continue;
		}
		pending += n;
		if (s->commit_every && pending >= s->commit_every) {
			in_trx = 0;
			if (do_commit(w, sj, &ws, &pending, msg, sizeof(msg)) == SQL_FAIL) {
				rc = bt_worker_fail(w, "%s", msg);
				goto out;
			}
		}
	}
	if (in_trx && do_commit(w, sj, &ws, &pending, msg, sizeof(msg)) == SQL_FAIL) {
		rc = bt_worker_fail(w, "%s", msg);
		goto out;
	}
	if (s->backend == B_SQLITE && s->engine == E_MEMORY) {
		/* A :memory: database is this connection's: count it before it goes. */
		int64_t found = -1;

		r = be->run(ws.conn, NULL, s->mode == MODE_COUNTER ? "SELECT COALESCE(SUM(cnt), 0) FROM c"
								  : "SELECT COUNT(*) FROM t",
			    NULL, 0, &found, msg, sizeof(msg));
		if (r != SQL_OK) {
			rc = bt_worker_fail(w, "%s", msg);
			goto out;
		}
		sj->sh->mem_count = found;
	}
out:
	wstate_free(sj, &ws);
	return rc;
}

static const char *const spawnable[] = { "mariadbd", NULL };

const struct bt_workload bt_wl_sql = {
	.name = "sql",
	.group = "db",
	.title = "SQL writes: insert speed by engine and commit mode, counters (MariaDB, SQLite)",
	.unit = "rows",
	.lat_what = "one statement (counter: upsert + SELECT); COMMIT in commit_time",
	.lat_channels = sql_lat_channels,
	.servers = spawnable,
	.params = params,
	.nparams = sizeof(params) / sizeof(params[0]),
	.metrics = metrics,
	.nmetrics = M_COUNT,
	.stop_default = NULL,
	.baseline = "engine=memory",
	.unavailable = sql_unavailable,
	.check = sql_check,
	.engines = BT_ENGINES_THREADS | BT_ENGINES_PROCESSES,
	.run_setup = sql_run_setup,
	.run_teardown = sql_run_teardown,
	.cell_setup = sql_cell_setup,
	.setup = sql_setup,
	.worker = sql_worker,
	.verify = sql_verify,
	.teardown = sql_teardown,
};
