#version 460
// Port of cuda_dldn_rrref_expo1_kernel (rrref_expo.cu): one thread sums the
// partials in index order.  Exact (IEEE division by vkrr_div).
#extension GL_GOOGLE_include_directive : require
#include "rrref.glsl"

VKRR_PARAMS(RrrefExpo1Params);

void main()
{
    if (gl_WorkGroupID.x != 0u || gl_LocalInvocationID.x != 0u)
        return;
    VkrrF32Ptr partials = VkrrF32Ptr(vkrr_p.partials);
    VkrrF32Ptr exposure = VkrrF32Ptr(vkrr_p.exposure);
    float sum = 0.0;
    for (uint i = 0u; i < vkrr_p.count; i++) {
        precise float ns = sum + vkrr_ld_f(partials, i);
        sum = ns;
    }
    float mean = vkrr_div(sum, float(vkrr_p.pixels));
    float m = vkrr_fminf(vkrr_fmaxf(mean, -14.0), 14.0);
    precise float scale = vkrr_p.key * rr_exp2_poly(-m);
    vkrr_st_f(exposure, 0u, scale);
    vkrr_st_f(exposure, 1u, mean);
    vkrr_st_f(exposure, 2u, sum);
    vkrr_st_f(exposure, 3u, float(vkrr_p.pixels));
}
