/* fpformat.c - rounding to any of vkrr's number formats with any PTX
 * rounding mode, done once (fpformat.h): an exact real (a double s plus the
 * error term e a TwoSum or residual leaves) rounded to f32, f16, bf16, tf32,
 * e4m3 or e5m2.  Every non-default rounding mode of the PTX interpreter's
 * f32/f16/bf16 arithmetic and every narrowing conversion goes through it,
 * so there is no double rounding anywhere. */
#include "fpformat.h"

#include <math.h>

typedef struct fmtinfo {
    int p, emin, emax, ebits;
    bool has_inf;
    uint32_t nan;
    double maxv;
} fmtinfo;

static const fmtinfo fmts[] = {
    [VKRR_FF_F32] = {24, -126, 127, 8, true, 0x7fffffffu, 0x1.fffffep127},
    [VKRR_FF_F16] = {11, -14, 15, 5, true, 0x7fffu, 65504.0},
    [VKRR_FF_BF16] = {8, -126, 127, 8, true, 0x7fffu, 0x1.fep127},
    [VKRR_FF_E4M3] = {4, -6, 8, 4, false, 0x7fu, 448.0},
    [VKRR_FF_E5M2] = {3, -14, 15, 5, true, 0x7fu, 57344.0},
    [VKRR_FF_TF32] = {11, -126, 127, 8, true, 0x7fffffffu, 0x1.ffcp127},
};

static uint32_t encode(double r, bool neg, vkrr_ffmt fmt)
{
    const fmtinfo *F = &fmts[fmt];
    if (fmt == VKRR_FF_F32 || fmt == VKRR_FF_TF32) {
        uint32_t b = (uint32_t)vkrr_f32_bits((float)r); /* r is representable: exact */
        return b | (neg ? 0x80000000u : 0u);
    }
    int mb = F->p - 1, bias = (1 << (F->ebits - 1)) - 1;
    uint32_t sign = neg ? 1u << (F->ebits + mb) : 0u, bits;
    if (isinf(r)) {
        bits = ((1u << F->ebits) - 1u) << mb;
    } else if (r < ldexp(1.0, F->emin)) {
        bits = (uint32_t)ldexp(r, -(F->emin - mb)); /* subnormal (or zero) */
    } else {
        int ex;
        frexp(r, &ex);
        int E = ex - 1;
        uint32_t mant = (uint32_t)ldexp(r, mb - E) - (1u << mb);
        bits = ((uint32_t)(E + bias) << mb) | mant;
    }
    return sign | bits;
}

uint32_t vkrr_round_to(double s, double e, vkrr_ffmt fmt, vkrr_rmode mode, bool satfinite)
{
    const fmtinfo *F = &fmts[fmt];
    if (isnan(s) || isnan(e))
        return F->nan;
    bool neg = signbit(s);
    double a = fabs(s), ae = neg ? -e : e;
    /* magnitude rounding direction: -1 toward zero, +1 away, 0 nearest */
    int dir = 0;
    if (mode == VKRR_RM_RZ || (mode == VKRR_RM_RM && !neg) || (mode == VKRR_RM_RP && neg))
        dir = -1;
    else if ((mode == VKRR_RM_RP && !neg) || (mode == VKRR_RM_RM && neg))
        dir = 1;
    if (isinf(a)) {
        if (!F->has_inf)
            return satfinite ? encode(F->maxv, neg, fmt) : F->nan;
        return satfinite ? encode(F->maxv, neg, fmt) : encode(INFINITY, neg, fmt);
    }
    if (a == 0.0 && ae == 0.0)
        return encode(0.0, neg, fmt);
    int ex;
    frexp(a, &ex);
    int E = ex - 1;
    if (E < F->emin)
        E = F->emin;
    double q = ldexp(1.0, E - (F->p - 1));
    double t = a / q, k = floor(t), frac = t - k, eq = ae / q, r;
    if (dir == 0) {
        bool up;
        if (frac > 0.5)
            up = true;
        else if (frac < 0.5)
            up = false;
        else if (eq != 0.0)
            up = eq > 0.0;
        else if (mode == VKRR_RM_RNA)
            up = true;
        else
            up = fmod(k, 2.0) != 0.0;
        r = (k + (up ? 1.0 : 0.0)) * q;
    } else if (dir < 0) {
        if (frac == 0.0 && eq < 0.0) {
            /* just below k*q: one step down, in the binade below when k*q
             * is a power of two */
            double step = (k == ldexp(1.0, F->p - 1) && E > F->emin) ? q / 2 : q;
            r = k * q - step;
        } else {
            r = k * q;
        }
    } else {
        r = (frac > 0.0 || eq > 0.0) ? (k + 1.0) * q : k * q;
    }
    if (r > F->maxv) {
        if (satfinite || dir < 0)
            r = F->maxv;
        else if (!F->has_inf)
            return F->nan;
        else
            r = INFINITY;
    }
    return encode(r, neg, fmt);
}

double vkrr_decode_bits(uint32_t bits, vkrr_ffmt fmt)
{
    const fmtinfo *F = &fmts[fmt];
    if (fmt == VKRR_FF_F32 || fmt == VKRR_FF_TF32)
        return (double)vkrr_f32_from_bits(bits);
    int mb = F->p - 1, bias = (1 << (F->ebits - 1)) - 1;
    uint32_t emask = (1u << F->ebits) - 1u;
    bool neg = (bits >> (F->ebits + mb)) & 1u;
    uint32_t ef = (bits >> mb) & emask, m = bits & ((1u << mb) - 1u);
    double v;
    if (!F->has_inf && ef == emask && m == (1u << mb) - 1u)
        return NAN;
    if (F->has_inf && ef == emask)
        v = m ? NAN : INFINITY;
    else if (ef == 0)
        v = ldexp((double)m, F->emin - mb);
    else
        v = ldexp((double)(m | (1u << mb)), (int)ef - bias - mb);
    return neg ? -v : v;
}

