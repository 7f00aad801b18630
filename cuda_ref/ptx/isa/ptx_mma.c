/* ptx_mma.c - mma.sync and mma.sp (warp-wide matrix multiply-accumulate;
 * ldmatrix and its kin are in ptx_ldmatrix.c, wmma in ptx_wmma.c).
 *
 * mma.sync.aligned, fragments as the PTX ISA lays them out (g = lane / 4,
 * t = lane % 4):
 *   m8n8k4 .f64: A a0 = (g, t); B b0 = (t, g); C/D c0, c1 = (g, 2t+{0,1}) (x_dmma)
 *   m8n8k4 .f16: four products, one a quad pair (x_hmma884 has the layouts)
 *   m16n8k16 .f16/.bf16: A a0..a7 = (g, 2t+{0,1}), (g+8, 2t+{0,1}),
 *     (g, 2t+8+{0,1}), (g+8, 2t+8+{0,1}); B b0..b3 = (2t+{0,1}, g), (2t+8+{0,1}, g)
 *   m16n8k8 .f16/.bf16: A (g, 2t+{0,1}), (g+8, 2t+{0,1}); B (2t+{0,1}, g)
 *   m16n8k32 .e4m3/.e5m2 (sm_89): A a0..a15 = (g, 4t+{0..3}), (g+8, 4t+{0..3}),
 *     (g, 4t+16+{0..3}), (g+8, 4t+16+{0..3}); B b0..b7 = (4t+{0..3}, g),
 *     (4t+16+{0..3}, g)
 *   m16n8k16/m16n8k32 .s8/.u8 (any mix): as the 8-bit float layouts above
 *     (k16: the first two A registers and the first B register)
 *   m16n8k32/k64 .s4/.u4 and m16n8k128/k256 .b1: the same pattern with eight
 *     nibbles or 32 bits a register (A (g, 8t+i) / (g, 32t+i), rows g+8 in the
 *     odd registers, the second half of k in registers 2 and 3)
 *   m8n8k16 .s8/.u8, m8n8k32 .s4/.u4, m8n8k128 .b1: one A and one B register,
 *     A (g, per*t+i), B (per*t+i, g); C/D c0, c1 = (g, 2t+{0,1})
 *   m16n8k8 .tf32: A a0..a3 = (g, t), (g+8, t), (g, t+4), (g+8, t+4); B b0, b1 =
 *     (t, g), (t+4, g); m16n8k4 .tf32: A (g, t), (g+8, t); B (t, g)
 *   C/D: c0..c3 = (g, 2t+{0,1}), (g+8, 2t+{0,1}); .f32/.s32: four registers, .f16:
 *     two f16x2 registers.
 *
 * Numerics: the floating-point forms (.f16, .bf16, .tf32, .e4m3, .e5m2) sum
 * as the hardware model's GPU's tensor cores do (ptx_mma_sum.c: the terms
 * aligned to the largest exponent and truncated to 23-25 fraction bits, the
 * sum rounded toward zero to an f32 d, to nearest to an f16 d; some shapes in
 * two halves of k on sm_80-sm_89); the PTX ISA only says products are exact
 * and the accumulation at least single precision.  .s8/.u8/.s4/.u4/.b1 are
 * exact: d wraps to s32, or with .satfinite is clamped to it.
 */
#include <math.h>

#include "approx.h"
#include "ptx_internal.h"
#include "ptx_mma_sum.h"
#include "ptx_models.h"

#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

/* mma: ox holds d (nd), a (na), b (nb), c (nc) slots in that order;
 * in->a kind of A (MK_*), in->b kind of B, in->c d 32-bit (f32 or s32),
 * in->d c 32-bit, in->e K as 4 << in->e, in->imm bit 0 .satfinite, bit 1 .and.popc (b1),
 * bit 2 M = 8 (the m8n8 integer shapes: C/D c0, c1 only) */
enum { MK_F16, MK_BF16, MK_E4M3, MK_E5M2, MK_S8, MK_U8, MK_TF32, MK_S4, MK_U4, MK_B1 };

static unsigned kind_bits(int kind)
{
    static const unsigned bits[] = {16, 16, 8, 8, 8, 8, 32, 4, 4, 1};
    return bits[kind];
}

/* registers of A and B for a kind and K (16 x K and K x 8 over 32 lanes) */
static unsigned a_regs(int kind, unsigned M, unsigned K) { return M * K / 32 / (32 / kind_bits(kind)); }
static unsigned b_regs(int kind, unsigned K) { return K / 4 / (32 / kind_bits(kind)); }

static int64_t ival(uint32_t v, int kind)
{
    return kind == MK_S8 ? (int8_t)(uint8_t)v : kind == MK_S4 ? (int64_t)((int32_t)(v << 28) >> 28) : (int64_t)v;
}

/* an integer sum's d: wrapped to s32, or with .satfinite clamped to it */
static uint32_t s32_of(int64_t s, bool satf)
{
    if (satf)
        s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
    return (uint32_t)s;
}

/* an mma kind's dot-product type (ptx_mma_sum.c) */
static ptx_dot_type dot_type(int kind)
{
    return kind == MK_F16 ? DOT_F16 : kind == MK_BF16 ? DOT_BF16 : kind == MK_TF32 ? DOT_TF32
         : kind == MK_E4M3 ? DOT_E4M3 : DOT_E5M2;
}

/* element (row, k) of A (16 x K) held by the lane/register layout above, for
 * elements of ew bits: 16 and 8 packed in .b32 registers, 32 (tf32) one a
 * register (a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)) */
typedef struct frag {
    uint32_t a[32][4], b[32][4];
    uint64_t c[32][4];
} frag;

static inline uint32_t a_elem(const frag *f, unsigned ew, unsigned row, unsigned k)
{
    unsigned g = row % 8, hi = row / 8;
    if (ew == 32)
        return f->a[g * 4 + k % 4][hi + 2 * (k / 4)];
    unsigned per = 32 / ew, span = 4 * per; /* k values one register row spans */
    unsigned t = (k % span) / per, reg = hi + (k / span) * 2;
    return (f->a[g * 4 + t][reg] >> (ew * (k % per))) & ((1u << ew) - 1u);
}

static inline uint32_t b_elem(const frag *f, unsigned ew, unsigned k, unsigned col)
{
    if (ew == 32)
        return f->b[col * 4 + k % 4][k / 4];
    unsigned per = 32 / ew, span = 4 * per;
    unsigned t = (k % span) / per, reg = k / span;
    return (f->b[col * 4 + t][reg] >> (ew * (k % per))) & ((1u << ew) - 1u);
}

/* A by row (A[row K + k]) and B by column (B[col K + k]), for the
 * floating-point forms' tile sum; ew a constant in each copy, a_elem's and
 * b_elem's divisions shifts */
static inline __attribute__((always_inline)) void tile_gather_ew(const frag *f, unsigned ew, unsigned M,
                                                                 unsigned K, uint32_t *A, uint32_t *B)
{
    if (ew < 32) { /* packed: each register's elements straight to their places (a_elem, b_elem inverted) */
        unsigned per = 32 / ew, span = 4 * per, mask = (1u << ew) - 1u;
        for (unsigned l = 0; l < 32; l++)
            for (unsigned r = 0; r < 2 * (K / span); r++) {
                unsigned row = l / 4 + 8 * (r % 2), k = (r / 2) * span + (l % 4) * per;
                for (unsigned e = 0; row < M && e < per; e++)
                    A[row * K + k + e] = (f->a[l][r] >> (ew * e)) & mask;
            }
        for (unsigned l = 0; l < 32; l++)
            for (unsigned r = 0; r < K / span; r++)
                for (unsigned e = 0; e < per; e++)
                    B[(l / 4) * K + r * span + (l % 4) * per + e] = (f->b[l][r] >> (ew * e)) & mask;
        return;
    }
    for (unsigned row = 0; row < M; row++)
        for (unsigned k = 0; k < K; k++)
            A[row * K + k] = a_elem(f, ew, row, k);
    for (unsigned col = 0; col < 8; col++)
        for (unsigned k = 0; k < K; k++)
            B[col * K + k] = b_elem(f, ew, k, col);
}

/* Lane l's C elements (its registers' values c[0..3]: .f32 one element a register, .f16 two;
 * element idx at row l / 4 + 8 (idx / 2), column 2 (l % 4) + idx % 2) to C by row, rows under M */
static inline void c_put(uint32_t *C, unsigned M, bool c32, unsigned l, const uint64_t c[4])
{
    unsigned o = (l / 4) * 8 + (l % 4) * 2; /* c0's place; c2's and c3's 8 rows down, when M is 16 */
    C[o] = (uint32_t)c[0];
    C[o + 1] = (uint32_t)(c32 ? c[1] : c[0] >> 16);
    if (M > 8) {
        C[o + 64] = (uint32_t)c[c32 ? 2 : 1];
        C[o + 65] = (uint32_t)(c32 ? c[3] : c[1] >> 16);
    }
}

/* a register's four bytes, low first, to four elements */
static inline void put_bytes(uint8_t *e, uint32_t v)
{
    e[0] = (uint8_t)v; /* (four stores GCC merges into one, on a little-endian host) */
    e[1] = (uint8_t)(v >> 8);
    e[2] = (uint8_t)(v >> 16);
    e[3] = (uint8_t)(v >> 24);
}

static void tile_gather(const frag *f, unsigned ew, unsigned M, unsigned K, uint32_t *A, uint32_t *B)
{
    switch (ew) {
    case 8: tile_gather_ew(f, 8, M, K, A, B); break;
    case 16: tile_gather_ew(f, 16, M, K, A, B); break;
    default: tile_gather_ew(f, 32, M, K, A, B); break;
    }
}

/* The fragments' registers (d's nd slots first in ox, then a, b, c). */
static void frag_load(ptx_warp *w, const uint32_t *ox, unsigned nd, unsigned na, unsigned nb, unsigned nc,
                      frag *f)
{
    for (unsigned l = 0; l < 32; l++) {
        for (unsigned r = 0; r < na; r++)
            f->a[l][r] = (uint32_t)PTX_R(w, ox[nd + r])[l];
        for (unsigned r = 0; r < nb; r++)
            f->b[l][r] = (uint32_t)PTX_R(w, ox[nd + na + r])[l];
        for (unsigned r = 0; r < nc; r++)
            f->c[l][r] = PTX_R(w, ox[nd + na + nb + r])[l];
    }
}

/* D's elements (out[lane][idx], idx as C's c0..c3) into its nd registers:
 * one an element (.f32/.s32), or two f16 a register. */
static void d_store(ptx_warp *w, const uint32_t *ox, unsigned nd, bool d32, const uint64_t (*out)[4])
{
    for (unsigned r = 0; r < nd; r++) {
        uint64_t *d = PTX_R(w, ox[r]);
        for (unsigned l = 0; l < 32; l++)
            d[l] = d32 ? out[l][r] : (out[l][2 * r] | out[l][2 * r + 1] << 16);
    }
}

/* The floating-point forms' D (out[lane][idx], idx as C's c0..c3): as the
 * tensor cores sum (ptx_mma_sum.c), the whole tile at once (fp8 m16n8k32:
 * mma_fp8 instead). */
static void mma_float_tile(const frag *f, int ka, int kb, unsigned M, unsigned K, bool c32, bool d32,
                           uint64_t (*out)[4])
{
    bool fp8 = ka == MK_E4M3 || ka == MK_E5M2;
    uint32_t A[16 * 32], B[8 * 32], C[16 * 8], D[16 * 8]; /* A by row, B by column */
    tile_gather(f, kind_bits(ka), M, K, A, B);
    for (unsigned l = 0; l < 32; l++)
        c_put(C, M, c32, l, f->c[l]);
    ptx_dot_arith ar = ptx_dot_arith_current();
    ptx_dot_tile t = {.ta = dot_type(ka), .tb = dot_type(kb), .m = M, .n = 8, .k = K,
                      .a = A, .b = B, .c = C, .d = D, .c16 = !c32, .d16 = !d32,
                      .split = K == (fp8 ? 32u : ka == MK_TF32 ? 8u : 16u)};
    ptx_dot_tile_sum(&t, &ar);
    for (unsigned l = 0; l < 32; l++)
        for (unsigned idx = 0; idx < 2 * M / 8; idx++)
            out[l][idx] = D[(l / 4 + 8 * (idx / 2)) * 8 + (l % 4) * 2 + idx % 2];
}

/* fp8 m16n8k32 (e4m3/e5m2 A and B, f16 or f32 C and D) straight from the
 * registers, without the frag copy: reg[s] holds operand register s's 32
 * lanes, in in->ox's order (d's nd, a's 4, b's 2, c's nc).  A by row and B
 * by column go to the tile as bytes, a register's four elements side by
 * side (ptx_dot_tile.a8, b8); C is placed by c_put, D as d_store places
 * it.  D is written last: its registers may be any of the others. */
static void mma_fp8(uint64_t *const *reg, int ka, int kb, bool c32, bool d32)
{
    const unsigned nd = d32 ? 4 : 2;
    uint64_t *const *ra = reg + nd, *const *rc = ra + 6; /* (b's two registers: ra[4], ra[5]) */
    uint8_t A[16 * 32], B[8 * 32];
    uint32_t C[16 * 8], D[16 * 8];
    for (unsigned r = 0; r < 6; r++) { /* a register's lanes in turn (A's 4, B's 2): simple strides */
        uint8_t *at = r < 4 ? A + 8 * (r % 2) * 32 + (r / 2) * 16 : B + (r - 4) * 16;
        for (unsigned l = 0; l < 32; l++)
            put_bytes(at + (l / 4) * 32 + (l % 4) * 4, (uint32_t)ra[r][l]);
    }
    for (unsigned l = 0; l < 32; l++)
        c_put(C, 16, c32, l, (const uint64_t[4]){rc[0][l], rc[1][l], c32 ? rc[2][l] : 0, c32 ? rc[3][l] : 0});
    ptx_dot_arith ar = ptx_dot_arith_current();
    ptx_dot_tile t = {.ta = dot_type(ka), .tb = dot_type(kb), .m = 16, .n = 8, .k = 32, .a8 = A, .b8 = B,
                      .c = C, .d = D, .c16 = !c32, .d16 = !d32, .split = true};
    ptx_dot_tile_sum(&t, &ar);
    for (unsigned r = 0; r < nd; r++) {
        const uint32_t *at = D + 8 * 8 * (d32 ? r / 2 : r) + (d32 ? r % 2 : 0);
        for (unsigned l = 0, o = 0; l < 32; l++, o = (l / 4) * 8 + (l % 4) * 2) /* o: lane l's place */
            reg[r][l] = d32 ? at[o] : (at[o] | (uint64_t)at[o + 1] << 16);
    }
}

/* ptx_models.h: the CPU backend's mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16,
 * this handler's own path */
void vkrr_ptx_mma_e4m3_f16(const uint32_t a[32][4], const uint32_t b[32][2], const uint32_t c[32][2],
                           uint32_t d[32][2])
{
    uint64_t regs[10][32]; /* d, a, b, c: a register's lanes side by side */
    uint64_t *reg[10];
    for (unsigned s = 0; s < 10; s++)
        reg[s] = regs[s];
    for (unsigned l = 0; l < 32; l++) {
        for (unsigned r = 0; r < 4; r++)
            regs[2 + r][l] = a[l][r];
        for (unsigned r = 0; r < 2; r++) {
            regs[6 + r][l] = b[l][r];
            regs[8 + r][l] = c[l][r];
        }
    }
    mma_fp8(reg, MK_E4M3, MK_E4M3, false, false);
    for (unsigned i = 0; i < 64; i++)
        d[i / 2][i % 2] = (uint32_t)regs[i % 2][i / 2];
}

HANDLER(x_mma)
{
    if (m != 0xffffffffu)
        return ptx_fault(w, in, -1, VKRR_ERR_FAULT, "mma needs all 32 lanes (active 0x%08x)", m);
    int K = 4 << in->e, ka = in->a, kb = in->b;
    unsigned ea = kind_bits(ka), eb = kind_bits(kb);
    bool integer = ka == MK_S8 || ka == MK_U8 || ka >= MK_S4;
    bool d32 = in->c, c32 = in->d;
    const unsigned M = in->imm & 4u ? 8 : 16;
    unsigned na = a_regs(ka, M, (unsigned)K), nb = b_regs(kb, (unsigned)K);
    unsigned nd = (d32 ? 4 : 2) * M / 16, nc = (c32 ? 4 : 2) * M / 16;
    const uint32_t *ox = in->ox;
    if ((ka == MK_E4M3 || ka == MK_E5M2) && (kb == MK_E4M3 || kb == MK_E5M2) && M == 16 && K == 32) {
        uint64_t *reg[4 + 4 + 2 + 4]; /* d, a, b, c: at most 14 (f32 d and c) */
        for (unsigned s = 0; s < nd + na + nb + nc; s++)
            reg[s] = PTX_R(w, ox[s]);
        mma_fp8(reg, ka, kb, c32, d32);
        return 0;
    }
    frag f;
    frag_load(w, ox, nd, na, nb, nc, &f);
    uint64_t out[32][4];
    uint32_t C[16 * 8];
    if (!integer)
        mma_float_tile(&f, ka, kb, M, (unsigned)K, c32, d32, out);
    for (unsigned l = 0; l < 32 && integer; l++)
        c_put(C, M, c32, l, f.c[l]);
    for (unsigned row = 0; row < M && integer; row++) {
        for (unsigned col = 0; col < 8; col++) { /* exact; s32 wraps, or clamps with .satfinite */
            int64_t s = (int32_t)C[row * 8 + col];
            for (int k = 0; k < K; k++) {
                uint32_t x = a_elem(&f, ea, row, (unsigned)k), y = b_elem(&f, eb, (unsigned)k, col);
                s += ka == MK_B1 ? (int64_t)((in->imm & 2u) ? (x & y) : (x ^ y)) : ival(x, ka) * ival(y, kb);
            }
            out[(row % 8) * 4 + col / 2][(row / 8) * 2 + col % 2] = s32_of(s, in->imm & 1u);
        }
    }
    d_store(w, ox, nd, d32, (const uint64_t(*)[4])out);
    return 0;
}

/* mma.sp (sparse A): .f16/.bf16 m16n8k16 / m16n8k32 (2:4), .tf32 m16n8k8 /
 * m16n8k16 (1:2), .s8/.u8 m16n8k32 / m16n8k64 and .e4m3/.e5m2 m16n8k64
 * (2:4), .s4/.u4 m16n8k64 / m16n8k128 (4:8 in pairs).  A holds the K/2 kept
 * elements of each row in the dense layout of an m16n8k(K/2) A (as the ISA's
 * sparse A tables give it); B, C and D are the dense m16n8kK ones (tf32 k16's
 * B extends the k8 one, b_i at k = t + 4i; 8-bit k64's the k32 one, b_i at
 * k = 4t + i % 4 + 16 (i / 4); 4-bit k128's the k64 one, b_i at k = 8t +
 * i % 8 + 32 (i / 8)).  Metadata (e, one register a lane), four bits a chunk
 * (a row's four columns; a tf32 pair; eight 4-bit columns, four pairs): in a
 * chunk the unit (column; 4-bit: pair of columns) of its first kept element
 * in the low two bits, of its second in the high two (as CUTLASS's
 * host_uncompress reads them; sp_meta says which lane and bits hold a chunk).
 * A tf32 chunk keeps both halves of one element: 0x4 its first, 0xe its
 * second, the only values the ISA defines for tf32.  A chunk naming one unit
 * twice, or a tf32 chunk other than 0x4/0xe, is undefined in the ISA: a
 * fault here.  Numerics: the integer forms exact (d wraps to s32, or
 * .satfinite clamps), the floating-point ones as the dense forms'
 * (ptx_mma_sum.c) over the K/2 kept products, never split in halves.
 * ox: d, a, b, c, then e; in->imm bit 0 .satfinite, in->imm >> 8 sel. */

/* The metadata nibble of row `row`'s chunk `ch` (a chunk: four columns, a
 * tf32 pair of columns, eight 4-bit columns), and in *holder the lane whose register holds it
 * (g = row % 8, h = row / 8).
 *   16-bit halves (f16/bf16; tf32 as pairs of halves), bits 16 h + 4 (ch % 4)
 *   of lane 4g + sel (16 halves a row: f16 k16, tf32 k8) or of lane
 *   4g + 2 sel + ch / 4 (32: f16 k32, tf32 k16): the ISA's text.
 *   8-bit (s8/u8/e4m3/e5m2) and 4-bit (s4/u4), bits 4 (ch % 8) of lane
 *   4g + 2 (sel + ch / 8) + h: a lane holds eight chunks of one row, eight
 *   chunks a row (8-bit k32, 4-bit k64) rows g and g + 8 in lanes 4g + 2 sel
 *   and 4g + 2 sel + 1, sixteen (8-bit k64, 4-bit k128; sel 0) their chunks
 *   0-7 in lanes 4g and 4g + 1 and 8-15 in lanes 4g + 2 and 4g + 3.  The ISA
 *   gives this one only as figures; it is the layout TileLang's sparse GEMM
 *   (run on NVIDIA GPUs in its tests) loads int8 and fp8 metadata in.  The
 *   4-bit forms take it too: a chunk is 32 bits of A either way, their
 *   selector ranges are 8-bit's of the same chunk count (ptxas), and CUTLASS
 *   handles both metadata alike. */
static unsigned sp_meta(const uint32_t *meta, unsigned ew, unsigned halves, unsigned sel, unsigned row,
                        unsigned ch, unsigned *holder)
{
    unsigned g = row % 8, h = row / 8, bit;
    if (ew <= 8) {
        *holder = g * 4 + 2 * (sel + ch / 8) + h;
        bit = 4 * (ch % 8);
    } else {
        *holder = g * 4 + (halves == 32 ? 2 * sel + ch / 4 : sel);
        bit = 16 * h + 4 * (ch % 4);
    }
    return (meta[*holder] >> bit) & 0xfu;
}

HANDLER(x_mma_sp)
{
    if (m != 0xffffffffu)
        return ptx_fault(w, in, -1, VKRR_ERR_FAULT, "mma.sp needs all 32 lanes (active 0x%08x)", m);
    unsigned K = 4u << in->e, ka = in->a, kb = in->b, sel = (unsigned)(in->imm >> 8) & 3u;
    bool d32 = in->c, c32 = in->d, tf32 = ka == MK_TF32;
    bool integer = ka == MK_S8 || ka == MK_U8 || ka == MK_S4 || ka == MK_U4;
    unsigned ew = kind_bits((int)ka), halves = tf32 ? 2 * K : K; /* a row's 16-bit halves */
    unsigned unit = ew == 4 ? 2 : 1; /* the columns a metadata index names (4-bit: a pair) */
    unsigned na = a_regs((int)ka, 16, K / 2), nb = b_regs((int)kb, K), nd = d32 ? 4 : 2, nc = c32 ? 4 : 2;
    const uint32_t *ox = in->ox;
    frag f;
    frag_load(w, ox, nd, na, nb, nc, &f);
    uint32_t meta[32];
    for (unsigned l = 0; l < 32; l++)
        meta[l] = (uint32_t)PTX_R(w, ox[nd + na + nb + nc])[l];
    uint64_t out[32][4];
    ptx_dot_arith ar = ptx_dot_arith_current(); /* B's k differs by row: one sum at a time */
    for (unsigned row = 0; row < 16; row++) {
        for (unsigned col = 0; col < 8; col++) {
            unsigned lane = (row % 8) * 4 + col / 2, idx = (row / 8) * 2 + col % 2;
            ptx_dot d = {.ta = dot_type((int)ka), .tb = dot_type((int)kb), .n = K / 2, .c16 = !c32, .d16 = !d32};
            d.c = c32 ? (uint32_t)f.c[lane][idx] : (uint32_t)(f.c[lane][idx / 2] >> (16 * (idx % 2)));
            int64_t s = (int32_t)d.c;
            for (unsigned kc = 0; kc < K / 2; kc++) {
                unsigned ch = tf32 ? kc : kc / (2 * unit), holder, k;
                unsigned nib = sp_meta(meta, ew, halves, sel, row, ch, &holder);
                if (tf32) {
                    if (nib != 0x4u && nib != 0xeu)
                        return ptx_fault(w, in, (int)holder, VKRR_ERR_FAULT,
                                         "mma.sp .tf32 metadata: row %u, columns %u-%u: 0x%x, not 0x4 "
                                         "or 0xe (undefined in the PTX ISA)", row, 2 * ch, 2 * ch + 1, nib);
                    k = 2 * ch + (nib == 0xeu);
                } else {
                    unsigned cw = 4 * unit, u0 = cw * ch + unit * (nib & 3u); /* the chunk's width, a unit */
                    if ((nib & 3u) == (nib >> 2))
                        return unit == 1 ? ptx_fault(w, in, (int)holder, VKRR_ERR_FAULT,
                                                     "mma.sp metadata: row %u, columns %u-%u name column %u "
                                                     "twice (0x%x; undefined in the PTX ISA)", row, cw * ch,
                                                     cw * ch + cw - 1, u0, nib)
                                         : ptx_fault(w, in, (int)holder, VKRR_ERR_FAULT,
                                                     "mma.sp metadata: row %u, columns %u-%u name columns %u-%u "
                                                     "twice (0x%x; undefined in the PTX ISA)", row, cw * ch,
                                                     cw * ch + cw - 1, u0, u0 + 1, nib);
                    unsigned second = kc / unit % 2; /* the chunk's second kept unit */
                    k = cw * ch + unit * (second ? nib >> 2 : nib & 3u) + kc % unit;
                }
                uint32_t x = a_elem(&f, ew, row, kc), y = b_elem(&f, ew, k, col);
                if (integer) {
                    s += ival(x, (int)ka) * ival(y, (int)kb);
                } else {
                    d.a[kc] = x;
                    d.b[kc] = y;
                }
            }
            out[lane][idx] = integer ? s32_of(s, in->imm & 1u) : ptx_dot_sum_in(&d, &ar);
        }
    }
    d_store(w, ox, nd, d32, (const uint64_t(*)[4])out);
    return 0;
}

/* mma.m8n8k4 .f16 (the sm_70 shape): the warp computes four independent
 * 8x8x4 products, one for each quad pair q = (lane % 16) / 4 (lanes 4q..4q+3,
 * the low group, and 16+4q..16+4q+3, the high group).  With t = lane % 4 and
 * h = 4 for the high group (0 for the low), as the PTX ISA's fragment tables
 * give them:
 *   A (8 x 4), a0..a3 in two f16x2 registers: .row (t + h, i), .col (i + h, t)
 *   B (4 x 8), b0..b3: .row (t, i + h), .col (i, t + h)
 *   C/D .f16, c0..c7 in four f16x2 registers: (t + h, i)
 *   C/D .f32, c0..c7 in eight registers: ((t & 1) + (i & 2) + h, (t & 2) + (i & 1) + (i & 4))
 * Numerics as the other .f16 shapes' (ptx_mma_sum.c), never split.
 * in->a A .col, in->b B .col, in->c d .f32, in->d c .f32; ox: d, a (2), b (2), c. */
static void hmma884_at(unsigned lane, unsigned i, bool f32, unsigned *row, unsigned *col)
{
    unsigned t = lane % 4, h = lane >= 16 ? 4 : 0;
    if (f32) {
        *row = (t & 1u) + (i & 2u) + h;
        *col = (t & 2u) + (i & 1u) + (i & 4u);
    } else {
        *row = t + h;
        *col = i;
    }
}

HANDLER(x_hmma884)
{
    if (m != 0xffffffffu)
        return ptx_fault(w, in, -1, VKRR_ERR_FAULT, "mma needs all 32 lanes (active 0x%08x)", m);
    bool d32 = in->c, c32 = in->d;
    unsigned nd = d32 ? 8 : 4;
    const uint32_t *ox = in->ox;
    uint16_t A[4][8][4], B[4][4][8]; /* per quad pair: A[row][k], B[k][col] */
    uint32_t C[4][8][8]; /* c's bits */
    for (unsigned l = 0; l < 32; l++) {
        unsigned q = (l % 16) / 4, t = l % 4, h = l >= 16 ? 4 : 0;
        for (unsigned i = 0; i < 4; i++) {
            uint16_t a = (uint16_t)(PTX_R(w, ox[nd + i / 2])[l] >> (16 * (i % 2)));
            uint16_t b = (uint16_t)(PTX_R(w, ox[nd + 2 + i / 2])[l] >> (16 * (i % 2)));
            if (in->a)
                A[q][i + h][t] = a;
            else
                A[q][t + h][i] = a;
            if (in->b)
                B[q][i][t + h] = b;
            else
                B[q][t][i + h] = b;
        }
        for (unsigned i = 0; i < 8; i++) {
            unsigned row, col;
            hmma884_at(l, i, c32, &row, &col);
            uint64_t raw = PTX_R(w, ox[nd + 4 + (c32 ? i : i / 2)])[l];
            C[q][row][col] = c32 ? (uint32_t)raw : (uint16_t)(raw >> (16 * (i % 2)));
        }
    }
    uint64_t out[32][8];
    ptx_dot_arith ar = ptx_dot_arith_current();
    for (unsigned l = 0; l < 32; l++) {
        unsigned q = (l % 16) / 4;
        for (unsigned i = 0; i < 8; i++) {
            unsigned row, col;
            hmma884_at(l, i, d32, &row, &col);
            ptx_dot d = {.ta = DOT_F16, .tb = DOT_F16, .n = 4, .c = C[q][row][col], .c16 = !c32, .d16 = !d32};
            for (unsigned k = 0; k < 4; k++) {
                d.a[k] = A[q][row][k];
                d.b[k] = B[q][k][col];
            }
            out[l][i] = ptx_dot_sum_in(&d, &ar);
        }
    }
    for (unsigned r = 0; r < nd; r++) {
        uint64_t *d = PTX_R(w, ox[r]);
        for (unsigned l = 0; l < 32; l++)
            d[l] = d32 ? out[l][r] : (out[l][2 * r] | out[l][2 * r + 1] << 16);
    }
    return 0;
}

/* mma.m8n8k4 .f64 (sm_80): A a0 = (g, t), B b0 = (t, g), C/D c0, c1 = (g, 2t+{0,1})
 * (the PTX ISA's figures for .f64; g = lane / 4, t = lane % 4).  Numerics: the
 * ISA does not say how the four products and c are summed; modelled as IEEE
 * fma in k order onto c, d = fma(a3, b3, fma(a2, b2, fma(a1, b1, fma(a0, b0, c)))),
 * each fma in the instruction's rounding mode (in->c: .rn, .rz, .rm, .rp),
 * an approximation of the hardware wherever the sums round. */
HANDLER(x_dmma)
{
    if (m != 0xffffffffu)
        return ptx_fault(w, in, -1, VKRR_ERR_FAULT, "mma needs all 32 lanes (active 0x%08x)", m);
    const uint32_t *ox = in->ox;
    const uint64_t *A = PTX_R(w, ox[2]), *B = PTX_R(w, ox[3]);
    double out[32][2];
    for (unsigned row = 0; row < 8; row++)
        for (unsigned col = 0; col < 8; col++) {
            unsigned lane = row * 4 + col / 2, i = col % 2;
            double v = ptx_d(PTX_R(w, ox[4 + i])[lane]);
            for (unsigned k = 0; k < 4; k++)
                v = in->c == RND_RN ? fma(ptx_d(A[row * 4 + k]), ptx_d(B[col * 4 + k]), v)
                                    : ptx_f64_op(2, ptx_d(A[row * 4 + k]), ptx_d(B[col * 4 + k]), v, in->c);
            out[lane][i] = v;
        }
    for (unsigned i = 0; i < 2; i++) {
        uint64_t *d = PTX_R(w, ox[i]);
        for (unsigned l = 0; l < 32; l++)
            d[l] = ptx_db(out[l][i]);
    }
    return 0;
}

/* ---- decoder ---------------------------------------------------------------------- */
int ptx_vec_regs(ptx_dctx *c, const ptx_rop *o, unsigned n, ptx_type t, unsigned field, bool dst)
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

/* mma.sync.aligned.m8n8k4.alayout.blayout.dtype.f16.f16.ctype d, a, b, c (x_hmma884) */
static int dec_hmma884(ptx_dctx *c, int la, int lb, ptx_type td)
{
    ptx_inst *in = c->in;
    ptx_type ta = ptx_take_type(c), tb = ptx_take_type(c), tc = ptx_take_type(c);
    if (ptx_rest_ok(c) < 0)
        return -1;
    if (la < 0 || lb < 0 || ta != PT_F16 || tb != PT_F16 || (td != PT_F16 && td != PT_F32) ||
        (tc != PT_F16 && tc != PT_F32))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mma.m8n8k4 other than .f64 and "
                            ".{row,col}.{row,col}.{f16,f32}.f16.f16.{f16,f32}");
    if (td == PT_F16 && tc == PT_F32) /* ptxas: ".dtype must be '.f32' when .ctype is '.f32'" */
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mma.m8n8k4 with .f16 d and .f32 c (ptxas refuses it)");
    if (ptx_nops(c) != 4)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "mma takes d, a, b, c");
    bool d32 = td == PT_F32, c32 = tc == PT_F32;
    unsigned nd = d32 ? 8 : 4, nc = c32 ? 8 : 4;
    in->ox = ptx_alloc_ox(c, nd + 4 + nc);
    if (!in->ox)
        return -1;
    if (ptx_vec_regs(c, ptx_op(c, 0), nd, d32 ? PT_F32 : PT_B32, 8, true) < 0 ||
        ptx_vec_regs(c, ptx_op(c, 1), 2, PT_B32, 8 + nd, false) < 0 ||
        ptx_vec_regs(c, ptx_op(c, 2), 2, PT_B32, 8 + nd + 2, false) < 0 ||
        ptx_vec_regs(c, ptx_op(c, 3), nc, c32 ? PT_F32 : PT_B32, 8 + nd + 4, false) < 0)
        return -1;
    in->a = (uint8_t)la;
    in->b = (uint8_t)lb;
    in->c = d32;
    in->d = c32;
    in->kind = K_SYNC;
    in->target = UINT32_MAX;
    c->f->standins |= VKRR_STANDIN_TCSUM; /* rows say the reference is a model here */
    in->fn = x_hmma884;
    return 1;
}

/* mma.sync.aligned.m8n8k4.alayout.blayout: .row.col{.rn,.rz,.rm,.rp}.f64.f64.f64.f64
 * {d0, d1}, {a0}, {b0}, {c0, c1} (x_dmma), or the .f16 form (dec_hmma884) */
static int dec_m8n8k4(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    static const char *const lay[] = {".row", ".col"};
    int la = ptx_take_any(c, lay, 2), lb = ptx_take_any(c, lay, 2);
    bool rc = la == 0 && lb == 1;
    static const char *const rnd[] = {".rn", ".rz", ".rm", ".rp"};
    static const uint8_t mode[] = {RND_RN, RND_RZ, RND_RM, RND_RP};
    int r = ptx_take_any(c, rnd, 4); /* none: .rn, the default */
    in->c = mode[r < 0 ? 0 : r];
    ptx_type t[4];
    t[0] = ptx_take_type(c);
    if (r < 0 && t[0] != PT_F64)
        return dec_hmma884(c, la, lb, t[0]);
    for (int i = 1; i < 4; i++)
        t[i] = ptx_take_type(c);
    if (ptx_rest_ok(c) < 0)
        return -1;
    if (!rc || t[0] != PT_F64 || t[1] != PT_F64 || t[2] != PT_F64 || t[3] != PT_F64)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED,
                            "mma.m8n8k4 .f64 other than .row.col.f64.f64.f64.f64");
    if (c->m->sm && c->m->sm < 80)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "f64 mma needs sm_80 (.target sm_%u)", c->m->sm);
    if (ptx_nops(c) != 4)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "mma takes d, a, b, c");
    in->ox = ptx_alloc_ox(c, 6);
    if (!in->ox)
        return -1;
    if (ptx_vec_regs(c, ptx_op(c, 0), 2, PT_F64, 8, true) < 0 ||
        ptx_vec_regs(c, ptx_op(c, 1), 1, PT_F64, 10, false) < 0 ||
        ptx_vec_regs(c, ptx_op(c, 2), 1, PT_F64, 11, false) < 0 ||
        ptx_vec_regs(c, ptx_op(c, 3), 2, PT_F64, 12, false) < 0)
        return -1;
    in->kind = K_SYNC;
    in->target = UINT32_MAX;
    in->fn = x_dmma;
    c->f->standins |= VKRR_STANDIN_DMMA; /* rows say the reference is a model here */
    return 1;
}

/* d's type, A's and B's kinds (MK_*; -1 where the type is none) and c's
 * type, from an mma's modifiers: .s4/.u4/.b1 are no types of the type table */
static void take_types(ptx_dctx *c, ptx_type *td, int *ka, int *kb, ptx_type *tc)
{
    static const char *const sub[] = {".s4", ".u4", ".b1"};
    bool subbyte = false;
    for (unsigned i = 0; i < c->r->nmods; i++)
        for (int k = 0; k < 3; k++)
            subbyte |= !strcmp(c->r->mods[i], sub[k]);
    *td = ptx_take_type(c);
    *ka = *kb = -1;
    if (subbyte) {
        int x = ptx_take_any(c, sub, 3), y = ptx_take_any(c, sub, 3);
        if (x >= 0 && y >= 0) {
            *ka = MK_S4 + x;
            *kb = MK_S4 + y;
        }
    } else {
        static const ptx_type kinds[] = {PT_F16, PT_BF16, PT_E4M3, PT_E5M2, PT_S8, PT_U8, PT_TF32};
        ptx_type ta = ptx_take_type(c), tb = ptx_take_type(c);
        for (int k = 0; k < 7; k++) {
            *ka = ta == kinds[k] ? k : *ka;
            *kb = tb == kinds[k] ? k : *kb;
        }
    }
    *tc = ptx_take_type(c);
}

/* an mma's d, a, b and c vectors (operands 0-3) into ox (nd + na + nb + nc
 * slots, and `extra` more after them); an .f16 d or c is f16x2 registers */
static int mma_operands(ptx_dctx *c, unsigned nd, unsigned na, unsigned nb, unsigned nc, ptx_type td,
                        ptx_type tc, unsigned extra)
{
    c->in->ox = ptx_alloc_ox(c, nd + na + nb + nc + extra);
    if (!c->in->ox)
        return -1;
    ptx_type td_r = td == PT_F16 ? PT_B32 : td, tc_r = tc == PT_F16 ? PT_B32 : tc;
    if (ptx_vec_regs(c, ptx_op(c, 0), nd, td_r, 8, true) < 0 ||
        ptx_vec_regs(c, ptx_op(c, 1), na, PT_B32, 8 + nd, false) < 0 ||
        ptx_vec_regs(c, ptx_op(c, 2), nb, PT_B32, 8 + nd + na, false) < 0 ||
        ptx_vec_regs(c, ptx_op(c, 3), nc, tc_r, 8 + nd + na + nb, false) < 0)
        return -1;
    return 0;
}

/* mma.sp{::ordered_metadata}.sync.aligned.SHAPE.row.col{.satfinite}.dtype.atype.btype.ctype
 * d, a, b, c, e, sel (x_mma_sp): .f16/.bf16 m16n8k16/m16n8k32, .tf32
 * m16n8k8/m16n8k16, .s8/.u8 (any mix, s32 accumulators) m16n8k32/m16n8k64,
 * .e4m3/.e5m2 (any mix, sm_89, f32 accumulators) m16n8k64, .s4/.u4 (any
 * mix, s32) m16n8k64/m16n8k128. */
static int dec_mma_sp(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    if (!ptx_take(c, ".sync") || !ptx_take(c, ".aligned"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mma.sp without .sync.aligned");
    static const char *const shapes[] = {".m16n8k8", ".m16n8k16", ".m16n8k32", ".m16n8k64", ".m16n8k128"};
    int sh = ptx_take_any(c, shapes, 5), ka, kb;
    bool rc = ptx_take(c, ".row") && ptx_take(c, ".col"), satf = ptx_take(c, ".satfinite");
    ptx_type td, tc;
    take_types(c, &td, &ka, &kb, &tc);
    unsigned K = sh < 0 ? 0 : 8u << sh;
    bool tf32 = ka == MK_TF32 && kb == MK_TF32, f16s = ka == kb && (ka == MK_F16 || ka == MK_BF16);
    bool int8 = (ka == MK_S8 || ka == MK_U8) && (kb == MK_S8 || kb == MK_U8);
    bool int4 = (ka == MK_S4 || ka == MK_U4) && (kb == MK_S4 || kb == MK_U4);
    bool fp8 = (ka == MK_E4M3 || ka == MK_E5M2) && (kb == MK_E4M3 || kb == MK_E5M2);
    bool shape_ok = tf32 ? K == 8 || K == 16 : f16s ? K == 16 || K == 32 : int8 ? K == 32 || K == 64
                  : int4 ? K == 64 || K == 128 : fp8 && K == 64;
    if (!rc || !shape_ok)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED,
                            "mma.sp other than .row.col m16n8k16/m16n8k32 .f16/.bf16, m16n8k8/m16n8k16 "
                            ".tf32, m16n8k32/m16n8k64 .s8/.u8, m16n8k64/m16n8k128 .s4/.u4 and m16n8k64 "
                            ".e4m3/.e5m2");
    if (ptx_rest_ok(c) < 0)
        return -1;
    bool fl16 = (td == PT_F32 || td == PT_F16) && (tc == PT_F32 || tc == PT_F16);
    bool acc_ok = int8 || int4 ? td == PT_S32 && tc == PT_S32
                : satf ? false
                : fp8  ? td == PT_F32 && tc == PT_F32 /* ptxas: no f16 accumulator on sm_89 */
                : (td == PT_F32 && tc == PT_F32) || (ka == MK_F16 && fl16);
    if (!acc_ok)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mma.sp with these accumulator types");
    if (fp8 && c->m->sm && c->m->sm < 89)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "fp8 mma.sp needs sm_89 (.target sm_%u)", c->m->sm);
    /* the lanes that may hold metadata: one a group of four (sel 0-3), two
     * (sel 0-1) or all four (sel 0) */
    unsigned chunks = tf32 ? K / 2 : int4 ? K / 8 : K / 4, nsel = 16 / chunks; /* of a row; 4 bits each */
    if (ptx_nops(c) != 6)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "mma.sp takes d, a, b, c, e and a sparsity selector");
    const ptx_rop *s = ptx_op(c, 5);
    if (!s || s->kind != RO_INT || s->ival < 0 || s->ival >= (int64_t)nsel)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, nsel == 1 ? "mma.sp's sparsity selector is the constant 0 here"
                            : "mma.sp's sparsity selector is a constant 0-%u here", nsel - 1);
    bool d32 = td != PT_F16, c32 = tc != PT_F16;
    unsigned na = a_regs(ka, 16, K / 2), nb = b_regs(kb, K), nd = d32 ? 4 : 2, nc = c32 ? 4 : 2;
    if (mma_operands(c, nd, na, nb, nc, td, tc, 1) < 0 ||
        ptx_set_src(c, 8 + nd + na + nb + nc, ptx_op(c, 4), PT_B32, false) < 0)
        return -1;
    in->a = (uint8_t)ka;
    in->b = (uint8_t)kb;
    in->c = d32;
    in->d = c32;
    in->e = (uint8_t)(sh + 1); /* K = 4 << e */
    in->imm = (uint64_t)s->ival << 8 | (satf ? 1u : 0u);
    in->kind = K_SYNC;
    in->target = UINT32_MAX;
    if (!int8)
        c->f->standins |= VKRR_STANDIN_TCSUM;
    in->fn = x_mma_sp;
    return 1;
}

int ptx_dec_mma(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (strcmp(op, "mma"))
        return 0;
    if (ptx_take(c, ".sp") || ptx_take(c, ".sp::ordered_metadata"))
        return dec_mma_sp(c);
    if (!ptx_take(c, ".sync") || !ptx_take(c, ".aligned"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mma without .sync.aligned");
    if (ptx_take(c, ".m8n8k4"))
        return dec_m8n8k4(c);
    static const char *const shapes[] = {".m16n8k4",  ".m16n8k8",   ".m16n8k16", ".m16n8k32",
                                         ".m16n8k64", ".m16n8k128", ".m16n8k256"};
    static const char *const shapes8[] = {".m8n8k16", ".m8n8k32", ".m8n8k128"};
    int sh = ptx_take_any(c, shapes, 7), sh8 = sh < 0 ? ptx_take_any(c, shapes8, 3) : -1;
    if (sh8 >= 0)
        sh = sh8 == 0 ? 2 : sh8 == 1 ? 3 : 5; /* k16, k32, k128 */
    const unsigned M = sh8 >= 0 ? 8 : 16;
    int K = sh < 0 ? 0 : 4 << sh;
    if (!K || !ptx_take(c, ".row") || !ptx_take(c, ".col"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mma shape/layout (m16n8k4 to m16n8k256, m8n8k4 "
                            ".f64, m8n8k16, m8n8k32 and m8n8k128 .row.col)");
    bool satf = ptx_take(c, ".satfinite");
    bool andp = ptx_take(c, ".and"), xorp = !andp && ptx_take(c, ".xor");
    bool popc = ptx_take(c, ".popc");
    ptx_type td, tc;
    int ka, kb;
    take_types(c, &td, &ka, &kb, &tc);
    if (ptx_rest_ok(c) < 0)
        return -1;
    bool fl16 = (td == PT_F32 || td == PT_F16) && (tc == PT_F32 || tc == PT_F16);
    bool ok = ka >= 0 && kb >= 0 && (satf == (ka == MK_S8 || ka == MK_U8 || ka == MK_S4 || ka == MK_U4) || !satf);
    ok = ok && popc == (ka == MK_B1) && (andp || xorp) == popc;
    if (!ok) {
    } else if (ka == MK_B1) { /* .and.popc / .xor.popc */
        ok = kb == MK_B1 && (K == 128 || K == 256) && td == PT_S32 && tc == PT_S32;
    } else if (ka == MK_S4 || ka == MK_U4) {
        ok = (kb == MK_S4 || kb == MK_U4) && (K == 32 || K == 64) && td == PT_S32 && tc == PT_S32;
    } else if (ka == MK_S8 || ka == MK_U8) { /* .s8/.u8 in any mix, s32 accumulators */
        ok = (kb == MK_S8 || kb == MK_U8) && (K == 16 || K == 32) && td == PT_S32 && tc == PT_S32;
    } else if (ka == MK_E4M3 || ka == MK_E5M2) {
        ok = (kb == MK_E4M3 || kb == MK_E5M2) && (K == 16 || K == 32) && fl16 && !satf;
    } else if (ka == MK_TF32) {
        ok = kb == MK_TF32 && (K == 4 || K == 8) && td == PT_F32 && tc == PT_F32 && !satf;
    } else {
        ok = ka == kb && (K == 8 || K == 16) && fl16 && (ka == MK_F16 || (td == PT_F32 && tc == PT_F32)) && !satf;
    }
    /* m8n8: s8/u8 k16, s4/u4 k32, b1 k128 only */
    if (ok && M == 8)
        ok = (K == 16 && (ka == MK_S8 || ka == MK_U8)) || (K == 32 && (ka == MK_S4 || ka == MK_U4)) ||
             (K == 128 && ka == MK_B1);
    if (!ok)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "mma with these types and this shape");
    if ((ka == MK_E4M3 || ka == MK_E5M2) && c->m->sm && c->m->sm < 89)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "fp8 mma needs sm_89 (.target sm_%u)", c->m->sm);
    unsigned na = a_regs(ka, M, (unsigned)K), nb = b_regs(kb, (unsigned)K);
    bool d32 = td != PT_F16, c32 = tc != PT_F16;
    unsigned nd = (d32 ? 4 : 2) * M / 16, nc = (c32 ? 4 : 2) * M / 16;
    if (ptx_nops(c) != 4)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "mma takes d, a, b, c");
    if (mma_operands(c, nd, na, nb, nc, td, tc, 0) < 0)
        return -1;
    in->a = (uint8_t)ka;
    in->b = (uint8_t)kb;
    in->c = d32;
    in->d = c32;
    in->e = (uint8_t)sh;
    in->imm = (satf ? 1u : 0u) | (andp ? 2u : 0u) | (M == 8 ? 4u : 0u);
    in->kind = K_SYNC;
    in->target = UINT32_MAX;
    if (ka <= MK_E5M2 || ka == MK_TF32) /* the floating-point forms: a model of their sums */
        c->f->standins |= VKRR_STANDIN_TCSUM;
    in->fn = x_mma;
    return 1;
}
