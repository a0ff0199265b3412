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
# ratios benchtop / peer. nginx is started here on a free loopback port from
# a config in a scratch directory (its pid file, logs and temp paths inside)
# and stopped by PID on exit; no service of the machine is touched.
# The tools are bench-only: installed with apt-get when missing and root,
# else the script says what to install.
# usage: bench/net.sh [path/to/benchtop] [seconds per run]   (default build/benchtop, 5)
set -euo pipefail
BT=${1:-build/benchtop}
SECS=${2:-5}
RATE=${RATE:-2000}
USERS=${USERS:-50}
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
# benchtop run ARGS -> "req/s cpu_s requests"
bt() {
	"$BT" run http server="$URL" "$@" duration="${SECS}s" reps=1 warmup=0 --no-record --quiet \
		--format json >"$T/o.json"
	python3 -c 'import json,sys
c=json.load(open(sys.argv[1]))["cells"][0]; m=c["metrics"]
print(c["ops_s_median"], c["user_s"]+c["sys_s"], m["replies"]["median"], sum(m[k]["median"] for k in ("client-timo","connrefused","connreset","fd-unavail","addrunavail","protocol")), c["p50_ns"], c["p99_ns"])' "$T/o.json"
}
line() {	# name peer_rps peer_cpu peer_reqs bt_rps bt_cpu bt_reqs
	python3 - "$@" <<'PY'
import sys
n, prps, pcpu, preq, brps, bcpu, breq = sys.argv[1], *map(float, sys.argv[2:])
pc = pcpu / preq * 1e6 if preq else float("nan"); bc = bcpu / breq * 1e6 if breq else float("nan")
print(f"{n:28s} peer {prps:9.0f} req/s {pc:7.1f} us CPU/req | benchtop {brps:9.0f} req/s {bc:7.1f} us CPU/req"
      f" | req/s ratio {brps / prps if prps else float('nan'):.2f}, CPU/req ratio {bc / pc if pc else float('nan'):.2f}")
PY
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); a shared, noisy machine: one run of ${SECS}s each"
echo "nginx $(nginx -v 2>&1 | sed 's/.*\///') on $URL, 1 worker, 1704-byte page"
echo

peer wrk -t2 -c"$USERS" -d"${SECS}s" "$URL"
W_RPS=$(awk '/^Requests\/sec/ { print $2 }' "$T/peer.out")
W_REQ=$(awk '/requests in/ { print $1 }' "$T/peer.out")
read -r B_RPS B_CPU B_REQ B_ERR B_P50 B_P99 < <(bt users="$USERS" threads=2)
line "wrk -t2 -c$USERS (keep-alive)" "$W_RPS" "$(cat "$T/peer.cpu")" "$W_REQ" "$B_RPS" "$B_CPU" "$B_REQ"
echo "  benchtop errors $B_ERR, p50 $((B_P50 / 1000)) us, p99 $((B_P99 / 1000)) us; wrk: $(grep -E '^ +Latency' "$T/peer.out" | tr -s ' ')"

N=$((RATE * SECS))
peer httperf --hog --server 127.0.0.1 --port "$PORT" --uri / --rate "$RATE" --num-conns "$N" --num-calls 1 --timeout 5
H_RPS=$(awk '/^Request rate:/ { print $3 }' "$T/peer.out")
H_REQ=$(awk '/^Total: connections/ { print $5 }' "$T/peer.out")
H_CPU=$(awk '/^CPU time \[s\]:/ { print $5 + $7 }' "$T/peer.out")
read -r B_RPS B_CPU B_REQ B_ERR B_P50 B_P99 < <(bt rate="$RATE" conn=new)
line "httperf --rate $RATE (new conn)" "$H_RPS" "${H_CPU:-$(cat "$T/peer.cpu")}" "$H_REQ" "$B_RPS" "$B_CPU" "$B_REQ"
echo "  benchtop errors $B_ERR, p50 $((B_P50 / 1000)) us, p99 $((B_P99 / 1000)) us (from the intended send); httperf: $(grep -E '^Reply time' "$T/peer.out")"

peer siege -b -q -c "$USERS" -t "${SECS}S" "$URL"
# siege 4 prints its summary as JSON ("transaction_rate", "transactions").
S_RPS=$(awk -F'[:,]' '/"transaction_rate"/ { gsub(/[ \t]/, "", $2); print $2 }' "$T/peer.out")
S_REQ=$(awk -F'[:,]' '/"transactions"/ { gsub(/[ \t]/, "", $2); print $2 }' "$T/peer.out")
read -r B_RPS B_CPU B_REQ B_ERR B_P50 B_P99 < <(bt users="$USERS")
line "siege -b -c $USERS" "${S_RPS:-0}" "$(cat "$T/peer.cpu")" "${S_REQ:-0}" "$B_RPS" "$B_CPU" "$B_REQ"

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
