// barrier_ops.cu - cuda::barrier and cuda::pipeline (libcu++ on mbarrier
// objects: mbarrier.init/arrive/test_wait, cp.async with
// cp.async.mbarrier.arrive, %globaltimer and nanosleep back-off) for the PTX
// interpreter's tests (tests/test_ptx_mbarrier.c checks the outputs).
//   k_barrier:  each block copies its 256 floats into shared memory with
//               cuda::memcpy_async on a block-wide barrier, waits on it, and
//               writes out[i] = 2 * (its neighbour's copy).
//   k_pipeline: a two-stage pipeline over four 128-float slices; each thread
//               sums its element of every slice.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

extern "C" __global__ void k_barrier(const float *in, float *out)
{
    __shared__ float buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf, in + blockIdx.x * 256, sizeof(float) * 256, bar);
    bar.arrive_and_wait();
    out[blockIdx.x * 256 + threadIdx.x] = buf[(threadIdx.x + 1) % 256] * 2.0f;
}

extern "C" __global__ void k_pipeline(const float *in, float *out)
{
    __shared__ float buf[2][128];
    auto block = cg::this_thread_block();
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
    auto pipe = cuda::make_pipeline(block, &state);
    float acc = 0;
    for (int s = 0; s < 4; s++) {
        pipe.producer_acquire();
        cuda::memcpy_async(block, buf[s % 2], in + s * 128, sizeof(float) * 128, pipe);
        pipe.producer_commit();
        pipe.consumer_wait();
        acc += buf[s % 2][threadIdx.x];
        pipe.consumer_release();
    }
    out[threadIdx.x] = acc;
}
