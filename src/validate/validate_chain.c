/* Chained validation: the port fed by its own earlier outputs (see
 * validate_chain.h), and the bisect verdict over the results. */
#include "validate_chain.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* A piece of the chain's state is the port's bytes (held), or, after a launch
 * whose result was reused from isolated mode (bit-identical to the capture),
 * that launch's post-launch dump in the capture (nothing held: it is mapped
 * when a later launch reads it), or neither (the capture's own input). */
typedef struct alloc_entry {
    uint64_t base, size;
    uint8_t *bytes;          /* the port's bytes; NULL: not held */
    uint32_t dump_launch;    /* NONE, or: the state is this launch's dump of base */
    uint32_t last_use;       /* last launch that uses this base */
} alloc_entry;

typedef struct surf_entry {
    uint32_t launch, image;  /* producer */
    uint32_t last_use;       /* last texture reading it */
    uint64_t size;
    uint8_t *bytes;
    bool dump;               /* the state is the producer's dump */
} surf_entry;

struct vkrr_chain {
    const vkrr_capture *cap;
    alloc_entry *allocs;
    uint32_t nallocs;
    surf_entry *surfs;       /* one per surface that some later texture reads */
    uint32_t nsurfs;
    uint32_t **producer;     /* [launch][image]: index into surfs, NONE */
    uint64_t held, peak;
};

static uint64_t fnv(const uint8_t *p, uint64_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint64_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static alloc_entry *find_alloc(vkrr_chain *c, uint64_t base)
{
    for (uint32_t i = 0; i < c->nallocs; i++)
        if (c->allocs[i].base == base)
            return &c->allocs[i];
    return NULL;
}

static void drop(vkrr_chain *c, uint8_t **bytes, uint64_t size)
{
    if (*bytes) {
        free(*bytes);
        *bytes = NULL;
        c->held -= size;
    }
}

/* (The callers clear an entry's dump state when it holds bytes.) */
static void hold(vkrr_chain *c, uint8_t **slot, uint8_t *bytes, uint64_t size)
{
    drop(c, slot, size);
    *slot = bytes;
    c->held += size;
    if (c->held > c->peak)
        c->peak = c->held;
}

/* An output the chain keeps: the replay's post (taken) or, from a backend
 * that keeps its outputs, a copy of its view.  NULL: out of memory. */
static uint8_t *take(void **post, const void *view, uint64_t size)
{
    uint8_t *p = *post;
    if (p) {
        *post = NULL;
        return p;
    }
    if (!view)
        return NULL;
    p = malloc(size ? size : 1);
    if (p && view)
        memcpy(p, view, size);
    return p;
}

void vkrr_chain_destroy(vkrr_chain *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; c->allocs && i < c->nallocs; i++)
        free(c->allocs[i].bytes);
    for (uint32_t i = 0; c->surfs && i < c->nsurfs; i++)
        free(c->surfs[i].bytes);
    for (uint32_t i = 0; c->producer && i < c->cap->nlaunches; i++)
        free(c->producer[i]);
    free(c->producer);
    free(c->allocs);
    free(c->surfs);
    free(c);
}

/* The latest surface before launch `before` whose dump equals the texture's
 * (same size, same hash, same bytes). */
static vkrr_status match_by_bytes(const vkrr_capture *cap, uint32_t before, const vkrr_image *tex,
                                  const vkrr_launch *tl, uint32_t ti, uint64_t **hashes,
                                  uint32_t *pl, uint32_t *pi, vkrr_error *err)
{
    vkrr_mapfile tm = {0};
    vkrr_status s = vkrr_capture_map_image(cap, tl, ti, &tm, err);
    if (s != VKRR_OK)
        return s;
    uint64_t th = fnv(tm.data, tm.size);
    for (uint32_t j = before; j-- > 0 && *pl == NONE;) {
        const vkrr_launch *l = &cap->launches[j];
        for (uint32_t k = 0; k < l->nimages && *pl == NONE; k++) {
            const vkrr_image *im = &l->images[k];
            if (im->kind != VKRR_IMAGE_SURFACE || im->width != tex->width ||
                im->height != tex->height || im->format != tex->format ||
                im->channels != tex->channels)
                continue;
            vkrr_mapfile sm = {0};
            s = vkrr_capture_map_image(cap, l, k, &sm, err);
            if (s != VKRR_OK)
                break;
            if (hashes[j][k] == 0)
                hashes[j][k] = fnv(sm.data, sm.size) | 1; /* 0 means "not hashed yet" */
            if ((hashes[j][k] | 1) == (th | 1) && sm.size == tm.size &&
                !memcmp(sm.data, tm.data, tm.size))
                *pl = j, *pi = k;
            vkrr_mapfile_close(&sm);
        }
    }
    vkrr_mapfile_close(&tm);
    return s;
}

/* The pre-pass: each texture's producer, each copy's last reader. */
static vkrr_status plan(vkrr_chain *c, vkrr_error *err)
{
    const vkrr_capture *cap = c->cap;
    vkrr_status s = VKRR_OK;
    uint64_t **hashes = calloc(cap->nlaunches + 1, sizeof *hashes);
    c->producer = calloc(cap->nlaunches + 1, sizeof *c->producer);
    c->allocs = calloc(1, sizeof *c->allocs);
    c->surfs = calloc(1, sizeof *c->surfs);
    if (!hashes || !c->producer || !c->allocs || !c->surfs)
        goto nomem;
    uint32_t alloc_cap = 1, surf_cap = 1;
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        hashes[i] = calloc(l->nimages + 1, sizeof **hashes);
        c->producer[i] = malloc((l->nimages + 1) * sizeof **c->producer);
        if (!hashes[i] || !c->producer[i])
            goto nomem;
        for (uint32_t a = 0; a < l->nallocs; a++) {
            alloc_entry *e = find_alloc(c, l->allocs[a].base);
            if (!e) {
                if (c->nallocs == alloc_cap) {
                    alloc_entry *n = realloc(c->allocs, 2 * alloc_cap * sizeof *n);
                    if (!n)
                        goto nomem;
                    c->allocs = n;
                    alloc_cap *= 2;
                }
                e = &c->allocs[c->nallocs++];
                *e = (alloc_entry){.base = l->allocs[a].base, .dump_launch = NONE};
            }
            e->last_use = i;
        }
        for (uint32_t t = 0; t < l->nimages; t++) {
            const vkrr_image *tex = &l->images[t];
            c->producer[i][t] = NONE;
            if (tex->kind != VKRR_IMAGE_TEXTURE)
                continue;
            uint32_t pl = NONE, pi = NONE;
            for (uint32_t j = i; tex->array && j-- > 0 && pl == NONE;)
                for (uint32_t k = 0; k < cap->launches[j].nimages; k++) {
                    const vkrr_image *im = &cap->launches[j].images[k];
                    if (im->kind == VKRR_IMAGE_SURFACE && im->array == tex->array)
                        pl = j, pi = k;
                }
            if (pl != NONE) {
                const vkrr_image *im = &cap->launches[pl].images[pi];
                if (im->width != tex->width || im->height != tex->height ||
                    im->format != tex->format || im->channels != tex->channels)
                    pl = NONE; /* the array was re-created with another shape */
            }
            if (pl == NONE && !tex->array) {
                s = match_by_bytes(cap, i, tex, l, t, hashes, &pl, &pi, err);
                if (s != VKRR_OK)
                    goto fail;
            }
            if (pl == NONE)
                continue;
            uint32_t e = 0;
            while (e < c->nsurfs && !(c->surfs[e].launch == pl && c->surfs[e].image == pi))
                e++;
            if (e == c->nsurfs) {
                if (c->nsurfs == surf_cap) {
                    surf_entry *n = realloc(c->surfs, 2 * surf_cap * sizeof *n);
                    if (!n)
                        goto nomem;
                    c->surfs = n;
                    surf_cap *= 2;
                }
                c->surfs[c->nsurfs++] = (surf_entry){.launch = pl, .image = pi};
            }
            c->surfs[e].last_use = i;
            c->producer[i][t] = e;
        }
    }
    goto fail; /* done: free the hashes */
nomem:
    s = vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory planning the chain");
fail:
    for (uint32_t i = 0; hashes && i < cap->nlaunches; i++)
        free(hashes[i]);
    free(hashes);
    return s;
}

vkrr_status vkrr_chain_create(vkrr_chain **out, const vkrr_capture *cap, vkrr_error *err)
{
    *out = NULL;
    vkrr_chain *c = calloc(1, sizeof *c);
    if (!c)
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    c->cap = cap;
    vkrr_status s = plan(c, err);
    if (s != VKRR_OK) {
        vkrr_chain_destroy(c);
        return s;
    }
    *out = c;
    return VKRR_OK;
}

uint64_t vkrr_chain_bytes(const vkrr_chain *c, uint64_t *peak)
{
    if (peak)
        *peak = c->peak;
    return c->held;
}

bool vkrr_chain_producer(const vkrr_chain *c, uint32_t index, uint32_t image, uint32_t *launch,
                         uint32_t *surface)
{
    if (index >= c->cap->nlaunches || image >= c->cap->launches[index].nimages ||
        c->producer[index][image] == NONE)
        return false;
    *launch = c->surfs[c->producer[index][image]].launch;
    *surface = c->surfs[c->producer[index][image]].image;
    return true;
}

/* Moves a chained result's metrics into the launch's result. */
static void merge(vkrr_launch_result *r, vkrr_launch_result *t)
{
    r->has_chained = true;
    r->chained_status = t->status;
    r->chained_worst = t->worst;
    r->perturbed = r->perturbed || t->perturbed;
    if (!r->has_isolated && t->note[0])
        snprintf(r->note, sizeof r->note, "%s", t->note);
    if (!r->res && t->res) {
        /* no isolated resources: take the list, metrics move to chained */
        r->res = t->res;
        r->nres = t->nres;
        t->res = NULL;
        t->nres = 0;
        r->worst = -1;
        for (uint32_t k = 0; k < r->nres; k++) {
            vkrr_resource_result *x = &r->res[k];
            x->chained = x->port;
            x->chained_outside_diff = x->outside_diff;
            x->chained_pass = x->pass;
            memcpy(x->chained_heatmap, x->heatmap, sizeof x->heatmap);
            memset(&x->port, 0, sizeof x->port);
            x->heatmap[0] = 0;
            x->has_chained = true;
        }
    } else {
        for (uint32_t k = 0; k < r->nres && k < t->nres; k++) {
            vkrr_resource_result *x = &r->res[k];
            const vkrr_resource_result *y = &t->res[k];
            x->has_chained = true;
            x->chained = y->port;
            x->chained_outside_diff = y->outside_diff;
            x->chained_pass = y->pass;
            memcpy(x->chained_heatmap, y->heatmap, sizeof x->chained_heatmap);
        }
    }
    bool exact = t->status == VKRR_LAUNCH_PASS;
    for (uint32_t k = 0; k < r->nres; k++)
        exact = exact && r->res[k].has_chained &&
                r->res[k].chained.exact == r->res[k].chained.count &&
                r->res[k].chained_outside_diff == 0;
    r->chained_exact = exact;
}

/* pre_done of a chained replay: an allocation's held bytes are replaced or
 * dropped after this launch whatever happens, so they go as soon as the
 * backend has its copy; capture files go back to the replay's own hook.
 * (Surfaces may have later readers: they stay.) */
typedef struct chain_pre_done {
    vkrr_chain *c;
    void (*next)(void *ctx, const void *pre);
    void *next_ctx;
} chain_pre_done;

static void chain_consumed(void *ctx, const void *pre)
{
    chain_pre_done *d = ctx;
    for (uint32_t i = 0; i < d->c->nallocs; i++)
        if (d->c->allocs[i].bytes && d->c->allocs[i].bytes == pre) {
            drop(d->c, &d->c->allocs[i].bytes, d->c->allocs[i].size);
            return;
        }
    if (d->next)
        d->next(d->next_ctx, pre);
}

/* The index of the allocation at base in launch l; NONE when it has none. */
static uint32_t alloc_of(const vkrr_launch *l, uint64_t base)
{
    for (uint32_t a = 0; a < l->nallocs; a++)
        if (l->allocs[a].base == base)
            return a;
    return NONE;
}

/* Points the replay's inputs at the chain's state: held bytes, or a dump the
 * state is (mapped into maps[], closed by the caller), else the capture's
 * input stays.  *same: every input is byte for byte the captured one. */
static vkrr_status chained_inputs(vkrr_chain *c, uint32_t index, vkrr_replay *rp,
                                  vkrr_mapfile *maps, bool *same, vkrr_error *err)
{
    const vkrr_capture *cap = c->cap;
    const vkrr_launch *l = &cap->launches[index];
    vkrr_status s = VKRR_OK;
    *same = true;
    for (uint32_t a = 0; a < l->nallocs; a++) {
        alloc_entry *e = find_alloc(c, l->allocs[a].base);
        if ((e->bytes || e->dump_launch != NONE) && e->size != l->allocs[a].size) {
            drop(c, &e->bytes, e->size); /* the base was freed and reused */
            e->dump_launch = NONE;
        }
        const void *in = e->bytes;
        if (!in && e->dump_launch != NONE) {
            const vkrr_launch *pl = &cap->launches[e->dump_launch];
            if ((s = vkrr_capture_map_alloc_post(cap, pl, alloc_of(pl, e->base), &maps[a], err)))
                return s;
            in = maps[a].data;
        }
        if (!in)
            continue;
        const void *captured = rp->allocs[a].pre;
        *same = *same && !memcmp(in, captured, l->allocs[a].size);
        rp->allocs[a].pre = in;
        if (rp->pre_done) /* the captured input is not read again: unmap it */
            rp->pre_done(rp->pre_done_ctx, captured);
    }
    for (uint32_t i = 0; i < l->nimages; i++) {
        uint32_t p = c->producer[index][i];
        if (p == NONE)
            continue;
        surf_entry *se = &c->surfs[p];
        uint64_t size = vkrr_replay_image_bytes(&rp->images[i]);
        const void *in = se->bytes && se->size == size ? se->bytes : NULL;
        vkrr_mapfile *m = &maps[l->nallocs + i];
        if (!in && se->dump) {
            if ((s = vkrr_capture_map_image(cap, &cap->launches[se->launch], se->image, m, err)))
                return s;
            in = m->size == size ? m->data : NULL;
        }
        if (!in)
            continue;
        const void *captured = rp->images[i].pre;
        *same = *same && !memcmp(in, captured, size);
        rp->images[i].pre = in;
        if (rp->pre_done)
            rp->pre_done(rp->pre_done_ctx, captured);
    }
    return VKRR_OK;
}

/* True when the launch's isolated result can stand for its chained one and
 * its dumps for the chain's state: it ran, every compared resource is
 * bit-identical to the capture, and every allocation a later launch reads
 * has a dump. */
static bool isolated_exact(const vkrr_chain *c, uint32_t index, const vkrr_launch_result *r)
{
    const vkrr_launch *l = &c->cap->launches[index];
    if (!r->has_isolated || r->status != VKRR_LAUNCH_PASS || r->perturbed)
        return false;
    for (uint32_t k = 0; k < r->nres; k++)
        if (r->res[k].port.exact != r->res[k].port.count || r->res[k].outside_diff)
            return false;
    for (uint32_t a = 0; a < l->nallocs; a++) {
        const alloc_entry *e = find_alloc((vkrr_chain *)c, l->allocs[a].base);
        if (e->last_use > index && !l->allocs[a].post_path)
            return false;
    }
    return true;
}

/* The chained result is the isolated one (the same inputs: the same
 * outputs, which are the capture's); the state becomes the launch's dumps. */
static void reuse_isolated(vkrr_chain *c, uint32_t index, vkrr_launch_result *r)
{
    const vkrr_launch *l = &c->cap->launches[index];
    r->has_chained = true;
    r->chained_reused = true;
    r->chained_status = r->status;
    r->chained_worst = r->worst;
    r->chained_exact = true;
    for (uint32_t k = 0; k < r->nres; k++) {
        vkrr_resource_result *x = &r->res[k];
        x->has_chained = true;
        x->chained = x->port;
        x->chained_outside_diff = x->outside_diff;
        x->chained_pass = x->pass;
        x->chained_heatmap[0] = 0;
    }
    for (uint32_t a = 0; a < l->nallocs; a++) {
        alloc_entry *e = find_alloc(c, l->allocs[a].base);
        drop(c, &e->bytes, e->size);
        e->dump_launch = e->last_use > index ? index : NONE;
        e->size = l->allocs[a].size;
    }
    for (uint32_t e = 0; e < c->nsurfs; e++) {
        surf_entry *se = &c->surfs[e];
        if (se->launch == index) {
            drop(c, &se->bytes, se->size);
            se->dump = se->last_use > index;
        }
        if (se->last_use <= index) {
            drop(c, &se->bytes, se->size);
            se->dump = false;
        }
    }
}

vkrr_status vkrr_chain_run(vkrr_chain *c, const vkrr_validate_opts *o, uint32_t index,
                           vkrr_launch_result *r, vkrr_error *err)
{
    const vkrr_launch *l = &c->cap->launches[index];
    if (!r->launch) {
        memset(r, 0, sizeof *r);
        r->launch = l;
        r->worst = -1;
    }
    vkrr_replay rp;
    vkrr_replay_storage *st = NULL;
    vkrr_launch_result t = {0};
    vkrr_mapfile *maps = calloc(l->nallocs + l->nimages + 1, sizeof *maps);
    if (!maps)
        return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory for the chain");
    bool same = false;
    vkrr_status s = vkrr_replay_from_capture_ex(c->cap, l, !o->port->keeps_outputs, &rp, &st, err);
    if (s == VKRR_OK)
        s = chained_inputs(c, index, &rp, maps, &same, err);
    if (s != VKRR_OK)
        goto done;
    /* While the chain's inputs are the captured ones, a port (deterministic)
     * computes what isolated mode saw: that result stands, nothing is run. */
    if (same && isolated_exact(c, index, r)) {
        reuse_isolated(c, index, r);
        goto done;
    }
    chain_pre_done pd = {c, rp.pre_done, rp.pre_done_ctx};
    rp.pre_done = chain_consumed;
    rp.pre_done_ctx = &pd;
    s = vkrr_validate_replay(o, c->cap, l, &rp, true, &t, err);
    if (s != VKRR_OK)
        goto done;
    bool ran = t.status == VKRR_LAUNCH_PASS || t.status == VKRR_LAUNCH_FAIL;
    /* The port's outputs that a later launch reads become the chain's state
     * (taken, or copied from a backend's view); the rest are not kept. */
    for (uint32_t a = 0; a < l->nallocs; a++) {
        alloc_entry *e = find_alloc(c, l->allocs[a].base);
        e->dump_launch = NONE;
        if (ran && e->last_use > index) {
            uint8_t *b = take(&rp.allocs[a].post, rp.allocs[a].post_view, l->allocs[a].size);
            if (!b) {
                s = vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory for the chain");
                goto done;
            }
            hold(c, &e->bytes, b, l->allocs[a].size);
            e->size = l->allocs[a].size;
        } else {
            drop(c, &e->bytes, e->size);
        }
    }
    for (uint32_t e = 0; e < c->nsurfs; e++) {
        surf_entry *se = &c->surfs[e];
        if (se->launch == index)
            se->dump = false;
        if (ran && se->launch == index && se->last_use > index) {
            vkrr_replay_image *im = &rp.images[se->image];
            uint64_t size = vkrr_replay_image_bytes(im);
            uint8_t *b = take(&im->post, im->post_view, size);
            if (!b) {
                s = vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory for the chain");
                goto done;
            }
            se->size = size;
            hold(c, &se->bytes, b, size);
        }
        if (se->last_use <= index) {
            drop(c, &se->bytes, se->size);
            se->dump = false;
        }
    }
    merge(r, &t);
done:
    for (uint32_t i = 0; i < l->nallocs + l->nimages; i++)
        vkrr_mapfile_close(&maps[i]);
    free(maps);
    vkrr_launch_result_free(&t);
    vkrr_replay_capture_free(st);
    if (o->port->release)
        o->port->release(o->port->self);
    return s;
}

/* ---- the verdict ---- */

static bool chained_bad(const vkrr_launch_result *r)
{
    return r->has_chained && r->chained_status != VKRR_LAUNCH_PASS &&
           r->chained_status != VKRR_LAUNCH_NO_PORT;
}

static bool isolated_bad(const vkrr_launch_result *r)
{
    return r->has_isolated && r->status != VKRR_LAUNCH_PASS && r->status != VKRR_LAUNCH_NO_PORT;
}

const char *vkrr_bisect_role(const vkrr_launch_result *r)
{
    if (!chained_bad(r))
        return "";
    if (!r->has_isolated)
        return "diverged";
    return isolated_bad(r) ? "culprit" : "amplifier";
}

void vkrr_bisect_analyze(const vkrr_launch_result *res, uint32_t n, vkrr_bisect *out)
{
    *out = (vkrr_bisect){.first_fail = -1, .first_inexact = -1};
    for (uint32_t i = 0; i < n; i++) {
        const vkrr_launch_result *r = &res[i];
        if (out->first_inexact < 0 && r->has_chained && r->chained_status != VKRR_LAUNCH_NO_PORT &&
            !r->chained_exact)
            out->first_inexact = (int)i;
        if (chained_bad(r)) {
            out->first_fail = (int)i;
            out->isolated_known = r->has_isolated;
            out->culprit = isolated_bad(r);
            return;
        }
    }
}

static void name(FILE *f, const vkrr_launch_result *r)
{
    fprintf(f, "#%llu %s (frame %u, occurrence %u)", (unsigned long long)r->launch->sequence,
            r->launch->kernel, r->launch->frame, r->launch->occurrence);
}

void vkrr_bisect_print(FILE *f, const vkrr_bisect *b, const vkrr_launch_result *res)
{
    if (b->first_fail < 0) {
        fprintf(f, "bisect: no divergence: every chained launch is within tolerance");
        if (b->first_inexact >= 0) {
            fprintf(f, " (first inexact: ");
            name(f, &res[b->first_inexact]);
            fputc(')', f);
        }
        fputc('\n', f);
        return;
    }
    const vkrr_launch_result *r = &res[b->first_fail];
    fprintf(f, "bisect: first divergence: ");
    name(f, r);
    if (!b->isolated_known) {
        fprintf(f, "\n");
        return;
    }
    if (b->culprit) {
        fprintf(f, " is the CULPRIT: its isolated error is out of tolerance too\n");
        return;
    }
    fprintf(f, " is an AMPLIFIER: its isolated error is within tolerance;");
    if (b->first_inexact >= 0 && b->first_inexact < b->first_fail) {
        fprintf(f, " the chained error first grew at ");
        name(f, &res[b->first_inexact]);
        fputc('\n', f);
    } else {
        fprintf(f, " no earlier launch differs, so the state it reads (not in the capture) "
                   "diverged\n");
    }
}
