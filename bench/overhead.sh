#!/usr/bin/env bash
# overhead.sh - benchtop's own overhead, as figures (not a test):
#   * the cost of one clock read (what timing an op costs at least)
#   * throughput of null (empty ops) and locks with latency recording off,
#     adaptive (lat_every=0, the default) and on every op (lat_every=1)
#   * the sampler: null at sample=10ms vs sample=1s
# usage: bench/overhead.sh [path/to/benchtop] [duration]   (default build/benchtop, 500ms)
#        ROUNDS=N (default 3) interleaved rounds per setting
set -euo pipefail
BT=${1:-build/benchtop}
DUR=${2:-500ms}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# median ops/s of one cell: run WORKLOAD ARGS... -> number
rate() {
	"$BT" run "$@" reps=3 warmup=1 --no-record --quiet --format json >"$T/o.json"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["cells"][0]["ops_s_median"])' "$T/o.json"
}
# Contended locks on a VM are bimodal from run to run: the settings are run
# in ROUNDS interleaved rounds and the median of the rounds is reported, so a
# mode switch does not land on one setting only.
ROUNDS=${ROUNDS:-3}
med() { python3 -c 'import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
pct() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'{100*(a-b)/a:+.2f}%')" "$1" "$2"; }

"$BT" run null ops=1000 reps=1 warmup=0 --record "$T/r.jsonl" >/dev/null 2>&1
python3 - "$T/r.jsonl" <<'PY'
import json, sys
h = json.loads(open(sys.argv[1]).readline())
m = h["machine"]
print("clock read (CLOCK_MONOTONIC): %.1f ns   machine: %s, %d CPUs" % (h["timer_cost_ns"], m["cpu_model"], m["allowed_cpus"]))
PY

printf '\n%-34s %14s %14s %14s %10s %10s\n' "workload" "lat=off" "lat adaptive" "lat_every=1" "cost(ad.)" "cost(1)"
for w in "null threads=1" "null threads=2" "null threads=1 work=50" "locks threads=1 lock=mutex" "locks threads=2 lock=mutex" "locks threads=2 lock=spin"; do
	offs=() ads=() ones=()
	for _ in $(seq "$ROUNDS"); do
		# shellcheck disable=SC2086
		offs+=("$(rate $w duration=$DUR lat=off)")
		# shellcheck disable=SC2086
		ads+=("$(rate $w duration=$DUR lat=on lat_every=0)")
		# shellcheck disable=SC2086
		ones+=("$(rate $w duration=$DUR lat=on lat_every=1)")
	done
	off=$(med "${offs[@]}"); ad=$(med "${ads[@]}"); one=$(med "${ones[@]}")
	printf '%-34s %14.4g %14.4g %14.4g %10s %10s\n' "$w" "$off" "$ad" "$one" "$(pct "$off" "$ad")" "$(pct "$off" "$one")"
done

echo
# The sampler runs on the run's controller thread: with every CPU busy it takes time from
# the workers. Default interval 100 ms (10 samples/s), and 10 ms (100/s).
s1=() s100=() s10=()
for _ in $(seq "$ROUNDS"); do
	s1+=("$(rate null threads=2 duration=$DUR lat=on sample=1s)")
	s100+=("$(rate null threads=2 duration=$DUR lat=on sample=100ms)")
	s10+=("$(rate null threads=2 duration=$DUR lat=on sample=10ms)")
done
s1=$(med "${s1[@]}"); s100=$(med "${s100[@]}"); s10=$(med "${s10[@]}")
printf 'sampler, null threads=2: sample=1s %.4g ops/s; 100ms (default) %.4g ops/s (%s); 10ms %.4g ops/s (%s)\n' \
	"$s1" "$s100" "$(pct "$s1" "$s100")" "$s10" "$(pct "$s1" "$s10")"
