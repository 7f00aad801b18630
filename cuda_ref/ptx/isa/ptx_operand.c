/* ptx_operand.c - what every decoder (the families and ptx_decode.c's
 * control flow) asks of the instruction being decoded: failing with its
 * place, its modifiers, its operands as slots (registers, immediates,
 * variables, predicates).  It calls none of them: decoding calls down. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_internal.h"

static ptx_dstate *st_of(ptx_dctx *c) { return (ptx_dstate *)c; }

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
    ptx_dstate *s = st_of(c);
    if (!ptx_grow((void **)&s->refs, &s->caprefs, s->nrefs, sizeof *s->refs)) {
        s->nomem = true;
        return;
    }
    /* a guarded write leaves the old value in the other lanes: it is a use too */
    if (def && c->r->guard >= 0)
        use = true;
    s->refs[s->nrefs++] = (ptx_dref){c->pc, (uint8_t)field, use, def};
    if (field >= 8) { /* the JIT (ptx_jit_emit.c) keeps registers across a call by these */
        c->in->rox = field != FIELD_TARGET || c->in->rox;
    } else {
        c->in->ruse |= (uint8_t)((unsigned)use << field);
        c->in->rdef |= (uint8_t)((unsigned)def << field);
    }
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
    *(field < 8 ? &c->in->o[field] : field == FIELD_TARGET ? &c->in->target : &c->in->ox[field - 8]) =
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
    ptx_dstate *s = st_of(c);
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

bool ptx_var_in_frame(const ptx_dctx *c, uint32_t var)
{
    return c->f->var_frame && var < c->m->nvars && c->f->var_frame[var];
}

static int64_t var_slot(ptx_dctx *c, uint32_t var, int64_t add)
{
    ptx_func *f = c->f;
    ptx_dstate *s = st_of(c);
    const ptx_var *v = &c->m->vars[var];
    if (ptx_var_in_frame(c, var))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED,
                            "the address of '%s', a variable of a recursive function, in %s "
                            "(ld, st, mov and cvta.local take it)", v->name, c->r->op);
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
    if (rg->bits == 128 && tb != 128)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "a .b128 register where a %s operand belongs "
                            "(mov, ld and st take one)", ptx_type_name(t));
    if (tb && (wide_ok ? rg->bits < tb : rg->bits != tb))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "a %u-bit register for a %s %s operand", rg->bits,
                            ptx_type_name(t), dst ? "destination" : "source");
    return (int64_t)o->id;
}

int ptx_set_b128(ptx_dctx *c, unsigned lo, unsigned hi, const ptx_rop *o, bool dst)
{
    if (!o || o->kind != RO_REG || o->id >= c->f->nregs || c->f->regs[o->id].bits != 128)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected a .b128 register or a {lo, hi} pair");
    ptx_rop h = *o;
    h.id = c->f->regs[o->id].pair;
    if (dst)
        return ptx_set_dst(c, lo, o, PT_B128, false) < 0 || ptx_set_dst(c, hi, &h, PT_B64, false) < 0 ? -1 : 0;
    return ptx_set_src(c, lo, o, PT_B128, false) < 0 || ptx_set_src(c, hi, &h, PT_B64, false) < 0 ? -1 : 0;
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
        /* the timers: mov and cvt (ptxas allows no other instruction) */
        if (o->sreg >= SR_TIMER_FIRST && o->sreg < SR_COUNT)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s outside mov and cvt",
                                ptx_sreg_name(o->sreg));
        if (o->sreg & PTX_SREG_VEC)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "the vector %.*s outside mov.v4",
                                (int)(strlen(ptx_sreg_name(o->sreg)) - 2), ptx_sreg_name(o->sreg));
        if (o->sreg == SR_IS_EXPLICIT_CLUSTER)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "%s is a predicate", ptx_sreg_name(o->sreg));
        return (int64_t)(TAG_SREG | o->sreg);
    case RO_SYM:
        return var_slot(c, o->id, o->ival);
    case RO_PARAM:
        if (!c->f->entry)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "parameters of a .func");
        return ptx_const_slot(c, c->f->params[o->id].offset + (uint64_t)o->ival);
    case RO_FUNC:
        if (t != PT_U64 && t != PT_B64 && t != PT_S64)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "the address of a function as a %s",
                                ptx_type_name(t));
        return ptx_const_slot(c, ptx_fn_addr(o->id));
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
