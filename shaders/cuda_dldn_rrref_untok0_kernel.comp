#version 460
// Port of cuda_dldn_rrref_untok0_kernel (rrref_tok.cu): plane c (0..15) at
// (x, y) = channel c of token (x, y), texel (8x + c / 4, y) read at its centre
// through the texture (point) and rounded back to f16 (exact).
#extension GL_GOOGLE_include_directive : require
#include "rrref.glsl"
#include "tex.glsl"

VKRR_PARAMS(RrrefUntokParams);

void main()
{
    uvec3 gid = vkrr_global_id();
    int x = int(gid.x), y = int(gid.y);
    if (x >= int(vkrr_p.width) || y >= int(vkrr_p.height))
        return;
    VkrrF16Ptr dst = VkrrF16Ptr(vkrr_p.dst);
    uint plane = vkrr_p.width * vkrr_p.height, at = uint(y) * vkrr_p.width + uint(x);
    int tokens = vkrr_handle(vkrr_p.tokens);
    precise float py = float(y) + 0.5;
    for (int q = 0; q < RRREF_C_E1 / 4; q++) {
        precise float px = float(x * 8 + q) + 0.5;
        vec4 v = vkrr_tex2d(tokens, px, py);
        vkrr_st_h(dst, uint(4 * q + 0) * plane + at, vkrr_f2h(v.x));
        vkrr_st_h(dst, uint(4 * q + 1) * plane + at, vkrr_f2h(v.y));
        vkrr_st_h(dst, uint(4 * q + 2) * plane + at, vkrr_f2h(v.z));
        vkrr_st_h(dst, uint(4 * q + 3) * plane + at, vkrr_f2h(v.w));
    }
}
