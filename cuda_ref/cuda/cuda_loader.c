/* cuda_loader.c - dlopen of libcuda.so.1 and its function table (cuda_loader.h). */
#include "cuda_loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* syms: one symbol name or "first|fallback|...". */
static void *resolve(void *lib, const char *syms)
{
    char one[128];
    for (const char *p = syms; *p;) {
        size_t n = strcspn(p, "|");
        if (n < sizeof one) {
            memcpy(one, p, n);
            one[n] = 0;
            void *f = dlsym(lib, one);
            if (f) return f;
        }
        p += n + (p[n] == '|');
    }
    return NULL;
}

vkrr_status vkrr_cu_api_load(vkrr_cu_api *api, const char *path, vkrr_error *err)
{
    vkrr_status st = VKRR_ERR_NO_LIBRARY;
    memset(api, 0, sizeof *api);
    if (!path || !*path) path = getenv("VKRR_LIBCUDA");
    if (!path || !*path) path = VKRR_LIBCUDA_DEFAULT;
    snprintf(api->path, sizeof api->path, "%s", path);

    api->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!api->lib) {
        const char *why = dlerror();
        return vkrr_fail(err, VKRR_ERR_NO_LIBRARY, path, 0, -1,
                         "cannot load the CUDA driver library " VKRR_LIBCUDA_DEFAULT
                         " (tried '%s'; is the NVIDIA driver installed?): %s",
                         path, why ? why : "unknown dlopen error");
    }
    /* dlsym returns void*; a function pointer is stored through memcpy so the
     * conversion stays defined under -Wpedantic-like checks. */
#define VKRR_CU_X_LOAD(ret, name, sym, params)                                        \
    do {                                                                             \
        void *p = resolve(api->lib, sym);                                            \
        if (!p) {                                                                    \
            st = vkrr_fail(err, VKRR_ERR_NO_LIBRARY, path, 0, -1,                    \
                      "'%s' is not a usable CUDA driver library " VKRR_LIBCUDA_DEFAULT \
                      ": it has no %s (driver too old?)", path, sym);                \
            goto fail;                                                               \
        }                                                                            \
        memcpy(&api->name, &p, sizeof p);                                            \
    } while (0);
    VKRR_CU_FUNCTIONS(VKRR_CU_X_LOAD)
#undef VKRR_CU_X_LOAD
    return VKRR_OK;
fail:
    vkrr_cu_api_unload(api);
    return st;
}

void vkrr_cu_api_unload(vkrr_cu_api *api)
{
    if (!api) return;
    if (api->lib) dlclose(api->lib);
    memset(api, 0, sizeof *api);
}

const char *vkrr_cu_result_text(const vkrr_cu_api *api, vkrr_cu_result r, char *buf, size_t cap)
{
    const char *name = NULL, *desc = NULL;
    if (api && api->cuGetErrorName && api->cuGetErrorName(r, &name) != VKRR_CU_SUCCESS) name = NULL;
    if (api && api->cuGetErrorString && api->cuGetErrorString(r, &desc) != VKRR_CU_SUCCESS) desc = NULL;
    if (name && desc)
        snprintf(buf, cap, "%s (%s)", name, desc);
    else
        snprintf(buf, cap, "CUresult %d", r);
    return buf;
}
