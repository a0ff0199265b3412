#!/usr/bin/env bash
# crypto.sh - benchtop's crypto workloads against `openssl speed`, on this
# machine, in one go (figures, not a test):
#   * hash: sha256, sha1, md5, sha512 with 8192-byte blocks; openssl speed
#     -evp D -bytes 8192 against `benchtop run hash algo=D block=8192`, one
#     thread, and -multi 2 (two processes) against threads=2
#   * cipher: openssl speed -evp aes-128-ecb -bytes 16384 against `benchtop
#     run cipher algo=aes-128-ecb grain=16K` (one 16 KiB EVP_EncryptUpdate
#     per call, as openssl speed does) serial, and -multi 2 against
#     mode=omp-for threads=2, each in two forms: streaming a 64 MiB buffer
#     through memory (buffer=0, the default), and like for like, buffer=16K:
#     one L1-resident 16 KiB block per thread encrypted again and again, as
#     openssl speed does (the target there is a ratio >= 0.95)
#   * gost89 serial / omp-for / omp-sections at threads=1,2: wall time, CPU
#     time (user + sys), CPU/wall (effective parallelism), speedup over serial
#   * the openssl-speed-shaped table (rows digests, columns block sizes, in
#     1000s of bytes per second) from one benchtop sweep over block sizes
# Both sides measure wall-clock time: openssl speed runs with -elapsed (by
# default it divides by its user CPU time). Other load on the machine slows
# either side, so the two alternate, ROUNDS times (default 3), and the best
# figure of each side is compared.
# usage: bench/crypto.sh [path/to/benchtop] [seconds per run]   (default build/benchtop, 1)
set -euo pipefail
BT=${1:-build/benchtop}
SECS=${2:-1}
ROUNDS=${ROUNDS:-3}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# openssl speed ARGS... -> bytes/s (the last +F line of its machine-readable output)
ossl() {
	openssl speed -elapsed -seconds "$SECS" -mr "$@" 2>/dev/null | awk -F: '/^\+F:/ { v = $NF } END { print v }'
}

# benchtop run ARGS... -> JSON in $T/o.json; cell CELL's best or median bytes/s
bt() { "$BT" run "$@" --no-record --quiet --format json >"$T/o.json"; }
cell() {
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cells"][int(sys.argv[2])]; print(c["ops_s_" + sys.argv[3]])' \
		"$T/o.json" "$1" "$2"
}
best() { python3 -c 'import sys; print(max(float(x) for x in sys.argv[1].split()))' "$1"; }
ratio() { python3 -c 'import sys; print(f"{float(sys.argv[1]) / float(sys.argv[2]):.3f}")' "$1" "$2"; }

"$BT" run null ops=1000 reps=1 warmup=0 --record "$T/r.jsonl" >/dev/null 2>&1
python3 - "$T/r.jsonl" <<'EOF'
import json, sys
m = json.loads(open(sys.argv[1]).readline())["machine"]
print(f'machine: {m["cpu_model"]}, {m["allowed_cpus"]} CPUs; flags: {m["cpu_flags"]}; {m["openssl"]}')
EOF
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (other load lowers both sides; best of $ROUNDS rounds of ${SECS}s)"

declare -A O B
for _ in $(seq "$ROUNDS"); do
	for d in sha256 sha1 md5 sha512; do
		O[$d,1]+=" $(ossl -evp "$d" -bytes 8192)"
		bt hash algo="$d" block=8192 threads=1 duration="${SECS}s" reps=1 warmup=0
		B[$d,1]+=" $(cell 0 max)"
		O[$d,2]+=" $(ossl -evp "$d" -bytes 8192 -multi 2)"
		bt hash algo="$d" block=8192 threads=2 duration="${SECS}s" reps=1 warmup=0
		B[$d,2]+=" $(cell 0 max)"
	done
	O[aes,1]+=" $(ossl -evp aes-128-ecb -bytes 16384)"
	O[aes,2]+=" $(ossl -evp aes-128-ecb -bytes 16384 -multi 2)"
	# one rep is one pass over 64 MiB (a few ms); setup and verify take longer
	for buf in 0 16K; do
		bt cipher algo=aes-128-ecb grain=16K size=64M buffer=$buf mode=serial threads=1 reps=$((SECS * 10)) warmup=1
		B[aes,1,$buf]+=" $(cell 0 max)"
		bt cipher algo=aes-128-ecb grain=16K size=64M buffer=$buf mode=omp-for threads=2 reps=$((SECS * 10)) warmup=1
		B[aes,2,$buf]+=" $(cell 0 max)"
	done
done

printf '\n%-44s %16s %16s %10s\n' "bytes/s (best of $ROUNDS)" "openssl speed" "benchtop" "bt/openssl"
for d in sha256 sha1 md5 sha512; do
	for t in 1 2; do
		o=$(best "${O[$d,$t]}"); b=$(best "${B[$d,$t]}")
		if [ "$t" = 1 ]; then what="$d -bytes 8192 | threads=1"; else what="$d -bytes 8192 -multi 2 | threads=2"; fi
		printf '%-44s %16.4g %16.4g %10s\n' "$what" "$o" "$b" "$(ratio "$b" "$o")"
	done
done
for buf in 0 16K; do
	if [ "$buf" = 0 ]; then form="64 MiB streamed"; else form="buffer=16K"; fi
	o=$(best "${O[aes,1]}"); b=$(best "${B[aes,1,$buf]}")
	printf '%-44s %16.4g %16.4g %10s\n' "aes-128-ecb -bytes 16384 | serial, $form" "$o" "$b" "$(ratio "$b" "$o")"
	o=$(best "${O[aes,2]}"); b=$(best "${B[aes,2,$buf]}")
	printf '%-44s %16.4g %16.4g %10s\n' "aes-128-ecb -multi 2 | omp-for 2, $form" "$o" "$b" "$(ratio "$b" "$o")"
done
echo "(like for like: the buffer=16K rows; the streamed rows add memory traffic openssl speed does not do)"

echo
echo "gost89, 100 MiB per pass (medians of 3 reps): wall vs CPU time"
bt cipher algo=gost89 mode=serial,omp-for,omp-sections threads=1,2 reps=3 warmup=1
python3 - "$T/o.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
cells = d["cells"]
serial = next(c["wall_s"] for c in cells if c["values"]["mode"] == "serial" and c["values"]["threads"] == "1")
print(f'{"threads":>7} {"mode":>13} {"wall":>9} {"cpu":>9} {"cpu/wall":>9} {"speedup":>8} {"MB/s":>8}')
for c in cells:
    v = c["values"]
    cpu = c["user_s"] + c["sys_s"]
    print(f'{v["threads"]:>7} {v["mode"]:>13} {c["wall_s"]:8.3f}s {cpu:8.3f}s {cpu / c["wall_s"]:8.2f}x '
          f'{serial / c["wall_s"]:7.2f}x {c["ops_s_median"] / 1e6:8.1f}')
EOF

echo
echo "openssl speed's shape from benchtop (1000s of bytes per second, median of 3 reps of ${SECS}s):"
bt hash algo=md5,sha1,sha256,sha512 block=16,64,256,1024,8192,16384 duration="${SECS}s" reps=3 warmup=0
python3 - "$T/o.json" <<'EOF'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
algos, blocks = [], []
for c in cells:
    v = c["values"]
    if v["algo"] not in algos:
        algos.append(v["algo"])
    if v["block"] not in blocks:
        blocks.append(v["block"])
val = {(c["values"]["algo"], c["values"]["block"]): c["ops_s_median"] for c in cells}
print("type        " + "".join(f'{b + " bytes":>13}' for b in blocks))
for a in algos:
    print(f"{a:<12}" + "".join(f'{val[(a, b)] / 1000:12.2f}k' for b in blocks))
EOF
