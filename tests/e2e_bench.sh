#!/usr/bin/env bash
# e2e_bench: `vkrr bench` times every launch of a tiny synth capture (one row
# a launch: median, min and max GPU time after an untimed first run and a
# warm-up until two medians agree; CUDA times from KERNEL_PROFILE lines when
# the log has them, '-' when not; --ref cuda without libcuda is exit 3), and
# bench/run.sh --quick prints every ratio.
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
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" # vkrr: "$VKRR" that reports a sanitizer report as such
cap=$WORK/cap
vkrr synth "$cap" --size 32x24 --frames 1 >/dev/null 2>"$WORK/synth.err" ||
    { echo "FAIL: synth exited $?: $(cat "$WORK/synth.err")" >&2; exit 1; }
nl=$(vkrr info "$cap" --json | python3 -c "import json,sys; print(len(json.load(sys.stdin)['launches']))")
[ "$nl" -gt 0 ] || fail "capture has no launches"

# no profiler lines: every CUDA column is '-' (the warm-up is bounded to half a
# second a launch: on a loaded machine the medians may never settle, and the
# figures are only checked to be numbers here)
vkrr bench "$cap" --runs 2 --warmup-max 0.5 --json "$WORK/b.json" >"$WORK/b.out" 2>"$WORK/b.err"
rc=$?
[ $rc = 0 ] || fail "bench exited $rc: $(cat "$WORK/b.err")"
# median, min and max of the port; '-' for every CUDA figure; a note may say
# 'unsteady' or 'spread' (lavapipe shares the CPU with whatever else runs)
rows=$(grep -cE "^ +[0-9]+ cuda_dldn_rrref_[a-z0-9_]+ +[0-9]+ +[0-9]+ +$num +$num +$num +- +- +- +-( .*)?\$" "$WORK/b.out")
[ "$rows" = "$nl" ] || fail "expected $nl rows with GPU times and no CUDA time, got $rows:
$(cat "$WORK/b.out")"
grep -qE "^ +total +$num +- +-\$" "$WORK/b.out" || fail "no total line"
grep -qE "^vulkan device: .+, driver .+" "$WORK/b.out" || fail "no device and driver line"
grep -qE "^clocks before: vulkan device: .+" "$WORK/b.out" || fail "no clocks line before"
grep -qE "^clocks after: vulkan device: .+" "$WORK/b.out" || fail "no clocks line after"
grep -q "timed runs each after warm-up (until two medians agree within 2 %" "$WORK/b.out" ||
    fail "the header does not say how launches are timed"
# one frame in one command buffer: a launch that uses an allocation a launch
# since the last barrier used gets a barrier (every layer but the attention
# block's uses the arena; its two attn0 launches share only the weight image,
# and reach tok0's and each other's results through textures, which the
# frame's command buffer gives each launch its own of: 12 launches, 9 barriers)
nb=$(vkrr info "$cap" --json | python3 -c "
import json, sys
L = json.load(sys.stdin)['launches']
n, since = 0, 0
for k in range(1, len(L)):
    used = {a['base'] for l in L[since:k] for a in l['allocs']}
    if used & {a['base'] for a in L[k]['allocs']}:
        n, since = n + 1, k
print(n)")
[ "$nb" = 9 ] || fail "rrref's frame should need 9 barriers, the capture gives $nb"
grep -qE "^frame 0: one command buffer $num ms \(min $num, max $num\), per-dispatch sum $num ms, ratio $num  \($nl launches, $nb barriers\)" \
    "$WORK/b.out" || fail "no one-command-buffer line for frame 0 with $nb barriers:
$(grep '^frame' "$WORK/b.out")"
grep -qE "^one-command-buffer / per-dispatch sum: $num " "$WORK/b.out" || fail "no one-command-buffer total"
python3 - "$WORK/b.json" "$nl" "$nb" <<'PY' || fail "bad JSON"
import json, sys
d = json.load(open(sys.argv[1]))
l = d["launches"]
assert len(l) == int(sys.argv[2]), len(l)
assert d["runs"] == 2 and d["cuda"] is None and d["vulkan"]["driver"], d
for x in l:
    v = x["vulkan"]
    assert v["from"] == "measured" and v["runs"] == 2, x
    # first use untimed, then whole batches before the figures' batch
    assert v["warmup_runs"] >= 1 and (v["warmup_runs"] - 1) % 2 == 0, x
    assert 0 <= v["min_ms"] <= v["median_ms"] <= v["max_ms"], x
    assert x["vulkan_ms"] == v["median_ms"] and x["cuda_ms"] is None and x["cuda"] is None, x
    assert v["spread_marked"] == (v["spread"] > 0.10), x
    assert v["steady"] or "unsteady" in x["note"], x
assert abs(sum(x["vulkan_ms"] for x in l) - d["vulkan_total_ms"]) < 1e-3 * len(l)
f = d["frames"]
assert len(f) == 1 and f[0]["launches"] == len(l) and f[0]["barriers"] == int(sys.argv[3]), f
assert f[0]["vulkan"]["runs"] == 2 and f[0]["vulkan"]["warmup_runs"] >= 1, f
assert abs(f[0]["vulkan_sum_ms"] - d["vulkan_total_ms"]) < 1e-3 * len(l), f
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
vkrr bench "$WORK/prof" --runs 1 --warmup-max 0.5 --json "$WORK/p.json" >"$WORK/p.out" 2>"$WORK/p.err" || fail "bench with profile exited $?"
grep -qE "^ +1 cuda_dldn_rrref_expo0_kernel +0 +0 +$num +$num +$num +0\.5000 +- +- +$num( .*)?\$" "$WORK/p.out" ||
    fail "launch 1: expected the median 0.5 of three profiler lines: $(grep -E '^ +1 ' "$WORK/p.out")"
grep -qE "^ +[0-9]+ cuda_dldn_rrref_enc0_kernel +0 +0 +$num +$num +$num +2\.0000 " "$WORK/p.out" ||
    fail "enc0: expected 2.0 (the first occurrence's line)"
e2e_json_valid vkrr-bench "$WORK/b.json" "$WORK/p.json"
grep -q "profiler lines: 8, 4 attributed, 2 launches with a CUDA time" "$WORK/p.out" ||
    fail "profiler summary: $(grep profiler "$WORK/p.out")"
grep -qE "^ +total +$num +2\.5000 +$num  \(ratio over the 2 launches with both times\)\$" "$WORK/p.out" ||
    fail "total: $(grep -E '^ +total' "$WORK/p.out")"
python3 - "$WORK/p.json" <<'PY' || fail "bad JSON with profiler lines"
import json, sys
d = json.load(open(sys.argv[1]))
x = d["launches"][0]
assert x["cuda_ms"] == 0.5 and x["cuda"]["from"] == "run.log", x
assert abs(x["ratio"] - x["vulkan_ms"] / 0.5) < 1e-5, x
PY

# --ref cuda: the original timed through libcuda; without it, exit 3 naming
# the library, before any launch is run
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
    vkrr bench "$cap" --ref cuda >"$WORK/r.out" 2>"$WORK/r.err"
    rc=$?
    [ $rc = 3 ] || fail "--ref cuda without libcuda: exit $rc, not 3"
    grep -q "libcuda.so.1" "$WORK/r.err" || fail "--ref cuda without libcuda does not name it: $(cat "$WORK/r.err")"
    [ ! -s "$WORK/r.out" ] || fail "--ref cuda without libcuda printed a table: $(head -3 "$WORK/r.out")"
else
    echo "e2e_bench: libcuda.so.1 is present; the exit-3 check is skipped"
fi

# usage errors
vkrr bench "$cap" --runs 0 >/dev/null 2>&1; [ $? = 2 ] || fail "--runs 0 is not a usage error"
vkrr bench >/dev/null 2>&1; [ $? = 2 ] || fail "missing CAPDIR is not a usage error"
vkrr bench "$WORK/nope" >/dev/null 2>&1; [ $? = 2 ] || fail "missing capture is not exit 2"
vkrr bench "$cap" --ref ptx >/dev/null 2>"$WORK/u.err"; [ $? = 2 ] || fail "--ref ptx is not a usage error"
grep -q "ref wants cuda" "$WORK/u.err" || fail "--ref ptx: $(cat "$WORK/u.err")"
vkrr bench "$cap" --modules "$cap/modules" >/dev/null 2>&1; [ $? = 2 ] || fail "--modules without --ref is not a usage error"
vkrr bench "$cap" --warmup-max 0 >/dev/null 2>&1; [ $? = 2 ] || fail "--warmup-max 0 is not a usage error"

# bench/run.sh --quick prints every ratio line, each with a number
BUILD=$(dirname "$VKRR")
if [ -x "$BUILD/compare_bench" ]; then
    # (at 160x90: the lines are what is checked, and 320x180 took a minute)
    BENCH_QUICK_SIZE=160x90 bash "$SRC/bench/run.sh" "$BUILD" --quick --work "$WORK/run" >"$WORK/run.out" 2>&1 ||
        fail "bench/run.sh --quick exited $?: $(tail -5 "$WORK/run.out")"
    e2e_scan_logs "bench/run.sh --quick" "$WORK/run.out" "$WORK"/run/*.out "$WORK"/run/*.time
    for re in "^validate wall / bench dispatch: $num " "^validate RSS / largest launch bytes: $num " \
        "^validate RSS above baseline / largest launch bytes: -?$num " \
        "^compare / cmp throughput: $num " "^compare / cmp throughput, 1% of elements differ: $num " \
        "^compare / cmp throughput, every element differs: $num " "^compare\+hash / cmp throughput: $num " \
        "^validate both / isolated wall: $num " "^validate both / isolated wall, first launch perturbed: $num " \
        "^synth CPU time per frame: $num s" \
        "^one-command-buffer frame ratio: $num "; do
        grep -qE "$re" "$WORK/run.out" || fail "run.sh: no line matching '$re'"
    done
    cat "$WORK/run.out"
else
    fail "compare_bench not built beside $VKRR"
fi

[ $fails = 0 ] && echo "e2e_bench: ok" || echo "e2e_bench: $fails failed"
exit $((fails != 0))
