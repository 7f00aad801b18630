#version 460
// Port of cuda_dldn_rrref_enc0_kernel (rrref_conv.cu): 3x3 conv, replicated
// edges, e4m3 x e4m3 exact 32-term slices into an f16 accumulator, clamped
// cubic.  Exact: integer slices, bit-level RNE, the one fmaf of the cubic.
#extension GL_GOOGLE_include_directive : require
#include "rrref.glsl"

VKRR_PARAMS(RrrefConvParams);

void main()
{
    uvec3 gid = vkrr_global_id();
    int x = int(gid.x), y = int(gid.y);
    if (x >= int(vkrr_p.width) || y >= int(vkrr_p.height))
        return;
    VkrrF16Ptr src = VkrrF16Ptr(vkrr_p.src);
    VkrrE4m3Ptr w = VkrrE4m3Ptr(vkrr_p.weights);
    VkrrF16Ptr dst = VkrrF16Ptr(vkrr_p.dst);
    bool nan = false;
    for (int tap = 0; tap < 9; tap++) {
        int sx = rr_clampi(x + tap % 3 - 1, 0, int(vkrr_p.src_width) - 1);
        int sy = rr_clampi(y + tap / 3 - 1, 0, int(vkrr_p.src_height) - 1);
        rr_load_f16(tap * RRREF_C_IN, src, vkrr_p.src_width, vkrr_p.src_height, RRREF_C_IN, sx, sy, nan);
    }
    uint plane = vkrr_p.width * vkrr_p.height, i = uint(y) * vkrr_p.width + uint(x);
    for (int o = 0; o < RRREF_C_E0; o++) {
        uint a = rr_conv_channel(nan, w, uint(o * RRREF_K_ENC0), RRREF_K_ENC0,
                                 uint(w.v[RRREF_C_E0 * RRREF_K_ENC0 + o]));
        vkrr_st_h(dst, uint(o) * plane + i, vkrr_f2h(rr_cubic(vkrr_h2f(a))));
    }
}
