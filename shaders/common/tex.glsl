// tex.glsl - tex2D by hand from texelFetch, with CUDA's filtering and addressing.
//
// A Vulkan sampler filters with the device's own sub-texel precision and
// converts UNORM/SNORM with its own rounding, so ports never sample: they
// fetch texels (texelFetch, no sampler state used) and do what the CUDA
// texture unit does, in the definitions cuda_ref/device/cuda_cpu.h uses for the
// CPU backend:
// - coordinates: unnormalized x, or normalized x * width;
// - point: texel floor(x);
// - a NaN coordinate reads as 0; coordinates are clamped to +-2^24;
// - linear, 4-channel f16 arrays with clamp addressing and unnormalized
//   coordinates: the texture unit's filter as measured on a GPU, the steps of
//   src/hw/texfilter.h in integers (vkrr_tex2d_linear_measured); vkrr_texinfo
//   (bindings.glsl) tells the format and the weights' fraction bits (8 on
//   sm_90; the hardware model's texfilter_bits);
// - linear, anything else (not measured on a GPU): xb = x - 0.5, i =
//   floor(xb), a = frac(xb) quantised to 9-bit fixed point with 8 fractional
//   bits, a = floor(frac * 256 + 0.5) / 256 (round half up, so 1.0 is
//   reachable); result = w00 T00 + w10 T10 + w01 T01 + w11 T11 with
//   w00 = (1-a)(1-b) etc., in f32, in that order, nothing fused (`precise`);
// - addressing on texel indexes per axis: clamp, border (0), and with
//   normalized coordinates wrap and mirror (period 2n); with unnormalized
//   coordinates wrap and mirror act as clamp (CUDA supports only clamp/border).
// - channels a format lacks: texelFetch gives alpha 1, CUDA 0; the rrref
//   kernels never read them (callers must not either).
// - tex1Dfetch on linear memory: vkrr_tex1dfetch (below).
// - UNORM8/SNORM8 contents: the fetched float is turned back into its code
//   and reconverted as code/255 (snorm: max(code/127, -1)) correctly rounded by
//   integer division (vkrr_div_rn), not by the driver's conversion.
// vkrr_tex2d(h, x, y) is tex2D: the sampler state is the one the original
// ran with, from vkrr (bindings.glsl vkrr_texinfo), never a constant in the
// port, so a port is judged on the state of the capture.  The _point and
// _linear forms take the state as arguments, for tests of one path.
#ifndef VKRR_TEX_GLSL
#define VKRR_TEX_GLSL

#include "cuda.glsl"

#define VKRR_WRAP 0
#define VKRR_CLAMP 1
#define VKRR_MIRROR 2
#define VKRR_BORDER 3

// Index i on an axis of n texels under an addressing mode; -1 means border.
int vkrr_tex_address(int i, int n, int mode, bool normalized)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == VKRR_BORDER)
        return -1;
    if (!normalized || mode == VKRR_CLAMP)
        return clamp(i, 0, n - 1);
    if (mode == VKRR_WRAP) {
        int r = i % n;
        return r < 0 ? r + n : r;
    }
    if (mode == VKRR_MIRROR) {
        int p = i % (2 * n);
        if (p < 0)
            p += 2 * n;
        return p < n ? p : 2 * n - 1 - p;
    }
    return (i < 0 || i >= n) ? -1 : i;
}

vec4 vkrr_texel(int h, int i, int j, ivec2 size, bool normalized, int mode_x, int mode_y)
{
    int x = vkrr_tex_address(i, size.x, mode_x, normalized);
    int y = vkrr_tex_address(j, size.y, mode_y, normalized);
    if (x < 0 || y < 0)
        return vec4(0.0);
    return texelFetch(vkrr_tex[h], ivec2(x, y), 0);
}

// cpu_tex_coord: NaN -> 0, then clamped to +-2^24 (safe to floor into an int).
float vkrr_tex_coord(float v)
{
    if ((floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u)
        return 0.0;
    return clamp(v, -16777216.0, 16777216.0);
}

// Point-sampled tex2D<float4>(tex, x, y).
vec4 vkrr_tex2d_point(int h, float x, float y, bool normalized, int mode_x, int mode_y)
{
    ivec2 size = textureSize(vkrr_tex[h], 0);
    precise float fx = vkrr_tex_coord(normalized ? x * float(size.x) : x);
    precise float fy = vkrr_tex_coord(normalized ? y * float(size.y) : y);
    return vkrr_texel(h, int(floor(fx)), int(floor(fy)), size, normalized, mode_x, mode_y);
}

// The q-bit fraction (0..2^q) of a texel-space coordinate, and its texel:
// texfilter.h step 1, in the f32 steps of vkrr_texfilter_fraction_q.
int vkrr_tex_fraction_q(float c, int q, out int texel)
{
    precise float b = c + -0.5;
    float f = floor(b);
    texel = int(f);
    precise float d = b + -f;
    precise float t = d * float(1 << q) + 0.5; // unfused, as __fmul_rn/__fadd_rn
    return int(floor(t));
}

// CUDA's documented 8 bits (the f32 filter, and sm_90's measured one).
int vkrr_tex_fraction(float c, out int texel)
{
    return vkrr_tex_fraction_q(c, 8, texel);
}

// The measured filter's weight fraction bits for slot h: vkrr_texinfo bits
// 23-26 (the hardware model's texfilter_bits, src/hw/texfilter.h); 0 is 8.
int vkrr_tex_bits(int h)
{
    int q = int((vkrr_texinfo[h] >> 23) & 15u);
    return q == 0 ? 8 : q;
}

// True when the measured filter applies (src/hw/texfilter.h).
bool vkrr_tex_measured(int h, bool normalized, int mode_x, int mode_y)
{
    return !normalized && mode_x == VKRR_CLAMP && mode_y == VKRR_CLAMP &&
           (vkrr_texinfo[h] & 0x1ffffu) == (16u | (4u << 8) | (1u << 16));
}

// p / 2^q rounded to nearest even.
int vkrr_tex_rne(int p, int q)
{
    int d = p >> q, r = p & ((1 << q) - 1), h = 1 << (q - 1);
    return d + ((r > h || (r == h && (d & 1) != 0)) ? 1 : 0);
}

// s 2^-F rounded once to f16, ties away from zero (texfilter.h step 5).
float vkrr_tex_round_f16_away(int64_t s, int F)
{
    if (s == int64_t(0))
        return 0.0;
    uint64_t a = uint64_t(s < int64_t(0) ? -s : s);
    uint hi = uint(a >> 32);
    int e = (hi != 0u ? findMSB(hi) + 32 : findMSB(uint(a))) - F;
    float v;
    if (a >= (uint64_t(65520) << uint(F))) {
        v = uintBitsToFloat(0x7f800000u);
    } else {
        int sh = max(e, -14) - 10 + F;    // the f16 ULP at e, in units of 2^-F
        uint64_t q = a >> uint(sh), r = a & ((uint64_t(1) << uint(sh)) - uint64_t(1));
        if (r >= (uint64_t(1) << uint(sh - 1)))
            q += uint64_t(1);
        v = ldexp(float(q), sh - F);
    }
    return s < int64_t(0) ? -v : v;
}

// One channel of the measured filter: texels t (exact f16 values), weights w
// in 2^-q (texfilter.h steps 3-5).
float vkrr_tex_filter_f16(vec4 t, ivec4 w, int q)
{
    int inf = 0;
    bool special = false;
    int e = -1000;
    for (int k = 0; k < 4; k++) {
        if (w[k] == 0)
            continue;
        if (isnan(t[k]) || isinf(t[k])) {
            special = true;
            int sg = isnan(t[k]) ? 2 : (t[k] < 0.0 ? -1 : 1);
            inf = (inf == 0 || inf == sg) ? sg : 2;
        } else if (t[k] != 0.0) {
            e = max(e, int((floatBitsToUint(t[k]) >> 23) & 0xffu) - 127);
        }
    }
    if (special)
        return inf == 2 ? uintBitsToFloat(0x7fc00000u) : (inf > 0 ? 1.0 : -1.0) * uintBitsToFloat(0x7f800000u);
    int sh = e + 10;                       // 2^(E-14) in units of 2^-24
    int64_t s = int64_t(0);
    for (int k = 0; k < 4; k++) {
        if (w[k] == 0)
            continue;
        int64_t x = int64_t(t[k] * 16777216.0); // exact: an f16 is a whole number of 2^-24
        if (sh > 0)
            x = x / (int64_t(1) << uint(sh)) * (int64_t(1) << uint(sh)); // toward zero
        s += int64_t(w[k]) * x;
    }
    return vkrr_tex_round_f16_away(s, 24 + q);
}

// Bilinear tex2D<float4> of a 4-channel f16 array, clamp, unnormalized:
// the GPU's bits (src/hw/texfilter.h).
vec4 vkrr_tex2d_linear_measured(int h, float x, float y)
{
    ivec2 size = textureSize(vkrr_tex[h], 0);
    int i, j;
    int q = vkrr_tex_bits(h), one = 1 << q;
    int a = vkrr_tex_fraction_q(vkrr_tex_coord(x), q, i);
    int b = vkrr_tex_fraction_q(vkrr_tex_coord(y), q, j);
    ivec4 w = ivec4(vkrr_tex_rne((one - a) * (one - b), q), vkrr_tex_rne(a * (one - b), q),
                    vkrr_tex_rne((one - a) * b, q), vkrr_tex_rne(a * b, q));
    vec4 t00 = vkrr_texel(h, i, j, size, false, VKRR_CLAMP, VKRR_CLAMP);
    vec4 t10 = vkrr_texel(h, i + 1, j, size, false, VKRR_CLAMP, VKRR_CLAMP);
    vec4 t01 = vkrr_texel(h, i, j + 1, size, false, VKRR_CLAMP, VKRR_CLAMP);
    vec4 t11 = vkrr_texel(h, i + 1, j + 1, size, false, VKRR_CLAMP, VKRR_CLAMP);
    vec4 r;
    for (int c = 0; c < 4; c++)
        r[c] = vkrr_tex_filter_f16(vec4(t00[c], t10[c], t01[c], t11[c]), w, q);
    return r;
}

// Bilinear tex2D<float4>(tex, x, y).
vec4 vkrr_tex2d_linear(int h, float x, float y, bool normalized, int mode_x, int mode_y)
{
    if (vkrr_tex_measured(h, normalized, mode_x, mode_y))
        return vkrr_tex2d_linear_measured(h, x, y);
    ivec2 size = textureSize(vkrr_tex[h], 0);
    precise float u = normalized ? x * float(size.x) : x;
    precise float v = normalized ? y * float(size.y) : y;
    int i, j;
    int ia = vkrr_tex_fraction(vkrr_tex_coord(u), i);
    int ib = vkrr_tex_fraction(vkrr_tex_coord(v), j);
    precise float a = float(ia) * 0.00390625;
    precise float b = float(ib) * 0.00390625;
    vec4 t00 = vkrr_texel(h, i, j, size, normalized, mode_x, mode_y);
    vec4 t10 = vkrr_texel(h, i + 1, j, size, normalized, mode_x, mode_y);
    vec4 t01 = vkrr_texel(h, i, j + 1, size, normalized, mode_x, mode_y);
    vec4 t11 = vkrr_texel(h, i + 1, j + 1, size, normalized, mode_x, mode_y);
    precise float a1 = 1.0 - a, b1 = 1.0 - b;
    precise vec4 r = (a1 * b1) * t00 + (a * b1) * t10 + (a1 * b) * t01 + (a * b) * t11;
    return r;
}

// tex2D(tex, x, y) with the texture's sampler state as vkrr passes it.
vec4 vkrr_tex2d(int h, float x, float y)
{
    uint info = vkrr_texinfo[h];
    bool normalized = (info & (1u << 18)) != 0u;
    int mode_x = int((info >> 19) & 3u), mode_y = int((info >> 21) & 3u);
    if ((info & (1u << 17)) != 0u)
        return vkrr_tex2d_linear(h, x, y, normalized, mode_x, mode_y);
    return vkrr_tex2d_point(h, x, y, normalized, mode_x, mode_y);
}

// tex.base.2d.v4.f32.s32: the texel at integer (x, y), never filtered, so a
// LINEAR sampler with normalized coordinates still returns it exactly;
// outside the texture the address modes of the sampler apply (cuda_texture.c
// texel_at).
vec4 vkrr_tex2d_int(int h, int x, int y)
{
    uint info = vkrr_texinfo[h];
    bool normalized = (info & (1u << 18)) != 0u;
    int mode_x = int((info >> 19) & 3u), mode_y = int((info >> 21) & 3u);
    return vkrr_texel(h, x, y, textureSize(vkrr_tex[h], 0), normalized, mode_x, mode_y);
}

// tex1Dfetch(tex, i) on a texture over linear memory.  vkbridge holds it as a
// 2D image of rows of VKRR_LINEAR_ROW texels (src/replay/replay.h; one row
// when shorter), the last row zero-padded: texel i is at (i % width, i /
// width).  CUDA reads 0 outside the texture, with no filtering or addressing;
// the padding reads 0 too, so the port needs no count of its own.
vec4 vkrr_tex1dfetch(int h, int i)
{
    ivec2 size = textureSize(vkrr_tex[h], 0);
    if (i < 0 || i >= size.x * size.y)
        return vec4(0.0);
    return texelFetch(vkrr_tex[h], ivec2(i % size.x, i / size.x), 0);
}

uvec4 vkrr_tex1dfetch_u(int h, int i)
{
    ivec2 size = textureSize(vkrr_utex[h], 0);
    if (i < 0 || i >= size.x * size.y)
        return uvec4(0u);
    return texelFetch(vkrr_utex[h], ivec2(i % size.x, i / size.x), 0);
}

// num / den for 0 <= num, 0 < den, both < 2^16, correctly rounded (RNE) f32,
// by integer long division: no driver division or reciprocal is involved.
float vkrr_div_rn(uint num, uint den)
{
    if (num == 0u)
        return 0.0;
    // q = floor(num * 2^k / den) lands in [2^24, 2^26); k is in 10..40.
    int k = 25 - (findMSB(num) - findMSB(den));
    uint64_t sn = uint64_t(num) << uint(k);
    uint64_t q = sn / uint64_t(den);
    bool sticky = (sn % uint64_t(den)) != uint64_t(0);
    int drop = q >= (uint64_t(1) << 25) ? 2 : 1;       // bits below the 24 kept
    uint64_t keep = q >> uint(drop);
    bool guard = ((q >> uint(drop - 1)) & uint64_t(1)) != uint64_t(0);
    sticky = sticky || (drop == 2 && (q & uint64_t(1)) != uint64_t(0));
    if (guard && (sticky || (keep & uint64_t(1)) != uint64_t(0)))
        keep += uint64_t(1);
    int e = 23 + drop - k;                               // exponent of keep's leading bit
    if (keep == (uint64_t(1) << 24)) {
        keep >>= 1;
        e += 1;
    }
    return uintBitsToFloat((uint(e + 127) << 23) | (uint(keep) & 0x7fffffu));
}

// A UNORM8 channel as CUDA reads it (code / 255), from the driver's fetch.
float vkrr_unorm8(float fetched)
{
    uint code = uint(clamp(round(fetched * 255.0), 0.0, 255.0));
    return vkrr_div_rn(code, 255u);
}

// An SNORM8 channel: max(code / 127, -1).
float vkrr_snorm8(float fetched)
{
    int code = int(clamp(round(fetched * 127.0), -128.0, 127.0));
    if (code <= -127)
        return -1.0;
    float m = vkrr_div_rn(uint(abs(code)), 127u);
    return code < 0 ? -m : m;
}

#endif
