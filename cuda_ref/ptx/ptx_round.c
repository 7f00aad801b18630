/* ptx_round.c - rounding, done once: an exact real (a double s plus the
 * error term e that TwoSum / a residual leaves) rounded to f32, f16, bf16,
 * tf32, e4m3 or e5m2 with any PTX rounding mode.  Every non-default rounding
 * mode of f32/f16/bf16 arithmetic and every narrowing conversion goes
 * through it, so there is no double rounding anywhere. */
#include <math.h>

#include "ptx_internal.h"

typedef struct fmtinfo {
    int p, emin, emax, ebits;
    bool has_inf;
    uint32_t nan;
    double maxv;
} fmtinfo;

static const fmtinfo fmts[] = {
    [FMT_F32] = {24, -126, 127, 8, true, 0x7fffffffu, 0x1.fffffep127},
    [FMT_F16] = {11, -14, 15, 5, true, 0x7fffu, 65504.0},
    [FMT_BF16] = {8, -126, 127, 8, true, 0x7fffu, 0x1.fep127},
    [FMT_E4M3] = {4, -6, 8, 4, false, 0x7fu, 448.0},
    [FMT_E5M2] = {3, -14, 15, 5, true, 0x7fu, 57344.0},
    [FMT_TF32] = {11, -126, 127, 8, true, 0x7fffffffu, 0x1.ffcp127},
};

static uint32_t encode(double r, bool neg, int fmt)
{
    const fmtinfo *F = &fmts[fmt];
    if (fmt == FMT_F32 || fmt == FMT_TF32) {
        uint32_t b = (uint32_t)ptx_fb((float)r); /* r is representable: exact */
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

uint32_t ptx_round_fmt(double s, double e, int fmt, int mode, bool satfinite)
{
    const fmtinfo *F = &fmts[fmt];
    if (isnan(s) || isnan(e))
        return F->nan;
    bool neg = signbit(s);
    double a = fabs(s), ae = neg ? -e : e;
    /* magnitude rounding direction: -1 toward zero, +1 away, 0 nearest */
    int dir = 0;
    if (mode == RND_RZ || (mode == RND_RM && !neg) || (mode == RND_RP && neg))
        dir = -1;
    else if ((mode == RND_RP && !neg) || (mode == RND_RM && neg))
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
        else if (mode == RND_RNA)
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

double ptx_decode_small(uint32_t bits, int fmt)
{
    const fmtinfo *F = &fmts[fmt];
    if (fmt == FMT_F32 || fmt == FMT_TF32)
        return (double)ptx_f(bits);
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

/* RNE f32 -> f16 on the bits; overflow -> Inf; NaN -> 0x7fff. */
uint16_t ptx_f32_to_f16_rn(float f)
{
    uint32_t b = (uint32_t)ptx_fb(f), a = b & 0x7fffffffu;
    uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
    if (a > 0x7f800000u)
        return 0x7fffu;
    if (a >= 0x477ff000u)
        return (uint16_t)(sign | 0x7c00u);
    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, h, rem, halfway;
    if (a < 0x38800000u) {
        int shift = 126 - (int)e;
        if (shift > 24)
            return sign;
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
    return (uint16_t)(sign | h);
}

float ptx_f16_to_f32(uint16_t h)
{
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 0x3ffu;
    if (e == 31u)
        return ptx_f(s | 0x7f800000u | (m << 13));
    if (e == 0u) {
        float v = (float)m * 5.9604644775390625e-08f;
        return s ? -v : v;
    }
    return ptx_f(s | ((e + 112u) << 23) | (m << 13));
}

float ptx_canon_f32(float x)
{
    return x != x ? ptx_f(0x7fffffffu) : x;
}

/* The sign of an exact zero sum: IEEE 754. */
static double zero_sum(double a, double b, int mode)
{
    if (a == 0.0 && b == 0.0 && signbit(a) == signbit(b))
        return a;
    return mode == RND_RM ? -0.0 : 0.0;
}

/* Exact a + b = s + e (Knuth's TwoSum; exact barring overflow). */
static void two_sum(double a, double b, double *s, double *e)
{
    double x = a + b, bb = x - a;
    *s = x;
    *e = (a - (x - bb)) + (b - bb);
}

static float rounded_f32(double s, double e, int mode)
{
    return ptx_f(ptx_round_fmt(s, e, FMT_F32, mode, false));
}

float ptx_add_f32(float a, float b, int mode)
{
    if (mode == RND_RN)
        return ptx_canon_f32(a + b);
    double s, e;
    two_sum((double)a, (double)b, &s, &e);
    if (!isfinite(s))
        return ptx_canon_f32((float)s);
    if (s == 0.0 && e == 0.0)
        return (float)zero_sum(a, b, mode);
    return rounded_f32(s, e, mode);
}

float ptx_mul_f32(float a, float b, int mode)
{
    if (mode == RND_RN)
        return ptx_canon_f32(a * b);
    double p = (double)a * (double)b; /* exact: 48 bits */
    if (!isfinite(p))
        return ptx_canon_f32((float)p);
    return rounded_f32(p, 0.0, mode);
}

float ptx_fma_f32(float a, float b, float c, int mode)
{
    if (mode == RND_RN)
        return ptx_canon_f32(fmaf(a, b, c));
    double p = (double)a * (double)b, s, e;
    two_sum(p, (double)c, &s, &e);
    if (!isfinite(s) || !isfinite(p))
        return ptx_canon_f32(fmaf(a, b, c));
    if (s == 0.0 && e == 0.0)
        return (float)zero_sum(p, c, mode);
    return rounded_f32(s, e, mode);
}

float ptx_div_f32(float a, float b, int mode)
{
    if (mode == RND_RN)
        return ptx_canon_f32(a / b);
    double q = (double)a / (double)b;
    if (!isfinite(q) || q == 0.0)
        return ptx_canon_f32((float)q);
    double r = fma(-q, (double)b, (double)a); /* exact remainder */
    return rounded_f32(q, r / (double)b, mode);
}

float ptx_sqrt_f32(float a, int mode)
{
    if (mode == RND_RN)
        return ptx_canon_f32(sqrtf(a));
    double q = sqrt((double)a);
    if (!isfinite(q) || q == 0.0)
        return ptx_canon_f32((float)q);
    double r = fma(-q, q, (double)a);
    return rounded_f32(q, r / (2.0 * q), mode);
}

uint16_t ptx_fma_small(double a, double b, double c, int fmt, int mode)
{
    double p = a * b, s, e; /* exact for f16 and bf16 inputs */
    if (isnan(p) || isnan(c))
        return (uint16_t)fmts[fmt].nan;
    two_sum(p, c, &s, &e);
    if (!isfinite(s) || !isfinite(p)) {
        double v = p + c;
        return (uint16_t)ptx_round_fmt(v, 0.0, fmt, mode, false);
    }
    if (s == 0.0 && e == 0.0)
        return (uint16_t)ptx_round_fmt(zero_sum(p, c, mode), 0.0, fmt, mode, false);
    return (uint16_t)ptx_round_fmt(s, e, fmt, mode, false);
}

double ptx_rint_mode(double x, int mode)
{
    switch (mode) {
    case RND_RZ: return trunc(x);
    case RND_RM: return floor(x);
    case RND_RP: return ceil(x);
    case RND_RNA: return round(x);
    default: return nearbyint(x);
    }
}
