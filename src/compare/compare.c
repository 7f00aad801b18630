/* compare.c - per-resource metrics: the view is checked, a bit-identical
 * window found with memcmp, anything else scanned element by element
 * (compare_scan.c, the hot loop) and turned into metrics. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_scan.h"
#include "replay.h"

vkrr_tolerance vkrr_tolerance_default(vkrr_dtype t)
{
    switch (t) {
    case VKRR_DT_F16:
    case VKRR_DT_BF16: return (vkrr_tolerance){.atol = -1, .rtol = -1, .max_ulp = 2};
    case VKRR_DT_F32: return (vkrr_tolerance){.atol = 1e-6, .rtol = 1e-5, .max_ulp = 4};
    case VKRR_DT_F64: return (vkrr_tolerance){.atol = 1e-12, .rtol = 1e-10, .max_ulp = 4};
    case VKRR_DT_E4M3:
    case VKRR_DT_E5M2: return (vkrr_tolerance){.atol = -1, .rtol = -1, .max_ulp = 1};
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

/* The code of a 1- or 2-byte element (little-endian). */
static inline uint32_t code_at(const uint8_t *p, unsigned size)
{
    return size == 1 ? p[0] : (uint32_t)(p[0] | (p[1] << 8));
}

static bool all_sentinel(const uint8_t *p, unsigned size)
{
    for (unsigned k = 0; k < size; k++)
        if (p[k] != VKRR_SENTINEL_BYTE)
            return false;
    return true;
}

/* Bytes of ref in [from, to) not hashed yet go into the cursor. */
static void hash_upto(vkrr_hash_cursor *hc, const uint8_t *ref, uint64_t from, uint64_t to)
{
    if (!hc || to <= hc->pos)
        return;
    if (from < hc->pos)
        from = hc->pos;
    hc->h = vkrr_fnv1a64_update(hc->h, ref + from, (size_t)(to - from));
    hc->pos = to;
}

/* A slice of the window: small enough to stay in cache between the hash and
 * the compare that follows it, so the reference is read once. */
#define HASH_SLICE (64u * 1024u)

typedef struct hash_hook {
    vkrr_hash_cursor *hc;
    const uint8_t *ref;   /* the resource */
    uint64_t offset;      /* of the window in it */
    unsigned esize;
} hash_hook;

static void hash_before(void *ctx, uint64_t lo, uint64_t hi)
{
    const hash_hook *h = ctx;
    hash_upto(h->hc, h->ref, h->offset + lo * h->esize, h->offset + hi * h->esize);
}

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
    const uint8_t *a = (const uint8_t *)ref + view->offset;
    const uint8_t *b = (const uint8_t *)cand + view->offset;
    bool flt = vkrr_dtype_is_float(view->dtype);
    const unsigned esize = vkrr_dtype_size(view->dtype);
    const uint64_t nbytes = n * esize;
    bool same = true;
    if (!hc) {
        same = memcmp(a, b, nbytes) == 0;
    } else {
        /* hash and memcmp slice by slice, up to the first slice that differs */
        const uint64_t slice = HASH_SLICE / esize * esize;
        for (uint64_t o = 0; same && o < nbytes; o += slice) {
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
        *out = (vkrr_metrics){.dtype = view->dtype, .tol = t, .count = n, .exact = n,
                              .exact_pct = 100.0, .first_bad = UINT64_MAX,
                              .max_abs_index = UINT64_MAX, .psnr = INFINITY,
                              .within1_ulp_pct = flt ? 100.0 : 0,
                              .within4_ulp_pct = flt ? 100.0 : 0, .pass = true};
        return VKRR_OK;
    }
    vkrr_scan s;
    hash_hook hh = {hc, ref, view->offset, esize};
    vkrr_scan_hook hook = {hash_before, &hh}; /* hashes what the memcmp pass left */
    if ((st = vkrr_compare_scan(view->dtype, a, b, n, &t, view->sentinel, hc ? &hook : NULL, &s, err)) != VKRR_OK)
        return st;

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
    unsigned size = vkrr_dtype_size(view->dtype);
    const double *tab = vkrr_compare_values(view->dtype);
    for (uint64_t i = 0; i < n; i++)
        out[i] = (float)(tab ? tab[code_at(p + i * size, size)]
                             : vkrr_dtype_to_double(view->dtype, p + i * size));
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
    const double *tab = vkrr_compare_values(view->dtype);
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *pa = a + i * size, *pb = b + i * size;
        if (!memcmp(pa, pb, size)) {
            out[i] = 0;
            continue;
        }
        if (view->sentinel && all_sentinel(pb, size)) {
            out[i] = INFINITY;
            continue;
        }
        double r = tab ? tab[code_at(pa, size)] : vkrr_dtype_to_double(view->dtype, pa);
        double c = tab ? tab[code_at(pb, size)] : vkrr_dtype_to_double(view->dtype, pb);
        if (isnan(r) && isnan(c))
            out[i] = 0;
        else if (isnan(r) || isnan(c) || isinf(r) || isinf(c))
            out[i] = r == c ? 0.0f : INFINITY;
        else
            out[i] = (float)fabs(r - c);
    }
    return VKRR_OK;
}
