// tex_ops.cu - textures and surfaces for the PTX interpreter's tests
// (tests/test_ptx_tex.c builds the texture/surface objects and checks):
// tex2D (tex.2d), tex2Dgather (tld4), surf2Dread/surf2Dwrite (suld/sust)
// with the trap, clamp and zero boundary modes.
#include <stdint.h>

#define TEX_NOUT 20

extern "C" __global__ void k_tex(cudaTextureObject_t lin, cudaTextureObject_t pt, cudaSurfaceObject_t src,
                                 cudaSurfaceObject_t dst, const float *xy, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = xy[2 * i], y = xy[2 * i + 1];
    float *o = out + (size_t)i * TEX_NOUT;
    float4 a = tex2D<float4>(lin, x, y);
    o[0] = a.x; o[1] = a.y; o[2] = a.z; o[3] = a.w;
    float4 b = tex2D<float4>(pt, x, y);
    o[4] = b.x; o[5] = b.y; o[6] = b.z; o[7] = b.w;
    float4 g0 = tex2Dgather<float4>(lin, x, y, 0);
    o[8] = g0.x; o[9] = g0.y; o[10] = g0.z; o[11] = g0.w;
    float4 g2 = tex2Dgather<float4>(pt, x, y, 2);
    o[12] = g2.x; o[13] = g2.y; o[14] = g2.z; o[15] = g2.w;
    int xi = (int)floorf(x), yi = (int)floorf(y);
    uint32_t c = surf2Dread<uint32_t>(src, xi * 4, yi, cudaBoundaryModeClamp);
    uint32_t z = surf2Dread<uint32_t>(src, xi * 4, yi, cudaBoundaryModeZero);
    o[16] = __uint_as_float(c);
    o[17] = __uint_as_float(z);
    // every thread writes its own texel of dst (in range: trap), and a
    // clamped write that lands on the edge (threads agree on the value)
    surf2Dwrite(c ^ 0x5a5a5a5au, dst, (i % 7) * 4, i / 7);
    surf2Dwrite(0x01020304u, dst, -40, 100, cudaBoundaryModeClamp);
    surf2Dwrite(0xdeadbeefu, dst, 1000, 1000, cudaBoundaryModeZero);
    o[18] = 0;
    o[19] = 0;
}

// an out-of-range surface write in the default (trap) mode
extern "C" __global__ void k_surf_trap(cudaSurfaceObject_t dst, int x)
{
    surf2Dwrite(1u, dst, x * 4, 0);
}
