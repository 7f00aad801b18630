/* ptx_parse_body.c - function bodies: operands (registers through block
 * scopes, special registers, immediates, vectors, addresses, lists),
 * instructions with guards and modifiers, labels, nested scopes. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_parse.h"

static int32_t new_rop(parser *ps)
{
    ptx_func *f = ps->f;
    if (!ptx_grow((void **)&f->rops, &f->caprops, f->nrops, sizeof *f->rops)) {
        ps_fail(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory");
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
    if (!ps_is_punct(ps_peek(ps, 0), close)) {
        do {
            if (k == 64)
                return FAIL(ps, ps_peek(ps, 0), "too many elements in a list"), false;
            if (!operand(ps, &tmp[k++], depth + 1))
                return false;
            if (!ps_is_punct(ps_peek(ps, 0), ','))
                break;
            ps_next(ps);
        } while (!ps->failed);
    }
    if (!ps_expect(ps, close))
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
    const ptx_tok *d = ps_peek(ps, 0);
    if (t->s[0] == '%' && d->kind == TK_DOT && d->line == t->line && d->s == t->s + t->len) {
        int sr = ptx_sreg_lookup(t->s, t->len, d->s, d->len);
        if (sr < 0)
            return ps_fail(ps, VKRR_ERR_UNSUPPORTED, t->line, "special register '%.*s%.*s'",
                           (int)t->len, t->s, (int)d->len, d->s),
                   false;
        ps_next(ps);
        o->kind = RO_SREG;
        o->sreg = (uint16_t)sr;
        return true;
    }
    if (t->len == 1 && t->s[0] == '_') {
        o->kind = RO_SINK;
        return true;
    }
    int32_t r = ps_reg_lookup(ps, t->s, t->len);
    if (r >= 0) {
        o->kind = RO_REG;
        o->id = (uint32_t)r;
        return true;
    }
    const sym *s = ps_sym_find(ps, t->s, t->len, -1);
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
        if (t->len >= 13 && !memcmp(t->s, "%perctamemory", 13))
            return ps_fail(ps, VKRR_ERR_UNSUPPORTED, t->line,
                           "special register '%.*s' (PTX ISA 9.4's per-CTA memory)", (int)t->len,
                           t->s),
                   false;
        return FAIL(ps, t, "'%.*s' is not a declared register", (int)t->len, t->s), false;
    }
    o->kind = RO_NAME; /* a label, resolved by the decoder */
    o->name = ps_dup(ps, t->s, t->len);
    return o->name != NULL;
}

static bool operand(parser *ps, ptx_rop *o, int depth)
{
    memset(o, 0, sizeof *o);
    if (depth > 4)
        return FAIL(ps, ps_peek(ps, 0), "operands nested too deeply"), false;
    ptx_tok t = ps_next(ps);
    if (ps_is_punct(&t, '{')) {
        o->kind = RO_VEC;
        return oplist(ps, '}', &o->first, &o->n, depth);
    }
    if (ps_is_punct(&t, '(')) {
        o->kind = RO_PAREN;
        return oplist(ps, ')', &o->first, &o->n, depth);
    }
    if (ps_is_punct(&t, '[')) {
        o->kind = RO_MEM;
        ptx_rop base;
        memset(&base, 0, sizeof base);
        const ptx_tok *b = ps_peek(ps, 0);
        if (b->kind == TK_INT) {
            base.kind = RO_INT;
            base.ival = (int64_t)ps_next(ps).u;
        } else {
            if (!operand(ps, &base, depth + 1))
                return false;
            if (base.kind != RO_REG && base.kind != RO_SYM && base.kind != RO_PARAM &&
                base.kind != RO_NAME && base.kind != RO_SREG)
                return FAIL(ps, &t, "bad address"), false;
        }
        uint64_t off = 0; /* wraps like the address arithmetic it feeds */
        while (ps_is_punct(ps_peek(ps, 0), '+') || ps_is_punct(ps_peek(ps, 0), '-')) {
            bool minus = ps_next(ps).punct == '-';
            if (ps_is_punct(ps_peek(ps, 0), '-')) {
                ps_next(ps);
                minus = !minus;
            }
            uint64_t v;
            if (!ps_take_int(ps, &v))
                return false;
            off += minus ? 0 - v : v;
        }
        ptx_rop rest[4];
        uint32_t n = 1;
        while (ps_is_punct(ps_peek(ps, 0), ',')) {
            ps_next(ps);
            if (n == 5)
                return FAIL(ps, &t, "too many address elements"), false;
            if (!operand(ps, &rest[n - 1], depth + 1))
                return false;
            n++;
        }
        if (!ps_expect(ps, ']'))
            return false;
        o->ival = (int64_t)off;
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
    if (ps_is_punct(&t, '!')) {
        ptx_tok p = ps_next(ps);
        if (p.kind != TK_IDENT)
            return FAIL(ps, &p, "'!' needs a predicate"), false;
        if (!name_operand(ps, &p, o))
            return false;
        o->neg = 1;
        return true;
    }
    bool neg = false;
    if (ps_is_punct(&t, '-')) {
        neg = true;
        t = ps_next(ps);
    }
    switch (t.kind) {
    case TK_INT:
        o->kind = RO_INT;
        o->ival = (int64_t)(neg ? 0 - t.u : t.u);
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
        if ((o->kind == RO_SYM || o->kind == RO_PARAM) && ps_is_punct(ps_peek(ps, 0), '+') &&
            ps_peek(ps, 1)->kind == TK_INT) {
            ps_next(ps);
            o->ival = (int64_t)ps_next(ps).u;
        } else if (o->kind == RO_SYM && ps_is_punct(ps_peek(ps, 0), '[')) {
            /* an array element as an operand (PTX "Arrays as Operands"):
             * `mov.u64 %rd1, a[2];` is the address of element 2, `ld.global.u32
             * %r1, a[2];` loads it.  The index counts scalars of the array's
             * declared type: ptxas compiles `a[3]` of a .u32 array as `a+12`,
             * of a .u64 one as `a+24`, of a .f16 one as `a+6`, and `a[1]` of a
             * .v2 .u32 one as `a+4` (the same code, byte for byte).  A register
             * or an expression as the index is refused, not guessed. */
            ps_next(ps);
            ptx_tok ix = ps_next(ps);
            if (ix.kind != TK_INT || !ps_is_punct(ps_peek(ps, 0), ']'))
                return ps_fail(ps, VKRR_ERR_UNSUPPORTED, ix.line,
                               "an array operand indexed by anything but a constant (only "
                               "NAME[N] with a number N is supported)"),
                       false;
            ps_next(ps);
            const uint64_t elem = ps->m->vars[o->id].elem ? ps->m->vars[o->id].elem : 1;
            if (ix.u > (uint64_t)INT64_MAX / elem)
                return FAIL(ps, &ix, "array index %llu is out of range", (unsigned long long)ix.u), false;
            o->ival = (int64_t)(ix.u * elem);
            o->elem = true;
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
    ptx_tok t = ps_next(ps);
    r.line = t.line;
    r.src_file = ps->loc_file;
    r.src_line = ps->loc_line;
    if (ps_is_punct(&t, '@')) {
        if (ps_is_punct(ps_peek(ps, 0), '!')) {
            ps_next(ps);
            r.guard_neg = 1;
        }
        ptx_tok p = ps_next(ps);
        int32_t id = p.kind == TK_IDENT ? ps_reg_lookup(ps, p.s, p.len) : -1;
        if (id < 0 || f->regs[id].type != PT_PRED)
            return FAIL(ps, &p, "a guard needs a declared predicate"), false;
        r.guard = id;
        t = ps_next(ps);
    }
    if (t.kind != TK_IDENT)
        return FAIL(ps, &t, "expected an instruction, found '%.*s'", (int)(t.len ? t.len : 3),
                    t.len ? t.s : "EOF"),
               false;
    const char *start = t.s, *stop = t.s + t.len;
    const char *mods[24];
    uint32_t nm = 0;
    r.op = ps_dup(ps, t.s, t.len);
    while (ps_peek(ps, 0)->kind == TK_DOT && ps_peek(ps, 0)->s == stop) {
        ptx_tok d = ps_next(ps);
        if (nm == 24)
            return FAIL(ps, &d, "too many modifiers"), false;
        mods[nm++] = ps_dup(ps, d.s, d.len);
        stop = d.s + d.len;
    }
    r.text = ps_dup(ps, start, (size_t)(stop - start));
    r.mods = ptx_arena_alloc(&ps->m->arena, sizeof *r.mods * (nm ? nm : 1));
    if (!r.op || !r.text || !r.mods)
        return ps_fail(ps, VKRR_ERR_NOMEM, t.line, "out of memory"), false;
    memcpy(r.mods, mods, sizeof *mods * nm);
    r.nmods = (uint16_t)nm;
    ptx_rop ops[24];
    uint32_t n = 0;
    if (!ps_is_punct(ps_peek(ps, 0), ';')) {
        do {
            if (n == 24)
                return FAIL(ps, &t, "too many operands"), false;
            if (!operand(ps, &ops[n++], 0))
                return false;
            const ptx_tok *s = ps_peek(ps, 0);
            if (ps_is_punct(s, '|')) {
                if (r.pipe >= 0)
                    return FAIL(ps, s, "two '|' in one instruction"), false;
                r.pipe = (int8_t)(n - 1);
                ps_next(ps);
                continue;
            }
            if (!ps_is_punct(s, ','))
                break;
            ps_next(ps);
        } while (!ps->failed);
    }
    if (!ps_expect(ps, ';'))
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
        return ps_fail(ps, VKRR_ERR_NOMEM, t.line, "out of memory"), false;
    f->raw[f->nraw++] = r;
    return true;
}

/* LABEL: .branchtargets A, B, ...; -- the list a brx.idx names by LABEL (the
 * label just defined, at this point of the body) */
static bool branchtargets(parser *ps, const ptx_tok *d)
{
    ptx_func *f = ps->f;
    ptx_label *l = f->nlabels ? &f->labels[f->nlabels - 1] : NULL;
    if (!l || l->at != f->nraw || l->targets)
        return FAIL(ps, d, ".branchtargets without a label of its own"), false;
    const char *names[1024];
    uint32_t n = 0;
    do {
        ptx_tok t = ps_next(ps);
        if (t.kind != TK_IDENT)
            return FAIL(ps, &t, "expected a label in .branchtargets"), false;
        if (n == 1024)
            return FAIL(ps, &t, "more than 1024 branch targets"), false;
        if (!(names[n++] = ps_dup(ps, t.s, t.len)))
            return false;
        if (!ps_is_punct(ps_peek(ps, 0), ','))
            break;
        ps_next(ps);
    } while (!ps->failed);
    l->targets = ptx_arena_alloc(&ps->m->arena, sizeof *l->targets * n);
    if (!l->targets)
        return ps_fail(ps, VKRR_ERR_NOMEM, d->line, "out of memory"), false;
    memcpy(l->targets, names, sizeof *names * n);
    l->ntargets = n;
    return ps_expect(ps, ';');
}

bool ps_body(parser *ps)
{
    ptx_func *f = ps->f;
    int open = 1;
    ps->depth++;
    while (!ps->failed) {
        const ptx_tok *t = ps_peek(ps, 0);
        if (t->kind == TK_EOF)
            return FAIL(ps, t, "the body of '%s' is not closed", f->name), false;
        if (t->kind == TK_ERROR)
            return false;
        if (ps_is_punct(t, '{')) {
            ps_next(ps);
            open++;
            ps->depth++;
            continue;
        }
        if (ps_is_punct(t, '}')) {
            ps_next(ps);
            ps_scope_pop(ps);
            if (--open == 0)
                return true;
            continue;
        }
        if (t->kind == TK_DOT) {
            ptx_tok d = ps_next(ps);
            if (ps_is_word(&d, TK_DOT, ".reg")) {
                if (!ps_reg_decl(ps, &d))
                    return false;
            } else if (ps_is_word(&d, TK_DOT, ".local")) {
                if (!ps_var_decl(ps, SP_LOCAL, &d, false))
                    return false;
            } else if (ps_is_word(&d, TK_DOT, ".shared")) {
                if (!ps_var_decl(ps, SP_SHARED, &d, false))
                    return false;
            } else if (ps_is_word(&d, TK_DOT, ".param")) {
                if (!ps_var_decl(ps, SP_PARAM, &d, false))
                    return false;
            } else if (ps_is_word(&d, TK_DOT, ".callprototype")) {
                /* LABEL: .callprototype (...) _ (...); the callee's own
                 * declaration is what a call through a pointer checks */
                while (!ps->failed && !ps_is_punct(ps_peek(ps, 0), ';') && ps_peek(ps, 0)->kind != TK_EOF)
                    ps_next(ps);
                if (!ps_expect(ps, ';'))
                    return false;
            } else if (ps_is_word(&d, TK_DOT, ".branchtargets")) {
                if (!branchtargets(ps, &d))
                    return false;
            } else if (ps_is_word(&d, TK_DOT, ".pragma")) {
                while (!ps->failed && !ps_is_punct(ps_peek(ps, 0), ';') && ps_peek(ps, 0)->kind != TK_EOF)
                    ps_next(ps);
                if (!ps_expect(ps, ';'))
                    return false;
            } else if (ps_is_word(&d, TK_DOT, ".loc") || ps_is_word(&d, TK_DOT, ".file")) {
                if (!ps_file_loc(ps, &d))
                    return false;
            } else {
                return ps_fail(ps, VKRR_ERR_UNSUPPORTED, d.line, "directive '%.*s' in a function body",
                               (int)d.len, d.s),
                       false;
            }
            continue;
        }
        if (t->kind == TK_IDENT && ps_is_punct(ps_peek(ps, 1), ':')) {
            ptx_tok l = ps_next(ps);
            ps_next(ps);
            for (uint32_t i = 0; i < f->nlabels; i++)
                if (strlen(f->labels[i].name) == l.len && !memcmp(f->labels[i].name, l.s, l.len))
                    return FAIL(ps, &l, "label '%.*s' is defined twice", (int)l.len, l.s), false;
            if (!ptx_grow((void **)&f->labels, &f->caplabels, f->nlabels, sizeof *f->labels))
                return ps_fail(ps, VKRR_ERR_NOMEM, l.line, "out of memory"), false;
            f->labels[f->nlabels] = (ptx_label){.name = ps_dup(ps, l.s, l.len), .at = f->nraw};
            f->nlabels++;
            continue;
        }
        if (!instruction(ps))
            return false;
    }
    return false;
}

