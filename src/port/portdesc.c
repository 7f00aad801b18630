/* portdesc.c - KERNEL.port: parsing, and evaluation against one launch
 * (format and error model in portdesc.h). */
#include "portdesc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuformat.h"
#include "mapfile.h"
#include "portexpr.h"

#define PD_FILE_MAX (1u << 20)

enum { F_OFFSET, F_WIDTH, F_HEIGHT, F_CHANNELS, F_PLANES, F_COUNT };
static const char *const field_name[F_COUNT] = {"offset", "width", "height", "channels", "planes"};

typedef struct pd_output {
    long line;
    uint32_t arg;
    vkrr_dtype dtype;
    bool has[F_COUNT];
    vkrr_port_expr f[F_COUNT];
    bool planar;
    bool has_layout;
    vkrr_tol_override tol;
    long guess_line;     /* a "# GUESS" comment under it (port new writes them): its line */
} pd_output;

struct vkrr_portdesc {
    char *name;
    pd_output *out;
    uint32_t n;
    vkrr_port_input *in;   /* input lines (vkrr stress's bounds) */
    uint32_t nin;
    vkrr_port_iface *iface; /* `interface own` (portiface.h); NULL: bindings.glsl's */
    vkrr_port_needs *needs; /* `require` lines (portreq.h); NULL: none */
};

const vkrr_port_needs *vkrr_portdesc_needs(const vkrr_portdesc *d)
{
    return d ? d->needs : NULL;
}

const vkrr_port_iface *vkrr_portdesc_iface(const vkrr_portdesc *d)
{
    return d ? d->iface : NULL;
}

uint32_t vkrr_portdesc_inputs(const vkrr_portdesc *d, vkrr_port_input *out, uint32_t cap)
{
    for (uint32_t i = 0; i < d->nin && i < cap; i++)
        out[i] = d->in[i];
    return d->nin;
}

const char *vkrr_portdesc_name(const vkrr_portdesc *d)
{
    return d->name;
}

uint32_t vkrr_portdesc_guesses(const vkrr_portdesc *d, uint32_t *args, long *lines, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n; i++)
        if (d->out[i].guess_line) {
            if (n < cap)
                args[n] = d->out[i].arg, lines[n] = d->out[i].guess_line;
            n++;
        }
    return n;
}

void vkrr_portdesc_destroy(vkrr_portdesc *d)
{
    if (!d)
        return;
    free(d->name);
    free(d->out);
    free(d->in);
    vkrr_port_iface_free(d->iface);
    free(d->needs);
    free(d);
}

uint32_t vkrr_portdesc_args(const vkrr_portdesc *d, uint32_t *args, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n && n < cap; i++)
        args[n++] = d->out[i].arg;
    return n;
}

/* ---- parsing ------------------------------------------------------------ */

static vkrr_status parse_field(pd_output *o, const char *tok, const char *name, long line,
                               vkrr_error *err)
{
    const char *eq = strchr(tok, '=');
    if (!eq || eq == tok || !eq[1])
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "'%s': expected key=value", tok);
    size_t klen = (size_t)(eq - tok);
    for (int f = 0; f < F_COUNT; f++) {
        if (strlen(field_name[f]) != klen || strncmp(tok, field_name[f], klen))
            continue;
        if (o->has[f])
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "'%s': %s is given twice", tok,
                             field_name[f]);
        const char *why = NULL;
        if (!vkrr_port_expr_parse(eq + 1, &o->f[f], &why))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "'%s': %s", tok, why);
        snprintf(o->f[f].text, sizeof o->f[f].text, "%s", tok);
        o->has[f] = true;
        return VKRR_OK;
    }
    if (klen == 6 && !strncmp(tok, "layout", 6)) {
        if (strcmp(eq + 1, "planar") && strcmp(eq + 1, "interleaved"))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "'%s': layout is planar or interleaved", tok);
        o->planar = !strcmp(eq + 1, "planar");
        o->has_layout = true;
        return VKRR_OK;
    }
    const char *why = NULL;
    if (vkrr_compare_tol_setting(tok, &o->tol, &why))
        return VKRR_OK;
    if (!strcmp(why, "unknown key (atol, rtol, max_ulp)"))
        why = "unknown key (offset, width, height, channels, planes, layout, atol, rtol, max_ulp)";
    return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "'%s': %s", tok, why);
}

static vkrr_status parse_line(char *text, pd_output *o, bool *empty, const char *name, long line,
                              vkrr_error *err)
{
    char *tok[32];
    int nt = 0;
    char *hash = strchr(text, '#');
    if (hash)
        *hash = 0;
    for (char *save = NULL, *t = strtok_r(text, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
        if (nt == 32)
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "too many fields (32 at most)");
        tok[nt++] = t;
    }
    *empty = nt == 0;
    if (nt == 0)
        return VKRR_OK;
    if (strcmp(tok[0], "output"))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "'%s': a line is 'output argOFF TYPE [key=value ...]' (or 'input argOFF ...')", tok[0]);
    memset(o, 0, sizeof *o);
    o->line = line;
    char *end = NULL;
    uint32_t run = 0; /* K:argOFF, launch K of a fused run (portexpr.h) */
    if (nt >= 2 && !vkrr_port_launch_prefix(&tok[1], &run))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "'%s': expected K:argOFF (K 0..%d: the launch of a fused run)", tok[1],
                         VKRR_PORT_MAX_RUN - 1);
    if (nt < 2 || strncmp(tok[1], "arg", 3) || tok[1][3] < '0' || tok[1][3] > '9')
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "'%s': expected the argument as argOFF (arg16: the word at byte 16)",
                         nt < 2 ? "output" : tok[1]);
    errno = 0;
    unsigned long off = strtoul(tok[1] + 3, &end, 10);
    if (errno || *end || off >= VKRR_ARGS_MAX_BYTES)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "'%s': the offset is not a decimal below 4096", tok[1]);
    o->arg = (uint32_t)off + run * VKRR_ARGS_MAX_BYTES;
    if (nt < 3 || !vkrr_dtype_parse(tok[2], &o->dtype))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "'%s': expected an element type (f16 bf16 f32 e4m3 e5m2 u8 s8 u16 s16 "
                         "u32 i32 unorm8 snorm8 unorm16 snorm16 bytes)",
                         nt < 3 ? tok[1] : tok[2]);
    for (int i = 3; i < nt; i++) {
        vkrr_status st = parse_field(o, tok[i], name, line, err);
        if (st != VKRR_OK)
            return st;
    }
    return VKRR_OK;
}

typedef struct pd_parse {
    vkrr_portdesc *d;
    uint32_t cap;
} pd_parse;

/* input argOFF [TYPE] [finite] [fixed] [range LO HI]: what vkrr stress may
 * feed the kernel through that pointer. */
static vkrr_status parse_input(vkrr_portdesc *d, char **tok, int nt, long line, vkrr_error *err)
{
    vkrr_port_input in = {.line = line};
    char *end = NULL;
    if (nt < 3 || strncmp(tok[1], "arg", 3) || tok[1][3] < '0' || tok[1][3] > '9')
        return vkrr_fail(err, VKRR_ERR_PARSE, d->name, line, -1,
                         "a line is 'input argOFF [TYPE] [finite] [fixed] [range LO HI]'");
    errno = 0;
    unsigned long off = strtoul(tok[1] + 3, &end, 10);
    if (errno || *end || off >= VKRR_ARGS_MAX_BYTES)
        return vkrr_fail(err, VKRR_ERR_PARSE, d->name, line, -1,
                         "'%s': the offset is not a decimal below 4096", tok[1]);
    in.arg = (uint32_t)off;
    for (int i = 2; i < nt; i++) {
        if (!strcmp(tok[i], "finite")) {
            in.finite = true;
        } else if (!strcmp(tok[i], "fixed")) {
            in.fixed = true;
        } else if (!strcmp(tok[i], "range")) {
            char *e1 = NULL, *e2 = NULL;
            if (i + 2 >= nt)
                return vkrr_fail(err, VKRR_ERR_PARSE, d->name, line, -1, "range needs LO HI");
            in.lo = strtod(tok[i + 1], &e1);
            in.hi = strtod(tok[i + 2], &e2);
            if (*e1 || *e2 || !(in.lo <= in.hi))
                return vkrr_fail(err, VKRR_ERR_PARSE, d->name, line, -1,
                                 "'range %s %s': two numbers, LO <= HI", tok[i + 1], tok[i + 2]);
            in.has_range = true;
            i += 2;
        } else if (!in.typed && vkrr_dtype_parse(tok[i], &in.dtype)) {
            in.typed = true;
        } else {
            return vkrr_fail(err, VKRR_ERR_PARSE, d->name, line, -1,
                             "'%s': an input takes a type, finite, fixed or range LO HI", tok[i]);
        }
    }
    vkrr_port_input *n = realloc(d->in, (d->nin + 1) * sizeof *n);
    if (!n)
        return vkrr_fail(err, VKRR_ERR_NOMEM, d->name, line, -1, "out of memory");
    d->in = n;
    d->in[d->nin++] = in;
    return VKRR_OK;
}

static vkrr_status pd_line(void *ctx, char *line, long lineno, vkrr_error *err)
{
    pd_parse *p = ctx;
    vkrr_portdesc *d = p->d;
    pd_output o;
    bool empty = true;
    const char *s = line + strspn(line, " \t");
    if (!strncmp(s, "# GUESS", 7) && d->n && !d->out[d->n - 1].guess_line)
        d->out[d->n - 1].guess_line = lineno; /* the output above it rests on a guess */
    size_t kw = strcspn(s, " \t\r#");
    char first[16];
    snprintf(first, sizeof first, "%.*s", (int)(kw < sizeof first ? kw : sizeof first - 1), s);
    bool iface = vkrr_port_iface_keyword(first), req = vkrr_port_req_keyword(first);
    if (iface || req || !strcmp(first, "input")) {
        char *tok[32];
        int nt = 0;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t && nt < 32;
             t = strtok_r(NULL, " \t\r", &save))
            tok[nt++] = t;
        if (req)
            return vkrr_port_req_line(&d->needs, tok, nt, d->name, lineno, err);
        return iface ? vkrr_port_iface_line(&d->iface, tok, nt, d->name, lineno, err)
                     : parse_input(d, tok, nt, lineno, err);
    }
    vkrr_status st = parse_line(line, &o, &empty, d->name, lineno, err);
    if (st != VKRR_OK || empty)
        return st;
    if (d->n == VKRR_PORT_MAX_OUTPUTS)
        return vkrr_fail(err, VKRR_ERR_PARSE, d->name, lineno, -1, "more than %d outputs",
                         VKRR_PORT_MAX_OUTPUTS);
    if (d->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 4;
        pd_output *n = realloc(d->out, p->cap * sizeof *n);
        if (!n)
            return vkrr_fail(err, VKRR_ERR_NOMEM, d->name, lineno, -1, "out of memory");
        d->out = n;
    }
    d->out[d->n++] = o;
    return VKRR_OK;
}

vkrr_status vkrr_portdesc_parse(vkrr_portdesc **out, const char *text, size_t len,
                                const char *name, vkrr_error *err)
{
    *out = NULL;
    pd_parse p = {calloc(1, sizeof *p.d), 0};
    if (!p.d || !(p.d->name = strdup(name))) {
        vkrr_portdesc_destroy(p.d);
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, 0, -1, "out of memory");
    }
    vkrr_status st = vkrr_text_each_line(text, len, name, pd_line, &p, err);
    if (st != VKRR_OK) {
        vkrr_portdesc_destroy(p.d);
        return st;
    }
    *out = p.d;
    return VKRR_OK;
}

vkrr_status vkrr_portdesc_load(vkrr_portdesc **out, const char *path, vkrr_error *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    vkrr_status st = vkrr_read_text(path, PD_FILE_MAX, &text, &len, err);
    if (st != VKRR_OK)
        return st;
    st = vkrr_portdesc_parse(out, text, len, path, err);
    free(text);
    return st;
}

/* ---- evaluation --------------------------------------------------------- */

static vkrr_status eval_field(const vkrr_portdesc *d, const pd_output *o, int f, const vkrr_launch *l,
                              int64_t dflt, int64_t *v, vkrr_error *err)
{
    char why[200];
    if (!o->has[f]) {
        *v = dflt;
        return VKRR_OK;
    }
    vkrr_port_env env = {l->args, l->args_bytes, {l->grid[0], l->grid[1], l->grid[2]},
                         {l->block[0], l->block[1], l->block[2]}};
    if (!vkrr_port_expr_eval(&o->f[f], &env, v, why, sizeof why))
        return vkrr_fail(err, VKRR_ERR_RANGE, d->name, o->line, -1, "'%s': %s (launch #%llu %s)",
                         o->f[f].text, why, (unsigned long long)l->sequence, l->kernel);
    if (f != F_OFFSET && (*v < 1 || *v > UINT32_MAX))
        return vkrr_fail(err, VKRR_ERR_RANGE, d->name, o->line, -1,
                         "'%s': %s is %lld in launch #%llu %s (1..2^32-1)", o->f[f].text,
                         field_name[f], (long long)*v, (unsigned long long)l->sequence, l->kernel);
    return VKRR_OK;
}

static vkrr_status eval_buffer(const vkrr_portdesc *d, const pd_output *o, const vkrr_launch *l,
                               const vkrr_pointer *pt, vkrr_port_output *r, vkrr_error *err)
{
    if (!o->has[F_WIDTH])
        return vkrr_fail(err, VKRR_ERR_RANGE, d->name, o->line, -1,
                         "arg%u: a pointer in launch #%llu, so its output needs width= (and "
                         "height=, planes= as it has them)", o->arg, (unsigned long long)l->sequence);
    int64_t v[F_COUNT];
    static const int64_t dflt[F_COUNT] = {0, 1, 1, 1, 1};
    for (int f = 0; f < F_COUNT; f++) {
        vkrr_status st = eval_field(d, o, f, l, dflt[f], &v[f], err);
        if (st != VKRR_OK)
            return st;
    }
    const vkrr_alloc *a = &l->allocs[pt->alloc];
    int64_t start;
    uint64_t planes = (uint64_t)v[F_PLANES] * (o->planar ? (uint64_t)v[F_CHANNELS] : 1u);
    r->view = (vkrr_view){.dtype = o->dtype, .width = (uint32_t)v[F_WIDTH],
                          .height = (uint32_t)v[F_HEIGHT],
                          .planes = planes > UINT32_MAX ? UINT32_MAX : (uint32_t)planes,
                          .channels = o->planar ? 1u : (uint32_t)v[F_CHANNELS]};
    uint64_t bytes = vkrr_dtype_size(o->dtype);
    bool fits = planes <= UINT32_MAX;
    uint64_t dims[4] = {r->view.width, r->view.height, r->view.planes, r->view.channels};
    for (int i = 0; i < 4 && fits; i++)
        fits = !__builtin_mul_overflow(bytes, dims[i], &bytes);
    if (__builtin_add_overflow((int64_t)pt->delta, v[F_OFFSET], &start) || start < 0 || !fits ||
        (uint64_t)start > a->size || bytes > a->size - (uint64_t)start)
        return vkrr_fail(err, VKRR_ERR_RANGE, d->name, o->line, -1,
                         "arg%u: the window (%u x %u x %u channels x %u planes of %s at byte "
                         "%lld of the allocation) is outside the %llu-byte allocation in launch "
                         "#%llu %s", o->arg, r->view.width, r->view.height, r->view.channels,
                         r->view.planes, vkrr_dtype_name(o->dtype), (long long)start,
                         (unsigned long long)a->size, (unsigned long long)l->sequence, l->kernel);
    r->view.offset = (uint64_t)start;
    r->index = pt->alloc;
    return VKRR_OK;
}

static vkrr_status eval_surface(const vkrr_portdesc *d, const pd_output *o, const vkrr_launch *l,
                                uint32_t i, vkrr_port_output *r, vkrr_error *err)
{
    const vkrr_image *im = &l->images[i];
    for (int f = 0; f < F_COUNT; f++)
        if (o->has[f])
            return vkrr_fail(err, VKRR_ERR_PARSE, d->name, o->line, -1,
                             "'%s': arg%u is a surface in launch #%llu: its shape is its CUDA "
                             "array's (only the type and atol/rtol/max_ulp apply)",
                             o->f[f].text, o->arg, (unsigned long long)l->sequence);
    if (o->has_layout)
        return vkrr_fail(err, VKRR_ERR_PARSE, d->name, o->line, -1,
                         "'layout=': arg%u is a surface in launch #%llu: its channels are "
                         "interleaved, as its CUDA array's", o->arg, (unsigned long long)l->sequence);
    unsigned tb = vkrr_cuformat_texel_bytes(im->format, im->channels);
    unsigned es = vkrr_dtype_size(o->dtype);
    if (!tb || tb % es)
        return vkrr_fail(err, VKRR_ERR_RANGE, d->name, o->line, -1,
                         "arg%u: %s does not fit the %u-byte texels of the surface (CUarray "
                         "format %u x %u) in launch #%llu", o->arg, vkrr_dtype_name(o->dtype), tb,
                         im->format, im->channels, (unsigned long long)l->sequence);
    r->surface = true;
    r->index = i;
    r->view = (vkrr_view){.dtype = o->dtype, .width = im->width, .height = im->height,
                          .planes = 1, .channels = tb / es};
    return VKRR_OK;
}

vkrr_status vkrr_portdesc_eval(const vkrr_portdesc *d, const vkrr_launch *l,
                               vkrr_port_output *out, uint32_t cap, uint32_t *n,
                               vkrr_error *err)
{
    *n = 0;
    for (uint32_t k = 0; k < d->n; k++) {
        const pd_output *o = &d->out[k];
        if (*n == cap)
            return vkrr_fail(err, VKRR_ERR_RANGE, d->name, o->line, -1, "more than %u outputs", cap);
        vkrr_port_output *r = &out[*n];
        memset(r, 0, sizeof *r);
        r->arg = o->arg;
        r->tol = o->tol;
        r->line = o->line;
        if ((uint64_t)o->arg + 8 > l->args_bytes)
            return vkrr_fail(err, VKRR_ERR_RANGE, d->name, o->line, -1,
                             "arg%u: the word at byte %u is past the %u-byte parameter block of "
                             "launch #%llu %s", o->arg, o->arg, l->args_bytes,
                             (unsigned long long)l->sequence, l->kernel);
        vkrr_status st = VKRR_ERR_INTERNAL;
        for (uint32_t p = 0; p < l->npointers && st == VKRR_ERR_INTERNAL; p++)
            if (l->pointers[p].offset == o->arg)
                st = eval_buffer(d, o, l, &l->pointers[p], r, err);
        for (uint32_t i = 0; i < l->nimages && st == VKRR_ERR_INTERNAL; i++) {
            if (l->images[i].offset != o->arg)
                continue;
            if (l->images[i].kind != VKRR_IMAGE_SURFACE)
                return vkrr_fail(err, VKRR_ERR_RANGE, d->name, o->line, -1,
                                 "arg%u: a texture in launch #%llu %s (read only, not an output)",
                                 o->arg, (unsigned long long)l->sequence, l->kernel);
            st = eval_surface(d, o, l, i, r, err);
        }
        if (st == VKRR_ERR_INTERNAL)
            return vkrr_fail(err, VKRR_ERR_RANGE, d->name, o->line, -1,
                             "arg%u: neither a pointer nor a surface in launch #%llu %s (its "
                             "manifest names no resource at byte %u)", o->arg,
                             (unsigned long long)l->sequence, l->kernel, o->arg);
        if (st != VKRR_OK)
            return st;
        (*n)++;
    }
    return VKRR_OK;
}
