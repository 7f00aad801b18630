/* The original kernel on a chained launch's inputs (see chain_ref.h). */
#include "chain_ref.h"

#include <stdlib.h>
#include <string.h>

#include "bulk.h"

void vkrr_chain_original_free(const vkrr_validate_opts *o, vkrr_chain_original *x)
{
    for (uint32_t a = 0; x->r.allocs && a < x->r.nallocs; a++)
        vkrr_bulk_free(x->r.allocs[a].post);
    for (uint32_t i = 0; x->r.images && i < x->r.nimages; i++)
        vkrr_bulk_free(x->r.images[i].post);
    free(x->r.allocs);
    free(x->r.images);
    if (x->tried && o->rerun->release)
        o->rerun->release(o->rerun->self);
    memset(x, 0, sizeof *x);
}

/* A copy of rp with its own outputs (none for a backend that keeps them)
 * and no pre_done: the inputs stay for the port. */
static bool copy_replay(const vkrr_backend *be, const vkrr_replay *rp, vkrr_replay *r)
{
    *r = *rp;
    r->pre_done = NULL;
    r->pre_done_ctx = NULL;
    r->allocs = calloc(rp->nallocs + 1, sizeof *r->allocs);
    r->images = calloc(rp->nimages + 1, sizeof *r->images);
    if (!r->allocs || !r->images)
        return false;
    for (uint32_t a = 0; a < rp->nallocs; a++) {
        r->allocs[a] = rp->allocs[a];
        r->allocs[a].post = r->allocs[a].post_view = NULL;
        if (!be->keeps_outputs &&
            !(r->allocs[a].post = vkrr_bulk_alloc(rp->allocs[a].size)))
            return false;
    }
    for (uint32_t i = 0; i < rp->nimages; i++) {
        r->images[i] = rp->images[i];
        r->images[i].post = r->images[i].post_view = NULL;
        uint64_t n = vkrr_replay_image_bytes(&rp->images[i]);
        if (rp->images[i].kind == VKRR_IMAGE_SURFACE && !be->keeps_outputs &&
            !(r->images[i].post = vkrr_bulk_alloc(n)))
            return false;
    }
    return true;
}

vkrr_status vkrr_chain_original_run(const vkrr_validate_opts *o, const vkrr_launch *l,
                                    const vkrr_replay *rp, vkrr_chain_original *x,
                                    vkrr_error *err)
{
    memset(x, 0, sizeof *x);
    if (!o->rerun || l->nfused || !o->rerun->has_kernel(o->rerun->self, l->kernel) ||
        !o->port_backend->has_kernel(o->port_backend->self, l->kernel))
        return VKRR_OK;
    x->tried = true;
    if (!copy_replay(o->rerun, rp, &x->r))
        return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1,
                         "out of memory for the original kernel's outputs");
    vkrr_launch_status st = VKRR_LAUNCH_PASS;
    vkrr_status s = vkrr_validate_run(o->rerun, &x->r, &st, x->note, sizeof x->note, err);
    x->ran = s == VKRR_OK && st == VKRR_LAUNCH_PASS;
    return s;
}

void vkrr_chain_original_settle(vkrr_launch_result *r, bool ran)
{
    bool pass = ran;
    for (uint32_t k = 0; k < r->nres; k++)
        pass = pass && r->res[k].chained_original.done && r->res[k].chained_original.pass;
    r->chained_original_ran = ran;
    r->chained_original_pass = pass;
}

void vkrr_chain_original_reuse(vkrr_launch_result *r)
{
    for (uint32_t k = 0; k < r->nres; k++) {
        vkrr_comparison *c = &r->res[k].chained_original;
        *c = r->rerun ? r->res[k].isolated_original : (vkrr_comparison){0};
        c->outside = 0; /* not measured in isolated mode */
        c->heatmap[0] = 0;
    }
    vkrr_chain_original_settle(r, r->rerun);
}
