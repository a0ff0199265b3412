#!/usr/bin/env bash
# soak.sh - memory over a long sweep (not a test): one run of REPS short reps
# with latency on, its resident set read from /proc at the start and at the
# end. Each rep keeps its latencies sparse (core/results.h struct bt_rep_lat),
# so the figure stays flat within a few MB instead of growing ~265 KB a rep.
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
first="" last="" peak=0
while kill -0 "$pid" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
	if [ -n "$rss" ]; then
		[ -z "$first" ] && first=$rss
		last=$rss
		[ "$rss" -gt "$peak" ] && peak=$rss
	fi
	sleep 0.05
done
wait "$pid" || { cat "$T/err"; exit 1; }
echo "reps: $(grep -c '"type":"rep"' "$T/soak.jsonl")"
echo "RSS at start: ${first} kB"
echo "RSS at end:   ${last} kB (peak ${peak} kB, growth $(( (last - first) / 1024 )) MB)"
