#!/usr/bin/env bash
# e2e_bench: `vkrr bench` times every launch of a tiny synth capture (one row
# a launch, a numeric GPU time, CUDA times from KERNEL_PROFILE lines when the
# log has them, '-' when not), and bench/run.sh --quick prints every ratio.
# Times are only checked to be numbers, never against a bound.
# Usage: e2e_bench.sh VKRR_BIN WORKDIR
set -u
VKRR=$1
WORK=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
num='[0-9]+\.[0-9]+'

rm -rf "$WORK"
mkdir -p "$WORK"
cap=$WORK/cap
"$VKRR" synth "$cap" --size 32x24 --frames 1 >/dev/null 2>"$WORK/synth.err" ||
    { echo "FAIL: synth exited $?: $(cat "$WORK/synth.err")" >&2; exit 1; }
nl=$("$VKRR" info "$cap" --json | python3 -c "import json,sys; print(len(json.load(sys.stdin)['launches']))")
[ "$nl" -gt 0 ] || fail "capture has no launches"

# no profiler lines: every CUDA column is '-'
"$VKRR" bench "$cap" --runs 2 --json "$WORK/b.json" >"$WORK/b.out" 2>"$WORK/b.err"
rc=$?
[ $rc = 0 ] || fail "bench exited $rc: $(cat "$WORK/b.err")"
rows=$(grep -cE "^ +[0-9]+ cuda_dldn_rrref_[a-z0-9_]+ +[0-9]+ +[0-9]+ +$num +- +-\$" "$WORK/b.out")
[ "$rows" = "$nl" ] || fail "expected $nl rows with a GPU time and no CUDA time, got $rows:
$(cat "$WORK/b.out")"
grep -qE "^ +total +$num +-\$" "$WORK/b.out" || fail "no total line"
# one frame in one command buffer: every launch uses the arena, so each one
# after the first needs its barrier (nl - 1 of them)
grep -qE "^frame 0: one command buffer $num ms, per-dispatch sum $num ms, ratio $num  \($nl launches, $((nl - 1)) barriers\)\$" \
    "$WORK/b.out" || fail "no one-command-buffer line for frame 0 with $((nl - 1)) barriers:
$(grep '^frame' "$WORK/b.out")"
grep -qE "^one-command-buffer / per-dispatch sum: $num " "$WORK/b.out" || fail "no one-command-buffer total"
python3 - "$WORK/b.json" "$nl" <<'PY' || fail "bad JSON"
import json, sys
d = json.load(open(sys.argv[1]))
l = d["launches"]
assert len(l) == int(sys.argv[2]), len(l)
assert all(isinstance(x["vulkan_ms"], float) and x["vulkan_ms"] >= 0 for x in l)
assert all(x["cuda_ms"] is None for x in l)
assert abs(sum(x["vulkan_ms"] for x in l) - d["vulkan_total_ms"]) < 1e-3 * len(l)
PY

# profiler lines, by sequence and by kernel name; junk lines are skipped
cp -r "$cap" "$WORK/prof"
{
    echo "[d4r nvcuda] KERNEL_PROFILE launch[1] cuda_dldn_rrref_expo0_kernel gpu_ms=0.5"
    echo "KERNEL_PROFILE launch=1 gpu_ms=1.5"
    echo "KERNEL_PROFILE launch=1 gpu_ms=0.25"
    echo "KERNEL_PROFILE kernel=cuda_dldn_rrref_enc0_kernel gpu_ms=2.0 extra=x"
    echo "KERNEL_PROFILE kernel=cuda_dldn_rrref_enc0_kernel gpu_ms=9.0"
    echo "KERNEL_PROFILE launch=1 gpu_ms=nan"
    echo "KERNEL_PROFILE launch=999 gpu_ms=1"
    echo "KERNEL_PROFILE gpu_ms="
} >>"$WORK/prof/run/run.log"
"$VKRR" bench "$WORK/prof" --runs 1 >"$WORK/p.out" 2>"$WORK/p.err" || fail "bench with profile exited $?"
grep -qE "^ +1 cuda_dldn_rrref_expo0_kernel +0 +0 +$num +0\.5000 +$num\$" "$WORK/p.out" ||
    fail "launch 1: expected the median 0.5 of three profiler lines: $(grep -E '^ +1 ' "$WORK/p.out")"
grep -qE "^ +[0-9]+ cuda_dldn_rrref_enc0_kernel +0 +0 +$num +2\.0000 " "$WORK/p.out" ||
    fail "enc0: expected 2.0 (the first occurrence's line)"
grep -q "profiler lines: 8, 4 attributed, 2 launches with a CUDA time" "$WORK/p.out" ||
    fail "profiler summary: $(grep profiler "$WORK/p.out")"

# usage errors
"$VKRR" bench "$cap" --runs 0 >/dev/null 2>&1; [ $? = 2 ] || fail "--runs 0 is not a usage error"
"$VKRR" bench >/dev/null 2>&1; [ $? = 2 ] || fail "missing CAPDIR is not a usage error"
"$VKRR" bench "$WORK/nope" >/dev/null 2>&1; [ $? = 2 ] || fail "missing capture is not exit 2"

# bench/run.sh --quick prints every ratio line, each with a number
BUILD=$(dirname "$VKRR")
if [ -x "$BUILD/compare_bench" ]; then
    bash "$SRC/bench/run.sh" "$BUILD" --quick --work "$WORK/run" >"$WORK/run.out" 2>&1 ||
        fail "bench/run.sh --quick exited $?: $(tail -5 "$WORK/run.out")"
    for re in "^validate wall / bench dispatch: $num " "^validate RSS / largest launch bytes: $num " \
        "^validate RSS above baseline / largest launch bytes: -?$num " \
        "^compare / cmp throughput: $num " "^compare / cmp throughput, 1% of elements differ: $num " \
        "^compare / cmp throughput, every element differs: $num " \
        "^validate both / isolated wall: $num " "^validate both / isolated wall, first launch perturbed: $num " "^synth CPU time per frame: $num s" \
        "^one-command-buffer frame ratio: $num "; do
        grep -qE "$re" "$WORK/run.out" || fail "run.sh: no line matching '$re'"
    done
    cat "$WORK/run.out"
else
    fail "compare_bench not built beside $VKRR"
fi

[ $fails = 0 ] && echo "e2e_bench: ok" || echo "e2e_bench: $fails failed"
exit $((fails != 0))
