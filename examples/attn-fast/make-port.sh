#!/bin/sh
# Writes ports/: the built-in attn0 port with fast_mma.glsl after its
# includes (every mma summed in f32), and its descriptor.  Run from here:
#   sh make-port.sh && vkrr validate CAPTURE --ports ports
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shaders=$here/../../shaders
mkdir -p "$here/ports"
sed "/#include \"tex.glsl\"/r $here/fast_mma.glsl" "$shaders/cuda_dldn_rrref_attn0_kernel.comp" \
    > "$here/ports/cuda_dldn_rrref_attn0_kernel.comp"
cp "$shaders/cuda_dldn_rrref_attn0_kernel.port" "$here/ports/"
grep -q 'define vkrr_tc_mma_e4m3_f16 attn_fast_mma' "$here/ports/cuda_dldn_rrref_attn0_kernel.comp"
