#!/usr/bin/env bash
# bench/stream.sh BUILD_DIR [--size WxH] [--work DIR]
#
# A launch larger than memory, streamed (README "Launches larger than
# memory"): an rrref capture (default 1280x720) rerun on the CPU backend
#   - as usual: wall time and peak RSS;
#   - in a memory cgroup limited to three quarters of its largest launch's
#     data (made here when
#     the cgroup file system lets us, v2 or v1; else VKRR_MEM_LIMIT stands
#     in for it), with the default limit, which reads the cgroup: it
#     streams, and must PASS;
#   - in the same cgroup with streaming off (VKRR_MEM_LIMIT=1T): what the
#     kernel does to a run that holds the launch in memory (killed, 137);
#   - validate (Vulkan) the same three ways, its cgroup 128 MiB larger for
#     the driver's own memory;
# and validated on Vulkan through the staging path of a discrete GPU
# (VKRR_VK_UNMAPPED=1), whole and in slices (VKRR_MEM_LIMIT = half the
# largest launch): the cost of slicing.  Figures, never pass/fail.
# Peak RSS counts the scratch files' pages while they are mapped; the
# cgroup reclaims them, which is the point.
set -u
BUILD=${1:?usage: bench/stream.sh BUILD_DIR [--size WxH] [--work DIR]}
shift
SIZE=1280x720 WORK=
while [ $# -gt 0 ]; do
    case $1 in
    --size) SIZE=$2; shift ;;
    --work) WORK=$2; shift ;;
    *) echo "bench/stream.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
VKRR=$(realpath "$BUILD/vkrr")
[ -x "$VKRR" ] || { echo "bench/stream.sh: $BUILD/vkrr not built" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/stream.sh: /usr/bin/time missing: install the 'time' package" >&2; exit 2; }
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
[ -n "$WORK" ] || WORK=$BUILD/bench-stream
rm -rf "$WORK"
mkdir -p "$WORK/scratch"
export VKRR_SCRATCH_DIR=$WORK/scratch

cap=$WORK/cap
"$VKRR" synth "$cap" --size "$SIZE" --frames 1 >"$WORK/synth.out" 2>&1 ||
    { echo "synth failed:"; cat "$WORK/synth.out"; exit 1; }
"$VKRR" info "$cap" --json >"$WORK/info.json"
read -r big_bytes big_seq big_kernel < <(largest_launch "$WORK/info.json")
half=$((big_bytes / 4)) # largest_launch counts allocations twice (pre and post)
printf 'capture: %s; largest launch #%s %s: %s bytes moved; limit: %s bytes\n' \
    "$SIZE" "$big_seq" "$big_kernel" "$big_bytes" "$half"

# NAME PREFIX... -- VKRR ARGS: "exit wall rss PASS-count streamed-count"
run() {
    local name=$1
    shift
    local pre=()
    while [ "$1" != -- ]; do pre+=("$1"); shift; done
    shift
    "${pre[@]}" /usr/bin/time -v "$VKRR" "$@" >"$WORK/$name.out" 2>"$WORK/$name.time"
    local rc=$?
    echo "$rc $(time_wall "$WORK/$name.time") $(time_rss "$WORK/$name.time")" \
         "$(grep -c ' PASS ' "$WORK/$name.out") $(grep -c 'streamed: ' "$WORK/$name.out")"
}
show() { # WHAT rc wall rss pass streamed
    printf '%-46s exit %3s  %7.2f s  peak RSS %8s kB  %s PASS, %s streamed\n' "$1" "$2" "$3" "$4" "$5" "$6"
}

read -r -a r < <(run plain -- rerun "$cap" --backend cpu --heatmaps none)
show "rerun cpu" "${r[@]}"
read -r -a r < <(run vk-plain -- validate "$cap" --mode isolated --heatmaps none)
show "validate" "${r[@]}"

# The cgroup allows three quarters of one copy of the largest launch's data
# (largest_launch counts its allocations twice): less than a run that holds
# the launch needs, since the process itself takes some too.
cg_bytes=$((big_bytes * 3 / 8))
printf 'the cgroup: %s bytes\n' "$cg_bytes"
# A memory cgroup of cg_bytes that this shell's children can enter.
cg=
for root in /sys/fs/cgroup /sys/fs/cgroup/memory; do
    d=$root/vkrr-bench-stream-$$
    if mkdir "$d" 2>/dev/null; then
        if [ -e "$d/cgroup.procs" ] &&
            { { echo "$cg_bytes" >"$d/memory.max"; } 2>/dev/null ||
              { echo "$cg_bytes" >"$d/memory.limit_in_bytes"; } 2>/dev/null; }; then
            { echo 0 >"$d/memory.swap.max"; } 2>/dev/null
            cg=$d
            break
        fi
        rmdir "$d" 2>/dev/null || rm -rf "$d" # a plain directory: not a cgroup file system
    fi
done
if [ -n "$cg" ]; then
    incg() { sh -c "echo \$\$ > $cg/cgroup.procs && exec \"\$@\"" sh "$@"; }
    read -r -a r < <(run cg-stream incg -- rerun "$cap" --backend cpu --heatmaps none)
    show "rerun cpu, in the cgroup, streamed" "${r[@]}"
    read -r -a r < <(run cg-whole incg env VKRR_MEM_LIMIT=1T -- rerun "$cap" --backend cpu --heatmaps none)
    show "rerun cpu, in the cgroup, not streamed" "${r[@]}"
    # Vulkan: the driver (lavapipe: its images, its compiled shaders) takes
    # some 128 MiB more of its own.
    cg_vk=$((cg_bytes + (128 << 20)))
    { echo "$cg_vk" >"$cg/memory.max"; } 2>/dev/null || { echo "$cg_vk" >"$cg/memory.limit_in_bytes"; } 2>/dev/null
    printf 'the cgroup for validate: %s bytes\n' "$cg_vk"
    read -r -a r < <(run cg-vk incg -- validate "$cap" --mode isolated --heatmaps none)
    show "validate, in the cgroup, streamed" "${r[@]}"
    read -r -a r < <(run cg-vk-whole incg env VKRR_MEM_LIMIT=1T -- validate "$cap" --mode isolated --heatmaps none)
    show "validate, in the cgroup, not streamed" "${r[@]}"
    sleep 1
    rmdir "$cg" 2>/dev/null
else
    echo "no memory cgroup can be made here (not root, or no writable cgroup file system):" \
         "VKRR_MEM_LIMIT stands in for it"
    read -r -a r < <(run env-stream env VKRR_MEM_LIMIT="$half" -- rerun "$cap" --backend cpu --heatmaps none)
    show "rerun cpu, VKRR_MEM_LIMIT of the limit" "${r[@]}"
fi

read -r -a r < <(run vk-whole env VKRR_VK_UNMAPPED=1 -- validate "$cap" --mode isolated --heatmaps none)
show "validate, unmapped device memory, whole" "${r[@]}"
read -r -a r < <(run vk-slices env VKRR_VK_UNMAPPED=1 VKRR_MEM_LIMIT="$half" -- validate "$cap" --mode isolated --heatmaps none)
show "validate, unmapped device memory, in slices" "${r[@]}"
leftover=$(ls -A "$WORK/scratch" | wc -l)
echo "scratch files left: $leftover"
