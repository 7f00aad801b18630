/* rrref_warp.cuh - the production forms rrref's attention block names in
 * inline PTX, each one device function with two bodies: the instruction
 * itself under nvcc (compute_89: the fp8 mma needs sm_89), and on the CPU
 * (cuda_cpu.h) the call into the definition the PTX interpreter uses for
 * that instruction (cuda_ref/device/ptx_models.h; approx.h for the approximate
 * ones), so the CPU backend, the interpreter and the JIT compute the same
 * bits under every hardware model.
 *
 *   rr_mma_e4m3       mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16
 *   rr_e4m3x2         cvt.rn.satfinite.e4m3x2.f16x2 (and .relu: rr_e4m3x2_relu)
 *   rr_movmatrix      movmatrix.sync.aligned.m8n8.trans.b16
 *   rr_h_ex2 / rr_h_rcp / rr_h_rsqrt / rr_h_div
 *                     {ex2,rcp,rsqrt,div}.approx.ftz.f32, each f16 -> f32 -> op -> f16
 *   rr_texel          tex.base.2d.v4.f32.s32: a texel at integer coordinates
 *   rr_sust_zero      sust.b.2d.v4.b16.zero
 * Warp-wide ones (mma, movmatrix, and __shfl_xor_sync) need all 32 lanes.
 */
#ifndef RRREF_WARP_CUH
#define RRREF_WARP_CUH

#include "rrref_common.cuh"

/* Dynamic shared memory (the launch's shared bytes). */
#if defined(__CUDA_ARCH__)
#define RR_SHARED_DYN(name) extern __shared__ __align__(16) unsigned char name[]
#else
#define RR_SHARED_DYN(name) unsigned char *name = cpu_coop_shared()
#endif

/* d = a b + c: A 16 x 32 e4m3 (a0..a3), B 32 x 8 e4m3 (b0, b1), C and D
 * 16 x 8 f16 (two f16x2 each), in the PTX ISA's fragment layouts. */
RR_DEV void rr_mma_e4m3(unsigned d[2], const unsigned a[4], const unsigned b[2], const unsigned c[2])
{
#if defined(__CUDA_ARCH__)
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0, %1}, {%2, %3, %4, %5}, "
                 "{%6, %7}, {%8, %9};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]));
#else
    cpu_mma_m16n8k32_e4m3_f16(d, a, b, c);
#endif
}

/* Two f16 (x: low half, high half) -> two e4m3 in the low 16 bits (low byte
 * from the low half), RNE, satfinite; _relu also makes negatives +0. */
RR_DEV unsigned rr_e4m3x2(unsigned x)
{
#if defined(__CUDA_ARCH__)
    unsigned short d;
    asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(d) : "r"(x));
    return d;
#else
    return cpu_cvt_e4m3x2_f16x2(x, false);
#endif
}

RR_DEV unsigned rr_e4m3x2_relu(unsigned x)
{
#if defined(__CUDA_ARCH__)
    unsigned short d;
    asm("cvt.rn.satfinite.relu.e4m3x2.f16x2 %0, %1;" : "=h"(d) : "r"(x));
    return d;
#else
    return cpu_cvt_e4m3x2_f16x2(x, true);
#endif
}

/* An 8 x 8 b16 matrix in mma's C layout (lane: row lane/4, columns
 * 2(lane%4), +1) -> its transpose, same layout. */
RR_DEV unsigned rr_movmatrix(unsigned x)
{
#if defined(__CUDA_ARCH__)
    unsigned d;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d) : "r"(x));
    return d;
#else
    return cpu_movmatrix_trans(x);
#endif
}

/* The approximate instructions on f16 values, rounded back to f16: the
 * hardware model's tables hold every f16 input, so they are exact. */
RR_DEV __half rr_h_ex2(__half x)
{
    return __float2half_rn(rr_ex2_approx(__half2float(x)));
}

RR_DEV __half rr_h_rsqrt(__half x)
{
    return __float2half_rn(rr_rsqrt_approx(__half2float(x)));
}

RR_DEV __half rr_h_rcp(__half x)
{
    float y, f = __half2float(x);
#if defined(__CUDA_ARCH__)
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(f));
#else
    y = cpu_rcp_approx_ftz(f);
#endif
    return __float2half_rn(y);
}

/* div.approx: vkrr's value is a stand-in (approx.h), exact on the GPU too
 * for the divisor the block uses, a power of two. */
RR_DEV __half rr_h_div(__half a, __half b)
{
    float y, fa = __half2float(a), fb = __half2float(b);
#if defined(__CUDA_ARCH__)
    asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(y) : "f"(fa), "f"(fb));
#else
    y = cpu_div_approx_ftz(fa, fb);
#endif
    return __float2half_rn(y);
}

/* The texel at integer (x, y): tex with s32 coordinates never filters, so a
 * LINEAR sampler with normalized coordinates still returns it exactly. */
RR_DEV float4 rr_texel(cudaTextureObject_t t, int x, int y)
{
#if defined(__CUDA_ARCH__)
    float4 v;
    asm volatile("tex.base.2d.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %6}];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(t), "r"(x), "r"(y));
    return v;
#else
    return cpu_tex2d_texel(t, x, y);
#endif
}

/* Four f16 at texel x (x_bytes = 8 x) of a HALF x4 surface; out of range
 * the store is dropped (.zero), so the edges need no test. */
RR_DEV void rr_sust_zero(cudaSurfaceObject_t s, int x_bytes, int y, ushort4 v)
{
#if defined(__CUDA_ARCH__)
    asm volatile("sust.b.2d.v4.b16.zero [%0, {%1, %2}], {%3, %4, %5, %6};"
                 :
                 : "l"(s), "r"(x_bytes), "r"(y), "h"(v.x), "h"(v.y), "h"(v.z), "h"(v.w)
                 : "memory");
#else
    cpu_sust_b16x4_zero(s, x_bytes, y, v);
#endif
}

RR_DEV unsigned rr_pack_half2(__half lo, __half hi)
{
    return (unsigned)__half_as_ushort(lo) | (unsigned)__half_as_ushort(hi) << 16;
}
RR_DEV __half rr_lo(unsigned x)
{
    return __ushort_as_half((unsigned short)(x & 0xffffu));
}
RR_DEV __half rr_hi(unsigned x)
{
    return __ushort_as_half((unsigned short)(x >> 16));
}

#endif
