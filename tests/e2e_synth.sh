#!/usr/bin/env bash
# e2e_synth: `vkrr synth` makes captures that `vkrr info` reads cleanly, with
# every launch of every frame, byte-identical from run to run.
# Usage: e2e_synth.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end

for size in 64x48 37x23; do
    a=$WORK/a-$size b=$WORK/b-$size
    vkrr synth "$a" --size "$size" --frames 3 >"$WORK/synth.out" 2>"$WORK/synth.err" ||
        { fail "synth $size exited $?"; cat "$WORK/synth.err" >&2; continue; }
    [ -s "$WORK/synth.err" ] && fail "synth $size wrote to stderr: $(cat "$WORK/synth.err")"
    for k in 0 1 2; do
        for kind in noisy clean denoised; do
            [ -s "$a/preview/frame-$k-$kind.png" ] || fail "$size: no preview/frame-$k-$kind.png"
        done
    done
    ls "$WORK" | grep -q -e '\.tmp-' -e '\.old-' && fail "$size: a temporary directory was left behind"

    # info reads it with no warning
    vkrr info "$a" >"$WORK/info.txt" 2>"$WORK/info.err" || fail "info $size exited $?"
    [ -s "$WORK/info.err" ] && fail "info $size warned: $(cat "$WORK/info.err")"
    vkrr info "$a" --json >"$WORK/info.json" 2>"$WORK/info.err" || fail "info --json $size exited $?"
    [ -s "$WORK/info.err" ] && fail "info --json $size warned: $(cat "$WORK/info.err")"
    e2e_json_valid vkrr-info "$WORK/info.json"

    # 12 launches a frame (docs/rrref.md: the U-Net's 10 kernels with the
    # attention block's attn0 twice), 3 frames
    python3 - "$WORK/info.json" <<'EOF' || fail "$size: launch count"
import json, sys, collections
d = json.load(open(sys.argv[1]))
per = collections.Counter(l["frame"] for l in d["launches"])
print("launches per frame:", dict(sorted(per.items())))
order = ["expo0", "expo1", "input", "enc0", "down", "enc1", "tok0", "attn0", "attn0", "untok0",
         "dec0", "output"]
names = [l["kernel"] for l in d["launches"] if l["frame"] == 0]
ok = names == ["cuda_dldn_rrref_%s_kernel" % n for n in order]
print("frame 0:", " ".join(names))
sys.exit(0 if ok and sorted(per) == [0, 1, 2] and set(per.values()) == {12} else 1)
EOF

    # the same arguments give the same bytes, previews included; the log
    # names the capture's own path (module and replay capture lines, as the
    # bridge names where it wrote them), and nothing else differs
    vkrr synth "$b" --size "$size" --frames 3 >/dev/null 2>&1 || fail "second synth $size"
    if [ -d "$a/modules" ]; then # a build with nvcc: rrref's modules under the bridge's names
        grep -q " to $a/modules/dlss-module-4242-0001\.[a-z]* (complete)" "$a/run/run.log" ||
            fail "$size: the module lines do not name $a/modules"
    fi
    sed -i "s|$b/|$a/|g" "$b/run/run.log"
    diff -r "$a" "$b" >"$WORK/diff.txt" || fail "$size: two runs differ: $(head -5 "$WORK/diff.txt")"
done

# refusal and --force
a=$WORK/a-64x48
vkrr synth "$a" --size 8x8 --frames 1 >/dev/null 2>"$WORK/err.txt"
rc=$?
[ $rc -eq 2 ] || fail "synth over a full directory exited $rc, want 2"
grep -q -- --force "$WORK/err.txt" || fail "refusal does not mention --force"
[ -f "$a/preview/frame-2-noisy.png" ] || fail "refused synth touched the old capture"
vkrr synth "$a" --size 8x8 --frames 1 --force >/dev/null 2>&1 || fail "synth --force"
[ -f "$a/preview/frame-2-noisy.png" ] && fail "--force kept old files"
[ -f "$a/preview/frame-0-noisy.png" ] || fail "--force did not write the new capture"

# bad arguments: exit 2 with a message
for args in "--size 0x4" "--size 12" "--frames 0" "--seed x" "--scene nope" "--backend gpu" "--bogus" ""; do
    # shellcheck disable=SC2086
    vkrr synth $([ -n "$args" ] && echo "$WORK/bad") $args >/dev/null 2>"$WORK/err.txt"
    rc=$?
    [ $rc -eq 2 ] || fail "synth $args exited $rc, want 2"
    [ -s "$WORK/err.txt" ] || fail "synth $args gave no message"
done
[ -e "$WORK/bad" ] && fail "a bad invocation created its OUTDIR"

# --backend cuda without libcuda (this machine, CI): exit 3 naming the library,
# and nothing left behind
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; then
    vkrr synth "$WORK/gpu" --backend cuda --size 8x8 --frames 1 >/dev/null 2>"$WORK/err.txt"
    rc=$?
    [ $rc -eq 3 ] || fail "synth --backend cuda without libcuda exited $rc, want 3"
    grep -q "libcuda.so.1" "$WORK/err.txt" || fail "synth --backend cuda: message does not name libcuda.so.1: $(cat "$WORK/err.txt")"
    [ -e "$WORK/gpu" ] && fail "synth --backend cuda without libcuda created its OUTDIR"
    ls "$WORK" | grep -q '^gpu\.tmp-' && fail "synth --backend cuda left a temporary directory"
fi
vkrr synth --help | grep -q "vkrr validate" || fail "--help does not say what to run next"

if [ $fails -ne 0 ]; then
    echo "e2e_synth: $fails failed" >&2
    exit 1
fi
echo "e2e_synth: ok"
