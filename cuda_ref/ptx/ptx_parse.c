/* ptx_parse.c - PTX text -> module: variables (with initializers), functions
 * (params, performance directives), and per function its registers, labels
 * and raw instructions with every name resolved through PTX's block scopes.
 * Anything malformed is VKRR_ERR_PARSE naming the file and line; a directive
 * this interpreter cannot honour is VKRR_ERR_UNSUPPORTED. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_parse.h"

int ps_fail(parser *ps, vkrr_status st, uint32_t line, const char *fmt, ...)
{
    if (ps->failed)
        return -1;
    ps->failed = true;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    vkrr_fail(ps->err, st, ps->m->name, (long)line, -1, "%s", msg);
    return -1;
}
const ptx_tok *ps_peek(parser *ps, int k)
{
    const ptx_tok *t = ptx_peek(&ps->lx, k);
    if (t->kind == TK_ERROR && !ps->failed)
        ps_fail(ps, VKRR_ERR_PARSE, ps->lx.errline, "%s", ps->lx.errmsg);
    return t;
}
ptx_tok ps_next(parser *ps)
{
    ps_peek(ps, 0);
    return ptx_next(&ps->lx);
}
bool ps_is_punct(const ptx_tok *t, char c) { return t->kind == TK_PUNCT && t->punct == c; }
bool ps_is_word(const ptx_tok *t, int kind, const char *w)
{
    return t->kind == kind && t->len == strlen(w) && !memcmp(t->s, w, t->len);
}
bool ps_expect(parser *ps, char c)
{
    const ptx_tok *t = ps_peek(ps, 0);
    if (!ps_is_punct(t, c)) {
        if (t->kind != TK_ERROR)
            FAIL(ps, t, "expected '%c', found '%.*s'", c, (int)(t->len ? t->len : 3),
                 t->len ? t->s : "EOF");
        return false;
    }
    ps_next(ps);
    return true;
}
char *ps_dup(parser *ps, const char *s, size_t n)
{
    char *d = ptx_arena_strndup(&ps->m->arena, s, n);
    if (!d)
        ps_fail(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory");
    return d;
}

/* ---- symbols ------------------------------------------------------------ */
static uint32_t hash(const char *s, uint32_t n)
{
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h & (NBUCKET - 1u);
}

bool ps_sym_add(parser *ps, const char *name, uint32_t len, int kind, uint32_t id, uint32_t count)
{
    if (!ptx_grow((void **)&ps->syms, &ps->capsyms, ps->nsyms, sizeof *ps->syms)) {
        ps_fail(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory");
        return false;
    }
    uint32_t h = hash(name, len);
    sym *s = &ps->syms[ps->nsyms];
    *s = (sym){name, len, (uint8_t)kind, id, count, ps->depth, ps->bucket[h]};
    ps->bucket[h] = (int32_t)ps->nsyms++;
    return true;
}

const sym *ps_sym_find(parser *ps, const char *name, uint32_t len, int kind)
{
    for (int32_t i = ps->bucket[hash(name, len)]; i >= 0; i = ps->syms[i].next) {
        const sym *s = &ps->syms[i];
        if (s->len == len && !memcmp(s->name, name, len) && (kind < 0 || s->kind == kind))
            return s;
    }
    return NULL;
}

/* Declared at the current depth already? */
bool ps_sym_here(parser *ps, const char *name, uint32_t len)
{
    const sym *s = ps_sym_find(ps, name, len, -1);
    return s && s->depth == ps->depth;
}

void ps_scope_pop(parser *ps)
{
    while (ps->nsyms > 0 && ps->syms[ps->nsyms - 1].depth >= ps->depth) {
        sym *s = &ps->syms[--ps->nsyms];
        ps->bucket[hash(s->name, s->len)] = s->next;
    }
    ps->depth--;
}

/* A register name: exact, or PREFIX<digits> inside a %r<N> range. */
int32_t ps_reg_lookup(parser *ps, const char *name, uint32_t len)
{
    const sym *s = ps_sym_find(ps, name, len, SK_REG);
    const sym *any = ps_sym_find(ps, name, len, -1);
    if (s && any == s)
        return (int32_t)s->id;
    uint32_t d = len;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d == len || d == 0 || (len - d > 1 && name[d] == '0') || len - d > 9)
        return -1;
    const sym *r = ps_sym_find(ps, name, d, SK_RANGE);
    if (!r)
        return -1;
    uint32_t n = (uint32_t)strtoul(name + d, NULL, 10);
    return n < r->count ? (int32_t)(r->id + n) : -1;
}

/* ---- small syntax pieces ------------------------------------------------- */
bool ps_take_int(parser *ps, uint64_t *v)
{
    const ptx_tok *t = ps_peek(ps, 0);
    if (t->kind != TK_INT) {
        if (t->kind != TK_ERROR)
            FAIL(ps, t, "expected an integer, found '%.*s'", (int)t->len, t->s);
        return false;
    }
    *v = ps_next(ps).u;
    return true;
}

/* Skips the rest of a line-oriented directive (.version, .target, .file, .loc). */
void ps_skip_line(parser *ps, uint32_t line)
{
    while (!ps->failed) {
        const ptx_tok *t = ps_peek(ps, 0);
        if (t->kind == TK_EOF || t->line != line)
            return;
        ps_next(ps);
    }
}

/* .section NAME { ... }: debug information, skipped. */
static void skip_section(parser *ps)
{
    int depth = 0;
    while (!ps->failed) {
        ptx_tok t = ps_next(ps);
        if (t.kind == TK_EOF) {
            FAIL(ps, &t, "unterminated .section");
            return;
        }
        if (ps_is_punct(&t, '{'))
            depth++;
        else if (ps_is_punct(&t, '}') && --depth <= 0)
            return;
    }
}

/* [.align N] [.vN] .type: the declaration prefix of variables and params.
 * Also skips .ptr .space .align N (kernel pointer params). */
static bool decl_type(parser *ps, uint32_t *align, ptx_type *type, unsigned *vec)
{
    *align = 0;
    *type = PT_NONE;
    *vec = 1;
    while (!ps->failed) {
        const ptx_tok *t = ps_peek(ps, 0);
        if (t->kind != TK_DOT)
            break;
        char w[32];
        if (t->len >= sizeof w)
            return FAIL(ps, t, "unknown directive '%.*s'", (int)t->len, t->s), false;
        memcpy(w, t->s, t->len);
        w[t->len] = 0;
        if (!strcmp(w, ".align")) {
            ps_next(ps);
            uint64_t a;
            if (!ps_take_int(ps, &a))
                return false;
            if (a == 0 || (a & (a - 1)) || a > 4096)
                return FAIL(ps, t, "bad alignment %llu", (unsigned long long)a), false;
            if (*type == PT_NONE) /* after the type it is a .ptr's pointee alignment */
                *align = (uint32_t)a;
            continue;
        }
        if (!strcmp(w, ".v2") || !strcmp(w, ".v4") || !strcmp(w, ".v8")) {
            *vec = (unsigned)(w[2] - '0');
            ps_next(ps);
            continue;
        }
        if (!strcmp(w, ".ptr") || !strcmp(w, ".global") || !strcmp(w, ".shared") ||
            !strcmp(w, ".const") || !strcmp(w, ".local")) {
            if (*type == PT_NONE && strcmp(w, ".ptr"))
                break; /* a state space before the type: not ours */
            ps_next(ps);
            continue;
        }
        ptx_type ty = ptx_type_from(w);
        if (ty == PT_NONE || *type != PT_NONE)
            break;
        *type = ty;
        ps_next(ps);
    }
    if (*type == PT_NONE && !ps->failed) {
        const ptx_tok *t = ps_peek(ps, 0);
        FAIL(ps, t, "expected a type, found '%.*s'", (int)t->len, t->s);
    }
    return !ps->failed;
}

/* NAME [ '[' N ']' ...]: returns elements (0 for '[]'), sets *unsized. */
static bool decl_name(parser *ps, ptx_tok *name, uint64_t *elems, bool *unsized)
{
    *name = ps_next(ps);
    if (name->kind != TK_IDENT)
        return FAIL(ps, name, "expected a name"), false;
    *elems = 1;
    *unsized = false;
    while (ps_is_punct(ps_peek(ps, 0), '[')) {
        ps_next(ps);
        if (ps_is_punct(ps_peek(ps, 0), ']')) {
            ps_next(ps);
            *unsized = true;
            continue;
        }
        uint64_t n;
        if (!ps_take_int(ps, &n) || !ps_expect(ps, ']'))
            return false;
        if (n == 0 || n > (1ull << 32) || *elems > (1ull << 32) / n)
            return FAIL(ps, name, "array size out of range"), false;
        *elems *= n;
    }
    return true;
}

/* One initializer value into dst (elem bytes, type t). */
static bool init_value(parser *ps, uint8_t *dst, unsigned elem, ptx_type t)
{
    bool neg = false;
    if (ps_is_punct(ps_peek(ps, 0), '-')) {
        ps_next(ps);
        neg = true;
    }
    ptx_tok v = ps_next(ps);
    uint64_t bits;
    if (v.kind == TK_INT) {
        bits = neg ? 0 - v.u : v.u;
        if (t == PT_F32) {
            float f = neg ? -(float)v.u : (float)v.u;
            bits = ptx_fb(f);
        } else if (t == PT_F64) {
            bits = ptx_db(neg ? -(double)v.u : (double)v.u);
        }
    } else if (v.kind == TK_F32 || v.kind == TK_F64 || v.kind == TK_DEC) {
        double d = v.kind == TK_F32 ? (double)ptx_f(v.u) : v.kind == TK_F64 ? ptx_d(v.u) : v.d;
        if (neg)
            d = -d;
        if (t == PT_F32)
            bits = ptx_fb((float)d);
        else if (t == PT_F64)
            bits = ptx_db(d);
        else
            return FAIL(ps, &v, "a float initializer for a %s variable", ptx_type_name(t)), false;
    } else if (v.kind == TK_IDENT) {
        return ps_fail(ps, VKRR_ERR_UNSUPPORTED, v.line,
                       "initializers holding addresses ('%.*s') are not supported", (int)v.len, v.s),
               false;
    } else {
        return FAIL(ps, &v, "bad initializer value"), false;
    }
    memcpy(dst, &bits, elem);
    return true;
}

static bool initializer(parser *ps, ptx_var *var, unsigned elem)
{
    uint64_t n = 0, max = elem ? var->size / elem : 0;
    var->init = ptx_arena_alloc(&ps->m->arena, var->size ? var->size : 1);
    if (!var->init)
        return ps_fail(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory"), false;
    int depth = 0;
    do {
        while (ps_is_punct(ps_peek(ps, 0), '{')) {
            ps_next(ps);
            depth++;
        }
        const ptx_tok *t = ps_peek(ps, 0);
        if (n >= max)
            return FAIL(ps, t, "too many initializer values for '%s'", var->name), false;
        if (!init_value(ps, var->init + n * elem, elem, var->type))
            return false;
        n++;
        while (depth > 0 && ps_is_punct(ps_peek(ps, 0), '}')) {
            ps_next(ps);
            depth--;
        }
        if (!ps_is_punct(ps_peek(ps, 0), ','))
            break;
        ps_next(ps);
    } while (!ps->failed);
    if (depth != 0)
        return FAIL(ps, ps_peek(ps, 0), "unbalanced braces in an initializer"), false;
    return !ps->failed;
}

/* .global/.const/.shared/.local/.param variable (after the space word). */
bool ps_var_decl(parser *ps, unsigned space, const ptx_tok *at, bool is_extern)
{
    uint32_t align;
    ptx_type type;
    unsigned vec;
    if (!decl_type(ps, &align, &type, &vec))
        return false;
    if (type == PT_PRED || type == PT_B128)
        return ps_fail(ps, VKRR_ERR_UNSUPPORTED, at->line, "variables of type %s", ptx_type_name(type)),
               false;
    do {
        ptx_tok name;
        uint64_t elems;
        bool unsized;
        if (!decl_name(ps, &name, &elems, &unsized))
            return false;
        unsigned elem = ptx_type_bits(type) / 8u * vec;
        if (!ptx_grow((void **)&ps->m->vars, &ps->m->capvars, ps->m->nvars, sizeof *ps->m->vars))
            return ps_fail(ps, VKRR_ERR_NOMEM, at->line, "out of memory"), false;
        ptx_var *v = &ps->m->vars[ps->m->nvars];
        v->name = ps_dup(ps, name.s, name.len);
        v->space = (uint8_t)space;
        v->type = type;
        v->align = align ? align : elem;
        v->size = unsized ? 0 : elems * elem;
        v->dynamic = unsized;
        v->func = ps->f ? ps->fidx : -1;
        if (unsized && !(space == SP_SHARED && is_extern))
            return FAIL(ps, &name, "'%s[]' without a size", v->name), false;
        if (ps_is_punct(ps_peek(ps, 0), '=')) {
            ps_next(ps);
            if (space != SP_GLOBAL && space != SP_CONST)
                return FAIL(ps, &name, "only .global and .const variables take initializers"), false;
            if (!initializer(ps, v, elem))
                return false;
        }
        if (ps_sym_here(ps, name.s, name.len))
            return FAIL(ps, &name, "'%s' is declared twice", v->name), false;
        if (!ps_sym_add(ps, v->name, name.len, SK_VAR, ps->m->nvars, 0))
            return false;
        ps->m->nvars++;
        if (!ps_is_punct(ps_peek(ps, 0), ','))
            break;
        ps_next(ps);
    } while (!ps->failed);
    return ps_expect(ps, ';');
}

/* .reg .type names; */
bool ps_reg_decl(parser *ps, const ptx_tok *at)
{
    uint32_t align;
    ptx_type type;
    unsigned vec;
    if (!decl_type(ps, &align, &type, &vec))
        return false;
    if (vec != 1)
        return ps_fail(ps, VKRR_ERR_UNSUPPORTED, at->line, "vector registers (.reg .v%u)", vec), false;
    if (type == PT_B128 || type == PT_B8 || type == PT_U8 || type == PT_S8)
        return ps_fail(ps, VKRR_ERR_UNSUPPORTED, at->line, "%s registers", ptx_type_name(type)), false;
    ptx_func *f = ps->f;
    do {
        ptx_tok name = ps_next(ps);
        uint64_t count = 1;
        bool range = false;
        if (name.kind != TK_IDENT)
            return FAIL(ps, &name, "expected a register name"), false;
        if (ps_is_punct(ps_peek(ps, 0), '<')) {
            ps_next(ps);
            if (!ps_take_int(ps, &count) || !ps_expect(ps, '>'))
                return false;
            if (count > (1u << 20))
                return FAIL(ps, &name, "too many registers"), false;
            range = true;
        }
        if (ps_sym_here(ps, name.s, name.len))
            return FAIL(ps, &name, "'%.*s' is declared twice", (int)name.len, name.s), false;
        uint32_t first = f->nregs;
        for (uint64_t i = 0; i < count; i++) {
            if (!ptx_grow((void **)&f->regs, &f->capregs, f->nregs, sizeof *f->regs))
                return ps_fail(ps, VKRR_ERR_NOMEM, at->line, "out of memory"), false;
            f->regs[f->nregs].type = type;
            f->regs[f->nregs].bits = (uint8_t)(type == PT_PRED ? 1 : ptx_type_bits(type));
            f->nregs++;
        }
        if (f->nregs > (1u << 24))
            return FAIL(ps, &name, "too many registers"), false;
        const char *nm = ps_dup(ps, name.s, name.len);
        if (!nm || !ps_sym_add(ps, nm, name.len, range ? SK_RANGE : SK_REG, first, (uint32_t)count))
            return false;
        if (!ps_is_punct(ps_peek(ps, 0), ','))
            break;
        ps_next(ps);
    } while (!ps->failed);
    return ps_expect(ps, ';');
}

/* ---- operands ------------------------------------------------------------- */
/* ( .param ... , ... ) */
static bool param_list(parser *ps, ptx_param **out, uint32_t *nout, uint32_t *bytes, bool entry)
{
    ptx_param tmp[256];
    uint32_t n = 0, off = 0;
    if (!ps_expect(ps, '('))
        return false;
    while (!ps->failed && !ps_is_punct(ps_peek(ps, 0), ')')) {
        ptx_tok d = ps_next(ps);
        if (!ps_is_word(&d, TK_DOT, ".param") && !ps_is_word(&d, TK_DOT, ".reg"))
            return FAIL(ps, &d, "expected .param"), false;
        if (ps_is_word(&d, TK_DOT, ".reg"))
            return ps_fail(ps, VKRR_ERR_UNSUPPORTED, d.line, ".reg parameters"), false;
        uint32_t align;
        ptx_type type;
        unsigned vec;
        if (!decl_type(ps, &align, &type, &vec))
            return false;
        ptx_tok name;
        uint64_t elems;
        bool unsized;
        if (!decl_name(ps, &name, &elems, &unsized))
            return false;
        if (unsized || n == 256 || type == PT_PRED)
            return FAIL(ps, &name, "bad parameter"), false;
        uint64_t size = elems * ptx_type_bits(type) / 8u * vec;
        uint32_t a = align ? align : (uint32_t)(ptx_type_bits(type) / 8u * vec);
        if (a == 0)
            a = 1;
        off = (off + a - 1) & ~(a - 1);
        if (size > 32768 || off + size > 32768)
            return FAIL(ps, &name, "parameters larger than 32 KiB"), false;
        tmp[n] = (ptx_param){ps_dup(ps, name.s, name.len), a, size, off, type};
        if (entry && !ps_sym_add(ps, tmp[n].name, name.len, SK_PARAM, n, 0))
            return false;
        off += (uint32_t)size;
        n++;
        if (!ps_is_punct(ps_peek(ps, 0), ','))
            break;
        ps_next(ps);
    }
    if (!ps_expect(ps, ')'))
        return false;
    *out = ptx_arena_alloc(&ps->m->arena, sizeof **out * (n ? n : 1));
    if (!*out)
        return ps_fail(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory"), false;
    memcpy(*out, tmp, sizeof *tmp * n);
    *nout = n;
    *bytes = off;
    return true;
}

static bool dims(parser *ps, uint32_t d[3])
{
    d[0] = d[1] = d[2] = 1;
    for (int i = 0; i < 3; i++) {
        uint64_t v;
        if (!ps_take_int(ps, &v))
            return false;
        d[i] = v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
        if (!ps_is_punct(ps_peek(ps, 0), ','))
            return true;
        ps_next(ps);
    }
    return true;
}

static bool function(parser *ps, bool entry, const ptx_tok *at)
{
    vkrr_ptx_module *m = ps->m;
    ptx_param *rets = NULL;
    uint32_t nrets = 0, rb = 0;
    ps->depth++; /* params live here */
    if (!entry && ps_is_punct(ps_peek(ps, 0), '(')) {
        if (!param_list(ps, &rets, &nrets, &rb, false))
            return false;
    }
    ptx_tok name = ps_next(ps);
    if (name.kind != TK_IDENT)
        return FAIL(ps, &name, "expected a function name"), false;
    /* a later definition completes an earlier declaration */
    int32_t idx = -1;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (strlen(m->funcs[i].name) == name.len && !memcmp(m->funcs[i].name, name.s, name.len))
            idx = (int32_t)i;
    if (idx < 0) {
        if (!ptx_grow((void **)&m->funcs, &m->capfuncs, m->nfuncs, sizeof *m->funcs))
            return ps_fail(ps, VKRR_ERR_NOMEM, name.line, "out of memory"), false;
        idx = (int32_t)m->nfuncs++;
        ptx_func *nf = &m->funcs[idx];
        memset(nf, 0, sizeof *nf);
        nf->name = ps_dup(ps, name.s, name.len);
        /* visible from the module scope (depth 0) */
        int save = ps->depth;
        ps->depth = 0;
        uint32_t mark = ps->nsyms;
        bool ok = ps_sym_add(ps, nf->name, name.len, SK_FUNC, (uint32_t)idx, 0);
        ps->depth = save;
        /* the entry must sit below the function's scope entries: it does, as
         * nothing was added at depth 1 yet. */
        (void)mark;
        if (!ok)
            return false;
    }
    ptx_func *f = &m->funcs[idx];
    ps->f = f;
    ps->fidx = idx;
    f->entry = entry;
    f->line = at->line;
    f->rets = rets;
    f->nrets = nrets;
    f->maxntid[0] = f->maxntid[1] = f->maxntid[2] = 0;
    if (ps_is_punct(ps_peek(ps, 0), '(')) {
        if (!param_list(ps, &f->params, &f->nparams, &f->params_bytes, true))
            return false;
    }
    for (;;) {
        const ptx_tok *t = ps_peek(ps, 0);
        if (t->kind != TK_DOT)
            break;
        ptx_tok d = ps_next(ps);
        if (ps_is_word(&d, TK_DOT, ".maxntid")) {
            if (!dims(ps, f->maxntid))
                return false;
        } else if (ps_is_word(&d, TK_DOT, ".reqntid")) {
            if (!dims(ps, f->reqntid))
                return false;
        } else if (ps_is_word(&d, TK_DOT, ".minnctapersm") || ps_is_word(&d, TK_DOT, ".maxnreg") ||
                   ps_is_word(&d, TK_DOT, ".maxnctapersm")) {
            uint64_t v;
            if (!ps_take_int(ps, &v))
                return false;
        } else if (ps_is_word(&d, TK_DOT, ".noreturn")) {
        } else if (ps_is_word(&d, TK_DOT, ".pragma")) {
            while (!ps->failed && !ps_is_punct(ps_peek(ps, 0), ';') && ps_peek(ps, 0)->kind != TK_EOF)
                ps_next(ps);
            if (!ps_expect(ps, ';'))
                return false;
        } else {
            return ps_fail(ps, VKRR_ERR_UNSUPPORTED, d.line, "function directive '%.*s'", (int)d.len,
                           d.s),
                   false;
        }
    }
    bool ok = true;
    if (ps_is_punct(ps_peek(ps, 0), ';')) {
        ps_next(ps);
    } else if (ps_is_punct(ps_peek(ps, 0), '{')) {
        if (f->defined)
            return FAIL(ps, &name, "'%s' is defined twice", f->name), false;
        ps_next(ps);
        f->defined = true;
        ok = ps_body(ps);
    } else {
        const ptx_tok *t = ps_peek(ps, 0);
        return FAIL(ps, t, "expected '{' or ';' after '%s'", f->name), false;
    }
    if (!ok)
        return false;
    ps_scope_pop(ps); /* the params */
    ps->f = NULL;
    ps->fidx = -1;
    return true;
}

static bool module_item(parser *ps)
{
    ptx_tok t = ps_next(ps);
    if (t.kind == TK_ERROR)
        return false;
    if (t.kind != TK_DOT)
        return FAIL(ps, &t, "expected a directive, found '%.*s'", (int)t.len, t.s), false;
    if (ps_is_word(&t, TK_DOT, ".version") || ps_is_word(&t, TK_DOT, ".address_size") ||
        ps_is_word(&t, TK_DOT, ".file") || ps_is_word(&t, TK_DOT, ".loc")) {
        ps_skip_line(ps, t.line);
        return true;
    }
    if (ps_is_word(&t, TK_DOT, ".target")) {
        while (!ps->failed && ps_peek(ps, 0)->line == t.line && ps_peek(ps, 0)->kind != TK_EOF) {
            ptx_tok w = ps_next(ps);
            if (w.kind == TK_IDENT && w.len > 3 && !memcmp(w.s, "sm_", 3))
                ps->m->sm = (uint32_t)strtoul(w.s + 3, NULL, 10);
        }
        return true;
    }
    if (ps_is_word(&t, TK_DOT, ".section")) {
        skip_section(ps);
        return true;
    }
    if (ps_is_word(&t, TK_DOT, ".pragma")) {
        while (!ps->failed && !ps_is_punct(ps_peek(ps, 0), ';') && ps_peek(ps, 0)->kind != TK_EOF)
            ps_next(ps);
        return ps_expect(ps, ';');
    }
    bool is_extern = false;
    while (ps_is_word(&t, TK_DOT, ".visible") || ps_is_word(&t, TK_DOT, ".extern") ||
           ps_is_word(&t, TK_DOT, ".weak") || ps_is_word(&t, TK_DOT, ".common")) {
        if (ps_is_word(&t, TK_DOT, ".extern"))
            is_extern = true;
        t = ps_next(ps);
    }
    if (ps_is_word(&t, TK_DOT, ".entry"))
        return function(ps, true, &t);
    if (ps_is_word(&t, TK_DOT, ".func"))
        return function(ps, false, &t);
    if (ps_is_word(&t, TK_DOT, ".global"))
        return ps_var_decl(ps, SP_GLOBAL, &t, is_extern);
    if (ps_is_word(&t, TK_DOT, ".const"))
        return ps_var_decl(ps, SP_CONST, &t, is_extern);
    if (ps_is_word(&t, TK_DOT, ".shared"))
        return ps_var_decl(ps, SP_SHARED, &t, is_extern);
    if (ps_is_word(&t, TK_DOT, ".local"))
        return ps_var_decl(ps, SP_LOCAL, &t, is_extern);
    if (t.kind == TK_DOT)
        return ps_fail(ps, VKRR_ERR_UNSUPPORTED, t.line, "module directive '%.*s'", (int)t.len, t.s),
               false;
    return FAIL(ps, &t, "expected a directive"), false;
}

vkrr_status ptx_parse(vkrr_ptx_module *m, const char *text, size_t len, vkrr_error *err)
{
    parser *ps = calloc(1, sizeof *ps);
    if (!ps)
        return vkrr_fail(err, VKRR_ERR_NOMEM, m->name, 0, -1, "out of memory");
    ps->m = m;
    ps->err = err;
    ps->fidx = -1;
    memset(ps->bucket, 0xff, sizeof ps->bucket);
    ptx_lex_init(&ps->lx, text, len);
    while (!ps->failed && ps_peek(ps, 0)->kind != TK_EOF)
        module_item(ps);
    /* a function cut short by an error still owns its arrays: freed with the module */
    vkrr_status st = ps->failed ? err->status : VKRR_OK;
    if (ps->failed && err->status == VKRR_OK)
        st = VKRR_ERR_PARSE;
    free(ps->syms);
    free(ps);
    return st;
}
