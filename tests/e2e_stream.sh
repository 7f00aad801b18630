#!/usr/bin/env bash
# e2e_stream: a launch larger than the memory limit (VKRR_MEM_LIMIT) is
# streamed, not refused: its data past the limit in scratch files
# (VKRR_SCRATCH_DIR), to and from the Vulkan device through staging in
# slices.  Streamed, every row is the unstreamed run's (validate isolated and
# chained with a perturbed launch that fails, rerun on the cpu and ptx
# backends; on lavapipe the buffers are the scratch pages, imported); the
# staging paths of a discrete GPU (VKRR_VK_UNMAPPED=1: no
# mapped device memory) give the same rows, whole and in slices; the rows
# of streamed launches say so; no scratch file is left behind; a scratch
# directory that cannot hold the files fails those launches naming it, and
# a VKRR_MEM_LIMIT that is not a size is exit 2 naming it.
# Usage: e2e_stream.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
mkdir -p "$WORK/scratch"
cap=$WORK/cap
vkrr synth "$cap" --size 96x64 --frames 2 >/dev/null 2>&1 || fail "synth"
# 128 KiB: most launches are over it; slices of 16 KiB, so
# the arena and every image move in several.
LIMIT=128K

# Rows equal but for wall time and the streamed note; *streamed: how many
# launches say they were streamed.
same_rows() { # A B WHAT STREAMED
    python3 - "$@" <<'EOF' || fail "$3: the rows differ from the unstreamed run's"
import json, re, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
what, want = sys.argv[3], int(sys.argv[4])
def norm(x):
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items() if k not in ("seconds",)}
    if isinstance(x, list):
        return [norm(v) for v in x]
    if isinstance(x, str):
        return re.sub(r"(; )?streamed: [^;]*", "", x)
    return x
bad = 0
for k in ("summary", "chained_summary", "bisect"):
    if norm(a.get(k)) != norm(b.get(k)):
        print(f"{what}: {k}: {a.get(k)} != {b.get(k)}"); bad += 1
if len(a["launches"]) != len(b["launches"]):
    print(f"{what}: {len(a['launches'])} launches against {len(b['launches'])}"); bad += 1
for la, lb in zip(a["launches"], b["launches"]):
    if norm(la) != norm(lb):
        print(f"{what}: launch {la['sequence']} differs in",
              [k for k in la if norm(la[k]) != norm(lb.get(k))],
              f"({la['status']} unstreamed, {lb['status']} streamed: {lb.get('note')!r})"); bad += 1
said = sum("streamed: " in (l.get("note") or "") for l in b["launches"])
if said != want:
    print(f"{what}: {said} launches say they were streamed, expected {want}"); bad += 1
print(f"{what}: {len(a['launches'])} launches compared, {said} streamed, {bad} differences")
sys.exit(1 if bad else 0)
EOF
}

# How many launches of the capture are over the limit, from `info`'s sizes,
# counted here independently of vkrr's own rule.
over=$(vkrr info "$cap" --json 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
lim = 128 * 1024
def texel(i):  # CUarray_format: bytes of a channel; the packed X4 formats a texel
    if i["format_name"].endswith("INT8X4"):
        return 4
    return {1: 1, 2: 2, 3: 4, 8: 1, 9: 2, 10: 4, 16: 2, 32: 4}[i["format"]] * i["channels"]
n = 0
for l in j["launches"]:
    b = sum(a["size"] for a in l["allocs"])
    b += sum(i["width"] * i["height"] * texel(i) for i in l["images"])
    n += b > lim
print(n)') || fail "info --json"
[ "${over:-0}" -gt 4 ] || fail "the capture has only '${over:-}' launches over $LIMIT"

perturb=(--perturb cuda_dldn_rrref_enc1_kernel#0=64)
vkrr validate "$cap" --mode both "${perturb[@]}" --heatmaps none --json "$WORK/base.json" \
    >"$WORK/base.out" 2>&1
base_rc=$?
[ $base_rc = 1 ] || fail "validate with a perturbed launch: exit $base_rc, expected 1"
for env in "VKRR_MEM_LIMIT=$LIMIT" "VKRR_VK_UNMAPPED=1" "VKRR_MEM_LIMIT=$LIMIT VKRR_VK_UNMAPPED=1"; do
    name=$(echo "$env" | tr ' =' '__')
    # shellcheck disable=SC2086
    env VKRR_SCRATCH_DIR="$WORK/scratch" $env "$VKRR" validate "$cap" --mode both "${perturb[@]}" \
        --heatmaps none --json "$WORK/$name.json" >"$WORK/$name.out" 2>&1
    rc=$?
    [ $rc = $base_rc ] || fail "validate with $env: exit $rc, expected $base_rc"
    streamed=0
    case $env in *MEM_LIMIT*) streamed=$over ;; esac
    same_rows "$WORK/base.json" "$WORK/$name.json" "validate, $env" "$streamed"
    e2e_json_valid vkrr-results "$WORK/$name.json"
done
grep -q "streamed: .* exceed the memory limit of 0.12 MiB (VKRR_MEM_LIMIT)" \
    "$WORK/VKRR_MEM_LIMIT_$LIMIT.out" || fail "the table does not say a launch was streamed"

# without nvcc the capture has no modules: the checked-in PTX of rrref
mods=()
[ -d "$cap/modules" ] || mods=(--modules "$(cd "$(dirname "$0")" && pwd)/ptx/checked_in/rrref")
for be in cpu ptx; do
    more=()
    [ $be = ptx ] && more=("${mods[@]}")
    vkrr rerun "$cap" --backend "$be" "${more[@]}" --heatmaps none --json "$WORK/rerun-$be.json" \
        >/dev/null 2>&1
    rc0=$?
    VKRR_SCRATCH_DIR="$WORK/scratch" VKRR_MEM_LIMIT=$LIMIT "$VKRR" rerun "$cap" --backend "$be" \
        "${more[@]}" --heatmaps none --json "$WORK/rerun-$be-s.json" >/dev/null 2>&1
    rc=$?
    [ $rc0 = 0 ] && [ $rc = 0 ] || fail "rerun --backend $be: exit $rc0 and streamed $rc, expected 0"
    same_rows "$WORK/rerun-$be.json" "$WORK/rerun-$be-s.json" "rerun --backend $be" "$over"
    e2e_json_valid vkrr-results "$WORK/rerun-$be.json" "$WORK/rerun-$be-s.json"
done
[ -z "$(ls -A "$WORK/scratch")" ] || fail "scratch files left behind: $(ls "$WORK/scratch")"

# The scratch path is the one taken: where it cannot be made, streamed
# launches fail naming the directory; the limit unset, nothing needs it.
VKRR_SCRATCH_DIR=$WORK/none VKRR_MEM_LIMIT=$LIMIT "$VKRR" rerun "$cap" --backend cpu \
    --heatmaps none >"$WORK/none.out" 2>&1
rc=$?
[ $rc = 2 ] || fail "rerun with no scratch directory: exit $rc, expected 2"
grep -q "scratch file in $WORK/none" "$WORK/none.out" || fail "the missing scratch directory is not named"
VKRR_SCRATCH_DIR=$WORK/none vkrr rerun "$cap" --backend cpu --heatmaps none >/dev/null 2>&1 ||
    fail "rerun under the limit needs a scratch directory"
# On Vulkan too: a device whose memory is the host's imports the scratch
# pages as the buffers' memory, one without mapped memory reads back into them.
for env in "" "VKRR_VK_UNMAPPED=1"; do
    # shellcheck disable=SC2086
    env VKRR_SCRATCH_DIR="$WORK/none" VKRR_MEM_LIMIT=$LIMIT $env "$VKRR" validate "$cap" \
        --mode isolated --heatmaps none >"$WORK/none-vk.out" 2>&1
    rc=$?
    [ $rc = 2 ] || fail "validate $env with no scratch directory: exit $rc, expected 2"
    grep -q "scratch file in $WORK/none" "$WORK/none-vk.out" ||
        fail "validate $env: the missing scratch directory is not named"
done

VKRR_MEM_LIMIT=lots "$VKRR" validate "$cap" >"$WORK/bad.out" 2>&1
rc=$?
[ $rc = 2 ] || fail "VKRR_MEM_LIMIT=lots: exit $rc, expected 2"
grep -q "VKRR_MEM_LIMIT: 'lots' is not a size" "$WORK/bad.out" || fail "VKRR_MEM_LIMIT=lots is not named"

[ "$fails" = 0 ] && echo "e2e_stream: ok"
exit $((fails ? 1 : 0))
