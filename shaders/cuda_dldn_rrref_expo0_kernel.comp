#version 460
// Port of cuda_dldn_rrref_expo0_kernel (cuda_ref/kernels/rrref_expo.cu):
// thread t sums log2 luminance over its 16x16 tile, row-major, one unfused
// add per pixel.  Exact (same operations, same order; log2 is a dyadic
// polynomial with explicit fmas).
#extension GL_GOOGLE_include_directive : require
#include "rrref.glsl"
#include "tex.glsl"

VKRR_PARAMS(RrrefExpo0Params);

void main()
{
    uint t = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (t >= vkrr_p.tiles_x * vkrr_p.tiles_y)
        return;
    int colour = vkrr_handle(vkrr_p.colour);
    uint x0 = (t % vkrr_p.tiles_x) * RRREF_TILE, y0 = (t / vkrr_p.tiles_x) * RRREF_TILE;
    uint x1 = min(x0 + RRREF_TILE, vkrr_p.width);
    uint y1 = min(y0 + RRREF_TILE, vkrr_p.height);
    float sum = 0.0;
    for (uint y = y0; y < y1; y++) {
        for (uint x = x0; x < x1; x++) {
            precise float px = float(x) + 0.5, py = float(y) + 0.5;
            vec4 c = vkrr_tex2d(colour, px, py);
            precise float lum = uintBitsToFloat(0x3e59b3d0u) * c.x;   // 0.2126f
            precise float g = uintBitsToFloat(0x3f371759u) * c.y;     // 0.7152f
            precise float b = uintBitsToFloat(0x3d93dd98u) * c.z;     // 0.0722f
            lum = (lum + g) + b;
            lum = vkrr_fminf(vkrr_fmaxf(lum, 6.103515625e-05), 65504.0);
            precise float ns = sum + rr_log2_poly(lum);
            sum = ns;
        }
    }
    vkrr_st_f(VkrrF32Ptr(vkrr_p.partials), t, sum);
}
