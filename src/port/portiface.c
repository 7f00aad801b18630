/* portiface.c - `interface own` lines: parsed, and evaluated against one
 * launch (portiface.h). */
#include "portiface.h"
#include "portpass.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keywords[] = {"interface", "binding", "push", "specialize", "workgroup",
                                       "dispatch"};

bool vkrr_port_iface_keyword(const char *tok)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (!strcmp(tok, keywords[i]))
            return true;
    return vkrr_port_pass_keyword(tok);
}

/* A decimal below limit. */
static bool number(const char *s, unsigned long limit, uint32_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v >= limit)
        return false;
    *out = (uint32_t)v;
    return true;
}

static bool scalar(const char *s, vkrr_port_scalar *t)
{
    static const char *const names[] = {"u32", "i32", "f32", "u64", "i64"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i])) {
            *t = (vkrr_port_scalar)i;
            return true;
        }
    return false;
}

/* TYPE VALUE of a push or specialize line. */
static vkrr_status parse_const(vkrr_port_const *c, const char *type, const char *value, bool wide,
                               const char *name, long line, vkrr_error *err)
{
    const char *why = NULL;
    if (!scalar(type, &c->type) || (!wide && c->type >= VKRR_PORT_U64))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "'%s': expected a type (u32 i32 f32%s)",
                         type, wide ? " u64 i64" : "");
    uint32_t run = 0; /* K:f32@BYTE: launch K of a fused run's word (portexpr.h) */
    if (c->type == VKRR_PORT_F32 && value[0] >= '0' && value[0] < '0' + VKRR_PORT_MAX_RUN &&
        !strncmp(value + 1, ":f32@", 5))
        run = (uint32_t)(value[0] - '0'), value += 2;
    if (c->type == VKRR_PORT_F32 && !strncmp(value, "f32@", 4)) {
        if (!number(value + 4, VKRR_ARGS_MAX_BYTES, &c->at))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "'%s': expected a decimal byte offset below 4096 after 'f32@'", value);
        c->at += run * VKRR_ARGS_MAX_BYTES;
        c->kind = VKRR_PORT_VALUE_F32_WORD;
        return VKRR_OK;
    }
    if (c->type == VKRR_PORT_F32 && strpbrk(value, ".eE") && !strpbrk(value, "@x")) {
        char *end;
        c->f = strtof(value, &end);
        if (*end || !isfinite(c->f))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "'%s': not a finite f32 constant",
                             value);
        c->kind = VKRR_PORT_VALUE_F32_CONST;
        return VKRR_OK;
    }
    c->kind = VKRR_PORT_VALUE_EXPR;
    if (!vkrr_port_expr_parse(value, &c->e, &why))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "'%s': %s", value, why);
    snprintf(c->e.text, sizeof c->e.text, "%s", value);
    return VKRR_OK;
}

static const char *const kind_names[] = {"storage-buffer", "uniform-buffer", "storage-image",
                                         "sampled-image", "combined-image-sampler", "sampler"};

const char *vkrr_port_kind_name(vkrr_port_bind_kind k)
{
    return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "?";
}

/* sampler= address= normalized= of an image or sampler binding. */
static bool sampler_key(vkrr_port_bind *b, const char *t, bool *has_filter, const char **why)
{
    static const char *const filters[] = {"captured", "linear", "nearest"};
    static const char *const addr[] = {"repeat", "clamp", "mirror", "border"}; /* VKRR_ADDRESS_* order */
    if (!strncmp(t, "sampler=", 8)) {
        for (int i = 0; i < 3; i++)
            if (!strcmp(t + 8, filters[i])) {
                b->sampler.filter = (vkrr_port_filter)i;
                return *has_filter = true;
            }
        return *why = "expected sampler=captured, linear or nearest", false;
    }
    if (!strncmp(t, "address=", 8)) {
        for (int i = 0; i < 4; i++)
            if (!strcmp(t + 8, addr[i]))
                return b->sampler.address = i, true;
        return *why = "expected address=clamp, repeat, mirror or border", false;
    }
    if (!strcmp(t, "normalized=0") || !strcmp(t, "normalized=1"))
        return b->sampler.normalized = t[11] - '0', true;
    return *why = !strncmp(t, "normalized=", 11) ? "expected normalized=0 or 1"
                                                 : "expected format=, sampler=, address= or normalized=",
           false;
}

/* The keys of an image or sampler binding (tok[4..]). */
static vkrr_status image_keys(vkrr_port_bind *b, char **tok, int nt, const char *name, long line,
                              vkrr_error *err)
{
    bool has_filter = false, sampled = b->kind == VKRR_PORT_COMBINED_IMAGE_SAMPLER || b->kind == VKRR_PORT_SAMPLER;
    b->sampler = (vkrr_port_sampler){VKRR_PORT_SAMPLER_CAPTURED, -1, -1};
    for (int i = 4; i < nt; i++) {
        const char *why = NULL;
        if (!strncmp(tok[i], "format=", 7) && b->kind != VKRR_PORT_SAMPLER) {
            if (!(b->format = vkrr_imgformat_find(tok[i] + 7)))
                return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                                 "binding %u.%u: '%s': not an image format vkrr maps CUDA arrays "
                                 "to (rgba32f rgba16f r32f rgba8 rgba8ui ...: docs/own-interface.md)",
                                 b->set, b->binding, tok[i]);
            continue;
        }
        if (!sampled || !sampler_key(b, tok[i], &has_filter, &why))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "binding %u.%u: '%s': %s", b->set,
                             b->binding, tok[i],
                             sampled ? why : "expected format= (a sampler's keys are for samplers)");
    }
    if (b->kind != VKRR_PORT_SAMPLER && !b->format)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "binding %u.%u: a %s needs format=FMT (the Vulkan format of the CUDA array)",
                         b->set, b->binding, kind_names[b->kind]);
    if (sampled && !has_filter)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "binding %u.%u: a %s needs sampler=captured|linear|nearest", b->set,
                         b->binding, kind_names[b->kind]);
    if (b->no_arg && (b->sampler.filter == VKRR_PORT_SAMPLER_CAPTURED || b->sampler.address < 0 ||
                      b->sampler.normalized < 0))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "binding %u.%u: a sampler of no texture ('-') states sampler=linear|nearest, "
                         "address= and normalized=", b->set, b->binding);
    return VKRR_OK;
}

/* offset= size= of a buffer binding (tok[4..]). */
static vkrr_status buffer_keys(vkrr_port_bind *b, char **tok, int nt, const char *name, long line,
                               vkrr_error *err)
{
    for (int i = 4; i < nt; i++) {
        bool off = !strncmp(tok[i], "offset=", 7), size = !strncmp(tok[i], "size=", 5);
        const char *why = NULL;
        if (!off && !size)
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "binding %u.%u: '%s': expected offset= or size=", b->set, b->binding, tok[i]);
        vkrr_port_expr *e = off ? &b->offset : &b->size;
        if ((off && b->has_offset) || (size && b->has_size))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "binding %u.%u: '%s' is given twice",
                             b->set, b->binding, tok[i]);
        if (!vkrr_port_expr_parse(strchr(tok[i], '=') + 1, e, &why))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "binding %u.%u: '%s': %s", b->set,
                             b->binding, tok[i], why);
        snprintf(e->text, sizeof e->text, "%s", tok[i]);
        b->has_offset |= off;
        b->has_size |= size;
    }
    return VKRR_OK;
}

static vkrr_status parse_binding(vkrr_port_iface *f, char **tok, int nt, const char *name, long line,
                                 vkrr_error *err)
{
    static const char *const later[] = {"uniform-texel-buffer", "storage-texel-buffer"};
    vkrr_port_bind b = {.line = line};
    const char *dot = nt > 1 ? strchr(tok[1], '.') : NULL;
    char set[16];
    if (nt < 4)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "a line is 'binding SET.BINDING KIND argOFF [key=VALUE ...]' (KIND "
                         "storage-buffer uniform-buffer storage-image sampled-image "
                         "combined-image-sampler sampler)");
    if (dot && dot - tok[1] < (long)sizeof set)
        snprintf(set, sizeof set, "%.*s", (int)(dot - tok[1]), tok[1]);
    if (!dot || dot - tok[1] >= (long)sizeof set || !number(set, 32, &b.set) ||
        !number(dot + 1, 1u << 16, &b.binding))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "'%s': expected SET.BINDING, two decimals (set below 32)", tok[1]);
    for (size_t i = 0; i < sizeof later / sizeof later[0]; i++)
        if (!strcmp(tok[2], later[i]))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "binding %u.%u: %s bindings are not yet supported in an own "
                             "interface", b.set, b.binding, tok[2]);
    size_t k = 0;
    while (k < sizeof kind_names / sizeof kind_names[0] && strcmp(tok[2], kind_names[k]))
        k++;
    if (k == sizeof kind_names / sizeof kind_names[0])
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "binding %u.%u: '%s': expected storage-buffer, uniform-buffer, "
                         "storage-image, sampled-image, combined-image-sampler or sampler", b.set,
                         b.binding, tok[2]);
    b.kind = (vkrr_port_bind_kind)k;
    b.no_arg = b.kind == VKRR_PORT_SAMPLER && !strcmp(tok[3], "-");
    vkrr_status st = VKRR_OK;
    uint32_t run = 0; /* K:argOFF, launch K of a fused run (portexpr.h) */
    if (!strncmp(tok[3], "scratch:", 8)) { /* a buffer of the port's own (portpass.h) */
        if ((st = vkrr_port_scratch_ref(f, &b, tok[3] + 8, name, line, err)) != VKRR_OK)
            return st;
    } else if (!b.no_arg && (!vkrr_port_launch_prefix(&tok[3], &run) || strncmp(tok[3], "arg", 3) ||
                             !number(tok[3] + 3, VKRR_ARGS_MAX_BYTES, &b.arg)))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "binding %u.%u: '%s': expected the %s argument as argOFF (arg8: "
                         "the word at byte 8)", b.set, b.binding, tok[3],
                         b.kind <= VKRR_PORT_UNIFORM_BUFFER ? "pointer" : "texture or surface");
    b.arg += run * VKRR_ARGS_MAX_BYTES;
    st = b.kind <= VKRR_PORT_UNIFORM_BUFFER ? buffer_keys(&b, tok, nt, name, line, err)
                                            : image_keys(&b, tok, nt, name, line, err);
    if (st != VKRR_OK)
        return st;
    for (uint32_t i = 0; i < f->nbind; i++)
        if (f->bind[i].set == b.set && f->bind[i].binding == b.binding)
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "binding %u.%u is given twice (first on line %ld)", b.set, b.binding,
                             f->bind[i].line);
    if (f->nbind == VKRR_PORT_MAX_BINDINGS)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "more than %d bindings",
                         VKRR_PORT_MAX_BINDINGS);
    f->bind[f->nbind++] = b;
    return VKRR_OK;
}

static unsigned scalar_bytes(vkrr_port_scalar t)
{
    return t >= VKRR_PORT_U64 ? 8u : 4u;
}

static vkrr_status parse_push(vkrr_port_iface *f, char **tok, int nt, const char *name, long line,
                              vkrr_error *err)
{
    vkrr_port_const c = {.line = line};
    if (nt != 4)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "a line is 'push OFFSET u32|i32|f32|u64|i64 VALUE'");
    if (!number(tok[1], VKRR_PORT_PUSH_MAX, &c.where) || c.where % 4)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "push '%s': the offset is a multiple of 4 below %d", tok[1], VKRR_PORT_PUSH_MAX);
    vkrr_status st = parse_const(&c, tok[2], tok[3], true, name, line, err);
    if (st != VKRR_OK)
        return st;
    unsigned n = scalar_bytes(c.type);
    if (c.where + n > VKRR_PORT_PUSH_MAX)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "push %u %s ends past byte %d", c.where,
                         tok[2], VKRR_PORT_PUSH_MAX);
    for (uint32_t i = 0; i < f->npush; i++) {
        const vkrr_port_const *o = &f->push[i];
        if (c.where < o->where + scalar_bytes(o->type) && o->where < c.where + n)
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "push %u: its bytes overlap the push of line %ld", c.where, o->line);
    }
    f->push[f->npush++] = c;
    return VKRR_OK;
}

static vkrr_status parse_spec(vkrr_port_iface *f, char **tok, int nt, const char *name, long line,
                              vkrr_error *err)
{
    vkrr_port_const c = {.line = line};
    if (nt != 4 || !number(tok[1], 1u << 31, &c.where))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "a line is 'specialize ID u32|i32|f32 VALUE' (ID a decimal)");
    vkrr_status st = parse_const(&c, tok[2], tok[3], false, name, line, err);
    if (st != VKRR_OK)
        return st;
    for (uint32_t i = 0; i < f->nspec; i++)
        if (f->spec[i].where == c.where)
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "specialize %u is given twice (first on line %ld)", c.where, f->spec[i].line);
    if (f->nspec == VKRR_PORT_MAX_SPECS)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "more than %d specialisation constants",
                         VKRR_PORT_MAX_SPECS);
    f->spec[f->nspec++] = c;
    return VKRR_OK;
}

static vkrr_status parse_shape(vkrr_port_iface *f, char **tok, int nt, const char *name, long line,
                               vkrr_error *err)
{
    bool wg = !strcmp(tok[0], "workgroup");
    if (nt != 4)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "a line is '%s X Y Z'", tok[0]);
    if (wg ? f->workgroup_line : f->dispatch_line)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "%s is given twice (first on line %ld)",
                         tok[0], wg ? f->workgroup_line : f->dispatch_line);
    for (int i = 0; i < 3; i++) {
        const char *why = NULL;
        if (wg && !number(tok[i + 1], 65536, &f->workgroup[i]))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "workgroup '%s': a decimal constant, 1..65535", tok[i + 1]);
        if (wg && !f->workgroup[i])
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "workgroup '%s': 1..65535", tok[i + 1]);
        if (!wg && !vkrr_port_expr_parse(tok[i + 1], &f->dispatch[i], &why))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "dispatch '%s': %s", tok[i + 1], why);
        if (!wg)
            snprintf(f->dispatch[i].text, sizeof f->dispatch[i].text, "%s", tok[i + 1]);
    }
    *(wg ? &f->workgroup_line : &f->dispatch_line) = line;
    return VKRR_OK;
}

vkrr_status vkrr_port_iface_line(vkrr_port_iface **fp, char **tok, int nt, const char *name,
                                 long line, vkrr_error *err)
{
    if (!strcmp(tok[0], "interface")) {
        if (nt != 2 || (strcmp(tok[1], "own") && strcmp(tok[1], "builtin")))
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "a line is 'interface own' (the shader's own bindings, below) or "
                             "'interface builtin' (bindings.glsl, the default)");
        if (*fp)
            return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                             "interface is given twice (first on line %ld)", (*fp)->line);
        if (!strcmp(tok[1], "builtin"))
            return VKRR_OK;
        if (!(*fp = calloc(1, sizeof **fp)))
            return vkrr_fail(err, VKRR_ERR_NOMEM, name, line, -1, "out of memory");
        (*fp)->line = line;
        return VKRR_OK;
    }
    if (!*fp)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "'%s' describes a shader's own interface: it needs 'interface own' above it",
                         tok[0]);
    if (vkrr_port_pass_keyword(tok[0]))
        return vkrr_port_pass_line(*fp, tok, nt, name, line, err);
    vkrr_port_iface *f = vkrr_port_pass_current(*fp); /* below a `pass` line: that pass's */
    if (!strcmp(tok[0], "binding"))
        return parse_binding(f, tok, nt, name, line, err);
    if (!strcmp(tok[0], "push"))
        return parse_push(f, tok, nt, name, line, err);
    if (!strcmp(tok[0], "specialize"))
        return parse_spec(f, tok, nt, name, line, err);
    return parse_shape(f, tok, nt, name, line, err);
}

void vkrr_port_iface_free(vkrr_port_iface *f)
{
    if (!f)
        return;
    for (uint32_t p = 0; p < f->npass; p++)
        free(f->pass[p]);
    for (uint32_t k = 0; k < f->ncovers; k++)
        free(f->covers[k]);
    free(f->covers);
    free(f->scratch);
    free(f);
}

/* ---- evaluation --------------------------------------------------------- */

/* What the evaluation reads of a launch, whichever kind it is. */
struct pi_image;
typedef struct pi_site {
    vkrr_port_env env;
    const vkrr_pointer *pointers;
    uint32_t npointers;
    const uint64_t *alloc_size;
    const struct pi_image *images;
    uint32_t nimages;
    char what[300];          /* "launch #3 my_kernel" */
} pi_site;

/* What it reads of a texture or surface (vkrr_image or vkrr_replay_image). */
typedef struct pi_image {
    uint32_t offset, format, channels;
    vkrr_image_kind kind;
    vkrr_sampler sampler;
} pi_image;

static vkrr_status eval_value(const vkrr_port_const *c, const char *kind, const char *name,
                              const pi_site *s, uint8_t out[8], vkrr_error *err)
{
    char why[200];
    memset(out, 0, 8);
    if (c->kind == VKRR_PORT_VALUE_F32_WORD) {
        if (c->at + 4 > s->env.args_bytes)
            return vkrr_fail(err, VKRR_ERR_RANGE, name, c->line, -1,
                             "%s %u: 'f32@%u' is past the %u-byte parameter block (%s)", kind,
                             c->where, c->at, s->env.args_bytes, s->what);
        memcpy(out, s->env.args + c->at, 4);
        return VKRR_OK;
    }
    if (c->kind == VKRR_PORT_VALUE_F32_CONST) {
        memcpy(out, &c->f, 4);
        return VKRR_OK;
    }
    int64_t v;
    if (!vkrr_port_expr_eval(&c->e, &s->env, &v, why, sizeof why))
        return vkrr_fail(err, VKRR_ERR_RANGE, name, c->line, -1, "%s %u: '%s': %s (%s)", kind,
                         c->where, c->e.text, why, s->what);
    bool ok = c->type == VKRR_PORT_U32 ? v >= 0 && v <= UINT32_MAX
            : c->type == VKRR_PORT_I32 ? v >= INT32_MIN && v <= INT32_MAX
            : c->type == VKRR_PORT_U64 ? v >= 0 : true;
    if (!ok)
        return vkrr_fail(err, VKRR_ERR_RANGE, name, c->line, -1,
                         "%s %u: '%s' is %lld, outside its type's range (%s)", kind, c->where,
                         c->e.text, (long long)v, s->what);
    if (c->type == VKRR_PORT_F32) {
        float f = (float)v;
        memcpy(out, &f, 4);
    } else {
        uint64_t u = (uint64_t)v;
        for (int b = 0; b < 8; b++)
            out[b] = (uint8_t)(u >> (8 * b));
    }
    return VKRR_OK;
}

static vkrr_status eval_binding(const vkrr_port_bind *b, const char *name, const pi_site *s,
                                const vkrr_port_iface_run *run, const vkrr_port_scratch *scratch,
                                vkrr_port_buffer_use *u, vkrr_error *err)
{
    const vkrr_pointer *pt = NULL;
    vkrr_pointer own = {b->arg, b->arg, 0}; /* a scratch buffer: its view from its start */
    for (uint32_t p = 0; p < s->npointers && !pt && !b->scratch; p++)
        if (s->pointers[p].offset == b->arg)
            pt = &s->pointers[p];
    if (b->scratch)
        pt = &own;
    if (!pt)
        return vkrr_fail(err, VKRR_ERR_RANGE, name, b->line, -1,
                         "binding %u.%u: arg%u is not a pointer into an allocation in %s", b->set,
                         b->binding, b->arg, s->what);
    uint64_t asize = b->scratch ? run->scratch_size[b->arg] : s->alloc_size[pt->alloc];
    char of[64]; /* what the view is of, in messages */
    if (b->scratch)
        snprintf(of, sizeof of, "scratch %s's %llu-byte buffer", scratch[b->arg].name,
                 (unsigned long long)asize);
    else
        snprintf(of, sizeof of, "arg%u's %llu-byte allocation", b->arg, (unsigned long long)asize);
    int64_t off = 0, start, size;
    char why[200];
    if (b->has_offset && !vkrr_port_expr_eval(&b->offset, &s->env, &off, why, sizeof why))
        return vkrr_fail(err, VKRR_ERR_RANGE, name, b->line, -1, "binding %u.%u: '%s': %s (%s)",
                         b->set, b->binding, b->offset.text, why, s->what);
    if (__builtin_add_overflow((int64_t)pt->delta, off, &start) || start < 0 || (uint64_t)start >= asize)
        return vkrr_fail(err, VKRR_ERR_RANGE, name, b->line, -1,
                         "binding %u.%u: the view starts at byte %lld of %s: outside it (%s)", b->set,
                         b->binding, (long long)start, of, s->what);
    size = (int64_t)(asize - (uint64_t)start);
    if (b->has_size && !vkrr_port_expr_eval(&b->size, &s->env, &size, why, sizeof why))
        return vkrr_fail(err, VKRR_ERR_RANGE, name, b->line, -1, "binding %u.%u: '%s': %s (%s)",
                         b->set, b->binding, b->size.text, why, s->what);
    if (size < 1 || (uint64_t)size > asize - (uint64_t)start)
        return vkrr_fail(err, VKRR_ERR_RANGE, name, b->line, -1,
                         "binding %u.%u: %lld bytes from byte %lld are not inside %s (%s)", b->set,
                         b->binding, (long long)size, (long long)start, of, s->what);
    *u = (vkrr_port_buffer_use){b->set, b->binding, b->kind, pt->alloc, b->scratch, (uint64_t)start,
                                (uint64_t)size, b->line};
    return VKRR_OK;
}

static vkrr_status eval_image(const vkrr_port_bind *b, const char *name, const pi_site *s,
                              vkrr_port_image_use *u, vkrr_error *err)
{
    *u = (vkrr_port_image_use){b->set, b->binding, b->kind, UINT32_MAX, b->format, VKRR_IMGMAP_NONE,
                               {0}, b->line};
    const pi_image *im = NULL;
    if (!b->no_arg) {
        for (uint32_t i = 0; i < s->nimages && !im; i++)
            if (s->images[i].offset == b->arg)
                im = &s->images[i], u->image = i;
        if (!im)
            return vkrr_fail(err, VKRR_ERR_RANGE, name, b->line, -1,
                             "binding %u.%u: arg%u is not a texture or surface in %s", b->set,
                             b->binding, b->arg, s->what);
        u->sampler = im->sampler;
    }
    if (b->kind != VKRR_PORT_SAMPLER) {
        const vkrr_cuformat_info *fi = vkrr_cuformat_find(im->format);
        u->map = vkrr_imgformat_map(im->format, im->channels, b->format);
        if (u->map == VKRR_IMGMAP_NONE)
            return vkrr_fail(err, VKRR_ERR_RANGE, name, b->line, -1,
                             "binding %u.%u: format=%s does not fit arg%u's CUDA array (%s x %u; "
                             "docs/own-interface.md lists the formats that do) in %s", b->set,
                             b->binding, b->format->name, b->arg, fi ? fi->name : "unknown format",
                             im->channels, s->what);
    }
    if (b->kind == VKRR_PORT_COMBINED_IMAGE_SAMPLER || b->kind == VKRR_PORT_SAMPLER) {
        if (b->sampler.filter != VKRR_PORT_SAMPLER_CAPTURED)
            u->sampler.filter = b->sampler.filter == VKRR_PORT_SAMPLER_LINEAR ? VKRR_FILTER_LINEAR
                                                                              : VKRR_FILTER_POINT;
        if (b->sampler.address >= 0)
            for (int a = 0; a < 3; a++)
                u->sampler.address[a] = b->sampler.address;
        if (b->sampler.normalized >= 0)
            u->sampler.normalized = b->sampler.normalized;
    }
    return VKRR_OK;
}

static vkrr_status eval_site(const vkrr_port_iface *f, const char *name, const pi_site *s,
                             vkrr_port_iface_run *out, vkrr_error *err)
{
    vkrr_status st;
    memset(out, 0, sizeof *out);
    if ((st = vkrr_port_scratch_eval(f, name, &s->env, s->what, out, err)) != VKRR_OK)
        return st;
    for (uint32_t i = 0; i < f->nbind; i++)
        if ((st = f->bind[i].kind <= VKRR_PORT_UNIFORM_BUFFER
                      ? eval_binding(&f->bind[i], name, s, out, (f->head ? f->head : f)->scratch,
                                     &out->buf[out->nbuf++], err)
                      : eval_image(&f->bind[i], name, s, &out->img[out->nimg++], err)) != VKRR_OK)
            return st;
    for (uint32_t i = 0; i < f->npush; i++) {
        uint8_t v[8];
        const vkrr_port_const *c = &f->push[i];
        if ((st = eval_value(c, "push", name, s, v, err)) != VKRR_OK)
            return st;
        memcpy(out->push + c->where, v, scalar_bytes(c->type));
        if (c->where + scalar_bytes(c->type) > out->push_bytes)
            out->push_bytes = c->where + scalar_bytes(c->type);
    }
    for (uint32_t i = 0; i < f->nspec; i++) {
        uint8_t v[8];
        if ((st = eval_value(&f->spec[i], "specialize", name, s, v, err)) != VKRR_OK)
            return st;
        out->spec_id[out->nspec] = f->spec[i].where;
        memcpy(&out->spec_value[out->nspec++], v, 4);
    }
    for (int i = 0; i < 3; i++) {
        int64_t v = s->env.grid[i];
        char why[200];
        if (f->dispatch_line && !vkrr_port_expr_eval(&f->dispatch[i], &s->env, &v, why, sizeof why))
            return vkrr_fail(err, VKRR_ERR_RANGE, name, f->dispatch_line, -1, "dispatch '%s': %s (%s)",
                             f->dispatch[i].text, why, s->what);
        if (v < 1 || v > UINT32_MAX)
            return vkrr_fail(err, VKRR_ERR_RANGE, name, f->dispatch_line, -1,
                             "dispatch '%s' is %lld workgroups (1..2^32-1) in %s",
                             f->dispatch[i].text, (long long)v, s->what);
        out->dispatch[i] = (uint32_t)v;
    }
    return VKRR_OK;
}

vkrr_status vkrr_port_iface_eval_launch(const vkrr_port_iface *f, const char *name,
                                        const vkrr_launch *l, vkrr_port_iface_run *out,
                                        vkrr_error *err)
{
    pi_site s = {{l->args, l->args_bytes, {l->grid[0], l->grid[1], l->grid[2]},
                  {l->block[0], l->block[1], l->block[2]}}, l->pointers, l->npointers, NULL, NULL, 0, ""};
    uint64_t *sizes = calloc(l->nallocs ? l->nallocs : 1, sizeof *sizes);
    if (!sizes)
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, 0, -1, "out of memory");
    pi_image *ims = calloc(l->nimages ? l->nimages : 1, sizeof *ims);
    if (!ims) {
        free(sizes);
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, 0, -1, "out of memory");
    }
    for (uint32_t a = 0; a < l->nallocs; a++)
        sizes[a] = l->allocs[a].size;
    for (uint32_t i = 0; i < l->nimages; i++)
        ims[i] = (pi_image){l->images[i].offset, l->images[i].format, l->images[i].channels,
                            l->images[i].kind, l->images[i].sampler};
    s.alloc_size = sizes;
    s.images = ims;
    s.nimages = l->nimages;
    snprintf(s.what, sizeof s.what, "launch #%llu %s", (unsigned long long)l->sequence, l->kernel);
    vkrr_status st = eval_site(f, name, &s, out, err);
    vkrr_port_iface_run *pass = f->npass && st == VKRR_OK ? malloc(sizeof *pass) : NULL;
    if (f->npass && st == VKRR_OK && !pass)
        st = vkrr_fail(err, VKRR_ERR_NOMEM, name, 0, -1, "out of memory");
    for (uint32_t p = 0; pass && p < f->npass && st == VKRR_OK; p++) /* each pass checked */
        st = eval_site(f->pass[p], name, &s, p ? pass : out, err);
    free(pass);
    free(ims);
    free(sizes);
    return st;
}

vkrr_status vkrr_port_iface_eval_replay(const vkrr_port_iface *f, const char *name,
                                        const vkrr_replay *r, vkrr_port_iface_run *out,
                                        vkrr_error *err)
{
    pi_site s = {{r->args, r->args_bytes, {r->grid[0], r->grid[1], r->grid[2]},
                  {r->block[0], r->block[1], r->block[2]}}, r->pointers, r->npointers, NULL, NULL, 0, ""};
    uint64_t *sizes = calloc(r->nallocs ? r->nallocs : 1, sizeof *sizes);
    if (!sizes)
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, 0, -1, "out of memory");
    pi_image *ims = calloc(r->nimages ? r->nimages : 1, sizeof *ims);
    if (!ims) {
        free(sizes);
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, 0, -1, "out of memory");
    }
    for (uint32_t a = 0; a < r->nallocs; a++)
        sizes[a] = r->allocs[a].size;
    for (uint32_t i = 0; i < r->nimages; i++)
        ims[i] = (pi_image){r->images[i].offset, r->images[i].format, r->images[i].channels,
                            r->images[i].kind, r->images[i].sampler};
    s.alloc_size = sizes;
    s.images = ims;
    s.nimages = r->nimages;
    snprintf(s.what, sizeof s.what, "a launch of %s", r->kernel);
    vkrr_status st = eval_site(f, name, &s, out, err);
    free(ims);
    free(sizes);
    return st;
}
