#!/usr/bin/env bash
# e2e_attn: rrref's window-attention block (tok0, attn0 twice, untok0: fp8
# mma on tensor cores) through every command, on a one-frame synth capture
# (issue 45 item 4): validate --mode both exact, --perturb caught at the
# launch as its culprit, rerun --backend ptx|cpu --exact, rerun --coverage,
# stress, bench, and diff against a capture of the same frame under sm_89's
# tensor cores (synth --approx sm_89), which differs first at attn0 and which
# the port, following the capture's model, passes exactly.
# Usage: e2e_attn.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end

A=cuda_dldn_rrref_attn0_kernel
cap=$WORK/sm90
vkrr synth "$cap" --frames 1 >/dev/null 2>&1 || fail "synth exited $?"
vkrr info "$cap" --json >"$WORK/info.json" 2>/dev/null || fail "info exited $?"
# the frame's order, and two attn0 launches (#8, #9) whose PTX holds the fp8 mma
python3 - "$WORK/info.json" <<'PY' || fail "the frame's launches"
import json, sys
k = [l["kernel"].replace("cuda_dldn_rrref_", "").replace("_kernel", "") for l in json.load(open(sys.argv[1]))["launches"]]
want = "expo0 expo1 input enc0 down enc1 tok0 attn0 attn0 untok0 dec0 output".split()
print("launches:", " ".join(k))
sys.exit(0 if k == want else 1)
PY
if [ -d "$cap/modules" ]; then
    grep -l "$A" "$cap"/modules/*.ptx 2>/dev/null | xargs grep -l "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16" >/dev/null ||
        fail "no module PTX of $A holds the fp8 mma"
fi

# every launch exact, isolated and chained
vkrr validate "$cap" --mode both --heatmaps none -q --json "$WORK/v.json" >"$WORK/v.out" 2>&1 ||
    fail "validate --mode both exited $?: $(tail -3 "$WORK/v.out")"
python3 - "$WORK/v.json" <<'PY' || fail "validate: not every resource 100 % exact"
import json, sys
d = json.load(open(sys.argv[1]))
bad, seen = [], []
def walk(x, path):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "exact_pct":
                seen.append(path)
                if v != 100:
                    bad.append("%s %s" % (path, v))
            walk(v, path + "/" + k)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            walk(v, "%s[%d]" % (path, i))
walk(d, "")
n = sum(1 for l in d.get("launches", []) if "attn0" in l.get("kernel", ""))
print("attn0 rows:", n, "resources:", len(seen), "inexact:", bad[:5])
sys.exit(0 if n == 2 and len(seen) >= 24 and not bad else 1)
PY

# one ULP on the second attn0's outputs: caught there, its culprit
vkrr validate "$cap" --mode both --heatmaps none --perturb "$A#1=1" >"$WORK/p.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "perturbed validate exited $rc, want 1"
grep -q "^first failing launch: #9 $A (frame 0, occurrence 1)$" "$WORK/p.out" ||
    fail "perturbed: $(grep 'first failing' "$WORK/p.out")"
grep -q "^bisect: first divergence: #9 $A (frame 0, occurrence 1) is the CULPRIT" "$WORK/p.out" ||
    fail "perturbed bisect: $(grep '^bisect' "$WORK/p.out")"

# the original again, from the C source and (with the capture's PTX: a build
# with nvcc records rrref's modules) from PTX on the interpreter/JIT
vkrr rerun "$cap" --backend cpu --exact --heatmaps none -q >"$WORK/r-cpu.out" 2>&1 ||
    fail "rerun --backend cpu --exact exited $?: $(tail -2 "$WORK/r-cpu.out")"
if [ -d "$cap/modules" ]; then
    vkrr rerun "$cap" --backend ptx --exact --heatmaps none -q >"$WORK/r-ptx.out" 2>&1 ||
        fail "rerun --backend ptx --exact exited $?: $(tail -2 "$WORK/r-ptx.out")"
    vkrr rerun "$cap" --coverage --heatmaps none >"$WORK/cov.out" 2>&1 || fail "rerun --coverage exited $?"
    grep -q "^coverage: $A: branches: [0-9]* of [0-9]* directions taken; instructions: [0-9]* of [0-9]* ran$" "$WORK/cov.out" ||
        fail "no coverage line for $A: $(grep '^coverage: cuda' "$WORK/cov.out" | head -3)"
    # stress: new inputs through the original (PTX) and the exact port agree
    vkrr stress "$cap" --only "$A#0" --runs 12 --out "$WORK/stress" >"$WORK/s.out" 2>&1 ||
        fail "stress exited $?: $(tail -3 "$WORK/s.out")"
    grep -q "#8 $A: 12 inputs .*: no disagreement$" "$WORK/s.out" || fail "stress: $(grep "#8" "$WORK/s.out")"
else
    echo "SKIPPED: rerun --backend ptx, --coverage and stress need the capture's PTX (this build made no modules: no nvcc)"
fi

# bench times both attn0 launches
vkrr bench "$cap" --runs 1 --warmup-max 0.2 >"$WORK/b.out" 2>&1 || fail "bench exited $?"
[ "$(grep -c "^ *[89] $A " "$WORK/b.out")" = 2 ] || fail "bench rows of $A: $(grep attn0 "$WORK/b.out")"

# the same frame under sm_89's tensor cores: the first launch that differs is
# the first attn0 (nothing before it sums on a tensor core), and the port,
# which follows the capture's model, passes it exactly
vkrr synth "$WORK/sm89" --frames 1 --approx sm_89 >/dev/null 2>&1 || fail "synth --approx sm_89 exited $?"
vkrr diff "$cap" "$WORK/sm89" --heatmaps none >"$WORK/d.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "diff sm_90 sm_89 exited $rc, want 1"
grep -q "^first launch that differs: #8 $A (frame 0, occurrence 0)$" "$WORK/d.out" ||
    fail "diff: $(grep 'first launch' "$WORK/d.out")"
grep -q "^summary: 12 matched launches: 7 within tolerance, 5 differ" "$WORK/d.out" ||
    fail "diff summary: $(grep '^summary' "$WORK/d.out")"
vkrr validate "$WORK/sm89" --mode both --heatmaps none -q --max-ulp 0 >"$WORK/v89.out" 2>&1 ||
    fail "validate of the sm_89 capture exited $?: $(tail -3 "$WORK/v89.out")"
vkrr diff "$cap" "$cap" --heatmaps none >/dev/null 2>&1 || fail "diff of a capture with itself exited $?"

e2e_end
