#!/usr/bin/env bash
# bench/enc0.sh - the PTX engines on enc0-shaped kernels of growing size
# (bench/enc0_gen.py; issue 44): how the JIT's cold compile time and peak
# memory grow with the kernel (what each worker thread holds, and the JIT's compiled runs
# against the functions they share), beside both engines' ms a warp.
# Usage: bench/enc0.sh [BUILD_DIR] [PHASES...]   (default build, 64 128 256 512
#        phases: about 10k, 20k, 40k and 83k instructions; ENC0_ARGS gives
#        enc0_bench options, default "--warps 16 --reps 7": on a shared 2-core
#        host enc0_bench's own 4 warps, best of 3, put a JIT figure off by up to
#        half now and then; ENC0_ARGS="" for those)
# Sizes not checked in under bench/enc0/ need nvcc; without it they print
# SKIPPED.  Each size's full output is printed after the table.
# VKRR_PTX_JIT_CPU=x86-64-v3 (or another CPU this host can run) measures the
# JIT's code for that CPU: an AVX2 host's figures on an AVX-512 one.
# ENC0_STANDIN=1 (needs nvcc) adds a second table: the same kernels with
# --mma-standin (xor where the mma was), 1 thread, and the mma's share of a
# warp's time in each engine.
set -u
BUILD=${1:-build}
shift || true
PHASES=("$@")
ENC0_ARGS=${ENC0_ARGS---warps 16 --reps 7}
[ ${#PHASES[@]} -eq 0 ] && PHASES=(64 128 256 512)
BENCH=$BUILD/enc0_bench
[ -x "$BENCH" ] || { echo "enc0.sh: no $BENCH (build it: ninja -C $BUILD enc0_bench)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/vkrr-bench-enc0.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
get() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$1"; } # LOG KEY: the summary's value
printf "%-7s %7s %5s %10s %8s %10s %15s %13s %9s %11s\n" phases insts mma compile_s peak_MB \
    worker_KB interp_ms/warp jit_ms/warp same runs/fns
for p in "${PHASES[@]}"; do
    log=$WORK/p$p.log
    # shellcheck disable=SC2086
    "$BENCH" --phases "$p" $ENC0_ARGS >"$log" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then
        printf "%-7s SKIPPED: %s\n" "$p" "$(sed -n 's/.*SKIPPED: //p' "$log")"
    elif [ $rc -ne 0 ] || ! grep -q '^summary:' "$log"; then
        printf "%-7s FAILED (exit %d): %s\n" "$p" "$rc" "$(tail -1 "$log")"
    else
        sed -n 's/^summary: /&/p' "$log" >"$log.sum"
        printf "%-7s %7s %5s %10s %8s %10s %15s %13s %9s %11s\n" "$p" "$(get "$log.sum" insts)" \
            "$(get "$log.sum" mma)" "$(get "$log.sum" compile_s)" "$(get "$log.sum" peak_mb)" \
            "$(get "$log.sum" worker_kb)" \
            "$(get "$log.sum" interp_ms_warp)" "$(get "$log.sum" jit_ms_warp)" "$(get "$log.sum" same)" \
            "$(get "$log.sum" jit_runs)/$(get "$log.sum" jit_fns)"
    fi
done
if [ "${ENC0_STANDIN:-0}" = 1 ]; then
    echo
    echo "without the mma (--mma-standin, 1 thread), and the mma's share of the time above:"
    printf "%-7s %15s %13s %24s\n" phases interp_ms/warp jit_ms/warp "mma_share interp/jit"
    for p in "${PHASES[@]}"; do
        log=$WORK/s$p.log
        if ! python3 "$(dirname "$0")/enc0_gen.py" --phases "$p" --mma-standin --ptx "$WORK/s$p.ptx" \
            >"$log" 2>&1; then
            printf "%-7s SKIPPED: no standin kernel: %s\n" "$p" "$(tail -1 "$log")"
            continue
        fi
        # shellcheck disable=SC2086
        "$BENCH" --ptx "$WORK/s$p.ptx" --threads 1 $ENC0_ARGS >"$log" 2>&1
        sed -n 's/^summary: /&/p' "$log" >"$log.sum"
        si=$(get "$log.sum" interp_ms_warp) sj=$(get "$log.sum" jit_ms_warp)
        fi=$(get "$WORK/p$p.log.sum" interp_ms_warp 2>/dev/null) fj=$(get "$WORK/p$p.log.sum" jit_ms_warp 2>/dev/null)
        share=$(python3 -c "import sys
def f(x, y):
    try: return '%.0f%%' % (100 * (1 - float(y) / float(x))) if float(x) > 0 and float(y) >= 0 else '-'
    except ValueError: return '-'
print(f(sys.argv[1], sys.argv[2]) + ' / ' + f(sys.argv[3], sys.argv[4]))" "${fi:-x}" "${si:-x}" "${fj:-x}" "${sj:-x}")
        printf "%-7s %15s %13s %24s\n" "$p" "${si:--}" "${sj:--}" "$share"
    done
fi
for p in "${PHASES[@]}"; do
    echo
    cat "$WORK/p$p.log"
    [ -f "$WORK/s$p.log" ] && { echo; cat "$WORK/s$p.log"; }
done
