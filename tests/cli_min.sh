#!/usr/bin/env bash
# cli_min.sh - a build without the optional libraries (meson -Dopenmp=disabled
# and the others disabled; ./dev test makes it in build-min): the stubbed
# workload still registers, `list` says why it is unavailable and what to
# install, `run` refuses it with exit 2 and one line; the rest still runs.
# usage: tests/cli_min.sh path/to/benchtop
set -u
BT=$1
T=$(mktemp -d /tmp/bt-cli-min.XXXXXX)
trap 'rm -rf "$T"' EXIT
export XDG_STATE_HOME="$T/state"
pass=0 failn=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { failn=$((failn + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && printf '  %s\n' "$2"; }

WHY="built without OpenMP (apt install libgcc-12-dev, or libomp-dev for clang; then rebuild with -Dopenmp=enabled)"

out=$("$BT" list); rc=$?
line=$(grep '^cipher ' <<<"$out")
[ $rc -eq 0 ] && [[ "$line" == *"[unavailable: $WHY]" ]] && ok "list: cipher unavailable, with the reason" ||
	bad "list: cipher unavailable" "$out"
n=$(grep -c 'unavailable' <<<"$out")
[ "$n" -eq 2 ] && ok "list: only cipher and sql are unavailable" || bad "list: only cipher and sql" "$out"
out=$("$BT" list cipher); rc=$?
[ $rc -eq 0 ] && grep -qxF "  UNAVAILABLE: $WHY" <<<"$out" && ok "list cipher: UNAVAILABLE line" ||
	bad "list cipher" "$out"

"$BT" run cipher >"$T/out" 2>"$T/err"; rc=$?
want="benchtop: cipher is unavailable: $WHY"
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ "$(cat "$T/err")" = "$want" ] && [ ! -s "$T/out" ]; then
	ok "run cipher: exit 2, one line"
else
	bad "run cipher" "rc=$rc err=$(cat "$T/err") out=$(cat "$T/out")"
fi
[ ! -d "$XDG_STATE_HOME/benchtop/sessions" ] || [ -z "$(ls -A "$XDG_STATE_HOME/benchtop/sessions")" ] &&
	ok "refused run records nothing" || bad "refused run records nothing"

# sql without SQLite and libmariadb: a stub that says what to install.
SQLWHY="built without SQLite and without the MariaDB client (apt install libsqlite3-dev libmariadb-dev; then rebuild)"
line=$(grep '^sql ' <<<"$("$BT" list)")
[[ "$line" == *"[unavailable: $SQLWHY]" ]] && ok "list: sql unavailable, with the reason" || bad "list: sql" "$line"
"$BT" run sql backend=sqlite >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(cat "$T/err")" = "benchtop: sql is unavailable: $SQLWHY" ] && ok "run sql: exit 2, one line" ||
	bad "run sql" "rc=$rc err=$(cat "$T/err")"

"$BT" run null ops=1000 reps=1 warmup=0 --no-record --format csv >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -q '^null,done,1,' "$T/out" && ok "null still runs" || bad "null still runs" "rc=$rc $(cat "$T/err")"

# kv: inproc runs without any client library; a network backend is refused in one line naming the package.
"$BT" run kv backend=inproc clients=4 iterations=50 reps=1 warmup=0 --no-record >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -q '200 keys read back\|sum 200 = 200 increments' "$T/out" && ok "kv inproc runs in a minimal build" ||
	bad "kv inproc runs in a minimal build" "rc=$rc $(cat "$T/err")"
for b in memcached:libmemcached-dev redis:libhiredis-dev gearman:libgearman-dev; do
	"$BT" run kv backend=${b%%:*} --no-record >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "apt install ${b#*:}" "$T/err"; then
		ok "kv backend=${b%%:*}: refused, naming ${b#*:}"
	else
		bad "kv backend=${b%%:*} refused" "rc=$rc err=$(cat "$T/err")"
	fi
done
# Without liburing, copy and convert still run; method=uring alone is refused with the package.
URING="method=uring: built without liburing (apt install liburing-dev; then rebuild with -Dliburing=enabled)"
for wl in copy convert; do
	"$BT" run $wl method=uring size=64K reps=1 warmup=0 dir="$T/scratch-$wl" --no-record >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && [ "$(cat "$T/err")" = "benchtop: $URING" ] && [ ! -e "$T/scratch-$wl" ]; then
		ok "run $wl method=uring: exit 2, the package named"
	else
		bad "run $wl method=uring" "rc=$rc err=$(cat "$T/err")"
	fi
	"$BT" run $wl method=rw size=64K reps=1 warmup=0 dir="$T/scratch-$wl" --no-record --format csv >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 0 ] && grep -q "^$wl,done,1," "$T/out" && [ ! -e "$T/scratch-$wl" ] &&
		ok "$wl method=rw still runs" || bad "$wl method=rw still runs" "rc=$rc $(cat "$T/err") $(cat "$T/out")"
done
"$BT" list copy | grep -q 'uring' && ok "list copy: uring listed" || bad "list copy: uring listed"

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
