#include "validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuformat.h"
#include "heatmap.h"

const char *vkrr_launch_status_name(vkrr_launch_status s)
{
    switch (s) {
    case VKRR_LAUNCH_PASS: return "PASS";
    case VKRR_LAUNCH_FAIL: return "FAIL";
    case VKRR_LAUNCH_NO_PORT: return "NO PORT";
    case VKRR_LAUNCH_TIMEOUT: return "TIMEOUT";
    case VKRR_LAUNCH_ERROR: return "ERROR";
    }
    return "?";
}

void vkrr_launch_result_free(vkrr_launch_result *r)
{
    if (!r)
        return;
    free(r->res);
    r->res = NULL;
    r->nres = 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Bytes of [0, size) not covered by any window that differ between a and b. */
static uint64_t outside_diff(const uint8_t *a, const uint8_t *b, uint64_t size,
                             const vkrr_view *w, uint32_t nw)
{
    uint64_t diff = 0, pos = 0;
    while (pos < size) {
        /* the next window start at or after pos, or the end */
        uint64_t next = size, skip_to = pos;
        for (uint32_t i = 0; i < nw; i++) {
            uint64_t s = w[i].offset, e = s + vkrr_view_bytes(&w[i]);
            if (s <= pos && pos < e && e > skip_to)
                skip_to = e;
            else if (s > pos && s < next)
                next = s;
        }
        if (skip_to > pos) {
            pos = skip_to;
            continue;
        }
        for (uint64_t i = pos; i < next; i++)
            diff += a[i] != b[i];
        pos = next;
    }
    return diff;
}

/* The comparisons every resource gets: port vs capture and, with a rerun,
 * port vs rerun and rerun vs capture. */
static vkrr_status compare_resource(const vkrr_validate_opts *o, const vkrr_launch *l,
                                    vkrr_resource_result *rr, const void *capture,
                                    const void *port, const void *rerun, uint64_t bytes,
                                    vkrr_error *err)
{
    vkrr_tolerance tol = vkrr_compare_tol_resolve(o->rules, l->kernel, l->occurrence,
                                                  rr->offset, rr->view.dtype);
    vkrr_status s = vkrr_compare(&rr->view, capture, port, bytes, &tol, &rr->port, err);
    if (s != VKRR_OK)
        return s;
    rr->pass = rr->port.pass && rr->outside_diff == 0;
    if (rerun) {
        rr->has_rerun = true;
        s = vkrr_compare(&rr->view, rerun, port, bytes, &tol, &rr->port_vs_rerun, err);
        if (s == VKRR_OK)
            s = vkrr_compare(&rr->view, capture, rerun, bytes, &tol, &rr->rerun_vs_capture, err);
    }
    return s;
}

/* The heatmap PNG of one resource: reference | port | error.  A heatmap is a
 * picture, not a verdict: trouble writing one is a warning. */
static void heatmap_for(const vkrr_validate_opts *o, const vkrr_launch *l,
                        vkrr_resource_result *rr, const void *capture, const void *port,
                        uint64_t bytes, bool chained)
{
    bool pass = rr->pass;
    if (!o->heatmap_dir || (pass && !o->heatmaps_all))
        return;
    char path[1024];
    if (!vkrr_heatmap_path(path, sizeof path, o->heatmap_dir, (uint32_t)l->sequence, l->kernel,
                           rr->offset, -1))
        return;
    size_t pl = strlen(path);
    if (chained && pl > 4 && pl + 8 < sizeof path)
        memcpy(path + pl - 4, "-chained.png", 13);
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
                                                    .grid = true, .title = title},
                               &herr);
    if (s == VKRR_OK)
        snprintf(rr->heatmap, sizeof rr->heatmap, "%s", path);
    else
        vkrr_error_print(&herr, stderr);
    free(buf);
}

/* Worst: failing before passing, then more ULPs, then larger abs error. */
static int worse(const vkrr_resource_result *a, const vkrr_resource_result *b)
{
    if (a->pass != b->pass)
        return !a->pass;
    if (a->port.max_ulp != b->port.max_ulp)
        return a->port.max_ulp > b->port.max_ulp;
    return a->port.max_abs > b->port.max_abs;
}

#define MAX_WINDOWS 16

/* The windows a layer writes into allocation a, as its describe function
 * says; none: the whole allocation as opts.buffer_dtype (woff = the dump's
 * argument offset).  Returns the count (>= 1). */
static uint32_t windows_of(const vkrr_validate_opts *o, const vkrr_launch *l, uint32_t a,
                           bool warn, vkrr_view *win, uint32_t *woff, bool *described)
{
    uint64_t size = l->allocs[a].size;
    uint32_t nw = 0;
    for (uint32_t p = 0; p < l->npointers && nw < MAX_WINDOWS; p++) {
        const vkrr_pointer *pt = &l->pointers[p];
        vkrr_view v;
        if (pt->alloc != a || !o->describe ||
            !o->describe(l->kernel, l->args, l->args_bytes, pt->offset, &v))
            continue;
        v.offset += pt->delta;
        if (v.offset > size || vkrr_view_bytes(&v) > size - v.offset) {
            if (warn)
                vkrr_warn("%s: the described output at arg %u does not fit its %llu-byte "
                          "allocation; compared whole", l->dir, pt->offset,
                          (unsigned long long)size);
            continue;
        }
        win[nw] = v;
        woff[nw++] = pt->offset;
    }
    if (described)
        *described = nw > 0;
    if (nw == 0) {
        win[0] = vkrr_compare_flat_view(o->buffer_dtype, size);
        woff[0] = l->allocs[a].post_offset;
        nw = 1;
    }
    return nw;
}

static vkrr_view surface_view(const vkrr_image *im)
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
static bool perturb_outputs(const vkrr_validate_opts *o, const vkrr_launch *l, vkrr_replay *r)
{
    if (!vkrr_perturb_matches(o->perturb, l))
        return false;
    int64_t u = o->perturb->ulps;
    for (uint32_t a = 0; a < l->nallocs && a < r->nallocs; a++) {
        uint8_t *out = vkrr_replay_alloc_out(&r->allocs[a]);
        if (!l->allocs[a].post_path || !out)
            continue;
        vkrr_view win[MAX_WINDOWS];
        uint32_t woff[MAX_WINDOWS];
        bool described;
        uint32_t nw = windows_of(o, l, a, false, win, woff, &described);
        /* an undescribed allocation holds inputs as well: leave it alone */
        for (uint32_t w = 0; w < nw && described; w++)
            vkrr_perturb_view(&win[w], out, l->allocs[a].size, u);
    }
    for (uint32_t i = 0; i < l->nimages && i < r->nimages; i++)
        if (l->images[i].kind == VKRR_IMAGE_SURFACE && vkrr_replay_image_out(&r->images[i])) {
            vkrr_view v = surface_view(&l->images[i]);
            vkrr_perturb_view(&v, vkrr_replay_image_out(&r->images[i]),
                              vkrr_replay_image_bytes(&r->images[i]), u);
        }
    return true;
}

static vkrr_status compare_buffers(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                   const vkrr_launch *l, const vkrr_replay *port,
                                   const vkrr_replay *rerun, bool chained,
                                   vkrr_launch_result *out, vkrr_error *err)
{
    for (uint32_t a = 0; a < l->nallocs; a++) {
        if (!l->allocs[a].post_path)
            continue;
        vkrr_mapfile post = {0};
        vkrr_status s = vkrr_capture_map_alloc_post(cap, l, a, &post, err);
        if (s != VKRR_OK)
            return s;
        uint64_t size = l->allocs[a].size;
        vkrr_view win[MAX_WINDOWS];
        uint32_t woff[MAX_WINDOWS];
        uint32_t nw = windows_of(o, l, a, !chained, win, woff, NULL);
        const uint8_t *cp = post.data, *pp = vkrr_replay_alloc_out(&port->allocs[a]);
        const uint8_t *rp = rerun ? vkrr_replay_alloc_out(&rerun->allocs[a]) : NULL;
        uint64_t outside = outside_diff(cp, pp, size, win, nw);
        for (uint32_t w = 0; w < nw; w++) {
            vkrr_resource_result *rr = &out->res[out->nres++];
            memset(rr, 0, sizeof *rr);
            rr->is_buffer = true;
            rr->offset = woff[w];
            rr->base = l->allocs[a].base;
            rr->view = win[w];
            rr->outside_diff = w == 0 ? outside : 0;
            s = compare_resource(o, l, rr, cp, pp, rp, size, err);
            if (s != VKRR_OK) {
                vkrr_mapfile_close(&post);
                return s;
            }
            heatmap_for(o, l, rr, cp, pp, size, chained);
        }
        vkrr_mapfile_close(&post);
    }
    return VKRR_OK;
}

static vkrr_status compare_surfaces(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                    const vkrr_launch *l, const vkrr_replay *port,
                                    const vkrr_replay *rerun, bool chained,
                                    vkrr_launch_result *out, vkrr_error *err)
{
    for (uint32_t i = 0; i < l->nimages; i++) {
        const vkrr_image *im = &l->images[i];
        if (im->kind != VKRR_IMAGE_SURFACE)
            continue;
        vkrr_mapfile dump = {0};
        vkrr_status s = vkrr_capture_map_image(cap, l, i, &dump, err);
        if (s != VKRR_OK)
            return s;
        vkrr_resource_result *rr = &out->res[out->nres++];
        memset(rr, 0, sizeof *rr);
        rr->kind = VKRR_IMAGE_SURFACE;
        rr->offset = im->offset;
        rr->view = surface_view(im);
        uint64_t bytes = vkrr_replay_image_bytes(&port->images[i]);
        const void *pp = vkrr_replay_image_out(&port->images[i]);
        s = compare_resource(o, l, rr, dump.data, pp,
                             rerun ? vkrr_replay_image_out(&rerun->images[i]) : NULL, bytes, err);
        if (s == VKRR_OK)
            heatmap_for(o, l, rr, dump.data, pp, bytes, chained);
        vkrr_mapfile_close(&dump);
        if (s != VKRR_OK)
            return s;
    }
    return VKRR_OK;
}

/* Runs one backend on a prepared replay.  A backend failure is a result
 * (TIMEOUT/ERROR), reported through status; only input errors return. */
static vkrr_status run_backend(const vkrr_backend *be, vkrr_replay *r,
                               vkrr_launch_status *status, char *note, size_t note_cap,
                               vkrr_error *err)
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
    if (vkrr_status_exit_code(s) == 2 && s != VKRR_ERR_INTERNAL && s != VKRR_ERR_UNSUPPORTED &&
        s != VKRR_ERR_FAULT) {
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
                          vkrr_replay *r, vkrr_replay_storage **st, vkrr_launch_status *status,
                          char *note, size_t note_cap, vkrr_error *err)
{
    /* a backend that keeps its outputs is read in place: no copy of ours */
    vkrr_status s = vkrr_replay_from_capture_ex(cap, l, !be->keeps_outputs, r, st, err);
    if (s != VKRR_OK)
        return s;
    return run_backend(be, r, status, note, note_cap, err);
}

static vkrr_status compare_all(const vkrr_validate_opts *o, const vkrr_capture *cap,
                               const vkrr_launch *l, const vkrr_replay *cand,
                               const vkrr_replay *rerun, bool chained,
                               vkrr_launch_result *out, vkrr_error *err)
{
    uint32_t cap_res = l->nimages + l->nallocs * MAX_WINDOWS + 1;
    out->res = calloc(cap_res, sizeof *out->res);
    if (!out->res)
        return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    vkrr_status s = compare_buffers(o, cap, l, cand, rerun, chained, out, err);
    if (s == VKRR_OK)
        s = compare_surfaces(o, cap, l, cand, rerun, chained, out, err);
    if (s != VKRR_OK)
        return s;
    out->status = VKRR_LAUNCH_PASS;
    out->rerun_matches_capture = rerun != NULL;
    for (uint32_t i = 0; i < out->nres; i++) {
        const vkrr_resource_result *x = &out->res[i];
        if (!x->pass)
            out->status = VKRR_LAUNCH_FAIL;
        if (rerun && !x->rerun_vs_capture.pass)
            out->rerun_matches_capture = false;
        if (out->worst < 0 || worse(x, &out->res[out->worst]))
            out->worst = (int)i;
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
    return compare_all(o, cap, l, cand, NULL, false, out, err);
}

vkrr_status vkrr_validate_replay(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                 const vkrr_launch *l, vkrr_replay *r, bool chained,
                                 vkrr_launch_result *out, vkrr_error *err)
{
    result_init(out, l);
    if (!o->port->has_kernel(o->port->self, l->kernel)) {
        out->status = VKRR_LAUNCH_NO_PORT;
        snprintf(out->note, sizeof out->note, "no %s port of %s", o->port->name, l->kernel);
        return VKRR_OK;
    }
    double t0 = now_s();
    vkrr_status s = run_backend(o->port, r, &out->status, out->note, sizeof out->note, err);
    out->seconds = now_s() - t0;
    if (s != VKRR_OK || out->status != VKRR_LAUNCH_PASS)
        return s;
    out->perturbed = perturb_outputs(o, l, r);
    return compare_all(o, cap, l, r, NULL, chained, out, err);
}

vkrr_status vkrr_validate_launch(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                 const vkrr_launch *l, vkrr_launch_result *out,
                                 vkrr_error *err)
{
    result_init(out, l);
    if (!o->port->has_kernel(o->port->self, l->kernel)) {
        out->status = VKRR_LAUNCH_NO_PORT;
        snprintf(out->note, sizeof out->note, "no %s port of %s", o->port->name, l->kernel);
        return VKRR_OK;
    }
    vkrr_replay pr, rr;
    vkrr_replay_storage *pst = NULL, *rst = NULL;
    vkrr_launch_status rs = VKRR_LAUNCH_PASS;
    double t0 = now_s();
    vkrr_status s = run_on(o->port, cap, l, &pr, &pst, &out->status, out->note,
                           sizeof out->note, err);
    out->seconds = now_s() - t0;
    if (s != VKRR_OK || out->status != VKRR_LAUNCH_PASS)
        goto done;
    out->perturbed = perturb_outputs(o, l, &pr);
    bool rerun = o->rerun && o->rerun->has_kernel(o->rerun->self, l->kernel);
    if (rerun) {
        char note[512] = "";
        s = run_on(o->rerun, cap, l, &rr, &rst, &rs, note, sizeof note, err);
        if (s != VKRR_OK)
            goto done;
        if (rs != VKRR_LAUNCH_PASS) {
            snprintf(out->note, sizeof out->note, "rerun failed: %s", note);
            rerun = false;
        }
    }
    out->rerun = rerun;
    s = compare_all(o, cap, l, &pr, rerun ? &rr : NULL, false, out, err);
    if (s != VKRR_OK)
        goto done;
    if (rerun && !out->rerun_matches_capture)
        snprintf(out->note, sizeof out->note,
                 "the original kernel rerun on %s disagrees with the capture: the capture "
                 "or the replay of this launch is wrong", o->rerun->name);
done:
    vkrr_replay_capture_free(pst);
    vkrr_replay_capture_free(rst);
    if (o->port->release)
        o->port->release(o->port->self);
    if (o->rerun && o->rerun->release)
        o->rerun->release(o->rerun->self);
    return s;
}
