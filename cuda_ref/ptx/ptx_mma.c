/* ptx_mma.c - ldmatrix and mma.sync (warp-wide matrix operations).
 *
 * ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared}.b16: lanes 8i..8i+7
 * give the row addresses of matrix i (16-byte rows in shared memory); lane t
 * receives row t/4, columns 2(t%4) and 2(t%4)+1 (lower half = lower column),
 * or with .trans the same elements of the transposed matrix.
 *
 * mma.sync.aligned, fragments as the PTX ISA lays them out (g = lane / 4,
 * t = lane % 4):
 *   m16n8k16 .f16/.bf16: A a0..a7 = (g, 2t+{0,1}), (g+8, 2t+{0,1}),
 *     (g, 2t+8+{0,1}), (g+8, 2t+8+{0,1}); B b0..b3 = (2t+{0,1}, g), (2t+8+{0,1}, g)
 *   m16n8k8 .f16/.bf16: A (g, 2t+{0,1}), (g+8, 2t+{0,1}); B (2t+{0,1}, g)
 *   m16n8k32 .e4m3/.e5m2 (sm_89): A a0..a15 = (g, 4t+{0..3}), (g+8, 4t+{0..3}),
 *     (g, 4t+16+{0..3}), (g+8, 4t+16+{0..3}); B b0..b7 = (4t+{0..3}, g),
 *     (4t+16+{0..3}, g)
 *   C/D: c0..c3 = (g, 2t+{0,1}), (g+8, 2t+{0,1}); .f32: four registers, .f16:
 *     two f16x2 registers.
 *
 * Numerics (the PTX ISA only says products are exact and the accumulation is
 * "at least single precision", order implementation-defined; this is the
 * documented model):
 *   - .e4m3/.e5m2: every product is exact and the 32 products of a
 *     row/column pair are summed exactly, as integers -- exactly how rrref
 *     sums one 32-term slice -- then c is added and the result is rounded
 *     ONCE to the type of d (nearest even; f16 overflow -> Inf).  (rrref
 *     itself rounds its slice to f16 and then adds it to the f16
 *     accumulator: two roundings; an mma with an f16 accumulator makes one.)
 *     A NaN or Inf operand gives the IEEE result of the same sum in double.
 *   - .f16/.bf16: products exact; summed in double precision in k order,
 *     c added last, rounded once to the type of d.  That is exact, rounded
 *     once, whenever the terms span fewer than 53 bits.
 */
#include <math.h>

#include "ptx_internal.h"

#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

/* ldmatrix: o[0] address base, in->imm offset, o[1..4] destinations,
 * in->a matrices, in->b .trans, in->d space */
HANDLER(x_ldmatrix)
{
    const uint64_t *A = PTX_R(w, in->o[0]);
    uint32_t res[4][32];
    if (m != 0xffffffffu)
        return ptx_fault(w, in, -1, VKRR_ERR_FAULT, "ldmatrix needs all 32 lanes (active 0x%08x)", m);
    for (unsigned i = 0; i < in->a; i++) {
        uint16_t rows[8][8];
        for (unsigned r = 0; r < 8; r++) {
            unsigned lane = 8 * i + r;
            const unsigned char *p = ptx_addr(w, in, (int)lane, in->d, A[lane] + in->imm, 16, 16, false);
            if (!p)
                return -1;
            memcpy(rows[r], p, 16);
        }
        for (unsigned t = 0; t < 32; t++) {
            unsigned r = t / 4, c0 = 2 * (t % 4);
            uint16_t lo = in->b ? rows[c0][r] : rows[r][c0];
            uint16_t hi = in->b ? rows[c0 + 1][r] : rows[r][c0 + 1];
            res[i][t] = (uint32_t)lo | (uint32_t)hi << 16;
        }
    }
    for (unsigned i = 0; i < in->a; i++) {
        uint64_t *d = PTX_R(w, in->o[1 + i]);
        for (unsigned t = 0; t < 32; t++)
            d[t] = res[i][t];
    }
    return 0;
}

/* mma: ox holds d (nd), a (na), b (nb), c (nc) slots in that order;
 * in->a kind 0 f16 1 bf16 2 e4m3 3 e5m2 (A), in->b kind of B, in->c d f32,
 * in->d c f32, in->e K */
static double elem16(uint16_t v, int kind)
{
    return kind == 0 ? (double)vkrr_f16_to_f32(v) : (double)ptx_f((uint32_t)v << 16);
}

/* e4m3 / e5m2 code -> integer k and scale exponent (value = k * 2^sc); false for
 * NaN / Inf */
static bool fp8_fixed(uint8_t code, int kind, int64_t *k, int *sc)
{
    int ebits = kind == 2 ? 4 : 5, mb = kind == 2 ? 3 : 2, bias = kind == 2 ? 7 : 15;
    unsigned e = (code >> mb) & ((1u << ebits) - 1u), mant = code & ((1u << mb) - 1u);
    if (kind == 2 ? ((code & 0x7fu) == 0x7fu) : (e == 31u))
        return false;
    int64_t v = e == 0 ? (int64_t)mant : (int64_t)((1u << mb) | mant) << (e - 1);
    *k = (code & 0x80u) ? -v : v;
    *sc = (1 - bias) - mb; /* e4m3: -9, e5m2: -16 */
    return true;
}

static double fp8_val(uint8_t code, int kind)
{
    return vkrr_decode_bits(code, kind == 2 ? FMT_E4M3 : FMT_E5M2);
}

/* element (row, col) of A (16 x K) held by the lane/register layout above */
typedef struct frag {
    uint32_t a[32][4], b[32][2];
    uint64_t c[32][4];
} frag;

static uint32_t a_elem(const frag *f, int K, bool fp8, unsigned row, unsigned k)
{
    unsigned g = row % 8, hi = row / 8;
    if (!fp8) {
        unsigned t = (k % 8) / 2, reg = hi + (k / 8) * 2, half = k % 2;
        if (K == 8)
            reg = hi;
        return (f->a[g * 4 + t][reg] >> (16 * half)) & 0xffffu;
    }
    unsigned t = (k % 16) / 4, reg = hi + (k / 16) * 2, byte = k % 4;
    return (f->a[g * 4 + t][reg] >> (8 * byte)) & 0xffu;
}

static uint32_t b_elem(const frag *f, int K, bool fp8, unsigned k, unsigned col)
{
    (void)K;
    if (!fp8) {
        unsigned t = (k % 8) / 2, reg = k / 8, half = k % 2;
        return (f->b[col * 4 + t][reg] >> (16 * half)) & 0xffffu;
    }
    unsigned t = (k % 16) / 4, reg = k / 16, byte = k % 4;
    return (f->b[col * 4 + t][reg] >> (8 * byte)) & 0xffu;
}

HANDLER(x_mma)
{
    if (m != 0xffffffffu)
        return ptx_fault(w, in, -1, VKRR_ERR_FAULT, "mma needs all 32 lanes (active 0x%08x)", m);
    int K = in->e, ka = in->a, kb = in->b;
    bool fp8 = ka >= 2, df32 = in->c, cf32 = in->d;
    unsigned na = fp8 ? 4 : (K == 16 ? 4 : 2), nb = fp8 ? 2 : (K == 16 ? 2 : 1);
    unsigned nd = df32 ? 4 : 2, nc = cf32 ? 4 : 2;
    const uint32_t *ox = in->ox;
    frag f;
    for (unsigned l = 0; l < 32; l++) {
        for (unsigned r = 0; r < na; r++)
            f.a[l][r] = (uint32_t)PTX_R(w, ox[nd + r])[l];
        for (unsigned r = 0; r < nb; r++)
            f.b[l][r] = (uint32_t)PTX_R(w, ox[nd + na + r])[l];
        for (unsigned r = 0; r < nc; r++)
            f.c[l][r] = PTX_R(w, ox[nd + na + nb + r])[l];
    }
    uint64_t out[32][4];
    for (unsigned row = 0; row < 16; row++) {
        for (unsigned col = 0; col < 8; col++) {
            unsigned g = row % 8, lane = g * 4 + col / 2, idx = (row / 8) * 2 + col % 2;
            /* c element */
            double cv;
            if (cf32)
                cv = (double)ptx_f((uint32_t)f.c[lane][idx]);
            else
                cv = (double)vkrr_f16_to_f32((uint16_t)(f.c[lane][idx / 2] >> (16 * (idx % 2))));
            uint32_t bits;
            int fmt = df32 ? FMT_F32 : FMT_F16;
            if (fp8) {
                __int128 s = 0;
                int sc = 0;
                bool special = !isfinite(cv);
                for (int k = 0; k < K && !special; k++) {
                    int64_t xa, xb;
                    int sa, sb;
                    if (!fp8_fixed((uint8_t)a_elem(&f, K, true, row, (unsigned)k), ka, &xa, &sa) ||
                        !fp8_fixed((uint8_t)b_elem(&f, K, true, (unsigned)k, col), kb, &xb, &sb)) {
                        special = true;
                        break;
                    }
                    s += (__int128)xa * xb;
                    sc = sa + sb;
                }
                if (special) {
                    double v = 0.0;
                    for (int k = 0; k < K; k++)
                        v += fp8_val((uint8_t)a_elem(&f, K, true, row, (unsigned)k), ka) *
                             fp8_val((uint8_t)b_elem(&f, K, true, (unsigned)k, col), kb);
                    v += cv;
                    bits = vkrr_round_to(v, 0.0, fmt, RND_RN, false);
                } else {
                    /* S * 2^sc exactly as hi + lo, then + c: s + e by TwoSum */
                    double hi = (double)s, lo = (double)(s - (__int128)hi);
                    hi = ldexp(hi, sc);
                    lo = ldexp(lo, sc);
                    double x = hi + cv, bb = x - hi;
                    double e = (hi - (x - bb)) + (cv - bb) + lo;
                    if (x == 0.0 && e == 0.0)
                        x = (s == 0 && signbit(cv)) ? cv : 0.0;
                    bits = vkrr_round_to(x, e, fmt, RND_RN, false);
                }
            } else {
                double v = 0.0;
                for (int k = 0; k < K; k++)
                    v += elem16((uint16_t)a_elem(&f, K, false, row, (unsigned)k), ka) *
                         elem16((uint16_t)b_elem(&f, K, false, (unsigned)k, col), kb);
                v += cv;
                bits = vkrr_round_to(v, 0.0, fmt, RND_RN, false);
            }
            out[lane][idx] = bits;
        }
    }
    for (unsigned r = 0; r < nd; r++) {
        uint64_t *d = PTX_R(w, ox[r]);
        for (unsigned l = 0; l < 32; l++)
            d[l] = df32 ? out[l][r] : (out[l][2 * r] | out[l][2 * r + 1] << 16);
    }
    return 0;
}

/* ---- decoder ---------------------------------------------------------------------- */
static int vec_regs(ptx_dctx *c, const ptx_rop *o, unsigned n, ptx_type t, unsigned field,
                    bool dst)
{
    if (!o || o->kind != RO_VEC || o->n != n)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected a vector of %u registers", n);
    for (unsigned k = 0; k < n; k++) {
        const ptx_rop *e = &c->f->rops[o->first + k];
        if (dst ? ptx_set_dst(c, field + k, e, t, false) : ptx_set_src(c, field + k, e, t, false))
            return -1;
    }
    return 0;
}

static int dec_ldmatrix(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    if (!ptx_take(c, ".sync") || !ptx_take(c, ".aligned") || !ptx_take(c, ".m8n8"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "ldmatrix form (only .sync.aligned.m8n8)");
    int num = ptx_take(c, ".x1") ? 1 : ptx_take(c, ".x2") ? 2 : ptx_take(c, ".x4") ? 4 : 0;
    bool trans = ptx_take(c, ".trans");
    unsigned sp = (ptx_take(c, ".shared") || ptx_take(c, ".shared::cta")) ? SP_SHARED : SP_GENERIC;
    if (!num || !ptx_take(c, ".b16") || ptx_rest_ok(c) < 0 || ptx_nops(c) != 2)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "ldmatrix form");
    const ptx_rop *a = ptx_op(c, 1);
    if (!a || a->kind != RO_MEM || a->n != 1)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected an address");
    const ptx_rop *b = &c->f->rops[a->first];
    in->imm = (uint64_t)a->ival;
    if (b->kind == RO_REG) {
        unsigned bits = ptx_reg_bits(c, b);
        if (ptx_set_src(c, 0, b, bits == 32 ? PT_U32 : PT_U64, false) < 0)
            return -1;
    } else if (ptx_set_src(c, 0, b, PT_U64, false) < 0) {
        return -1;
    }
    if (vec_regs(c, ptx_op(c, 0), (unsigned)num, PT_B32, 1, true) < 0)
        return -1;
    in->a = (uint8_t)num;
    in->b = trans;
    in->d = (uint8_t)sp;
    in->kind = K_SYNC;
    in->target = UINT32_MAX;
    in->fn = x_ldmatrix;
    return 1;
}

int ptx_dec_mma(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (!strcmp(op, "ldmatrix"))
        return dec_ldmatrix(c);
    if (strcmp(op, "mma"))
        return 0;
    if (!ptx_take(c, ".sync") || !ptx_take(c, ".aligned"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mma without .sync.aligned");
    int K = ptx_take(c, ".m16n8k16") ? 16 : ptx_take(c, ".m16n8k8") ? 8 : ptx_take(c, ".m16n8k32") ? 32 : 0;
    if (!K || !ptx_take(c, ".row") || !ptx_take(c, ".col"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mma shape/layout (m16n8k8, m16n8k16 and m16n8k32 .row.col)");
    ptx_type td = ptx_take_type(c), ta = ptx_take_type(c), tb = ptx_take_type(c), tc = ptx_take_type(c);
    if (ptx_rest_ok(c) < 0)
        return -1;
    int ka = ta == PT_F16 ? 0 : ta == PT_BF16 ? 1 : ta == PT_E4M3 ? 2 : ta == PT_E5M2 ? 3 : -1;
    int kb = tb == PT_F16 ? 0 : tb == PT_BF16 ? 1 : tb == PT_E4M3 ? 2 : tb == PT_E5M2 ? 3 : -1;
    bool ok = ka >= 0 && kb >= 0 && (td == PT_F32 || td == PT_F16) && (tc == PT_F32 || tc == PT_F16);
    if (ok && ka >= 2)
        ok = kb >= 2 && K == 32;
    else if (ok)
        ok = ka == kb && K != 32 && (ka == 0 || (td == PT_F32 && tc == PT_F32));
    if (!ok)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mma with these types");
    if (ka >= 2 && c->m->sm && c->m->sm < 89)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "fp8 mma needs sm_89 (.target sm_%u)", c->m->sm);
    bool fp8 = ka >= 2;
    unsigned na = fp8 ? 4 : (K == 16 ? 4 : 2), nb = fp8 ? 2 : (K == 16 ? 2 : 1);
    unsigned nd = td == PT_F32 ? 4 : 2, nc = tc == PT_F32 ? 4 : 2;
    if (ptx_nops(c) != 4)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "mma takes d, a, b, c");
    in->ox = ptx_alloc_ox(c, nd + na + nb + nc);
    if (!in->ox)
        return -1;
    ptx_type td_r = td == PT_F32 ? PT_F32 : PT_B32, tc_r = tc == PT_F32 ? PT_F32 : PT_B32;
    if (vec_regs(c, ptx_op(c, 0), nd, td_r, 8, true) < 0 ||
        vec_regs(c, ptx_op(c, 1), na, PT_B32, 8 + nd, false) < 0 ||
        vec_regs(c, ptx_op(c, 2), nb, PT_B32, 8 + nd + na, false) < 0 ||
        vec_regs(c, ptx_op(c, 3), nc, tc_r, 8 + nd + na + nb, false) < 0)
        return -1;
    in->a = (uint8_t)ka;
    in->b = (uint8_t)kb;
    in->c = td == PT_F32;
    in->d = tc == PT_F32;
    in->e = (uint8_t)K;
    in->kind = K_SYNC;
    in->target = UINT32_MAX;
    in->fn = x_mma;
    return 1;
}
