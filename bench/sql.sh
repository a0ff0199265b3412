#!/usr/bin/env bash
# bench/sql.sh - benchtop's sql insert mode against sysbench oltp_insert and
# mysqlslap --auto-generate-sql-load-type=write, on the same mariadbd (started
# here in a scratch datadir, stopped by PID) at the same concurrency, one
# after the other. Prints rows/s and client CPU per row of each, and the
# ratios. Autocommit on for all three (sysbench and mysqlslap commit every
# statement), InnoDB, innodb_flush_log_at_trx_commit=FLUSH.
# usage: bench/sql.sh [path/to/benchtop] [clients] [rows]   (env FLUSH=1)
set -eu
BT=$(realpath "${1:-build/benchtop}")
C=${2:-8}
N=${3:-20000}
FLUSH=${FLUSH:-1}
for p in sysbench mysqlslap mariadb-install-db; do
	command -v $p >/dev/null || { echo "$p is missing: apt install sysbench mariadb-client mariadb-server-core" >&2; exit 2; }
done
MARIADBD=$(command -v mariadbd || echo /usr/sbin/mariadbd)
T=$(mktemp -d /tmp/bt-bench-sql.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null && wait $PID 2>/dev/null; rm -rf "$T"' EXIT
U=(); [ "$(id -u)" -eq 0 ] && U=(--user=root)
mariadb-install-db --no-defaults --datadir="$T/data" --auth-root-authentication-method=normal \
	--skip-test-db "${U[@]}" >"$T/init.log" 2>&1
"$MARIADBD" --no-defaults --datadir="$T/data" --socket="$T/sock" --skip-networking \
	--innodb-buffer-pool-size=64M --innodb-flush-log-at-trx-commit="$FLUSH" "${U[@]}" >"$T/log" 2>&1 &
PID=$!
for _ in $(seq 300); do [ -S "$T/sock" ] && break; sleep 0.1; done
mariadb -S "$T/sock" -uroot -e "CREATE DATABASE sbtest"
# wall, user and sys of a command and its children (GNU time)
run() { /usr/bin/time -f "%e %U %S" -o "$T/time" "$@" >"$T/out" 2>&1; read -r W US SS <"$T/time"; }

# sysbench: events = rows (one INSERT each, k random in 1..100000), autocommit; prepare leaves one row.
PER=$((N / C))
mariadb -S "$T/sock" -uroot -e "DROP DATABASE sbtest; CREATE DATABASE sbtest"
sysbench oltp_insert --mysql-socket="$T/sock" --mysql-user=root --tables=1 --table-size=1 prepare >/dev/null
run sysbench oltp_insert --mysql-socket="$T/sock" --mysql-user=root --tables=1 --table-size=100000 \
	--threads="$C" --events="$N" --time=0 run
SB_ROWS=$(($(mariadb -S "$T/sock" -uroot -N -e "SELECT COUNT(*) FROM sbtest.sbtest1") - 1))
SB_RS=$(awk -v n="$SB_ROWS" -v w="$W" 'BEGIN { printf "%.0f", n / w }')
SB_CPU=$(awk -v n="$SB_ROWS" -v u="$US" -v s="$SS" 'BEGIN { printf "%.1f", (u + s) * 1e6 / n }')

# mysqlslap: auto-generated write load, C clients x PER queries each.
run mysqlslap --socket="$T/sock" --user=root --auto-generate-sql --auto-generate-sql-load-type=write \
	--concurrency="$C" --number-of-queries="$N" --iterations=1 --engine=innodb
MS_RS=$(awk -v n="$N" -v w="$W" 'BEGIN { printf "%.0f", n / w }')
MS_CPU=$(awk -v n="$N" -v u="$US" -v s="$SS" 'BEGIN { printf "%.1f", (u + s) * 1e6 / n }')

# benchtop: the same rows, autocommit, row by row, prepared.
export XDG_STATE_HOME="$T/state"
"$BT" run sql backend=mariadb server="$T/sock" flush="$FLUSH" engine=innodb commit=each clients="$C" \
	nrows="$N" reps=3 warmup=1 --no-record --format csv >"$T/bt.csv"
read -r BT_RS BT_CPU < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ printf "%.0f %.1f\n", $c["ops_s_median"], $c["cpu_s"] * 1e6 / ($c["ops_s_median"] * $c["wall_s"]) }' "$T/bt.csv")

echo "# InnoDB, autocommit, $C clients, $N rows, innodb_flush_log_at_trx_commit=$FLUSH; noisy shared machine"
printf '%-10s %10s %14s\n' tool rows/s "client us/row"
printf '%-10s %10s %14s\n' sysbench "$SB_RS" "$SB_CPU" mysqlslap "$MS_RS" "$MS_CPU" benchtop "$BT_RS" "$BT_CPU"
awk -v b="$BT_RS" -v s="$SB_RS" -v m="$MS_RS" 'BEGIN { printf "benchtop/sysbench %.2f  benchtop/mysqlslap %.2f (rows/s)\n", b / s, b / m }'
