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
 *   x, and the approximate PTX instructions ex2.approx.ftz.f32 and
 *   rsqrt.approx.ftz.f32 as the hardware model has them.
 *
 * Exact (bit for bit what CUDA does): f16 and e4m3 conversions, __hadd
 * (f32 add then RNE to f16 is exact: 24 >= 2*11+2 bits, so double rounding is
 * innocuous), the *_rn intrinsics, fmaf (glibc's fmaf is correctly rounded),
 * point sampling with unnormalized coordinates, surface writes.
 *
 * NOT known exactly (documented choices; may differ from a GPU):
 *   - ex2.approx.ftz / rsqrt.approx.ftz: the hardware model, src/hw/approx.h,
 *     defines them once (the CPU backend, the PTX interpreter and the Vulkan
 *     ports use it): the GPU's bits, as measured on it (sm_90 built in).
 *   - texture sampling and surface writes: cuda_texture.h defines them once
 *     (bilinear weights with 8 fractional bits, addressing, normalized reads;
 *     see its top block for every choice); tex2D and surf2Dwrite here call
 *     it, and so does the PTX interpreter.
 */
#ifndef VKRR_CUDA_CPU_H
#define VKRR_CUDA_CPU_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <atomic>

#include "approx.h"
#include "cuda_texture.h"
#include "host_launch.h"
#include "fpformat.h"

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
static inline unsigned __float_as_uint(float f) { return vkrr_f32_bits(f); }
static inline float __uint_as_float(unsigned u) { return vkrr_f32_from_bits(u); }
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
    return vkrr_ftz_f32(x); /* fpformat.h */
}
/* ex2.approx.ftz.f32 (see the top of this file). */
static inline float cpu_ex2_approx_ftz(float x)
{
    return vkrr_approx_ex2(x); /* src/hw/approx.h: the one definition */
}
/* rsqrt.approx.ftz.f32 (see the top of this file). */
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

/* f16 conversions: src/base/fpformat.h, the one definition (RNE; overflow
 * -> Inf; NaN -> 0x7fff, cvt.rn.f16.f32's canonical NaN). */
static inline __half __float2half_rn(float f)
{
    return __half{vkrr_f32_to_f16_rne(f)};
}
static inline float __half2float(__half h)
{
    return vkrr_f16_to_f32(h.x);
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
 * 0x7f.  Without it, overflow gives NaN (e4m3 has no Inf).  Only E4M3.
 * An f16 is exact in f32, so this is fpformat.h's f32 -> e4m3. */
static inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t sat,
                                                         __nv_fp8_interpretation_t)
{
    return vkrr_f32_to_e4m3(vkrr_f16_to_f32(x.x), sat == __NV_SATFINITE);
}
/* e4m3 -> f16, exact (0x7f / 0xff -> f16 NaN 0x7fff).  Only E4M3. */
static inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t)
{
    return __half_raw{vkrr_f32_to_f16_rne(vkrr_e4m3_to_f32(x))};
}

/* ---- textures and surfaces --------------------------------------------- */
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

/* What a texture or surface handle word points at on the CPU: the shared C
 * descriptors of cuda_texture.h (one implementation of sampling and surface
 * access, also used by the PTX interpreter; host_launch.h sets them up); a
 * surface's fault flag is the launch's. */
typedef vkrr_cutex cpu_texture;
typedef vkrr_cusurf cpu_surface;

static inline float4 cpu_tex2d(cudaTextureObject_t obj, float x, float y)
{
    float r[4];
    if (!vkrr_host_tex_ok(obj)) /* a word the capture does not declare a texture */
        return float4{0, 0, 0, 0};
    vkrr_cutex_sample((const cpu_texture *)(uintptr_t)obj, x, y, r);
    return float4{r[0], r[1], r[2], r[3]};
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

/* tex1Dfetch on a texture over linear memory (cuda_texture.h). */
static inline float4 cpu_tex1dfetch(cudaTextureObject_t obj, int i)
{
    float r[4];
    if (!vkrr_host_tex_ok(obj))
        return float4{0, 0, 0, 0};
    vkrr_cutex_fetch1d((const cpu_texture *)(uintptr_t)obj, i, r);
    return float4{r[0], r[1], r[2], r[3]};
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
    if (vkrr_host_surf_ok(obj))
        vkrr_cusurf_write((const cpu_surface *)(uintptr_t)obj, &v, (unsigned)sizeof(T), x, y,
                          VKRR_CUSURF_TRAP);
}

#endif
