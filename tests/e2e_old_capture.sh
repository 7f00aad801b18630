#!/usr/bin/env bash
# e2e_old_capture: captures made before a change of rrref's frame keep
# validating exactly (issue 45's must-hold): tests/captures/ holds one
# written by the rrref of 8 launches a frame (README there says how).
# validate --mode both passes every launch with every resource 100 % exact,
# and rerun --backend ptx|cpu --exact passes.
# Usage: e2e_old_capture.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end

tar -C "$WORK" -xJf "$(dirname "$0")/captures/rrref-before-attention-16x8.tar.xz" || fail "cannot unpack the capture"
cap=$WORK/old1
vkrr validate "$cap" --mode both --heatmaps none -q --json "$WORK/v.json" >"$WORK/v.out" 2>&1 ||
    fail "validate --mode both exited $?: $(tail -3 "$WORK/v.out")"
grep -q "^summary: 16 launches: 16 PASS" "$WORK/v.out" || fail "validate: $(grep '^summary' "$WORK/v.out")"
n=$(grep -o '"exact_pct": [0-9.e+-]*' "$WORK/v.json" | wc -l)
inexact=$(grep -o '"exact_pct": [0-9.e+-]*' "$WORK/v.json" | grep -vc ': 100$')
[ "$n" -ge 32 ] && [ "$inexact" = 0 ] || fail "validate: $inexact of $n resources not 100 % exact"
for be in ptx cpu; do
    vkrr rerun "$cap" --backend $be --exact --heatmaps none -q >"$WORK/r-$be.out" 2>&1 ||
        fail "rerun --backend $be --exact exited $?: $(tail -2 "$WORK/r-$be.out")"
done
e2e_end
