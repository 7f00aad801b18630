#version 460
// Port of cuda_dldn_rrref_down_kernel (rrref_conv.cu): 2x2 mean summed in f32
// in the order (0,0) (1,0) (0,1) (1,1), * 0.25, f16 RNE, e4m3 satfinite.  Exact.
#extension GL_GOOGLE_include_directive : require
#include "rrref.glsl"

VKRR_PARAMS(RrrefDownParams);

void main()
{
    uvec3 gid = vkrr_global_id();
    uint x = gid.x, y = gid.y;
    if (x >= vkrr_p.width || y >= vkrr_p.height)
        return;
    VkrrF16Ptr src = VkrrF16Ptr(vkrr_p.src);
    VkrrE4m3Ptr dst = VkrrE4m3Ptr(vkrr_p.dst);
    uint sw = vkrr_p.src_width;
    uint x0 = 2u * x, y0 = 2u * y;
    uint x1 = x0 + 1u < sw ? x0 + 1u : sw - 1u;
    uint y1 = y0 + 1u < vkrr_p.src_height ? y0 + 1u : vkrr_p.src_height - 1u;
    uint splane = sw * vkrr_p.src_height, plane = vkrr_p.width * vkrr_p.height;
    for (uint c = 0u; c < uint(RRREF_C_E0); c++) {
        uint b = c * splane;
        precise float v = vkrr_h2f(vkrr_ld_h(src, b + y0 * sw + x0));
        v = v + vkrr_h2f(vkrr_ld_h(src, b + y0 * sw + x1));
        v = v + vkrr_h2f(vkrr_ld_h(src, b + y1 * sw + x0));
        v = v + vkrr_h2f(vkrr_ld_h(src, b + y1 * sw + x1));
        precise float q = v * 0.25;
        vkrr_st_e4m3(dst, c * plane + y * vkrr_p.width + x, vkrr_e4m3_from_h(vkrr_f2h(q)));
    }
}
