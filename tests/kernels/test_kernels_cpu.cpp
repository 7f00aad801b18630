// test_kernels_cpu.cpp - the tests' own kernels on the CPU backend: their .cu
// compiled here against cuda_cpu.h and registered at run time, so vkrr itself
// (the binary, its tables) never knows them.
#include "cpu_kernels.h"

#include "vkrr_test_meet.cu"
#include "vkrr_test_planes.cu"

static const cpu_kernel_entry test_kernels[] = {
    CPU_KERNEL(vkrr_test_planes_kernel, vkrr_test_planes_params),
    CPU_KERNEL_COOP(vkrr_test_meet_kernel, vkrr_test_meet_params, 0u, 0u),
};

extern "C" bool vkrr_test_kernels_register(void)
{
    bool ok = true;
    for (const cpu_kernel_entry &k : test_kernels)
        ok = cpu_kernel_register(&k) && ok;
    return ok;
}
