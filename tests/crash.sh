#!/usr/bin/env bash
# crash.sh - crash consistency: `benchtop run` killed with SIGKILL at 50
# random moments of a sweep. Every recording it leaves must open in show,
# compare and export, as interrupted (or complete when the kill came after
# the end), with every finished cell intact: its cell line agrees with its
# rep lines (the reader checks that) and export csv has a row per rep line.
# The random delay is the moment of the kill, not a synchronization.
# usage: tests/crash.sh path/to/benchtop [kills]
set -u
BT=$1
N=${2:-50}
T=$(mktemp -d /tmp/bt-crash.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 failn=0
bad() { failn=$((failn + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && printf '  %s\n' "$2"; }

RANDOM=${BT_CRASH_SEED:-4242}
for i in $(seq 1 "$N"); do
	f="$T/k$i.jsonl"
	"$BT" run null threads=1,2,3,4 duration=5ms reps=3 warmup=1 --quiet --record "$f" >/dev/null 2>&1 &
	pid=$!
	sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ -s "$f" ] || continue	# killed before the header: nothing to check
	if ! out=$(timeout 20 "$BT" show "$f" 2>&1 >/dev/null); then
		# A kill inside the first line leaves a torn header: refused with one line, never a hang.
		[ "$(head -c 1 "$f")" = "{" ] && [ "$(wc -l <"$f")" -eq 0 ] && { pass=$((pass + 1)); continue; }
		bad "kill $i: show" "$out"; continue
	fi
	timeout 20 "$BT" show "$f" --format json >"$T/j" 2>/dev/null
	if ! grep -q '"status": *"\(interrupted\|complete\)"' "$T/j"; then
		bad "kill $i: status" "$(head -c 300 "$T/j")"; continue
	fi
	if grep -q '"status": *"complete"' "$T/j" && ! tail -1 "$f" | grep -q '"type":"end"'; then
		bad "kill $i: complete without an end line"; continue
	fi
	timeout 20 "$BT" compare "$f" "$f" >/dev/null 2>&1 || { bad "kill $i: compare"; continue; }
	timeout 20 "$BT" export "$f" --format csv --out "$T/k$i.csv" >/dev/null 2>&1 || { bad "kill $i: export"; continue; }
	reps=$(grep -c '"type":"rep"' "$f")
	# A torn last line (no newline) is not a rep.
	if [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" != '\n' ] && tail -n 1 "$f" | grep -q '"type":"rep"'; then
		reps=$((reps - 1))
	fi
	rows=$(($(wc -l <"$T/k$i.csv") - 1))
	[ "$rows" -eq "$reps" ] || { bad "kill $i: csv has $rows rows, the file $reps rep lines"; continue; }
	pass=$((pass + 1))
done
echo "# $pass recordings checked, $failn failed"
[ $failn -eq 0 ]
