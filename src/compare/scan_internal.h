/* scan_internal.h - what compare_scan.c and compare_f16.c share (internal
 * to compare/): the scan's context, the classes of a pair (compare.h), the
 * loads.  compare_scan.c cuts a run into chunks and runs the element loops;
 * compare_f16.c is the f16 loop. */
#ifndef VKRR_SCAN_INTERNAL_H
#define VKRR_SCAN_INTERNAL_H

#include "compare_scan.h"

#include <math.h>
#include <string.h>


/* The histogram of the reference's codes is HIST_WAYS histograms, summed
 * when flushed; f16_block counts element j in way j % HIST_WAYS.  Neighbours
 * in an image often have the same code, and one counter incremented element
 * after element is a chain through memory (a store, then a load of it, some
 * five cycles an element). */
#define HIST_WAYS 4u

typedef struct scanctx {
    vkrr_dtype dtype;
    unsigned size;         /* bytes per element */
    const uint8_t *a, *b;  /* reference, candidate */
    uint64_t n, chunk, nchunks;
    const double *tab;     /* 1- and 2-byte types but f16 */
    bool f16;              /* f16 decodes in registers (vkrr_f16_to_f32) */
    bool simd;             /* f16 in blocks with exact sums (f16_block) */
    bool flt;              /* has ULPs */
    uint32_t signbit;      /* of a code, float types */
    uint64_t sentinel;     /* a whole element of VKRR_SENTINEL_BYTE; 2^32: none */
    bool use_abs;
    double atol, rtol;
    int64_t max_ulp;       /* < 0: not used */
    uint32_t codes;        /* 1- and 2-byte types: 256 or 65,536, else 0 */
    vkrr_scan *parts;      /* one per chunk */
} scanctx;

static inline void note_ref(vkrr_scan *p, double r)
{
    if (!isfinite(r))
        return;
    double a = fabs(r);
    if (a > p->peak)
        p->peak = a;
    if (!p->have_ref || r < p->rmin)
        p->rmin = r;
    if (!p->have_ref || r > p->rmax)
        p->rmax = r;
    p->have_ref = true;
}

static inline void note_bad(vkrr_scan *p, uint64_t i)
{
    if (p->first_bad == UINT64_MAX)
        p->first_bad = i;
}

static inline int64_t sm_index(uint32_t bits, uint32_t signbit)
{
    int64_t mag = (int64_t)(bits & (signbit - 1u));
    return (bits & signbit) ? -mag : mag;
}

/* The classes of a pair whose codes differ, before the numeric one: true when
 * the pair was classified here (unwritten, NaN or Inf on one side), false for
 * a numeric pair.  *exact is set for a pair that matches by value (NaN on both
 * sides). */
static inline bool special(vkrr_scan *p, uint64_t i, uint32_t y, uint64_t sentinel, double r,
                           double c, bool *exact)
{
    *exact = false;
    if (y == sentinel) {
        p->unwritten++;
        note_bad(p, i);
        note_ref(p, r);
        return true;
    }
    bool rn = isnan(r), cn = isnan(c);
    if (rn || cn || isinf(r) || isinf(c)) {
        if ((rn && cn) || r == c) {
            *exact = true;
            return true;
        }
        if (rn || cn)
            p->nan_mm++;
        else
            p->inf_mm++;
        note_bad(p, i);
        note_ref(p, r);
        return true;
    }
    return false;
}

/* A numeric pair that differs, d apart (64-bit integers: taken in integers,
 * then rounded); ulp < 0: no ULP distance. */
static inline void numeric_d(const scanctx *k, vkrr_scan *p, uint64_t i, double r, double c,
                             double d, int64_t ulp)
{
    p->nnum++;
    p->sum_abs += d;
    p->sum_sq += d * d;
    if (d > p->max_abs) {
        p->max_abs = d;
        p->max_idx = i;
        p->max_ref = r;
        p->max_cand = c;
    }
    if (ulp >= 0) {
        if (ulp > p->ulp_seen)
            p->ulp_seen = ulp;
        p->w1 += ulp <= 1;
        p->w4 += ulp <= 4;
    }
    bool ok = (k->use_abs && d <= k->atol + k->rtol * fabs(r)) ||
              (k->max_ulp >= 0 && ulp >= 0 && ulp <= k->max_ulp);
    if (!ok) {
        p->oot++;
        note_bad(p, i);
    }
}

static inline void numeric(const scanctx *k, vkrr_scan *p, uint64_t i, double r, double c,
                           int64_t ulp)
{
    numeric_d(k, p, i, r, c, fabs(r - c), ulp);
}

static inline int64_t ulp_of(const scanctx *k, uint32_t x, uint32_t y)
{
    if (!k->flt)
        return -1;
    int64_t u = sm_index(x, k->signbit) - sm_index(y, k->signbit);
    return u < 0 ? -u : u;
}

/* A pair of 1- or 2-byte codes that differ, with their values.  Matching and
 * numeric pairs add the reference's code to hist (its statistics are summed
 * from there). */
static inline __attribute__((always_inline)) void
table_pair(const scanctx *k, vkrr_scan *p, uint32_t *hist, uint64_t i, uint32_t x, uint32_t y,
           double r, double c)
{
    bool exact;
    if (special(p, i, y, k->sentinel, r, c, &exact)) {
        if (exact) {
            p->exact++;
            hist[x]++;
        }
        return;
    }
    hist[x]++;
    numeric(k, p, i, r, c, ulp_of(k, x, y));
}

static inline uint16_t ld16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2); /* little-endian hosts, like CUDA */
    return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint32_t code16(const uint8_t *p, uint64_t i) { return ld16(p + 2 * i); }

/* The f16 loop (compare_f16.c) over [lo, hi) of a chunk, and, once every
 * slice of the chunk [lo, hi) is scanned, its sums made final. */
void vkrr_scan_f16(const scanctx *k, vkrr_scan *p, uint32_t *hist, uint64_t lo, uint64_t hi);
void vkrr_scan_f16_sums(const scanctx *k, vkrr_scan *p, uint64_t lo, uint64_t hi);

#endif
