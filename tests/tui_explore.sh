#!/usr/bin/env bash
# tui_explore.sh - explore mode in the real TUI, in tmux: x on the workbench,
# threads changed 1 -> 4 -> 2 while it runs, the chart's markers, s saving
# the sweep of the values visited, q showing the segments' results; the
# recording then holds three segments with exact counts. At 80x24, locks
# with + three times and lock=spin from the picker (the acceptance path).
# Every step waits for what the screen shows, never for a guessed time.
# usage: tests/tui_explore.sh path/to/benchtop
set -u
BT=$(readlink -f "$1")
T=$(mktemp -d /tmp/bt-tuix.XXXXXX)
PREFIX=bt-testx
# shellcheck source=tests/tmux_lib.sh
. "$(dirname "$0")/tmux_lib.sh"

# start W H ARGS...: a fresh server with benchtop ARGS in it (no settings remembered).
start() {
	local w=$1 h=$2; shift 2
	next_server
	rm -rf "$T/state" "$T/config"
	mkdir -p "$T/config/benchtop"
	: >"$T/config/benchtop/settings"
	tmux -L "$SOCK" -f /dev/null new-session -d -s bt -x "$w" -y "$h" \
		"env XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/config TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 sh -c 'cd $T; \"$BT\" $*; echo EXITED=\$?; sleep 600'"
	tmux -L "$SOCK" set-option -g -t bt window-size manual >/dev/null 2>&1
}

recording() { ls "$T"/state/benchtop/sessions/*.jsonl 2>/dev/null | head -1; }

# --- null at 120x40: threads 1 -> 4 -> 2 -------------------------------------
start 120 40 null threads=1 sample=50ms lat_every=1
check "workbench on null" "Parameters: null"
keys x
check "x: explore mode" "Exploring null"
check "the first segment runs" "segment 1  [0-9.]+[kMG]? ops/s .* threads=1 "
check "the footer has the explore keys" "\+/- Threads .*c Change .*s Save plan .*q/Esc End +\? Help"
keys 4
check "a number asks for the thread count" "threads = 4"
keys Enter
check "threads=4: segment 2" "segment 2  .* threads=4 "
check "four threads running" "Ops per thread \(4\)" 20
keys 2 Enter
check "threads=2: segment 3" "segment 3  .* threads=2 " 20
check "two parked" "Ops per thread \(2, 2 parked\)" 20
check "the chart marks the change with its label" "│threads=2" 20
keys s
check "s asks where to save the sweep" "Save the sweep to: $T/config/benchtop/plans/null-explore\.json"
keys Enter
check "the sweep saved" "plan saved to $T/config/benchtop/plans/null-explore\.json"
python3 - "$T/config/benchtop/plans/null-explore.json" <<'PY' && ok "the plan sweeps the values visited" || bad "saved plan" "$(cat "$T/config/benchtop/plans/null-explore.json" 2>&1)"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["workload"] == "null" and p["params"]["threads"] == [1, 2, 4], p["params"]
PY
keys q
check "q: the results of the segments" "explore ended: 3 segments" 20
check "results: a row per thread count" "^│4 +\|" 10
rec=$(recording)
python3 - "$rec" <<'PY' && ok "recording: 3 segments, 2 changes, exact counts, parked workers count nothing" || bad "recording" "$rec: $(grep -c . "$rec" 2>&1)"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["explore"] is True and lines[-1]["status"] == "complete", (lines[0], lines[-1])
segs = [l for l in lines if l["type"] == "segment"]
changes = [(l["key"], l["value"]) for l in lines if l["type"] == "change"]
reps = [l for l in lines if l["type"] == "rep"]
assert len(segs) == 3 and len(reps) == 3 and changes == [("threads", "4"), ("threads", "2")], changes
for c, r in enumerate(reps):
    assert r["cell"] == c and r["ok"], r
    assert len(r["workers"]) == [1, 4, 2][c], r
    assert r["ops"] == sum(w["ops"] for w in r["workers"]), r
    last = [s for s in lines if s["type"] == "sample" and s["cell"] == c][-1]
    assert last["ops"] == r["ops"], (last, r)
PY
out=$("$BT" show "$rec" 2>&1)
for t in 1 4 2; do
	grep -Eq "^threads=$t +[0-9.]+[nu]?s +[0-9.]+[nu]?s" <<<"$out" || { bad "show: threads=$t with its percentiles" "$out"; continue; }
	ok "show: threads=$t with its percentiles"
done
keys F10
check "F10 quits" "EXITED=0"

# --- locks at 80x24: + three times, lock=spin from the picker ------------------
start 80 24 locks threads=1 sample=50ms
check "workbench on locks" "Parameters: locks"
keys x
check "explore locks" "segment 1  [0-9.]+[kMG]? updates/s"
keys +
check "+: two threads" "segment 2 .* threads=2 " 20
keys +
check "+: three threads" "segment 3 .* threads=3 " 20
keys +
check "+: four threads" "segment 4 .* threads=4 " 20
keys l
check "l: the lock picker" "lock to"
check "the picker marks the lock in use" "mutex  \(now\)"
keys Down Down Enter
check "lock=spin: segment 5" "segment 5 .* threads=4 lock=spin" 20
check "the chart labels the change" "│lock=spin" 20
check "80x24: the footer keeps ? Help" "\? Help"
keys Escape
check "Esc: the results of five segments" "explore ended: 5 segments" 20
rec=$(recording)
out=$("$BT" show "$rec" 2>&1)
n=0
for c in "threads=1 lock=mutex" "threads=2 lock=mutex" "threads=3 lock=mutex" "threads=4 lock=mutex" "threads=4 lock=spin"; do
	grep -Eq "^$c +[0-9.]+[nu]?s +[0-9.]+[nu]?s" <<<"$out" && n=$((n + 1))
done
[ $n -eq 5 ] && ok "show lists the five segments as cells with their own percentiles" || bad "show segments" "$out"
keys q
check "q quits" "EXITED=0"

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
