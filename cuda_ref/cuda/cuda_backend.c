/* cuda_backend.c - vkrr_backend over libcuda (cuda_backend.h). */
#include "cuda_backend.h"

#include <stdlib.h>
#include <string.h>

#include "cuda_loader.h"
#include "cuda_modules.h"

#define CU_DEFAULT_SHARED_LIMIT (48u * 1024u) /* above this a kernel must opt in */

typedef struct cu_module { char *path; vkrr_cu_module mod; } cu_module;
typedef struct cu_kernel { char *name; vkrr_cu_function fn; } cu_kernel;

typedef struct cuda_backend {
    vkrr_cu_api api;
    vkrr_cu_context ctx;
    char *module_dir;
    char device_name[256];
    int cc_major, cc_minor;
    cu_module *mods;
    uint32_t nmods;
    cu_kernel *kernels;
    uint32_t nkernels;
} cuda_backend;

static vkrr_status cu_fail(const cuda_backend *b, vkrr_error *err, vkrr_status st, const char *kernel,
                           const char *call, vkrr_cu_result r)
{
    char text[256];
    vkrr_cu_result_text(&b->api, r, text, sizeof text);
    return vkrr_fail(err, st, NULL, 0, -1, "kernel %s: %s failed on %s: %s", kernel ? kernel : "-",
                     call, b->device_name[0] ? b->device_name : "the CUDA device", text);
}

/* Loads path once per backend. */
static vkrr_status load_module(cuda_backend *b, const char *path, const char *kernel,
                               vkrr_cu_module *out, vkrr_error *err)
{
    uint8_t *data = NULL;
    size_t size = 0;
    vkrr_cu_module mod = NULL;
    for (uint32_t i = 0; i < b->nmods; i++)
        if (strcmp(b->mods[i].path, path) == 0) {
            *out = b->mods[i].mod;
            return VKRR_OK;
        }
    vkrr_status st = vkrr_cuda_module_read(path, &data, &size, err);
    if (st != VKRR_OK) return st;
    vkrr_cu_result cr = b->api.cuModuleLoadData(&mod, data);
    free(data);
    if (cr != VKRR_CU_SUCCESS) {
        st = cu_fail(b, err, VKRR_ERR_DEVICE, kernel, "cuModuleLoadData", cr);
        if (err) snprintf(err->file, sizeof err->file, "%s", path); /* the module at fault */
        return st;
    }
    cu_module *grown = realloc(b->mods, (b->nmods + 1) * sizeof *grown);
    char *copy = strdup(path);
    if (grown) b->mods = grown;
    if (!grown || !copy) {
        free(copy);
        b->api.cuModuleUnload(mod);
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "no memory to keep a CUDA module");
    }
    b->mods[b->nmods++] = (cu_module){ copy, mod };
    *out = mod;
    return VKRR_OK;
}

/* Every candidate file in the module folder, surest first: a module the
 * driver refuses (a cubin for another GPU) falls through to the next, and
 * files the parser cannot see into (compressed fatbins) are asked through
 * cuModuleGetFunction. */
static vkrr_status resolve(cuda_backend *b, const char *kernel, vkrr_cu_function *fn, vkrr_error *err)
{
    char *list = NULL;
    vkrr_status st;
    vkrr_error first = { 0 };
    for (uint32_t i = 0; i < b->nkernels; i++)
        if (strcmp(b->kernels[i].name, kernel) == 0) {
            *fn = b->kernels[i].fn;
            return VKRR_OK;
        }
    if (!b->module_dir)
        return vkrr_fail(err, VKRR_ERR_MISSING, NULL, 0, -1,
                         "kernel %s: no CUDA module folder was given (CAPDIR/modules or --modules DIR)",
                         kernel);
    st = vkrr_cuda_module_candidates(b->module_dir, kernel, &list, err);
    if (st != VKRR_OK && st != VKRR_ERR_MISSING) goto fail;
    const vkrr_status found = st;
    st = VKRR_ERR_MISSING;
    for (const char *p = list; p && *p && st != VKRR_OK; p += strlen(p) + 1) {
        vkrr_error lerr = { 0 };
        vkrr_cu_module mod = NULL;
        st = load_module(b, p, kernel, &mod, &lerr);
        if (st == VKRR_OK) {
            vkrr_cu_result cr = b->api.cuModuleGetFunction(fn, mod, kernel);
            if (cr != VKRR_CU_SUCCESS) {
                st = cu_fail(b, &lerr, VKRR_ERR_DEVICE, kernel, "cuModuleGetFunction", cr);
                snprintf(lerr.file, sizeof lerr.file, "%s", p);
            }
        }
        if (st != VKRR_OK && first.status == VKRR_OK) first = lerr;
    }
    if (st != VKRR_OK) {
        /* A parser miss says more than the driver's refusal of a maybe-file. */
        if (found == VKRR_OK && first.status != VKRR_OK && err) *err = first;
        st = found == VKRR_OK ? first.status : found;
        goto fail;
    }
    cu_kernel *grown = realloc(b->kernels, (b->nkernels + 1) * sizeof *grown);
    char *copy = strdup(kernel);
    if (grown) b->kernels = grown;
    if (!grown || !copy) {
        free(copy);
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory to keep kernel %s", kernel);
        goto fail;
    }
    b->kernels[b->nkernels++] = (cu_kernel){ copy, *fn };
fail:
    free(list);
    return st;
}

static bool cuda_has_kernel(void *self, const char *kernel)
{
    cuda_backend *b = self;
    vkrr_cu_function fn = NULL;
    vkrr_error err = { 0 };
    if (!b || b->api.cuCtxSetCurrent(b->ctx) != VKRR_CU_SUCCESS) return false;
    return resolve(b, kernel, &fn, &err) == VKRR_OK;
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
        vkrr_cu_result cr_ = b->api.call args;                                       \
        if (cr_ != VKRR_CU_SUCCESS) {                                                \
            st = cu_fail(b, err, VKRR_ERR_DEVICE, r->kernel, #call, cr_);           \
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
static vkrr_status linear_texture(cuda_backend *b, const vkrr_replay *r, const vkrr_replay_image *im,
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

static vkrr_status cuda_run(void *self, vkrr_replay *r, vkrr_error *err)
{
    cuda_backend *b = self;
    vkrr_status st = VKRR_OK;
    vkrr_cu_function fn = NULL;
    const uint32_t na = r->nallocs, ni = r->nimages;
    vkrr_cu_deviceptr *dptr = calloc(na + 1, sizeof *dptr);
    uint64_t *addr = calloc(na + 1, sizeof *addr);
    vkrr_cu_array *arr = calloc(ni + 1, sizeof *arr);
    uint64_t *word = calloc(ni + 1, sizeof *word);
    unsigned *texel = calloc(ni + 1, sizeof *texel);
    vkrr_cu_deviceptr *tmem = calloc(ni + 1, sizeof *tmem); /* linear textures' memory */
    uint8_t *sentinel = NULL;
    uint64_t params[VKRR_ARGS_MAX_BYTES / 8]; /* 8-byte aligned, as the driver expects */

    if (!dptr || !addr || !arr || !word || !texel || !tmem) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "kernel %s: no memory for the launch", r->kernel);
        goto fail;
    }
    CU_CALL(cuCtxSetCurrent, (b->ctx));
    st = resolve(b, r->kernel, &fn, err);
    if (st != VKRR_OK) goto fail;

    for (uint32_t i = 0; i < na; i++) {
        const vkrr_replay_alloc *a = &r->allocs[i];
        CU_CALL(cuMemAlloc, (&dptr[i], a->size ? (size_t)a->size : 1));
        addr[i] = dptr[i];
        if (a->size && a->pre) CU_CALL(cuMemcpyHtoD, (dptr[i], a->pre, (size_t)a->size));
    }
    for (uint32_t i = 0; i < ni; i++) {
        const vkrr_replay_image *im = &r->images[i];
        const bool surf = im->kind == VKRR_IMAGE_SURFACE;
        int fmt = 0;
        unsigned nch = 0;
        st = array_format(r, im, &fmt, &nch, &texel[i], err);
        if (st != VKRR_OK) goto fail;
        const uint64_t row = (uint64_t)im->width * texel[i], bytes = row * im->height;
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
            st = linear_texture(b, r, im, fmt, nch, texel[i], &tmem[i], &word[i], err);
            if (st != VKRR_OK) goto fail;
            continue;
        }
        const vkrr_cu_array3d_desc ad = { .Width = im->width, .Height = im->height, .Depth = 0,
                                          .Format = fmt, .NumChannels = nch,
                                          .Flags = surf ? VKRR_CU_ARRAY3D_SURFACE_LDST : 0 };
        CU_CALL(cuArray3DCreate, (&arr[i], &ad));
        const vkrr_cu_memcpy2d up = { .srcMemoryType = VKRR_CU_MEMORYTYPE_HOST, .srcHost = src,
                                      .srcPitch = (size_t)row, .dstMemoryType = VKRR_CU_MEMORYTYPE_ARRAY,
                                      .dstArray = arr[i], .WidthInBytes = (size_t)row,
                                      .Height = im->height };
        CU_CALL(cuMemcpy2D, (&up));
        vkrr_cu_resource_desc res = { .resType = VKRR_CU_RESOURCE_TYPE_ARRAY };
        res.res.array.hArray = arr[i];
        unsigned long long obj = 0; /* CUtexObject and CUsurfObject are both this type */
        if (surf) {
            CU_CALL(cuSurfObjectCreate, (&obj, &res));
        } else {
            const vkrr_cu_texture_desc td = texture_desc(&im->sampler);
            CU_CALL(cuTexObjectCreate, (&obj, &res, &td, NULL));
        }
        word[i] = obj;
    }

    st = vkrr_replay_relocate(r, addr, word, (uint8_t *)params, err);
    if (st != VKRR_OK) goto fail;
    if (r->shared_bytes > CU_DEFAULT_SHARED_LIMIT)
        CU_CALL(cuFuncSetAttribute, (fn, VKRR_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     (int)r->shared_bytes));
    size_t psize = r->args_bytes;
    void *extra[] = { VKRR_CU_LAUNCH_PARAM_BUFFER_POINTER, params, VKRR_CU_LAUNCH_PARAM_BUFFER_SIZE,
                      &psize, VKRR_CU_LAUNCH_PARAM_END };
    CU_CALL(cuLaunchKernel, (fn, r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1],
                             r->block[2], r->shared_bytes, NULL, NULL, psize ? extra : NULL));
    CU_CALL(cuCtxSynchronize, ());

    for (uint32_t i = 0; i < na; i++)
        if (r->allocs[i].post && r->allocs[i].size)
            CU_CALL(cuMemcpyDtoH, (r->allocs[i].post, dptr[i], (size_t)r->allocs[i].size));
    for (uint32_t i = 0; i < ni; i++) {
        const vkrr_replay_image *im = &r->images[i];
        if (im->kind != VKRR_IMAGE_SURFACE || !im->post) continue;
        const size_t row = (size_t)im->width * texel[i];
        const vkrr_cu_memcpy2d down = { .srcMemoryType = VKRR_CU_MEMORYTYPE_ARRAY, .srcArray = arr[i],
                                        .dstMemoryType = VKRR_CU_MEMORYTYPE_HOST, .dstHost = im->post,
                                        .dstPitch = row, .WidthInBytes = row, .Height = im->height };
        CU_CALL(cuMemcpy2D, (&down));
    }
fail: /* shared cleanup, success included; release errors after a failure are moot */
    for (uint32_t i = 0; word && arr && i < ni; i++) {
        if (word[i] && r->images[i].kind == VKRR_IMAGE_SURFACE) b->api.cuSurfObjectDestroy(word[i]);
        else if (word[i]) b->api.cuTexObjectDestroy(word[i]);
        if (arr[i]) b->api.cuArrayDestroy(arr[i]);
    }
    for (uint32_t i = 0; dptr && i < na; i++)
        if (dptr[i]) b->api.cuMemFree(dptr[i]);
    for (uint32_t i = 0; tmem && i < ni; i++)
        if (tmem[i]) b->api.cuMemFree(tmem[i]);
    free(tmem);
    free(sentinel);
    free(texel);
    free(word);
    free(arr);
    free(addr);
    free(dptr);
    return st;
}

static bool cuda_device(void *self, char *name, size_t cap, int *cc_major, int *cc_minor)
{
    const cuda_backend *b = self;
    snprintf(name, cap, "%s", b->device_name);
    *cc_major = b->cc_major;
    *cc_minor = b->cc_minor;
    return true;
}

static void cuda_destroy(void *self)
{
    cuda_backend *b = self;
    if (!b) return;
    if (b->ctx) {
        b->api.cuCtxSetCurrent(b->ctx);
        for (uint32_t i = 0; i < b->nmods; i++) b->api.cuModuleUnload(b->mods[i].mod);
        b->api.cuCtxDestroy(b->ctx);
    }
    for (uint32_t i = 0; i < b->nmods; i++) free(b->mods[i].path);
    for (uint32_t i = 0; i < b->nkernels; i++) free(b->kernels[i].name);
    free(b->mods);
    free(b->kernels);
    free(b->module_dir);
    vkrr_cu_api_unload(&b->api);
    free(b);
}

vkrr_status vkrr_cuda_backend_create(vkrr_backend *out, const vkrr_cuda_desc *desc, vkrr_error *err)
{
    static const vkrr_cuda_desc defaults = { 0 };
    vkrr_status st = VKRR_OK;
    vkrr_cu_result cr;
    vkrr_cu_device dev = 0;
    int count = 0;
    const vkrr_cuda_desc *d = desc ? desc : &defaults;
    memset(out, 0, sizeof *out);
    cuda_backend *b = calloc(1, sizeof *b);
    if (!b) return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory for the CUDA backend");

    st = vkrr_cu_api_load(&b->api, d->library, err);
    if (st != VKRR_OK) goto fail;
    cr = b->api.cuInit(0);
    if (cr == VKRR_CU_SUCCESS) cr = b->api.cuDeviceGetCount(&count);
    if (cr != VKRR_CU_SUCCESS || count == 0) {
        char text[256];
        st = vkrr_fail(err, VKRR_ERR_NO_DEVICE, b->api.path, 0, -1,
                       "%s loaded, but no CUDA device is usable: %s", VKRR_LIBCUDA_DEFAULT,
                       cr != VKRR_CU_SUCCESS ? vkrr_cu_result_text(&b->api, cr, text, sizeof text)
                                             : "cuDeviceGetCount reports 0 devices");
        goto fail;
    }
    if (d->device < 0 || d->device >= count) {
        st = vkrr_fail(err, VKRR_ERR_NO_DEVICE, NULL, 0, -1, "CUDA device %d requested; %d present",
                       d->device, count);
        goto fail;
    }
    cr = b->api.cuDeviceGet(&dev, d->device);
    if (cr == VKRR_CU_SUCCESS) cr = b->api.cuDeviceGetName(b->device_name, (int)sizeof b->device_name - 1, dev);
    /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR */
    if (cr == VKRR_CU_SUCCESS) cr = b->api.cuDeviceGetAttribute(&b->cc_major, 75, dev);
    if (cr == VKRR_CU_SUCCESS) cr = b->api.cuDeviceGetAttribute(&b->cc_minor, 76, dev);
    if (cr != VKRR_CU_SUCCESS) {
        st = cu_fail(b, err, VKRR_ERR_NO_DEVICE, NULL, "cuDeviceGet", cr);
        goto fail;
    }
    cr = b->api.cuCtxCreate(&b->ctx, 0, dev);
    if (cr != VKRR_CU_SUCCESS) {
        b->ctx = NULL;
        st = cu_fail(b, err, VKRR_ERR_DEVICE, NULL, "cuCtxCreate", cr);
        goto fail;
    }
    if (d->module_dir && !(b->module_dir = strdup(d->module_dir))) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory for the CUDA backend");
        goto fail;
    }
    *out = (vkrr_backend){ .name = "cuda", .self = b, .has_kernel = cuda_has_kernel,
                           .run = cuda_run, .destroy = cuda_destroy, .device = cuda_device };
    return VKRR_OK;
fail:
    cuda_destroy(b);
    return st;
}
