#!/usr/bin/env bash
# bench/coverage.sh - what `--coverage` costs: `vkrr rerun` (the PTX
# interpreter) of one synthetic frame with and without it, best of RUNS,
# and the ratio (issue target: at most 2x).
# Usage: bench/coverage.sh [BUILD_DIR] [SIZE] [RUNS]   (default build 320x180 3)
set -u
BUILD=${1:-build}
SIZE=${2:-320x180}
RUNS=${3:-3}
VKRR=$BUILD/vkrr
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
WORK=$(mktemp -d /tmp/vkrr-bench-coverage.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$VKRR" synth "$WORK/cap" --size "$SIZE" --frames 1 >"$WORK/synth.log" 2>&1 || { cat "$WORK/synth.log"; exit 2; }
best() { # ARGS...: the best wall time of RUNS reruns
    local b="" t i
    for ((i = 0; i < RUNS; i++)); do
        t=$(wall "$WORK/run.log" "$VKRR" rerun "$WORK/cap" --heatmaps none "$@")
        [ -z "$b" ] && b=$t || b=$(calc "min($b, $t)")
    done
    echo "$b"
}
plain=$(best)
cov=$(best --coverage)
printf "coverage %s: rerun %.2f s, with --coverage %.2f s: %.2fx\n" "$SIZE" "$plain" "$cov" \
    "$(calc "$cov / $plain")"
