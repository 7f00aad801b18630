/* portpass.c - `pass` and `scratch` lines: one launch as several dispatches
 * with buffers of the port's own between them (portpass.h). */
#include "portpass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest scratch buffer: far above what any port needs, far below what
 * would overflow a size sum. */
#define SCRATCH_MAX (1ull << 36)

bool vkrr_port_pass_keyword(const char *tok)
{
    return !strcmp(tok, "pass") || !strcmp(tok, "scratch") || !strcmp(tok, "covers");
}

vkrr_port_iface *vkrr_port_pass_current(vkrr_port_iface *f)
{
    return f->npass ? f->pass[f->npass - 1] : f;
}

static bool identifier(const char *s, size_t cap)
{
    size_t n = strlen(s);
    if (!n || n >= cap || (s[0] >= '0' && s[0] <= '9'))
        return false;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n;
}

static vkrr_status parse_scratch(vkrr_port_iface *f, char **tok, int nt, const char *name, long line,
                                 vkrr_error *err)
{
    const char *why = NULL;
    if (nt != 3 || strncmp(tok[2], "size=", 5))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "a line is 'scratch NAME size=EXPR' (a buffer of the port's own, bytes)");
    if (!identifier(tok[1], sizeof f->scratch->name))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "scratch '%s': the name is a C identifier of at most 31 characters", tok[1]);
    for (uint32_t i = 0; i < f->nscratch; i++)
        if (!strcmp(f->scratch[i].name, tok[1]))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "scratch %s is given twice (first on line %ld)", tok[1], f->scratch[i].line);
    if (f->nscratch == VKRR_PORT_MAX_SCRATCH)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "more than %d scratch buffers",
                         VKRR_PORT_MAX_SCRATCH);
    if (!f->scratch && !(f->scratch = calloc(VKRR_PORT_MAX_SCRATCH, sizeof *f->scratch)))
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, line, -1, "out of memory");
    vkrr_port_scratch *s = &f->scratch[f->nscratch];
    memset(s, 0, sizeof *s);
    if (!vkrr_port_expr_parse(tok[2] + 5, &s->size, &why))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "scratch %s: '%s': %s", tok[1], tok[2], why);
    snprintf(s->size.text, sizeof s->size.text, "%s", tok[2]);
    snprintf(s->name, sizeof s->name, "%s", tok[1]);
    s->line = line;
    f->nscratch++;
    return VKRR_OK;
}

static vkrr_status parse_pass(vkrr_port_iface *f, char **tok, int nt, const char *name, long line,
                              vkrr_error *err)
{
    if (nt > 2 || (nt == 2 && (strncmp(tok[1], "shader=", 7) || !identifier(tok[1] + 7, sizeof f->shader))))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "a line is 'pass' (the kernel's shader) or 'pass shader=NAME' (NAME.spv or "
                         "NAME.comp in the ports folder; NAME a C identifier)");
    /* the head's own lines would belong to no pass: say which */
    long above = f->nbind ? f->bind[0].line : f->npush ? f->push[0].line : f->nspec ? f->spec[0].line
               : f->workgroup_line ? f->workgroup_line : f->dispatch_line;
    if (above)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "pass: line %ld is above the first 'pass': with passes, every binding, push, "
                         "specialize, workgroup and dispatch line belongs to one", above);
    if (f->npass == VKRR_PORT_MAX_PASSES)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "more than %d passes", VKRR_PORT_MAX_PASSES);
    vkrr_port_iface *p = calloc(1, sizeof *p);
    if (!p)
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, line, -1, "out of memory");
    p->line = line;
    p->head = f;
    if (nt == 2)
        snprintf(p->shader, sizeof p->shader, "%s", tok[1] + 7);
    f->pass[f->npass++] = p;
    return VKRR_OK;
}

/* covers K0 K1 ...: a fused port (its file is K0's). */
static vkrr_status parse_covers(vkrr_port_iface *f, char **tok, int nt, const char *name, long line,
                                vkrr_error *err)
{
    if (f->covers_line)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "covers is given twice (first on line %ld)",
                         f->covers_line);
    if (nt < 3 || nt - 1 > VKRR_PORT_MAX_RUN)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "a line is 'covers KERNEL0 KERNEL1 ...': the kernels of 2 to %d consecutive "
                         "launches this port stands for, in order, the first this port's own",
                         VKRR_PORT_MAX_RUN);
    if (!(f->covers = calloc((size_t)nt - 1, sizeof *f->covers)))
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, line, -1, "out of memory");
    for (int i = 1; i < nt; i++)
        if (!(f->covers[f->ncovers++] = strdup(tok[i])))
            return vkrr_fail(err, VKRR_ERR_NOMEM, name, line, -1, "out of memory");
    f->covers_line = line;
    return VKRR_OK;
}

vkrr_status vkrr_port_pass_line(vkrr_port_iface *f, char **tok, int nt, const char *name, long line,
                                vkrr_error *err)
{
    if (!strcmp(tok[0], "covers"))
        return parse_covers(f, tok, nt, name, line, err);
    return !strcmp(tok[0], "pass") ? parse_pass(f, tok, nt, name, line, err)
                                   : parse_scratch(f, tok, nt, name, line, err);
}

vkrr_status vkrr_port_scratch_ref(const vkrr_port_iface *f, vkrr_port_bind *b, const char *ref,
                                  const char *name, long line, vkrr_error *err)
{
    const vkrr_port_iface *h = f->head ? f->head : f;
    if (b->kind > VKRR_PORT_UNIFORM_BUFFER)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "binding %u.%u: scratch:%s is a buffer: bind it as a storage-buffer or "
                         "uniform-buffer", b->set, b->binding, ref);
    for (uint32_t i = 0; i < h->nscratch; i++)
        if (!strcmp(h->scratch[i].name, ref)) {
            b->arg = i;
            b->scratch = true;
            return VKRR_OK;
        }
    return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                     "binding %u.%u: scratch:%s: no 'scratch %s size=...' line above it", b->set,
                     b->binding, ref, ref);
}

vkrr_status vkrr_port_scratch_eval(const vkrr_port_iface *f, const char *name,
                                   const vkrr_port_env *env, const char *what,
                                   vkrr_port_iface_run *run, vkrr_error *err)
{
    const vkrr_port_iface *h = f->head ? f->head : f;
    run->nscratch = h->nscratch;
    for (uint32_t i = 0; i < h->nscratch; i++) {
        const vkrr_port_scratch *s = &h->scratch[i];
        int64_t v;
        char why[200];
        if (!vkrr_port_expr_eval(&s->size, env, &v, why, sizeof why))
            return vkrr_fail(err, VKRR_ERR_RANGE, name, s->line, -1, "scratch %s: '%s': %s (%s)",
                             s->name, s->size.text, why, what);
        if (v < 1 || (uint64_t)v > SCRATCH_MAX)
            return vkrr_fail(err, VKRR_ERR_RANGE, name, s->line, -1,
                             "scratch %s: '%s' is %lld bytes (1..2^36) in %s", s->name, s->size.text,
                             (long long)v, what);
        run->scratch_size[i] = (uint64_t)v;
    }
    return VKRR_OK;
}

const vkrr_port_bind *vkrr_port_iface_sampler_bind(const vkrr_port_iface *f)
{
    for (uint32_t p = 0; f && p <= f->npass; p++) {
        const vkrr_port_iface *g = p ? f->pass[p - 1] : f;
        for (uint32_t k = 0; k < g->nbind; k++)
            if (g->bind[k].kind == VKRR_PORT_COMBINED_IMAGE_SAMPLER || g->bind[k].kind == VKRR_PORT_SAMPLER)
                return &g->bind[k];
    }
    return NULL;
}
