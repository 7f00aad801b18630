#!/usr/bin/env bash
# e2e_stress: `vkrr stress` finds a port's bug on a path the capture never
# took.  tests/stress/clampk.cu clamps x to lim before halving it; recorded
# with lim 8 and inputs in [-4, 4), the clamp never runs, so a port that
# forgets it PASSes validate, and rerun --coverage names the branch no
# input took.  stress must then exit 1 with a minimised reproducer capture
# that validate FAILs and rerun PASSes; the same seed must make the same
# reproducer; a correct port survives hundreds of inputs (exit 0); bad
# usage is exit 2 naming what is wrong; a reproducer keeps the capture's
# device line.
# Usage: e2e_stress.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
SRC=$(cd "$(dirname "$0")/.." && pwd)


cap=$WORK/cap
e2e_clampk_ports "$cap" "$WORK/bad" "$WORK/good"

vkrr validate "$cap" --ports "$WORK/bad" --heatmaps none >"$WORK/v.out" 2>&1 ||
    fail "validate of the capture (its inputs never reach the bug) should pass: $(cat "$WORK/v.out")"
vkrr rerun "$cap" --coverage --heatmaps none >"$WORK/cov.out" 2>&1 || fail "rerun --coverage"
grep -q "clampk: branches: 3 of 4 directions taken" "$WORK/cov.out" &&
    grep -q "modules/dlss-module-4242-0001.ptx:[0-9]*: never fell through" "$WORK/cov.out" &&
    grep -q "modules/dlss-module-4242-0001.ptx:[0-9]*-[0-9]*: 9 instructions never ran" "$WORK/cov.out" ||
    fail "coverage does not name the clamp's branch: $(grep coverage "$WORK/cov.out")"

vkrr validate "$cap" --ports "$WORK/bad" --ref ptx --coverage --heatmaps none >"$WORK/vc.out" 2>&1 &&
    grep -q "clampk: branches: 3 of 4 directions taken; instructions: 23 of 32 ran" "$WORK/vc.out" ||
    fail "validate --ref ptx --coverage: $(cat "$WORK/vc.out")"
vkrr validate "$cap" --ports "$WORK/bad" --coverage >"$WORK/vc2.out" 2>&1
[ $? = 2 ] && grep -q "needs --ref ptx" "$WORK/vc2.out" || fail "validate --coverage without --ref ptx"

vkrr stress "$cap" --ports "$WORK/bad" --runs 400 --seed 7 --out "$WORK/out" >"$WORK/s1.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "stress of the bad port: exit $rc, not 1: $(cat "$WORK/s1.out")"
grep -q "DISAGREE: arg8 (f32" "$WORK/s1.out" || fail "no disagreement on arg8: $(cat "$WORK/s1.out")"
grep -q "on 1 changed input element: arg0\[" "$WORK/s1.out" || fail "not minimised to one element: $(cat "$WORK/s1.out")"
repro=$(sed -n 's/^    reproducer: \([^ ]*\) .*/\1/p' "$WORK/s1.out")
[ -n "$repro" ] && [ -d "$repro" ] || fail "no reproducer folder: $(cat "$WORK/s1.out")"
vkrr validate "$repro" --ports "$WORK/bad" --heatmaps none >"$WORK/rv.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "FAIL" "$WORK/rv.out" || fail "validate of the reproducer: exit $rc, not 1: $(cat "$WORK/rv.out")"
vkrr rerun "$repro" --heatmaps none >"$WORK/rr.out" 2>&1 || fail "rerun of the reproducer: $(cat "$WORK/rr.out")"
vkrr validate "$repro" --ports "$WORK/good" --heatmaps none >/dev/null 2>&1 || fail "the good port fails the reproducer"

# the same seed, the same search and reproducer (under a new name: the old one stays)
vkrr stress "$cap" --ports "$WORK/bad" --runs 400 --seed 7 --out "$WORK/out" >"$WORK/s2.out" 2>&1
grep -v "reproducer:" "$WORK/s1.out" >"$WORK/s1.cut"
grep -v "reproducer:" "$WORK/s2.out" >"$WORK/s2.cut"
cmp -s "$WORK/s1.cut" "$WORK/s2.cut" || fail "the same seed gave another run: $(diff "$WORK/s1.cut" "$WORK/s2.cut")"
[ -d "$repro" ] && [ -d "$repro-2" ] || fail "a second run should keep the first reproducer and add $repro-2"
cmp -s "$repro/replay/replay-000001-clampk/alloc-0.bin" "$repro-2/replay/replay-000001-clampk/alloc-0.bin" ||
    fail "the same seed wrote different inputs"

vkrr stress "$cap" --ports "$WORK/good" --runs 300 --out "$WORK/out-good" >"$WORK/g.out" 2>&1 ||
    fail "stress of the good port: $(cat "$WORK/g.out")"
grep -q "300 inputs into 1 of its buffers and textures.*no disagreement" "$WORK/g.out" || fail "good: $(cat "$WORK/g.out")"
[ ! -e "$WORK/out-good" ] || fail "a run without a disagreement wrote into its --out"

# the .port's input lines bound what stress feeds the kernel: inputs kept
# within [-4, 4] never reach the clamp; a fixed input is never changed
cp -r "$WORK/bad" "$WORK/bounded"
echo "input arg0 f32 finite range -4 4" >>"$WORK/bounded/clampk.port"
vkrr stress "$cap" --ports "$WORK/bounded" --runs 300 --out "$WORK/out-b" >"$WORK/b.out" 2>&1 ||
    fail "inputs within range -4 4 cannot reach the clamp: $(cat "$WORK/b.out")"
cp -r "$WORK/bad" "$WORK/fixed"
echo "input arg0 fixed" >>"$WORK/fixed/clampk.port"
vkrr stress "$cap" --ports "$WORK/fixed" --runs 50 --out "$WORK/out-f" >"$WORK/f.out" 2>&1 &&
    grep -q "not stressed: nothing to change" "$WORK/f.out" || fail "input fixed: $(cat "$WORK/f.out")"
cp -r "$WORK/bad" "$WORK/badline"
echo "input arg0 range 5 1" >>"$WORK/badline/clampk.port"
vkrr stress "$cap" --ports "$WORK/badline" --runs 5 >"$WORK/bl.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "clampk.port:[0-9]*: .*LO <= HI" "$WORK/bl.out" || fail "a bad input line: exit $rc: $(cat "$WORK/bl.out")"

# rrref (textures, surfaces, several inputs a launch): each built-in port
# survives a few inputs, every launch stressed or said why not
vkrr synth "$WORK/syn" --size 16x16 --frames 1 >/dev/null 2>&1 || fail "synth"
# the original's PTX from --modules (the checked-in copy: a build without nvcc
# records none), read for how each kernel loads its pointers too
rm -rf "$WORK/syn/modules"
vkrr stress "$WORK/syn" --modules "$SRC/tests/ptx/checked_in/rrref" --runs 8 --out "$WORK/out-syn" \
    >"$WORK/syn.out" 2>&1 ||
    fail "stress of rrref's ports: $(cat "$WORK/syn.out")"
[ "$(grep -c "no disagreement\|not stressed" "$WORK/syn.out")" = 12 ] ||
    fail "rrref: not every launch stressed or explained: $(cat "$WORK/syn.out")"
grep -q "expo0_kernel: 8 inputs into 1 of its buffers and textures" "$WORK/syn.out" ||
    fail "rrref's expo0 reads only textures: their texels are its inputs: $(cat "$WORK/syn.out")"

# the reproducer keeps the capture's GPU (run.log's device line), so validate
# judges it by the same hardware model: a synth standing for sm_89, and a
# capture whose line names a GPU (cc=8.9).  The wrong port forgets expo1's
# clamp of the mean to [-14, 14], which the captured inputs never reach.
K=cuda_dldn_rrref_expo1_kernel
vkrr synth "$WORK/s89" --size 16x16 --frames 1 --approx sm_89 >/dev/null 2>&1 || fail "synth --approx sm_89"
mkdir -p "$WORK/noclamp"
cp "$SRC/shaders/$K.port" "$WORK/noclamp/"
sed 's/vkrr_fminf(vkrr_fmaxf(mean, -14.0), 14.0)/mean/' "$SRC/shaders/$K.comp" >"$WORK/noclamp/$K.comp"
grep -q "float m = mean;" "$WORK/noclamp/$K.comp" || fail "expo1's port no longer clamps as this test expects"
cp -r "$WORK/s89" "$WORK/s89gpu"
sed -i 's/^\(\[d4r nvcuda\] \)device name=.*/\1device name="NVIDIA GeForce RTX 4090" cc=8.9/' "$WORK/s89gpu/run/run.log"
for c in s89:'device name="vkrr cpu backend" model="sm_89, tables of sm_90"' \
    s89gpu:'device name="NVIDIA GeForce RTX 4090" cc=8.9'; do
    d=${c%%:*} line=${c#*:}
    grep -qxF "[d4r nvcuda] $line" "$WORK/$d/run/run.log" || fail "$d: no device line '$line'"
    # the original's PTX: the capture's, else (a build without nvcc) the checked-in copy
    mods=()
    [ -d "$WORK/$d/modules" ] || mods=(--modules "$SRC/tests/ptx/checked_in/rrref")
    vkrr stress "$WORK/$d" "${mods[@]}" --ports "$WORK/noclamp" --only $K --runs 200 --seed 1 \
        --out "$WORK/out-$d" >"$WORK/$d.out" 2>&1
    rc=$?
    [ $rc = 1 ] || fail "$d: stress of the port without the clamp: exit $rc, not 1: $(cat "$WORK/$d.out")"
    repro=$(sed -n 's/^    reproducer: \([^ ]*\) .*/\1/p' "$WORK/$d.out")
    [ -n "$repro" ] && [ -d "$repro" ] || fail "$d: no reproducer folder: $(cat "$WORK/$d.out")"
    [ "$(grep -c "device name=" "$repro/run/run.log")" = 1 ] && grep -qxF "[d4r nvcuda] $line" "$repro/run/run.log" ||
        fail "$d: the reproducer's run.log lost the device line: $(grep device "$repro/run/run.log")"
    vkrr info "$repro" >"$WORK/$d.info" 2>&1 && grep -q "^made on: .*sm_89" "$WORK/$d.info" ||
        fail "$d: info on the reproducer does not say sm_89: $(head -3 "$WORK/$d.info")"
    vkrr validate "$repro" --ports "$WORK/noclamp" --heatmaps none >"$WORK/$d.v" 2>&1
    grep -q "^hardware model: .*sm_89" "$WORK/$d.v" && ! grep -q "does not record its GPU" "$WORK/$d.v" ||
        fail "$d: validate of the reproducer: $(head -3 "$WORK/$d.v")"
done

# usage: exit 2, named
usage() { # WHAT ARGS...
    local what=$1
    shift
    vkrr stress "$@" >"$WORK/u.out" 2>&1
    local rc=$?
    [ $rc = 2 ] && grep -qF -- "$what" "$WORK/u.out" || fail "stress $*: exit $rc, wanted 2 naming '$what': $(cat "$WORK/u.out")"
}
usage "--runs takes a count" "$cap" --runs 0
usage "unknown option '--bogus'" "$cap" --bogus
usage "no launch of the capture matches --only" "$cap" --only nosuchkernel --ports "$WORK/good"
usage "needs CAPDIR"
vkrr stress --help >"$WORK/h.out" 2>&1 && grep -q "minimised" "$WORK/h.out" || fail "--help"

e2e_end
