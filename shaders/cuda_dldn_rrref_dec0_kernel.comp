#version 460
// Port of cuda_dldn_rrref_dec0_kernel (rrref_conv.cu): per tap the enc1
// channels at (sx>>1, sy>>1) then the enc0 skip channels at (sx, sy); conv as
// enc0.  Exact.
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
    VkrrF16Ptr skip = VkrrF16Ptr(vkrr_p.skip);
    VkrrE4m3Ptr w = VkrrE4m3Ptr(vkrr_p.weights);
    VkrrF16Ptr dst = VkrrF16Ptr(vkrr_p.dst);
    const int cin = RRREF_C_E1 + RRREF_C_E0;
    bool nan = false;
    for (int tap = 0; tap < 9; tap++) {
        int sx = rr_clampi(x + tap % 3 - 1, 0, int(vkrr_p.width) - 1);
        int sy = rr_clampi(y + tap / 3 - 1, 0, int(vkrr_p.height) - 1);
        int ux = rr_clampi(sx >> 1, 0, int(vkrr_p.src_width) - 1);
        int uy = rr_clampi(sy >> 1, 0, int(vkrr_p.src_height) - 1);
        rr_load_f16(tap * cin, src, vkrr_p.src_width, vkrr_p.src_height, RRREF_C_E1, ux, uy, nan);
        rr_load_f16(tap * cin + RRREF_C_E1, skip, vkrr_p.width, vkrr_p.height, RRREF_C_E0, sx, sy, nan);
    }
    uint plane = vkrr_p.width * vkrr_p.height, i = uint(y) * vkrr_p.width + uint(x);
    for (int o = 0; o < RRREF_C_DEC; o++) {
        uint a = rr_conv_channel(nan, w, uint(o * RRREF_K_DEC0), RRREF_K_DEC0,
                                 uint(w.v[RRREF_C_DEC * RRREF_K_DEC0 + o]));
        vkrr_st_h(dst, uint(o) * plane + i, vkrr_f2h(rr_cubic(vkrr_h2f(a))));
    }
}
