/* ptx_cvt.c - cvt in every form (integer <-> integer with .sat, integer <->
 * float with any rounding, float <-> float widening exactly and narrowing
 * with .rn/.rz/.rm/.rp/.rna, .ftz, .sat, .relu, .satfinite, the packed
 * f16x2/bf16x2/e4m3x2/e5m2x2 forms, tf32, round-to-integer in place), and
 * cvta / isspacep.  Narrowing is exact then rounded once (ptx_round.c).
 * float -> integer saturates to the destination range and NaN -> 0, as PTX
 * specifies; widening keeps NaN payloads. */
#include <math.h>
#include <pthread.h>

#include "ptx_internal.h"
#include "ptx_jcalls.h"
#include "ptx_models.h"

#define A_(i) PTX_R(w, in->o[i])
#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

enum { CV_FTZ = 1, CV_SAT = 2, CV_RELU = 4, CV_SATFINITE = 8, CV_IRND = 16 };

/* integer -> integer: in->a source bits, in->b source signed, in->c dest bits,
 * in->d dest signed, in->e .sat; in->target the destination register's bits
 * (a wider register gets the result sign- or zero-extended, per the type) */
static uint64_t cvt_int(const ptx_inst *in, uint64_t v)
{
    unsigned sb = in->a, db = in->c;
    uint64_t dmask = db >= 64 ? ~0ull : (1ull << db) - 1u;
    if (sb < 64) {
        v &= (1ull << sb) - 1u;
        if (in->b && ((v >> (sb - 1)) & 1u))
            v |= ~((1ull << sb) - 1u);
    }
    if (in->e) {
        /* clamp the (signed or unsigned) source value to the destination range */
        __int128 x = in->b ? (__int128)(int64_t)v : (__int128)v;
        __int128 lo = in->d ? -((__int128)1 << (db - 1)) : 0;
        __int128 hi = in->d ? ((__int128)1 << (db - 1)) - 1 : ((__int128)1 << db) - 1;
        x = x < lo ? lo : x > hi ? hi : x;
        v = (uint64_t)x;
    }
    v &= dmask;
    if (in->target > db) {
        if (in->d && ((v >> (db - 1)) & 1u))
            v |= ~dmask;
        if (in->target < 64)
            v &= (1ull << in->target) - 1u;
    }
    return v;
}

HANDLER(x_cvt_int)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, d[l] = cvt_int(in, A[l]));
    return 0;
}

/* cvt of a timer (ptx_sreg.c): the timer in->imm read, then converted as x_cvt_int */
HANDLER(x_cvt_timer)
{
    uint64_t *d = A_(0);
    PTX_LANES(m, d[l] = cvt_int(in, ptx_timer_lane(w, (int)in->imm, l)));
    ptx_timer_advance(w);
    return 0;
}

/* the common integer cvt forms without .sat: keep the low bits (zero
 * extension), or sign-extend from in->a bits; the result masked to the
 * destination register (in->imm) */
HANDLER(x_cvt_zext)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    uint64_t k = in->imm;
    PTX_LANES(m, d[l] = A[l] & k);
    return 0;
}
/* (mov of a special register into a narrower register, ptx_move.c) */
const ptx_fn ptx_fn_zext = x_cvt_zext;
HANDLER(x_cvt_sext)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    unsigned sh = 64u - in->a;
    uint64_t k = in->imm;
    PTX_LANES(m, d[l] = (uint64_t)((int64_t)(A[l] << sh) >> sh) & k);
    return 0;
}
/* What the JIT emits inline (ptx_jit_emit.c): in->imm the mask, in->a the
 * sign-extended width. */
HANDLER(x_cvt_f16_f32) /* cvt.f32.f16 */
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, d[l] = ptx_fb(vkrr_f16_to_f32((uint16_t)A[l])));
    return 0;
}
HANDLER(x_cvt_bf16_f32) /* cvt.f32.bf16: exact, NaN payload kept */
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, d[l] = (uint32_t)(A[l] & 0xffffu) << 16);
    return 0;
}
HANDLER(x_cvt_rn_f16) /* cvt.rn.f16.f32 */
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, d[l] = vkrr_f32_to_f16_rne(ptx_f(A[l])));
    return 0;
}
HANDLER(x_cvt_f64_f32) /* cvt.f64.f32 */
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, d[l] = ptx_db((double)ptx_f(A[l])));
    return 0;
}

/* What the JIT emits inline (ptx_jit_emit.c) */
HANDLER(x_cvt_pack); /* (below: the JIT's table names it) */

const ptx_jop ptx_cvt_jops[] = {{x_cvt_zext, JOP_ZEXT, 64, 0},
                                {x_cvt_sext, JOP_SEXT, 64, 1},
                                {x_cvt_f16_f32, JOP_F16_F32, 16, 0},
                                {x_cvt_f64_f32, JOP_F32_F64, 32, 0},
                                {x_cvt_rn_f16, JOP_F32_F16, 32, 0},
                                {x_cvt_pack, JOP_CVT_F8X2, 16, 0}};
const unsigned ptx_cvt_njops = sizeof ptx_cvt_jops / sizeof ptx_cvt_jops[0];

/* value kinds */
enum { K_INT, K_F64, K_F32, K_F16, K_BF16, K_TF32, K_E4M3, K_E5M2 };

static int fmt_of(int k)
{
    switch (k) {
    case K_F32: return FMT_F32;
    case K_F16: return FMT_F16;
    case K_BF16: return FMT_BF16;
    case K_TF32: return FMT_TF32;
    case K_E4M3: return FMT_E4M3;
    default: return FMT_E5M2;
    }
}

/* The exact value of one source element as s + e (e != 0 only for 64-bit ints). */
static void load_value(uint64_t v, int kind, unsigned bits, bool sgn, bool ftz, double *s, double *e)
{
    *e = 0.0;
    switch (kind) {
    case K_INT: {
        __int128 x;
        if (bits < 64) {
            v &= (1ull << bits) - 1u;
            x = sgn && ((v >> (bits - 1)) & 1u) ? (__int128)v - ((__int128)1 << bits) : (__int128)v;
        } else {
            x = sgn ? (__int128)(int64_t)v : (__int128)v;
        }
        *s = (double)x;
        *e = (double)(x - (__int128)*s); /* |x - s| < 2^11: exact */
        return;
    }
    case K_F64: *s = ptx_d(v); return;
    case K_F32: {
        float f = ptx_f(v);
        *s = (double)(ftz ? vkrr_ftz_f32(f) : f);
        return;
    }
    default: *s = vkrr_decode_bits((uint32_t)v, fmt_of(kind)); return;
    }
}

/* One conversion of an exact value to the destination kind.  flags CV_*. */
static uint64_t convert1(double s, double e, int dk, unsigned dbits, bool dsgn, int rnd, int flags,
                         bool *nan_in)
{
    bool nan = s != s;
    if (nan_in)
        *nan_in = nan;
    if (flags & CV_RELU) { /* negative (and -0) -> +0 */
        if (!nan && (s < 0.0 || (s == 0.0 && (e < 0.0 || signbit(s))))) {
            s = 0.0;
            e = 0.0;
        }
    }
    if (flags & CV_IRND || dk == K_INT) {
        /* round to an integer value first */
        double r = nan ? s : ptx_rint_mode(s, rnd);
        if (!nan && r == s && e != 0.0) { /* s integral, exact value off by e */
            if (rnd == RND_RM && e < 0.0)
                r -= 1.0;
            else if (rnd == RND_RP && e > 0.0)
                r += 1.0;
            else if (rnd == RND_RZ && ((s > 0.0 && e < 0.0) || (s < 0.0 && e > 0.0)))
                r += s > 0.0 ? -1.0 : 1.0;
        }
        if (dk == K_INT) {
            if (nan)
                return 0;
            double lo = dsgn ? -ldexp(1.0, (int)dbits - 1) : 0.0;
            double hi = dsgn ? ldexp(1.0, (int)dbits - 1) - 1.0 : ldexp(1.0, (int)dbits) - 1.0;
            uint64_t mask = dbits >= 64 ? ~0ull : (1ull << dbits) - 1u;
            if (r <= lo)
                return (uint64_t)(int64_t)lo & mask;
            if (r >= hi)
                return dsgn ? (uint64_t)((1ull << (dbits - 1)) - 1u) : mask;
            return (dsgn ? (uint64_t)(int64_t)r : (uint64_t)r) & mask;
        }
        s = r;
        e = 0.0;
    }
    if (flags & CV_SAT) {
        if (nan) {
            s = 0.0;
        } else if (s < 0.0 || (s == 0.0 && signbit(s))) {
            s = 0.0;
        } else if (s > 1.0 || (s == 1.0 && e > 0.0)) {
            s = 1.0;
        }
        if (s == 0.0 || s == 1.0)
            e = 0.0;
        nan = false;
    }
    if (dk == K_F64) {
        if (nan || e == 0.0 || rnd == RND_RN || rnd == RND_RNA)
            return ptx_db(s);
        double up = nextafter(s, INFINITY), dn = nextafter(s, -INFINITY), r = s;
        if (rnd == RND_RP && e > 0.0)
            r = up;
        else if (rnd == RND_RM && e < 0.0)
            r = dn;
        else if (rnd == RND_RZ && ((s > 0.0 && e < 0.0) || (s < 0.0 && e > 0.0)))
            r = s > 0.0 ? dn : up;
        return ptx_db(r);
    }
    int fmt = fmt_of(dk);
    uint32_t b = vkrr_round_to(s, e, fmt, rnd, (flags & CV_SATFINITE) != 0);
    if ((flags & CV_FTZ) && dk == K_F32)
        b = (uint32_t)ptx_fb(vkrr_ftz_f32(ptx_f(b)));
    if (dk == K_TF32)
        b &= 0xffffe000u;
    return b;
}

/* The general cvt: its description packed into in->imm. */
typedef struct cvt_desc {
    uint8_t dk, sk, rnd, flags;
    uint8_t dbits, sbits;
    bool dsgn, ssgn;
} cvt_desc;

static cvt_desc desc_of(const ptx_inst *in)
{
    cvt_desc c;
    memcpy(&c, &in->imm, sizeof c);
    return c;
}

HANDLER(x_cvt)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    cvt_desc c = desc_of(in);
    unsigned rb = in->target; /* destination register bits: signed integers extend */
    uint64_t dmask = c.dbits >= 64 ? ~0ull : (1ull << c.dbits) - 1u;
    PTX_LANES(m, {
        double s, e;
        load_value(A[l], c.sk, c.sbits, c.ssgn, c.flags & CV_FTZ, &s, &e);
        uint64_t v = convert1(s, e, c.dk, c.dbits, c.dsgn, c.rnd, c.flags, NULL);
        if (c.dk == K_INT && c.dsgn && rb > c.dbits && ((v >> (c.dbits - 1)) & 1u)) {
            v |= ~dmask;
            if (rb < 64)
                v &= (1ull << rb) - 1u;
        }
        d[l] = v;
    });
    return 0;
}

/* Packed forms: in->a: 0 (f16x2|bf16x2|e?m?x2).f32 d, a, b -> hi = cvt(a), lo = cvt(b);
 * 1 e?m?x2.f16x2 d, a; 2 f16x2.e?m?x2 d, a. lane width of the halves: c.dbits. */
/* cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 (x_cvt_pack's form 1) by
 * table: f8[e5m2][relu][f16 code], each filled on first use by convert1
 * itself, so a lane's byte is what the general path gives. */
static uint8_t f8[2][2][65536];
static pthread_once_t f8_once[2][2] = {{PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT},
                                       {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT}};
static void f8_fill(unsigned e5m2, unsigned relu)
{
    int flags = CV_SATFINITE | (relu ? CV_RELU : 0);
    for (uint32_t h = 0; h < 65536; h++) {
        double s, e;
        load_value(h, K_F16, 16, false, false, &s, &e);
        f8[e5m2][relu][h] = (uint8_t)convert1(s, e, e5m2 ? K_E5M2 : K_E4M3, 8, false, RND_RN, flags, NULL);
    }
}
static void f8_fill00(void) { f8_fill(0, 0); }
static void f8_fill01(void) { f8_fill(0, 1); }
static void f8_fill10(void) { f8_fill(1, 0); }
static void f8_fill11(void) { f8_fill(1, 1); }

/* The table of a form, filled on first use */
static const uint8_t *f8_of(bool e5m2, bool relu)
{
    static void (*const fill[2][2])(void) = {{f8_fill00, f8_fill01}, {f8_fill10, f8_fill11}};
    pthread_once(&f8_once[e5m2][relu], fill[e5m2][relu]);
    return f8[e5m2][relu];
}

/* ptx_cvt_f8x2_form of in, described by c */
static int f8_form(const ptx_inst *in, cvt_desc c)
{
    if (in->fn != x_cvt_pack || in->a != 1 || c.sk != K_F16 || (c.dk != K_E4M3 && c.dk != K_E5M2) ||
        c.rnd != RND_RN || (c.flags & ~CV_RELU) != CV_SATFINITE)
        return -1;
    return (c.dk == K_E5M2) | ((c.flags & CV_RELU) != 0) << 1;
}

int ptx_cvt_f8x2_form(const ptx_inst *in)
{
    return f8_form(in, desc_of(in));
}

/* The table for in (described by c), NULL when in is not a form it holds. */
static const uint8_t *f8_table(const ptx_inst *in, cvt_desc c)
{
    int form = f8_form(in, c);
    return form < 0 ? NULL : f8_of(form & 1, form >> 1);
}

uint16_t vkrr_ptx_cvt_f8x2_f16x2(uint32_t a, bool e5m2, bool relu)
{
    const uint8_t *t = f8_of(e5m2, relu);
    return (uint16_t)(t[(a >> 16) & 0xffffu] << 8 | t[a & 0xffffu]);
}

void ptx_cvt_f8x2_32(ptx_warp *w, uint32_t form, uint64_t *d, const uint64_t *a)
{
    (void)w;
    const uint8_t *t = f8_of(form & 1, form >> 1 & 1);
    for (unsigned l = 0; l < 32; l++) /* each lane's a read before its d is written (d may be a) */
        d[l] = (uint64_t)t[(a[l] >> 16) & 0xffffu] << 8 | t[a[l] & 0xffffu];
}

HANDLER(x_cvt_pack)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2);
    cvt_desc c = desc_of(in);
    unsigned h = c.dbits;
    const uint8_t *t = f8_table(in, c);
    if (t) { /* the same as vkrr_ptx_cvt_f8x2_f16x2 (ptx_models.h) and ptx_cvt_f8x2_32 */
        PTX_LANES(m, d[l] = (uint64_t)t[(A[l] >> 16) & 0xffffu] << 8 | t[A[l] & 0xffffu]);
        return 0;
    }
    PTX_LANES(m, {
        uint64_t hi, lo;
        double s, e;
        if (in->a == 0) {
            load_value(A[l], K_F32, 32, false, false, &s, &e);
            hi = convert1(s, e, c.dk, h, false, c.rnd, c.flags, NULL);
            load_value(B[l], K_F32, 32, false, false, &s, &e);
            lo = convert1(s, e, c.dk, h, false, c.rnd, c.flags, NULL);
        } else {
            unsigned sb = in->a == 1 ? 16 : 8;
            uint64_t v = A[l], sm = (1ull << sb) - 1u;
            load_value((v >> sb) & sm, c.sk, sb, false, false, &s, &e);
            hi = convert1(s, e, c.dk, h, false, c.rnd, c.flags, NULL);
            load_value(v & sm, c.sk, sb, false, false, &s, &e);
            lo = convert1(s, e, c.dk, h, false, c.rnd, c.flags, NULL);
        }
        uint64_t hm = (1ull << h) - 1u;
        d[l] = ((hi & hm) << h) | (lo & hm);
    });
    return 0;
}

/* cvta{.to}.space: in->a 0 to generic, 1 to space; in->b space */
HANDLER(x_cvta)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    ptx_cta *cta = w->cta;
    PTX_LANES(m, {
        uint64_t base;
        switch (in->b) {
        case SP_SHARED: base = (uint64_t)(uintptr_t)cta->shared; break;
        case SP_LOCAL: base = (uint64_t)(uintptr_t)(w->local + (size_t)l * cta->rt->local_bytes); break;
        case SP_PARAM: base = (uint64_t)(uintptr_t)cta->rt->params; break;
        default: base = 0; break; /* global, const: generic = host address */
        }
        uint64_t r = in->a ? A[l] - base : A[l] + base;
        d[l] = in->c == 32 ? (uint32_t)r : r;
    });
    return 0;
}

/* isspacep.space p, a */
HANDLER(x_isspacep)
{
    const uint64_t *A = A_(1);
    ptx_cta *cta = w->cta;
    ptx_rt *rt = cta->rt;
    uint32_t bits = 0;
    PTX_LANES(m, {
        uintptr_t a = (uintptr_t)A[l], s0 = (uintptr_t)cta->shared, l0 = (uintptr_t)w->local;
        bool sh = a >= s0 && a - s0 < rt->shared_bytes;
        bool lo = rt->local_bytes && a >= l0 && a - l0 < 32u * rt->local_bytes;
        bool pa = a >= (uintptr_t)rt->params && a - (uintptr_t)rt->params < rt->params_bytes;
        bool gl = false;
        for (uint32_t k = 0; k < rt->nregions && !gl; k++)
            gl = a >= rt->regions[k].lo && a < rt->regions[k].hi;
        bool r = in->b == SP_SHARED ? sh : in->b == SP_LOCAL ? lo : in->b == SP_PARAM ? pa
                 : in->b == SP_CONST ? (a >= (uintptr_t)rt->constmem &&
                                        a - (uintptr_t)rt->constmem < rt->m->const_bytes)
                                     : gl;
        bits |= (uint32_t)r << l;
    });
    w->P[in->o[0]] = (w->P[in->o[0]] & ~m) | (bits & m);
    return 0;
}

/* ---- decoder -------------------------------------------------------------------------- */
static int kind_of(ptx_type t)
{
    switch (t) {
    case PT_F64: return K_F64;
    case PT_F32: return K_F32;
    case PT_F16: return K_F16;
    case PT_BF16: return K_BF16;
    case PT_TF32: return K_TF32;
    case PT_E4M3: return K_E4M3;
    case PT_E5M2: return K_E5M2;
    default: return ptx_type_is_float(t) || t == PT_PRED || t == PT_NONE ? -1 : K_INT;
    }
}

static unsigned space_of(ptx_dctx *c)
{
    static const char *const sp[] = {".global", ".shared", ".local", ".param", ".const",
                                     ".shared::cta", ".param::entry"};
    static const unsigned code[] = {SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST,
                                    SP_SHARED, SP_PARAM};
    int k = ptx_take_any(c, sp, 7);
    return k < 0 ? SP_NONE : code[k];
}

static int dec_cvta(ptx_dctx *c, bool isspace)
{
    ptx_inst *in = c->in;
    bool to = !isspace && ptx_take(c, ".to");
    unsigned sp = space_of(c);
    ptx_type t = ptx_take_type(c);
    if (sp == SP_NONE || (!isspace && t != PT_U64 && t != PT_U32 && t != PT_B64 && t != PT_B32) ||
        ptx_nops(c) != 2)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form", c->r->op);
    if (isspace) {
        int64_t p = ptx_pdst(c, ptx_op(c, 0));
        if (p < 0 || ptx_set_src(c, 1, ptx_op(c, 1), PT_U64, false) < 0)
            return -1;
        in->o[0] = (uint32_t)p;
        in->b = (uint8_t)sp;
        in->fn = x_isspacep;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (ptx_type_bits(t) == 32 && sp != SP_SHARED && sp != SP_LOCAL)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "32-bit %s addresses", "generic");
    if (ptx_set_dst(c, 0, ptx_op(c, 0), t, false) < 0 ||
        ptx_set_src(c, 1, ptx_op(c, 1), t, false) < 0)
        return -1;
    if (ptx_type_bits(t) == 32 && !to)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "32-bit generic addresses");
    in->a = to;
    in->b = (uint8_t)sp;
    in->c = (uint8_t)ptx_type_bits(t);
    in->fn = x_cvta;
    return ptx_rest_ok(c) < 0 ? -1 : 1;
}

int ptx_dec_cvt(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (!strcmp(op, "cvta"))
        return dec_cvta(c, false);
    if (!strcmp(op, "isspacep"))
        return dec_cvta(c, true);
    if (strcmp(op, "cvt"))
        return 0;
    static const char *const rnds[] = {".rn", ".rz", ".rm", ".rp", ".rna",
                                       ".rni", ".rzi", ".rmi", ".rpi"};
    int rk = ptx_take_any(c, rnds, 9);
    int flags = 0;
    if (ptx_take(c, ".ftz"))
        flags |= CV_FTZ;
    if (ptx_take(c, ".sat"))
        flags |= CV_SAT;
    if (ptx_take(c, ".relu"))
        flags |= CV_RELU;
    if (ptx_take(c, ".satfinite"))
        flags |= CV_SATFINITE;
    ptx_type dt = ptx_take_type(c), st = ptx_take_type(c);
    if (dt == PT_NONE || st == PT_NONE)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "cvt needs two types");
    if (ptx_rest_ok(c) < 0)
        return -1;
    int rnd = rk < 0 ? -1 : rk <= 4 ? rk : rk - 5;
    if (rk >= 5)
        flags |= CV_IRND;
    cvt_desc d = {0};
    /* packed forms */
    bool dpack = dt == PT_F16X2 || dt == PT_BF16X2 || dt == PT_E4M3X2 || dt == PT_E5M2X2;
    bool spack = st == PT_F16X2 || st == PT_E4M3X2 || st == PT_E5M2X2;
    if (dpack || spack) {
        int form;
        if (dpack && st == PT_F32 && ptx_nops(c) == 3)
            form = 0;
        else if ((dt == PT_E4M3X2 || dt == PT_E5M2X2) && st == PT_F16X2 && ptx_nops(c) == 2)
            form = 1;
        else if (dt == PT_F16X2 && (st == PT_E4M3X2 || st == PT_E5M2X2) && ptx_nops(c) == 2)
            form = 2;
        else
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "cvt %s from %s", ptx_type_name(dt),
                                ptx_type_name(st));
        bool f8 = dt == PT_E4M3X2 || dt == PT_E5M2X2;
        if ((f8 && (rnd != RND_RN || !(flags & CV_SATFINITE))) || (flags & (CV_FTZ | CV_SAT | CV_IRND)))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "modifiers of this cvt");
        if (rnd < 0)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "needs a rounding mode");
        if (!f8 && form == 0 && rnd != RND_RN && rnd != RND_RZ)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "rounding of %s", ptx_type_name(dt));
        d.dk = (uint8_t)(dt == PT_F16X2 ? K_F16 : dt == PT_BF16X2 ? K_BF16 : dt == PT_E4M3X2 ? K_E4M3
                                                                                       : K_E5M2);
        d.sk = (uint8_t)(form == 1 ? K_F16 : form == 2 ? (st == PT_E4M3X2 ? K_E4M3 : K_E5M2) : K_F32);
        d.dbits = f8 ? 8 : 16;
        d.rnd = (uint8_t)rnd;
        d.flags = (uint8_t)flags;
        memcpy(&in->imm, &d, sizeof d);
        in->a = (uint8_t)form;
        ptx_type ot = form == 0 ? PT_F32 : form == 1 ? PT_B32 : PT_B16;
        if (ptx_set_dst(c, 0, ptx_op(c, 0), f8 ? PT_B16 : PT_B32, false) < 0 ||
            ptx_set_src(c, 1, ptx_op(c, 1), ot, false) < 0 ||
            (form == 0 && ptx_set_src(c, 2, ptx_op(c, 2), PT_F32, false) < 0))
            return -1;
        in->fn = x_cvt_pack;
        return 1;
    }
    int dk = kind_of(dt), sk = kind_of(st);
    if (dk < 0 || sk < 0 || dk == K_E4M3 || dk == K_E5M2 || sk == K_TF32 || dt == PT_B128 ||
        ptx_nops(c) != 2)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "cvt %s from %s", ptx_type_name(dt),
                            ptx_type_name(st));
    const ptx_rop *src = ptx_op(c, 1);
    bool timer = src->kind == RO_SREG && src->sreg >= SR_TIMER_FIRST && src->sreg < SR_COUNT;
    if (timer && (dk != K_INT || sk != K_INT)) /* as ptxas: a timer is read as an integer */
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "cvt%s%s of %s", ptx_type_name(dt),
                            ptx_type_name(st), ptx_sreg_name(src->sreg));
    if (ptx_set_dst(c, 0, ptx_op(c, 0), dt, true) < 0 ||
        (!timer && ptx_set_src(c, 1, src, st, true) < 0))
        return -1;
    in->target = ptx_reg_bits(c, ptx_op(c, 0));
    if (dk == K_INT && sk == K_INT) {
        if (flags & ~CV_SAT || rnd >= 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "rounding on an integer cvt");
        in->a = (uint8_t)ptx_type_bits(st);
        in->b = ptx_type_is_signed(st);
        in->c = (uint8_t)ptx_type_bits(dt);
        in->d = ptx_type_is_signed(dt);
        in->e = (flags & CV_SAT) != 0;
        in->fn = x_cvt_int;
        if (timer) {
            in->imm = src->sreg;
            in->fn = x_cvt_timer;
            return 1;
        }
        if (!in->e) {
            /* dest bits: the type's, widened to the register's when signed */
            unsigned sb = in->a, db = in->c, rb = in->target > db ? in->target : db;
            bool sx = in->b && sb < db; /* a signed source widening */
            unsigned keep = sx ? rb : db; /* bits of the result that survive */
            if (in->d && rb > db && !sx && sb >= db) {
                /* narrowing to a signed type in a wider register: extend from db */
                in->a = (uint8_t)db;
                sx = true;
                keep = rb;
            } else if (sx && in->d == 0 && rb > db) {
                keep = db; /* unsigned destination: no extension past its width */
            }
            if (sx && in->a < 64) {
                in->imm = keep >= 64 ? ~0ull : (1ull << keep) - 1u;
                in->fn = x_cvt_sext;
            } else if (!sx) {
                unsigned z = sb < db ? sb : db;
                in->imm = z >= 64 ? ~0ull : (1ull << z) - 1u;
                in->fn = x_cvt_zext;
            }
        }
        return 1;
    }
    bool narrowing_float = dk != K_INT && sk != K_INT &&
                           ptx_type_bits(dt) < ptx_type_bits(st);
    if (dk == K_INT && !(flags & CV_IRND)) {
        if (rnd >= 0)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "float -> integer takes .rni/.rzi/.rmi/.rpi");
        rnd = RND_RZ; /* none given: truncate */
        flags |= CV_IRND;
    }
    if (dk != K_INT && (flags & CV_IRND) && (sk == K_INT || dt != st))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "integer rounding needs the same float type");
    if ((narrowing_float || (sk == K_INT && dk != K_INT) || dk == K_TF32) && rnd < 0)
        rnd = RND_RN;
    if (rnd < 0)
        rnd = RND_RN;
    if (rnd == RND_RNA && dk != K_TF32)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, ".rna outside tf32");
    if (flags == 0 && rnd == RND_RN) {
        if (dt == PT_F32 && st == PT_F16) {
            in->fn = x_cvt_f16_f32;
            return 1;
        }
        if (dt == PT_F16 && st == PT_F32) {
            in->fn = x_cvt_rn_f16;
            return 1;
        }
        if (dt == PT_F32 && st == PT_BF16) {
            in->fn = x_cvt_bf16_f32;
            return 1;
        }
        if (dt == PT_F64 && st == PT_F32) {
            in->fn = x_cvt_f64_f32;
            return 1;
        }
    }
    d.dk = (uint8_t)dk;
    d.sk = (uint8_t)sk;
    d.rnd = (uint8_t)rnd;
    d.flags = (uint8_t)flags;
    d.dbits = (uint8_t)ptx_type_bits(dt);
    d.sbits = (uint8_t)ptx_type_bits(st);
    d.dsgn = ptx_type_is_signed(dt);
    d.ssgn = ptx_type_is_signed(st);
    memcpy(&in->imm, &d, sizeof d);
    in->fn = x_cvt;
    return 1;
}
