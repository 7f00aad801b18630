/* test_compare_scan.c - the compare scan (compare_scan.c) against a plain
 * reference written here: every class of element over several chunks and
 * threads, the f16 scan in blocks bit for bit, 8-byte types, and f64 ULP
 * distances across signs counted independently (nextafter steps). */
#include "compare.h"
#include "compare_scan.h"
#include "perturb.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The scan (compare_scan.c: decode without tables for f16, histograms,
 * integer sums per binade, chunks on threads) against a plain sequential
 * reference written here from compare.h's rules, on data with every class
 * of element: same-binade and cross-binade errors, sign flips, subnormals,
 * NaN and Inf on either side, sentinel (unwritten) elements.  Large enough
 * for several chunks and threads. */
typedef struct ref_metrics {
    uint64_t exact, unwritten, nan_mm, inf_mm, oot, first_bad, nnum, w1, w4, max_idx;
    double sum_abs, sum_sq, sum_ref_sq, max_abs, peak, rmin, rmax;
    int64_t max_ulp;
} ref_metrics;

static int64_t ref_ulp_index(vkrr_dtype t, const uint8_t *p)
{
    unsigned size = vkrr_dtype_size(t);
    uint32_t bits = size == 1 ? p[0] : size == 2 ? (uint32_t)(p[0] | p[1] << 8)
                                                 : (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
    uint32_t sign = 1u << (8 * size - 1);
    int64_t mag = bits & (sign - 1);
    return bits & sign ? -mag : mag;
}

static ref_metrics ref_compare(vkrr_dtype t, const uint8_t *a, const uint8_t *b, uint64_t n,
                               vkrr_tolerance tol, bool sentinel)
{
    ref_metrics r = {.first_bad = UINT64_MAX, .max_idx = UINT64_MAX};
    unsigned size = vkrr_dtype_size(t);
    bool flt = vkrr_dtype_is_float(t), have = false;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *pa = a + i * size, *pb = b + i * size;
        double x = vkrr_dtype_to_double(t, pa), y = vkrr_dtype_to_double(t, pb);
        bool same = !memcmp(pa, pb, size), sent = sentinel;
        for (unsigned k = 0; k < size; k++)
            sent = sent && pb[k] == 0xff;
        bool counted = false, bad = false;
        /* compare.h's order: identical, unwritten, NaN both sides, ... */
        if (same || (!sent && isnan(x) && isnan(y))) {
            r.exact++;
            counted = true;
        } else if (sent) {
            r.unwritten++;
            bad = true;
        } else if (isnan(x) || isnan(y)) {
            r.nan_mm++;
            bad = true;
        } else if (isinf(x) || isinf(y)) {
            r.inf_mm++;
            bad = true;
        } else {
            double d = fabs(x - y);
            int64_t u = flt ? llabs(ref_ulp_index(t, pa) - ref_ulp_index(t, pb)) : -1;
            r.sum_abs += d;
            r.sum_sq += d * d;
            if (d > r.max_abs) {
                r.max_abs = d;
                r.max_idx = i;
            }
            if (u > r.max_ulp)
                r.max_ulp = u;
            r.w1 += u >= 0 && u <= 1;
            r.w4 += u >= 0 && u <= 4;
            bool ok = ((tol.atol >= 0 || tol.rtol >= 0) &&
                       d <= fmax(tol.atol, 0) + fmax(tol.rtol, 0) * fabs(x)) ||
                      (flt && tol.max_ulp >= 0 && u <= tol.max_ulp);
            if (!ok) {
                r.oot++;
                bad = true;
            }
            counted = true;
            r.nnum++;
        }
        if (counted && same)
            r.nnum++;
        if (counted && !same && isnan(x))
            r.nnum++; /* NaN on both sides: exact */
        if (counted && isfinite(x))
            r.sum_ref_sq += x * x;
        if (isfinite(x)) {
            if (fabs(x) > r.peak)
                r.peak = fabs(x);
            if (!have || x < r.rmin)
                r.rmin = x;
            if (!have || x > r.rmax)
                r.rmax = x;
            have = true;
        }
        if (bad && r.first_bad == UINT64_MAX)
            r.first_bad = i;
    }
    if (flt) {
        r.w1 += r.exact;
        r.w4 += r.exact;
    }
    return r;
}

static bool close_rel(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-300; }

static uint32_t rnd_state = 7;
static uint32_t rnd(void)
{
    rnd_state = rnd_state * 1664525u + 1013904223u;
    return rnd_state >> 8;
}

static void test_scan_against_reference(void)
{
    const vkrr_dtype types[] = {VKRR_DT_F16, VKRR_DT_E4M3, VKRR_DT_F32, VKRR_DT_U8,
                                VKRR_DT_UNORM16, VKRR_DT_BF16};
    const vkrr_tolerance tols[] = {{.atol = -1, .rtol = -1, .max_ulp = 2},
                                   {.atol = 1e-3, .rtol = 1e-2, .max_ulp = -1},
                                   {.atol = -1, .rtol = -1, .max_ulp = -1}};
    const uint64_t n = (3u << 20) + 12345; /* several chunks */
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        vkrr_dtype t = types[ti];
        unsigned size = vkrr_dtype_size(t);
        uint8_t *a = malloc(n * size), *b = malloc(n * size);
        CHECK(a && b);
        if (!a || !b) {
            free(a);
            free(b);
            return;
        }
        for (uint64_t i = 0; i < n * size; i++)
            a[i] = (uint8_t)rnd();
        memcpy(b, a, n * size);
        for (uint64_t i = 0; i < n; i++) {
            uint32_t r = rnd() % 1000;
            uint8_t *pb = b + i * size, *lo = pb; /* little-endian: low byte first */
            if (r < 500)
                continue;                         /* exact */
            else if (r < 900)
                lo[0] ^= (uint8_t)(1 + rnd() % 3); /* a few ULPs, sometimes across a binade */
            else if (r < 950)
                pb[size - 1] ^= 0x80;             /* sign flip */
            else if (r < 970)
                memset(pb, 0xff, size);           /* unwritten */
            else
                for (unsigned k = 0; k < size; k++)
                    pb[k] = (uint8_t)rnd();       /* anything, NaN and Inf included */
        }
        /* each tolerance, with the candidate from the sentinel (a surface)
         * and from its pre-launch bytes (a buffer: no element is unwritten) */
        for (size_t k = 0; k < 2 * sizeof tols / sizeof tols[0]; k++) {
            vkrr_view v = vkrr_compare_flat_view(t, n * size);
            v.sentinel = k % 2 == 0;
            vkrr_metrics m;
            vkrr_error err = {0};
            CHECK_EQ_U64(vkrr_compare(&v, a, b, n * size, &tols[k / 2], &m, &err), VKRR_OK);
            ref_metrics r = ref_compare(t, a, b, n, tols[k / 2], v.sentinel);
            bool ok = m.exact == r.exact && m.unwritten == r.unwritten &&
                      m.nan_mismatch == r.nan_mm && m.inf_mismatch == r.inf_mm &&
                      m.out_of_tol == r.oot && m.first_bad == r.first_bad &&
                      m.max_abs == r.max_abs && m.max_abs_index == r.max_idx &&
                      m.peak == r.peak && m.ref_min == r.rmin && m.ref_max == r.rmax &&
                      (vkrr_dtype_is_float(t) ? m.max_ulp == r.max_ulp : true) &&
                      close_rel(m.mean_abs, r.nnum ? r.sum_abs / (double)r.nnum : 0) &&
                      close_rel(m.rmse, r.nnum ? sqrt(r.sum_sq / (double)r.nnum) : 0) &&
                      close_rel(m.nmse, r.sum_ref_sq > 0 ? r.sum_sq / r.sum_ref_sq : 0) &&
                      (!vkrr_dtype_is_float(t) ||
                       close_rel(m.within1_ulp_pct, 100.0 * (double)r.w1 / (double)n));
            if (!ok)
                fprintf(stderr,
                        "    %s tol %zu: exact %llu/%llu unwritten %llu/%llu nan %llu/%llu inf "
                        "%llu/%llu oot %llu/%llu first %llu/%llu max %g@%llu/%g@%llu ulp "
                        "%lld/%lld mean %.17g/%.17g\n",
                        vkrr_dtype_name(t), k, (unsigned long long)m.exact,
                        (unsigned long long)r.exact, (unsigned long long)m.unwritten,
                        (unsigned long long)r.unwritten, (unsigned long long)m.nan_mismatch,
                        (unsigned long long)r.nan_mm, (unsigned long long)m.inf_mismatch,
                        (unsigned long long)r.inf_mm, (unsigned long long)m.out_of_tol,
                        (unsigned long long)r.oot, (unsigned long long)m.first_bad,
                        (unsigned long long)r.first_bad, m.max_abs,
                        (unsigned long long)m.max_abs_index, r.max_abs,
                        (unsigned long long)r.max_idx, (long long)m.max_ulp,
                        (long long)r.max_ulp, m.mean_abs,
                        r.nnum ? r.sum_abs / (double)r.nnum : 0);
            CHECK(ok);
            /* hashing as it compares (in order, on one thread, in slices)
             * changes nothing but the hash, which covers the whole run */
            vkrr_metrics mh;
            vkrr_hash_cursor hc = {VKRR_FNV1A64_INIT, 0};
            CHECK_EQ_U64(vkrr_compare_hashed(&v, a, b, n * size, &tols[k / 2], &hc, &mh, &err), VKRR_OK);
            CHECK_EQ_U64(hc.pos, n * size);
            CHECK_EQ_U64(hc.h, vkrr_fnv1a64(a, n * size));
            CHECK(mh.exact == m.exact && mh.out_of_tol == m.out_of_tol &&
                  mh.first_bad == m.first_bad && mh.max_abs_index == m.max_abs_index &&
                  mh.mean_abs == m.mean_abs && mh.rmse == m.rmse && mh.nmse == m.nmse &&
                  mh.max_ulp == m.max_ulp && mh.peak == m.peak);
        }
        free(a);
        free(b);
    }
}

/* The f16 scan in blocks (compare_scan.c: AVX2 lanes, exact sums, blocks it
 * does not take left to the element loop, sums made again where they could
 * have rounded) gives the metrics of the element loop bit for bit, on data
 * where the lanes take almost every block, where some blocks hold pairs
 * across binades, NaN, Inf or unwritten elements, where pairs are out of a
 * ULP or an atol/rtol tolerance, and where sums in another order round
 * differently (the chunk is summed again: checked sensitive here). */
static bool metrics_same(const vkrr_metrics *x, const vkrr_metrics *y)
{
    return x->count == y->count && x->exact == y->exact && x->exact_pct == y->exact_pct &&
           x->unwritten == y->unwritten && x->nan_mismatch == y->nan_mismatch &&
           x->inf_mismatch == y->inf_mismatch && x->out_of_tol == y->out_of_tol &&
           x->first_bad == y->first_bad && x->max_abs == y->max_abs &&
           x->max_abs_index == y->max_abs_index && x->max_abs_ref == y->max_abs_ref &&
           x->max_abs_cand == y->max_abs_cand && x->mean_abs == y->mean_abs &&
           x->rmse == y->rmse && x->nmse == y->nmse && x->psnr == y->psnr &&
           x->peak == y->peak && x->ref_min == y->ref_min && x->ref_max == y->ref_max &&
           x->max_ulp == y->max_ulp && x->within1_ulp_pct == y->within1_ulp_pct &&
           x->within4_ulp_pct == y->within4_ulp_pct && x->pass == y->pass;
}

static void test_f16_blocks_bit_identical(void)
{
    if (!vkrr_compare_scan_simd()) {
        printf("compare: f16 blocks: this CPU has no AVX2 with F16C, one path only\n");
        return;
    }
    const uint64_t n = (3u << 20) + 4099; /* several chunks; a last block not of 16 */
    uint8_t *a = malloc(2 * n), *b = malloc(2 * n);
    CHECK(a && b);
    if (!a || !b) {
        free(a);
        free(b);
        return;
    }
    const vkrr_tolerance tols[] = {{.atol = -1, .rtol = -1, .max_ulp = 2},
                                   {.atol = 1e-3, .rtol = 1e-2, .max_ulp = -1},
                                   {.atol = -1, .rtol = -1, .max_ulp = -1}};
    static const uint16_t mixed[3] = {0x7000, 0x3c00, 0x0000}; /* 2^13, 1, subnormal */
    for (int data = 0; data < 4; data++) {
        for (uint64_t i = 0; i < n; i++) {
            uint32_t r = rnd();
            /* 0, 1: smooth values in [2^-3, 8), either sign; 2: values near
             * 2^13, 1 and subnormal mixed; 3: anything */
            uint16_t x = data < 2 ? (uint16_t)(((12 + (i >> 9) % 6) << 10) | (r & 0x3ff) | (r & 0x8000))
                         : data == 2 ? (uint16_t)(mixed[r % 3] | (r >> 2 & 0x3ff))
                         : (uint16_t)r;
            uint32_t s = rnd() % 1000;
            uint16_t y = x;
            if (data == 2)
                y = (uint16_t)(x ^ (1 + (rnd() & 0x1ff))); /* hundreds of ULPs in a binade */
            else if (s < 900)
                y = (uint16_t)(x ^ (s % 7)); /* 0 to 6 ULPs in a binade */
            else if (data >= 1 && s < 902)
                y = (uint16_t)(x + 0x400); /* the next binade */
            else if (data >= 1 && s < 903)
                y = (uint16_t)(s & 1 ? 0x7c00 : 0xfe00); /* Inf, NaN */
            else if (data >= 1 && s < 904)
                y = 0xffff; /* unwritten */
            test_put16(a + 2 * i, x);
            test_put16(b + 2 * i, y);
        }
        if (data == 2) {
            /* the sums in four lanes round otherwise than in element order */
            double seq = 0, lanes[4] = {0};
            for (uint64_t i = 0; i < (1u << 20); i++) {
                double d = fabs((double)vkrr_f16_to_f32((uint16_t)(a[2 * i] | a[2 * i + 1] << 8)) -
                                (double)vkrr_f16_to_f32((uint16_t)(b[2 * i] | b[2 * i + 1] << 8)));
                seq += d * d;
                lanes[i % 4] += d * d;
            }
            CHECK(seq != (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]));
        }
        for (size_t k = 0; k < 2 * sizeof tols / sizeof tols[0]; k++) {
            vkrr_view v = vkrr_compare_flat_view(VKRR_DT_F16, 2 * n);
            v.sentinel = k % 2 == 0;
            vkrr_metrics on, off, hashed;
            vkrr_error err = {0};
            vkrr_hash_cursor hc = {VKRR_FNV1A64_INIT, 0};
            CHECK(vkrr_compare_scan_set_simd(true));
            CHECK_EQ_U64(vkrr_compare(&v, a, b, 2 * n, &tols[k / 2], &on, &err), VKRR_OK);
            CHECK_EQ_U64(vkrr_compare_hashed(&v, a, b, 2 * n, &tols[k / 2], &hc, &hashed, &err),
                         VKRR_OK);
            CHECK(!vkrr_compare_scan_set_simd(false));
            CHECK_EQ_U64(vkrr_compare(&v, a, b, 2 * n, &tols[k / 2], &off, &err), VKRR_OK);
            vkrr_compare_scan_set_simd(true);
            if (!metrics_same(&on, &off) || !metrics_same(&hashed, &off))
                fprintf(stderr,
                        "    f16 data %d tol %zu: mean %.17g/%.17g/%.17g rmse %.17g/%.17g "
                        "oot %llu/%llu first %llu/%llu max %g@%llu/%g@%llu\n",
                        data, k, on.mean_abs, hashed.mean_abs, off.mean_abs, on.rmse, off.rmse,
                        (unsigned long long)on.out_of_tol, (unsigned long long)off.out_of_tol,
                        (unsigned long long)on.first_bad, (unsigned long long)off.first_bad,
                        on.max_abs, (unsigned long long)on.max_abs_index, off.max_abs,
                        (unsigned long long)off.max_abs_index);
            CHECK(metrics_same(&on, &off));
            CHECK(metrics_same(&hashed, &off));
        }
    }
    free(a);
    free(b);
}

/* 8-byte types: f64 with ULPs and its default tolerance, s64 and u64 exact,
 * a distance between 64-bit integers taken in integers (2^60 + 1 against
 * 2^60 is 1 apart, which doubles alone would call 0), the names, the
 * sentinel of an all-0xFF element. */
static void test_64bit(void)
{
    vkrr_dtype t;
    CHECK(vkrr_dtype_parse("f64", &t) && t == VKRR_DT_F64 && vkrr_dtype_size(t) == 8 &&
          vkrr_dtype_is_float(t));
    CHECK(vkrr_dtype_parse("s64", &t) && t == VKRR_DT_S64 && !vkrr_dtype_is_float(t));
    CHECK(vkrr_dtype_parse("u64", &t) && t == VKRR_DT_U64 && !strcmp(vkrr_dtype_name(t), "u64"));
    double a[4] = {1.0, -2.5, 1e300, 0.0}, b[4];
    memcpy(b, a, sizeof a);
    uint64_t bits;
    memcpy(&bits, &b[0], 8);
    bits += 3; /* 3 ULPs above 1.0 */
    memcpy(&b[0], &bits, 8);
    vkrr_view v = vkrr_compare_flat_view(VKRR_DT_F64, sizeof a);
    vkrr_metrics m;
    vkrr_error err = {0};
    CHECK_EQ_U64(vkrr_compare(&v, a, b, sizeof a, NULL, &m, &err), VKRR_OK);
    CHECK(m.count == 4 && m.exact == 3 && m.max_ulp == 3 && m.max_abs_index == 0 &&
          m.max_abs == ldexp(3.0, -52) && m.pass); /* 3 ULP <= f64's default 4 */
    b[1] = 2.5; /* sign flip: far out */
    CHECK_EQ_U64(vkrr_compare(&v, a, b, sizeof a, NULL, &m, &err), VKRR_OK);
    CHECK(!m.pass && m.out_of_tol == 1 && m.first_bad == 1 && m.max_abs == 5.0);
    CHECK(vkrr_dtype_ulp_index(VKRR_DT_F64, &b[1]) == -vkrr_dtype_ulp_index(VKRR_DT_F64, &a[1]));

    int64_t s[3] = {INT64_C(1) << 60, -5, INT64_MIN}, sc[3];
    memcpy(sc, s, sizeof s);
    sc[0] += 1;
    v = vkrr_compare_flat_view(VKRR_DT_S64, sizeof s);
    CHECK_EQ_U64(vkrr_compare(&v, s, sc, sizeof s, NULL, &m, &err), VKRR_OK);
    CHECK(m.exact == 2 && m.out_of_tol == 1 && m.max_abs == 1.0 && m.max_abs_index == 0 && !m.pass);
    sc[0] = s[0];
    sc[2] = INT64_MAX; /* the whole range apart: 2^64 - 1, rounded */
    CHECK_EQ_U64(vkrr_compare(&v, s, sc, sizeof s, NULL, &m, &err), VKRR_OK);
    CHECK(m.max_abs == ldexp(1.0, 64) && m.max_abs_index == 2);

    uint64_t u[2] = {UINT64_MAX - 1, 7}, uc[2] = {UINT64_MAX, 7};
    v = vkrr_compare_flat_view(VKRR_DT_U64, sizeof u);
    CHECK_EQ_U64(vkrr_compare(&v, u, uc, sizeof u, NULL, &m, &err), VKRR_OK);
    CHECK(m.max_abs == 1.0 && m.out_of_tol == 1 && m.unwritten == 0);
    v.sentinel = true; /* a surface's: an all-0xFF element was never written */
    CHECK_EQ_U64(vkrr_compare(&v, u, uc, sizeof u, NULL, &m, &err), VKRR_OK);
    CHECK(m.unwritten == 1 && m.out_of_tol == 0 && m.first_bad == 0);

    /* --perturb moves 64-bit elements too */
    double one = 1.0;
    vkrr_perturb_element(VKRR_DT_F64, &one, 2);
    CHECK(one == 1.0 + ldexp(2.0, -52));
    uint64_t top = UINT64_MAX - 1;
    vkrr_perturb_element(VKRR_DT_U64, &top, 5);
    CHECK(top == UINT64_MAX);
    int64_t low = INT64_MIN + 1;
    vkrr_perturb_element(VKRR_DT_S64, &low, -3);
    CHECK(low == INT64_MIN);
}

/* f64 ULP distances across signs, zeros, subnormals and the largest finite
 * values, each pair alone in a buffer so max_ulp is its distance.  The
 * expected distances are compare.h's rule (sign-magnitude order, +0 and -0
 * one point, saturated at INT64_MAX) worked by hand from the bit patterns;
 * the short ones are counted again here by stepping with nextafter (libm's
 * walk from one double to the next: -2^-1074 -> -0 -> +2^-1074), so they do
 * not come from compare_scan.c's arithmetic.  Both orders of each pair. */
static double f64_of(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static int64_t nextafter_steps(double a, double b) /* -0 == +0: one point */
{
    int64_t n = 0;
    for (double x = a; x != b; n++)
        x = nextafter(x, b);
    return n;
}

static void test_f64_ulp_signs(void)
{
    const uint64_t S = 1ull << 63, MAXF = 0x7fefffffffffffffull, MIN = 0x0010000000000000ull,
                   ONE = 0x3ff0000000000000ull;
    const struct {
        uint64_t a, b;
        int64_t ulp;
    } cases[] = {
        {0, S, 0},                              /* +0, -0 */
        {S, 1, 1},                              /* -0, +2^-1074 */
        {S | 1, 1, 2},                          /* -2^-1074, +2^-1074 */
        {S | 1, 0, 1},                          /* -2^-1074, +0 */
        {S | 1, S, 1},                          /* -2^-1074, -0 */
        {S | 3, 5, 8},                          /* -3, +5 units of 2^-1074 */
        {S | 1, S | 2, 1},                      /* both negative subnormals */
        {S | 7, S | 3, 4},
        {S | MIN, S | (MIN - 1), 1},            /* -2^-1022, the largest negative subnormal */
        {S | MIN, MIN, INT64_C(1) << 53},       /* -2^-1022, +2^-1022: 2 * 2^52 */
        {S | ONE, S | (ONE - 1), 1},            /* -1, -(1 - 2^-53) */
        {S | ONE, S | (ONE + 4), 4},            /* -1, -(1 + 4 ulp) */
        {S | ONE, ONE, INT64_C(0x7fe0000000000000)}, /* -1, +1: 2 * 0x3ff0... */
        {S | ONE, 0, INT64_C(0x3ff0000000000000)},
        {S | MAXF, S | (MAXF - 1), 1},          /* -max, its neighbour toward 0 */
        {S | MAXF, S, INT64_C(0x7fefffffffffffff)}, /* -max, -0 */
        {S | MAXF, 1, INT64_C(0x7ff0000000000000)}, /* -max, +2^-1074: one past -max, -0 */
        {S | MAXF, MAXF, INT64_MAX},            /* 2 * 0x7fef... does not fit: saturated */
        {MAXF, MAXF - 3, 3},                    /* positive, for contrast */
    };
    vkrr_view v = vkrr_compare_flat_view(VKRR_DT_F64, 8);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].ulp <= 8)
            CHECK_EQ_U64(nextafter_steps(f64_of(cases[i].a), f64_of(cases[i].b)), cases[i].ulp);
        for (int swap = 0; swap < 2; swap++) {
            double a = f64_of(swap ? cases[i].b : cases[i].a);
            double b = f64_of(swap ? cases[i].a : cases[i].b);
            vkrr_metrics m;
            vkrr_error err = {0};
            CHECK_EQ_U64(vkrr_compare(&v, &a, &b, 8, NULL, &m, &err), VKRR_OK);
            if (m.max_ulp != cases[i].ulp)
                fprintf(stderr, "    f64 %016llx vs %016llx: %lld ULPs, expected %lld\n",
                        (unsigned long long)(swap ? cases[i].b : cases[i].a),
                        (unsigned long long)(swap ? cases[i].a : cases[i].b), (long long)m.max_ulp,
                        (long long)cases[i].ulp);
            CHECK_EQ_U64(m.max_ulp, cases[i].ulp);
            /* f64's default: max_ulp 4, atol 1e-12, rtol 1e-10 (compare.c) */
            CHECK(m.pass == (cases[i].ulp <= 4 || fabs(a - b) <= 1e-12 + 1e-10 * fabs(a)));
        }
    }
}

int main(void)
{
    vkrr_warn_set_stream(NULL);
    test_scan_against_reference();
    test_f16_blocks_bit_identical();
    test_64bit();
    test_f64_ulp_signs();
    return test_finish("compare_scan");
}
