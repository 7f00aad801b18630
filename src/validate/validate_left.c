/* validate_left.c - whether a port really left an element at its
 * pre-launch bytes.  A buffer starts from its pre-launch contents, so an
 * element the port's run left equal to them looks unwritten; it may as well
 * have been written with that value, which is a wrong value, not a missing
 * one.
 * When a failing window has such elements, the port runs once more with that
 * window's starting bytes inverted: an element counts as left only when it
 * holds the starting bytes after both runs. */
#include <stdlib.h>
#include <string.h>

#include "validate.h"

/* x holds the bytes of y inverted (n bytes) */
static bool inverse(const uint8_t *x, const uint8_t *y, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if ((uint8_t)(x[i] ^ y[i]) != 0xffu)
            return false;
    return true;
}

/* An element the port's run left equal to its pre-launch bytes may have
 * been written with that value: a wrong value, not an unwritten one.  The
 * port runs again with those windows' starting bytes inverted; an element
 * counts as left at its pre-launch bytes only when it holds the starting
 * bytes after both runs.  run1[a]: the first run's outputs of allocation a
 * (NULL: not needed). */
static vkrr_status confirm_left(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                const vkrr_launch *l, uint8_t *const *run1,
                                vkrr_launch_result *out, vkrr_error *err)
{
    const vkrr_backend *be = o->port_backend;
    vkrr_replay r;
    vkrr_replay_storage *st = NULL;
    uint8_t **pre2 = calloc(l->nallocs + 1, sizeof *pre2);
    vkrr_status s = pre2 ? vkrr_replay_from_capture_ex(cap, l, !be->keeps_outputs, &r, &st, err)
                         : vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    if (s != VKRR_OK) {
        free(pre2);
        return s;
    }
    r.pre_done = NULL;
    for (uint32_t a = 0; a < l->nallocs && s == VKRR_OK; a++) {
        if (!run1[a])
            continue;
        if (!(pre2[a] = malloc(l->allocs[a].size))) {
            s = vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
            break;
        }
        memcpy(pre2[a], r.allocs[a].pre, l->allocs[a].size);
        for (uint32_t k = 0; k < out->nres; k++) { /* the failing windows start inverted */
            const vkrr_resource_result *x = &out->res[k];
            if (x->is_buffer && x->unchanged && x->base == l->allocs[a].base)
                for (uint64_t i = 0; i < vkrr_view_bytes(&x->view); i++)
                    pre2[a][x->view.offset + i] ^= 0xffu;
        }
        r.allocs[a].pre = pre2[a];
    }
    vkrr_error e = {0};
    if (s == VKRR_OK && be->run(be->self, &r, &e) == VKRR_OK) {
        for (uint32_t k = 0; k < out->nres; k++) {
            vkrr_resource_result *x = &out->res[k];
            uint32_t a = 0;
            while (a < l->nallocs && (!run1[a] || l->allocs[a].base != x->base))
                a++;
            if (!x->is_buffer || !x->unchanged || a == l->nallocs)
                continue;
            vkrr_mapfile post = {0};
            if ((s = vkrr_capture_map_alloc_post(cap, l, a, &post, err)) != VKRR_OK)
                break;
            const uint8_t *p2 = vkrr_replay_alloc_out(&r.allocs[a]), *p0 = pre2[a], *c = post.data;
            uint64_t es = vkrr_dtype_size(x->view.dtype), n = vkrr_view_bytes(&x->view) / es, left = 0;
            for (uint64_t i = 0, at = x->view.offset; i < n; i++, at += es)
                left += inverse(run1[a] + at, p0 + at, es) && !memcmp(p2 + at, p0 + at, es) &&
                        !inverse(c + at, p0 + at, es);
            x->unchanged = left;
            vkrr_mapfile_close(&post);
        }
    }
    for (uint32_t a = 0; a < l->nallocs; a++)
        free(pre2[a]);
    free(pre2);
    vkrr_replay_capture_free(st);
    return s;
}

vkrr_status vkrr_validate_confirm_left(const vkrr_validate_opts *o, const vkrr_capture *cap,
                              const vkrr_launch *l, const vkrr_replay *pr, vkrr_launch_result *out,
                              vkrr_error *err)
{
    bool any = false;
    for (uint32_t k = 0; k < out->nres; k++)
        any = any || (out->res[k].is_buffer && out->res[k].unchanged);
    if (!any)
        return VKRR_OK;
    uint8_t **run1 = calloc(l->nallocs + 1, sizeof *run1);
    vkrr_status s = run1 ? VKRR_OK : vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    for (uint32_t a = 0; a < l->nallocs && s == VKRR_OK; a++) {
        bool want = false;
        for (uint32_t k = 0; k < out->nres; k++)
            want = want || (out->res[k].is_buffer && out->res[k].unchanged &&
                            out->res[k].base == l->allocs[a].base);
        if (want && !(run1[a] = malloc(l->allocs[a].size)))
            s = vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
        else if (want)
            memcpy(run1[a], vkrr_replay_alloc_out(&pr->allocs[a]), l->allocs[a].size);
    }
    if (s == VKRR_OK)
        s = confirm_left(o, cap, l, run1, out, err);
    for (uint32_t a = 0; run1 && a < l->nallocs; a++)
        free(run1[a]);
    free(run1);
    return s;
}
