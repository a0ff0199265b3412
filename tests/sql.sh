#!/usr/bin/env bash
# sql.sh - the sql workload against real databases, through the real binary.
#   SQLite: every journal x commit mode x mode, at 1 and 8 clients: exact
#     counts (verify fails the run otherwise; the table_rows metric is read
#     back too), :memory:, as=processes, refusals.
#   MariaDB (when mariadbd and the client library are here): one mariadbd
#     started by this test in a scratch datadir, used as an existing server
#     (server=SOCKET) for every engine x commit x mode at 1 and 8 clients;
#     nothing left in it afterwards; a wrong password and an unreachable
#     server fail fast with one line; then server=spawn once: no mariadbd
#     left, its datadir removed.
# usage: tests/sql.sh path/to/benchtop
set -u
BT=$(realpath "$1")
T=$(mktemp -d /tmp/bt-sql.XXXXXX)
SRV_PID=
cleanup() {
	[ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
export XDG_STATE_HOME="$T/state"
pass=0 failn=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { failn=$((failn + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && printf '  %s\n' "$2"; }

# csv_check FILE NROWS: every cell done, and table_rows + rolled_back == NROWS
# (rolled_back: increments of transactions an InnoDB deadlock undid).
csv_check() {
	awk -F, -v n="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ cells++
		  if ($col["state"] != "done") { print "not done: " $0; badn++; next }
		  t = $col["table_rows_rows_median"]; r = $col["rolled_back_rows_median"]
		  if (t + r != n) { print "cell " NR - 1 ": table_rows " t " + rolled_back " r " != " n; badn++ } }
		END { if (cells == 0) { print "no cells"; exit 1 } exit badn > 0 }' "$1"
}

# ---- SQLite -----------------------------------------------------------------
mkdir -p "$T/tmp"
if TMPDIR="$T/tmp" "$BT" run sql backend=sqlite journal=delete,wal,memory,off commit=end,each,every:7 \
	clients=1,8 mode=insert,counter sync=off nrows=400 keys=50 reps=1 warmup=0 --no-record \
	--format csv >"$T/sq.csv" 2>"$T/err"; then
	n=$(($(wc -l <"$T/sq.csv") - 1))
	msg=$(csv_check "$T/sq.csv" 400) && [ "$n" -eq 48 ] &&
		ok "sqlite: 4 journals x 3 commit modes x 2 modes x 1,8 clients: exact counts ($n cells)" ||
		bad "sqlite counts" "$n cells; $msg"
else
	bad "sqlite sweep" "$(cat "$T/err")"
fi
[ -z "$(ls -A "$T/tmp")" ] && ok "sqlite: scratch directory removed" || bad "sqlite scratch left" "$(ls -R "$T/tmp")"

"$BT" run sql backend=sqlite journal=wal sync=full,normal batch=1,100 prepared=on,off nrows=300 reps=1 \
	warmup=0 --no-record --format csv >"$T/sq2.csv" 2>"$T/err" && msg=$(csv_check "$T/sq2.csv" 300) &&
	ok "sqlite: sync x batch x prepared" || bad "sqlite sync x batch" "$(cat "$T/err") $msg"

"$BT" run sql backend=sqlite engine=memory mode=insert,counter nrows=500 reps=1 warmup=0 --no-record \
	--format csv >"$T/sq3.csv" 2>"$T/err" && msg=$(csv_check "$T/sq3.csv" 500) &&
	ok "sqlite: engine=memory (:memory:)" || bad "sqlite :memory:" "$(cat "$T/err") $msg"

"$BT" run sql backend=sqlite as=processes clients=4 mode=insert,counter sync=off nrows=400 reps=1 \
	warmup=0 --no-record --format csv >"$T/sq4.csv" 2>"$T/err" && msg=$(csv_check "$T/sq4.csv" 400) &&
	ok "sqlite: as=processes" || bad "sqlite processes" "$(cat "$T/err") $msg"

refuse() {	# refuse WANT ARGS...: exit 2, one line containing WANT
	local want=$1
	shift
	"$BT" run sql "$@" --no-record >"$T/out" 2>"$T/err"
	local rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF "$want" "$T/err" &&
		ok "refused: $*" || bad "refused: $*" "rc=$rc $(cat "$T/err")"
}
refuse "engine=innodb has no SQLite meaning" backend=sqlite engine=innodb
refuse "insert=delayed has no SQLite meaning" backend=sqlite insert=delayed
refuse "engine=memory on SQLite is one connection's :memory: database" backend=sqlite engine=memory clients=2
refuse "commit=every:0" backend=sqlite commit=every:0
refuse "counter mode runs one increment per statement" backend=sqlite mode=counter batch=10
refuse "fixed" backend=sqlite duration=1s
refuse "rows= names the axis that makes the table's rows; sql's row count is nrows= (nrows=30000)" backend=sqlite rows=30000

# ---- MariaDB ----------------------------------------------------------------
MARIADBD=$(command -v mariadbd || ls /usr/sbin/mariadbd 2>/dev/null)
if [ -z "$MARIADBD" ] || ! command -v mariadb-install-db >/dev/null ||
	"$BT" list sql | grep -q "built without the MariaDB client"; then
	echo "# skip MariaDB: mariadbd or the client library missing"
	echo "$pass passed, $failn failed"
	[ $failn -eq 0 ]
	exit
fi
USER_OPT=()
[ "$(id -u)" -eq 0 ] && USER_OPT=(--user=root)
# BLACKHOLE: its plugin is in mariadb-server, not mariadb-server-core. The test
# server loads it where it is installed, or from BT_MARIADB_PLUGIN_DIR (say, a
# `dpkg-deb -x` of mariadb-server's .deb, which installs nothing).
PLUGIN_DIR=${BT_MARIADB_PLUGIN_DIR:-/usr/lib/mysql/plugin}
BH_OPT=()
[ -r "$PLUGIN_DIR/ha_blackhole.so" ] && BH_OPT=(--plugin-dir="$PLUGIN_DIR" --plugin-load-add=ha_blackhole.so)
D="$T/my"
mkdir -p "$D"
t0=$(date +%s)
mariadb-install-db --no-defaults --datadir="$D/data" --auth-root-authentication-method=normal \
	--skip-test-db --skip-name-resolve "${USER_OPT[@]}" >"$D/init.log" 2>&1 ||
	{ bad "mariadb-install-db" "$(tail -5 "$D/init.log")"; exit 1; }
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$MARIADBD" --no-defaults --datadir="$D/data" --socket="$D/sock" --port="$PORT" \
	--bind-address=127.0.0.1 --skip-name-resolve --innodb-buffer-pool-size=64M \
	--max-connections=200 --innodb-flush-log-at-trx-commit=2 "${USER_OPT[@]}" "${BH_OPT[@]}" >"$D/log" 2>&1 &
SRV_PID=$!
for _ in $(seq 300); do [ -S "$D/sock" ] && break; sleep 0.1; done
[ -S "$D/sock" ] || { bad "mariadbd start" "$(tail -5 "$D/log")"; exit 1; }
ok "test server up in $(($(date +%s) - t0)) s"
dbs() { find "$D/data" -mindepth 1 -maxdepth 1 -type d -printf "%f\n" | sort; }
before=$(dbs)

if "$BT" run sql backend=mariadb server="$D/sock" flush=2 engine=memory,innodb,myisam,aria \
	commit=end,each,every:7 clients=1,8 mode=insert,counter nrows=400 keys=50 reps=1 warmup=0 \
	--no-record --format csv >"$T/my.csv" 2>"$T/err"; then
	n=$(($(wc -l <"$T/my.csv") - 1))
	msg=$(csv_check "$T/my.csv" 400) && [ "$n" -eq 48 ] &&
		ok "mariadb: 4 engines x 3 commit modes x 2 modes x 1,8 clients: exact counts ($n cells)" ||
		bad "mariadb counts" "$n cells; $msg"
else
	bad "mariadb sweep" "$(cat "$T/err")"
fi
"$BT" run sql backend=mariadb server="$D/sock" flush=2 engine=myisam,memory,innodb insert=delayed,ignore \
	batch=1,50 prepared=on,off as=processes clients=3 nrows=300 reps=1 warmup=0 --no-record \
	--format csv >"$T/my2.csv" 2>"$T/err" && msg=$(csv_check "$T/my2.csv" 300) &&
	ok "mariadb: delayed/ignore x batch x prepared, as=processes" || bad "mariadb delayed" "$(cat "$T/err") $msg"
# BLACKHOLE stores nothing: verify wants 0, and the row says so (stored_pct 0).
if [ ${#BH_OPT[@]} -gt 0 ]; then
	"$BT" run sql backend=mariadb server="$D/sock" flush=2 engine=blackhole mode=insert,counter \
		clients=1,8 nrows=200 keys=50 reps=1 warmup=0 --no-record --format csv >"$T/bh.csv" 2>"$T/err" &&
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
			{ n++; if ($col["state"] != "done" || $col["table_rows_rows_median"] != 0 ||
				   $col["committed_rows_median"] != 200 || $col["stored_pct_pct_median"] != 0) bad++ }
			END { exit !(n == 4 && bad == 0) }' "$T/bh.csv" &&
		ok "mariadb: BLACKHOLE x insert,counter x 1,8 clients: 200 committed, 0 stored, stored_pct 0" ||
		bad "mariadb blackhole" "$(cat "$T/err" "$T/bh.csv")"
else
	"$BT" run sql backend=mariadb server="$D/sock" flush=2 engine=blackhole reps=1 warmup=0 --no-record \
		>"$T/out" 2>"$T/err"
	grep -q "no BLACKHOLE engine.*mariadb-server" "$T/err" && ok "existing server without BLACKHOLE: one line naming the package" ||
		bad "existing server without BLACKHOLE" "$(cat "$T/err")"
fi
[ "$(dbs)" = "$before" ] && ok "existing server: no database left behind" ||
	bad "existing server: databases" "$(dbs)"

"$BT" run sql backend=mariadb server="$D/sock" flush=1 reps=1 --no-record >"$T/out" 2>"$T/err"
grep -q "does not change a server it did not start" "$T/err" && ok "existing server: flush= not changed" ||
	bad "existing server flush" "$(cat "$T/err")"

s=$(date +%s)
MYSQL_PWD=wrong "$BT" run sql backend=mariadb server=127.0.0.1:$PORT flush=2 reps=1 --no-record \
	>"$T/out" 2>"$T/err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "Access denied" "$T/err" &&
	[ $(($(date +%s) - s)) -lt 10 ] && ok "wrong password: fails fast, one line" ||
	bad "wrong password" "rc=$rc $(cat "$T/err")"
s=$(date +%s)
"$BT" run sql backend=mariadb server=127.0.0.1:1 reps=1 --no-record >"$T/out" 2>"$T/err"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "cannot connect to 127.0.0.1:1" "$T/err" &&
	[ $(($(date +%s) - s)) -lt 10 ] && ok "unreachable server: fails fast, one line" ||
	bad "unreachable server" "rc=$rc $(cat "$T/err")"
kill "$SRV_PID" && wait "$SRV_PID" 2>/dev/null
SRV_PID=

# server=spawn loads BLACKHOLE where its plugin is installed; else engine=blackhole is refused up front.
if [ ! -r /usr/lib/mysql/plugin/ha_blackhole.so ]; then
	refuse "which Debian ships in mariadb-server" backend=mariadb engine=memory,blackhole
fi

# server=spawn: one mariadbd for the run's cells, gone afterwards with its datadir.
mkdir -p "$T/spawn"
TMPDIR="$T/spawn" "$BT" run sql backend=mariadb engine=memory,innodb flush=1,2 nrows=300 reps=1 \
	warmup=0 --no-record --format csv >"$T/sp.csv" 2>"$T/err" && msg=$(csv_check "$T/sp.csv" 300) &&
	ok "server=spawn: 4 cells on one spawned server" || bad "server=spawn" "$(cat "$T/err") $msg"
left=$(grep -l "$T/spawn" /proc/[0-9]*/cmdline 2>/dev/null)
[ -z "$left" ] && ok "server=spawn: no mariadbd left" || bad "mariadbd left" "$left"
[ -z "$(ls -A "$T/spawn")" ] && ok "server=spawn: datadir removed" || bad "datadir left" "$(ls -A "$T/spawn")"

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
