#!/usr/bin/env bash
# bench/run.sh BUILD_DIR [--quick] [--compare-only] [--work DIR]   (BENCH_PTX=1: the PTX
# interpreter ratio in --quick too; --compare-only: only the compare lines, on
# one frame a size)
#
# Figures (never pass/fail) on rrref captures made here by `vkrr synth`,
# 3 frames at 1280x720 and 1920x1080 (--quick: 320x180 only, or env
# BENCH_QUICK_SIZE).  Per size:
#   validate wall / bench dispatch   wall time of `vkrr validate` over the sum of
#                                    the port's median GPU dispatch times (`vkrr bench`,
#                                    3 runs a launch, env BENCH_RUNS; --quick: 1)
#   validate RSS / largest launch    peak RSS of validate (/usr/bin/time -v) over the
#                                    largest launch's bytes: 2 x sum of its allocation
#                                    sizes (pre + post) + its image bytes (`vkrr info --json`)
#   validate RSS above baseline      the same peak RSS minus that of the same command on a
#     / largest launch               16x16 capture (what the process costs by itself: the
#                                    Vulkan driver and its JIT), over the same launch bytes
#   compare / cmp throughput         compare_bench (vkrr_compare, f16) over `cmp`, both on
#                                    the largest dump file and an identical copy of it
#                                    (identical so that cmp reads every byte); then
#                                    compare_bench on data that differs (every 100th
#                                    element, and every element, 1 ULP off) over the
#                                    same cmp figure
#   validate both / isolated wall    `vkrr validate --mode both` over `--mode isolated`, on
#                                    the exact capture (chained reuses isolated: ~1) and
#                                    with --perturb on the first launch (chained dispatches: ~2)
#                                    and the identical case with the dump hashed as it is
#                                    compared (validate's hash= check, --hash), the cost
#                                    the validate ratio carries
#   synth CPU time per frame         wall time of `vkrr synth` / frames
#   one-command-buffer frame ratio   `vkrr bench`'s per-frame figures: the frame recorded
#                                    into one command buffer (median GPU time) over the
#                                    sum of the frame's per-dispatch medians, all frames
# Needs /usr/bin/time (Debian package `time`, in scripts/deps.sh) and python3.
set -u
BUILD=${1:?usage: bench/run.sh BUILD_DIR [--quick] [--compare-only] [--work DIR]}
shift
QUICK=0 COMPARE_ONLY=0
WORK=
while [ $# -gt 0 ]; do
    case $1 in
    --quick) QUICK=1 ;;
    --compare-only) COMPARE_ONLY=1 ;;
    --work) WORK=$2; shift ;;
    *) echo "bench/run.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
VKRR=$BUILD/vkrr
CB=$BUILD/compare_bench
for f in "$VKRR" "$CB"; do
    [ -x "$f" ] || { echo "bench/run.sh: $f not built (cmake --build $BUILD --target vkrr compare_bench)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench/run.sh: /usr/bin/time missing: install the 'time' package (scripts/deps.sh)" >&2; exit 2; }
[ -n "$WORK" ] || WORK=$BUILD/bench-work
rm -rf "$WORK"
mkdir -p "$WORK"
FRAMES=3
# --quick (what e2e_bench runs) keeps bench to one untimed run and one timed
# run a launch: its figures are only checked to be numbers there
if [ $QUICK = 1 ]; then SIZES=${BENCH_QUICK_SIZE:-320x180}; RUNS=1; WARMUP="--warmup-max 0.001"
else SIZES="1280x720 1920x1080"; RUNS=${BENCH_RUNS:-3}; WARMUP=""; fi

# A figure, not a verdict: a launch that is slow on a busy machine must still
# finish (validate's default per-launch timeout is 60 s).
TMO="--timeout 1800"
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

# The compare lines of a capture: vkrr_compare (compare_bench) over cmp on
# its largest dump file and an identical copy, then on data that differs.
compare_figures() {
    local cap=$1 big cmp_line cmp_bytes cb_mbs cb1_mbs cball_mbs cbh_mbs best_cmp c0 c1 d cmp_mbs
    big=$(ls -S "$cap"/dump/* | head -1)
    cp "$big" "$WORK/copy.bin"
    cmp_line=$("$CB" "$big" "$WORK/copy.bin" --reps 3)
    cmp_bytes=$(stat -c %s "$big")
    cb_mbs=$(echo "$cmp_line" | sed -n 's/^compare_bench: .* \([0-9.]*\) MB\/s.*/\1/p')
    cb1_mbs=$(echo "$cmp_line" | sed -n 's/^compare_bench differing 1%: .* \([0-9.]*\) MB\/s.*/\1/p')
    cball_mbs=$(echo "$cmp_line" | sed -n 's/^compare_bench differing all: .* \([0-9.]*\) MB\/s.*/\1/p')
    cbh_mbs=$("$CB" "$big" "$WORK/copy.bin" --reps 3 --hash | sed -n 's/^compare_bench: .* \([0-9.]*\) MB\/s.*/\1/p')
    best_cmp=
    for r in 1 2 3; do
        c0=$(now)
        cmp "$big" "$WORK/copy.bin" >/dev/null
        c1=$(now)
        d=$(calc "$c1 - $c0")
        if [ -z "$best_cmp" ] || [ "$(calc "$d < $best_cmp")" = True ]; then best_cmp=$d; fi
    done
    cmp_mbs=$(calc "$cmp_bytes / $best_cmp / 1e6")
    rm -f "$WORK/copy.bin"
    printf 'compare / cmp throughput: %s  (compare_bench %s MB/s, cmp %.1f MB/s, %s bytes, %s)\n' \
        "$(calc "'%.3f' % ($cb_mbs / $cmp_mbs)")" "$cb_mbs" "$cmp_mbs" "$cmp_bytes" "$(basename "$big")"
    printf 'compare / cmp throughput, 1%% of elements differ: %s  (compare_bench %s MB/s, cmp %.1f MB/s)\n' \
        "$(calc "'%.3f' % ($cb1_mbs / $cmp_mbs)")" "$cb1_mbs" "$cmp_mbs"
    printf 'compare / cmp throughput, every element differs: %s  (compare_bench %s MB/s, cmp %.1f MB/s)\n' \
        "$(calc "'%.3f' % ($cball_mbs / $cmp_mbs)")" "$cball_mbs" "$cmp_mbs"
    printf 'compare+hash / cmp throughput: %s  (compare_bench --hash %s MB/s)\n' \
        "$(calc "'%.3f' % ($cbh_mbs / $cmp_mbs)")" "$cbh_mbs"
}

if [ $COMPARE_ONLY = 1 ]; then
    for size in $SIZES; do
        cap=$WORK/cap-$size
        echo "== $size, 1 frame: compare only =="
        "$VKRR" synth "$cap" --size "$size" --frames 1 >"$WORK/synth-$size.out" 2>&1 ||
            { echo "synth failed:"; cat "$WORK/synth-$size.out"; exit 1; }
        compare_figures "$cap"
    done
    exit 0
fi

base_cap=$WORK/cap-16x16
"$VKRR" synth "$base_cap" --size 16x16 --frames $FRAMES >/dev/null 2>&1 ||
    { echo "synth 16x16 failed" >&2; exit 1; }
base_rss_kb=$(/usr/bin/time -v "$VKRR" validate "$base_cap" $TMO --heatmaps none -q --out "$WORK/vout-16x16" \
    2>"$WORK/validate-16x16.time" >"$WORK/validate-16x16.out";
    time_rss "$WORK/validate-16x16.time")
echo "baseline: validate peak RSS on a 16x16 capture: $base_rss_kb kB"

for size in $SIZES; do
    cap=$WORK/cap-$size
    echo "== $size, $FRAMES frames =="
    t0=$(now)
    "$VKRR" synth "$cap" --size "$size" --frames $FRAMES >"$WORK/synth-$size.out" 2>&1 ||
        { echo "synth failed:"; cat "$WORK/synth-$size.out"; exit 1; }
    t1=$(now)
    synth_s=$(calc "$t1 - $t0")

    /usr/bin/time -v "$VKRR" validate "$cap" $TMO --heatmaps none --out "$WORK/vout-$size" \
        >"$WORK/validate-$size.out" 2>"$WORK/validate-$size.time"
    vrc=$?
    val_wall=$(time_wall "$WORK/validate-$size.time")
    val_rss_kb=$(time_rss "$WORK/validate-$size.time")

    "$VKRR" bench "$cap" $TMO $WARMUP --runs $RUNS --json "$WORK/bench-$size.json" >"$WORK/bench-$size.out" 2>&1
    brc=$?
    bench_ms=$(python3 -c "import json; v=json.load(open('$WORK/bench-$size.json'))['vulkan_total_ms']; print(v if v is not None else 'nan')" 2>/dev/null || echo nan)

    "$VKRR" info "$cap" --json >"$WORK/info-$size.json"
    read -r big_bytes big_seq big_kernel < <(largest_launch "$WORK/info-$size.json")

    compare_figures "$cap"

    printf 'validate wall / bench dispatch: %s  (validate %.3f s, exit %d; bench dispatch total %s ms, exit %d)\n' \
        "$(calc "'%.1f' % ($val_wall / ($bench_ms / 1000.0)) if $bench_ms == $bench_ms and $bench_ms > 0 else 'nan'")" \
        "$val_wall" "$vrc" "$bench_ms" "$brc"
    printf 'validate RSS / largest launch bytes: %s  (peak RSS %s kB; launch %s %s: %s bytes)\n' \
        "$(calc "'%.2f' % ($val_rss_kb * 1024.0 / $big_bytes) if $big_bytes > 0 else 'nan'")" \
        "$val_rss_kb" "$big_seq" "$big_kernel" "$big_bytes"
    printf 'validate RSS above baseline / largest launch bytes: %s  (peak RSS %s kB - baseline %s kB)\n' \
        "$(calc "'%.2f' % (($val_rss_kb - $base_rss_kb) * 1024.0 / $big_bytes) if $big_bytes > 0 else 'nan'")" \
        "$val_rss_kb" "$base_rss_kb"
    first_kernel=$(python3 -c "import json; print(json.load(open('$WORK/info-$size.json'))['launches'][0]['kernel'])")
    iso_s=$(wall "$WORK/iso-$size.out" "$VKRR" validate "$cap" $TMO --mode isolated --heatmaps none -q)
    both_s=$(wall "$WORK/both-$size.out" "$VKRR" validate "$cap" $TMO --mode both --heatmaps none -q)
    pert_s=$(wall "$WORK/perturbed-$size.out" "$VKRR" validate "$cap" $TMO --mode both --heatmaps none -q \
        --perturb "$first_kernel=4")
    printf 'validate both / isolated wall: %s  (both %.3f s, isolated %.3f s)\n' \
        "$(calc "'%.3f' % ($both_s / $iso_s)")" "$both_s" "$iso_s"
    printf 'validate both / isolated wall, first launch perturbed: %s  (both %.3f s, isolated %.3f s)\n' \
        "$(calc "'%.3f' % ($pert_s / $iso_s)")" "$pert_s" "$iso_s"
    printf 'synth CPU time per frame: %.3f s  (%.3f s for %d frames)\n' \
        "$(calc "$synth_s / $FRAMES")" "$synth_s" $FRAMES
    ocb=$(sed -n 's/^one-command-buffer \/ per-dispatch sum: //p' "$WORK/bench-$size.out")
    echo "one-command-buffer frame ratio: ${ocb:-not measured (see $WORK/bench-$size.out)}"
done

# The PTX engines against the CPU backend per rrref launch and frame: the
# interpreter, the JIT's first run (compiling) and the JIT from its cache, at
# 320x180 and, without --quick, 1280x720 and 1920x1080 (the interpreter once a
# launch there: minutes).  Not in --quick unless BENCH_PTX=1.
MODS=$BUILD/share/vkrr/modules
[ -f "$MODS/rrref_conv.ptx" ] || MODS=$(cd "$(dirname "$0")/.." && pwd)/tests/ptx/checked_in/rrref
if [ -x "$BUILD/ptx_bench" ] && { [ $QUICK = 0 ] || [ "${BENCH_PTX:-0}" = 1 ]; }; then
    ptx_sizes="320x180"
    [ $QUICK = 0 ] && ptx_sizes="320x180 1280x720 1920x1080"
    for size in $ptx_sizes; do
        ireps=$RUNS
        [ "$size" = 320x180 ] || ireps=1
        echo "== PTX engines / CPU backend, rrref $size =="
        mkdir -p "$WORK/ptx-$size"
        "$BUILD/ptx_bench" "$MODS" --size "$size" --reps "$RUNS" --interp-reps "$ireps" \
            --work "$WORK/ptx-$size" | tee "$WORK/ptx-bench-$size.out"
        line=$(grep '^total ' "$WORK/ptx-bench-$size.out")
        r() { echo "$line" | sed -n "s/.* $1 *[0-9.]* ms ( *\([0-9.]*\)x).*/\1/p"; }
        echo "ptx / cpu backend time, rrref $size: interpreter $(r interp)x, JIT first run $(r jit-first)x, JIT cached $(r jit)x"
    done
fi
