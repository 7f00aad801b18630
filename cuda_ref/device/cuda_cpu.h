/* cuda_cpu.h - the CUDA device API the rrref kernels use, on the CPU.
 *
 * The .cu files are compiled as C++17 against this header (cpu_kernels.cpp
 * includes them), so there is one copy of the kernel math.  It supplies:
 *   __global__/__device__/__forceinline__, thread_local threadIdx/blockIdx/
 *   blockDim/gridDim (set by the launcher in cpu_backend.cpp per thread),
 *   float2/float4/ushort4, __half with exact RNE conversions, e4m3 conversions
 *   (cuda_fp8.h's __nv_cvt_* for E4M3, satfinite), __fadd_rn/__fmul_rn/
 *   __fdiv_rn (IEEE, unfused), __clzll, tex2D<T> with CUDA's filtering and
 *   addressing rules, tex1Dfetch<T> on linear memory, surf2Dwrite with byte
 *   x, and stand-ins for the
 *   approximate PTX instructions ex2.approx.ftz.f32 and rsqrt.approx.ftz.f32.
 *
 * Exact (bit for bit what CUDA does): f16 and e4m3 conversions, __hadd
 * (f32 add then RNE to f16 is exact: 24 >= 2*11+2 bits, so double rounding is
 * innocuous), the *_rn intrinsics, fmaf (glibc's fmaf is correctly rounded),
 * point sampling with unnormalized coordinates, surface writes.
 *
 * NOT known exactly (documented choices; may differ from a GPU):
 *   - ex2.approx.ftz / rsqrt.approx.ftz: src/replay/approx.h defines them once (the CPU
 *     and the Vulkan ports use it): the nearest
 *     f32 of exp2 / 1/sqrt computed in double, with FTZ on input and output.
 *     The GPU's approximations differ in the last bits (PTX documents ~2 ulp).
 *   - bilinear filtering: weights are CUDA's 9-bit fixed point (8 fractional
 *     bits) with alpha = floor(frac * 256 + 0.5) / 256 (round half up: the
 *     tie rule is undocumented); the weighted sum is done in f32 in the order
 *     w00*T00 + w10*T10 + w01*T01 + w11*T11, unfused.  The texture unit's own
 *     internal precision is undocumented.
 *   - normalized coordinates: u = x * width in f32 (the unit's own coordinate
 *     precision is undocumented); wrap and mirror are applied to the integer
 *     texel index (mirror period 2*width).  With unnormalized coordinates CUDA
 *     supports only clamp and border; wrap and mirror act as clamp here.
 *   - 8/16-bit normalized reads: unorm v/(2^n-1), snorm max(v/(2^(n-1)-1), -1),
 *     each an IEEE-rounded f32 division.
 *   - channels an array lacks read as 0; border colour is 0 in every channel;
 *     a NaN coordinate is read as 0; textures read as integer return the
 *     integer converted to float (the kernels never do this).
 */
#ifndef VKRR_CUDA_CPU_H
#define VKRR_CUDA_CPU_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <atomic>

#include "approx.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline

struct uint3 {
    unsigned x, y, z;
};
typedef uint3 dim3;
/* inline (C++17): one definition shared by every file that includes this,
 * so a kernel compiled outside cpu_kernels.cpp (tests/kernels) reads them
 * directly, with no TLS wrapper between (UBSan took the wrapper's result for
 * a null pointer). */
inline thread_local uint3 threadIdx, blockIdx;
inline thread_local dim3 blockDim, gridDim;

struct float2 {
    float x, y;
};
struct float4 {
    float x, y, z, w;
};
struct ushort4 {
    unsigned short x, y, z, w;
};
static inline ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z,
                                   unsigned short w)
{
    return ushort4{x, y, z, w};
}

/* ---- bits and IEEE intrinsics ------------------------------------------ */
static inline unsigned __float_as_uint(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float __uint_as_float(unsigned u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* volatile-free: the build uses -ffp-contract=off, so these stay unfused. */
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline int __clzll(long long x)
{
    return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}

static inline float cpu_ftz(float x)
{
    return fabsf(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x;
}
/* Stand-in for ex2.approx.ftz.f32 (see the top of this file). */
static inline float cpu_ex2_approx_ftz(float x)
{
    return vkrr_approx_ex2(x); /* src/replay/approx.h: the one definition */
}
/* Stand-in for rsqrt.approx.ftz.f32 (see the top of this file). */
static inline float cpu_rsqrt_approx_ftz(float x)
{
    return vkrr_approx_rsqrt(x);
}

/* ---- f16 --------------------------------------------------------------- */
struct __half_raw {
    unsigned short x;
};
struct __half {
    unsigned short x;
    operator __half_raw() const { return __half_raw{x}; }
};
static inline __half __ushort_as_half(unsigned short u) { return __half{u}; }
static inline unsigned short __half_as_ushort(__half h) { return h.x; }

/* RNE; overflow -> Inf; NaN -> 0x7fff (cvt.rn.f16.f32's canonical NaN). */
static inline __half __float2half_rn(float f)
{
    unsigned b = __float_as_uint(f), a = b & 0x7fffffffu;
    unsigned short sign = (unsigned short)((b >> 16) & 0x8000u);
    if (a > 0x7f800000u)
        return __half{0x7fffu};
    if (a >= 0x477ff000u) /* >= 65520 rounds to Inf */
        return __half{(unsigned short)(sign | 0x7c00u)};
    unsigned e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, h, rem, halfway;
    int shift;
    if (a < 0x38800000u) { /* f16 subnormal: units of 2^-24 */
        shift = 126 - (int)e;
        if (shift > 24)
            return __half{sign};
        h = m >> shift;
        rem = m & ((1u << shift) - 1u);
        halfway = 1u << (shift - 1);
    } else {
        h = ((e - 112u) << 10) | ((a & 0x7fffffu) >> 13);
        rem = a & 0x1fffu;
        halfway = 0x1000u;
    }
    if (rem > halfway || (rem == halfway && (h & 1u)))
        h++;
    return __half{(unsigned short)(sign | h)};
}
static inline float __half2float(__half h)
{
    unsigned s = (unsigned)(h.x & 0x8000u) << 16, e = (h.x >> 10) & 31u, m = h.x & 0x3ffu;
    if (e == 31u)
        return __uint_as_float(s | 0x7f800000u | (m << 13));
    if (e == 0u) {
        float v = (float)m * 5.9604644775390625e-08f; /* m * 2^-24, exact */
        return s ? -v : v;
    }
    return __uint_as_float(s | ((e + 112u) << 23) | (m << 13));
}
static inline __half __hadd(__half a, __half b)
{
    return __float2half_rn(__half2float(a) + __half2float(b));
}
static inline __half __hmul(__half a, __half b)
{
    return __float2half_rn(__half2float(a) * __half2float(b));
}

/* ---- e4m3 (cuda_fp8.h subset) ------------------------------------------ */
typedef unsigned char __nv_fp8_storage_t;
enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE };
enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 };

/* f16 -> e4m3, RNE.  SATFINITE: Inf and |v| > 448 -> +-448 (0x7e); NaN ->
 * 0x7f.  Without it, overflow gives NaN (e4m3 has no Inf).  Only E4M3. */
static inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t sat,
                                                         __nv_fp8_interpretation_t)
{
    unsigned s = (x.x & 0x8000u) ? 0x80u : 0u, e = (x.x >> 10) & 31u, m = x.x & 0x3ffu, code;
    if (e == 31u)
        return (__nv_fp8_storage_t)(m ? 0x7fu : (sat == __NV_SATFINITE ? (s | 0x7eu) : 0x7fu));
    if (e >= 9u) { /* >= 2^-6: e4m3 normal, keep 3 of 10 mantissa bits */
        unsigned rem = m & 127u;
        code = ((e - 8u) << 3) | (m >> 7);
        if (rem > 64u || (rem == 64u && (code & 1u)))
            code++;
    } else { /* e4m3 subnormal: units of 2^-9 */
        unsigned mm = e ? (m | 0x400u) : m, shift = e ? 16u - e : 15u;
        unsigned rem = mm & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
        code = mm >> shift;
        if (rem > halfway || (rem == halfway && (code & 1u)))
            code++;
    }
    if (code > 0x7eu)
        code = sat == __NV_SATFINITE ? 0x7eu : 0x7fu;
    return (__nv_fp8_storage_t)(s | code);
}
/* e4m3 -> f16, exact (0x7f / 0xff -> f16 NaN 0x7fff).  Only E4M3. */
static inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t)
{
    unsigned s = (x & 0x80u) ? 0x8000u : 0u, e = (x >> 3) & 15u, m = x & 7u;
    if (e == 15u && m == 7u)
        return __half_raw{0x7fffu};
    if (e == 0u) /* m * 2^-9 = f16 normal or zero */
        return __half_raw{(unsigned short)(s | (m ? __float2half_rn((float)m * 0.001953125f).x : 0u))};
    return __half_raw{(unsigned short)(s | ((e + 8u) << 10) | (m << 7))};
}

/* ---- textures and surfaces --------------------------------------------- */
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

/* What a texture or surface handle word points at on the CPU. */
struct cpu_texture {
    const unsigned char *data;   /* width*height texels, rows packed */
    unsigned width, height, channels, format, texel_bytes;
    int filter;                  /* 0 point, 1 linear */
    int address[2];              /* 0 wrap, 1 clamp, 2 mirror, 3 border */
    bool normalized, read_as_integer;
    unsigned linear_count;       /* over linear memory (tex1Dfetch): texels; 0: an array */
};
struct cpu_surface {
    unsigned char *data;
    unsigned width, height, texel_bytes;
    std::atomic<int> *fault;     /* set to 1 by an out-of-range or mis-sized write */
};

/* One channel of texel (x, y) as a normalized-float read. */
static inline float cpu_texel_channel(const cpu_texture *t, const unsigned char *p, unsigned c)
{
    if (c >= t->channels)
        return 0.0f;
    unsigned f = t->format;
    bool integer = t->read_as_integer;
    switch (f) {
    case 16: {
        __half h;
        memcpy(&h.x, p + 2 * c, 2);
        return __half2float(h);
    }
    case 32: {
        float v;
        memcpy(&v, p + 4 * c, 4);
        return v;
    }
    case 1: case 192: case 193: case 194:
        return integer ? (float)p[c] : __fdiv_rn((float)p[c], 255.0f);
    case 8: case 198: case 199: case 200: {
        float v = (float)(signed char)p[c];
        return integer ? v : fmaxf(__fdiv_rn(v, 127.0f), -1.0f);
    }
    case 2: case 195: case 196: case 197: {
        uint16_t v;
        memcpy(&v, p + 2 * c, 2);
        return integer ? (float)v : __fdiv_rn((float)v, 65535.0f);
    }
    case 9: case 201: case 202: case 203: {
        int16_t v;
        memcpy(&v, p + 2 * c, 2);
        return integer ? (float)v : fmaxf(__fdiv_rn((float)v, 32767.0f), -1.0f);
    }
    case 3: {
        uint32_t v;
        memcpy(&v, p + 4 * c, 4);
        return (float)v;
    }
    case 10: {
        int32_t v;
        memcpy(&v, p + 4 * c, 4);
        return (float)v;
    }
    default:
        return 0.0f;
    }
}

/* Texel index i on an axis of n texels after addressing; -1: border. */
static inline long cpu_tex_address(long i, long n, int mode, bool normalized)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == 3)
        return -1;
    if (normalized && mode == 0)
        return ((i % n) + n) % n;
    if (normalized && mode == 2) {
        long m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    return i < 0 ? 0 : n - 1;
}

static inline float4 cpu_tex_fetch(const cpu_texture *t, long i, long j)
{
    i = cpu_tex_address(i, (long)t->width, t->address[0], t->normalized);
    j = cpu_tex_address(j, (long)t->height, t->address[1], t->normalized);
    if (i < 0 || j < 0)
        return float4{0.0f, 0.0f, 0.0f, 0.0f};
    const unsigned char *p = t->data + ((size_t)j * t->width + (size_t)i) * t->texel_bytes;
    return float4{cpu_texel_channel(t, p, 0), cpu_texel_channel(t, p, 1),
                  cpu_texel_channel(t, p, 2), cpu_texel_channel(t, p, 3)};
}

/* A coordinate made safe to floor into a long (NaN -> 0, huge -> +-2^24). */
static inline float cpu_tex_coord(float v)
{
    if (!(v == v))
        return 0.0f;
    return fminf(fmaxf(v, -16777216.0f), 16777216.0f);
}

static inline float4 cpu_tex2d(cudaTextureObject_t obj, float x, float y)
{
    const cpu_texture *t = (const cpu_texture *)(uintptr_t)obj;
    float u = x, v = y;
    if (t->normalized) {
        u = __fmul_rn(x, (float)t->width);
        v = __fmul_rn(y, (float)t->height);
    }
    u = cpu_tex_coord(u);
    v = cpu_tex_coord(v);
    if (t->filter == 0)
        return cpu_tex_fetch(t, (long)floorf(u), (long)floorf(v));
    float ub = __fadd_rn(u, -0.5f), vb = __fadd_rn(v, -0.5f);
    float fi = floorf(ub), fj = floorf(vb);
    /* 9-bit fixed point weights, 8 fractional bits */
    float a = __fmul_rn(floorf(__fadd_rn(__fmul_rn(__fadd_rn(ub, -fi), 256.0f), 0.5f)), 0.00390625f);
    float b = __fmul_rn(floorf(__fadd_rn(__fmul_rn(__fadd_rn(vb, -fj), 256.0f), 0.5f)), 0.00390625f);
    long i = (long)fi, j = (long)fj;
    float4 t00 = cpu_tex_fetch(t, i, j), t10 = cpu_tex_fetch(t, i + 1, j);
    float4 t01 = cpu_tex_fetch(t, i, j + 1), t11 = cpu_tex_fetch(t, i + 1, j + 1);
    float w00 = __fmul_rn(1.0f - a, 1.0f - b), w10 = __fmul_rn(a, 1.0f - b);
    float w01 = __fmul_rn(1.0f - a, b), w11 = __fmul_rn(a, b);
#define CPU_BILERP(c)                                                                      \
    __fadd_rn(__fadd_rn(__fadd_rn(__fmul_rn(w00, t00.c), __fmul_rn(w10, t10.c)),           \
                        __fmul_rn(w01, t01.c)),                                            \
              __fmul_rn(w11, t11.c))
    float4 r = float4{CPU_BILERP(x), CPU_BILERP(y), CPU_BILERP(z), CPU_BILERP(w)};
#undef CPU_BILERP
    return r;
}

template <typename T> T tex2D(cudaTextureObject_t obj, float x, float y);
template <> inline float4 tex2D<float4>(cudaTextureObject_t obj, float x, float y)
{
    return cpu_tex2d(obj, x, y);
}
template <> inline float2 tex2D<float2>(cudaTextureObject_t obj, float x, float y)
{
    float4 r = cpu_tex2d(obj, x, y);
    return float2{r.x, r.y};
}
template <> inline float tex2D<float>(cudaTextureObject_t obj, float x, float y)
{
    return cpu_tex2d(obj, x, y).x;
}

/* tex1Dfetch on a texture over linear memory: texel i (rows of the replay's
 * packing, VKRR_LINEAR_ROW, hold them in order); outside [0, n) CUDA reads 0.
 * No filtering or addressing applies to linear fetches. */
static inline float4 cpu_tex1dfetch(cudaTextureObject_t obj, int i)
{
    const cpu_texture *t = (const cpu_texture *)(uintptr_t)obj;
    if (i < 0 || (unsigned)i >= t->linear_count)
        return float4{0.0f, 0.0f, 0.0f, 0.0f};
    const unsigned char *p = t->data + (size_t)i * t->texel_bytes;
    return float4{cpu_texel_channel(t, p, 0), cpu_texel_channel(t, p, 1),
                  cpu_texel_channel(t, p, 2), cpu_texel_channel(t, p, 3)};
}

template <typename T> T tex1Dfetch(cudaTextureObject_t obj, int i);
template <> inline float4 tex1Dfetch<float4>(cudaTextureObject_t obj, int i)
{
    return cpu_tex1dfetch(obj, i);
}
template <> inline float tex1Dfetch<float>(cudaTextureObject_t obj, int i)
{
    return cpu_tex1dfetch(obj, i).x;
}

/* surf2Dwrite: x is in BYTES; the value lands at texel x / texel_bytes.  An
 * out-of-range write (CUDA's default boundary mode traps) or a value whose
 * size is not the texel size is dropped and flags the surface's fault. */
template <typename T> inline void surf2Dwrite(T v, cudaSurfaceObject_t obj, int x, int y)
{
    const cpu_surface *s = (const cpu_surface *)(uintptr_t)obj;
    if (x < 0 || y < 0 || sizeof(T) != s->texel_bytes || (unsigned)x % s->texel_bytes != 0 ||
        (unsigned)x / s->texel_bytes >= s->width || (unsigned)y >= s->height) {
        s->fault->store(1, std::memory_order_relaxed);
        return;
    }
    memcpy(s->data + (size_t)y * s->width * s->texel_bytes + (unsigned)x, &v, sizeof(T));
}

#endif
