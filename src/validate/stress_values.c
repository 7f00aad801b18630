/* stress_values.c - the element values vkrr stress feeds a kernel: a value
 * in any element type (rounded to nearest, integers clamped), the special
 * values each type's edge cases live at, and a value as a person reads it. */
#include "stress_values.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fpformat.h"

bool vkrr_stress_is_float(vkrr_dtype t)
{
    return t == VKRR_DT_F16 || t == VKRR_DT_BF16 || t == VKRR_DT_F32 || t == VKRR_DT_F64 ||
           t == VKRR_DT_E4M3 || t == VKRR_DT_E5M2;
}

/* v in type t, rounded to nearest (integers: clamped). */
uint64_t vkrr_stress_encode(vkrr_dtype t, double v)
{
    switch (t) {
    case VKRR_DT_F32: {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    case VKRR_DT_F64: {
        uint64_t b;
        memcpy(&b, &v, 8);
        return b;
    }
    case VKRR_DT_F16: return vkrr_round_to(v, 0, VKRR_FF_F16, VKRR_RM_RN, false);
    case VKRR_DT_BF16: return vkrr_round_to(v, 0, VKRR_FF_BF16, VKRR_RM_RN, false);
    case VKRR_DT_E4M3: return vkrr_round_to(v, 0, VKRR_FF_E4M3, VKRR_RM_RN, true);
    case VKRR_DT_E5M2: return vkrr_round_to(v, 0, VKRR_FF_E5M2, VKRR_RM_RN, false);
    default: {
        unsigned bits = 8 * vkrr_dtype_size(t);
        bool sgn = t == VKRR_DT_S8 || t == VKRR_DT_S16 || t == VKRR_DT_S32 || t == VKRR_DT_S64;
        double hi = sgn ? ldexp(1, (int)bits - 1) - 1 : ldexp(1, (int)bits) - 1;
        double lo = sgn ? -ldexp(1, (int)bits - 1) : 0;
        v = v != v ? 0 : v < lo ? lo : v > hi ? hi : floor(v);
        uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1u;
        return (uint64_t)(int64_t)v & mask;
    }
    }
}

/* The values a kernel's edge cases live at, per type. */
uint32_t vkrr_stress_specials(vkrr_dtype t, uint64_t *out)
{
    static const uint64_t f32[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                   0x7f7fffffu, 0xff7fffffu, 1, 0x80000001u, 0x00800000u,
                                   0x007fffffu, 0x3f800000u, 0xbf800000u, 0x477fe000u,
                                   0x477ff000u, 0xc77fe000u, 0x43e00000u, 0x43e80000u,
                                   0xc3e00000u, 0x38800000u, 0x33800000u};
    static const uint64_t f16[] = {0, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7bff, 0xfbff, 1, 0x8001,
                                   0x0400, 0x03ff, 0x3c00, 0xbc00, 0x5f00, 0x5f40, 0xdf00};
    static const uint64_t bf16[] = {0, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7f7f, 0xff7f, 1,
                                    0x8001, 0x0080, 0x3f80, 0xbf80, 0x43e0, 0x477f};
    static const uint64_t e4m3[] = {0, 0x80, 0x7f, 0xff, 0x7e, 0xfe, 1, 0x81, 0x08, 0x07,
                                    0x38, 0xb8};
    static const uint64_t e5m2[] = {0, 0x80, 0x7c, 0xfc, 0x7e, 0x7b, 0xfb, 1, 0x81, 0x04,
                                    0x3c, 0xbc};
    static const uint64_t f64[] = {0, 0x8000000000000000ull, 0x7ff0000000000000ull,
                                   0xfff0000000000000ull, 0x7ff8000000000000ull,
                                   0x7fefffffffffffffull, 1, 0x0010000000000000ull,
                                   0x3ff0000000000000ull, 0xbff0000000000000ull};
    const uint64_t *v;
    uint32_t n;
    switch (t) {
    case VKRR_DT_F32: v = f32, n = sizeof f32 / 8; break;
    case VKRR_DT_F16: v = f16, n = sizeof f16 / 8; break;
    case VKRR_DT_BF16: v = bf16, n = sizeof bf16 / 8; break;
    case VKRR_DT_E4M3: v = e4m3, n = sizeof e4m3 / 8; break;
    case VKRR_DT_E5M2: v = e5m2, n = sizeof e5m2 / 8; break;
    case VKRR_DT_F64: v = f64, n = sizeof f64 / 8; break;
    default: {
        unsigned bits = 8 * vkrr_dtype_size(t);
        uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1u, top = 1ull << (bits - 1);
        uint64_t ints[] = {0, 1, 2, mask, top, top - 1, mask - 1};
        memcpy(out, ints, sizeof ints);
        return 7;
    }
    }
    memcpy(out, v, n * 8);
    return n;
}

void vkrr_stress_format(vkrr_dtype t, uint64_t bits, char *buf, size_t cap)
{
    double v = vkrr_dtype_to_double(t, &bits);
    if (vkrr_stress_is_float(t))
        snprintf(buf, cap, "%.9g (0x%0*llx)", v, (int)(2 * vkrr_dtype_size(t)),
                 (unsigned long long)bits);
    else
        snprintf(buf, cap, "%.0f", v);
}
