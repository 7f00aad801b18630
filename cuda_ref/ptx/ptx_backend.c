/* ptx_backend.c - the "ptx" vkrr_backend (see ptx.h): a replay's resources
 * as host memory, exactly as the CPU backend makes them, then vkrr_ptx_run. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuformat.h"
#include "ptx_internal.h"

typedef struct ptx_backend {
    vkrr_ptx_module **mods;
    uint32_t nmods;
} ptx_backend;

static const vkrr_ptx_module *find_module(const ptx_backend *be, const char *kernel)
{
    for (uint32_t i = 0; i < be->nmods; i++)
        if (vkrr_ptx_module_has_entry(be->mods[i], kernel))
            return be->mods[i];
    return NULL;
}

static bool ptx_has_kernel(void *self, const char *kernel)
{
    return find_module(self, kernel) != NULL;
}

static vkrr_status ptx_run_replay(void *self, vkrr_replay *r, vkrr_error *err)
{
    const ptx_backend *be = self;
    const vkrr_ptx_module *m = find_module(be, r->kernel);
    r->standins = 0;
    if (!m)
        return vkrr_fail(err, VKRR_ERR_NO_PORT, r->kernel, 0, -1,
                         "no PTX module given to the ptx backend has an .entry named %s",
                         r->kernel ? r->kernel : "(null)");
    vkrr_status st = VKRR_ERR_NOMEM;
    uint32_t na = r->nallocs, ni = r->nimages;
    void **scratch = calloc(na + ni + 1, sizeof *scratch);
    uint64_t *alloc_addr = calloc(na + 1, sizeof *alloc_addr);
    uint64_t *image_word = calloc(ni + 1, sizeof *image_word);
    vkrr_ptx_region *regions = calloc(na + 1, sizeof *regions);
    vkrr_cutex *tex = calloc(ni + 1, sizeof *tex);
    vkrr_cusurf *surf = calloc(ni + 1, sizeof *surf);
    uint8_t params[VKRR_ARGS_MAX_BYTES];
    uint32_t nscratch = 0, ntex = 0, nsurf = 0;
    if (!scratch || !alloc_addr || !image_word || !regions || !tex || !surf) {
        vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, -1, "no memory for the launch");
        goto out;
    }
    for (uint32_t i = 0; i < na; i++) {
        vkrr_replay_alloc *a = &r->allocs[i];
        void *data = a->post;
        if (!data) {
            if (a->size > SIZE_MAX - 1 || !(data = malloc(a->size ? a->size : 1))) {
                vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, -1, "no memory for a %llu-byte allocation",
                          (unsigned long long)a->size);
                goto out;
            }
            scratch[nscratch++] = data;
        }
        if (a->pre)
            memmove(data, a->pre, a->size);
        else
            memset(data, 0, a->size);
        alloc_addr[i] = (uint64_t)(uintptr_t)data;
        regions[i] = (vkrr_ptx_region){data, a->size, true};
    }
    /* descriptors first (their addresses are the handle words), contents second */
    for (uint32_t i = 0; i < ni; i++) {
        vkrr_replay_image *im = &r->images[i];
        unsigned tb = vkrr_cuformat_texel_bytes(im->format, im->channels);
        uint64_t bytes = vkrr_replay_image_bytes(im);
        if (tb == 0) {
            st = vkrr_fail(err, VKRR_ERR_FORMAT, r->kernel, 0, im->offset,
                           "image at offset %u: CUarray_format %u with %u channels", im->offset,
                           im->format, im->channels);
            goto out;
        }
        if (im->kind == VKRR_IMAGE_TEXTURE) {
            if (!im->pre) {
                st = vkrr_fail(err, VKRR_ERR_MISSING, r->kernel, 0, im->offset,
                               "texture at offset %u has no contents", im->offset);
                goto out;
            }
            vkrr_cutex *t = &tex[ntex++];
            *t = (vkrr_cutex){.data = im->pre, .width = im->width, .height = im->height,
                              .channels = im->channels, .format = im->format, .texel_bytes = tb,
                              .filter = im->sampler.filter,
                              .address = {im->sampler.address[0], im->sampler.address[1]},
                              .normalized = im->sampler.normalized,
                              .read_as_integer = im->sampler.read_as_integer};
            image_word[i] = (uint64_t)(uintptr_t)t;
        } else {
            unsigned char *data = im->post;
            if (!data) {
                if (!(data = malloc(bytes ? bytes : 1))) {
                    vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, im->offset,
                              "no memory for a %llu-byte surface", (unsigned long long)bytes);
                    goto out;
                }
                scratch[nscratch++] = data;
            }
            if (im->pre)
                memmove(data, im->pre, bytes);
            else
                memset(data, VKRR_SENTINEL_BYTE, bytes);
            vkrr_cusurf *s = &surf[nsurf++];
            *s = (vkrr_cusurf){data, im->width, im->height, tb};
            image_word[i] = (uint64_t)(uintptr_t)s;
        }
    }
    st = vkrr_replay_relocate(r, alloc_addr, image_word, params, err);
    if (st != VKRR_OK)
        goto out;
    vkrr_ptx_launch l = {
        .grid = {r->grid[0], r->grid[1], r->grid[2]},
        .block = {r->block[0], r->block[1], r->block[2]},
        .shared_bytes = r->shared_bytes,
        .params = params,
        .params_bytes = r->args_bytes,
        .regions = regions,
        .nregions = na,
        .textures = tex,
        .ntextures = ntex,
        .surfaces = surf,
        .nsurfaces = nsurf,
        .standins = &r->standins,
    };
    st = vkrr_ptx_run(m, r->kernel, &l, err);
out:
    for (uint32_t i = 0; scratch && i < nscratch; i++)
        free(scratch[i]);
    free(scratch);
    free(alloc_addr);
    free(image_word);
    free(regions);
    free(tex);
    free(surf);
    return st;
}

static void ptx_destroy(void *self)
{
    ptx_backend *be = self;
    if (!be)
        return;
    for (uint32_t i = 0; i < be->nmods; i++)
        vkrr_ptx_module_free(be->mods[i]);
    free(be->mods);
    free(be);
}

vkrr_status vkrr_ptx_backend_create(vkrr_backend *out, const char *const *module_paths, uint32_t n,
                                    vkrr_error *err)
{
    ptx_backend *be = calloc(1, sizeof *be);
    if (!be || !(be->mods = calloc(n ? n : 1, sizeof *be->mods))) {
        free(be);
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory for the ptx backend");
    }
    for (uint32_t i = 0; i < n; i++) {
        vkrr_status st = vkrr_ptx_module_load_file(&be->mods[be->nmods], module_paths[i], err);
        if (st != VKRR_OK) {
            ptx_destroy(be);
            return st;
        }
        be->nmods++;
    }
    memset(out, 0, sizeof *out);
    out->name = "ptx";
    out->self = be;
    out->has_kernel = ptx_has_kernel;
    out->run = ptx_run_replay;
    out->destroy = ptx_destroy;
    return VKRR_OK;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

vkrr_status vkrr_ptx_backend_create_dir(vkrr_backend *out, const char *dir, vkrr_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return vkrr_fail(err, VKRR_ERR_MISSING, dir, 0, -1, "cannot open the module folder");
    char **names = NULL;
    uint32_t n = 0, cap = 0;
    vkrr_status st = VKRR_OK;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".ptx"))
            continue;
        if (!ptx_grow((void **)&names, &cap, n, sizeof *names)) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "out of memory");
            break;
        }
        size_t plen = strlen(dir) + len + 2;
        if (!(names[n] = malloc(plen))) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "out of memory");
            break;
        }
        snprintf(names[n++], plen, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (st == VKRR_OK && n == 0)
        st = vkrr_fail(err, VKRR_ERR_MISSING, dir, 0, -1, "no PTX module (*.ptx) in the folder");
    if (st == VKRR_OK) {
        qsort(names, n, sizeof *names, name_cmp);
        st = vkrr_ptx_backend_create(out, (const char *const *)names, n, err);
    }
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return st;
}
