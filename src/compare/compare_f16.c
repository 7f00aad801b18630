/* compare_f16.c - the f16 element loop of vkrr_compare (compare_scan.h). */
#include "scan_internal.h"
#include "fpformat.h"

#include <pthread.h>
#include <stdlib.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define VKRR_SCAN_AVX2 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define VKRR_SCAN_AVX2 0
#endif


/* f16 pairs in one binade (same sign and exponent, finite) are most of what
 * a port gets wrong.  There the error is |x - y| ULPs of that binade, a
 * product exact in a double (11 bits times a power of two), and the ULP
 * distance is the difference of the codes: no decode, no table.
 *
 * Exact sums.  Every f16 is a multiple of 2^-24, so every difference d is a
 * whole number of units of 2^-24 (below 2^40), and the statistics must stay
 * those of the double sums of d and d * d in element order.  Those sums
 * never round when every term is a double (d always is; d * d is checked)
 * and the total is below 2^53 of the lowest bit any term has (the partial
 * sums are smaller and have no lower bit, so each is a double too), which
 * is so for any error a port makes short of thousands an element.  Then any
 * order gives the same doubles, and the scan sums blocks of elements in four
 * lanes at a time, with no branch: a chain of double adds costs four cycles
 * an element, and held a compare that differs everywhere to half of cmp's
 * speed.  vkrr_scan_f16_sums checks the condition when a chunk ends (the final sums
 * reach 2^53 of the lowest bit whenever an addition rounded, rounding being
 * monotonic) and sums a chunk where it fails again in element order.
 *
 * A block with a pair f16_block does not handle alone (across binades, Inf,
 * NaN, unwritten; out of an atol/rtol tolerance) goes through f16_run and
 * table_pair element by element.  f16_run scans until such a pair and makes
 * no call, so every running value stays in a register (a value live across
 * a call is kept on the stack by the compiler, a store-to-load chain through
 * memory on every element).  It also stops after a pair with a new largest
 * error (the caller records where). */
typedef struct f16run {
    double sum_abs, sum_sq, max_abs;
    uint64_t exact, oot, first_bad;
    uint64_t w14;      /* within 1 ULP in the low half, within 4 in the high (< 2^22 each) */
    uint32_t ulp_seen;
} f16run;

/* By ULP distance u (1..1023 within a binade): u as a double and its w14
 * increment, two loads in place of a conversion and two compares. */
typedef struct f16ulp {
    double u;
    uint64_t w14;
} f16ulp;

static f16ulp f16_ulps[1024];
static pthread_once_t f16_ulps_once = PTHREAD_ONCE_INIT;

static void f16_ulps_build(void)
{
    for (uint32_t u = 0; u < 1024; u++)
        f16_ulps[u] = (f16ulp){(double)u, (uint64_t)(u <= 1) | (uint64_t)(u <= 4) << 32};
}

static inline bool f16_binade(uint32_t x, uint32_t y)
{
    return !((x ^ y) & 0xfc00u) && ((x >> 10) & 31u) != 31u;
}

/* A ULP of binade e (the exponent field) in units of 2^-24, as a shift. */
static inline uint32_t f16_ulp_shift(uint32_t e)
{
    return e - (e != 0);
}

static __attribute__((noinline)) uint64_t f16_run(const scanctx *k, uint32_t *hist,
                                                  const double *ulp, f16run *r, uint64_t i,
                                                  uint64_t hi)
{
    const uint8_t *a = k->a, *b = k->b;
    /* u <= ulp_ok is within the ULP tolerance; u >= 1 here, so 0 is "no ULP tolerance" */
    const uint32_t ulp_ok = k->max_ulp < 0 ? 0 : k->max_ulp > 0xffff ? 0xffff : (uint32_t)k->max_ulp;
    f16run v = *r;
    for (; i < hi; i++) {
        uint32_t x = code16(a, i), y = code16(b, i);
        if (x == y) {
            hist[x]++;
            v.exact++;
            continue;
        }
        if (__builtin_expect(!f16_binade(x, y), 0))
            break;
        uint32_t u = x > y ? x - y : y - x; /* ULPs, below 1024 */
        const f16ulp *t = &f16_ulps[u];
        double d = t->u * ulp[(x >> 10) & 31u];
        hist[x]++;
        v.sum_abs += d;
        v.sum_sq += d * d;
        v.ulp_seen = u > v.ulp_seen ? u : v.ulp_seen;
        v.w14 += t->w14;
        if (__builtin_expect(u > ulp_ok, 0) &&
            !(k->use_abs && d <= k->atol + k->rtol * fabs(vkrr_f16_to_f32(x)))) {
            v.oot++;
            if (v.first_bad == UINT64_MAX)
                v.first_bad = i;
        }
        if (__builtin_expect(d > v.max_abs, 0)) {
            v.max_abs = d;
            break;
        }
    }
    *r = v;
    return i;
}

/* The terms of the exact sums (see there) of a block [lo, hi) that f16_slow
 * took: the lowest bit of its differences, and whether a square rounds. */
static void f16_terms(const scanctx *k, vkrr_scan *q, uint64_t lo, uint64_t hi)
{
    for (uint64_t i = lo; i < hi; i++) {
        uint32_t x = code16(k->a, i), y = code16(k->b, i);
        if (x == y)
            continue;
        double r = vkrr_f16_to_f32(x), c = vkrr_f16_to_f32(y);
        if (!isfinite(r) || !isfinite(c)) /* not summed (the sentinel is a NaN) */
            continue;
        uint64_t t = (uint64_t)ldexp(fabs(r - c), 24); /* exact: below 2^40 */
        if (!t)
            continue;
        q->f16_or |= t;
        if ((t >> __builtin_ctzll(t)) >> 26) /* over 26 significant bits: d * d rounds */
            q->f16_inexact = true;
    }
}

/* Elements [lo, hi) one by one (a block f16_block left). */
static void f16_slow(const scanctx *k, vkrr_scan *p, uint32_t *hist, const double *ulp,
                     uint64_t lo, uint64_t hi)
{
    vkrr_scan q = *p;
    f16run r = {.sum_abs = q.sum_abs, .sum_sq = q.sum_sq, .max_abs = q.max_abs,
                .first_bad = q.first_bad};
    uint64_t slow = 0; /* pairs table_pair classified */
    for (uint64_t i = lo; (i = f16_run(k, hist, ulp, &r, i, hi)) < hi; i++) {
        uint32_t x = code16(k->a, i), y = code16(k->b, i);
        if (f16_binade(x, y)) { /* counted by f16_run, a new largest error */
            q.max_abs = r.max_abs;
            q.max_idx = i;
            q.max_ref = vkrr_f16_to_f32(x);
            q.max_cand = vkrr_f16_to_f32(y);
            continue;
        }
        q.sum_abs = r.sum_abs;
        q.sum_sq = r.sum_sq;
        q.first_bad = r.first_bad;
        table_pair(k, &q, hist, i, x, y, vkrr_f16_to_f32(x), vkrr_f16_to_f32(y));
        r.sum_abs = q.sum_abs;
        r.sum_sq = q.sum_sq;
        r.max_abs = q.max_abs;
        r.first_bad = q.first_bad;
        slow++;
    }
    q.exact += r.exact;
    q.nnum += (hi - lo) - r.exact - slow; /* the same-binade pairs (table_pair counted its own) */
    q.oot += r.oot;
    q.first_bad = r.first_bad;
    q.w1 += (uint32_t)r.w14;
    q.w4 += r.w14 >> 32;
    if (r.ulp_seen > q.ulp_seen)
        q.ulp_seen = r.ulp_seen;
    q.sum_abs = r.sum_abs;
    q.sum_sq = r.sum_sq;
    *p = q;
}

#define F16_BLOCK 512u

/* The largest error of a pair in a block [lo, lo + n) that f16_block took,
 * and the first pair out of tolerance: where they are (a second look at a
 * block, only when one of them is new). */
static void f16_block_where(const scanctx *k, vkrr_scan *q, uint32_t ulp_ok, uint64_t lo,
                            uint32_t n, double m, bool want_max, bool want_bad)
{
    const uint8_t *a = k->a + 2 * lo, *b = k->b + 2 * lo;
    for (uint32_t j = 0; j < n && (want_max || want_bad); j++) {
        uint32_t x = code16(a, j), y = code16(b, j);
        uint32_t u = x > y ? x - y : y - x;
        if (want_bad && u > ulp_ok) {
            q->first_bad = lo + j;
            want_bad = false;
        }
        if (want_max && ldexp(u, (int)f16_ulp_shift((x >> 10) & 31u) - 24) == m) {
            q->max_abs = m;
            q->max_idx = lo + j;
            q->max_ref = vkrr_f16_to_f32(x);
            q->max_cand = vkrr_f16_to_f32(y);
            want_max = false;
        }
    }
}

/* The reference's codes j .. j + 3 counted (delta 1) or taken back (-1u) in
 * the four ways of the histogram (see HIST_WAYS), a way for each. */
static inline void hist4(uint32_t *hist, const uint8_t *a, uint32_t j, uint32_t delta)
{
    hist[code16(a, j)] += delta;
    hist[(1u << 16) + code16(a, j + 1)] += delta;
    hist[(2u << 16) + code16(a, j + 2)] += delta;
    hist[(3u << 16) + code16(a, j + 3)] += delta;
}

#if VKRR_SCAN_AVX2
/* What f16_block sums of a block, before it is taken. */
typedef struct f16blk {
    double sum_abs, sum_sq, max;
    uint32_t eq, n1, n4, oot, ulp_max, e_min; /* e_min: lowest binade of a differing pair */
    bool bad;
} f16blk;

/* Sixteen pairs at a time in AVX2, with F16C's conversion to float: the
 * pairs' integer facts in 16-bit lanes; d = |x - y| and d * d in floats,
 * exact there within a binade (11 and 22 bits); their sums in doubles.
 * Counters: two a 16-bit lane, a byte each (32 pairs a lane in a block). */
__attribute__((target("avx2,f16c"))) static void
f16_block_avx2(const uint8_t *a, const uint8_t *b, uint32_t n, uint32_t ulp_ok, uint32_t *hist,
               f16blk *o)
{
    const __m256i zero = _mm256_setzero_si256(), c31 = _mm256_set1_epi16(31),
                  two = _mm256_set1_epi16(2), five = _mm256_set1_epi16(5),
                  ok = _mm256_set1_epi16((int16_t)(ulp_ok > 0x7fff ? 0x7fff : ulp_ok));
    const __m256 nosign = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256i bad = zero, um = zero, n14 = zero, eqoot = zero, emin = c31;
    __m256d sa0 = _mm256_setzero_pd(), sa1 = sa0, sq0 = sa0, sq1 = sa0;
    __m256 mx = _mm256_setzero_ps();
    for (uint32_t j = 0; j < n; j += 16) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(a + 2 * j));
        __m256i y = _mm256_loadu_si256((const __m256i *)(b + 2 * j));
        for (uint32_t w = 0; w < 16; w += 4)
            hist4(hist, a, j + w, 1);
        bad = _mm256_or_si256(bad, _mm256_srli_epi16(_mm256_xor_si256(x, y), 10)); /* sign, binade */
        __m256i u = _mm256_abs_epi16(_mm256_sub_epi16(x, y)); /* ULPs where not bad */
        __m256i e = _mm256_and_si256(_mm256_srli_epi16(x, 10), c31);
        bad = _mm256_or_si256(bad, _mm256_and_si256(_mm256_cmpeq_epi16(e, c31), u)); /* Inf, NaN */
        um = _mm256_max_epi16(um, u);
        __m256i eq = _mm256_cmpeq_epi16(u, zero);
        /* a true compare is -1: subtracting counts it; shifted by 8, in the high byte */
        n14 = _mm256_sub_epi16(n14, _mm256_cmpgt_epi16(two, u));
        n14 = _mm256_sub_epi16(n14, _mm256_slli_epi16(_mm256_cmpgt_epi16(five, u), 8));
        eqoot = _mm256_sub_epi16(eqoot, eq);
        eqoot = _mm256_sub_epi16(eqoot, _mm256_slli_epi16(_mm256_cmpgt_epi16(u, ok), 8));
        emin = _mm256_min_epi16(emin, _mm256_or_si256(e, _mm256_and_si256(eq, c31)));
        __m256 dl = _mm256_and_ps(_mm256_sub_ps(_mm256_cvtph_ps(_mm256_castsi256_si128(x)),
                                                _mm256_cvtph_ps(_mm256_castsi256_si128(y))),
                                  nosign);
        __m256 dh = _mm256_and_ps(_mm256_sub_ps(_mm256_cvtph_ps(_mm256_extracti128_si256(x, 1)),
                                                _mm256_cvtph_ps(_mm256_extracti128_si256(y, 1))),
                                  nosign);
        mx = _mm256_max_ps(mx, _mm256_max_ps(dl, dh));
        __m256 ql = _mm256_mul_ps(dl, dl), qh = _mm256_mul_ps(dh, dh);
        sa0 = _mm256_add_pd(sa0, _mm256_cvtps_pd(_mm256_castps256_ps128(dl)));
        sa1 = _mm256_add_pd(sa1, _mm256_cvtps_pd(_mm256_extractf128_ps(dl, 1)));
        sq0 = _mm256_add_pd(sq0, _mm256_cvtps_pd(_mm256_castps256_ps128(ql)));
        sq1 = _mm256_add_pd(sq1, _mm256_cvtps_pd(_mm256_extractf128_ps(ql, 1)));
        sa0 = _mm256_add_pd(sa0, _mm256_cvtps_pd(_mm256_castps256_ps128(dh)));
        sa1 = _mm256_add_pd(sa1, _mm256_cvtps_pd(_mm256_extractf128_ps(dh, 1)));
        sq0 = _mm256_add_pd(sq0, _mm256_cvtps_pd(_mm256_castps256_ps128(qh)));
        sq1 = _mm256_add_pd(sq1, _mm256_cvtps_pd(_mm256_extractf128_ps(qh, 1)));
    }
    uint16_t l_bad[16], l_um[16], l_n14[16], l_eqoot[16], l_emin[16];
    double l_sa0[4], l_sa1[4], l_sq0[4], l_sq1[4];
    float l_mx[8];
    _mm256_storeu_si256((__m256i *)l_bad, bad);
    _mm256_storeu_si256((__m256i *)l_um, um);
    _mm256_storeu_si256((__m256i *)l_n14, n14);
    _mm256_storeu_si256((__m256i *)l_eqoot, eqoot);
    _mm256_storeu_si256((__m256i *)l_emin, emin);
    _mm256_storeu_pd(l_sa0, sa0);
    _mm256_storeu_pd(l_sa1, sa1);
    _mm256_storeu_pd(l_sq0, sq0);
    _mm256_storeu_pd(l_sq1, sq1);
    _mm256_storeu_ps(l_mx, mx);
    *o = (f16blk){.e_min = 31};
    for (int w = 0; w < 4; w++) {
        o->sum_abs += l_sa0[w] + l_sa1[w];
        o->sum_sq += l_sq0[w] + l_sq1[w];
    }
    for (int w = 0; w < 16; w++) {
        o->bad |= l_bad[w] != 0;
        o->ulp_max = l_um[w] > o->ulp_max ? l_um[w] : o->ulp_max;
        o->n1 += l_n14[w] & 0xffu;
        o->n4 += l_n14[w] >> 8;
        o->eq += l_eqoot[w] & 0xffu;
        o->oot += l_eqoot[w] >> 8;
        o->e_min = l_emin[w] < o->e_min ? l_emin[w] : o->e_min;
    }
    for (int w = 0; w < 8; w++)
        o->max = l_mx[w] > o->max ? l_mx[w] : o->max;
}

/* A block [lo, lo + n), n a multiple of 16, of pairs that match or differ
 * within one binade, summed with no branch per pair; false, with nothing
 * changed, when some pair is not such or is out of an atol/rtol tolerance
 * (f16_slow takes the block). */
static bool f16_block(const scanctx *k, vkrr_scan *q, uint32_t *hist, uint64_t lo, uint32_t n)
{
    const uint8_t *a = k->a + 2 * lo;
    const uint32_t ulp_ok = k->max_ulp < 0 ? 0 : k->max_ulp > 0xffff ? 0xffff : (uint32_t)k->max_ulp;
    f16blk o;
    f16_block_avx2(a, k->b + 2 * lo, n, ulp_ok, hist, &o);
    if (o.bad || (o.oot && k->use_abs)) {
        for (uint32_t j = 0; j < n; j += 4) /* f16_slow counts them */
            hist4(hist, a, j, -1u);
        return false;
    }
    bool new_max = o.max > q->max_abs, new_bad = o.oot && q->first_bad == UINT64_MAX;
    if (new_max || new_bad)
        f16_block_where(k, q, ulp_ok, lo, n, o.max, new_max, new_bad);
    uint32_t neq = n - o.eq;
    q->sum_abs += o.sum_abs;
    q->sum_sq += o.sum_sq;
    if (neq) /* a lower bound of the lowest bit of the block's differences (see vkrr_scan_f16_sums) */
        q->f16_or |= 1ull << f16_ulp_shift(o.e_min);
    q->exact += o.eq;
    q->nnum += neq;
    q->oot += o.oot;
    q->w1 += o.n1 - o.eq; /* matching pairs are added when the scan ends */
    q->w4 += o.n4 - o.eq;
    if (o.ulp_max > q->ulp_seen)
        q->ulp_seen = o.ulp_max;
    return true;
}

static bool simd_have, simd_on;
static pthread_once_t simd_once = PTHREAD_ONCE_INIT;

static void simd_detect(void)
{
    unsigned a, b, c, d; /* F16C: CPUID leaf 1, ECX (clang has no name for it) */
    __builtin_cpu_init();
    simd_have = __builtin_cpu_supports("avx2") && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
    simd_on = simd_have;
}

bool vkrr_compare_scan_set_simd(bool on)
{
    pthread_once(&simd_once, simd_detect);
    simd_on = on && simd_have;
    return simd_on;
}

bool vkrr_compare_scan_simd(void)
{
    pthread_once(&simd_once, simd_detect);
    return simd_on;
}
#else
static bool f16_block(const scanctx *k, vkrr_scan *q, uint32_t *hist, uint64_t lo, uint32_t n)
{
    (void)k, (void)q, (void)hist, (void)lo, (void)n;
    return false; /* element by element (f16_slow) */
}

bool vkrr_compare_scan_set_simd(bool on)
{
    (void)on;
    return false;
}

bool vkrr_compare_scan_simd(void) { return false; }
#endif

void vkrr_scan_f16(const scanctx *k, vkrr_scan *p, uint32_t *hist, uint64_t lo, uint64_t hi)
{
    pthread_once(&f16_ulps_once, f16_ulps_build);
    double ulp[32]; /* of each binade: 2^-24 for subnormals and 2^(e-25) */
    for (int e = 0; e < 32; e++)
        ulp[e] = ldexp(1.0, e ? e - 25 : -24);
    if (!k->simd) {
        f16_slow(k, p, hist, ulp, lo, hi); /* the double sums in element order */
        return;
    }
    for (uint64_t i = lo; i < hi; i += F16_BLOCK) {
        uint32_t n = hi - i < F16_BLOCK ? (uint32_t)(hi - i) : F16_BLOCK;
        if (n % 16 || !f16_block(k, p, hist, i, n)) {
            f16_slow(k, p, hist, ulp, i, i + n);
            f16_terms(k, p, i, i + n);
        }
    }
}

/* The double sums of a chunk [lo, hi) of f16 as one pass in element order
 * makes them: every numeric pair that differs adds |r - c| and its square. */
static void f16_sums_replay(const scanctx *k, vkrr_scan *p, uint64_t lo, uint64_t hi)
{
    double sa = 0, sq = 0;
    for (uint64_t i = lo; i < hi; i++) {
        uint32_t x = code16(k->a, i), y = code16(k->b, i);
        if (x == y)
            continue;
        double r = vkrr_f16_to_f32(x), c = vkrr_f16_to_f32(y);
        if (!isfinite(r) || !isfinite(c)) /* the sentinel is a NaN */
            continue;
        double d = fabs(r - c);
        sa += d;
        sq += d * d;
    }
    p->sum_abs = sa;
    p->sum_sq = sq;
}

/* When a chunk of f16 is scanned: its sums stand if no addition could have
 * rounded (see "exact sums"), else they are made again in element order. */
void vkrr_scan_f16_sums(const scanctx *k, vkrr_scan *p, uint64_t lo, uint64_t hi)
{
    int low = p->f16_or ? __builtin_ctzll(p->f16_or) - 24 : 0; /* lowest bit: 2^low */
    if (p->f16_inexact || p->sum_abs >= ldexp(1.0, 53 + low) ||
        p->sum_sq >= ldexp(1.0, 53 + 2 * low))
        f16_sums_replay(k, p, lo, hi);
}
