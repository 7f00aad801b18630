/* ptx_round.c - f32 arithmetic in any rounding mode: computed exactly, then
 * rounded once by src/base/fpformat.h's vkrr_round_to (the one definition
 * of rounding to every format). */
#include <math.h>

#include "ptx_internal.h"

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
    return ptx_f(vkrr_round_to(s, e, FMT_F32, mode, false));
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
        return (uint16_t)vkrr_round_to(NAN, 0.0, fmt, mode, false); /* the canonical NaN */
    two_sum(p, c, &s, &e);
    if (!isfinite(s) || !isfinite(p)) {
        double v = p + c;
        return (uint16_t)vkrr_round_to(v, 0.0, fmt, mode, false);
    }
    if (s == 0.0 && e == 0.0)
        return (uint16_t)vkrr_round_to(zero_sum(p, c, mode), 0.0, fmt, mode, false);
    return (uint16_t)vkrr_round_to(s, e, fmt, mode, false);
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
