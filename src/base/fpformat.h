/* fpformat.h - the number formats vkrr compares in, each defined once: f16,
 * bf16, e4m3, e5m2 (and tf32) to and from f32 with every rounding and
 * saturation mode vkrr needs, and the flush of f32 denormals.
 *
 * Every side that computes a reference calls this: the PTX interpreter (all
 * its rounding modes go through vkrr_round_to), the CPU backend (rrref's
 * device header cuda_cpu.h: __float2half_rn, the cuda_fp8.h conversions),
 * textures (cuda_texture.c), the hardware model, compare, heatmaps and
 * synth.  The GLSL of the ports (shaders/common/half.glsl, e4m3.glsl) is the
 * one other copy, in another language; tests/test_ports_common.c checks it
 * against these over every 8- and 16-bit code.
 *
 *     uint16_t h = vkrr_f32_to_f16_rne(x);            // __float2half_rn
 *     uint8_t q = vkrr_f32_to_e4m3(x, true);          // cvt.rn.satfinite.e4m3
 *     uint32_t b = vkrr_round_to(s, e, VKRR_FF_BF16, VKRR_RM_RZ, false);
 *
 * The scalar conversions are inline: the CPU backend's kernels call them per
 * element.  NaN: f32 -> f16/bf16 gives the canonical 0x7fff, -> e4m3 0x7f
 * (what NVIDIA GPUs make); widening keeps the payload.
 * Does NOT: know about buffers or CUarray formats (cuformat.h).  Pure.
 */
#ifndef VKRR_FPFORMAT_H
#define VKRR_FPFORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An f32's bits and back (memcpy: no aliasing games). */
static inline uint32_t vkrr_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float vkrr_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* .ftz: an f32 below 2^-126 in magnitude becomes a zero of its sign. */
static inline float vkrr_ftz_f32(float x)
{
    uint32_t b = vkrr_f32_bits(x);
    return (b & 0x7f800000u) == 0 ? vkrr_f32_from_bits(b & 0x80000000u) : x;
}

/* f16 -> f32, exact (NaN payloads kept). */
static inline float vkrr_f16_to_f32(uint16_t h)
{
    /* In registers, few branches (compare decodes every element with it):
     * the exponent is rebiased by an integer add, a subnormal is normalised
     * by one exact float subtraction ((mantissa at 2^-14) - 2^-14), Inf and
     * NaN (payload kept) get the all-ones exponent, the sign is a bit. */
    uint32_t o = (uint32_t)(h & 0x7fffu) << 13, exp = o & 0x0f800000u;
    if (exp == 0x0f800000u) { /* Inf, NaN */
        o += (255u - 31u) << 23;
    } else if (exp == 0) { /* zero, subnormal */
        o += 113u << 23;
        o = vkrr_f32_bits(vkrr_f32_from_bits(o) - 0x1p-14f);
    } else {
        o += (127u - 15u) << 23;
    }
    return vkrr_f32_from_bits(o | (uint32_t)(h & 0x8000u) << 16);
}

/* f32 -> f16, round to nearest even (__float2half_rn); overflow -> Inf. */
static inline uint16_t vkrr_f32_to_f16_rne(float f)
{
    uint32_t x = vkrr_f32_bits(f), ax = x & 0x7fffffffu;
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    if (ax > 0x7f800000u)
        return 0x7fffu;
    if (ax >= 0x477ff000u) /* >= 65520, the midpoint above 65504 */
        return sign | 0x7c00u;
    if (ax >= 0x38800000u) { /* normal in f16: rebias, round the 13 dropped bits */
        uint32_t m = ax - 0x38000000u;
        m += 0xfffu + ((m >> 13) & 1u);
        return (uint16_t)(sign | (m >> 13));
    }
    if (ax <= 0x33000000u) /* <= 2^-25: ties to the even zero */
        return sign;
    uint32_t e = ax >> 23, mant = (ax & 0x7fffffu) | 0x800000u, shift = 126u - e; /* 14..24 */
    uint32_t r = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u)))
        r++;
    return (uint16_t)(sign | r);
}

/* bf16 <-> f32: exact / round to nearest even (NaN -> 0x7fff). */
static inline float vkrr_bf16_to_f32(uint16_t h)
{
    return vkrr_f32_from_bits((uint32_t)h << 16);
}
static inline uint16_t vkrr_f32_to_bf16_rne(float f)
{
    uint32_t x = vkrr_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return 0x7fffu;
    x += 0x7fffu + ((x >> 16) & 1u); /* carries into the exponent, up to Inf, as RNE must */
    return (uint16_t)(x >> 16);
}

/* e4m3 (fp8 1-4-3, bias 7, no Inf; 0x7f / 0xff NaN) -> f32, exact. */
static inline float vkrr_e4m3_to_f32(uint8_t v)
{
    uint32_t s = (uint32_t)(v & 0x80u) << 24, e = (v >> 3) & 15u, m = v & 7u;
    if (e == 15u && m == 7u)
        return vkrr_f32_from_bits(s | 0x7fc00000u);
    if (e == 0u) { /* m * 2^-9 */
        float r = (float)m * 0x1p-9f;
        return s ? -r : r;
    }
    return vkrr_f32_from_bits(s | ((e + 120u) << 23) | (m << 20));
}

/* f32 -> e4m3, round to nearest even.  satfinite: Inf and what rounds past
 * 448 become +-448 (0x7e); else they become the canonical NaN 0x7f (e4m3
 * has no Inf).  NaN -> 0x7f. */
static inline uint8_t vkrr_f32_to_e4m3(float f, bool satfinite)
{
    uint32_t x = vkrr_f32_bits(f), a = x & 0x7fffffffu, s = (x >> 24) & 0x80u, code;
    if (a > 0x7f800000u)
        return 0x7fu;
    if (a == 0x7f800000u)
        return (uint8_t)(satfinite ? s | 0x7eu : 0x7fu);
    int e = (int)(a >> 23) - 127;
    uint32_t m = a & 0x7fffffu;
    if (e >= -6) { /* e4m3 normal (or past it): keep 3 of 23 mantissa bits */
        if (e > 8)
            return (uint8_t)(satfinite ? s | 0x7eu : 0x7fu);
        uint32_t rem = m & 0xfffffu;
        code = ((uint32_t)(e + 7) << 3) | (m >> 20);
        if (rem > 0x80000u || (rem == 0x80000u && (code & 1u)))
            code++;
    } else { /* e4m3 subnormal: units of 2^-9 */
        uint32_t mm = e == -127 ? m : (m | 0x800000u), shift = (uint32_t)(14 - (e == -127 ? -126 : e));
        if (shift >= 32)
            return (uint8_t)s;
        uint32_t rem = mm & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        code = mm >> shift;
        if (rem > half || (rem == half && (code & 1u)))
            code++;
    }
    if (code > 0x7eu) /* rounds past 448 */
        return (uint8_t)(satfinite ? s | 0x7eu : 0x7fu);
    return (uint8_t)(s | code);
}
static inline uint8_t vkrr_f32_to_e4m3_satfinite(float f)
{
    return vkrr_f32_to_e4m3(f, true);
}

/* e5m2 (fp8 1-5-2) -> f32, exact: the f16 with bits v << 8. */
static inline float vkrr_e5m2_to_f32(uint8_t v)
{
    return vkrr_f16_to_f32((uint16_t)(v << 8));
}

/* ---- any format, any rounding mode ---------------------------------------- */

typedef enum vkrr_ffmt {
    VKRR_FF_F32, VKRR_FF_F16, VKRR_FF_BF16, VKRR_FF_E4M3, VKRR_FF_E5M2, VKRR_FF_TF32
} vkrr_ffmt;
/* PTX's rounding modes: to nearest even, toward zero, down, up, to nearest away. */
typedef enum vkrr_rmode { VKRR_RM_RN, VKRR_RM_RZ, VKRR_RM_RM, VKRR_RM_RP, VKRR_RM_RNA } vkrr_rmode;

/* The exact real s + e (|e| <= ulp(s)/2, as TwoSum leaves it) rounded once
 * to fmt with mode; the encoded bits (satfinite: clamp to the largest finite
 * value instead of Inf; e4m3 always, it has no Inf).  NaN -> the canonical
 * NaN of fmt. */
uint32_t vkrr_round_to(double s, double e, vkrr_ffmt fmt, vkrr_rmode mode, bool satfinite);
/* The exact value of bits in fmt (NaN and Inf kept). */
double vkrr_decode_bits(uint32_t bits, vkrr_ffmt fmt);

#ifdef __cplusplus
}
#endif

#endif
