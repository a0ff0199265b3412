#!/usr/bin/env bash
# fuzz.sh - the fuzz targets run longer than the test suite runs them (5 s
# each there): every tests/fuzz_* target of a build, or the ones named.
# Each gets a random sequence (BT_FUZZ_SEED, printed, to replay a finding)
# and keeps the per-input limits of tests/fuzz_driver.h
# (BT_FUZZ_INPUT_SECONDS, BT_FUZZ_MAX_MB from the environment). A failure
# stops the script; the input that caused it is in the file the target named.
# usage: bench/fuzz.sh [build dir] [seconds per target] [target...]
#        (default build, 600, all; an ASan build finds more: build-asan)
set -euo pipefail
B=${1:-build}
SECS=${2:-600}
shift $(( $# > 2 ? 2 : $# ))
CORPUS="$(dirname "$0")/../tests/corpus"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for t in "$B"/tests/fuzz_*; do
		[ -f "$t" ] && [ -x "$t" ] && targets+=("$(basename "$t")")
	done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz.sh: no fuzz targets in $B/tests (build first)" >&2; exit 1; }
for t in "${targets[@]}"; do
	seed=$RANDOM
	echo "== $t for ${SECS}s (BT_FUZZ_SEED=$seed)"
	BT_FUZZ_SECONDS=$SECS BT_FUZZ_ITERS=1000000000 BT_FUZZ_SEED=$seed "$B/tests/$t" "$CORPUS"
done
