// vkrr_test_linear_kernel: textures over linear memory, the test of issue 14.
// One source for every backend: nvcc (tests/cuda/vkrr_test_kernel.cu includes
// it), the CPU backend (cuda_ref/cpu/cpu_kernels.cpp includes it when the
// tests are built) and the Vulkan port shaders/test/vkrr_test_linear_kernel.comp.
//   out[i] = tex1Dfetch<float>(lin, i)           for i < n + 3 (past n: 0)
//   out[n + 3 + 4 * (y * w + x) + c] = tex2D<float4>(pitch, x + 0.5, y + 0.5).c
#ifndef VKRR_TEST_LINEAR_CU
#define VKRR_TEST_LINEAR_CU

#if !defined(__CUDACC__)
#include "cuda_cpu.h"
#endif

struct vkrr_test_linear_params {
    cudaTextureObject_t lin;   // FLOAT x1 over linear memory
    cudaTextureObject_t pitch; // HALF x4 over pitch-2D memory, point, unnormalized
    float *out;
    unsigned n, w, h, pad;
};

extern "C" __global__ void vkrr_test_linear_kernel(vkrr_test_linear_params p)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, m = p.n + 3;
    if (i < m) {
        p.out[i] = tex1Dfetch<float>(p.lin, (int)i);
    } else if (i < m + p.w * p.h) {
        unsigned k = i - m, x = k % p.w, y = k / p.w;
        float4 v = tex2D<float4>(p.pitch, (float)x + 0.5f, (float)y + 0.5f);
        p.out[m + 4 * k + 0] = v.x;
        p.out[m + 4 * k + 1] = v.y;
        p.out[m + 4 * k + 2] = v.z;
        p.out[m + 4 * k + 3] = v.w;
    }
}

#endif
