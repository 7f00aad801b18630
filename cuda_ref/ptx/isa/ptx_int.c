/* ptx_int.c - integer arithmetic, comparisons, selects, predicate moves and
 * logic on predicates (other moves: ptx_move.c).  Everything is computed in unsigned C types (PTX integer
 * arithmetic wraps); results are stored zero-extended from their width.
 * Division by zero gives what NVIDIA GPUs give for the unsigned case
 * (all ones; rem returns the dividend), signed x/0 = -1 (x >= 0) or 1, and
 * INT_MIN / -1 = INT_MIN; the host never traps. */
#include "ptx_internal.h"

#define A_(i) PTX_R(w, in->o[i])
#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

/* ---- generated binary ops: NAME_16/32/64 ---------------------------------------- */
#define BIN3(NAME, EXPR)                                                                      \
    HANDLER(NAME##_16)                                                                        \
    {                                                                                         \
        uint64_t *d = A_(0);                                                                  \
        const uint64_t *A = A_(1), *B = A_(2);                                                \
        PTX_LANES(m, { uint16_t a = (uint16_t)A[l], b = (uint16_t)B[l]; (void)b;              \
                       d[l] = (uint16_t)(EXPR); });                                           \
        return 0;                                                                             \
    }                                                                                         \
    HANDLER(NAME##_32)                                                                        \
    {                                                                                         \
        uint64_t *d = A_(0);                                                                  \
        const uint64_t *A = A_(1), *B = A_(2);                                                \
        PTX_LANES(m, { uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l]; (void)b;              \
                       d[l] = (uint32_t)(EXPR); });                                           \
        return 0;                                                                             \
    }                                                                                         \
    HANDLER(NAME##_64)                                                                        \
    {                                                                                         \
        uint64_t *d = A_(0);                                                                  \
        const uint64_t *A = A_(1), *B = A_(2);                                                \
        PTX_LANES(m, { uint64_t a = A[l], b = B[l]; (void)b; d[l] = (uint64_t)(EXPR); });    \
        return 0;                                                                             \
    }

BIN3(x_add, a + b)
BIN3(x_sub, a - b)
BIN3(x_mullo, (uint64_t)a * b)
BIN3(x_and, a & b)
BIN3(x_or, a | b)
BIN3(x_xor, a ^ b)
BIN3(x_not, ~a)
BIN3(x_cnot, a == 0)

/* signed/unsigned variants: T is the signed or unsigned type of the width */
#define BINT(NAME, T, UT, EXPR)                                                               \
    HANDLER(NAME)                                                                             \
    {                                                                                         \
        uint64_t *d = A_(0);                                                                  \
        const uint64_t *A = A_(1), *B = A_(2);                                                \
        typedef UT ut_t __attribute__((unused));                                              \
        PTX_LANES(m, { T a = (T)(UT)A[l], b = (T)(UT)B[l]; (void)b; d[l] = (UT)(EXPR); });   \
        return 0;                                                                             \
    }
#define BIN_SU(NAME, EXPR)                                                                    \
    BINT(NAME##_s16, int16_t, uint16_t, EXPR)                                                 \
    BINT(NAME##_u16, uint16_t, uint16_t, EXPR)                                                \
    BINT(NAME##_s32, int32_t, uint32_t, EXPR)                                                 \
    BINT(NAME##_u32, uint32_t, uint32_t, EXPR)                                                \
    BINT(NAME##_s64, int64_t, uint64_t, EXPR)                                                 \
    BINT(NAME##_u64, uint64_t, uint64_t, EXPR)

BIN_SU(x_min, a < b ? a : b)
BIN_SU(x_max, a > b ? a : b)
#define BIN_S(NAME, EXPR)                                                                     \
    BINT(NAME##_s16, int16_t, uint16_t, EXPR)                                                 \
    BINT(NAME##_s32, int32_t, uint32_t, EXPR)                                                 \
    BINT(NAME##_s64, int64_t, uint64_t, EXPR)
BIN_S(x_abs, a < 0 ? (ut_t)(0 - (ut_t)a) : (ut_t)a)
BIN_S(x_neg, (ut_t)(0 - (ut_t)a))

/* mul.hi: the high half of the double-width product */
BINT(x_mulhi_s16, int16_t, uint16_t, ((int32_t)a * b) >> 16)
BINT(x_mulhi_u16, uint16_t, uint16_t, ((uint32_t)a * b) >> 16)
BINT(x_mulhi_s32, int32_t, uint32_t, ((int64_t)a * b) >> 32)
BINT(x_mulhi_u32, uint32_t, uint32_t, ((uint64_t)a * b) >> 32)
BINT(x_mulhi_s64, int64_t, uint64_t, (int64_t)(((__int128)a * b) >> 64))
BINT(x_mulhi_u64, uint64_t, uint64_t, (uint64_t)(((unsigned __int128)a * b) >> 64))
/* mul.wide: double-width result */
BINT(x_mulwide_s16, int16_t, uint32_t, (int32_t)a * b)
BINT(x_mulwide_u16, uint16_t, uint32_t, (uint32_t)a * b)
BINT(x_mulwide_s32, int32_t, uint64_t, (int64_t)a * b)
BINT(x_mulwide_u32, uint32_t, uint64_t, (uint64_t)a * b)

/* division: see the top of the file */
#define DIVS(T, UT, MIN) (b == 0 ? (a >= 0 ? (T)-1 : (T)1) : (a == MIN && b == -1) ? a : (T)(a / b))
#define REMS(T, UT, MIN) (b == 0 ? a : (b == -1) ? (T)0 : (T)(a % b))
BINT(x_div_s16, int16_t, uint16_t, DIVS(int16_t, uint16_t, INT16_MIN))
BINT(x_div_s32, int32_t, uint32_t, DIVS(int32_t, uint32_t, INT32_MIN))
BINT(x_div_s64, int64_t, uint64_t, DIVS(int64_t, uint64_t, INT64_MIN))
BINT(x_div_u16, uint16_t, uint16_t, b ? a / b : 0xffffu)
BINT(x_div_u32, uint32_t, uint32_t, b ? a / b : 0xffffffffu)
BINT(x_div_u64, uint64_t, uint64_t, b ? a / b : ~0ull)
BINT(x_rem_s16, int16_t, uint16_t, REMS(int16_t, uint16_t, INT16_MIN))
BINT(x_rem_s32, int32_t, uint32_t, REMS(int32_t, uint32_t, INT32_MIN))
BINT(x_rem_s64, int64_t, uint64_t, REMS(int64_t, uint64_t, INT64_MIN))
BINT(x_rem_u16, uint16_t, uint16_t, b ? a % b : a)
BINT(x_rem_u32, uint32_t, uint32_t, b ? a % b : a)
BINT(x_rem_u64, uint64_t, uint64_t, b ? a % b : a)

/* shifts: amounts (u32) past the width clamp (PTX) */
#define SHIFT(NAME, T, UT, BITS, EXPR)                                                        \
    HANDLER(NAME)                                                                             \
    {                                                                                         \
        uint64_t *d = A_(0);                                                                  \
        const uint64_t *A = A_(1), *B = A_(2);                                                \
        PTX_LANES(m, { T a = (T)(UT)A[l]; uint32_t s = (uint32_t)B[l];                        \
                       d[l] = (UT)(EXPR); });                                                 \
        return 0;                                                                             \
    }
SHIFT(x_shl_16, uint16_t, uint16_t, 16, s >= 16 ? 0u : (uint32_t)a << s)
SHIFT(x_shl_32, uint32_t, uint32_t, 32, s >= 32 ? 0u : a << s)
SHIFT(x_shl_64, uint64_t, uint64_t, 64, s >= 64 ? 0u : a << s)
SHIFT(x_shru_16, uint16_t, uint16_t, 16, s >= 16 ? 0u : (uint32_t)a >> s)
SHIFT(x_shru_32, uint32_t, uint32_t, 32, s >= 32 ? 0u : a >> s)
SHIFT(x_shru_64, uint64_t, uint64_t, 64, s >= 64 ? 0u : a >> s)
SHIFT(x_shrs_16, int16_t, uint16_t, 16, s >= 16 ? (a < 0 ? -1 : 0) : a >> s)
SHIFT(x_shrs_32, int32_t, uint32_t, 32, s >= 32 ? (a < 0 ? -1 : 0) : a >> s)
SHIFT(x_shrs_64, int64_t, uint64_t, 64, s >= 64 ? (a < 0 ? -1 : 0) : a >> s)

/* saturating s32 add/sub */
static uint32_t sat32(int64_t v)
{
    return (uint32_t)(int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
}
BINT(x_addsat_s32, int32_t, uint32_t, sat32((int64_t)a + b))
BINT(x_subsat_s32, int32_t, uint32_t, sat32((int64_t)a - b))

/* ---- three-operand ops: mad ------------------------------------------------------- */
#define TRIT(NAME, T, UT, EXPR)                                                               \
    HANDLER(NAME)                                                                             \
    {                                                                                         \
        uint64_t *d = A_(0);                                                                  \
        const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);                                    \
        PTX_LANES(m, { T a = (T)(UT)A[l], b = (T)(UT)B[l]; UT cc = (UT)C[l];                 \
                       d[l] = (UT)(EXPR); });                                                 \
        return 0;                                                                             \
    }
TRIT(x_madlo_16, uint16_t, uint16_t, (uint32_t)a * b + cc)
TRIT(x_madlo_32, uint32_t, uint32_t, a * b + cc)
TRIT(x_madlo_64, uint64_t, uint64_t, a * b + cc)
TRIT(x_madhi_s16, int16_t, uint16_t, (uint16_t)(((int32_t)a * b) >> 16) + cc)
TRIT(x_madhi_u16, uint16_t, uint16_t, (uint16_t)(((uint32_t)a * b) >> 16) + cc)
TRIT(x_madhi_s32, int32_t, uint32_t, (uint32_t)(((int64_t)a * b) >> 32) + cc)
TRIT(x_madhi_u32, uint32_t, uint32_t, (uint32_t)(((uint64_t)a * b) >> 32) + cc)
TRIT(x_madhi_s64, int64_t, uint64_t, (uint64_t)(((__int128)a * b) >> 64) + cc)
TRIT(x_madhi_u64, uint64_t, uint64_t, (uint64_t)(((unsigned __int128)a * b) >> 64) + cc)
TRIT(x_madwide_s16, int16_t, uint32_t, (uint32_t)((int32_t)a * b) + cc)
TRIT(x_madwide_u16, uint16_t, uint32_t, (uint32_t)a * b + cc)
TRIT(x_madwide_s32, int32_t, uint64_t, (uint64_t)((int64_t)a * b) + cc)
TRIT(x_madwide_u32, uint32_t, uint64_t, (uint64_t)a * b + cc)
/* sad: c + |a - b| */
TRIT(x_sad_s32, int32_t, uint32_t, cc + (uint32_t)(a > b ? (int64_t)a - b : (int64_t)b - a))
TRIT(x_sad_u32, uint32_t, uint32_t, cc + (a > b ? a - b : b - a))
TRIT(x_sad_s16, int16_t, uint16_t, cc + (uint16_t)(a > b ? a - b : b - a))
TRIT(x_sad_u16, uint16_t, uint16_t, cc + (uint16_t)(a > b ? a - b : b - a))
TRIT(x_sad_s64, int64_t, uint64_t, cc + (a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a))
TRIT(x_sad_u64, uint64_t, uint64_t, cc + (a > b ? a - b : b - a))

/* mul24/mad24: 24-bit operands, 48-bit product; .lo = bits 0..31, .hi = 16..47 */
static int64_t s24(uint32_t v) { return (int64_t)((int32_t)(v << 8) >> 8); }
TRIT(x_mad24lo_s32, uint32_t, uint32_t, (uint32_t)(s24(a) * s24(b)) + cc)
TRIT(x_mad24lo_u32, uint32_t, uint32_t, (uint32_t)((uint64_t)(a & 0xffffffu) * (b & 0xffffffu)) + cc)
TRIT(x_mad24hi_s32, uint32_t, uint32_t, (uint32_t)((uint64_t)(s24(a) * s24(b)) >> 16) + cc)
TRIT(x_mad24hi_u32, uint32_t, uint32_t,
     (uint32_t)(((uint64_t)(a & 0xffffffu) * (b & 0xffffffu)) >> 16) + cc)

/* ---- carry chains: add.cc, addc, sub.cc, subc, mad{c}.lo/hi.cc ------------------------ */
/* in->a: width 32/64; in->b: 0 add 1 sub 2 madlo 3 madhi; in->c: uses CF; in->d: sets CF;
 * in->e: signed (madhi). */
HANDLER(x_carry)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = in->b >= 2 ? A_(3) : NULL;
    bool w64 = in->a == 64;
    uint64_t mask = w64 ? ~0ull : 0xffffffffull;
    PTX_LANES(m, {
        unsigned __int128 a = A[l] & mask, b = B[l] & mask, cin = in->c ? (w->cc >> l) & 1u : 0u;
        unsigned __int128 r;
        bool cout;
        if (in->b == 1) { /* a - (b + CF): borrow out */
            unsigned __int128 sub = b + cin;
            r = a - sub;
            cout = sub > a;
        } else {
            unsigned __int128 x = a, y;
            if (in->b == 0) {
                y = b;
            } else {
                unsigned __int128 p;
                if (in->e) {
                    __int128 sa = w64 ? (__int128)(int64_t)A[l] : (__int128)(int32_t)A[l];
                    __int128 sb = w64 ? (__int128)(int64_t)B[l] : (__int128)(int32_t)B[l];
                    p = (unsigned __int128)(sa * sb);
                } else {
                    p = a * b;
                }
                x = in->b == 2 ? (p & mask) : ((p >> (w64 ? 64 : 32)) & mask);
                y = C[l] & mask;
            }
            r = x + y + cin;
            cout = (r >> (w64 ? 64 : 32)) != 0;
        }
        d[l] = (uint64_t)r & mask;
        if (in->d)
            w->cc = (w->cc & ~(1u << l)) | ((uint32_t)cout << l);
    });
    return 0;
}

/* ---- compare, select, move --------------------------------------------------------- */
/* Writes the comparison bits to p (o[0]) and, with a bool op (in->b 1 and, 2 or,
 * 3 xor; source c at o[3], negated by in->c), q = op(!cmp, c) to o[1] if in->d. */
static inline int setp_finish(ptx_warp *w, const ptx_inst *in, uint32_t m, uint32_t bits)
{
    uint32_t p = bits, q = ~bits;
    if (in->b) {
        uint32_t c = w->P[in->o[3]];
        if (in->c)
            c = ~c;
        p = in->b == 1 ? p & c : in->b == 2 ? p | c : p ^ c;
        q = in->b == 1 ? q & c : in->b == 2 ? q | c : q ^ c;
    }
    w->P[in->o[0]] = (w->P[in->o[0]] & ~m) | (p & m);
    if (in->d)
        w->P[in->o[1]] = (w->P[in->o[1]] & ~m) | (q & m);
    return 0;
}

#define SETP(NAME, T, UT, CMP)                                                                \
    HANDLER(NAME)                                                                             \
    {                                                                                         \
        const uint64_t *A = A_(4), *B = A_(5);                                                \
        uint32_t bits = 0;                                                                    \
        PTX_LANES(m, { T a = (T)(UT)A[l], b = (T)(UT)B[l]; bits |= (uint32_t)(CMP) << l; });  \
        return setp_finish(w, in, m, bits);                                                   \
    }
#define SETP_T(SUF, T, UT)                                                                    \
    SETP(x_setp_eq_##SUF, T, UT, a == b)                                                      \
    SETP(x_setp_ne_##SUF, T, UT, a != b)                                                      \
    SETP(x_setp_lt_##SUF, T, UT, a < b)                                                       \
    SETP(x_setp_le_##SUF, T, UT, a <= b)                                                      \
    SETP(x_setp_gt_##SUF, T, UT, a > b)                                                       \
    SETP(x_setp_ge_##SUF, T, UT, a >= b)
SETP_T(s16, int16_t, uint16_t)
SETP_T(u16, uint16_t, uint16_t)
SETP_T(s32, int32_t, uint32_t)
SETP_T(u32, uint32_t, uint32_t)
SETP_T(s64, int64_t, uint64_t)
SETP_T(u64, uint64_t, uint64_t)
#define SETP_ROW(SUF) {x_setp_eq_##SUF, x_setp_ne_##SUF, x_setp_lt_##SUF, x_setp_le_##SUF, \
                       x_setp_gt_##SUF, x_setp_ge_##SUF}
static const ptx_fn setp_tab[6][6] = {SETP_ROW(s16), SETP_ROW(u16), SETP_ROW(s32),
                                      SETP_ROW(u32), SETP_ROW(s64), SETP_ROW(u64)};

HANDLER(x_selp)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2);
    uint32_t p = w->P[in->o[3]];
    PTX_LANES(m, d[l] = ((p >> l) & 1u) ? A[l] : B[l]);
    return 0;
}


/* slct.dtype.s32/f32 d, a, b, c: c >= 0 ? a : b (in->e: c is f32; -0.0 >= 0) */
HANDLER(x_slct)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);
    PTX_LANES(m, {
        bool ge = in->e ? ptx_f(C[l]) >= 0.0f : (int32_t)(uint32_t)C[l] >= 0;
        d[l] = ge ? A[l] : B[l];
    });
    return 0;
}

HANDLER(x_plogic)
{
    uint32_t a = w->P[in->o[1]], b = in->a < 3 ? w->P[in->o[2]] : 0, r;
    if (in->b)
        a = ~a;
    if (in->c)
        b = ~b;
    switch (in->a) {
    case 0: r = a & b; break;
    case 1: r = a | b; break;
    case 2: r = a ^ b; break;
    case 3: r = ~a; break;
    default: r = a; break;
    }
    w->P[in->o[0]] = (w->P[in->o[0]] & ~m) | (r & m);
    return 0;
}

HANDLER(x_pimm) /* mov.pred p, 0 / 1 */
{
    w->P[in->o[0]] = (w->P[in->o[0]] & ~m) | (in->imm ? m : 0u);
    return 0;
}

/* What the JIT emits inline for these handlers (ptx_jit_emit.c). */
#define J3(NAME, OP) {NAME##_16, OP, 16, 0}, {NAME##_32, OP, 32, 0}, {NAME##_64, OP, 64, 0}
#define JS(NAME, OP) {NAME##_s16, OP, 16, 1}, {NAME##_s32, OP, 32, 1}, {NAME##_s64, OP, 64, 1}
#define JSU(NAME, OP) JS(NAME, OP), {NAME##_u16, OP, 16, 0}, {NAME##_u32, OP, 32, 0}, \
                      {NAME##_u64, OP, 64, 0}
#define JSETP(SUF, BITS, SIGN) {x_setp_eq_##SUF, JOP_SETP_EQ, BITS, SIGN}, \
    {x_setp_ne_##SUF, JOP_SETP_NE, BITS, SIGN}, {x_setp_lt_##SUF, JOP_SETP_LT, BITS, SIGN}, \
    {x_setp_le_##SUF, JOP_SETP_LE, BITS, SIGN}, {x_setp_gt_##SUF, JOP_SETP_GT, BITS, SIGN}, \
    {x_setp_ge_##SUF, JOP_SETP_GE, BITS, SIGN}
const ptx_jop ptx_int_jops[] = {
    J3(x_add, JOP_ADD), J3(x_sub, JOP_SUB), J3(x_mullo, JOP_MULLO), J3(x_and, JOP_AND),
    J3(x_or, JOP_OR), J3(x_xor, JOP_XOR), J3(x_not, JOP_NOT), J3(x_cnot, JOP_CNOT),
    JSU(x_min, JOP_MIN), JSU(x_max, JOP_MAX), JS(x_abs, JOP_ABS), JS(x_neg, JOP_NEG),
    {x_mulwide_s16, JOP_MULWIDE, 16, 1}, {x_mulwide_u16, JOP_MULWIDE, 16, 0},
    {x_mulwide_s32, JOP_MULWIDE, 32, 1}, {x_mulwide_u32, JOP_MULWIDE, 32, 0},
    J3(x_shl, JOP_SHL), J3(x_shru, JOP_SHRU), {x_shrs_16, JOP_SHRS, 16, 1},
    {x_shrs_32, JOP_SHRS, 32, 1}, {x_shrs_64, JOP_SHRS, 64, 1},
    JSETP(s16, 16, 1), JSETP(u16, 16, 0), JSETP(s32, 32, 1), JSETP(u32, 32, 0),
    JSETP(s64, 64, 1), JSETP(u64, 64, 0),
    {x_selp, JOP_SELP, 64, 0}, {x_plogic, JOP_PLOGIC, 32, 0}, {x_pimm, JOP_PIMM, 32, 0},
};
const unsigned ptx_int_njops = sizeof ptx_int_jops / sizeof ptx_int_jops[0];

/* ---- decoder ------------------------------------------------------------------------ */
static int type_index(ptx_type t)
{
    switch (t) {
    case PT_S16: return 0;
    case PT_U16: case PT_B16: return 1;
    case PT_S32: return 2;
    case PT_U32: case PT_B32: return 3;
    case PT_S64: return 4;
    case PT_U64: case PT_B64: return 5;
    default: return -1;
    }
}

static bool int_type(ptx_type t) { return type_index(t) >= 0; }

/* the instruction's first type modifier, unconsumed */
static ptx_type peek_type(ptx_dctx *c)
{
    for (unsigned i = 0; i < c->r->nmods; i++) {
        ptx_type t = ptx_type_from(c->r->mods[i]);
        if (t != PT_NONE)
            return t;
    }
    return PT_NONE;
}

static int need(ptx_dctx *c, unsigned n)
{
    if (ptx_nops(c) != n)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "takes %u operands, has %u", n, ptx_nops(c));
    return 0;
}

/* d, a[, b[, c]] with types td (d) and ts (sources) into o[0..n-1] */
static int operands(ptx_dctx *c, unsigned n, ptx_type td, ptx_type ts, ptx_type tc)
{
    if (need(c, n) < 0 || ptx_set_dst(c, 0, ptx_op(c, 0), td, false) < 0)
        return -1;
    for (unsigned i = 1; i < n; i++)
        if (ptx_set_src(c, i, ptx_op(c, i), i == 3 ? tc : ts, false) < 0)
            return -1;
    return 0;
}

static ptx_fn pick3(int bits, ptx_fn f16, ptx_fn f32, ptx_fn f64)
{
    return bits == 16 ? f16 : bits == 32 ? f32 : bits == 64 ? f64 : NULL;
}

#define SU6(NAME) {NAME##_s16, NAME##_u16, NAME##_s32, NAME##_u32, NAME##_s64, NAME##_u64}

static const char *const cmp_names[] = {".eq", ".ne", ".lt", ".le", ".gt", ".ge",
                                        ".lo", ".ls", ".hi", ".hs"};
static const char *const bool_names[] = {".and", ".or", ".xor"};

/* set.cmp{.bool}.dtype.stype, integer sources: all ones (.u32/.s32) or 1.0 (.f32) where it
 * holds; o[4] a, o[5] b, in->a cmp, in->d type_index, in->b/c bool op and !c, in->e .f32. */
HANDLER(x_iset)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(4), *B = A_(5);
    uint32_t c = (in->b ? w->P[in->o[3]] : 0u) ^ (in->c ? ~0u : 0u);
    unsigned sh = 64u - (16u << (in->d / 2)); /* compared left-aligned: no masks */
    PTX_LANES(m, {
        uint64_t ua = A[l] << sh, ub = B[l] << sh;
        int64_t sa = (int64_t)ua, sb = (int64_t)ub;
        int o = in->d & 1 ? (ua < ub ? -1 : ua > ub) : (sa < sb ? -1 : sa > sb);
        bool t = in->a == 0 ? o == 0 : in->a == 1 ? o != 0 : in->a == 2 ? o < 0
               : in->a == 3 ? o <= 0 : in->a == 4 ? o > 0 : o >= 0, cl = (c >> l) & 1u;
        t = in->b == 1 ? t && cl : in->b == 2 ? t || cl : in->b == 3 ? t != cl : t;
        d[l] = t ? (in->e ? 0x3f800000u : 0xffffffffu) : 0;
    });
    return 0;
}

static int dec_setp(ptx_dctx *c, bool is_set)
{
    ptx_inst *in = c->in;
    int cmp = ptx_take_any(c, cmp_names, 10);
    int bop = ptx_take_any(c, bool_names, 3);
    ptx_type dt = is_set ? ptx_take_type(c) : PT_PRED;
    ptx_type t = ptx_take_type(c);
    if (cmp < 0 || !int_type(t) || (is_set && dt != PT_U32 && dt != PT_S32 && dt != PT_F32))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "comparison form");
    int ti = type_index(t);
    if (cmp >= 6) { /* unsigned-only forms lo ls hi hs */
        cmp = cmp == 6 ? 2 : cmp == 7 ? 3 : cmp == 8 ? 4 : 5;
        ti |= 1;
    }
    if ((t == PT_B16 || t == PT_B32 || t == PT_B64) && cmp > 1)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "only eq/ne compare bit-size types");
    unsigned n = ptx_nops(c), first = 1;
    if (!is_set && c->r->pipe == 0) {
        int64_t q = ptx_pdst(c, ptx_op(c, 1));
        if (q < 0)
            return -1;
        in->o[1] = (uint32_t)q;
        in->d = 1;
        first = 2;
    }
    if (n != first + 2 + (bop >= 0))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "wrong number of operands");
    if (is_set) {
        if (ptx_set_dst(c, 0, ptx_op(c, 0), dt, false) < 0)
            return -1;
        in->e = dt == PT_F32;
    } else {
        int64_t p = ptx_pdst(c, ptx_op(c, 0));
        if (p < 0)
            return -1;
        in->o[0] = (uint32_t)p;
    }
    if (ptx_set_src(c, 4, ptx_op(c, first), t, false) < 0 ||
        ptx_set_src(c, 5, ptx_op(c, first + 1), t, false) < 0)
        return -1;
    if (bop >= 0) {
        bool neg = false;
        int64_t q = ptx_psrc(c, ptx_op(c, first + 2), &neg);
        if (q < 0)
            return -1;
        in->o[3] = (uint32_t)q;
        in->b = (uint8_t)(bop + 1);
        in->c = neg;
    }
    in->fn = is_set ? x_iset : setp_tab[ti][cmp];
    in->a = (uint8_t)cmp;
    in->d = is_set ? (uint8_t)ti : in->d;
    return ptx_rest_ok(c) < 0 ? -1 : 1;
}

/* mov: predicates here, everything else in ptx_move.c */
static int dec_mov(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    if (peek_type(c) != PT_PRED)
        return ptx_dec_mov(c);
    ptx_take_type(c);
    if (need(c, 2) < 0)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "mov needs a type and two operands");
    if (ptx_rest_ok(c) < 0)
        return -1;
    const ptx_rop *d = ptx_op(c, 0), *a = ptx_op(c, 1);
    /* %is_explicit_cluster: false, as vkrr launches no clusters (ptx_sreg.c) */
    if (a->kind == RO_INT || (a->kind == RO_SREG && a->sreg == SR_IS_EXPLICIT_CLUSTER)) {
        int64_t pd = ptx_pdst(c, d);
        if (pd < 0)
            return -1;
        in->o[0] = (uint32_t)pd;
        in->imm = a->kind == RO_INT ? a->ival != 0 : a->neg != 0; /* !%is_explicit_cluster */
        in->fn = x_pimm;
        return 1;
    }
    int64_t pd = ptx_pdst(c, d);
    bool neg = false;
    int64_t pa = ptx_psrc(c, a, &neg);
    if (pd < 0 || pa < 0)
        return -1;
    in->o[0] = (uint32_t)pd;
    in->o[1] = (uint32_t)pa;
    in->a = 4;
    in->b = neg;
    in->fn = x_plogic;
    return 1;
}

/* and/or/xor/not on predicates */
static int dec_plogic(ptx_dctx *c, int op)
{
    ptx_inst *in = c->in;
    unsigned n = op == 3 ? 2 : 3;
    if (need(c, n) < 0)
        return -1;
    int64_t d = ptx_pdst(c, ptx_op(c, 0));
    bool na = false, nb = false;
    int64_t a = ptx_psrc(c, ptx_op(c, 1), &na);
    int64_t b = n == 3 ? ptx_psrc(c, ptx_op(c, 2), &nb) : 0;
    if (d < 0 || a < 0 || b < 0)
        return -1;
    in->o[0] = (uint32_t)d;
    in->o[1] = (uint32_t)a;
    in->o[2] = (uint32_t)b;
    in->a = (uint8_t)op;
    in->b = na;
    in->c = nb;
    in->fn = x_plogic;
    return ptx_rest_ok(c) < 0 ? -1 : 1;
}

static int dec_carry(ptx_dctx *c, const char *op)
{
    ptx_inst *in = c->in;
    bool madc = !strcmp(op, "madc"), mad = madc || !strcmp(op, "mad");
    bool cc = ptx_take(c, ".cc");
    in->c = !strcmp(op, "addc") || !strcmp(op, "subc") || madc;
    in->d = cc;
    if (mad) {
        bool lo = ptx_take(c, ".lo"), hi = !lo && ptx_take(c, ".hi");
        if (!lo && !hi)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mad.cc needs .lo or .hi");
        in->b = lo ? 2 : 3;
    } else {
        in->b = op[0] == 's' ? 1 : 0;
    }
    ptx_type t = ptx_take_type(c);
    if (t != PT_U32 && t != PT_S32 && t != PT_U64 && t != PT_S64)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "carry arithmetic on %s", ptx_type_name(t));
    in->a = (uint8_t)ptx_type_bits(t);
    in->e = ptx_type_is_signed(t);
    if (operands(c, mad ? 4 : 3, t, t, t) < 0)
        return -1;
    in->fn = x_carry;
    return ptx_rest_ok(c) < 0 ? -1 : 1;
}

int ptx_dec_int(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    ptx_type pt = peek_type(c);
    if (!strcmp(op, "mov"))
        return dec_mov(c);
    if (!strcmp(op, "addc") || !strcmp(op, "subc") || !strcmp(op, "madc"))
        return dec_carry(c, op);
    if ((!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mad")) && int_type(pt)) {
        for (unsigned i = 0; i < c->r->nmods; i++)
            if (!strcmp(c->r->mods[i], ".cc"))
                return dec_carry(c, op);
    }
    if (!strcmp(op, "selp")) {
        ptx_type t = ptx_take_type(c);
        if (t == PT_NONE || ptx_type_bits(t) > 64 || ptx_type_bits(t) < 16 || need(c, 4) < 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "selp form");
        if (ptx_set_dst(c, 0, ptx_op(c, 0), t, false) < 0 ||
            ptx_set_src(c, 1, ptx_op(c, 1), t, false) < 0 ||
            ptx_set_src(c, 2, ptx_op(c, 2), t, false) < 0)
            return -1;
        int64_t p = ptx_psrc(c, ptx_op(c, 3), NULL);
        if (p < 0)
            return -1;
        in->o[3] = (uint32_t)p;
        in->fn = x_selp;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "slct")) {
        ptx_take(c, ".ftz");
        ptx_type dt = ptx_take_type(c), ct = ptx_take_type(c);
        if (dt == PT_NONE || ptx_type_bits(dt) < 16 || ptx_type_bits(dt) > 64 ||
            (ct != PT_S32 && ct != PT_F32))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "slct form");
        if (operands(c, 4, dt, dt, ct) < 0)
            return -1;
        in->e = ct == PT_F32;
        in->fn = x_slct;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "setp") && (int_type(pt)))
        return dec_setp(c, false);
    if (!strcmp(op, "set")) { /* an integer source type (the float ones are ptx_float.c's) */
        ptx_type st = PT_NONE;
        for (unsigned i = 0; i < c->r->nmods; i++)
            if (ptx_type_from(c->r->mods[i]) != PT_NONE)
                st = ptx_type_from(c->r->mods[i]);
        if (int_type(st))
            return dec_setp(c, true);
    }
    if ((!strcmp(op, "and") || !strcmp(op, "or") || !strcmp(op, "xor") || !strcmp(op, "not")) &&
        pt == PT_PRED) {
        ptx_take_type(c);
        return dec_plogic(c, op[0] == 'a' ? 0 : op[0] == 'o' ? 1 : op[0] == 'x' ? 2 : 3);
    }
    if (!int_type(pt))
        return 0; /* float forms, or not ours */

    static const struct {
        const char *name;
        ptx_fn f[3];
        unsigned nops;
    } bitwise[] = {
        {"and", {x_and_16, x_and_32, x_and_64}, 3}, {"or", {x_or_16, x_or_32, x_or_64}, 3},
        {"xor", {x_xor_16, x_xor_32, x_xor_64}, 3}, {"not", {x_not_16, x_not_32, x_not_64}, 2},
        {"cnot", {x_cnot_16, x_cnot_32, x_cnot_64}, 2},
    };
    for (unsigned k = 0; k < sizeof bitwise / sizeof bitwise[0]; k++) {
        if (strcmp(op, bitwise[k].name))
            continue;
        ptx_type t = ptx_take_type(c);
        unsigned bits = ptx_type_bits(t);
        if (operands(c, bitwise[k].nops, t, t, t) < 0)
            return -1;
        in->fn = pick3((int)bits, bitwise[k].f[0], bitwise[k].f[1], bitwise[k].f[2]);
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "add") || !strcmp(op, "sub")) {
        bool sat = ptx_take(c, ".sat");
        ptx_type t = ptx_take_type(c);
        if (operands(c, 3, t, t, t) < 0)
            return -1;
        if (sat) {
            if (t != PT_S32)
                return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, ".sat on %s", ptx_type_name(t));
            in->fn = op[0] == 'a' ? x_addsat_s32 : x_subsat_s32;
        } else {
            unsigned b = ptx_type_bits(t);
            in->fn = op[0] == 'a' ? pick3((int)b, x_add_16, x_add_32, x_add_64)
                                  : pick3((int)b, x_sub_16, x_sub_32, x_sub_64);
        }
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "mul") || !strcmp(op, "mad")) {
        bool mad = op[1] == 'a';
        int mode = ptx_take(c, ".lo") ? 0 : ptx_take(c, ".hi") ? 1 : ptx_take(c, ".wide") ? 2 : -1;
        if (ptx_take(c, ".sat"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mad.hi.sat");
        ptx_type t = ptx_take_type(c);
        int ti = type_index(t);
        if (mode < 0 || ti < 0 || (mode == 2 && ti >= 4))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form", op);
        ptx_type dt = t;
        if (mode == 2)
            dt = ti == 0 ? PT_S32 : ti == 1 ? PT_U32 : ti == 2 ? PT_S64 : PT_U64;
        if (operands(c, mad ? 4 : 3, dt, t, dt) < 0)
            return -1;
        static const ptx_fn hi[6] = {x_mulhi_s16, x_mulhi_u16, x_mulhi_s32,
                                     x_mulhi_u32, x_mulhi_s64, x_mulhi_u64};
        static const ptx_fn mhi[6] = {x_madhi_s16, x_madhi_u16, x_madhi_s32,
                                      x_madhi_u32, x_madhi_s64, x_madhi_u64};
        static const ptx_fn wide[4] = {x_mulwide_s16, x_mulwide_u16, x_mulwide_s32, x_mulwide_u32};
        static const ptx_fn mwide[4] = {x_madwide_s16, x_madwide_u16, x_madwide_s32, x_madwide_u32};
        unsigned b = ptx_type_bits(t);
        if (mode == 0)
            in->fn = mad ? pick3((int)b, x_madlo_16, x_madlo_32, x_madlo_64)
                         : pick3((int)b, x_mullo_16, x_mullo_32, x_mullo_64);
        else if (mode == 1)
            in->fn = mad ? mhi[ti] : hi[ti];
        else
            in->fn = mad ? mwide[ti] : wide[ti];
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "mul24") || !strcmp(op, "mad24")) {
        bool mad = op[1] == 'a';
        int mode = ptx_take(c, ".lo") ? 0 : ptx_take(c, ".hi") ? 1 : -1;
        ptx_type t = ptx_take_type(c);
        if (mode < 0 || (t != PT_S32 && t != PT_U32))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form", op);
        if (need(c, mad ? 4 : 3) < 0 || ptx_set_dst(c, 0, ptx_op(c, 0), t, false) < 0 ||
            ptx_set_src(c, 1, ptx_op(c, 1), t, false) < 0 ||
            ptx_set_src(c, 2, ptx_op(c, 2), t, false) < 0 ||
            ptx_set_src(c, 3, mad ? ptx_op(c, 3) : &(ptx_rop){.kind = RO_INT}, t, false) < 0)
            return -1;
        bool s = t == PT_S32;
        in->fn = mode == 0 ? (s ? x_mad24lo_s32 : x_mad24lo_u32) : (s ? x_mad24hi_s32 : x_mad24hi_u32);
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "sad")) {
        ptx_type t = ptx_take_type(c);
        static const ptx_fn f[6] = SU6(x_sad);
        if (operands(c, 4, t, t, t) < 0)
            return -1;
        in->fn = f[type_index(t)];
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    static const struct {
        const char *name;
        ptx_fn f[6];
        unsigned nops;
    } su[] = {
        {"min", SU6(x_min), 3}, {"max", SU6(x_max), 3},
        {"abs", {x_abs_s16, NULL, x_abs_s32, NULL, x_abs_s64, NULL}, 2},
        {"neg", {x_neg_s16, NULL, x_neg_s32, NULL, x_neg_s64, NULL}, 2},
        {"div", {x_div_s16, x_div_u16, x_div_s32, x_div_u32, x_div_s64, x_div_u64}, 3},
        {"rem", {x_rem_s16, x_rem_u16, x_rem_s32, x_rem_u32, x_rem_s64, x_rem_u64}, 3},
    };
    for (unsigned k = 0; k < sizeof su / sizeof su[0]; k++) {
        if (strcmp(op, su[k].name))
            continue;
        if (ptx_take(c, ".relu"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s.relu", op);
        ptx_type t = ptx_take_type(c);
        int ti = type_index(t);
        if (t == PT_B16 || t == PT_B32 || t == PT_B64 || !su[k].f[ti])
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s on %s", op, ptx_type_name(t));
        if (operands(c, su[k].nops, t, t, t) < 0)
            return -1;
        in->fn = su[k].f[ti];
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "shl") || !strcmp(op, "shr")) {
        ptx_type t = ptx_take_type(c);
        unsigned b = ptx_type_bits(t);
        if (need(c, 3) < 0 || ptx_set_dst(c, 0, ptx_op(c, 0), t, false) < 0 ||
            ptx_set_src(c, 1, ptx_op(c, 1), t, false) < 0 ||
            ptx_set_src(c, 2, ptx_op(c, 2), PT_U32, false) < 0)
            return -1;
        if (op[2] == 'l')
            in->fn = pick3((int)b, x_shl_16, x_shl_32, x_shl_64);
        else if (ptx_type_is_signed(t))
            in->fn = pick3((int)b, x_shrs_16, x_shrs_32, x_shrs_64);
        else
            in->fn = pick3((int)b, x_shru_16, x_shru_32, x_shru_64);
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    return 0;
}
