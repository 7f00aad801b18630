#version 460
// Test port: out[i] = vkrr_tc_dot_e4m3(a_i, b_i, c_i) under the model in the
// parameters, so tests/test_tensorcore_glsl.c can check
// shaders/common/tensorcore.glsl against cuda_ref/ptx/isa/ptx_mma_sum.c (the
// PTX path's and the CPU backend's tensor-core sum) bit for bit.  frac 0:
// the model vkbridge specialised the pipeline for (vkrr_tc_model()).
#extension GL_GOOGLE_include_directive : require
#include "bindings.glsl"
#include "tensorcore.glsl"

layout(buffer_reference, scalar) buffer Words { uint v[]; };
struct Params { Words ab; Words c; Words out_d; uint n; int frac; int halves; int rounded; int d32_frac; uint c16; uint d16; };
VKRR_PARAMS(Params);

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= vkrr_p.n)
        return;
    uint a[8], b[8];
    for (int w = 0; w < 8; w++) {
        a[w] = vkrr_p.ab.v[16 * i + w];
        b[w] = vkrr_p.ab.v[16 * i + 8 + w];
    }
    VkrrTcModel md = vkrr_p.frac == 0 ? vkrr_tc_model()
                                      : VkrrTcModel(vkrr_p.frac, vkrr_p.halves, vkrr_p.rounded != 0, vkrr_p.d32_frac);
    vkrr_p.out_d.v[i] = vkrr_tc_dot_e4m3(a, b, vkrr_p.c.v[i], vkrr_p.c16 != 0u, vkrr_p.d16 != 0u, md);
}
