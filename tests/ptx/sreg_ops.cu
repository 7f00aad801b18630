// sreg_ops.cu - WARP_SZ (CUDA's warpSize) and every special register of the
// PTX ISA, for the PTX interpreter's tests (tests/test_ptx_sreg.c computes
// every expected value from the launch and README's "Special registers").
// Each thread writes what it reads to its row of out (sreg_ops.h).  What
// CUDA C does not expose is read with inline PTX, as a kernel would; the
// timers through asm volatile, so their reads keep the order written.
// vkrr_sregs90 reads what needs sm_90 (clusters, %aggr_smem_size): it is
// empty below compute_90 (tests/CMakeLists.txt compiles this file for
// compute_90 too).
#include <stdint.h>

#include "sreg_ops.h"

#define SR32(name) ({ uint32_t v_; asm volatile("mov.u32 %0, %%" name ";" : "=r"(v_)); v_; })
#define SR64(name) ({ uint64_t v_; asm volatile("mov.u64 %0, %%" name ";" : "=l"(v_)); v_; })
#define PUT64(o, i, v) put64(o + (i), v)
#define V4(o, i, type, c, name)                                                         \
    asm volatile("mov.v4." type " {%0, %1, %2, %3}, %%" name ";"                         \
                 : "=" c(o[i]), "=" c(o[(i) + 1]), "=" c(o[(i) + 2]), "=" c(o[(i) + 3]))

__shared__ uint32_t s_static[SREG_STATIC_WORDS];
extern __shared__ uint32_t s_dyn[];

__device__ void put64(uint32_t *o, uint64_t v)
{
    o[0] = (uint32_t)v;
    o[1] = (uint32_t)(v >> 32);
}

// the thread's linear index in its block, and the block's threads
__device__ unsigned lin(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ unsigned nthreads(void) { return blockDim.x * blockDim.y * blockDim.z; }
__device__ unsigned row(void)
{
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    return b * nthreads() + lin();
}

__device__ uint32_t use_shared(void)
{
    unsigned t = lin(), n = nthreads();
    s_static[t] = t;
    s_dyn[t] = 3 * t;
    __syncthreads();
    return s_static[n - 1 - t] + s_dyn[n - 1 - t];
}

extern "C" __global__ void vkrr_sregs(uint32_t *out)
{
    uint32_t *o = out + (size_t)row() * SREG_W80;
    uint32_t r;
    uint64_t rd;
    unsigned short h[4];

    o[SW_WARPSIZE] = warpSize;
    o[SW_WARPSIZE_MAD] = warpSize * 3 + threadIdx.x;
    asm("add.u32 %0, %1, WARP_SZ;" : "=r"(r) : "r"(threadIdx.x));
    o[SW_WARP_ADD] = r;
    asm("mad.lo.u32 %0, %1, WARP_SZ, 7;" : "=r"(r) : "r"(threadIdx.x));
    o[SW_WARP_MAD] = r;
    asm("{ .reg .pred p; setp.lt.u32 p, %1, WARP_SZ; selp.u32 %0, 1, 0, p; }"
        : "=r"(r) : "r"(SR32("laneid")));
    o[SW_WARP_SETP] = r;
    asm("add.u64 %0, %1, WARP_SZ;" : "=l"(rd) : "l"((uint64_t)threadIdx.x));
    PUT64(o, SW_WARP_ADD64, rd);

    o[SW_TID + 0] = threadIdx.x;
    o[SW_TID + 1] = threadIdx.y;
    o[SW_TID + 2] = threadIdx.z;
    o[SW_TID + 3] = SR32("tid.w");
    o[SW_NTID + 0] = blockDim.x;
    o[SW_NTID + 1] = blockDim.y;
    o[SW_NTID + 2] = blockDim.z;
    o[SW_NTID + 3] = SR32("ntid.w");
    o[SW_CTAID + 0] = blockIdx.x;
    o[SW_CTAID + 1] = blockIdx.y;
    o[SW_CTAID + 2] = blockIdx.z;
    o[SW_CTAID + 3] = SR32("ctaid.w");
    o[SW_NCTAID + 0] = gridDim.x;
    o[SW_NCTAID + 1] = gridDim.y;
    o[SW_NCTAID + 2] = gridDim.z;
    o[SW_NCTAID + 3] = SR32("nctaid.w");
    V4(o, SW_V_TID, "u32", "r", "tid");
    V4(o, SW_V_NTID, "u32", "r", "ntid");
    V4(o, SW_V_CTAID, "u32", "r", "ctaid");
    V4(o, SW_V_NCTAID, "u32", "r", "nctaid");
    asm volatile("mov.v4.u16 {%0, %1, %2, %3}, %%ctaid;"
                 : "=h"(h[0]), "=h"(h[1]), "=h"(h[2]), "=h"(h[3]));
    for (int k = 0; k < 4; k++)
        o[SW_V16_CTAID + k] = h[k];
    asm volatile("mov.u16 %0, %%tid.x;" : "=h"(h[0]));
    o[SW_H_TIDX] = h[0];
    asm volatile("mov.u16 %0, %%ctaid.x;" : "=h"(h[0]));
    o[SW_H_CTAIDX] = h[0];
    asm volatile("cvt.u32.u16 %0, %%tid.z;" : "=r"(r));
    o[SW_CVT_TIDZ] = r;
    asm volatile("cvt.u64.u32 %0, %%ntid.x;" : "=l"(rd));
    PUT64(o, SW_CVT_NTIDX, rd);

    o[SW_LANEID] = SR32("laneid");
    o[SW_WARPID] = SR32("warpid");
    o[SW_NWARPID] = SR32("nwarpid");
    o[SW_SMID] = SR32("smid");
    o[SW_NSMID] = SR32("nsmid");
    PUT64(o, SW_GRIDID, SR64("gridid"));
    o[SW_GRIDID32] = SR32("gridid");
    o[SW_LANEMASK_EQ] = SR32("lanemask_eq");
    o[SW_LANEMASK_LE] = SR32("lanemask_le");
    o[SW_LANEMASK_LT] = SR32("lanemask_lt");
    o[SW_LANEMASK_GE] = SR32("lanemask_ge");
    o[SW_LANEMASK_GT] = SR32("lanemask_gt");
    o[SW_DYN_SMEM] = SR32("dynamic_smem_size");
    o[SW_TOTAL_SMEM] = SR32("total_smem_size");
    o[SW_RSMEM_BEGIN] = SR32("reserved_smem_offset_begin");
    o[SW_RSMEM_END] = SR32("reserved_smem_offset_end");
    o[SW_RSMEM_CAP] = SR32("reserved_smem_offset_cap");
    o[SW_RSMEM_0] = SR32("reserved_smem_offset_0");
    o[SW_RSMEM_1] = SR32("reserved_smem_offset_1");
    PUT64(o, SW_GRAPH_EXEC, SR64("current_graph_exec"));
#define PM(k) o[SW_PM + k] = SR32("pm" #k); PUT64(o, SW_PM64 + 2 * k, SR64("pm" #k "_64"))
    PM(0); PM(1); PM(2); PM(3); PM(4); PM(5); PM(6); PM(7);
#undef PM
#define ENV(k) o[SW_ENVREG + k] = SR32("envreg" #k)
    ENV(0); ENV(1); ENV(2); ENV(3); ENV(4); ENV(5); ENV(6); ENV(7);
    ENV(8); ENV(9); ENV(10); ENV(11); ENV(12); ENV(13); ENV(14); ENV(15);
    ENV(16); ENV(17); ENV(18); ENV(19); ENV(20); ENV(21); ENV(22); ENV(23);
    ENV(24); ENV(25); ENV(26); ENV(27); ENV(28); ENV(29); ENV(30); ENV(31);
#undef ENV

    o[SW_CLOCK] = SR32("clock");
    o[SW_CLOCK_HI] = SR32("clock_hi");
    PUT64(o, SW_CLOCK64, SR64("clock64"));
    PUT64(o, SW_GLOBALTIMER, SR64("globaltimer"));
    o[SW_GLOBALTIMER_LO] = SR32("globaltimer_lo");
    o[SW_GLOBALTIMER_HI] = SR32("globaltimer_hi");
    asm volatile("cvt.u64.u32 %0, %%clock;" : "=l"(rd));
    PUT64(o, SW_CVT_CLOCK, rd);
    asm volatile("cvt.u32.u64 %0, %%clock64;" : "=r"(r));
    o[SW_CVT_CLOCK64] = r;
    o[SW_CUDA_CLOCK] = (uint32_t)clock();
    PUT64(o, SW_CUDA_CLOCK64, clock64());

    o[SW_SMEM] = use_shared();
}

// the issue's kernel: `vkrr record` of it (tests/test_ptx_sreg.c)
extern "C" __global__ void vkrr_warpsize(int *o) { o[threadIdx.x] = warpSize; }

extern "C" __global__ void vkrr_sregs16(uint32_t *o)
{
    if (blockIdx.x + 1 != gridDim.x || threadIdx.x != 0)
        return;
    unsigned short h[4];
    uint32_t r;
    asm volatile("mov.u16 %0, %%ctaid.x;" : "=h"(h[0]));
    o[SW16_H_CTAIDX] = h[0];
    asm volatile("mov.u16 %0, %%nctaid.x;" : "=h"(h[0]));
    o[SW16_H_NCTAIDX] = h[0];
    asm volatile("mov.v4.u16 {%0, %1, %2, %3}, %%ctaid;"
                 : "=h"(h[0]), "=h"(h[1]), "=h"(h[2]), "=h"(h[3]));
    for (int k = 0; k < 4; k++)
        o[SW16_V16_CTAID + k] = h[k];
    asm volatile("cvt.u32.u16 %0, %%ctaid.x;" : "=r"(r));
    o[SW16_CVT_CTAIDX] = r;
    o[SW16_CTAIDX] = blockIdx.x;
}

extern "C" __global__ void vkrr_sregs90(uint32_t *out)
{
#if __CUDA_ARCH__ >= 900
    uint32_t *o = out + (size_t)row() * SREG_W90;
    uint32_t r;
    o[SW90_CLUSTERID + 0] = SR32("clusterid.x");
    o[SW90_CLUSTERID + 1] = SR32("clusterid.y");
    o[SW90_CLUSTERID + 2] = SR32("clusterid.z");
    o[SW90_CLUSTERID + 3] = SR32("clusterid.w");
    o[SW90_NCLUSTERID + 0] = SR32("nclusterid.x");
    o[SW90_NCLUSTERID + 1] = SR32("nclusterid.y");
    o[SW90_NCLUSTERID + 2] = SR32("nclusterid.z");
    o[SW90_NCLUSTERID + 3] = SR32("nclusterid.w");
    o[SW90_CLUSTER_CTAID + 0] = SR32("cluster_ctaid.x");
    o[SW90_CLUSTER_CTAID + 1] = SR32("cluster_ctaid.y");
    o[SW90_CLUSTER_CTAID + 2] = SR32("cluster_ctaid.z");
    o[SW90_CLUSTER_CTAID + 3] = SR32("cluster_ctaid.w");
    o[SW90_CLUSTER_NCTAID + 0] = SR32("cluster_nctaid.x");
    o[SW90_CLUSTER_NCTAID + 1] = SR32("cluster_nctaid.y");
    o[SW90_CLUSTER_NCTAID + 2] = SR32("cluster_nctaid.z");
    o[SW90_CLUSTER_NCTAID + 3] = SR32("cluster_nctaid.w");
    V4(o, SW90_V_CLUSTERID, "u32", "r", "clusterid");
    V4(o, SW90_V_CLUSTER_NCTAID, "u32", "r", "cluster_nctaid");
    o[SW90_CLUSTER_CTARANK] = SR32("cluster_ctarank");
    o[SW90_CLUSTER_NCTARANK] = SR32("cluster_nctarank");
    asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }"
                 : "=r"(r));
    o[SW90_IS_EXPLICIT_CLUSTER] = r;
    o[SW90_AGGR_SMEM] = SR32("aggr_smem_size");
    o[SW90_TOTAL_SMEM] = SR32("total_smem_size");
    o[SW90_SMEM] = use_shared();
#else
    (void)out;
#endif
}
