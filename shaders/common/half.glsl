// half.glsl - f16 exactly as CUDA's cuda_fp16 does it, with no trust in the shader compiler.
//
// f16 values travel as their 16 bits in a uint ("h") or as the exact f32 value
// of those bits ("float holding an f16").  Never as float16_t: a compiler may
// fold an f32->f16->f32 round trip away, a driver may convert with another
// rounding, and float16_t(literal) may be folded with the wrong rounding.
//
// Traps handled here:
// - __float2half_rn: vkrr_f2h rounds to nearest even with integer operations
//   on the f32 bits, so nothing can fold, truncate or flush it.  Overflow
//   (|x| >= 65520) gives +-inf; f16 subnormals are produced exactly; NaN
//   becomes VKRR_H_NAN (CUDA's canonical 0x7fff), sign dropped.
// - __half2float: vkrr_h2f builds the f32 bits directly (subnormals included).
// - __hadd/__hsub/__hmul: computed in f32, then rounded once to f16.  For f16
//   operands this is the correctly rounded f16 result: + - * of two f16 values
//   is exact or needs one rounding, and f32's 24 bits >= 2*11+2 make rounding
//   f32 then f16 innocuous (double rounding cannot differ).
// - literals: VKRR_HBITS(0x3c00u) is the bits; vkrr_h2f(bits) the value.
#ifndef VKRR_HALF_GLSL
#define VKRR_HALF_GLSL

#define VKRR_H_NAN 0x7fffu
#define VKRR_H_INF 0x7c00u

// m >> sh (1 <= sh <= 31) rounded to nearest even: the subnormal step of
// every narrowing conversion here (f16, e4m3).
uint vkrr_rne_shr(uint m, uint sh)
{
    uint q = m >> sh;
    uint rem = m & ((1u << sh) - 1u);
    uint half_ = 1u << (sh - 1u);
    if (rem > half_ || (rem == half_ && (q & 1u) != 0u))
        q += 1u;
    return q;
}

// f32 -> f16 bits, round to nearest even.
uint vkrr_f2h(float f)
{
    uint x = floatBitsToUint(f);
    uint sign = (x >> 16) & 0x8000u;
    uint ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return VKRR_H_NAN;
    if (ax >= 0x477ff000u)            // >= 65520: rounds to inf (ties-to-even past 65504)
        return sign | VKRR_H_INF;
    if (ax >= 0x38800000u) {          // >= 2^-14: normal f16
        uint m = ax - 0x38000000u;    // rebias 127 -> 15 in place
        m += 0xfffu + ((m >> 13) & 1u);
        return sign | (m >> 13);      // a carry moves into the exponent, as it must
    }
    if (ax <= 0x33000000u)            // <= 2^-25: 0 (2^-25 itself ties to even 0)
        return sign;
    // subnormal: value / 2^-24 rounded to an integer
    uint e = ax >> 23;                // 102..112
    uint m = (ax & 0x7fffffu) | 0x800000u;
    uint sh = 126u - e;               // 14..24
    return sign | vkrr_rne_shr(m, sh);
}

// f16 bits -> exact f32.
float vkrr_h2f(uint h)
{
    uint s = (h & 0x8000u) << 16;
    uint e = (h >> 10) & 0x1fu;
    uint m = h & 0x3ffu;
    if (e == 31u)
        return uintBitsToFloat(s | 0x7f800000u | (m << 13));
    if (e != 0u)
        return uintBitsToFloat(s | ((e + 112u) << 23) | (m << 13));
    if (m == 0u)
        return uintBitsToFloat(s);
    int msb = findMSB(m);                       // 0..9: value = 1.f * 2^(msb-24)
    uint mm = (m << uint(23 - msb)) & 0x7fffffu;
    return uintBitsToFloat(s | (uint(msb + 103) << 23) | mm);
}

// The f16 nearest to x, as an f32 (an f32->f16->f32 round trip that stays).
float vkrr_round_h(float x) { return vkrr_h2f(vkrr_f2h(x)); }

uint vkrr_hadd(uint a, uint b) { precise float s = vkrr_h2f(a) + vkrr_h2f(b); return vkrr_f2h(s); }
uint vkrr_hsub(uint a, uint b) { precise float s = vkrr_h2f(a) - vkrr_h2f(b); return vkrr_f2h(s); }
uint vkrr_hmul(uint a, uint b) { precise float s = vkrr_h2f(a) * vkrr_h2f(b); return vkrr_f2h(s); }
uint vkrr_hneg(uint a) { return a ^ 0x8000u; }

// Two f16 bit patterns <-> one uint (low = x), as CUDA's __half2 lays them out.
uint vkrr_pack_h2(uint lo, uint hi) { return (lo & 0xffffu) | (hi << 16); }

#define VKRR_HBITS(b) (uint(b))

#endif
