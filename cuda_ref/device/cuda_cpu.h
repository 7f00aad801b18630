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
 * For kernels whose threads meet (cpu_coop.h runs their blocks as fibers):
 *   __syncthreads, __shfl_xor_sync, and the warp instructions rrref's
 *   attention block names in inline PTX (cpu_mma_m16n8k32_e4m3_f16,
 *   cpu_movmatrix_trans, cpu_cvt_e4m3x2_f16x2), each through the one
 *   definition the PTX interpreter uses (cuda_ref/device/ptx_models.h: the
 *   tensor-core sum is the hardware model's); tex.2d with s32 coordinates,
 *   sust.b.2d.v4.b16.zero, and rcp.approx.ftz.f32 / div.approx.ftz.f32.
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
#include "cpu_coop.h"
#include "cuda_texture.h"
#include "host_launch.h"
#include "fpformat.h"
#include "ptx_models.h"

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
/* rcp.approx.ftz.f32, the hardware model's (approx.h). */
static inline float cpu_rcp_approx_ftz(float x)
{
    return vkrr_approx_f32(VKRR_APPROX_RCP, x, 1);
}
/* div.approx.ftz.f32: approx.h's stand-in, the correctly rounded quotient
 * with subnormal inputs and result flushed (what the PTX interpreter
 * computes; exact on the GPU too where b is a power of two). */
static inline float cpu_div_approx_ftz(float a, float b)
{
    return cpu_ftz(cpu_ftz(a) / cpu_ftz(b));
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

/* tex.2d.v4.f32.s32 (with or without .base: one mip level): the texel at
 * integer (x, y), never filtered, whatever the sampler's filter and
 * coordinate mode (cuda_texture.h), addressed with its modes. */
static inline float4 cpu_tex2d_texel(cudaTextureObject_t obj, int x, int y)
{
    uint32_t r[4];
    if (!vkrr_host_tex_ok(obj))
        return float4{0, 0, 0, 0};
    vkrr_cutex_at at = {};
    at.geom = VKRR_GEOM_2D;
    at.icoords = true;
    at.ic[0] = x;
    at.ic[1] = y;
    vkrr_cutex_lookup((const cpu_texture *)(uintptr_t)obj, &at, false, r);
    return float4{__uint_as_float(r[0]), __uint_as_float(r[1]), __uint_as_float(r[2]),
                  __uint_as_float(r[3])};
}

/* sust.b.2d.v4.b16.zero: four b16 at byte x; out of range the store is
 * dropped (.zero), any other bad access faults as surf2Dwrite's. */
static inline void cpu_sust_b16x4_zero(cudaSurfaceObject_t obj, int x_bytes, int y, ushort4 v)
{
    if (vkrr_host_surf_ok(obj))
        vkrr_cusurf_write((const cpu_surface *)(uintptr_t)obj, &v, 8u, x_bytes, y, VKRR_CUSURF_ZERO);
}

/* ---- threads that meet (cpu_coop.h) ------------------------------------- */
static inline void __syncthreads() { cpu_coop_syncthreads(); }

/* cvt.rn.satfinite{.relu}.e4m3x2.f16x2: a lane's own, no collective. */
static inline unsigned short cpu_cvt_e4m3x2_f16x2(unsigned a, bool relu)
{
    return vkrr_ptx_cvt_f8x2_f16x2(a, false, relu);
}

/* shfl.sync.bfly.b32 d, v, lane_mask, c, 0xffffffff (every lane takes part;
 * c as nvcc makes it from width: ((32 - width) << 8) | 31). */
struct cpu_shfl_in {
    uint32_t v, b, c;
};
static void cpu_shfl_bfly_all(const void *in, void *out, void *)
{
    const cpu_shfl_in *x = (const cpu_shfl_in *)in;
    uint32_t *d = (uint32_t *)out;
    for (uint32_t l = 0; l < 32; l++) {
        bool ok;
        d[l] = x[vkrr_ptx_shfl_source(2, l, x[l].b, x[l].c, &ok)].v;
    }
}
static inline unsigned __shfl_xor_sync(unsigned, unsigned v, int lane_mask, int width = 32)
{
    cpu_shfl_in in = {v, (uint32_t)lane_mask, ((32u - (uint32_t)width) << 8) | 31u};
    unsigned d;
    cpu_coop_warp(&in, sizeof in, &d, sizeof d, cpu_shfl_bfly_all, nullptr);
    return d;
}
static inline float __shfl_xor_sync(unsigned mask, float v, int lane_mask, int width = 32)
{
    return __uint_as_float(__shfl_xor_sync(mask, __float_as_uint(v), lane_mask, width));
}

/* movmatrix.sync.aligned.m8n8.trans.b16 */
static void cpu_movmatrix_all(const void *in, void *out, void *)
{
    vkrr_ptx_movmatrix_trans((const uint32_t *)in, (uint32_t *)out);
}
static inline unsigned cpu_movmatrix_trans(unsigned a)
{
    unsigned d;
    cpu_coop_warp(&a, sizeof a, &d, sizeof d, cpu_movmatrix_all, nullptr);
    return d;
}

/* mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {d0, d1}, {a0..a3},
 * {b0, b1}, {c0, c1}: the tensor-core sum of the current hardware model. */
struct cpu_mma_in {
    uint32_t a[4], b[2], c[2];
};
static void cpu_mma_e4m3_all(const void *in, void *out, void *)
{
    const cpu_mma_in *x = (const cpu_mma_in *)in;
    uint32_t a[32][4], b[32][2], c[32][2];
    for (unsigned l = 0; l < 32; l++) {
        memcpy(a[l], x[l].a, sizeof a[l]);
        memcpy(b[l], x[l].b, sizeof b[l]);
        memcpy(c[l], x[l].c, sizeof c[l]);
    }
    vkrr_ptx_mma_e4m3_f16(a, b, c, (uint32_t(*)[2])out);
}
static inline void cpu_mma_m16n8k32_e4m3_f16(unsigned d[2], const unsigned a[4], const unsigned b[2],
                                             const unsigned c[2])
{
    cpu_mma_in in = {{a[0], a[1], a[2], a[3]}, {b[0], b[1]}, {c[0], c[1]}};
    cpu_coop_warp(&in, sizeof in, d, 2 * sizeof(unsigned), cpu_mma_e4m3_all, nullptr);
}

#endif
