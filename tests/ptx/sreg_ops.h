/* sreg_ops.h - where tests/ptx/sreg_ops.cu writes what it reads: one row of
 * SREG_W 32-bit words a thread (64-bit values low word first), shared by the
 * kernels and tests/test_ptx_sreg.c, which computes every expected value. */
#ifndef VKRR_TEST_SREG_OPS_H
#define VKRR_TEST_SREG_OPS_H

/* the static shared memory the kernels use (unsigned words): the block has at
 * most this many threads */
#define SREG_STATIC_WORDS 64

enum {
    /* WARP_SZ: CUDA's warpSize, and the constant as operands */
    SW_WARPSIZE,    /* warpSize */
    SW_WARPSIZE_MAD, /* warpSize * 3 + threadIdx.x (nvcc: mov, then mad) */
    SW_WARP_ADD,    /* add.u32 d, %tid.x, WARP_SZ */
    SW_WARP_MAD,    /* mad.lo.u32 d, %tid.x, WARP_SZ, 7 */
    SW_WARP_SETP,   /* setp.lt.u32 p, %laneid, WARP_SZ; selp 1, 0 */
    SW_WARP_ADD64,  /* add.u64 d, %tid.x (cvt.u64.u32), WARP_SZ: 2 words */
    /* the vectors' components, x y z w each */
    SW_TID = SW_WARP_ADD64 + 2,
    SW_NTID = SW_TID + 4,
    SW_CTAID = SW_NTID + 4,
    SW_NCTAID = SW_CTAID + 4,
    /* the vectors whole: mov.v4.u32 {a, b, c, d}, %tid */
    SW_V_TID = SW_NCTAID + 4,
    SW_V_NTID = SW_V_TID + 4,
    SW_V_CTAID = SW_V_NTID + 4,
    SW_V_NCTAID = SW_V_CTAID + 4,
    /* the ISA's legacy 16-bit reads */
    SW_V16_CTAID = SW_V_NCTAID + 4, /* mov.v4.u16 of %ctaid, each half in a word */
    SW_H_TIDX = SW_V16_CTAID + 4,   /* mov.u16 h, %tid.x */
    SW_H_CTAIDX,                    /* mov.u16 h, %ctaid.x */
    SW_CVT_TIDZ,                    /* cvt.u32.u16 r, %tid.z */
    SW_CVT_NTIDX,                   /* cvt.u64.u32 rd, %ntid.x: 2 words */
    SW_LANEID = SW_CVT_NTIDX + 2,
    SW_WARPID,
    SW_NWARPID,
    SW_SMID,
    SW_NSMID,
    SW_GRIDID,                      /* 2 words */
    SW_GRIDID32 = SW_GRIDID + 2,    /* mov.u32 r, %gridid */
    SW_LANEMASK_EQ,
    SW_LANEMASK_LE,
    SW_LANEMASK_LT,
    SW_LANEMASK_GE,
    SW_LANEMASK_GT,
    SW_DYN_SMEM,
    SW_TOTAL_SMEM,
    SW_RSMEM_BEGIN,
    SW_RSMEM_END,
    SW_RSMEM_CAP,
    SW_RSMEM_0,
    SW_RSMEM_1,
    SW_GRAPH_EXEC,                  /* %current_graph_exec: 2 words */
    SW_PM = SW_GRAPH_EXEC + 2,      /* %pm0..%pm7 */
    SW_PM64 = SW_PM + 8,            /* %pm0_64..%pm7_64: 2 words each */
    SW_ENVREG = SW_PM64 + 16,       /* %envreg0..%envreg31 */
    /* the timers, read in this order (asm volatile), each a read of the warp's counter */
    SW_CLOCK = SW_ENVREG + 32,
    SW_CLOCK_HI,
    SW_CLOCK64,                     /* 2 words */
    SW_GLOBALTIMER = SW_CLOCK64 + 2, /* 2 words */
    SW_GLOBALTIMER_LO = SW_GLOBALTIMER + 2,
    SW_GLOBALTIMER_HI,
    SW_CVT_CLOCK,                   /* cvt.u64.u32 rd, %clock: 2 words */
    SW_CVT_CLOCK64 = SW_CVT_CLOCK + 2, /* cvt.u32.u64 r, %clock64 */
    SW_CUDA_CLOCK,                  /* clock() */
    SW_CUDA_CLOCK64,                /* clock64(): 2 words */
    /* static and dynamic shared memory, used so that the kernel has both */
    SW_SMEM = SW_CUDA_CLOCK64 + 2,  /* s_static[n-1-t] + s_dyn[n-1-t] (4 (n-1-t)) */
    SREG_W80,                       /* the words of vkrr_sregs */

    /* vkrr_sregs90 (sm_90 on) writes these, from 0 */
    SW90_CLUSTERID = 0,             /* x y z w */
    SW90_NCLUSTERID = SW90_CLUSTERID + 4,
    SW90_CLUSTER_CTAID = SW90_NCLUSTERID + 4,
    SW90_CLUSTER_NCTAID = SW90_CLUSTER_CTAID + 4,
    SW90_V_CLUSTERID = SW90_CLUSTER_NCTAID + 4, /* mov.v4.u32 */
    SW90_V_CLUSTER_NCTAID = SW90_V_CLUSTERID + 4,
    SW90_CLUSTER_CTARANK = SW90_V_CLUSTER_NCTAID + 4,
    SW90_CLUSTER_NCTARANK,
    SW90_IS_EXPLICIT_CLUSTER,       /* mov.pred p, %is_explicit_cluster; selp 1, 0 */
    SW90_AGGR_SMEM,
    SW90_TOTAL_SMEM,
    SW90_SMEM,                      /* as SW_SMEM */
    SREG_W90,

    /* vkrr_sregs16, by the last thread of a grid over 65536 CTAs wide: the
     * ISA's 16-bit reads keep the low bits */
    SW16_H_CTAIDX = 0,              /* mov.u16 h, %ctaid.x */
    SW16_H_NCTAIDX,                 /* mov.u16 h, %nctaid.x */
    SW16_V16_CTAID,                 /* mov.v4.u16 of %ctaid: 4 words */
    SW16_CVT_CTAIDX = SW16_V16_CTAID + 4, /* cvt.u32.u16 r, %ctaid.x */
    SW16_CTAIDX,                    /* mov.u32 r, %ctaid.x */
    SREG_W16,
};

#endif
