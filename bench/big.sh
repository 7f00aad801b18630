#!/usr/bin/env bash
# bench/big.sh BUILD_DIR [--size WxH] [--frames N] [--work DIR] [--keep]
#
# A multi-GB capture (default: `vkrr synth` at 3840x2160, 2 frames, some 15 GB
# on disk) validated (--mode both) and rerun (--backend cpu), each under
# /usr/bin/time; prints per command the wall time, the peak RSS, and the
# peak RSS above that of the same command on a 16x16 capture (what the
# process costs by itself: the Vulkan driver, its JIT, the code) over the
# largest launch's bytes (2 x its allocations + its images, bench-lib.sh):
# the memory bound says that ratio stays within 1.5, whatever the capture's
# size.  Figures, never pass/fail.  The capture is removed at the end unless
# --keep.  Needs /usr/bin/time and python3 (scripts/deps.sh) and the disk:
# it says how much before it starts.
set -u
BUILD=${1:?usage: bench/big.sh BUILD_DIR [--size WxH] [--frames N] [--work DIR] [--keep]}
shift
SIZE=3840x2160 FRAMES=2 WORK= KEEP=0
while [ $# -gt 0 ]; do
    case $1 in
    --size) SIZE=$2; shift ;;
    --frames) FRAMES=$2; shift ;;
    --work) WORK=$2; shift ;;
    --keep) KEEP=1 ;;
    *) echo "bench/big.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
VKRR=$BUILD/vkrr
[ -x "$VKRR" ] || { echo "bench/big.sh: $VKRR not built" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/big.sh: /usr/bin/time missing: install the 'time' package" >&2; exit 2; }
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
[ -n "$WORK" ] || WORK=$BUILD/bench-big
rm -rf "$WORK"
mkdir -p "$WORK"
TMO="--timeout 3600"
w=${SIZE%x*} h=${SIZE#*x}
need_gb=$(calc "'%.1f' % ($w * $h * $FRAMES * 930 / 1e9)") # ~930 bytes a pixel a frame (rrref)
echo "big: $SIZE, $FRAMES frames: about $need_gb GB of disk in $WORK ($(df -h --output=avail "$WORK" | tail -1 | tr -d ' ') free)"

# CMD NAME CAP ARGS...: "wall rss" of one run
measure() {
    local name=$1 cmd=$2 cap=$3
    shift 3
    /usr/bin/time -v "$VKRR" "$cmd" "$cap" "$@" >"$WORK/$name.out" 2>"$WORK/$name.time"
    echo "$? $(time_wall "$WORK/$name.time") $(time_rss "$WORK/$name.time")"
}

small=$WORK/cap-16x16
"$VKRR" synth "$small" --size 16x16 --frames "$FRAMES" >/dev/null 2>&1 || { echo "synth 16x16 failed" >&2; exit 1; }
read -r _ _ base_val < <(measure base-validate validate "$small" $TMO --heatmaps none -q)
read -r _ _ base_rer < <(measure base-rerun rerun "$small" --backend cpu --heatmaps none -q)

cap=$WORK/cap-$SIZE
t0=$(now)
"$VKRR" synth "$cap" --size "$SIZE" --frames "$FRAMES" >"$WORK/synth.out" 2>&1 ||
    { echo "synth failed:"; cat "$WORK/synth.out"; exit 1; }
synth_s=$(calc "$(now) - $t0")
disk=$(du -sb "$cap" | cut -f1)
"$VKRR" info "$cap" --json >"$WORK/info.json"
read -r big_bytes big_seq big_kernel < <(largest_launch "$WORK/info.json")
printf 'capture: %s, %d frames, %.2f GB on disk, synth %.1f s; largest launch #%s %s: %s bytes\n' \
    "$SIZE" "$FRAMES" "$(calc "$disk / 1e9")" "$synth_s" "$big_seq" "$big_kernel" "$big_bytes"

for run in validate rerun; do
    if [ $run = validate ]; then
        read -r rc wall_s rss < <(measure big-validate validate "$cap" $TMO --heatmaps none -q)
        base=$base_val
    else
        read -r rc wall_s rss < <(measure big-rerun rerun "$cap" --backend cpu --heatmaps none -q)
        base=$base_rer
    fi
    printf '%s: exit %s, %.1f s, peak RSS %s kB (16x16: %s kB)\n' "$run" "$rc" "$wall_s" "$rss" "$base"
    printf '%s RSS above baseline / largest launch bytes: %s\n' "$run" \
        "$(calc "'%.2f' % (($rss - $base) * 1024.0 / $big_bytes)")"
    tail -3 "$WORK/big-$run.out" | sed "s/^/  $run: /"
done
[ $KEEP = 1 ] || rm -rf "$cap"
