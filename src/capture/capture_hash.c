/* capture_hash.c - does the log's hash= mean what vkrr computes (FNV-1a 64)?
 *
 * The bridge calls hash= "a cheap identity check" without naming
 * the function.  vkrr's writer logs FNV-1a 64; a bridge that hashes another
 * way would make every dump read "changed since capture", a false alarm on
 * every launch.  So before the hashes are trusted, the smallest few dumps that
 * carry one are hashed: one agreeing is proof enough of the function (a dump
 * changed after capture cannot agree by chance); none agreeing means the
 * capture's hashes are not ours to check. */
#include "capture.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"

#define PROBES 3

typedef struct probe {
    const char *path;
    uint64_t bytes, hash;
} probe;

/* Keeps the PROBES smallest candidates, smallest first. */
static void consider(probe *p, unsigned *n, const char *path, uint64_t bytes, uint64_t hash)
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
    p[k] = (probe){path, bytes, hash};
}

vkrr_capture_hashes vkrr_capture_check_hashes(const vkrr_capture *cap, unsigned *probed)
{
    probe p[PROBES];
    unsigned n = 0, tried = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        for (uint32_t a = 0; a < l->nallocs; a++)
            if (l->allocs[a].has_post_hash && l->allocs[a].post_path)
                consider(p, &n, l->allocs[a].post_path, l->allocs[a].size, l->allocs[a].post_hash);
        for (uint32_t k = 0; k < l->nimages; k++)
            if (l->images[k].has_dump_hash && l->images[k].dump_path && !l->images[k].dump_damaged)
                consider(p, &n, l->images[k].dump_path, l->images[k].dump_bytes,
                         l->images[k].dump_hash);
    }
    vkrr_capture_hashes verdict = n ? VKRR_HASHES_FOREIGN : VKRR_HASHES_NONE;
    for (unsigned k = 0; k < n && verdict == VKRR_HASHES_FOREIGN; k++) {
        vkrr_mapfile m = {0};
        if (vkrr_mapfile_open(&m, p[k].path, p[k].bytes, NULL) != VKRR_OK)
            continue; /* damaged: validate says so where it reads it */
        tried++;
        if (vkrr_fnv1a64(m.data, m.size) == p[k].hash)
            verdict = VKRR_HASHES_FNV1A64;
        vkrr_mapfile_close(&m);
    }
    if (verdict == VKRR_HASHES_FOREIGN && tried == 0)
        verdict = VKRR_HASHES_NONE; /* nothing could be read to tell */
    if (probed)
        *probed = tried;
    return verdict;
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
            if (l->allocs[a].has_post_hash)
                MIX(l->allocs[a].post_hash);
        }
        for (uint32_t m = 0; m < l->nimages; m++) {
            const vkrr_image *im = &l->images[m];
            MIX(im->kind);
            MIX(im->width);
            MIX(im->height);
            MIX(im->format);
            MIX(im->dump_bytes);
            if (im->has_dump_hash)
                MIX(im->dump_hash);
        }
    }
#undef MIX
    return h;
}
