/* ptx_bits.c - bit manipulation: popc, clz, bfind, brev, bfe, bfi, fns, bmsk,
 * szext, lop3, shf, prmt, dp4a, dp2a (semantics as the PTX ISA's pseudo-code
 * gives them). */
#include "ptx_internal.h"

#define A_(i) PTX_R(w, in->o[i])
#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

HANDLER(x_popc32)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, d[l] = (uint32_t)__builtin_popcount((uint32_t)A[l]));
    return 0;
}
HANDLER(x_popc64)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, d[l] = (uint32_t)__builtin_popcountll(A[l]));
    return 0;
}
HANDLER(x_clz32)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, d[l] = (uint32_t)A[l] ? (uint32_t)__builtin_clz((uint32_t)A[l]) : 32u);
    return 0;
}
HANDLER(x_clz64)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, d[l] = A[l] ? (uint32_t)__builtin_clzll(A[l]) : 64u);
    return 0;
}
HANDLER(x_brev32)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, {
        uint32_t v = (uint32_t)A[l], r = 0;
        for (unsigned i = 0; i < 32; i++)
            r |= ((v >> i) & 1u) << (31 - i);
        d[l] = r;
    });
    return 0;
}
HANDLER(x_brev64)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    PTX_LANES(m, {
        uint64_t v = A[l], r = 0;
        for (unsigned i = 0; i < 64; i++)
            r |= ((v >> i) & 1u) << (63 - i);
        d[l] = r;
    });
    return 0;
}

/* bfind: in->a width, in->b signed, in->c .shiftamt */
HANDLER(x_bfind)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1);
    unsigned bits = in->a;
    PTX_LANES(m, {
        uint64_t v = bits == 32 ? (uint32_t)A[l] : A[l];
        if (in->b && ((v >> (bits - 1)) & 1u))
            v = ~v & (bits == 32 ? 0xffffffffull : ~0ull);
        uint32_t r;
        if (!v)
            r = 0xffffffffu;
        else {
            uint32_t pos = 63u - (uint32_t)__builtin_clzll(v);
            r = in->c ? bits - 1u - pos : pos;
        }
        d[l] = r;
    });
    return 0;
}

/* bfe: in->a width, in->b signed */
HANDLER(x_bfe)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);
    unsigned msb = in->a - 1u;
    PTX_LANES(m, {
        uint64_t a = A[l];
        uint32_t pos = (uint32_t)B[l] & 0xffu, len = (uint32_t)C[l] & 0xffu;
        uint64_t sbit = 0;
        if (in->b && len) {
            uint32_t top = pos + len - 1u > msb ? msb : pos + len - 1u;
            sbit = (a >> top) & 1u;
        }
        uint64_t r = 0;
        for (uint32_t i = 0; i <= msb; i++) {
            uint64_t bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1u : sbit;
            r |= bit << i;
        }
        d[l] = r;
    });
    return 0;
}

/* bfi f, a, b, c, d: in->a width */
HANDLER(x_bfi)
{
    uint64_t *f = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3), *D = A_(4);
    unsigned msb = in->a - 1u;
    PTX_LANES(m, {
        uint64_t r = B[l], a = A[l];
        uint32_t pos = (uint32_t)C[l] & 0xffu, len = (uint32_t)D[l] & 0xffu;
        for (uint32_t i = 0; i < len && pos + i <= msb; i++)
            r = (r & ~(1ull << (pos + i))) | (((a >> i) & 1u) << (pos + i));
        f[l] = in->a == 32 ? (uint32_t)r : r;
    });
    return 0;
}

/* fns.b32 d, mask, base, offset: the position of the |offset|-th set bit of
 * mask from bit base on, upwards for offset > 0 and downwards for < 0
 * (offset 0: base itself, if set); 0xffffffff when there is none.  A base
 * over 31 is undefined in the PTX ISA: an error, not a guess. */
HANDLER(x_fns)
{
    uint64_t *d = A_(0);
    const uint64_t *M = A_(1), *B = A_(2), *O = A_(3);
    PTX_LANES(m, {
        uint32_t mask = (uint32_t)M[l], base = (uint32_t)B[l];
        int32_t off = (int32_t)(uint32_t)O[l];
        if (base > 31)
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                             "fns with base %u (above 31: undefined in the PTX ISA)", base);
        uint32_t r = 0xffffffffu;
        if (off == 0) {
            if ((mask >> base) & 1u)
                r = base;
        } else {
            int64_t count = (off > 0 ? (int64_t)off : -(int64_t)off) - 1;
            for (int32_t pos = (int32_t)base; pos >= 0 && pos < 32; pos += off > 0 ? 1 : -1)
                if ((mask >> pos) & 1u) {
                    if (count == 0) {
                        r = (uint32_t)pos;
                        break;
                    }
                    count--;
                }
        }
        d[l] = r;
    });
    return 0;
}

/* bmsk.mode.b32 d, a, b: b bits set from bit a; in->a 1 wrap */
HANDLER(x_bmsk)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2);
    PTX_LANES(m, {
        uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
        if (in->a) {
            a &= 31u;
            b &= 31u;
        } else {
            a = a > 32 ? 32 : a;
            b = b > 32 ? 32 : b;
        }
        uint64_t mask = (b >= 32 ? 0xffffffffull : ((1ull << b) - 1u)) << a;
        d[l] = (uint32_t)mask;
    });
    return 0;
}

/* szext.mode.type d, a, b: extend the low b bits of a; in->a wrap, in->b signed */
HANDLER(x_szext)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2);
    PTX_LANES(m, {
        uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
        b = in->a ? b & 31u : (b > 32 ? 32 : b);
        uint32_t r;
        if (b == 0)
            r = 0;
        else if (b >= 32)
            r = a;
        else {
            r = a & ((1u << b) - 1u);
            if (in->b && ((r >> (b - 1)) & 1u))
                r |= ~((1u << b) - 1u);
        }
        d[l] = r;
    });
    return 0;
}

/* lop3.b32 d, a, b, c, lut (in->imm) */
HANDLER(x_lop3)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);
    uint32_t lut = (uint32_t)in->imm;
    PTX_LANES(m, {
        uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l], r = 0;
        for (unsigned k = 0; k < 8; k++)
            if ((lut >> k) & 1u)
                r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
        d[l] = r;
    });
    return 0;
}

/* shf.{l,r}.{clamp,wrap}.b32: in->a 1 right, in->b 1 wrap */
HANDLER(x_shf)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);
    PTX_LANES(m, {
        uint64_t v = ((uint64_t)(uint32_t)B[l] << 32) | (uint32_t)A[l];
        uint32_t n = (uint32_t)C[l];
        n = in->b ? n & 31u : (n > 32 ? 32 : n);
        d[l] = in->a ? (uint32_t)(v >> n) : (uint32_t)((v << n) >> 32);
    });
    return 0;
}

/* prmt.b32{.mode} d, a, b, c: in->a mode 0 generic 1 f4e 2 b4e 3 rc8 4 ecl 5 ecr 6 rc16 */
HANDLER(x_prmt)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);
    unsigned mode = in->a;
    PTX_LANES(m, {
        uint64_t t = ((uint64_t)(uint32_t)B[l] << 32) | (uint32_t)A[l];
        uint32_t c = (uint32_t)C[l], r = 0;
        for (unsigned i = 0; i < 4; i++) {
            unsigned sel, byte;
            uint32_t c2 = c & 3u;
            switch (mode) {
            case 0: {
                unsigned ctl = (c >> (4 * i)) & 0xfu;
                byte = (unsigned)(t >> (8 * (ctl & 7u))) & 0xffu;
                if (ctl & 8u)
                    byte = (byte & 0x80u) ? 0xffu : 0u;
                r |= (uint32_t)byte << (8 * i);
                continue;
            }
            case 1: sel = c2 + i; break;
            case 2: sel = (c2 - i) & 7u; break;
            case 3: sel = c2; break;
            case 4: sel = i > c2 ? i : c2; break;
            case 5: sel = i < c2 ? i : c2; break;
            default: sel = (c2 & 1u) * 2u + (i & 1u); break;
            }
            byte = (unsigned)(t >> (8 * sel)) & 0xffu;
            r |= (uint32_t)byte << (8 * i);
        }
        d[l] = r;
    });
    return 0;
}

/* dp4a: in->a a signed, in->b b signed; dp2a: in->c 1 dp2a, in->d 1 .hi */
HANDLER(x_dp)
{
    uint64_t *d = A_(0);
    const uint64_t *A = A_(1), *B = A_(2), *C = A_(3);
    PTX_LANES(m, {
        uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
        uint32_t acc = (uint32_t)C[l];
        if (!in->c) {
            for (unsigned i = 0; i < 4; i++) {
                int32_t va = in->a ? (int8_t)(a >> (8 * i)) : (int32_t)((a >> (8 * i)) & 0xffu);
                int32_t vb = in->b ? (int8_t)(b >> (8 * i)) : (int32_t)((b >> (8 * i)) & 0xffu);
                acc += (uint32_t)(va * vb);
            }
        } else {
            for (unsigned i = 0; i < 2; i++) {
                int32_t va = in->a ? (int16_t)(a >> (16 * i)) : (int32_t)((a >> (16 * i)) & 0xffffu);
                unsigned bi = (in->d ? 2u : 0u) + i;
                int32_t vb = in->b ? (int8_t)(b >> (8 * bi)) : (int32_t)((b >> (8 * bi)) & 0xffu);
                acc += (uint32_t)((int64_t)va * vb);
            }
        }
        d[l] = acc;
    });
    return 0;
}

/* ---- decoder ---------------------------------------------------------------------- */
static int ops(ptx_dctx *c, unsigned n, ptx_type td, const ptx_type *ts)
{
    if (ptx_nops(c) != n)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "takes %u operands, has %u", n, ptx_nops(c));
    if (ptx_set_dst(c, 0, ptx_op(c, 0), td, false) < 0)
        return -1;
    for (unsigned i = 1; i < n; i++)
        if (ptx_set_src(c, i, ptx_op(c, i), ts[i - 1], false) < 0)
            return -1;
    return 0;
}

int ptx_dec_bits(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (!strcmp(op, "popc") || !strcmp(op, "clz") || !strcmp(op, "brev")) {
        ptx_type t = ptx_take_type(c);
        if (t != PT_B32 && t != PT_B64)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s on %s", op, ptx_type_name(t));
        bool b64 = t == PT_B64, brev = op[0] == 'b';
        ptx_type s[1] = {t};
        if (ops(c, 2, brev ? t : PT_U32, s) < 0)
            return -1;
        in->fn = op[0] == 'p' ? (b64 ? x_popc64 : x_popc32)
                 : op[0] == 'c' ? (b64 ? x_clz64 : x_clz32)
                                : (b64 ? x_brev64 : x_brev32);
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "bfind")) {
        in->c = ptx_take(c, ".shiftamt");
        ptx_type t = ptx_take_type(c);
        if (t != PT_U32 && t != PT_S32 && t != PT_U64 && t != PT_S64)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "bfind on %s", ptx_type_name(t));
        ptx_type s[1] = {t};
        if (ops(c, 2, PT_U32, s) < 0)
            return -1;
        in->a = (uint8_t)ptx_type_bits(t);
        in->b = ptx_type_is_signed(t);
        in->fn = x_bfind;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "bfe")) {
        ptx_type t = ptx_take_type(c);
        if (t != PT_U32 && t != PT_S32 && t != PT_U64 && t != PT_S64)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "bfe on %s", ptx_type_name(t));
        ptx_type s[3] = {t, PT_U32, PT_U32};
        if (ops(c, 4, t, s) < 0)
            return -1;
        in->a = (uint8_t)ptx_type_bits(t);
        in->b = ptx_type_is_signed(t);
        in->fn = x_bfe;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "bfi")) {
        ptx_type t = ptx_take_type(c);
        if (t != PT_B32 && t != PT_B64)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "bfi on %s", ptx_type_name(t));
        ptx_type s[4] = {t, t, PT_U32, PT_U32};
        if (ops(c, 5, t, s) < 0)
            return -1;
        in->a = (uint8_t)ptx_type_bits(t);
        in->fn = x_bfi;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "fns")) {
        ptx_type t = ptx_take_type(c);
        ptx_type s[3] = {PT_B32, PT_B32, PT_S32};
        if (t != PT_B32)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "fns on %s", ptx_type_name(t));
        if (ops(c, 4, PT_B32, s) < 0)
            return -1;
        in->fn = x_fns;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "bmsk") || !strcmp(op, "szext")) {
        bool wrap = ptx_take(c, ".wrap"), clamp = !wrap && ptx_take(c, ".clamp");
        ptx_type t = ptx_take_type(c);
        bool sz = op[0] == 's';
        if ((!wrap && !clamp) || (sz ? (t != PT_U32 && t != PT_S32) : t != PT_B32))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form", op);
        ptx_type s[2] = {sz ? t : PT_U32, PT_U32};
        if (ops(c, 3, t, s) < 0)
            return -1;
        in->a = wrap;
        in->b = t == PT_S32;
        in->fn = sz ? x_szext : x_bmsk;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "lop3")) {
        ptx_type t = ptx_take_type(c);
        const ptx_rop *lut = ptx_op(c, 4);
        if (t != PT_B32 || ptx_nops(c) != 5 || !lut || lut->kind != RO_INT || lut->ival < 0 ||
            lut->ival > 255)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "lop3 form (an immediate LUT, .b32)");
        ptx_type s[3] = {t, t, t};
        if (ptx_set_dst(c, 0, ptx_op(c, 0), t, false) < 0)
            return -1;
        for (unsigned i = 1; i < 4; i++)
            if (ptx_set_src(c, i, ptx_op(c, i), s[i - 1], false) < 0)
                return -1;
        in->imm = (uint64_t)lut->ival;
        in->fn = x_lop3;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "shf")) {
        bool r = ptx_take(c, ".r"), l = !r && ptx_take(c, ".l");
        bool wrap = ptx_take(c, ".wrap"), clamp = !wrap && ptx_take(c, ".clamp");
        ptx_type t = ptx_take_type(c);
        if ((!r && !l) || (!wrap && !clamp) || (t != PT_B32 && t != PT_U32 && t != PT_S32))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "shf form");
        ptx_type s[3] = {PT_B32, PT_B32, PT_U32};
        if (ops(c, 4, PT_B32, s) < 0)
            return -1;
        in->a = r;
        in->b = wrap;
        in->fn = x_shf;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "prmt")) {
        static const char *const modes[] = {".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"};
        int md = ptx_take_any(c, modes, 6);
        ptx_type t = ptx_take_type(c);
        if (t != PT_B32)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "prmt on %s", ptx_type_name(t));
        ptx_type s[3] = {PT_B32, PT_B32, PT_B32};
        if (ops(c, 4, PT_B32, s) < 0)
            return -1;
        in->a = (uint8_t)(md + 1);
        in->fn = x_prmt;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "dp4a") || !strcmp(op, "dp2a")) {
        bool two = op[2] == '2';
        if (two) {
            bool hi = ptx_take(c, ".hi"), lo = !hi && ptx_take(c, ".lo");
            if (!hi && !lo)
                return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "dp2a needs .lo or .hi");
            in->d = hi;
        }
        ptx_type ta = ptx_take_type(c), tb = ptx_take_type(c);
        if ((ta != PT_U32 && ta != PT_S32) || (tb != PT_U32 && tb != PT_S32))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s types", op);
        ptx_type td = ta == PT_U32 && tb == PT_U32 ? PT_U32 : PT_S32;
        ptx_type s[3] = {PT_B32, PT_B32, td};
        if (ops(c, 4, td, s) < 0)
            return -1;
        in->a = ta == PT_S32;
        in->b = tb == PT_S32;
        in->c = two;
        in->fn = x_dp;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    return 0;
}
