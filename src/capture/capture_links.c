/* capture_links.c - which earlier surface each texture reads: the links
 * chained validation follows, and how each was established.
 *
 * A texture reads the latest earlier surface of its CUDA array (its array
 * from the log's cuTexObjectCreate; the surface's from vkrr's extension, or
 * inferred when the capture was opened: capture_link.c).  A surface whose
 * array was inferred only from creation order among arrays of one shape is
 * followed only when the texture's dump equals the surface's (the bytes
 * confirm it); a texture whose array the log does not give reads the latest
 * earlier surface whose dump equals its own.  Links never cross a gap in the
 * launch numbers (launches without a replay folder rewrote the state: the
 * chain restarts from the capture there).  What no rule establishes reads
 * the capture, and says so when an earlier launch may have written it. */
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"
#include "hash.h"

#define NONE UINT32_MAX

const char *vkrr_link_how_name(vkrr_link_how h)
{
    switch (h) {
    case VKRR_LINK_LOGGED: return "logged";
    case VKRR_LINK_SHAPE: return "inferred from shape";
    case VKRR_LINK_ORDER: return "inferred from creation order";
    case VKRR_LINK_BYTES: return "inferred from equal bytes";
    default: return "unknown";
    }
}

static bool same_shape(const vkrr_image *a, const vkrr_image *b)
{
    return a->width == b->width && a->height == b->height && a->format == b->format &&
           a->channels == b->channels;
}

static bool linear(const vkrr_image *im)
{
    return im->resource == VKRR_TEXRES_LINEAR || im->resource == VKRR_TEXRES_PITCH2D;
}

/* Hashes of dumps, computed once: 0 is "not yet" (a real hash is or'ed 1). */
typedef struct hashes {
    const vkrr_capture *cap;
    uint64_t **h; /* [launch][image] */
} hashes;

static vkrr_status dump_hash(hashes *hs, uint32_t li, uint32_t ii, uint64_t *out, vkrr_error *err)
{
    if (!hs->h[li][ii]) {
        vkrr_mapfile m = {0};
        vkrr_status s = vkrr_capture_map_image(hs->cap, &hs->cap->launches[li], ii, &m, err);
        if (s != VKRR_OK)
            return s;
        hs->h[li][ii] = vkrr_fnv1a64(m.data, m.size) | 1;
        vkrr_mapfile_close(&m);
    }
    *out = hs->h[li][ii];
    return VKRR_OK;
}

/* The dumps of texture (tl, ti) and surface (sl, si) are equal: hashes, then bytes. */
static vkrr_status equal_dumps(hashes *hs, uint32_t tl, uint32_t ti, uint32_t sl, uint32_t si,
                               bool *eq, vkrr_error *err)
{
    const vkrr_capture *cap = hs->cap;
    const vkrr_image *t = &cap->launches[tl].images[ti], *s = &cap->launches[sl].images[si];
    uint64_t a, b;
    vkrr_status st;
    *eq = false;
    if (!s->dump_path || s->dump_damaged || !t->dump_path || !same_shape(t, s))
        return VKRR_OK;
    if ((st = dump_hash(hs, tl, ti, &a, err)) || (st = dump_hash(hs, sl, si, &b, err)) || a != b)
        return st;
    vkrr_mapfile ma = {0}, mb = {0};
    if (!(st = vkrr_capture_map_image(cap, &cap->launches[tl], ti, &ma, err)) &&
        !(st = vkrr_capture_map_image(cap, &cap->launches[sl], si, &mb, err)))
        *eq = ma.size == mb.size && !memcmp(ma.data, mb.data, ma.size);
    vkrr_mapfile_close(&ma);
    vkrr_mapfile_close(&mb);
    return st;
}

/* The first launch of l's segment: no gap in the numbers between. */
static uint32_t segment_start(const vkrr_capture *cap, uint32_t l)
{
    while (l > 0 && !cap->launches[l].gap_before)
        l--;
    return l;
}

/* The latest earlier surface (within the segment) whose dump equals the
 * texture's; other surfaces of that launch equal too are kept as alike. */
static vkrr_status by_bytes(hashes *hs, uint32_t li, uint32_t ti, uint32_t from,
                            vkrr_texture_link *out, vkrr_error *err)
{
    const vkrr_capture *cap = hs->cap;
    for (uint32_t j = li; j-- > from && out->launch == NONE;)
        for (uint32_t k = 0; k < cap->launches[j].nimages; k++) {
            bool eq = false;
            vkrr_status st;
            if (cap->launches[j].images[k].kind != VKRR_IMAGE_SURFACE)
                continue;
            if ((st = equal_dumps(hs, li, ti, j, k, &eq, err)))
                return st;
            if (!eq)
                continue;
            if (out->launch == NONE)
                *out = (vkrr_texture_link){j, k, VKRR_LINK_BYTES, false, 0, {{0, 0}}};
            else if (out->nalike < VKRR_LINK_ALIKE_MAX)
                out->alike[out->nalike].launch = j, out->alike[out->nalike++].image = k;
        }
    return VKRR_OK;
}

static vkrr_status link_one(hashes *hs, uint32_t li, uint32_t ti, vkrr_texture_link *out,
                            vkrr_error *err)
{
    const vkrr_capture *cap = hs->cap;
    const vkrr_image *tex = &cap->launches[li].images[ti];
    uint32_t from = segment_start(cap, li);
    *out = (vkrr_texture_link){NONE, NONE, VKRR_LINK_NONE, false, 0, {{0, 0}}};
    if (tex->kind != VKRR_IMAGE_TEXTURE || linear(tex) || cap->launches[li].damage >= VKRR_DAMAGE_INPUT)
        return VKRR_OK;
    if (!tex->array) { /* the log does not say which array it reads */
        vkrr_status st = by_bytes(hs, li, ti, from, out, err);
        bool wrote = false; /* could an earlier launch of the segment have written it? */
        for (uint32_t j = from; j < li && !wrote; j++)
            for (uint32_t k = 0; k < cap->launches[j].nimages && !wrote; k++)
                wrote = cap->launches[j].images[k].kind == VKRR_IMAGE_SURFACE &&
                        same_shape(&cap->launches[j].images[k], tex);
        out->unknown = st == VKRR_OK && out->launch == NONE && wrote;
        return st;
    }
    uint32_t pl = NONE, pi = NONE;
    for (uint32_t j = li; j-- > from && pl == NONE;)
        for (uint32_t k = 0; k < cap->launches[j].nimages; k++) {
            const vkrr_image *im = &cap->launches[j].images[k];
            if (im->kind == VKRR_IMAGE_SURFACE && im->array == tex->array)
                pl = j, pi = k;
        }
    if (pl == NONE)
        return VKRR_OK; /* an input: nothing of the segment wrote its array */
    const vkrr_image *s = &cap->launches[pl].images[pi];
    if (!same_shape(s, tex))
        return VKRR_OK; /* the array was re-created with another shape */
    if (s->link == VKRR_LINK_ORDER) { /* a guess: only the bytes make it a link */
        bool eq = false;
        vkrr_status st = equal_dumps(hs, li, ti, pl, pi, &eq, err);
        if (st == VKRR_OK && eq)
            *out = (vkrr_texture_link){pl, pi, VKRR_LINK_BYTES, false, 0, {{0, 0}}};
        else if (st == VKRR_OK && (st = by_bytes(hs, li, ti, from, out, err)) == VKRR_OK)
            out->unknown = out->launch == NONE;
        return st;
    }
    *out = (vkrr_texture_link){pl, pi, s->link, false, 0, {{0, 0}}};
    return VKRR_OK;
}

void vkrr_capture_links_free(const vkrr_capture *cap, vkrr_texture_link **links)
{
    for (uint32_t i = 0; links && i < cap->nlaunches; i++)
        free(links[i]);
    free(links);
}

vkrr_status vkrr_capture_texture_links(const vkrr_capture *cap, vkrr_texture_link ***out,
                                       vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    vkrr_texture_link **links = calloc(cap->nlaunches + 1, sizeof *links);
    hashes hs = {cap, calloc(cap->nlaunches + 1, sizeof *hs.h)};
    *out = NULL;
    for (uint32_t i = 0; links && hs.h && i < cap->nlaunches && st == VKRR_OK; i++) {
        uint32_t n = cap->launches[i].nimages;
        if (!(links[i] = calloc(n + 1, sizeof **links)) || !(hs.h[i] = calloc(n + 1, sizeof **hs.h))) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
            break;
        }
        for (uint32_t t = 0; t < n && st == VKRR_OK; t++)
            st = link_one(&hs, i, t, &links[i][t], err);
    }
    if (st == VKRR_OK && (!links || !hs.h))
        st = vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    for (uint32_t i = 0; hs.h && i < cap->nlaunches; i++)
        free(hs.h[i]);
    free(hs.h);
    if (st != VKRR_OK) {
        vkrr_capture_links_free(cap, links);
        return st;
    }
    *out = links;
    return VKRR_OK;
}
