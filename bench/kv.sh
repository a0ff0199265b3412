#!/usr/bin/env bash
# kv.sh - benchtop's kv workload against the servers' own load generators,
# side by side in one run, against the same server (figures, not a test):
#   * redis-benchmark -t get,incr -c 50 -P 1 and -P 16 vs `benchtop run kv
#     backend=redis clients=50 depth=1|16` (its requests alternate incr and
#     get; redis-benchmark runs the two tests one after the other, so its
#     combined rate is 2 / (1/get + 1/incr))
#   * memcslap --test=get and --test=set --concurrency=4 vs `benchtop run kv
#     backend=memcached clients=4` (incr+add and get)
# Each side: requests/s, client CPU (user + sys of the load generator's
# process tree, from getrusage) per request, and benchtop/peer ratios. The
# servers are started here on free loopback ports and stopped by PID. Other
# load on the machine moves every figure: the two sides alternate ROUNDS
# times (default 2) and the best of each is kept.
# usage: bench/kv.sh [path/to/benchtop]   (default build/benchtop)
set -euo pipefail
BT=${1:-build/benchtop}
ROUNDS=${ROUNDS:-2}
N=${N:-200000}
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

# bt ARGS...: "requests/s cpu_per_request_us" of one benchtop run (one rep, fixed work). Its
# CPU is the rep's own (cpu_s: the clients while they ran), not the read-back and cleanup after.
bt() {
	"$BT" run kv "$@" reps=1 warmup=0 --no-record --quiet --format json >"$T/bt.json"
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cells"][0]; ops=c["ops_s_median"]*c["wall_s"]; print(c["ops_s_median"], c["cpu_s"]/ops*1e6)' "$T/bt.json"
}
# rb P: "requests/s cpu_per_request_us" of redis-benchmark -t get,incr -c 50 -P P.
rb() {
	local c
	c=$(cpu "$T/rb.csv" redis-benchmark -p "$RP" -t get,incr -c 50 -P "$1" -n "$N" -q --csv)
	python3 -c '
import csv,sys
r = {row[0]: float(row[1]) for row in csv.reader(open(sys.argv[1])) if len(row) > 1 and row[0] in ("GET", "INCR")}
rate = 2 / (1 / r["GET"] + 1 / r["INCR"])
print(rate, float(sys.argv[2]) / (2 * int(sys.argv[3])) * 1e6)' "$T/rb.csv" "$c" "$N"
}
# ms TEST: "requests/s cpu_per_request_us" of memcslap --test=TEST --concurrency=4.
ms() {
	local c n=$((N / 8))
	c=$(cpu "$T/ms.txt" memcslap --servers=127.0.0.1:"$MP" --test="$1" --concurrency=4 --execute-number=$n)
	python3 -c '
import re,sys
t = float(re.search(r"Time to \w+\s+\d+ keys by\s+\d+ threads:\s+([0-9.]+)", open(sys.argv[1]).read()).group(1))
n = 4 * int(sys.argv[3])
print(n / t, float(sys.argv[2]) / n * 1e6)' "$T/ms.txt" "$c" "$n"
}
best() { sort -g -r | head -1; }

declare -A R
for round in $(seq "$ROUNDS"); do
	for d in 1 16; do
		R[rb$d]+="$(rb $d)"$'\n'
		R[bt$d]+="$(bt backend=redis server=127.0.0.1:$RP clients=50 depth=$d iterations=$((N / 100)))"$'\n'
	done
	R[msget]+="$(ms get)"$'\n'
	R[msset]+="$(ms set)"$'\n'
	R[btmc]+="$(bt backend=memcached server=127.0.0.1:$MP clients=4 iterations=$((N / 16)))"$'\n'
done

row() { # LABEL KEY: the best rate of ROUNDS and the CPU per request of that run
	printf '%s' "${R[$2]}" | sort -g -r | head -1 | awk -v l="$1" '{ printf "%-44s %12.0f %10.2f\n", l, $1, $2 }'
}
ratio() { # LABEL A B: rates and CPU per request, A over B
	local a b
	a=$(printf '%s' "${R[$2]}" | sort -g -r | head -1) b=$(printf '%s' "${R[$3]}" | sort -g -r | head -1)
	awk -v l="$1" -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ");
		printf "%-44s %12.2fx %9.2fx\n", l, x[1] / y[1], x[2] / y[2] }'
}
echo "# kv vs the servers' own load generators; one machine, shared: figures are noisy (best of $ROUNDS)"
printf '%-44s %12s %10s\n' "" "requests/s" "cpu us/req"
row "redis-benchmark -t get,incr -c 50 -P 1" rb1
row "benchtop kv backend=redis clients=50 depth=1" bt1
row "redis-benchmark -t get,incr -c 50 -P 16" rb16
row "benchtop kv backend=redis clients=50 depth=16" bt16
row "memcslap --test=get --concurrency=4" msget
row "memcslap --test=set --concurrency=4" msset
row "benchtop kv backend=memcached clients=4" btmc
echo
printf '%-44s %13s %10s\n' "ratios (benchtop / peer)" "requests/s" "cpu/req"
ratio "redis depth 1 vs -P 1" bt1 rb1
ratio "redis depth 16 vs -P 16" bt16 rb16
ratio "memcached 4 clients vs memcslap get" btmc msget
ratio "memcached 4 clients vs memcslap set" btmc msset
