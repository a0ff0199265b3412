#!/usr/bin/env bash
# tui.sh - the real benchtop TUI driven in tmux as a person drives it: keys
# in, the pane's text out. Each check waits (with a deadline) for what a
# person would see.
# usage: tests/tui.sh path/to/benchtop
set -u
BT=$(readlink -f "$1")
T=$(mktemp -d /tmp/bt-tui.XXXXXX)
PREFIX=bt-test
# shellcheck source=tests/tmux_lib.sh
. "$(dirname "$0")/tmux_lib.sh"

# start W H ENV...: a fresh tmux server with benchtop in it; the shell line
# after it prints the exit status and whether the tty is back in cooked mode.
start() {
	local w=$1 h=$2; shift 2
	next_server
	rm -rf "$T/state"
	# Not the first launch (that has its own scenario): the defaults, nothing remembered.
	case "${FIRST:-}" in
	"") mkdir -p "$T/config/benchtop"; : >"$T/config/benchtop/settings" ;;
	1) rm -f "$T/config/benchtop/settings" ;;
	esac
	tmux -L "$SOCK" -f /dev/null new-session -d -s bt -x "$w" -y "$h" \
		"env XDG_STATE_HOME=$T/state XDG_CONFIG_HOME=$T/config $* sh -c 'trap : INT; cd $T; \"$BT\" ${OPTS:-}; echo EXITED=\$?; stty -a | tr \" ;\" \"\\n\\n\" | grep -x -e echo -e icanon | tr \"\\n\" \" \"; echo; sleep 600'"
	tmux -L "$SOCK" set-option -g -t bt window-size manual >/dev/null 2>&1
}

# start_keep W H ENV...: as start, keeping the settings file as it is.
start_keep() { FIRST=keep start "$@"; }

# pipeline threads=1,2,4 units=U reps=2 warmup=0, typed into the form as a person would.
configure() {
	local units=$1
	keys Space Right Space                 # threads: 4 is ticked by default; tick 1 and 2
	keys Down Down Enter C-u "$units" Enter # units
	keys G Up Up Up Up Up Up Up Up Up Up Up Up Up Up Enter C-u 2 Enter  # reps (14 up from the Run button)
	keys Down Enter C-u 0 Enter            # warmup
}

recording() { ls "$T"/state/benchtop/sessions/*.jsonl 2>/dev/null | head -1; }

# --- without a terminal ---------------------------------------------------
"$BT" </dev/null >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "needs a terminal" "$T/err"; then
	ok "not a terminal: one line, exit 2"
else
	bad "not a terminal" "rc=$rc $(cat "$T/err")"
fi
"$BT" --refresh 5 </dev/null >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--refresh 5: must be 20..10000" "$T/err" && ok "--refresh checked" ||
	bad "--refresh checked" "rc=$rc $(cat "$T/err")"

"$BT" --help >"$T/out" 2>&1
grep -q "^the workbench" "$T/out" && grep -q -- "--refresh MS" "$T/out" && grep -q "benchtop replay RECORDING" "$T/out" &&
	grep -q "benchtop/settings" "$T/out" && ok "--help describes the workbench" || bad "--help describes the workbench" "$(cat "$T/out")"

# --- the whole path at 120x40, UTF-8, 256 colours -----------------------------
start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "opens on the workbench with pipeline" "Parameters: pipeline"
check "form focused on threads" "^..+>threads +\[ \]1 \[ \]2 \[x\]4"
check "footer shows the keys" "F1 Help +\? Detail +Tab Pane +Enter Edit +Space Toggle +r Run"

# An invalid value shows the CLI's message inline.
want=$("$BT" run pipeline units=0 2>&1 >/dev/null | sed 's/^benchtop: //')
keys Down Down Enter C-u 0
check "invalid value: the CLI's message inline" "$(printf '%s' "$want" | sed 's/[].[*^$()+?{}|]/\\&/g')"
keys Escape Up Up

configure 50000
check "ticks threads 1,2,4" "threads +\[x\]1 \[x\]2 \[x\]4 \[ \]8"
check "units typed" "units +50000"
check "sweep summary" "3 cells x \(0 warmup \+ 2 reps\) = 6 runs"
keys r
check "live view: throughput chart" "Throughput, items/s" 20
check "live view: chart y axis in SI units" "[0-9.]+[KM]?┤" 20
check "live view: progress with cell and rep" "cell [1-3]/3 (rep|warmup) [12]/2" 20
check "live view: latency histogram of the running cell" "Latency, threads=[124] \([0-9] reps?( \+ running)?\)" 30
check "live view: per-thread ops bars" "Ops per thread \([0-9]+ counting of [0-9]+\)" 30
check "results table" "Results: pipeline, complete" 90
rec=$(recording)
if [ -n "$rec" ]; then
	row=$("$BT" show "$rec" 2>/dev/null | grep -E '^1 +\|' | head -1)
	if [ -n "$row" ] && screen | grep -qF -- "$row"; then ok "results row matches the recording ($row)"
	else bad "results row matches the recording" "show: '$row'
$(screen)"; fi
	[ "$(tail -1 "$rec" | grep -o '"status":"[a-z]*"')" = '"status":"complete"' ] &&
		ok "recording complete" || bad "recording complete" "$(tail -1 "$rec")"
else
	bad "a recording was written" "$(ls -R "$T/state" 2>&1)"
fi
check "scaling chart" "Scaling: median throughput vs threads"
check "scaling chart over threads: the ideal line" "┄ ideal"
keys Down
check "cell picker: cell 2" "Cell 2/3: threads=2"
y=$(screen | grep -nE '^│4 +\|' | head -1 | cut -d: -f1)
[ -n "$y" ] && click 3 "$y"
check "mouse: a click on a table row shows its cell" "Cell 3/3: threads=4"
keys Up
check "cell percentiles" "p50 [0-9.]+[nmu]?s +p90"
keys e
check "export: asks for a folder, offering the recording's" "Export to folder: $T/state/benchtop/sessions"
keys C-u "$T/exp-tui" Enter
check "export: status names the files" "exported .*\.md \.csv \.json and 3 \.hgrm \(us\) to $T/exp-tui"
base=$(basename "${rec%.jsonl}")
for f in "$base.md" "$base.csv" "$base.json" "$base-cell-0-threads_1.hgrm" "$base-cell-2-threads_4.hgrm"; do
	[ -s "$T/exp-tui/$f" ] && ok "exported $f" || bad "exported $f" "$(ls "$T/exp-tui")"
done
grep -q "Percentile" "$T/exp-tui/$base-cell-0-threads_1.hgrm" && ok ".hgrm has the HdrHistogram header" || bad ".hgrm format"
[ "$(grep -c '^[0-2],' "$T/exp-tui/$base.csv")" -eq 6 ] && ok "export csv: one row per rep" || bad "export csv: one row per rep" "$(cat "$T/exp-tui/$base.csv")"
"$BT" export "$rec" --format all --out "$T/exp-cli" >"$T/out" 2>"$T/err"
if [ "$(wc -l <"$T/out")" -eq 6 ] && diff -r "$T/exp-tui" "$T/exp-cli" >"$T/diff"; then ok "e and benchtop export --format all write identical file sets"
else bad "e and export write identical file sets" "$(cat "$T/err"; head -20 "$T/diff")"; fi
keys e
check "export: offers the last folder" "Export to folder: $T/exp-tui"
keys Escape
keys Escape
check "Esc: back to the workbench" "Parameters: pipeline"

# Plans: save, change, load back from the plans list; the CLI runs the saved plan.
keys S
check "S offers the plans folder" "Save plan to: $T/config/benchtop/plans/pipeline\.json"
keys C-u "$T/plans/plan.json" Enter
check "plan saved" "plan saved to $T/plans/plan.json"
if "$BT" run --plan "$T/plans/plan.json" --no-record --quiet --format csv >"$T/plan.csv" 2>"$T/err" &&
	[ "$(wc -l <"$T/plan.csv")" -eq 4 ]; then ok "benchtop run --plan reads the TUI's plan"
else bad "benchtop run --plan reads the TUI's plan" "$(cat "$T/err" "$T/plan.csv")"; fi
keys g Space                               # untick threads=1
check "threads changed" "threads +\[ \]1 \[x\]2 \[x\]4"
keys S
check "S offers the last plans folder" "Save plan to: $T/plans/pipeline\.json"
keys C-u "$T/plans/plan.json" Enter
check "S over an existing plan asks first" "$T/plans/plan\.json exists: replace it\? y/n"
check "the footer says y/n" "y Replace +n Keep"
keys n
check "n keeps it" "not saved: $T/plans/plan\.json is as it was"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["params"]["threads"][0] == 1' "$T/plans/plan.json" &&
	ok "n: the file is unchanged" || bad "n: the file is unchanged" "$(cat "$T/plans/plan.json")"
keys S Enter
check "the second plan saved" "plan saved to $T/plans/pipeline.json"
keys L
check "L lists the plans folder" "Plans in $T/plans"
check "L: both plans listed, by name" "│ pipeline\.json"
if screen | grep -q "│ plan\.json"; then ok "L: plan.json listed"; else bad "L: plan.json listed" "$(screen)"; fi
keys Down Enter
check "plan loaded" "plan loaded from $T/plans/plan.json: pipeline, 3 cells"
check "loaded values shown" "threads +\[x\]1 \[x\]2 \[x\]4"
printf '{"benchtop_plan": 1, "workload": "pipeline", "params": {"threads": [1, 2}\n' >"$T/bad.json"
keys L p C-u "$T/bad.json" Enter
check "bad plan: file and line" "bad\.json:1:"
ln -s "$T/victim" "$T/plans/link.json"
keys S C-u "$T/plans/link.json" Enter y
check "S onto a symlink: refused, not followed" "link\.json exists and is a symbolic link"
[ ! -e "$T/victim" ] && ok "the symlink's target was not created" || bad "the symlink's target was not created"

# Themes: cycle live; a broken user theme names file and line.
keys t
check "t cycles the theme" "theme high-contrast"
keys F1
check "help overlay" "Help - any key closes"
keys x
if wait_for "Parameters: pipeline" && ! screen | grep -q "Help - any key closes"; then ok "help closes"
else bad "help closes" "$(screen)"; fi
keys q
check "q quits" "EXITED=0"
check "terminal restored (echo, icanon)" "icanon echo|echo icanon"
grep -qx "export_dir = $T/exp-tui" "$T/config/benchtop/settings" && ok "the export folder is remembered" ||
	bad "the export folder is remembered" "$(cat "$T/config/benchtop/settings")"
grep -qx "plan_dir = $T/plans" "$T/config/benchtop/settings" && ok "the plans folder is remembered" ||
	bad "the plans folder is remembered" "$(cat "$T/config/benchtop/settings")"

mkdir -p "$T/config/benchtop/themes"
printf 'name = Broken\nnormal = default\ntitle = purplish\n' >"$T/config/benchtop/themes/broken.theme"
OPTS="--theme broken" start 160 30 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "broken theme: file, line, problem; default used" "default theme used: .*broken\.theme:3: unknown colour .purplish."
keys q
check "broken theme session quits" "EXITED=0"

# --- resize mid-run, q during a run ----------------------------------------
start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "second session opens" "Parameters: pipeline"
configure 400000
keys r
check "long run started" "Running pipeline" 20
tmux -L "$SOCK" resize-window -t bt -x 80 -y 24
check "resized to 80x24 mid-run: live view" "Throughput, items/s" 10
if [ "$(screen | python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in sys.stdin))')" -le 80 ] &&
	screen | grep -q "Esc/s Stop"; then ok "80x24: nothing wider than the pane, footer there"
else bad "80x24 layout" "$(screen)"; fi
tmux -L "$SOCK" resize-window -t bt -x 70 -y 20
check "below 80x24: centred message" "needs at least 80x24 \(now 70x20\)"
tmux -L "$SOCK" resize-window -t bt -x 20 -y 5
check "20x5: the message wraps and is whole" "^ *least 80x24 \(now *$" 10
if screen | grep -q "enlarge the"; then ok "20x5: asks to enlarge"; else bad "20x5: asks to enlarge" "$(screen)"; fi
tmux -L "$SOCK" resize-window -t bt -x 200 -y 60
check "resized to 200x60 mid-run" "Ops per thread" 10
check "still running after resizes" "cell [1-3]/3"
keys q
check "q during a run exits" "EXITED=0" 30
check "terminal restored after q in a run" "icanon echo|echo icanon"
rec=$(recording)
[ -n "$rec" ] && tail -1 "$rec" | grep -q '"status":"interrupted"' && ok "recording ends interrupted" ||
	bad "recording ends interrupted" "$(tail -1 "$rec" 2>&1)"

# Ctrl-C during a run: the same, exit 130.
start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "third session opens" "Parameters: pipeline"
configure 400000
keys r
check "run started for Ctrl-C" "Running pipeline" 20
keys C-c
check "Ctrl-C exits 130" "EXITED=130" 30
rec=$(recording)
[ -n "$rec" ] && tail -1 "$rec" | grep -q '"status":"interrupted"' && ok "Ctrl-C: recording ends interrupted" ||
	bad "Ctrl-C: recording interrupted" "$(tail -1 "$rec" 2>&1)"

# --- over SSH: TERM=xterm (8 colours), LANG=C (ASCII), 80x24 ------------------
# SGR colour codes in the pane (tmux capture -e): fg/bg 30-37 40-47 90-97 100-107 38;5;N 48;5;N.
colours() {
	tmux -L "$SOCK" capture-pane -e -p -t bt | python3 -c '
import re, sys
basic = ext = 0
for m in re.finditer(r"\x1b\[([0-9;]*)m", sys.stdin.read()):
    p = [int(x) if x else 0 for x in m.group(1).split(";")]
    i = 0
    while i < len(p):
        if p[i] in (38, 48) and i + 2 < len(p) and p[i + 1] == 5:
            if p[i + 2] < 16: basic += 1
            else: ext += 1
            i += 3; continue
        if 30 <= p[i] <= 37 or 40 <= p[i] <= 47 or 90 <= p[i] <= 97 or 100 <= p[i] <= 107: basic += 1
        i += 1
print(basic, ext)'
}
start 80 24 TERM=xterm LANG=C LC_ALL=C
check "TERM=xterm LANG=C: workbench" "Parameters: pipeline"
if screen | LC_ALL=C grep -q '[^ -~]'; then bad "LANG=C: ASCII only" "$(screen | LC_ALL=C grep -n '[^ -~]')"
else ok "LANG=C: ASCII only on the workbench"; fi
read -r basic ext < <(colours)
[ "$basic" -gt 0 ] && [ "$ext" -eq 0 ] && ok "TERM=xterm: 8 colours only ($basic)" || bad "TERM=xterm colours" "basic=$basic ext=$ext"
keys G Up Up Up Up Up   # as (5 up from the Run button: ci, max_reps, order_seed, order, as)
check "80x24: a long help wraps and points to ?" "^\|.{16}\|\|the workload can\)"
keys '?'
check "? on a field: range, default, example" "example: benchtop run pipeline as=auto"
if screen | grep -q "range: threads|processes|auto (enum)" && screen | grep -q "default: auto"; then ok "? on a field: range and default"
else bad "? on a field: range and default" "$(screen)"; fi
keys Escape g
keys L C-u "$T/a-plan-that-is-not-there-at-all.json" Enter
check "80x24: a long message wraps, not cut" "^ $T/a-plan-that-is-not-there-at-all\.json:"
check "80x24: the wrapped message's second line" "^ [a-z :]*file or directory *$"
check "80x24: the footer keeps q Quit under a wrapped message" "q Quit"
configure 20000
keys r
check "LANG=C: live view" "Throughput, items/s" 20
check "LANG=C: results" "Results: pipeline, complete" 90
if screen | LC_ALL=C grep -q '[^ -~]'; then bad "LANG=C: ASCII only on results" "$(screen)"
else ok "LANG=C: ASCII only on the results"; fi
check "80x24: results table row" "^\|1 +\| +[0-9.]+[KM]?!? "
keys q
check "LANG=C quits" "EXITED=0"

start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "xterm-256color: workbench" "Parameters: pipeline"
read -r basic ext < <(colours)
[ "$ext" -gt 0 ] && ok "TERM=xterm-256color: 256-colour palette ($ext)" || bad "256 colours" "basic=$basic ext=$ext"
keys q

OPTS="null threads=1,2 duration=300ms reps=1 warmup=0" start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 NO_COLOR=1
check "NO_COLOR: workbench" "Parameters: null"
read -r basic ext < <(colours)
[ "$basic" -eq 0 ] && [ "$ext" -eq 0 ] && ok "NO_COLOR=1: no colours" || bad "NO_COLOR" "basic=$basic ext=$ext"
keys r
check "NO_COLOR: chart series told apart by glyph (legend)" "ops/s +(■ ▶ threads=2 +● threads=1|● ▶ threads=1 +■ threads=2)" 20
check "NO_COLOR: the series drawn in their glyphs" "┤.*[●■]" 20
check "NO_COLOR: results" "Results: null, complete" 30
keys q
check "NO_COLOR quits" "EXITED=0"

# The prefill reads key=value as the CLI does: a key given twice is refused.
OPTS="pipeline threads=1 threads=2" start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "prefill: a key given twice" "benchtop: threads=2: threads given twice"
check "prefill: exit 2" "EXITED=2"

# SIGHUP, SIGQUIT, SIGTERM during a run: the one signal path stops the run,
# the recording ends interrupted, the terminal comes back, exit 130.
for sig in HUP QUIT TERM; do
	OPTS="null threads=1 duration=3s reps=3 warmup=0" start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
	check "SIG$sig: workbench" "Parameters: null"
	keys r
	check "SIG$sig: running" "Throughput, ops/s" 20
	shpid=$(tmux -L "$SOCK" list-panes -t bt -F '#{pane_pid}')
	btpid=$(pgrep -P "$shpid" | head -1)
	[ -n "$btpid" ] && kill -"$sig" "$btpid"
	check "SIG$sig: exit 130" "EXITED=130" 20
	check "SIG$sig: terminal restored" "icanon echo|echo icanon"
	rec=$(recording)
	[ -n "$rec" ] && tail -1 "$rec" | grep -q '"status":"interrupted"' && ok "SIG$sig: recording ends interrupted" ||
		bad "SIG$sig: recording ends interrupted" "$rec: $(tail -1 "$rec" 2>&1)"
done

# Any numeric row axis has a scaling chart; only a worker count has the ideal line.
OPTS="pipeline units=100,1000,3000 threads=2 reps=1 warmup=0" start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "units sweep: prefilled" "units +100,1000,3000"
keys r
check "units sweep: results" "Results: pipeline, complete" 60
check "units sweep: scaling chart over units" "Scaling: median throughput vs units"
if screen | grep -q "ideal"; then bad "units sweep: no ideal line" "$(screen)"
else ok "units sweep: no ideal line"; fi
keys q
check "units sweep quits" "EXITED=0"

# --- fixed values: a single-cell plan says what it ran ---------------------
OPTS="null threads=64 duration=300ms reps=1 warmup=0" start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "threads=64: workbench" "Parameters: null"
keys r
check "threads=64: live header names it" "Running null threads=64 work=0" 20
check "threads=64: results" "Results: null, complete" 30
check "threads=64: results say fixed values" "fixed: threads=64 work=0"
check "threads=64: cell named by its values" "Cell 1/1: threads=64 work=0"
rec=$(recording)
"$BT" show "$rec" 2>/dev/null | grep -q "^fixed: threads=64 work=0$" && ok "threads=64: show says it" ||
	bad "threads=64: show says it" "$("$BT" show "$rec" 2>&1)"
XDG_STATE_HOME=$T/state "$BT" sessions 2>/dev/null | grep -Eq " null +threads=64 work=0 +1/1 +complete" &&
	ok "threads=64: sessions list says it" || bad "threads=64: sessions list" "$(XDG_STATE_HOME=$T/state "$BT" sessions 2>&1)"
keys o
check "threads=64: sessions screen says it" "null +threads=64 work=0 +1/1"
keys q
check "threads=64 quits" "EXITED=0"

# --- progress moves within a rep (duration stop rule) ------------------------
OPTS="null threads=1 duration=3s reps=1 warmup=0" start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "progress: workbench" "Parameters: null"
keys r
check "progress: the bar moves within the first rep" " [1-9][0-9]%  cell 1/1 rep 1/1 .* ETA [0-9]+s" 20
if screen | grep -q "ETA ?"; then bad "progress: an ETA during the first rep" "$(screen)"; else ok "progress: an ETA during the first rep"; fi
check "progress: results" "Results: null, complete" 30
keys q
check "progress quits" "EXITED=0"

# --- a cold file run: the cell shows the page cache at its start and its end ---
OPTS="copy size=64K cache=cold reps=1 warmup=0 dir=$T/scratch" start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "cold copy: workbench" "Parameters: copy"
keys r
check "cold copy: results" "Results: copy, complete" 30
check "cold copy: residency at the start and at the end" "resident_pct [0-9.]+%  resident_end_pct 100\.0%"
keys q
check "cold copy quits" "EXITED=0"

# --- validation in place: what r would refuse shows at its field as it is typed ---
re_quote() { printf '%s' "$1" | sed 's/[].[*^$()+?{}|]/\\&/g'; }
OPTS="pipeline pin=list:0,1000 as=processes" start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
want=$("$BT" run pipeline pin=list:0,1000 as=processes --no-record 2>&1 >/dev/null | sed 's/^benchtop: //')
check "validation: the run path's message at its field" "^.{21} +$(re_quote "$want")"
keys G Up Up Up Up Up Right
check "validation: fixed as=, the next refusal (pin) shows, wrapped" "^.{21} +pin=list:0,1000: CPU 1000 is not available"
keys Up Enter C-u units Enter
check "validation: rows= not swept, at the rows field" "rows=units: units is not swept \(nothing is swept\)"
keys g Space
check "validation: follows the plan (threads swept now)" "rows=units: units is not swept \(swept: threads\)"
keys r
check "validation: r refuses with the same line" "^ rows=units: units is not swept \(swept: threads\)"
keys q
check "validation quits" "EXITED=0"

# --- the mouse: a workload, a tick, a field by the wheel; mouse = off ---------
start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "mouse: workbench" "Parameters: pipeline"
[ "$(tmux -L "$SOCK" display -p -t bt '#{mouse_any_flag}')" = 1 ] && ok "mouse: the terminal reports the mouse" ||
	bad "mouse: the terminal reports the mouse"
read -r x y < <(where " locks ")
click "$((x + 1))" "$y"
check "mouse: a click picks a workload" "Parameters: locks"
read -r x y < <(where "[ ]1 ")
click "$((x + 1))" "$y"
check "mouse: a click ticks a value" "threads +\[x\]1 "
read -r x y < <(where "Parameters: locks")
wheel down "$x" "$((y + 3))"
check "mouse: the wheel moves the form's cursor" "^..+>[a-z_]+ "
if screen | grep -q ">threads "; then bad "mouse: the wheel left threads" "$(screen)"; else ok "mouse: the wheel left threads"; fi
keys q
check "mouse session quits" "EXITED=0"
grep -qx "mouse = on" "$T/config/benchtop/settings" && ok "settings: mouse = on written" || bad "settings: mouse = on written" "$(cat "$T/config/benchtop/settings")"
printf 'mouse = off\n' >"$T/config/benchtop/settings"
start_keep 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "mouse = off: workbench" "Parameters: pipeline"
[ "$(tmux -L "$SOCK" display -p -t bt '#{mouse_any_flag}')" = 0 ] && ok "mouse = off: the terminal is not asked for mouse reports" ||
	bad "mouse = off: no mouse reports asked" "$(tmux -L "$SOCK" display -p -t bt '#{mouse_any_flag}')"
keys q
check "mouse = off quits" "EXITED=0"
grep -qx "mouse = off" "$T/config/benchtop/settings" && ok "settings: mouse = off kept" || bad "settings: mouse = off kept"

# --- the first launch: the classic experiment, and settings that persist -------
FIRST=1 start 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "first launch: welcome" "Welcome: the form holds the classic experiment"
check "first launch: threads 1-64" "threads +\[x\]1 \[x\]2 \[x\]4 \[x\]8 \[x\]16 \[x\]32 \[x\]64"
check "first launch: signal vs broadcast" "notify +signal,broadcast"
check "first launch: 14 cells" "14 cells x \(0 warmup \+ 3 reps\) = 42"
keys t
check "first launch: theme changed" "theme high-contrast"
keys q
check "first launch quits" "EXITED=0"
grep -qx "theme = high-contrast" "$T/config/benchtop/settings" &&
	grep -qx "form.pipeline = reps=3 warmup=0 threads=1,2,4,8,16,32,64 notify=signal,broadcast" "$T/config/benchtop/settings" &&
	ok "settings written on quit" || bad "settings written on quit" "$(cat "$T/config/benchtop/settings")"
printf 'theme = default\nform.null = threads=3 work=7\n' >>"$T/config/benchtop/settings"
OPTS="null" start_keep 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "settings survive a restart: the form" " work +7"
check "settings survive a restart: the theme" "theme default"
keys q
check "settings restart quits" "EXITED=0"
printf 'theme = default\nthis line is broken\n' >"$T/config/benchtop/settings"
start_keep 120 40 TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8
check "broken settings: file and line, ignored" "settings ignored: .*settings:2: expected key = value"
check "broken settings: defaults used" "threads +\[ \]1 \[ \]2 \[x\]4"
keys q
check "broken settings quits" "EXITED=0"

echo "$pass passed, $failn failed"
[ "$failn" -eq 0 ]
