// mem_ops.cu - memory instructions for the PTX interpreter's tests
// (tests/test_ptx_mem.c computes the expected values): atomics and
// reductions on global and shared memory, a local array with dynamic
// indexing, cp.async with commit/wait groups, vector loads/stores of every
// width, sign-extending loads, dynamic shared memory, ld.global.nc.
#include <stdint.h>
#include <cuda_fp16.h>

#define MEM_NOUT 16

struct counters {
    uint32_t add, inc, dec, max, min, andv, orv, xorv, exch_seen, cas_wins;
    float fsum;
    uint32_t h2; /* f16x2 sum */
    uint64_t add64;
    int32_t smin;
    uint32_t pad;
};

extern "C" __global__ void k_atom(const uint32_t *in, struct counters *g, uint32_t *out, int n)
{
    __shared__ uint32_t sh_add, sh_max, sh_cas;
    __shared__ float sh_f;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) {
        sh_add = 0;
        sh_max = 0;
        sh_cas = 0;
        sh_f = 0.0f;
    }
    __syncthreads();
    uint32_t v = i < n ? in[i] : 0;
    if (i < n) {
        out[i * 4] = atomicAdd(&g->add, (v & 0xff) | 1u); // old values: partial sums in some order
        atomicInc(&g->inc, 1000u);
        atomicDec(&g->dec, 0xffffffffu);
        atomicMax(&g->max, v);
        atomicMin(&g->min, v);
        atomicAnd(&g->andv, v | 0x0f0f0f0fu);
        atomicOr(&g->orv, v & 0x00ff00ffu);
        atomicXor(&g->xorv, v);
        atomicAdd(&g->fsum, (float)(v & 0xff) * 0.25f);
        atomicAdd((__half2 *)&g->h2, __halves2half2(__float2half(1.0f), __float2half(0.5f)));
        atomicAdd((unsigned long long *)&g->add64, (unsigned long long)v << 8);
        atomicMin(&g->smin, (int32_t)v);
        asm volatile("red.global.add.u32 [%0], %1;" ::"l"(&g->pad), "r"(2u));
        uint32_t prev = atomicExch(&g->exch_seen, v);
        out[i * 4 + 1] = prev;
        if (atomicCAS(&g->cas_wins, 0u, (uint32_t)i + 1u) == 0u)
            out[i * 4 + 2] = 1;
        atomicAdd(&sh_add, 1u);
        atomicMax(&sh_max, v & 0xffff);
        atomicAdd(&sh_f, 0.5f);
        atomicCAS(&sh_cas, (uint32_t)threadIdx.x, (uint32_t)threadIdx.x + 1u); // a chain in thread order
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        out[(blockIdx.x * blockDim.x) * 4 + 3] = sh_add;
        out[(blockIdx.x * blockDim.x + 1) * 4 + 3] = sh_max;
        out[(blockIdx.x * blockDim.x + 2) * 4 + 3] = __float_as_uint(sh_f);
        out[(blockIdx.x * blockDim.x + 3) * 4 + 3] = sh_cas;
    }
}

// local memory (an array indexed by data), vector and narrow loads/stores,
// ld.global.nc, dynamic shared memory, cp.async
extern "C" __global__ void k_mem(const uint32_t *in, const int8_t *bytes, uint32_t *out, int n)
{
    extern __shared__ uint4 dyn[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned t = threadIdx.x;
    uint32_t v = in[i];
    uint32_t *o = out + (size_t)i * MEM_NOUT;
    volatile uint32_t local[37];
    for (int k = 0; k < 37; k++)
        local[k] = v * (uint32_t)k + (uint32_t)k;
    o[0] = local[v % 37] + local[(v >> 8) % 37];
    // vector loads of the input, in 16-byte groups
    const uint4 *in4 = (const uint4 *)in;
    uint4 q = in4[i / 4];
    o[1] = q.x ^ (q.y << 1) ^ (q.z << 2) ^ (q.w << 3);
    const uint2 *in2 = (const uint2 *)in;
    uint2 p = __ldg(&in2[i / 2]);
    o[2] = p.x + p.y;
    // sign-extending narrow loads
    int8_t b = bytes[i];
    short sh = ((const short *)bytes)[i / 2];
    o[3] = (uint32_t)(int32_t)b;
    o[4] = (uint32_t)(int32_t)sh;
    // dynamic shared memory and cp.async: each thread copies 16 bytes of in
    // (4 words starting at 4 * (t ^ 1)) into dyn[t], then waits
    uint32_t saddr = (uint32_t)__cvta_generic_to_shared(&dyn[t]);
    const uint4 *src = in4 + (blockIdx.x * blockDim.x / 4) + ((t ^ 1) % (blockDim.x / 4));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(saddr), "l"(src));
    asm volatile("cp.async.commit_group;");
    // a second group: 8 bytes with only 4 of them read (the rest zero-filled)
    uint32_t saddr2 = (uint32_t)__cvta_generic_to_shared(&dyn[blockDim.x + t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, 4;" ::"r"(saddr2), "l"(in + i));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 1;");
    asm volatile("cp.async.wait_all;");
    __syncthreads();
    uint4 c = dyn[t ^ 3];
    o[5] = c.x;
    o[6] = c.w;
    uint4 c2 = dyn[blockDim.x + t];
    o[7] = c2.x;
    o[8] = c2.y;
    // stores of every width into a scratch row of out
    uint8_t *ob = (uint8_t *)(o + 9);
    ob[0] = (uint8_t)v;
    ob[1] = (uint8_t)(v >> 8);
    ((uint16_t *)ob)[1] = (uint16_t)(v >> 16);
    uint2 st2 = make_uint2(v + 1, v + 2);
    *(uint2 *)(o + 10) = st2;
    o[12] = (uint32_t)n;
    o[13] = t;
    o[14] = blockIdx.x;
    o[15] = blockDim.x;
}

// module variables: a __constant__ table with an initializer (ld.const) and a
// __device__ counter starting at its initializer (atom on a .global variable)
__constant__ float ctab[4] = {1.5f, -2.0f, 0.25f, 8.0f};
__device__ unsigned gcount = 100;

extern "C" __global__ void k_globals(uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[2 * i] = __float_as_uint(ctab[i & 3] * 2.0f);
    out[2 * i + 1] = atomicAdd(&gcount, 1u);
}
