#!/usr/bin/env bash
# net.sh - benchtop's http and events workloads against the classic tools,
# side by side in one run against the same nginx (figures, not a test):
#   * wrk -t2 -c50 -dS  vs  benchtop http users=50 threads=2 (closed loop, keep-alive)
#   * httperf --rate R --num-conns ... (one request per connection)  vs
#     benchtop http rate=R conn=new (open loop on a fixed schedule)
#   * siege -b -c N -t S  vs  benchtop http users=N (closed loop, no think time)
#   * perf bench epoll wait  beside  benchtop events api=epoll: perf counts
#     events delivered per second by epoll_wait to threads, each watching
#     its share of eventfds that writer threads keep making ready (the
#     kernel's wakeup and delivery path); events counts rounds per second
#     in which one waiter makes active= of fds= descriptors ready and reads
#     them back (the cost of one wait as the watched and active sets grow).
# For each pair: requests/s, client CPU (user + sys) per request, and the
# ratios benchtop / peer. The machine is shared: each pair runs ROUNDS times
# (default 3), the two sides back to back and taking turns going first, and
# the table gives medians and the median of the per-round ratios. nginx is
# started here on a free loopback port from a config in a scratch directory
# (its pid file, logs and temp paths inside) and stopped by PID on exit; no
# service of the machine is touched.
# The tools are bench-only: installed with apt-get when missing and root,
# else the script says what to install.
# usage: bench/net.sh [path/to/benchtop] [seconds per run]   (default build/benchtop, 5)
#        ROUNDS=3 USERS=50 RATE=2000 PAIRS="wrk httperf siege epoll" (the pairs to run)
set -euo pipefail
BT=${1:-build/benchtop}
SECS=${2:-5}
RATE=${RATE:-2000}
USERS=${USERS:-50}
ROUNDS=${ROUNDS:-3}
PAIRS=${PAIRS:-wrk httperf siege epoll}
T=$(mktemp -d)
NGINX_PID=
cleanup() {
	if [[ -n $NGINX_PID ]]; then
		kill -TERM "$NGINX_PID" 2>/dev/null || true
		for _ in $(seq 50); do kill -0 "$NGINX_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$NGINX_PID" 2>/dev/null || true
	fi
	rm -rf "$T"
}
trap cleanup EXIT

need=()
for p in nginx:nginx wrk:wrk httperf:httperf siege:siege perf:linux-perf python3:python3; do
	command -v "${p%%:*}" >/dev/null 2>&1 || need+=("${p#*:}")
done
if ((${#need[@]})); then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		# policy-rc.d: installing nginx must not start the machine's service.
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null || true
		rm -f /usr/sbin/policy-rc.d
	else
		echo "net.sh: install ${need[*]} (apt install ${need[*]})" >&2
		exit 2
	fi
fi

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$T/www" "$T/tmp"
head -c 1704 /dev/zero | tr '\0' a >"$T/www/index.html"
USERLINE=; [[ $(id -u) == 0 ]] && USERLINE="user root root;"
cat >"$T/nginx.conf" <<CONF
daemon off; master_process on; worker_processes 1; $USERLINE
pid $T/nginx.pid; error_log $T/error.log warn; worker_rlimit_nofile 65536;
events { worker_connections 16384; }
http { access_log off; sendfile on; tcp_nodelay on; keepalive_requests 100000000;
  client_body_temp_path $T/tmp/b; proxy_temp_path $T/tmp/p; fastcgi_temp_path $T/tmp/f;
  uwsgi_temp_path $T/tmp/u; scgi_temp_path $T/tmp/s;
  server { listen 127.0.0.1:$PORT; root $T/www; location = / { try_files /index.html =404; } } }
CONF
chmod 755 "$T"
nginx -p "$T" -c "$T/nginx.conf" -e "$T/error.log" >"$T/nginx.out" 2>&1 &
NGINX_PID=$!
for _ in $(seq 100); do
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
	sleep 0.05
done
URL="http://127.0.0.1:$PORT/"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# Run a peer tool; its output in $T/peer.out, its CPU (user + sys s) in $T/peer.cpu.
peer() {
	local TIMEFORMAT='%U %S'
	{ time "$@" >"$T/peer.out" 2>&1; } 2>"$T/peer.time" || true
	awk '{ print $1 + $2 }' "$T/peer.time" >"$T/peer.cpu"
}
# benchtop run ARGS -> "req/s cpu_s requests errors p50_ns p99_ns": its CPU is the
# rep's (user + sys of the process while the clients ran), its requests the replies.
bt() {
	"$BT" run http server="$URL" "$@" duration="${SECS}s" reps=1 warmup=0 --no-record --quiet \
		--format json >"$T/o.json"
	python3 -c 'import json,sys
c=json.load(open(sys.argv[1]))["cells"][0]; m=c["metrics"]
print(c["ops_s_median"], c["user_s"]+c["sys_s"], m["replies"]["median"], sum(m[k]["median"] for k in ("client-timo","connrefused","connreset","fd-unavail","addrunavail","protocol")), c["p50_ns"], c["p99_ns"])' "$T/o.json"
}
# One pair, one round: the peer's and benchtop's "req/s cpu_s requests" appended
# to $T/NAME.peer and $T/NAME.bt (benchtop's errors and latency to $T/NAME.lat).
# Odd rounds run the peer first, even rounds benchtop first.
wrk_run() {
	peer wrk -t2 -c"$USERS" -d"${SECS}s" "$URL"
	echo "$(awk '/^Requests\/sec/ { print $2 }' "$T/peer.out") $(cat "$T/peer.cpu") $(awk '/requests in/ { print $1 }' "$T/peer.out")" >>"$T/wrk.peer"
	grep -E '^ +Latency' "$T/peer.out" | tr -s ' ' >"$T/wrk.peerlat"
}
httperf_run() {
	peer httperf --hog --server 127.0.0.1 --port "$PORT" --uri / --rate "$RATE" --num-conns $((RATE * SECS)) --num-calls 1 --timeout 5
	local cpu
	cpu=$(awk '/^CPU time \[s\]:/ { print $5 + $7 }' "$T/peer.out")
	echo "$(awk '/^Request rate:/ { print $3 }' "$T/peer.out") ${cpu:-$(cat "$T/peer.cpu")} $(awk '/^Total: connections/ { print $5 }' "$T/peer.out")" >>"$T/httperf.peer"
	grep -E '^Reply time' "$T/peer.out" >"$T/httperf.peerlat"
}
siege_run() {
	peer siege -b -q -c "$USERS" -t "${SECS}S" "$URL"
	# siege 4 prints its summary as JSON ("transaction_rate", "transactions").
	echo "$(awk -F'[:,]' '/"transaction_rate"/ { gsub(/[ \t]/, "", $2); print $2 }' "$T/peer.out") $(cat "$T/peer.cpu") $(awk -F'[:,]' '/"transactions"/ { gsub(/[ \t]/, "", $2); print $2 }' "$T/peer.out")" >>"$T/siege.peer"
}
bt_run() { # NAME ARGS...
	local name=$1
	shift
	bt "$@" >"$T/bt.line"
	cut -d' ' -f1-3 "$T/bt.line" >>"$T/$name.bt"
	cut -d' ' -f4- "$T/bt.line" >>"$T/$name.lat"
}
pair() { # ROUND NAME PEER_FN BENCHTOP_ARGS...
	local round=$1 name=$2 fn=$3
	shift 3
	if ((round % 2)); then
		$fn; bt_run "$name" "$@"
	else
		bt_run "$name" "$@"; $fn
	fi
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); a shared, noisy machine"
echo "nginx $(nginx -v 2>&1 | sed 's/.*\///') on $URL, 1 worker, 1704-byte page; $ROUNDS interleaved rounds of ${SECS}s runs"
echo
has() { [[ " $PAIRS " == *" $1 "* ]]; }
for round in $(seq "$ROUNDS"); do
	if has wrk; then pair "$round" wrk wrk_run users="$USERS" threads=2; fi
	if has httperf; then pair "$round" httperf httperf_run rate="$RATE" conn=new; fi
	if has siege; then pair "$round" siege siege_run users="$USERS"; fi
done
# Per pair: the median over rounds of each side's req/s and CPU per request,
# and the median of the per-round ratios (each round's two runs were back to
# back, so the load of the moment fell on both).
python3 - "$T" "$ROUNDS" "$USERS" "$RATE" <<'PY'
import os, statistics as st, sys
T, rounds, users, rate = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
def rows(f):
    out = []
    for line in open(f"{T}/{f}"):
        v = [float(x) if x else 0.0 for x in line.split()]
        v += [0.0] * (3 - len(v))
        out.append((v[0], v[1] / v[2] * 1e6 if v[2] else float("nan")))
    return out
names = {"wrk": f"wrk -t2 -c{users} (keep-alive)", "httperf": f"httperf --rate {rate} (new conn)",
         "siege": f"siege -b -c {users}"}
print(f"{'':32s} {'peer req/s':>11s} {'us CPU/req':>10s} | {'benchtop':>9s} {'us CPU/req':>10s} | ratio req/s  CPU/req")
for n, label in names.items():
    if not os.path.exists(f"{T}/{n}.bt"):
        continue
    p, b = rows(f"{n}.peer"), rows(f"{n}.bt")
    rr = [y[0] / x[0] if x[0] else float("nan") for x, y in zip(p, b)]
    rc = [y[1] / x[1] if x[1] else float("nan") for x, y in zip(p, b)]
    med = lambda l, i: st.median(r[i] for r in l)
    print(f"{label:32s} {med(p,0):11.0f} {med(p,1):10.2f} | {med(b,0):9.0f} {med(b,1):10.2f} |"
          f" {st.median(rr):9.2f}x {st.median(rc):7.2f}x   (rounds: req/s {' '.join(f'{x:.2f}' for x in rr)};"
          f" CPU/req {' '.join(f'{x:.2f}' for x in rc)})")
PY
lat() { # the last round's benchtop errors and latency beside the peer's own line
	read -r err p50 p99 < <(tail -1 "$T/$1.lat")
	echo "  $1, last round: benchtop errors ${err%.*}, p50 $((${p50%.*} / 1000)) us, p99 $((${p99%.*} / 1000)) us$2 | $(cat "$T/$1.peerlat" 2>/dev/null)"
}
echo
if has wrk; then lat wrk ""; fi
if has httperf; then lat httperf " (from the intended send)"; fi
has epoll || exit 0
echo
echo "perf bench epoll wait (events delivered/s to 2 waiter threads, writers keep every fd ready):"
perf bench epoll wait -t 2 -r "$SECS" 2>&1 | grep -iE 'operations|Averaged|ops' | head -3 || echo "  (perf bench epoll wait failed)"
echo "benchtop events (rounds/s: one waiter makes active=1 of fds= ready, waits, reads):"
"$BT" run events api=epoll,poll fds=64,1000 active=1 duration="${SECS}s" reps=1 warmup=0 --no-record --quiet --format json >"$T/o.json"
python3 - "$T/o.json" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    print(f'  {c["label"]:22s} {c["ops_s_median"]:10.0f} rounds/s  {c["metrics"]["wait"]["median"]:8.0f} ns per wait')
PY
