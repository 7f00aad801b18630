/* ptx_parse.c - PTX text -> module: variables (with initializers), functions
 * (params, performance directives), and per function its registers, labels
 * and raw instructions with every name resolved through PTX's block scopes.
 * Anything malformed is VKRR_ERR_PARSE naming the file and line; a directive
 * this interpreter cannot honour is VKRR_ERR_UNSUPPORTED. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_internal.h"

enum { SK_REG, SK_RANGE, SK_VAR, SK_PARAM, SK_FUNC };

typedef struct sym {
    const char *name;
    uint32_t len;
    uint8_t kind;
    uint32_t id, count;
    int depth;
    int32_t next;
} sym;

#define NBUCKET 4096u

typedef struct parser {
    vkrr_ptx_module *m;
    ptx_lexer lx;
    vkrr_error *err;
    bool failed;
    sym *syms;
    uint32_t nsyms, capsyms;
    int32_t bucket[NBUCKET];
    int depth;
    ptx_func *f;     /* function being parsed */
    int32_t fidx;
} parser;

static int fail_at(parser *ps, vkrr_status st, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(parser *ps, vkrr_status st, uint32_t line, const char *fmt, ...)
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
#define FAIL(ps, tok, ...) fail_at(ps, VKRR_ERR_PARSE, (tok)->line, __VA_ARGS__)

static const ptx_tok *peek(parser *ps, int k)
{
    const ptx_tok *t = ptx_peek(&ps->lx, k);
    if (t->kind == TK_ERROR && !ps->failed)
        fail_at(ps, VKRR_ERR_PARSE, ps->lx.errline, "%s", ps->lx.errmsg);
    return t;
}
static ptx_tok next(parser *ps)
{
    peek(ps, 0);
    return ptx_next(&ps->lx);
}
static bool is_punct(const ptx_tok *t, char c) { return t->kind == TK_PUNCT && t->punct == c; }
static bool is_word(const ptx_tok *t, int kind, const char *w)
{
    return t->kind == kind && t->len == strlen(w) && !memcmp(t->s, w, t->len);
}
static bool expect(parser *ps, char c)
{
    const ptx_tok *t = peek(ps, 0);
    if (!is_punct(t, c)) {
        if (t->kind != TK_ERROR)
            FAIL(ps, t, "expected '%c', found '%.*s'", c, (int)(t->len ? t->len : 3),
                 t->len ? t->s : "EOF");
        return false;
    }
    next(ps);
    return true;
}
static char *dup(parser *ps, const char *s, size_t n)
{
    char *d = ptx_arena_strndup(&ps->m->arena, s, n);
    if (!d)
        fail_at(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory");
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

static bool sym_add(parser *ps, const char *name, uint32_t len, int kind, uint32_t id, uint32_t count)
{
    if (!ptx_grow((void **)&ps->syms, &ps->capsyms, ps->nsyms, sizeof *ps->syms)) {
        fail_at(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory");
        return false;
    }
    uint32_t h = hash(name, len);
    sym *s = &ps->syms[ps->nsyms];
    *s = (sym){name, len, (uint8_t)kind, id, count, ps->depth, ps->bucket[h]};
    ps->bucket[h] = (int32_t)ps->nsyms++;
    return true;
}

static const sym *sym_find(parser *ps, const char *name, uint32_t len, int kind)
{
    for (int32_t i = ps->bucket[hash(name, len)]; i >= 0; i = ps->syms[i].next) {
        const sym *s = &ps->syms[i];
        if (s->len == len && !memcmp(s->name, name, len) && (kind < 0 || s->kind == kind))
            return s;
    }
    return NULL;
}

/* Declared at the current depth already? */
static bool sym_here(parser *ps, const char *name, uint32_t len)
{
    const sym *s = sym_find(ps, name, len, -1);
    return s && s->depth == ps->depth;
}

static void scope_pop(parser *ps)
{
    while (ps->nsyms > 0 && ps->syms[ps->nsyms - 1].depth >= ps->depth) {
        sym *s = &ps->syms[--ps->nsyms];
        ps->bucket[hash(s->name, s->len)] = s->next;
    }
    ps->depth--;
}

/* A register name: exact, or PREFIX<digits> inside a %r<N> range. */
static int32_t reg_lookup(parser *ps, const char *name, uint32_t len)
{
    const sym *s = sym_find(ps, name, len, SK_REG);
    const sym *any = sym_find(ps, name, len, -1);
    if (s && any == s)
        return (int32_t)s->id;
    uint32_t d = len;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    if (d == len || d == 0 || (len - d > 1 && name[d] == '0') || len - d > 9)
        return -1;
    const sym *r = sym_find(ps, name, d, SK_RANGE);
    if (!r)
        return -1;
    uint32_t n = (uint32_t)strtoul(name + d, NULL, 10);
    return n < r->count ? (int32_t)(r->id + n) : -1;
}

/* ---- small syntax pieces ------------------------------------------------- */
static bool take_int(parser *ps, uint64_t *v)
{
    const ptx_tok *t = peek(ps, 0);
    if (t->kind != TK_INT) {
        if (t->kind != TK_ERROR)
            FAIL(ps, t, "expected an integer, found '%.*s'", (int)t->len, t->s);
        return false;
    }
    *v = next(ps).u;
    return true;
}

/* Skips the rest of a line-oriented directive (.version, .target, .file, .loc). */
static void skip_line(parser *ps, uint32_t line)
{
    while (!ps->failed) {
        const ptx_tok *t = peek(ps, 0);
        if (t->kind == TK_EOF || t->line != line)
            return;
        next(ps);
    }
}

/* .section NAME { ... }: debug information, skipped. */
static void skip_section(parser *ps)
{
    int depth = 0;
    while (!ps->failed) {
        ptx_tok t = next(ps);
        if (t.kind == TK_EOF) {
            FAIL(ps, &t, "unterminated .section");
            return;
        }
        if (is_punct(&t, '{'))
            depth++;
        else if (is_punct(&t, '}') && --depth <= 0)
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
        const ptx_tok *t = peek(ps, 0);
        if (t->kind != TK_DOT)
            break;
        char w[32];
        if (t->len >= sizeof w)
            return FAIL(ps, t, "unknown directive '%.*s'", (int)t->len, t->s), false;
        memcpy(w, t->s, t->len);
        w[t->len] = 0;
        if (!strcmp(w, ".align")) {
            next(ps);
            uint64_t a;
            if (!take_int(ps, &a))
                return false;
            if (a == 0 || (a & (a - 1)) || a > 4096)
                return FAIL(ps, t, "bad alignment %llu", (unsigned long long)a), false;
            if (*type == PT_NONE) /* after the type it is a .ptr's pointee alignment */
                *align = (uint32_t)a;
            continue;
        }
        if (!strcmp(w, ".v2") || !strcmp(w, ".v4") || !strcmp(w, ".v8")) {
            *vec = (unsigned)(w[2] - '0');
            next(ps);
            continue;
        }
        if (!strcmp(w, ".ptr") || !strcmp(w, ".global") || !strcmp(w, ".shared") ||
            !strcmp(w, ".const") || !strcmp(w, ".local")) {
            if (*type == PT_NONE && strcmp(w, ".ptr"))
                break; /* a state space before the type: not ours */
            next(ps);
            continue;
        }
        ptx_type ty = ptx_type_from(w);
        if (ty == PT_NONE || *type != PT_NONE)
            break;
        *type = ty;
        next(ps);
    }
    if (*type == PT_NONE && !ps->failed) {
        const ptx_tok *t = peek(ps, 0);
        FAIL(ps, t, "expected a type, found '%.*s'", (int)t->len, t->s);
    }
    return !ps->failed;
}

/* NAME [ '[' N ']' ...]: returns elements (0 for '[]'), sets *unsized. */
static bool decl_name(parser *ps, ptx_tok *name, uint64_t *elems, bool *unsized)
{
    *name = next(ps);
    if (name->kind != TK_IDENT)
        return FAIL(ps, name, "expected a name"), false;
    *elems = 1;
    *unsized = false;
    while (is_punct(peek(ps, 0), '[')) {
        next(ps);
        if (is_punct(peek(ps, 0), ']')) {
            next(ps);
            *unsized = true;
            continue;
        }
        uint64_t n;
        if (!take_int(ps, &n) || !expect(ps, ']'))
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
    if (is_punct(peek(ps, 0), '-')) {
        next(ps);
        neg = true;
    }
    ptx_tok v = next(ps);
    uint64_t bits;
    if (v.kind == TK_INT) {
        bits = neg ? (uint64_t)(-(int64_t)v.u) : v.u;
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
        return fail_at(ps, VKRR_ERR_UNSUPPORTED, v.line,
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
        return fail_at(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory"), false;
    int depth = 0;
    do {
        while (is_punct(peek(ps, 0), '{')) {
            next(ps);
            depth++;
        }
        const ptx_tok *t = peek(ps, 0);
        if (n >= max)
            return FAIL(ps, t, "too many initializer values for '%s'", var->name), false;
        if (!init_value(ps, var->init + n * elem, elem, var->type))
            return false;
        n++;
        while (depth > 0 && is_punct(peek(ps, 0), '}')) {
            next(ps);
            depth--;
        }
        if (!is_punct(peek(ps, 0), ','))
            break;
        next(ps);
    } while (!ps->failed);
    if (depth != 0)
        return FAIL(ps, peek(ps, 0), "unbalanced braces in an initializer"), false;
    return !ps->failed;
}

/* .global/.const/.shared/.local/.param variable (after the space word). */
static bool var_decl(parser *ps, unsigned space, const ptx_tok *at, bool is_extern)
{
    uint32_t align;
    ptx_type type;
    unsigned vec;
    if (!decl_type(ps, &align, &type, &vec))
        return false;
    if (type == PT_PRED || type == PT_B128)
        return fail_at(ps, VKRR_ERR_UNSUPPORTED, at->line, "variables of type %s", ptx_type_name(type)),
               false;
    do {
        ptx_tok name;
        uint64_t elems;
        bool unsized;
        if (!decl_name(ps, &name, &elems, &unsized))
            return false;
        unsigned elem = ptx_type_bits(type) / 8u * vec;
        if (!ptx_grow((void **)&ps->m->vars, &ps->m->capvars, ps->m->nvars, sizeof *ps->m->vars))
            return fail_at(ps, VKRR_ERR_NOMEM, at->line, "out of memory"), false;
        ptx_var *v = &ps->m->vars[ps->m->nvars];
        v->name = dup(ps, name.s, name.len);
        v->space = (uint8_t)space;
        v->type = type;
        v->align = align ? align : elem;
        v->size = unsized ? 0 : elems * elem;
        v->dynamic = unsized;
        v->func = ps->f ? ps->fidx : -1;
        if (unsized && !(space == SP_SHARED && is_extern))
            return FAIL(ps, &name, "'%s[]' without a size", v->name), false;
        if (is_punct(peek(ps, 0), '=')) {
            next(ps);
            if (space != SP_GLOBAL && space != SP_CONST)
                return FAIL(ps, &name, "only .global and .const variables take initializers"), false;
            if (!initializer(ps, v, elem))
                return false;
        }
        if (sym_here(ps, name.s, name.len))
            return FAIL(ps, &name, "'%s' is declared twice", v->name), false;
        if (!sym_add(ps, v->name, name.len, SK_VAR, ps->m->nvars, 0))
            return false;
        ps->m->nvars++;
        if (!is_punct(peek(ps, 0), ','))
            break;
        next(ps);
    } while (!ps->failed);
    return expect(ps, ';');
}

/* .reg .type names; */
static bool reg_decl(parser *ps, const ptx_tok *at)
{
    uint32_t align;
    ptx_type type;
    unsigned vec;
    if (!decl_type(ps, &align, &type, &vec))
        return false;
    if (vec != 1)
        return fail_at(ps, VKRR_ERR_UNSUPPORTED, at->line, "vector registers (.reg .v%u)", vec), false;
    if (type == PT_B128 || type == PT_B8 || type == PT_U8 || type == PT_S8)
        return fail_at(ps, VKRR_ERR_UNSUPPORTED, at->line, "%s registers", ptx_type_name(type)), false;
    ptx_func *f = ps->f;
    do {
        ptx_tok name = next(ps);
        uint64_t count = 1;
        bool range = false;
        if (name.kind != TK_IDENT)
            return FAIL(ps, &name, "expected a register name"), false;
        if (is_punct(peek(ps, 0), '<')) {
            next(ps);
            if (!take_int(ps, &count) || !expect(ps, '>'))
                return false;
            if (count > (1u << 20))
                return FAIL(ps, &name, "too many registers"), false;
            range = true;
        }
        if (sym_here(ps, name.s, name.len))
            return FAIL(ps, &name, "'%.*s' is declared twice", (int)name.len, name.s), false;
        uint32_t first = f->nregs;
        for (uint64_t i = 0; i < count; i++) {
            if (!ptx_grow((void **)&f->regs, &f->capregs, f->nregs, sizeof *f->regs))
                return fail_at(ps, VKRR_ERR_NOMEM, at->line, "out of memory"), false;
            f->regs[f->nregs].type = type;
            f->regs[f->nregs].bits = (uint8_t)(type == PT_PRED ? 1 : ptx_type_bits(type));
            f->nregs++;
        }
        if (f->nregs > (1u << 24))
            return FAIL(ps, &name, "too many registers"), false;
        const char *nm = dup(ps, name.s, name.len);
        if (!nm || !sym_add(ps, nm, name.len, range ? SK_RANGE : SK_REG, first, (uint32_t)count))
            return false;
        if (!is_punct(peek(ps, 0), ','))
            break;
        next(ps);
    } while (!ps->failed);
    return expect(ps, ';');
}

/* ---- operands ------------------------------------------------------------- */
static int32_t new_rop(parser *ps)
{
    ptx_func *f = ps->f;
    if (!ptx_grow((void **)&f->rops, &f->caprops, f->nrops, sizeof *f->rops)) {
        fail_at(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory");
        return -1;
    }
    memset(&f->rops[f->nrops], 0, sizeof f->rops[0]);
    return (int32_t)f->nrops++;
}

static bool operand(parser *ps, ptx_rop *o, int depth);

/* A list of operands up to `close`, stored contiguously: first, n. */
static bool oplist(parser *ps, char close, uint32_t *first, uint32_t *n, int depth)
{
    ptx_rop tmp[64];
    uint32_t k = 0;
    if (!is_punct(peek(ps, 0), close)) {
        do {
            if (k == 64)
                return FAIL(ps, peek(ps, 0), "too many elements in a list"), false;
            if (!operand(ps, &tmp[k++], depth + 1))
                return false;
            if (!is_punct(peek(ps, 0), ','))
                break;
            next(ps);
        } while (!ps->failed);
    }
    if (!expect(ps, close))
        return false;
    *first = ps->f->nrops;
    *n = k;
    for (uint32_t i = 0; i < k; i++) {
        int32_t r = new_rop(ps);
        if (r < 0)
            return false;
        ps->f->rops[r] = tmp[i];
    }
    return true;
}

static bool name_operand(parser *ps, const ptx_tok *t, ptx_rop *o)
{
    /* special register: %tid.x */
    const ptx_tok *d = peek(ps, 0);
    if (t->s[0] == '%' && d->kind == TK_DOT && d->line == t->line && d->s == t->s + t->len) {
        int sr = ptx_sreg_lookup(t->s, t->len, d->s, d->len);
        if (sr < 0)
            return fail_at(ps, VKRR_ERR_UNSUPPORTED, t->line, "special register '%.*s%.*s'",
                           (int)t->len, t->s, (int)d->len, d->s),
                   false;
        next(ps);
        o->kind = RO_SREG;
        o->sreg = (uint16_t)sr;
        return true;
    }
    if (t->len == 1 && t->s[0] == '_') {
        o->kind = RO_SINK;
        return true;
    }
    int32_t r = reg_lookup(ps, t->s, t->len);
    if (r >= 0) {
        o->kind = RO_REG;
        o->id = (uint32_t)r;
        return true;
    }
    const sym *s = sym_find(ps, t->s, t->len, -1);
    if (s && (s->kind == SK_VAR || s->kind == SK_PARAM || s->kind == SK_FUNC)) {
        o->kind = s->kind == SK_VAR ? RO_SYM : s->kind == SK_PARAM ? RO_PARAM : RO_FUNC;
        o->id = s->id;
        return true;
    }
    if (t->s[0] == '%') {
        int sr = ptx_sreg_lookup(t->s, t->len, "", 0);
        if (sr >= 0) {
            o->kind = RO_SREG;
            o->sreg = (uint16_t)sr;
            return true;
        }
        if (t->len > 3 && !memcmp(t->s, "%envreg", 7))
            return fail_at(ps, VKRR_ERR_UNSUPPORTED, t->line, "special register '%.*s'", (int)t->len,
                           t->s),
                   false;
        return FAIL(ps, t, "'%.*s' is not a declared register", (int)t->len, t->s), false;
    }
    o->kind = RO_NAME; /* a label, resolved by the decoder */
    o->name = dup(ps, t->s, t->len);
    return o->name != NULL;
}

static bool operand(parser *ps, ptx_rop *o, int depth)
{
    memset(o, 0, sizeof *o);
    if (depth > 4)
        return FAIL(ps, peek(ps, 0), "operands nested too deeply"), false;
    ptx_tok t = next(ps);
    if (is_punct(&t, '{')) {
        o->kind = RO_VEC;
        return oplist(ps, '}', &o->first, &o->n, depth);
    }
    if (is_punct(&t, '(')) {
        o->kind = RO_PAREN;
        return oplist(ps, ')', &o->first, &o->n, depth);
    }
    if (is_punct(&t, '[')) {
        o->kind = RO_MEM;
        ptx_rop base;
        memset(&base, 0, sizeof base);
        const ptx_tok *b = peek(ps, 0);
        if (b->kind == TK_INT) {
            base.kind = RO_INT;
            base.ival = (int64_t)next(ps).u;
        } else {
            if (!operand(ps, &base, depth + 1))
                return false;
            if (base.kind != RO_REG && base.kind != RO_SYM && base.kind != RO_PARAM &&
                base.kind != RO_NAME && base.kind != RO_SREG)
                return FAIL(ps, &t, "bad address"), false;
        }
        int64_t off = 0;
        while (is_punct(peek(ps, 0), '+') || is_punct(peek(ps, 0), '-')) {
            bool minus = next(ps).punct == '-';
            if (is_punct(peek(ps, 0), '-')) {
                next(ps);
                minus = !minus;
            }
            uint64_t v;
            if (!take_int(ps, &v))
                return false;
            off += minus ? -(int64_t)v : (int64_t)v;
        }
        ptx_rop rest[4];
        uint32_t n = 1;
        while (is_punct(peek(ps, 0), ',')) {
            next(ps);
            if (n == 5)
                return FAIL(ps, &t, "too many address elements"), false;
            if (!operand(ps, &rest[n - 1], depth + 1))
                return false;
            n++;
        }
        if (!expect(ps, ']'))
            return false;
        o->ival = off;
        o->n = n;
        o->first = ps->f->nrops;
        int32_t r = new_rop(ps);
        if (r < 0)
            return false;
        ps->f->rops[r] = base;
        for (uint32_t i = 1; i < n; i++) {
            if ((r = new_rop(ps)) < 0)
                return false;
            ps->f->rops[r] = rest[i - 1];
        }
        return true;
    }
    if (is_punct(&t, '!')) {
        ptx_tok p = next(ps);
        if (p.kind != TK_IDENT)
            return FAIL(ps, &p, "'!' needs a predicate"), false;
        if (!name_operand(ps, &p, o))
            return false;
        o->neg = 1;
        return true;
    }
    bool neg = false;
    if (is_punct(&t, '-')) {
        neg = true;
        t = next(ps);
    }
    switch (t.kind) {
    case TK_INT:
        o->kind = RO_INT;
        o->ival = neg ? -(int64_t)t.u : (int64_t)t.u;
        return true;
    case TK_F32:
        o->kind = RO_F32;
        o->bits = t.u ^ (neg ? 0x80000000u : 0);
        return true;
    case TK_F64:
        o->kind = RO_F64;
        o->bits = t.u ^ (neg ? 0x8000000000000000ull : 0);
        return true;
    case TK_DEC:
        o->kind = RO_DEC;
        o->d = neg ? -t.d : t.d;
        return true;
    case TK_IDENT:
        if (neg)
            return FAIL(ps, &t, "'-' before a name"), false;
        if (!name_operand(ps, &t, o))
            return false;
        if ((o->kind == RO_SYM || o->kind == RO_PARAM) && is_punct(peek(ps, 0), '+') &&
            peek(ps, 1)->kind == TK_INT) {
            next(ps);
            o->ival = (int64_t)next(ps).u;
        }
        return true;
    default:
        if (t.kind != TK_ERROR)
            FAIL(ps, &t, "expected an operand, found '%.*s'", (int)(t.len ? t.len : 3),
                 t.len ? t.s : "EOF");
        return false;
    }
}

/* ---- instructions ----------------------------------------------------------- */
static bool instruction(parser *ps)
{
    ptx_func *f = ps->f;
    ptx_raw r;
    memset(&r, 0, sizeof r);
    r.guard = -1;
    r.pipe = -1;
    ptx_tok t = next(ps);
    r.line = t.line;
    if (is_punct(&t, '@')) {
        if (is_punct(peek(ps, 0), '!')) {
            next(ps);
            r.guard_neg = 1;
        }
        ptx_tok p = next(ps);
        int32_t id = p.kind == TK_IDENT ? reg_lookup(ps, p.s, p.len) : -1;
        if (id < 0 || f->regs[id].type != PT_PRED)
            return FAIL(ps, &p, "a guard needs a declared predicate"), false;
        r.guard = id;
        t = next(ps);
    }
    if (t.kind != TK_IDENT)
        return FAIL(ps, &t, "expected an instruction, found '%.*s'", (int)(t.len ? t.len : 3),
                    t.len ? t.s : "EOF"),
               false;
    const char *start = t.s, *stop = t.s + t.len;
    const char *mods[24];
    uint32_t nm = 0;
    r.op = dup(ps, t.s, t.len);
    while (peek(ps, 0)->kind == TK_DOT && peek(ps, 0)->s == stop) {
        ptx_tok d = next(ps);
        if (nm == 24)
            return FAIL(ps, &d, "too many modifiers"), false;
        mods[nm++] = dup(ps, d.s, d.len);
        stop = d.s + d.len;
    }
    r.text = dup(ps, start, (size_t)(stop - start));
    r.mods = ptx_arena_alloc(&ps->m->arena, sizeof *r.mods * (nm ? nm : 1));
    if (!r.op || !r.text || !r.mods)
        return fail_at(ps, VKRR_ERR_NOMEM, t.line, "out of memory"), false;
    memcpy(r.mods, mods, sizeof *mods * nm);
    r.nmods = (uint16_t)nm;
    ptx_rop ops[24];
    uint32_t n = 0;
    if (!is_punct(peek(ps, 0), ';')) {
        do {
            if (n == 24)
                return FAIL(ps, &t, "too many operands"), false;
            if (!operand(ps, &ops[n++], 0))
                return false;
            const ptx_tok *s = peek(ps, 0);
            if (is_punct(s, '|')) {
                if (r.pipe >= 0)
                    return FAIL(ps, s, "two '|' in one instruction"), false;
                r.pipe = (int8_t)(n - 1);
                next(ps);
                continue;
            }
            if (!is_punct(s, ','))
                break;
            next(ps);
        } while (!ps->failed);
    }
    if (!expect(ps, ';'))
        return false;
    r.ops = f->nrops;
    r.nops = (uint16_t)n;
    for (uint32_t i = 0; i < n; i++) {
        int32_t k = new_rop(ps);
        if (k < 0)
            return false;
        f->rops[k] = ops[i];
    }
    if (!ptx_grow((void **)&f->raw, &f->capraw, f->nraw, sizeof *f->raw))
        return fail_at(ps, VKRR_ERR_NOMEM, t.line, "out of memory"), false;
    f->raw[f->nraw++] = r;
    return true;
}

static bool body(parser *ps)
{
    ptx_func *f = ps->f;
    int open = 1;
    ps->depth++;
    while (!ps->failed) {
        const ptx_tok *t = peek(ps, 0);
        if (t->kind == TK_EOF)
            return FAIL(ps, t, "the body of '%s' is not closed", f->name), false;
        if (t->kind == TK_ERROR)
            return false;
        if (is_punct(t, '{')) {
            next(ps);
            open++;
            ps->depth++;
            continue;
        }
        if (is_punct(t, '}')) {
            next(ps);
            scope_pop(ps);
            if (--open == 0)
                return true;
            continue;
        }
        if (t->kind == TK_DOT) {
            ptx_tok d = next(ps);
            if (is_word(&d, TK_DOT, ".reg")) {
                if (!reg_decl(ps, &d))
                    return false;
            } else if (is_word(&d, TK_DOT, ".local")) {
                if (!var_decl(ps, SP_LOCAL, &d, false))
                    return false;
            } else if (is_word(&d, TK_DOT, ".shared")) {
                if (!var_decl(ps, SP_SHARED, &d, false))
                    return false;
            } else if (is_word(&d, TK_DOT, ".param")) {
                return fail_at(ps, VKRR_ERR_UNSUPPORTED, d.line, "function calls (.param in a body)"),
                       false;
            } else if (is_word(&d, TK_DOT, ".pragma")) {
                while (!ps->failed && !is_punct(peek(ps, 0), ';') && peek(ps, 0)->kind != TK_EOF)
                    next(ps);
                if (!expect(ps, ';'))
                    return false;
            } else if (is_word(&d, TK_DOT, ".loc") || is_word(&d, TK_DOT, ".file")) {
                skip_line(ps, d.line);
            } else {
                return fail_at(ps, VKRR_ERR_UNSUPPORTED, d.line, "directive '%.*s' in a function body",
                               (int)d.len, d.s),
                       false;
            }
            continue;
        }
        if (t->kind == TK_IDENT && is_punct(peek(ps, 1), ':')) {
            ptx_tok l = next(ps);
            next(ps);
            for (uint32_t i = 0; i < f->nlabels; i++)
                if (strlen(f->labels[i].name) == l.len && !memcmp(f->labels[i].name, l.s, l.len))
                    return FAIL(ps, &l, "label '%.*s' is defined twice", (int)l.len, l.s), false;
            if (!ptx_grow((void **)&f->labels, &f->caplabels, f->nlabels, sizeof *f->labels))
                return fail_at(ps, VKRR_ERR_NOMEM, l.line, "out of memory"), false;
            f->labels[f->nlabels].name = dup(ps, l.s, l.len);
            f->labels[f->nlabels].at = f->nraw;
            f->nlabels++;
            continue;
        }
        if (!instruction(ps))
            return false;
    }
    return false;
}

/* ( .param ... , ... ) */
static bool param_list(parser *ps, ptx_param **out, uint32_t *nout, uint32_t *bytes, bool entry)
{
    ptx_param tmp[256];
    uint32_t n = 0, off = 0;
    if (!expect(ps, '('))
        return false;
    while (!ps->failed && !is_punct(peek(ps, 0), ')')) {
        ptx_tok d = next(ps);
        if (!is_word(&d, TK_DOT, ".param") && !is_word(&d, TK_DOT, ".reg"))
            return FAIL(ps, &d, "expected .param"), false;
        if (is_word(&d, TK_DOT, ".reg"))
            return fail_at(ps, VKRR_ERR_UNSUPPORTED, d.line, ".reg parameters"), false;
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
        tmp[n] = (ptx_param){dup(ps, name.s, name.len), a, size, off, type};
        if (entry && !sym_add(ps, tmp[n].name, name.len, SK_PARAM, n, 0))
            return false;
        off += (uint32_t)size;
        n++;
        if (!is_punct(peek(ps, 0), ','))
            break;
        next(ps);
    }
    if (!expect(ps, ')'))
        return false;
    *out = ptx_arena_alloc(&ps->m->arena, sizeof **out * (n ? n : 1));
    if (!*out)
        return fail_at(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory"), false;
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
        if (!take_int(ps, &v))
            return false;
        d[i] = v > 0xffffffffu ? 0xffffffffu : (uint32_t)v;
        if (!is_punct(peek(ps, 0), ','))
            return true;
        next(ps);
    }
    return true;
}

static bool function(parser *ps, bool entry, const ptx_tok *at)
{
    vkrr_ptx_module *m = ps->m;
    ptx_param *rets = NULL;
    uint32_t nrets = 0, rb = 0;
    ps->depth++; /* params live here */
    if (!entry && is_punct(peek(ps, 0), '(')) {
        if (!param_list(ps, &rets, &nrets, &rb, false))
            return false;
    }
    ptx_tok name = next(ps);
    if (name.kind != TK_IDENT)
        return FAIL(ps, &name, "expected a function name"), false;
    /* a later definition completes an earlier declaration */
    int32_t idx = -1;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (strlen(m->funcs[i].name) == name.len && !memcmp(m->funcs[i].name, name.s, name.len))
            idx = (int32_t)i;
    if (idx < 0) {
        if (!ptx_grow((void **)&m->funcs, &m->capfuncs, m->nfuncs, sizeof *m->funcs))
            return fail_at(ps, VKRR_ERR_NOMEM, name.line, "out of memory"), false;
        idx = (int32_t)m->nfuncs++;
        ptx_func *nf = &m->funcs[idx];
        memset(nf, 0, sizeof *nf);
        nf->name = dup(ps, name.s, name.len);
        /* visible from the module scope (depth 0) */
        int save = ps->depth;
        ps->depth = 0;
        uint32_t mark = ps->nsyms;
        bool ok = sym_add(ps, nf->name, name.len, SK_FUNC, (uint32_t)idx, 0);
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
    if (is_punct(peek(ps, 0), '(')) {
        if (!param_list(ps, &f->params, &f->nparams, &f->params_bytes, true))
            return false;
    }
    for (;;) {
        const ptx_tok *t = peek(ps, 0);
        if (t->kind != TK_DOT)
            break;
        ptx_tok d = next(ps);
        if (is_word(&d, TK_DOT, ".maxntid")) {
            if (!dims(ps, f->maxntid))
                return false;
        } else if (is_word(&d, TK_DOT, ".reqntid")) {
            if (!dims(ps, f->reqntid))
                return false;
        } else if (is_word(&d, TK_DOT, ".minnctapersm") || is_word(&d, TK_DOT, ".maxnreg") ||
                   is_word(&d, TK_DOT, ".maxnctapersm")) {
            uint64_t v;
            if (!take_int(ps, &v))
                return false;
        } else if (is_word(&d, TK_DOT, ".noreturn")) {
        } else if (is_word(&d, TK_DOT, ".pragma")) {
            while (!ps->failed && !is_punct(peek(ps, 0), ';') && peek(ps, 0)->kind != TK_EOF)
                next(ps);
            if (!expect(ps, ';'))
                return false;
        } else {
            return fail_at(ps, VKRR_ERR_UNSUPPORTED, d.line, "function directive '%.*s'", (int)d.len,
                           d.s),
                   false;
        }
    }
    bool ok = true;
    if (is_punct(peek(ps, 0), ';')) {
        next(ps);
    } else if (is_punct(peek(ps, 0), '{')) {
        if (f->defined)
            return FAIL(ps, &name, "'%s' is defined twice", f->name), false;
        next(ps);
        f->defined = true;
        ok = body(ps);
    } else {
        const ptx_tok *t = peek(ps, 0);
        return FAIL(ps, t, "expected '{' or ';' after '%s'", f->name), false;
    }
    if (!ok)
        return false;
    scope_pop(ps); /* the params */
    ps->f = NULL;
    ps->fidx = -1;
    return true;
}

static bool module_item(parser *ps)
{
    ptx_tok t = next(ps);
    if (t.kind == TK_ERROR)
        return false;
    if (t.kind != TK_DOT)
        return FAIL(ps, &t, "expected a directive, found '%.*s'", (int)t.len, t.s), false;
    if (is_word(&t, TK_DOT, ".version") || is_word(&t, TK_DOT, ".address_size") ||
        is_word(&t, TK_DOT, ".file") || is_word(&t, TK_DOT, ".loc")) {
        skip_line(ps, t.line);
        return true;
    }
    if (is_word(&t, TK_DOT, ".target")) {
        while (!ps->failed && peek(ps, 0)->line == t.line && peek(ps, 0)->kind != TK_EOF) {
            ptx_tok w = next(ps);
            if (w.kind == TK_IDENT && w.len > 3 && !memcmp(w.s, "sm_", 3))
                ps->m->sm = (uint32_t)strtoul(w.s + 3, NULL, 10);
        }
        return true;
    }
    if (is_word(&t, TK_DOT, ".section")) {
        skip_section(ps);
        return true;
    }
    if (is_word(&t, TK_DOT, ".pragma")) {
        while (!ps->failed && !is_punct(peek(ps, 0), ';') && peek(ps, 0)->kind != TK_EOF)
            next(ps);
        return expect(ps, ';');
    }
    bool is_extern = false;
    while (is_word(&t, TK_DOT, ".visible") || is_word(&t, TK_DOT, ".extern") ||
           is_word(&t, TK_DOT, ".weak") || is_word(&t, TK_DOT, ".common")) {
        if (is_word(&t, TK_DOT, ".extern"))
            is_extern = true;
        t = next(ps);
    }
    if (is_word(&t, TK_DOT, ".entry"))
        return function(ps, true, &t);
    if (is_word(&t, TK_DOT, ".func"))
        return function(ps, false, &t);
    if (is_word(&t, TK_DOT, ".global"))
        return var_decl(ps, SP_GLOBAL, &t, is_extern);
    if (is_word(&t, TK_DOT, ".const"))
        return var_decl(ps, SP_CONST, &t, is_extern);
    if (is_word(&t, TK_DOT, ".shared"))
        return var_decl(ps, SP_SHARED, &t, is_extern);
    if (is_word(&t, TK_DOT, ".local"))
        return var_decl(ps, SP_LOCAL, &t, is_extern);
    if (t.kind == TK_DOT)
        return fail_at(ps, VKRR_ERR_UNSUPPORTED, t.line, "module directive '%.*s'", (int)t.len, t.s),
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
    while (!ps->failed && peek(ps, 0)->kind != TK_EOF)
        module_item(ps);
    /* a function cut short by an error still owns its arrays: freed with the module */
    vkrr_status st = ps->failed ? err->status : VKRR_OK;
    if (ps->failed && err->status == VKRR_OK)
        st = VKRR_ERR_PARSE;
    free(ps->syms);
    free(ps);
    return st;
}
