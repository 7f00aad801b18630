// vkrr_test_planes_kernel - a small kernel that is not rrref, for the tests of
// the user's porting path (tests/test_port_user.c): one thread per pixel of
// an f32 image writes three planar f16 planes into a window of an arena
// (v * gain, v * v, v - 0.25) and v * gain + 1 to a FLOAT x1 surface.
// Compiled for the CPU by tests/kernels/test_kernels_cpu.cpp (nvcc compiles
// it as it is).
#if defined(__CUDACC__)
#include <cuda_fp16.h>
#else
#include "cuda_cpu.h"
#endif

#include "vkrr_test_planes.h"

extern "C" __global__ void vkrr_test_planes_kernel(vkrr_test_planes_params p)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= p.width || y >= p.height)
        return;
    const float *src = (const float *)p.src;
    __half *dst = (__half *)p.dst;
    unsigned i = y * p.width + x, plane = p.width * p.height;
    float v = src[i], a = __fmul_rn(v, p.gain);
    dst[i] = __float2half_rn(a);
    dst[plane + i] = __float2half_rn(__fmul_rn(v, v));
    dst[2 * plane + i] = __float2half_rn(__fadd_rn(v, -0.25f));
    surf2Dwrite(__fadd_rn(a, 1.0f), (cudaSurfaceObject_t)p.surf, (int)x * 4, (int)y);
}
