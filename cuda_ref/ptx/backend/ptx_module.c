/* ptx_module.c - loading a module (parse, then decode every entry) and
 * finding its entries. */
#include <ctype.h>
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
        free(f->var_frame);
        free(f->cov);
        free(f->jit);
        for (uint32_t k = 0; k < f->nsegs; k++) {
            free(f->segs[k].save_slots);
            free(f->segs[k].save_preds);
        }
        free(f->segs);
        free(f->seg_of);
        free(f->calls);
        free(f->copies);
    }
    free(m->funcs);
    free(m->vars);
    free(m->srcfiles);
    free(m->relocs);
}

void vkrr_ptx_module_free(vkrr_ptx_module *m)
{
    if (!m)
        return;
    ptx_jit_free(m);
    free_funcs(m);
    free(m->name);
    ptx_arena_free(&m->arena);
    free(m);
}

/* A module that did not parse keeps the .entry names its text declares
 * (outside // comments), each failing with e when launched. */
static vkrr_status keep_entries(vkrr_ptx_module *m, const char *text, size_t len,
                                const vkrr_error *e)
{
    vkrr_error fe = *e;
    fe.status = VKRR_ERR_UNSUPPORTED;
    snprintf(fe.msg, sizeof fe.msg, "the module does not parse: %.700s", e->msg);
    size_t line_start = 0;
    for (size_t i = 0; i + 6 < len; i++) {
        if (text[i] == '\n')
            line_start = i + 1;
        if (memcmp(text + i, ".entry", 6) || (i && !strchr(" \t\n", text[i - 1])) ||
            !strchr(" \t", text[i + 6]))
            continue;
        bool comment = false;
        for (size_t k = line_start; k + 1 < i; k++)
            comment = comment || (text[k] == '/' && text[k + 1] == '/');
        size_t b = i + 6;
        while (b < len && (text[b] == ' ' || text[b] == '\t'))
            b++;
        size_t n = 0;
        while (b + n < len && text[b + n] &&
               (isalnum((unsigned char)text[b + n]) || strchr("_$%", text[b + n])))
            n++;
        if (comment || n == 0)
            continue;
        if (!ptx_grow((void **)&m->funcs, &m->capfuncs, m->nfuncs, sizeof *m->funcs))
            return VKRR_ERR_NOMEM;
        ptx_func *f = &m->funcs[m->nfuncs];
        memset(f, 0, sizeof *f);
        if (!(f->name = ptx_arena_strndup(&m->arena, text + b, n)))
            return VKRR_ERR_NOMEM;
        f->entry = f->defined = true;
        f->status = VKRR_ERR_UNSUPPORTED;
        f->err = fe;
        m->nfuncs++;
    }
    return VKRR_OK;
}

/* keep: a module that does not parse is kept (keep_entries). */
static vkrr_status load(vkrr_ptx_module **out, const char *text, size_t len, const char *name,
                        bool keep, vkrr_error *err)
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
    if (st != VKRR_OK && keep && st != VKRR_ERR_NOMEM) {
        vkrr_ptx_module *k = calloc(1, sizeof *k);
        if (k) {
            k->name = m->name; /* moved */
            m->name = NULL;
        }
        vkrr_ptx_module_free(m);
        if (!k || keep_entries(k, text, len, err) != VKRR_OK) {
            vkrr_ptx_module_free(k);
            return vkrr_fail(err, VKRR_ERR_NOMEM, name, 0, -1, "out of memory");
        }
        *out = k;
        return VKRR_OK;
    }
    if (st != VKRR_OK) {
        vkrr_ptx_module_free(m);
        return st;
    }
    ptx_decode_module(m);
    *out = m;
    return VKRR_OK;
}

vkrr_status vkrr_ptx_module_load(vkrr_ptx_module **out, const char *text, size_t len,
                                 const char *name, vkrr_error *err)
{
    return load(out, text, len, name, false, err);
}

vkrr_status vkrr_ptx_module_load_keep(vkrr_ptx_module **out, const char *text, size_t len,
                                      const char *name, vkrr_error *err)
{
    return load(out, text, len, name, true, err);
}

static vkrr_status load_file(vkrr_ptx_module **out, const char *path, bool keep, vkrr_error *err)
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
    vkrr_status st = load(out, buf, len, path, keep, err);
    free(buf);
    return st;
}

vkrr_status vkrr_ptx_module_load_file(vkrr_ptx_module **out, const char *path, vkrr_error *err)
{
    return load_file(out, path, false, err);
}

vkrr_status vkrr_ptx_module_load_file_keep(vkrr_ptx_module **out, const char *path,
                                           vkrr_error *err)
{
    return load_file(out, path, true, err);
}

static const ptx_func *find_entry(const vkrr_ptx_module *m, const char *entry)
{
    for (uint32_t i = 0; m && entry && i < m->nfuncs; i++)
        if (m->funcs[i].entry && m->funcs[i].defined && !strcmp(m->funcs[i].name, entry))
            return &m->funcs[i];
    return NULL;
}

vkrr_status vkrr_ptx_coverage_on(vkrr_ptx_module *m, vkrr_error *err)
{
    for (uint32_t i = 0; m && i < m->nfuncs; i++) {
        ptx_func *f = &m->funcs[i];
        if (f->cov || !f->code)
            continue;
        if (!(f->cov = calloc(f->ncode ? f->ncode : 1, 1)))
            return vkrr_fail(err, VKRR_ERR_NOMEM, m->name, 0, -1, "no memory for coverage");
    }
    return VKRR_OK;
}

uint32_t vkrr_ptx_coverage(const vkrr_ptx_module *m, const char *entry, vkrr_ptx_branch *out,
                           uint32_t cap)
{
    const ptx_func *f = find_entry(m, entry);
    uint32_t n = 0;
    if (!f || !f->cov)
        return 0;
    for (uint32_t pc = 0; pc < f->nraw && pc < f->ncode; pc++) {
        const ptx_inst *in = &f->code[pc];
        if (in->kind != K_BRA || in->guard < 0)
            continue;
        uint8_t c = __atomic_load_n(&f->cov[pc], __ATOMIC_RELAXED);
        const char *src = NULL;
        for (uint32_t s = 0; s < m->nsrcfiles && f->raw[pc].src_line; s++)
            if (m->srcfiles[s].index == f->raw[pc].src_file)
                src = m->srcfiles[s].path;
        if (n < cap)
            out[n] = (vkrr_ptx_branch){f->raw[pc].line, c & PTX_COV_RAN, c & PTX_COV_TAKEN,
                                       c & PTX_COV_FELL, src, src ? f->raw[pc].src_line : 0};
        n++;
    }
    return n;
}

static const char *src_of(const vkrr_ptx_module *m, const ptx_raw *r)
{
    for (uint32_t s = 0; s < m->nsrcfiles && r->src_line; s++)
        if (m->srcfiles[s].index == r->src_file)
            return m->srcfiles[s].path;
    return NULL;
}

uint32_t vkrr_ptx_instr_coverage(const vkrr_ptx_module *m, const char *entry, uint32_t *ran,
                                 uint32_t *total, vkrr_ptx_span *out, uint32_t cap)
{
    const ptx_func *f = find_entry(m, entry);
    uint32_t n = 0;
    *ran = *total = 0;
    if (!f || !f->cov)
        return 0;
    bool open = false;
    for (uint32_t pc = 0; pc < f->nraw && pc < f->ncode; pc++) {
        bool implicit = false; /* the ret ptx_link.c adds at each function's end */
        for (uint32_t s = 0; s < f->nsegs; s++)
            implicit = implicit || pc + 1 == f->segs[s].pc1;
        if (implicit)
            continue;
        ++*total;
        bool r = __atomic_load_n(&f->cov[pc], __ATOMIC_RELAXED) & PTX_COV_RAN;
        *ran += r;
        if (r) {
            open = false;
            continue;
        }
        const ptx_raw *raw = &f->raw[pc];
        if (open) { /* the span before goes on */
            if (n - 1 < cap) {
                out[n - 1].line1 = raw->line;
                out[n - 1].count++;
            }
            continue;
        }
        if (n < cap) {
            const char *src = src_of(m, raw);
            out[n] = (vkrr_ptx_span){raw->line, raw->line, 1, src, src ? raw->src_line : 0};
        }
        n++;
        open = true;
    }
    return n;
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
