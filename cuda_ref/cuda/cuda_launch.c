/* cuda_launch.c - a launch's resources on the CUDA device (cuda_launch.h). */
#include "cuda_launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CU_DEFAULT_SHARED_LIMIT (48u * 1024u) /* above this a kernel must opt in */

vkrr_status vkrr_cu_fail(const vkrr_cu_dev *d, vkrr_error *err, vkrr_status st, const char *kernel,
                         const char *call, vkrr_cu_result r)
{
    char text[256];
    vkrr_cu_result_text(d->api, r, text, sizeof text);
    return vkrr_fail(err, st, NULL, 0, -1, "kernel %s: %s failed on %s: %s", kernel ? kernel : "-",
                     call, d->name && d->name[0] ? d->name : "the CUDA device", text);
}

/* What cuArray3DCreate is given for a captured image: the CUarray_format
 * code, its channel count and bytes per texel.  Code 80 is stored by bridges
 * as RGBA32F (16 bytes per texel), so it is re-created as FLOAT x4. */
static vkrr_status array_format(const vkrr_replay *r, const vkrr_replay_image *im, int *fmt,
                                unsigned *nch, unsigned *texel, vkrr_error *err)
{
    static const unsigned fixed[3] = { 1, 2, 4 };
    const unsigned c = im->channels;
    unsigned cb = 0;
    *fmt = (int)im->format;
    *nch = c;
    switch (im->format) {
    case 1: case 8: cb = 1; break;
    case 2: case 9: case 16: cb = 2; break;
    case 3: case 10: case 32: cb = 4; break;
    case 80: *fmt = 32; *nch = 4; cb = 4; break;
    default:
        if (im->format >= 192 && im->format <= 203) {
            const unsigned g = (im->format - 192) / 3;
            cb = (g == 0 || g == 2) ? 1 : 2;
            *nch = fixed[(im->format - 192) % 3];
            if (c != *nch) cb = 0;
        }
    }
    if (cb == 0 || (*nch != 1 && *nch != 2 && *nch != 4))
        return vkrr_fail(err, VKRR_ERR_FORMAT, NULL, 0, im->offset,
                         "kernel %s: image at argument offset %u has CUarray_format %u with %u channel(s), "
                         "which a CUDA array cannot hold", r->kernel, im->offset, im->format, c);
    *texel = cb * *nch;
    return VKRR_OK;
}

#define CU_CALL(call, args)                                                          \
    do {                                                                             \
        vkrr_cu_result cr_ = d->api->call args;                                      \
        if (cr_ != VKRR_CU_SUCCESS) {                                                \
            st = vkrr_cu_fail(d, err, VKRR_ERR_DEVICE, r->kernel, #call, cr_);       \
            goto fail;                                                               \
        }                                                                            \
    } while (0)

static vkrr_cu_texture_desc texture_desc(const vkrr_sampler *s)
{
    return (vkrr_cu_texture_desc){
        .addressMode = { s->address[0], s->address[1], VKRR_ADDRESS_CLAMP },
        .filterMode = s->filter,
        .flags = (s->read_as_integer ? VKRR_TEXFLAG_INTEGER : 0u) |
                 (s->normalized ? VKRR_TEXFLAG_NORMALIZED : 0u) | (s->srgb ? VKRR_TEXFLAG_SRGB : 0u),
    };
}

/* Pitch of re-created pitch-2D memory: a multiple of every device's
 * texturePitchAlignment (32 on current GPUs). */
#define CU_TEXTURE_PITCH 512u

/* A texture over linear memory as CUDA made it: device memory filled from
 * the replay's packed texels (a linear texture's first linear_count texels;
 * a pitch-2D one's rows, re-pitched) and a LINEAR or PITCH2D resource. */
static vkrr_status linear_texture(const vkrr_cu_dev *d, const vkrr_replay *r, const vkrr_replay_image *im,
                                  int fmt, unsigned nch, unsigned texel, vkrr_cu_deviceptr *mem,
                                  uint64_t *word, vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    vkrr_cu_resource_desc res = { .resType = VKRR_CU_RESOURCE_TYPE_LINEAR };
    const size_t row = (size_t)im->width * texel;
    if (!im->pre)
        return vkrr_fail(err, VKRR_ERR_INCONSISTENT, NULL, 0, im->offset,
                         "kernel %s: texture at argument offset %u has no contents", r->kernel, im->offset);
    if (im->resource == VKRR_TEXRES_LINEAR) {
        const size_t bytes = (size_t)im->linear_count * texel;
        CU_CALL(cuMemAlloc, (mem, bytes ? bytes : 1));
        CU_CALL(cuMemcpyHtoD, (*mem, im->pre, bytes));
        res.res.linear.devPtr = *mem;
        res.res.linear.format = fmt;
        res.res.linear.numChannels = nch;
        res.res.linear.sizeInBytes = bytes;
    } else {
        const size_t pitch = (row + CU_TEXTURE_PITCH - 1) / CU_TEXTURE_PITCH * CU_TEXTURE_PITCH;
        CU_CALL(cuMemAlloc, (mem, pitch * im->height));
        const vkrr_cu_memcpy2d up = { .srcMemoryType = VKRR_CU_MEMORYTYPE_HOST, .srcHost = im->pre,
                                      .srcPitch = row, .dstMemoryType = VKRR_CU_MEMORYTYPE_DEVICE,
                                      .dstDevice = *mem, .dstPitch = pitch, .WidthInBytes = row,
                                      .Height = im->height };
        CU_CALL(cuMemcpy2D, (&up));
        res.resType = VKRR_CU_RESOURCE_TYPE_PITCH2D;
        res.res.pitch2D.devPtr = *mem;
        res.res.pitch2D.format = fmt;
        res.res.pitch2D.numChannels = nch;
        res.res.pitch2D.width = im->width;
        res.res.pitch2D.height = im->height;
        res.res.pitch2D.pitchInBytes = pitch;
    }
    const vkrr_cu_texture_desc td = texture_desc(&im->sampler);
    unsigned long long obj = 0;
    CU_CALL(cuTexObjectCreate, (&obj, &res, &td, NULL));
    *word = obj;
fail:
    return st;
}

vkrr_status vkrr_cu_launch_prepare(const vkrr_cu_dev *d, const vkrr_replay *r, vkrr_cu_launch *L,
                                   vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    const uint32_t na = r->nallocs, ni = r->nimages;
    memset(L, 0, sizeof *L);
    L->dptr = calloc(na + 1, sizeof *L->dptr);
    L->arr = calloc(ni + 1, sizeof *L->arr);
    L->word = calloc(ni + 1, sizeof *L->word);
    L->texel = calloc(ni + 1, sizeof *L->texel);
    L->tmem = calloc(ni + 1, sizeof *L->tmem);
    uint64_t *addr = calloc(na + 1, sizeof *addr);
    uint8_t *sentinel = NULL;
    if (!L->dptr || !L->arr || !L->word || !L->texel || !L->tmem || !addr) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "kernel %s: no memory for the launch", r->kernel);
        goto fail;
    }
    for (uint32_t i = 0; i < na; i++) {
        const vkrr_replay_alloc *a = &r->allocs[i];
        CU_CALL(cuMemAlloc, (&L->dptr[i], a->size ? (size_t)a->size : 1));
        addr[i] = L->dptr[i];
        if (a->size && a->pre) CU_CALL(cuMemcpyHtoD, (L->dptr[i], a->pre, (size_t)a->size));
    }
    for (uint32_t i = 0; i < ni; i++) {
        const vkrr_replay_image *im = &r->images[i];
        const bool surf = im->kind == VKRR_IMAGE_SURFACE;
        int fmt = 0;
        unsigned nch = 0;
        st = array_format(r, im, &fmt, &nch, &L->texel[i], err);
        if (st != VKRR_OK) goto fail;
        const uint64_t row = (uint64_t)im->width * L->texel[i], bytes = row * im->height;
        const void *src = im->pre;
        if (!src && !surf) {
            st = vkrr_fail(err, VKRR_ERR_INCONSISTENT, NULL, 0, im->offset,
                           "kernel %s: texture at argument offset %u has no contents", r->kernel, im->offset);
            goto fail;
        }
        if (!src) {
            free(sentinel);
            sentinel = malloc(bytes ? (size_t)bytes : 1);
            if (!sentinel) {
                st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, im->offset,
                               "kernel %s: no memory for a %llu-byte surface", r->kernel,
                               (unsigned long long)bytes);
                goto fail;
            }
            memset(sentinel, VKRR_SENTINEL_BYTE, (size_t)bytes);
            src = sentinel;
        }
        if (!surf && (im->resource == VKRR_TEXRES_LINEAR || im->resource == VKRR_TEXRES_PITCH2D)) {
            st = linear_texture(d, r, im, fmt, nch, L->texel[i], &L->tmem[i], &L->word[i], err);
            if (st != VKRR_OK) goto fail;
            continue;
        }
        const vkrr_cu_array3d_desc ad = { .Width = im->width, .Height = im->height, .Depth = 0,
                                          .Format = fmt, .NumChannels = nch,
                                          .Flags = surf ? VKRR_CU_ARRAY3D_SURFACE_LDST : 0 };
        CU_CALL(cuArray3DCreate, (&L->arr[i], &ad));
        const vkrr_cu_memcpy2d up = { .srcMemoryType = VKRR_CU_MEMORYTYPE_HOST, .srcHost = src,
                                      .srcPitch = (size_t)row, .dstMemoryType = VKRR_CU_MEMORYTYPE_ARRAY,
                                      .dstArray = L->arr[i], .WidthInBytes = (size_t)row,
                                      .Height = im->height };
        CU_CALL(cuMemcpy2D, (&up));
        vkrr_cu_resource_desc res = { .resType = VKRR_CU_RESOURCE_TYPE_ARRAY };
        res.res.array.hArray = L->arr[i];
        unsigned long long obj = 0; /* CUtexObject and CUsurfObject are both this type */
        if (surf) {
            CU_CALL(cuSurfObjectCreate, (&obj, &res));
        } else {
            const vkrr_cu_texture_desc td = texture_desc(&im->sampler);
            CU_CALL(cuTexObjectCreate, (&obj, &res, &td, NULL));
        }
        L->word[i] = obj;
    }
    st = vkrr_replay_relocate(r, addr, L->word, (uint8_t *)L->params, err);
    L->psize = r->args_bytes;
fail:
    free(sentinel);
    free(addr);
    return st;
}

vkrr_status vkrr_cu_launch_start(const vkrr_cu_dev *d, const vkrr_replay *r, vkrr_cu_function fn,
                                 vkrr_cu_launch *L, vkrr_cu_stream stream, vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    if (r->shared_bytes > CU_DEFAULT_SHARED_LIMIT)
        CU_CALL(cuFuncSetAttribute, (fn, VKRR_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     (int)r->shared_bytes));
    void *extra[] = { VKRR_CU_LAUNCH_PARAM_BUFFER_POINTER, L->params, VKRR_CU_LAUNCH_PARAM_BUFFER_SIZE,
                      &L->psize, VKRR_CU_LAUNCH_PARAM_END };
    CU_CALL(cuLaunchKernel, (fn, r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1],
                             r->block[2], r->shared_bytes, stream, NULL, L->psize ? extra : NULL));
fail:
    return st;
}

vkrr_status vkrr_cu_launch_read_back(const vkrr_cu_dev *d, const vkrr_replay *r,
                                     const vkrr_cu_launch *L, vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    for (uint32_t i = 0; i < r->nallocs; i++)
        if (r->allocs[i].post && r->allocs[i].size)
            CU_CALL(cuMemcpyDtoH, (r->allocs[i].post, L->dptr[i], (size_t)r->allocs[i].size));
    for (uint32_t i = 0; i < r->nimages; i++) {
        const vkrr_replay_image *im = &r->images[i];
        if (im->kind != VKRR_IMAGE_SURFACE || !im->post) continue;
        const size_t row = (size_t)im->width * L->texel[i];
        const vkrr_cu_memcpy2d down = { .srcMemoryType = VKRR_CU_MEMORYTYPE_ARRAY, .srcArray = L->arr[i],
                                        .dstMemoryType = VKRR_CU_MEMORYTYPE_HOST, .dstHost = im->post,
                                        .dstPitch = row, .WidthInBytes = row, .Height = im->height };
        CU_CALL(cuMemcpy2D, (&down));
    }
fail:
    return st;
}

/* Release errors are moot: the launch is over either way. */
void vkrr_cu_launch_free(const vkrr_cu_dev *d, const vkrr_replay *r, vkrr_cu_launch *L)
{
    const vkrr_cu_api *api = d->api;
    for (uint32_t i = 0; L->word && L->arr && i < r->nimages; i++) {
        if (L->word[i] && r->images[i].kind == VKRR_IMAGE_SURFACE) api->cuSurfObjectDestroy(L->word[i]);
        else if (L->word[i]) api->cuTexObjectDestroy(L->word[i]);
        if (L->arr[i]) api->cuArrayDestroy(L->arr[i]);
    }
    for (uint32_t i = 0; L->dptr && i < r->nallocs; i++)
        if (L->dptr[i]) api->cuMemFree(L->dptr[i]);
    for (uint32_t i = 0; L->tmem && i < r->nimages; i++)
        if (L->tmem[i]) api->cuMemFree(L->tmem[i]);
    free(L->tmem);
    free(L->texel);
    free(L->word);
    free(L->arr);
    free(L->dptr);
    memset(L, 0, sizeof *L);
}
