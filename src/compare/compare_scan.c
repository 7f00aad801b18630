/* compare_scan.c - the element loop of vkrr_compare (see compare_scan.h). */
#include "scan_internal.h"
#include "cores.h"
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

/* ---- the element loops ----------------------------------------------------- */

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
static inline double tabled(const scanctx *k, uint32_t c) { return k->tab[c]; }
TABLE_SCAN(scan_table8, code8, tabled)
TABLE_SCAN(scan_table16, code16, tabled)

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

static inline double dec64(vkrr_dtype t, uint64_t v)
{
    if (t == VKRR_DT_F64) {
        double d;
        memcpy(&d, &v, 8);
        return d;
    }
    return t == VKRR_DT_S64 ? (double)(int64_t)v : (double)v;
}

/* 8-byte types, as 4-byte ones; an integer pair's distance is taken in
 * integers (exact, then rounded to a double: two values past 2^53 that
 * differ by 1 are 1 apart, not 0), an f64 pair's ULPs in 64-bit
 * sign-magnitude (saturated). */
static void scan_word64(const scanctx *k, vkrr_scan *p0, uint64_t lo, uint64_t hi)
{
    const vkrr_dtype t = k->dtype;
    vkrr_scan q = *p0, *p = &q;
    for (uint64_t i = lo; i < hi; i++) {
        uint64_t x, y;
        memcpy(&x, k->a + 8 * i, 8);
        memcpy(&y, k->b + 8 * i, 8);
        double r = dec64(t, x);
        if (x == y) {
            p->exact++;
            ref_stat(p, r);
            continue;
        }
        double c = dec64(t, y);
        bool exact;
        /* special() sees a 32-bit code: the sentinel's when y is all 0xFF */
        uint32_t ys = y == UINT64_MAX ? (uint32_t)k->sentinel : (uint32_t)k->sentinel + 1u;
        if (special(p, i, ys, k->sentinel, r, c, &exact)) {
            if (exact) {
                p->exact++;
                ref_stat(p, r);
            }
            continue;
        }
        ref_stat(p, r);
        double d;
        int64_t ulp = -1;
        if (t == VKRR_DT_F64) {
            d = fabs(r - c);
            __int128 ix = (int64_t)(x & ~(1ull << 63)), iy = (int64_t)(y & ~(1ull << 63));
            __int128 u = (x >> 63 ? -ix : ix) - (y >> 63 ? -iy : iy);
            u = u < 0 ? -u : u;
            ulp = u > INT64_MAX ? INT64_MAX : (int64_t)u;
        } else {
            uint64_t ox = t == VKRR_DT_S64 ? x ^ (1ull << 63) : x; /* order-preserving */
            uint64_t oy = t == VKRR_DT_S64 ? y ^ (1ull << 63) : y;
            d = (double)(ox > oy ? ox - oy : oy - ox);
        }
        numeric_d(k, p, i, r, c, d, ulp);
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
    for (uint32_t h = 0; h < HIST_WAYS; h++)
        for (uint32_t c = 0; c < codes; c++) {
            w->total[c] += w->hist[h * codes + c];
            w->hist[h * codes + c] = 0;
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
                vkrr_scan_f16(k, p, w->hist, s, e);
            else if (k->size == 2)
                scan_table16(k, p, w->hist, s, e);
            else if (k->size == 4)
                scan_word32(k, p, s, e);
            else
                scan_word64(k, p, s, e);
        }
        if (k->simd)
            vkrr_scan_f16_sums(k, p, lo, hi);
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

/* Histograms are kept for the next compare (at most VKRR_SCAN_MAX_THREADS
 * of each size): allocating and freeing 1.5 MiB a thread a compare cost
 * page faults and, on free, the kernel's TLB shootdowns across threads,
 * which made a compare of a few MB twice as slow as its scan. */
typedef struct hist_bufs {
    uint32_t *hist;
    uint64_t *total;
} hist_bufs;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static hist_bufs pool[2][VKRR_SCAN_MAX_THREADS]; /* [codes == 65536] */
static unsigned npool[2];

/* w's histogram, zeroed (a kept one is: flush leaves hist zero). */
static bool hist_take(worker *w, uint32_t codes)
{
    int big = codes > 256;
    pthread_mutex_lock(&pool_lock);
    hist_bufs b = npool[big] ? pool[big][--npool[big]] : (hist_bufs){0};
    pthread_mutex_unlock(&pool_lock);
    if (b.hist) {
        memset(b.total, 0, codes * sizeof *b.total);
    } else if (!(b.hist = calloc((size_t)codes * HIST_WAYS, sizeof *b.hist)) ||
               !(b.total = calloc(codes, sizeof *b.total))) {
        free(b.hist);
        return false;
    }
    w->hist = b.hist;
    w->total = b.total;
    return true;
}

/* Back to the pool when there is room (hist zero: flushed), else freed. */
static void hist_give(worker *w, uint32_t codes)
{
    if (!w->hist)
        return;
    int big = codes > 256;
    bool kept = false;
    if (w->since_flush == 0) {
        pthread_mutex_lock(&pool_lock);
        if (npool[big] < VKRR_SCAN_MAX_THREADS) {
            pool[big][npool[big]++] = (hist_bufs){w->hist, w->total};
            kept = true;
        }
        pthread_mutex_unlock(&pool_lock);
    }
    if (!kept) {
        free(w->hist);
        free(w->total);
    }
    w->hist = NULL;
    w->total = NULL;
}

static unsigned thread_count(uint64_t nchunks)
{
    uint64_t t = vkrr_cores(VKRR_SCAN_MAX_THREADS);
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
    k.signbit = k.size <= 4 ? 1u << (8 * k.size - 1) : 0; /* 8 bytes: scan_word64's own */
    /* no code of 4 bytes or fewer is 2^32: without a sentinel nothing matches
     * it (scan_word64 maps an all-0xFF element onto the 4-byte sentinel) */
    k.sentinel = !sentinel ? 1ull << 32 : k.size >= 4 ? 0xffffffffu : k.size == 2 ? 0xffffu : 0xffu;
    k.codes = k.size <= 2 ? 1u << (8 * k.size) : 0;
    k.f16 = t == VKRR_DT_F16;
    k.simd = k.f16 && vkrr_compare_scan_simd();
    if (k.codes && !k.f16)
        k.tab = vkrr_compare_values(t);
    if (k.codes && !k.tab && !k.f16)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory for the %s code table",
                         vkrr_dtype_name(t));
    /* chunk length from n alone (see the header): 1 to 4 Mi elements, at most
     * 1024 chunks below 2^32 elements; f16_run's packed counts need <= 2^22 */
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
        if (k.codes && !hist_take(&w[i], k.codes)) {
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
        hist_give(&w[i], k.codes);
    }
    free(k.parts);
    return st;
}
