#!/usr/bin/env bash
# faults.sh - a server killed in the middle of a run. http against an nginx
# this script starts and kills by PID, http against the nginx benchtop
# spawns (server=nginx: its process group killed), kv against a
# redis-server this script starts and kills. Each time: the errors are
# counted by kind (the recording's rep line), the run ends within a bound,
# with one clear line and the exit status that says what happened.
# usage: tests/faults.sh path/to/benchtop
set -u
BT=$(readlink -f "$1")
for prog in nginx redis-server python3; do
	command -v $prog >/dev/null || [ -x /usr/sbin/$prog ] || { echo "SKIP: $prog is not installed"; exit 77; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
T=$(mktemp -d /tmp/bt-faults.XXXXXX)
export XDG_STATE_HOME="$T/state"
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
pass=0 failn=0
SPID=
cleanup() {
	[ -n "$SPID" ] && kill -9 "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { failn=$((failn + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && printf '  %s\n' "$2"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# answers PORT: something accepts connections on 127.0.0.1:PORT.
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# wait_until SECONDS CMD...: poll CMD (every 20 ms) until it succeeds; 1 at the deadline.
wait_until() {
	local n=$(($1 * 50)) i; shift
	for ((i = 0; i < n; i++)); do "$@" && return 0; sleep 0.02; done
	return 1
}
# served FILE: the recording has a sample with ops done (the run is under way).
served() { grep -q '"type":"sample".*"ops":[1-9]' "$1" 2>/dev/null; }
# errors FILE: "name=count ..." of the error kinds of the recording's rep lines, summed.
errors() {
	python3 - "$1" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
kinds = [m["name"] for m in lines[0].get("metrics", []) if m.get("error")]
tot = {k: 0 for k in kinds}
for l in lines:
    if l.get("type") == "rep":
        for k in kinds:
            tot[k] += int((l.get("metrics") or {}).get(k) or 0)
print(" ".join("%s=%d" % (k, v) for k, v in tot.items() if v))
EOF
}
# The nginx processes spawned under this script's TMPDIR (others on the machine are not ours).
ours() {
	local d
	for d in /proc/[0-9]*; do
		[ "$(cat "$d/comm" 2>/dev/null)" = nginx ] || continue
		case $(readlink "$d/cwd" 2>/dev/null) in "$TMPDIR"/*) echo "${d#/proc/}" ;; esac
	done
}

# kill_ours_mid_run REC: once REC shows served requests, kill our server
# ($SPID) and wait for benchtop ($bpid); sets rc, ms (since $t0) and errs.
kill_ours_mid_run() {
	wait_until 10 served "$1"
	kill -9 "$SPID"; wait "$SPID" 2>/dev/null; SPID=
	wait "$bpid"; rc=$?
	ms=$(($(now_ms) - t0))
	errs=$(errors "$1")
}

# --- http against an nginx of ours, killed by PID mid-run -------------------
port=$(free_port)
mkdir -p "$T/ng/www" "$T/ng/tmp"
echo hello >"$T/ng/www/index.html"
cat >"$T/ng/nginx.conf" <<EOF
daemon off;
master_process off;
pid $T/ng/nginx.pid;
error_log $T/ng/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $T/ng/tmp/body; proxy_temp_path $T/ng/tmp/proxy;
  fastcgi_temp_path $T/ng/tmp/fastcgi; uwsgi_temp_path $T/ng/tmp/uwsgi; scgi_temp_path $T/ng/tmp/scgi;
  server { listen 127.0.0.1:$port; root $T/ng/www; }
}
EOF
"$NGINX" -p "$T/ng" -c "$T/ng/nginx.conf" -e "$T/ng/error.log" >/dev/null 2>&1 &
SPID=$!
wait_until 5 answers "$port" || bad "our nginx answers on $port" "$(cat "$T/ng/error.log" 2>/dev/null)"
t0=$(now_ms)
"$BT" run http server=http://127.0.0.1:$port/ users=4 duration=2s reps=1 warmup=0 \
	--record "$T/h1.jsonl" >"$T/out" 2>"$T/err" &
bpid=$!
kill_ours_mid_run "$T/h1.jsonl"
line=$(grep -E '^http: [0-9]+ of [0-9]+ requests failed: ' "$T/out")
# Refused once it is gone; reset for the keep-alive connections it had open.
[ $rc -eq 0 ] && [ $ms -lt 8000 ] && [[ $errs == *connrefused=* ]] && [ -n "$line" ] &&
	ok "http, our nginx killed: errors by kind ($errs), the check line says so, exit 0, ${ms} ms" ||
	bad "http, our nginx killed" "rc=$rc ${ms}ms errors: $errs line: $line $(cat "$T/err")"
case $line in *connrefused*) ok "http check line names the kinds: ${line#http: }" ;;
*) bad "http check line kinds" "$line" ;; esac

# --- http against the nginx benchtop spawned, its process group killed --------
t0=$(now_ms)
"$BT" run http server=nginx users=4 duration=2s reps=1 warmup=0 --record "$T/h2.jsonl" \
	>"$T/out" 2>"$T/err" &
bpid=$!
victim=
wait_until 10 served "$T/h2.jsonl" && victim=$(pgrep -P "$bpid" -x nginx)
[ -n "$victim" ] && kill -9 -- "-$victim"
wait "$bpid"; rc=$?
ms=$(($(now_ms) - t0))
errs=$(errors "$T/h2.jsonl")
[ -n "$victim" ] && [ $rc -eq 1 ] && [ $ms -lt 8000 ] && [ "$(wc -l <"$T/err")" -le 2 ] &&
	grep -q 'the spawned server died during the rep: nginx was killed by SIGKILL' "$T/err" &&
	[ -n "$errs" ] &&
	ok "http, spawned nginx killed: said so, exit 1, errors by kind ($errs), ${ms} ms" ||
	bad "http, spawned nginx killed" "victim=$victim rc=$rc ${ms}ms errors: $errs $(cat "$T/err")"
grep -q '"type":"end","status":"failed"' "$T/h2.jsonl" && ok "its recording ends failed, complete" ||
	bad "spawned nginx recording" "$(tail -1 "$T/h2.jsonl")"
[ -z "$(ours)" ] && ok "no nginx of ours left" || bad "nginx left" "$(ours)"

# --- kv against a redis-server of ours, killed by PID mid-run ----------------
port=$(free_port)
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --logfile "" \
	>"$T/redis.log" 2>&1 &
SPID=$!
wait_until 5 answers "$port" || bad "our redis answers on $port" "$(cat "$T/redis.log")"
t0=$(now_ms)
"$BT" run kv backend=redis server=127.0.0.1:$port clients=4 duration=2s timeout=500ms \
	on_error=continue reps=1 warmup=0 --record "$T/k.jsonl" >"$T/out" 2>"$T/err" &
bpid=$!
kill_ours_mid_run "$T/k.jsonl"
# The counts cannot be read back from a dead server: the rep fails, and says why.
[ $rc -eq 1 ] && [ $ms -lt 8000 ] && [[ $errs == *refused=* || $errs == *reset=* ]] &&
	grep -q "cannot read back: redis 127.0.0.1:$port: Connection refused" "$T/err" &&
	ok "kv, our redis killed: errors by kind ($errs), said so, exit 1, ${ms} ms" ||
	bad "kv, our redis killed" "rc=$rc ${ms}ms errors: $errs $(cat "$T/err")"

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
