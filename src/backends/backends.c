/* backends.c - opening a backend by name (backends.h). */
#include "backends.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend_vk.h"
#include "cpu_backend.h"
#include "cuda_backend.h"
#include "nvml_clocks.h"
#include "ptx.h"

const char *vkrr_backend_names(void)
{
    return "vulkan, cpu, ptx, cuda";
}

const char *vkrr_backend_ptx_jit_llvm(void)
{
    return vkrr_ptx_jit_llvm_version();
}

/* The ptx backend over the PTX a module search found. */
static vkrr_status open_set(const vkrr_module_set *ms, vkrr_backend *out, vkrr_error *err)
{
    if (!ms->n) {
        char where[2048];
        vkrr_modules_summary(ms, where, sizeof where);
        return vkrr_fail(err, VKRR_ERR_MISSING, NULL, 0, -1,
                         "no PTX module found (%s): the bridge saves modules to "
                         "D4R_CUDA_CAPTURE_DIR (/tmp/d4r-dlss-cuda-modules by default); copy them "
                         "into CAPDIR/modules or give --modules FILE|DIR (PTX, fatbins, a DLL)",
                         ms->nfiles ? where : "no module file in CAPDIR/modules, none named by run.log");
    }
    const char **names = calloc(ms->n, sizeof *names), **texts = calloc(ms->n, sizeof *texts);
    size_t *lens = calloc(ms->n, sizeof *lens);
    vkrr_status st = VKRR_OK;
    if (!names || !texts || !lens)
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
    for (uint32_t i = 0; st == VKRR_OK && i < ms->n; i++)
        names[i] = ms->srcs[i].name, texts[i] = ms->srcs[i].text, lens[i] = ms->srcs[i].len;
    if (st == VKRR_OK)
        st = vkrr_ptx_backend_create_texts(out, names, texts, lens, ms->n, err);
    free(names), free(texts), free(lens);
    return st;
}

vkrr_status vkrr_backend_open(const vkrr_backend_desc *d, vkrr_backend *out, vkrr_error *err)
{
    const char *name = d->name ? d->name : "vulkan";
    memset(out, 0, sizeof *out);
    if (!strcmp(name, "vulkan"))
        return vkrr_vk_backend_create(out, &(vkrr_vk_desc){.device = d->device,
                                                           .timeout_s = d->timeout_s,
                                                           .ports_dir = d->ports_dir,
                                                           .no_builtin = d->no_builtin,
                                                           .validation = d->validation},
                                      err);
    if (!strcmp(name, "cpu"))
        return vkrr_cpu_backend_create(out, err);
    if (!strcmp(name, "ptx")) {
        if (!d->modules && !d->module_set)
            return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "the ptx backend needs a modules folder");
        struct stat sb;
        vkrr_status st = d->module_set ? open_set(d->module_set, out, err)
                         : stat(d->modules, &sb) == 0 && S_ISREG(sb.st_mode) /* one module file */
                             ? vkrr_ptx_backend_create(out, &d->modules, 1, err)
                             : vkrr_ptx_backend_create_dir(out, d->modules, err);
        if (st == VKRR_OK && d->coverage)
            st = vkrr_ptx_backend_coverage_on(out, err);
        if (st == VKRR_OK)
            st = vkrr_ptx_backend_engine(out, d->ptx_engine, d->no_cache, err);
        if (st != VKRR_OK && out->self) { /* opened, then refused: nothing left open */
            out->destroy(out->self);
            memset(out, 0, sizeof *out);
        }
        return st;
    }
    if (!strcmp(name, "cuda"))
        return vkrr_cuda_backend_create(out, &(vkrr_cuda_desc){.module_dir = d->modules,
                                                               .device = d->device ? atoi(d->device) : 0},
                                        err);
    return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "no backend named '%s' (there are %s)", name,
                     vkrr_backend_names());
}

bool vkrr_backend_clocks(const vkrr_backend *be, char *text, size_t cap)
{
    vkrr_backend_stats st = {0};
    if (be->stats)
        be->stats(be->self, &st);
    vkrr_gpu_clocks c;
    if (!vkrr_nvml_clocks(st.uuid, &c)) {
        snprintf(text, cap, "%s", c.why);
        return false;
    }
    int n = snprintf(text, cap, "SM %u/%u MHz, memory %u/%u MHz", c.sm_mhz, c.sm_max_mhz, c.mem_mhz,
                     c.mem_max_mhz);
    if (c.pstate >= 0 && n > 0 && (size_t)n < cap)
        snprintf(text + n, cap - (size_t)n, ", P%d", c.pstate);
    return true;
}
