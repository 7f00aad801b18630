#!/usr/bin/env bash
# e2e_rerun_compare: `vkrr rerun` compares as validate does, and says so: an
# output a .port descriptor names is compared in its window, type and
# tolerance (here the built-in enc0 descriptor's f16 window: an element 1 ULP
# off in the capture passes, as a port 1 ULP off would), each row names the
# descriptor it was compared by; `--exact` compares every byte (the same
# element fails, exit 1); a byte outside the window fails either way.
# Usage: e2e_rerun_compare.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end

cap=$WORK/cap
vkrr synth "$cap" --size 24x16 --frames 1 >/dev/null 2>&1 || fail "synth"
vkrr rerun "$cap" --backend cpu --heatmaps none --json "$WORK/before.json" >"$WORK/before.out" 2>&1 ||
    fail "rerun of the synth capture: $(cat "$WORK/before.out")"
grep -q "compared as validate compares" "$WORK/before.out" || fail "the header does not say how it compares"
grep -q "cuda_dldn_rrref_enc0_kernel .*PASS .*cuda_dldn_rrref_enc0_kernel.port (built in)" "$WORK/before.out" ||
    fail "a row does not name its descriptor: $(grep enc0 "$WORK/before.out")"

# the first element of enc0's f16 output window, 1 ULP off in the capture;
# then a byte of the same allocation outside every window
read -r dump inside outside < <(python3 - "$WORK/before.json" "$cap" <<'EOF'
import json, os, sys
doc = json.load(open(sys.argv[1]))
for l in doc["launches"]:
    if l["kernel"] != "cuda_dldn_rrref_enc0_kernel":
        continue
    for r in l["resources"]:
        if r["kind"] == "buffer" and r.get("output") and r["type"] == "f16":
            # a dump is named after the first argument that points into it
            head = "launch-%03d-%s-arg" % (l["sequence"], l["kernel"])
            for f in sorted(os.listdir(os.path.join(sys.argv[2], "dump"))):
                if f.startswith(head) and "-buffer-base%s+" % r["base"] in f:
                    win = r["window_offset"]
                    size = os.path.getsize(os.path.join(sys.argv[2], "dump", f))
                    end = win + 2 * r["width"] * r["height"] * r["planes"] * r["channels"]
                    print(os.path.join(sys.argv[2], "dump", f), win, end if end < size else (win - 1 if win else -1))
                    sys.exit(0)
sys.exit(1)
EOF
)
[ -n "${dump:-}" ] || fail "no f16 output window of enc0 in the JSON"
flip() { # FILE OFFSET: the lowest bit of that byte
    python3 -c "import sys; p, o = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, 'rb').read()); b[o] ^= 1; open(p, 'wb').write(b)" "$1" "$2"
}
if [ -n "${dump:-}" ]; then
    flip "$dump" "$inside"
    vkrr rerun "$cap" --backend cpu --heatmaps none --no-hash-check >"$WORK/ulp.out" 2>&1
    rc=$?
    [ $rc = 0 ] && grep -q "cuda_dldn_rrref_enc0_kernel .* 1 .*PASS" "$WORK/ulp.out" ||
        fail "1 ULP in a described f16 window: exit $rc, $(grep -A2 enc0 "$WORK/ulp.out")"
    vkrr rerun "$cap" --backend cpu --heatmaps none --no-hash-check --exact >"$WORK/exact.out" 2>&1
    rc=$?
    [ $rc = 1 ] && grep -q "compared exactly (--exact)" "$WORK/exact.out" &&
        grep -q "first launch that differs: #[0-9]* cuda_dldn_rrref_enc0_kernel" "$WORK/exact.out" ||
        fail "--exact and 1 ULP: exit $rc, $(tail -3 "$WORK/exact.out")"
    flip "$dump" "$inside"
    if [ "$outside" -ge 0 ]; then
        flip "$dump" "$outside"
        vkrr rerun "$cap" --backend cpu --heatmaps none --no-hash-check >"$WORK/out.out" 2>&1
        rc=$?
        [ $rc = 1 ] && grep -q "bytes differ outside the layer's windows" "$WORK/out.out" ||
            fail "a byte outside the window: exit $rc, $(grep -A2 enc0 "$WORK/out.out")"
    fi
fi
vkrr rerun "$cap" --exact --max-ulp 3 >"$WORK/both.out" 2>&1
[ $? = 2 ] && grep -q "contradict" "$WORK/both.out" || fail "--exact with a tolerance is not refused"

e2e_end
