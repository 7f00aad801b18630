/* ptx_ldmatrix.c - ldmatrix, stmatrix and movmatrix (warp-wide moves of
 * 8 x 8 matrices of b16 between shared memory and the mma fragments' layout).
 *
 * ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared}.b16: lanes 8i..8i+7
 * give the row addresses of matrix i (16-byte rows in shared memory); lane t
 * receives row t/4, columns 2(t%4) and 2(t%4)+1 (lower half = lower column),
 * or with .trans the same elements of the transposed matrix.  stmatrix is its
 * inverse; movmatrix.sync.aligned.m8n8.trans.b16 transposes in registers.
 */
#include "ptx_internal.h"
#include "ptx_models.h"

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

/* stmatrix, ldmatrix's inverse: o[0] address base, in->imm offset, o[1..4]
 * sources; lanes 8i..8i+7 give matrix i's row addresses, lane t holds row
 * t/4, columns 2(t%4) and 2(t%4)+1 (with .trans, those of the transposed
 * matrix: they land in column t/4). */
HANDLER(x_stmatrix)
{
    const uint64_t *A = PTX_R(w, in->o[0]);
    if (m != 0xffffffffu)
        return ptx_fault(w, in, -1, VKRR_ERR_FAULT, "stmatrix needs all 32 lanes (active 0x%08x)", m);
    for (unsigned i = 0; i < in->a; i++) {
        const uint64_t *S = PTX_R(w, in->o[1 + i]);
        uint16_t rows[8][8];
        for (unsigned t = 0; t < 32; t++) {
            unsigned r = t / 4, c0 = 2 * (t % 4);
            uint16_t lo = (uint16_t)S[t], hi = (uint16_t)(S[t] >> 16);
            if (in->b) {
                rows[c0][r] = lo;
                rows[c0 + 1][r] = hi;
            } else {
                rows[r][c0] = lo;
                rows[r][c0 + 1] = hi;
            }
        }
        for (unsigned r = 0; r < 8; r++) {
            unsigned lane = 8 * i + r;
            unsigned char *p = ptx_addr(w, in, (int)lane, in->d, A[lane] + in->imm, 16, 16, true);
            if (!p)
                return -1;
            memcpy(p, rows[r], 16);
        }
    }
    return 0;
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a: an 8 x 8 matrix of b16 held as
 * ldmatrix leaves one (lane t: row t/4, columns 2(t%4) and 2(t%4)+1, lower half
 * the lower column) becomes its transpose in the same layout (ptx_models.h). */
void vkrr_ptx_movmatrix_trans(const uint32_t a[32], uint32_t d[32])
{
    for (unsigned t = 0; t < 32; t++) {
        d[t] = 0;
        for (unsigned i = 0; i < 2; i++) { /* T[t/4][2(t%4)+i] = M[2(t%4)+i][t/4] */
            unsigned r = 2 * (t % 4) + i, c = t / 4;
            uint16_t v = (uint16_t)(a[r * 4 + c / 2] >> (16 * (c % 2)));
            d[t] |= (uint32_t)v << (16 * i);
        }
    }
}

/* o[0] d, o[1] a. */
HANDLER(x_movmatrix)
{
    if (m != 0xffffffffu)
        return ptx_fault(w, in, -1, VKRR_ERR_FAULT, "movmatrix needs all 32 lanes (active 0x%08x)", m);
    const uint64_t *S = PTX_R(w, in->o[1]);
    uint32_t a[32], out[32];
    for (unsigned t = 0; t < 32; t++)
        a[t] = (uint32_t)S[t];
    vkrr_ptx_movmatrix_trans(a, out);
    uint64_t *D = PTX_R(w, in->o[0]);
    for (unsigned t = 0; t < 32; t++)
        D[t] = out[t];
    return 0;
}

/* ---- decoder ---------------------------------------------------------------------- */
/* ldmatrix d, [a] / stmatrix [a], s */
static int dec_ldmatrix(ptx_dctx *c, bool st)
{
    ptx_inst *in = c->in;
    const char *op = st ? "stmatrix" : "ldmatrix";
    if (!ptx_take(c, ".sync") || !ptx_take(c, ".aligned") || !ptx_take(c, ".m8n8"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form (only .sync.aligned.m8n8)", op);
    int num = ptx_take(c, ".x1") ? 1 : ptx_take(c, ".x2") ? 2 : ptx_take(c, ".x4") ? 4 : 0;
    bool trans = ptx_take(c, ".trans");
    unsigned sp = (ptx_take(c, ".shared") || ptx_take(c, ".shared::cta")) ? SP_SHARED : SP_GENERIC;
    if (!num || !ptx_take(c, ".b16") || ptx_rest_ok(c) < 0 || ptx_nops(c) != 2)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form", op);
    const ptx_rop *a = ptx_op(c, st ? 0 : 1);
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
    if (ptx_vec_regs(c, ptx_op(c, st ? 1 : 0), (unsigned)num, PT_B32, 1, !st) < 0)
        return -1;
    in->a = (uint8_t)num;
    in->b = trans;
    in->d = (uint8_t)sp;
    in->kind = K_SYNC;
    in->target = UINT32_MAX;
    in->fn = st ? x_stmatrix : x_ldmatrix;
    return 1;
}

static int dec_movmatrix(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    if (!ptx_take(c, ".sync") || !ptx_take(c, ".aligned") || !ptx_take(c, ".m8n8") ||
        !ptx_take(c, ".trans") || !ptx_take(c, ".b16"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "movmatrix form (only .sync.aligned.m8n8.trans.b16)");
    if (ptx_rest_ok(c) < 0)
        return -1;
    if (ptx_nops(c) != 2)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "movmatrix takes d and a");
    if (ptx_set_dst(c, 0, ptx_op(c, 0), PT_B32, false) < 0 || ptx_set_src(c, 1, ptx_op(c, 1), PT_B32, false) < 0)
        return -1;
    in->kind = K_SYNC;
    in->target = UINT32_MAX;
    in->fn = x_movmatrix;
    return 1;
}

int ptx_dec_ldmatrix(ptx_dctx *c)
{
    const char *op = c->r->op;
    if (!strcmp(op, "ldmatrix") || !strcmp(op, "stmatrix"))
        return dec_ldmatrix(c, op[0] == 's');
    if (!strcmp(op, "movmatrix"))
        return dec_movmatrix(c);
    return 0;
}
