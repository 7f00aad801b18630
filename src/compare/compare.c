/* compare.c - per-resource metrics.  The f16 and f32 loops are written out
 * (table lookup, no per-element call) because they carry almost all the
 * bytes; the rarer types go through vkrr_dtype_to_double. */
#include "compare.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

vkrr_tolerance vkrr_tolerance_default(vkrr_dtype t)
{
    switch (t) {
    case VKRR_DT_F16:
    case VKRR_DT_BF16: return (vkrr_tolerance){.atol = -1, .rtol = -1, .max_ulp = 2};
    case VKRR_DT_F32: return (vkrr_tolerance){.atol = 1e-6, .rtol = 1e-5, .max_ulp = 4};
    case VKRR_DT_E4M3: return (vkrr_tolerance){.atol = -1, .rtol = -1, .max_ulp = 1};
    default: return (vkrr_tolerance){.atol = -1, .rtol = -1, .max_ulp = -1};
    }
}

vkrr_elem_pos vkrr_compare_position(const vkrr_view *v, uint64_t index)
{
    vkrr_elem_pos p = {0};
    uint64_t c = v->channels ? v->channels : 1, w = v->width ? v->width : 1;
    uint64_t h = v->height ? v->height : 1;
    p.channel = (uint32_t)(index % c);
    index /= c;
    p.x = (uint32_t)(index % w);
    index /= w;
    p.y = (uint32_t)(index % h);
    p.plane = (uint32_t)(index / h);
    return p;
}

vkrr_view vkrr_compare_flat_view(vkrr_dtype t, uint64_t bytes)
{
    uint64_t n = bytes / vkrr_dtype_size(t);
    /* width is 32-bit: a longer buffer folds into rows of the largest power
     * of two up to 2^20 that divides its length */
    vkrr_view v = {.dtype = t, .offset = 0, .width = (uint32_t)n, .height = 1, .planes = 1,
                   .channels = 1};
    if (n > UINT32_MAX) {
        uint64_t w = 1u << 20;
        while (w > 1 && n % w)
            w >>= 1;
        v.width = (uint32_t)w;
        v.height = (uint32_t)(n / w > UINT32_MAX ? UINT32_MAX : n / w);
    }
    return v;
}

/* Checks the view against the resource; fills the element count. */
static vkrr_status check_view(const vkrr_view *v, uint64_t resource_bytes, uint64_t *count,
                              vkrr_error *err)
{
    if ((unsigned)v->dtype >= VKRR_DT_COUNT)
        return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1, "view has an unknown element type %d",
                         (int)v->dtype);
    /* each factor < 2^32, so three products of two fit in 64 bits only when
     * checked step by step */
    uint64_t n = (uint64_t)v->width * v->height;
    if (v->planes && n > UINT64_MAX / v->planes)
        goto range;
    n *= v->planes;
    if (v->channels && n > UINT64_MAX / v->channels)
        goto range;
    n *= v->channels;
    uint64_t size = vkrr_dtype_size(v->dtype);
    if (n > UINT64_MAX / size || v->offset > resource_bytes || n * size > resource_bytes - v->offset)
        goto range;
    *count = n;
    return VKRR_OK;
range:
    return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, (long)v->offset,
                     "view %ux%u x%u planes x%u channels of %s at byte %llu does not fit in %llu "
                     "bytes",
                     v->width, v->height, v->planes, v->channels, vkrr_dtype_name(v->dtype),
                     (unsigned long long)v->offset, (unsigned long long)resource_bytes);
}

/* f16 -> float for all 65536 codes, built once. */
static float f16_table[65536];
static pthread_once_t f16_once = PTHREAD_ONCE_INIT;

static void f16_table_init(void)
{
    for (uint32_t h = 0; h < 65536; h++)
        f16_table[h] = vkrr_f16_to_f32((uint16_t)h);
}

static const float *f16_values(void)
{
    pthread_once(&f16_once, f16_table_init);
    return f16_table;
}

static inline uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* ---- accumulation ------------------------------------------------------- */

typedef struct acc {
    bool use_abs;
    double atol, rtol;
    int64_t max_ulp;
    uint64_t exact, unwritten, nan_mm, inf_mm, oot, first_bad;
    uint64_t nnum;
    double sum_abs, sum_sq, sum_ref_sq;
    double max_abs, max_ref, max_cand;
    uint64_t max_idx;
    double peak, rmin, rmax;
    bool have_ref;
    int64_t ulp_seen;
    uint64_t w1, w4;
} acc;

static inline void note_ref(acc *s, double r)
{
    if (!isfinite(r))
        return;
    double a = fabs(r);
    if (a > s->peak)
        s->peak = a;
    if (!s->have_ref || r < s->rmin)
        s->rmin = r;
    if (!s->have_ref || r > s->rmax)
        s->rmax = r;
    s->have_ref = true;
}

static inline void note_bad(acc *s, uint64_t i)
{
    if (s->first_bad == UINT64_MAX)
        s->first_bad = i;
}

static inline void acc_exact(acc *s, double r)
{
    s->exact++;
    s->nnum++;
    s->w1++;
    s->w4++;
    note_ref(s, r);
    if (isfinite(r))
        s->sum_ref_sq += r * r;
}

static inline void acc_unwritten(acc *s, uint64_t i, double r)
{
    s->unwritten++;
    note_bad(s, i);
    note_ref(s, r);
}

/* A pair that is not bit-identical; ulp < 0: no ULP distance (not a float type). */
static inline void acc_diff(acc *s, uint64_t i, double r, double c, int64_t ulp)
{
    bool rn = isnan(r), cn = isnan(c);
    if (rn && cn) {
        acc_exact(s, r);
        return;
    }
    note_ref(s, r);
    if (rn || cn) {
        s->nan_mm++;
        note_bad(s, i);
        return;
    }
    if (isinf(r) || isinf(c)) {
        if (r == c) { /* same Inf, other bits: only possible for BYTES-like views */
            s->exact++;
            s->nnum++;
            return;
        }
        s->inf_mm++;
        note_bad(s, i);
        return;
    }
    double d = fabs(r - c);
    s->nnum++;
    s->sum_abs += d;
    s->sum_sq += d * d;
    s->sum_ref_sq += r * r;
    if (d > s->max_abs) {
        s->max_abs = d;
        s->max_idx = i;
        s->max_ref = r;
        s->max_cand = c;
    }
    if (ulp >= 0) {
        if (ulp > s->ulp_seen)
            s->ulp_seen = ulp;
        s->w1 += ulp <= 1;
        s->w4 += ulp <= 4;
    }
    bool ok = (s->use_abs && d <= s->atol + s->rtol * fabs(r)) ||
              (s->max_ulp >= 0 && ulp >= 0 && ulp <= s->max_ulp);
    if (!ok) {
        s->oot++;
        note_bad(s, i);
    }
}

static inline int64_t sm_index(uint32_t bits, uint32_t signbit)
{
    int64_t mag = (int64_t)(bits & (signbit - 1u));
    return (bits & signbit) ? -mag : mag;
}

static inline int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* The loops below cover elements [i0, i1) of windows a and b. */
static void run_f16(acc *s, const uint8_t *a, const uint8_t *b, uint64_t i0, uint64_t i1)
{
    const float *tab = f16_values();
    for (uint64_t i = i0; i < i1; i++) {
        uint16_t x = ld16(a + 2 * i), y = ld16(b + 2 * i);
        if (x == y) {
            acc_exact(s, tab[x]);
            continue;
        }
        if (y == 0xffffu) {
            acc_unwritten(s, i, tab[x]);
            continue;
        }
        bool nan = (x & 0x7fffu) > 0x7c00u || (y & 0x7fffu) > 0x7c00u;
        int64_t ulp = nan ? -1 : abs64(sm_index(x, 0x8000u) - sm_index(y, 0x8000u));
        acc_diff(s, i, tab[x], tab[y], ulp);
    }
}

static void run_f32(acc *s, const uint8_t *a, const uint8_t *b, uint64_t i0, uint64_t i1)
{
    for (uint64_t i = i0; i < i1; i++) {
        uint32_t x = ld32(a + 4 * i), y = ld32(b + 4 * i);
        float fx, fy;
        memcpy(&fx, &x, 4);
        if (x == y) {
            acc_exact(s, fx);
            continue;
        }
        if (y == 0xffffffffu) {
            acc_unwritten(s, i, fx);
            continue;
        }
        memcpy(&fy, &y, 4);
        bool nan = (x & 0x7fffffffu) > 0x7f800000u || (y & 0x7fffffffu) > 0x7f800000u;
        int64_t ulp = nan ? -1 : abs64(sm_index(x, 0x80000000u) - sm_index(y, 0x80000000u));
        acc_diff(s, i, fx, fy, ulp);
    }
}

static bool all_sentinel(const uint8_t *p, unsigned size)
{
    for (unsigned k = 0; k < size; k++)
        if (p[k] != VKRR_SENTINEL_BYTE)
            return false;
    return true;
}

static void run_generic(acc *s, vkrr_dtype t, const uint8_t *a, const uint8_t *b, uint64_t i0,
                        uint64_t i1)
{
    unsigned size = vkrr_dtype_size(t);
    bool flt = vkrr_dtype_is_float(t);
    for (uint64_t i = i0; i < i1; i++) {
        const uint8_t *pa = a + i * size, *pb = b + i * size;
        double r = vkrr_dtype_to_double(t, pa);
        if (!memcmp(pa, pb, size)) {
            acc_exact(s, r);
            continue;
        }
        if (all_sentinel(pb, size)) {
            acc_unwritten(s, i, r);
            continue;
        }
        double c = vkrr_dtype_to_double(t, pb);
        int64_t ulp = -1;
        if (flt && !isnan(r) && !isnan(c))
            ulp = abs64(vkrr_dtype_ulp_index(t, pa) - vkrr_dtype_ulp_index(t, pb));
        acc_diff(s, i, r, c, ulp);
    }
}

/* Bytes of ref in [from, to) not hashed yet go into the cursor. */
static inline void hash_upto(vkrr_hash_cursor *hc, const uint8_t *ref, uint64_t from, uint64_t to)
{
    if (!hc || to <= hc->pos)
        return;
    if (from < hc->pos)
        from = hc->pos;
    hc->h = vkrr_fnv1a64_update(hc->h, ref + from, (size_t)(to - from));
    hc->pos = to;
}

/* Bytes a slice of the window: small enough to stay in cache between the
 * hash and the compare that follows it, so the reference is read once. */
#define HASH_SLICE (64u * 1024u)

vkrr_status vkrr_compare(const vkrr_view *view, const void *ref, const void *cand,
                         uint64_t resource_bytes, const vkrr_tolerance *tol,
                         vkrr_metrics *out, vkrr_error *err)
{
    return vkrr_compare_hashed(view, ref, cand, resource_bytes, tol, NULL, out, err);
}

vkrr_status vkrr_compare_hashed(const vkrr_view *view, const void *ref, const void *cand,
                                uint64_t resource_bytes, const vkrr_tolerance *tol,
                                vkrr_hash_cursor *hc, vkrr_metrics *out, vkrr_error *err)
{
    uint64_t n = 0;
    vkrr_status st = check_view(view, resource_bytes, &n, err);
    if (st != VKRR_OK)
        return st;
    vkrr_tolerance t = tol ? *tol : vkrr_tolerance_default(view->dtype);
    acc s = {.use_abs = t.atol >= 0 || t.rtol >= 0,
             .atol = t.atol > 0 ? t.atol : 0,
             .rtol = t.rtol > 0 ? t.rtol : 0,
             .max_ulp = vkrr_dtype_is_float(view->dtype) ? t.max_ulp : -1,
             .first_bad = UINT64_MAX,
             .max_idx = UINT64_MAX};
    const uint8_t *a = (const uint8_t *)ref + view->offset;
    const uint8_t *b = (const uint8_t *)cand + view->offset;
    const unsigned esize = vkrr_dtype_size(view->dtype);
    const uint64_t nbytes = n * esize, slice = HASH_SLICE / esize * esize;
    bool same;
    if (!hc) {
        same = memcmp(a, b, nbytes) == 0;
    } else {
        uint64_t o = 0;
        for (same = true; same && o < nbytes; o += slice) {
            uint64_t len = nbytes - o < slice ? nbytes - o : slice;
            hash_upto(hc, ref, view->offset + o, view->offset + o + len);
            same = memcmp(a + o, b + o, len) == 0;
        }
    }
    if (same) {
        /* Bit-identical, the common case of a good port: every element is
         * an exact match, and memcmp runs at memory speed where the
         * per-element loop would decode every value.  The reference's range
         * and peak are left 0: nothing needs them when nothing differs. */
        bool flt = vkrr_dtype_is_float(view->dtype);
        *out = (vkrr_metrics){.dtype = view->dtype, .tol = t, .count = n, .exact = n,
                              .exact_pct = 100.0, .first_bad = UINT64_MAX,
                              .max_abs_index = UINT64_MAX, .psnr = INFINITY,
                              .within1_ulp_pct = flt ? 100.0 : 0,
                              .within4_ulp_pct = flt ? 100.0 : 0, .pass = true};
        return VKRR_OK;
    }
    /* In slices, each hashed (where not yet) just before it is compared. */
    const uint64_t per = slice / esize;
    for (uint64_t i0 = 0; i0 < n; i0 += per) {
        uint64_t i1 = n - i0 < per ? n : i0 + per;
        hash_upto(hc, ref, view->offset + i0 * esize, view->offset + i1 * esize);
        if (view->dtype == VKRR_DT_F16)
            run_f16(&s, a, b, i0, i1);
        else if (view->dtype == VKRR_DT_F32)
            run_f32(&s, a, b, i0, i1);
        else
            run_generic(&s, view->dtype, a, b, i0, i1);
    }

    vkrr_metrics m = {.dtype = view->dtype, .tol = t, .count = n};
    m.exact = s.exact;
    m.exact_pct = n ? 100.0 * (double)s.exact / (double)n : 100.0;
    m.unwritten = s.unwritten;
    m.nan_mismatch = s.nan_mm;
    m.inf_mismatch = s.inf_mm;
    m.out_of_tol = s.oot;
    m.first_bad = s.first_bad;
    m.max_abs = s.max_abs;
    m.max_abs_index = s.max_idx;
    if (s.max_idx != UINT64_MAX)
        m.max_abs_pos = vkrr_compare_position(view, s.max_idx);
    m.max_abs_ref = s.max_ref;
    m.max_abs_cand = s.max_cand;
    m.mean_abs = s.nnum ? s.sum_abs / (double)s.nnum : 0;
    m.rmse = s.nnum ? sqrt(s.sum_sq / (double)s.nnum) : 0;
    m.nmse = s.sum_ref_sq > 0 ? s.sum_sq / s.sum_ref_sq : (s.sum_sq > 0 ? INFINITY : 0);
    m.psnr = m.rmse > 0 ? 20.0 * log10(s.peak / m.rmse) : INFINITY;
    m.peak = s.peak;
    m.ref_min = s.rmin;
    m.ref_max = s.rmax;
    bool flt = vkrr_dtype_is_float(view->dtype);
    m.max_ulp = flt ? s.ulp_seen : 0;
    m.within1_ulp_pct = flt && n ? 100.0 * (double)s.w1 / (double)n : (flt ? 100.0 : 0);
    m.within4_ulp_pct = flt && n ? 100.0 * (double)s.w4 / (double)n : (flt ? 100.0 : 0);
    m.pass = vkrr_compare_pass(&m);
    *out = m;
    return VKRR_OK;
}

bool vkrr_compare_pass(const vkrr_metrics *m)
{
    return m->unwritten == 0 && m->nan_mismatch == 0 && m->inf_mismatch == 0 && m->out_of_tol == 0;
}

vkrr_status vkrr_compare_decode(const vkrr_view *view, const void *data, uint64_t resource_bytes,
                                float *out, vkrr_error *err)
{
    uint64_t n = 0;
    vkrr_status st = check_view(view, resource_bytes, &n, err);
    if (st != VKRR_OK)
        return st;
    const uint8_t *p = (const uint8_t *)data + view->offset;
    if (view->dtype == VKRR_DT_F16) {
        const float *tab = f16_values();
        for (uint64_t i = 0; i < n; i++)
            out[i] = tab[ld16(p + 2 * i)];
        return VKRR_OK;
    }
    unsigned size = vkrr_dtype_size(view->dtype);
    for (uint64_t i = 0; i < n; i++)
        out[i] = (float)vkrr_dtype_to_double(view->dtype, p + i * size);
    return VKRR_OK;
}

vkrr_status vkrr_compare_error_map(const vkrr_view *view, const void *ref, const void *cand,
                                   uint64_t resource_bytes, float *out, vkrr_error *err)
{
    uint64_t n = 0;
    vkrr_status st = check_view(view, resource_bytes, &n, err);
    if (st != VKRR_OK)
        return st;
    unsigned size = vkrr_dtype_size(view->dtype);
    const uint8_t *a = (const uint8_t *)ref + view->offset;
    const uint8_t *b = (const uint8_t *)cand + view->offset;
    const float *tab = view->dtype == VKRR_DT_F16 ? f16_values() : NULL;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *pa = a + i * size, *pb = b + i * size;
        if (!memcmp(pa, pb, size)) {
            out[i] = 0;
            continue;
        }
        if (all_sentinel(pb, size)) {
            out[i] = INFINITY;
            continue;
        }
        double r = tab ? tab[ld16(pa)] : vkrr_dtype_to_double(view->dtype, pa);
        double c = tab ? tab[ld16(pb)] : vkrr_dtype_to_double(view->dtype, pb);
        if (isnan(r) && isnan(c))
            out[i] = 0;
        else if (isnan(r) || isnan(c) || isinf(r) || isinf(c))
            out[i] = r == c ? 0.0f : INFINITY;
        else
            out[i] = (float)fabs(r - c);
    }
    return VKRR_OK;
}
