/* fused_runs.c - runs of consecutive launches as one launch (fused_runs.h). */
#include "fused_runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Do the launches from i on make the run f covers?  Else why not, in why. */
static bool matches(const vkrr_capture *cap, uint32_t i, const vkrr_port_iface *f, char *why,
                    size_t cap_bytes)
{
    const vkrr_launch *l = &cap->launches[i];
    for (uint32_t k = 0; k < f->ncovers; k++) {
        const vkrr_launch *m = i + k < cap->nlaunches ? &cap->launches[i + k] : NULL;
        if (!m) {
            snprintf(why, cap_bytes, "the capture ends before its launch %u (%s)", k, f->covers[k]);
            return false;
        }
        if (k && m->frame != l->frame) {
            snprintf(why, cap_bytes, "the next launch, #%llu, is in frame %u, not %u",
                     (unsigned long long)m->sequence, m->frame, l->frame);
            return false;
        }
        if (k && strcmp(m->kernel, f->covers[k])) {
            snprintf(why, cap_bytes, "its launch %u is #%llu %s, not %s", k,
                     (unsigned long long)m->sequence, m->kernel, f->covers[k]);
            return false;
        }
        if (k && m->gap_before) {
            snprintf(why, cap_bytes, "%llu launches before #%llu have no replay folder, so the "
                     "run is not known to be consecutive", (unsigned long long)m->gap_before,
                     (unsigned long long)m->sequence);
            return false;
        }
        if (m->damage >= VKRR_DAMAGE_INPUT) {
            snprintf(why, cap_bytes, "its launch #%llu cannot be read", (unsigned long long)m->sequence);
            return false;
        }
        if (m->nimages) {
            snprintf(why, cap_bytes, "launch #%llu has textures or surfaces: fused runs over them "
                     "are not yet supported", (unsigned long long)m->sequence);
            return false;
        }
    }
    return true;
}

static int32_t find_alloc(const vkrr_launch *l, const vkrr_alloc *a)
{
    for (uint32_t k = 0; k < l->nallocs; k++)
        if (l->allocs[k].base == a->base && l->allocs[k].size == a->size)
            return (int32_t)k;
    return -1;
}

/* F's allocation a compared against the dump after launch m (if it has one). */
static void post_from(vkrr_launch *F, uint32_t a, const vkrr_launch *m)
{
    int32_t k = find_alloc(m, &F->allocs[a]);
    if (k < 0 || !m->allocs[k].post_path)
        return;
    F->allocs[a].post_path = m->allocs[k].post_path;
    F->allocs[a].post_offset = m->allocs[k].post_offset;
    F->allocs[a].post_damaged = m->allocs[k].post_damaged;
    F->allocs[a].post_log = m->allocs[k].post_log;
}

static void launch_free(vkrr_launch *F)
{
    if (F->nfused) {
        free(F->args);
        free(F->allocs);
        free(F->pointers);
        free((char *)F->label);
        free((uint64_t *)F->fused_seq);
    }
    free((char *)F->no_port);
}

/* The n launches from run[0] as one launch into F. */
static vkrr_status fuse(const vkrr_launch *run, uint32_t n, const vkrr_portdesc *d, vkrr_launch *F,
                        vkrr_error *err)
{
    uint32_t nal = 0, npt = 0;
    for (uint32_t k = 0; k < n; k++)
        nal += run[k].nallocs, npt += run[k].npointers;
    *F = run[0];
    F->nfused = n;
    F->args_bytes = (n - 1) * VKRR_ARGS_MAX_BYTES + run[n - 1].args_bytes;
    F->args = calloc(F->args_bytes ? F->args_bytes : 1, 1);
    F->allocs = calloc(nal ? nal : 1, sizeof *F->allocs);
    F->pointers = calloc(npt ? npt : 1, sizeof *F->pointers);
    uint64_t *seq = calloc(n, sizeof *seq);
    size_t lab = 64;
    for (uint32_t k = 0; k < n; k++)
        lab += strlen(run[k].kernel) + 1;
    char *label = malloc(lab);
    F->fused_seq = seq;
    F->label = label;
    F->nallocs = F->npointers = 0;
    if (!F->args || !F->allocs || !F->pointers || !seq || !label) {
        F->no_port = NULL;
        launch_free(F);
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
    }
    size_t at = 0;
    for (uint32_t k = 0; k < n; k++) {
        const vkrr_launch *m = &run[k];
        seq[k] = m->sequence;
        at += (size_t)snprintf(label + at, lab - at, "%s%s", k ? "+" : "", m->kernel);
        memcpy(F->args + k * VKRR_ARGS_MAX_BYTES, m->args, m->args_bytes);
        if (m->damage > F->damage) { /* a damaged dump of any of them: said as the run's */
            F->damage = m->damage;
            F->damage_error = m->damage_error;
        }
        for (uint32_t p = 0; p < m->npointers; p++) {
            const vkrr_alloc *a = &m->allocs[m->pointers[p].alloc];
            int32_t u = find_alloc(F, a);
            if (u < 0) { /* first seen here: its bytes before this launch */
                u = (int32_t)F->nallocs++;
                F->allocs[u] = *a;
                F->allocs[u].post_path = NULL;
                F->allocs[u].post_damaged = false;
                F->allocs[u].post_offset = 0;
                memset(&F->allocs[u].post_log, 0, sizeof F->allocs[u].post_log);
            }
            F->pointers[F->npointers++] = (vkrr_pointer){m->pointers[p].offset + k * VKRR_ARGS_MAX_BYTES,
                                                         (uint32_t)u, m->pointers[p].delta};
        }
    }
    snprintf(label + at, lab - at, " (#%llu..#%llu)", (unsigned long long)seq[0],
             (unsigned long long)seq[n - 1]);
    /* what is compared: each output's allocation after the launch it names;
     * no output line: every dump after the last launch */
    vkrr_port_output out[VKRR_PORT_MAX_OUTPUTS];
    uint32_t no = 0;
    vkrr_status st = vkrr_portdesc_eval(d, F, out, VKRR_PORT_MAX_OUTPUTS, &no, err);
    if (st != VKRR_OK) {
        launch_free(F);
        return st;
    }
    for (uint32_t k = 0; k < no; k++)
        if (!out[k].surface)
            post_from(F, out[k].index, &run[out[k].arg / VKRR_ARGS_MAX_BYTES]);
    for (uint32_t a = 0; !no && a < F->nallocs; a++)
        post_from(F, a, &run[n - 1]);
    return VKRR_OK;
}

vkrr_status vkrr_fused_derive(const vkrr_capture *cap, vkrr_portdesc_set *s, vkrr_capture **out,
                              vkrr_error *err)
{
    *out = NULL;
    bool any = false;
    for (uint32_t i = 0; i < cap->nlaunches && !any; i++) {
        const vkrr_portdesc *d = NULL;
        vkrr_status st = vkrr_portdesc_set_get(s, cap->launches[i].kernel, &d, err);
        if (st != VKRR_OK)
            return st;
        any = vkrr_portdesc_iface(d) && vkrr_portdesc_iface(d)->ncovers;
    }
    if (!any)
        return VKRR_OK;
    vkrr_capture *dc = malloc(sizeof *dc);
    vkrr_launch *ls = calloc(cap->nlaunches ? cap->nlaunches : 1, sizeof *ls);
    if (!dc || !ls) {
        free(dc);
        free(ls);
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
    }
    *dc = *cap;
    dc->launches = ls;
    dc->nlaunches = 0;
    vkrr_status st = VKRR_OK;
    for (uint32_t i = 0; i < cap->nlaunches && st == VKRR_OK; i++) {
        const vkrr_launch *l = &cap->launches[i];
        const vkrr_portdesc *d = NULL;
        st = vkrr_portdesc_set_get(s, l->kernel, &d, err);
        const vkrr_port_iface *f = st == VKRR_OK ? vkrr_portdesc_iface(d) : NULL;
        vkrr_launch *F = &ls[dc->nlaunches];
        char why[600];
        if (!f || !f->ncovers || l->damage >= VKRR_DAMAGE_INPUT) {
            *F = *l;
        } else if (strcmp(f->covers[0], l->kernel)) {
            st = vkrr_fail(err, VKRR_ERR_PARSE, vkrr_portdesc_name(d), f->covers_line, -1,
                           "covers: the run starts with %s, but this is the port of %s (a fused "
                           "port is its run's first kernel's: covers %s ...)", f->covers[0],
                           l->kernel, l->kernel);
            continue;
        } else if (!matches(cap, i, f, why, sizeof why)) {
            *F = *l;
            size_t n = strlen(why) + strlen(vkrr_portdesc_name(d)) + 200;
            char *np = malloc(n);
            if (!np) {
                st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
                continue;
            }
            snprintf(np, n, "the fused port %s (line %ld: covers %s ...) does not match here: %s",
                     vkrr_portdesc_name(d), f->covers_line, f->covers[0], why);
            F->no_port = np;
        } else if ((st = fuse(l, f->ncovers, d, F, err)) == VKRR_OK) {
            i += f->ncovers - 1; /* the run is one launch */
        }
        if (st == VKRR_OK)
            dc->nlaunches++;
    }
    if (st != VKRR_OK) {
        vkrr_fused_free(dc);
        return st;
    }
    *out = dc;
    return VKRR_OK;
}

void vkrr_fused_free(vkrr_capture *dc)
{
    if (!dc)
        return;
    for (uint32_t i = 0; i < dc->nlaunches; i++)
        launch_free(&dc->launches[i]);
    free(dc->launches);
    free(dc);
}
