/* cli_modules.c - the original kernels' modules for the commands that run
 * them (rerun, validate --ref, stress) or read their PTX (validate: which
 * textures a kernel never filters): --modules, repeatable, files and
 * folders; else where the capture's modules are (modules.h). */
#include <stdio.h>
#include <string.h>

#include "backends.h"
#include "cli.h"
#include "modules.h"
#include "tex_unfiltered.h"

int vkrr_cli_modules_take(const char *cmd, const char *v, vkrr_cli_modules *m)
{
    if (m->n == VKRR_CLI_MODULES_MAX)
        return vkrr_cli_usage_error(cmd, "--modules at most %u times", VKRR_CLI_MODULES_MAX);
    m->v[m->n++] = v;
    return 0;
}

/* "modules: ..." and, for a kernel several PTX define with different
 * targets, which one runs and why. */
static void say_modules(FILE *f, const vkrr_capture *cap, const vkrr_module_set *s)
{
    char buf[4096];
    vkrr_modules_summary(s, buf, sizeof buf);
    fprintf(f, "modules: %s\n", buf);
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const char *k = cap->launches[i].kernel;
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = !strcmp(cap->launches[j].kernel, k);
        int at = seen ? -1 : vkrr_modules_pick(s, k, buf, sizeof buf);
        if (at >= 0 && buf[0])
            fprintf(f, "modules: %s: PTX for %s; from %s\n", k, buf, s->srcs[at].name);
    }
}

vkrr_status vkrr_cli_open_reference(const char *name, const vkrr_capture *cap,
                                    const vkrr_cli_modules *m, vkrr_backend_desc d,
                                    vkrr_backend *out, vkrr_module_set *set, FILE *say,
                                    vkrr_error *err)
{
    char dir[4200];
    d.name = name;
    if (!strcmp(name, "ptx")) {
        vkrr_status st = vkrr_modules_find(cap, m->v, m->n, set, err);
        if (st != VKRR_OK)
            return st;
        if (say)
            say_modules(say, cap, set);
        d.module_set = set;
    } else {
        snprintf(dir, sizeof dir, "%s/modules", cap->path);
        d.modules = m->n ? m->v[0] : dir;
    }
    return vkrr_backend_open(&d, out, err);
}

struct vkrr_tex_unfiltered *vkrr_cli_tex_unfiltered(const vkrr_capture *cap, const vkrr_cli_modules *m,
                                                    vkrr_module_set *set)
{
    if (!vkrr_tex_unfiltered_wanted(cap))
        return NULL;
    vkrr_error err = {0};
    if (!set->n && !set->nfiles && vkrr_modules_find(cap, m->v, m->n, set, &err) != VKRR_OK)
        return NULL; /* what --ref ptx would say of it; here only the note stays */
    vkrr_tex_unfiltered *t = NULL;
    vkrr_tex_unfiltered_create(&t, cap, set, &err);
    return t;
}
