/* stress.c - new inputs for a captured launch, through the original and the
 * port, until they disagree; the first disagreement minimised and written as
 * a capture (stress.h says what and why). */
#include "stress.h"
#include "clock.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture_write.h"
#include "cuformat.h"
#include "fpformat.h"
#include "port_new.h"
#include "stress_values.h"
#include "ptx.h"
#include "validate.h"

#define MAX_INPUTS 64
#define MAX_CHANGES 64
#define MAX_KEPT 256

typedef struct input {
    uint32_t alloc;          /* the slot of its data: l->allocs[alloc], or past them a texture's */
    uint32_t arg;            /* the pointer's parameter offset (for messages) */
    uint64_t from;           /* byte where the pointer points (elements from there) */
    vkrr_dtype t;
    unsigned es;
    uint64_t n;              /* elements */
    double lo, hi;           /* the captured finite values' range */
    bool finite, bounded;    /* the .port's input line: no NaN/Inf; within [blo, bhi] */
    double blo, bhi;
} input;

typedef struct change {
    uint32_t in;
    uint64_t idx;
    uint64_t bits;
} change;

typedef struct cand {
    change c[MAX_CHANGES];
    uint32_t n;
} cand;

typedef struct stress {
    const vkrr_stress_opts *o;
    const vkrr_capture *cap;
    const vkrr_launch *l;
    vkrr_replay r;
    vkrr_replay_storage *st;
    input in[MAX_INPUTS];
    uint32_t nin;
    uint32_t nslots;         /* the allocations, then the images (textures' contents) */
    uint8_t **work;          /* per slot: the inputs being run (a copy of pre) */
    const uint8_t **pre;     /* per slot: the captured pre; NULL: none (surfaces) */
    uint8_t **opost;         /* per allocation with a dump: the original's output */
    uint8_t **oimg;          /* per surface: the original's output */
    vkrr_port_output outs[VKRR_PORT_MAX_OUTPUTS];
    uint32_t nouts;
    uint64_t rng;
    uint8_t *cov_seen;       /* per branch: directions any input took (PTX_COV-like bits) */
    uint32_t nbranch;
    char detail[1024];
} stress;

static uint64_t next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ---- element values: stress_values.h ---------------------------------------------- */
static uint64_t get_bits(const uint8_t *p, unsigned es)
{
    uint64_t v = 0;
    memcpy(&v, p, es);
    return v;
}

static uint64_t mutate_free(stress *s, const input *x, uint64_t cur);

/* One new value for element idx of input x (its current bits cur), within
 * what the .port's input line allows. */
static uint64_t mutate_value(stress *s, const input *x, uint64_t cur)
{
    for (int tries = 0; tries < 8; tries++) {
        uint64_t b = mutate_free(s, x, cur);
        double v = vkrr_dtype_to_double(x->t, &b);
        if ((!x->finite || isfinite(v)) && (!x->bounded || (v >= x->blo && v <= x->bhi)))
            return b;
    }
    double u = (double)(next(&s->rng) >> 11) * 0x1p-53;
    return x->bounded ? vkrr_stress_encode(x->t, x->blo + u * (x->bhi - x->blo))
                      : vkrr_stress_encode(x->t, x->lo + u * (x->hi - x->lo));
}

static uint64_t mutate_free(stress *s, const input *x, uint64_t cur)
{
    uint64_t sp[32];
    uint32_t nsp = vkrr_stress_specials(x->t, sp);
    uint64_t mask = x->es >= 8 ? ~0ull : (1ull << (8 * x->es)) - 1u;
    uint64_t r = next(&s->rng);
    double v = vkrr_dtype_to_double(x->t, &cur);
    switch (r % 6) {
    case 0:
    case 1:
        return sp[(r >> 8) % nsp];
    case 2: { /* within the captured range */
        double u = (double)(next(&s->rng) >> 11) * 0x1p-53;
        return vkrr_stress_encode(x->t, x->lo + u * (x->hi - x->lo));
    }
    case 3: /* negated */
        if (vkrr_stress_is_float(x->t))
            return cur ^ (1ull << (8 * x->es - 1));
        return (0 - cur) & mask;
    case 4: /* one step either way */
        return ((r >> 8) & 1 ? cur + 1 : cur - 1) & mask;
    default: /* scaled by a power of two */
        return vkrr_stress_encode(x->t, ldexp(v, (int)((r >> 8) % 33) - 16));
    }
}

/* ---- the inputs ------------------------------------------------------------------------ */
/* How the kernel reads each pointer, from the original's PTX (modules.h:
 * the first source that defines it; 0: none does). */
static uint32_t ptx_uses(const stress *s, vkrr_ptx_param_use *u, uint32_t max)
{
    const vkrr_module_set *ms = s->o->modules;
    uint32_t n = 0;
    int at = ms ? vkrr_modules_pick(ms, s->l->kernel, NULL, 0) : -1;
    if (at < 0)
        return 0;
    vkrr_ptx_module *m = NULL;
    vkrr_error e = {0};
    const vkrr_module_src *src = &ms->srcs[at];
    if (vkrr_ptx_module_load_keep(&m, src->text, src->len, src->name, &e) == VKRR_OK &&
        vkrr_ptx_param_uses(m, s->l->kernel, u, max, &n, &e) == VKRR_OK && n > max)
        n = max;
    vkrr_ptx_module_free(m);
    return n;
}

static uint64_t slot_size(const stress *s, uint32_t k)
{
    return k < s->l->nallocs ? s->l->allocs[k].size
                             : vkrr_replay_image_bytes(&s->r.images[k - s->l->nallocs]);
}

static void add_input(stress *s, uint32_t a, uint32_t arg, uint64_t from, vkrr_dtype t,
                      const vkrr_port_input *bound)
{
    uint64_t size = slot_size(s, a);
    if (bound && bound->fixed)
        return;
    if (bound && bound->typed && bound->dtype != VKRR_DT_BYTES)
        t = bound->dtype;
    unsigned es = vkrr_dtype_size(t);
    if (s->nin == MAX_INPUTS || !s->pre[a] || from >= size || (size - from) / es == 0)
        return;
    for (uint32_t i = 0; i < s->nin; i++)
        if (s->in[i].alloc == a)
            return; /* one reading of an allocation: the first pointer's */
    input *x = &s->in[s->nin++];
    *x = (input){a, arg, from, t, es, (size - from) / es, 0, 0, false, false, 0, 0};
    if (bound) {
        x->finite = bound->finite;
        x->bounded = bound->has_range;
        x->blo = bound->lo, x->bhi = bound->hi;
    }
    bool any = false;
    for (uint64_t k = 0; k < x->n; k++) {
        double v = vkrr_dtype_to_double(t, s->pre[a] + from + k * es);
        if (v != v || isinf(v))
            continue;
        if (!any || v < x->lo)
            x->lo = v;
        if (!any || v > x->hi)
            x->hi = v;
        any = true;
    }
    if (!any)
        x->lo = -1, x->hi = 1;
}

static void find_inputs(stress *s)
{
    const vkrr_launch *l = s->l;
    vkrr_ptx_param_use u[256];
    uint32_t nu = ptx_uses(s, u, 256);
    vkrr_port_input b[64];
    uint32_t nb = 0;
    const vkrr_portdesc *d = NULL;
    vkrr_error e = {0};
    if (s->o->descs && vkrr_portdesc_set_get(s->o->descs, l->kernel, &d, &e) == VKRR_OK && d &&
        (nb = vkrr_portdesc_inputs(d, b, 64)) > 64)
        nb = 64;
    for (uint32_t p = 0; p < l->npointers; p++) {
        const vkrr_pointer *pt = &l->pointers[p];
        const vkrr_port_input *bound = NULL;
        for (uint32_t k = 0; k < nb; k++)
            if (b[k].arg == pt->offset)
                bound = &b[k];
        if (!s->pre[pt->alloc])
            continue;
        if (!nu) { /* no PTX to read: f32 words, else bytes */
            add_input(s, pt->alloc, pt->offset, 0,
                      l->allocs[pt->alloc].size % 4 ? VKRR_DT_U8 : VKRR_DT_F32, bound);
            continue;
        }
        for (uint32_t k = 0; k < nu; k++)
            if (u[k].offset == pt->offset && u[k].load.count) {
                bool settled;
                const char *alt;
                vkrr_dtype t = vkrr_port_access_dtype(&u[k].load, &settled, &alt);
                if (t == VKRR_DT_BYTES)
                    t = VKRR_DT_U8;
                add_input(s, pt->alloc, pt->offset, pt->delta % vkrr_dtype_size(t), t, bound);
            }
    }
    /* textures' contents, in their CUDA array's channel type */
    for (uint32_t i = 0; i < l->nimages; i++) {
        const vkrr_image *im = &l->images[i];
        if (im->kind != VKRR_IMAGE_TEXTURE || im->resource != VKRR_TEXRES_ARRAY)
            continue;
        const vkrr_port_input *bound = NULL;
        for (uint32_t k = 0; k < nb; k++)
            if (b[k].arg == im->offset)
                bound = &b[k];
        vkrr_dtype t = vkrr_cuformat_dtype(im->format, true); /* the stored values */
        add_input(s, l->nallocs + i, im->offset, 0, t == VKRR_DT_BYTES ? VKRR_DT_U8 : t, bound);
    }
}

/* ---- running and comparing --------------------------------------------------------- */
static void apply(stress *s, const cand *c, bool undo)
{
    for (uint32_t k = 0; k < c->n; k++) {
        const input *x = &s->in[c->c[k].in];
        uint64_t at = x->from + c->c[k].idx * x->es;
        if (undo)
            memcpy(s->work[x->alloc] + at, s->pre[x->alloc] + at, x->es);
        else
            memcpy(s->work[x->alloc] + at, &c->c[k].bits, x->es);
    }
}

static vkrr_tolerance tol_of(const stress *s, const vkrr_port_output *d, vkrr_dtype t, uint32_t arg)
{
    vkrr_tolerance tol = vkrr_tolerance_default(t);
    if (d)
        vkrr_compare_tol_apply(&tol, &d->tol);
    return vkrr_compare_tol_resolve_from(s->o->rules, tol, s->l->kernel, s->l->occurrence, arg);
}

/* Bytes of [from, to) that differ. */
static uint64_t bytes_differ(const uint8_t *a, const uint8_t *b, uint64_t from, uint64_t to)
{
    uint64_t n = 0;
    for (uint64_t i = from; i < to; i++)
        n += a[i] != b[i];
    return n;
}

/* Compares the port's outputs (in the replay) with the original's: true
 * when they disagree, s->detail saying where. */
static bool disagree(stress *s, vkrr_error *err, vkrr_status *st)
{
    const vkrr_launch *l = s->l;
    for (uint32_t a = 0; a < l->nallocs; a++) {
        if (!s->opost[a])
            continue;
        const uint8_t *o = s->opost[a], *p = vkrr_replay_alloc_out(&s->r.allocs[a]);
        uint64_t size = l->allocs[a].size, pos = 0, gap = 0;
        for (uint32_t k = 0; k < s->nouts; k++) { /* in file order; windows by start */
            const vkrr_port_output *d = &s->outs[k];
            if (d->surface || d->index != a)
                continue;
            vkrr_tolerance tol = tol_of(s, d, d->view.dtype, d->arg);
            vkrr_metrics m;
            if ((*st = vkrr_compare(&d->view, o, p, size, &tol, &m, err)) != VKRR_OK)
                return false;
            if (!m.pass) {
                snprintf(s->detail, sizeof s->detail,
                         "arg%u (%s, the .port window of line %ld): %llu of its elements out of "
                         "tolerance, %llu NaN mismatches; worst at x=%u y=%u plane=%u channel=%u, "
                         "off by %g",
                         d->arg, vkrr_dtype_name(d->view.dtype), d->line,
                         (unsigned long long)m.out_of_tol, (unsigned long long)m.nan_mismatch,
                         m.max_abs_pos.x, m.max_abs_pos.y, m.max_abs_pos.plane,
                         m.max_abs_pos.channel, m.max_abs);
                return true;
            }
            uint64_t end = d->view.offset + vkrr_view_bytes(&d->view);
            if (d->view.offset > pos)
                gap += bytes_differ(o, p, pos, d->view.offset);
            pos = end > pos ? end : pos;
        }
        gap += bytes_differ(o, p, pos, size);
        if (gap) {
            snprintf(s->detail, sizeof s->detail,
                     "allocation 0x%llx: %llu bytes differ outside the .port windows (or it has "
                     "none: compared byte for byte)",
                     (unsigned long long)l->allocs[a].base, (unsigned long long)gap);
            return true;
        }
    }
    for (uint32_t i = 0; i < l->nimages; i++) {
        if (!s->oimg[i])
            continue;
        const vkrr_image *im = &l->images[i];
        const vkrr_port_output *d = NULL;
        for (uint32_t k = 0; k < s->nouts; k++)
            if (s->outs[k].surface && s->outs[k].index == i)
                d = &s->outs[k];
        vkrr_view v = d ? d->view : vkrr_surface_view(im);
        v.sentinel = true;
        vkrr_tolerance tol = tol_of(s, d, v.dtype, im->offset);
        vkrr_metrics m;
        if ((*st = vkrr_compare(&v, s->oimg[i], vkrr_replay_image_out(&s->r.images[i]),
                                vkrr_replay_image_bytes(&s->r.images[i]), &tol, &m, err)) != VKRR_OK)
            return false;
        if (!m.pass) {
            snprintf(s->detail, sizeof s->detail,
                     "surface arg%u (%s): %llu texels' values out of tolerance; worst at x=%u y=%u "
                     "channel=%u, off by %g",
                     im->offset, vkrr_dtype_name(v.dtype), (unsigned long long)m.out_of_tol,
                     m.max_abs_pos.x, m.max_abs_pos.y, m.max_abs_pos.channel, m.max_abs);
            return true;
        }
    }
    return false;
}

enum { RUN_SAME, RUN_DIFFER, RUN_ORIGINAL_FAILS, RUN_PORT_FAILS };

/* Runs the current inputs through both; coverage new: the original took a
 * direction no input took before. */
static int run_both(stress *s, bool *coverage_new, vkrr_error *err, vkrr_status *st)
{
    const vkrr_stress_opts *o = s->o;
    const vkrr_launch *l = s->l;
    vkrr_error e = {0};
    *st = VKRR_OK;
    if (o->original->run(o->original->self, &s->r, &e) != VKRR_OK) {
        vkrr_error_format(&e, s->detail, sizeof s->detail);
        return RUN_ORIGINAL_FAILS;
    }
    for (uint32_t a = 0; a < l->nallocs; a++)
        if (s->opost[a])
            memcpy(s->opost[a], vkrr_replay_alloc_out(&s->r.allocs[a]), l->allocs[a].size);
    for (uint32_t i = 0; i < l->nimages; i++)
        if (s->oimg[i])
            memcpy(s->oimg[i], vkrr_replay_image_out(&s->r.images[i]),
                   vkrr_replay_image_bytes(&s->r.images[i]));
    if (coverage_new) {
        *coverage_new = false;
        vkrr_branch_cov b[512];
        const char *mod = NULL;
        uint32_t nb = o->original->coverage
                          ? o->original->coverage(o->original->self, l->kernel, b, 512, &mod) : 0;
        if (nb > 512)
            nb = 512;
        if (nb > s->nbranch) {
            uint8_t *p = realloc(s->cov_seen, nb);
            if (p) {
                memset(p + s->nbranch, 0, nb - s->nbranch);
                s->cov_seen = p;
                s->nbranch = nb;
            }
        }
        for (uint32_t k = 0; k < nb && k < s->nbranch; k++) {
            uint8_t bits = (uint8_t)((b[k].taken ? 1 : 0) | (b[k].fell ? 2 : 0));
            if (bits & ~s->cov_seen[k])
                *coverage_new = true;
            s->cov_seen[k] |= bits;
        }
    }
    if (o->port->run(o->port->self, &s->r, &e) != VKRR_OK) {
        vkrr_error_format(&e, s->detail, sizeof s->detail);
        return RUN_PORT_FAILS;
    }
    return disagree(s, err, st) ? RUN_DIFFER : RUN_SAME;
}

static uint32_t directions(const stress *s)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->nbranch; k++)
        n += (s->cov_seen[k] & 1) + ((s->cov_seen[k] >> 1) & 1);
    return n;
}

/* ---- the reproducer ------------------------------------------------------------------ */
static vkrr_status write_reproducer(stress *s, vkrr_stress_result *res, vkrr_error *err)
{
    const vkrr_launch *l = s->l;
    for (uint32_t i = 0; i < l->nimages; i++)
        if (l->images[i].resource != VKRR_TEXRES_ARRAY) {
            snprintf(res->note, sizeof res->note, "no reproducer written: the launch reads a "
                     "texture over linear memory, which stress does not write yet");
            return VKRR_OK;
        }
    char dir[4096];
    for (unsigned k = 1; k < 10000; k++) { /* an earlier run's reproducer stays */
        int n = snprintf(dir, sizeof dir, "%s/stress-%06llu-%s", s->o->out_dir,
                         (unsigned long long)l->sequence, l->kernel);
        if (k > 1 && n > 0 && (size_t)n < sizeof dir)
            snprintf(dir + n, sizeof dir - (size_t)n, "-%u", k);
        if (access(dir, F_OK) != 0)
            break;
    }
    vkrr_writer *w = NULL;
    vkrr_status st = vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir,
                                                               .log_prefix = "[d4r nvcuda] "},
                                      err);
    if (st != VKRR_OK)
        return st;
    /* the source's GPU, so validate judges the reproducer by the same model */
    vkrr_writer_device(w, &s->cap->device);
    vkrr_alloc_record *al = calloc(l->nallocs + 1, sizeof *al);
    vkrr_pointer_record *pr = calloc(l->npointers + 1, sizeof *pr);
    vkrr_image_record *ir = calloc(l->nimages + 1, sizeof *ir);
    if (!al || !pr || !ir) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < s->cap->nmodules && st == VKRR_OK; i++) {
        const vkrr_module_file *mf = &s->cap->modules[i];
        FILE *f = fopen(mf->path, "rb");
        if (!f) {
            st = vkrr_fail(err, VKRR_ERR_IO, mf->path, 0, -1, "cannot be read");
            break;
        }
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, 0, SEEK_SET);
        char *text = malloc(size > 0 ? (size_t)size + 1 : 1);
        size_t got = text && size > 0 ? fread(text, 1, (size_t)size, f) : 0;
        fclose(f);
        if (!text || (size > 0 && got != (size_t)size)) {
            free(text);
            st = vkrr_fail(err, VKRR_ERR_IO, mf->path, 0, -1, "cannot be read");
            break;
        }
        text[got] = 0;
        const char *k[] = {l->kernel};
        st = vkrr_writer_module(w, mf->name, text, got, k, strstr(text, l->kernel) ? 1 : 0, err);
        free(text);
    }
    for (uint32_t a = 0; a < l->nallocs; a++)
        al[a] = (vkrr_alloc_record){l->allocs[a].base, l->allocs[a].size, s->work[a], s->opost[a]};
    for (uint32_t p = 0; p < l->npointers; p++)
        pr[p] = (vkrr_pointer_record){l->pointers[p].offset, l->pointers[p].alloc, l->pointers[p].delta};
    for (uint32_t i = 0; i < l->nimages && st == VKRR_OK; i++) {
        const vkrr_image *im = &l->images[i];
        uint64_t arr = vkrr_writer_array_create(w, im->width, im->height, im->format, im->channels);
        bool tex = im->kind == VKRR_IMAGE_TEXTURE;
        uint64_t h = tex ? vkrr_writer_texture_create(w, arr, &im->sampler, im->handle)
                         : vkrr_writer_surface_create(w, arr, im->handle);
        ir[i] = (vkrr_image_record){.offset = im->offset, .kind = im->kind, .handle = h,
                                    .width = im->width, .height = im->height,
                                    .channels = im->channels, .format = im->format,
                                    .post = tex ? s->work[l->nallocs + i] : s->oimg[i]};
    }
    vkrr_launch_record rec = {.kernel = l->kernel, .grid = {l->grid[0], l->grid[1], l->grid[2]},
                              .block = {l->block[0], l->block[1], l->block[2]},
                              .shared_bytes = l->shared_bytes, .args = l->args,
                              .args_bytes = l->args_bytes, .allocs = al, .nallocs = l->nallocs,
                              .pointers = pr, .npointers = l->npointers, .images = ir,
                              .nimages = l->nimages};
    if (st == VKRR_OK)
        st = vkrr_writer_launch(w, &rec, NULL, err);
out:;
    vkrr_error cerr = {0};
    vkrr_status cs = vkrr_writer_close(w, &cerr);
    if (st == VKRR_OK && cs != VKRR_OK) {
        *err = cerr;
        st = cs;
    }
    if (st == VKRR_OK)
        snprintf(res->reproducer, sizeof res->reproducer, "%s", dir);
    free(al);
    free(pr);
    free(ir);
    return st;
}

/* ---- the search ------------------------------------------------------------------------ */
static void add_change(cand *c, change x)
{
    for (uint32_t k = 0; k < c->n; k++)
        if (c->c[k].in == x.in && c->c[k].idx == x.idx) {
            c->c[k].bits = x.bits;
            return;
        }
    if (c->n < MAX_CHANGES)
        c->c[c->n++] = x;
}

/* The inputs differ from the captured ones at each change, one at a time
 * put back while the disagreement stays. */
static vkrr_status minimise(stress *s, cand *c, vkrr_error *err)
{
    for (uint32_t k = 0; k < c->n && c->n > 1;) {
        cand t = *c;
        t.c[k] = t.c[--t.n];
        apply(s, c, true);
        apply(s, &t, false);
        vkrr_status st;
        int r = run_both(s, NULL, err, &st);
        if (st != VKRR_OK)
            return st;
        if (r == RUN_DIFFER) {
            *c = t;
        } else {
            apply(s, &t, true);
            apply(s, c, false);
            k++;
        }
    }
    /* the outputs of the minimal input, for the reproducer */
    vkrr_status st;
    int r = run_both(s, NULL, err, &st);
    (void)r;
    return st;
}

static void describe(const stress *s, const cand *c, vkrr_stress_result *res)
{
    size_t n = 0;
    res->inputs[0] = 0;
    for (uint32_t k = 0; k < c->n && n + 96 < sizeof res->inputs; k++) {
        const input *x = &s->in[c->c[k].in];
        char v[64], was[64];
        uint64_t old = get_bits(s->pre[x->alloc] + x->from + c->c[k].idx * x->es, x->es);
        vkrr_stress_format(x->t, c->c[k].bits, v, sizeof v);
        vkrr_stress_format(x->t, old, was, sizeof was);
        n += (size_t)snprintf(res->inputs + n, sizeof res->inputs - n, "%sarg%u[%llu] %s = %s (was %s)",
                              k ? "; " : "", x->arg, (unsigned long long)c->c[k].idx,
                              vkrr_dtype_name(x->t), v, was);
    }
}

static vkrr_status setup(stress *s, vkrr_stress_result *res, vkrr_error *err)
{
    const vkrr_launch *l = s->l;
    vkrr_status st = vkrr_replay_from_capture(s->cap, l, &s->r, &s->st, err);
    if (st != VKRR_OK)
        return st;
    s->r.pre_done = NULL; /* one replay, run many times: every pre stays mapped */
    s->nslots = l->nallocs + l->nimages;
    s->work = calloc(s->nslots + 1, sizeof *s->work);
    s->pre = calloc(s->nslots + 1, sizeof *s->pre);
    s->opost = calloc(l->nallocs + 1, sizeof *s->opost);
    s->oimg = calloc(l->nimages + 1, sizeof *s->oimg);
    if (!s->work || !s->pre || !s->opost || !s->oimg)
        return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    for (uint32_t a = 0; a < l->nallocs; a++) {
        uint64_t size = l->allocs[a].size;
        s->pre[a] = s->r.allocs[a].pre;
        if (!(s->work[a] = malloc(size ? size : 1)))
            return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
        if (s->pre[a])
            memcpy(s->work[a], s->pre[a], size);
        else
            memset(s->work[a], 0, size);
        s->r.allocs[a].pre = s->work[a];
        if (l->allocs[a].post_path && !l->allocs[a].post_damaged &&
            !(s->opost[a] = malloc(size ? size : 1)))
            return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    }
    for (uint32_t i = 0; i < l->nimages; i++) {
        uint64_t size = vkrr_replay_image_bytes(&s->r.images[i]);
        if (l->images[i].kind != VKRR_IMAGE_TEXTURE || !s->r.images[i].pre)
            continue;
        s->pre[l->nallocs + i] = s->r.images[i].pre;
        if (!(s->work[l->nallocs + i] = malloc(size ? size : 1)))
            return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
        memcpy(s->work[l->nallocs + i], s->r.images[i].pre, size);
        s->r.images[i].pre = s->work[l->nallocs + i];
    }
    for (uint32_t i = 0; i < l->nimages; i++)
        if (l->images[i].kind == VKRR_IMAGE_SURFACE && !l->images[i].dump_damaged &&
            !(s->oimg[i] = malloc(vkrr_replay_image_bytes(&s->r.images[i]) + 1)))
            return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    if (s->o->descs &&
        (st = vkrr_portdesc_set_outputs(s->o->descs, l, s->outs, VKRR_PORT_MAX_OUTPUTS, &s->nouts,
                                        err)) != VKRR_OK)
        return st;
    if (s->nouts > VKRR_PORT_MAX_OUTPUTS)
        s->nouts = VKRR_PORT_MAX_OUTPUTS;
    find_inputs(s);
    res->mutable_inputs = s->nin;
    return VKRR_OK;
}

static void teardown(stress *s)
{
    for (uint32_t a = 0; a < s->nslots; a++)
        if (s->work)
            free(s->work[a]);
    for (uint32_t a = 0; a < s->l->nallocs; a++)
        if (s->opost)
            free(s->opost[a]);
    for (uint32_t i = 0; s->oimg && i < s->l->nimages; i++)
        free(s->oimg[i]);
    free(s->work);
    free(s->pre);
    free(s->opost);
    free(s->oimg);
    free(s->cov_seen);
    vkrr_replay_capture_free(s->st);
}

vkrr_status vkrr_stress_launch(const vkrr_stress_opts *o, const vkrr_capture *cap,
                               const vkrr_launch *l, vkrr_stress_result *res, vkrr_error *err)
{
    memset(res, 0, sizeof *res);
    stress *s = calloc(1, sizeof *s);
    cand *kept = calloc(MAX_KEPT, sizeof *kept);
    if (!s || !kept) {
        free(s);
        free(kept);
        return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    }
    s->o = o;
    s->cap = cap;
    s->l = l;
    s->rng = o->seed * 0x9e3779b97f4a7c15ull + l->sequence;
    vkrr_status st = setup(s, res, err);
    uint32_t nkept = 1; /* kept[0]: the captured inputs (no change) */
    if (st != VKRR_OK)
        goto out;
    bool fresh = false;
    int r = run_both(s, &fresh, err, &st);
    if (st != VKRR_OK)
        goto out;
    res->dirs_captured = directions(s);
    if (r != RUN_SAME) {
        const char *why = r == RUN_ORIGINAL_FAILS ? "the original fails"
                          : r == RUN_PORT_FAILS    ? "the port fails"
                                                   : "the port and the original disagree already";
        if (snprintf(res->note, sizeof res->note, "%s on the captured inputs: %.900s", why,
                     s->detail) < 0)
            res->note[0] = 0;
        goto out;
    }
    if (!s->nin) {
        res->nothing = true;
        snprintf(res->note, sizeof res->note, "not stressed: nothing to change (the kernel loads "
                                              "through none of its pointers and reads no texture, "
                                              "or its .port's input lines fix them)");
        goto out;
    }
    double t0 = vkrr_now_s();
    cand c;
    for (res->runs = 0; res->runs < o->runs; res->runs++) {
        if (o->seconds > 0 && vkrr_now_s() - t0 > o->seconds)
            break;
        c = kept[next(&s->rng) % nkept];
        unsigned k = 1 + (unsigned)(next(&s->rng) % 4);
        for (unsigned j = 0; j < k; j++) {
            uint32_t xi = (uint32_t)(next(&s->rng) % s->nin);
            const input *x = &s->in[xi];
            uint64_t idx = next(&s->rng) % x->n;
            uint64_t cur = get_bits(s->work[x->alloc] + x->from + idx * x->es, x->es);
            for (uint32_t q = 0; q < c.n; q++)
                if (c.c[q].in == xi && c.c[q].idx == idx)
                    cur = c.c[q].bits;
            add_change(&c, (change){xi, idx, mutate_value(s, x, cur)});
        }
        apply(s, &c, false);
        r = run_both(s, &fresh, err, &st);
        if (st != VKRR_OK)
            goto out;
        if (o->progress && (res->runs % 16 == 0))
            fprintf(stderr, "\r  stress #%llu %s: %llu inputs, %u kept, %u of %u branch directions ",
                    (unsigned long long)l->sequence, l->kernel, (unsigned long long)res->runs + 1,
                    nkept - 1, directions(s), 2 * s->nbranch);
        if (r == RUN_DIFFER || r == RUN_PORT_FAILS) {
            res->runs++;
            res->disagree = true;
            if ((st = minimise(s, &c, err)) != VKRR_OK)
                goto out;
            snprintf(res->detail, sizeof res->detail, "%s", s->detail);
            res->changed = c.n;
            describe(s, &c, res);
            if ((st = write_reproducer(s, res, err)) != VKRR_OK)
                goto out;
            break;
        }
        /* an input the original cannot take (a fault) is no bug of the port's */
        if (r == RUN_SAME && fresh && nkept < MAX_KEPT)
            kept[nkept++] = c;
        apply(s, &c, true);
    }
    if (o->progress)
        fputs("\r\033[K", stderr);
out:
    if (o->port->release)
        o->port->release(o->port->self);
    res->kept = nkept - 1;
    res->dirs_taken = directions(s);
    res->dirs_total = 2 * s->nbranch;
    teardown(s);
    free(s);
    free(kept);
    return st;
}
