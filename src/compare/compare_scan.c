/* compare_scan.c - the element loop of vkrr_compare (see compare_scan.h). */
#include "compare_scan.h"
#include "fpformat.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- code tables ---------------------------------------------------------- */

static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static double *tables[VKRR_DT_COUNT];

/* Under tables_lock. */
static double *build_values(vkrr_dtype t)
{
    uint32_t codes = 1u << (8 * vkrr_dtype_size(t));
    double *v = malloc(codes * sizeof *v);
    for (uint32_t c = 0; v && c < codes; c++) {
        uint8_t bytes[2] = {(uint8_t)c, (uint8_t)(c >> 8)}; /* little-endian */
        v[c] = vkrr_dtype_to_double(t, bytes);
    }
    return v;
}

const double *vkrr_compare_values(vkrr_dtype t)
{
    if ((unsigned)t >= VKRR_DT_COUNT || vkrr_dtype_size(t) > 2)
        return NULL;
    pthread_mutex_lock(&tables_lock);
    if (!tables[t])
        tables[t] = build_values(t);
    const double *v = tables[t];
    pthread_mutex_unlock(&tables_lock);
    return v;
}

/* ---- one chunk's partial sums -------------------------------------------- */

typedef struct scanctx {
    vkrr_dtype dtype;
    unsigned size;         /* bytes per element */
    const uint8_t *a, *b;  /* reference, candidate */
    uint64_t n, chunk, nchunks;
    const double *tab;     /* 1- and 2-byte types but f16 */
    bool f16;              /* f16 decodes in registers (vkrr_f16_to_f32) */
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

/* A numeric pair that differs; ulp < 0: no ULP distance. */
static inline void numeric(const scanctx *k, vkrr_scan *p, uint64_t i, double r, double c,
                           int64_t ulp)
{
    double d = fabs(r - c);
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

/* The scan of a chunk of 1- or 2-byte codes.  The partial sums are a local
 * copy while it runs: through p they could alias hist, and every update would
 * go through memory. */
#define TABLE_SCAN(name, code_at, value)                                                      \
    static void name(const scanctx *k, vkrr_scan *p, uint32_t *hist, uint64_t lo, uint64_t hi) \
    {                                                                                       \
        vkrr_scan q = *p;                                                                   \
        for (uint64_t i = lo; i < hi; i++) {                                                \
            uint32_t x = code_at(k->a, i), y = code_at(k->b, i);                            \
            if (x == y) {                                                                   \
                hist[x]++;                                                                  \
                q.exact++;                                                                  \
            } else {                                                                        \
                table_pair(k, &q, hist, i, x, y, value(k, x), value(k, y));                 \
            }                                                                               \
        }                                                                                   \
        *p = q;                                                                             \
    }

static inline uint32_t code8(const uint8_t *p, uint64_t i) { return p[i]; }
static inline uint32_t code16(const uint8_t *p, uint64_t i) { return ld16(p + 2 * i); }
static inline double tabled(const scanctx *k, uint32_t c) { return k->tab[c]; }
TABLE_SCAN(scan_table8, code8, tabled)
TABLE_SCAN(scan_table16, code16, tabled)

/* f16 pairs in one binade (same sign and exponent, finite) are most of what
 * a port gets wrong.  There the error is |x - y| ULPs of that binade, a
 * product exact in a double (11 bits times a power of two), and the ULP
 * distance is the difference of the codes: no decode, no table.
 *
 * f16_run scans until a pair it does not handle alone and makes no call, so
 * every running value stays in a register (a value live across a call is
 * kept on the stack by the compiler, a store-to-load chain through memory on
 * every element, which halved its speed).  It stops at a pair across
 * binades, Inf, NaN or unwritten (table_pair's, on the caller's side) and
 * after a pair with a new largest error (the caller records where).  The
 * sums run on from the chunk's partial sums in element order, so a chunk cut
 * into slices (the hashed compare) sums exactly as one call over it does. */
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

static __attribute__((noinline)) void scan_f16(const scanctx *k, vkrr_scan *p, uint32_t *hist,
                                               uint64_t lo, uint64_t hi)
{
    pthread_once(&f16_ulps_once, f16_ulps_build);
    vkrr_scan q = *p;
    double ulp[32]; /* of each binade: 2^-24 for subnormals and 2^(e-25) */
    for (int e = 0; e < 32; e++)
        ulp[e] = ldexp(1.0, e ? e - 25 : -24);
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

static inline double dec32(vkrr_dtype t, uint32_t v)
{
    if (t == VKRR_DT_F32) {
        float f;
        memcpy(&f, &v, 4);
        return f;
    }
    return t == VKRR_DT_S32 ? (double)(int32_t)v : (double)v;
}

static inline void ref_stat(vkrr_scan *p, double r)
{
    note_ref(p, r);
    if (isfinite(r))
        p->sum_ref_sq += r * r;
}

/* 4-byte types decode inline; the reference's statistics are summed as they
 * come (no histogram of 2^32 codes). */
static void scan_word32(const scanctx *k, vkrr_scan *p0, uint64_t lo, uint64_t hi)
{
    const vkrr_dtype t = k->dtype;
    vkrr_scan q = *p0, *p = &q;
    for (uint64_t i = lo; i < hi; i++) {
        uint32_t x = ld32(k->a + 4 * i), y = ld32(k->b + 4 * i);
        double r = dec32(t, x);
        if (x == y) {
            p->exact++;
            ref_stat(p, r);
            continue;
        }
        double c = dec32(t, y);
        bool exact;
        if (special(p, i, y, k->sentinel, r, c, &exact)) {
            if (exact) {
                p->exact++;
                ref_stat(p, r);
            }
            continue;
        }
        ref_stat(p, r);
        numeric(k, p, i, r, c, ulp_of(k, x, y));
    }
    *p0 = q;
}

/* ---- chunks, threads, merge ----------------------------------------------- */

typedef struct worker {
    const scanctx *k;
    const vkrr_scan_hook *hook; /* in order, on one thread */
    uint32_t first, step;  /* chunks first, first + step, ... */
    uint32_t *hist;        /* the reference's codes, NULL for 4-byte types */
    uint64_t *total;       /* hist flushed here before it could overflow */
    uint64_t since_flush;  /* elements counted into hist since */
} worker;

static void flush(worker *w, uint32_t codes)
{
    for (uint32_t c = 0; c < codes; c++) {
        w->total[c] += w->hist[c];
        w->hist[c] = 0;
    }
    w->since_flush = 0;
}

#define HOOK_SLICE (64u * 1024u)

static void *work(void *arg)
{
    worker *w = arg;
    const scanctx *k = w->k;
    for (uint64_t c = w->first; c < k->nchunks; c += w->step) {
        uint64_t lo = c * k->chunk, hi = lo + k->chunk < k->n ? lo + k->chunk : k->n;
        vkrr_scan *p = &k->parts[c];
        if (w->hist && w->since_flush + (hi - lo) > UINT32_MAX)
            flush(w, k->codes);
        w->since_flush += hi - lo;
        /* with a hook, slices of HOOK_SLICE bytes (the partial sums add up) */
        uint64_t step = w->hook ? HOOK_SLICE / k->size : hi - lo;
        for (uint64_t s = lo; s < hi; s += step) {
            uint64_t e = hi - s < step ? hi : s + step;
            if (w->hook)
                w->hook->before(w->hook->ctx, s, e);
            if (k->size == 1)
                scan_table8(k, p, w->hist, s, e);
            else if (k->f16)
                scan_f16(k, p, w->hist, s, e);
            else if (k->size == 2)
                scan_table16(k, p, w->hist, s, e);
            else
                scan_word32(k, p, s, e);
        }
    }
    if (w->hist)
        flush(w, k->codes);
    return NULL;
}

static void merge(vkrr_scan *s, const vkrr_scan *p)
{
    s->exact += p->exact;
    s->unwritten += p->unwritten;
    s->nan_mm += p->nan_mm;
    s->inf_mm += p->inf_mm;
    s->oot += p->oot;
    if (p->first_bad < s->first_bad)
        s->first_bad = p->first_bad;
    s->nnum += p->nnum;
    s->sum_abs += p->sum_abs;
    s->sum_sq += p->sum_sq;
    s->sum_ref_sq += p->sum_ref_sq;
    if (p->max_abs > s->max_abs) { /* strictly: the first maximum wins, as in one pass */
        s->max_abs = p->max_abs;
        s->max_idx = p->max_idx;
        s->max_ref = p->max_ref;
        s->max_cand = p->max_cand;
    }
    if (p->have_ref) {
        if (p->peak > s->peak)
            s->peak = p->peak;
        if (!s->have_ref || p->rmin < s->rmin)
            s->rmin = p->rmin;
        if (!s->have_ref || p->rmax > s->rmax)
            s->rmax = p->rmax;
        s->have_ref = true;
    }
    if (p->ulp_seen > s->ulp_seen)
        s->ulp_seen = p->ulp_seen;
    s->w1 += p->w1;
    s->w4 += p->w4;
}

/* The reference's statistics of every matching and numeric element, from the
 * histogram of its codes. */
static void add_hist(const scanctx *k, vkrr_scan *s, const uint64_t *hist)
{
    for (uint32_t c = 0; c < k->codes; c++) {
        if (!hist[c])
            continue;
        double r = k->f16 ? vkrr_f16_to_f32(c) : k->tab[c];
        if (!isfinite(r))
            continue;
        note_ref(s, r);
        s->sum_ref_sq += (double)hist[c] * (r * r);
    }
}

static unsigned thread_count(uint64_t nchunks)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t t = cpus > 0 ? (uint64_t)cpus : 1;
    if (t > VKRR_SCAN_MAX_THREADS)
        t = VKRR_SCAN_MAX_THREADS;
    return (unsigned)(t < nchunks ? t : nchunks);
}

vkrr_status vkrr_compare_scan(vkrr_dtype t, const uint8_t *a, const uint8_t *b, uint64_t n,
                              const vkrr_tolerance *tol, bool sentinel,
                              const vkrr_scan_hook *hook, vkrr_scan *out, vkrr_error *err)
{
    if (hook && !hook->before)
        hook = NULL;
    scanctx k = {.dtype = t, .size = vkrr_dtype_size(t), .a = a, .b = b, .n = n,
                 .flt = vkrr_dtype_is_float(t),
                 .use_abs = tol->atol >= 0 || tol->rtol >= 0,
                 .atol = tol->atol > 0 ? tol->atol : 0,
                 .rtol = tol->rtol > 0 ? tol->rtol : 0};
    k.max_ulp = k.flt ? tol->max_ulp : -1;
    k.signbit = 1u << (8 * k.size - 1);
    /* no code of 4 bytes or fewer is 2^32: without a sentinel nothing matches it */
    k.sentinel = !sentinel ? 1ull << 32 : k.size == 4 ? 0xffffffffu : k.size == 2 ? 0xffffu : 0xffu;
    k.codes = k.size <= 2 ? 1u << (8 * k.size) : 0;
    k.f16 = t == VKRR_DT_F16;
    if (k.codes && !k.f16)
        k.tab = vkrr_compare_values(t);
    if (k.codes && !k.tab && !k.f16)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory for the %s code table",
                         vkrr_dtype_name(t));
    /* chunk length from n alone (see the header): 1 to 4 Mi elements, at most
     * 1024 chunks below 2^32 elements; scan_f16's integer sums need <= 2^22 */
    k.chunk = n / 1024 + 1;
    k.chunk = k.chunk < (1u << 20) ? (1u << 20) : k.chunk > (1u << 22) ? (1u << 22) : k.chunk;
    k.nchunks = n ? (n + k.chunk - 1) / k.chunk : 0;
    unsigned nt = !k.nchunks ? 0 : hook ? 1 : thread_count(k.nchunks);
    worker w[VKRR_SCAN_MAX_THREADS] = {{0}};
    pthread_t th[VKRR_SCAN_MAX_THREADS];
    bool started[VKRR_SCAN_MAX_THREADS] = {false};
    vkrr_status st = VKRR_OK;
    k.parts = calloc(k.nchunks ? k.nchunks : 1, sizeof *k.parts);
    if (!k.parts)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory to compare %llu elements",
                         (unsigned long long)n);
    for (uint64_t c = 0; c < k.nchunks; c++)
        k.parts[c] = (vkrr_scan){.first_bad = UINT64_MAX, .max_idx = UINT64_MAX};
    for (unsigned i = 0; i < nt; i++) {
        w[i] = (worker){.k = &k, .hook = hook, .first = i, .step = nt};
        if (k.codes && (!(w[i].hist = calloc(k.codes, sizeof *w[i].hist)) ||
                        !(w[i].total = calloc(k.codes, sizeof *w[i].total)))) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory for a histogram");
            goto done;
        }
    }
    /* thread 0 is this one; a thread that cannot start leaves its chunks here */
    for (unsigned i = 1; i < nt; i++)
        started[i] = pthread_create(&th[i], NULL, work, &w[i]) == 0;
    if (nt)
        work(&w[0]);
    for (unsigned i = 1; i < nt; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            work(&w[i]);
    }
    vkrr_scan s = {.first_bad = UINT64_MAX, .max_idx = UINT64_MAX};
    for (uint64_t c = 0; c < k.nchunks; c++)
        merge(&s, &k.parts[c]);
    if (k.codes && nt) {
        for (unsigned i = 1; i < nt; i++)
            for (uint32_t c = 0; c < k.codes; c++)
                w[0].total[c] += w[i].total[c];
        add_hist(&k, &s, w[0].total);
    }
    /* matching elements are numeric with no error, and within any ULP */
    s.nnum += s.exact;
    if (k.flt) {
        s.w1 += s.exact;
        s.w4 += s.exact;
    }
    *out = s;
done:
    for (unsigned i = 0; i < nt; i++) {
        free(w[i].hist);
        free(w[i].total);
    }
    free(k.parts);
    return st;
}
