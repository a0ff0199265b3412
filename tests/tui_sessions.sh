#!/usr/bin/env bash
# tui_sessions.sh - the TUI's sessions screen, replay, compare, re-run and
# --cast, driven in tmux like tests/tui.sh: keys in, the pane's text out,
# every check waits (with a deadline) for what a person would see.
# usage: tests/tui_sessions.sh path/to/benchtop
set -u
BT=$(readlink -f "$1")
T=$(mktemp -d /tmp/bt-tuis.XXXXXX)
PREFIX=bt-tuis
# shellcheck source=tests/tmux_lib.sh
. "$(dirname "$0")/tmux_lib.sh"
command -v python3 >/dev/null || { echo "SKIP - python3 is not installed"; exit 77; }
# The replay clock in the progress title: "3.2s/6.0s" -> 3.2
clock() { screen | grep -Eo '[0-9]+\.[0-9]s/[0-9]+\.[0-9]s' | head -1 | cut -d s -f 1; }

# start W H ARGS...: benchtop ARGS in a fresh tmux server, 80x24 TERM=xterm LANG=C
# unless W/H say otherwise; the recordings in $T/state are kept between sessions.
start() {
	local w=$1 h=$2; shift 2
	next_server
	tmux -L "$SOCK" -f /dev/null new-session -d -s bt -x "$w" -y "$h" \
		"env XDG_STATE_HOME=${STATE:-$T/state} XDG_CONFIG_HOME=$T/config TERM=xterm LANG=C LC_ALL=C sh -c 'trap : INT; cd $T; \"$BT\" $*; echo EXITED=\$?; stty -a | tr \" ;\" \"\\n\\n\" | grep -x -e echo -e icanon | tr \"\\n\" \" \"; echo; sleep 600'"
	tmux -L "$SOCK" set-option -g -t bt window-size manual >/dev/null 2>&1
}

D=$T/state/benchtop/sessions
mkdir -p "$D"
# Three recordings, oldest first: fast null, slow null (work=200), one locks.
"$BT" run null threads=1,2 ops=1000000 reps=5 warmup=0 --record "$D/a-fast.jsonl" --quiet >/dev/null 2>&1
"$BT" run null threads=1,2 ops=1000000 reps=5 warmup=0 work=200 --record "$D/b-slow.jsonl" --quiet >/dev/null 2>&1
"$BT" run locks threads=1 ops=1000 reps=1 warmup=0 --record "$D/c-locks.jsonl" --quiet >/dev/null 2>&1
[ "$(ls "$D"/*.jsonl | wc -l)" -eq 3 ] && ok "three recordings made headless" ||
	bad "three recordings made headless" "$(ls -l "$D")"

"$BT" replay </dev/null >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "which recording" "$T/err" &&
	ok "replay without a file: one line, exit 2" || bad "replay without a file" "rc=$rc $(cat "$T/err")"

# --- sessions, compare, replay, delete at 80x24, LANG=C, TERM=xterm ----------
start 80 24
check "workbench opens" "Parameters: pipeline"
check "footer names the sessions key" "o Sessions"
keys o
check "o: sessions screen, 3 listed" "Sessions: 3, 0 marked"
rows=$(screen | grep -Eo '20[0-9-]+T[0-9:]+Z +[a-z]+' | awk '{print $2}' | tr '\n' ' ')
[ "$rows" = "locks null null " ] && ok "newest first (locks, null, null)" || bad "newest first" "$rows
$(screen)"
check "the newest is selected" "^\|c-locks\.jsonl"
keys Down
check "Down: the slow null run" "^\|b-slow\.jsonl"
keys Down
check "Down: the fast null run" "^\|a-fast\.jsonl"
if screen | LC_ALL=C grep -q '[^ -~]'; then bad "LANG=C: ASCII only on the sessions screen" "$(screen)"
else ok "LANG=C: ASCII only on the sessions screen"; fi
keys f
check "f: filter on locks" "Sessions: 1 of 3, workload locks"
keys f
check "f again: filter on null" "Sessions: 2 of 3, workload null"
if screen | grep -q ' locks '; then bad "filter hides locks" "$(screen)"; else ok "filter hides locks"; fi
keys F / C-u loc Enter
check "/ searches" "Sessions: 1 of 3, search 'loc',"
keys / C-u "work=200" Enter
check "/ searches the plan's values" "Sessions: 1 of 3, search 'work=200',"
check "/ work=200: the slow run" "^\|  20.* null .*work=200"
keys / C-u "null threads=1,2" Enter
check "/ takes several words: every one in some field" "Sessions: 2 of 3, search 'null threads=1,2',"
keys F
check "F: filter off" "Sessions: 3, 0 marked"
keys s
check "s: sorted by workload" "Sessions: 3, 0 marked, by workload"
rows=$(screen | grep -Eo '20[0-9-]+T[0-9:]+Z +[a-z]+' | awk '{print $2}' | tr '\n' ' ')
[ "$rows" = "locks null null " ] && ok "sorted by workload: locks, null, null" || bad "sorted by workload" "$rows"
keys s s s s s
check "s around: back to time" "Sessions: 3, 0 marked -"
keys f f g Space Space
check "Space marks two" "Sessions: 2 of 3, workload null, 2 marked"
check "marked rows starred" "^\|\* 20.*null"
keys c
check "c: compare view" "Compare: 2 recordings"
check "compare: A is the older (fast) recording" "A: a-fast\.jsonl"
check "compare: plan difference first" "work: 0 -> 200"
check "compare: machine differences" "machine differences, A -> B: none"
check "compare: cell 1 slower" "^\|threads=1 +B .* slower "
check "compare: cell 2 slower" "^\|threads=2 +B .* slower "
want=$("$BT" compare "$D/a-fast.jsonl" "$D/b-slow.jsonl" | grep -E '^threads=1 ' | awk '{print $6}')
[ -n "$want" ] && screen | grep -Eq "^\|threads=1 +B .* $want " && ok "compare: ratio as the CLI's ($want)" ||
	bad "compare: ratio as the CLI's" "cli: $want
$(screen)"
keys Escape
check "Esc: back to the sessions" "Sessions: 2 of 3, workload null, 2 marked"

# Replay the slow recording (the first row of the filtered list).
keys g Enter
check "Enter: replay screen" "Replay b-slow\.jsonl +1x"
check "replay: throughput chart" "Throughput, ops/s"
check "replay: progress" "cell 1/2 rep [1-5]/5 +threads=1"
c1=$(clock)
check "replay: the clock moves" "Replay b-slow\.jsonl +1x +([1-9]|0\.[^0]|[0-9]+\.[0-9])" 5
for ((i = 0; i < 50 * SLOW; i++)); do c2=$(clock); [ "$c2" != "$c1" ] && break; sleep 0.1; done
[ "$c2" != "$c1" ] && ok "replay: time changes ($c1 -> $c2)" || bad "replay: time changes" "$(screen)"
keys Space
check "Space: paused" "Replay b-slow\.jsonl +paused"
p1=$(clock)
sleep 1
p2=$(clock)
[ -n "$p1" ] && [ "$p1" = "$p2" ] && ok "paused: the clock stands ($p1)" || bad "paused: the clock stands" "$p1 -> $p2"
keys ']'
check "]: seek to cell 2" "cell 2/2 rep 1/5 +threads=2"
check "]: still paused" "Replay b-slow\.jsonl +paused"
check "replay at cell 2: chart title" "Throughput, ops/s .*threads=2"
if screen | LC_ALL=C grep -q '[^ -~]'; then bad "LANG=C: ASCII only on the replay" "$(screen)"
else ok "LANG=C: ASCII only on the replay"; fi
keys '['
check "[: back to cell 1" "cell 1/2 rep 1/5 +threads=1"
keys ']' 8 Space
check "replay ends on the results screen" "Results: null, complete" 20
check "results of the recording" "^\|2 +\| +[0-9.]+[KM]?!? "
keys Escape
check "Esc: back to the sessions after the replay" "Sessions: 2 of 3, workload null"

# Delete: n keeps, y removes.
keys g d
check "d asks" "delete b-slow\.jsonl\? y/n"
keys n
check "n: kept" "kept b-slow\.jsonl"
[ -f "$D/b-slow.jsonl" ] && ok "n: the file is still there" || bad "n: the file is still there"
keys d
check "d asks again" "delete b-slow\.jsonl\? y/n"
keys y
check "y: deleted" "deleted b-slow\.jsonl"
[ ! -e "$D/b-slow.jsonl" ] && [ -f "$D/a-fast.jsonl" ] && [ -f "$D/c-locks.jsonl" ] &&
	ok "y: only that file is gone" || bad "y: only that file is gone" "$(ls "$D")"
check "the list has one null session left" "Sessions: 1 of 2, workload null"
keys q
check "q quits from the sessions" "EXITED=0"
check "terminal restored" "icanon echo|echo icanon"

# --- R: the recorded plan into the form, the machine differences, r runs it ---
python3 - "$D/a-fast.jsonl" "$D/m-other.jsonl" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
h = json.loads(lines[0])
h["machine"]["cpu_model"] = "Fake CPU 9000"
h["start_unix_ns"] += 10**12
open(sys.argv[2], "w").write("\n".join([json.dumps(h)] + lines[1:]) + "\n")
EOF
start 80 24 replay "$D/m-other.jsonl"
check "benchtop replay FILE opens the replay" "Replay m-other\.jsonl +1x"
keys Escape
check "Esc: the sessions screen" "^\|m-other\.jsonl"
keys R
check "R: the plan in the workbench form" "Parameters: null"
check "R: the recorded threads" "threads +\[x\]1 \[x\]2 \[ \]4"
check "R: the machine differences" "machine differs \(1\): cpu_model: Fake CPU 9000 -> "
n0=$(ls "$D"/*.jsonl | wc -l)
keys r
check "r runs the recorded plan" "Results: null, complete" 30
[ "$(ls "$D"/*.jsonl | wc -l)" -eq $((n0 + 1)) ] && ok "the re-run is recorded" ||
	bad "the re-run is recorded" "$(ls "$D")"
keys q
check "q quits after the re-run" "EXITED=0"

# --- replay shows the run as it was ------------------------------------------
"$BT" run pipeline threads=2 units=20000 reps=2 warmup=0 --record "$T/pipe.jsonl" --quiet >/dev/null 2>&1
"$BT" run null threads=1 duration=200ms reps=2 warmup=0 lat=off --record "$T/nolat.jsonl" --quiet >/dev/null 2>&1
start 120 40 replay "$T/pipe.jsonl"
check "replay: latencies on, none yet: no lat=off message" "[|│]no latencies yet +[|│]"
check "replay: per-thread bars of the counting workers only, as live" "Ops per thread \(2 counting of 5\)"
if screen | grep -q "lat=off"; then bad "replay: no lat=off with latencies on" "$(screen)"; else ok "replay: no lat=off with latencies on"; fi
keys q
check "replay quits" "EXITED=0"
start 120 40 replay "$T/nolat.jsonl"
check "replay of a lat=off recording says so" "lat=off: this run records no latencies"
keys q
check "lat=off replay quits" "EXITED=0"

# --- compare: heads in words, why an interval is missing, different workloads asked first ---
D2=$T/state2/benchtop/sessions
mkdir -p "$D2"
"$BT" run null threads=1 ops=100000 reps=1 warmup=0 --record "$D2/x-one.jsonl" --quiet >/dev/null 2>&1
"$BT" run locks threads=1 ops=1000 reps=1 warmup=0 --record "$D2/y-locks.jsonl" --quiet >/dev/null 2>&1
"$BT" run null threads=1 ops=100000 reps=1 warmup=0 --record "$D2/z-one.jsonl" --quiet >/dev/null 2>&1
STATE=$T/state2 start 120 40
check "compare scenario: workbench" "Parameters: pipeline"
keys o
check "compare scenario: sessions" "Sessions: 3, 0 marked"
keys g Space Space c
check "different workloads: asked first" "recordings of different workloads \(locks, null\): compare them anyway\? y/n"
check "different workloads: the footer says y/n" "y Compare +n Cancel"
keys n
check "n: not compared" "not compared"
keys g Space Space Space g Space
check "compare scenario: x and z marked" "Sessions: 3, 2 marked"
keys c
check "compare heads in words: A, B, B/A" "cell +vs +A ops/s +B ops/s +B/A +95% CI"
check "compare: the heads explained" "A is the base \(the oldest\); B/A is B's median throughput over A's"
check "compare: an interval of 1 rep says why" "^.threads=1 .* B .* 1 rep each "
if screen | grep -q "inf"; then bad "compare: no -inf..inf" "$(screen)"; else ok "compare: no -inf..inf"; fi
keys Escape
check "compare scenario: back to sessions" "Sessions: 3, 2 marked"
"$BT" run null threads=1 ops=1000 reps=1 warmup=0 --record "$D2/w-new.jsonl" --quiet >/dev/null 2>&1
check "a new recording appears in the open list" "Sessions: 4, 2 marked" 5
read -r x y < <(where "WORKLOAD")
click "$x" "$y"
check "mouse: a click on a column head sorts by it" "Sessions: 4, 2 marked, by workload"
read -r x y < <(where " locks ")
click "$x" "$y"
check "mouse: a click selects a session" "^\|y-locks\.jsonl"
wheel down "$x" "$y"
check "mouse: the wheel moves the selection" "^\|w-new\.jsonl"
keys q
check "compare scenario quits" "EXITED=0"

# --- --cast ------------------------------------------------------------------
start 160 24 --cast "$T/no/such/dir/x.cast"
check "--cast to a bad path: one line, exit 2" "benchtop: --cast $T/no/such/dir/x.cast: No such file or directory"
check "--cast bad path exit status" "EXITED=2"
start 100 30 --cast "$T/s.cast"
check "--cast: workbench" "Parameters: pipeline"
tmux -L "$SOCK" resize-window -t bt -x 90 -y 28
keys o
check "--cast: sessions screen" "Sessions: "
keys q
check "--cast: q quits" "EXITED=0"
check "--cast: terminal restored" "icanon echo|echo icanon"
if out=$(python3 - "$T/s.cast" <<'EOF'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
h = json.loads(lines[0])
assert h["version"] == 2 and h["width"] == 100 and h["height"] == 30, h
assert isinstance(h["timestamp"], int) and h["env"]["TERM"] == "xterm", h
t, n, text, resized = 0.0, 0, "", False
for l in lines[1:]:
    e = json.loads(l)
    assert isinstance(e, list) and len(e) == 3 and isinstance(e[0], (int, float)), e
    assert e[0] >= t, ("time goes back", t, e[0])
    t = e[0]
    if e[1] == "o":
        assert isinstance(e[2], str); n += 1; text += e[2]
    else:
        assert e[1] == "r" and e[2] == "90x28", e; resized = True
assert n > 2 and resized and "Sessions" in text and "\x1b[" in text
print(n, "output events")
EOF
); then ok "--cast: asciicast v2 ($out)"; else bad "--cast: asciicast v2" "$out $(head -c 400 "$T/s.cast")"; fi

echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
