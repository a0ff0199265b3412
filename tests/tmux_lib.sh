# tmux_lib.sh - what the TUI tests share: a tmux server of their own per
# session, pass/fail counting, and checks that wait (with a deadline) for what
# a person would see in the pane. Sourced by tests/tui*.sh after they set
# BT (the binary), T (a scratch directory) and PREFIX (a socket name prefix).

command -v tmux >/dev/null || { echo "SKIP - tmux is not installed"; exit 77; }
NSOCK=0
SOCK=$PREFIX-$$-0
pass=0 failn=0

cleanup() {
	local i
	for ((i = 0; i <= NSOCK; i++)); do tmux -L "$PREFIX-$$-$i" kill-server 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { failn=$((failn + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/  /'; }

# The time limits scale for slow builds (sanitizers): BT_TUI_SLOW=3.
SLOW=${BT_TUI_SLOW:-1}
case "$BT" in *asan* | *tsan*) SLOW=3 ;; esac

screen() { tmux -L "$SOCK" capture-pane -p -t bt; }
keys() { tmux -L "$SOCK" send-keys -t bt "$@"; }

# A new server (own socket) per session: no race with the last one's exit.
next_server() {
	tmux -L "$SOCK" kill-server 2>/dev/null
	NSOCK=$((NSOCK + 1))
	SOCK=$PREFIX-$$-$NSOCK
}

# wait_for PATTERN [SECONDS]: poll the pane until an extended regex matches.
wait_for() {
	local pat=$1 limit=$(( ${2:-10} * SLOW * 10 )) i
	for ((i = 0; i < limit; i++)); do
		screen | grep -Eq -- "$pat" && return 0
		sleep 0.1
	done
	return 1
}

# check NAME PATTERN [SECONDS]: one test that waits for PATTERN.
check() {
	if wait_for "$2" "${3:-10}"; then ok "$1"; else bad "$1" "waited for /$2/; the screen:
$(screen)"; fi
}

# click X Y / wheel up|down X Y: the SGR mouse reports a terminal sends (1-based cells).
click() { tmux -L "$SOCK" send-keys -t bt -l "$(printf '\033[<0;%d;%dM\033[<0;%d;%dm' "$1" "$2" "$1" "$2")"; }
wheel() { tmux -L "$SOCK" send-keys -t bt -l "$(printf '\033[<%d;%d;%dM' "$([ "$1" = up ] && echo 64 || echo 65)" "$2" "$3")"; }
# where TEXT X: the 1-based column and row of the first TEXT on the screen ("" when absent).
where() { screen | python3 -c 'import sys
t = sys.argv[1]
for y, l in enumerate(sys.stdin.read().split("\n")):
    if t in l:
        print(len(l[:l.index(t)]) + 1, y + 1); break' "$1"; }
