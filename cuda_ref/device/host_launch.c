/* host_launch.c - one launch's resources in host memory (host_launch.h). */
#include "host_launch.h"

#include <stdlib.h>
#include <string.h>

#include "bulk.h"
#include "cuformat.h"

static void *zalloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size);
}

/* A buffer of `bytes` for an output: the caller's post, else scratch. */
static void *out_buffer(vkrr_host_launch *hl, void *post, uint64_t bytes)
{
    if (post)
        return post;
    void *p = vkrr_bulk_alloc(bytes);
    if (p)
        hl->scratch[hl->nscratch++] = p;
    return p;
}

/* The rows of one plane: the image holds the array's planes one after another. */
static uint32_t plane_rows(const vkrr_replay_image *im)
{
    return im->height / vkrr_geometry_planes(&im->geometry);
}

static vkrr_status setup_images(const vkrr_replay *r, vkrr_host_launch *hl, uint64_t *word,
                                vkrr_error *err)
{
    for (uint32_t i = 0; i < r->nimages; i++) {
        const vkrr_replay_image *im = &r->images[i];
        unsigned tb = vkrr_cuformat_texel_bytes(im->format, im->channels);
        uint64_t bytes = vkrr_replay_image_bytes(im);
        if (tb == 0)
            return vkrr_fail(err, VKRR_ERR_FORMAT, r->kernel, 0, im->offset,
                             "image at offset %u: CUarray_format %u with %u channels", im->offset,
                             im->format, im->channels);
        if (im->kind == VKRR_IMAGE_TEXTURE) {
            if (!im->pre)
                return vkrr_fail(err, VKRR_ERR_MISSING, r->kernel, 0, im->offset,
                                 "texture at offset %u has no contents", im->offset);
            vkrr_cutex *t = &hl->tex[hl->ntex++];
            *t = (vkrr_cutex){.data = im->pre, .width = im->width, .height = plane_rows(im),
                              .channels = im->channels, .format = im->format, .texel_bytes = tb,
                              .filter = im->sampler.filter,
                              .address = {im->sampler.address[0], im->sampler.address[1],
                                          im->sampler.address[2]},
                              .normalized = im->sampler.normalized,
                              .read_as_integer = im->sampler.read_as_integer,
                              .linear_count = im->resource == VKRR_TEXRES_LINEAR ? im->linear_count : 0,
                              .dims = im->geometry.dims, .depth = im->geometry.depth,
                              .layers = im->geometry.layers, .cube = im->geometry.cube};
            word[i] = (uint64_t)(uintptr_t)t;
        } else {
            unsigned char *data = out_buffer(hl, im->post, bytes);
            if (!data)
                return vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, im->offset,
                                 "no memory for a %llu-byte surface", (unsigned long long)bytes);
            if (im->pre)
                memmove(data, im->pre, (size_t)bytes);
            else
                memset(data, VKRR_SENTINEL_BYTE, (size_t)bytes);
            vkrr_cusurf *s = &hl->surf[hl->nsurf++];
            *s = (vkrr_cusurf){data, im->width, plane_rows(im), tb, &hl->fault, im->geometry.dims,
                               im->geometry.depth, im->geometry.layers, im->geometry.cube,
                               im->format, im->channels};
            word[i] = (uint64_t)(uintptr_t)s;
        }
    }
    return VKRR_OK;
}

vkrr_status vkrr_host_launch_prepare(const vkrr_replay *r, vkrr_host_launch *hl, vkrr_error *err)
{
    memset(hl, 0, sizeof *hl);
    uint64_t *word = zalloc(r->nimages, sizeof *word);
    hl->alloc_addr = zalloc(r->nallocs, sizeof *hl->alloc_addr);
    hl->tex = zalloc(r->nimages, sizeof *hl->tex);
    hl->surf = zalloc(r->nimages, sizeof *hl->surf);
    hl->scratch = zalloc((size_t)r->nallocs + r->nimages, sizeof *hl->scratch);
    vkrr_status st = VKRR_OK;
    if (!word || !hl->alloc_addr || !hl->tex || !hl->surf || !hl->scratch)
        st = vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, -1, "no memory for the launch");
    for (uint32_t i = 0; st == VKRR_OK && i < r->nallocs; i++) {
        const vkrr_replay_alloc *a = &r->allocs[i];
        void *data = out_buffer(hl, a->post, a->size);
        if (!data) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, -1,
                           "no memory for a %llu-byte allocation", (unsigned long long)a->size);
            break;
        }
        if (a->pre)
            memmove(data, a->pre, (size_t)a->size);
        else
            memset(data, 0, (size_t)a->size);
        hl->alloc_addr[i] = (uint64_t)(uintptr_t)data;
    }
    if (st == VKRR_OK)
        st = setup_images(r, hl, word, err);
    if (st == VKRR_OK)
        st = vkrr_replay_relocate(r, hl->alloc_addr, word, hl->params, err);
    free(word);
    if (st != VKRR_OK)
        vkrr_host_launch_free(hl);
    return st;
}

void vkrr_host_launch_free(vkrr_host_launch *hl)
{
    for (uint32_t i = 0; hl->scratch && i < hl->nscratch; i++)
        vkrr_bulk_free(hl->scratch[i]);
    free(hl->scratch);
    free(hl->alloc_addr);
    free(hl->tex);
    free(hl->surf);
    memset(hl, 0, sizeof *hl);
}

static vkrr_host_launch *_Atomic current_launch;

void vkrr_host_launch_current(vkrr_host_launch *hl)
{
    current_launch = hl;
}

/* handle is the address of one of n descriptors of size sz from base */
static bool handle_in(uint64_t handle, const void *base, uint32_t n, size_t sz)
{
    uintptr_t b = (uintptr_t)base, h = (uintptr_t)handle;
    return base && n && h >= b && h < b + (uintptr_t)n * sz && (h - b) % sz == 0;
}

static bool handle_check(bool ok)
{
    vkrr_host_launch *hl = current_launch;
    if (!ok && hl)
        __atomic_fetch_or(&hl->fault, VKRR_HOST_FAULT_HANDLE, __ATOMIC_RELAXED);
    return ok;
}

/* Outside a backend launch (a test calling the accessors on descriptors of
 * its own) there is nothing to check against: the caller's word stands. */
bool vkrr_host_tex_ok(uint64_t handle)
{
    vkrr_host_launch *hl = current_launch;
    return !hl || handle_check(handle_in(handle, hl->tex, hl->ntex, sizeof *hl->tex));
}

bool vkrr_host_surf_ok(uint64_t handle)
{
    vkrr_host_launch *hl = current_launch;
    return !hl || handle_check(handle_in(handle, hl->surf, hl->nsurf, sizeof *hl->surf));
}
