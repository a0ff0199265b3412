#!/usr/bin/env bash
# pingpong.sh - how far each sync model is from what the kernel allows: the
# round trip of benchtop's pingpong (two threads handing a token back and
# forth) under each sync model, next to `perf bench sched pipe -T` (two
# threads, a pipe each way) on the same machine, and their ratio.
#
# usage: bench/pingpong.sh [path/to/benchtop] [duration]   (default build/benchtop, 1s)
#        REPS=N (default 5); LOOPS=N for perf (default 200000)
# perf comes from linux-perf; without it the kernel reference is left out.
set -uo pipefail
BT=${1:-build/benchtop}
DUR=${2:-1s}
REPS=${REPS:-5}
LOOPS=${LOOPS:-200000}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# The kernel's figure: usecs/op of perf bench sched pipe -T (threads, not processes).
perf_us=""
PERF=$(command -v perf || ls /usr/bin/perf_* 2>/dev/null | head -1 || true)
if [ -z "$PERF" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-perf >/dev/null 2>&1 || true
	PERF=$(command -v perf || true)
fi
if [ -n "$PERF" ]; then
	"$PERF" bench sched pipe -T -l "$LOOPS" >"$T/perf.txt" 2>&1 || true
	perf_us=$(awk '/usecs\/op/ {print $1; exit}' "$T/perf.txt")
fi
if [ -n "$perf_us" ]; then
	echo "perf bench sched pipe -T: ${perf_us} us per round trip ($LOOPS loops)"
else
	echo "perf bench sched pipe -T: not available (apt install linux-perf); ratios left out"
fi
echo "(a shared machine moves these figures; the cells run interleaved so drift falls on all of them)"

"$BT" run pingpong sync=cond,spin,futex,pipe,eventfd duration="$DUR" reps="$REPS" warmup=1 \
	order=interleaved lat=off --no-record --quiet --format json >"$T/o.json" || exit 1
python3 - "$T/o.json" "${perf_us:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
perf = float(sys.argv[2]) if sys.argv[2] else None
print("\n%-10s %14s %12s %8s %s" % ("sync", "round trips/s", "us/trip", "sd%", "x perf pipe -T" if perf else ""))
for c in d["cells"]:
    rate = c["ops_s_median"]
    us = 1e6 / rate if rate else float("inf")
    sd = 100.0 * c["ops_s_stddev"] / rate if rate else 0
    ratio = "%8.2f" % (us / perf) if perf else ""
    print("%-10s %14.4g %12.2f %7.1f%% %s" % (c["values"]["sync"], rate, us, sd, ratio))
if perf:
    print("\nratio = benchtop's us per round trip / perf's (sync=pipe is the same experiment: ~1.0 means no harness cost)")
PY
