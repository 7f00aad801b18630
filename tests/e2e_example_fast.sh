#!/usr/bin/env bash
# e2e_example_fast: examples/fast-output, rrref's output stage written as a
# fast production port (its own bindings, rgba16f images, a hardware
# sampler, push constants, 8x8 workgroups, f32 accumulation in its own
# order), validated against a `vkrr synth` capture on lavapipe, as
# examples/fast-output/README.md shows it.  What that README claims:
#   - every output-stage launch PASSes within the tolerance the port
#     declares (max_ulp=4): both surfaces differ from CUDA's (max ULP 1..4,
#     not exact, most texels exact), each row says the sampler is the
#     device's;
#   - held to exactness (--max-ulp 0) every one FAILs: it is the port's
#     tolerance that passes it, and the built-in port of the same kernel
#     is exact;
#   - a 61 x 37 capture PASSes too;
#   - the same shader with workgroup 16 8 1 (not CUDA's 8 x 8 block) over
#     its own grid PASSes;
#   - its descriptor with the history's binding left out is refused, exit 2,
#     naming the line and the binding;
#   - `vkrr stress` finds a disagreement the capture never showed: one
#     history texel made large, where the device's bilinear filter and
#     CUDA's 8-bit-fraction one part (exit 1, a reproducer that validate
#     FAILs); the built-in port, emulating CUDA's filter, survives 100 inputs.
# Only cuda_dldn_rrref_output_kernel's rows are read (--only), so launches
# other layers add to synth's frames change nothing here.
# Usage: e2e_example_fast.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
SRC=$(cd "$(dirname "$0")/.." && pwd)
K=cuda_dldn_rrref_output_kernel
PORTS=$SRC/examples/fast-output

cap=$WORK/cap
vkrr synth "$cap" --size 64x48 >"$WORK/synth.out" 2>&1 || fail "synth: $(cat "$WORK/synth.out")"

vkrr validate "$cap" --ports "$PORTS" --only $K --mode isolated --heatmaps none \
    --json "$WORK/v.json" >"$WORK/v.out" 2>&1
rc=$?
[ $rc = 0 ] || fail "validate with the example port: exit $rc: $(cat "$WORK/v.out")"
grep -q "^summary: 3 launches: 3 PASS, 0 FAIL" "$WORK/v.out" || fail "not 3 PASS: $(cat "$WORK/v.out")"
[ "$(grep -c "note: sampler: the device's, not NVIDIA's (binding 0.4, .*$K.port:12)" "$WORK/v.out")" = 3 ] ||
    fail "each row should name the device's sampler: $(cat "$WORK/v.out")"
python3 - "$WORK/v.json" <<'PY' || fail "the outputs are not as the README says (above)"
import json, sys
d = json.load(open(sys.argv[1]))
ls = [l for l in d['launches'] if l['kernel'] == 'cuda_dldn_rrref_output_kernel']
assert len(ls) == 3, len(ls)
for l in ls:
    outs = [r for r in l['resources'] if r['output']]
    assert sorted(r['offset'] for r in outs) == [32, 48], outs
    for r in outs:
        assert r['pass'] and r['kind'] == 'surface' and r['type'] == 'f16', r
        assert 1 <= r['max_ulp'] <= 4, ('max ULP within the declared 4, and not exact', r['max_ulp'])
        assert 40 <= r['exact_pct'] < 100, ('most texels exact, not all', r['exact_pct'])
PY

# an odd frame size: its own grid's edge workgroups, the arena's views
vkrr synth "$WORK/odd" --size 61x37 --frames 2 >"$WORK/synth-odd.out" 2>&1 || fail "synth 61x37"
vkrr validate "$WORK/odd" --ports "$PORTS" --only $K --mode isolated --heatmaps none >"$WORK/odd.out" 2>&1 &&
    grep -q "^summary: 2 launches: 2 PASS, 0 FAIL" "$WORK/odd.out" || fail "61x37: $(cat "$WORK/odd.out")"

vkrr validate "$cap" --ports "$PORTS" --only $K --mode isolated --heatmaps none --max-ulp 0 \
    >"$WORK/strict.out" 2>&1
[ $? = 1 ] && grep -q "^summary: 3 launches: 0 PASS, 3 FAIL" "$WORK/strict.out" ||
    fail "held to exactness the example should FAIL: $(cat "$WORK/strict.out")"
vkrr validate "$cap" --only $K --mode isolated --heatmaps none --max-ulp 0 >"$WORK/builtin.out" 2>&1 &&
    grep -q "^summary: 3 launches: 3 PASS" "$WORK/builtin.out" ||
    fail "the built-in port should be exact: $(cat "$WORK/builtin.out")"

mkdir -p "$WORK/wide"
cp "$PORTS/$K.comp" "$WORK/wide/"
sed -e 's|^workgroup 8 8 1 .*|workgroup 16 8 1|' -e 's|^dispatch .*|dispatch (u32@56+15)/16 (u32@60+7)/8 1|' \
    "$PORTS/$K.port" >"$WORK/wide/$K.port"
grep -q "^workgroup 16 8 1" "$WORK/wide/$K.port" || fail "the workgroup line was not rewritten"
vkrr validate "$cap" --ports "$WORK/wide" --only $K --mode isolated --heatmaps none >"$WORK/wide.out" 2>&1 &&
    grep -q "^summary: 3 launches: 3 PASS" "$WORK/wide.out" ||
    fail "16 x 8 workgroups: $(cat "$WORK/wide.out")"

mkdir -p "$WORK/empty"
cp "$PORTS/$K.comp" "$WORK/empty/"
grep -v "^binding 0.4 " "$PORTS/$K.port" >"$WORK/empty/$K.port"
vkrr validate "$cap" --ports "$WORK/empty" --only $K --heatmaps none >"$WORK/empty.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "$K.port:5: binding 0.4: the shader declares a combined image sampler there (history) and the port leaves it empty" "$WORK/empty.out" ||
    fail "a binding left empty: exit $rc: $(cat "$WORK/empty.out")"

# stress runs the original from the capture's PTX, which synth records when
# the build had nvcc
if ! ls "$cap"/modules/*.ptx >/dev/null 2>&1; then
    [ "$fails" = 0 ] || e2e_end
    e2e_skip nvcc "validate's checks passed; stress's need the capture's PTX (this build had no nvcc)"
fi
vkrr stress "$cap" --ports "$PORTS" --only $K#0 --out "$WORK/stress" >"$WORK/stress.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "DISAGREE: surface arg\(32\|48\) (f16)" "$WORK/stress.out" &&
    grep -q "on 1 changed input element: arg24\[" "$WORK/stress.out" ||
    fail "stress should find the history's filter: exit $rc: $(cat "$WORK/stress.out")"
repro=$(sed -n 's/^    reproducer: \([^ ]*\) .*/\1/p' "$WORK/stress.out")
[ -n "$repro" ] && [ -d "$repro" ] || fail "no reproducer: $(cat "$WORK/stress.out")"
vkrr validate "$repro" --ports "$PORTS" --heatmaps none >"$WORK/repro.out" 2>&1
[ $? = 1 ] || fail "the reproducer should FAIL validate: $(cat "$WORK/repro.out")"
vkrr stress "$cap" --only $K#0 --runs 100 --out "$WORK/stress-builtin" >"$WORK/stress-b.out" 2>&1 &&
    grep -q "100 inputs into 5 of its buffers and textures.*: no disagreement" "$WORK/stress-b.out" ||
    fail "the built-in port should survive stress: $(cat "$WORK/stress-b.out")"
e2e_end
