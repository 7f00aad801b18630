// corpus_ops.cu - kernels that lean on NVIDIA's own headers, for the PTX
// interpreter's tests (tests/test_ptx_corpus.c computes each output on its
// own): CUB's block radix sort, block reduce, block scan and warp reduce; cuda_fp8.h's
// conversions (hardware cvt on sm_89, the header's bit manipulation on
// sm_80); a cooperative_groups coalesced group in a divergent branch
// (reduce, thread_rank, shfl: fns, redux, activemask).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda_fp8.h>
namespace cg = cooperative_groups;

extern "C" __global__ void k_cub(const int *in, int *sum, int *scan, float *wsum)
{
    typedef cub::BlockReduce<int, 128> BR;
    typedef cub::BlockScan<int, 128> BS;
    typedef cub::WarpReduce<float> WR;
    __shared__ typename BR::TempStorage tr;
    __shared__ typename BS::TempStorage ts;
    __shared__ typename WR::TempStorage tw[4];
    int v = in[blockIdx.x * 128 + threadIdx.x];
    int s = BR(tr).Sum(v);
    if (threadIdx.x == 0)
        sum[blockIdx.x] = s;
    int e;
    BS(ts).ExclusiveSum(v, e);
    scan[blockIdx.x * 128 + threadIdx.x] = e;
    float w = WR(tw[threadIdx.x / 32]).Sum((float)v * 0.5f);
    if (threadIdx.x % 32 == 0)
        wsum[blockIdx.x * 4 + threadIdx.x / 32] = w;
}

extern "C" __global__ void k_fp8(const float *in, unsigned char *e4, unsigned char *e5, float *back)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    __nv_fp8_e4m3 a(in[i]);
    __nv_fp8_e5m2 b(in[i]);
    e4[i] = a.__x;
    e5[i] = b.__x;
    __nv_fp8x2_e4m3 p(make_float2(in[i], -in[i] * 0.5f));
    float2 q = (float2)p;
    back[2 * i] = (float)a + q.x;
    back[2 * i + 1] = (float)b + q.y;
}

extern "C" __global__ void k_coalesced(const int *in, int *out)
{
    int v = in[threadIdx.x];
    if (v & 1) {
        cg::coalesced_group g = cg::coalesced_threads();
        int s = cg::reduce(g, v, cg::plus<int>());
        int r = g.thread_rank();
        int up = g.shfl(v, (r + 1) % g.size());
        out[threadIdx.x] = s * 1000 + r * 10 + (up & 7);
    } else {
        out[threadIdx.x] = -1;
    }
}

extern "C" __global__ void k_radix(const int *in, int *out)
{
    typedef cub::BlockRadixSort<int, 128, 4> RS;
    __shared__ typename RS::TempStorage t;
    int k[4];
    for (int i = 0; i < 4; i++)
        k[i] = in[blockIdx.x * 512 + threadIdx.x * 4 + i];
    RS(t).Sort(k);
    for (int i = 0; i < 4; i++)
        out[blockIdx.x * 512 + threadIdx.x * 4 + i] = k[i];
}
