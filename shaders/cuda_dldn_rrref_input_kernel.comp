#version 460
#extension GL_EXT_control_flow_attributes : require
// Port of cuda_dldn_rrref_input_kernel (cuda_ref/kernels/rrref_input.cu).
// Textures are fetched and filtered by hand (tex.glsl): point samples at texel
// centres, UNORM/SNORM reconverted exactly, the history bilinear with CUDA's
// 8-bit-fraction weights.  Unfused arithmetic, IEEE division (vkrr_div), one
// RNE rounding per plane value (vkrr_f2h).
#extension GL_GOOGLE_include_directive : require
#include "rrref.glsl"
#include "tex.glsl"

VKRR_PARAMS(RrrefInputParams);

void main()
{
    uvec3 gid = vkrr_global_id();
    uint x = gid.x, y = gid.y;
    if (x >= vkrr_p.width || y >= vkrr_p.height)
        return;
    VkrrF16Ptr dst = VkrrF16Ptr(vkrr_p.dst);
    uint plane = vkrr_p.width * vkrr_p.height, i = y * vkrr_p.width + x;
    precise float px = float(x) + 0.5, py = float(y) + 0.5;
    float e = vkrr_ld_f(VkrrF32Ptr(vkrr_p.exposure), 0u);

    // The six textures read at the pixel, then the history at the pixel the
    // motion points to, through one call: vkrr_tex2d holds every filter (the
    // sampler state is vkrr's, known at run time only), and one copy of it
    // compiles several times faster than seven.
    int hs[7] = int[](vkrr_handle(vkrr_p.colour), vkrr_handle(vkrr_p.depth),
                      vkrr_handle(vkrr_p.motion), vkrr_handle(vkrr_p.albedo),
                      vkrr_handle(vkrr_p.normal), vkrr_handle(vkrr_p.mask),
                      vkrr_handle(vkrr_p.history));
    vec4 t[7];
    [[dont_unroll]] for (int k = 0; k < 7; k++) {
        precise float hx = px + t[2].x, hy = py + t[2].y; /* the motion, read at k = 2 */
        t[k] = vkrr_tex2d(hs[k], k == 6 ? hx : px, k == 6 ? hy : py);
    }
    vec4 c = t[0], alb = t[3], nrm = t[4], h = t[6];
    float d = t[1].x, m = t[5].x;
    vec2 mv = t[2].xy;
    precise float hx = px + mv.x, hy = py + mv.y;
    float outside = (hx < 0.0 || hy < 0.0 || hx > float(vkrr_p.width) || hy > float(vkrr_p.height)) ? 1.0 : 0.0;

    float f[RRREF_C_IN];
    precise float f0 = c.x * e, f1 = c.y * e, f2 = c.z * e;
    precise float f3 = h.x * e, f4 = h.y * e, f5 = h.z * e;
    f[0] = f0; f[1] = f1; f[2] = f2;
    f[3] = f3; f[4] = f4; f[5] = f5;
    f[6] = vkrr_unorm8(alb.x);
    f[7] = vkrr_unorm8(alb.y);
    f[8] = vkrr_unorm8(alb.z);
    f[9] = vkrr_snorm8(nrm.x);
    f[10] = vkrr_snorm8(nrm.y);
    f[11] = vkrr_snorm8(nrm.z);
    precise float d1 = 1.0 + vkrr_fmaxf(d, 0.0);
    f[12] = vkrr_div(1.0, d1);
    f[13] = vkrr_unorm8(m);
    precise float ma = (abs(mv.x) + abs(mv.y)) * 0.0625;
    f[14] = ma;
    f[15] = outside;
    for (uint k = 0u; k < uint(RRREF_C_IN); k++)
        vkrr_st_h(dst, k * plane + i, vkrr_f2h(f[k]));
}
