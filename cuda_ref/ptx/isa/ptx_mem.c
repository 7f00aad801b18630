/* ptx_mem.c - loads, stores, atomics and fences in every state space.
 *
 * Every access goes through ptx_addr (bounds, alignment, writability against
 * the memory the launch owns).  Cache operators and eviction hints are
 * accepted and have no effect.  Atomics on global memory are host atomics
 * (CTAs run on several host threads); lanes of a warp apply theirs in lane
 * order.  cp.async copies at issue time: the data is in place before any
 * wait_group, which is one of the orders the PTX memory model allows (a kernel
 * that reads the destination before waiting has a race either way). */
#include <math.h>

#include "ptx_internal.h"

#define A_(i) PTX_R(w, in->o[i])
#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

/* ld/st: o[0] address base slot, in->imm offset, o[1..n] data slots
 * (UINT32_MAX: '_'), in->a element bytes, in->b elements, in->c sign-extend,
 * in->d space, in->e register bits of the data operands */
HANDLER(x_ld)
{
    const uint64_t *A = A_(0);
    unsigned eb = in->a, n = in->b, rb = in->e, bytes = eb * n;
    uint64_t rmask = rb >= 64 ? ~0ull : (1ull << rb) - 1u;
    PTX_LANES(m, {
        const unsigned char *p = ptx_addr(w, in, (int)l, in->d, A[l] + in->imm, bytes, bytes, false);
        if (!p)
            return -1;
        for (unsigned k = 0; k < n; k++) {
            uint64_t v = 0;
            memcpy(&v, p + k * eb, eb);
            if (in->c && eb < 8 && ((v >> (eb * 8 - 1)) & 1u))
                v |= ~0ull << (eb * 8);
            if (in->o[1 + k] != UINT32_MAX)
                PTX_R(w, in->o[1 + k])[l] = v & rmask;
        }
    });
    return 0;
}

/* One scalar element from global or generic memory: the address checked
 * against the region this instruction hit last, inline, and moved to its
 * host memory; anything else (another region, shared or local through a
 * generic address, a fault) takes ptx_addr.  EB bytes, SX sign-extend. */
#define LD_FAST(NAME, T, EB, SX)                                                              \
    HANDLER(NAME)                                                                             \
    {                                                                                         \
        const uint64_t *A = A_(0);                                                            \
        uint64_t *D = PTX_R(w, in->o[1]);                                                     \
        uint64_t rmask = in->e >= 64 ? ~0ull : (1ull << in->e) - 1u;                         \
        const ptx_rt *rt_ = w->cta->rt;                                                       \
        uint32_t k_ = __atomic_load_n(&rt_->ihint[in - rt_->f->code], __ATOMIC_RELAXED);     \
        bool have = k_ < rt_->nregions;                                                       \
        const ptx_region_rt *rg = &rt_->regions[have ? k_ : 0];                               \
        PTX_LANES(m, {                                                                        \
            uint64_t a = A[l] + in->imm;                                                      \
            const void *p;                                                                    \
            if (have && a >= rg->lo && a < rg->hi && rg->hi - a >= EB && !(a & (EB - 1))) {   \
                p = (const void *)(uintptr_t)(a + rg->delta);                                 \
            } else { /* the next lanes check the region this one found */                     \
                if (!(p = ptx_addr(w, in, (int)l, in->d, a, EB, EB, false)))                  \
                    return -1;                                                                \
                k_ = __atomic_load_n(&rt_->ihint[in - rt_->f->code], __ATOMIC_RELAXED);       \
                have = k_ < rt_->nregions;                                                    \
                rg = &rt_->regions[have ? k_ : 0];                                            \
            }                                                                                 \
            T v;                                                                              \
            memcpy(&v, p, EB);                                                                \
            D[l] = (SX ? (uint64_t)(int64_t)v : (uint64_t)v) & rmask;                        \
        });                                                                                   \
        return 0;                                                                             \
    }
LD_FAST(x_ld_u8, uint8_t, 1, 0)
LD_FAST(x_ld_s8, int8_t, 1, 1)
LD_FAST(x_ld_u16, uint16_t, 2, 0)
LD_FAST(x_ld_s16, int16_t, 2, 1)
LD_FAST(x_ld_u32, uint32_t, 4, 0)
LD_FAST(x_ld_s32, int32_t, 4, 1)
LD_FAST(x_ld_u64, uint64_t, 8, 0)

HANDLER(x_st)
{
    const uint64_t *A = A_(0);
    unsigned eb = in->a, n = in->b, bytes = eb * n;
    PTX_LANES(m, {
        unsigned char *p = ptx_addr(w, in, (int)l, in->d, A[l] + in->imm, bytes, bytes, true);
        if (!p)
            return -1;
        for (unsigned k = 0; k < n; k++) {
            uint64_t v = PTX_R(w, in->o[1 + k])[l];
            memcpy(p + k * eb, &v, eb);
        }
    });
    return 0;
}

/* What the JIT emits inline (ptx_jit_emit.c): local, shared, global and
 * generic (the region the warp hit last) ld/st whose every lane is in
 * bounds and aligned; any other lane takes the handler. */
const ptx_jop ptx_mem_jops[] = {
    {x_ld, JOP_LD, 0, 0},     {x_ld_u8, JOP_LD, 0, 0},  {x_ld_s8, JOP_LD, 0, 0},
    {x_ld_u16, JOP_LD, 0, 0}, {x_ld_s16, JOP_LD, 0, 0}, {x_ld_u32, JOP_LD, 0, 0},
    {x_ld_s32, JOP_LD, 0, 0}, {x_ld_u64, JOP_LD, 0, 0}, {x_st, JOP_ST, 0, 0},
};
const unsigned ptx_mem_njops = sizeof ptx_mem_jops / sizeof ptx_mem_jops[0];

/* atom/red: o[0] base, o[1] d (UINT32_MAX for red), o[2] b, o[3] c; in->a op,
 * in->b type code, in->d space */
enum { AO_AND, AO_OR, AO_XOR, AO_CAS, AO_EXCH, AO_ADD, AO_INC, AO_DEC, AO_MIN, AO_MAX };
enum { AT_B32, AT_U32, AT_S32, AT_B64, AT_U64, AT_S64, AT_F32, AT_F64, AT_F16, AT_F16X2, AT_BF16,
       AT_BF16X2, AT_B16 };

static unsigned at_bytes(int t)
{
    switch (t) {
    case AT_B64: case AT_U64: case AT_S64: case AT_F64: return 8;
    case AT_F16: case AT_BF16: case AT_B16: return 2;
    default: return 4;
    }
}

static uint16_t half_add(uint16_t a, uint16_t b, int fmt)
{
    double x = vkrr_decode_bits(a, fmt), y = vkrr_decode_bits(b, fmt);
    return ptx_fma_small(x, 1.0, y, fmt, RND_RN);
}

/* the new value of one atomic update */
static uint64_t atom_op(int op, int t, uint64_t old, uint64_t b, uint64_t c, bool ftz)
{
    switch (op) {
    case AO_AND: return old & b;
    case AO_OR: return old | b;
    case AO_XOR: return old ^ b;
    case AO_CAS: return old == b ? c : old;
    case AO_EXCH: return b;
    case AO_INC: return (uint32_t)old >= (uint32_t)b ? 0 : (uint32_t)old + 1u;
    case AO_DEC: return ((uint32_t)old == 0 || (uint32_t)old > (uint32_t)b) ? (uint32_t)b
                                                                              : (uint32_t)old - 1u;
    default: break;
    }
    bool mn = op == AO_MIN;
    switch (t) {
    case AT_S32: {
        int32_t x = (int32_t)(uint32_t)old, y = (int32_t)(uint32_t)b;
        return op == AO_ADD ? (uint32_t)(x + (int64_t)y) : (uint32_t)(mn ? (x < y ? x : y) : (x > y ? x : y));
    }
    case AT_S64: {
        int64_t x = (int64_t)old, y = (int64_t)b;
        return op == AO_ADD ? old + b : (uint64_t)(mn ? (x < y ? x : y) : (x > y ? x : y));
    }
    case AT_U32: case AT_B32:
        return op == AO_ADD ? (uint32_t)(old + b)
                            : (mn ? ((uint32_t)old < (uint32_t)b ? old : b) : ((uint32_t)old > (uint32_t)b ? old : b));
    case AT_U64: case AT_B64:
        return op == AO_ADD ? old + b : (mn ? (old < b ? old : b) : (old > b ? old : b));
    case AT_F32: {
        float x = ptx_f(old), y = ptx_f(b);
        if (ftz) {
            x = vkrr_ftz_f32(x);
            y = vkrr_ftz_f32(y);
        }
        float r = ptx_canon_f32(x + y);
        return ptx_fb(ftz ? vkrr_ftz_f32(r) : r);
    }
    case AT_F64: return ptx_db(ptx_d(old) + ptx_d(b));
    case AT_F16: return half_add((uint16_t)old, (uint16_t)b, FMT_F16);
    case AT_BF16: return half_add((uint16_t)old, (uint16_t)b, FMT_BF16);
    case AT_F16X2: case AT_BF16X2: {
        int fmt = t == AT_F16X2 ? FMT_F16 : FMT_BF16;
        return (uint64_t)half_add((uint16_t)old, (uint16_t)b, fmt) |
               (uint64_t)half_add((uint16_t)(old >> 16), (uint16_t)(b >> 16), fmt) << 16;
    }
    default: return old;
    }
}

HANDLER(x_atom)
{
    const uint64_t *A = A_(0), *B = A_(2), *C = A_(3);
    int op = in->a, t = in->b;
    unsigned bytes = at_bytes(t);
    PTX_LANES(m, {
        void *p = ptx_addr(w, in, (int)l, in->d, A[l] + in->imm, bytes, bytes, true);
        if (!p)
            return -1;
        uintptr_t s0 = (uintptr_t)w->cta->shared;
        bool global = !((uintptr_t)p >= s0 && (uintptr_t)p - s0 < w->cta->rt->shared_bytes);
        uint64_t b = B[l], c = C[l], old;
        if (bytes == 4) {
            uint32_t *q = p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
            do
                nv = (uint32_t)atom_op(op, t, o, b, c, global);
            while (!__atomic_compare_exchange_n(q, &o, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
            old = o;
        } else if (bytes == 8) {
            uint64_t *q = p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
            do
                nv = atom_op(op, t, o, b, c, global);
            while (!__atomic_compare_exchange_n(q, &o, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
            old = o;
        } else {
            uint16_t *q = p, o = __atomic_load_n(q, __ATOMIC_RELAXED), nv;
            do
                nv = (uint16_t)atom_op(op, t, o, b, c, global);
            while (!__atomic_compare_exchange_n(q, &o, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
            old = o;
        }
        if (in->o[1] != UINT32_MAX)
            PTX_R(w, in->o[1])[l] = old;
    });
    return 0;
}

/* cp.async: o[0] dst base (shared), in->imm dst offset, o[1] src base (global),
 * in->target... no: src offset in ox[0..1] as a 64-bit pair; in->a cp-size,
 * o[2] src-size slot (in->c 1 when present) */
HANDLER(x_cp_async)
{
    const uint64_t *D = A_(0), *S = A_(1), *Z = A_(2);
    unsigned n = in->a;
    uint64_t soff = (uint64_t)in->ox[0] | (uint64_t)in->ox[1] << 32;
    PTX_LANES(m, {
        uint32_t src = in->c ? (uint32_t)Z[l] : n;
        if (src > n)
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "src-size %u > cp-size %u", src, n);
        unsigned char *d = ptx_addr(w, in, (int)l, SP_SHARED, D[l] + in->imm, n, n, true);
        if (!d)
            return -1;
        if (src) {
            const unsigned char *s = ptx_addr(w, in, (int)l, SP_GLOBAL, S[l] + soff, src, 1, false);
            if (!s)
                return -1;
            memcpy(d, s, src);
        }
        memset(d + src, 0, n - src);
    });
    return 0;
}

HANDLER(x_mov64)
{
    uint64_t *d = A_(0);
    const uint64_t *a = A_(1);
    PTX_LANES(m, d[l] = a[l]);
    return 0;
}

static int x_nop(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    (void)w, (void)in, (void)m;
    return 0;
}

static int x_fence(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    (void)w, (void)in, (void)m;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return 0;
}

/* ---- decoder ---------------------------------------------------------------------- */
static unsigned take_space(ptx_dctx *c)
{
    static const char *const sp[] = {".global", ".shared", ".shared::cta", ".local", ".param",
                                     ".param::entry", ".const", ".param::func",
                                     ".shared::cluster"};
    static const unsigned code[] = {SP_GLOBAL, SP_SHARED, SP_SHARED, SP_LOCAL, SP_PARAM,
                                    SP_PARAM, SP_CONST, SP_NONE, SP_NONE};
    int k = ptx_take_any(c, sp, 9);
    if (k == 4 || k == 5 || k == 7) {
        /* a .param variable of a body or a .func (a call's argument or
         * result) is per-thread memory, laid out as .local */
        const ptx_rop *a = NULL;
        for (unsigned i = 0; i < ptx_nops(c); i++)
            if (ptx_op(c, i)->kind == RO_MEM)
                a = ptx_op(c, i);
        const ptx_rop *b = a && a->n == 1 ? &c->f->rops[a->first] : NULL;
        if (b && b->kind == RO_SYM && b->id < c->m->nvars && c->m->vars[b->id].param)
            return SP_LOCAL;
        if (k == 7)
            return UINT32_MAX;
    }
    if (k >= 7)
        return UINT32_MAX;
    return k < 0 ? SP_GENERIC : code[k];
}

/* [base + off] into o[field] / *off (ptx_internal.h) */
int ptx_mem_operand(ptx_dctx *c, const ptx_rop *o, unsigned field, uint64_t *off)
{
    const ptx_rop *b = o;
    *off = 0;
    if (o && o->kind == RO_SYM && o->elem) {
        /* `ld.global.u32 %r, a[2];`: the element itself (its offset is in b->ival) */
    } else if (!o || o->kind != RO_MEM || o->n != 1) {
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected an address [...]");
    } else {
        b = &c->f->rops[o->first];
        *off = (uint64_t)o->ival;
    }
    if (b->kind == RO_INT) {
        *off += (uint64_t)b->ival;
        return ptx_set_slot(c, field, ptx_const_slot(c, 0), true, false);
    }
    if (b->kind == RO_SYM && ptx_var_in_frame(c, b->id)) {
        /* a recursive function's variable: from the lane's current frame */
        *off += c->f->var_off[b->id] + (uint64_t)b->ival;
        return ptx_set_slot(c, field, (int64_t)(TAG_SREG | SR_FRAME), true, false);
    }
    if (b->kind == RO_REG) {
        unsigned bits = ptx_reg_bits(c, b);
        if (bits != 64 && bits != 32)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "an address register of %u bits", bits);
        return ptx_set_src(c, field, b, bits == 32 ? PT_U32 : PT_U64, false);
    }
    return ptx_set_src(c, field, b, PT_U64, false);
}

/* .L2::cache_hint: the last operand is a 64-bit cache policy (createpolicy's);
 * it only steers the L2, so it is checked to be a 64-bit value and dropped.
 * *n: the operands before it. */
static int cache_hint(ptx_dctx *c, unsigned *n)
{
    *n = ptx_nops(c);
    if (!ptx_take(c, ".L2::cache_hint"))
        return 0;
    const ptx_rop *p = *n ? ptx_op(c, *n - 1) : NULL;
    if (!p || (p->kind != RO_INT && !(p->kind == RO_REG && ptx_reg_bits(c, p) == 64)))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, ".L2::cache_hint needs a 64-bit cache policy operand last");
    (*n)--;
    return 0;
}

static int take_vec(ptx_dctx *c)
{
    if (ptx_take(c, ".v2"))
        return 2;
    if (ptx_take(c, ".v4"))
        return 4;
    if (ptx_take(c, ".v8"))
        return -1;
    return 1;
}

static int dec_ldst(ptx_dctx *c, bool st)
{
    ptx_inst *in = c->in;
    ptx_take_ignorable(c);
    unsigned nops;
    if (cache_hint(c, &nops) < 0)
        return -1;
    unsigned sp = take_space(c);
    ptx_take_ignorable(c);
    int n = take_vec(c);
    ptx_type t = ptx_take_type(c);
    unsigned tb = ptx_type_bits(t);
    if (sp == UINT32_MAX || n < 0 || t == PT_NONE || t == PT_PRED || tb < 8 || (tb > 64 && t != PT_B128) ||
        (t == PT_B128 && n != 1))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "this form of %s", c->r->op);
    if (ptx_rest_ok(c) < 0)
        return -1;
    if (nops != 2)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "takes 2 operands (and a cache policy with .L2::cache_hint)");
    const ptx_rop *data = ptx_op(c, st ? 1 : 0), *addr = ptx_op(c, st ? 0 : 1);
    uint64_t off;
    if (ptx_mem_operand(c, addr, 0, &off) < 0)
        return -1;
    in->imm = off;
    if (t == PT_B128) {
        /* 16 bytes, 16-aligned: the .v2 .b64 access of its two halves */
        if (ptx_set_b128(c, 1, 2, data, !st) < 0)
            return -1;
        in->a = 8;
        in->b = 2;
        in->c = 0;
        in->d = (uint8_t)sp;
        in->e = 64;
        in->fn = st ? x_st : x_ld;
        return 1;
    }
    const ptx_rop *elems = data;
    unsigned ne = 1;
    if (data->kind == RO_VEC) {
        elems = &c->f->rops[data->first];
        ne = data->n;
    }
    if ((int)ne != n)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "%u data operands for .v%d", ne, n);
    unsigned rbits = 0;
    for (unsigned k = 0; k < ne; k++) {
        const ptx_rop *e = &elems[k];
        if (e->kind == RO_SINK && !st) {
            in->o[1 + k] = UINT32_MAX;
            continue;
        }
        unsigned b = ptx_reg_bits(c, e);
        if (e->kind == RO_REG && rbits && b != rbits)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "vector elements of different widths");
        if (e->kind == RO_REG)
            rbits = b;
        if (st ? ptx_set_src(c, 1 + k, e, t, true) : ptx_set_dst(c, 1 + k, e, t, true))
            return -1;
    }
    in->a = (uint8_t)(tb / 8);
    in->b = (uint8_t)ne;
    in->c = ptx_type_is_signed(t) && !ptx_type_is_float(t);
    in->d = (uint8_t)sp;
    in->e = (uint8_t)(rbits ? rbits : tb);
    in->fn = st ? x_st : x_ld;
    if (!st && ne == 1 && in->o[1] != UINT32_MAX && (sp == SP_GLOBAL || sp == SP_GENERIC)) {
        static const ptx_fn fast[2][4] = {{x_ld_u8, x_ld_u16, x_ld_u32, x_ld_u64},
                                          {x_ld_s8, x_ld_s16, x_ld_s32, x_ld_u64}};
        int k = tb == 8 ? 0 : tb == 16 ? 1 : tb == 32 ? 2 : 3;
        in->fn = fast[in->c][k];
    }
    return 1;
}

static int dec_atom(ptx_dctx *c, bool red)
{
    ptx_inst *in = c->in;
    ptx_take_ignorable(c);
    unsigned sp = take_space(c);
    ptx_take_ignorable(c);
    static const char *const ops[] = {".and", ".or", ".xor", ".cas", ".exch", ".add", ".inc",
                                      ".dec", ".min", ".max"};
    int op = ptx_take_any(c, ops, 10);
    bool noftz = ptx_take(c, ".noftz");
    if (ptx_take(c, ".L2::cache_hint") || ptx_take(c, ".v2") || ptx_take(c, ".v4") ||
        ptx_take(c, ".v8"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "vector atomics and cache policies");
    ptx_type t = ptx_take_type(c);
    static const ptx_type types[] = {PT_B32, PT_U32, PT_S32, PT_B64, PT_U64, PT_S64, PT_F32,
                                     PT_F64, PT_F16, PT_F16X2, PT_BF16, PT_BF16X2, PT_B16};
    int tc = -1;
    for (int k = 0; k < 13; k++)
        if (types[k] == t)
            tc = k;
    if (op < 0 || tc < 0 || (sp != SP_GLOBAL && sp != SP_SHARED && sp != SP_GENERIC))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "this form of %s", c->r->op);
    bool fl = tc >= AT_F32 && tc <= AT_BF16X2;
    bool bitop = op <= AO_EXCH, intop = op >= AO_ADD;
    if ((fl && op != AO_ADD && !(op == AO_EXCH && tc <= AT_F64)) ||
        (tc >= AT_F16 && tc <= AT_BF16X2 && !noftz) || (tc == AT_B16 && op != AO_CAS) ||
        ((op == AO_INC || op == AO_DEC) && tc != AT_U32) ||
        (bitop && !fl && tc != AT_B32 && tc != AT_B64 && tc != AT_B16 && op != AO_EXCH) ||
        (intop && !fl && (tc == AT_B32 || tc == AT_B64) && op != AO_ADD))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s%s on %s", c->r->op, ops[op], ptx_type_name(t));
    if (ptx_rest_ok(c) < 0)
        return -1;
    unsigned want = (red ? 2u : 3u) + (op == AO_CAS);
    if (ptx_nops(c) != want)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "takes %u operands", want);
    unsigned i = 0;
    if (!red) {
        if (ptx_set_dst(c, 1, ptx_op(c, 0), t, false) < 0)
            return -1;
        i = 1;
    } else {
        in->o[1] = UINT32_MAX;
    }
    uint64_t off;
    if (ptx_mem_operand(c, ptx_op(c, i), 0, &off) < 0 || ptx_set_src(c, 2, ptx_op(c, i + 1), t, false) < 0)
        return -1;
    if (op == AO_CAS && ptx_set_src(c, 3, ptx_op(c, i + 2), t, false) < 0)
        return -1;
    in->imm = off;
    in->a = (uint8_t)op;
    in->b = (uint8_t)tc;
    in->d = (uint8_t)sp;
    in->fn = x_atom;
    return 1;
}

static int dec_cp_async(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    if (!ptx_take(c, ".async"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "cp form (only cp.async)");
    if (ptx_take(c, ".commit_group") || ptx_take(c, ".wait_group") || ptx_take(c, ".wait_all")) {
        if (ptx_rest_ok(c) < 0)
            return -1;
        in->fn = x_nop; /* every copy completed at issue */
        return 1;
    }
    unsigned n;
    if (cache_hint(c, &n) < 0)
        return -1;
    bool ca = ptx_take(c, ".ca"), cg = !ca && ptx_take(c, ".cg");
    bool dsh = ptx_take(c, ".shared") || ptx_take(c, ".shared::cta");
    bool sgl = ptx_take(c, ".global");
    ptx_take_ignorable(c); /* .L2::64B ... prefetch sizes */
    if ((!ca && !cg) || !dsh || !sgl)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "cp.async form (bulk copies are not implemented)");
    if (ptx_rest_ok(c) < 0)
        return -1;
    const ptx_rop *sz = ptx_op(c, 2);
    if ((n != 3 && n != 4) || !sz || sz->kind != RO_INT ||
        (sz->ival != 4 && sz->ival != 8 && sz->ival != 16) || (cg && sz->ival != 16))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "cp.async operands (cp-size 4, 8 or 16)");
    uint64_t doff, soff;
    if (ptx_mem_operand(c, ptx_op(c, 0), 0, &doff) < 0 || ptx_mem_operand(c, ptx_op(c, 1), 1, &soff) < 0)
        return -1;
    if (n == 4) {
        const ptx_rop *z = ptx_op(c, 3);
        if (z->kind == RO_REG && ptx_reg_bits(c, z) == 1)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "cp.async with an ignore-src predicate");
        if (ptx_set_src(c, 2, z, PT_U32, false) < 0)
            return -1;
        in->c = 1;
    }
    in->ox = ptx_alloc_ox(c, 2);
    if (!in->ox)
        return -1;
    in->ox[0] = (uint32_t)soff;
    in->ox[1] = (uint32_t)(soff >> 32);
    in->imm = doff;
    in->a = (uint8_t)sz->ival;
    in->fn = x_cp_async;
    return 1;
}

int ptx_dec_mem(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (!strcmp(op, "ld") || !strcmp(op, "ldu"))
        return dec_ldst(c, false);
    if (!strcmp(op, "st"))
        return dec_ldst(c, true);
    if (!strcmp(op, "atom"))
        return dec_atom(c, false);
    if (!strcmp(op, "red"))
        return dec_atom(c, true);
    if (!strcmp(op, "cp"))
        return dec_cp_async(c);
    if (!strcmp(op, "createpolicy")) { /* an L2 policy for .L2::cache_hint: opaque, and here 0 */
        for (unsigned i = 0; i < c->r->nmods; i++)
            c->mod_used[i] = true;
        if (ptx_nops(c) < 2 || ptx_set_dst(c, 0, ptx_op(c, 0), PT_B64, false) < 0)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "createpolicy needs a .b64 destination");
        int64_t k = ptx_const_slot(c, 0);
        if (k < 0 || ptx_set_slot(c, 1, k, true, false) < 0)
            return -1;
        in->fn = x_mov64;
        return 1;
    }
    if (!strcmp(op, "prefetch") || !strcmp(op, "prefetchu") || !strcmp(op, "discard") ||
        !strcmp(op, "applypriority")) {
        for (unsigned i = 0; i < c->r->nmods; i++)
            c->mod_used[i] = true;
        in->fn = x_nop;
        return 1;
    }
    if (!strcmp(op, "membar") || !strcmp(op, "fence")) {
        bool cta = ptx_take(c, ".cta");
        for (unsigned i = 0; i < c->r->nmods; i++) {
            const char *md = c->r->mods[i];
            if (!c->mod_used[i] && (!strcmp(md, ".gl") || !strcmp(md, ".sys") || !strcmp(md, ".gpu") ||
                                    !strcmp(md, ".sc") || !strcmp(md, ".acq_rel") ||
                                    !strncmp(md, ".proxy", 6) || !strcmp(md, ".alias") ||
                                    !strcmp(md, ".async") || !strcmp(md, ".cluster") ||
                                    !strncmp(md, ".shared", 7) || !strcmp(md, ".global") ||
                                    !strcmp(md, ".mbarrier_init") || !strcmp(md, ".release") ||
                                    !strcmp(md, ".acquire")))
                c->mod_used[i] = true;
        }
        if (ptx_rest_ok(c) < 0)
            return -1;
        in->fn = cta ? x_nop : x_fence;
        return 1;
    }
    return 0;
}
