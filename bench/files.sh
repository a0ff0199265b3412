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
#   * sequential read, warm, cold and O_DIRECT: benchtop scan at buffer=BS
#     against `fio --rw=read --ioengine=psync --bs=BS` on the same file
#     (see the section for what makes the two alike)
# Each pair alternates ROUNDS times (default 3) and the best figure of each
# side is compared: other load on the machine slows either side. Ratios
# above 1 mean benchtop is faster.
# usage: bench/files.sh [path/to/benchtop]
#   env: SIZE (copy/read file, default 256M), RECORDS (default 400000),
#        THREADS (sort, default 2), ROUNDS (default 3), DIR (parent of the
#        scratch directory, default /var/tmp: a disk, where cold means cold),
#        BS (read block sizes, default "1M"; e.g. "4K 64K 1M"), LOOPS (warm
#        reads per round, default 8), ONLY (one section: copy, sort, grep, read)
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

# section NAME: run it unless ONLY names another
section() { [ -z "${ONLY:-}" ] || [ "$ONLY" = "$1" ]; }
row() { printf '%-34s %10s %10s %8s\n' "$@"; }
echo "# files.sh on $(uname -r), $(nproc) CPUs; scratch in $PARENT; size=$SIZE records=$RECORDS; best of $ROUNDS"
echo "# a shared machine: figures are noisy, the ratios (interleaved runs) less so"
row "comparison" "benchtop" "tool" "ratio"

# ---- copy -------------------------------------------------------------------
if section copy; then
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
fi

# ---- sort -------------------------------------------------------------------
if section sort; then
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
fi

# ---- grep -------------------------------------------------------------------
if section grep; then
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
fi

# ---- sequential read ----------------------------------------------------------
# benchtop scan (one read(2) loop over the file, buffer= bytes a call) against
# fio --ioengine=psync at the same block size, on the same file:
#   warm: the file in the page cache; fio --invalidate=0 (fio's default,
#     invalidate=1, drops the file first: "warm" would be cold), both sides
#     reading it LOOPS times (fio --loops, benchtop reps), bytes over time
#   cold: dropped before each read (benchtop: fsync + DONTNEED in setup;
#     fio: its invalidate), one read each
#   direct: O_DIRECT both
# The file is generated once and kept (keep=1): later runs find it
# byte-identical and reuse it, so no side reads a file just written.
# Each round runs both sides, the order alternating; every round's ratio is
# kept, and the row shows the best of each side and the median round ratio.
if section read; then
	bt scan mode=buffered size="$SIZE" hot=4K >/dev/null
	BIG=$(ls "$D"/bytes-*-s2)
	LOOPS=${LOOPS:-8}
	# bt_read CACHE MODE BS N -> bytes/s over N reads (from the recording's reps)
	bt_read() {
		rm -f "$T/r.jsonl"
		"$BT" run scan mode="$2" cache="$1" size="$SIZE" hot=4K buffer="$3" dir="$D" keep=1 reps="$4" \
			warmup=0 --record "$T/r.jsonl" --quiet >/dev/null 2>"$T/r.err" || { cat "$T/r.err" >&2; return 1; }
		python3 -c 'import json,sys
R = [j for j in map(json.loads, open(sys.argv[1])) if j.get("type") == "rep" and not j["warmup"] and j["ok"]]
print(sum(j["bytes"] for j in R) / sum(j["wall_s"] for j in R))' "$T/r.jsonl"
	}
	# fio_read CACHE MODE BS N -> bytes/s
	fio_read() {
		local inv=1 direct=0 loops=1
		[ "$1" = warm ] && inv=0 && loops=$4
		[ "$2" = direct ] && direct=1
		fio --name=r --filename="$BIG" --rw=read --ioengine=psync --bs="$3" --direct=$direct \
			--invalidate=$inv --loops=$loops --readonly --output-format=json |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["bw_bytes"])'
	}
	median() { python3 -c 'import sys,statistics; print("%.2f" % statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
	for bs in ${BS:-1M}; do
		for what in "warm buffered" "cold buffered" "cold direct"; do
			set -- $what
			n=1; [ "$1" = warm ] && n=$LOOPS
			b=(); f=(); r=(); bm=(); fm=()
			for i in $(seq "$ROUNDS"); do
				[ "$1" = warm ] && warm "$BIG"
				if [ $((i % 2)) -eq 1 ]; then
					x=$(bt_read "$1" "$2" "$bs" "$n"); y=$(fio_read "$1" "$2" "$bs" "$n")
				else
					y=$(fio_read "$1" "$2" "$bs" "$n"); x=$(bt_read "$1" "$2" "$bs" "$n")
				fi
				b+=("$x"); f+=("$y"); r+=("$(ratio "$x" "$y")"); bm+=("$(mb "$x")"); fm+=("$(mb "$y")")
			done
			B=$(max "${b[@]}"); F=$(max "${f[@]}")
			row "read $1 $2 bs=$bs vs fio (MB/s)" "$(mb "$B")" "$(mb "$F")" "$(ratio "$B" "$F")"
			echo "#   rounds (MB/s): benchtop ${bm[*]}; fio ${fm[*]}; ratios ${r[*]}, median $(median "${r[@]}")"
		done
	done
fi
