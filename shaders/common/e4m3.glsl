// e4m3.glsl - FP8 e4m3 (OCP / __nv_fp8_e4m3) decode and saturating encode, as CUDA does them.
//
// Format: s eeee mmm, bias 7, no infinities; 0x7f/0xff are NaN; the largest
// finite value is 448 (0x7e); subnormals are m * 2^-9.  Every e4m3 value is
// exact in f16 and f32.
//
// Traps handled here:
// - satfinite: cvt.rn.satfinite.e4m3x2.{f32,f16x2} rounds to nearest even and
//   clamps anything beyond +-448 (infinities included) to +-448.  vkrr_e4m3
//   does that with integer operations on the f32 bits (an f16 input is first
//   widened exactly, so one rounding either way).
// - NaN: a NaN input encodes as VKRR_E4M3_NAN (0x7f, sign dropped), as
//   cuda_cpu.h / rrref.h define it; both NaN codes 0x7f and 0xff decode to an
//   f32 NaN and to VKRR_H_NAN as f16 bits.
// - -0 encodes as 0x80 and decodes as -0.
#ifndef VKRR_E4M3_GLSL
#define VKRR_E4M3_GLSL

#include "half.glsl"

#define VKRR_E4M3_NAN 0x7fu
#define VKRR_E4M3_MAX 0x7eu

// e4m3 byte -> exact f32.
float vkrr_e4m3_to_f(uint b)
{
    uint s = (b & 0x80u) << 24;
    uint e = (b >> 3) & 0xfu;
    uint m = b & 7u;
    if ((b & 0x7fu) == 0x7fu)
        return uintBitsToFloat(s | 0x7fc00000u);
    if (e != 0u)
        return uintBitsToFloat(s | ((e + 120u) << 23) | (m << 20));
    if (m == 0u)
        return uintBitsToFloat(s);
    int msb = findMSB(m);                           // 0..2: value = 1.f * 2^(msb-9)
    uint mm = (m << uint(23 - msb)) & 0x7fffffu;
    return uintBitsToFloat(s | (uint(msb + 118) << 23) | mm);
}

// e4m3 byte -> f16 bits (cvt.rn.f16x2.e4m3x2): exact; NaN -> VKRR_H_NAN.
uint vkrr_e4m3_to_h(uint b)
{
    if ((b & 0x7fu) == 0x7fu)
        return VKRR_H_NAN;
    return vkrr_f2h(vkrr_e4m3_to_f(b));
}

// f32 -> e4m3, round to nearest even, saturate to +-448.
uint vkrr_e4m3(float f)
{
    uint x = floatBitsToUint(f);
    uint sign = (x >> 24) & 0x80u;
    uint ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return VKRR_E4M3_NAN;
    if (ax >= 0x43e00000u)            // >= 448 (inf too): satfinite
        return sign | VKRR_E4M3_MAX;
    if (ax >= 0x3c800000u) {          // >= 2^-6: normal e4m3
        uint m = ax - 0x3c000000u;    // rebias 127 -> 7 in place
        m += 0x7ffffu + ((m >> 20) & 1u);
        return sign | (m >> 20);      // below 448, so never reaches 0x7f
    }
    if (ax <= 0x3a800000u)            // <= 2^-10: 0 (2^-10 ties to even 0)
        return sign;
    uint e = ax >> 23;                // 117..120
    uint m = (ax & 0x7fffffu) | 0x800000u;
    uint sh = 141u - e;               // value / 2^-9 = m >> sh, 21..24
    return sign | vkrr_rne_shr(m, sh);
}

// f16 bits -> e4m3 (cvt.rn.satfinite.e4m3x2.f16x2 on one lane).
uint vkrr_e4m3_from_h(uint h) { return vkrr_e4m3(vkrr_h2f(h)); }

#endif
