/* ptx_testutil.h - what the PTX interpreter's tests share: loading the test
 * kernels' PTX (built by nvcc here, or the checked-in copy), building a
 * parameter block, running a kernel on host buffers, and reference helpers
 * that compute expected values without the interpreter's code (brute force
 * over every code of a small float format).  Header-only: each test includes
 * it once. */
#ifndef VKRR_PTX_TESTUTIL_H
#define VKRR_PTX_TESTUTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fpformat.h"
#include "ptx.h"
#include "testutil.h"

typedef struct ptxt_args {
    uint8_t bytes[1024];
    uint32_t n;
    vkrr_ptx_region regions[16];
    uint32_t nregions;
} ptxt_args;

static inline void ptxt_ptr(ptxt_args *a, void *p, size_t size)
{
    a->n = (a->n + 7u) & ~7u;
    uint64_t v = (uint64_t)(uintptr_t)p;
    memcpy(a->bytes + a->n, &v, 8);
    a->n += 8;
    if (p && size)
        a->regions[a->nregions++] = (vkrr_ptx_region){p, size, true, 0};
}

static inline void ptxt_u32(ptxt_args *a, uint32_t v)
{
    a->n = (a->n + 3u) & ~3u;
    memcpy(a->bytes + a->n, &v, 4);
    a->n += 4;
}

static inline void ptxt_u64(ptxt_args *a, uint64_t v)
{
    a->n = (a->n + 7u) & ~7u;
    memcpy(a->bytes + a->n, &v, 8);
    a->n += 8;
}

/* NAME.smNN.ptx from the kernel dir; NULL (and a failed check) when it fails */
static inline vkrr_ptx_module *ptxt_load(const char *name, unsigned sm)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.sm%u.ptx", VKRR_PTX_KERNEL_DIR, name, sm);
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load_file(&m, path, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    return m;
}

static inline vkrr_status ptxt_run_ex(const vkrr_ptx_module *m, const char *entry, const ptxt_args *a,
                               uint32_t grid, uint32_t block, uint32_t shared,
                               const vkrr_cutex *tex, uint32_t ntex, const vkrr_cusurf *surf,
                               uint32_t nsurf, vkrr_error *err)
{
    vkrr_ptx_launch l = {.grid = {grid, 1, 1}, .block = {block, 1, 1}, .shared_bytes = shared,
                         .params = a->bytes, .params_bytes = a->n, .regions = a->regions,
                         .nregions = a->nregions, .textures = tex, .ntextures = ntex,
                         .surfaces = surf, .nsurfaces = nsurf, .max_steps = 1u << 26};
    return vkrr_ptx_run(m, entry, &l, err);
}

/* the line of PTX text that holds needle (1-based), -1 if none does */
static inline long ptxt_line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    long line = 1;
    for (const char *p = text; at && p < at; p++)
        line += *p == '\n';
    return at ? line : -1;
}

/* runs and checks it ran */
static inline bool ptxt_run(const vkrr_ptx_module *m, const char *entry, const ptxt_args *a,
                     uint32_t grid, uint32_t block, uint32_t shared)
{
    vkrr_error err = {0};
    vkrr_status st = ptxt_run_ex(m, entry, a, grid, block, shared, NULL, 0, NULL, 0, &err);
    if (st != VKRR_OK) {
        fprintf(stderr, "%s: ", entry);
        vkrr_error_print(&err, stderr);
    }
    return CHECK(st == VKRR_OK);
}

/* one warp of entry, checked to have run; *standins: the approx.h stand-in
 * bits the launch reports */
static inline bool ptxt_run_standins(const vkrr_ptx_module *m, const char *entry, const ptxt_args *a,
                                     unsigned *standins)
{
    vkrr_error err = {0};
    vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = a->bytes, .params_bytes = a->n,
                         .regions = a->regions, .nregions = a->nregions, .standins = standins};
    vkrr_status st = vkrr_ptx_run(m, entry, &l, &err);
    if (st != VKRR_OK) {
        fprintf(stderr, "%s: ", entry);
        vkrr_error_print(&err, stderr);
    }
    return CHECK(st == VKRR_OK);
}

/* What heap_ops's k_heap (tests/ptx/heap_ops.cu) leaves in out[b * threads
 * + t]: the sum of i * gid over the n + 1 ints it malloc'd (n = t % 7 + 1),
 * plus what its neighbour wrote to the block's malloc'd buffer. */
static inline int ptxt_heap_want(unsigned b, unsigned t, unsigned threads)
{
    unsigned gid = b * threads + t, n = t % 7 + 1;
    int want = 0;
    for (unsigned i = 0; i <= n; i++)
        want += (int)(i * gid);
    return want + (int)(((t + 1) % threads) * 3 + b);
}

/* deterministic inputs with plenty of edge cases */
static inline uint32_t ptxt_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static inline float ptxt_f(uint32_t u) { return vkrr_f32_from_bits(u); }
static inline uint32_t ptxt_u(float f) { return vkrr_f32_bits(f); }

/* ---- reference small floats: decode by definition, round by search ---------------- */
typedef struct ptxt_fmt {
    int ebits, mbits;
    bool has_inf; /* false: e4m3 (the all-ones code with all-ones mantissa is NaN) */
} ptxt_fmt;
static const ptxt_fmt PTXT_F16 = {5, 10, true}, PTXT_BF16 = {8, 7, true},
                      PTXT_E4M3 = {4, 3, false}, PTXT_E5M2 = {5, 2, true};

/* exact value of a code; NaN for NaN codes */
static inline double ptxt_decode(const ptxt_fmt *f, uint32_t code)
{
    uint32_t mmask = (1u << f->mbits) - 1u, emask = (1u << f->ebits) - 1u;
    uint32_t m = code & mmask, e = (code >> f->mbits) & emask;
    int neg = (code >> (f->ebits + f->mbits)) & 1u, bias = (1 << (f->ebits - 1)) - 1;
    double v;
    if (f->has_inf && e == emask)
        v = m ? NAN : INFINITY;
    else if (!f->has_inf && e == emask && m == mmask)
        return NAN;
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - f->mbits);
    else
        v = ldexp((double)(m | (1u << f->mbits)), (int)e - bias - f->mbits);
    return neg ? -v : v;
}

/* Every finite code of a format sorted by value (+0 before -0 is irrelevant:
 * zeros are handled apart), built once per format. */
typedef struct ptxt_entry {
    long double v;
    uint32_t code;
} ptxt_entry;

static inline int ptxt_entry_cmp(const void *a, const void *b)
{
    long double x = ((const ptxt_entry *)a)->v, y = ((const ptxt_entry *)b)->v;
    return x < y ? -1 : x > y;
}

static inline const ptxt_entry *ptxt_table(const ptxt_fmt *f, uint32_t *n)
{
    static ptxt_entry *tabs[4];
    static uint32_t counts[4];
    int k = f == &PTXT_F16 ? 0 : f == &PTXT_BF16 ? 1 : f == &PTXT_E4M3 ? 2 : 3;
    if (!tabs[k]) {
        uint32_t ncodes = 1u << (1 + f->ebits + f->mbits), m = 0;
        tabs[k] = malloc(sizeof *tabs[k] * ncodes);
        for (uint32_t c = 0; c < ncodes; c++) {
            double v = ptxt_decode(f, c);
            if (v != v || isinf(v) || (v == 0 && c))
                continue; /* NaN, Inf, and -0 (0 is code 0) */
            tabs[k][m].v = v;
            tabs[k][m++].code = c;
        }
        qsort(tabs[k], m, sizeof *tabs[k], ptxt_entry_cmp);
        counts[k] = m;
    }
    *n = counts[k];
    return tabs[k];
}

/* The code of f nearest to x (mode 0 nearest-even, 1 toward zero, 2 down, 3 up)
 * among every finite code; satfinite clamps to the largest finite value (and
 * is implied for e4m3, which has no infinity).  x must not be NaN. */
static inline uint32_t ptxt_round(const ptxt_fmt *f, long double x, int mode, bool satfinite)
{
    uint32_t n;
    const ptxt_entry *t = ptxt_table(f, &n);
    uint32_t sign = 1u << (f->ebits + f->mbits);
    uint32_t inf = f->has_inf ? ((1u << f->ebits) - 1u) << f->mbits : 0x7fu;
    long double maxv = t[n - 1].v;
    bool neg = x < 0 || (x == 0 && signbit(x));
    if (x > maxv || x < -maxv) {
        bool toward_zero = mode == 1 || (mode == 2 && !neg) || (mode == 3 && neg);
        long double ax = neg ? -x : x;
        uint32_t mc = t[n - 1].code | (neg ? sign : 0);
        if (satfinite || !f->has_inf || toward_zero)
            return mc;
        if (mode == 0) {
            long double half = (maxv - t[n - 2].v) / 2;
            if (ax < maxv + half || (ax == maxv + half && !(t[n - 1].code & 1u)))
                return mc;
        }
        return neg ? inf | sign : inf;
    }
    /* t[lo].v <= x < t[lo + 1].v */
    uint32_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (t[mid].v <= x)
            lo = mid;
        else
            hi = mid;
    }
    if (t[hi].v <= x)
        lo = hi;
    uint32_t r;
    if (t[lo].v == x) {
        r = t[lo].code;
    } else {
        const ptxt_entry *below = &t[lo], *above = &t[lo + 1];
        switch (mode) {
        case 1: r = x > 0 ? below->code : above->code; break;
        case 2: r = below->code; break;
        case 3: r = above->code; break;
        default: {
            long double dl = x - below->v, dh = above->v - x;
            r = dl < dh ? below->code : dh < dl ? above->code : (below->code & 1u) ? above->code : below->code;
        }
        }
    }
    /* zero results keep the sign of x */
    if (ptxt_decode(f, r) == 0.0)
        r = neg ? sign : 0;
    return r;
}

#endif
