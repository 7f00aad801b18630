// rrref_input.cu - the input stage: every texture, point-sampled at texel
// centres with unnormalized coordinates, plus the bilinear history sample at
// the motion-reprojected position, into RRREF_C_IN f16 planes.
//
// Planes: 0-2 noisy rgb * exposure, 3-5 history rgb * exposure, 6-8 albedo,
// 9-11 normal xyz, 12 1/(1+depth), 13 mask, 14 (|mx|+|my|)/16,
// 15 disocclusion (1 when the reprojected centre leaves the image, else 0).
// Arithmetic: unfused __fmul_rn/__fadd_rn, IEEE __fdiv_rn; each plane value
// rounded once to f16 (RNE).  No fused ops in this kernel.
#include "rrref_common.cuh"

extern "C" __global__ void cuda_dldn_rrref_input_kernel(rrref_input_params p)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= p.width || y >= p.height)
        return;
    __half *dst = (__half *)p.dst;
    const float *exposure = (const float *)p.exposure;
    size_t plane = (size_t)p.width * p.height, i = (size_t)y * p.width + x;
    float px = __fadd_rn((float)x, 0.5f), py = __fadd_rn((float)y, 0.5f);
    float e = exposure[0];

    float4 c = tex2D<float4>((cudaTextureObject_t)p.colour, px, py);
    float d = tex2D<float>((cudaTextureObject_t)p.depth, px, py);
    float2 mv = tex2D<float2>((cudaTextureObject_t)p.motion, px, py);
    float4 alb = tex2D<float4>((cudaTextureObject_t)p.albedo, px, py);
    float4 nrm = tex2D<float4>((cudaTextureObject_t)p.normal, px, py);
    float m = tex2D<float>((cudaTextureObject_t)p.mask, px, py);
    float hx = __fadd_rn(px, mv.x), hy = __fadd_rn(py, mv.y);
    float4 h = tex2D<float4>((cudaTextureObject_t)p.history, hx, hy);
    float outside = (hx < 0.0f || hy < 0.0f || hx > (float)p.width || hy > (float)p.height) ? 1.0f : 0.0f;

    float f[RRREF_C_IN];
    f[0] = __fmul_rn(c.x, e);
    f[1] = __fmul_rn(c.y, e);
    f[2] = __fmul_rn(c.z, e);
    f[3] = __fmul_rn(h.x, e);
    f[4] = __fmul_rn(h.y, e);
    f[5] = __fmul_rn(h.z, e);
    f[6] = alb.x;
    f[7] = alb.y;
    f[8] = alb.z;
    f[9] = nrm.x;
    f[10] = nrm.y;
    f[11] = nrm.z;
    f[12] = __fdiv_rn(1.0f, __fadd_rn(1.0f, fmaxf(d, 0.0f)));
    f[13] = m;
    f[14] = __fmul_rn(__fadd_rn(fabsf(mv.x), fabsf(mv.y)), 0.0625f);
    f[15] = outside;
    for (int k = 0; k < RRREF_C_IN; k++)
        dst[k * plane + i] = __float2half_rn(f[k]);
}
