#!/usr/bin/env bash
# tui_live.sh - what the live view shows beyond the main histogram, in tmux:
# a kv run's latency channels (incr, read: names, p50/p99 and counts; c puts
# each in the latency pane), the results' cell pane with the same blocks as
# the text report and exact counts, a replay showing what the recording has,
# an http run against a port that refuses (its errors by kind while it runs),
# a cold copy showing the residency its last rep began and ended with,
# and a click on a point of the scaling chart selecting its cell.
# usage: tests/tui_live.sh path/to/benchtop
set -u
BT=$(readlink -f "$1")
T=$(mktemp -d /tmp/bt-tui-live.XXXXXX)
PREFIX=bt-test-live
# shellcheck source=tests/tmux_lib.sh
. "$(dirname "$0")/tmux_lib.sh"
command -v python3 >/dev/null || { echo "SKIP - python3 is not installed"; exit 77; }

# start W H ARGS...: benchtop's workbench with these command-line settings, in a fresh tmux.
start() {
	local w=$1 h=$2; shift 2
	next_server
	# A settings folder per session: the last one saves its form as it exits.
	mkdir -p "$T/config$NSOCK/benchtop"
	: >"$T/config$NSOCK/benchtop/settings"
	tmux -L "$SOCK" -f /dev/null new-session -d -s bt -x "$w" -y "$h" \
		"env XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/config$NSOCK TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 sh -c 'cd $T; \"$BT\" $*; echo EXITED=\$?; sleep 600'"
	tmux -L "$SOCK" set-option -g -t bt window-size manual >/dev/null 2>&1
}
newest() { ls -t "$T"/state/benchtop/sessions/*.jsonl 2>/dev/null | head -1; }

# --- kv while it runs: the channels and the error kinds -----------------------
start 120 40 kv backend=inproc clients=2 duration=4s reps=1 warmup=0
check "kv workbench" "Parameters: kv"
keys r
check "live: no errors yet" "^ errors: none" 20
check "live: incr and read with p50, p99 and counts" \
	"incr p50 [0-9.]+[nmu]?s p99 [0-9.]+[nmu]?s n=[1-9][0-9]* \| read p50 [0-9.]+[nmu]?s p99 [0-9.]+[nmu]?s n=[1-9][0-9]*" 20
keys c
check "c: the latency pane shows incr" "┌─ Latency incr[ ,]" 10
keys c
check "c again: read" "┌─ Latency read[ ,]" 10
keys c
check "c again: the main histogram" "┌─ (Latency[ ,(]|backend=inproc)" 10
check "then the results" "Results: kv, complete" 30

# --- kv fixed work: exact counts in the results' cell pane, then a replay ---------
start 120 40 kv backend=inproc clients=3 iterations=50 reps=2 warmup=0
check "kv workbench (fixed work)" "Parameters: kv"
keys r
check "results: kv complete" "Results: kv, complete" 30
# 3 clients x 50 iterations per rep, two counted reps merged: 300 of each.
check "cell pane: incr with every percentile and its exact count" \
	"incr  p50 [0-9.]+[nmu]?s  p90 .* p99\.9 [0-9.]+[nmu]?s  max [0-9.]+[nmu]?s  n=300" 10
check "cell pane: read likewise" "read  p50 [0-9.]+[nmu]?s  p90 .*  n=300" 10
check "cell pane: the error kinds (none)" "errors: none" 10
rec=$(newest)
start 120 40 replay "$rec"
# The first rep's channels once it is fed, while the second plays (each is shown 1 s).
check "replay: the first rep's channels" "incr p50 [0-9.]+[nmu]?s p99 [0-9.]+[nmu]?s n=150 \| read .* n=150" 10
check "replay: errors, as recorded" "^ errors: none" 10
check "replay: ends on the results, same counts" "incr  p50 .* n=300" 15

# --- http against a port that refuses: the error kinds while it runs ---------------
dead=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start 120 40 http server=http://127.0.0.1:$dead/ users=2 duration=2s reps=1 warmup=0
check "http workbench" "Parameters: http"
keys r
check "live: connrefused counted, marked as growing" "^ errors: connrefused [1-9][0-9]*↑" 20
check "live: channels with nothing yet" "response: none yet \| connect: none yet" 10
check "the run fails, saying why" "no request got a reply \([0-9]+ failed: connrefused [0-9]+\)" 20

# --- a cold copy: the residency the last rep began and ended with, while it runs ----
start 120 40 copy method=rw cache=cold size=16M reps=400 warmup=0 "dir=$T/copy"
check "copy workbench" "Parameters: copy"
keys r
check "live: the last rep's residency, cold at the start, read in at the end" \
	"^ last rep: resident_pct 0\.0% resident_end_pct 100\.0%" 30
keys Escape
check "Esc ends it" "Results: copy, interrupted" 20

# --- a click on the scaling chart selects the cell of that point --------------------
start 100 30 null threads=1,2,4 ops=20000 reps=1 warmup=0
check "null workbench" "Parameters: null"
keys r
check "results with the scaling chart" "Scaling: median throughput vs threads" 30
check "cell 1 first" "Cell 1/3: threads=1" 10
read -r x y < <(where "4 threads")
[ -n "${x:-}" ] && click "$((x + 8))" "$((y - 1))"
check "click on the last point: threads=4" "Cell 3/3: threads=4" 10
read -r x y < <(where "└┬")
[ -n "${x:-}" ] && click "$((x + 1))" "$y"
check "click on the first point: threads=1" "Cell 1/3: threads=1" 10

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
