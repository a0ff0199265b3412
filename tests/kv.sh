#!/usr/bin/env bash
# kv.sh - the kv workload against real servers: exact counts for every
# backend as threads and as processes at 1, 8 and 200 clients; spawn and
# cleanup (no server left behind, keys removed from a server benchtop did
# not start); a server killed mid-run; an unreachable address; redis AUTH
# with the right and a wrong password.
# usage: tests/kv.sh path/to/benchtop
# Uses $BT_TEST_MEMCACHED / $BT_TEST_REDIS (host:port, from ./dev test) when
# set, else server=spawn; gearman is always spawned. Starts one redis-server
# of its own (with a password) on a free port and stops it by PID.
set -u
BT=$1
for prog in memcached redis-server redis-cli python3; do
	command -v $prog >/dev/null || { echo "SKIP: $prog is not installed"; exit 77; }
done
[ -x /usr/sbin/gearmand ] || command -v gearmand >/dev/null || { echo "SKIP: gearmand is not installed"; exit 77; }
T=$(mktemp -d /tmp/bt-kv.XXXXXX)
export XDG_STATE_HOME="$T/state"
pass=0 failn=0
RPID=
cleanup() {
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null && wait "$RPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { failn=$((failn + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && printf '  %s\n' "$2"; }

# PIDs of server processes (memcached, redis-server, gearmand) now running, from /proc.
# The servers benchtop spawned for this script: they run in scratch directories under
# this script's own TMPDIR (other suites on the machine may spawn theirs meanwhile).
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"
servers() {
	local d c
	for d in /proc/[0-9]*; do
		c=$(cat "$d/comm" 2>/dev/null) || continue
		case $c in memcached | redis-server | gearmand) ;; *) continue ;; esac
		case $(readlink "$d/cwd" 2>/dev/null) in "$TMPDIR"/*) echo "${d#/proc/}" ;; esac
	done | sort
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

before=$(servers)
MC=${BT_TEST_MEMCACHED:-spawn}
RD=${BT_TEST_REDIS:-spawn}

# Exact counts: clients x iterations increments, read back and summed, per cell.
for as in threads processes; do
	for spec in inproc:spawn memcached:$MC redis:$RD gearman:spawn; do
		b=${spec%%:*} srv=${spec#*:}
		# gearman: 200 clients queue on benchtop's one counting worker; give them time.
		"$BT" run kv backend=$b server=$srv clients=1,8,200 iterations=4 as=$as reps=1 warmup=0 timeout=20s \
			--no-record >"$T/out" 2>"$T/err"; rc=$?
		good=1
		for c in 1 8 200; do
			n=$((c * 4))
			grep -Eq "^clients=$c: [0-9]+ keys read back.* sum $n = $n (background )?increments" "$T/out" || good=0
		done
		[ $rc -eq 0 ] && [ $good -eq 1 ] && ok "$b as=$as: exact counts at 1, 8, 200 clients" ||
			bad "$b as=$as: exact counts" "rc=$rc $(cat "$T/err") $(grep -A4 '^checks' "$T/out")"
	done
done

# Latency channels: each answered request's service time in incr or read, one value each.
for as in threads processes; do
	"$BT" run kv backend=inproc clients=3 iterations=50 as=$as reps=1 warmup=0 --no-record >"$T/out" 2>"$T/err"; rc=$?
	incr=$(sed -n '/^latency, incr$/,/^$/p' "$T/out" | awk '$1 == "kv" { print $NF }')
	read=$(sed -n '/^latency, read$/,/^$/p' "$T/out" | awk '$1 == "kv" { print $NF }')
	[ $rc -eq 0 ] && [ "$incr" = 150 ] && [ "$read" = 150 ] && ok "kv as=$as: incr and read channels count 150 each" ||
		bad "kv as=$as: channels" "rc=$rc incr=$incr read=$read $(cat "$T/err")"
done

# Variants: memcached binary noreply, redis pipelined, gearman background, short keys.
# (gearman last: the note checked below is its run's)
for v in "memcached server=$MC protocol=binary noreply=on" "redis server=$RD depth=16" \
	"redis server=$RD key=short loops=1" "memcached server=$MC key=short" "gearman submit=background"; do
	"$BT" run kv backend=$v clients=8 iterations=20 reps=1 warmup=0 --no-record >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 0 ] && grep -Eq '^kv: [0-9]+ keys read back.* sum 160 = 160 ' "$T/out" && ok "kv backend=$v: exact" ||
		bad "kv backend=$v" "rc=$rc $(cat "$T/err") $(grep -A2 '^checks' "$T/out")"
done
grep -q 'background increments (the clients never saw a count' "$T/out" && ok "background: verify says what it cannot know" ||
	bad "background note" "$(grep -A2 '^checks' "$T/out")"

# Event loops (loops=): 8 clients on 1 and 3 loops, as threads and processes, depth 1 and 16.
for v in "loops=1 as=threads" "loops=3 as=processes" "loops=3 depth=16 as=threads"; do
	"$BT" run kv backend=redis server=$RD clients=8 iterations=20 $v reps=1 warmup=0 --no-record >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 0 ] && grep -Eq '^kv: [0-9]+ keys read back.* sum 160 = 160 increments$' "$T/out" && ok "redis $v: exact" ||
		bad "redis $v" "rc=$rc $(cat "$T/err") $(grep -A2 '^checks' "$T/out")"
done

# op=incr, get and set: the increments summed, every get a hit of value_size bytes, every set key read back.
for b in "memcached server=$MC" "redis server=$RD" "redis server=$RD loops=2 depth=4"; do
	"$BT" run kv backend=$b clients=4 iterations=25 op=incr,get,set value_size=3000 keys=40 reps=1 warmup=0 \
		--no-record >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 0 ] && grep -Eq '^op=incr: [0-9]+ keys read back, sum 100 = 100 increments$' "$T/out" &&
		grep -q '^op=get: 100 reads answered, every one found its 3000-byte value (keyspace 40)$' "$T/out" &&
		grep -Eq '^op=set: 100 sets to [0-9]+ keys: [0-9]+ read back, each 3000 bytes$' "$T/out" &&
		[ "$(sed -n 's/^op=set: 100 sets to \([0-9]*\) keys: \([0-9]*\) read back.*/\1 \2/p' "$T/out" | awk '$1 == $2 && $1 <= 40')" != "" ] &&
		ok "op=incr,get,set backend=$b: exact" || bad "op= backend=$b" "rc=$rc $(cat "$T/err") $(grep -A4 '^checks' "$T/out")"
done

# What the event loops and values are for: one line each, nothing started.
for v in "backend=memcached loops=2" "backend=inproc op=get" "backend=redis clients=2 loops=3" "backend=memcached protocol=binary noreply=on op=set"; do
	"$BT" run kv $v reps=1 warmup=0 --no-record >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ok "kv $v: refused in one line" || bad "kv $v" "rc=$rc $(cat "$T/err")"
done

# No spawned server outlived its run.
after=$(servers)
[ "$before" = "$after" ] && ok "no spawned server left (checked in /proc)" || bad "servers left" "before: $before after: $after"

# A redis of our own with a password: AUTH, wrong password, and cleanup of our keys only.
port=$(free_port)
redis-server --port "$port" --bind 127.0.0.1 --save "" --requirepass s3cret --logfile "" >"$T/redis.log" 2>&1 &
RPID=$!
for _ in $(seq 100); do redis-cli -p "$port" -a s3cret --no-auth-warning ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
redis-cli -p "$port" -a s3cret --no-auth-warning set foreign 1 >/dev/null
"$BT" run kv backend=redis server=127.0.0.1:$port password=s3cret clients=8 iterations=10 reps=2 warmup=0 \
	--no-record >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -Eq 'sum 80 = 80 increments' "$T/out" && ok "redis AUTH: exact" || bad "redis AUTH" "rc=$rc $(cat "$T/err")"
"$BT" run kv backend=redis server=127.0.0.1:$port password=s3cret clients=8 iterations=10 loops=2 reps=1 warmup=0 \
	--no-record >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -Eq 'sum 80 = 80 increments' "$T/out" && ok "redis AUTH, loops=2: exact" || bad "redis AUTH loops=2" "rc=$rc $(cat "$T/err")"
keys=$(redis-cli -p "$port" -a s3cret --no-auth-warning --scan --pattern '*' | sort | tr '\n' ' ')
[ "$keys" = "foreign " ] && ok "cleanup: the run's keys deleted, the server's own kept" || bad "cleanup" "keys left: $keys"
"$BT" run kv backend=redis server=127.0.0.1:$port password=wrong reps=1 warmup=0 --no-record >"$T/out" 2>"$T/err"; rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'AUTH refused' "$T/err" && ok "redis wrong password: one clear line" ||
	bad "redis wrong password" "rc=$rc $(cat "$T/err")"
"$BT" run kv backend=redis server=127.0.0.1:$port reps=1 warmup=0 --no-record >"$T/out" 2>"$T/err"; rc=$?
[ $rc -ne 0 ] && grep -qi 'auth' "$T/err" && ok "redis without the password: refused" || bad "redis no password" "rc=$rc $(cat "$T/err")"
kill "$RPID"; wait "$RPID" 2>/dev/null; RPID=

# Unreachable: a refused port, and a listener that never answers (a timeout).
dead=$(free_port) mute=$(free_port)
python3 -c 'import socket,sys,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(16); time.sleep(60)' "$mute" &
MPID=$!
sleep 0.3
for addr in 127.0.0.1:$dead 127.0.0.1:$mute; do
	t0=$(date +%s%N)
	"$BT" run kv backend=redis server=$addr timeout=500ms reps=1 warmup=0 --no-record >"$T/out" 2>"$T/err"; rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $rc -ne 0 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "redis $addr" "$T/err" && [ $ms -lt 5000 ] &&
		ok "unreachable $addr: one line in ${ms} ms" || bad "unreachable $addr" "rc=$rc ${ms}ms $(cat "$T/err")"
done
kill "$MPID"; wait "$MPID" 2>/dev/null

# The spawned redis-server killed mid-run: said so, nothing left behind; on_error=stop ends the rep.
for v in "continue duration=5s" "stop duration=5s" "continue loops=2 duration=3s"; do
	mode=${v%% *} extra=${v#"$mode"}
	# shellcheck disable=SC2086
	"$BT" run kv backend=redis clients=8 on_error=$mode $extra reps=1 warmup=0 --no-record \
		>"$T/out" 2>"$T/err" &
	bpid=$!
	victim=
	for _ in $(seq 200); do
		victim=$(pgrep -P "$bpid" -x redis-server)
		[ -n "$victim" ] && break
		sleep 0.02
	done
	sleep 0.5
	[ -n "$victim" ] && kill -9 "$victim"
	wait "$bpid"; rc=$?
	if [ $mode = continue ]; then
		want='the spawned server died during the rep: redis-server was killed by SIGKILL'
	else
		want='(on_error=stop)'
	fi
	[ -n "$victim" ] && [ $rc -ne 0 ] && grep -qF "$want" "$T/err" && ok "redis killed mid-run, on_error=$v: said so" ||
		bad "redis killed, on_error=$v" "victim=$victim rc=$rc $(cat "$T/err")"
done
after=$(servers)
[ "$before" = "$after" ] && ok "after the kills: no server left" || bad "servers left after kills" "before: $before after: $after"

echo "$pass passed, $failn failed"
[ $failn -eq 0 ]
