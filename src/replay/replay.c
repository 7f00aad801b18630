#include "replay.h"

#include <stdlib.h>
#include <string.h>

#include "bulk.h"
#include "cuformat.h"

vkrr_status vkrr_replay_relocate(const vkrr_replay *r, const uint64_t *alloc_addr,
                                 const uint64_t *image_word, uint8_t *params,
                                 vkrr_error *err)
{
    if (r->args_bytes > VKRR_ARGS_MAX_BYTES)
        return vkrr_fail(err, VKRR_ERR_RANGE, r->kernel, 0, -1,
                         "parameter block of %u bytes exceeds CUDA's %u", r->args_bytes,
                         VKRR_ARGS_MAX_BYTES);
    memcpy(params, r->args, r->args_bytes);
    for (uint32_t i = 0; i < r->npointers; i++) {
        const vkrr_pointer *p = &r->pointers[i];
        if ((uint64_t)p->offset + 8 > r->args_bytes)
            return vkrr_fail(err, VKRR_ERR_RANGE, r->kernel, 0, p->offset,
                             "pointer word at offset %u lies past the %u-byte parameter block",
                             p->offset, r->args_bytes);
        if (p->alloc >= r->nallocs)
            return vkrr_fail(err, VKRR_ERR_RANGE, r->kernel, 0, p->offset,
                             "pointer at offset %u names allocation %u of %u", p->offset,
                             p->alloc, r->nallocs);
        if (p->delta > r->allocs[p->alloc].size)
            return vkrr_fail(err, VKRR_ERR_RANGE, r->kernel, 0, p->offset,
                             "pointer at offset %u is %llu bytes past a %llu-byte allocation",
                             p->offset, (unsigned long long)p->delta,
                             (unsigned long long)r->allocs[p->alloc].size);
        uint64_t v = alloc_addr[p->alloc] + p->delta;
        memcpy(params + p->offset, &v, 8);
    }
    for (uint32_t i = 0; i < r->nimages; i++) {
        const vkrr_replay_image *im = &r->images[i];
        if ((uint64_t)im->offset + 8 > r->args_bytes)
            return vkrr_fail(err, VKRR_ERR_RANGE, r->kernel, 0, im->offset,
                             "handle word at offset %u lies past the %u-byte parameter block",
                             im->offset, r->args_bytes);
        memcpy(params + im->offset, &image_word[i], 8);
    }
    return VKRR_OK;
}

uint64_t vkrr_replay_image_bytes(const vkrr_replay_image *im)
{
    return (uint64_t)im->width * im->height * vkrr_cuformat_texel_bytes(im->format, im->channels);
}

uint64_t vkrr_replay_bytes(const vkrr_replay *r)
{
    uint64_t n = 0;
    for (uint32_t a = 0; a < r->nallocs; a++)
        n += r->allocs[a].size;
    for (uint32_t i = 0; i < r->nimages; i++)
        n += vkrr_replay_image_bytes(&r->images[i]);
    return n;
}

void vkrr_replay_linear_shape(const vkrr_image *im, uint32_t *width, uint32_t *height)
{
    if (im->resource != VKRR_TEXRES_LINEAR || im->width <= VKRR_LINEAR_ROW) {
        *width = im->width;
        *height = im->height;
        return;
    }
    *width = VKRR_LINEAR_ROW;
    *height = (uint32_t)(((uint64_t)im->width + VKRR_LINEAR_ROW - 1) / VKRR_LINEAR_ROW);
}

void vkrr_replay_linear_pack(const vkrr_image *im, const uint8_t *src, uint8_t *dst)
{
    uint64_t texel = vkrr_cuformat_texel_bytes(im->format, im->channels);
    uint32_t w, h;
    vkrr_replay_linear_shape(im, &w, &h);
    uint64_t row = (uint64_t)im->width * texel, total = (uint64_t)w * h * texel;
    src += im->source_offset;
    if (im->resource == VKRR_TEXRES_LINEAR) {
        memcpy(dst, src, row);
        memset(dst + row, 0, total - row);
        return;
    }
    for (uint32_t y = 0; y < im->height; y++)
        memcpy(dst + y * row, src + y * im->pitch, row);
}

struct vkrr_replay_storage {
    vkrr_replay_alloc *allocs;
    uint32_t nallocs;
    vkrr_replay_image *images;
    uint32_t nimages;
    vkrr_mapfile *maps; /* allocs' pre, then images' dumps */
    uint8_t **packed;   /* per image: linear textures' packed texels */
};

void vkrr_replay_capture_free(vkrr_replay_storage *st)
{
    if (!st)
        return;
    if (st->maps)
        for (uint32_t i = 0; i < st->nallocs + st->nimages; i++)
            vkrr_mapfile_close(&st->maps[i]);
    for (uint32_t i = 0; st->allocs && i < st->nallocs; i++)
        vkrr_bulk_free(st->allocs[i].post);
    for (uint32_t i = 0; st->images && i < st->nimages; i++)
        vkrr_bulk_free(st->images[i].post);
    for (uint32_t i = 0; st->packed && i < st->nimages; i++)
        free(st->packed[i]);
    free(st->packed);
    free(st->maps);
    free(st->allocs);
    free(st->images);
    free(st);
}

/* pre_done: the backend holds its own copy, so the capture file's pages
 * need not stay in this process. */
static void unmap_pre(void *ctx, const void *pre)
{
    vkrr_replay_storage *st = ctx;
    for (uint32_t i = 0; pre && i < st->nallocs + st->nimages; i++)
        if (st->maps[i].data == pre) {
            vkrr_mapfile_close(&st->maps[i]);
            return;
        }
}

vkrr_status vkrr_replay_from_capture(const vkrr_capture *cap, const vkrr_launch *l,
                                     vkrr_replay *r, vkrr_replay_storage **out,
                                     vkrr_error *err)
{
    return vkrr_replay_from_capture_ex(cap, l, true, r, out, err);
}

vkrr_status vkrr_replay_from_capture_ex(const vkrr_capture *cap, const vkrr_launch *l, bool posts,
                                        vkrr_replay *r, vkrr_replay_storage **out,
                                        vkrr_error *err)
{
    vkrr_status s = VKRR_ERR_NOMEM;
    vkrr_replay_storage *st = calloc(1, sizeof *st);
    if (!st)
        goto nomem;
    st->nallocs = l->nallocs;
    st->nimages = l->nimages;
    st->allocs = calloc(l->nallocs ? l->nallocs : 1, sizeof *st->allocs);
    st->images = calloc(l->nimages ? l->nimages : 1, sizeof *st->images);
    st->maps = calloc(l->nallocs + l->nimages + 1, sizeof *st->maps);
    st->packed = calloc(l->nimages + 1, sizeof *st->packed);
    if (!st->allocs || !st->images || !st->maps || !st->packed)
        goto nomem;
    for (uint32_t i = 0; i < l->nallocs; i++) {
        vkrr_replay_alloc *a = &st->allocs[i];
        s = vkrr_capture_map_alloc_pre(cap, l, i, &st->maps[i], err);
        if (s != VKRR_OK)
            goto fail;
        a->base = l->allocs[i].base;
        a->size = l->allocs[i].size;
        a->pre = st->maps[i].data;
        /* post is sized by the manifest, which the reader checked against
         * the alloc file on disk: no unchecked number reaches malloc. */
        a->post = posts ? vkrr_bulk_alloc(a->size) : NULL;
        if (posts && !a->post)
            goto nomem;
    }
    for (uint32_t i = 0; i < l->nimages; i++) {
        const vkrr_image *src = &l->images[i];
        vkrr_replay_image *im = &st->images[i];
        im->offset = src->offset;
        im->kind = src->kind;
        im->handle = src->handle;
        im->width = src->width;
        im->height = src->height;
        im->channels = src->channels;
        im->format = src->format;
        im->sampler = src->sampler;
        im->resource = src->resource;
        im->geometry = src->geometry;
        if (src->kind == VKRR_IMAGE_TEXTURE) {
            vkrr_mapfile *m = &st->maps[l->nallocs + i];
            s = vkrr_capture_map_image(cap, l, i, m, err);
            if (s != VKRR_OK)
                goto fail;
            im->pre = m->data;
            if (src->resource == VKRR_TEXRES_LINEAR || src->resource == VKRR_TEXRES_PITCH2D) {
                /* shapes checked at open: the texels lie inside the source */
                vkrr_replay_linear_shape(src, &im->width, &im->height);
                im->linear_count = src->resource == VKRR_TEXRES_LINEAR ? src->width : 0;
                uint64_t n = vkrr_replay_image_bytes(im);
                if (!(st->packed[i] = malloc(n ? n : 1)))
                    goto nomem;
                vkrr_replay_linear_pack(src, m->data, st->packed[i]);
                vkrr_mapfile_close(m);
                im->pre = st->packed[i];
            }
        } else {
            /* A surface's contents before the launch are not recorded:
             * start from the sentinel so unwritten texels show. */
            im->pre = NULL;
            uint64_t n = vkrr_replay_image_bytes(im);
            im->post = posts ? vkrr_bulk_alloc(n) : NULL;
            if (posts && !im->post)
                goto nomem;
        }
    }
    *r = (vkrr_replay){
        .kernel = l->kernel,
        .grid = {l->grid[0], l->grid[1], l->grid[2]},
        .block = {l->block[0], l->block[1], l->block[2]},
        .shared_bytes = l->shared_bytes,
        .args = l->args,
        .args_bytes = l->args_bytes,
        .allocs = st->allocs,
        .nallocs = l->nallocs,
        .pointers = l->pointers,
        .npointers = l->npointers,
        .images = st->images,
        .nimages = l->nimages,
        .pre_done = unmap_pre,
        .pre_done_ctx = st,
    };
    *out = st;
    return VKRR_OK;
nomem:
    s = vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory preparing the launch's resources");
fail:
    vkrr_replay_capture_free(st);
    return s;
}
