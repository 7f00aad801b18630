#!/usr/bin/env bash
# e2e_example_attn: what examples/attn-fast/README.md says vkrr finds in a
# fast (f32-accumulating) port of rrref's attention block, on one-frame synth
# captures: under sm_90's tensor cores it PASSes; under sm_89's (synth
# --approx sm_89) both attn0 launches FAIL as culprits, the layers after them
# are amplifiers in the chain, and the first failing launch is #8; the
# built-in port passes the same capture exactly.
# Usage: e2e_example_attn.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
SRC=$(cd "$(dirname "$0")/.." && pwd)
A=cuda_dldn_rrref_attn0_kernel

sh "$SRC/examples/attn-fast/make-port.sh" "$WORK/ports" || fail "make-port.sh exited $?"
vkrr synth "$WORK/sm90" --frames 1 >/dev/null 2>&1 || fail "synth exited $?"
vkrr synth "$WORK/sm89" --frames 1 --approx sm_89 >/dev/null 2>&1 || fail "synth --approx sm_89 exited $?"

vkrr validate "$WORK/sm90" --ports "$WORK/ports" --mode both --heatmaps none >"$WORK/v90.out" 2>&1 ||
    fail "the fast port on the sm_90 capture exited $?: $(grep -e FAIL -e '^summary' "$WORK/v90.out" | head -4)"

vkrr validate "$WORK/sm89" --ports "$WORK/ports" --mode both --heatmaps none >"$WORK/v89.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "the fast port on the sm_89 capture exited $rc, want 1"
row() { grep -E "^ +$1  cuda_dldn_rrref_$2_kernel " "$WORK/v89.out"; }
for s in 8 9; do
    row $s attn0 | grep -qE " FAIL .* FAIL +culprit " || fail "#$s attn0 is not a failing culprit: $(row $s attn0)"
done
row 10 untok0 | grep -qE " PASS .* FAIL +amplifier " || fail "#10 untok0: $(row 10 untok0)"
row 11 dec0 | grep -qE " PASS .* FAIL +amplifier " || fail "#11 dec0: $(row 11 dec0)"
for s in 1 2 3 4 5 6 7; do
    grep -E "^ +$s  cuda_dldn" "$WORK/v89.out" | grep -q "FAIL" && fail "#$s fails: $(grep -E "^ +$s  cuda" "$WORK/v89.out")"
done
grep -q "^first failing launch: #8 $A (frame 0, occurrence 0)$" "$WORK/v89.out" ||
    fail "first failing launch: $(grep 'first failing' "$WORK/v89.out")"
grep -q "^summary: 12 launches: 10 PASS, 2 FAIL" "$WORK/v89.out" || fail "summary: $(grep '^summary' "$WORK/v89.out")"
# the ULPs are large, not last-bit (the requantisation carries a whole e4m3 step)
ulp=$(row 8 attn0 | awk '{print $7}')
[ "${ulp:-0}" -gt 1000 ] || fail "#8's max ULP is $ulp, the README says thousands"

vkrr validate "$WORK/sm89" --mode both --heatmaps none -q >"$WORK/b89.out" 2>&1 ||
    fail "the built-in port on the sm_89 capture exited $?"
e2e_end
