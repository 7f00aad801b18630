/* mma_sum_ref.c - the pre-SIMD tensor-core sum, kept as the oracle.
 *
 * This is cuda_ref/ptx/isa/ptx_mma_sum.c's ptx_dot_sum as it was before the
 * model was rewritten in integers for speed (decoding each input through
 * vkrr_decode_bits, aligning with ldexp/ilogb/trunc in doubles, reading the
 * hardware model per element), with only its entry renamed.  It is slow and
 * simple; test_mma_sum_simd checks the fast model against it bit for bit
 * and bench/mma_sum_bench times the two.  Change it only where the model
 * itself changes (then both move together, and the test says so).
 *
 * Its comment of record (the model it follows):
 *
 * The model follows the current hardware model's architecture
 * (vkrr_hw_model_arch: the capture's GPU).  The products are exact; c and
 * every product are aligned to the largest exponent among them (a product's
 * exponent is the sum of its factors', each at least its type's least normal
 * one), each is truncated toward zero to F fraction bits of that exponent,
 * and the terms are summed exactly; the sum is rounded to d's type, an f32
 * toward zero, an f16 to nearest even; a zero result is +0.  F is 23 before
 * sm_75, 24 from sm_75 to sm_89 and 25 from sm_90.  On sm_80 to sm_89 the
 * k16 .f16/.bf16, k8 .tf32 and k32 fp8 shapes sum the two halves of k one
 * after the other, the first half's d being the second's c; sm_89's fp8
 * forms keep 13 fraction bits, of the terms and of an f32 d.  A NaN or Inf
 * among the inputs gives what IEEE's sum gives: the canonical NaN
 * (0x7fffffff, 0x7fff) or the infinity.
 *
 * The `rounded` hardware model: the exact sum rounded once: products in
 * double in k order and c last, rounded to nearest (fp8: the products summed
 * exactly, then c). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hw_model.h"
#include "mma_sum_ref.h"
#include "ptx_internal.h"

typedef struct arith {
    int frac;     /* F */
    bool split;   /* sm_80-sm_89: the listed shapes in two halves of k */
    bool ada;     /* sm_89: fp8 keeps 13 bits */
    bool rounded; /* the `rounded` model */
} arith;

static arith current_arith(void)
{
    arith a = {25, false, false, false};
    const vkrr_hw_model *m = vkrr_hw_current();
    if (m && vkrr_hw_model_rounded(m)) {
        a.rounded = true;
        return a;
    }
    const char *arch = m ? vkrr_hw_model_arch(m) : "";
    int sm = !strncmp(arch, "sm_", 3) ? atoi(arch + 3) : 90;
    if (sm < 75)
        a.frac = 23;
    else if (sm < 90) {
        a.frac = 24;
        a.split = sm >= 80;
        a.ada = sm == 89;
    }
    return a;
}

static double dot_val(uint32_t v, ptx_dot_type t)
{
    switch (t) {
    case DOT_F16: return (double)vkrr_f16_to_f32((uint16_t)v);
    case DOT_BF16: return (double)ptx_f(v << 16);
    case DOT_TF32: return (double)ptx_f(v & ~0x1fffu); /* the register's low 13 bits ignored */
    case DOT_E4M3: return vkrr_decode_bits(v & 0xffu, FMT_E4M3);
    default: return vkrr_decode_bits(v & 0xffu, FMT_E5M2);
    }
}

/* the least normal exponent of each type */
static int dot_emin(ptx_dot_type t)
{
    static const int e[] = {-14, -126, -126, -6, -14};
    return e[t];
}

/* a term's exponent: its value's, at least its type's least normal one */
static int term_exp(double x, int emin)
{
    int e = ilogb(x);
    return e < emin ? emin : e;
}

/* The fused sum of c and a[k] b[k], k in [k0, k1), as a double (exact: at
 * most 33 products of F + 2 bits). */
static double fused(const double *a, const double *b, unsigned k0, unsigned k1, int amin, int bmin,
                    double c, int cmin, int frac)
{
    int maxe = INT_MIN;
    if (c != 0.0)
        maxe = term_exp(c, cmin);
    for (unsigned k = k0; k < k1; k++)
        if (a[k] != 0.0 && b[k] != 0.0) {
            int e = term_exp(a[k], amin) + term_exp(b[k], bmin);
            maxe = e > maxe ? e : maxe;
        }
    if (maxe == INT_MIN)
        return 0.0;
    int64_t s = c != 0.0 ? (int64_t)trunc(ldexp(c, frac - maxe)) : 0;
    for (unsigned k = k0; k < k1; k++)
        if (a[k] != 0.0 && b[k] != 0.0)
            s += (int64_t)trunc(ldexp(a[k] * b[k], frac - maxe));
    return ldexp((double)s, maxe - frac);
}

/* d's bits of a fused sum: f16 to nearest even, f32 toward zero (e8m13: to
 * 13 fraction bits), a zero +0 */
static uint32_t fused_out(double v, bool d16, bool e8m13)
{
    uint32_t bits;
    if (d16)
        bits = vkrr_round_to(v, 0.0, FMT_F16, RND_RN, false);
    else if (fabs(v) >= 0x1p128)
        bits = v > 0 ? 0x7f800000u : 0xff800000u;
    else {
        if (e8m13 && v != 0.0) {
            double q = ldexp(1.0, term_exp(v, -126) - 13);
            v = trunc(v / q) * q;
        }
        bits = vkrr_round_to(v, 0.0, FMT_F32, RND_RZ, false);
    }
    return (bits & (d16 ? 0x7fffu : 0x7fffffffu)) ? bits : 0u;
}

/* NaN or Inf among c and the products (what IEEE's sum gives), else false */
static bool special(const double *a, const double *b, unsigned k0, unsigned k1, double c, bool d16,
                    uint32_t *bits)
{
    double v = c;
    for (unsigned k = k0; k < k1; k++)
        v += a[k] * b[k];
    if (isnan(v))
        *bits = d16 ? 0x7fffu : 0x7fffffffu;
    else if (isinf(v))
        *bits = d16 ? (v > 0 ? 0x7c00u : 0xfc00u) : (v > 0 ? 0x7f800000u : 0xff800000u);
    return !isfinite(v);
}

/* e4m3 / e5m2 code -> integer k and scale exponent (value = k * 2^sc); false
 * for NaN / Inf */
static bool fp8_fixed(uint8_t code, ptx_dot_type t, int64_t *k, int *sc)
{
    bool e4 = t == DOT_E4M3;
    int ebits = e4 ? 4 : 5, mb = e4 ? 3 : 2, bias = e4 ? 7 : 15;
    unsigned e = (code >> mb) & ((1u << ebits) - 1u), mant = code & ((1u << mb) - 1u);
    if (e4 ? ((code & 0x7fu) == 0x7fu) : (e == 31u))
        return false;
    int64_t v = e == 0 ? (int64_t)mant : (int64_t)((1u << mb) | mant) << (e - 1);
    *k = (code & 0x80u) ? -v : v;
    *sc = (1 - bias) - mb; /* e4m3: -9, e5m2: -16 */
    return true;
}

/* The `rounded` model: the exact sum rounded once to nearest. */
static uint32_t rounded_sum(const ptx_dot *d, const double *a, const double *b, double cv)
{
    int fmt = d->d16 ? FMT_F16 : FMT_F32;
    bool fp8 = d->ta == DOT_E4M3 || d->ta == DOT_E5M2;
    if (fp8 && isfinite(cv)) { /* S * 2^sc exactly as hi + lo, then + c by TwoSum */
        __int128 s = 0;
        int sc = 0;
        bool ok = true;
        for (unsigned k = 0; k < d->n && ok; k++) {
            int64_t xa = 0, xb = 0;
            int sa = 0, sb = 0;
            ok = fp8_fixed((uint8_t)d->a[k], d->ta, &xa, &sa) && fp8_fixed((uint8_t)d->b[k], d->tb, &xb, &sb);
            s += (__int128)xa * xb;
            sc = sa + sb; /* the same for every product of these two types */
        }
        if (ok) {
            double hi = (double)s, lo = (double)(s - (__int128)hi);
            hi = ldexp(hi, sc);
            lo = ldexp(lo, sc);
            double x = hi + cv, bb = x - hi;
            double e = (hi - (x - bb)) + (cv - bb) + lo;
            if (x == 0.0 && e == 0.0)
                x = (s == 0 && signbit(cv)) ? cv : 0.0;
            return vkrr_round_to(x, e, fmt, RND_RN, false);
        }
    }
    double v = 0.0;
    for (unsigned k = 0; k < d->n; k++)
        v += a[k] * b[k];
    return vkrr_round_to(v + cv, 0.0, fmt, RND_RN, false);
}

uint32_t mma_sum_ref(const ptx_dot *d)
{
    double a[32], b[32];
    for (unsigned k = 0; k < d->n; k++) {
        a[k] = dot_val(d->a[k], d->ta);
        b[k] = dot_val(d->b[k], d->tb);
    }
    double cv = d->c16 ? (double)vkrr_f16_to_f32((uint16_t)d->c) : (double)ptx_f(d->c);
    arith ar = current_arith();
    if (ar.rounded)
        return rounded_sum(d, a, b, cv);
    bool fp8 = d->ta == DOT_E4M3 || d->ta == DOT_E5M2, e8m13 = ar.ada && fp8 && !d->d16;
    int frac = ar.ada && fp8 ? 13 : ar.frac, amin = dot_emin(d->ta), bmin = dot_emin(d->tb);
    unsigned halves = ar.split && d->split ? 2 : 1, step = d->n / halves;
    int cmin = d->c16 ? -14 : -126;
    uint32_t bits = 0;
    for (unsigned h = 0; h < halves; h++) {
        unsigned k0 = h * step, k1 = k0 + step;
        if (special(a, b, k0, k1, cv, d->d16, &bits))
            return bits;
        bits = fused_out(fused(a, b, k0, k1, amin, bmin, cv, cmin, frac), d->d16, e8m13);
        /* the first half's d is the second half's c */
        cv = d->d16 ? (double)vkrr_f16_to_f32((uint16_t)bits) : (double)ptx_f(bits);
        cmin = d->d16 ? -14 : -126;
    }
    return bits;
}
