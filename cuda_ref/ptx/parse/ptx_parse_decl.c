/* ptx_parse_decl.c - declarations: variables (with their initializers),
 * registers (.reg, ranges like %r<8>) and parameter lists, for module scope
 * and function bodies alike.  Called by ptx_parse.c and ptx_parse_body.c;
 * calls down only (ptx_parse_tok.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_parse.h"

/* [.align N] [.vN] .type: the declaration prefix of variables and params.
 * Also skips .ptr .space .align N (kernel pointer params). */
static bool decl_type(parser *ps, uint32_t *align, ptx_type *type, unsigned *vec, uint8_t *ref)
{
    *align = 0;
    *type = PT_NONE;
    *vec = 1;
    *ref = PTX_REF_NONE;
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
        static const char *const refs[] = {".texref", ".samplerref", ".surfref"};
        for (unsigned k = 0; k < 3; k++)
            if (t->len == strlen(refs[k]) && !memcmp(t->s, refs[k], t->len)) {
                ps_next(ps);
                *type = PT_B64; /* a handle */
                *ref = (uint8_t)(PTX_REF_TEX + k);
                return *vec == 1 ? true : (FAIL(ps, t, "a vector of %s", refs[k]), false);
            }
        FAIL(ps, t, "expected a type, found '%.*s'", (int)t->len, t->s);
    }
    return !ps->failed;
}

/* A .samplerref's initializer, { member = value, ... } (the PTX ISA's
 * members: filter_mode, addr_mode_0/1/2, force_unnormalized_coords), into
 * v->smp.  Members left out are 0: nearest, wrap, the texture's own
 * coordinates.  .texref/.surfref members (width, channel_order, ...) describe
 * a binding the host makes: they are read and have no effect here. */
static bool opaque_init(parser *ps, ptx_var *v)
{
    if (!ps_expect(ps, '{'))
        return false;
    while (!ps->failed && !ps_is_punct(ps_peek(ps, 0), '}')) {
        ptx_tok mem = ps_next(ps);
        if (mem.kind != TK_IDENT || !ps_expect(ps, '='))
            return FAIL(ps, &mem, "expected MEMBER = VALUE in the initializer of '%s'", v->name), false;
        ptx_tok val = ps_next(ps);
        char m[32] = "", w[32] = "";
        if (mem.len < sizeof m)
            memcpy(m, mem.s, mem.len);
        if (val.kind == TK_IDENT && val.len < sizeof w)
            memcpy(w, val.s, val.len);
        static const char *const addr[] = {"wrap", "clamp_to_edge", "mirror", "clamp_to_border"};
        int a = -1;
        for (int k = 0; k < 4; k++)
            if (!strcmp(w, addr[k]))
                a = k; /* CU_TR_ADDRESS_MODE_* order */
        if (!strcmp(w, "clamp_ogl"))
            a = PTX_ADDR_CLAMP_OGL;
        bool ok = v->ref != PTX_REF_SAMPLER; /* .texref/.surfref: any member, no effect */
        if (!strcmp(m, "filter_mode") && (!strcmp(w, "nearest") || !strcmp(w, "linear"))) {
            v->smp.filter = w[0] == 'l';
            ok = true;
        } else if (!strncmp(m, "addr_mode_", 10) && m[10] >= '0' && m[10] <= '2' && !m[11] && a >= 0) {
            v->smp.addr[m[10] - '0'] = (uint8_t)a;
            ok = true;
        } else if (!strcmp(m, "force_unnormalized_coords") && val.kind == TK_INT && val.u <= 1) {
            v->smp.unnorm = (uint8_t)val.u;
            ok = true;
        }
        if (!ok)
            return FAIL(ps, &mem, "'%s = %.*s' in the initializer of the .samplerref '%s' (members: "
                        "filter_mode nearest/linear, addr_mode_0/1/2 wrap/mirror/clamp_ogl/"
                        "clamp_to_edge/clamp_to_border, force_unnormalized_coords 0/1)", m,
                        (int)val.len, val.s, v->name), false;
        if (!ps_is_punct(ps_peek(ps, 0), ','))
            break;
        ps_next(ps);
    }
    return ps_expect(ps, '}');
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

/* An address in an initializer: NAME, NAME+N or generic(NAME)+N, of a
 * variable or a function; recorded for the launch to patch. */
static bool init_address(parser *ps, const ptx_tok *v, uint32_t var, uint64_t at, unsigned elem)
{
    ptx_tok name = *v;
    bool generic = ps_is_word(v, TK_IDENT, "generic") && ps_is_punct(ps_peek(ps, 0), '(');
    if (generic) {
        ps_next(ps);
        name = ps_next(ps);
        if (name.kind != TK_IDENT || !ps_expect(ps, ')'))
            return FAIL(ps, &name, "expected generic(NAME)"), false;
    }
    const sym *s = ps_sym_find(ps, name.s, name.len, -1);
    if (!s || (s->kind != SK_VAR && s->kind != SK_FUNC))
        return FAIL(ps, &name, "'%.*s' in an initializer is not a declared variable or function",
                    (int)name.len, name.s), false;
    if (elem != 8)
        return FAIL(ps, &name, "an address in a %u-byte initializer element (64-bit addresses)",
                    elem), false;
    if (s->kind == SK_VAR && ps->m->vars[s->id].space != SP_GLOBAL &&
        ps->m->vars[s->id].space != SP_CONST)
        return ps_fail(ps, VKRR_ERR_UNSUPPORTED, name.line,
                       "the address of '%.*s' (not .global or .const) in an initializer",
                       (int)name.len, name.s), false;
    int64_t add = 0;
    while (ps_is_punct(ps_peek(ps, 0), '+') || ps_is_punct(ps_peek(ps, 0), '-')) {
        bool minus = ps_next(ps).punct == '-';
        uint64_t k;
        if (!ps_take_int(ps, &k))
            return false;
        add += minus ? -(int64_t)k : (int64_t)k;
    }
    vkrr_ptx_module *m = ps->m;
    if (!ptx_grow((void **)&m->relocs, &m->caprelocs, m->nrelocs, sizeof *m->relocs))
        return ps_fail(ps, VKRR_ERR_NOMEM, name.line, "out of memory"), false;
    m->relocs[m->nrelocs++] = (ptx_reloc){var, at, s->kind == SK_FUNC, s->id, add};
    return true;
}

/* One initializer value into dst (elem bytes, type t): element `at` bytes
 * into variable var. */
static bool init_value(parser *ps, uint8_t *dst, unsigned elem, ptx_type t, uint32_t var,
                       uint64_t at)
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
    } else if (v.kind == TK_IDENT && !neg) {
        return init_address(ps, &v, var, at, elem);
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
        if (!init_value(ps, var->init + n * elem, elem, var->type, (uint32_t)(var - ps->m->vars),
                        n * elem))
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
    uint8_t ref;
    if (!decl_type(ps, &align, &type, &vec, &ref))
        return false;
    if (type == PT_PRED)
        return ps_fail(ps, VKRR_ERR_UNSUPPORTED, at->line, "variables of type %s", ptx_type_name(type)),
               false;
    if (ref && (space != SP_GLOBAL || ps->f))
        return FAIL(ps, at, "texture, sampler and surface variables are .global at module scope"), false;
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
        v->elem = ptx_type_bits(type) / 8u; /* a vector array's too: its scalar (ptxas) */
        v->dynamic = unsized;
        v->func = ps->f ? ps->fidx : -1;
        v->param = space == SP_PARAM;
        v->ref = ref;
        memset(&v->smp, 0, sizeof v->smp);
        if (ref && (elems != 1 || unsized))
            return ps_fail(ps, VKRR_ERR_UNSUPPORTED, name.line, "arrays of %s", ref == PTX_REF_TEX ? ".texref"
                           : ref == PTX_REF_SAMPLER ? ".samplerref" : ".surfref"), false;
        if (space == SP_PARAM)
            v->space = SP_LOCAL; /* a call's argument or result: per-thread memory */
        if (unsized && !(space == SP_SHARED && is_extern))
            return FAIL(ps, &name, "'%s[]' without a size", v->name), false;
        if (ps_is_punct(ps_peek(ps, 0), '=')) {
            ps_next(ps);
            if (space != SP_GLOBAL && space != SP_CONST)
                return FAIL(ps, &name, "only .global and .const variables take initializers"), false;
            if (type == PT_B128)
                return ps_fail(ps, VKRR_ERR_UNSUPPORTED, name.line, "initializers of .b128 variables"),
                       false;
            if (ref ? !opaque_init(ps, v) : !initializer(ps, v, elem))
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
    uint8_t ref;
    if (!decl_type(ps, &align, &type, &vec, &ref))
        return false;
    if (ref)
        return FAIL(ps, at, "texture, sampler or surface registers (.reg of an opaque type)"), false;
    if (vec != 1)
        return ps_fail(ps, VKRR_ERR_UNSUPPORTED, at->line, "vector registers (.reg .v%u)", vec), false;
    if (type == PT_B8 || type == PT_U8 || type == PT_S8)
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
        /* a .b128 register is two 64-bit ones: its own (the low half) and a
         * hidden one after the range (the high half), so %q<N> stays N in a row */
        for (uint64_t i = 0; type == PT_B128 && i < count; i++) {
            if (!ptx_grow((void **)&f->regs, &f->capregs, f->nregs, sizeof *f->regs))
                return ps_fail(ps, VKRR_ERR_NOMEM, at->line, "out of memory"), false;
            f->regs[first + i].pair = f->nregs;
            f->regs[f->nregs].type = PT_B64;
            f->regs[f->nregs].bits = 64;
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

/* A .func's parameters and results become variables of its body (the
 * per-thread memory a call copies arguments into and results out of):
 * their names resolve to them, and ld.param/st.param address them. */
static bool param_vars(parser *ps, const ptx_param *p, uint32_t n, uint32_t **out)
{
    *out = ptx_arena_alloc(&ps->m->arena, sizeof **out * (n ? n : 1));
    if (!*out)
        return ps_fail(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory"), false;
    for (uint32_t i = 0; i < n; i++) {
        if (!ptx_grow((void **)&ps->m->vars, &ps->m->capvars, ps->m->nvars, sizeof *ps->m->vars))
            return ps_fail(ps, VKRR_ERR_NOMEM, ps->lx.line, "out of memory"), false;
        ptx_var *v = &ps->m->vars[ps->m->nvars];
        memset(v, 0, sizeof *v);
        v->name = p[i].name;
        v->space = SP_LOCAL;
        v->param = true;
        v->type = p[i].type;
        v->align = p[i].align;
        v->size = p[i].size;
        v->elem = ptx_type_bits(p[i].type) / 8u; /* a byte array's: 1 */
        v->func = ps->fidx;
        if (ps_sym_here(ps, v->name, (uint32_t)strlen(v->name)))
            return FAIL(ps, ps_peek(ps, 0), "'%s' is declared twice", v->name), false;
        if (!ps_sym_add(ps, v->name, (uint32_t)strlen(v->name), SK_VAR, ps->m->nvars, 0))
            return false;
        (*out)[i] = ps->m->nvars++;
    }
    return true;
}

bool ps_func_param_vars(parser *ps, ptx_func *f)
{
    return param_vars(ps, f->rets, f->nrets, &f->ret_var) &&
           param_vars(ps, f->params, f->nparams, &f->param_var);
}

/* ( .param ... , ... ) */
bool ps_param_list(parser *ps, ptx_param **out, uint32_t *nout, uint32_t *bytes, bool entry)
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
        uint8_t ref;
        if (!decl_type(ps, &align, &type, &vec, &ref))
            return false;
        if (ref && !entry)
            return ps_fail(ps, VKRR_ERR_UNSUPPORTED, d.line, "texture, sampler and surface parameters "
                           "of a .func (the PTX ISA has them on kernels)"), false;
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
        tmp[n] = (ptx_param){ps_dup(ps, name.s, name.len), a, size, off, type, ref};
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
