/* ptx_module.c - loading a module (parse, then decode every entry) and
 * finding its entries. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_internal.h"

/* ---- module API --------------------------------------------------------------------- */
static void free_funcs(vkrr_ptx_module *m)
{
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        ptx_func *f = &m->funcs[i];
        free(f->raw);
        free(f->rops);
        free(f->regs);
        free(f->labels);
        free(f->code);
        free(f->const_val);
        free(f->const_var);
        free(f->var_off);
    }
    free(m->funcs);
    free(m->vars);
}

void vkrr_ptx_module_free(vkrr_ptx_module *m)
{
    if (!m)
        return;
    free_funcs(m);
    free(m->name);
    ptx_arena_free(&m->arena);
    free(m);
}

vkrr_status vkrr_ptx_module_load(vkrr_ptx_module **out, const char *text, size_t len,
                                 const char *name, vkrr_error *err)
{
    vkrr_error local = {0};
    if (!err)
        err = &local;
    *out = NULL;
    vkrr_ptx_module *m = calloc(1, sizeof *m);
    if (!m || !(m->name = strdup(name ? name : "(ptx)"))) {
        free(m);
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, 0, -1, "out of memory");
    }
    vkrr_status st = ptx_parse(m, text, len, err);
    if (st != VKRR_OK) {
        vkrr_ptx_module_free(m);
        return st;
    }
    ptx_decode_module(m);
    *out = m;
    return VKRR_OK;
}

vkrr_status vkrr_ptx_module_load_file(vkrr_ptx_module **out, const char *path, vkrr_error *err)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot open the PTX module");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            char *nb = cap > (1u << 30) ? NULL : realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(fp);
                return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "the PTX module is too large");
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, fp);
        len += got;
        if (got == 0)
            break;
    }
    bool bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot read the PTX module");
    }
    vkrr_status st = vkrr_ptx_module_load(out, buf, len, path, err);
    free(buf);
    return st;
}

static const ptx_func *find_entry(const vkrr_ptx_module *m, const char *entry)
{
    for (uint32_t i = 0; m && entry && i < m->nfuncs; i++)
        if (m->funcs[i].entry && m->funcs[i].defined && !strcmp(m->funcs[i].name, entry))
            return &m->funcs[i];
    return NULL;
}

bool vkrr_ptx_module_has_entry(const vkrr_ptx_module *m, const char *entry)
{
    return find_entry(m, entry) != NULL;
}

vkrr_status vkrr_ptx_entry_status(const vkrr_ptx_module *m, const char *entry, vkrr_error *err)
{
    const ptx_func *f = find_entry(m, entry);
    if (!f)
        return vkrr_fail(err, VKRR_ERR_NO_PORT, m ? m->name : NULL, 0, -1, "no .entry named %s",
                         entry ? entry : "(null)");
    if (f->status != VKRR_OK && err)
        *err = f->err;
    return f->status;
}

uint32_t vkrr_ptx_module_entries(const vkrr_ptx_module *m, const char **names, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; m && i < m->nfuncs; i++)
        if (m->funcs[i].entry && m->funcs[i].defined) {
            if (n < cap && names)
                names[n] = m->funcs[i].name;
            n++;
        }
    return n;
}
