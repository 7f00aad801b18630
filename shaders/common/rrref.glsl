// rrref.glsl - rrref's parameter blocks and shared numerics for the Vulkan ports.
//
// Mirrors cuda_ref/kernels/rrref.h byte for byte (scalar layout: no padding,
// the offsets in the comments are the ones rrref.h asserts).  Pointer words
// are uint64_t device addresses (wrap with the Vkrr*Ptr types), texture and
// surface words are table indexes (vkrr_handle / vkrr_surf_handle).  Each
// port includes this and declares its block with VKRR_PARAMS(RrrefXParams).
//
// The shared numerics follow rrref_common.cuh step by step; see each helper.
#ifndef VKRR_RRREF_GLSL
#define VKRR_RRREF_GLSL

#include "cuda.glsl"
#include "half.glsl"
#include "e4m3.glsl"
#include "mma.glsl"
#include "math.glsl"

#define RRREF_BLOCK 8
#define RRREF_TILE 16
#define RRREF_C_IN 16
#define RRREF_C_E0 8
#define RRREF_C_E1 16
#define RRREF_C_DEC 8
#define RRREF_FILTER_R 2
#define RRREF_N_TAPS 25
#define RRREF_N_LOGITS 26
#define RRREF_SLICE 32
#define RRREF_K_ENC0 (9 * RRREF_C_IN)
#define RRREF_K_ENC1 (9 * RRREF_C_E0)
#define RRREF_K_DEC0 (9 * (RRREF_C_E1 + RRREF_C_E0))
#define RRREF_K_OUT (9 * RRREF_C_DEC)

struct RrrefExpo0Params {
    uint64_t colour;      //  0 texture
    uint64_t partials;    //  8 f32*
    uint width;           // 16
    uint height;          // 20
    uint tiles_x;         // 24
    uint tiles_y;         // 28
};

struct RrrefExpo1Params {
    uint64_t partials;    //  0 f32*
    uint64_t exposure;    //  8 f32[4]
    uint count;           // 16
    uint pixels;          // 20
    float key;            // 24
    uint pad;             // 28
};

struct RrrefInputParams {
    uint64_t colour;      //  0 texture HALF x4
    uint64_t depth;       //  8 texture FLOAT x1
    uint64_t motion;      // 16 texture HALF x2
    uint64_t albedo;      // 24 texture UNORM_INT8X4
    uint64_t normal;      // 32 texture SNORM_INT8X4
    uint64_t mask;        // 40 texture UNSIGNED_INT8 x1 as normalized float
    uint64_t history;     // 48 texture HALF x4, linear
    uint64_t exposure;    // 56 f32[4]
    uint64_t dst;         // 64 f16 planes
    uint width;           // 72
    uint height;          // 76
};

struct RrrefConvParams {
    uint64_t src;         //  0
    uint64_t skip;        //  8
    uint64_t dst;         // 16
    uint width;           // 24
    uint height;          // 28
    uint src_width;       // 32
    uint src_height;      // 36
    uint64_t weights;     // 40 e4m3 weight image + layer offset
};

struct RrrefDownParams {
    uint64_t src;         //  0 f16
    uint64_t dst;         //  8 e4m3
    uint width;           // 16
    uint height;          // 20
    uint src_width;       // 24
    uint src_height;      // 28
};

struct RrrefTokParams {
    uint64_t enc1;        //  0 f16 [C_E1] half res
    uint64_t down;        //  8 e4m3 [C_E0] half res
    uint64_t tokens;      // 16 surface HALF x4, (width * 8) x height
    uint width;           // 24
    uint height;          // 28
};

struct RrrefUntokParams {
    uint64_t tokens;      //  0 texture HALF x4, point
    uint64_t dst;         //  8 f16 [C_E1] half res
    uint width;           // 16
    uint height;          // 20
};

struct RrrefOutputParams {
    uint64_t src;         //  0 f16 [C_DEC]
    uint64_t colour;      //  8 texture
    uint64_t motion;      // 16 texture
    uint64_t history;     // 24 texture (linear)
    uint64_t out_;        // 32 surface HALF x4 (.cu: out, a GLSL keyword)
    uint64_t weights;     // 40 e4m3
    uint64_t history_out; // 48 surface HALF x4
    uint width;           // 56
    uint height;          // 60
};

// ---- rrref_common.cuh, step by step ----------------------------------------

#define RRREF_K_MAX RRREF_K_DEC0
// The quantised activations of one pixel (the .cu's int ka[K]): value k * 2^-9.
int rr_ka[RRREF_K_MAX];

// rr_e4m3_fixed: code -> k with value k * 2^-9; nan set for 0x7f/0xff.
int rr_e4m3_fixed(uint code, inout bool nan)
{
    uint e = (code >> 3) & 15u, m = code & 7u;
    if (e == 15u && m == 7u) {
        nan = true;
        return 0;
    }
    int k = e == 0u ? int(m) : int((8u + m) << (e - 1u));
    return (code & 0x80u) != 0u ? -k : k;
}

// rr_fixed_to_half: s * 2^-18 rounded once to f16 (same rounding as the slice).
uint rr_fixed_to_half(int64_t s) { return vkrr_slice_round(VkrrSlice(s, false)); }

// rr_conv_channel over rr_ka[0..K): acc = bias; per 32-term slice an exact
// int64 sum, one RNE rounding to f16, one __hadd.  Any NaN -> 0x7fff.
uint rr_conv_channel(bool anan, VkrrE4m3Ptr w, uint wbase, int K, uint bias_code)
{
    bool nan = anan;
    int bk = rr_e4m3_fixed(bias_code, nan);
    uint acc = rr_fixed_to_half(int64_t(bk) << 9);
    for (int k0 = 0; k0 < K; k0 += RRREF_SLICE) {
        int64_t s = int64_t(0);
        int kend = min(k0 + RRREF_SLICE, K);
        for (int k = k0; k < kend; k++)
            s += int64_t(rr_ka[k]) * int64_t(rr_e4m3_fixed(uint(w.v[wbase + uint(k)]), nan));
        acc = vkrr_hadd(acc, rr_fixed_to_half(s));
    }
    return nan ? VKRR_H_NAN : acc;
}

// rr_cubic: t = clamp(x, -2, 2) with CUDA's NaN rules; fmaf((t*t)*t, -1/16, t).
float rr_cubic(float x)
{
    float t = vkrr_fminf(vkrr_fmaxf(x, -2.0), 2.0);
    precise float t2 = t * t;
    precise float t3 = t2 * t;
    return vkrr_fma(t3, -0.0625, t);
}

// rr_log2_poly (positive normal x).
float rr_log2_poly(float x)
{
    uint b = floatBitsToUint(x);
    float e = float(int(b >> 23) - 127);
    precise float t = uintBitsToFloat((b & 0x7fffffu) | 0x3f800000u) + -1.0;
    float p = vkrr_fma(0.25, t, -0.6875);
    p = vkrr_fma(p, t, 1.4375);
    precise float pt = p * t;
    precise float r = e + pt;
    return r;
}

// rr_exp2_poly (v in [-14, 14]).
float rr_exp2_poly(float v)
{
    float n = floor(v);
    precise float f = v + -n;
    float q = vkrr_fma(vkrr_fma(0.34375, f, 0.65625), f, 1.0);
    precise float r = q * uintBitsToFloat(uint(int(n) + 127) << 23);
    return r;
}

int rr_clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// rr_load_f16: channels [0, n) of f16 planes (w x h) at (sx, sy), requantised
// f16 -> e4m3 (satfinite), into rr_ka[k0 ...].
void rr_load_f16(int k0, VkrrF16Ptr planes, uint w, uint h, int n, int sx, int sy, inout bool nan)
{
    uint plane = w * h, i = uint(sy) * w + uint(sx);
    for (int c = 0; c < n; c++)
        rr_ka[k0 + c] = rr_e4m3_fixed(vkrr_e4m3_from_h(uint(planes.v[uint(c) * plane + i])), nan);
}

#endif
