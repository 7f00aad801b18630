// vkrr_test_meet_kernel - threads that meet (a shfl, a __syncthreads), for the
// CPU backend's fibers (cuda_ref/device/cpu_coop.h; tests/test_cpu_coop.c).
// Every thread t writes out[t] = the value of thread t ^ 1 (3 (t ^ 1) + 1),
// except as mode says:
//   0  every thread takes part;
//   1  lane 5 of warp 0 returns before the shfl: its warp can never complete
//      it (the launch is an error, never a hang);
//   2  warp 1 returns before both: warp 0 completes, and the barrier opens
//      for the threads that have not returned (out[32..63] untouched).
#if defined(__CUDACC__)
#include <cuda_fp16.h>
#else
#include "cuda_cpu.h"
#endif

#include <stdint.h>

typedef struct vkrr_test_meet_params {
    uint64_t out;  /* 0 pointer: u32 [block threads] */
    uint32_t mode; /* 8 */
    uint32_t pad;  /* 12 zero */
} vkrr_test_meet_params;

extern "C" __global__ void vkrr_test_meet_kernel(vkrr_test_meet_params p)
{
    unsigned t = threadIdx.x;
    unsigned *out = (unsigned *)p.out;
    if ((p.mode == 1 && t == 5) || (p.mode == 2 && t >= 32))
        return;
    unsigned v = __shfl_xor_sync(0xffffffffu, 3u * t + 1u, 1);
    __syncthreads();
    out[t] = v;
}
