// tensorcore.glsl - one output of an fp8 tensor-core mma, as an NVIDIA GPU's
// tensor cores compute it, bit for bit: mma.sync.aligned.m16n8k32.row.col
// .{f16,f32}.e4m3.e4m3.{f16,f32}, d = c + sum_k a[k] b[k], k = 0..31.
//
// Copy this file into a port that replaces a tensor-core layer.  Everything it
// needs is here and in half.glsl (nothing else of vkrr's), and it reads no
// state but its arguments and four specialisation constants.
//
// What a tensor core does (and a plain "exact sum rounded once" does not):
//  1. Every product a[k] b[k] is exact (4-bit x 4-bit significands).
//  2. The products and c are aligned to the LARGEST exponent among them (a
//     product's exponent is the sum of its factors' exponents, each at least
//     e4m3's least normal one, -6; c's is its own, at least f16's -14).
//  3. Each term is TRUNCATED toward zero to F fraction bits of that largest
//     exponent: bits below 2^(maxe - F) are lost, term by term, before the
//     sum (a term 2^-30 next to a term 2^0 vanishes entirely at F = 25).
//  4. The truncated terms are summed exactly (an adder tree wide enough for
//     them: no rounding inside the sum, so the order of k does not matter).
//  5. The sum is rounded once to d's type: an f16 d to nearest even (Inf past
//     65504), an f32 d toward zero (to 13 fraction bits on sm_89's fp8
//     forms).  A zero result is +0.
//  6. On sm_80-sm_89 the k32 fp8 shape is summed in two halves of k: steps 2-5
//     on k = 0..15 with c, then again on k = 16..31 with the first half's d
//     (rounded to d's type) as the c.
//  7. A NaN among the inputs (e4m3 0x7f/0xff, or c) gives the canonical NaN
//     (f16 0x7fff, f32 0x7fffffff); an infinite c (e4m3 has no Inf) gives
//     that infinity.  A first half whose d overflowed to Inf makes the
//     second half give that Inf (NaN with a NaN code in the second half).
// A port that sums in f32 (or in f16, or exactly) differs from the GPU by a
// few ULP wherever the terms span more than F bits or cancel, and vkrr's
// validate reports exactly that at the launch.
//
// The constants per architecture (MMA-Sim's model, the one vkrr's PTX
// interpreter, JIT and CPU backend use: cuda_ref/ptx/isa/ptx_mma_sum.c):
//
//   model      VKRR_TC_FRAC  VKRR_TC_HALVES  VKRR_TC_ROUNDED  VKRR_TC_D32_FRAC
//   sm_90          25             1               0                23
//   sm_89          13             2               0                13
//   sm_80-sm_88    24             2               0                23
//   sm_75          24             1               0                23
//   before sm_75   23             1               0                23
//   rounded        (any)          (any)           1                (any)
//
// (fp8 mma exists from sm_89; the other rows are the model's arithmetic for
// a capture whose hardware model names that architecture.)  `rounded` is
// vkrr's reference sum without a tensor core: the exact sum of the products
// plus c, rounded once to nearest even.
//
// Which row a port follows is fixed when its pipeline is built: the
// specialisation constants below (ids 5-8) are set from the capture's
// hardware model (vkbridge does it for every port that includes
// bindings.glsl: src/hw/tensorcore.h), so one SPIR-V serves every GPU and the
// driver folds the branches away.  A port may also build a VkrrTcModel
// itself (the test port does; a port with its own interface sets the ids in
// its .port file).
//
// How it is computed: in integers.  An e4m3 factor is m 2^(e - 3), m < 16;
// a product's term at 2^(maxe - F) is (ma mb << (F - 6)) >> (maxe - ea - eb),
// under 2^27, so 32 of them and c sum exactly in an int64.
#ifndef VKRR_TENSORCORE_GLSL
#define VKRR_TENSORCORE_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "half.glsl"

layout(constant_id = 5) const int VKRR_TC_FRAC = 25;
layout(constant_id = 6) const int VKRR_TC_HALVES = 1;
layout(constant_id = 7) const int VKRR_TC_ROUNDED = 0;
layout(constant_id = 8) const int VKRR_TC_D32_FRAC = 23;

struct VkrrTcModel {
    int frac;     // F: fraction bits every term keeps
    int halves;   // 1, or 2: k summed in two halves
    bool rounded; // the exact sum rounded once instead
    int d32_frac; // fraction bits an f32 d keeps (23, or 13 on sm_89)
};

// The model the pipeline was specialised for.
VkrrTcModel vkrr_tc_model()
{
    return VkrrTcModel(VKRR_TC_FRAC, VKRR_TC_HALVES, VKRR_TC_ROUNDED != 0, VKRR_TC_D32_FRAC);
}

#define VKRR_TC_ZERO_EXP (-(1 << 20)) // a zero's exponent: below every other

// A decoded value: (-1)^neg m 2^(e - mb), m = 0 for zero, nan/inf flags.
struct VkrrTcVal {
    int m, e, mb;
    bool neg, nan, inf;
};

// An e4m3 code's significand m (0 for zero and for NaN) and exponent e: the
// value is m 2^(e - 3).  The operands are decoded where they are used, code
// by code from their words, never into arrays: a port on a CPU Vulkan
// (lavapipe) spends its time on arrays of decoded values, not on the sums.
void vkrr_tc_e4m3(uint x, out int m, out int e)
{
    uint ef = (x >> 3) & 0xfu, mant = x & 7u;
    m = (x & 0x7fu) == 0x7fu ? 0 : int(ef != 0u ? (8u | mant) : mant); // e4m3 has no Inf
    e = max(int(ef), 1) - 7;
}

// code k of a row or column held as 8 words of 4 codes (byte 0 the lowest k)
uint vkrr_tc_code(uint w[8], int k) { return (w[k >> 2] >> (8 * (k & 3))) & 0xffu; }

bool vkrr_tc_is_nan(uint x) { return (x & 0x7fu) == 0x7fu; }

// c (or the first half's d): f16 bits (mb 10) or f32 bits (mb 23)
VkrrTcVal vkrr_tc_c(uint x, bool is16)
{
    uint mb = is16 ? 10u : 23u, emax = is16 ? 31u : 255u;
    int bias = is16 ? 15 : 127;
    uint ef = (x >> mb) & emax, mant = x & ((1u << mb) - 1u);
    VkrrTcVal v;
    v.m = int(ef != 0u ? ((1u << mb) | mant) : mant);
    v.e = v.m == 0 ? VKRR_TC_ZERO_EXP : max(int(ef), 1) - bias;
    v.mb = int(mb);
    v.neg = ((x >> (is16 ? 15u : 31u)) & 1u) != 0u;
    v.nan = ef == emax && mant != 0u;
    v.inf = ef == emax && mant == 0u;
    if (v.nan || v.inf)
        v.m = 0, v.e = VKRR_TC_ZERO_EXP;
    return v;
}

int vkrr_tc_msb64(uint64_t m)
{
    uint hi = uint(m >> 32);
    return hi != 0u ? 32 + findMSB(hi) : findMSB(uint(m));
}

// m >> sh rounded to nearest even (sh <= 0: m << -sh, exact)
uint64_t vkrr_tc_shift_rne(uint64_t m, int sh)
{
    if (sh <= 0)
        return m << uint(-sh);
    if (sh >= 64)
        return uint64_t(0);
    uint64_t q = m >> uint(sh), rem = m & ((uint64_t(1) << uint(sh)) - uint64_t(1));
    uint64_t half_ = uint64_t(1) << uint(sh - 1);
    if (rem > half_ || (rem == half_ && (q & uint64_t(1)) != uint64_t(0)))
        q += uint64_t(1);
    return q;
}

// d's bits of s 2^E: f16 to nearest even (Inf past 65504), f32 toward zero
// to d32_frac fraction bits (Inf from 2^128), or to nearest even when rne32
// (the `rounded` model); zero is +0.
uint vkrr_tc_round(int64_t s, int E, bool d16, int d32_frac, bool rne32)
{
    if (s == int64_t(0))
        return 0u;
    uint sign = s < int64_t(0) ? 1u : 0u;
    uint64_t m = uint64_t(s < int64_t(0) ? -s : s);
    int ve = vkrr_tc_msb64(m) + E; // the value's exponent
    if (d16) {
        if (ve > 15)
            return sign << 15 | VKRR_H_INF;
        int ue = max(ve, -14) - 10; // the exponent of its last kept bit
        // a round-up past 65504 carries into 0x7c00: Inf, as it must
        uint bits = (uint(ue + 24) << 10) + uint(vkrr_tc_shift_rne(m, ue - E));
        return bits != 0u ? sign << 15 | bits : 0u;
    }
    if (ve >= 128)
        return sign << 31 | 0x7f800000u;
    int ue = max(ve, -126) - d32_frac, sh = ue - E;
    uint64_t q = rne32 ? vkrr_tc_shift_rne(m, sh)
                       : sh <= 0 ? m << uint(-sh) : sh >= 64 ? uint64_t(0) : m >> uint(sh);
    q <<= uint(23 - d32_frac);
    ue -= 23 - d32_frac;
    // a round-up past the largest f32 carries into 0x7f800000: Inf, as it must
    uint bits = (uint(ue + 149) << 23) + uint(q);
    return bits != 0u ? sign << 31 | bits : 0u;
}

// d of c + sum a[k] b[k], k = k0..k0+n, under the truncating model;
// special: a NaN or Inf among them made it
uint vkrr_tc_fused(uint a[8], uint b[8], int k0, int n, VkrrTcVal c, bool d16, VkrrTcModel md,
                   out bool special)
{
    bool nan = c.nan;
    int maxe = 2 * VKRR_TC_ZERO_EXP; // the largest exponent among the nonzero terms
    for (int k = k0; k < k0 + n; k++) {
        uint x = vkrr_tc_code(a, k), y = vkrr_tc_code(b, k);
        int ma, ea, mb, eb;
        vkrr_tc_e4m3(x, ma, ea);
        vkrr_tc_e4m3(y, mb, eb);
        nan = nan || vkrr_tc_is_nan(x) || vkrr_tc_is_nan(y);
        if (ma != 0 && mb != 0)
            maxe = max(maxe, ea + eb);
    }
    special = nan || c.inf;
    if (nan)
        return d16 ? VKRR_H_NAN : 0x7fffffffu;
    if (c.inf)
        return d16 ? (c.neg ? 0xfc00u : VKRR_H_INF) : (c.neg ? 0xff800000u : 0x7f800000u);
    if (c.m != 0)
        maxe = max(maxe, c.e);
    int lsh = md.frac - 6; // F - e4m3's 3 fraction bits twice
    int64_t s = int64_t(0);
    for (int k = k0; k < k0 + n; k++) {
        uint x = vkrr_tc_code(a, k), y = vkrr_tc_code(b, k);
        int ma, ea, mb, eb;
        vkrr_tc_e4m3(x, ma, ea);
        vkrr_tc_e4m3(y, mb, eb);
        if (ma == 0 || mb == 0)
            continue;
        int r = min(maxe - (ea + eb), 31); // 31: the term (< 2^27) is gone
        int t = (ma * mb << lsh) >> r;     // truncated toward zero
        s += int64_t(((x ^ y) & 0x80u) != 0u ? -t : t);
    }
    if (c.m != 0) { // c's term, truncated the same way
        int sh = c.e - c.mb + md.frac - maxe; // <= F - 10: no overflow
        int64_t v = sh >= 0 ? int64_t(c.m) << uint(sh) : -sh > 62 ? int64_t(0) : int64_t(c.m) >> uint(-sh);
        s += c.neg ? -v : v;
    }
    return vkrr_tc_round(s, maxe - md.frac, d16, md.d32_frac, false);
}

// x 2^ex + y 2^ey (|x|, |y| < 2^48) as s 2^E, |s| < 2^63: exact, or with
// the bits of the smaller operand that fall below 2^(E+1) kept as one sticky
// unit at 2^E (they can only break a tie or an exact result: they lie more
// than 13 bits below the larger operand's top, so no cancellation reaches them)
void vkrr_tc_add2(int64_t x, int ex, int64_t y, int ey, out int64_t s, out int E)
{
    if (y == int64_t(0) || x == int64_t(0)) {
        s = x != int64_t(0) ? x : y;
        E = x != int64_t(0) ? ex : ey;
        return;
    }
    uint64_t ax = uint64_t(abs(x)), ay = uint64_t(abs(y));
    int tx = vkrr_tc_msb64(ax) + ex, ty = vkrr_tc_msb64(ay) + ey;
    if (ty > tx) { // x the larger
        int64_t t = x; x = y; y = t;
        int te = ex; ex = ey; ey = te;
        uint64_t ta = ax; ax = ay; ay = ta;
        tx = ty;
    }
    E = min(ex, max(ey, tx - 60)) - 1; // x at most 61 bits, one more for the sticky unit
    int64_t big = x << uint(ex - E);
    int sh = E - ey;                   // y's shift to 2^E (> 0: bits may drop)
    uint64_t ys = sh <= 0 ? ay << uint(-sh) : sh >= 63 ? uint64_t(0) : ay >> uint(sh);
    bool sticky = sh > 0 && (sh >= 63 || (ay & ((uint64_t(1) << uint(sh)) - uint64_t(1))) != uint64_t(0));
    ys |= sticky ? uint64_t(1) : uint64_t(0); // below 2^(E+1): a unit stands for them
    s = big + (y < int64_t(0) ? -int64_t(ys) : int64_t(ys));
}

// d of the `rounded` model: the exact sum rounded once to nearest even; -0
// only when c is -0 and the products sum to exactly 0.
uint vkrr_tc_rounded(uint a[8], uint b[8], uint cbits, bool c16, bool d16)
{
    VkrrTcVal c = vkrr_tc_c(cbits, c16);
    bool nan = c.nan;
    for (int k = 0; k < 32; k++)
        nan = nan || vkrr_tc_is_nan(vkrr_tc_code(a, k)) || vkrr_tc_is_nan(vkrr_tc_code(b, k));
    if (nan)
        return d16 ? VKRR_H_NAN : 0x7fffffffu;
    if (c.inf)
        return d16 ? (c.neg ? 0xfc00u : VKRR_H_INF) : (c.neg ? 0xff800000u : 0x7f800000u);
    // the products in units of 2^-24: ma mb 2^(ea + eb - 6) is
    // ma mb << (ea + eb + 18), below 2^42 each, 2^47 all
    int64_t p = int64_t(0);
    for (int k = 0; k < 32; k++) {
        uint x = vkrr_tc_code(a, k), y = vkrr_tc_code(b, k);
        int ma, ea, mb, eb;
        vkrr_tc_e4m3(x, ma, ea);
        vkrr_tc_e4m3(y, mb, eb);
        if (ma != 0 && mb != 0) {
            int64_t t = int64_t(ma * mb) << uint(ea + eb + 18);
            p += ((x ^ y) & 0x80u) != 0u ? -t : t;
        }
    }
    int64_t cm = c.neg ? -int64_t(c.m) : int64_t(c.m);
    int64_t s;
    int E;
    vkrr_tc_add2(p, -24, cm, c.m != 0 ? c.e - c.mb : 0, s, E);
    if (s == int64_t(0)) {
        uint negz = c16 ? 0x8000u : 0x80000000u;
        return p == int64_t(0) && cbits == negz ? (d16 ? 0x8000u : 0x80000000u) : 0u;
    }
    return vkrr_tc_round(s, E, d16, 23, true);
}

// One output of mma.sync.aligned.m16n8k32.row.col.{d}.e4m3.e4m3.{c}: a's row
// and b's column as 8 words of 4 e4m3 codes each (k = 4 w + byte, byte 0 the
// lowest, as the fragments' registers hold them), c's bits (f16 in the low 16
// bits when c16), d's bits returned (f16 in the low 16 when d16).  The
// m16n8k32 f16 form has c16 = d16 = true, the f32 form both false.
uint vkrr_tc_dot_e4m3(uint a[8], uint b[8], uint cbits, bool c16, bool d16, VkrrTcModel md)
{
    if (md.rounded)
        return vkrr_tc_rounded(a, b, cbits, c16, d16);
    VkrrTcVal c = vkrr_tc_c(cbits, c16);
    int step = 32 / md.halves;
    uint bits = 0u;
    for (int h = 0; h < md.halves; h++) {
        bool special;
        bits = vkrr_tc_fused(a, b, h * step, step, c, d16, md, special);
        if (special) // a NaN or Inf among this half's inputs ends the sum
            break;
        c = vkrr_tc_c(bits, d16); // the next half's c: this half's d
    }
    return bits;
}

// The f16 form under the pipeline's model: what a port of an
// mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 calls per output.
uint vkrr_tc_mma_e4m3_f16(uint a[8], uint b[8], uint c_h)
{
    return vkrr_tc_dot_e4m3(a, b, c_h, true, true, vkrr_tc_model());
}

#endif
