#!/usr/bin/env bash
# e2e_modules: PTX read out of what the production denoiser ships it in.
# `vkrr modules list|extract` on fatbins nvcc wrote with every compression
# mode (none, LZ4: speed, zstd: size), on a host object (its .nv_fatbin
# section) and on a DLL-like binary with fatbins between other bytes: every
# PTX entry is found, its kernels listed, and the PTX extracted from an LZ4
# and a zstd entry equals the uncompressed entry byte for byte and nvcc's
# -ptx output token for token.  Without nvcc, the same on fatbins
# tests/bridge_form.py lays out from the spec (LZ4 by its own compressor,
# zstd by the zstd tool), checked against the PTX they were made from.  A
# fatbin cut short is an error naming its byte offset (exit 2).  rerun
# --modules takes a fatbin-only folder and a DLL, and of PTX for two targets
# runs the one that fits the capture's GPU, saying so.
# Usage: e2e_modules.sh VKRR_BIN WORKDIR
set -u
# shellcheck source=e2e-lib.sh
. "$(dirname "$0")/e2e-lib.sh" "$@" # VKRR, WORK (emptied), fail, e2e_end
SRC=$(cd "$(dirname "$0")/.." && pwd)

NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cat >"$WORK/k.cu" <<'EOF'
__global__ void twice(float *o, const float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = 2.0f * a[i]; }
__global__ void square(float *o, const float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = a[i] * a[i]; }
EOF
tokens() { sed 's#//.*##' "$1" | tr -s ' \t\n' '\n' | grep -v '^$'; }

if [ -x "$NVCC" ]; then
    gen=(-gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=[sm_90,compute_90])
    for m in none speed size; do
        "$NVCC" -fatbin -compress-mode=$m "${gen[@]}" "$WORK/k.cu" -o "$WORK/k_$m.fatbin" 2>"$WORK/nvcc.err" ||
            fail "nvcc -compress-mode=$m: $(cat "$WORK/nvcc.err")"
    done
    "$NVCC" -c "${gen[@]}" "$WORK/k.cu" -o "$WORK/k.o" || fail "nvcc -c"
    "$NVCC" -ptx -arch=compute_80 "$WORK/k.cu" -o "$WORK/k80.ptx" || fail "nvcc -ptx"
    want=(none RAW speed LZ4 size zstd)
    src="nvcc"
else
    echo "e2e_modules: no nvcc: fatbins laid out from the spec by tests/bridge_form.py"
    python3 - "$WORK" "$SRC/tests" <<'EOF' || fail "making fatbins"
import sys, struct
sys.path.insert(0, sys.argv[2])
import bridge_form as b
w = sys.argv[1]
ptx = open(sys.argv[2] + "/ptx/checked_in/rrref/rrref_expo.ptx", "rb").read()
open(w + "/k80.ptx", "wb").write(ptx)
for m, c in (("speed", "lz4"), ("size", "zstd")):
    open(w + "/k_%s.fatbin" % m, "wb").write(b.fatbin([ptx], c))
EOF
    want=(speed LZ4 size zstd)
    src="spec"
fi

# list: every PTX entry, its compression and kernels
set -- "${want[@]}"
while [ $# -gt 0 ]; do
    m=$1 comp=$2
    shift 2
    vkrr modules list "$WORK/k_$m.fatbin" >"$WORK/list_$m.out" 2>&1 || fail "modules list ($m) exits $?"
    grep -q "PTX compute_80" "$WORK/list_$m.out" || fail "$m: no compute_80 PTX listed: $(cat "$WORK/list_$m.out")"
    [ $comp = RAW ] || grep -q "PTX compute_80, PTX ISA [0-9.]*, [0-9]* bytes ($comp, [0-9]* stored)" "$WORK/list_$m.out" ||
        fail "$m: the PTX entry is not listed as $comp: $(cat "$WORK/list_$m.out")"
    if [ $src = nvcc ]; then
        grep -q "kernels: _Z5twicePfPKfi, _Z6squarePfPKfi" "$WORK/list_$m.out" || fail "$m: kernels not listed"
    else
        grep -q "kernels: cuda_dldn_rrref_expo0_kernel, cuda_dldn_rrref_expo1_kernel" "$WORK/list_$m.out" ||
            fail "$m: kernels not listed"
    fi
    vkrr modules extract "$WORK/k_$m.fatbin" "$WORK/x_$m" >"$WORK/x_$m.out" 2>&1 || fail "modules extract ($m)"
    f=$(ls "$WORK/x_$m/"*sm_80.ptx 2>/dev/null | head -1)
    if [ -z "$f" ]; then
        fail "$m: no sm_80 PTX extracted: $(cat "$WORK/x_$m.out")"
    elif ! diff <(tokens "$f") <(tokens "$WORK/k80.ptx") >/dev/null; then
        fail "$m: the extracted PTX is not the PTX it was made from"
    fi
done
if [ $src = nvcc ]; then
    cmp -s "$WORK/x_none/k_none.fatbin.fatbin0.entry0.sm_80.ptx" "$WORK/x_speed/k_speed.fatbin.fatbin0.entry0.sm_80.ptx" &&
        cmp -s "$WORK/x_none/k_none.fatbin.fatbin0.entry0.sm_80.ptx" "$WORK/x_size/k_size.fatbin.fatbin0.entry0.sm_80.ptx" ||
        fail "LZ4 or zstd PTX differs from the uncompressed entry"
    vkrr modules list "$WORK/k.o" >"$WORK/list_o.out" 2>&1 && grep -q "PTX compute_90" "$WORK/list_o.out" ||
        fail "the host object's .nv_fatbin: $(cat "$WORK/list_o.out")"
fi

# a DLL: fatbins among other bytes, found by their magic
python3 - "$WORK" <<'EOF' || fail "making the DLL"
import os, sys
w = sys.argv[1]
parts = [b"MZ\x90\x00" + os.urandom(1021)]
for m in ("speed", "size"):
    parts += [open(w + "/k_%s.fatbin" % m, "rb").read(), b"\x50\xed\x55\xba" + os.urandom(333)]
open(w + "/fake.dll", "wb").write(b"".join(parts))
EOF
vkrr modules list "$WORK/fake.dll" >"$WORK/dll.out" 2>&1 || fail "modules list of the DLL exits $?: $(cat "$WORK/dll.out")"
grep -q "fake.dll: 2 fatbins:" "$WORK/dll.out" || fail "the DLL's fatbins are not found: $(head -3 "$WORK/dll.out")"

# a fatbin cut short: named, exit 2
head -c 300 "$WORK/k_size.fatbin" >"$WORK/cut.fatbin"
python3 - "$WORK/cut.fatbin" <<'EOF'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
struct.pack_into("<Q", b, 8, len(b) - 16)  # the header says what is there; its entry does not fit
open(p, "wb").write(b)
EOF
vkrr modules list "$WORK/cut.fatbin" >"$WORK/cut.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "cut.fatbin.*fatbin entry 0: its header .* runs past the fatbin's end" "$WORK/cut.out" ||
    fail "a fatbin cut short: exit $rc: $(cat "$WORK/cut.out")"

# rerun from a DLL of fatbins: rrref's PTX for sm_80 (LZ4) and again for
# sm_90 (zstd): the sm_90 PTX runs for a capture made on an sm_90 GPU, the
# sm_80 one for an sm_80 GPU, each named
cap=$WORK/cap
vkrr synth "$cap" --size 16x16 --frames 1 >/dev/null 2>&1 || fail "synth"
ptxdir=$cap/modules
ls "$ptxdir"/*.ptx >/dev/null 2>&1 || ptxdir=$SRC/tests/ptx/checked_in/rrref
python3 - "$WORK" "$SRC/tests" "$ptxdir" <<'EOF' || fail "making the rrref DLL"
import glob, sys
sys.path.insert(0, sys.argv[2])
import bridge_form as b
w = sys.argv[1]
ptx = [open(p, "rb").read() for p in sorted(glob.glob(sys.argv[3] + "/*.ptx"))]
p90 = [t.replace(b".target sm_80", b".target sm_90") for t in ptx]
open(w + "/rrref.dll", "wb").write(b"MZ" + bytes(200) + b.fatbin(ptx, "lz4") + bytes(64) + b.fatbin(p90, "zstd"))
EOF
for cc in 9.0 8.0; do
    sed -i "s/^\(\[d4r nvcuda\] \)\?device .*/[d4r nvcuda] device name=\"GPU\" cc=$cc/" "$cap/run/run.log"
    rc=0
    vkrr rerun "$cap" --modules "$WORK/rrref.dll" --ptx-engine interp >"$WORK/rerun$cc.out" 2>&1 || rc=$?
    if [ $cc = 9.0 ]; then
        [ $rc = 0 ] || fail "rerun --modules DLL (cc $cc) exits $rc: $(tail -5 "$WORK/rerun$cc.out")"
    else
        # the capture was made under sm_90's tensor-core sum; rerun as from an
        # sm_80 GPU, the attention block's two launches (fp8 mma) sum as
        # sm_80's model does and they alone differ (docs/rrref-attention.md)
        [ $rc = 1 ] && grep -q "^summary: 12 launches: 10 PASS, 2 FAIL," "$WORK/rerun$cc.out" &&
            [ "$(grep -cE '^ +[0-9]+  cuda_dldn_rrref_attn0_kernel .* FAIL ' "$WORK/rerun$cc.out")" = 2 ] ||
            fail "rerun --modules DLL (cc $cc) exits $rc: $(tail -5 "$WORK/rerun$cc.out")"
    fi
    sm=sm_${cc%.0}0
    fb=$([ $cc = 9.0 ] && echo 1 || echo 0)
    grep -q "^modules: cuda_dldn_rrref_expo0_kernel: PTX for sm_[0-9]*, sm_[0-9]*: took $sm, the highest target at most the capture's device ($sm); from $WORK/rrref.dll\[fatbin $fb, PTX entry [0-9]\]" \
        "$WORK/rerun$cc.out" || fail "cc $cc: $sm's PTX is not the one named: $(grep -m2 '^modules' "$WORK/rerun$cc.out")"
done

if [ "$fails" = 0 ]; then
    echo "e2e_modules: ok ($src fatbins)"
    rm -rf "$WORK"
else
    echo "e2e_modules: $fails failed (kept $WORK)"
    exit 1
fi
