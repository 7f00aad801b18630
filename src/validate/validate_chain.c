/* Chained validation: the port fed by its own earlier outputs (see
 * validate_chain.h); the bisect verdict over the results is bisect.c. */
#include "validate_chain.h"

#include <stdlib.h>
#include <string.h>

#include "bulk.h"
#include "chain_ref.h"
#include "sampler_fit.h"

#define NONE UINT32_MAX

/* A piece of the chain's state is the port's bytes (held), or, after a launch
 * whose result was reused from isolated mode (bit-identical to the capture),
 * that launch's post-launch dump in the capture (nothing held: it is mapped
 * when a later launch reads it), or neither (the capture's own input). */
typedef struct alloc_entry {
    uint64_t base, size;
    uint32_t seg;            /* the chain segment it belongs to (seg[]) */
    uint8_t *bytes;          /* the port's bytes; NULL: not held */
    uint32_t dump_launch;    /* NONE, or: the state is this launch's dump of base */
    uint32_t last_use;       /* last launch that uses this base */
    uint32_t broken;         /* NONE, or the launch that could not be read and
                              * would have written this base last */
} alloc_entry;

typedef struct surf_entry {
    uint32_t launch, image;  /* producer */
    uint32_t last_use;       /* last texture reading it */
    uint64_t size;
    uint8_t *bytes;
    bool dump;               /* the state is the producer's dump */
    uint32_t broken;         /* as alloc_entry.broken */
} surf_entry;

struct vkrr_chain {
    const vkrr_capture *cap;
    alloc_entry *allocs;
    uint32_t nallocs;
    surf_entry *surfs;       /* one per surface that some later texture reads */
    uint32_t nsurfs;
    uint32_t **producer;     /* [launch][image]: index into surfs, NONE */
    uint32_t broken_all;     /* NONE, or a launch whose manifest could not be read:
                              * what it wrote is unknown, so every later launch of its
                              * segment needs it */
    uint32_t *seg;           /* [launch]: its segment, the launches between two gaps in the
                              * numbers (launches without a replay folder): state is never
                              * carried across one, the chain restarts from the capture */
    vkrr_texture_link **links; /* [launch][image]: the surface a texture reads */
    uint64_t held, peak;
};

static bool linear_texture(const vkrr_image *im)
{
    return im->kind == VKRR_IMAGE_TEXTURE &&
           (im->resource == VKRR_TEXRES_LINEAR || im->resource == VKRR_TEXRES_PITCH2D);
}

/* The entry of base in launch `index`'s segment. */
static alloc_entry *find_alloc(vkrr_chain *c, uint32_t index, uint64_t base)
{
    for (uint32_t i = 0; i < c->nallocs; i++)
        if (c->allocs[i].base == base && c->allocs[i].seg == c->seg[index])
            return &c->allocs[i];
    return NULL;
}

static void drop(vkrr_chain *c, uint8_t **bytes, uint64_t size)
{
    if (*bytes) {
        vkrr_bulk_free(*bytes);
        *bytes = NULL;
        c->held -= size;
    }
}

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
    p = vkrr_bulk_alloc(size);
    if (p)
        memcpy(p, view, size);
    return p;
}

void vkrr_chain_destroy(vkrr_chain *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; c->allocs && i < c->nallocs; i++)
        vkrr_bulk_free(c->allocs[i].bytes);
    for (uint32_t i = 0; c->surfs && i < c->nsurfs; i++)
        vkrr_bulk_free(c->surfs[i].bytes);
    for (uint32_t i = 0; c->producer && i < c->cap->nlaunches; i++)
        free(c->producer[i]);
    free(c->producer);
    free(c->seg);
    vkrr_capture_links_free(c->cap, c->links);
    free(c->allocs);
    free(c->surfs);
    free(c);
}

/* The entry of surface (launch, image), made when there is none; NONE: OOM. */
static uint32_t surf_entry_of(vkrr_chain *c, uint32_t launch, uint32_t image, uint32_t *cap)
{
    uint32_t e = 0;
    while (e < c->nsurfs && !(c->surfs[e].launch == launch && c->surfs[e].image == image))
        e++;
    if (e < c->nsurfs)
        return e;
    if (c->nsurfs == *cap) {
        surf_entry *n = realloc(c->surfs, 2 * *cap * sizeof *n);
        if (!n)
            return NONE;
        c->surfs = n;
        *cap *= 2;
    }
    c->surfs[c->nsurfs++] = (surf_entry){.launch = launch, .image = image, .broken = NONE};
    return e;
}

/* The pre-pass: segments, each texture's producer (capture_links.c), each
 * copy's last reader. */
static vkrr_status plan(vkrr_chain *c, vkrr_error *err)
{
    const vkrr_capture *cap = c->cap;
    vkrr_status s = vkrr_capture_texture_links(cap, &c->links, err);
    if (s != VKRR_OK)
        return s;
    c->producer = calloc(cap->nlaunches + 1, sizeof *c->producer);
    c->seg = calloc(cap->nlaunches + 1, sizeof *c->seg);
    c->allocs = calloc(1, sizeof *c->allocs);
    c->surfs = calloc(1, sizeof *c->surfs);
    if (!c->producer || !c->seg || !c->allocs || !c->surfs)
        goto nomem;
    uint32_t alloc_cap = 1, surf_cap = 1;
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        c->seg[i] = i == 0 ? 0 : c->seg[i - 1] + (l->gap_before > 0);
        c->producer[i] = malloc((l->nimages + 1) * sizeof **c->producer);
        if (!c->producer[i])
            goto nomem;
        /* the bases it uses: its allocations, and what its linear textures read */
        for (uint32_t a = 0; a < l->nallocs + l->nimages; a++) {
            uint64_t base = a < l->nallocs ? l->allocs[a].base : l->images[a - l->nallocs].source_base;
            if (a >= l->nallocs && !linear_texture(&l->images[a - l->nallocs]))
                continue;
            alloc_entry *e = find_alloc(c, i, base);
            if (!e) {
                if (c->nallocs == alloc_cap) {
                    alloc_entry *n = realloc(c->allocs, 2 * alloc_cap * sizeof *n);
                    if (!n)
                        goto nomem;
                    c->allocs = n;
                    alloc_cap *= 2;
                }
                e = &c->allocs[c->nallocs++];
                *e = (alloc_entry){.base = base, .seg = c->seg[i], .dump_launch = NONE, .broken = NONE};
            }
            e->last_use = i;
        }
        for (uint32_t t = 0; t < l->nimages; t++) {
            const vkrr_texture_link *k = &c->links[i][t];
            c->producer[i][t] = NONE;
            if (k->launch == NONE)
                continue;
            /* its surface, and those alike in the capture: all are held */
            for (uint32_t a = 0; a <= k->nalike; a++) {
                uint32_t e = surf_entry_of(c, a ? k->alike[a - 1].launch : k->launch,
                                           a ? k->alike[a - 1].image : k->image, &surf_cap);
                if (e == NONE)
                    goto nomem;
                c->surfs[e].last_use = i;
                if (!a)
                    c->producer[i][t] = e;
            }
        }
    }
    return VKRR_OK;
nomem:
    return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory planning the chain");
}

vkrr_status vkrr_chain_create(vkrr_chain **out, const vkrr_capture *cap, vkrr_error *err)
{
    *out = NULL;
    vkrr_chain *c = calloc(1, sizeof *c);
    if (!c)
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    c->cap = cap;
    c->broken_all = NONE;
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

const vkrr_texture_link *vkrr_chain_link(const vkrr_chain *c, uint32_t index, uint32_t image)
{
    if (index >= c->cap->nlaunches || image >= c->cap->launches[index].nimages)
        return NULL;
    return &c->links[index][image];
}

/* Moves a chained result's metrics into the launch's result. */
static void merge(vkrr_launch_result *r, vkrr_launch_result *t)
{
    r->has_chained = true;
    r->chained_status = t->status;
    r->chained_worst = t->worst;
    r->perturbed = r->perturbed || t->perturbed;
    r->damaged = r->damaged || t->damaged;
    if (!r->port[0])
        snprintf(r->port, sizeof r->port, "%s", t->port);
    if (!r->has_isolated && t->note[0])
        snprintf(r->note, sizeof r->note, "%s", t->note);
    else if (t->note[0] && (t->status == VKRR_LAUNCH_SKIPPED || strcmp(r->note, t->note)) &&
             r->status != t->status)
        vkrr_launch_note(r, "chained: %s", t->note);
    if (!r->res && t->res) {
        /* no isolated resources: take the list, its chained comparisons */
        r->res = t->res;
        r->nres = t->nres;
        t->res = NULL;
        t->nres = 0;
        r->worst = -1;
    } else {
        for (uint32_t k = 0; k < r->nres && k < t->nres; k++) {
            r->res[k].chained = t->res[k].chained;
            r->res[k].chained_original = t->res[k].chained_original;
        }
    }
    vkrr_chain_original_settle(r, t->rerun && t->ran);
    bool exact = t->status == VKRR_LAUNCH_PASS;
    for (uint32_t k = 0; k < r->nres; k++) {
        const vkrr_comparison *c = &r->res[k].chained;
        exact = exact && c->done && c->m.exact == c->m.count && c->outside == 0;
    }
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

/* The launch whose missing outputs launch `index` needs (NONE: none): the
 * last writer of a base it uses, or of a surface it reads, could not run. */
static uint32_t needs_broken(const vkrr_chain *c, uint32_t index)
{
    const vkrr_launch *l = &c->cap->launches[index];
    if (c->broken_all != NONE && c->seg[c->broken_all] == c->seg[index])
        return c->broken_all;
    for (uint32_t a = 0; a < l->nallocs + l->nimages; a++) {
        const vkrr_image *im = a < l->nallocs ? NULL : &l->images[a - l->nallocs];
        if (im && !linear_texture(im))
            continue;
        const alloc_entry *e = find_alloc((vkrr_chain *)c, index, im ? im->source_base : l->allocs[a].base);
        if (e && e->broken != NONE)
            return e->broken;
    }
    for (uint32_t i = 0; i < l->nimages; i++) {
        uint32_t p = c->producer[index][i];
        if (p != NONE && c->surfs[p].broken != NONE)
            return c->surfs[p].broken;
    }
    return NONE;
}

/* Launch `index` made nothing (it could not be read, or needed what another
 * did not make: root): what it would have written is missing downstream. */
static void break_outputs(vkrr_chain *c, uint32_t index, uint32_t root)
{
    const vkrr_launch *l = &c->cap->launches[index];
    if (l->damage == VKRR_DAMAGE_MANIFEST &&
        (c->broken_all == NONE || c->seg[c->broken_all] != c->seg[index]))
        c->broken_all = root;
    for (uint32_t a = 0; a < l->nallocs; a++) {
        alloc_entry *e = find_alloc(c, index, l->allocs[a].base);
        e->broken = root;
        e->dump_launch = NONE;
        drop(c, &e->bytes, e->size);
    }
    for (uint32_t e = 0; e < c->nsurfs; e++)
        if (c->surfs[e].launch == index) {
            c->surfs[e].broken = root;
            c->surfs[e].dump = false;
            drop(c, &c->surfs[e].bytes, c->surfs[e].size);
        }
}

/* Chained ERROR (could not be read) or SKIPPED (needs what root did not make). */
static void not_run(vkrr_chain *c, uint32_t index, uint32_t root, vkrr_launch_result *r)
{
    vkrr_launch_result t = {0};
    t.launch = r->launch;
    t.worst = -1;
    const vkrr_launch *l = &c->cap->launches[index], *d = &c->cap->launches[root];
    if (root == index) {
        vkrr_launch_set_damaged(&t, l->damage_error, l->ndamage - 1);
    } else {
        t.status = VKRR_LAUNCH_SKIPPED;
        r->skipped_for = d;
        vkrr_launch_note(&t, "skipped: it needs what #%llu %s (frame %u) would have produced, "
                         "and that launch could not be read",
                         (unsigned long long)d->sequence, d->kernel, d->frame);
    }
    break_outputs(c, index, root);
    merge(r, &t);
    r->chained_exact = false;
}

/* A linear texture reads the chain's bytes of its base, packed as the
 * replay packs the capture's; NULL: it reads the capture. */
static uint8_t *linear_from_chain(vkrr_chain *c, uint32_t index, const vkrr_image *im,
                                  const vkrr_replay_image *ri)
{
    alloc_entry *e = find_alloc(c, index, im->source_base);
    if (!e || !e->bytes || e->size != im->dump_bytes)
        return NULL;
    uint8_t *p = malloc(vkrr_replay_image_bytes(ri) + 1);
    if (p)
        vkrr_replay_linear_pack(im, e->bytes, p);
    return p;
}

/* The index of the allocation at base in launch l; NONE when it has none. */
static uint32_t alloc_of(const vkrr_launch *l, uint64_t base)
{
    for (uint32_t a = 0; a < l->nallocs; a++)
        if (l->allocs[a].base == base)
            return a;
    return NONE;
}

/* Substitutes an input of the replay (*pre) with the chain's bytes (in):
 * *same stays true only while they are the captured ones; the captured
 * file is unmapped, it is not read again. */
static void substitute(vkrr_replay *rp, const void **pre, const void *in, uint64_t size, bool *same)
{
    const void *captured = *pre;
    *same = *same && !memcmp(in, captured, size);
    *pre = in;
    if (rp->pre_done)
        rp->pre_done(rp->pre_done_ctx, captured);
}

/* A texture linked by equal bytes to one of several surfaces alike in the
 * capture: the chain's bytes of the others must be `in` too, else which one
 * it reads matters and is not known: *unsure (the texture's link). */
static vkrr_status alike_check(vkrr_chain *c, const vkrr_texture_link *k, const void *in,
                               uint64_t size, const vkrr_texture_link **unsure)
{
    for (uint32_t a = 0; a < k->nalike && !*unsure; a++) {
        uint32_t e = 0;
        while (e < c->nsurfs && !(c->surfs[e].launch == k->alike[a].launch &&
                                  c->surfs[e].image == k->alike[a].image))
            e++;
        if (e == c->nsurfs)
            continue;
        const surf_entry *se = &c->surfs[e];
        vkrr_mapfile m = {0};
        const void *other = se->bytes && se->size == size ? se->bytes : NULL;
        if (!other && se->dump) {
            vkrr_error ignore = {0};
            if (vkrr_capture_map_image(c->cap, &c->cap->launches[se->launch], se->image, &m, &ignore) == VKRR_OK &&
                m.size == size)
                other = m.data;
        }
        if (!other || memcmp(other, in, size))
            *unsure = k;
        vkrr_mapfile_close(&m);
    }
    return VKRR_OK;
}

/* Points the replay's inputs at the chain's state: held bytes, a dump the
 * state is (mapped into maps[], closed by the caller), a linear texture
 * packed from the held bytes of its base (packed[], freed by the caller),
 * else the capture's input stays (from_capture[i] says so for images).
 * *same: every input is byte for byte the captured one. */
static vkrr_status chained_inputs(vkrr_chain *c, uint32_t index, vkrr_replay *rp,
                                  vkrr_mapfile *maps, uint8_t **packed, bool *from_capture,
                                  bool *same, const vkrr_texture_link **unsure, vkrr_error *err)
{
    const vkrr_capture *cap = c->cap;
    const vkrr_launch *l = &cap->launches[index];
    vkrr_status s = VKRR_OK;
    *same = true;
    for (uint32_t a = 0; a < l->nallocs; a++) {
        alloc_entry *e = find_alloc(c, index, l->allocs[a].base);
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
        if (in)
            substitute(rp, &rp->allocs[a].pre, in, l->allocs[a].size, same);
    }
    for (uint32_t i = 0; i < l->nimages; i++) {
        uint32_t p = c->producer[index][i];
        uint64_t size = vkrr_replay_image_bytes(&rp->images[i]);
        const void *in = NULL;
        from_capture[i] = true;
        if (linear_texture(&l->images[i]))
            in = packed[i] = linear_from_chain(c, index, &l->images[i], &rp->images[i]);
        if (p != NONE) {
            surf_entry *se = &c->surfs[p];
            vkrr_mapfile *m = &maps[l->nallocs + i];
            if (se->bytes && se->size == size)
                in = se->bytes;
            else if (se->dump) {
                s = vkrr_capture_map_image(cap, &cap->launches[se->launch], se->image, m, err);
                if (s != VKRR_OK)
                    return s;
                in = m->size == size ? m->data : NULL;
            }
        }
        if (in && p != NONE && (s = alike_check(c, &c->links[index][i], in, size, unsure)))
            return s;
        if (in) {
            substitute(rp, &rp->images[i].pre, in, size, same);
            from_capture[i] = false;
        }
    }
    return VKRR_OK;
}

/* Drops the held copies of the bases that only launch `index`'s linear
 * textures read, once it is their last reader. */
static void drop_linear_bases(vkrr_chain *c, uint32_t index)
{
    const vkrr_launch *l = &c->cap->launches[index];
    for (uint32_t i = 0; i < l->nimages; i++) { /* bases only its linear textures read */
        alloc_entry *e = linear_texture(&l->images[i]) ? find_alloc(c, index, l->images[i].source_base) : NULL;
        if (e && e->last_use <= index)
            drop(c, &e->bytes, e->size);
    }
}

/* True when the launch's isolated result can stand for its chained one and
 * its dumps for the chain's state: it ran, every compared resource is
 * bit-identical to the capture, and every allocation a later launch reads
 * has a dump. */
static bool isolated_exact(vkrr_chain *c, uint32_t index, const vkrr_launch_result *r)
{
    const vkrr_launch *l = &c->cap->launches[index];
    if (!r->has_isolated || r->status != VKRR_LAUNCH_PASS || r->perturbed || r->damaged)
        return false;
    for (uint32_t k = 0; k < r->nres; k++)
        if (r->res[k].isolated.m.exact != r->res[k].isolated.m.count ||
            r->res[k].isolated.outside)
            return false;
    for (uint32_t a = 0; a < l->nallocs; a++)
        if (find_alloc(c, index, l->allocs[a].base)->last_use > index && !l->allocs[a].post_path)
            return false;
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
        r->res[k].chained = r->res[k].isolated;
        r->res[k].chained.heatmap[0] = 0; /* the isolated heatmap is the one */
    }
    vkrr_chain_original_reuse(r);
    for (uint32_t a = 0; a < l->nallocs; a++) {
        alloc_entry *e = find_alloc(c, index, l->allocs[a].base);
        drop(c, &e->bytes, e->size);
        e->dump_launch = e->last_use > index ? index : NONE;
        e->size = l->allocs[a].size;
        e->broken = NONE;
    }
    drop_linear_bases(c, index);
    for (uint32_t e = 0; e < c->nsurfs; e++) {
        surf_entry *se = &c->surfs[e];
        if (se->launch == index) {
            drop(c, &se->bytes, se->size);
            se->dump = se->last_use > index;
            se->broken = NONE;
        }
        if (se->last_use <= index) {
            drop(c, &se->bytes, se->size);
            se->dump = false;
        }
    }
}

/* Says how the chain feeds launch `index`: a restart after a gap, the
 * surface each texture reads and how that is known, or that none is known. */
static vkrr_status describe_feeds(vkrr_chain *c, uint32_t index, vkrr_launch_result *r,
                                  vkrr_error *err)
{
    const vkrr_capture *cap = c->cap;
    const vkrr_launch *l = &cap->launches[index];
    if (l->gap_before && index > 0) {
        r->chain_gap = l->gap_before;
        vkrr_launch_note(r, "chained: restarted from the capture (launches #%llu-#%llu have no "
                         "replay folder, so what they wrote is not replayed)",
                         (unsigned long long)(cap->launches[index - 1].sequence + 1),
                         (unsigned long long)(l->sequence - 1));
    }
    free(r->feeds);
    r->nfeeds = 0;
    if (!(r->feeds = calloc(l->nimages + 1, sizeof *r->feeds)))
        return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    for (uint32_t i = 0; i < l->nimages; i++) {
        const vkrr_texture_link *k = &c->links[index][i];
        if (l->images[i].kind != VKRR_IMAGE_TEXTURE || (k->launch == NONE && !k->unknown))
            continue;
        vkrr_chain_feed *f = &r->feeds[r->nfeeds++];
        *f = (vkrr_chain_feed){.arg = l->images[i].offset, .how = k->how, .unknown = k->unknown};
        if (k->launch != NONE) {
            f->from = &cap->launches[k->launch];
            f->from_arg = f->from->images[k->image].offset;
            for (uint32_t a = 0; a < k->nalike; a++)
                f->alike_arg[f->nalike++] = cap->launches[k->alike[a].launch].images[k->alike[a].image].offset;
        } else {
            vkrr_launch_note(r, "chained: the texture at arg %u reads the capture: the log does "
                             "not say which array it reads, and no earlier surface's dump equals "
                             "it", f->arg);
        }
    }
    return VKRR_OK;
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
    vkrr_status s0 = describe_feeds(c, index, r, err);
    if (s0 != VKRR_OK)
        return s0;
    if (l->damage >= VKRR_DAMAGE_INPUT) {
        not_run(c, index, index, r);
        return VKRR_OK;
    }
    uint32_t root = needs_broken(c, index);
    if (root != NONE) {
        not_run(c, index, root, r);
        return VKRR_OK;
    }
    vkrr_replay rp;
    vkrr_replay_storage *st = NULL;
    vkrr_launch_result t = {0};
    vkrr_chain_original orig = {0};
    vkrr_error e0 = {0};
    if (!r->fit && vkrr_sampler_fit_needed(l)) { /* chained only: not fitted in isolated mode */
        if (!(r->fit = calloc(1, sizeof *r->fit)))
            return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
        vkrr_status fs = vkrr_validate_fit_sampler(o, c->cap, l, r->fit, err);
        if (fs != VKRR_OK)
            return fs;
    }
    vkrr_status s = vkrr_replay_from_capture_ex(c->cap, l, !o->port_backend->keeps_outputs, &rp, &st, &e0);
    if (s == VKRR_OK && r->fit)
        vkrr_sampler_fit_apply(r->fit, &rp);
    if (s != VKRR_OK) {
        if (!vkrr_validate_unreadable(s)) {
            *err = e0;
            return s;
        }
        t.launch = l;
        t.worst = -1;
        vkrr_launch_set_damaged(&t, &e0, 0); /* a file that fails when it is mapped */
        break_outputs(c, index, index);
        merge(r, &t);
        return VKRR_OK;
    }
    bool *from_capture = calloc(l->nimages + 1, sizeof *from_capture);
    uint8_t **packed = calloc(l->nimages + 1, sizeof *packed);
    vkrr_mapfile *maps = calloc(l->nallocs + l->nimages + 1, sizeof *maps);
    bool same = false;
    if (!from_capture || !packed || !maps) {
        s = vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory for the chain");
        goto done;
    }
    const vkrr_texture_link *unsure = NULL;
    if ((s = chained_inputs(c, index, &rp, maps, packed, from_capture, &same, &unsure, err)) != VKRR_OK)
        goto done;
    /* While the chain's inputs are the captured ones, a port (deterministic)
     * computes what isolated mode saw: that result stands, nothing is run. */
    if (same && isolated_exact(c, index, r)) {
        reuse_isolated(c, index, r);
        goto done;
    }
    /* the original kernel first, on the same inputs, which it leaves alone
     * (chain_ref.h); then the port, whose hook drops them as it copies them */
    if ((s = vkrr_chain_original_run(o, l, &rp, &orig, err)) != VKRR_OK)
        goto done;
    chain_pre_done pd = {c, rp.pre_done, rp.pre_done_ctx};
    rp.pre_done = chain_consumed;
    rp.pre_done_ctx = &pd;
    s = vkrr_validate_replay(o, c->cap, l, &rp, orig.ran ? &orig.r : NULL, true, &t, err);
    if (s != VKRR_OK)
        goto done;
    if (t.status == VKRR_LAUNCH_FAIL)
        vkrr_validate_inputs_changed(o, c->cap, l, from_capture, &t);
    /* sampler_fit.h: a FAIL on a state that is a guess is not the port's;
     * on an ambiguous one, only where isolated mode found the port failing
     * under each state the capture allows */
    if (unsure && (t.status == VKRR_LAUNCH_FAIL || t.status == VKRR_LAUNCH_PASS)) {
        const vkrr_launch *pl = &c->cap->launches[unsure->launch];
        t.status = VKRR_LAUNCH_ERROR;
        vkrr_launch_note(&t, "chained: a texture reads one of %u surfaces of #%llu %s whose dumps are "
                         "equal, and the port wrote them differently: which one it reads, the "
                         "capture does not say, so neither PASS nor FAIL", unsure->nalike + 1, (unsigned long long)pl->sequence,
                         pl->kernel);
    }
    if (r->fit && t.status == VKRR_LAUNCH_FAIL &&
        !(r->fit->verdict == VKRR_FIT_INFERRED ||
          (r->fit->verdict == VKRR_FIT_AMBIGUOUS && r->fit->port_fails_all))) {
        t.status = VKRR_LAUNCH_ERROR;
        vkrr_launch_note(&t, "%s", r->fit->note);
    }
    if (!t.ran && t.damaged) { /* its input could not be taken: as if damaged at open */
        break_outputs(c, index, index);
        merge(r, &t);
        goto done;
    }
    bool ran = t.ran;
    /* The port's outputs that a later launch reads become the chain's state
     * (taken, or copied from a backend's view); the rest are not kept. */
    for (uint32_t a = 0; a < l->nallocs; a++) {
        alloc_entry *e = find_alloc(c, index, l->allocs[a].base);
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
        e->dump_launch = NONE;
        e->broken = NONE;
    }
    drop_linear_bases(c, index);
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
            se->broken = NONE;
        }
        if (se->last_use <= index) {
            drop(c, &se->bytes, se->size);
            se->dump = false;
        }
    }
    merge(r, &t);
    if (orig.tried && !orig.ran && ran)
        vkrr_launch_note(r, "chained: the original kernel could not run on the chained inputs "
                         "(%s)", orig.note);
done:
    for (uint32_t i = 0; maps && i < l->nallocs + l->nimages; i++)
        vkrr_mapfile_close(&maps[i]);
    free(maps);
    for (uint32_t i = 0; packed && i < l->nimages; i++)
        free(packed[i]);
    free(packed);
    free(from_capture);
    vkrr_launch_result_free(&t);
    vkrr_chain_original_free(o, &orig);
    vkrr_replay_capture_free(st);
    if (o->port_backend->release)
        o->port_backend->release(o->port_backend->self);
    return s;
}
