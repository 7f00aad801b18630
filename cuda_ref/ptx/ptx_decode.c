/* ptx_decode.c - raw instructions -> the compact executable form, once per
 * function: operand helpers shared by the family decoders, control flow
 * (bra, ret, exit, trap, bar/barrier), variable layout, and the driver that
 * hands each instruction to its family and the slots to ptx_slots.c. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_internal.h"


/* Decode state of one function (behind ptx_dctx). */
typedef struct dstate {
    ptx_dctx c;
    ptx_dref *refs;
    uint32_t nrefs, caprefs;
    uint32_t *pidx;          /* register id -> P index (predicates) */
    uint32_t capconst;
    uint32_t sink;           /* P index that '_' destinations write */
    bool nomem;
} dstate;

static dstate *st_of(ptx_dctx *c) { return (dstate *)c; }

/* ---- failing --------------------------------------------------------------- */
int ptx_dec_fail(ptx_dctx *c, vkrr_status st, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->err->status == VKRR_OK)
        vkrr_fail(c->err, st, c->m->name, (long)c->r->line, -1, "%s: %s", c->r->text, msg);
    return -1;
}

/* ---- modifiers ---------------------------------------------------------------- */
bool ptx_take(ptx_dctx *c, const char *mod)
{
    for (unsigned i = 0; i < c->r->nmods; i++)
        if (!c->mod_used[i] && !strcmp(c->r->mods[i], mod)) {
            c->mod_used[i] = true;
            return true;
        }
    return false;
}

int ptx_take_any(ptx_dctx *c, const char *const *mods, int n)
{
    for (unsigned i = 0; i < c->r->nmods; i++) {
        if (c->mod_used[i])
            continue;
        for (int k = 0; k < n; k++)
            if (!strcmp(c->r->mods[i], mods[k])) {
                c->mod_used[i] = true;
                return k;
            }
    }
    return -1;
}

ptx_type ptx_take_type(ptx_dctx *c)
{
    for (unsigned i = 0; i < c->r->nmods; i++) {
        if (c->mod_used[i])
            continue;
        ptx_type t = ptx_type_from(c->r->mods[i]);
        if (t != PT_NONE) {
            c->mod_used[i] = true;
            return t;
        }
    }
    return PT_NONE;
}

/* Hints with no effect on results: cache operators, eviction priorities,
 * memory-model qualifiers (the interpreter is sequentially consistent within
 * a CTA and uses real atomics and fences across CTAs). */
void ptx_take_ignorable(ptx_dctx *c)
{
    static const char *const words[] = {
        ".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt", ".nc", ".volatile", ".relaxed",
        ".acquire", ".release", ".acq_rel", ".sc", ".weak", ".mmio", ".cta", ".gpu", ".sys",
        ".L2::64B", ".L2::128B", ".L2::256B", ".L1::evict_normal", ".L1::evict_unchanged",
        ".L1::evict_first", ".L1::evict_last", ".L1::no_allocate", ".L2::evict_first",
        ".L2::evict_last", ".L2::evict_normal", ".level::eviction_priority",
        ".level::prefetch_size",
    };
    for (unsigned i = 0; i < c->r->nmods; i++)
        for (unsigned k = 0; k < sizeof words / sizeof words[0]; k++)
            if (!c->mod_used[i] && !strcmp(c->r->mods[i], words[k]))
                c->mod_used[i] = true;
}

int ptx_rest_ok(ptx_dctx *c)
{
    for (unsigned i = 0; i < c->r->nmods; i++)
        if (!c->mod_used[i])
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "modifier %s is not supported here",
                                c->r->mods[i]);
    return 0;
}

/* ---- operands -------------------------------------------------------------------- */
const ptx_rop *ptx_op(ptx_dctx *c, unsigned i)
{
    return i < c->r->nops ? &c->f->rops[c->r->ops + i] : NULL;
}

unsigned ptx_nops(ptx_dctx *c) { return c->r->nops; }

unsigned ptx_reg_bits(ptx_dctx *c, const ptx_rop *o)
{
    return o && o->kind == RO_REG && o->id < c->f->nregs ? c->f->regs[o->id].bits : 0;
}

void ptx_ref(ptx_dctx *c, unsigned field, bool use, bool def)
{
    dstate *s = st_of(c);
    if (!ptx_grow((void **)&s->refs, &s->caprefs, s->nrefs, sizeof *s->refs)) {
        s->nomem = true;
        return;
    }
    /* a guarded write leaves the old value in the other lanes: it is a use too */
    if (def && c->r->guard >= 0)
        use = true;
    s->refs[s->nrefs++] = (ptx_dref){c->pc, (uint8_t)field, use, def};
}

int ptx_set_src(ptx_dctx *c, unsigned field, const ptx_rop *o, ptx_type t, bool wide_ok)
{
    int64_t v = ptx_src(c, o, t, wide_ok);
    if (v < 0)
        return -1;
    *(field < 8 ? &c->in->o[field] : &c->in->ox[field - 8]) = (uint32_t)v;
    ptx_ref(c, field, true, false);
    return 0;
}

int ptx_set_dst(ptx_dctx *c, unsigned field, const ptx_rop *o, ptx_type t, bool wide_ok)
{
    int64_t v = ptx_dst(c, o, t, wide_ok);
    if (v < 0)
        return -1;
    *(field < 8 ? &c->in->o[field] : &c->in->ox[field - 8]) = (uint32_t)v;
    ptx_ref(c, field, false, true);
    return 0;
}

int ptx_set_slot(ptx_dctx *c, unsigned field, int64_t slot, bool use, bool def)
{
    if (slot < 0)
        return -1;
    *(field < 8 ? &c->in->o[field] : field == 31 ? &c->in->target : &c->in->ox[field - 8]) =
        (uint32_t)slot;
    ptx_ref(c, field, use, def);
    return 0;
}

uint32_t *ptx_alloc_ox(ptx_dctx *c, unsigned n)
{
    uint32_t *p = ptx_arena_alloc(&c->m->arena, sizeof *p * n);
    if (!p)
        st_of(c)->nomem = true;
    return p;
}

int64_t ptx_const_slot(ptx_dctx *c, uint64_t v)
{
    ptx_func *f = c->f;
    dstate *s = st_of(c);
    for (uint32_t i = 0; i < f->nconst; i++)
        if (f->const_val[i] == v && f->const_var[i] < 0)
            return (int64_t)(TAG_CONST | i);
    if (f->nconst >= ID_MASK)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "too many constants");
    uint32_t cap = s->capconst;
    if (!ptx_grow((void **)&f->const_val, &cap, f->nconst, sizeof *f->const_val) ||
        !ptx_grow((void **)&f->const_var, &s->capconst, f->nconst, sizeof *f->const_var)) {
        s->nomem = true;
        return -1;
    }
    f->const_val[f->nconst] = v;
    f->const_var[f->nconst] = -1;
    return (int64_t)(TAG_CONST | f->nconst++);
}

static int64_t var_slot(ptx_dctx *c, uint32_t var, int64_t add)
{
    ptx_func *f = c->f;
    dstate *s = st_of(c);
    const ptx_var *v = &c->m->vars[var];
    if (v->space == SP_SHARED || v->space == SP_LOCAL)
        return ptx_const_slot(c, f->var_off[var] + (uint64_t)add);
    if (v->space != SP_GLOBAL && v->space != SP_CONST)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "the address of '%s'", v->name);
    for (uint32_t i = 0; i < f->nconst; i++)
        if (f->const_var[i] == (int32_t)var && f->const_val[i] == (uint64_t)add)
            return (int64_t)(TAG_CONST | i);
    uint32_t cap = s->capconst;
    if (!ptx_grow((void **)&f->const_val, &cap, f->nconst, sizeof *f->const_val) ||
        !ptx_grow((void **)&f->const_var, &s->capconst, f->nconst, sizeof *f->const_var)) {
        s->nomem = true;
        return -1;
    }
    f->const_val[f->nconst] = (uint64_t)add;
    f->const_var[f->nconst] = (int32_t)var;
    return (int64_t)(TAG_CONST | f->nconst++);
}

/* Bits of an immediate operand for instruction type t. */
static int imm_bits(ptx_dctx *c, const ptx_rop *o, ptx_type t, uint64_t *out)
{
    unsigned bits = ptx_type_bits(t);
    uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1u);
    double d = 0;
    bool isf = true;
    switch (o->kind) {
    case RO_INT: isf = false; break;
    case RO_F32: d = (double)ptx_f(o->bits); break;
    case RO_F64: d = ptx_d(o->bits); break;
    case RO_DEC: d = o->d; break;
    default: return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected an immediate");
    }
    switch (t) {
    case PT_F32:
        *out = o->kind == RO_F32 ? o->bits : ptx_fb(isf ? (float)d : (float)o->ival);
        return 0;
    case PT_F64:
        *out = o->kind == RO_F64 ? o->bits : ptx_db(isf ? d : (double)o->ival);
        return 0;
    case PT_F16:
    case PT_BF16:
        if (!isf) {
            *out = (uint64_t)o->ival & 0xffffu;
            return 0;
        }
        *out = vkrr_round_to(d, 0, t == PT_F16 ? FMT_F16 : FMT_BF16, RND_RN, false);
        return 0;
    default:
        if (t == PT_PRED || bits == 0 || bits > 64)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "an immediate of type %s", ptx_type_name(t));
        if (isf) {
            /* 0f/0d literals as bit patterns of bit-size operands */
            if (o->kind == RO_F32 && bits == 32) {
                *out = o->bits;
                return 0;
            }
            if (o->kind == RO_F64 && bits == 64) {
                *out = o->bits;
                return 0;
            }
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "a float literal for a %s operand",
                                ptx_type_name(t));
        }
        *out = (uint64_t)o->ival & mask;
        return 0;
    }
}

static int64_t reg_operand(ptx_dctx *c, const ptx_rop *o, ptx_type t, bool wide_ok, bool dst)
{
    const ptx_reg *rg = &c->f->regs[o->id];
    unsigned tb = ptx_type_bits(t);
    if (rg->type == PT_PRED)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "a predicate where a %s operand belongs",
                            ptx_type_name(t));
    if (tb && (wide_ok ? rg->bits < tb : rg->bits != tb))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "a %u-bit register for a %s %s operand", rg->bits,
                            ptx_type_name(t), dst ? "destination" : "source");
    return (int64_t)o->id;
}

int64_t ptx_src(ptx_dctx *c, const ptx_rop *o, ptx_type t, bool wide_ok)
{
    if (!o)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "missing operand");
    if (o->neg && o->kind != RO_INT)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "'!' on a non-predicate operand");
    switch (o->kind) {
    case RO_REG:
        return reg_operand(c, o, t, wide_ok, false);
    case RO_INT:
    case RO_F32:
    case RO_F64:
    case RO_DEC: {
        uint64_t v = 0;
        if (imm_bits(c, o, t, &v) < 0)
            return -1;
        return ptx_const_slot(c, v);
    }
    case RO_SREG:
        if (o->sreg >= SR_CLOCK)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s outside mov", ptx_sreg_name(o->sreg));
        return (int64_t)(TAG_SREG | o->sreg);
    case RO_SYM:
        return var_slot(c, o->id, o->ival);
    case RO_PARAM:
        if (!c->f->entry)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "parameters of a .func");
        return ptx_const_slot(c, c->f->params[o->id].offset + (uint64_t)o->ival);
    case RO_FUNC:
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "function addresses");
    case RO_NAME:
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "'%s' is not declared", o->name);
    default:
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "a %s operand is not allowed here",
                            o->kind == RO_VEC ? "vector" : o->kind == RO_MEM ? "memory" : "list");
    }
}

int64_t ptx_dst(ptx_dctx *c, const ptx_rop *o, ptx_type t, bool wide_ok)
{
    if (!o)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "missing destination");
    if (o->kind != RO_REG || o->neg)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "the destination must be a register");
    return reg_operand(c, o, t, wide_ok, true);
}

int64_t ptx_psrc(ptx_dctx *c, const ptx_rop *o, bool *neg)
{
    if (!o || o->kind != RO_REG || c->f->regs[o->id].type != PT_PRED)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected a predicate register");
    if (neg)
        *neg = o->neg;
    else if (o->neg)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "'!' is not allowed on this operand");
    return (int64_t)st_of(c)->pidx[o->id];
}

int64_t ptx_pdst(ptx_dctx *c, const ptx_rop *o)
{
    if (o && o->kind == RO_SINK)
        return (int64_t)st_of(c)->sink;
    if (!o || o->kind != RO_REG || o->neg || c->f->regs[o->id].type != PT_PRED)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected a predicate destination");
    return (int64_t)st_of(c)->pidx[o->id];
}

/* ---- control flow --------------------------------------------------------------- */
static int find_label(ptx_dctx *c, const char *name)
{
    for (uint32_t i = 0; i < c->f->nlabels; i++)
        if (!strcmp(c->f->labels[i].name, name))
            return (int)c->f->labels[i].at;
    return -1;
}

static int dec_bar(ptx_dctx *c);

static int dec_control(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (!strcmp(op, "bra")) {
        ptx_take(c, ".uni");
        const ptx_rop *t = ptx_op(c, 0);
        if (ptx_nops(c) != 1 || !t || t->kind != RO_NAME)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "bra needs one label");
        int at = find_label(c, t->name);
        if (at < 0)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "label '%s' is not defined in '%s'", t->name,
                                c->f->name);
        in->kind = K_BRA;
        in->target = (uint32_t)at;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "ret") || !strcmp(op, "exit")) {
        ptx_take(c, ".uni");
        if (ptx_nops(c) != 0)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "%s takes no operands", op);
        if (!c->f->entry && !strcmp(op, "ret"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "ret from a .func (calls)");
        in->kind = K_EXIT;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "trap")) {
        in->kind = K_TRAP;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "bar") && c->r->nmods > 0 && !strcmp(c->r->mods[0], ".warp"))
        return ptx_dec_warpsync(c);
    if (!strcmp(op, "bar") || !strcmp(op, "barrier"))
        return dec_bar(c);
    if (!strcmp(op, "call") || !strcmp(op, "brx") || !strcmp(op, "callp"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s is not implemented (function calls)", op);
    return 0;
}

/* bar{.cta}.sync / barrier{.cta}.sync{.aligned} a{, b}; bar.arrive a, b;
 * bar.red.popc.u32 d, a{, b}, {!}c; bar.red.and|or.pred p, a{, b}, {!}c.
 * in->a: 0 sync, 1 arrive, 2 red; in->b: red op 0 popc 1 and 2 or;
 * o[0] barrier slot, o[1] count slot (in->c = 1 when present), o[2] red dst
 * (R for popc, P for and/or), o[3] red source predicate (in->d negated). */
static int dec_bar(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    ptx_take(c, ".cta");
    ptx_take(c, ".aligned");
    int mode = ptx_take(c, ".sync") ? 0 : ptx_take(c, ".arrive") ? 1 : ptx_take(c, ".red") ? 2 : -1;
    if (mode < 0) {
        if (!strcmp(c->r->op, "bar") && c->r->nmods == 0)
            mode = 0; /* plain "bar a" is bar.sync */
        else
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "barrier form");
    }
    in->kind = K_BAR;
    in->a = (uint8_t)mode;
    unsigned i = 0, n = ptx_nops(c);
    if (mode == 2) {
        static const char *const ops[] = {".popc", ".and", ".or"};
        int rop = ptx_take_any(c, ops, 3);
        ptx_type t = ptx_take_type(c);
        if (rop < 0 || (rop == 0 && t != PT_U32) || (rop > 0 && t != PT_PRED))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "bar.red form");
        in->b = (uint8_t)rop;
        if (rop == 0) {
            if (ptx_set_dst(c, 2, ptx_op(c, 0), PT_U32, false) < 0)
                return -1;
        } else {
            int64_t d = ptx_pdst(c, ptx_op(c, 0));
            if (d < 0)
                return -1;
            in->o[2] = (uint32_t)d;
        }
        i = 1;
        if (n != 3 && n != 4)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "bar.red takes 3 or 4 operands");
        bool neg = false;
        int64_t p = ptx_psrc(c, ptx_op(c, n - 1), &neg);
        if (p < 0)
            return -1;
        in->o[3] = (uint32_t)p;
        in->d = neg;
        n--;
    }
    if (n < i + 1 || n > i + 2)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "wrong number of operands");
    if (mode == 1 && n != i + 2)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "bar.arrive needs a thread count");
    if (ptx_set_src(c, 0, ptx_op(c, i), PT_U32, false) < 0)
        return -1;
    if (n == i + 2) {
        if (ptx_set_src(c, 1, ptx_op(c, i + 1), PT_U32, false) < 0)
            return -1;
        in->c = 1;
    }
    return ptx_rest_ok(c) < 0 ? -1 : 1;
}

/* No effect here: hints, profiling, sleeping. */
static int nop_fn(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    (void)w, (void)in, (void)m;
    return 0;
}

static int dec_nop(ptx_dctx *c)
{
    const char *op = c->r->op;
    if (!strcmp(op, "nanosleep") || !strcmp(op, "pmevent") || !strcmp(op, "brkpt") ||
        !strcmp(op, "griddepcontrol")) {
        for (unsigned i = 0; i < c->r->nmods; i++)
            c->mod_used[i] = true;
        c->in->fn = nop_fn;
        return 1;
    }
    return 0;
}

/* ---- variable layout ------------------------------------------------------------ */
static uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

/* Module .global/.const variables: two images. */
static bool layout_module(vkrr_ptx_module *m)
{
    uint64_t g = 0, k = 0;
    for (uint32_t i = 0; i < m->nvars; i++) {
        ptx_var *v = &m->vars[i];
        if (v->func >= 0 || (v->space != SP_GLOBAL && v->space != SP_CONST))
            continue;
        uint64_t *at = v->space == SP_GLOBAL ? &g : &k;
        *at = align_up(*at, v->align ? v->align : 1);
        v->offset = *at;
        *at += v->size;
        if (*at > (1ull << 31))
            return false;
    }
    m->global_bytes = g;
    m->const_bytes = k;
    m->global_image = ptx_arena_alloc(&m->arena, g ? g : 1);
    m->const_image = ptx_arena_alloc(&m->arena, k ? k : 1);
    if (!m->global_image || !m->const_image)
        return false;
    for (uint32_t i = 0; i < m->nvars; i++) {
        ptx_var *v = &m->vars[i];
        if (v->func >= 0 || !v->init || (v->space != SP_GLOBAL && v->space != SP_CONST))
            continue;
        memcpy((v->space == SP_GLOBAL ? m->global_image : m->const_image) + v->offset, v->init, v->size);
    }
    return true;
}

/* This function's shared and local windows: the module-scope shared/local
 * variables it names plus its own, in declaration order; dynamic shared
 * memory after the static part (16-byte aligned). */
static int layout_function(ptx_dctx *c)
{
    vkrr_ptx_module *m = c->m;
    ptx_func *f = c->f;
    bool *used = calloc(m->nvars ? m->nvars : 1, 1);
    f->var_off = calloc(m->nvars ? m->nvars : 1, sizeof *f->var_off);
    if (!used || !f->var_off) {
        free(used);
        return -1;
    }
    for (uint32_t i = 0; i < f->nrops; i++)
        if (f->rops[i].kind == RO_SYM && f->rops[i].id < m->nvars)
            used[f->rops[i].id] = true;
    uint64_t sh = 0, lo = 0, dyn_align = 16;
    for (uint32_t i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        if (!used[i] || (v->func >= 0 && v->func != (int32_t)(f - m->funcs)))
            continue;
        if (v->space == SP_SHARED && !v->dynamic) {
            sh = align_up(sh, v->align);
            f->var_off[i] = sh;
            sh += v->size;
        } else if (v->space == SP_SHARED) {
            f->uses_dynamic_shared = true;
            if (v->align > dyn_align)
                dyn_align = v->align;
        } else if (v->space == SP_LOCAL) {
            lo = align_up(lo, v->align);
            f->var_off[i] = lo;
            lo += v->size;
        }
    }
    f->shared_static = align_up(sh, dyn_align);
    for (uint32_t i = 0; i < m->nvars; i++)
        if (used[i] && m->vars[i].space == SP_SHARED && m->vars[i].dynamic)
            f->var_off[i] = f->shared_static;
    f->local_bytes = align_up(lo, 16);
    free(used);
    if (f->shared_static > (1u << 20) || f->local_bytes > (1u << 20)) {
        c->r = f->nraw ? &f->raw[0] : NULL;
        return -2;
    }
    return 0;
}

/* ---- one function ---------------------------------------------------------------- */
static void decode_function(vkrr_ptx_module *m, ptx_func *f)
{
    dstate s;
    memset(&s, 0, sizeof s);
    ptx_dctx *c = &s.c;
    c->m = m;
    c->f = f;
    c->err = &f->err;
    memset(&f->err, 0, sizeof f->err);
    f->status = VKRR_OK;
    bool used[32];
    c->mod_used = used;
    s.pidx = calloc(f->nregs ? f->nregs : 1, sizeof *s.pidx);
    f->code = calloc(f->nraw + 1, sizeof *f->code);
    if (!s.pidx || !f->code)
        goto nomem;
    for (uint32_t r = 0; r < f->nregs; r++)
        if (f->regs[r].type == PT_PRED)
            s.pidx[r] = f->npreds++;
    s.sink = f->npreds++;
    int lay = layout_function(c);
    if (lay == -1)
        goto nomem;
    if (lay == -2) {
        vkrr_fail(&f->err, VKRR_ERR_UNSUPPORTED, m->name, (long)f->line, -1,
                  "'%s' uses more than 1 MiB of shared or local memory", f->name);
        goto fail;
    }
    for (uint32_t i = 0; i < f->nlabels; i++)
        if (f->labels[i].at < f->nraw)
            f->code[f->labels[i].at].flags |= F_TARGET;
    for (uint32_t pc = 0; pc < f->nraw; pc++) {
        const ptx_raw *r = &f->raw[pc];
        ptx_inst *in = &f->code[pc];
        c->r = r;
        c->in = in;
        c->pc = pc;
        memset(used, 0, sizeof used);
        in->guard = -1;
        if (r->guard >= 0) {
            in->guard = (int32_t)s.pidx[r->guard];
            in->gneg = r->guard_neg;
        }
        int got = dec_control(c);
        if (got == 0)
            got = dec_nop(c);
        if (got == 0)
            got = ptx_dec_int(c);
        if (got == 0)
            got = ptx_dec_bits(c);
        if (got == 0)
            got = ptx_dec_float(c);
        if (got == 0)
            got = ptx_dec_cvt(c);
        if (got == 0)
            got = ptx_dec_mem(c);
        if (got == 0)
            got = ptx_dec_warp(c);
        if (got == 0)
            got = ptx_dec_mma(c);
        if (got == 0)
            got = ptx_dec_tex(c);
        if (s.nomem)
            goto nomem;
        if (got == 0)
            ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "instruction %s is not implemented", r->op);
        if (got <= 0)
            goto fail;
        if (in->kind == K_PLAIN && !in->fn)
            goto internal;
    }
    f->ncode = f->nraw;
    /* falling off the end of an entry is a ret */
    f->code[f->ncode].kind = K_EXIT;
    f->code[f->ncode].guard = -1;
    f->ncode++;
    if (ptx_finalize_slots(f, s.refs, s.nrefs) < 0)
        goto nomem;
    free(s.refs);
    free(s.pidx);
    return;
internal:
    vkrr_fail(&f->err, VKRR_ERR_INTERNAL, m->name, (long)c->r->line, -1, "%s: decoded to nothing",
              c->r->text);
    goto fail;
nomem:
    if (f->err.status == VKRR_OK)
        vkrr_fail(&f->err, VKRR_ERR_NOMEM, m->name, (long)f->line, -1, "out of memory decoding '%s'",
                  f->name);
fail:
    f->status = f->err.status ? f->err.status : VKRR_ERR_INTERNAL;
    free(f->code);
    f->code = NULL;
    f->ncode = 0;
    free(s.refs);
    free(s.pidx);
}

void ptx_decode_module(vkrr_ptx_module *m)
{
    bool ok = layout_module(m);
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        ptx_func *f = &m->funcs[i];
        if (!f->entry || !f->defined)
            continue;
        if (!ok) {
            f->status = vkrr_fail(&f->err, VKRR_ERR_UNSUPPORTED, m->name, (long)f->line, -1,
                                  "module variables larger than 2 GiB");
            continue;
        }
        decode_function(m, f);
    }
}

