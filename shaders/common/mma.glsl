// mma.glsl - the e4m3 x e4m3 -> f16-accumulate dot product, one 32-term slice at a time.
//
// The production kernels use mma.sync ...e4m3.e4m3.f16: the products of a
// 32-term slice are exact, their sum is exact, the sum is rounded once to
// f16 (RNE) and added to the f16 accumulator with one more RNE.  Ports run the
// same arithmetic as scalar code, in the order the .cu states.
//
// Two ways to hold a slice, so a port can follow its .cu exactly:
// - VkrrSlice (fixed point): every e4m3 product is an integer multiple of
//   2^-18 and below 2^17.7, so 32 of them sum exactly in an int64 in units of
//   2^-18 (< 2^42).  vkrr_slice_round rounds that exact sum to f16 RNE at the
//   bit level.  This is "exact" whatever the magnitudes.
// - f32: vkrr_mma_prod gives the exact product as f32 (4-bit x 4-bit
//   significands), and a port that sums in f32 in a fixed order does so with
//   `precise` adds (no reassociation, no contraction).  That sum is exact only
//   while the slice's magnitudes span <= 24 bits; use it when the .cu does.
// A NaN operand (0x7f/0xff) makes the slice NaN, as it does on the GPU.
#ifndef VKRR_MMA_GLSL
#define VKRR_MMA_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "e4m3.glsl"

struct VkrrSlice {
    int64_t sum;    // exact, units of 2^-18
    bool nan;
};

VkrrSlice vkrr_slice_begin() { return VkrrSlice(int64_t(0), false); }

// Significand and exponent of an e4m3 magnitude: value = sig * 2^(k - 10).
void vkrr_e4m3_split(uint b, out uint sig, out uint k)
{
    uint e = (b >> 3) & 0xfu;
    uint m = b & 7u;
    sig = e != 0u ? (8u | m) : m;
    k = max(e, 1u);
}

VkrrSlice vkrr_slice_add(VkrrSlice s, uint a, uint b)
{
    if ((a & 0x7fu) == 0x7fu || (b & 0x7fu) == 0x7fu) {
        s.nan = true;
        return s;
    }
    uint sa, ka, sb, kb;
    vkrr_e4m3_split(a, sa, ka);
    vkrr_e4m3_split(b, sb, kb);
    // product = sa*sb * 2^(ka+kb-20) = sa*sb << (ka+kb-2) units of 2^-18
    int64_t p = int64_t(sa * sb) << (ka + kb - 2u);
    s.sum += ((a ^ b) & 0x80u) != 0u ? -p : p;
    return s;
}

// Exact sum -> f16 bits, round to nearest even (an exact zero is +0).
uint vkrr_slice_round(VkrrSlice s)
{
    if (s.nan)
        return VKRR_H_NAN;
    uint sign = s.sum < int64_t(0) ? 0x8000u : 0u;
    uint64_t u = uint64_t(s.sum < int64_t(0) ? -s.sum : s.sum);
    if (u == uint64_t(0))
        return 0u;
    // value = u * 2^-18.  f16 subnormals are multiples of 2^-24, so anything
    // below 2^-14 (u < 16) is exact: bits = u * 64.
    if (u < uint64_t(16))
        return sign | uint(u) * 64u;
    uint hi = uint(u >> 32), lo = uint(u);
    int msb = hi != 0u ? 32 + findMSB(hi) : findMSB(lo);   // value in [2^(msb-18), 2^(msb-17))
    int sh = msb - 10;                                      // keep 11 significant bits
    uint64_t q = u, rem = uint64_t(0), half_ = uint64_t(0);
    if (sh > 0) {
        q = u >> uint(sh);
        rem = u & ((uint64_t(1) << uint(sh)) - uint64_t(1));
        half_ = uint64_t(1) << uint(sh - 1);
    } else {
        q = u << uint(-sh);
    }
    if (rem > half_ || (rem == half_ && half_ != uint64_t(0) && (q & uint64_t(1)) != uint64_t(0)))
        q += uint64_t(1);
    int exp = msb - 18;                 // unbiased exponent of the leading bit
    if (q == uint64_t(2048)) {          // rounding carried into a new binade
        q = uint64_t(1024);
        exp += 1;
    }
    if (exp > 15)
        return sign | VKRR_H_INF;
    return sign | (uint(exp + 15) << 10) | (uint(q) & 0x3ffu);
}

// Exact product of two e4m3 values as f32 (for ports whose .cu sums in f32).
float vkrr_mma_prod(uint a, uint b)
{
    precise float p = vkrr_e4m3_to_f(a) * vkrr_e4m3_to_f(b);
    return p;
}

// acc (f16 bits) + slice (f16 bits) with one RNE: the accumulate step.
uint vkrr_mma_acc(uint acc, uint slice) { return vkrr_hadd(acc, slice); }

#endif
