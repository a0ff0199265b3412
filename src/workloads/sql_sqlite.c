/*
 * sql_sqlite.c - the sql workload's embedded backend: SQLite.
 *
 * engine=default is a database file in a scratch directory benchtop owns
 * (made once per run, a fresh file per rep, removed with its -journal, -wal
 * and -shm files); engine=memory is one connection's ":memory:" database
 * (clients=1: sql_check refuses more). journal= and sync= are the
 * connection's journal_mode and synchronous pragmas, set on every client's
 * connection (WAL is also recorded in the file itself).
 *
 * Several clients are several connections to one file, and SQLite lets one
 * write transaction run at a time: a writer takes the database's RESERVED
 * lock at BEGIN IMMEDIATE (commit=end, every:N) or at its first write
 * (commit=each), and the others wait in the busy handler (busy_timeout, 60
 * s) until the COMMIT releases it. So clients= measures the cost of that
 * handing over, never parallel writes; commit=end with clients=8 runs the
 * eight transactions one after the other. BEGIN IMMEDIATE, not a deferred
 * BEGIN, because a reader that later wants to write cannot wait for a writer
 * (SQLITE_BUSY at once, a deadlock the busy handler cannot resolve).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_config.h"
#include "workloads/sql.h"

#if BT_HAVE_SQLITE3
#include <sqlite3.h>

#include "core/pagecache.h"

#define BUSY_MS 60000

static const char *const journal_pragma[] = { "DELETE", "WAL", "MEMORY", "OFF" };
static const char *const sync_pragma[] = { "FULL", "NORMAL", "OFF" };
static const int sync_level[] = { 2, 1, 0 };

struct sq_run {
	struct bt_scratch sc;
	unsigned seq;		/* database files made so far */
};

struct sq_rep {
	int memory;		/* :memory: (engine=memory) */
	char path[4200];	/* the rep's database file */
};

const char *sql_sqlite_missing(void)
{
	return NULL;
}

int sql_sqlite_run_setup(void **state, struct bt_err *err)
{
	struct sq_run *r = calloc(1, sizeof(*r));
	int rc;

	if (r == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	r->sc.dirfd = -1;
	rc = bt_scratch_create(&r->sc, NULL, "sql", err);
	if (rc < 0) {
		free(r);
		return rc;
	}
	*state = r;
	return 0;
}

void sql_sqlite_run_teardown(void *state)
{
	struct sq_run *r = state;
	struct bt_err err;

	if (r == NULL)
		return;
	bt_scratch_remove(&r->sc, &err);
	free(r);
}

/* Run SQL text that returns no rows; 0 or -EIO with "sqlite: ..." in msg. */
static int sq_exec(sqlite3 *db, const char *sql, char *msg, size_t n)
{
	char *e = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &e) == SQLITE_OK)
		return 0;
	snprintf(msg, n, "sqlite: %s: %s", sql, e ? e : sqlite3_errmsg(db));
	sqlite3_free(e);
	return -EIO;
}

/*
 * Open a connection with the rep's pragmas; with create, also make the
 * table (the controller for a file, the one client for :memory:).
 */
static sqlite3 *sq_open(const struct sql_spec *s, const struct sq_rep *rep, int create, char *msg,
			size_t n)
{
	sqlite3 *db = NULL;
	char sql[160];
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;

	if (create || rep->memory)
		flags |= SQLITE_OPEN_CREATE;
	if (sqlite3_open_v2(rep->memory ? ":memory:" : rep->path, &db, flags, NULL) != SQLITE_OK) {
		snprintf(msg, n, "sqlite: %s: %s", rep->memory ? ":memory:" : rep->path,
			 db ? sqlite3_errmsg(db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(db, BUSY_MS);
	snprintf(sql, sizeof(sql), "PRAGMA journal_mode=%s; PRAGMA synchronous=%s",
		 journal_pragma[s->journal], sync_pragma[s->sync]);
	if (sq_exec(db, sql, msg, n) < 0)
		goto fail;
	if (create && sq_exec(db, s->mode == MODE_COUNTER
				      ? "CREATE TABLE c (k INTEGER PRIMARY KEY, cnt INTEGER NOT NULL)"
				      : "CREATE TABLE t (field INTEGER NOT NULL)",
			      msg, n) < 0)
		goto fail;
	return db;
fail:
	sqlite3_close(db);
	return NULL;
}

static void *sq_conn_open(struct bt_job *job, int id, char *msg, size_t n)
{
	struct sql_job *sj = job->state;

	return sq_open(&sj->spec, sj->be_rep, ((struct sq_rep *)sj->be_rep)->memory, msg, n);
}

static void sq_conn_close(void *conn)
{
	sqlite3 *db = conn;
	sqlite3_stmt *st;

	while ((st = sqlite3_next_stmt(db, NULL)) != NULL)
		sqlite3_finalize(st);
	sqlite3_close(db);
}

static enum sql_rc sq_fail(sqlite3 *db, const char *what, char *msg, size_t n)
{
	int code = sqlite3_extended_errcode(db);

	snprintf(msg, n, "sqlite: %s: %s%s", what, sqlite3_errmsg(db),
		 (code & 0xff) == SQLITE_BUSY ? " (busy_timeout 60 s passed)" : "");
	return SQL_FAIL;
}

static enum sql_rc sq_begin(void *conn, char *msg, size_t n)
{
	return sq_exec(conn, "BEGIN IMMEDIATE", msg, n) < 0 ? SQL_FAIL : SQL_OK;
}

static enum sql_rc sq_commit(void *conn, char *msg, size_t n)
{
	return sq_exec(conn, "COMMIT", msg, n) < 0 ? SQL_FAIL : SQL_OK;
}

/*
 * SQLite has no text protocol: prepared=off prepares the statement (values
 * in its text) every time, as sqlite3_exec would; prepared=on keeps one.
 */
static enum sql_rc sq_run(void *conn, void **stmt, const char *text, const int64_t *vals,
			  int nvals, int64_t *out, char *msg, size_t n)
{
	sqlite3 *db = conn;
	sqlite3_stmt *st = stmt ? *stmt : NULL;
	enum sql_rc rc = SQL_OK;
	int step;

	if (out)
		*out = -1;
	if (st == NULL && sqlite3_prepare_v2(db, text, -1, &st, NULL) != SQLITE_OK)
		return sq_fail(db, "prepare", msg, n);
	if (stmt) {
		*stmt = st;
		for (int i = 0; i < nvals; i++)
			sqlite3_bind_int64(st, i + 1, vals[i]);
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		if (out && *out < 0)
			*out = sqlite3_column_int64(st, 0);
	if (step != SQLITE_DONE)
		rc = sq_fail(db, "step", msg, n);
	if (stmt)
		sqlite3_reset(st);
	else
		sqlite3_finalize(st);
	return rc;
}

const struct sql_backend sql_sqlite_backend = {
	.open = sq_conn_open,
	.close = sq_conn_close,
	.begin = sq_begin,
	.commit = sq_commit,
	.run = sq_run,
	.upsert = "INSERT INTO c (k, cnt) VALUES (?, 1) ON CONFLICT (k) DO UPDATE SET cnt = cnt + 1",
	.select = "SELECT cnt FROM c WHERE k = ?",
};

/* A fresh database file (or :memory:) for the rep, its table made; the settings as metrics. */
int sql_sqlite_setup(struct bt_job *job, struct sql_job *sj, struct bt_err *err)
{
	struct sq_run *r = ((struct sql_run *)job->run_state)->sqlite;
	struct sq_rep *rep = calloc(1, sizeof(*rep));
	char msg[BT_ERR_MAX] = "";
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t cache = 0, page = 0;

	if (rep == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	rep->memory = sj->spec.engine == E_MEMORY;
	snprintf(rep->path, sizeof(rep->path), "%s/rep-%u.db", r->sc.path, r->seq++);
	sj->be_rep = rep;
	bt_job_metric(job, M_VERSION, (uint64_t)sqlite3_libversion_number());
	bt_job_metric(job, M_FLUSH, (uint64_t)sync_level[sj->spec.sync]);
	/* The page cache size: -N means N KiB, N means N pages. */
	db = sq_open(&sj->spec, rep, !rep->memory, msg, sizeof(msg));
	if (db == NULL) {
		sj->be_rep = NULL;
		free(rep);
		return bt_err_set(err, -EIO, "%s", msg);
	}
	if (sqlite3_prepare_v2(db, "PRAGMA cache_size", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		cache = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		page = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	bt_job_metric(job, M_BUFFER_POOL, (uint64_t)(cache < 0 ? -cache * 1024 : cache * page));
	sqlite3_close(db);
	return 0;
}

int sql_sqlite_verify(struct bt_job *job, struct sql_job *sj, int64_t *found, struct bt_err *err)
{
	struct sq_rep *rep = sj->be_rep;
	char msg[BT_ERR_MAX] = "";
	sqlite3 *db;
	enum sql_rc r;

	if (rep->memory) {
		*found = sj->sh->mem_count;
		return 0;
	}
	db = sq_open(&sj->spec, rep, 0, msg, sizeof(msg));
	if (db == NULL)
		return bt_err_set(err, -EIO, "%s", msg);
	r = sq_run(db, NULL, sj->spec.mode == MODE_COUNTER ? "SELECT COALESCE(SUM(cnt), 0) FROM c"
							   : "SELECT COUNT(*) FROM t",
		   NULL, 0, found, msg, sizeof(msg));
	sqlite3_close(db);
	return r == SQL_OK ? 0 : bt_err_set(err, -EIO, "%s", msg);
}

void sql_sqlite_teardown(struct bt_job *job, struct sql_job *sj)
{
	static const char *const suffix[] = { "", "-journal", "-wal", "-shm" };
	struct sq_rep *rep = sj->be_rep;
	char path[4300];

	if (rep == NULL)
		return;
	for (size_t i = 0; !rep->memory && i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", rep->path, suffix[i]);
		unlink(path);
	}
	free(rep);
	sj->be_rep = NULL;
}

#else /* !BT_HAVE_SQLITE3: a stub that says why */

const char *sql_sqlite_missing(void)
{
	return "built without SQLite (apt install libsqlite3-dev; then rebuild)";
}

static void *sq_conn_open(struct bt_job *job, int id, char *msg, size_t n)
{
	snprintf(msg, n, "%s", sql_sqlite_missing());
	return NULL;
}

const struct sql_backend sql_sqlite_backend = { .open = sq_conn_open };

int sql_sqlite_run_setup(void **state, struct bt_err *err)
{
	return bt_err_set(err, -ENOTSUP, "%s", sql_sqlite_missing());
}

void sql_sqlite_run_teardown(void *state)
{
}

int sql_sqlite_setup(struct bt_job *job, struct sql_job *sj, struct bt_err *err)
{
	return bt_err_set(err, -ENOTSUP, "%s", sql_sqlite_missing());
}

int sql_sqlite_verify(struct bt_job *job, struct sql_job *sj, int64_t *found, struct bt_err *err)
{
	return bt_err_set(err, -ENOTSUP, "%s", sql_sqlite_missing());
}

void sql_sqlite_teardown(struct bt_job *job, struct sql_job *sj)
{
}

#endif
