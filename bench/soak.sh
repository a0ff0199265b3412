#!/usr/bin/env bash
# soak.sh - memory over a long sweep (not a test): one run of REPS short reps
# with latency on, its resident set read from /proc at the start and at the
# end. Each rep keeps its latencies sparse (core/results.h struct bt_rep_lat),
# an "ok" verify message shared, and histograms are mapped, not taken from
# the heap (core/hist.c), so the figure stays within a few MB.
# usage: bench/soak.sh [path/to/benchtop] [reps]   (default build/benchtop, 10000)
set -euo pipefail
BT=${1:-build/benchtop}
REPS=${2:-10000}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# reps is at most 1000 a cell: the sweep is REPS/1000 cells (work=0,1,2,...).
CELLS=$(( (REPS + 999) / 1000 )); PER=$(( REPS / CELLS ))
WORK=$(seq -s, 0 $((CELLS - 1)))
"$BT" run null threads=1 work="$WORK" ops=200 lat_every=1 reps="$PER" warmup=0 --quiet \
	--record "$T/soak.jsonl" >/dev/null 2>"$T/err" &
pid=$!
# The start figure is taken once the first rep is recorded (start-up done:
# libraries loaded, threads and the first histograms made), with how many
# reps were recorded then; the end figure at the last sample before exit.
first="" first_reps=0 last="" peak=0
while kill -0 "$pid" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
	if [ -n "$rss" ]; then
		if [ -z "$first" ]; then
			n=$(grep -c '"type":"rep"' "$T/soak.jsonl" 2>/dev/null || true)
			if [ "${n:-0}" -gt 0 ]; then first=$rss first_reps=$n; fi
		fi
		last=$rss
		[ "$rss" -gt "$peak" ] && peak=$rss
	fi
	sleep 0.05
done
wait "$pid" || { cat "$T/err"; exit 1; }
reps=$(grep -c '"type":"rep"' "$T/soak.jsonl")
[ -n "$first" ] || { echo "soak.sh: the run ended before the first sample; use more reps" >&2; exit 1; }
echo "reps: $reps"
echo "RSS at start: ${first} kB (after $first_reps reps)"
echo "RSS at end:   ${last} kB (peak ${peak} kB)"
echo "growth:       $(( (last - first) / 1024 )) MB, $(( (last - first) * 1024 / (reps - first_reps > 0 ? reps - first_reps : 1) )) bytes a rep"
