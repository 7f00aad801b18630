/* results_read.c - a result file read back into results (results_read.h). */
#include "results_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approx.h"
#include "mapfile.h"

/* The reader's state: the first problem is kept, later reads are no-ops. */
typedef struct rd {
    const char *path;
    vkrr_error *err;
    bool failed;
} rd;

static void problem(rd *r, const vkrr_json *at, const char *what, const char *key)
{
    if (r->failed)
        return;
    r->failed = true;
    vkrr_fail(r->err, VKRR_ERR_PARSE, r->path, at ? at->line : 0, -1,
              "not a vkrr result file: %s \"%s\"", what, key);
}

/* A member that must be there, of a type; NULL (and the problem kept) else. */
static const vkrr_json *need(rd *r, const vkrr_json *o, const char *key, vkrr_json_type t)
{
    const vkrr_json *v = vkrr_json_get(o, key);
    if (!v)
        problem(r, o, "no member", key);
    else if (v->type != t)
        problem(r, v, "the wrong type of value for", key);
    return v && v->type == t ? v : NULL;
}

static bool get_bool(rd *r, const vkrr_json *o, const char *key)
{
    const vkrr_json *v = need(r, o, key, VKRR_JSON_BOOL);
    return v && v->b;
}

static uint64_t get_u64(rd *r, const vkrr_json *o, const char *key)
{
    uint64_t x = 0;
    const vkrr_json *v = need(r, o, key, VKRR_JSON_NUMBER);
    if (v && !vkrr_json_u64(v, &x))
        problem(r, v, "not a count:", key);
    return x;
}

static uint32_t get_u32(rd *r, const vkrr_json *o, const char *key)
{
    uint64_t x = get_u64(r, o, key);
    if (x > UINT32_MAX) {
        problem(r, vkrr_json_get(o, key), "too large a number for", key);
        return 0;
    }
    return (uint32_t)x;
}

/* A number; null is `null_means` (JSON has no Inf or NaN: they are null). */
static double get_num(rd *r, const vkrr_json *o, const char *key, double null_means)
{
    const vkrr_json *v = vkrr_json_get(o, key);
    if (v && v->type == VKRR_JSON_NULL)
        return null_means;
    v = need(r, o, key, VKRR_JSON_NUMBER);
    return v ? v->num : 0;
}

/* A string, or NULL for null (or when absent with optional set). */
static const char *get_str(rd *r, const vkrr_json *o, const char *key, bool nullable)
{
    const vkrr_json *v = vkrr_json_get(o, key);
    if (nullable && (!v || v->type == VKRR_JSON_NULL))
        return NULL;
    v = need(r, o, key, VKRR_JSON_STRING);
    return v ? v->text : NULL;
}

static vkrr_launch_status get_status(rd *r, const vkrr_json *o, const char *key)
{
    const char *s = get_str(r, o, key, false);
    for (int k = 0; s && k < VKRR_LAUNCH_STATUS_COUNT; k++)
        if (!strcmp(s, vkrr_launch_status_name((vkrr_launch_status)k)))
            return (vkrr_launch_status)k;
    if (s)
        problem(r, vkrr_json_get(o, key), "an unknown status in", key);
    return VKRR_LAUNCH_ERROR;
}

static void copy_str(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s ? s : "");
}

static void read_metrics(rd *r, const vkrr_json *o, vkrr_metrics *m)
{
    *m = (vkrr_metrics){.first_bad = UINT64_MAX, .max_abs_index = UINT64_MAX};
    const char *t = get_str(r, o, "type", false);
    if (t && !vkrr_dtype_parse(t, &m->dtype))
        problem(r, vkrr_json_get(o, "type"), "an unknown element type in", "type");
    m->count = get_u64(r, o, "count");
    m->exact_pct = get_num(r, o, "exact_pct", NAN);
    m->max_abs = get_num(r, o, "max_abs", NAN);
    const vkrr_json *at = vkrr_json_get(o, "max_abs_at");
    if (at && at->type == VKRR_JSON_OBJECT) {
        m->max_abs_index = get_u64(r, at, "index");
        m->max_abs_pos = (vkrr_elem_pos){.x = get_u32(r, at, "x"), .y = get_u32(r, at, "y"),
                                         .plane = get_u32(r, at, "plane"),
                                         .channel = get_u32(r, at, "channel")};
    }
    m->mean_abs = get_num(r, o, "mean_abs", NAN);
    m->rmse = get_num(r, o, "rmse", NAN);
    m->psnr = get_num(r, o, "psnr", INFINITY); /* identical data */
    m->nmse = get_num(r, o, "nmse", NAN);
    const vkrr_json *u = need(r, o, "max_ulp", VKRR_JSON_NUMBER);
    int64_t ulp = 0;
    if (u && !vkrr_json_i64(u, &ulp))
        problem(r, u, "not a whole number:", "max_ulp");
    m->max_ulp = ulp;
    m->within1_ulp_pct = get_num(r, o, "within_1_ulp_pct", NAN);
    m->within4_ulp_pct = get_num(r, o, "within_4_ulp_pct", NAN);
    m->nan_mismatch = get_u64(r, o, "nan_mismatches");
    m->inf_mismatch = get_u64(r, o, "inf_mismatches");
    m->unwritten = get_u64(r, o, "unwritten");
    m->out_of_tol = get_u64(r, o, "out_of_tolerance");
    const vkrr_json *tol = need(r, o, "tolerance", VKRR_JSON_OBJECT);
    if (tol) {
        m->tol.atol = get_num(r, tol, "atol", -1);
        m->tol.rtol = get_num(r, tol, "rtol", -1);
        const vkrr_json *mu = vkrr_json_get(tol, "max_ulp");
        int64_t x = -1;
        if (mu && mu->type != VKRR_JSON_NULL && !vkrr_json_i64(mu, &x))
            problem(r, mu, "not a whole number:", "max_ulp");
        m->tol.max_ulp = x;
    }
    m->pass = get_bool(r, o, "pass");
}

/* A comparison object ("chained", "chained_vs_original"): pass, the bytes
 * outside the windows, the heatmap, the metrics. */
static void read_comparison(rd *r, const vkrr_json *o, vkrr_comparison *c)
{
    c->done = true;
    c->pass = get_bool(r, o, "pass");
    c->outside = get_u64(r, o, "outside_window_bytes");
    copy_str(c->heatmap, sizeof c->heatmap, get_str(r, o, "heatmap", true));
    const vkrr_json *m = need(r, o, "metrics", VKRR_JSON_OBJECT);
    if (m)
        read_metrics(r, m, &c->m);
}

/* port_vs_rerun, rerun_vs_capture: the metrics alone are written */
static void read_bare(rd *r, const vkrr_json *m, vkrr_comparison *c)
{
    c->done = true;
    read_metrics(r, m, &c->m);
    c->pass = c->m.pass;
}

static void read_resource(rd *r, const vkrr_json *o, vkrr_resource_result *x)
{
    x->offset = get_u32(r, o, "offset");
    const char *kind = get_str(r, o, "kind", false);
    x->is_buffer = kind && !strcmp(kind, "buffer");
    x->kind = VKRR_IMAGE_SURFACE;
    const char *t = get_str(r, o, "type", false);
    if (t && !vkrr_dtype_parse(t, &x->view.dtype))
        problem(r, vkrr_json_get(o, "type"), "an unknown element type in", "type");
    if (x->is_buffer) {
        const char *base = get_str(r, o, "base", false);
        x->base = base ? strtoull(base, NULL, 16) : 0;
        x->view.offset = get_u64(r, o, "window_offset");
    }
    x->view.width = get_u32(r, o, "width");
    x->view.height = get_u32(r, o, "height");
    x->view.planes = get_u32(r, o, "planes");
    x->view.channels = get_u32(r, o, "channels");
    vkrr_json_bool(vkrr_json_get(o, "changed_since_capture"), &x->changed);
    const vkrr_json *m = vkrr_json_get(o, "metrics");
    if (m && m->type == VKRR_JSON_OBJECT) {
        vkrr_comparison *p = &x->isolated;
        p->done = true;
        p->pass = get_bool(r, o, "pass");
        p->outside = get_u64(r, o, "outside_window_bytes");
        x->unchanged = get_u64(r, o, "left_at_pre_launch");
        x->cuda_unchanged = get_u64(r, o, "cuda_left_at_pre_launch");
        x->output = get_bool(r, o, "output");
        copy_str(p->heatmap, sizeof p->heatmap, get_str(r, o, "heatmap", true));
        read_metrics(r, m, &p->m);
    }
    const vkrr_json *pr = vkrr_json_get(o, "port_vs_rerun"), *rc = vkrr_json_get(o, "rerun_vs_capture");
    if (pr && rc && pr->type == VKRR_JSON_OBJECT && rc->type == VKRR_JSON_OBJECT) {
        read_bare(r, pr, &x->isolated_original);
        read_bare(r, rc, &x->original_capture);
    }
    const vkrr_json *ch = vkrr_json_get(o, "chained"), *co = vkrr_json_get(o, "chained_vs_original");
    if (ch && ch->type == VKRR_JSON_OBJECT)
        read_comparison(r, ch, &x->chained);
    if (co && co->type == VKRR_JSON_OBJECT)
        read_comparison(r, co, &x->chained_original);
}

/* A resource index ("worst", "chained_worst"): -1 for null or absent. */
static int get_index(rd *r, const vkrr_json *o, const char *key, uint32_t nres)
{
    const vkrr_json *v = vkrr_json_get(o, key);
    uint64_t x;
    if (!v || v->type == VKRR_JSON_NULL)
        return -1;
    if (!vkrr_json_u64(v, &x) || x >= nres) {
        problem(r, v, "not a resource index:", key);
        return -1;
    }
    return (int)x;
}

/* "chain_restart" and "links": how the chain fed launch i (each linked
 * launch a stub: sequence and kernel). */
static void read_feeds(rd *r, vkrr_results *out, const vkrr_json *o, uint32_t i)
{
    vkrr_launch_result *x = &out->res[i];
    x->chain_gap = get_u64(r, o, "chain_restart");
    const vkrr_json *ls = need(r, o, "links", VKRR_JSON_ARRAY);
    if (!ls || !ls->n)
        return;
    x->feeds = calloc(ls->n, sizeof *x->feeds);
    out->feed_stubs[i] = calloc(ls->n, sizeof **out->feed_stubs);
    if (!x->feeds || !out->feed_stubs[i]) {
        if (!r->failed)
            vkrr_fail(r->err, VKRR_ERR_NOMEM, r->path, 0, -1, "out of memory");
        r->failed = true;
        return;
    }
    for (uint32_t k = 0; k < ls->n; k++) {
        const vkrr_json *e = &ls->kids[k], *from = vkrr_json_get(e, "from");
        vkrr_chain_feed *f = &x->feeds[x->nfeeds++];
        f->arg = get_u32(r, e, "arg");
        const char *how = get_str(r, e, "how", false);
        for (int h = VKRR_LINK_NONE; how && h <= VKRR_LINK_BYTES; h++)
            if (!strcmp(how, vkrr_link_how_name((vkrr_link_how)h)))
                f->how = (vkrr_link_how)h;
        if (from && from->type == VKRR_JSON_OBJECT) {
            vkrr_launch *s = &out->feed_stubs[i][k];
            s->sequence = get_u64(r, from, "launch");
            s->kernel = (char *)get_str(r, from, "kernel", false);
            if (!s->kernel)
                s->kernel = "";
            f->from = s;
            f->from_arg = get_u32(r, from, "arg");
            const vkrr_json *al = need(r, e, "alike_args", VKRR_JSON_ARRAY);
            for (uint32_t a = 0; al && a < al->n && a < VKRR_LINK_ALIKE_MAX; a++) {
                uint64_t x = 0;
                if (!vkrr_json_u64(&al->kids[a], &x) || x > UINT32_MAX)
                    problem(r, &al->kids[a], "not an argument offset in", "alike_args");
                f->alike_arg[f->nalike++] = (uint32_t)x;
            }
        } else {
            f->unknown = true;
        }
    }
}

static void read_launch(rd *r, vkrr_results *out, const vkrr_json *o, uint32_t i)
{
    vkrr_launch *l = &out->launches[i];
    vkrr_launch_result *x = &out->res[i];
    l->sequence = get_u64(r, o, "sequence");
    l->kernel = (char *)get_str(r, o, "kernel", false);
    if (!l->kernel)
        l->kernel = "";
    l->frame = get_u32(r, o, "frame");
    l->occurrence = get_u32(r, o, "occurrence");
    x->launch = l;
    x->worst = x->chained_worst = -1;
    const vkrr_json *st = vkrr_json_get(o, "status");
    x->has_isolated = st && st->type != VKRR_JSON_NULL;
    if (x->has_isolated)
        x->status = get_status(r, o, "status");
    x->has_chained = vkrr_json_get(o, "chained_status") != NULL;
    if (x->has_chained) {
        x->chained_status = get_status(r, o, "chained_status");
        x->chained_exact = get_bool(r, o, "chained_exact");
        const char *how = get_str(r, o, "chained", false);
        x->chained_reused = how && !strcmp(how, "same as isolated");
        const vkrr_json *cvo = vkrr_json_get(o, "chained_vs_original");
        if (cvo && cvo->type == VKRR_JSON_OBJECT) {
            x->chained_original_ran = true;
            x->chained_original_pass = get_bool(r, cvo, "pass");
        }
        read_feeds(r, out, o, i);
        const vkrr_json *sf = vkrr_json_get(o, "skipped_for_launch");
        if (sf && sf->type == VKRR_JSON_OBJECT) {
            vkrr_launch *s = &out->stubs[out->nstubs++];
            s->sequence = get_u64(r, sf, "sequence");
            s->kernel = (char *)get_str(r, sf, "kernel", false);
            if (!s->kernel)
                s->kernel = "";
            s->frame = get_u32(r, sf, "frame");
            x->skipped_for = s;
        }
    }
    copy_str(x->port, sizeof x->port, get_str(r, o, "port", true));
    x->perturbed = get_bool(r, o, "perturbed");
    x->damaged = get_bool(r, o, "damaged");
    copy_str(x->note, sizeof x->note, get_str(r, o, "note", false));
    copy_str(x->hw_note, sizeof x->hw_note, get_str(r, o, "hw_note", false));
    const char *printed = get_str(r, o, "printf", true);
    if (printed && printed[0] && !(x->printed = strdup(printed)) && !r->failed) {
        r->failed = true;
        vkrr_fail(r->err, VKRR_ERR_NOMEM, r->path, 0, -1, "out of memory");
    }
    const vkrr_json *si = need(r, o, "standins", VKRR_JSON_ARRAY);
    for (uint32_t k = 0; si && k < si->n; k++)
        for (unsigned b = 0; b < VKRR_STANDIN_COUNT; b++) {
            char nm[96];
            vkrr_approx_standin_names(1u << b, nm, sizeof nm);
            if (vkrr_json_string(&si->kids[k]) && !strcmp(si->kids[k].text, nm))
                x->standins |= 1u << b;
        }
    x->seconds = get_num(r, o, "seconds", NAN);
    x->rerun = get_bool(r, o, "rerun");
    x->rerun_matches_capture = get_bool(r, o, "rerun_matches_capture");
    x->rerun_failed = get_bool(r, o, "rerun_failed");
    const vkrr_json *rs = need(r, o, "resources", VKRR_JSON_ARRAY);
    if (rs && rs->n) {
        x->res = calloc(rs->n, sizeof *x->res);
        if (!x->res) {
            if (!r->failed)
                vkrr_fail(r->err, VKRR_ERR_NOMEM, r->path, 0, -1, "out of memory");
            r->failed = true;
            return;
        }
        x->nres = rs->n;
        for (uint32_t k = 0; k < rs->n && !r->failed; k++)
            read_resource(r, &rs->kids[k], &x->res[k]);
    }
    x->worst = get_index(r, o, "worst", x->nres);
    x->chained_worst = get_index(r, o, "chained_worst", x->nres);
}

static void read_info(rd *r, vkrr_results *out, const vkrr_json *d)
{
    vkrr_report_info *in = &out->info;
    in->capture = get_str(r, d, "capture", false);
    in->command = get_str(r, d, "command", false);
    in->version = get_str(r, d, "vkrr_version", true);
    const char *id = get_str(r, d, "capture_id", false);
    in->capture_id = id ? strtoull(id, NULL, 16) : 0;
    in->capture_launches = get_u32(r, d, "capture_launches");
    const vkrr_json *sh = vkrr_json_get(d, "shard");
    if (sh && sh->type == VKRR_JSON_OBJECT) {
        in->shard = get_u32(r, sh, "index");
        in->shards = get_u32(r, sh, "count");
    } else if (!sh) {
        problem(r, d, "no member", "shard");
    }
    in->only = get_str(r, d, "only", true);
    in->strict = get_bool(r, d, "strict");
    in->backend = get_str(r, d, "port_backend", false);
    in->device = get_str(r, d, "device", false);
    in->reference = get_str(r, d, "reference", false);
    in->mode = get_str(r, d, "mode", false);
    in->perturb = get_str(r, d, "perturb", true);
    const vkrr_json *hw = vkrr_json_get(d, "hardware_model");
    if (hw && hw->type == VKRR_JSON_OBJECT) {
        in->hw_model = get_str(r, hw, "name", false);
        in->hw_note = get_str(r, hw, "note", false);
    }
    const vkrr_json *s = need(r, d, "summary", VKRR_JSON_OBJECT);
    if (s) {
        in->total = get_u32(r, s, "launches_total");
        in->unreadable = get_u32(r, s, "unreadable");
        in->interrupted = get_bool(r, s, "interrupted");
        in->dispatches = get_u32(r, s, "dispatches");
    }
    const vkrr_json *dm = need(r, d, "damage", VKRR_JSON_ARRAY);
    if (dm && dm->n && (out->damage = calloc(dm->n, sizeof *out->damage))) {
        for (uint32_t k = 0; k < dm->n; k++) {
            const char *t = vkrr_json_string(&dm->kids[k]);
            out->damage[k].status = VKRR_ERR_PARSE;
            out->damage[k].offset = -1;
            copy_str(out->damage[k].msg, sizeof out->damage[k].msg, t);
        }
        in->damage = out->damage;
        in->ndamage = dm->n;
    }
    out->chained = in->mode && (!strcmp(in->mode, "chained") || !strcmp(in->mode, "both"));
}

vkrr_status vkrr_results_read(const char *path, vkrr_results *out, vkrr_error *err)
{
    memset(out, 0, sizeof *out);
    vkrr_mapfile m = {0};
    vkrr_status s = vkrr_mapfile_open(&m, path, VKRR_MAPFILE_ANY_SIZE, err);
    if (s != VKRR_OK)
        return s;
    s = vkrr_results_parse((const char *)m.data, m.size, path, out, err);
    vkrr_mapfile_close(&m);
    return s;
}

vkrr_status vkrr_results_parse(const char *text, size_t len, const char *path, vkrr_results *out,
                               vkrr_error *err)
{
    memset(out, 0, sizeof *out);
    vkrr_status s = vkrr_json_parse(text, len, path, &out->doc, err);
    if (s != VKRR_OK)
        return s;
    if (!(out->path = strdup(path))) {
        vkrr_results_free(out);
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
    }
    rd r = {path, err, false};
    if (out->doc->type != VKRR_JSON_OBJECT) {
        vkrr_results_free(out);
        return vkrr_fail(err, VKRR_ERR_PARSE, path, 1, -1,
                         "not a vkrr result file: it is not a JSON object");
    }
    read_info(&r, out, out->doc);
    const vkrr_json *ls = need(&r, out->doc, "launches", VKRR_JSON_ARRAY);
    if (ls && ls->n) {
        out->launches = calloc(ls->n, sizeof *out->launches);
        out->res = calloc(ls->n, sizeof *out->res);
        out->stubs = calloc(ls->n, sizeof *out->stubs);
        out->feed_stubs = calloc(ls->n, sizeof *out->feed_stubs);
        if (!out->launches || !out->res || !out->stubs || !out->feed_stubs) {
            vkrr_results_free(out);
            return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
        }
        out->n = ls->n;
        for (uint32_t i = 0; i < ls->n && !r.failed; i++) {
            if (ls->kids[i].type != VKRR_JSON_OBJECT)
                problem(&r, &ls->kids[i], "a launch that is not an object in", "launches");
            else
                read_launch(&r, out, &ls->kids[i], i);
        }
    }
    if (r.failed) {
        vkrr_status st = err->status;
        vkrr_results_free(out);
        return st;
    }
    return VKRR_OK;
}

void vkrr_results_free(vkrr_results *r)
{
    for (uint32_t i = 0; r->res && i < r->n; i++) {
        free(r->res[i].res);
        free(r->res[i].printed);
        free(r->res[i].feeds);
    }
    for (uint32_t i = 0; r->feed_stubs && i < r->n; i++)
        free(r->feed_stubs[i]);
    free(r->feed_stubs);
    free(r->res);
    free(r->launches);
    free(r->stubs);
    free(r->damage);
    free(r->path);
    vkrr_json_free(r->doc);
    memset(r, 0, sizeof *r);
}
