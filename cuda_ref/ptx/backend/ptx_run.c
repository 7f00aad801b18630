/* ptx_run.c - vkrr_ptx_run: the engine a launch runs with, and the oracle
 * check that runs it with both engines and requires the same bytes.
 *
 * The interpreter is the reference for the JIT (ptx_jit.c).  With
 * VKRR_PTX_ENGINE=both (or VKRR_PTX_ENGINE_BOTH) a launch first runs in the
 * interpreter; every writable region and surface is then put back as it was
 * and the launch runs again in the JIT.  Both runs use one host thread, so
 * atomics land in one order.  The status, the error text, the printf text,
 * the stand-ins met and every byte of every writable region and surface
 * must agree; else the launch fails with VKRR_ERR_INTERNAL naming the first
 * difference.  The test suite runs every PTX test kernel and an rrref
 * capture this way. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_internal.h"

typedef struct span {
    uint8_t *p;
    size_t n;
    uint8_t *before, *interp; /* copies: before the launch, after the interpreter's run */
    const char *what;
    uint32_t index;
} span;

static size_t surf_bytes(const vkrr_cusurf *s)
{
    return (size_t)s->width * s->height * s->texel_bytes * vkrr_cusurf_planes(s); /* every plane */
}

/* The writable memory of launch l; NULL when out of memory. */
static span *spans_of(const vkrr_ptx_launch *l, uint32_t *n)
{
    span *v = calloc((size_t)l->nregions + l->nsurfaces + 1, sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (uint32_t i = 0; i < l->nregions; i++)
        if (l->regions[i].writable && l->regions[i].size)
            v[(*n)++] = (span){l->regions[i].base, l->regions[i].size, NULL, NULL, "region", i};
    for (uint32_t i = 0; i < l->nsurfaces; i++)
        if (l->surfaces[i].data && surf_bytes(&l->surfaces[i]))
            v[(*n)++] = (span){l->surfaces[i].data, surf_bytes(&l->surfaces[i]), NULL, NULL,
                               "surface", i};
    for (uint32_t i = 0; i < *n; i++) {
        v[i].before = malloc(v[i].n);
        v[i].interp = malloc(v[i].n);
        if (!v[i].before || !v[i].interp) {
            for (uint32_t k = 0; k <= i; k++) {
                free(v[k].before);
                free(v[k].interp);
            }
            free(v);
            return NULL;
        }
        memcpy(v[i].before, v[i].p, v[i].n);
    }
    return v;
}

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The first difference of the JIT's run from the interpreter's, into msg;
 * false when there is none. */
static bool differs(const span *v, uint32_t n, vkrr_status s1, const vkrr_error *e1,
                    vkrr_status s2, const vkrr_error *e2, const char *p1, const char *p2,
                    unsigned st1, unsigned st2, char *msg, size_t cap)
{
    if (s1 != s2 || (s1 != VKRR_OK && strcmp(e1->msg, e2->msg))) {
        snprintf(msg, cap, "the interpreter %s (%.200s), the JIT %s (%.200s)",
                 s1 == VKRR_OK ? "ran" : "failed", s1 == VKRR_OK ? "" : e1->msg,
                 s2 == VKRR_OK ? "ran" : "failed", s2 == VKRR_OK ? "" : e2->msg);
        return true;
    }
    if (!same_text(p1, p2)) {
        snprintf(msg, cap, "their printf output differs (interpreter %zu bytes, JIT %zu)",
                 p1 ? strlen(p1) : 0, p2 ? strlen(p2) : 0);
        return true;
    }
    if (st1 != st2) {
        snprintf(msg, cap, "they met different stand-ins (0x%x, 0x%x)", st1, st2);
        return true;
    }
    for (uint32_t i = 0; i < n; i++)
        for (size_t k = 0; k < v[i].n; k++)
            if (v[i].interp[k] != v[i].p[k]) {
                snprintf(msg, cap,
                         "%s %u (%zu bytes), byte %zu: the interpreter wrote 0x%02x, the JIT 0x%02x",
                         v[i].what, v[i].index, v[i].n, k, v[i].interp[k], v[i].p[k]);
                return true;
            }
    return false;
}

static vkrr_status run_both(const vkrr_ptx_module *m, const char *entry, const vkrr_ptx_launch *l,
                            vkrr_error *err)
{
    uint32_t n;
    span *v = spans_of(l, &n);
    if (!v)
        return vkrr_fail(err, VKRR_ERR_NOMEM, m ? m->name : NULL, 0, -1,
                         "no memory to check the JIT against the interpreter");
    vkrr_ptx_launch one = *l;
    char *p1 = NULL, *p2 = NULL;
    unsigned st1 = 0, st2 = 0;
    vkrr_error e1 = {0}, e2 = {0};
    one.threads = 1;
    one.engine = VKRR_PTX_ENGINE_INTERP;
    one.printf_out = &p1;
    one.standins = &st1;
    one.engine_used = NULL;
    vkrr_status s1 = ptx_run_launch(m, entry, &one, &e1);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(v[i].interp, v[i].p, v[i].n);
        memcpy(v[i].p, v[i].before, v[i].n);
    }
    one.engine = VKRR_PTX_ENGINE_JIT;
    one.printf_out = &p2;
    one.standins = &st2;
    one.engine_used = l->engine_used;
    vkrr_status s2 = ptx_run_launch(m, entry, &one, &e2);
    char msg[600];
    bool bad = differs(v, n, s1, &e1, s2, &e2, p1, p2, st1, st2, msg, sizeof msg);
    vkrr_status st = s2;
    if (bad)
        st = vkrr_fail(err, VKRR_ERR_INTERNAL, m ? m->name : NULL, 0, -1,
                       "%s: the JIT and the interpreter disagree: %s", entry, msg);
    else if (s2 != VKRR_OK && err)
        *err = e2;
    if (l->printf_out)
        *l->printf_out = p2;
    else
        free(p2);
    if (l->standins)
        *l->standins = st2;
    free(p1);
    for (uint32_t i = 0; i < n; i++) {
        free(v[i].before);
        free(v[i].interp);
    }
    free(v);
    return st;
}

vkrr_status vkrr_ptx_run(const vkrr_ptx_module *m, const char *entry, const vkrr_ptx_launch *l,
                         vkrr_error *err)
{
    vkrr_ptx_engine engine = l ? l->engine : VKRR_PTX_ENGINE_DEFAULT;
    if (engine == VKRR_PTX_ENGINE_DEFAULT) {
        const char *env = getenv("VKRR_PTX_ENGINE");
        if (env && *env && !vkrr_ptx_engine_parse(env, &engine))
            return vkrr_fail(err, VKRR_ERR_USAGE, "VKRR_PTX_ENGINE", 0, -1,
                             "'%s' is not an engine (jit, interp or both)", env);
    }
    if (engine == VKRR_PTX_ENGINE_BOTH && l)
        return run_both(m, entry, l, err);
    if (!l || engine == l->engine)
        return ptx_run_launch(m, entry, l, err);
    vkrr_ptx_launch one = *l;
    one.engine = engine;
    return ptx_run_launch(m, entry, &one, err);
}
