/* ptx_move.c - mov of every type but .pred (ptx_int.c): registers,
 * immediates, special registers (whole vectors with .v4; the timers, which
 * change at every read), symbol addresses, vector pack and unpack, and .b128
 * as two 64-bit halves. */
#include "ptx_internal.h"

#define A_(i) PTX_R(w, in->o[i])
#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

HANDLER(x_mov)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, d[l] = A[l]);
    return 0;
}

/* mov of a timer (ptx_sreg.c): in->a the timer, in->imm the mask of the type */
HANDLER(x_timer)
{
    uint64_t *d = A_(0);
    uint64_t k = in->imm;
    PTX_LANES(m, d[l] = ptx_timer_lane(w, in->a, l) & k);
    ptx_timer_advance(w);
    return 0;
}

/* mov.v4 {d0, d1, d2, d3}, %tid (a vector special register): o[0..3] (UINT32_MAX for
 * '_') from the components' slots o[4..7], masked to the type (in->imm) */
HANDLER(x_sreg_v4)
{
    uint64_t k = in->imm;
    for (unsigned e = 0; e < 4; e++) {
        if (in->o[e] == UINT32_MAX)
            continue;
        uint64_t *d = A_(e);
        const uint64_t *S = A_(4 + e);
        PTX_LANES(m, d[l] = S[l] & k);
    }
    return 0;
}

/* mov.bN d, {e0, e1[, e2, e3]}: in->a elements of in->b bits (o[1..4]) */
HANDLER(x_pack)
{
    uint64_t *d = A_(0);
    unsigned n = in->a, eb = in->b;
    uint64_t em = eb >= 64 ? ~0ull : (1ull << eb) - 1u;
    PTX_LANES(m, {
        uint64_t v = 0;
        for (unsigned k = 0; k < n; k++)
            if (in->o[1 + k] != UINT32_MAX)
                v |= (PTX_R(w, in->o[1 + k])[l] & em) << (k * eb);
        d[l] = v;
    });
    return 0;
}

/* mov.bN {e0, e1...}, s: unpack (destinations o[1..4], UINT32_MAX for '_'; source o[0]) */
HANDLER(x_unpack)
{
    const uint64_t *S = A_(0);
    unsigned n = in->a, eb = in->b;
    uint64_t em = eb >= 64 ? ~0ull : (1ull << eb) - 1u;
    PTX_LANES(m, {
        uint64_t v = S[l];
        for (unsigned k = 0; k < n; k++)
            if (in->o[1 + k] != UINT32_MAX)
                PTX_R(w, in->o[1 + k])[l] = (v >> (k * eb)) & em;
    });
    return 0;
}

/* What the JIT emits inline (ptx_jit_emit.c) */
const ptx_jop ptx_move_jops[] = {{x_mov, JOP_MOV, 64, 0}, {x_pack, JOP_PACK, 64, 0},
                                 {x_unpack, JOP_UNPACK, 64, 0}};
const unsigned ptx_move_njops = sizeof ptx_move_jops / sizeof ptx_move_jops[0];

/* mov.b128: the halves o[0] (low) and o[1] (high; UINT32_MAX for '_') from
 * o[2] and o[3], both read before either is written */
HANDLER(x_mov128)
{
    const uint64_t *lo = A_(2), *hi = A_(3);
    uint64_t *dl = in->o[0] != UINT32_MAX ? A_(0) : NULL, *dh = in->o[1] != UINT32_MAX ? A_(1) : NULL;
    PTX_LANES(m, {
        uint64_t a = lo[l], b = hi[l];
        if (dl)
            dl[l] = a;
        if (dh)
            dh[l] = b;
    });
    return 0;
}

/* predicate logic: o[0] = d, o[1] = a, o[2] = b (P indices); in->a: 0 and 1 or 2 xor 3 not
 * 4 mov; in->b/in->c: a/b negated */
/* mov.b128 q, {lo, hi} | mov.b128 {lo, hi}, q | mov.b128 q, q2: the halves
 * as 64-bit registers (a .b128 register is two, ptx_set_b128). */
static int dec_mov128(ptx_dctx *c, const ptx_rop *d, const ptx_rop *a)
{
    ptx_inst *in = c->in;
    for (int side = 0; side < 2; side++) {
        const ptx_rop *o = side ? a : d;
        unsigned f = side ? 2 : 0;
        if (o->kind != RO_VEC) {
            if (ptx_set_b128(c, f, f + 1, o, side == 0) < 0)
                return -1;
            continue;
        }
        if (o->n != 2)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "a .b128 pair has 2 elements, not %u", o->n);
        for (unsigned k = 0; k < 2; k++) {
            const ptx_rop *e = &c->f->rops[o->first + k];
            if (e->kind == RO_SINK && side == 0) {
                in->o[f + k] = UINT32_MAX;
                continue;
            }
            if (side ? ptx_set_src(c, f + k, e, PT_B64, false) : ptx_set_dst(c, f + k, e, PT_B64, false))
                return -1;
        }
    }
    in->fn = x_mov128;
    return 1;
}

/* mov of a special register: a timer through its handler; one into a
 * narrower register keeps its low bits (the ISA's 16-bit reads of %tid
 * and the others, 32-bit reads of %gridid) */
static int dec_mov_sreg(ptx_dctx *c, const ptx_rop *d, const ptx_rop *a, ptx_type t)
{
    ptx_inst *in = c->in;
    unsigned bits = ptx_type_bits(t);
    in->imm = bits >= 64 ? ~0ull : (1ull << bits) - 1u;
    if (ptx_set_dst(c, 0, d, t, false) < 0)
        return -1;
    if (a->sreg >= SR_TIMER_FIRST && a->sreg < SR_COUNT) {
        in->a = (uint8_t)a->sreg;
        in->fn = x_timer;
        return 1;
    }
    /* special registers are u32 (or u64); mov.u64 of %tid.x etc. widens */
    if (ptx_set_src(c, 1, a, t, true) < 0)
        return -1;
    in->fn = bits < ptx_sreg_bits(a->sreg) ? ptx_fn_zext : x_mov;
    return 1;
}

/* mov.v4.u32 {a, b, c, d}, %tid (and .u16, the ISA's legacy reads) */
static int dec_mov_sreg_v4(ptx_dctx *c, const ptx_rop *d, const ptx_rop *a, ptx_type t)
{
    ptx_inst *in = c->in;
    unsigned bits = ptx_type_bits(t);
    if (a->kind != RO_SREG || !(a->sreg & PTX_SREG_VEC) || d->kind != RO_VEC || d->n != 4 ||
        (bits != 16 && bits != 32))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED,
                            "mov.v4 other than {a, b, c, d} from a vector special register");
    int sr = a->sreg & ~(int)PTX_SREG_VEC;
    for (unsigned e = 0; e < 4; e++) {
        const ptx_rop *el = &c->f->rops[d->first + e];
        ptx_rop comp = {.kind = RO_SREG, .sreg = (uint16_t)(sr + (int)e)};
        if (el->kind == RO_SINK)
            in->o[e] = UINT32_MAX;
        else if (ptx_set_dst(c, e, el, t, false) < 0)
            return -1;
        if (ptx_set_src(c, 4 + e, &comp, t, true) < 0)
            return -1;
    }
    in->imm = (1ull << bits) - 1u;
    in->fn = x_sreg_v4;
    return 1;
}

int ptx_dec_mov(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    bool v4 = ptx_take(c, ".v4");
    ptx_type t = ptx_take_type(c);
    if (t == PT_NONE || ptx_nops(c) != 2)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "mov needs a type and two operands");
    if (ptx_rest_ok(c) < 0)
        return -1;
    const ptx_rop *d = ptx_op(c, 0), *a = ptx_op(c, 1);
    if (v4)
        return dec_mov_sreg_v4(c, d, a, t);
    if (t == PT_B128)
        return dec_mov128(c, d, a);
    unsigned bits = ptx_type_bits(t);
    if (bits > 64)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s moves", ptx_type_name(t));
    if (d->kind == RO_VEC || a->kind == RO_VEC) { /* pack / unpack */
        const ptx_rop *v = d->kind == RO_VEC ? d : a, *s = d->kind == RO_VEC ? a : d;
        if (v->n != 2 && v->n != 4)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "a vector of 2 or 4 elements");
        unsigned eb = bits / v->n;
        if (eb < 8 || eb * v->n != bits)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "vector elements do not fill %s", ptx_type_name(t));
        ptx_type et = eb == 8 ? PT_B8 : eb == 16 ? PT_B16 : eb == 32 ? PT_B32 : PT_B64;
        bool unpack = d->kind == RO_VEC;
        if (unpack ? ptx_set_src(c, 0, s, t, false) : ptx_set_dst(c, 0, s, t, false))
            return -1;
        for (unsigned k = 0; k < v->n; k++) {
            const ptx_rop *e = &c->f->rops[v->first + k];
            if (e->kind == RO_SINK) {
                if (!unpack)
                    return ptx_dec_fail(c, VKRR_ERR_PARSE, "'_' as a source");
                in->o[1 + k] = UINT32_MAX;
                continue;
            }
            /* 8-bit elements live in 16-bit registers */
            bool wide = eb == 8;
            if (unpack ? ptx_set_dst(c, 1 + k, e, et, wide) : ptx_set_src(c, 1 + k, e, et, wide))
                return -1;
        }
        in->a = (uint8_t)v->n;
        in->b = (uint8_t)eb;
        in->fn = unpack ? x_unpack : x_pack;
        return 1;
    }
    if (a->kind == RO_SREG && !(a->sreg & PTX_SREG_VEC))
        return dec_mov_sreg(c, d, a, t);
    if (ptx_set_dst(c, 0, d, t, false) < 0 || ptx_set_src(c, 1, a, t, false) < 0)
        return -1;
    in->fn = x_mov;
    return 1;
}

