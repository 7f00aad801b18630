/* capture_hash.c - the log's evidence of the dumps: which hash function
 * hash= is, the bridge's statistics, and one check of a dump against both;
 * and the capture's identity.
 *
 * The d4r bridge logs FNV-1a 64 from a basis of its own (hash.h); vkrr's
 * older writer logged the standard one; another bridge might hash another
 * way, which would make every dump read "changed since capture", a false
 * alarm on every launch.  So before the hashes are trusted, the smallest few
 * dumps that carry one are hashed from both bases: one agreeing is proof of
 * the function (a dump changed after capture cannot agree by chance); none
 * agreeing means the capture's hashes are not ours to check.  The
 * statistics are probed the same way. */
#include "capture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpformat.h"
#include "hash.h"

#define PROBES 3

typedef struct probe {
    const char *path;
    uint64_t bytes;
    const vkrr_dump_stats *s;
} probe;

/* Keeps the PROBES smallest candidates, smallest first. */
static void consider(probe *p, unsigned *n, const char *path, uint64_t bytes,
                     const vkrr_dump_stats *s)
{
    unsigned k = *n < PROBES ? (*n)++ : PROBES;
    if (k == PROBES && bytes >= p[PROBES - 1].bytes)
        return;
    if (k == PROBES)
        k--;
    while (k > 0 && p[k - 1].bytes > bytes) {
        p[k] = p[k - 1];
        k--;
    }
    p[k] = (probe){path, bytes, s};
}

/* The smallest dumps whose log line has what `want` picks. */
static unsigned smallest(const vkrr_capture *cap, bool stats, probe *p)
{
    unsigned n = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        for (uint32_t a = 0; a < l->nallocs; a++) {
            const vkrr_dump_stats *s = &l->allocs[a].post_log;
            if ((stats ? s->has_nonzero || s->has_f16 || s->has_f32 : s->has_hash) && l->allocs[a].post_path)
                consider(p, &n, l->allocs[a].post_path, l->allocs[a].size, s);
        }
        for (uint32_t k = 0; k < l->nimages; k++) {
            const vkrr_image *im = &l->images[k];
            const vkrr_dump_stats *s = &im->dump_log;
            if ((stats ? s->has_nonzero || s->has_f16 || s->has_f32 : s->has_hash) && im->dump_path &&
                !im->dump_damaged)
                consider(p, &n, im->dump_path, im->dump_bytes, s);
        }
    }
    return n;
}

const char *vkrr_capture_hashes_name(vkrr_capture_hashes h)
{
    switch (h) {
    case VKRR_HASHES_FNV1A64: return "FNV-1a 64";
    case VKRR_HASHES_BRIDGE: return "FNV-1a 64 (the bridge's basis)";
    case VKRR_HASHES_FOREIGN: return "foreign";
    default: return "";
    }
}

vkrr_capture_integrity vkrr_capture_check_integrity(const vkrr_capture *cap)
{
    vkrr_capture_integrity ig = {0};
    probe p[PROBES];
    unsigned n = smallest(cap, false, p), tried = 0;
    ig.hashes = n ? VKRR_HASHES_FOREIGN : VKRR_HASHES_NONE;
    for (unsigned k = 0; k < n && ig.hashes == VKRR_HASHES_FOREIGN; k++) {
        vkrr_mapfile m = {0};
        if (vkrr_mapfile_open(&m, p[k].path, p[k].bytes, NULL) != VKRR_OK)
            continue; /* damaged: validate says so where it reads it */
        tried++;
        if (vkrr_fnv1a64_update(VKRR_FNV1A64_BRIDGE_INIT, m.data, m.size) == p[k].s->hash)
            ig.hashes = VKRR_HASHES_BRIDGE;
        else if (vkrr_fnv1a64(m.data, m.size) == p[k].s->hash)
            ig.hashes = VKRR_HASHES_FNV1A64;
        vkrr_mapfile_close(&m);
    }
    if (ig.hashes == VKRR_HASHES_FOREIGN && tried == 0)
        ig.hashes = VKRR_HASHES_NONE; /* nothing could be read to tell */
    ig.basis = ig.hashes == VKRR_HASHES_BRIDGE    ? VKRR_FNV1A64_BRIDGE_INIT
             : ig.hashes == VKRR_HASHES_FNV1A64 ? VKRR_FNV1A64_INIT : 0;
    n = smallest(cap, true, p);
    bool any = false;
    vkrr_capture_integrity stats_only = {.stats = true};
    for (unsigned k = 0; k < n && !ig.stats; k++) {
        vkrr_mapfile m = {0};
        if (vkrr_mapfile_open(&m, p[k].path, p[k].bytes, NULL) != VKRR_OK)
            continue;
        tried++;
        any = true;
        char why[8];
        ig.stats = vkrr_dump_stats_check(p[k].s, &stats_only, m.data, m.size, NULL, why, sizeof why);
        vkrr_mapfile_close(&m);
    }
    ig.stats_foreign = any && !ig.stats;
    ig.probed = tried;
    return ig;
}

vkrr_dump_stats vkrr_dump_stats_of(const void *data, uint64_t size, uint64_t basis)
{
    const uint8_t *p = data;
    vkrr_dump_stats d = {.has_hash = true, .has_nonzero = true, .has_f16 = true, .has_f32 = true};
    d.hash = vkrr_fnv1a64_update(basis, data, (size_t)size);
    for (uint64_t i = 0; i < size; i++)
        d.nonzero_bytes += p[i] != 0;
    float mn = 0, mx = 0;
    double abs_sum = 0;
    for (uint64_t i = 0; i + 1 < size; i += 2) {
        uint16_t h = (uint16_t)(p[i] | p[i + 1] << 8);
        if ((h & 0x7c00) == 0x7c00) {
            d.f16_nan_inf++;
            continue;
        }
        float v = vkrr_f16_to_f32(h);
        d.f16_nonzero += v != 0.0f;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        abs_sum += fabsf(v);
    }
    d.f16_min = mn, d.f16_max = mx;
    d.f16_mean_abs = size >= 2 ? abs_sum / (double)(size / 2) : 0.0;
    mn = mx = 0;
    for (uint64_t i = 0; i + 3 < size; i += 4) {
        uint32_t u = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 |
                     (uint32_t)p[i + 3] << 24;
        if ((u & 0x7f800000u) == 0x7f800000u) {
            d.f32_nan_inf++;
            continue;
        }
        float v;
        memcpy(&v, &u, 4);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    d.f32_min = mn, d.f32_max = mx;
    return d;
}

/* The log printed v with %g: the same text, read back. */
static bool same_g(double v, double logged)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%g", v);
    return strtod(buf, NULL) == logged;
}

bool vkrr_dump_stats_check(const vkrr_dump_stats *s, const vkrr_capture_integrity *ig,
                           const void *data, uint64_t size, const uint64_t *hashed, char *why,
                           size_t why_cap)
{
    if (ig->basis && s->has_hash) {
        uint64_t h = hashed ? *hashed : vkrr_fnv1a64_update(ig->basis, data, (size_t)size);
        if (h != s->hash) {
            snprintf(why, why_cap, "its FNV-1a hash is %016llx, the log (run/run.log:%ld) says "
                     "hash=%016llx", (unsigned long long)h, s->line, (unsigned long long)s->hash);
            return false;
        }
        return true; /* the bytes the bridge hashed: its statistics are of them too */
    }
    if (!ig->stats || !(s->has_nonzero || s->has_f16 || s->has_f32))
        return true;
    vkrr_dump_stats d = vkrr_dump_stats_of(data, size, 0);
    const char *what = NULL;
    double got = 0, want = 0;
    if (s->has_nonzero && d.nonzero_bytes != s->nonzero_bytes)
        what = "nonzero_bytes", got = (double)d.nonzero_bytes, want = (double)s->nonzero_bytes;
    else if (s->has_f16 && d.f16_nan_inf != s->f16_nan_inf)
        what = "f16 nan_inf", got = (double)d.f16_nan_inf, want = (double)s->f16_nan_inf;
    else if (s->has_f16 && d.f16_nonzero != s->f16_nonzero)
        what = "f16 nonzero", got = (double)d.f16_nonzero, want = (double)s->f16_nonzero;
    else if (s->has_f16 && !same_g(d.f16_min, s->f16_min))
        what = "f16 min", got = d.f16_min, want = s->f16_min;
    else if (s->has_f16 && !same_g(d.f16_max, s->f16_max))
        what = "f16 max", got = d.f16_max, want = s->f16_max;
    else if (s->has_f32 && d.f32_nan_inf != s->f32_nan_inf)
        what = "f32 nan_inf", got = (double)d.f32_nan_inf, want = (double)s->f32_nan_inf;
    else if (s->has_f32 && !same_g(d.f32_min, s->f32_min))
        what = "f32 min", got = d.f32_min, want = s->f32_min;
    else if (s->has_f32 && !same_g(d.f32_max, s->f32_max))
        what = "f32 max", got = d.f32_max, want = s->f32_max;
    if (!what)
        return true;
    snprintf(why, why_cap, "its %s is %g, the log (run/run.log:%ld) says %g", what, got, s->line, want);
    return false;
}

/* What identifies a capture: its index (every launch's number, kernel,
 * frame, shape, arguments, allocations and images) and the log's hash= of
 * its dumps, not its path. */
uint64_t vkrr_capture_identity(const vkrr_capture *cap)
{
    uint64_t h = VKRR_FNV1A64_INIT;
#define MIX(x) (h = vkrr_fnv1a64_update(h, &(x), sizeof(x)))
    MIX(cap->nlaunches);
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        MIX(l->sequence);
        h = vkrr_fnv1a64_update(h, l->kernel, strlen(l->kernel) + 1);
        MIX(l->frame);
        MIX(l->grid);
        MIX(l->block);
        MIX(l->shared_bytes);
        if (l->args)
            h = vkrr_fnv1a64_update(h, l->args, l->args_bytes);
        for (uint32_t a = 0; a < l->nallocs; a++) {
            MIX(l->allocs[a].base);
            MIX(l->allocs[a].size);
            if (l->allocs[a].post_log.has_hash)
                MIX(l->allocs[a].post_log.hash);
        }
        for (uint32_t m = 0; m < l->nimages; m++) {
            const vkrr_image *im = &l->images[m];
            MIX(im->kind);
            MIX(im->width);
            MIX(im->height);
            MIX(im->format);
            MIX(im->dump_bytes);
            if (im->dump_log.has_hash)
                MIX(im->dump_log.hash);
        }
    }
#undef MIX
    return h;
}
