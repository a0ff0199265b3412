#!/usr/bin/env bash
# tui_cost.sh - what the TUI costs while a run is on screen (a figure, not a test):
#   * CPU of the UI (main) thread, % of one core, over SECONDS of a null run
#     shown live at the given refresh (the main thread is the one whose tid
#     is the pid; workers, sampler and controller are other tasks)
#   * bytes per second the TUI writes to the terminal (what goes over SSH)
#   * null's throughput under the TUI vs headless (does the UI delay workers?)
# usage: bench/tui_cost.sh [path/to/benchtop] [SECONDS] [REFRESH_MS]
#        (default build/benchtop, 10 s, 250 ms)
set -euo pipefail
BT=$(readlink -f "${1:-build/benchtop}")
SECS=${2:-10}
REFRESH=${3:-250}
SOCK=bt-cost-$$
T=$(mktemp -d)
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT
command -v tmux >/dev/null || { echo "tui_cost: needs tmux" >&2; exit 1; }

RUN_S=$((SECS + 3))
HZ=$(getconf CLK_TCK)

# utime+stime (ticks) of task TID of process PID.
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/task/$2/stat"; }
now() { date +%s.%N; }

tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 40 \
	"env XDG_STATE_HOME=$T/state TERM=xterm-256color LANG=C.UTF-8 $BT --refresh $REFRESH null threads=1 duration=${RUN_S}s reps=1 warmup=0"
tmux -L "$SOCK" pipe-pane -o "cat > $T/tty.out"
for _ in $(seq 50); do tmux -L "$SOCK" capture-pane -p | grep -q "Parameters: null" && break; sleep 0.1; done
tmux -L "$SOCK" send-keys r
for _ in $(seq 50); do tmux -L "$SOCK" capture-pane -p | grep -q "Running null" && break; sleep 0.1; done
PID=$(tmux -L "$SOCK" list-panes -F '#{pane_pid}')
sleep 1	# measure a run in full swing, not its start

t0=$(now); u0=$(ticks "$PID" "$PID"); b0=$(stat -c %s "$T/tty.out")
declare -A w0
for d in /proc/"$PID"/task/*; do w0[${d##*/}]=$(ticks "$PID" "${d##*/}"); done
sleep "$SECS"
t1=$(now); u1=$(ticks "$PID" "$PID"); b1=$(stat -c %s "$T/tty.out")
echo "benchtop TUI, null threads=1 running, refresh ${REFRESH} ms, ${SECS} s measured, 120x40, UTF-8, 256 colours"
python3 - "$t0" "$t1" "$u0" "$u1" "$HZ" "$b0" "$b1" <<'EOF'
import sys
t0, t1, u0, u1, hz, b0, b1 = map(float, sys.argv[1:])
dt = t1 - t0
print(f"UI (main) thread CPU:   {100.0 * (u1 - u0) / hz / dt:6.2f} % of one core")
print(f"terminal output:        {(b1 - b0) / dt / 1024:6.2f} KiB/s")
EOF
for d in /proc/"$PID"/task/*; do
	tid=${d##*/}
	[ "$tid" = "$PID" ] && continue
	[ -n "${w0[$tid]:-}" ] || continue
	python3 -c "import sys; print(f'  other thread {sys.argv[1]:>7} ({sys.argv[4]}): {100.0 * (float(sys.argv[3]) - float(sys.argv[2])) / $HZ / $SECS:6.1f} %')" \
		"$tid" "${w0[$tid]}" "$(ticks "$PID" "$tid")" "$(cat "$d/comm")"
done
for _ in $(seq 300); do tmux -L "$SOCK" capture-pane -p | grep -q "Results: null" && break; sleep 0.1; done
tmux -L "$SOCK" send-keys q
for _ in $(seq 100); do [ -d "/proc/$PID" ] || break; sleep 0.1; done

# Throughput: the run under the TUI (from its recording) vs the same run headless.
rec=$(ls "$T"/state/benchtop/sessions/*.jsonl | head -1)
"$BT" run null threads=1 duration=${RUN_S}s reps=1 warmup=0 --no-record --quiet --format json >"$T/h.json"
python3 - "$rec" "$T/h.json" <<'EOF'
import json, sys
reps = [json.loads(l) for l in open(sys.argv[1]) if '"type":"rep"' in l]
tui = max((r["ops_s"] for r in reps), default=0.0)
head = json.load(open(sys.argv[2]))["cells"][0]["ops_s_median"]
print(f"null ops/s under the TUI: {tui:.4g}   headless: {head:.4g}   "
      f"({100.0 * (tui - head) / head:+.1f} %)")
EOF
