/* rrref_common.cuh - device helpers shared by the rrref kernels.
 *
 * Compiled twice from the same text: by nvcc (the CUDA headers supply the
 * device API) and by the C++ compiler for the CPU backend (cuda_cpu.h supplies
 * it).  Every arithmetic step is explicit (__fmul_rn / __fadd_rn do not fuse,
 * fmaf always fuses) so that nvcc's contraction cannot change a result; the
 * module is also built with -fmad=false.  The only approximate instructions
 * are ex2.approx.ftz.f32 and rsqrt.approx.ftz.f32, both fed from f16 values
 * (so a 65536-entry table measured on a GPU could reproduce them exactly).
 */
#ifndef RRREF_COMMON_CUH
#define RRREF_COMMON_CUH

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#else
#include "cuda_cpu.h"
#endif

#include "rrref.h"

#define RR_DEV static __device__ __forceinline__

/* ex2.approx.ftz.f32 and rsqrt.approx.ftz.f32: the GPU instructions by name
 * (inline PTX, so no library wrapper adds range fix-ups); on the CPU
 * cuda_cpu.h's stand-ins, which may differ in the last bits. */
RR_DEV float rr_ex2_approx(float x)
{
#if defined(__CUDA_ARCH__)
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return cpu_ex2_approx_ftz(x);
#endif
}

RR_DEV float rr_rsqrt_approx(float x)
{
#if defined(__CUDA_ARCH__)
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return cpu_rsqrt_approx_ftz(x);
#endif
}

/* f16 -> e4m3 code, RNE, satfinite (Inf and overflow -> +-448, NaN -> 0x7f). */
RR_DEV unsigned rr_half_to_e4m3(__half h)
{
    return (unsigned)__nv_cvt_halfraw_to_fp8((__half_raw)h, __NV_SATFINITE, __NV_E4M3);
}

/* e4m3 code -> k with value = k * 2^-9 exactly (the NaN codes 0x7f/0xff
 * decode to +-15*2^14; callers test rr_e4m3_is_nan separately, which keeps
 * the product loops branch-free). */
RR_DEV int rr_e4m3_k(unsigned code)
{
    unsigned e = (code >> 3) & 15u, m = code & 7u;
    int k = e == 0u ? (int)m : (int)((8u + m) << (e - 1u));
    return (code & 0x80u) ? -k : k;
}
RR_DEV int rr_e4m3_is_nan(unsigned code)
{
    return (code & 0x7fu) == 0x7fu;
}
RR_DEV int rr_e4m3_fixed(unsigned code, int *nan)
{
    *nan |= rr_e4m3_is_nan(code);
    return rr_e4m3_k(code);
}

/* s * 2^-18 rounded once to f16 (RNE; overflow -> Inf).  |s| < 2^42. */
RR_DEV __half rr_fixed_to_half(long long s)
{
    unsigned long long mag = s < 0 ? (unsigned long long)(-s) : (unsigned long long)s;
    unsigned short sign = s < 0 ? 0x8000u : 0u, bits;
    int msb, q, shift;
    unsigned long long mant;
    if (mag == 0ull)
        return __ushort_as_half(0);
    msb = 63 - __clzll((long long)mag);
    /* value exponent msb-18; f16 keeps 11 significant bits down to 2^-24 */
    q = msb - 18 >= -14 ? msb - 18 - 10 : -24;
    shift = q + 18;
    if (shift <= 0) {
        mant = mag << (unsigned)(-shift);
    } else {
        unsigned long long rem = mag & ((1ull << (unsigned)shift) - 1ull);
        unsigned long long half = 1ull << (unsigned)(shift - 1);
        mant = mag >> (unsigned)shift;
        if (rem > half || (rem == half && (mant & 1ull)))
            mant += 1ull;
    }
    if (q == -24) {
        bits = (unsigned short)mant; /* 1024 after rounding is the smallest normal */
    } else {
        unsigned long long b = ((unsigned long long)(q + 10 + 15) << 10) + (mant - 1024ull);
        bits = b >= 0x7c00ull ? (unsigned short)0x7c00u : (unsigned short)b;
    }
    return __ushort_as_half((unsigned short)(sign | bits));
}

/* One output channel of a conv: acc = bias; per 32-term slice of k_a[k]*k_w[k]
 * (exact int64), one RNE rounding to f16, one f16 add. */
RR_DEV __half rr_conv_channel(const int *ka, int anan, const unsigned char *w, int K,
                              unsigned bias_code)
{
    int nan = anan | rr_e4m3_is_nan(bias_code);
    __half acc = rr_fixed_to_half((long long)rr_e4m3_k(bias_code) * 512);
    for (int k0 = 0; k0 < K; k0 += RRREF_SLICE) {
        long long s = 0;
        int kend = k0 + RRREF_SLICE < K ? k0 + RRREF_SLICE : K;
        for (int k = k0; k < kend; k++) {
            nan |= rr_e4m3_is_nan(w[k]);
            s += (long long)ka[k] * rr_e4m3_k(w[k]);
        }
        acc = __hadd(acc, rr_fixed_to_half(s));
    }
    return nan ? __ushort_as_half(0x7fffu) : acc;
}

/* Clamped cubic: t = clamp(x, -2, 2); t - t^3/16 (one explicit fma). */
RR_DEV float rr_cubic(float x)
{
    float t = fminf(fmaxf(x, -2.0f), 2.0f);
    float t3 = __fmul_rn(__fmul_rn(t, t), t);
    return fmaf(t3, -0.0625f, t);
}

/* log2 for positive normal x: exponent + cubic in the mantissa with dyadic
 * coefficients (p(0) = 0, p(1) = 1); exactly reproducible. */
RR_DEV float rr_log2_poly(float x)
{
    unsigned b = __float_as_uint(x);
    float e = (float)((int)(b >> 23) - 127);
    float t = __fadd_rn(__uint_as_float((b & 0x7fffffu) | 0x3f800000u), -1.0f);
    float p = fmaf(0.25f, t, -0.6875f);
    p = fmaf(p, t, 1.4375f);
    return __fadd_rn(e, __fmul_rn(p, t));
}

/* 2^v for v in [-14, 14]: 2^floor(v) * (1 + f*(0.65625 + 0.34375 f)). */
RR_DEV float rr_exp2_poly(float v)
{
    float n = floorf(v);
    float f = __fadd_rn(v, -n);
    float q = fmaf(fmaf(0.34375f, f, 0.65625f), f, 1.0f);
    return __fmul_rn(q, __uint_as_float((unsigned)((int)n + 127) << 23));
}

RR_DEV int rr_clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

#endif
