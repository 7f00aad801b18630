#!/usr/bin/env bash
# e2e_bridge: captures exactly as d4r's CUDA bridge writes them.  An rrref
# capture in vkrr's own form (synth --log-surface-arrays: every chain link
# logged) is rewritten by tests/bridge_form.py, line by line from the
# bridge's formats and independently of vkrr's writer, in each variant the
# bridge's settings give (verbose with its stderr prefix among Wine's lines,
# the trace file, statistics only, failures only, no log, the default replay
# limit of 1, a kernel filter, modules only as zstd or LZ4 fatbins outside
# modules/).  Each variant must give, in info, validate --mode both (with a
# perturbed output kernel), rerun --backend ptx|cpu and diff, the same exit
# code, rows and metrics as the own form wherever it holds the information,
# and else the stated status (tests/bridge_compare.py says which): never a
# false FAIL, never a dropped chain link.  Then the bridge's own integrity
# evidence: a changed dump is "changed since capture" by the statistics
# lines bridge_form.py computed (FNV-1a from the bridge's basis).
# Usage: e2e_bridge.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
SRC=$(cd "$(dirname "$0")/.." && pwd)

ref=$WORK/ref
vkrr synth "$ref" --size 32x24 --frames 2 --log-surface-arrays >/dev/null 2>&1 || fail "synth"
if ! ls "$ref/modules/"*.ptx >/dev/null 2>&1; then # a build without nvcc: the checked-in PTX
    mkdir -p "$ref/modules"
    cp "$SRC"/tests/ptx/checked_in/rrref/*.ptx "$ref/modules/"
fi
perturb=(--perturb 'cuda_dldn_rrref_output_kernel#0=8')

# what the own form gives: the rows every variant is held to
vkrr validate "$ref" --mode both "${perturb[@]}" --heatmaps none -q --json "$WORK/ref.v.json" >/dev/null 2>&1
[ $? = 1 ] || fail "own form: validate (perturbed) should exit 1"
vkrr validate "$ref" --mode both --heatmaps none -q --json "$WORK/ref.v0.json" >/dev/null 2>&1 ||
    fail "own form: validate should pass"
for be in ptx cpu; do
    vkrr rerun "$ref" --backend $be --ptx-engine interp --heatmaps none -q --json "$WORK/ref.$be.json" \
        >/dev/null 2>&1 || fail "own form: rerun --backend $be should pass"
done

variants="verbose trace stats failures nolog limit1 filter fatbin lz4"
# under the sanitizers (several times slower) one variant of each kind
[ -n "${ASAN_OPTIONS:-}" ] && variants="verbose stats filter lz4"
for v in $variants; do
    cap=$WORK/$v
    python3 "$SRC/tests/bridge_form.py" "$ref" "$cap" $v || { fail "$v: bridge_form.py"; continue; }
    vkrr info "$cap" >"$WORK/$v.info" 2>"$WORK/$v.info.err" || fail "$v: info exits $?: $(cat "$WORK/$v.info.err")"
    grep -q "changed since capture\|malformed\|not a number" "$WORK/$v.info" "$WORK/$v.info.err" &&
        fail "$v: info finds the bridge's own lines damaged: $(cat "$WORK/$v.info.err")"
    case $v in
    limit1 | filter)
        want=$([ $v = limit1 ] && echo 23 || echo 22) # of 24
        grep -q "^dump-only: $want launches have dumps or log lines but no replay folder" "$WORK/$v.info" ||
            fail "$v: info does not list the $want dump-only launches"
        grep -q "^chained mode: .* restarts from the captured state" "$WORK/$v.info" ||
            fail "$v: info does not say what dump-only launches mean for chained mode" ;;
    esac
    if [ $v = limit1 ]; then # the replayed launch is not the perturbed one
        vkrr validate "$cap" --mode both --heatmaps none -q --json "$WORK/$v.v.json" >"$WORK/$v.v.out" 2>&1 ||
            fail "$v: validate exits $?"
        python3 "$SRC/tests/bridge_compare.py" validate "$WORK/ref.v0.json" "$WORK/$v.v.json" $v || fail "$v: validate"
    else
        vkrr validate "$cap" --mode both "${perturb[@]}" --heatmaps none -q --json "$WORK/$v.v.json" \
            >"$WORK/$v.v.out" 2>&1
        rc=$?
        [ $rc = 1 ] || fail "$v: validate (perturbed) exits $rc, the own form 1: $(tail -3 "$WORK/$v.v.out")"
        python3 "$SRC/tests/bridge_compare.py" validate "$WORK/ref.v.json" "$WORK/$v.v.json" $v || fail "$v: validate"
    fi
    grep -q "changed since capture" "$WORK/$v.v.out" && fail "$v: a dump reads as changed: the bridge's hash"
    if [ $v != limit1 ]; then # and without the perturbation: every launch passes, as in the own form
        vkrr validate "$cap" --mode both --heatmaps none -q --json "$WORK/$v.v0.json" >"$WORK/$v.v0.out" 2>&1 ||
            fail "$v: validate exits $?, the own form 0: $(tail -3 "$WORK/$v.v0.out")"
        python3 "$SRC/tests/bridge_compare.py" validate "$WORK/ref.v0.json" "$WORK/$v.v0.json" $v ||
            fail "$v: validate (unperturbed)"
    fi
    for be in ptx cpu; do
        vkrr rerun "$cap" --backend $be --ptx-engine interp --heatmaps none -q --json "$WORK/$v.$be.json" \
            >"$WORK/$v.$be.out" 2>&1 || fail "$v: rerun --backend $be exits $?: $(tail -3 "$WORK/$v.$be.out")"
        python3 "$SRC/tests/bridge_compare.py" rerun "$WORK/ref.$be.json" "$WORK/$v.$be.json" $v ||
            fail "$v: rerun --backend $be"
    done
    case $v in
    stats | failures | nolog)
        grep -q "sampler state [a-z]* by running the original on ptx ([0-9]* runs; the log does not give it): arg 0: point, clamp, unnormalized (or 3 others);.* arg 48: linear, clamp, unnormalized (only it)" \
            "$WORK/$v.ptx.json" ||
            fail "$v: the history texture's state (linear) is not inferred: $(grep -o -m2 '"note": "sampler[^"]*' "$WORK/$v.ptx.json")" ;;
    fatbin | lz4)
        # every module the bridge wrote (one fatbin a module of rrref's) read as PTX out of it
        nm=$(ls "$cap/cuda-modules" | grep -c '\.fatbin$')
        [ "$nm" -ge 4 ] || fail "$v: $nm fatbins in $cap/cuda-modules, rrref has at least 4 modules"
        grep -q "^modules: $nm PTX ($nm from fatbins: $([ $v = lz4 ] && echo "$nm LZ4, 0 zstd" || echo "0 LZ4, $nm zstd");" \
            "$WORK/$v.ptx.out" || fail "$v: the PTX is not read out of the fatbins: $(grep -m1 '^modules' "$WORK/$v.ptx.out")"
        grep -q "(found by name in CAPDIR)" "$WORK/$v.ptx.out" ||
            fail "$v: the modules are not found where the log's names are" ;;
    esac
    case $v in
    limit1 | filter) ;;
    *) vkrr diff "$ref" "$cap" >"$WORK/$v.diff" 2>&1 || fail "$v: diff with the own form exits $?: $(tail -3 "$WORK/$v.diff")" ;;
    esac
done

# the statistics the bridge logs are checked: a dump changed after capture
cp -r "$WORK/verbose" "$WORK/changed"
python3 - "$WORK/changed" <<'EOF' || fail "could not change a dump"
import glob, sys
p = sorted(glob.glob(sys.argv[1] + "/dump/launch-004-*-buffer-*"))[-1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x40
open(p, "wb").write(b)
EOF
vkrr validate "$WORK/changed" --mode isolated --heatmaps none -q >"$WORK/changed.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "changed since capture: its FNV-1a hash is [0-9a-f]\{16\}, the log (run/run.log:[0-9]*) says hash=" \
    "$WORK/changed.out" || fail "a changed dump: exit $rc: $(grep -m2 'changed\|ERROR' "$WORK/changed.out")"

# the modules where the log names them, outside the capture (the bridge's
# D4R_CUDA_CAPTURE_DIR, on the machine that made it)
cp -r "$WORK/lz4" "$WORK/outside"
mv "$WORK/outside/cuda-modules" "$WORK/d4r-dlss-cuda-modules"
sed -i "s|/tmp/d4r-dlss-cuda-modules/|$WORK/d4r-dlss-cuda-modules/|" "$WORK/outside/run/run.log"
vkrr rerun "$WORK/outside" --ptx-engine interp --heatmaps none -q >"$WORK/outside.out" 2>&1 ||
    fail "modules outside the capture: rerun exits $?: $(tail -3 "$WORK/outside.out")"
nm=$(ls "$WORK/d4r-dlss-cuda-modules" | grep -c '\.fatbin$')
grep -q "^modules: $nm PTX .* $nm in $WORK/d4r-dlss-cuda-modules (named by run.log)" "$WORK/outside.out" ||
    fail "the modules the log names outside the capture: $(grep '^modules' "$WORK/outside.out")"

# a launch the bridge saw fail (its synchronize result): not compared, said so
cp -r "$WORK/verbose" "$WORK/syncfail"
sed -i 's/\(launch\[4\] [a-z_0-9]* synchronize result=\)0/\1700/' "$WORK/syncfail/run/run.log"
vkrr validate "$WORK/syncfail" --mode isolated --heatmaps none -q >"$WORK/syncfail.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "launch 4 failed on the capturing GPU (synchronize result=700)" "$WORK/syncfail.out" ||
    fail "a launch that failed on the GPU: exit $rc: $(grep -m2 'ERROR\|note' "$WORK/syncfail.out")"

# one frame: the same, on the variants of each kind
ref1=$WORK/ref1
vkrr synth "$ref1" --size 32x24 --frames 1 --log-surface-arrays >/dev/null 2>&1 || fail "synth (one frame)"
[ -d "$ref/modules" ] && ! ls "$ref1/modules/"*.ptx >/dev/null 2>&1 && cp -r "$ref/modules" "$ref1/"
vkrr validate "$ref1" --mode both "${perturb[@]}" --heatmaps none -q --json "$WORK/ref1.v.json" >/dev/null 2>&1
[ $? = 1 ] || fail "own form, one frame: validate (perturbed) should exit 1"
vkrr rerun "$ref1" --backend ptx --ptx-engine interp --heatmaps none -q --json "$WORK/ref1.ptx.json" \
    >/dev/null 2>&1 || fail "own form, one frame: rerun should pass"
for v in verbose stats lz4; do
    cap=$WORK/1-$v
    python3 "$SRC/tests/bridge_form.py" "$ref1" "$cap" $v || { fail "1-$v: bridge_form.py"; continue; }
    vkrr validate "$cap" --mode both "${perturb[@]}" --heatmaps none -q --json "$WORK/1-$v.v.json" >/dev/null 2>&1
    rc=$?
    [ $rc = 1 ] || fail "1-$v: validate (perturbed) exits $rc, the own form 1"
    python3 "$SRC/tests/bridge_compare.py" validate "$WORK/ref1.v.json" "$WORK/1-$v.v.json" $v || fail "1-$v: validate"
    vkrr rerun "$cap" --backend ptx --ptx-engine interp --heatmaps none -q --json "$WORK/1-$v.ptx.json" \
        >/dev/null 2>&1 || fail "1-$v: rerun exits $?"
    python3 "$SRC/tests/bridge_compare.py" rerun "$WORK/ref1.ptx.json" "$WORK/1-$v.ptx.json" $v || fail "1-$v: rerun"
done

if [ "$fails" = 0 ]; then
    echo "e2e_bridge: ok"
    rm -rf "$WORK"
else
    echo "e2e_bridge: $fails failed (kept $WORK)"
    exit 1
fi
