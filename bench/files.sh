#!/usr/bin/env bash
# files.sh - benchtop's file workloads against the standard tools, on the
# same files, in one go (figures, not a test):
#   * copy: the best of benchtop copy's methods (rw, copy_file_range,
#     sendfile, uring at buffer=1M) against `cp` and `dd bs=1M`, warm and
#     cold (cold: fsync + DONTNEED on the input before each timed copy; for
#     the tools through `dd iflag=nocache count=0`)
#   * sort: benchtop sort method=merge threads=N against
#     `LC_ALL=C sort --parallel=N -k1,1` on the same record file (the key is
#     the 10 printable bytes before the first blank)
#   * grep: benchtop grep how=sequential against `grep -F -c` over the same
#     20 files, warm
#   * sequential read, cold: benchtop scan mode=buffered / direct at
#     buffer=1M against `fio --rw=read --ioengine=psync --bs=1M` (and
#     --direct=1) on the same file
# Each pair alternates ROUNDS times (default 3) and the best figure of each
# side is compared: other load on the machine slows either side. Ratios
# above 1 mean benchtop is faster.
# usage: bench/files.sh [path/to/benchtop]
#   env: SIZE (copy/read file, default 256M), RECORDS (default 400000),
#        THREADS (sort, default 2), ROUNDS (default 3), DIR (parent of the
#        scratch directory, default /var/tmp: a disk, where cold means cold)
set -euo pipefail
BT=${1:-build/benchtop}
SIZE=${SIZE:-256M}
RECORDS=${RECORDS:-400000}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
PARENT=${DIR:-/var/tmp}
for tool in fio python3; do
	command -v $tool >/dev/null || { echo "files.sh: $tool is missing (apt install $tool)" >&2; exit 2; }
done
T=$(mktemp -d "$PARENT/bt-bench-files.XXXXXX"); trap 'rm -rf "$T"' EXIT
D=$T/data			# benchtop's scratch directory, kept between runs

# benchtop run ARGS... -> best bytes/s (or ops/s: $KEY) of the one cell
bt() {
	"$BT" run "$@" dir="$D" keep=1 reps=1 warmup=0 --no-record --quiet --format json >"$T/o.json"
	python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cells"][0]; print(c[sys.argv[2]])' \
		"$T/o.json" "${KEY:-ops_s_max}"
}
now() { date +%s%N; }
# rate BYTES T0 T1 -> bytes/s
rate() { python3 -c 'import sys; b,t0,t1=map(int,sys.argv[1:]); print(b*1e9/max(t1-t0,1))' "$@"; }
max() { python3 -c 'import sys; print(max(float(x) for x in sys.argv[1:]))' "$@"; }
ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1])/float(sys.argv[2])))' "$1" "$2"; }
mb() { python3 -c 'import sys; print("%.0f" % (float(sys.argv[1])/1e6))' "$1"; }
drop() { sync "$1"; dd if="$1" iflag=nocache count=0 status=none; }
warm() { cat "$1" >/dev/null; }

row() { printf '%-34s %10s %10s %8s\n' "$@"; }
echo "# files.sh on $(uname -r), $(nproc) CPUs; scratch in $PARENT; size=$SIZE records=$RECORDS; best of $ROUNDS"
echo "# a shared machine: figures are noisy, the ratios (interleaved runs) less so"
row "comparison" "benchtop" "tool" "ratio"

# ---- copy -------------------------------------------------------------------
bt copy method=rw size="$SIZE" >/dev/null	# generates the input once
IN=$(ls "$D"/bytes-*)
BYTES=$(stat -c %s "$IN")
for cache in warm cold; do
	b=(); cpr=(); ddr=()
	for _ in $(seq "$ROUNDS"); do
		for m in rw copy_file_range sendfile uring; do
			b+=("$(bt copy method=$m buffer=1M size="$SIZE" cache=$cache)")
		done
		[ $cache = cold ] && drop "$IN" || warm "$IN"
		t0=$(now); cp "$IN" "$T/cp.out"; t1=$(now); cpr+=("$(rate "$BYTES" "$t0" "$t1")"); rm -f "$T/cp.out"
		[ $cache = cold ] && drop "$IN" || warm "$IN"
		t0=$(now); dd if="$IN" of="$T/dd.out" bs=1M status=none; t1=$(now)
		ddr+=("$(rate "$BYTES" "$t0" "$t1")"); rm -f "$T/dd.out"
	done
	B=$(max "${b[@]}"); C=$(max "${cpr[@]}"); DD=$(max "${ddr[@]}")
	row "copy $cache vs cp (MB/s)" "$(mb "$B")" "$(mb "$C")" "$(ratio "$B" "$C")"
	row "copy $cache vs dd bs=1M (MB/s)" "$(mb "$B")" "$(mb "$DD")" "$(ratio "$B" "$DD")"
done

# ---- sort -------------------------------------------------------------------
KEY=ops_s_max bt sort method=merge records="$RECORDS" >/dev/null
REC=$(ls "$D"/rec-*)
b=(); s=()
for _ in $(seq "$ROUNDS"); do
	b+=("$(KEY=ops_s_max bt sort method=merge threads="$THREADS" records="$RECORDS")")
	warm "$REC"
	t0=$(now); LC_ALL=C sort --parallel="$THREADS" -S 50% -k1,1 "$REC" >"$T/sorted"; t1=$(now)
	s+=("$(rate "$RECORDS" "$t0" "$t1")")
done
B=$(max "${b[@]}"); S=$(max "${s[@]}")
row "sort threads=$THREADS vs sort --parallel (Krec/s)" "$(python3 -c "print('%.0f' % ($B/1e3))")" \
	"$(python3 -c "print('%.0f' % ($S/1e3))")" "$(ratio "$B" "$S")"

# ---- grep -------------------------------------------------------------------
bt grep how=sequential >/dev/null
GBYTES=$(cat "$D"/text-* | wc -c)
b=(); g=()
for _ in $(seq "$ROUNDS"); do
	b+=("$(bt grep how=sequential)")
	t0=$(now); grep -F -c needle "$D"/text-* >/dev/null; t1=$(now)
	g+=("$(rate "$GBYTES" "$t0" "$t1")")
done
B=$(max "${b[@]}"); G=$(max "${g[@]}")
row "grep vs grep -F -c (MB/s)" "$(mb "$B")" "$(mb "$G")" "$(ratio "$B" "$G")"

# ---- sequential read, cold ----------------------------------------------------
bt scan mode=buffered size="$SIZE" hot=4K >/dev/null
BIG=$(ls "$D"/bytes-*-s2)
for direct in 0 1; do
	mode=buffered; [ $direct = 1 ] && mode=direct
	b=(); f=()
	for _ in $(seq "$ROUNDS"); do
		b+=("$(bt scan mode=$mode size="$SIZE" hot=4K buffer=1M)")
		drop "$BIG"
		f+=("$(fio --name=r --filename="$BIG" --rw=read --ioengine=psync --bs=1M --direct=$direct \
			--readonly --output-format=json | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["bw_bytes"])')")
	done
	B=$(max "${b[@]}"); F=$(max "${f[@]}")
	row "read $mode vs fio psync (MB/s)" "$(mb "$B")" "$(mb "$F")" "$(ratio "$B" "$F")"
done
