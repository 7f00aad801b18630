/* results_read.c - a result file read back into results (results_read.h). */
#include "results_read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approx.h"
#include "mapfile.h"

typedef struct json_object jv;

/* The reader's state: the first problem is kept, later reads are no-ops.
 * json-c keeps no line per value, so a problem names where it is by the
 * launch and resource being read ("launch 3 (sequence 7), resource 1"). */
typedef struct rd {
    const char *path;
    vkrr_error *err;
    bool failed;
    char where[96];
} rd;

static void problem(rd *r, const char *what, const char *key)
{
    if (r->failed)
        return;
    r->failed = true;
    vkrr_fail(r->err, VKRR_ERR_PARSE, r->path, 0, -1, "not a vkrr result file: %s \"%s\"%s%s",
              what, key, r->where[0] ? " in " : "", r->where);
}

static jv *get(const jv *o, const char *key)
{
    jv *v = NULL;
    return json_object_is_type(o, json_type_object) &&
                   json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Present, even as null (json-c holds null as a NULL value). */
static bool has(const jv *o, const char *key)
{
    return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, NULL);
}

static bool is(const jv *v, json_type t)
{
    return v && json_object_get_type(v) == t;
}

static uint32_t nkids(const jv *a)
{
    return is(a, json_type_array) ? (uint32_t)json_object_array_length(a) : 0;
}

/* A whole number that fits, from its own text (a double never is one). */
static bool as_u64(const jv *v, uint64_t *out)
{
    if (!is(v, json_type_int))
        return false;
    errno = 0;
    uint64_t x = json_object_get_uint64(v);
    if (errno || json_object_get_int64(v) < 0)
        return false;
    *out = x;
    return true;
}

static bool as_i64(const jv *v, int64_t *out)
{
    if (!is(v, json_type_int))
        return false;
    errno = 0;
    int64_t x = json_object_get_int64(v);
    if (errno)
        return false;
    *out = x;
    return true;
}

/* A member that must be there, of a type; NULL (and the problem kept) else. */
static jv *need(rd *r, const jv *o, const char *key, json_type t)
{
    jv *v = get(o, key);
    bool num = t == json_type_double && is(v, json_type_int); /* 1 is a number too */
    if (!has(o, key))
        problem(r, "no member", key);
    else if (!is(v, t) && !num)
        problem(r, "the wrong type of value for", key);
    return is(v, t) || num ? v : NULL;
}

static bool get_bool(rd *r, const jv *o, const char *key)
{
    const jv *v = need(r, o, key, json_type_boolean);
    return v && json_object_get_boolean(v);
}

static uint64_t get_u64(rd *r, const jv *o, const char *key)
{
    uint64_t x = 0;
    const jv *v = need(r, o, key, json_type_int);
    if (v && !as_u64(v, &x))
        problem(r, "not a count:", key);
    return x;
}

static uint32_t get_u32(rd *r, const jv *o, const char *key)
{
    uint64_t x = get_u64(r, o, key);
    if (x > UINT32_MAX) {
        problem(r, "too large a number for", key);
        return 0;
    }
    return (uint32_t)x;
}

/* A number; null is `null_means` (JSON has no Inf or NaN: they are null). */
static double get_num(rd *r, const jv *o, const char *key, double null_means)
{
    if (has(o, key) && !get(o, key))
        return null_means;
    const jv *v = need(r, o, key, json_type_double);
    return v ? json_object_get_double(v) : 0;
}

/* A string, or NULL for null (or when absent with nullable set). */
static const char *get_str(rd *r, const jv *o, const char *key, bool nullable)
{
    if (nullable && !get(o, key))
        return NULL;
    const jv *v = need(r, o, key, json_type_string);
    return v ? json_object_get_string((jv *)v) : NULL;
}

static vkrr_launch_status get_status(rd *r, const jv *o, const char *key)
{
    const char *s = get_str(r, o, key, false);
    for (int k = 0; s && k < VKRR_LAUNCH_STATUS_COUNT; k++)
        if (!strcmp(s, vkrr_launch_status_name((vkrr_launch_status)k)))
            return (vkrr_launch_status)k;
    if (s)
        problem(r, "an unknown status in", key);
    return VKRR_LAUNCH_ERROR;
}

static void copy_str(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s ? s : "");
}

static void read_metrics(rd *r, const jv *o, vkrr_metrics *m)
{
    *m = (vkrr_metrics){.first_bad = UINT64_MAX, .max_abs_index = UINT64_MAX};
    const char *t = get_str(r, o, "type", false);
    if (t && !vkrr_dtype_parse(t, &m->dtype))
        problem(r, "an unknown element type in", "type");
    m->count = get_u64(r, o, "count");
    m->exact_pct = get_num(r, o, "exact_pct", NAN);
    m->max_abs = get_num(r, o, "max_abs", NAN);
    const jv *at = get(o, "max_abs_at");
    if (at && is(at, json_type_object)) {
        m->max_abs_index = get_u64(r, at, "index");
        m->max_abs_pos = (vkrr_elem_pos){.x = get_u32(r, at, "x"), .y = get_u32(r, at, "y"),
                                         .plane = get_u32(r, at, "plane"),
                                         .channel = get_u32(r, at, "channel")};
    }
    m->mean_abs = get_num(r, o, "mean_abs", NAN);
    m->rmse = get_num(r, o, "rmse", NAN);
    m->psnr = get_num(r, o, "psnr", INFINITY); /* identical data */
    m->nmse = get_num(r, o, "nmse", NAN);
    const jv *u = need(r, o, "max_ulp", json_type_int);
    int64_t ulp = 0;
    if (u && !as_i64(u, &ulp))
        problem(r, "not a whole number:", "max_ulp");
    m->max_ulp = ulp;
    m->within1_ulp_pct = get_num(r, o, "within_1_ulp_pct", NAN);
    m->within4_ulp_pct = get_num(r, o, "within_4_ulp_pct", NAN);
    m->nan_mismatch = get_u64(r, o, "nan_mismatches");
    m->inf_mismatch = get_u64(r, o, "inf_mismatches");
    m->unwritten = get_u64(r, o, "unwritten");
    m->out_of_tol = get_u64(r, o, "out_of_tolerance");
    const jv *tol = need(r, o, "tolerance", json_type_object);
    if (tol) {
        m->tol.atol = get_num(r, tol, "atol", -1);
        m->tol.rtol = get_num(r, tol, "rtol", -1);
        const jv *mu = get(tol, "max_ulp");
        int64_t x = -1;
        if (mu && !as_i64(mu, &x))
            problem(r, "not a whole number:", "max_ulp");
        m->tol.max_ulp = x;
    }
    m->pass = get_bool(r, o, "pass");
}

/* A comparison object ("chained", "chained_vs_original"): pass, the bytes
 * outside the windows, the heatmap, the metrics. */
static void read_comparison(rd *r, const jv *o, vkrr_comparison *c)
{
    c->done = true;
    c->pass = get_bool(r, o, "pass");
    c->outside = get_u64(r, o, "outside_window_bytes");
    copy_str(c->heatmap, sizeof c->heatmap, get_str(r, o, "heatmap", true));
    const jv *m = need(r, o, "metrics", json_type_object);
    if (m)
        read_metrics(r, m, &c->m);
}

/* port_vs_rerun, rerun_vs_capture: the metrics alone are written */
static void read_bare(rd *r, const jv *m, vkrr_comparison *c)
{
    c->done = true;
    read_metrics(r, m, &c->m);
    c->pass = c->m.pass;
}

static void read_resource(rd *r, const jv *o, vkrr_resource_result *x)
{
    x->offset = get_u32(r, o, "offset");
    const char *kind = get_str(r, o, "kind", false);
    x->is_buffer = kind && !strcmp(kind, "buffer");
    x->kind = VKRR_IMAGE_SURFACE;
    const char *t = get_str(r, o, "type", false);
    if (t && !vkrr_dtype_parse(t, &x->view.dtype))
        problem(r, "an unknown element type in", "type");
    if (x->is_buffer) {
        const char *base = get_str(r, o, "base", false);
        x->base = base ? strtoull(base, NULL, 16) : 0;
        x->view.offset = get_u64(r, o, "window_offset");
    }
    x->view.width = get_u32(r, o, "width");
    x->view.height = get_u32(r, o, "height");
    x->view.planes = get_u32(r, o, "planes");
    x->view.channels = get_u32(r, o, "channels");
    const jv *cs = get(o, "changed_since_capture");
    x->changed = is(cs, json_type_boolean) && json_object_get_boolean(cs);
    const jv *m = get(o, "metrics");
    if (m && is(m, json_type_object)) {
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
    const jv *pr = get(o, "port_vs_rerun"), *rc = get(o, "rerun_vs_capture");
    if (pr && rc && is(pr, json_type_object) && is(rc, json_type_object)) {
        read_bare(r, pr, &x->isolated_original);
        read_bare(r, rc, &x->original_capture);
    }
    const jv *ch = get(o, "chained"), *co = get(o, "chained_vs_original");
    if (ch && is(ch, json_type_object))
        read_comparison(r, ch, &x->chained);
    if (co && is(co, json_type_object))
        read_comparison(r, co, &x->chained_original);
}

/* A resource index ("worst", "chained_worst"): -1 for null or absent. */
static int get_index(rd *r, const jv *o, const char *key, uint32_t nres)
{
    const jv *v = get(o, key);
    uint64_t x;
    if (!v)
        return -1;
    if (!as_u64(v, &x) || x >= nres) {
        problem(r, "not a resource index:", key);
        return -1;
    }
    return (int)x;
}

/* "chain_restart" and "links": how the chain fed launch i (each linked
 * launch a stub: sequence and kernel). */
static void read_feeds(rd *r, vkrr_results *out, const jv *o, uint32_t i)
{
    vkrr_launch_result *x = &out->res[i];
    x->chain_gap = get_u64(r, o, "chain_restart");
    const jv *ls = need(r, o, "links", json_type_array);
    if (!ls || !nkids(ls))
        return;
    x->feeds = calloc(nkids(ls), sizeof *x->feeds);
    out->feed_stubs[i] = calloc(nkids(ls), sizeof **out->feed_stubs);
    if (!x->feeds || !out->feed_stubs[i]) {
        if (!r->failed)
            vkrr_fail(r->err, VKRR_ERR_NOMEM, r->path, 0, -1, "out of memory");
        r->failed = true;
        return;
    }
    for (uint32_t k = 0; k < nkids(ls); k++) {
        const jv *e = json_object_array_get_idx(ls, k), *from = get(e, "from");
        vkrr_chain_feed *f = &x->feeds[x->nfeeds++];
        f->arg = get_u32(r, e, "arg");
        const char *how = get_str(r, e, "how", false);
        for (int h = VKRR_LINK_NONE; how && h <= VKRR_LINK_BYTES; h++)
            if (!strcmp(how, vkrr_link_how_name((vkrr_link_how)h)))
                f->how = (vkrr_link_how)h;
        if (from && is(from, json_type_object)) {
            vkrr_launch *s = &out->feed_stubs[i][k];
            s->sequence = get_u64(r, from, "launch");
            s->kernel = (char *)get_str(r, from, "kernel", false);
            if (!s->kernel)
                s->kernel = "";
            f->from = s;
            f->from_arg = get_u32(r, from, "arg");
            const jv *al = need(r, e, "alike_args", json_type_array);
            for (uint32_t a = 0; al && a < nkids(al) && a < VKRR_LINK_ALIKE_MAX; a++) {
                uint64_t x = 0;
                if (!as_u64(json_object_array_get_idx(al, a), &x) || x > UINT32_MAX)
                    problem(r, "not an argument offset in", "alike_args");
                f->alike_arg[f->nalike++] = (uint32_t)x;
            }
        } else {
            f->unknown = true;
        }
    }
}

/* A fused run's "fused": its row's name and the sequences it stands for
 * (fused_runs.h), so a merged table shows it as validate did. */
static void read_fused(rd *r, const jv *o, vkrr_launch *l)
{
    const jv *fo = get(o, "fused");
    if (!fo || !is(fo, json_type_object))
        return;
    l->label = get_str(r, fo, "name", false);
    const jv *sq = need(r, fo, "sequences", json_type_array);
    uint32_t n = sq ? (uint32_t)nkids(sq) : 0;
    uint64_t *seq = n ? calloc(n, sizeof *seq) : NULL;
    for (uint32_t k = 0; seq && k < n; k++)
        if (!as_u64(json_object_array_get_idx(sq, k), &seq[k]))
            problem(r, "not a launch sequence in", "sequences");
    l->fused_seq = seq;
    l->nfused = seq ? n : 0;
}

static void read_launch(rd *r, vkrr_results *out, const jv *o, uint32_t i)
{
    vkrr_launch *l = &out->launches[i];
    vkrr_launch_result *x = &out->res[i];
    l->sequence = get_u64(r, o, "sequence");
    l->kernel = (char *)get_str(r, o, "kernel", false);
    if (!l->kernel)
        l->kernel = "";
    l->frame = get_u32(r, o, "frame");
    l->occurrence = get_u32(r, o, "occurrence");
    read_fused(r, o, l);
    x->launch = l;
    x->worst = x->chained_worst = -1;
    const jv *st = get(o, "status");
    x->has_isolated = st != NULL;
    if (x->has_isolated)
        x->status = get_status(r, o, "status");
    x->has_chained = has(o, "chained_status");
    if (x->has_chained) {
        x->chained_status = get_status(r, o, "chained_status");
        x->chained_exact = get_bool(r, o, "chained_exact");
        const char *how = get_str(r, o, "chained", false);
        x->chained_reused = how && !strcmp(how, "same as isolated");
        const jv *cvo = get(o, "chained_vs_original");
        if (cvo && is(cvo, json_type_object)) {
            x->chained_original_ran = true;
            x->chained_original_pass = get_bool(r, cvo, "pass");
        }
        read_feeds(r, out, o, i);
        const jv *sf = get(o, "skipped_for_launch");
        if (sf && is(sf, json_type_object)) {
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
    const jv *si = need(r, o, "standins", json_type_array);
    for (uint32_t k = 0; si && k < nkids(si); k++)
        for (unsigned b = 0; b < VKRR_STANDIN_COUNT; b++) {
            char nm[96];
            vkrr_approx_standin_names(1u << b, nm, sizeof nm);
            if (is(json_object_array_get_idx(si, k), json_type_string) &&
                !strcmp(json_object_get_string(json_object_array_get_idx(si, k)), nm))
                x->standins |= 1u << b;
        }
    x->seconds = get_num(r, o, "seconds", NAN);
    x->rerun = get_bool(r, o, "rerun");
    x->rerun_matches_capture = get_bool(r, o, "rerun_matches_capture");
    x->rerun_failed = get_bool(r, o, "rerun_failed");
    const jv *rs = need(r, o, "resources", json_type_array);
    if (rs && nkids(rs)) {
        x->res = calloc(nkids(rs), sizeof *x->res);
        if (!x->res) {
            if (!r->failed)
                vkrr_fail(r->err, VKRR_ERR_NOMEM, r->path, 0, -1, "out of memory");
            r->failed = true;
            return;
        }
        x->nres = nkids(rs);
        size_t at = strlen(r->where);
        for (uint32_t k = 0; k < nkids(rs) && !r->failed; k++) {
            snprintf(r->where + at, sizeof r->where - at, ", resource %u", k + 1);
            read_resource(r, json_object_array_get_idx(rs, k), &x->res[k]);
        }
        r->where[at] = 0;
    }
    x->worst = get_index(r, o, "worst", x->nres);
    x->chained_worst = get_index(r, o, "chained_worst", x->nres);
}

/* The file's "schema" must be this reader's and its major version the one
 * it reads (json.h: a minor one only adds fields, which are ignored). */
static vkrr_status check_schema(rd *r, const jv *d)
{
    const char *name = get_str(r, d, "schema", false), *v = get_str(r, d, "schema_version", false);
    if (r->failed)
        return r->err->status;
    const char *mine = vkrr_json_schema_version(VKRR_SCHEMA_RESULTS);
    if (strcmp(name, VKRR_SCHEMA_RESULTS))
        return vkrr_fail(r->err, VKRR_ERR_PARSE, r->path, 0, -1,
                         "not a vkrr result file: its schema is \"%s\", not \"%s\"", name,
                         VKRR_SCHEMA_RESULTS);
    size_t major = strcspn(mine, ".");
    if (strncmp(v, mine, major + 1))
        return vkrr_fail(r->err, VKRR_ERR_PARSE, r->path, 0, -1,
                         "written at %s version %s; this vkrr reads version %.*s.x (docs/json.md)",
                         VKRR_SCHEMA_RESULTS, v, (int)major, mine);
    return VKRR_OK;
}

static void read_info(rd *r, vkrr_results *out, const jv *d)
{
    vkrr_report_info *in = &out->info;
    in->capture = get_str(r, d, "capture", false);
    in->command = get_str(r, d, "command", false);
    in->version = get_str(r, d, "vkrr_version", true);
    const char *id = get_str(r, d, "capture_id", false);
    in->capture_id = id ? strtoull(id, NULL, 16) : 0;
    in->capture_launches = get_u32(r, d, "capture_launches");
    const jv *sh = get(d, "shard");
    if (sh && is(sh, json_type_object)) {
        in->shard = get_u32(r, sh, "index");
        in->shards = get_u32(r, sh, "count");
    } else if (!has(d, "shard")) {
        problem(r, "no member", "shard");
    }
    in->only = get_str(r, d, "only", true);
    in->strict = get_bool(r, d, "strict");
    in->backend = get_str(r, d, "port_backend", false);
    in->device = get_str(r, d, "device", false);
    in->reference = get_str(r, d, "reference", false);
    in->mode = get_str(r, d, "mode", false);
    in->perturb = get_str(r, d, "perturb", true);
    const jv *hw = get(d, "hardware_model");
    if (hw && is(hw, json_type_object)) {
        in->hw_model = get_str(r, hw, "name", false);
        in->hw_note = get_str(r, hw, "note", false);
    }
    const jv *s = need(r, d, "summary", json_type_object);
    if (s) {
        in->total = get_u32(r, s, "launches_total");
        in->unreadable = get_u32(r, s, "unreadable");
        in->interrupted = get_bool(r, s, "interrupted");
        in->dispatches = get_u32(r, s, "dispatches");
    }
    const jv *dm = need(r, d, "damage", json_type_array);
    if (dm && nkids(dm) && (out->damage = calloc(nkids(dm), sizeof *out->damage))) {
        for (uint32_t k = 0; k < nkids(dm); k++) {
            const jv *e = json_object_array_get_idx(dm, k);
            const char *t = is(e, json_type_string) ? json_object_get_string((jv *)e) : NULL;
            out->damage[k].status = VKRR_ERR_PARSE;
            out->damage[k].offset = -1;
            copy_str(out->damage[k].msg, sizeof out->damage[k].msg, t);
        }
        in->damage = out->damage;
        in->ndamage = nkids(dm);
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
    rd r = {.path = path, .err = err};
    if (!is(out->doc, json_type_object)) {
        vkrr_results_free(out);
        return vkrr_fail(err, VKRR_ERR_PARSE, path, 1, -1,
                         "not a vkrr result file: it is not a JSON object");
    }
    if (check_schema(&r, out->doc) != VKRR_OK) {
        vkrr_results_free(out);
        return err->status;
    }
    read_info(&r, out, out->doc);
    const jv *ls = need(&r, out->doc, "launches", json_type_array);
    if (ls && nkids(ls)) {
        out->launches = calloc(nkids(ls), sizeof *out->launches);
        out->res = calloc(nkids(ls), sizeof *out->res);
        out->stubs = calloc(nkids(ls), sizeof *out->stubs);
        out->feed_stubs = calloc(nkids(ls), sizeof *out->feed_stubs);
        if (!out->launches || !out->res || !out->stubs || !out->feed_stubs) {
            vkrr_results_free(out);
            return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
        }
        out->n = nkids(ls);
        for (uint32_t i = 0; i < nkids(ls) && !r.failed; i++) {
            snprintf(r.where, sizeof r.where, "launch %u of \"launches\"", i + 1);
            if (!is(json_object_array_get_idx(ls, i), json_type_object))
                problem(&r, "a launch that is not an object in", "launches");
            else
                read_launch(&r, out, json_object_array_get_idx(ls, i), i);
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
    for (uint32_t i = 0; r->launches && i < r->n; i++)
        free((uint64_t *)r->launches[i].fused_seq); /* read_fused's */
    free(r->feed_stubs);
    free(r->res);
    free(r->launches);
    free(r->stubs);
    free(r->damage);
    free(r->path);
    json_object_put(r->doc);
    memset(r, 0, sizeof *r);
}
