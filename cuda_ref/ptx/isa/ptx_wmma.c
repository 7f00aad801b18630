/* ptx_wmma.c - wmma.load, wmma.store and wmma.mma (warp-level matrix
 * multiply-accumulate through opaque fragments).
 *
 * Shapes and types, as the PTX ISA gives them for sm_80/sm_89:
 *   .f16 and .bf16  m16n16k16, m32n8k16, m8n32k16 (d and c .f32, or .f16 with .f16)
 *   .tf32           m16n16k8 (d and c .f32)
 *   .s8 and .u8     m16n16k16, m32n8k16, m8n32k16 (d and c .s32, .satfinite)
 *   .s4 and .u4     m8n8k32, .b1 m8n8k128 (.xor.popc, .and.popc) (d and c .s32)
 *   .f64            m8n8k4 (d and c .f64; .rn .rz .rm .rp)
 * with .row/.col layouts, an optional stride (in elements) and .global,
 * .shared or generic addresses.  Each fragment has the register count and
 * element packing the ISA gives it (.f16 a and b: eight .f16x2 registers,
 * whatever the shape; .bf16 m16n16k16 a: four .b32; ...).
 *
 * The ISA leaves which lane holds which element unspecified, so programs
 * only load, store, multiply and change elements independently of where
 * they are.  Here element e of lane l (E elements a lane) is element
 * (l * E + e) mod (rows * cols) of the matrix in row-major order: a fragment
 * with more elements than its matrix (the .f16 ones) holds each several
 * times, and mma reads the first copy.
 *
 * Numerics as mma.sync's: .f16/.bf16/.tf32 as the tensor cores sum
 * (ptx_mma_sum.c), each k-wide dot product as one mma of that k would (k16
 * .f16/.bf16 and k8 .tf32 in two halves on sm_80-sm_89); integers exact, wrapping to
 * s32 (.satfinite: clamped); .b1: c + popc(a op b); .f64 as mma.sync's
 * m8n8k4 .f64 (ptx_mma.c): IEEE fma in k order onto c in the rounding mode,
 * a model (VKRR_STANDIN_DMMA).  The .sp/.k/.sat forms are refused.
 */
#include <math.h>

#include "approx.h"
#include "ptx_internal.h"
#include "ptx_mma_sum.h"

#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

enum { WT_F16, WT_BF16, WT_TF32, WT_S8, WT_U8, WT_S4, WT_U4, WT_B1, WT_F32, WT_S32, WT_F64 };
static const unsigned wt_bits[] = {16, 16, 32, 8, 8, 4, 4, 1, 32, 32, 64};

enum { MAT_A, MAT_B, MAT_C };

static const unsigned shapes[][3] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}, {16, 16, 8},
                                     {8, 8, 32},   {8, 8, 128}, {8, 8, 4}};
static const char *const shape_names[] = {".m16n16k16", ".m32n8k16", ".m8n32k16", ".m16n16k8",
                                          ".m8n8k32",   ".m8n8k128", ".m8n8k4"};
enum { SHAPE_F64 = 6 };

/* One fragment's geometry. */
typedef struct wgeo {
    unsigned rows, cols; /* of its matrix: A M x K, B K x N, C/D M x N */
    unsigned type;       /* WT_* of its elements */
    unsigned regs;       /* registers it takes */
    bool col;            /* .col layout in memory */
} wgeo;

/* elements a register: .f64 ones are 64-bit registers, one element each */
static unsigned per_reg(unsigned type) { return wt_bits[type] >= 32 ? 1u : 32u / wt_bits[type]; }

static wgeo geo(unsigned shape, unsigned mat, unsigned type, bool col)
{
    const unsigned *s = shapes[shape];
    wgeo g = {mat == MAT_B ? s[2] : s[0], mat == MAT_A ? s[2] : s[1], type, 0, col};
    /* the ISA's register counts: .f16 a and b are eight .f16x2 whatever the
     * shape; every other fragment holds its matrix once */
    g.regs = type == WT_F16 && mat != MAT_C ? 8 : g.rows * g.cols / 32 / per_reg(type);
    return g;
}

static unsigned elems_per_lane(const wgeo *g) { return g->regs * per_reg(g->type); }

static uint64_t frag_get(const uint64_t (*regs)[32], const wgeo *g, unsigned lane, unsigned e)
{
    unsigned pr = per_reg(g->type), bits = wt_bits[g->type];
    uint64_t word = regs[e / pr][lane];
    return bits >= 32 ? word : (word >> ((e % pr) * bits)) & ((1u << bits) - 1u);
}

static void frag_set(uint64_t (*regs)[32], const wgeo *g, unsigned lane, unsigned e, uint64_t v)
{
    unsigned pr = per_reg(g->type), bits = wt_bits[g->type];
    if (bits >= 32) {
        regs[e / pr][lane] = v;
        return;
    }
    unsigned sh = (e % pr) * bits;
    uint64_t mask = (uint64_t)((1u << bits) - 1u) << sh;
    regs[e / pr][lane] = (regs[e / pr][lane] & ~mask) | ((v << sh) & mask);
}

/* Fragment registers (slots ox[0..regs)) to the matrix, row-major, each
 * element from its first copy; and back, every copy. */
static void frag_read(ptx_warp *w, const uint32_t *ox, const wgeo *g, uint64_t *mat)
{
    unsigned E = elems_per_lane(g), size = g->rows * g->cols;
    uint64_t regs[8][32];
    uint64_t keep = wt_bits[g->type] == 64 ? UINT64_MAX : UINT32_MAX;
    for (unsigned r = 0; r < g->regs; r++)
        for (unsigned l = 0; l < 32; l++)
            regs[r][l] = PTX_R(w, ox[r])[l] & keep;
    for (unsigned idx = 0; idx < size; idx++)
        mat[idx] = frag_get((const uint64_t(*)[32])regs, g, idx / E, idx % E);
}

static void frag_write(ptx_warp *w, const uint32_t *ox, const wgeo *g, const uint64_t *mat)
{
    unsigned E = elems_per_lane(g), size = g->rows * g->cols;
    uint64_t regs[8][32];
    memset(regs, 0, sizeof regs);
    for (unsigned l = 0; l < 32; l++)
        for (unsigned e = 0; e < E; e++)
            frag_set(regs, g, l, e, mat[(l * E + e) % size]);
    for (unsigned r = 0; r < g->regs; r++) {
        uint64_t *d = PTX_R(w, ox[r]);
        for (unsigned l = 0; l < 32; l++)
            d[l] = regs[r][l];
    }
}

/* load/store: in->a shape, in->b type, in->c matrix, in->d space, in->e .col;
 * o[0] address, o[1] stride (elements), imm offset; ox the fragment */
static wgeo ldst_geo(const ptx_inst *in) { return geo(in->a, in->c, in->b, in->e); }

/* Every lane gives the same address and stride (the ISA: undefined otherwise). */
static int uniform(ptx_warp *w, const ptx_inst *in, uint64_t *addr, uint64_t *stride)
{
    const uint64_t *A = PTX_R(w, in->o[0]), *S = PTX_R(w, in->o[1]);
    for (unsigned l = 1; l < 32; l++)
        if (A[l] != A[0] || (uint32_t)S[l] != (uint32_t)S[0])
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                             "lanes 0 and %u give different addresses or strides (undefined)", l);
    *addr = A[0] + in->imm;
    *stride = (uint32_t)S[0];
    return 0;
}

/* The memory of element (i, j): a host pointer to its byte, *shift its bit there. */
static uint8_t *elem_at(ptx_warp *w, const ptx_inst *in, const wgeo *g, uint64_t base, uint64_t stride,
                        unsigned i, unsigned j, unsigned *shift, bool write)
{
    unsigned bits = wt_bits[g->type], bytes = bits >= 8 ? bits / 8 : 1;
    uint64_t bit = ((g->col ? (uint64_t)j * stride + i : (uint64_t)i * stride + j)) * bits;
    *shift = (unsigned)(bit % 8);
    return ptx_addr(w, in, 0, in->d, base + bit / 8, bytes, bytes, write);
}

/* What load and store start with: the whole warp, its fragment, one address.
 * The outputs are set on the fault paths too: ptx_fault's result is negative,
 * but in another file, so the compiler cannot see that the callers never read
 * them after a fault. */
static int ldst_begin(ptx_warp *w, const ptx_inst *in, uint32_t m, wgeo *g, uint64_t *base, uint64_t *stride)
{
    *g = ldst_geo(in);
    *base = *stride = 0;
    if (m != 0xffffffffu)
        return ptx_fault(w, in, -1, VKRR_ERR_FAULT, "wmma needs all 32 lanes (active 0x%08x)", m);
    return uniform(w, in, base, stride);
}

HANDLER(x_wmma_load)
{
    wgeo g;
    uint64_t base, stride;
    if (ldst_begin(w, in, m, &g, &base, &stride) < 0)
        return -1;
    unsigned bits = wt_bits[g.type];
    uint64_t mat[1024];
    for (unsigned i = 0; i < g.rows; i++)
        for (unsigned j = 0; j < g.cols; j++) {
            unsigned sh;
            const uint8_t *p = elem_at(w, in, &g, base, stride, i, j, &sh, false);
            if (!p)
                return -1;
            uint64_t v = 0;
            memcpy(&v, p, bits >= 8 ? bits / 8 : 1);
            mat[i * g.cols + j] = bits < 8 ? (v >> sh) & ((1u << bits) - 1u) : v;
        }
    frag_write(w, in->ox, &g, mat);
    return 0;
}

HANDLER(x_wmma_store)
{
    wgeo g;
    uint64_t base, stride;
    if (ldst_begin(w, in, m, &g, &base, &stride) < 0)
        return -1;
    uint64_t mat[1024];
    frag_read(w, in->ox, &g, mat);
    unsigned bytes = wt_bits[g.type] / 8;
    for (unsigned i = 0; i < g.rows; i++)
        for (unsigned j = 0; j < g.cols; j++) {
            unsigned sh;
            uint8_t *p = elem_at(w, in, &g, base, stride, i, j, &sh, true);
            if (!p)
                return -1;
            memcpy(p, &mat[i * g.cols + j], bytes);
        }
    return 0;
}

static int64_t ival(uint32_t v, unsigned type)
{
    switch (type) {
    case WT_S8: return (int8_t)(uint8_t)v;
    case WT_S4: return (int64_t)((int32_t)(v << 28) >> 28);
    case WT_S32: return (int32_t)v;
    default: return v;
    }
}

/* The floating-point forms' d, as the tensor cores sum (ptx_mma_sum.c): the
 * whole tile at once, B by column. */
static void wmma_float(const ptx_inst *in, unsigned M, unsigned N, unsigned K, const uint64_t *a,
                       const uint64_t *b, const uint64_t *c, uint64_t *d)
{
    uint32_t a32[32 * 16], bt[32 * 16], c32[256], d32[256];
    for (unsigned e = 0; e < M * K; e++)
        a32[e] = (uint32_t)a[e];
    for (unsigned k = 0; k < K; k++)
        for (unsigned j = 0; j < N; j++)
            bt[j * K + k] = (uint32_t)b[k * N + j];
    for (unsigned e = 0; e < M * N; e++)
        c32[e] = (uint32_t)c[e];
    ptx_dot_type dt = in->b == WT_F16 ? DOT_F16 : in->b == WT_BF16 ? DOT_BF16 : DOT_TF32;
    ptx_dot_arith ar = ptx_dot_arith_current();
    ptx_dot_tile t = {.ta = dt, .tb = dt, .m = M, .n = N, .k = K, .a = a32, .b = bt, .c = c32, .d = d32,
                      .c16 = in->c == WT_F16, .d16 = in->d == WT_F16, .split = K == (in->b == WT_TF32 ? 8u : 16u)};
    ptx_dot_tile_sum(&t, &ar);
    for (unsigned e = 0; e < M * N; e++)
        d[e] = d32[e];
}

/* mma: in->a shape, in->b a/b type, in->c c type, in->d d type, in->e bit 2
 * .satfinite, bit 3 .and.popc (b1); ox: d, a, b, c fragments in that order.
 * Fragments hold their matrices in logical order whatever the layout they
 * were loaded with, so the layouts play no part here. */
HANDLER(x_wmma_mma)
{
    if (m != 0xffffffffu)
        return ptx_fault(w, in, -1, VKRR_ERR_FAULT, "wmma needs all 32 lanes (active 0x%08x)", m);
    wgeo ga = geo(in->a, MAT_A, in->b, false), gb = geo(in->a, MAT_B, in->b, false);
    wgeo gc = geo(in->a, MAT_C, in->c, false), gd = geo(in->a, MAT_C, in->d, false);
    uint64_t a[1024], b[1024], c[256], d[256];
    frag_read(w, in->ox + gd.regs, &ga, a);
    frag_read(w, in->ox + gd.regs + ga.regs, &gb, b);
    frag_read(w, in->ox + gd.regs + ga.regs + gb.regs, &gc, c);
    const unsigned M = shapes[in->a][0], N = shapes[in->a][1], K = shapes[in->a][2];
    const unsigned t = in->b;
    const bool fp = t == WT_F16 || t == WT_BF16 || t == WT_TF32;
    if (fp)
        wmma_float(in, M, N, K, a, b, c, d);
    for (unsigned i = 0; i < M && !fp; i++)
        for (unsigned j = 0; j < N; j++) {
            if (t == WT_F64) { /* the model: fma in k order onto c, in the rounding mode */
                double v = ptx_d(c[i * N + j]);
                int rnd = in->e >> 4;
                for (unsigned k = 0; k < K; k++)
                    v = rnd == RND_RN ? fma(ptx_d(a[i * K + k]), ptx_d(b[k * N + j]), v)
                                      : ptx_f64_op(2, ptx_d(a[i * K + k]), ptx_d(b[k * N + j]), v, rnd);
                d[i * N + j] = ptx_db(v);
            } else if (t == WT_B1) {
                int64_t s = ival((uint32_t)c[i * N + j], WT_S32);
                for (unsigned k = 0; k < K; k++) {
                    unsigned x = (unsigned)a[i * K + k], y = (unsigned)b[k * N + j];
                    s += (in->e & 8u) ? (x & y) : (x ^ y);
                }
                d[i * N + j] = (uint32_t)s;
            } else { /* s8, u8, s4, u4 */
                int64_t s = ival((uint32_t)c[i * N + j], WT_S32);
                for (unsigned k = 0; k < K; k++)
                    s += ival((uint32_t)a[i * K + k], t) * ival((uint32_t)b[k * N + j], t);
                if (in->e & 4u)
                    s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
                d[i * N + j] = (uint32_t)s;
            }
        }
    frag_write(w, in->ox, &gd, d);
    return 0;
}

/* ---- decoder ---------------------------------------------------------------------- */
static const char *const elem_names[] = {".f16", ".bf16", ".tf32", ".s8", ".u8", ".s4", ".u4", ".b1",
                                         ".f32", ".s32", ".f64"};

/* Valid shape for a type: a and b types by their own, c/d types with the a/b one. */
static bool shape_ok(unsigned shape, unsigned t)
{
    switch (t) {
    case WT_F16: case WT_BF16: case WT_S8: case WT_U8: return shape <= 2;
    case WT_TF32: return shape == 3;
    case WT_S4: case WT_U4: return shape == 4;
    case WT_B1: return shape == 5;
    case WT_F64: return shape == SHAPE_F64;
    default: return false;
    }
}

static int take_shape(ptx_dctx *c)
{
    return ptx_take_any(c, shape_names, 7);
}

static int frag_regs(ptx_dctx *c, const ptx_rop *o, const wgeo *g, unsigned field, bool dst)
{
    if (!o || o->kind != RO_VEC || o->n != g->regs)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "this fragment is a vector of %u registers", g->regs);
    ptx_type t = g->type == WT_F32 ? PT_F32 : g->type == WT_S32 ? PT_S32 : g->type == WT_F64 ? PT_F64 : PT_B32;
    for (unsigned k = 0; k < g->regs; k++) {
        const ptx_rop *e = &c->f->rops[o->first + k];
        if (dst ? ptx_set_dst(c, field + k, e, t, false) : ptx_set_src(c, field + k, e, t, false))
            return -1;
    }
    return 0;
}

static void sync_all(ptx_inst *in)
{
    in->kind = K_SYNC;
    in->target = UINT32_MAX;
}

/* wmma.load.{a,b,c} / wmma.store.d */
static int dec_ldst(ptx_dctx *c, bool st)
{
    ptx_inst *in = c->in;
    static const char *const mats[] = {".a", ".b", ".c", ".d"};
    int mat = ptx_take_any(c, mats, 4);
    if (!ptx_take(c, ".sync") || !ptx_take(c, ".aligned") || mat < 0 || (mat == 3) != st)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "this form of wmma.%s", st ? "store" : "load");
    bool col = ptx_take(c, ".col");
    if (!col && !ptx_take(c, ".row"))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "wmma needs .row or .col");
    int shape = take_shape(c);
    unsigned sp = SP_GENERIC;
    if (ptx_take(c, ".global"))
        sp = SP_GLOBAL;
    else if (ptx_take(c, ".shared") || ptx_take(c, ".shared::cta"))
        sp = SP_SHARED;
    int t = ptx_take_any(c, elem_names, 11);
    bool ok = shape >= 0 && t >= 0;
    if (ok && mat <= 1)
        ok = shape_ok((unsigned)shape, (unsigned)t);
    else if (ok)
        ok = (t == WT_F16 && shape <= 2) || (t == WT_F32 && shape <= 3) ||
             (t == WT_S32 && shape != 3 && shape != SHAPE_F64) || (t == WT_F64 && shape == SHAPE_F64);
    if (!ok)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "wmma.%s with this shape and type",
                            st ? "store" : "load");
    if (ptx_rest_ok(c) < 0)
        return -1;
    unsigned n = ptx_nops(c);
    if (n != 2 && n != 3)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "takes a fragment, an address and an optional stride");
    wgeo g = geo((unsigned)shape, mat >= 2 ? MAT_C : (unsigned)mat, (unsigned)t, col);
    const ptx_rop *frag = ptx_op(c, st ? 1 : 0), *a = ptx_op(c, st ? 0 : 1);
    if (!a || a->kind != RO_MEM || a->n != 1)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected an address [...]");
    const ptx_rop *b = &c->f->rops[a->first];
    in->imm = (uint64_t)a->ival;
    unsigned bits = ptx_reg_bits(c, b);
    if (ptx_set_src(c, 0, b, b->kind == RO_REG && bits == 32 ? PT_U32 : PT_U64, false) < 0)
        return -1;
    if (n == 3) {
        if (ptx_set_src(c, 1, ptx_op(c, 2), PT_U32, false) < 0)
            return -1;
    } else {
        int64_t k = ptx_const_slot(c, col ? g.rows : g.cols); /* packed: the leading dimension */
        if (k < 0 || ptx_set_slot(c, 1, k, true, false) < 0)
            return -1;
    }
    in->ox = ptx_alloc_ox(c, g.regs);
    if (!in->ox || frag_regs(c, frag, &g, 8, !st) < 0)
        return -1;
    in->a = (uint8_t)shape;
    in->b = (uint8_t)t;
    in->c = (uint8_t)(mat >= 2 ? MAT_C : mat);
    in->d = (uint8_t)sp;
    in->e = col;
    sync_all(in);
    in->fn = st ? x_wmma_store : x_wmma_load;
    return 1;
}

static int dec_mma(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    bool andpopc = ptx_take(c, ".and"), xorpopc = ptx_take(c, ".xor");
    bool popc = ptx_take(c, ".popc");
    if (!ptx_take(c, ".sync") || !ptx_take(c, ".aligned"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "wmma.mma without .sync.aligned");
    static const char *const lays[] = {".row", ".col"};
    int la = ptx_take_any(c, lays, 2), lb = ptx_take_any(c, lays, 2);
    if (la < 0 || lb < 0)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "wmma.mma needs the layouts of a and b");
    int shape = take_shape(c);
    static const char *const rnds[] = {".rn", ".rz", ".rm", ".rp"};
    static const uint8_t rmode[] = {RND_RN, RND_RZ, RND_RM, RND_RP};
    int rnd = ptx_take_any(c, rnds, 4); /* .f64 only; none: .rn */
    bool satf = ptx_take(c, ".satfinite");
    int ty[4], nt = 0;
    for (int k; nt < 4 && (k = ptx_take_any(c, elem_names, 11)) >= 0;)
        ty[nt++] = k;
    int td = -1, ta = -1, tc = -1;
    if (nt == 2 && ty[0] != WT_S32) { /* .f16: d and c types only */
        td = ty[0];
        tc = ty[1];
        ta = WT_F16;
    } else if (nt == 4 && ty[1] == ty[2]) {
        td = ty[0];
        ta = ty[1];
        tc = ty[3];
    }
    bool intop = ta >= WT_S8 && ta <= WT_B1;
    bool ok = shape >= 0 && ta >= 0 && shape_ok((unsigned)shape, (unsigned)ta) && (popc == (ta == WT_B1)) &&
              (andpopc + xorpopc == (ta == WT_B1)) && (!satf || (intop && ta != WT_B1)) &&
              (rnd < 0 || ta == WT_F64);
    if (ok && ta == WT_F64)
        ok = td == WT_F64 && tc == WT_F64;
    else if (ok && intop)
        ok = td == WT_S32 && tc == WT_S32;
    else if (ok && ta == WT_F16)
        ok = (td == WT_F16 || td == WT_F32) && (tc == WT_F16 || tc == WT_F32);
    else if (ok)
        ok = td == WT_F32 && tc == WT_F32;
    if (!ok)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "wmma.mma with this shape and these types");
    if (ptx_rest_ok(c) < 0)
        return -1;
    if (ta == WT_F64 && c->m->sm && c->m->sm < 80)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "f64 wmma needs sm_80 (.target sm_%u)", c->m->sm);
    if (ptx_nops(c) != 4)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "wmma.mma takes d, a, b, c");
    wgeo gd = geo((unsigned)shape, MAT_C, (unsigned)td, false), ga = geo((unsigned)shape, MAT_A, (unsigned)ta, false);
    wgeo gb = geo((unsigned)shape, MAT_B, (unsigned)ta, false), gc = geo((unsigned)shape, MAT_C, (unsigned)tc, false);
    in->ox = ptx_alloc_ox(c, gd.regs + ga.regs + gb.regs + gc.regs);
    if (!in->ox || frag_regs(c, ptx_op(c, 0), &gd, 8, true) < 0 ||
        frag_regs(c, ptx_op(c, 1), &ga, 8 + gd.regs, false) < 0 ||
        frag_regs(c, ptx_op(c, 2), &gb, 8 + gd.regs + ga.regs, false) < 0 ||
        frag_regs(c, ptx_op(c, 3), &gc, 8 + gd.regs + ga.regs + gb.regs, false) < 0)
        return -1;
    in->a = (uint8_t)shape;
    in->b = (uint8_t)ta;
    in->c = (uint8_t)tc;
    in->d = (uint8_t)td;
    in->e = (uint8_t)((satf ? 4u : 0u) | (andpopc ? 8u : 0u) | (unsigned)rmode[rnd < 0 ? 0 : rnd] << 4);
    if (ta == WT_F64)
        c->f->standins |= VKRR_STANDIN_DMMA; /* rows say the reference is a model here */
    else if (ta == WT_F16 || ta == WT_BF16 || ta == WT_TF32)
        c->f->standins |= VKRR_STANDIN_TCSUM;
    sync_all(in);
    in->fn = x_wmma_mma;
    return 1;
}

int ptx_dec_wmma(ptx_dctx *c)
{
    if (strcmp(c->r->op, "wmma"))
        return 0;
    if (ptx_take(c, ".load"))
        return dec_ldst(c, false);
    if (ptx_take(c, ".store"))
        return dec_ldst(c, true);
    if (ptx_take(c, ".mma"))
        return dec_mma(c);
    return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "this wmma form");
}
