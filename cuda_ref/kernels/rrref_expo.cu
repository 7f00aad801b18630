// rrref_expo.cu - the two-launch exposure reduction.
//
// expo0: thread t (t < tiles) sums log2 luminance over its 16x16 tile, pixels
// in row-major order, clipped to the image, one __fadd_rn per pixel, and
// writes partials[t].  No shared memory, no atomics: the order of every sum is
// fixed by the code.  expo1: one thread sums the partials in index order.
// Fused ops: only the explicit fmaf in rr_log2_poly / rr_exp2_poly.
#include "rrref_common.cuh"

extern "C" __global__ void cuda_dldn_rrref_expo0_kernel(rrref_expo0_params p)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= p.tiles_x * p.tiles_y)
        return;
    float *partials = (float *)p.partials;
    cudaTextureObject_t colour = (cudaTextureObject_t)p.colour;
    unsigned x0 = (t % p.tiles_x) * RRREF_TILE, y0 = (t / p.tiles_x) * RRREF_TILE;
    unsigned x1 = x0 + RRREF_TILE < p.width ? x0 + RRREF_TILE : p.width;
    unsigned y1 = y0 + RRREF_TILE < p.height ? y0 + RRREF_TILE : p.height;
    float sum = 0.0f;
    for (unsigned y = y0; y < y1; y++) {
        for (unsigned x = x0; x < x1; x++) {
            float4 c = tex2D<float4>(colour, __fadd_rn((float)x, 0.5f), __fadd_rn((float)y, 0.5f));
            float lum = __fadd_rn(__fadd_rn(__fmul_rn(0.2126f, c.x), __fmul_rn(0.7152f, c.y)),
                                  __fmul_rn(0.0722f, c.z));
            // 2^-14 .. 65504: keeps log2 on normal floats (fmaxf drops a NaN)
            lum = fminf(fmaxf(lum, 6.103515625e-05f), 65504.0f);
            sum = __fadd_rn(sum, rr_log2_poly(lum));
        }
    }
    partials[t] = sum;
}

extern "C" __global__ void cuda_dldn_rrref_expo1_kernel(rrref_expo1_params p)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    const float *partials = (const float *)p.partials;
    float *exposure = (float *)p.exposure;
    float sum = 0.0f;
    for (unsigned i = 0; i < p.count; i++)
        sum = __fadd_rn(sum, partials[i]);
    float mean = __fdiv_rn(sum, (float)p.pixels);
    float m = fminf(fmaxf(mean, -14.0f), 14.0f);
    exposure[0] = __fmul_rn(p.key, rr_exp2_poly(-m));
    exposure[1] = mean;
    exposure[2] = sum;
    exposure[3] = (float)p.pixels;
}
