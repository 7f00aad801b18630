/* ptx_float.c - floating-point arithmetic: f32, f64, f16, bf16 and their x2
 * forms.  .rn f32/f64 add/sub/mul/fma/div/sqrt are the host's IEEE
 * operations; other rounding modes are exact-then-rounded (ptx_round.c) or,
 * for f64, the host FPU in that mode (ptx_fenv.c).  f16/bf16 arithmetic is
 * exact then rounded once.  .ftz flushes subnormal inputs and results to
 * sign-preserving zero, .sat clamps to [0, 1] (NaN -> +0).  NaN results of
 * f32/f16/bf16 arithmetic are canonical (0x7fffffff / 0x7fff).  min/max:
 * a NaN operand is ignored (.NaN: propagated as the canonical NaN), and
 * -0 < +0.  Approximate instructions are src/hw/approx.h's hardware model. */
#include <math.h>

#include "approx.h"
#include "ptx_internal.h"
#include "ptx_jcalls.h"

#define A_(i) PTX_R(w, in->o[i])
#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

enum { OP_ADD, OP_SUB, OP_MUL, OP_FMA, OP_DIV, OP_SQRT, OP_RCP };
enum { TY_F32, TY_F64, TY_F16, TY_BF16 };

static float sat01(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }

/* ---- f32 ---------------------------------------------------------------------- */
HANDLER(x_fadd)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2);
    PTX_LANES(m, d[l] = ptx_fb(ptx_canon_f32(ptx_f(A[l]) + ptx_f(B[l]))));
    return 0;
}
HANDLER(x_fsub)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2);
    PTX_LANES(m, d[l] = ptx_fb(ptx_canon_f32(ptx_f(A[l]) - ptx_f(B[l]))));
    return 0;
}
HANDLER(x_fmul)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2);
    PTX_LANES(m, d[l] = ptx_fb(ptx_canon_f32(ptx_f(A[l]) * ptx_f(B[l]))));
    return 0;
}
HANDLER(x_ffma)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);
    PTX_LANES(m, d[l] = ptx_fb(ptx_canon_f32(fmaf(ptx_f(A[l]), ptx_f(B[l]), ptx_f(C[l])))));
    return 0;
}

/* any f32 op: in->a op, in->b mode, in->c ftz, in->d sat */
HANDLER(x_f32_gen)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);
    int op = in->a, mode = in->b;
    PTX_LANES(m, {
        float a = ptx_f(A[l]), b = ptx_f(B[l]), c = ptx_f(C[l]), r;
        if (in->c) {
            a = vkrr_ftz_f32(a);
            b = vkrr_ftz_f32(b);
            c = vkrr_ftz_f32(c);
        }
        switch (op) {
        case OP_ADD: r = ptx_add_f32(a, b, mode); break;
        case OP_SUB: r = ptx_add_f32(a, -b, mode); break;
        case OP_MUL: r = ptx_mul_f32(a, b, mode); break;
        case OP_FMA: r = ptx_fma_f32(a, b, c, mode); break;
        case OP_DIV: r = ptx_div_f32(a, b, mode); break;
        case OP_SQRT: r = ptx_sqrt_f32(a, mode); break;
        default: r = ptx_div_f32(1.0f, a, mode); break;
        }
        if (in->c)
            r = vkrr_ftz_f32(r);
        if (in->d)
            r = sat01(r);
        d[l] = ptx_fb(ptx_canon_f32(r));
    });
    return 0;
}

/* ---- f64 ----------------------------------------------------------------------- */
HANDLER(x_f64_gen)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);
    int op = in->a, mode = in->b;
    PTX_LANES(m, {
        double a = ptx_d(A[l]), b = ptx_d(B[l]), c = ptx_d(C[l]), r;
        if (mode == RND_RN) {
            switch (op) {
            case OP_ADD: r = a + b; break;
            case OP_SUB: r = a - b; break;
            case OP_MUL: r = a * b; break;
            case OP_FMA: r = fma(a, b, c); break;
            case OP_DIV: r = a / b; break;
            case OP_SQRT: r = sqrt(a); break;
            default: r = 1.0 / a; break;
            }
        } else {
            switch (op) {
            case OP_ADD: r = ptx_f64_op(0, a, b, 0, mode); break;
            case OP_SUB: r = ptx_f64_op(0, a, -b, 0, mode); break;
            case OP_MUL: r = ptx_f64_op(1, a, b, 0, mode); break;
            case OP_FMA: r = ptx_f64_op(2, a, b, c, mode); break;
            case OP_DIV: r = ptx_f64_op(3, a, b, 0, mode); break;
            case OP_SQRT: r = ptx_f64_op(4, a, 0, 0, mode); break;
            default: r = ptx_f64_op(3, 1.0, a, 0, mode); break;
            }
        }
        d[l] = ptx_db(r);
    });
    return 0;
}

/* ---- decode / encode per type ------------------------------------------------------ */
static double val(uint64_t bits, int ty)
{
    switch (ty) {
    case TY_F32: return (double)ptx_f(bits);
    case TY_F64: return ptx_d(bits);
    case TY_F16: return (double)vkrr_f16_to_f32((uint16_t)bits);
    default: return (double)ptx_f((uint32_t)(bits & 0xffffu) << 16);
    }
}
static uint64_t sign_bit(int ty)
{
    return ty == TY_F64 ? 1ull << 63 : ty == TY_F32 ? 1ull << 31 : 1ull << 15;
}
static uint64_t canon_nan(int ty)
{
    return ty == TY_F64 ? 0x7fffffffffffffffull : ty == TY_F32 ? 0x7fffffffu : 0x7fffu;
}
static bool is_sub(double v, int ty)
{
    double tiny = ty == TY_F64 ? 2.2250738585072014e-308 : ty == TY_F16 ? 6.103515625e-05
                                                                          : 1.17549435e-38;
    return v != 0.0 && fabs(v) < tiny;
}
/* flush a subnormal encoding to a signed zero */
static uint64_t flush(uint64_t bits, int ty)
{
    return is_sub(val(bits, ty), ty) ? bits & sign_bit(ty) : bits;
}

/* min/max: in->a bit0 .NaN, bit1 .ftz, bit2 .xorsign.abs; in->b 1 max; in->d type;
 * in->e 2 = x2 (two 16-bit halves) */
static uint64_t minmax1(uint64_t a, uint64_t b, const ptx_inst *in)
{
    int ty = in->d;
    uint64_t sb = sign_bit(ty), mask = ty == TY_F64 ? ~0ull : ty == TY_F32 ? 0xffffffffu : 0xffffu;
    if (in->a & 2) {
        a = flush(a, ty);
        b = flush(b, ty);
    }
    uint64_t xs = (a ^ b) & sb;
    if (in->a & 4) {
        a &= ~sb;
        b &= ~sb;
    }
    double x = val(a, ty), y = val(b, ty);
    uint64_t r;
    if (x != x || y != y) {
        if ((in->a & 1) || (x != x && y != y))
            return canon_nan(ty);
        r = x != x ? b : a;
    } else if (x == y) {
        bool an = (a & sb) != 0;
        r = in->b ? (an ? b : a) : (an ? a : b);
    } else {
        r = in->b ? (x > y ? a : b) : (x < y ? a : b);
    }
    if (in->a & 4)
        r = (r & ~sb) | xs;
    return r & mask;
}
HANDLER(x_minmax)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2);
    PTX_LANES(m, {
        if (in->e == 2)
            d[l] = minmax1(A[l] & 0xffffu, B[l] & 0xffffu, in) |
                   minmax1((A[l] >> 16) & 0xffffu, (B[l] >> 16) & 0xffffu, in) << 16;
        else
            d[l] = minmax1(A[l], B[l], in);
    });
    return 0;
}

/* abs/neg: in->a 0 abs 1 neg, in->c ftz, in->d type, in->e 2 = x2 */
HANDLER(x_absneg)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    int ty = in->d;
    uint64_t sb = sign_bit(ty);
    PTX_LANES(m, {
        uint64_t v = A[l], r = 0;
        for (unsigned h = 0; h < (in->e == 2 ? 2u : 1u); h++) {
            uint64_t x = in->e == 2 ? (v >> (16 * h)) & 0xffffu : v;
            if (in->c)
                x = flush(x, ty);
            x = in->a ? x ^ sb : x & ~sb;
            r |= x << (16 * h);
        }
        d[l] = r;
    });
    return 0;
}

/* f16/bf16 arithmetic: in->a op, in->b mode, in->c ftz, in->d 1 sat 2 relu, in->e fmt
 * (FMT_F16/FMT_BF16), in->imm halves (1 or 2) */
static uint16_t harith1(uint16_t a, uint16_t b, uint16_t c, const ptx_inst *in)
{
    int fmt = in->e, ty = fmt == FMT_F16 ? TY_F16 : TY_BF16;
    if (in->c) {
        a = (uint16_t)flush(a, ty);
        b = (uint16_t)flush(b, ty);
        c = (uint16_t)flush(c, ty);
    }
    uint16_t r;
    if (fmt == FMT_F16 && in->b == RND_RN && in->a <= OP_MUL) {
        /* f16 operands are exact in f32 and 24 >= 2*11+2: one f32 op, then RNE */
        float x = vkrr_f16_to_f32(a), y = vkrr_f16_to_f32(b);
        float v = in->a == OP_ADD ? x + y : in->a == OP_SUB ? x - y : x * y;
        r = vkrr_f32_to_f16_rne(v);
    } else {
        double x = val(a, ty), y = val(b, ty), z = val(c, ty);
        switch (in->a) {
        case OP_ADD: r = ptx_fma_small(x, 1.0, y, fmt, in->b); break;
        case OP_SUB: r = ptx_fma_small(x, 1.0, -y, fmt, in->b); break;
        case OP_MUL: r = ptx_fma_small(x, y, 0.0 * x * y, fmt, in->b); break;
        default: r = ptx_fma_small(x, y, z, fmt, in->b); break;
        }
    }
    if (in->c)
        r = (uint16_t)flush(r, ty);
    if (in->d & 2) { /* .relu: negative -> +0, NaN -> canonical NaN */
        double v = val(r, ty);
        if (v != v)
            r = 0x7fffu;
        else if (v < 0.0 || (r & 0x8000u))
            r = 0;
    }
    if (in->d & 1) {
        double v = val(r, ty);
        if (v != v || v <= 0.0)
            r = 0;
        else if (v > 1.0)
            r = fmt == FMT_F16 ? 0x3c00u : 0x3f80u;
    }
    return r;
}
HANDLER(x_harith)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);
    unsigned halves = (unsigned)in->imm;
    PTX_LANES(m, {
        uint64_t r = 0;
        for (unsigned h = 0; h < halves; h++)
            r |= (uint64_t)harith1((uint16_t)(A[l] >> (16 * h)), (uint16_t)(B[l] >> (16 * h)),
                                   (uint16_t)(C[l] >> (16 * h)), in)
                 << (16 * h);
        d[l] = r;
    });
    return 0;
}

/* x_approx's .f32 law for the lanes m of a into d: the running lanes'
 * values in one call; the stand-ins it meets noted in the launch */
static void approx_f32(ptx_warp *w, vkrr_approx_op op, int ftz, uint32_t m, uint64_t *d, const uint64_t *A)
{
    float x[32], y[32]; /* n read: not zeroed (a rep stos, half the handler's time) */
    unsigned n = 0, si = 0;
    x[0] = 0.0f; /* (GCC cannot see that n lanes are written) */
    PTX_LANES(m, { x[n++] = ptx_f(A[l]); });
    vkrr_approx_f32_many(op, x, y, n, ftz, &si);
    n = 0;
    PTX_LANES(m, { d[l] = ptx_fb(y[n++]); });
    if (si)
        atomic_fetch_or(&w->cta->rt->standins, si);
}

void ptx_approx32(ptx_warp *w, uint32_t op_ftz, uint64_t *d, const uint64_t *a)
{
    approx_f32(w, (vkrr_approx_op)(op_ftz & 0xffu), (int)(op_ftz >> 8), 0xffffffffu, d, a);
}

/* approximate: in->a vkrr_approx_op, in->c ftz, in->d 0 f32 1 f16 2 f16x2 3 f64,
 * in->e bf16.  The stand-ins it meets are noted in the launch (ptx_rt). */
HANDLER(x_approx)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    vkrr_approx_op op = (vkrr_approx_op)in->a;
    unsigned si = 0;
    if (in->d == 0) {
        approx_f32(w, op, in->c, m, d, A);
    } else if (in->d == 3) {
        PTX_LANES(m, { d[l] = ptx_db(vkrr_approx_f64(op, ptx_d(A[l]), in->c, &si)); });
    } else {
        PTX_LANES(m, {
            uint64_t r = 0;
            for (unsigned h = 0; h < in->d; h++)
                r |= (uint64_t)vkrr_approx_16(op, (uint16_t)(A[l] >> (16 * h)), in->e) << (16 * h);
            d[l] = r;
        });
    }
    if (si)
        atomic_fetch_or(&w->cta->rt->standins, si);
    return 0;
}

/* setp on floats: in->a cmp (0 eq 1 ne 2 lt 3 le 4 gt 5 ge 6 equ 7 neu 8 ltu 9 leu
 * 10 gtu 11 geu 12 num 13 nan), in->e ftz, in->d type; bool op as in ptx_int.c */
static bool fcmp(double a, double b, int cmp)
{
    bool un = a != a || b != b;
    switch (cmp) {
    case 0: return !un && a == b;
    case 1: return !un && a != b;
    case 2: return !un && a < b;
    case 3: return !un && a <= b;
    case 4: return !un && a > b;
    case 5: return !un && a >= b;
    case 6: return un || a == b;
    case 7: return un || a != b;
    case 8: return un || a < b;
    case 9: return un || a <= b;
    case 10: return un || a > b;
    case 11: return un || a >= b;
    case 12: return !un;
    default: return un;
    }
}
HANDLER(x_fsetp)
{
    const uint64_t *A = A_(4), *B = A_(5);
    int ty = in->d;
    uint32_t bits = 0;
    PTX_LANES(m, {
        uint64_t a = A[l], b = B[l];
        if (in->e) {
            a = flush(a, ty);
            b = flush(b, ty);
        }
        bits |= (uint32_t)fcmp(val(a, ty), val(b, ty), in->a) << l;
    });
    uint32_t p = bits, q = ~bits;
    if (in->b) {
        uint32_t c = w->P[in->o[3]];
        if (in->c)
            c = ~c;
        p = in->b == 1 ? p & c : in->b == 2 ? p | c : p ^ c;
        q = in->b == 1 ? q & c : in->b == 2 ? q | c : q ^ c;
    }
    w->P[in->o[0]] = (w->P[in->o[0]] & ~m) | (p & m);
    if (in->o[1] != UINT32_MAX)
        w->P[in->o[1]] = (w->P[in->o[1]] & ~m) | (q & m);
    return 0;
}

/* What the JIT emits inline (ptx_jit_float.c) */
const ptx_jop ptx_float_jops[] = {{x_fadd, JOP_FADD, 32, 0}, {x_fsub, JOP_FSUB, 32, 0},
                                  {x_fmul, JOP_FMUL, 32, 0}, {x_ffma, JOP_FFMA, 32, 0},
                                  {x_f32_gen, JOP_F32_GEN, 32, 0}, {x_fsetp, JOP_FSETP, 32, 0},
                                  {x_minmax, JOP_FMINMAX, 32, 0}, {x_absneg, JOP_FABSNEG, 32, 0},
                                  {x_approx, JOP_APPROX, 32, 0}};
const unsigned ptx_float_njops = sizeof ptx_float_jops / sizeof ptx_float_jops[0];

/* set.cmp{.bool}{.ftz}.dtype.stype with float sources (cuda_fp16.h's
 * __heq2, __hlt2, ... emit the f16x2 forms): each comparison (per 16-bit
 * half for x2 sources), combined with the predicate operand by the bool op,
 * is written as the destination type's true or false: all ones for .u32 and
 * .s32 (0xffff a half when the source is x2), 1.0 for .f32, 1.0 (0x3c00, or
 * bf16's 0x3f80) a half for .f16/.bf16/x2.  in->a cmp, in->b bool op (0 none),
 * in->c !c, in->d source type, in->e bit0 ftz, bit1 x2 source, bits 2..3 the
 * destination: 0 integer, 1 f32, 2 f16 (halves), 3 bf16 (halves). */
HANDLER(x_fset)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2);
    int ty = in->d;
    bool ftz = in->e & 1, x2 = in->e & 2;
    unsigned dst = in->e >> 2;
    uint32_t c = in->b ? w->P[in->o[3]] : 0;
    if (in->c)
        c = ~c;
    PTX_LANES(m, {
        uint64_t r = 0;
        for (unsigned h = 0; h < (x2 ? 2u : 1u); h++) {
            uint64_t a = x2 ? (A[l] >> (16 * h)) & 0xffffu : A[l], b = x2 ? (B[l] >> (16 * h)) & 0xffffu : B[l];
            if (ftz) {
                a = flush(a, ty);
                b = flush(b, ty);
            }
            bool t = fcmp(val(a, ty), val(b, ty), in->a);
            bool cl = (c >> l) & 1;
            if (in->b)
                t = in->b == 1 ? t && cl : in->b == 2 ? t || cl : t != cl;
            uint64_t one = dst == 1 ? 0x3f800000u : dst == 2 ? 0x3c00u : dst == 3 ? 0x3f80u
                           : x2 ? 0xffffu : 0xffffffffu;
            r |= (t ? one : 0) << (16 * h);
        }
        d[l] = r;
    });
    return 0;
}

/* testp.op: in->a 0 finite 1 infinite 2 number 3 notanumber 4 normal 5 subnormal */
HANDLER(x_testp)
{
    const uint64_t *A = A_(1);
    int ty = in->d;
    uint32_t bits = 0;
    PTX_LANES(m, {
        double v = val(A[l], ty);
        bool r;
        switch (in->a) {
        case 0: r = isfinite(v); break;
        case 1: r = isinf(v); break;
        case 2: r = v == v; break;
        case 3: r = v != v; break;
        case 4: r = isfinite(v) && v != 0.0 && !is_sub(v, ty); break;
        default: r = is_sub(v, ty); break;
        }
        bits |= (uint32_t)r << l;
    });
    w->P[in->o[0]] = (w->P[in->o[0]] & ~m) | (bits & m);
    return 0;
}

/* copysign d, a, b: b with the sign of a */
HANDLER(x_copysign)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2);
    uint64_t sb = sign_bit(in->d);
    PTX_LANES(m, d[l] = (B[l] & ~sb) | (A[l] & sb));
    return 0;
}

/* ---- decoder -------------------------------------------------------------------------- */
static int float_ty(ptx_type t)
{
    switch (t) {
    case PT_F32: return TY_F32;
    case PT_F64: return TY_F64;
    case PT_F16: case PT_F16X2: return TY_F16;
    case PT_BF16: case PT_BF16X2: return TY_BF16;
    default: return -1;
    }
}

static ptx_type peek_float(ptx_dctx *c)
{
    for (unsigned i = 0; i < c->r->nmods; i++) {
        ptx_type t = ptx_type_from(c->r->mods[i]);
        if (t != PT_NONE)
            return float_ty(t) >= 0 ? t : PT_NONE;
    }
    return PT_NONE;
}

static int take_rnd(ptx_dctx *c)
{
    static const char *const r[] = {".rn", ".rz", ".rm", ".rp"};
    return ptx_take_any(c, r, 4);
}

static int operands(ptx_dctx *c, unsigned n, ptx_type t)
{
    if (ptx_nops(c) != n)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "takes %u operands, has %u", n, ptx_nops(c));
    if (ptx_set_dst(c, 0, ptx_op(c, 0), t, false) < 0)
        return -1;
    for (unsigned i = 1; i < n; i++)
        if (ptx_set_src(c, i, ptx_op(c, i), t, false) < 0)
            return -1;
    /* unused sources read slot 0 of the file: harmless */
    return 0;
}

static int dec_arith(ptx_dctx *c, int op, unsigned n)
{
    ptx_inst *in = c->in;
    int rnd = take_rnd(c);
    bool ftz = ptx_take(c, ".ftz"), sat = ptx_take(c, ".sat"), relu = ptx_take(c, ".relu");
    bool approx = ptx_take(c, ".approx"), full = !approx && ptx_take(c, ".full");
    ptx_type t = ptx_take_type(c);
    int ty = float_ty(t);
    if (ty < 0)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "type %s", ptx_type_name(t));
    if (operands(c, n, t) < 0)
        return -1;
    if (relu && ty <= TY_F64)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, ".relu on %s", ptx_type_name(t));
    if (ty == TY_F32) {
        if (op == OP_DIV && (approx || full)) {
            /* stand-in: the correctly rounded quotient (see README) */
            rnd = RND_RN;
            c->f->standins |= VKRR_STANDIN_DIV;
        } else if ((op == OP_DIV || op == OP_SQRT || op == OP_RCP) && rnd < 0 && !approx) {
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "needs a rounding mode or .approx");
        }
        if (approx && (op == OP_SQRT || op == OP_RCP)) {
            in->a = op == OP_SQRT ? VKRR_APPROX_SQRT : VKRR_APPROX_RCP;
            in->c = ftz;
            in->d = 0;
            in->fn = x_approx;
            vkrr_error e = {0};
            vkrr_status st = vkrr_approx_require((vkrr_approx_op)in->a, false, &e);
            if (st != VKRR_OK)
                return ptx_dec_fail(c, st, "the hardware model's tables: %s", e.msg);
            return ptx_rest_ok(c) < 0 ? -1 : 1;
        }
        if (rnd < 0)
            rnd = RND_RN;
        in->a = (uint8_t)op;
        in->b = (uint8_t)rnd;
        in->c = ftz;
        in->d = sat;
        if (rnd == RND_RN && !ftz && !sat && op <= OP_FMA)
            in->fn = op == OP_ADD ? x_fadd : op == OP_SUB ? x_fsub : op == OP_MUL ? x_fmul : x_ffma;
        else
            in->fn = x_f32_gen;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (ty == TY_F64) {
        if (sat || (ftz && !(approx && op == OP_RCP)))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, ".ftz/.sat on f64");
        if (approx) {
            if (op != OP_RCP)
                return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "approximate f64 %s", c->r->op);
            in->a = VKRR_APPROX_RCP;
            in->c = ftz;
            in->d = 3;
            in->fn = x_approx;
            c->f->standins |= VKRR_STANDIN_F64;
            return ptx_rest_ok(c) < 0 ? -1 : 1;
        }
        if (rnd < 0 && op >= OP_DIV)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "needs a rounding mode");
        in->a = (uint8_t)op;
        in->b = (uint8_t)(rnd < 0 ? RND_RN : rnd);
        in->fn = x_f64_gen;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    /* f16 / bf16 */
    if (op > OP_FMA || approx || full || rnd == RND_RM || rnd == RND_RP || (relu && sat))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s on %s", c->r->op, ptx_type_name(t));
    in->a = (uint8_t)op;
    in->b = (uint8_t)(rnd < 0 ? RND_RN : rnd);
    in->c = ftz;
    in->d = (uint8_t)(sat | relu << 1);
    in->e = ty == TY_F16 ? FMT_F16 : FMT_BF16;
    in->imm = (t == PT_F16X2 || t == PT_BF16X2) ? 2 : 1;
    in->fn = x_harith;
    return ptx_rest_ok(c) < 0 ? -1 : 1;
}

/* The comparisons and boolean ops of setp and set, in->a / in->b order. */
static const char *const fcmps[] = {".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".equ",
                                    ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"};
static const char *const fbools[] = {".and", ".or", ".xor"};

/* The predicate operand c of a .and/.or/.xor form into in->o[3], in->b, in->c. */
static int bool_operand(ptx_dctx *c, int bop, const ptx_rop *op)
{
    ptx_inst *in = c->in;
    if (bop < 0)
        return 0;
    bool neg = false;
    int64_t r = ptx_psrc(c, op, &neg);
    if (r < 0)
        return -1;
    in->o[3] = (uint32_t)r;
    in->b = (uint8_t)(bop + 1);
    in->c = neg;
    return 0;
}

/* set with a float source type (the last type modifier); 0: not ours. */
static int dec_set(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    ptx_type types[2] = {PT_NONE, PT_NONE};
    unsigned nt = 0;
    for (unsigned i = 0; i < c->r->nmods; i++) {
        ptx_type t = ptx_type_from(c->r->mods[i]);
        if (t != PT_NONE && nt < 2)
            types[nt++] = t;
    }
    if (nt != 2 || float_ty(types[1]) < 0)
        return 0; /* an integer source: not this decoder's */
    int cmp = ptx_take_any(c, fcmps, 14), bop = ptx_take_any(c, fbools, 3);
    bool ftz = ptx_take(c, ".ftz");
    ptx_type dt = ptx_take_type(c), st = ptx_take_type(c);
    bool x2 = st == PT_F16X2 || st == PT_BF16X2;
    unsigned dst = dt == PT_F32 ? 1 : dt == PT_F16 || dt == PT_F16X2 ? 2 : dt == PT_BF16 || dt == PT_BF16X2 ? 3
                 : dt == PT_U32 || dt == PT_S32 || dt == PT_B32 ? 0 : 9;
    if (cmp < 0 || dst == 9 || st == PT_F64 || (x2 && dst == 1) ||
        (!x2 && (dt == PT_F16X2 || dt == PT_BF16X2)))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "set form (%s from %s)", ptx_type_name(dt),
                            ptx_type_name(st));
    if (ptx_nops(c) != 3u + (bop >= 0))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "wrong number of operands");
    if (ptx_set_dst(c, 0, ptx_op(c, 0), dt, false) < 0 || ptx_set_src(c, 1, ptx_op(c, 1), st, false) < 0 ||
        ptx_set_src(c, 2, ptx_op(c, 2), st, false) < 0 || bool_operand(c, bop, ptx_op(c, 3)) < 0)
        return -1;
    in->a = (uint8_t)cmp;
    in->d = (uint8_t)float_ty(st);
    in->e = (uint8_t)((ftz ? 1 : 0) | (x2 ? 2 : 0) | dst << 2);
    in->fn = x_fset;
    return ptx_rest_ok(c) < 0 ? -1 : 1;
}

int ptx_dec_float(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (!strcmp(op, "set"))
        return dec_set(c);
    ptx_type pt = peek_float(c);
    if (pt == PT_NONE)
        return 0;
    int ty = float_ty(pt);
    bool x2 = pt == PT_F16X2 || pt == PT_BF16X2;
    static const struct {
        const char *name;
        int op;
        unsigned n;
    } ar[] = {{"add", OP_ADD, 3}, {"sub", OP_SUB, 3}, {"mul", OP_MUL, 3}, {"fma", OP_FMA, 4},
              {"mad", OP_FMA, 4}, {"div", OP_DIV, 3}, {"sqrt", OP_SQRT, 2}, {"rcp", OP_RCP, 2}};
    for (unsigned k = 0; k < sizeof ar / sizeof ar[0]; k++)
        if (!strcmp(op, ar[k].name))
            return dec_arith(c, ar[k].op, ar[k].n);
    if (!strcmp(op, "min") || !strcmp(op, "max")) {
        bool ftz = ptx_take(c, ".ftz"), nan = ptx_take(c, ".NaN"), xs = ptx_take(c, ".xorsign");
        bool ab = ptx_take(c, ".abs");
        ptx_type t = ptx_take_type(c);
        if (xs != ab || (ty == TY_F64 && (ftz || nan || xs)))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form", op);
        if (operands(c, 3, t) < 0)
            return -1;
        in->a = (uint8_t)(nan | ftz << 1 | xs << 2);
        in->b = op[1] == 'a';
        in->d = (uint8_t)ty;
        in->e = x2 ? 2 : 1;
        in->fn = x_minmax;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "abs") || !strcmp(op, "neg")) {
        bool ftz = ptx_take(c, ".ftz");
        ptx_type t = ptx_take_type(c);
        if (operands(c, 2, t) < 0)
            return -1;
        in->a = op[0] == 'n';
        in->c = ftz;
        in->d = (uint8_t)ty;
        in->e = x2 ? 2 : 1;
        in->fn = x_absneg;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    static const struct {
        const char *name;
        vkrr_approx_op op;
    } ap[] = {{"ex2", VKRR_APPROX_EX2}, {"lg2", VKRR_APPROX_LG2}, {"sin", VKRR_APPROX_SIN},
              {"cos", VKRR_APPROX_COS}, {"rsqrt", VKRR_APPROX_RSQRT}, {"tanh", VKRR_APPROX_TANH}};
    for (unsigned k = 0; k < sizeof ap / sizeof ap[0]; k++) {
        if (strcmp(op, ap[k].name))
            continue;
        if (!ptx_take(c, ".approx"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s without .approx", op);
        bool ftz = ptx_take(c, ".ftz");
        ptx_type t = ptx_take_type(c);
        /* PTX's 16-bit forms: ex2.approx.f16, ex2.approx.ftz.bf16, tanh.approx.f16/.bf16 */
        bool op16 = ap[k].op == VKRR_APPROX_EX2 || ap[k].op == VKRR_APPROX_TANH;
        if ((ty >= TY_F16 && (!op16 || (ty == TY_BF16 && ap[k].op == VKRR_APPROX_EX2) != ftz)) ||
            (ty == TY_F64 && ap[k].op != VKRR_APPROX_RSQRT))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s.approx%s on %s", op, ftz ? ".ftz" : "",
                                ptx_type_name(t));
        if (operands(c, 2, t) < 0)
            return -1;
        in->a = (uint8_t)ap[k].op;
        in->c = ftz;
        in->d = ty == TY_F32 ? 0 : ty == TY_F64 ? 3 : x2 ? 2 : 1;
        in->e = ty == TY_BF16;
        in->fn = x_approx;
        if (ty == TY_F64)
            c->f->standins |= VKRR_STANDIN_F64;
        vkrr_error e = {0};
        vkrr_status st = vkrr_approx_require(ap[k].op, ty >= TY_F16, &e);
        if (st != VKRR_OK)
            return ptx_dec_fail(c, st, "the hardware model's tables: %s", e.msg);
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "setp")) {
        int cmp = ptx_take_any(c, fcmps, 14), bop = ptx_take_any(c, fbools, 3);
        bool ftz = ptx_take(c, ".ftz");
        ptx_type t = ptx_take_type(c);
        if (cmp < 0 || x2)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "setp form");
        unsigned first = c->r->pipe == 0 ? 2 : 1, n = ptx_nops(c);
        if (n != first + 2 + (bop >= 0))
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "wrong number of operands");
        int64_t p = ptx_pdst(c, ptx_op(c, 0)), q = first == 2 ? ptx_pdst(c, ptx_op(c, 1)) : 0;
        if (p < 0 || q < 0)
            return -1;
        in->o[0] = (uint32_t)p;
        in->o[1] = first == 2 ? (uint32_t)q : UINT32_MAX;
        if (ptx_set_src(c, 4, ptx_op(c, first), t, false) < 0 ||
            ptx_set_src(c, 5, ptx_op(c, first + 1), t, false) < 0)
            return -1;
        if (bool_operand(c, bop, ptx_op(c, first + 2)) < 0)
            return -1;
        in->a = (uint8_t)cmp;
        in->e = ftz;
        in->d = (uint8_t)ty;
        in->fn = x_fsetp;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "testp")) {
        static const char *const ops[] = {".finite", ".infinite", ".number", ".notanumber",
                                          ".normal", ".subnormal"};
        int k = ptx_take_any(c, ops, 6);
        ptx_type t = ptx_take_type(c);
        if (k < 0 || x2 || ty >= TY_F16 || ptx_nops(c) != 2)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "testp form");
        int64_t p = ptx_pdst(c, ptx_op(c, 0));
        if (p < 0 || ptx_set_src(c, 1, ptx_op(c, 1), t, false) < 0)
            return -1;
        in->o[0] = (uint32_t)p;
        in->a = (uint8_t)k;
        in->d = (uint8_t)ty;
        in->fn = x_testp;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "copysign")) {
        ptx_type t = ptx_take_type(c);
        if (ty >= TY_F16)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "copysign on %s", ptx_type_name(t));
        if (operands(c, 3, t) < 0)
            return -1;
        in->d = (uint8_t)ty;
        in->fn = x_copysign;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    return 0;
}
