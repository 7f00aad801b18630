// warp_ops.cu - warp collectives, divergence and CTA barriers for the PTX
// interpreter's tests (tests/test_ptx_warp.c computes the expected values).
#include <stdint.h>

#define WARP_NOUT 24

// One warp-sized group per 32 threads; the block may hold several warps.
extern "C" __global__ void k_warp(const uint32_t *in, uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    uint32_t v = in[i], r;
    uint32_t *o = out + (size_t)i * WARP_NOUT;
    o[0] = __shfl_sync(0xffffffffu, v, (v >> 3) & 31);          // idx
    o[1] = __shfl_up_sync(0xffffffffu, v, 3);                   // up
    o[2] = __shfl_down_sync(0xffffffffu, v, 5);                 // down
    o[3] = __shfl_xor_sync(0xffffffffu, v, 6);                  // bfly
    o[4] = __shfl_sync(0xffffffffu, v, 2, 8);                   // idx in 8-lane segments
    o[5] = __shfl_up_sync(0xffffffffu, v, 1, 16);               // up in 16-lane segments
    o[6] = __shfl_down_sync(0xffffffffu, v, 3, 4);              // down in 4-lane segments
    uint32_t p;
    asm("{ .reg .pred q; .reg .b32 t; shfl.sync.down.b32 t|q, %1, 7, 0x1f, 0xffffffff;"
        " selp.u32 %0, 1, 0, q; }" : "=r"(p) : "r"(v));
    o[7] = p;
    o[8] = __ballot_sync(0xffffffffu, v & 1);
    o[9] = __all_sync(0xffffffffu, v != 12345);
    o[10] = __any_sync(0xffffffffu, (v & 0xff) == 0x17);
    asm("{ .reg .pred a, q; setp.ne.u32 a, %1, 0; vote.sync.uni.pred q, a, 0xffffffff;"
        " selp.u32 %0, 1, 0, q; }" : "=r"(p) : "r"(v & 0x80000000u));
    o[11] = p;
    o[12] = __match_any_sync(0xffffffffu, v & 3);
    int pred;
    o[13] = __match_all_sync(0xffffffffu, lane < 40 ? 7u : v, &pred);
    o[14] = (uint32_t)pred;
    o[15] = __reduce_add_sync(0xffffffffu, v & 0xffff);
    o[16] = (uint32_t)__reduce_min_sync(0xffffffffu, (int)v);
    o[17] = __reduce_max_sync(0xffffffffu, v);
    o[18] = __reduce_or_sync(0xffffffffu, v & 0x0f0f0f0fu);
    o[19] = __reduce_xor_sync(0xffffffffu, v);
    // divergence: odd lanes take one path, and shuffle among themselves
    r = 0;
    if (lane & 1) {
        r = __shfl_xor_sync(0xaaaaaaaau, v, 2);
        asm volatile("activemask.b32 %0;" : "=r"(p));
        o[20] = p;
    } else {
        r = v * 3;
        asm volatile("activemask.b32 %0;" : "=r"(p));
        o[20] = p;
    }
    o[21] = r;
    // a data-dependent loop: lanes leave at different trip counts, then meet again
    uint32_t k = 0, x = v;
    while (x > 1000u && k < 40) {
        x = x / 3 + (x & 7);
        k++;
    }
    __syncwarp();
    o[22] = __shfl_sync(0xffffffffu, k, (lane + 1) & 31);
    asm volatile("activemask.b32 %0;" : "=r"(p));
    o[23] = p;
}

// CTA barriers: a block-wide tree reduction in shared memory where half the
// threads have already returned; and bar.red.popc.
extern "C" __global__ void k_bar(const uint32_t *in, uint32_t *out, int n)
{
    __shared__ uint32_t s[256];
    unsigned t = threadIdx.x;
    uint32_t v = in[blockIdx.x * blockDim.x + t];
    int cnt = __syncthreads_count(v & 1);
    int any = __syncthreads_or(v == 77);
    s[t] = v;
    __syncthreads();
    if (t >= blockDim.x / 2)
        return; // these threads have exited: later barriers do not wait for them
    for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
        if (t < w)
            s[t] += s[t + w];
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x * 3] = s[0];
        out[blockIdx.x * 3 + 1] = (uint32_t)cnt;
        out[blockIdx.x * 3 + 2] = (uint32_t)any;
    }
}

// bar.sync reached from two different branches (and both halves of every
// warp divergent): one barrier, counted per thread.  Each thread then reads
// what its neighbour wrote on the other path before the barrier.
extern "C" __global__ void k_bar_div(uint32_t *out)
{
    __shared__ uint32_t s[128];
    unsigned t = threadIdx.x;
    uint32_t r;
    if (t & 1) {
        s[t] = t * 3u + 1u;
        asm volatile("bar.sync 0;" ::: "memory");
        r = s[t ^ 1] + 7u;
    } else {
        s[t] = t * 5u;
        asm volatile("bar.sync 0;" ::: "memory");
        r = s[t ^ 1] * 2u;
    }
    out[t] = r;
}
