// cpu_kernels.cpp - the rrref .cu files compiled as C++ against cuda_cpu.h,
// and the name -> launcher table.  Block loop outside, threads inside, in
// x-fastest order (the kernels have no inter-thread communication, so any
// order gives the same bytes).
#include "cpu_kernels.h"

#include <string.h>

#include "rrref_conv.cu"
#include "rrref_expo.cu"
#include "rrref_input.cu"
#include "rrref_output.cu"
#ifdef VKRR_TEST_KERNELS /* the tests' kernels, one source for every backend */
#include "vkrr_test_linear.cu"
#endif

thread_local uint3 threadIdx, blockIdx;
thread_local dim3 blockDim, gridDim;

template <typename P, void (*K)(P)>
static void cpu_run_range(const void *params, dim3 grid, dim3 block, size_t b0, size_t b1)
{
    P p;
    memcpy(&p, params, sizeof p);
    gridDim = grid;
    blockDim = block;
    for (size_t b = b0; b < b1; b++) {
        blockIdx.x = (unsigned)(b % grid.x);
        blockIdx.y = (unsigned)((b / grid.x) % grid.y);
        blockIdx.z = (unsigned)(b / ((size_t)grid.x * grid.y));
        for (unsigned z = 0; z < block.z; z++)
            for (unsigned y = 0; y < block.y; y++)
                for (unsigned x = 0; x < block.x; x++) {
                    threadIdx.x = x;
                    threadIdx.y = y;
                    threadIdx.z = z;
                    K(p);
                }
    }
}

#define CPU_KERNEL(name, P) {#name, (unsigned)sizeof(P), cpu_run_range<P, name>}
static const cpu_kernel_entry cpu_kernels[] = {
    CPU_KERNEL(cuda_dldn_rrref_expo0_kernel, rrref_expo0_params),
    CPU_KERNEL(cuda_dldn_rrref_expo1_kernel, rrref_expo1_params),
    CPU_KERNEL(cuda_dldn_rrref_input_kernel, rrref_input_params),
    CPU_KERNEL(cuda_dldn_rrref_enc0_kernel, rrref_conv_params),
    CPU_KERNEL(cuda_dldn_rrref_down_kernel, rrref_down_params),
    CPU_KERNEL(cuda_dldn_rrref_enc1_kernel, rrref_conv_params),
    CPU_KERNEL(cuda_dldn_rrref_dec0_kernel, rrref_conv_params),
    CPU_KERNEL(cuda_dldn_rrref_output_kernel, rrref_output_params),
#ifdef VKRR_TEST_KERNELS
    CPU_KERNEL(vkrr_test_linear_kernel, vkrr_test_linear_params),
#endif
};

const cpu_kernel_entry *cpu_kernel_find(const char *name)
{
    for (const cpu_kernel_entry &k : cpu_kernels)
        if (name && !strcmp(k.name, name))
            return &k;
    return nullptr;
}
