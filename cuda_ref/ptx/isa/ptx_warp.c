/* ptx_warp.c - warp collectives: shfl.sync (up, down, bfly, idx), vote.sync
 * (all, any, uni, ballot), match.sync (any, all), redux.sync, activemask,
 * bar.warp.sync, elect.sync, and the pre-.sync vote and shfl.  Each is a
 * K_SYNC: every lane names its own membermask, and the executor runs the
 * handler once per group of lanes naming the same one, after every
 * non-exited lane of it has arrived (ptx_exec.c); so m, in a handler, is
 * exactly the group.  The pre-.sync forms group the lanes running.  Sources are read for all lanes before any destination is written
 * (d and a may be the same register). */
#include "ptx_internal.h"
#include "ptx_models.h"

#define A_(i) PTX_R(w, in->o[i])
#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

/* shfl.sync.mode.b32 d[|p], a, b, c, membermask: o[0] d, o[1] p (P, UINT32_MAX none),
 * o[2] a, o[3] b, o[4] c; in->a mode 0 up 1 down 2 bfly 3 idx */
/* vkrr_ptx_shfl_source's law, inline in x_shfl's loop over the lanes */
static inline uint32_t shfl_source(unsigned mode, uint32_t l, uint32_t b, uint32_t c, bool *ok)
{
    uint32_t clamp = c & 31u, seg = (c >> 8) & 31u;
    uint32_t maxl = (l & seg) | (clamp & ~seg), minl = l & seg;
    int32_t j;
    b &= 31u;
    switch (mode) {
    case 0: j = (int32_t)l - (int32_t)b; *ok = j >= (int32_t)maxl; break;
    case 1: j = (int32_t)(l + b); *ok = j <= (int32_t)maxl; break;
    case 2: j = (int32_t)(l ^ b); *ok = j <= (int32_t)maxl; break;
    default: j = (int32_t)(minl | (b & ~seg)); *ok = j <= (int32_t)maxl; break;
    }
    return !*ok || j < 0 || j > 31 ? l : (uint32_t)j;
}

uint32_t vkrr_ptx_shfl_source(unsigned mode, uint32_t l, uint32_t b, uint32_t c, bool *ok)
{
    return shfl_source(mode, l, b, c, ok);
}

HANDLER(x_shfl)
{
    uint64_t src[32];
    const uint64_t *A = A_(2), *B = A_(3), *C = A_(4);
    memcpy(src, A, sizeof src);
    uint64_t *d = A_(0);
    uint32_t pbits = 0;
    PTX_LANES(m, {
        bool ok;
        uint32_t j = shfl_source(in->a, l, (uint32_t)B[l], (uint32_t)C[l], &ok);
        d[l] = (uint32_t)src[j];
        pbits |= (uint32_t)ok << l;
    });
    if (in->o[1] != UINT32_MAX)
        w->P[in->o[1]] = (w->P[in->o[1]] & ~m) | (pbits & m);
    return 0;
}

/* vote.sync: o[0] d (P for all/any/uni, R for ballot), o[1] a (P), in->b a negated,
 * in->a 0 all 1 any 2 uni 3 ballot */
HANDLER(x_vote)
{
    uint32_t s = m, p = w->P[in->o[1]];
    if (in->b)
        p = ~p;
    p &= s;
    if (in->a == 3) {
        uint64_t *d = A_(0);
        PTX_LANES(m, d[l] = p);
        return 0;
    }
    bool all = p == s, any = p != 0;
    bool r = in->a == 0 ? all : in->a == 1 ? any : (all || !any);
    w->P[in->o[0]] = (w->P[in->o[0]] & ~m) | (r ? m : 0u);
    return 0;
}

/* match.sync: o[0] d, o[1] p (UINT32_MAX none), o[2] a; in->a 0 any 1 all; in->c 64-bit */
HANDLER(x_match)
{
    uint32_t s = m;
    uint64_t v[32];
    memcpy(v, A_(2), sizeof v);
    uint64_t k = in->c ? ~0ull : 0xffffffffull;
    uint64_t *d = A_(0);
    bool all = true;
    for (uint32_t t = s; t; t &= t - 1)
        if ((v[__builtin_ctz(t)] & k) != (v[__builtin_ctz(s)] & k))
            all = false;
    PTX_LANES(m, {
        if (in->a == 1) {
            d[l] = all ? s : 0u;
        } else {
            uint32_t r = 0;
            for (uint32_t t = s; t; t &= t - 1)
                if ((v[__builtin_ctz(t)] & k) == (v[l] & k))
                    r |= 1u << __builtin_ctz(t);
            d[l] = r;
        }
    });
    if (in->o[1] != UINT32_MAX)
        w->P[in->o[1]] = (w->P[in->o[1]] & ~m) | (all ? m : 0u);
    return 0;
}

/* redux.sync: o[0] d, o[2] a; in->a 0 add 1 min 2 max 3 and 4 or 5 xor 6 fmin 7 fmax;
 * in->b signed; in->c .abs; in->d .NaN */
HANDLER(x_redux)
{
    uint32_t s = m;
    const uint64_t *A = A_(2);
    uint32_t acc = 0;
    bool first = true, nan = false;
    float facc = 0.0f;
    bool fseen = false;
    for (uint32_t t = s; t; t &= t - 1) {
        uint32_t v = (uint32_t)A[__builtin_ctz(t)];
        if (in->a >= 6) {
            float f = ptx_f(v);
            if (in->c)
                f = __builtin_fabsf(f);
            if (f != f) {
                nan = true;
                continue;
            }
            bool better;
            if (!fseen)
                better = true;
            else if (f == facc)
                better = in->a == 6 ? __builtin_signbit(f) != 0 : __builtin_signbit(f) == 0;
            else
                better = in->a == 6 ? f < facc : f > facc;
            if (better)
                facc = f;
            fseen = true;
            continue;
        }
        if (first) {
            acc = v;
            first = false;
            continue;
        }
        switch (in->a) {
        case 0: acc += v; break;
        case 1: acc = in->b ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc); break;
        case 2: acc = in->b ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc); break;
        case 3: acc &= v; break;
        case 4: acc |= v; break;
        default: acc ^= v; break;
        }
    }
    if (in->a >= 6)
        acc = ((in->d && nan) || !fseen) ? 0x7fffffffu : (uint32_t)ptx_fb(facc);
    uint64_t *d = A_(0);
    PTX_LANES(m, d[l] = acc);
    return 0;
}

HANDLER(x_activemask)
{
    uint64_t *d = A_(0);
    uint32_t a = w->active;
    PTX_LANES(m, d[l] = a);
    return 0;
}

HANDLER(x_warpsync)
{
    (void)w, (void)in, (void)m;
    return 0;
}

/* elect.sync d|p, membermask: o[0] d (UINT32_MAX for '_'), o[1] p */
HANDLER(x_elect)
{
    uint32_t s = m;
    uint32_t leader = s ? (uint32_t)__builtin_ctz(s) : 0;
    if (in->o[0] != UINT32_MAX) {
        uint64_t *d = A_(0);
        PTX_LANES(m, d[l] = leader);
    }
    if (in->o[1] != UINT32_MAX)
        w->P[in->o[1]] = (w->P[in->o[1]] & ~m) | (s ? (1u << leader) & m : 0u);
    return 0;
}

/* ---- decoder ---------------------------------------------------------------------- */
/* sync: the .sync form's membermask operand o; else the lanes running. */
static int membermask(ptx_dctx *c, bool sync, const ptx_rop *o)
{
    c->in->kind = K_SYNC;
    if (!sync) {
        c->in->target = PTX_MASK_ACTIVE;
        return 0;
    }
    if (!o)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "missing membermask");
    if (o->kind == RO_INT && (uint32_t)o->ival == 0xffffffffu) {
        c->in->target = UINT32_MAX;
        return 0;
    }
    int64_t s = ptx_src(c, o, PT_B32, false);
    return ptx_set_slot(c, FIELD_TARGET, s, true, false);
}

int ptx_dec_warp(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    unsigned n = ptx_nops(c);
    if (!strcmp(op, "activemask")) {
        if (!ptx_take(c, ".b32") || ptx_rest_ok(c) < 0 || n != 1 ||
            ptx_set_dst(c, 0, ptx_op(c, 0), PT_B32, false) < 0)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "activemask.b32 d");
        in->fn = x_activemask;
        return 1;
    }
    if (!strcmp(op, "bar") || !strcmp(op, "barrier"))
        return 0;
    if (strcmp(op, "shfl") && strcmp(op, "vote") && strcmp(op, "match") && strcmp(op, "redux") &&
        strcmp(op, "elect"))
        return 0;
    /* vote and shfl without .sync (PTX before 6.0): the lanes running, no membermask */
    bool sync = ptx_take(c, ".sync");
    if (!sync && strcmp(op, "vote") && strcmp(op, "shfl"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s without .sync", op);
    if (!strcmp(op, "shfl")) {
        static const char *const modes[] = {".up", ".down", ".bfly", ".idx"};
        int md = ptx_take_any(c, modes, 4);
        if (md < 0 || !ptx_take(c, ".b32") || ptx_rest_ok(c) < 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "shfl.sync form");
        unsigned first = c->r->pipe == 0 ? 2 : 1;
        if (n != first + (sync ? 4 : 3))
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "wrong number of operands");
        if (ptx_set_dst(c, 0, ptx_op(c, 0), PT_B32, false) < 0)
            return -1;
        in->o[1] = UINT32_MAX;
        if (first == 2) {
            int64_t p = ptx_pdst(c, ptx_op(c, 1));
            if (p < 0)
                return -1;
            in->o[1] = (uint32_t)p;
        }
        if (ptx_set_src(c, 2, ptx_op(c, first), PT_B32, false) < 0 ||
            ptx_set_src(c, 3, ptx_op(c, first + 1), PT_B32, false) < 0 ||
            ptx_set_src(c, 4, ptx_op(c, first + 2), PT_B32, false) < 0 ||
            membermask(c, sync, ptx_op(c, first + 3)) < 0)
            return -1;
        in->a = (uint8_t)md;
        in->fn = x_shfl;
        return 1;
    }
    if (!strcmp(op, "vote")) {
        static const char *const modes[] = {".all", ".any", ".uni", ".ballot"};
        int md = ptx_take_any(c, modes, 4);
        ptx_type t = ptx_take_type(c);
        if (md < 0 || (md == 3 ? t != PT_B32 : t != PT_PRED) || ptx_rest_ok(c) < 0 ||
            n != (sync ? 3u : 2u))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "vote.sync form");
        bool neg = false;
        int64_t a = ptx_psrc(c, ptx_op(c, 1), &neg);
        if (a < 0)
            return -1;
        in->o[1] = (uint32_t)a;
        in->b = neg;
        if (md == 3) {
            if (ptx_set_dst(c, 0, ptx_op(c, 0), PT_B32, false) < 0)
                return -1;
        } else {
            int64_t d = ptx_pdst(c, ptx_op(c, 0));
            if (d < 0)
                return -1;
            in->o[0] = (uint32_t)d;
        }
        if (membermask(c, sync, ptx_op(c, 2)) < 0)
            return -1;
        in->a = (uint8_t)md;
        in->fn = x_vote;
        return 1;
    }
    if (!strcmp(op, "match")) {
        bool any = ptx_take(c, ".any"), all = !any && ptx_take(c, ".all");
        ptx_type t = ptx_take_type(c);
        if ((!any && !all) || (t != PT_B32 && t != PT_B64) || ptx_rest_ok(c) < 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "match.sync form");
        unsigned first = c->r->pipe == 0 ? 2 : 1;
        if (n != first + 2 || (any && first == 2))
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "wrong number of operands");
        if (ptx_set_dst(c, 0, ptx_op(c, 0), PT_B32, false) < 0)
            return -1;
        in->o[1] = UINT32_MAX;
        if (first == 2) {
            int64_t p = ptx_pdst(c, ptx_op(c, 1));
            if (p < 0)
                return -1;
            in->o[1] = (uint32_t)p;
        }
        if (ptx_set_src(c, 2, ptx_op(c, first), t, false) < 0 ||
            membermask(c, true, ptx_op(c, first + 1)) < 0)
            return -1;
        in->a = all;
        in->c = t == PT_B64;
        in->fn = x_match;
        return 1;
    }
    if (!strcmp(op, "redux")) {
        static const char *const ops[] = {".add", ".min", ".max", ".and", ".or", ".xor"};
        int k = ptx_take_any(c, ops, 6);
        bool ab = ptx_take(c, ".abs"), nan = ptx_take(c, ".NaN");
        ptx_type t = ptx_take_type(c);
        bool f = t == PT_F32;
        if (k < 0 || ptx_rest_ok(c) < 0 || n != 3 ||
            (f ? (k != 1 && k != 2) : (ab || nan)) ||
            (k <= 2 && !f && t != PT_U32 && t != PT_S32) || (k >= 3 && t != PT_B32))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "redux.sync form");
        if (ptx_set_dst(c, 0, ptx_op(c, 0), t, false) < 0 ||
            ptx_set_src(c, 2, ptx_op(c, 1), t, false) < 0 || membermask(c, true, ptx_op(c, 2)) < 0)
            return -1;
        in->a = (uint8_t)(f ? k + 5 : k);
        in->b = t == PT_S32;
        in->c = ab;
        in->d = nan;
        in->fn = x_redux;
        return 1;
    }
    /* elect.sync d|p, membermask */
    if (ptx_rest_ok(c) < 0 || c->r->pipe != 0 || n != 3)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "elect.sync d|p, membermask");
    const ptx_rop *d = ptx_op(c, 0);
    if (d->kind == RO_SINK)
        in->o[0] = UINT32_MAX;
    else if (ptx_set_dst(c, 0, d, PT_B32, false) < 0)
        return -1;
    int64_t p = ptx_pdst(c, ptx_op(c, 1));
    if (p < 0 || membermask(c, true, ptx_op(c, 2)) < 0)
        return -1;
    in->o[1] = (uint32_t)p;
    in->fn = x_elect;
    return 1;
}

/* bar.warp.sync membermask (called from ptx_dec_warp's sibling in decode order) */
int ptx_dec_warpsync(ptx_dctx *c)
{
    if (strcmp(c->r->op, "bar") || c->r->nmods < 1 || strcmp(c->r->mods[0], ".warp"))
        return 0;
    ptx_take(c, ".warp");
    if (!ptx_take(c, ".sync") || ptx_rest_ok(c) < 0 || ptx_nops(c) != 1)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "bar.warp.sync membermask");
    if (membermask(c, true, ptx_op(c, 0)) < 0)
        return -1;
    c->in->fn = x_warpsync;
    return 1;
}
