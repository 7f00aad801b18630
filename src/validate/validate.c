#include "validate.h"
#include "sampler_fit.h"
#include "clock.h"

#include "approx.h"
#include "texfilter.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuformat.h"
#include "heatmap.h"
#include "own_notes.h"

const char *vkrr_launch_status_name(vkrr_launch_status s)
{
    switch (s) {
    case VKRR_LAUNCH_PASS: return "PASS";
    case VKRR_LAUNCH_FAIL: return "FAIL";
    case VKRR_LAUNCH_NO_PORT: return "NO PORT";
    case VKRR_LAUNCH_TIMEOUT: return "TIMEOUT";
    case VKRR_LAUNCH_ERROR: return "ERROR";
    case VKRR_LAUNCH_SKIPPED: return "SKIPPED";
    case VKRR_LAUNCH_STATUS_COUNT: break;
    }
    return "?";
}

bool vkrr_validate_unreadable(vkrr_status s)
{
    return s != VKRR_OK && !vkrr_status_ends_run(s, true); /* status.h's one table */
}

/* Bytes of [from, to) that differ between a and b; a's bytes go into hc
 * (NULL: no hash), slice by slice, each hashed just before it is counted. */
static uint64_t gap_diff(const uint8_t *a, const uint8_t *b, uint64_t from, uint64_t to,
                         vkrr_hash_cursor *hc)
{
    uint64_t diff = 0;
    for (uint64_t s = from; s < to; s += 65536) {
        uint64_t e = to - s < 65536 ? to : s + 65536;
        if (hc) {
            hc->h = vkrr_fnv1a64_update(hc->h, a + s, (size_t)(e - s));
            hc->pos = e;
        }
        for (uint64_t i = s; i < e; i++)
            diff += a[i] != b[i];
    }
    return diff;
}

/* The comparisons every resource gets: port vs capture and, with a rerun,
 * port vs rerun and (isolated: the rerun ran from the captured inputs too)
 * rerun vs capture. */
/* tol widened to the ISA's bound of the stand-ins si (approx.h), when asked. */
static vkrr_tolerance with_standins(const vkrr_validate_opts *o, vkrr_tolerance tol, unsigned si)
{
    if (!si || !o->standin_bounds)
        return tol;
    double atol, rtol;
    int64_t ulp;
    vkrr_approx_standin_bound(si, &atol, &rtol, &ulp);
    tol.atol = atol > tol.atol ? atol : tol.atol;
    tol.rtol = rtol > tol.rtol ? rtol : tol.rtol;
    tol.max_ulp = ulp > tol.max_ulp ? ulp : tol.max_ulp;
    return tol;
}

/* The stand-ins each side computed with (replay.standins). */
typedef struct standins {
    unsigned port, rerun;
} standins;

/* The comparisons of rr that a pass fills: the port's and the port's
 * against the original on the same inputs. */
static vkrr_comparison *port_cmp(vkrr_resource_result *rr, bool chained)
{
    return chained ? &rr->chained : &rr->isolated;
}
static vkrr_comparison *original_cmp(vkrr_resource_result *rr, bool chained)
{
    return chained ? &rr->chained_original : &rr->isolated_original;
}

static vkrr_status compare_resource(const vkrr_validate_opts *o, const vkrr_launch *l,
                                    vkrr_resource_result *rr, const vkrr_port_output *desc,
                                    const void *capture, const void *port, const void *rerun,
                                    bool chained, uint64_t bytes, vkrr_hash_cursor *hc,
                                    standins si, vkrr_error *err)
{
    /* the type's default, the descriptor's keys, then --tolerance and flags */
    vkrr_tolerance tol = vkrr_tolerance_default(rr->view.dtype);
    if (desc)
        vkrr_compare_tol_apply(&tol, &desc->tol);
    tol = vkrr_compare_tol_resolve_from(o->rules, tol, l->kernel, l->occurrence, rr->offset);
    vkrr_tolerance tp = with_standins(o, tol, si.port), tr = with_standins(o, tol, si.port | si.rerun);
    vkrr_comparison *pc = port_cmp(rr, chained), *oc = original_cmp(rr, chained);
    vkrr_status s = vkrr_compare_hashed(&rr->view, capture, port, bytes, &tp, hc, &pc->m, err);
    if (s != VKRR_OK)
        return s;
    pc->done = true;
    pc->pass = pc->m.pass && pc->outside == 0;
    if (rerun) {
        s = vkrr_compare(&rr->view, rerun, port, bytes, &tr, &oc->m, err);
        oc->done = s == VKRR_OK;
        oc->pass = oc->m.pass && oc->outside == 0;
        if (s == VKRR_OK && !chained) {
            vkrr_tolerance tc = with_standins(o, tol, si.rerun);
            s = vkrr_compare(&rr->view, capture, rerun, bytes, &tc, &rr->original_capture.m, err);
            rr->original_capture.done = s == VKRR_OK;
            rr->original_capture.pass = rr->original_capture.m.pass;
        }
    }
    return s;
}

/* The heatmap PNG of one resource: reference | port | error.  A heatmap is a
 * picture, not a verdict: trouble writing one is a warning. */
static void heatmap_for(const vkrr_validate_opts *o, const vkrr_launch *l,
                        vkrr_resource_result *rr, const void *capture, const void *port,
                        uint64_t bytes, bool chained)
{
    vkrr_comparison *pc = port_cmp(rr, chained);
    if (!o->heatmap_dir || (pc->pass && !o->heatmaps_all))
        return;
    char path[1024];
    if (!vkrr_heatmap_path(path, sizeof path, o->heatmap_dir, (uint32_t)l->sequence, l->kernel,
                           rr->offset, -1))
        return;
    size_t pl = strlen(path);
    if (chained && pl > 4 && pl + 8 < sizeof path)
        memcpy(path + pl - 4, "-chained.png", 13);
    if (vkrr_heatmap_is_table(&rr->view)) /* too small to see: its values */
        vkrr_heatmap_table_path(path);
    uint64_t n = (uint64_t)rr->view.width * rr->view.height * rr->view.planes * rr->view.channels;
    float *buf = n && n < (UINT64_MAX / 3) / sizeof(float) ? malloc(3 * n * sizeof(float)) : NULL;
    vkrr_error herr = {0};
    char title[512];
    snprintf(title, sizeof title, "#%llu %s arg%u (frame %u)%s", (unsigned long long)l->sequence,
             l->kernel, rr->offset, l->frame, chained ? " chained" : "");
    if (!buf) {
        vkrr_warn("%s: no memory for the heatmap of arg %u", l->dir, rr->offset);
        return;
    }
    vkrr_status s = vkrr_compare_decode(&rr->view, capture, bytes, buf, &herr);
    if (s == VKRR_OK)
        s = vkrr_compare_decode(&rr->view, port, bytes, buf + n, &herr);
    if (s == VKRR_OK)
        s = vkrr_compare_error_map(&rr->view, capture, port, bytes, buf + 2 * n, &herr);
    if (s == VKRR_OK)
        s = vkrr_heatmap_write(&(vkrr_heatmap_desc){.path = path, .view = rr->view, .ref = buf,
                                                    .cand = buf + n, .err = buf + 2 * n,
                                                    .grid = true, .title = title,
                                                    .all_values = o->dump_values},
                               &herr);
    if (s == VKRR_OK)
        snprintf(pc->heatmap, sizeof pc->heatmap, "%s", path);
    else
        vkrr_error_print(&herr, stderr);
    free(buf);
}

/* Worst in a pass: judged before changed, failing before passing, outputs
 * before inputs that passed (an input compared whole is named only when it
 * differs), then more ULPs, then larger abs error. */
static int worse(const vkrr_resource_result *a, const vkrr_resource_result *b, bool chained)
{
    const vkrr_comparison *x = chained ? &a->chained : &a->isolated;
    const vkrr_comparison *y = chained ? &b->chained : &b->isolated;
    if (a->changed != b->changed)
        return !a->changed;
    if (x->pass != y->pass)
        return !x->pass;
    if (a->output != b->output)
        return a->output;
    if (x->m.max_ulp != y->m.max_ulp)
        return x->m.max_ulp > y->m.max_ulp;
    return x->m.max_abs > y->m.max_abs;
}

/* A launch's outputs, as its port descriptor says (portdesc.h). */
typedef struct launch_outputs {
    vkrr_port_output o[VKRR_PORT_MAX_OUTPUTS];
    uint32_t n;
} launch_outputs;

static vkrr_status outputs_of(const vkrr_validate_opts *o, const vkrr_launch *l,
                              launch_outputs *lo, vkrr_error *err)
{
    return vkrr_portdesc_set_outputs(o->descs, l, lo->o, VKRR_PORT_MAX_OUTPUTS, &lo->n, err);
}

/* The windows compared in allocation a: the described outputs into it, or
 * none: the whole allocation as opts.buffer_dtype (desc NULL).  Returns the
 * count (>= 1). */
static uint32_t windows_of(const vkrr_validate_opts *o, const launch_outputs *lo,
                           const vkrr_launch *l, uint32_t a, vkrr_view *win,
                           const vkrr_port_output **desc, bool *described)
{
    uint32_t nw = 0;
    for (uint32_t k = 0; k < lo->n; k++)
        if (!lo->o[k].surface && lo->o[k].index == a) {
            win[nw] = lo->o[k].view;
            desc[nw++] = &lo->o[k];
        }
    if (described)
        *described = nw > 0;
    if (nw == 0) {
        win[0] = vkrr_compare_flat_view(o->buffer_dtype, l->allocs[a].size);
        desc[0] = NULL;
        nw = 1;
    }
    return nw;
}

/* The descriptor's output for surface image i, NULL when it names none. */
static const vkrr_port_output *surface_output(const launch_outputs *lo, uint32_t i)
{
    for (uint32_t k = 0; k < lo->n; k++)
        if (lo->o[k].surface && lo->o[k].index == i)
            return &lo->o[k];
    return NULL;
}

vkrr_view vkrr_surface_view(const vkrr_image *im)
{
    return (vkrr_view){
        .dtype = vkrr_cuformat_dtype(im->format, false),
        .width = im->width,
        .height = im->height,
        .planes = 1,
        .channels = im->channels,
    };
}

/* --perturb: move every element of the launch's outputs (the described
 * windows of dumped allocations, every surface) in the port's result. */
static bool perturb_outputs(const vkrr_validate_opts *o, const launch_outputs *lo,
                            const vkrr_launch *l, vkrr_replay *r)
{
    if (!vkrr_perturb_matches(o->perturb, l))
        return false;
    int64_t u = o->perturb->ulps;
    for (uint32_t a = 0; a < l->nallocs && a < r->nallocs; a++) {
        uint8_t *out = vkrr_replay_alloc_out(&r->allocs[a]);
        if (!l->allocs[a].post_path || !out)
            continue;
        vkrr_view win[VKRR_PORT_MAX_OUTPUTS];
        const vkrr_port_output *desc[VKRR_PORT_MAX_OUTPUTS];
        bool described;
        uint32_t nw = windows_of(o, lo, l, a, win, desc, &described);
        /* an undescribed allocation holds inputs as well: leave it alone */
        for (uint32_t w = 0; w < nw && described; w++)
            vkrr_perturb_view(&win[w], out, l->allocs[a].size, u);
    }
    for (uint32_t i = 0; i < l->nimages && i < r->nimages; i++)
        if (l->images[i].kind == VKRR_IMAGE_SURFACE && vkrr_replay_image_out(&r->images[i])) {
            const vkrr_port_output *d = surface_output(lo, i);
            vkrr_view v = d ? d->view : vkrr_surface_view(&l->images[i]);
            vkrr_perturb_view(&v, vkrr_replay_image_out(&r->images[i]),
                              vkrr_replay_image_bytes(&r->images[i]), u);
        }
    return true;
}

/* The dump disagrees with what the log says of it (hash=, statistics):
 * the resources read from it are not judged, and the note says so. */
static void mark_changed(vkrr_launch_result *out, uint32_t from, uint32_t to, const char *path,
                         const char *why)
{
    for (uint32_t k = from; k < to; k++)
        out->res[k].changed = true;
    vkrr_launch_note(out, "%s changed since capture: %s", path, why);
}

/* Whether o checks dumps against the log at all. */
static bool checks_dumps(const vkrr_validate_opts *o)
{
    return o->integrity.basis || o->integrity.stats;
}

/* Elements of window v one side left at the pre-launch bytes where the
 * other changed them (bytes compared, whole elements): *port_left what
 * "unwritten" is for a buffer, which starts from its pre-launch contents,
 * not from a sentinel; *cuda_left the elements CUDA did not write and the
 * port did. */
static void left_unchanged(const vkrr_view *v, const uint8_t *pre, const uint8_t *cap,
                           const uint8_t *cand, uint64_t *port_left, uint64_t *cuda_left)
{
    uint64_t es = vkrr_dtype_size(v->dtype), n = vkrr_view_bytes(v) / es;
    *port_left = *cuda_left = 0;
    for (uint64_t k = 0, at = v->offset; k < n; k++, at += es) {
        bool cand_pre = !memcmp(cand + at, pre + at, es), cap_pre = !memcmp(cap + at, pre + at, es);
        *port_left += cand_pre && !cap_pre;
        *cuda_left += cap_pre && !cand_pre;
    }
}

/* Bytes of a and b that differ outside the windows (sorted by order). */
static uint64_t outside_bytes(const uint8_t *a, const uint8_t *b, const vkrr_view *win,
                              const uint32_t *order, uint32_t nw, uint64_t size)
{
    uint64_t pos = 0, diff = 0;
    for (uint32_t k = 0; k < nw; k++) {
        const vkrr_view *v = &win[order[k]];
        if (v->offset > pos)
            diff += gap_diff(a, b, pos, v->offset, NULL);
        uint64_t end = v->offset + vkrr_view_bytes(v);
        pos = end > pos ? end : pos;
    }
    return diff + gap_diff(a, b, pos, size, NULL);
}

/* from_pre: the candidate ran from the capture's pre-launch bytes (an
 * isolated run), so bytes it left equal to them are bytes it did not write. */
static vkrr_status compare_buffers(const vkrr_validate_opts *o, const launch_outputs *lo,
                                   const vkrr_capture *cap, const vkrr_launch *l,
                                   const vkrr_replay *port, const vkrr_replay *rerun, bool chained,
                                   bool from_pre, vkrr_launch_result *out, vkrr_error *err)
{
    for (uint32_t a = 0; a < l->nallocs; a++) {
        const vkrr_alloc *al = &l->allocs[a];
        if (!al->post_path)
            continue;
        vkrr_mapfile post = {0}, pre = {0};
        vkrr_status s = vkrr_capture_map_alloc_post(cap, l, a, &post, err);
        if (s != VKRR_OK)
            return s;
        uint64_t size = al->size;
        vkrr_view win[VKRR_PORT_MAX_OUTPUTS];
        const vkrr_port_output *desc[VKRR_PORT_MAX_OUTPUTS];
        uint32_t order[VKRR_PORT_MAX_OUTPUTS];
        uint32_t nw = windows_of(o, lo, l, a, win, desc, NULL);
        for (uint32_t w = 0; w < nw; w++) { /* by start: the dump is read in file order */
            uint32_t k = w;
            for (; k > 0 && win[order[k - 1]].offset > win[w].offset; k--)
                order[k] = order[k - 1];
            order[k] = w;
        }
        const uint8_t *cp = post.data, *pp = vkrr_replay_alloc_out(&port->allocs[a]);
        const uint8_t *rp = rerun ? vkrr_replay_alloc_out(&rerun->allocs[a]) : NULL;
        vkrr_hash_cursor hc = {o->integrity.basis, 0};
        vkrr_hash_cursor *hcp = o->integrity.basis && al->post_log.has_hash ? &hc : NULL;
        uint32_t base = out->nres;
        uint64_t pos = 0, outside = 0;
        for (uint32_t k = 0; k < nw && s == VKRR_OK; k++) {
            uint32_t w = order[k];
            vkrr_resource_result *rr = &out->res[base + w];
            memset(rr, 0, sizeof *rr);
            rr->is_buffer = true;
            rr->output = desc[w] != NULL;
            rr->offset = desc[w] ? desc[w]->arg : al->post_offset;
            rr->base = al->base;
            rr->view = win[w];
            if (win[w].offset > pos)
                outside += gap_diff(cp, pp, pos, win[w].offset, hcp);
            s = compare_resource(o, l, rr, desc[w], cp, pp, rp, chained, size, hcp,
                                 (standins){port->standins, rerun ? rerun->standins : 0}, err);
            uint64_t end = win[w].offset + vkrr_view_bytes(&win[w]);
            pos = end > pos ? end : pos;
        }
        if (s == VKRR_OK) {
            outside += gap_diff(cp, pp, pos, size, hcp);
            out->nres += nw;
            port_cmp(&out->res[base], chained)->outside = outside;
            if (rp && chained) /* the port against the original on the same inputs */
                out->res[base].chained_original.outside = outside_bytes(rp, pp, win, order, nw, size);
            for (uint32_t w = 0; w < nw && s == VKRR_OK; w++) {
                vkrr_resource_result *rr = &out->res[base + w];
                vkrr_comparison *pc = port_cmp(rr, chained), *oc = original_cmp(rr, chained);
                pc->pass = pc->m.pass && pc->outside == 0;
                oc->pass = oc->done && oc->m.pass && oc->outside == 0;
                /* only for a failing described window of an isolated run: it
                 * costs a read of the pre-launch bytes */
                bool count = !pc->pass && desc[w] && from_pre;
                if (count && !pre.data)
                    s = vkrr_capture_map_alloc_pre(cap, l, a, &pre, err);
                if (count && s == VKRR_OK)
                    left_unchanged(&rr->view, pre.data, cp, pp, &rr->unchanged, &rr->cuda_unchanged);
            }
            char why[320];
            if (checks_dumps(o) && !vkrr_dump_stats_check(&al->post_log, &o->integrity, cp, size,
                                                          hcp ? &hc.h : NULL, why, sizeof why))
                mark_changed(out, base, base + nw, al->post_path, why);
            for (uint32_t w = 0; w < nw; w++)
                if (!out->res[base + w].changed)
                    heatmap_for(o, l, &out->res[base + w], cp, pp, size, chained);
        }
        vkrr_mapfile_close(&post);
        vkrr_mapfile_close(&pre);
        if (s != VKRR_OK)
            return s;
    }
    return VKRR_OK;
}

static vkrr_status compare_surfaces(const vkrr_validate_opts *o, const launch_outputs *lo,
                                    const vkrr_capture *cap, const vkrr_launch *l,
                                    const vkrr_replay *port, const vkrr_replay *rerun,
                                    bool chained, vkrr_launch_result *out, vkrr_error *err)
{
    for (uint32_t i = 0; i < l->nimages; i++) {
        const vkrr_image *im = &l->images[i];
        if (im->kind != VKRR_IMAGE_SURFACE || im->dump_damaged)
            continue;
        vkrr_mapfile dump = {0};
        vkrr_status s = vkrr_capture_map_image(cap, l, i, &dump, err);
        if (s != VKRR_OK)
            return s;
        vkrr_resource_result *rr = &out->res[out->nres++];
        memset(rr, 0, sizeof *rr);
        rr->kind = VKRR_IMAGE_SURFACE;
        rr->output = true; /* a surface is written, never read, by a launch */
        rr->offset = im->offset;
        const vkrr_port_output *desc = surface_output(lo, i);
        rr->view = desc ? desc->view : vkrr_surface_view(im);
        rr->view.sentinel = true; /* surfaces start as the sentinel (replay.h) */
        uint64_t bytes = vkrr_replay_image_bytes(&port->images[i]);
        const void *pp = vkrr_replay_image_out(&port->images[i]);
        vkrr_hash_cursor hc = {o->integrity.basis, 0};
        vkrr_hash_cursor *hcp = o->integrity.basis && im->dump_log.has_hash ? &hc : NULL;
        s = compare_resource(o, l, rr, desc, dump.data, pp,
                             rerun ? vkrr_replay_image_out(&rerun->images[i]) : NULL, chained,
                             bytes, hcp, (standins){port->standins, rerun ? rerun->standins : 0},
                             err);
        char why[320];
        if (s == VKRR_OK && checks_dumps(o) &&
            !vkrr_dump_stats_check(&im->dump_log, &o->integrity, dump.data, dump.size,
                                   hcp ? &hc.h : NULL, why, sizeof why))
            mark_changed(out, out->nres - 1, out->nres, im->dump_path, why);
        if (s == VKRR_OK && !rr->changed)
            heatmap_for(o, l, rr, dump.data, pp, bytes, chained);
        vkrr_mapfile_close(&dump);
        if (s != VKRR_OK)
            return s;
    }
    return VKRR_OK;
}

/* Only input errors return (bad input the backend names: a port that does
 * not compile, a format it cannot take; the capture's own files were read
 * before). */
vkrr_status vkrr_validate_run(const vkrr_backend *be, vkrr_replay *r, vkrr_launch_status *status,
                              char *note, size_t note_cap, vkrr_error *err)
{
    vkrr_error berr = {0};
    vkrr_status s = be->run(be->self, r, &berr);
    if (s == VKRR_OK) {
        *status = VKRR_LAUNCH_PASS;
        return VKRR_OK;
    }
    /* the launch's input is bad: stop, naming it.  But an instruction the
     * backend cannot run, or a kernel that faults, is this launch's result
     * (ERROR, with the message): the others still run. */
    if (vkrr_status_ends_run(s, false)) { /* status.h's one table */
        *err = berr;
        return s;
    }
    *status = s == VKRR_ERR_TIMEOUT ? VKRR_LAUNCH_TIMEOUT
              : s == VKRR_ERR_NO_PORT ? VKRR_LAUNCH_NO_PORT
                                      : VKRR_LAUNCH_ERROR;
    char buf[900];
    vkrr_error_format(&berr, buf, sizeof buf);
    if (snprintf(note, note_cap, "%s: %s", be->name, buf) >= (int)note_cap)
        note[note_cap - 1] = 0; /* a long message is cut; the row stays readable */
    return VKRR_OK;
}

static vkrr_status run_on(const vkrr_backend *be, const vkrr_capture *cap, const vkrr_launch *l,
                          const vkrr_sampler_fit *fit, vkrr_replay *r, vkrr_replay_storage **st,
                          vkrr_launch_status *status, bool *damaged, char *note, size_t note_cap,
                          vkrr_error *err)
{
    /* a backend that keeps its outputs is read in place: no copy of ours */
    vkrr_error e = {0};
    vkrr_status s = vkrr_replay_from_capture_ex(cap, l, !be->keeps_outputs, r, st, &e);
    if (s == VKRR_OK && fit)
        vkrr_sampler_fit_apply(fit, r);
    if (s != VKRR_OK && vkrr_validate_unreadable(s)) { /* a file that fails when it is mapped */
        char buf[900];
        vkrr_error_format(&e, buf, sizeof buf);
        snprintf(note, note_cap, "%s", buf);
        *status = VKRR_LAUNCH_ERROR;
        *damaged = true;
        return VKRR_OK;
    }
    if (s != VKRR_OK) {
        *err = e;
        return s;
    }
    return vkrr_validate_run(be, r, status, note, note_cap, err);
}

static vkrr_status compare_all(const vkrr_validate_opts *o, const launch_outputs *lo,
                               const vkrr_capture *cap, const vkrr_launch *l,
                               const vkrr_replay *cand, const vkrr_replay *rerun, bool chained,
                               bool from_pre, vkrr_launch_result *out, vkrr_error *err)
{
    uint32_t cap_res = l->nimages + l->nallocs + lo->n + 1;
    out->res = calloc(cap_res, sizeof *out->res);
    if (!out->res)
        return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    vkrr_error e = {0};
    vkrr_status s = compare_buffers(o, lo, cap, l, cand, rerun, chained, from_pre, out, &e);
    if (s == VKRR_OK)
        s = compare_surfaces(o, lo, cap, l, cand, rerun, chained, out, &e);
    if (s != VKRR_OK && vkrr_validate_unreadable(s)) {
        vkrr_launch_set_damaged(out, &e, 0); /* a dump that fails when it is read */
        return VKRR_OK;
    }
    if (s != VKRR_OK) {
        *err = e;
        return s;
    }
    bool changed = false;
    out->status = VKRR_LAUNCH_PASS;
    out->standins = cand->standins | (rerun ? rerun->standins : 0);
    out->rerun_matches_capture = rerun != NULL && !chained; /* chained: not compared */
    for (uint32_t i = 0; i < out->nres; i++) {
        vkrr_resource_result *x = &out->res[i];
        changed = changed || x->changed;
        if (!port_cmp(x, chained)->pass && !x->changed)
            out->status = VKRR_LAUNCH_FAIL;
        if (out->rerun_matches_capture && !x->original_capture.pass && !x->changed)
            out->rerun_matches_capture = false;
        if (out->worst < 0 || worse(x, &out->res[out->worst], chained))
            out->worst = (int)i;
    }
    vkrr_validate_hw_note(out, o, l); /* after the comparisons: it reads their types */
    /* what could not be judged: changed dumps, dumps damaged at open */
    if ((changed || l->damage == VKRR_DAMAGE_DUMP) && out->status != VKRR_LAUNCH_FAIL) {
        out->status = VKRR_LAUNCH_ERROR;
        out->damaged = true;
    }
    if (l->damage == VKRR_DAMAGE_DUMP && l->damage_error) {
        char buf[1400];
        vkrr_error_format(l->damage_error, buf, sizeof buf);
        vkrr_launch_note(out, "not compared: %s", buf);
    }
    return VKRR_OK;
}

static void result_init(vkrr_launch_result *out, const vkrr_launch *l)
{
    memset(out, 0, sizeof *out);
    out->launch = l;
    out->worst = -1;
    out->chained_worst = -1;
    out->has_isolated = true;
}

vkrr_status vkrr_validate_compare(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                  const vkrr_launch *l, const vkrr_replay *cand,
                                  vkrr_launch_result *out, vkrr_error *err)
{
    result_init(out, l);
    if (cand->nallocs != l->nallocs || cand->nimages != l->nimages)
        return vkrr_fail(err, VKRR_ERR_INTERNAL, l->dir, 0, -1,
                         "the candidate has %u allocations and %u images, the launch %u and %u",
                         cand->nallocs, cand->nimages, l->nallocs, l->nimages);
    launch_outputs lo;
    vkrr_status s = outputs_of(o, l, &lo, err);
    return s != VKRR_OK ? s : compare_all(o, &lo, cap, l, cand, NULL, false, false, out, err);
}

/* A launch that cannot run: its own files could not be read. */
static bool damaged_at_open(const vkrr_launch *l, vkrr_launch_result *out)
{
    if (l->damage < VKRR_DAMAGE_INPUT || !l->damage_error)
        return false;
    vkrr_launch_set_damaged(out, l->damage_error, l->ndamage - 1);
    return true;
}

/* Records which port runs l (out->port: its file, or "built-in"), or, run by
 * a backend of the original kernels (rerun: no port file), the descriptor
 * its outputs are compared by; false, with out NO PORT, when none runs. */
static bool port_of(const vkrr_validate_opts *o, const vkrr_launch *l, vkrr_launch_result *out)
{
    const vkrr_backend *b = o->port_backend;
    if (b->source_of)
        b->source_of(b->self, l->kernel, out->port, sizeof out->port);
    /* and the descriptor it is compared by, when not the built-in one of a
     * built-in port: "ports/down.comp, ports/down.port" */
    const vkrr_portdesc *d = NULL;
    vkrr_error e = {0};
    bool builtin = !strcmp(out->port, "built-in");
    if (out->port[0] && o->descs && vkrr_portdesc_set_get(o->descs, l->kernel, &d, &e) == VKRR_OK && d &&
        !(builtin && strstr(vkrr_portdesc_name(d), "(built in)"))) {
        size_t n = strlen(out->port);
        snprintf(out->port + n, sizeof out->port - n, ", %s", vkrr_portdesc_name(d));
    } else if (!b->source_of && o->descs && vkrr_portdesc_set_get(o->descs, l->kernel, &d, &e) == VKRR_OK &&
               d) {
        snprintf(out->port, sizeof out->port, "%s", vkrr_portdesc_name(d));
    }
    if (!vkrr_own_notes(out, d, l)) /* own interface: a VkSampler, passes, a fused run */
        return false;
    if (b->has_kernel(b->self, l->kernel))
        return true;
    out->status = VKRR_LAUNCH_NO_PORT;
    snprintf(out->note, sizeof out->note, "no %s port of %s", b->name, l->kernel);
    return false;
}

vkrr_status vkrr_validate_replay(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                 const vkrr_launch *l, vkrr_replay *r, const vkrr_replay *rerun,
                                 bool chained, vkrr_launch_result *out, vkrr_error *err)
{
    result_init(out, l);
    if (damaged_at_open(l, out))
        return VKRR_OK;
    if (!port_of(o, l, out))
        return VKRR_OK;
    launch_outputs lo;
    vkrr_status s = outputs_of(o, l, &lo, err);
    if (s != VKRR_OK)
        return s;
    double t0 = vkrr_now_s();
    r->printed = NULL;
    s = vkrr_validate_run(o->port_backend, r, &out->status, out->note, sizeof out->note, err);
    out->seconds = vkrr_now_s() - t0;
    vkrr_launch_keep_run(out, r);
    vkrr_launch_note_streamed(out, r, o->port_backend->name);
    if (s != VKRR_OK || out->status != VKRR_LAUNCH_PASS)
        return s;
    out->ran = true;
    out->rerun = rerun != NULL;
    out->perturbed = perturb_outputs(o, &lo, l, r);
    return compare_all(o, &lo, cap, l, r, rerun, chained, false, out, err);
}

/* sampler_fit.h's measure: the original on the captured inputs with fit's
 * states, the output elements that differ from the capture. */
typedef struct fit_ctx {
    const vkrr_validate_opts *o;
    const vkrr_backend *orig;
    const vkrr_capture *cap;
    const vkrr_launch *l;
} fit_ctx;

static vkrr_status fit_distance(void *ctx, const vkrr_sampler_fit *fit, uint64_t *d, vkrr_error *err)
{
    const fit_ctx *x = ctx;
    vkrr_replay r = {0};
    vkrr_replay_storage *st = NULL;
    vkrr_launch_result t = {0};
    bool damaged = false;
    char note[256];
    *d = UINT64_MAX;
    t.status = VKRR_LAUNCH_PASS;
    vkrr_status s = run_on(x->orig, x->cap, x->l, fit, &r, &st, &t.status, &damaged, note, sizeof note, err);
    if (s == VKRR_OK && t.status == VKRR_LAUNCH_PASS) {
        vkrr_validate_opts q = *x->o; /* the comparison alone: no heatmaps, no perturbation */
        q.heatmap_dir = NULL;
        q.perturb = NULL;
        q.integrity = (vkrr_capture_integrity){0};
        s = vkrr_validate_compare(&q, x->cap, x->l, &r, &t, err);
        uint64_t diff = 0;
        for (uint32_t k = 0; s == VKRR_OK && k < t.nres; k++)
            diff += t.res[k].isolated.m.count - t.res[k].isolated.m.exact + t.res[k].isolated.outside;
        if (s == VKRR_OK)
            *d = diff;
    }
    vkrr_launch_result_free(&t);
    vkrr_replay_capture_free(st);
    if (x->orig->release)
        x->orig->release(x->orig->self);
    return s;
}

vkrr_status vkrr_validate_fit_sampler(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                      const vkrr_launch *l, vkrr_sampler_fit *fit, vkrr_error *err)
{
    const vkrr_backend *orig = o->original ? o->original : o->rerun;
    fit_ctx x = {o, orig, cap, l};
    vkrr_sampler_measure m = {fit_distance, &x, orig ? orig->name : ""};
    return vkrr_sampler_fit_launch(orig && orig->has_kernel(orig->self, l->kernel) ? &m : NULL, l, fit, err);
}

/* A FAIL with the sampler state ambiguous (sampler_fit.h): does the port
 * agree with the capture under another state that reproduces it (one
 * texture's at a time)?  fit->port_fails_all when under none. */
static vkrr_status port_under_others(const vkrr_validate_opts *o, const launch_outputs *lo,
                                     const vkrr_capture *cap, const vkrr_launch *l,
                                     vkrr_sampler_fit *fit, vkrr_error *err)
{
    bool agrees = false;
    vkrr_status s = VKRR_OK;
    for (uint32_t i = 0; s == VKRR_OK && !agrees && i < fit->n; i++)
        for (unsigned c = 0; s == VKRR_OK && !agrees && c < 16; c++) {
            vkrr_sampler held = fit->state[i], alt;
            if (!(fit->also[i] & (1u << c)) || !vkrr_sampler_fit_candidate(l, i, c, &alt))
                continue;
            fit->state[i] = alt;
            vkrr_replay r = {0};
            vkrr_replay_storage *st = NULL;
            vkrr_launch_result t = {0};
            bool damaged = false;
            t.launch = l;
            t.worst = -1;
            s = run_on(o->port_backend, cap, l, fit, &r, &st, &t.status, &damaged, t.note,
                       sizeof t.note, err);
            if (s == VKRR_OK && t.status == VKRR_LAUNCH_PASS) {
                vkrr_validate_opts q = *o;
                q.heatmap_dir = NULL;
                perturb_outputs(o, lo, l, &r); /* the port as the main run had it */
                s = compare_all(&q, lo, cap, l, &r, NULL, false, false, &t, err);
                agrees = s == VKRR_OK && t.status == VKRR_LAUNCH_PASS;
            }
            fit->state[i] = held;
            vkrr_launch_result_free(&t);
            vkrr_replay_capture_free(st);
            if (o->port_backend->release)
                o->port_backend->release(o->port_backend->self);
        }
    fit->port_fails_all = s == VKRR_OK && !agrees;
    return s;
}

vkrr_status vkrr_validate_launch(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                 const vkrr_launch *l, vkrr_launch_result *out,
                                 vkrr_error *err)
{
    result_init(out, l);
    if (damaged_at_open(l, out))
        return VKRR_OK;
    if (!port_of(o, l, out))
        return VKRR_OK;
    vkrr_replay pr = {0}, rr = {0};
    vkrr_replay_storage *pst = NULL, *rst = NULL;
    vkrr_launch_status rs = VKRR_LAUNCH_PASS;
    launch_outputs lo;
    vkrr_status s = outputs_of(o, l, &lo, err);
    if (s != VKRR_OK)
        return s;
    /* the sampler state the log does not give, from the original */
    if (vkrr_sampler_fit_needed(l)) {
        if (!(out->fit = calloc(1, sizeof *out->fit)))
            return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
        s = vkrr_validate_fit_sampler(o, cap, l, out->fit, err);
        if (s != VKRR_OK)
            return s;
    }
    double t0 = vkrr_now_s();
    s = run_on(o->port_backend, cap, l, out->fit, &pr, &pst, &out->status, &out->damaged, out->note,
               sizeof out->note, err);
    out->seconds = vkrr_now_s() - t0;
    vkrr_launch_keep_run(out, &pr);
    vkrr_launch_note_streamed(out, &pr, o->port_backend->name);
    if (s != VKRR_OK || out->status != VKRR_LAUNCH_PASS)
        goto done;
    out->ran = true;
    out->perturbed = perturb_outputs(o, &lo, l, &pr);
    bool rerun = o->rerun && !l->nfused && o->rerun->has_kernel(o->rerun->self, l->kernel);
    if (rerun) {
        char note[512] = "";
        bool rdamaged = false;
        s = run_on(o->rerun, cap, l, out->fit, &rr, &rst, &rs, &rdamaged, note, sizeof note, err);
        vkrr_launch_keep_run(out, &rr);
        if (s != VKRR_OK)
            goto done;
        if (rs != VKRR_LAUNCH_PASS) {
            vkrr_launch_note(out, "rerun failed: %s", note);
            out->rerun_failed = true;
            rerun = false;
        }
    }
    out->rerun = rerun;
    s = compare_all(o, &lo, cap, l, &pr, rerun ? &rr : NULL, false, true, out, err);
    if (s != VKRR_OK)
        goto done;
    if ((s = vkrr_validate_confirm_left(o, cap, l, &pr, out, err)) != VKRR_OK)
        goto done;
    if (out->status == VKRR_LAUNCH_FAIL)
        vkrr_validate_inputs_changed(o, cap, l, NULL, out);
    if (rerun && !out->rerun_matches_capture)
        vkrr_launch_note(out, "the original kernel rerun on %s disagrees with the capture: the "
                         "capture or the replay of this launch is wrong", o->rerun->name);
    if (out->fit && out->fit->verdict == VKRR_FIT_AMBIGUOUS && out->status == VKRR_LAUNCH_FAIL)
        s = port_under_others(o, &lo, cap, l, out->fit, err);
done:
    if (out->fit && s == VKRR_OK)
        vkrr_sampler_fit_settle(out->fit, out);
    vkrr_replay_capture_free(pst);
    vkrr_replay_capture_free(rst);
    if (o->port_backend->release)
        o->port_backend->release(o->port_backend->self);
    if (o->rerun && o->rerun->release)
        o->rerun->release(o->rerun->self);
    return s;
}
