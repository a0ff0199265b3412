/*
 * sql_mariadb.c - the sql workload's server backend: MariaDB through
 * libmariadb.
 *
 * server=spawn: a mariadbd of the run's own. mariadb-install-db makes a
 * scratch datadir (--auth-root-authentication-method=normal: root@localhost
 * with no password, so the clients log in through the Unix socket without
 * one), then mariadbd --no-defaults starts on a socket in the scratch
 * directory and a free port on 127.0.0.1, with a 64 MiB buffer pool, the
 * flush= setting and room for 1100 connections, through spawn.h: it is
 * waited on until its socket answers and stopped by PID at the run's end,
 * and its datadir removed. The grant tables stay on (no --skip-grant-tables):
 * authentication is real, and a wrong password is refused as it would be on
 * any server. As root, mariadbd needs --user=root.
 *
 * server=SOCKET|HOST[:PORT]: an existing server, user=, password from
 * $MYSQL_PWD (a parameter would be written into every recording). The run
 * works in a database of its own, benchtop_PID, which it creates (refusing
 * one that exists) and drops; it changes no global setting of a server it did
 * not start (flush= must then match the server's).
 *
 * One run, one server: the controller's connection (made in run_setup) makes
 * and drops the tables of each rep and counts them in verify; every client
 * opens its own connection in its worker (thread or process).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_config.h"
#include "core/which.h"
#include "workloads/sql.h"

#if BT_HAVE_MARIADB
#include <inttypes.h>
#include <pwd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mysql.h>

#include "core/pagecache.h"
#include "engines/spawn.h"

#define CONNECT_TIMEOUT_S 5
#define INIT_TIMEOUT_MS 120000
#define START_TIMEOUT_MS 60000
#define STOP_GRACE_MS 20000
#define BLACKHOLE_SO "/usr/lib/mysql/plugin/ha_blackhole.so"

static const char *const engine_sql[] = { "InnoDB", "MEMORY", "InnoDB", "MyISAM", "Aria",
					  "BLACKHOLE" };

struct my_run {
	struct bt_scratch sc;
	int have_sc;
	struct bt_spawn srv;		/* server=spawn */
	int spawned;
	char sock[4200];		/* where the clients connect: a socket, */
	char host[256];			/* or host and port */
	int port;
	char user[128], pwd[256];
	char db[64];
	int db_made;
	MYSQL *ctrl;
	int blackhole;			/* the server has the BLACKHOLE engine */
};

struct my_rep {
	struct bt_spawn_cpu cpu0;	/* the server's CPU at setup */
};

struct my_conn {
	MYSQL *m;
	MYSQL_STMT *st[4];
	int nst;
	MYSQL_BIND *bind;
	int nbind;
};

/* mariadbd lives in /usr/sbin, which a user's PATH often lacks. */
static int find_mariadbd(char *buf, size_t n)
{
	if (bt_which("mariadbd", buf, n) == 0)
		return 0;
	return bt_which("/usr/sbin/mariadbd", buf, n);
}

const char *sql_mariadb_missing(void)
{
	return NULL;
}

const char *sql_mariadb_no_blackhole(void)
{
	if (access(BLACKHOLE_SO, R_OK) == 0)
		return NULL;
	return "a spawned mariadbd loads BLACKHOLE from " BLACKHOLE_SO ", which Debian ships in "
	       "mariadb-server, not in mariadb-server-core (or give server= a server that has it)";
}

int sql_mariadb_usable(void)
{
	char path[4096];

	return find_mariadbd(path, sizeof(path)) == 0;
}

/* A connection to the run's server (db NULL: none chosen); NULL with msg set. */
static MYSQL *my_connect(const struct my_run *r, const char *db, char *msg, size_t n)
{
	unsigned int timeout = CONNECT_TIMEOUT_S;
	MYSQL *m = mysql_init(NULL);

	if (m == NULL) {
		snprintf(msg, n, "mariadb: out of memory");
		return NULL;
	}
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	if (mysql_real_connect(m, r->sock[0] ? NULL : r->host, r->user, r->pwd[0] ? r->pwd : NULL,
			       db, r->sock[0] ? 0 : (unsigned)r->port, r->sock[0] ? r->sock : NULL,
			       0) == NULL) {
		snprintf(msg, n, "mariadb: cannot connect to %s%s%.0d as %s: %s",
			 r->sock[0] ? r->sock : r->host, r->sock[0] ? "" : ":", r->sock[0] ? 0 : r->port,
			 r->user, mysql_error(m));
		mysql_close(m);
		return NULL;
	}
	return m;
}

/* Run SQL on the controller's connection, discarding any result; 0 or -EIO. */
static int ctrl_exec(struct my_run *r, const char *sql, struct bt_err *err)
{
	MYSQL_RES *res;

	if (mysql_query(r->ctrl, sql) != 0)
		return bt_err_set(err, -EIO, "mariadb: %s: %s", sql, mysql_error(r->ctrl));
	res = mysql_store_result(r->ctrl);
	mysql_free_result(res);
	return 0;
}

/* The first column of the first row of a query, as an integer; 0 or -EIO. */
static int ctrl_int(struct my_run *r, const char *sql, int64_t *out, struct bt_err *err)
{
	MYSQL_RES *res;
	MYSQL_ROW row;

	*out = -1;
	if (mysql_query(r->ctrl, sql) != 0 || (res = mysql_store_result(r->ctrl)) == NULL)
		return bt_err_set(err, -EIO, "mariadb: %s: %s", sql, mysql_error(r->ctrl));
	row = mysql_fetch_row(res);
	if (row != NULL && row[0] != NULL)
		*out = strtoll(row[0], NULL, 10);
	mysql_free_result(res);
	return 0;
}

/*
 * Run a program to its end (mariadb-install-db) through spawn.h, polling
 * for its exit: spawn.h has no blocking wait for a helper that ends.
 */
static int run_helper(const char *const *argv, const char *log, struct bt_err *err)
{
	struct timespec pause = { 0, 10 * 1000000 };
	struct bt_spawn s;
	char why[1024];
	int rc, waited = 0;

	rc = bt_spawn_start(&s, argv, NULL, log, err);
	if (rc < 0)
		return rc;
	while (bt_spawn_alive(&s) && waited < INIT_TIMEOUT_MS) {
		nanosleep(&pause, NULL);
		waited += 10;
	}
	if (!s.exited) {
		bt_spawn_stop(&s, 0);
		return bt_err_set(err, -ETIMEDOUT, "%s did not finish in %d s", argv[0],
				  INIT_TIMEOUT_MS / 1000);
	}
	if (WIFEXITED(s.status) && WEXITSTATUS(s.status) == 0)
		return 0;
	bt_spawn_describe(&s, why, sizeof(why));
	return bt_err_set(err, -EIO, "%s %s", argv[0], why);
}

/* Initialise a datadir and start mariadbd on it, retrying a port someone took meanwhile. */
static int spawn_server(struct my_run *r, struct bt_err *err)
{
	char datadir[4200], log[4200], bin[4096], a_data[4300], a_sock[4300], a_port[32],
		a_pid[4300], a_user[160] = "";
	const struct passwd *pw = geteuid() == 0 ? getpwuid(0) : NULL;
	int rc;

	if (find_mariadbd(bin, sizeof(bin)) < 0)
		return bt_err_set(err, -ENOENT, "server=spawn: mariadbd is not installed "
				  "(apt install mariadb-server-core)");
	rc = bt_scratch_create(&r->sc, NULL, "mariadb", err);
	if (rc < 0)
		return rc;
	r->have_sc = 1;
	snprintf(datadir, sizeof(datadir), "%s/data", r->sc.path);
	snprintf(log, sizeof(log), "%s/mariadbd.log", r->sc.path);
	snprintf(r->sock, sizeof(r->sock), "%s/sock", r->sc.path);
	snprintf(a_data, sizeof(a_data), "--datadir=%s", datadir);
	snprintf(a_sock, sizeof(a_sock), "--socket=%s", r->sock);
	snprintf(a_pid, sizeof(a_pid), "--pid-file=%s/mariadbd.pid", r->sc.path);
	if (pw != NULL)
		snprintf(a_user, sizeof(a_user), "--user=%s", pw->pw_name);
	if (strlen(r->sock) >= 108)
		return bt_err_set(err, -ENAMETOOLONG, "server=spawn: socket path too long: %s "
				  "(set TMPDIR to a shorter directory)", r->sock);
	{
		const char *argv[] = { "mariadb-install-db", "--no-defaults", a_data,
				       "--auth-root-authentication-method=normal", "--skip-test-db",
				       "--skip-name-resolve", a_user[0] ? a_user : NULL, NULL };

		rc = run_helper(argv, log, err);
		if (rc < 0)
			return rc;
	}
	for (int attempt = 0; attempt < 3; attempt++) {
		const char *argv[20];
		int a = 0;

		argv[a++] = bin;
		argv[a++] = "--no-defaults";	/* must come first: no /etc/mysql settings */
		argv[a++] = a_data;
		argv[a++] = a_sock;
		argv[a++] = a_port;
		argv[a++] = a_pid;
		argv[a++] = "--bind-address=127.0.0.1";
		argv[a++] = "--skip-name-resolve";
		argv[a++] = "--innodb-buffer-pool-size=64M";
		argv[a++] = "--max-connections=1100";
		argv[a++] = "--innodb-flush-log-at-trx-commit=1";
		if (access(BLACKHOLE_SO, R_OK) == 0)
			argv[a++] = "--plugin-load-add=ha_blackhole.so";
		if (a_user[0])
			argv[a++] = a_user;
		argv[a] = NULL;
		rc = bt_spawn_free_port(&r->port, err);
		if (rc < 0)
			return rc;
		snprintf(a_port, sizeof(a_port), "--port=%d", r->port);
		rc = bt_spawn_start(&r->srv, argv, r->sc.path, log, err);
		if (rc < 0)
			return rc;
		r->spawned = 1;
		rc = bt_spawn_wait_unix(&r->srv, r->sock, START_TIMEOUT_MS, err);
		if (rc == 0 || strstr(err->msg, "in use") == NULL)
			return rc;
		bt_spawn_stop(&r->srv, 0);
	}
	return rc;
}

/* server=: one value for the run's MariaDB cells, and one user. */
static int target_of(struct bt_run_ctx *run, const char **server, const char **user,
		     struct bt_err *err)
{
	*server = NULL;
	for (int c = 0; c < run->ncells; c++) {
		struct sql_spec s;

		sql_spec_of(run->cells[c], &s);
		if (s.backend != B_MARIADB)
			continue;
		if (*server == NULL) {
			*server = run->cells[c][P_SERVER]->text;
			*user = run->cells[c][P_USER]->text;
		} else if (strcmp(*server, run->cells[c][P_SERVER]->text) ||
			   strcmp(*user, run->cells[c][P_USER]->text)) {
			return bt_err_set(err, -EINVAL, "server= and user= take one value per run");
		}
	}
	return 0;
}

int sql_mariadb_run_setup(struct bt_run_ctx *run, void **state, struct bt_err *err)
{
	struct my_run *r = calloc(1, sizeof(*r));
	const char *server = NULL, *user = "root", *pwd;
	char msg[BT_ERR_MAX], sql[128];
	int64_t v;
	int rc;

	if (r == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	r->sc.dirfd = -1;
	*state = r;
	rc = target_of(run, &server, &user, err);
	if (rc < 0)
		goto out;
	if (mysql_library_init(0, NULL, NULL) != 0) {
		rc = bt_err_set(err, -EIO, "mariadb: cannot initialise the client library");
		goto out;
	}
	snprintf(r->user, sizeof(r->user), "%s", user);
	if (strcmp(server, "spawn") == 0) {
		snprintf(r->user, sizeof(r->user), "root");
		rc = spawn_server(r, err);
		if (rc < 0)
			goto out;
	} else if (server[0] == '/') {
		snprintf(r->sock, sizeof(r->sock), "%s", server);
	} else {
		const char *colon = strrchr(server, ':');

		snprintf(r->host, sizeof(r->host), "%.*s",
			 (int)(colon ? (size_t)(colon - server) : strlen(server)), server);
		r->port = colon ? atoi(colon + 1) : 3306;
	}
	if (!r->spawned && (pwd = getenv("MYSQL_PWD")) != NULL)
		snprintf(r->pwd, sizeof(r->pwd), "%s", pwd);
	r->ctrl = my_connect(r, NULL, msg, sizeof(msg));
	if (r->ctrl == NULL) {
		rc = bt_err_set(err, -ECONNREFUSED, "%s", msg);
		goto out;
	}
	snprintf(r->db, sizeof(r->db), "benchtop_%d", (int)getpid());
	snprintf(sql, sizeof(sql), "CREATE DATABASE %s", r->db);
	if ((rc = ctrl_exec(r, sql, err)) < 0)
		goto out;
	r->db_made = 1;
	if (mysql_select_db(r->ctrl, r->db) != 0) {
		rc = bt_err_set(err, -EIO, "mariadb: USE %s: %s", r->db, mysql_error(r->ctrl));
		goto out;
	}
	rc = ctrl_int(r, "SELECT COUNT(*) FROM information_schema.ENGINES WHERE ENGINE = "
			 "'BLACKHOLE' AND SUPPORT IN ('YES', 'DEFAULT')", &v, err);
	r->blackhole = v > 0;
out:
	if (rc < 0) {
		sql_mariadb_run_teardown(r);
		*state = NULL;
	}
	return rc;
}

void sql_mariadb_run_teardown(void *state)
{
	struct my_run *r = state;
	struct bt_err err;
	char sql[128];

	if (r == NULL)
		return;
	if (r->db_made) {
		snprintf(sql, sizeof(sql), "DROP DATABASE %s", r->db);
		ctrl_exec(r, sql, &err);
	}
	if (r->ctrl != NULL)
		mysql_close(r->ctrl);
	if (r->spawned)
		bt_spawn_stop(&r->srv, STOP_GRACE_MS);
	if (r->have_sc)
		bt_scratch_remove(&r->sc, &err);
	free(r);
}

static struct my_run *run_of(const struct bt_job *job)
{
	return ((struct sql_run *)job->run_state)->mariadb;
}

/* flush= on the spawned server (a dynamic global); an existing server's must match. */
int sql_mariadb_cell_setup(struct bt_job *cell, struct bt_err *err)
{
	struct my_run *r = run_of(cell);
	struct sql_spec s;
	const char *flush = bt_job_param(cell, P_FLUSH)->text;
	char sql[96];
	int64_t now;
	int rc;

	sql_spec_of(cell->params, &s);
	if (s.engine == E_BLACKHOLE && !r->blackhole)
		return bt_err_set(err, -ENOTSUP, "engine=blackhole: this mariadbd has no BLACKHOLE "
				  "engine (its plugin ha_blackhole.so comes with apt install "
				  "mariadb-server)");
	rc = ctrl_int(r, "SELECT @@innodb_flush_log_at_trx_commit", &now, err);
	if (rc < 0 || now == atoi(flush))
		return rc;
	if (!r->spawned)
		return bt_err_set(err, -EINVAL, "flush=%s: the server has "
				  "innodb_flush_log_at_trx_commit=%" PRId64 ", and benchtop does not "
				  "change a server it did not start", flush, now);
	snprintf(sql, sizeof(sql), "SET GLOBAL innodb_flush_log_at_trx_commit = %s", flush);
	return ctrl_exec(r, sql, err);
}

/* Fresh tables for the rep; the server's settings and CPU so far. */
int sql_mariadb_setup(struct bt_job *job, struct sql_job *sj, struct bt_err *err)
{
	struct my_run *r = run_of(job);
	const struct sql_spec *s = &sj->spec;
	struct my_rep *rep = calloc(1, sizeof(*rep));
	char sql[512];
	int64_t v;
	int rc;

	if (rep == NULL)
		return bt_err_set(err, -ENOMEM, "out of memory");
	if ((rc = ctrl_exec(r, "DROP TABLE IF EXISTS t, c", err)) < 0)
		goto out;
	if (s->mode == MODE_COUNTER)
		snprintf(sql, sizeof(sql),
			 "CREATE TABLE c (k INT UNSIGNED NOT NULL, cnt BIGINT UNSIGNED NOT NULL, "
			 "PRIMARY KEY %s(k)) ENGINE=%s%s",
			 s->engine == E_MEMORY ? "USING HASH " : "", engine_sql[s->engine],
			 s->engine == E_MYISAM ? " DELAY_KEY_WRITE=1" : "");
	else
		snprintf(sql, sizeof(sql), "CREATE TABLE t (field INT UNSIGNED NOT NULL) ENGINE=%s%s",
			 engine_sql[s->engine], s->engine == E_MYISAM ? " DELAY_KEY_WRITE=1" : "");
	if ((rc = ctrl_exec(r, sql, err)) < 0)
		goto out;
	bt_job_metric(job, M_VERSION, mysql_get_server_version(r->ctrl));
	if ((rc = ctrl_int(r, "SELECT @@innodb_buffer_pool_size", &v, err)) < 0)
		goto out;
	bt_job_metric(job, M_BUFFER_POOL, v < 0 ? 0 : (uint64_t)v);
	if ((rc = ctrl_int(r, "SELECT @@innodb_flush_log_at_trx_commit", &v, err)) < 0)
		goto out;
	bt_job_metric(job, M_FLUSH, v < 0 ? 0 : (uint64_t)v);
	if (r->spawned)
		bt_spawn_cpu(&r->srv, &rep->cpu0);
out:
	if (rc < 0)
		free(rep);
	else
		sj->be_rep = rep;
	return rc;
}

int sql_mariadb_verify(struct bt_job *job, struct sql_job *sj, int64_t *found, struct bt_err *err)
{
	struct my_run *r = run_of(job);
	struct my_rep *rep = sj->be_rep;
	struct bt_spawn_cpu cpu;
	int rc;

	/* Rows still in the INSERT DELAYED handler's queue are written before FLUSH TABLES ends. */
	if (sj->spec.delayed && (rc = ctrl_exec(r, "FLUSH TABLES t", err)) < 0)
		return rc;
	rc = ctrl_int(r, sj->spec.mode == MODE_COUNTER ? "SELECT COALESCE(SUM(cnt), 0) FROM c"
						       : "SELECT COUNT(*) FROM t", found, err);
	if (rc < 0)
		return rc;
	if (r->spawned && bt_spawn_cpu(&r->srv, &cpu) == 0) {
		double s = cpu.user_s + cpu.sys_s - rep->cpu0.user_s - rep->cpu0.sys_s;

		bt_job_metric(job, M_SERVER_CPU, s > 0 ? (uint64_t)(s * 1e9) : 0);
	}
	return 0;
}

void sql_mariadb_teardown(struct bt_job *job, struct sql_job *sj)
{
	struct bt_err err;

	ctrl_exec(run_of(job), "DROP TABLE IF EXISTS t, c", &err);
	free(sj->be_rep);
	sj->be_rep = NULL;
}

/* ---- a client's connection ---------------------------------------------- */

static void *my_open(struct bt_job *job, int id, char *msg, size_t n)
{
	struct my_run *r = run_of(job);
	struct sql_job *sj = job->state;
	struct my_conn *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		snprintf(msg, n, "out of memory");
		return NULL;
	}
	c->m = my_connect(r, r->db, msg, n);
	if (c->m == NULL) {
		free(c);
		return NULL;
	}
	if (mysql_autocommit(c->m, sj->spec.commit_each) != 0) {
		snprintf(msg, n, "mariadb: SET autocommit: %s", mysql_error(c->m));
		mysql_close(c->m);
		free(c);
		return NULL;
	}
	return c;
}

static void my_close(void *conn)
{
	struct my_conn *c = conn;

	for (int i = 0; i < c->nst; i++)
		mysql_stmt_close(c->st[i]);
	mysql_close(c->m);
	free(c->bind);
	free(c);
}

/* An error's class: a deadlock rolled the transaction back; anything else fails the rep. */
static enum sql_rc my_fail(unsigned code, const char *what, const char *text, char *msg, size_t n)
{
	snprintf(msg, n, "mariadb: %s: %s (%u)", what, text, code);
	return code == 1213 ? SQL_ROLLBACK : SQL_FAIL;
}

static enum sql_rc my_begin(void *conn, char *msg, size_t n)
{
	return SQL_OK;	/* autocommit is off: the first statement starts the transaction */
}

static enum sql_rc my_commit(void *conn, char *msg, size_t n)
{
	struct my_conn *c = conn;

	if (mysql_commit(c->m) == 0)
		return SQL_OK;
	return my_fail(mysql_errno(c->m), "COMMIT", mysql_error(c->m), msg, n);
}

/* prepared=off: the text protocol (values in the text). */
static enum sql_rc my_query(struct my_conn *c, const char *text, int64_t *out, char *msg, size_t n)
{
	MYSQL_RES *res;
	MYSQL_ROW row;

	if (mysql_real_query(c->m, text, strlen(text)) != 0)
		return my_fail(mysql_errno(c->m), "query", mysql_error(c->m), msg, n);
	res = mysql_store_result(c->m);
	if (res == NULL)
		return mysql_field_count(c->m) == 0
			       ? SQL_OK
			       : my_fail(mysql_errno(c->m), "result", mysql_error(c->m), msg, n);
	row = mysql_fetch_row(res);
	if (out && row != NULL && row[0] != NULL)
		*out = strtoll(row[0], NULL, 10);
	mysql_free_result(res);
	return SQL_OK;
}

/* prepared=on: the binary protocol, the statement prepared once and its values bound. */
static enum sql_rc my_run(void *conn, void **stmt, const char *text, const int64_t *vals,
			  int nvals, int64_t *out, char *msg, size_t n)
{
	struct my_conn *c = conn;
	MYSQL_STMT *st;
	MYSQL_BIND rb;
	int64_t got = -1;
	int rc;

	if (out)
		*out = -1;
	if (stmt == NULL)
		return my_query(c, text, out, msg, n);
	st = *stmt;
	if (st == NULL) {
		if (c->nst == (int)(sizeof(c->st) / sizeof(c->st[0])) ||
		    (st = mysql_stmt_init(c->m)) == NULL) {
			snprintf(msg, n, "mariadb: out of statement handles");
			return SQL_FAIL;
		}
		c->st[c->nst++] = st;
		if (mysql_stmt_prepare(st, text, strlen(text)) != 0)
			return my_fail(mysql_stmt_errno(st), "prepare", mysql_stmt_error(st), msg, n);
		*stmt = st;
	}
	if (nvals > c->nbind) {
		MYSQL_BIND *b = realloc(c->bind, sizeof(*b) * (size_t)nvals);

		if (b == NULL) {
			snprintf(msg, n, "out of memory");
			return SQL_FAIL;
		}
		c->bind = b;
		c->nbind = nvals;
	}
	memset(c->bind, 0, sizeof(*c->bind) * (size_t)nvals);
	for (int i = 0; i < nvals; i++) {
		c->bind[i].buffer_type = MYSQL_TYPE_LONGLONG;
		c->bind[i].buffer = (void *)&vals[i];
	}
	if (mysql_stmt_bind_param(st, c->bind) != 0 || mysql_stmt_execute(st) != 0)
		return my_fail(mysql_stmt_errno(st), "execute", mysql_stmt_error(st), msg, n);
	if (mysql_stmt_field_count(st) == 0)
		return SQL_OK;
	memset(&rb, 0, sizeof(rb));
	rb.buffer_type = MYSQL_TYPE_LONGLONG;
	rb.buffer = &got;
	if (mysql_stmt_bind_result(st, &rb) != 0)
		return my_fail(mysql_stmt_errno(st), "bind", mysql_stmt_error(st), msg, n);
	while ((rc = mysql_stmt_fetch(st)) == 0)
		if (out && *out < 0)
			*out = got;
	mysql_stmt_free_result(st);
	if (rc == 1)
		return my_fail(mysql_stmt_errno(st), "fetch", mysql_stmt_error(st), msg, n);
	return SQL_OK;
}

const struct sql_backend sql_mariadb_backend = {
	.open = my_open,
	.close = my_close,
	.begin = my_begin,
	.commit = my_commit,
	.run = my_run,
	.upsert = "INSERT INTO c (k, cnt) VALUES (?, 1) ON DUPLICATE KEY UPDATE cnt = cnt + 1",
	.select = "SELECT cnt FROM c WHERE k = ?",
};

#else /* !BT_HAVE_MARIADB: a stub that says why */

const char *sql_mariadb_missing(void)
{
	return "built without the MariaDB client (apt install libmariadb-dev; then rebuild)";
}

const char *sql_mariadb_no_blackhole(void)
{
	return NULL;	/* backend=mariadb is refused first (sql_mariadb_missing) */
}

int sql_mariadb_usable(void)
{
	return 0;
}

static void *my_open(struct bt_job *job, int id, char *msg, size_t n)
{
	snprintf(msg, n, "%s", sql_mariadb_missing());
	return NULL;
}

const struct sql_backend sql_mariadb_backend = { .open = my_open };

int sql_mariadb_run_setup(struct bt_run_ctx *run, void **state, struct bt_err *err)
{
	return bt_err_set(err, -ENOTSUP, "%s", sql_mariadb_missing());
}

void sql_mariadb_run_teardown(void *state)
{
}

int sql_mariadb_cell_setup(struct bt_job *cell, struct bt_err *err)
{
	return bt_err_set(err, -ENOTSUP, "%s", sql_mariadb_missing());
}

int sql_mariadb_setup(struct bt_job *job, struct sql_job *sj, struct bt_err *err)
{
	return bt_err_set(err, -ENOTSUP, "%s", sql_mariadb_missing());
}

int sql_mariadb_verify(struct bt_job *job, struct sql_job *sj, int64_t *found, struct bt_err *err)
{
	return bt_err_set(err, -ENOTSUP, "%s", sql_mariadb_missing());
}

void sql_mariadb_teardown(struct bt_job *job, struct sql_job *sj)
{
}

#endif
