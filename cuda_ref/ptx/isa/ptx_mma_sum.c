/* ptx_mma_sum.c - how a tensor core sums the floating-point mma and wmma
 * forms (f16, bf16, tf32, e4m3 and e5m2 inputs): d = c + sum a[k] b[k].
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
 * (0x7fffffff, 0x7fff) or the infinity.  This is MMA-Sim's model
 * (Microsoft's bit-accurate tensor-core reference, which probed these GPUs);
 * vkrr has not yet checked it on a GPU of its own.
 *
 * How it is computed: in integers, because a kernel of mma instructions
 * spends nearly all its time here (4,096 products an m16n8k32 fp8 mma).
 * Every factor is a magnitude m < 2^(mb+1) (mb its type's fraction bits), a
 * term exponent e (its exponent, at least its type's least normal one) and
 * a sign: its value is m 2^(e - mb).  A product's term, aligned to the
 * largest exponent X and truncated to F bits, is then
 *     (ma mb << (F - mba - mbb)) >> (X - ea - eb)
 * of magnitude (shifting a magnitude truncates toward zero), under 2^(F+2)
 * <= 2^27: an int32 shifted by an int32 in a loop with no branches, which
 * the compiler vectorises (with AVX2 where the CPU has it: the entries are
 * cloned for it).  The terms sum in an int64 and the sum, times 2^(X - F),
 * is rounded to d's type by integer shifts.  A whole tile none of whose
 * terms the alignment cuts (tile_uncut: its factors and c of one scale, as
 * a layer's are) has the exact sum for each output, and that is summed in
 * doubles instead, then rounded the same way.  tests/mma_sum_ref.c keeps the
 * model as it was written first, in doubles (ldexp, ilogb, trunc): the
 * oracle test_mma_sum_simd checks this against bit for bit.
 *
 * The `rounded` hardware model keeps vkrr's earlier sum, the exact one
 * rounded once: products in double in k order and c last, rounded to
 * nearest (fp8: the products summed exactly, then c). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "ptx_internal.h"
#include "ptx_mma_sum.h"
#include "tensorcore.h"

/* The entries that run the loops, built twice on x86-64 (AVX2 and the
 * baseline) and chosen once by the CPU (an ifunc: glibc); the code is the
 * same C (VKRR_MMA_SUM_NO_CLONES: the baseline alone, which
 * test_mma_sum_portable checks).  GCC only: clang 14's clones of these
 * functions leave their callers unresolved at link time (the fuzz build).
 * Whatever they call in the loops is inlined into them: baseline code
 * called from AVX2 code costs more than the sums (SSE/AVX switches). */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_attribute) && !defined(__clang__) && \
    !defined(VKRR_MMA_SUM_NO_CLONES)
#if __has_attribute(target_clones)
#define SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef SIMD_CLONES
#define SIMD_CLONES
#endif
#define INLINE static inline __attribute__((always_inline))

ptx_dot_arith ptx_dot_arith_current(void)
{
    vkrr_tensorcore t = vkrr_tensorcore_current(); /* the architecture's, src/hw/tensorcore.c */
    return (ptx_dot_arith){t.frac, t.split, t.ada, t.rounded};
}

/* ---- factors ------------------------------------------------------------------- */

/* A format's fields: the register's bits >> shift are sign, ebits of biased
 * exponent, mb of fraction.  e4m3 has no Inf: only its all-ones code is NaN. */
typedef struct fmt {
    unsigned shift, mb, ebits;
    int bias;
    bool e4m3;
} fmt;
static const fmt fmts[] = {
    [DOT_F16] = {0, 10, 5, 15, false}, [DOT_BF16] = {0, 7, 8, 127, false},
    [DOT_TF32] = {13, 10, 8, 127, false}, /* the register's low 13 bits ignored */
    [DOT_E4M3] = {0, 3, 4, 7, true},      [DOT_E5M2] = {0, 2, 5, 15, false},
};
static const fmt fmt_f32 = {0, 23, 8, 127, false};

/* A zero's exponent: far below any product's (at least -252), so it never
 * sets the largest, and its term (m = 0) is 0 whatever the shift. */
#define ZERO_EXP (-(1 << 20))
enum { FINITE, INF, NAN_ };

/* Up to 32 factors decoded: value (-1)^s m 2^(e - mb); a NaN or Inf has
 * m 0 and its class in cls, and its bit k set in special. */
typedef struct facs {
    int32_t m[32], e[32], s[32], cls[32]; /* s: 0 or -1 */
    uint32_t special;
} facs;

/* Eight lanes of 32 bits: the tile's vectors (below) and the decoding's */
typedef int32_t v8 __attribute__((vector_size(32)));
typedef uint32_t v8u __attribute__((vector_size(32)));
#define VSPLAT(x) ((v8){0} + (int32_t)(x))

/* Eight factors of format F (the v8u X) decoded, lane by lane, into the
 * v8s M, E, S and CLS: value (-1)^s m 2^(e - mb), a zero's e ZERO_EXP, a
 * NaN or Inf m 0 and its class in CLS.  Every step a select, no branch.  A
 * macro (as VMAX below): a function returning vectors would be an ABI of
 * its own in the baseline build.  decode and rows_double both use it: the
 * formats' one decoding. */
#define DECODE8(X, F, M, E, S, CLS)                                                                 \
    do {                                                                                            \
        const fmt *f_ = (F);                                                                        \
        v8u x_ = (X) >> f_->shift, emask_ = (v8u){0} + ((1u << f_->ebits) - 1u);                    \
        v8u ef_ = (x_ >> f_->mb) & emask_, mant_ = x_ & ((1u << f_->mb) - 1u);                      \
        v8 normal_ = ef_ != 0;                                                                      \
        v8 m_ = (v8)mant_ | (normal_ & VSPLAT(1 << f_->mb));                                        \
        v8 e_ = (normal_ & ((v8)ef_ - f_->bias)) | (~normal_ & VSPLAT(1 - f_->bias));               \
        v8 nonfinite_ = f_->e4m3 ? (v8)((x_ & 0x7fu) == 0x7fu) : (v8)(ef_ == emask_);               \
        v8 nan_ = f_->e4m3 ? VSPLAT(-1) : (v8)(mant_ != 0);                                         \
        (CLS) = nonfinite_ & ((nan_ & VSPLAT(NAN_)) | (~nan_ & VSPLAT(INF)));                       \
        m_ &= ~nonfinite_;                                                                          \
        (M) = m_;                                                                                   \
        (E) = ((m_ != 0) & e_) | (~(m_ != 0) & VSPLAT(ZERO_EXP));                                   \
        (S) = -(v8)((x_ >> (f_->mb + f_->ebits)) & 1u);                                            \
    } while (0)

INLINE void decode(const uint32_t *restrict v, unsigned n, const fmt *restrict f, facs *restrict o)
{
    uint32_t special = 0;
    for (unsigned k0 = 0; k0 < n; k0 += 8) { /* o's arrays hold 32: a last part of 8 fits */
        unsigned c = n - k0 < 8 ? n - k0 : 8;
        v8u x = {0}; /* past n: +0 (m 0, e ZERO_EXP, FINITE) */
        if (c == 8)
            memcpy(&x, v + k0, sizeof x);
        else
            for (unsigned j = 0; j < c; j++)
                x[j] = v[k0 + j];
        v8 m, e, s, cls;
        DECODE8(x, f, m, e, s, cls);
        memcpy(o->m + k0, &m, sizeof m);
        memcpy(o->e + k0, &e, sizeof e);
        memcpy(o->s + k0, &s, sizeof s);
        memcpy(o->cls + k0, &cls, sizeof cls);
        for (unsigned j = 0; j < c; j++)
            special |= (uint32_t)(cls[j] != FINITE) << (k0 + j);
    }
    o->special = special;
}

/* decode with n a constant for the shapes' counts (as fused) */
INLINE void decode_n(const uint32_t *v, unsigned n, ptx_dot_type t, facs *o)
{
    const fmt *f = &fmts[t];
    switch (n) {
    case 4: decode(v, 4, f, o); break;
    case 8: decode(v, 8, f, o); break;
    case 16: decode(v, 16, f, o); break;
    case 32: decode(v, 32, f, o); break;
    default: decode(v, n, f, o); break;
    }
}

/* c (or, in a split sum, the first half's d) decoded */
typedef struct cval {
    int32_t m, e, s, mb;
    int cls;
} cval;

INLINE cval c_decode(uint32_t bits, bool is16)
{
    const fmt *f = is16 ? &fmts[DOT_F16] : &fmt_f32;
    facs one;
    decode(&bits, 1, f, &one);
    return (cval){one.m[0], one.e[0], one.s[0], (int32_t)f->mb, one.cls[0]};
}

/* ---- one sum --------------------------------------------------------------------- */

/* What a sum of the non-rounded model needs besides its inputs */
typedef struct sumcfg {
    int frac;   /* F */
    int lsh;    /* F - mba - mbb (>= 0: F >= 13 where fp8, 23 elsewhere) */
    bool d16;   /* d .f16 */
    bool e8m13; /* sm_89 fp8, f32 d: kept to 13 fraction bits */
} sumcfg;

/* The largest product exponent of n (a zero's far below) */
INLINE int32_t max_exp(const int32_t *ea, const int32_t *eb, unsigned n)
{
    int32_t mx = 2 * ZERO_EXP;
    for (unsigned k = 0; k < n; k++) {
        int32_t t = ea[k] + eb[k];
        mx = t > mx ? t : mx;
    }
    return mx;
}

/* The products' terms at 2^(maxe - F), each truncated toward zero, summed */
INLINE int64_t sum_terms(const facs *a, const facs *b, unsigned k0, unsigned n, int32_t maxe, int lsh)
{
    const int32_t *ma = a->m + k0, *ea = a->e + k0, *sa = a->s + k0;
    const int32_t *mb = b->m + k0, *eb = b->e + k0, *sb = b->s + k0;
    int64_t s = 0;
    for (unsigned k = 0; k < n; k++) {
        int32_t r = maxe - (ea[k] + eb[k]), sg = sa[k] ^ sb[k];
        r = r < 31 ? r : 31; /* q < 2^27: 31 leaves 0 */
        int32_t t = (ma[k] * mb[k] << lsh) >> r;
        s += (t ^ sg) - sg;
    }
    return s;
}

/* any NaN or Inf among the factors k0..k0+n */
INLINE bool any_special(const facs *a, const facs *b, unsigned k0, unsigned n)
{
    return ((uint64_t)(a->special | b->special) >> k0 & ((UINT64_C(1) << n) - 1u)) != 0;
}

/* c's term at 2^(maxe - F), truncated toward zero (c's exponent <= maxe) */
INLINE int64_t c_term(const cval *c, int32_t maxe, int frac)
{
    if (!c->m)
        return 0;
    int sh = c->e - c->mb + frac - maxe;
    int64_t v = sh >= 0 ? (int64_t)c->m << sh : -sh > 62 ? 0 : (int64_t)c->m >> -sh;
    return c->s ? -v : v;
}

/* m >> sh rounded to nearest even (sh < 0: shifted left, exact) */
INLINE uint64_t shift_rne(uint64_t m, int sh)
{
    if (sh <= 0)
        return m << -sh;
    if (sh >= 64)
        return 0; /* m < 2^63: under half */
    uint64_t q = m >> sh, rem = m & ((UINT64_C(1) << sh) - 1u), half = UINT64_C(1) << (sh - 1);
    return q + (rem > half || (rem == half && (q & 1u)));
}

/* d's bits of s 2^E: f16 to nearest even (Inf past its largest), f32 toward
 * zero (e8m13: to 13 fraction bits; Inf from 2^128), a zero +0 */
INLINE uint32_t out_bits(int64_t s, int E, bool d16, bool e8m13)
{
    if (s == 0)
        return 0;
    uint32_t sign = s < 0;
    uint64_t m = s < 0 ? -(uint64_t)s : (uint64_t)s;
    int ve = 63 - __builtin_clzll(m) + E; /* the value's exponent */
    if (d16) {
        if (ve > 15)
            return sign << 15 | 0x7c00u;
        int ue = (ve < -14 ? -14 : ve) - 10; /* its last bit's */
        /* 0x7c00, Inf, where it rounds up past 65504 */
        uint64_t bits = ((uint64_t)(ue + 24) << 10) + shift_rne(m, ue - E);
        return bits ? sign << 15 | (uint32_t)bits : 0;
    }
    if (ve >= 128)
        return sign << 31 | 0x7f800000u;
    int ue = (ve < -126 ? -126 : ve) - (e8m13 ? 13 : 23);
    int sh = ue - E;
    uint64_t q = sh <= 0 ? m << -sh : sh >= 64 ? 0 : m >> sh;
    if (e8m13)
        q <<= 10, ue -= 10;
    uint32_t bits = ((uint32_t)(ue + 149) << 23) + (uint32_t)q;
    return bits ? sign << 31 | bits : 0;
}

/* What IEEE's sum of c and the products k0..k0+n gives when one of them is
 * NaN or Inf: the canonical NaN (NaN, Inf x 0, Inf - Inf), else the Inf. */
static uint32_t special_bits(const facs *a, const facs *b, unsigned k0, unsigned n, const cval *c, bool d16)
{
    bool nan = c->cls == NAN_, pos = c->cls == INF && !c->s, neg = c->cls == INF && c->s;
    for (unsigned k = k0; k < k0 + n; k++) {
        int ca = a->cls[k], cb = b->cls[k];
        if (ca == FINITE && cb == FINITE)
            continue;
        if (ca == NAN_ || cb == NAN_ || (ca == FINITE && !a->m[k]) || (cb == FINITE && !b->m[k]))
            nan = true;
        else if (a->s[k] ^ b->s[k])
            neg = true;
        else
            pos = true;
    }
    if (nan || (pos && neg))
        return d16 ? 0x7fffu : 0x7fffffffu;
    return d16 ? (pos ? 0x7c00u : 0xfc00u) : (pos ? 0x7f800000u : 0xff800000u);
}

/* d's bits of c + the products k0..k0+n, fused; *special when a NaN or Inf
 * made them */
INLINE uint32_t fused_n(const facs *a, const facs *b, unsigned k0, unsigned n, const cval *c,
                        const sumcfg *g, bool *special)
{
    *special = c->cls != FINITE || any_special(a, b, k0, n);
    if (*special)
        return special_bits(a, b, k0, n, c, g->d16);
    int32_t maxe = max_exp(a->e + k0, b->e + k0, n);
    if (c->m && c->e > maxe)
        maxe = c->e;
    int64_t s = c_term(c, maxe, g->frac) + sum_terms(a, b, k0, n, maxe, g->lsh);
    return out_bits(s, maxe - g->frac, g->d16, g->e8m13);
}

/* fused_n with n a constant for the shapes' counts: loops the compiler
 * unrolls and vectorises whole */
INLINE uint32_t fused(const facs *a, const facs *b, unsigned k0, unsigned n, const cval *c, const sumcfg *g,
                      bool *special)
{
    switch (n) {
    case 4: return fused_n(a, b, k0, 4, c, g, special);
    case 8: return fused_n(a, b, k0, 8, c, g, special);
    case 16: return fused_n(a, b, k0, 16, c, g, special);
    case 32: return fused_n(a, b, k0, 32, c, g, special);
    default: return fused_n(a, b, k0, n, c, g, special);
    }
}

/* One output: c, then each half of k in turn (the first half's d the
 * second's c); a NaN or Inf ends it. */
INLINE uint32_t sum_one(const facs *a, const facs *b, unsigned n, unsigned halves, uint32_t cbits, bool c16,
                        const sumcfg *g)
{
    cval c = c_decode(cbits, c16);
    unsigned step = n / halves;
    uint32_t bits = 0;
    for (unsigned h = 0; h < halves; h++) {
        bool special;
        bits = fused(a, b, h * step, step, &c, g, &special);
        if (special)
            return bits;
        c = c_decode(bits, g->d16);
    }
    return bits;
}

static sumcfg sum_config(ptx_dot_type ta, ptx_dot_type tb, bool d16, const ptx_dot_arith *ar, unsigned *halves,
                         bool split)
{
    bool fp8 = ta == DOT_E4M3 || ta == DOT_E5M2;
    int frac = ar->ada && fp8 ? 13 : ar->frac;
    *halves = ar->split && split ? 2 : 1;
    return (sumcfg){frac, frac - (int)fmts[ta].mb - (int)fmts[tb].mb, d16, ar->ada && fp8 && !d16};
}

/* ---- the `rounded` model ------------------------------------------------------- */

/* factor k's value, exact (NaN and Inf as they are) */
static double fac_val(const facs *f, unsigned k, const fmt *ft)
{
    double v = f->cls[k] == NAN_ ? NAN : f->cls[k] == INF ? INFINITY : ldexp(f->m[k], f->e[k] - (int)ft->mb);
    return f->s[k] ? -v : v;
}

/* The exact sum rounded once to nearest: fp8 products summed exactly (in
 * units of the least product), then c; the others in doubles in k order,
 * then c. */
static uint32_t rounded_sum(const facs *a, const facs *b, ptx_dot_type ta, ptx_dot_type tb, unsigned n,
                            uint32_t cbits, bool c16, bool d16)
{
    int out = d16 ? FMT_F16 : FMT_F32;
    const fmt *fa = &fmts[ta], *fb = &fmts[tb];
    double cv = c16 ? (double)vkrr_f16_to_f32((uint16_t)cbits) : (double)ptx_f(cbits);
    bool fp8 = ta == DOT_E4M3 || ta == DOT_E5M2, special = any_special(a, b, 0, n);
    if (fp8 && isfinite(cv) && !special) { /* S 2^sc exactly as hi + lo, then + c by TwoSum */
        int ua = 1 - fa->bias, ub = 1 - fb->bias; /* the least exponents */
        __int128 s = 0;
        for (unsigned k = 0; k < n; k++)
            if (a->m[k] && b->m[k]) {
                __int128 p = (__int128)(a->m[k] * b->m[k]) << (a->e[k] - ua + b->e[k] - ub);
                s += a->s[k] ^ b->s[k] ? -p : p;
            }
        int sc = ua + ub - (int)fa->mb - (int)fb->mb;
        double hi = (double)s, lo = (double)(s - (__int128)hi);
        hi = ldexp(hi, sc);
        lo = ldexp(lo, sc);
        double x = hi + cv, bb = x - hi;
        double e = (hi - (x - bb)) + (cv - bb) + lo;
        if (x == 0.0 && e == 0.0)
            x = (s == 0 && signbit(cv)) ? cv : 0.0;
        return vkrr_round_to(x, e, out, RND_RN, false);
    }
    double v = 0.0;
    for (unsigned k = 0; k < n; k++)
        v += fac_val(a, k, fa) * fac_val(b, k, fb);
    return vkrr_round_to(v + cv, 0.0, out, RND_RN, false);
}

/* ---- the entries ------------------------------------------------------------------- */

SIMD_CLONES uint32_t ptx_dot_sum_in(const ptx_dot *d, const ptx_dot_arith *ar)
{
    facs a, b;
    decode_n(d->a, d->n, d->ta, &a);
    decode_n(d->b, d->n, d->tb, &b);
    if (ar->rounded)
        return rounded_sum(&a, &b, d->ta, d->tb, d->n, d->c, d->c16, d->d16);
    unsigned halves;
    sumcfg g = sum_config(d->ta, d->tb, d->d16, ar, &halves, d->split);
    return sum_one(&a, &b, d->n, halves, d->c, d->c16, &g);
}

uint32_t ptx_dot_sum(const ptx_dot *d)
{
    ptx_dot_arith ar = ptx_dot_arith_current();
    return ptx_dot_sum_in(d, &ar);
}

/* ---- a tile, eight outputs at a time ---------------------------------------------- */

/* Eight columns of a tile transposed, [k][column]: the loops below run over
 * the eight outputs of a row, one vector each step (GCC's vector extension:
 * AVX2 in the avx2 clone, SSE or scalar code elsewhere, the same integers),
 * with no sum across a vector (fused_n's loops reduce over k: a max and a
 * sum across lanes each output).  Columns past the tile's are zeros. */
typedef struct cols8 {
    v8 m[32], e[32], s[32];
} cols8;

INLINE void cols8_of(const facs *b, unsigned n, unsigned k, cols8 *o)
{
    for (unsigned j = 0; j < 8; j++) {
        const facs *f = &b[j < n ? j : 0];
        int32_t keep = j < n ? -1 : 0; /* a column past the tile's: m 0, s 0 */
        for (unsigned kk = 0; kk < k; kk++) {
            o->m[kk][j] = f->m[kk] & keep;
            o->e[kk][j] = keep ? f->e[kk] : ZERO_EXP;
            o->s[kk][j] = f->s[kk] & keep;
        }
    }
}

/* the larger and the smaller of two v8 lane by lane (macros: a function
 * returning a v8 would be an ABI of its own in the baseline build) */
#define VMAX(x, y) (((x) & ((x) > (y))) | ((y) & ~((x) > (y))))
#define VMIN(x, y) (((x) & ((x) < (y))) | ((y) & ~((x) < (y))))

/* c of eight outputs (an f16 or an f32 each), decoded by DECODE8; *bad -1
 * where c is NaN or Inf (its m 0) */
typedef struct c8 {
    v8 m, e, s;
    int mb;
} c8;

INLINE void c8_decode(const v8 *bits, bool is16, c8 *c, v8 *bad)
{
    const fmt *f = is16 ? &fmts[DOT_F16] : &fmt_f32;
    v8 cls;
    DECODE8((v8u)*bits, f, c->m, c->e, c->s, cls);
    *bad = cls != VSPLAT(FINITE);
    c->mb = (int)f->mb;
}

/* Four lanes of 64 bits, and of 32 */
typedef uint64_t u4 __attribute__((vector_size(32)));
typedef int64_t s4 __attribute__((vector_size(32)));
typedef double d4 __attribute__((vector_size(32)));
typedef int32_t i4 __attribute__((vector_size(16)));
#define USPLAT(x) ((u4){0} + (uint64_t)(x))
#define SSPLAT(x) ((s4){0} + (int64_t)(x))

/* out_bits of four sums s = c + p + q (int32 parts) at 2^E, lanes lo..lo+4
 * of eight.  s is exact in a double (|s| < 2^34), whose exponent is s's
 * leading bit and whose 53-bit significand m is |s| shifted up to it: the
 * result is out_bits's, from m at 2^(ve - 52) (ve the value's exponent)
 * rather than from |s| at 2^E, the same bits.  Every shift is of at least
 * 29 (f32) or 42 (f16) bits to the right: none is to the left. */
/* d's bits of four exact values v 2^E (v normal doubles or zeros) */
INLINE void round4(const d4 *v, const i4 *E, bool d16, bool e8m13, uint32_t *bits)
{
    i4 e4 = *E;
    u4 b;
    memcpy(&b, v, 32);
    u4 sign = b >> 63, zero = (b << 1) == USPLAT(0);
    u4 m = (b & USPLAT((UINT64_C(1) << 52) - 1u)) | USPLAT(UINT64_C(1) << 52);
    s4 sve = (s4)((b >> 52) & USPLAT(0x7ffu)) - 1023 + __builtin_convertvector(e4, s4);
    u4 r;
    if (d16) {
        s4 ue = ((sve > -14) & sve) | (~(sve > -14) & SSPLAT(-14));
        ue -= 10;
        s4 sh = ue - (sve - 52);
        sh = ((sh > 63) & 63) | (~(sh > 63) & sh);
        u4 ush = (u4)sh, t = m >> ush, rem = m & ((USPLAT(1) << ush) - 1u), half = USPLAT(1) << (ush - 1u);
        t -= (u4)((s4)rem > (s4)half) | ((u4)(rem == half) & (u4)-(s4)(t & 1u)); /* compares give -1 */
        r = (u4)((ue + 24) << 10) + t;
        u4 inf = (u4)(sve > 15);
        r = (inf & USPLAT(0x7c00u)) | (~inf & r);
        r = (u4)(r != 0) & ((sign << 15) | r);
    } else {
        s4 ue = ((sve > -126) & sve) | (~(sve > -126) & SSPLAT(-126));
        ue -= e8m13 ? 13 : 23;
        s4 sh = ue - (sve - 52);
        sh = ((sh > 63) & 63) | (~(sh > 63) & sh);
        u4 t = m >> (u4)sh;
        if (e8m13)
            t <<= 10, ue -= 10;
        r = (u4)((ue + 149) << 23) + t;
        r &= USPLAT(0xffffffffu);
        u4 inf = (u4)(sve > 127);
        r = (inf & USPLAT(0x7f800000u)) | (~inf & r);
        r = (u4)(r != 0) & ((sign << 31) | r);
    }
    r &= ~zero; /* s = 0: +0 */
    for (unsigned j = 0; j < 4; j++)
        bits[j] = (uint32_t)r[j];
}

INLINE void out_bits4(const v8 *c, const v8 *p, const v8 *q, const v8 *E, unsigned lo, bool d16, bool e8m13,
                      uint32_t *bits)
{
    i4 c4, p4, q4, e4;
    memcpy(&c4, (const int32_t *)c + lo, 16);
    memcpy(&p4, (const int32_t *)p + lo, 16);
    memcpy(&q4, (const int32_t *)q + lo, 16);
    memcpy(&e4, (const int32_t *)E + lo, 16);
    d4 d = __builtin_convertvector(c4, d4) + __builtin_convertvector(p4, d4) + __builtin_convertvector(q4, d4);
    round4(&d, &e4, d16, e8m13, bits);
}

/* fused_n for row a against eight columns, products k0..k0+n, each c
 * finite (as c8_decode gives them): the same
 * integers (the largest exponent, the terms truncated at it, their exact
 * sum), so the same bits.  c's term is under 2^(F+1) (its exponent is at
 * most the largest); 16 products' terms of under 2^27 each sum in an int32
 * exactly. */
INLINE void fused8(const facs *a, const cols8 *b, unsigned k0, unsigned n, const c8 *c, const sumcfg *g,
                   uint32_t *bits)
{
    v8 mx = VSPLAT(2 * ZERO_EXP);
    for (unsigned k = k0; k < k0 + n; k++)
        mx = VMAX(mx, a->e[k] + b->e[k]);
    mx = VMAX(mx, c->e); /* a zero c's exponent is far below */
    v8 sh = c->e - c->mb + g->frac - mx;
    v8 ct = (c->m << VMAX(sh, VSPLAT(0))) >> VMIN(VMAX(-sh, VSPLAT(0)), VSPLAT(31));
    ct = (ct ^ c->s) - c->s;
    /* product k's term, signed (q < 2^27: a shift of 31 leaves 0) */
#define TERM(k)                                                                                   \
    ((((a->m[k] << g->lsh) * b->m[k]) >> VMIN(mx - (a->e[k] + b->e[k]), VSPLAT(31))) ^ (a->s[k] ^ b->s[k])) - \
        (a->s[k] ^ b->s[k])
    v8 lo = {0}, hi = {0}; /* products k0..k0+16, and the rest: two loops, each sum in a register */
    unsigned mid = n < 16 ? k0 + n : k0 + 16;
    for (unsigned k = k0; k < mid; k++)
        lo += TERM(k);
    for (unsigned k = mid; k < k0 + n; k++)
        hi += TERM(k);
#undef TERM
    v8 E = mx - g->frac;
    out_bits4(&ct, &lo, &hi, &E, 0, g->d16, g->e8m13, bits);
    out_bits4(&ct, &lo, &hi, &E, 4, g->d16, g->e8m13, bits + 4);
}

/* fused8 with n a constant for the shapes' counts */
INLINE void fused8_k(const facs *a, const cols8 *b, unsigned k0, unsigned n, const c8 *c, const sumcfg *g,
                     uint32_t *bits)
{
    switch (n) {
    case 4: fused8(a, b, k0, 4, c, g, bits); break;
    case 8: fused8(a, b, k0, 8, c, g, bits); break;
    case 16: fused8(a, b, k0, 16, c, g, bits); break;
    case 32: fused8(a, b, k0, 32, c, g, bits); break;
    default: fused8(a, b, k0, n, c, g, bits); break;
    }
}

/* Row i of the tile against columns j0..j0+nj (nj <= 8), as sum_one gives
 * each: an output a NaN or Inf reaches (a factor, c, a split's first half)
 * is summed by sum_one itself. */
INLINE void row8(const ptx_dot_tile *t, const facs *a, const facs *b, const cols8 *bt, unsigned i, unsigned j0,
                 unsigned nj, unsigned halves, const sumcfg *g)
{
    v8 cb = {0}, bad;
    for (unsigned j = 0; j < nj; j++)
        cb[j] = (int32_t)t->c[i * t->n + j0 + j];
    c8 c;
    c8_decode(&cb, t->c16, &c, &bad);
    uint32_t bits[8];
    unsigned step = t->k / halves;
    for (unsigned h = 0; h < halves; h++) {
        fused8_k(a, bt, h * step, step, &c, g, bits);
        if (h + 1 < halves) { /* the first half's d is the second's c */
            v8 nb;
            for (unsigned j = 0; j < 8; j++)
                nb[j] = (int32_t)bits[j];
            v8 bad2;
            c8_decode(&nb, g->d16, &c, &bad2);
            bad |= bad2;
        }
    }
    for (unsigned j = 0; j < nj; j++) {
        unsigned o = i * t->n + j0 + j;
        bool slow = bad[j] || a->special || b[j0 + j].special;
        t->d[o] = slow ? sum_one(a, &b[j0 + j], t->k, halves, t->c[o], t->c16, g) : bits[j];
    }
}

/* ---- a tile that cuts no term: ptx_mma_uncut.h (tile_uncut) ------------------ */

#include "ptx_mma_uncut.h"

static _Atomic bool try_every;

void ptx_dot_tile_try_every(bool on)
{
    atomic_store(&try_every, on);
}

/* A tile's bytes (ptx_dot_tile.a8, b8) as the words the usual path reads */
INLINE const ptx_dot_tile *tile_words(const ptx_dot_tile *t, ptx_dot_tile *w, uint32_t *a, uint32_t *b)
{
    if (!t->a8 && !t->b8)
        return t;
    *w = *t;
    if (t->a8)
        for (unsigned i = 0; i < t->m * t->k; i++)
            a[i] = t->a8[i];
    if (t->b8)
        for (unsigned i = 0; i < t->n * t->k; i++)
            b[i] = t->b8[i];
    w->a = t->a8 ? a : t->a;
    w->b = t->b8 ? b : t->b;
    w->a8 = w->b8 = NULL;
    return w;
}

SIMD_CLONES void ptx_dot_tile_sum(const ptx_dot_tile *t0, const ptx_dot_arith *ar)
{
    /* A tile that is not uncut costs its try (a sixth of the usual path);
     * after one such, the thread's next 15 tiles go straight the usual way
     * (unless ptx_dot_tile_try_every).  Both ways give the same bits: this
     * changes the time alone. */
    static _Thread_local unsigned skip_uncut;
    unsigned halves;
    sumcfg g = sum_config(t0->ta, t0->tb, t0->d16, ar, &halves, t0->split);
    if (!ar->rounded && halves == 1) {
        if (skip_uncut && !atomic_load_explicit(&try_every, memory_order_relaxed))
            skip_uncut--;
        else if (tile_uncut(t0, &g))
            return;
        else
            skip_uncut = 15;
    }
    ptx_dot_tile words;
    uint32_t aw[32 * 32], bw[32 * 32];
    const ptx_dot_tile *t = tile_words(t0, &words, aw, bw);
    facs a[32], b[32]; /* rows and columns, decoded once */
    for (unsigned i = 0; i < t->m; i++)
        decode_n(t->a + i * t->k, t->k, t->ta, &a[i]);
    for (unsigned j = 0; j < t->n; j++)
        decode_n(t->b + j * t->k, t->k, t->tb, &b[j]);
    if (ar->rounded) {
        for (unsigned i = 0; i < t->m; i++)
            for (unsigned j = 0; j < t->n; j++)
                t->d[i * t->n + j] = rounded_sum(&a[i], &b[j], t->ta, t->tb, t->k, t->c[i * t->n + j], t->c16,
                                                 t->d16);
        return;
    }
    cols8 bt;
    for (unsigned j0 = 0; j0 < t->n; j0 += 8) {
        unsigned nj = t->n - j0 < 8 ? t->n - j0 : 8;
        cols8_of(&b[j0], nj, t->k, &bt);
        for (unsigned i = 0; i < t->m; i++)
            row8(t, &a[i], b, &bt, i, j0, nj, halves, &g);
    }
}
