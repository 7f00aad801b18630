/* cuda_backend.c - vkrr_backend over libcuda (cuda_backend.h). */
#include "cuda_backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_launch.h"
#include "cuda_loader.h"
#include "cuda_modules.h"

typedef struct cu_module { char *path; vkrr_cu_module mod; } cu_module;
typedef struct cu_kernel { char *name; vkrr_cu_function fn; } cu_kernel;

typedef struct cuda_backend {
    vkrr_cu_api api;
    vkrr_cu_context ctx;
    char *module_dir;
    char device_name[256];
    vkrr_cu_dev dev;         /* api and device_name, for errors */
    int cc_major, cc_minor;
    char driver[64];         /* "CUDA driver 12.4" */
    uint8_t uuid[16];
    bool has_uuid;
    double last_gpu_ms;      /* NAN until a run was timed */
    cu_module *mods;
    uint32_t nmods;
    cu_kernel *kernels;
    uint32_t nkernels;
} cuda_backend;

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
        st = vkrr_cu_fail(&b->dev, err, VKRR_ERR_DEVICE, kernel, "cuModuleLoadData", cr);
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
                st = vkrr_cu_fail(&b->dev, &lerr, VKRR_ERR_DEVICE, kernel, "cuModuleGetFunction", cr);
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

/* Events around what runs: *ms the GPU time between them (NAN when the
 * driver could not time it: the run itself still counts). */
typedef struct cu_timer { vkrr_cu_event start, end; } cu_timer;

static void timer_start(cuda_backend *b, cu_timer *t)
{
    t->start = t->end = NULL;
    if (b->api.cuEventCreate(&t->start, 0) != VKRR_CU_SUCCESS ||
        b->api.cuEventCreate(&t->end, 0) != VKRR_CU_SUCCESS ||
        b->api.cuEventRecord(t->start, NULL) != VKRR_CU_SUCCESS) {
        if (t->start) b->api.cuEventDestroy(t->start);
        if (t->end) b->api.cuEventDestroy(t->end);
        t->start = t->end = NULL;
    }
}

/* Records the end, waits for the context, and frees the events. */
static vkrr_status timer_stop(cuda_backend *b, cu_timer *t, const char *kernel, double *ms, vkrr_error *err)
{
    float f = 0;
    *ms = NAN;
    bool timed = t->start && b->api.cuEventRecord(t->end, NULL) == VKRR_CU_SUCCESS;
    vkrr_cu_result cr = b->api.cuCtxSynchronize();
    if (timed && cr == VKRR_CU_SUCCESS && b->api.cuEventElapsedTime(&f, t->start, t->end) == VKRR_CU_SUCCESS)
        *ms = f;
    if (t->start) b->api.cuEventDestroy(t->start);
    if (t->end) b->api.cuEventDestroy(t->end);
    t->start = t->end = NULL;
    if (cr != VKRR_CU_SUCCESS)
        return vkrr_cu_fail(&b->dev, err, VKRR_ERR_DEVICE, kernel, "cuCtxSynchronize", cr);
    return VKRR_OK;
}

static vkrr_status cuda_run(void *self, vkrr_replay *r, vkrr_error *err)
{
    cuda_backend *b = self;
    vkrr_cu_function fn = NULL;
    vkrr_cu_launch L;
    cu_timer t;
    memset(&L, 0, sizeof L);
    b->last_gpu_ms = NAN;
    vkrr_cu_result cr = b->api.cuCtxSetCurrent(b->ctx);
    if (cr != VKRR_CU_SUCCESS)
        return vkrr_cu_fail(&b->dev, err, VKRR_ERR_DEVICE, r->kernel, "cuCtxSetCurrent", cr);
    vkrr_status st = resolve(b, r->kernel, &fn, err);
    if (st == VKRR_OK)
        st = vkrr_cu_launch_prepare(&b->dev, r, &L, err);
    if (st == VKRR_OK) {
        timer_start(b, &t);
        st = vkrr_cu_launch_start(&b->dev, r, fn, &L, NULL, err);
        double ms;
        vkrr_status ss = timer_stop(b, &t, r->kernel, &ms, st == VKRR_OK ? err : NULL);
        if (st == VKRR_OK && (st = ss) == VKRR_OK)
            b->last_gpu_ms = ms;
    }
    if (st == VKRR_OK)
        st = vkrr_cu_launch_read_back(&b->dev, r, &L, err);
    vkrr_cu_launch_free(&b->dev, r, &L);
    if (st != VKRR_OK)
        b->last_gpu_ms = NAN;
    return st;
}

/* A frame as CUDA runs it: the launches back to back on one stream, timed
 * as a whole by events around them.  Each launch is given its own captured
 * inputs (prepared before the first is started, so no upload is timed);
 * nothing is read back. */
static vkrr_status cuda_run_frame(void *self, vkrr_replay *const *r, uint32_t n, double *gpu_ms,
                                  uint32_t *barriers, vkrr_error *err)
{
    cuda_backend *b = self;
    *gpu_ms = NAN;
    *barriers = 0; /* one stream orders its launches; nothing else is needed */
    vkrr_cu_launch *L = calloc(n ? n : 1, sizeof *L);
    vkrr_cu_function *fn = calloc(n ? n : 1, sizeof *fn);
    vkrr_status st = VKRR_OK;
    uint32_t ready = 0;
    if (!L || !fn) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory for a frame");
        goto done;
    }
    vkrr_cu_result cr = b->api.cuCtxSetCurrent(b->ctx);
    if (cr != VKRR_CU_SUCCESS) {
        st = vkrr_cu_fail(&b->dev, err, VKRR_ERR_DEVICE, NULL, "cuCtxSetCurrent", cr);
        goto done;
    }
    for (; ready < n; ready++)
        if ((st = resolve(b, r[ready]->kernel, &fn[ready], err)) != VKRR_OK ||
            (st = vkrr_cu_launch_prepare(&b->dev, r[ready], &L[ready], err)) != VKRR_OK) {
            ready++; /* its partial resources are freed too */
            goto done;
        }
    cu_timer t;
    timer_start(b, &t);
    for (uint32_t k = 0; k < n && st == VKRR_OK; k++)
        st = vkrr_cu_launch_start(&b->dev, r[k], fn[k], &L[k], NULL, err);
    double ms;
    vkrr_status ss = timer_stop(b, &t, "(frame)", &ms, st == VKRR_OK ? err : NULL);
    if (st == VKRR_OK && (st = ss) == VKRR_OK)
        *gpu_ms = ms;
done:
    for (uint32_t k = 0; L && k < ready; k++)
        vkrr_cu_launch_free(&b->dev, r[k], &L[k]);
    free(fn);
    free(L);
    return st;
}

static double cuda_last_gpu_ms(void *self)
{
    const cuda_backend *b = self;
    return b ? b->last_gpu_ms : NAN;
}

static bool cuda_device(void *self, char *name, size_t cap, int *cc_major, int *cc_minor)
{
    const cuda_backend *b = self;
    snprintf(name, cap, "%s", b->device_name);
    *cc_major = b->cc_major;
    *cc_minor = b->cc_minor;
    return true;
}

static void cuda_stats(void *self, vkrr_backend_stats *out)
{
    const cuda_backend *b = self;
    *out = (vkrr_backend_stats){ .device_name = b->device_name, .driver = b->driver,
                                 .uuid = b->has_uuid ? b->uuid : NULL };
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
    b->dev = (vkrr_cu_dev){ &b->api, b->device_name };
    b->last_gpu_ms = NAN;

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
        st = vkrr_cu_fail(&b->dev, err, VKRR_ERR_NO_DEVICE, NULL, "cuDeviceGet", cr);
        goto fail;
    }
    int version = 0;
    if (b->api.cuDriverGetVersion(&version) == VKRR_CU_SUCCESS)
        snprintf(b->driver, sizeof b->driver, "CUDA driver %d.%d", version / 1000, version % 1000 / 10);
    b->has_uuid = b->api.cuDeviceGetUuid(b->uuid, dev) == VKRR_CU_SUCCESS;
    cr = b->api.cuCtxCreate(&b->ctx, 0, dev);
    if (cr != VKRR_CU_SUCCESS) {
        b->ctx = NULL;
        st = vkrr_cu_fail(&b->dev, err, VKRR_ERR_DEVICE, NULL, "cuCtxCreate", cr);
        goto fail;
    }
    if (d->module_dir && !(b->module_dir = strdup(d->module_dir))) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory for the CUDA backend");
        goto fail;
    }
    *out = (vkrr_backend){ .name = "cuda", .self = b, .has_kernel = cuda_has_kernel,
                           .run = cuda_run, .destroy = cuda_destroy, .device = cuda_device,
                           .stats = cuda_stats, .last_gpu_ms = cuda_last_gpu_ms,
                           .run_frame = cuda_run_frame };
    return VKRR_OK;
fail:
    cuda_destroy(b);
    return st;
}
