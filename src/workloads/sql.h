/*
 * sql.h - what the sql workload (sql.c) shares with its backends
 * (sql_sqlite.c, sql_mariadb.c). Private to src/workloads/sql*.c.
 *
 * sql.c owns the parameters, the checks and the worker loop; a backend is a
 * small table of connection operations (struct sql_backend) plus its run,
 * cell and rep hooks. The worker loop calls only the connection operations,
 * so the commit logic, the counting of rolled-back rows and the latencies
 * are written once.
 */
#ifndef BT_WORKLOADS_SQL_H
#define BT_WORKLOADS_SQL_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "engines/workload.h"

enum {
	P_BACKEND, P_MODE, P_ENGINE, P_NROWS, P_BATCH, P_COMMIT, P_INSERT, P_PREPARED,
	P_CLIENTS, P_KEYS, P_JOURNAL, P_SYNC, P_FLUSH, P_SERVER, P_USER, P_COUNT
};
enum { B_AUTO, B_SQLITE, B_MARIADB };
enum { MODE_INSERT, MODE_COUNTER };
enum { E_DEFAULT, E_MEMORY, E_INNODB, E_MYISAM, E_ARIA, E_BLACKHOLE };
enum { I_PLAIN, I_DELAYED, I_IGNORE };
enum { J_DELETE, J_WAL, J_MEMORY, J_OFF };
enum { S_FULL, S_NORMAL, S_OFF };

enum {
	M_COMMITS, M_COMMIT_TIME, M_SERVER_CPU, M_TABLE, M_COMMITTED, M_STORED, M_LOST, M_DEADLOCK,
	M_DELAYED, M_BUFFER_POOL, M_FLUSH, M_VERSION, M_COUNT
};

extern const char *const sql_engine_names[];	/* "default", "memory", ... (param choices) */

/* A statement's outcome, as the worker loop needs to know it. */
enum sql_rc {
	SQL_OK = 0,
	SQL_ROLLBACK,	/* the whole transaction was rolled back (deadlock) */
	SQL_FAIL,	/* anything else: the rep fails with the message */
};

/* What a rep runs, decoded from the cell's parameters once in setup. */
struct sql_spec {
	int backend;		/* B_SQLITE or B_MARIADB (auto resolved) */
	int mode, engine, insert, prepared, journal, sync;
	uint64_t nrows, batch, keys;
	int commit_each;	/* autocommit on */
	uint64_t commit_every;	/* rows per transaction; 0: one COMMIT at the end */
	int delayed;		/* insert=delayed and the engine takes DELAYED */
};

/* What every worker of a rep sees and writes (bt_job_shared_alloc memory). */
struct sql_shared {
	int64_t mem_count;	/* :memory: SQLite: the worker's own COUNT/SUM, -1 before */
	uint64_t done[];	/* [nworkers] rows (increments) committed by each worker */
};

struct sql_job {
	struct sql_spec spec;
	struct sql_shared *sh;
	const struct sql_backend *be;
	void *be_rep;		/* the backend's rep state (a database file's path) */
	int nworkers;
};

/* One open connection's operations; every call runs on the worker that opened it. */
struct sql_backend {
	/* Open a connection for worker id of job (in the worker); NULL with msg set. */
	void *(*open)(struct bt_job *job, int id, char *msg, size_t n);
	void (*close)(void *conn);
	/* Start a transaction (commit modes end and every:N); SQLite: BEGIN IMMEDIATE. */
	enum sql_rc (*begin)(void *conn, char *msg, size_t n);
	enum sql_rc (*commit)(void *conn, char *msg, size_t n);
	/*
	 * Run statement text (prepared off) or prepare it once and run it with
	 * vals bound (prepared on; *stmt caches the handle, freed by close).
	 * out, when not NULL, gets the first column of the first row (-1: none).
	 */
	enum sql_rc (*run)(void *conn, void **stmt, const char *text, const int64_t *vals,
			   int nvals, int64_t *out, char *msg, size_t n);
	/* The statement texts of this backend's dialect, with ? for values. */
	const char *upsert, *select;
};

extern const struct sql_backend sql_sqlite_backend;
extern const struct sql_backend sql_mariadb_backend;

/* Decode a cell's parameters (check has passed). */
void sql_spec_of(const struct bt_value *const *p, struct sql_spec *s);

/* Backend hooks, called by sql.c's hooks for the cells of their backend. */
int sql_sqlite_run_setup(void **state, struct bt_err *err);
void sql_sqlite_run_teardown(void *state);
int sql_sqlite_setup(struct bt_job *job, struct sql_job *sj, struct bt_err *err);
int sql_sqlite_verify(struct bt_job *job, struct sql_job *sj, int64_t *found, struct bt_err *err);
void sql_sqlite_teardown(struct bt_job *job, struct sql_job *sj);
const char *sql_sqlite_missing(void);

int sql_mariadb_run_setup(struct bt_run_ctx *run, void **state, struct bt_err *err);
void sql_mariadb_run_teardown(void *state);
int sql_mariadb_cell_setup(struct bt_job *cell, struct bt_err *err);
int sql_mariadb_setup(struct bt_job *job, struct sql_job *sj, struct bt_err *err);
int sql_mariadb_verify(struct bt_job *job, struct sql_job *sj, int64_t *found, struct bt_err *err);
void sql_mariadb_teardown(struct bt_job *job, struct sql_job *sj);
const char *sql_mariadb_missing(void);
/*
 * NULL when a spawned mariadbd can have the BLACKHOLE engine (its plugin
 * file is installed), else the one line that says which package has it.
 */
const char *sql_mariadb_no_blackhole(void);
/* 1 when a mariadbd binary is installed and the client library is built in. */
int sql_mariadb_usable(void);

/* The run's state: one slot per backend (sql.c's run_setup fills them). */
struct sql_run {
	void *sqlite;
	void *mariadb;
};

#endif
