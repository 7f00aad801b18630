#version 460
// Port of cuda_dldn_rrref_enc1_kernel (rrref_conv.cu): conv on e4m3 planes,
// RMS norm (unfused, channel order), rsqrt.approx.ftz, clamped cubic.  Exact
// except through rsqrt.approx (vkrr_rsqrt_approx: see math.glsl).
#extension GL_GOOGLE_include_directive : require
#include "rrref.glsl"

VKRR_PARAMS(RrrefConvParams);

void main()
{
    uvec3 gid = vkrr_global_id();
    int x = int(gid.x), y = int(gid.y);
    if (x >= int(vkrr_p.width) || y >= int(vkrr_p.height))
        return;
    VkrrE4m3Ptr src = VkrrE4m3Ptr(vkrr_p.src);
    VkrrE4m3Ptr w = VkrrE4m3Ptr(vkrr_p.weights);
    VkrrF16Ptr dst = VkrrF16Ptr(vkrr_p.dst);
    uint splane = vkrr_p.src_width * vkrr_p.src_height;
    bool nan = false;
    for (int tap = 0; tap < 9; tap++) {
        int sx = rr_clampi(x + tap % 3 - 1, 0, int(vkrr_p.src_width) - 1);
        int sy = rr_clampi(y + tap / 3 - 1, 0, int(vkrr_p.src_height) - 1);
        for (int c = 0; c < RRREF_C_E0; c++)
            rr_ka[tap * RRREF_C_E0 + c] =
                rr_e4m3_fixed(vkrr_ld_e4m3(src, uint(c) * splane + uint(sy) * vkrr_p.src_width + uint(sx)), nan);
    }
    float v[RRREF_C_E1];
    float ms = 0.0;
    for (int o = 0; o < RRREF_C_E1; o++) {
        v[o] = vkrr_h2f(rr_conv_channel(nan, w, uint(o * RRREF_K_ENC1), RRREF_K_ENC1,
                                        uint(w.v[RRREF_C_E1 * RRREF_K_ENC1 + o])));
        precise float sq = v[o] * v[o];
        precise float nms = ms + sq;
        ms = nms;
    }
    precise float ms16 = ms * 0.0625;
    precise float msr = ms16 + 1.220703125e-04;
    float r = vkrr_round_h(msr);
    float inv = vkrr_rsqrt_approx(r);
    uint plane = vkrr_p.width * vkrr_p.height, i = uint(y) * vkrr_p.width + uint(x);
    for (int o = 0; o < RRREF_C_E1; o++) {
        precise float vn = v[o] * inv;
        vkrr_st_h(dst, uint(o) * plane + i, vkrr_f2h(rr_cubic(vn)));
    }
}
