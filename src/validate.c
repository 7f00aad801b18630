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

static void heatmap_for(const vkrr_validate_opts *o, const vkrr_launch *l,
                        vkrr_resource_result *rr, const void *capture, const void *port,
                        uint64_t bytes)
{
    if (!o->heatmap_dir || (rr->pass && !o->heatmaps_all))
        return;
    const vkrr_view *v = &rr->view;
    uint64_t n = (uint64_t)v->width * v->height * v->planes * v->channels;
    char path[1024], title[512];
    if (!vkrr_heatmap_path(path, sizeof path, o->heatmap_dir, (uint32_t)l->sequence, l->kernel,
                           rr->offset, -1))
        return;
    snprintf(title, sizeof title, "#%llu %s arg%u (frame %u)", (unsigned long long)l->sequence,
             l->kernel, rr->offset, l->frame);
    float *ref = malloc(n * sizeof *ref), *cand = malloc(n * sizeof *cand);
    float *e = malloc(n * sizeof *e);
    vkrr_error herr = {0};
    vkrr_status s = VKRR_ERR_NOMEM;
    if (ref && cand && e) {
        s = vkrr_compare_decode(v, capture, bytes, ref, &herr);
        if (s == VKRR_OK)
            s = vkrr_compare_decode(v, port, bytes, cand, &herr);
        if (s == VKRR_OK)
            s = vkrr_compare_error_map(v, capture, port, bytes, e, &herr);
        if (s == VKRR_OK)
            s = vkrr_heatmap_write(&(vkrr_heatmap_desc){.path = path, .view = *v, .ref = ref,
                                                        .cand = cand, .err = e, .grid = true,
                                                        .title = title},
                                   &herr);
    } else {
        vkrr_fail(&herr, s, path, 0, -1, "out of memory for the heatmap");
    }
    if (s == VKRR_OK)
        snprintf(rr->heatmap, sizeof rr->heatmap, "%s", path);
    else
        vkrr_error_print(&herr, stderr); /* a heatmap is a picture, not a verdict */
    free(ref);
    free(cand);
    free(e);
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

static vkrr_status compare_buffers(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                   const vkrr_launch *l, const vkrr_replay *port,
                                   const vkrr_replay *rerun, vkrr_launch_result *out,
                                   vkrr_error *err)
{
    for (uint32_t a = 0; a < l->nallocs; a++) {
        if (!l->allocs[a].post_path)
            continue;
        vkrr_mapfile post = {0};
        vkrr_status s = vkrr_capture_map_alloc_post(cap, l, a, &post, err);
        if (s != VKRR_OK)
            return s;
        uint64_t size = l->allocs[a].size;
        /* The windows the layer writes into this allocation. */
        vkrr_view win[MAX_WINDOWS];
        uint32_t woff[MAX_WINDOWS], nw = 0;
        for (uint32_t p = 0; p < l->npointers && nw < MAX_WINDOWS; p++) {
            const vkrr_pointer *pt = &l->pointers[p];
            vkrr_view v;
            if (pt->alloc != a || !o->describe ||
                !o->describe(l->kernel, l->args, l->args_bytes, pt->offset, &v))
                continue;
            v.offset += pt->delta;
            if (v.offset > size || vkrr_view_bytes(&v) > size - v.offset) {
                vkrr_warn("%s: the described output at arg %u does not fit its %llu-byte "
                          "allocation; compared whole", l->dir, pt->offset,
                          (unsigned long long)size);
                continue;
            }
            win[nw] = v;
            woff[nw++] = pt->offset;
        }
        if (nw == 0) {
            win[0] = vkrr_compare_flat_view(o->buffer_dtype, size);
            woff[0] = l->allocs[a].post_offset;
            nw = 1;
        }
        const uint8_t *cp = post.data, *pp = port->allocs[a].post;
        const uint8_t *rp = rerun ? rerun->allocs[a].post : NULL;
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
            heatmap_for(o, l, rr, cp, pp, size);
        }
        vkrr_mapfile_close(&post);
    }
    return VKRR_OK;
}

static vkrr_status compare_surfaces(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                    const vkrr_launch *l, const vkrr_replay *port,
                                    const vkrr_replay *rerun, vkrr_launch_result *out,
                                    vkrr_error *err)
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
        rr->view = (vkrr_view){
            .dtype = vkrr_cuformat_dtype(im->format, false),
            .width = im->width,
            .height = im->height,
            .planes = 1,
            .channels = im->channels,
        };
        uint64_t bytes = vkrr_replay_image_bytes(&port->images[i]);
        s = compare_resource(o, l, rr, dump.data, port->images[i].post,
                             rerun ? rerun->images[i].post : NULL, bytes, err);
        if (s == VKRR_OK)
            heatmap_for(o, l, rr, dump.data, port->images[i].post, bytes);
        vkrr_mapfile_close(&dump);
        if (s != VKRR_OK)
            return s;
    }
    return VKRR_OK;
}

/* Runs one backend on a fresh replay of the launch.  A backend failure is a
 * result (TIMEOUT/ERROR), reported through status; only input errors return. */
static vkrr_status run_on(const vkrr_backend *be, const vkrr_capture *cap, const vkrr_launch *l,
                          vkrr_replay *r, vkrr_replay_storage **st, vkrr_launch_status *status,
                          char *note, size_t note_cap, vkrr_error *err)
{
    vkrr_status s = vkrr_replay_from_capture(cap, l, r, st, err);
    if (s != VKRR_OK)
        return s;
    vkrr_error berr = {0};
    s = be->run(be->self, r, &berr);
    if (s == VKRR_OK) {
        *status = VKRR_LAUNCH_PASS;
        return VKRR_OK;
    }
    if (vkrr_status_exit_code(s) == 2 && s != VKRR_ERR_INTERNAL) {
        *err = berr; /* the launch's input is bad: stop, naming it */
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

vkrr_status vkrr_validate_launch(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                 const vkrr_launch *l, vkrr_launch_result *out,
                                 vkrr_error *err)
{
    memset(out, 0, sizeof *out);
    out->launch = l;
    out->worst = -1;
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
    uint32_t cap_res = l->nimages + l->nallocs * MAX_WINDOWS + 1;
    out->res = calloc(cap_res, sizeof *out->res);
    if (!out->res) {
        s = vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
        goto done;
    }
    s = compare_buffers(o, cap, l, &pr, rerun ? &rr : NULL, out, err);
    if (s == VKRR_OK)
        s = compare_surfaces(o, cap, l, &pr, rerun ? &rr : NULL, out, err);
    if (s != VKRR_OK)
        goto done;
    out->status = VKRR_LAUNCH_PASS;
    out->rerun_matches_capture = rerun;
    for (uint32_t i = 0; i < out->nres; i++) {
        const vkrr_resource_result *x = &out->res[i];
        if (!x->pass)
            out->status = VKRR_LAUNCH_FAIL;
        if (rerun && !x->rerun_vs_capture.pass)
            out->rerun_matches_capture = false;
        if (out->worst < 0 || worse(x, &out->res[out->worst]))
            out->worst = (int)i;
    }
    if (rerun && !out->rerun_matches_capture)
        snprintf(out->note, sizeof out->note,
                 "the original kernel rerun on %s disagrees with the capture: the capture "
                 "or the replay of this launch is wrong", o->rerun->name);
done:
    vkrr_replay_capture_free(pst);
    vkrr_replay_capture_free(rst);
    return s;
}
