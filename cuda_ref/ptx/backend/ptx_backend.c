/* ptx_backend.c - the "ptx" vkrr_backend (see ptx.h): a replay's resources
 * as host memory, set up as for the CPU backend (host_launch.h), then
 * vkrr_ptx_run. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuformat.h"
#include "host_launch.h"
#include "ptx_internal.h"

typedef struct ptx_backend {
    vkrr_ptx_module **mods;
    uint32_t nmods;
    char *printed; /* the last launch's printf output */
    vkrr_ptx_engine engine;
    bool no_cache;
    char engine_note[320]; /* the last launch's, when the JIT did not run it */
    char memory_note[640]; /* the last launch's (vkrr_ptx_launch.memory_note) */
} ptx_backend;

static int by_base(const void *a, const void *b, void *ctx)
{
    const vkrr_replay *r = ctx;
    uint64_t x = r->allocs[*(const uint32_t *)a].base, y = r->allocs[*(const uint32_t *)b].base;
    return x < y ? -1 : x > y;
}

/* Whether the kernel can see r's allocations where the capture had them:
 * every one has a base, none wraps, no two overlap.  Else (a capture
 * without addresses) it sees host addresses, as the CPU backend does. */
static bool device_layout(const vkrr_replay *r)
{
    uint32_t *order = malloc((r->nallocs ? r->nallocs : 1) * sizeof *order);
    if (!order)
        return false;
    for (uint32_t i = 0; i < r->nallocs; i++)
        order[i] = i;
    qsort_r(order, r->nallocs, sizeof *order, by_base, (void *)r);
    bool ok = true;
    for (uint32_t k = 0; k < r->nallocs && ok; k++) {
        const vkrr_replay_alloc *a = &r->allocs[order[k]];
        ok = a->base && a->size <= UINT64_MAX - a->base &&
             (k + 1 == r->nallocs || a->base + a->size <= r->allocs[order[k + 1]].base);
    }
    free(order);
    return ok;
}

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
    ptx_backend *be = self;
    const vkrr_ptx_module *m = find_module(be, r->kernel);
    r->standins = 0;
    r->engine_note = NULL;
    r->memory_note = NULL;
    r->engine = NULL;
    const char *used = NULL;
    free(be->printed);
    be->printed = NULL;
    r->printed = NULL;
    if (!m)
        return vkrr_fail(err, VKRR_ERR_NO_PORT, r->kernel, 0, -1,
                         "no PTX module given to the ptx backend has an .entry named %s",
                         r->kernel ? r->kernel : "(null)");
    vkrr_host_launch hl;
    vkrr_status st = vkrr_host_launch_prepare(r, &hl, err);
    if (st != VKRR_OK)
        return st;
    vkrr_ptx_region *regions = calloc(r->nallocs + 1, sizeof *regions);
    if (!regions) {
        vkrr_host_launch_free(&hl);
        return vkrr_fail(err, VKRR_ERR_NOMEM, r->kernel, 0, -1, "no memory for the launch");
    }
    /* the kernel sees the capture's addresses: its pointer words as captured */
    bool device = device_layout(r);
    for (uint32_t i = 0; i < r->nallocs; i++)
        regions[i] = (vkrr_ptx_region){(void *)(uintptr_t)hl.alloc_addr[i], r->allocs[i].size, true,
                                       device ? r->allocs[i].base : 0};
    for (uint32_t i = 0; device && i < r->npointers; i++) {
        uint64_t v = r->allocs[r->pointers[i].alloc].base + r->pointers[i].delta;
        memcpy(hl.params + r->pointers[i].offset, &v, 8); /* relocate checked the offsets */
    }
    vkrr_ptx_launch l = {
        .grid = {r->grid[0], r->grid[1], r->grid[2]},
        .block = {r->block[0], r->block[1], r->block[2]},
        .shared_bytes = r->shared_bytes,
        .params = hl.params,
        .params_bytes = r->args_bytes,
        .regions = regions,
        .nregions = r->nallocs,
        .textures = hl.tex,
        .ntextures = hl.ntex,
        .surfaces = hl.surf,
        .nsurfaces = hl.nsurf,
        .standins = &r->standins,
        .printf_out = &be->printed,
        .engine = be->engine,
        .jit_no_cache = be->no_cache,
        .engine_used = &used,
        .memory_note = be->memory_note,
        .memory_note_cap = sizeof be->memory_note,
    };
    st = vkrr_ptx_run(m, r->kernel, &l, err);
    r->printed = be->printed;
    r->memory_note = be->memory_note[0] ? be->memory_note : NULL;
    r->engine = used; /* the module's storage: valid while the backend is open */
    if (used && !strncmp(used, "interp (the JIT", 15)) { /* "interp (WHY)": WHY */
        snprintf(be->engine_note, sizeof be->engine_note, "%s", used + 8);
        be->engine_note[strlen(be->engine_note) - 1] = 0;
        r->engine_note = be->engine_note;
    }
    free(regions);
    vkrr_host_launch_free(&hl);
    return st;
}

static uint32_t ptx_coverage(void *self, const char *kernel, vkrr_branch_cov *out, uint32_t cap,
                             const char **module)
{
    const vkrr_ptx_module *m = find_module(self, kernel);
    vkrr_ptx_branch b[256];
    uint32_t n = m ? vkrr_ptx_coverage(m, kernel, b, 256) : 0;
    if (n > 256) { /* many branches: ask again with room for all */
        vkrr_ptx_branch *all = malloc(n * sizeof *all);
        if (!all)
            return 0;
        n = vkrr_ptx_coverage(m, kernel, all, n);
        for (uint32_t i = 0; i < n && i < cap; i++)
            out[i] = (vkrr_branch_cov){all[i].line, all[i].ran, all[i].taken, all[i].fell,
                                       all[i].src, all[i].src_line};
        free(all);
    } else {
        for (uint32_t i = 0; i < n && i < cap; i++)
            out[i] = (vkrr_branch_cov){b[i].line, b[i].ran, b[i].taken, b[i].fell, b[i].src,
                                       b[i].src_line};
    }
    *module = m ? m->name : "";
    return n;
}

static uint32_t ptx_instr_coverage(void *self, const char *kernel, uint32_t *ran, uint32_t *total,
                                   vkrr_span_cov *out, uint32_t cap)
{
    const vkrr_ptx_module *m = find_module(self, kernel);
    *ran = *total = 0;
    if (!m)
        return 0;
    vkrr_ptx_span *s = malloc((cap ? cap : 1) * sizeof *s);
    if (!s)
        return 0;
    uint32_t n = vkrr_ptx_instr_coverage(m, kernel, ran, total, s, cap);
    for (uint32_t i = 0; i < n && i < cap; i++)
        out[i] = (vkrr_span_cov){s[i].line0, s[i].line1, s[i].count, s[i].src, s[i].src_line};
    free(s);
    return n;
}

vkrr_status vkrr_ptx_backend_coverage_on(vkrr_backend *out, vkrr_error *err)
{
    ptx_backend *be = out->self;
    for (uint32_t i = 0; i < be->nmods; i++) {
        vkrr_status st = vkrr_ptx_coverage_on(be->mods[i], err);
        if (st != VKRR_OK)
            return st;
    }
    out->coverage = ptx_coverage;
    out->instr_coverage = ptx_instr_coverage;
    return VKRR_OK;
}

vkrr_status vkrr_ptx_backend_engine(vkrr_backend *out, const char *engine, bool no_cache,
                                    vkrr_error *err)
{
    ptx_backend *be = out->self;
    be->no_cache = no_cache;
    be->engine = VKRR_PTX_ENGINE_DEFAULT;
    const char *env = getenv("VKRR_PTX_ENGINE");
    vkrr_ptx_engine e;
    if (!engine && env && *env && !vkrr_ptx_engine_parse(env, &e))
        return vkrr_fail(err, VKRR_ERR_USAGE, "VKRR_PTX_ENGINE", 0, -1,
                         "'%s' is not an engine (jit, interp or both)", env);
    if (!engine)
        return VKRR_OK;
    if (!vkrr_ptx_engine_parse(engine, &be->engine))
        return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1,
                         "--ptx-engine takes jit, interp or both, not '%s'", engine);
    if (be->engine != VKRR_PTX_ENGINE_INTERP && !vkrr_ptx_jit_built())
        return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1,
                         "--ptx-engine %s: this build has no PTX JIT (built without LLVM 15: "
                         "llvm-15-dev missing or VKRR_PTX_JIT=OFF); --ptx-engine interp runs "
                         "the interpreter", engine);
    return VKRR_OK;
}

static void ptx_destroy(void *self)
{
    ptx_backend *be = self;
    if (!be)
        return;
    for (uint32_t i = 0; i < be->nmods; i++)
        vkrr_ptx_module_free(be->mods[i]);
    free(be->mods);
    free(be->printed);
    free(be);
}

/* Modules from files (paths) or texts (texts[i], lens[i], named paths[i]). */
static vkrr_status create(vkrr_backend *out, const char *const *paths, const char *const *texts,
                          const size_t *lens, uint32_t n, vkrr_error *err)
{
    ptx_backend *be = calloc(1, sizeof *be);
    if (!be || !(be->mods = calloc(n ? n : 1, sizeof *be->mods))) {
        free(be);
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "no memory for the ptx backend");
    }
    for (uint32_t i = 0; i < n; i++) {
        vkrr_status st = texts ? vkrr_ptx_module_load_keep(&be->mods[be->nmods], texts[i], lens[i], paths[i], err)
                               : vkrr_ptx_module_load_file_keep(&be->mods[be->nmods], paths[i], err);
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

vkrr_status vkrr_ptx_backend_create(vkrr_backend *out, const char *const *module_paths, uint32_t n,
                                    vkrr_error *err)
{
    return create(out, module_paths, NULL, NULL, n, err);
}

vkrr_status vkrr_ptx_backend_create_texts(vkrr_backend *out, const char *const *names,
                                          const char *const *texts, const size_t *lens, uint32_t n,
                                          vkrr_error *err)
{
    return create(out, names, texts, lens, n, err);
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
