#!/bin/sh
# Writes ports/ (or OUTDIR): the built-in attn0 port with fast_mma.glsl after
# its includes (every mma summed in f32), and its descriptor.  Run from here:
#   sh make-port.sh [OUTDIR] && vkrr validate CAPTURE --ports ports
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shaders=$here/../../shaders
out=${1:-$here/ports}
mkdir -p "$out"
sed "/#include \"tex.glsl\"/r $here/fast_mma.glsl" "$shaders/cuda_dldn_rrref_attn0_kernel.comp" \
    > "$out/cuda_dldn_rrref_attn0_kernel.comp"
cp "$shaders/cuda_dldn_rrref_attn0_kernel.port" "$out/"
grep -q 'define vkrr_tc_mma_e4m3_f16 attn_fast_mma' "$out/cuda_dldn_rrref_attn0_kernel.comp"
