#!/usr/bin/env bash
# kv.sh - benchtop's kv workload against the servers' own load generators,
# side by side in one run, against the same servers (figures, not a test).
# Each pair does the same operations at the same concurrency:
#   * redis-benchmark -t get,incr -c 50 -P 1 and -P 16 -r 10000000 (one
#     thread, an event loop over 50 connections; GET and INCR run one after
#     the other, so its combined rate is 2 / (1/get + 1/incr); -r draws the
#     keys from 10 million, as benchtop's blog x article ids are, so that
#     both sides' INCRs create keys and their GETs miss: without it every
#     INCR hits one key and the server does less) vs `benchtop run kv
#     backend=redis clients=50 depth=1|16 loops=1 key=short` (one event loop
#     over 50 connections, requests alternating INCR and GET, 16-byte keys as
#     redis-benchmark's key:NNNNNNNNNNNN: the classic ~45-byte keys cost the
#     single-threaded server 7-27 % of its rate at -P 16); the classic form,
#     a thread per client with classic keys, is shown beside it against the
#     same peer.
#   * memcslap --test=get|set --concurrency=4 --execute-number=n (4 threads
#     of libmemcached, each its own connection, n gets or sets of values of
#     50..4998 bytes, mean 2470; get first stores its n keys from one
#     thread; its keys are 20 bytes) vs `benchtop run kv backend=memcached
#     clients=4 op=get|set value_size=2470 keys=n iterations=n key=short`
#     (the same, values of the mean size, keys of about 16 bytes). benchtop's classic counter (incr, add when missing, get) is
#     shown alone: no peer does that.
# Each side: requests/s and client CPU (user + sys) per request. benchtop's
# CPU is the rep's (its process while the clients ran, not the stores
# before or the read-back after); a peer's is its process's (getrusage of
# the child), and memcslap get's without its loading phase: the set test
# of the same round measures what n sets cost (its CPU / 4), which is
# taken off.
# The machine is shared: every pair runs ROUNDS times (default 3), the two
# sides back to back and taking turns going first; the table gives each
# side's medians and the median of the per-round ratios benchtop / peer.
# The servers are started here on free loopback ports and stopped by PID.
# usage: bench/kv.sh [path/to/benchtop]   (default build/benchtop)
#        ROUNDS=3 N=200000 (redis requests per test) MS_N=25000 (memcslap per thread)
#        MC_ROUNDS=9 (rounds of the memcached pairs)
set -euo pipefail
BT=${1:-build/benchtop}
ROUNDS=${ROUNDS:-3}
MC_ROUNDS=${MC_ROUNDS:-9}
N=${N:-200000}
MS_N=${MS_N:-25000}
VSIZE=2470
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"' EXIT

for prog in redis-server redis-benchmark memcached memcslap python3; do
	command -v $prog >/dev/null || {
		echo "kv.sh: $prog is missing (apt install redis-server redis-tools memcached libmemcached-tools)" >&2
		exit 1
	}
done

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# cpu OUT CMD...: run CMD, its stdout to OUT, then print "user+sys seconds" of it and its children.
cpu() {
	python3 - "$@" <<'EOF'
import resource, subprocess, sys
out = open(sys.argv[1], "w")
subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime)
EOF
}

RP=$(free_port)
redis-server --port "$RP" --bind 127.0.0.1 --save "" --appendonly no --logfile "" >"$T/redis.log" 2>&1 &
PIDS+=($!)
MP=$(free_port)
memcached -l 127.0.0.1 -p "$MP" -U 0 -t 4 -m 1024 $([ "$(id -u)" = 0 ] && echo -u root) &
PIDS+=($!)
sleep 0.5

# bt ARGS...: "requests/s cpu_s requests" of one benchtop run (one rep, fixed work).
bt() {
	"$BT" run kv "$@" reps=1 warmup=0 --no-record --quiet --format json >"$T/bt.json"
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cells"][0]; print(c["ops_s_median"], c["cpu_s"], c["ops_s_median"]*c["wall_s"])' "$T/bt.json"
}
# rb P: "requests/s cpu_s requests" of redis-benchmark -t get,incr -c 50 -P P -r 10000000.
rb() {
	local c
	c=$(cpu "$T/rb.csv" redis-benchmark -p "$RP" -t get,incr -c 50 -P "$1" -r 10000000 -n "$N" -q --csv)
	python3 -c '
import csv,sys
r = {row[0]: float(row[1]) for row in csv.reader(open(sys.argv[1])) if len(row) > 1 and row[0] in ("GET", "INCR")}
print(2 / (1 / r["GET"] + 1 / r["INCR"]), sys.argv[2], 2 * int(sys.argv[3]))' "$T/rb.csv" "$c" "$N"
}
# ms TEST: "requests/s cpu_s requests" of memcslap --test=TEST --concurrency=4 (cpu_s: the whole process).
ms() {
	local c
	c=$(cpu "$T/ms.txt" memcslap --servers=127.0.0.1:"$MP" --test="$1" --concurrency=4 --execute-number="$MS_N")
	python3 -c '
import re,sys
t = float(re.search(r"Time to \w+\s+\d+ keys by\s+\d+ threads:\s+([0-9.]+)", open(sys.argv[1]).read()).group(1))
n = 4 * int(sys.argv[3])
print(n / t, sys.argv[2], n)' "$T/ms.txt" "$c" "$MS_N"
}

# fresh: empty the two servers this script started (never another), so that
# each side of a pair starts from the same state: redis-benchmark -r leaves
# up to millions of keys behind, and whichever side ran next paid for them
# (the depth-16 round where benchtop ran second was 0.73x, first 1.00x).
fresh() {
	python3 - "$RP" "$MP" <<'EOF'
import socket, sys
for port, cmd, ok in ((sys.argv[1], b"FLUSHALL\r\n", b"+OK"), (sys.argv[2], b"flush_all\r\n", b"OK")):
    s = socket.create_connection(("127.0.0.1", int(port)))
    s.sendall(cmd)
    r = s.recv(64)
    if not r.startswith(ok):
        sys.exit("kv.sh: flushing the bench's own server on port %s: %r" % (port, r))
    s.close()
EOF
}

# pair ROUND NAME "PEER CMD" "BENCHTOP ARGS": one round of a pair, appended to
# $T/NAME.peer and $T/NAME.bt; the side that goes first alternates.
pair() {
	if (($1 % 2)); then
		fresh && $3 >>"$T/$2.peer"
		fresh && bt $4 >>"$T/$2.bt"
	else
		fresh && bt $4 >>"$T/$2.bt"
		fresh && $3 >>"$T/$2.peer"
	fi
}

redis="backend=redis server=127.0.0.1:$RP clients=50 iterations=$((N / 50))"
mc="backend=memcached server=127.0.0.1:$MP clients=4 iterations=$MS_N"
for round in $(seq "$ROUNDS"); do
	pair "$round" r1 "rb 1" "$redis depth=1 loops=1 key=short"
	pair "$round" r1t "rb 1" "$redis depth=1"
	pair "$round" r16 "rb 16" "$redis depth=16 loops=1 key=short"
	pair "$round" r16t "rb 16" "$redis depth=16"
done
# memcached at 4 blocking clients is bimodal here, on both sides: a round runs
# at 75K or at 115K gets/s depending on where the scheduler puts 4 clients
# and 4 server threads on 2 CPUs, so its pairs take more rounds (~2 s each).
for round in $(seq "$MC_ROUNDS"); do
	pair "$round" mset "ms set" "$mc op=set value_size=$VSIZE keys=$MS_N key=short"
	pair "$round" mget "ms get" "$mc op=get value_size=$VSIZE keys=$MS_N key=short"
	bt $mc >>"$T/mcounter.bt"
done

echo "# kv vs the servers' own load generators; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg):"
echo "# a shared machine, figures are noisy: medians of $ROUNDS (redis) and $MC_ROUNDS (memcached) interleaved rounds, ratios per round"
python3 - "$T" "$MS_N" <<'PY'
import os, statistics as st, sys
T, msn = sys.argv[1], int(sys.argv[2])
def rows(name):
    return [[float(x) for x in l.split()] for l in open(f"{T}/{name}")]
# memcslap get: take off the loading phase (n sets from one thread + generating n keys),
# which is a quarter of the same round's set test (4 threads x the same).
sets = rows("mset.peer")
gets = rows("mget.peer")
for g, s in zip(gets, sets):
    g[1] -= s[1] / 4
pairs = [
    ("r1", "redis-benchmark -t get,incr -c 50 -P 1 -r", "kv redis clients=50 depth=1 loops=1 key=short", None),
    ("r1t", "  (the same peer)", "kv redis clients=50 depth=1 (thread/client)", None),
    ("r16", "redis-benchmark -t get,incr -c 50 -P 16 -r", "kv redis clients=50 depth=16 loops=1 key=short", None),
    ("r16t", "  (the same peer)", "kv redis clients=50 depth=16 (thread/client)", None),
    ("mset", "memcslap --test=set --concurrency=4", "kv memcached clients=4 op=set key=short", sets),
    ("mget", "memcslap --test=get --concurrency=4", "kv memcached clients=4 op=get key=short", gets),
]
us = lambda r: r[1] / r[2] * 1e6
print(f"{'peer':40s} {'req/s':>9s} {'us/req':>7s} | {'benchtop':44s} {'req/s':>9s} {'us/req':>7s} | ratio req/s  CPU/req")
for key, pl, bl, p in pairs:
    p = p if p is not None else rows(f"{key}.peer")
    b = rows(f"{key}.bt")
    rr = [y[0] / x[0] for x, y in zip(p, b)]
    rc = [us(y) / us(x) for x, y in zip(p, b)]
    print(f"{pl:40s} {st.median(r[0] for r in p):9.0f} {st.median(us(r) for r in p):7.2f} | "
          f"{bl:44s} {st.median(r[0] for r in b):9.0f} {st.median(us(r) for r in b):7.2f} | "
          f"{st.median(rr):9.2f}x {st.median(rc):7.2f}x")
c = rows("mcounter.bt")
print(f"{'(no peer: the classic counter)':40s} {'':9s} {'':7s} | {'kv memcached clients=4 (incr+add, get)':44s} "
      f"{st.median(r[0] for r in c):9.0f} {st.median(us(r) for r in c):7.2f} |")
print()
print("per-round ratios (benchtop / peer), req/s and CPU per request:")
for key, pl, bl, p in pairs:
    p = p if p is not None else rows(f"{key}.peer")
    b = rows(f"{key}.bt")
    print(f"  {bl:44s} " + "  ".join(f"{y[0] / x[0]:.2f}/{us(y) / us(x):.2f}" for x, y in zip(p, b)))
PY
