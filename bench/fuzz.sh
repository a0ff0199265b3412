#!/usr/bin/env bash
# fuzz.sh - the fuzz targets run longer than the test suite runs them.
# usage: bench/fuzz.sh [build dir] [seconds per target]   (default build, 600)
set -euo pipefail
B=${1:-build}
SECS=${2:-600}
for t in "$B"/tests/fuzz_*; do
	[ -x "$t" ] || continue
	echo "== $(basename "$t") for ${SECS}s"
	BT_FUZZ_SECONDS=$SECS BT_FUZZ_ITERS=1000000000 BT_FUZZ_SEED=$RANDOM "$t" "$(dirname "$0")/../tests/corpus"
done
