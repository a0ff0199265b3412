#!/usr/bin/env bash
# explore.sh - `benchtop explore` as a script drives it: changes as lines on
# stdin (a FIFO the test writes when the recording shows the segment it
# waits for), one line per finished segment, the recording's segments and
# changes exactly, show and export on it, a signal, usage errors.
# usage: tests/explore.sh path/to/benchtop
set -u
BT=$1
T=$(mktemp -d /tmp/bt-explore.XXXXXX)
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
export XDG_STATE_HOME="$T/state"
pass=0 failn=0
SLOW=1
case "$BT" in *asan* | *tsan*) SLOW=3 ;; esac

ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { failn=$((failn + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && printf '  %s\n' "$2"; }

# wait_rec FILE CELL N: until FILE holds N sample lines of segment CELL (or a deadline).
wait_rec() {
	local i n limit=$((200 * SLOW))
	for ((i = 0; i < limit; i++)); do
		n=$(grep -c "^{\"type\":\"sample\",\"cell\":$2," "$1" 2>/dev/null)
		[ "${n:-0}" -ge "$3" ] && return 0
		kill -0 "$PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# expect_err NAME WANT_STATUS WANT_STDERR_LINE -- ARGS...
expect_err() {
	local name=$1 want_rc=$2 want_msg=$3; shift 4
	"$BT" "$@" </dev/null >"$T/out" 2>"$T/err"; local rc=$?
	if [ "$rc" -ne "$want_rc" ] || [ "$(cat "$T/err")" != "$want_msg" ]; then
		bad "$name" "exit $rc (wanted $want_rc): $(cat "$T/err")"
	else
		ok "$name"
	fi
}

expect_err "explore a sweep" 2 "benchtop: threads=1,2: explore runs one setting at a time (give one value, then change it while it runs)" -- explore null threads=1,2
expect_err "explore as processes" 2 "benchtop: as=processes: explore runs the workers as threads" -- explore null as=processes
expect_err "explore no workload" 2 "benchtop: explore: which workload? (benchtop explore WORKLOAD [key=value ...] < changes)" -- explore
expect_err "explore bad value" 2 "benchtop: threads=0: must be 1..1024" -- explore null threads=0

# threads 1 -> 4 -> 2 from stdin, with a refused line between.
mkfifo "$T/in"
"$BT" explore null threads=1 sample=20ms lat_every=1 --record "$T/e.jsonl" <"$T/in" >"$T/out" 2>"$T/err" &
PID=$!
exec 3>"$T/in"
wait_rec "$T/e.jsonl" 0 2 || bad "segment 1 ran" "$(cat "$T/err")"
echo "threads=4" >&3
wait_rec "$T/e.jsonl" 1 2 || bad "segment 2 ran" "$(cat "$T/err")"
printf '# a comment\nbogus=1\nthreads=2\n' >&3
wait_rec "$T/e.jsonl" 2 2 || bad "segment 3 ran" "$(cat "$T/err")"
exec 3>&-
wait "$PID"; rc=$?; PID=
[ $rc -eq 0 ] && ok "explore ends at the end of its input: exit 0" || bad "explore exit" "rc=$rc $(cat "$T/err")"
grep -qx "benchtop: line 3: bogus: unknown parameter of null (see benchtop list null)" "$T/err" &&
	ok "a bad line is refused with one line naming it" || bad "bad line" "$(cat "$T/err")"
grep -qx "recorded: $T/e.jsonl" "$T/err" && ok "recorded: PATH" || bad "recorded line" "$(cat "$T/err")"
segs=$(grep '^segment ' "$T/out")
if [ "$(wc -l <<<"$segs")" -eq 3 ] && grep -Eq '^segment 1  threads=1  [0-9.]+[kMG]? ops/s  p50 [^ ]+  p99 [^ ]+  [0-9.]+s$' <<<"$segs" &&
   grep -q '^segment 2  threads=4  ' <<<"$segs" && grep -q '^segment 3  threads=2  ' <<<"$segs"; then
	ok "one line per finished segment: label, ops/s, p50, p99"
else
	bad "segment lines" "$segs"
fi
python3 - "$T/e.jsonl" <<'PY' && ok "recording: 3 segments, 2 changes, exact ops per segment, parked workers count nothing" || bad "recording content"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
h = lines[0]
assert h["type"] == "header" and h["explore"] is True and h["cells"] == [] and h["workers_axis"] == "threads", h
assert lines[-1]["type"] == "end" and lines[-1]["status"] == "complete", lines[-1]
segs = [l for l in lines if l["type"] == "segment"]
changes = [l for l in lines if l["type"] == "change"]
reps = [l for l in lines if l["type"] == "rep"]
cells = [l for l in lines if l["type"] == "cell"]
assert [s["cell"] for s in segs] == [0, 1, 2], segs
assert [s["settings"].split()[0] for s in segs] == ["threads=1", "threads=4", "threads=2"], segs
assert [(c["cell"], c["key"], c["value"]) for c in changes] == [(1, "threads", "4"), (2, "threads", "2")], changes
assert changes[-1]["plan"]["params"]["threads"] == [1, 2, 4], changes[-1]["plan"]
assert len(reps) == 3 and len(cells) == 3
for c, r in enumerate(reps):
    assert r["cell"] == c and r["ok"] and not r["warmup"], r
    assert len(r["workers"]) == [1, 4, 2][c], r["workers"]
    assert r["ops"] == sum(w["ops"] for w in r["workers"]), r
    last = [s for s in lines if s["type"] == "sample" and s["cell"] == c][-1]
    assert last["ops"] == r["ops"], (last, r)
# a change comes right before the segment it begins
order = [l["type"] for l in lines if l["type"] in ("segment", "change")]
assert order == ["segment", "change", "segment", "change", "segment"], order
PY
out=$("$BT" show "$T/e.jsonl")
if grep -q '^# explore: 3 segments; changes: [0-9.]*s threads=4, [0-9.]*s threads=2$' <<<"$out" &&
   grep -Eq '^threads=1 +[0-9.]+[nu]?s ' <<<"$out" && grep -Eq '^threads=4 +[0-9.]+[nu]?s ' <<<"$out" &&
   grep -Eq '^threads=2 +[0-9.]+[nu]?s ' <<<"$out"; then
	ok "show lists the segments as cells with their own percentiles"
else
	bad "show" "$out"
fi
"$BT" export "$T/e.jsonl" --format csv --out "$T/e.csv" 2>"$T/err" && [ "$(wc -l <"$T/e.csv")" -eq 4 ] &&
	ok "export: a csv row per segment" || bad "export csv" "$(cat "$T/err" "$T/e.csv")"
"$BT" sessions --dir "$T" | grep -Eq 'explore threads=1,2,4 .*work=0 +3/3 +complete' &&
	ok "sessions: an explore session with its values and segments" || bad "sessions" "$("$BT" sessions --dir "$T")"

# SIGINT ends it at the next boundary: exit 130, the recording complete.
mkfifo "$T/in2"
"$BT" explore null threads=2 sample=20ms --record "$T/s.jsonl" <"$T/in2" >"$T/out" 2>"$T/err" &
PID=$!
exec 4>"$T/in2"
wait_rec "$T/s.jsonl" 0 2 || bad "signal run started" "$(cat "$T/err")"
kill -INT "$PID"
wait "$PID"; rc=$?; PID=
exec 4>&-
python3 - "$T/s.jsonl" <<'PY' && [ $rc -eq 130 ] && ok "SIGINT: exit 130, the segment finished, recording complete" || bad "SIGINT" "rc=$rc $(cat "$T/err")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[-1]["type"] == "end" and lines[-1]["status"] == "complete", lines[-1]
assert sum(1 for l in lines if l["type"] == "rep") == 1
PY

# Hostile stdin: a 1 MB line is refused once (not once per buffer it fills), a
# binary line is refused without echoing its bytes; the run goes on to the next line.
{ head -c 1000000 /dev/zero | tr '\0' 'a'; printf '\nthr\001eads=4\nthreads=2\n'; } |
	"$BT" explore null threads=1 --no-record >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c 'longer than' "$T/err")" = 1 ] &&
   grep -qx 'benchtop: line 1: longer than 4096 bytes, ignored' "$T/err" &&
   grep -qx 'benchtop: line 2: not text (byte 0x01 at column 4), ignored' "$T/err" &&
   grep -q '^segment 2  threads=2  ' "$T/out"; then
	ok "hostile stdin: a long line refused once, a binary line refused unechoed, the next line applied"
else
	bad "hostile stdin" "rc=$rc $(head -c 600 "$T/err")"
fi

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
