#version 460
// rrref's `down` and `enc1` (cuda_ref/kernels/rrref_conv.cu) fused into one
// pass, written the way a fast production port is written, not for vkrr: no
// vkrr header, its own interface (cuda_dldn_rrref_down_kernel.port maps it
// onto the capture's two launches).
//
//   set 0: 0 enc0's 8 f16 planes (full resolution), a view into the arena
//          1 enc1's e4m3 weights (16 x 72) and biases (16)
//          2 down's e4m3 planes (half resolution), written for the layers
//            after enc1 that read them (the attention block's tokens)
//          3 enc1's 16 f16 planes (half resolution)
//   push constants: the half-resolution size and enc0's
//   local size: 16 x 16 (the descriptor's `workgroup`), not CUDA's 8 x 8
//   block, over a grid of its own
//
// One invocation per half-resolution pixel computes the 2x2 means its 3x3
// window needs itself (9 of them, recomputed by each neighbour rather than
// passed through memory: no barrier, no intermediate buffer) and enc1's 16
// outputs from them.  The arithmetic is rrref's, step for step, so the
// outputs are CUDA's bits: the means summed in f32 in rrref's order and
// rounded f16 then e4m3 (satfinite); each conv channel as exact 32-term
// slices (int64, units of 2^-18) each rounded once into an f16 accumulator.
// Conversions are done on the bits: GLSL leaves packHalf2x16's rounding and
// NaNs to the implementation.  The RMS norm's rsqrt.approx.ftz is NVIDIA's,
// from a small table at the end of this file: GLSL's inversesqrt is the device's,
// and one f32 ULP of it is one f16 ULP of enc1 now and then, which the
// layers after it quantise to e4m3 and carry (README: "why a table").
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Enc0 { uint enc0[]; };    // f16 pairs
layout(set = 0, binding = 1, std430) readonly buffer Weights { uint weights[]; }; // e4m3 x 4
layout(set = 0, binding = 2, std430) coherent buffer Down { uint down[]; };     // e4m3 x 4
layout(set = 0, binding = 3, std430) coherent buffer Enc1 { uint enc1[]; };     // f16 pairs
layout(push_constant, std430) uniform Sizes {
    uint width, height;          // enc1's output, the half resolution
    uint down_width, down_height; // down's planes (enc1's source)
    uint src_width, src_height;  // enc0's planes
} sz;

const int C_E0 = 8;            // enc0 / down channels
const int C_E1 = 16;           // enc1 channels
const int K = 9 * C_E0;        // conv inputs per channel
const int SLICE = 32;          // terms summed exactly before each f16 rounding
const uint H_NAN = 0x7fffu;    // CUDA's NaN, as f16 bits

// ---- f16 and e4m3 on the bits ------------------------------------------------

float h2f(uint h)
{
    uint s = (h & 0x8000u) << 16, e = (h >> 10) & 31u, m = h & 0x3ffu;
    if (e == 31u)
        return uintBitsToFloat(s | 0x7f800000u | (m << 13));
    if (e != 0u)
        return uintBitsToFloat(s | ((e + 112u) << 23) | (m << 13));
    return (s != 0u ? -1.0 : 1.0) * float(m) * (1.0 / 16777216.0);  // exact
}

// f32 -> f16 bits, nearest even; NaN -> H_NAN, overflow -> inf.
uint f2h(float f)
{
    uint x = floatBitsToUint(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return H_NAN;
    if (ax >= 0x477ff000u)                   // >= 65520
        return sign | 0x7c00u;
    if (ax >= 0x38800000u) {                 // normal: 13 bits off, nearest even
        uint m = ax - 0x38000000u;
        m += 0xfffu + ((m >> 13) & 1u);
        return sign | (m >> 13);
    }
    // subnormal (or 0): a multiple of 2^-24, scaled exactly then rounded
    return sign | uint(roundEven(uintBitsToFloat(ax) * 16777216.0));
}

// An f16's value -> e4m3, nearest even, saturating at +-448; NaN -> 0x7f.
uint e4m3(float f)
{
    uint x = floatBitsToUint(f), sign = (x >> 24) & 0x80u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return 0x7fu;
    if (ax >= 0x43e00000u)                   // >= 448, inf too
        return sign | 0x7eu;
    if (ax >= 0x3c800000u) {                 // >= 2^-6: normal, 3 mantissa bits
        uint m = ax - 0x3c000000u;
        m += 0x7ffffu + ((m >> 20) & 1u);
        return sign | (m >> 20);
    }
    return sign | uint(roundEven(uintBitsToFloat(ax) * 512.0)); // m * 2^-9 (8: 2^-6)
}

// e4m3 code -> k, its value k * 2^-9; the NaN codes set nan.
int e4m3_fixed(uint code, inout bool nan)
{
    uint e = (code >> 3) & 15u, m = code & 7u;
    nan = nan || (code & 0x7fu) == 0x7fu;
    int k = e == 0u ? int(m) : int((8u + m) << (e - 1u));
    return (code & 0x80u) != 0u ? -k : k;
}

// s * 2^-18 rounded once to f16 bits, nearest even.
uint fixed_to_h(int64_t s)
{
    uint sign = s < 0l ? 0x8000u : 0u;
    uint64_t u = uint64_t(s < 0l ? -s : s);
    if (u < 16ul)                            // below 2^-14: exact subnormal
        return sign | uint(u) * 64u;
    uint hi = uint(u >> 32);
    int msb = hi != 0u ? 32 + findMSB(hi) : findMSB(uint(u));
    int sh = msb - 10;                       // keep 11 significant bits
    uint64_t q = sh > 0 ? u >> uint(sh) : u << uint(-sh);
    if (sh > 0) {
        uint64_t rem = u & ((1ul << uint(sh)) - 1ul), half_ = 1ul << uint(sh - 1);
        if (rem > half_ || (rem == half_ && (q & 1ul) != 0ul))
            q += 1ul;
    }
    int e = msb - 18;
    if (q == 2048ul) {
        q = 1024ul;
        e += 1;
    }
    if (e > 15)
        return sign | 0x7c00u;
    return sign | (uint(e + 15) << 10) | (uint(q) & 0x3ffu);
}

// ---- the buffers ---------------------------------------------------------------

float enc0_value(uint i) { return h2f((enc0[i >> 1] >> (16u * (i & 1u))) & 0xffffu); }
uint weight_code(uint i) { return (weights[i >> 2] >> (8u * (i & 3u))) & 0xffu; }

// Byte / half-word stores: neighbours in a word belong to other invocations.
void store_byte(uint i, uint b)
{
    uint sh = 8u * (i & 3u);
    atomicAnd(down[i >> 2], ~(0xffu << sh));
    atomicOr(down[i >> 2], b << sh);
}
void store_half(uint i, uint h)
{
    uint sh = 16u * (i & 1u);
    atomicAnd(enc1[i >> 1], ~(0xffffu << sh));
    atomicOr(enc1[i >> 1], h << sh);
}

// rsqrt.approx.ftz.f32 of a positive f16 value (the end of the file).
float rsqrt_nv(float r);

// ---- rrref's arithmetic --------------------------------------------------------

// down at (x, y), channel c: the 2x2 mean in f32 in the order (0,0) (1,0)
// (0,1) (1,1), edges replicated, * 0.25, rounded to f16, then to e4m3.
uint down_code(uint x, uint y, uint c)
{
    uint sw = sz.src_width, x0 = 2u * x, y0 = 2u * y;
    uint x1 = min(x0 + 1u, sw - 1u), y1 = min(y0 + 1u, sz.src_height - 1u);
    uint b = c * sw * sz.src_height;
    precise float v = enc0_value(b + y0 * sw + x0);
    v = v + enc0_value(b + y0 * sw + x1);
    v = v + enc0_value(b + y1 * sw + x0);
    v = v + enc0_value(b + y1 * sw + x1);
    precise float q = v * 0.25;
    return e4m3(h2f(f2h(q)));
}

// CUDA's fminf/fmaxf: a NaN operand gives the other.
float clamp2(float x) { return x != x ? -2.0 : min(max(x, -2.0), 2.0); }

// t - t^3/16 on the clamped value (CUDA: fmaf(t3, -1/16, t); t3/16 is exact).
float cubic(float x)
{
    float t = clamp2(x);
    precise float t3 = (t * t) * t;
    precise float r = t3 * -0.0625 + t;
    return r;
}

void main()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x >= sz.width || y >= sz.height)
        return;
    uint dw = sz.down_width, dh = sz.down_height, dplane = dw * dh;
    int ka[K];
    bool nan = false;
    for (int tap = 0; tap < 9; tap++) {
        uint sx = uint(clamp(int(x) + tap % 3 - 1, 0, int(dw) - 1));
        uint sy = uint(clamp(int(y) + tap / 3 - 1, 0, int(dh) - 1));
        for (int c = 0; c < C_E0; c++) {
            uint code = down_code(sx, sy, uint(c));
            ka[tap * C_E0 + c] = e4m3_fixed(code, nan);
            if (tap == 4)                    // the window's centre is this pixel's own
                store_byte(uint(c) * dplane + sy * dw + sx, code);
        }
    }
    float v[C_E1];
    precise float ms = 0.0;
    for (int o = 0; o < C_E1; o++) {
        bool onan = nan;
        uint bias = weight_code(uint(C_E1 * K + o));
        uint acc = fixed_to_h(int64_t(e4m3_fixed(bias, onan)) << 9);
        for (int k0 = 0; k0 < K; k0 += SLICE) {
            int64_t s = 0l;
            for (int k = k0; k < min(k0 + SLICE, K); k++)
                s += int64_t(ka[k]) * int64_t(e4m3_fixed(weight_code(uint(o * K + k)), onan));
            precise float a = h2f(acc) + h2f(fixed_to_h(s)); // an f16 add, rounded once
            acc = f2h(a);
        }
        v[o] = h2f(onan ? H_NAN : acc);
        precise float sq = v[o] * v[o];
        ms = ms + sq;
    }
    precise float ms16 = ms * 0.0625;
    precise float msr = ms16 + 1.220703125e-04;
    float inv = rsqrt_nv(h2f(f2h(msr)));
    uint plane = sz.width * sz.height, i = y * sz.width + x;
    for (int o = 0; o < C_E1; o++) {
        precise float vn = v[o] * inv;
        store_half(uint(o) * plane + i, f2h(cubic(vn)));
    }
}

// ---- rsqrt.approx.ftz.f32 as sm_90 computes it --------------------------------
//
// The instruction reduces x = xr * 4^k, xr in [1, 4), and returns 2^-k R[xr],
// where R[xr] is within one f32 ULP of 1/sqrt(xr) correctly rounded (src/hw/
// README.md: measured on a GPU).  The RMS norm's input is an f16 value, so xr
// is one of 2048: 1.m and 2 * 1.m for the f16 mantissas m.  RSQRT_DELTA holds,
// 2 bits each (delta + 1, 16 a word, entry 1024 * (xr >= 2) + m), how many
// f32 ULPs R[xr] is from the correctly rounded value (computed in double:
// IEEE division and square root, one rounding to f32), generated from vkrr's
// sm_90 hardware model (vkrr_approx_rsqrt); README "why a table".
const uint RSQRT_DELTA[128] = uint[128](
    0x54145955u, 0x91555554u, 0x40056965u, 0x40555595u, 0x14055955u, 0x55516654u, 0x54555554u, 0x54056550u,
    0x401565a5u, 0x5555a594u, 0x45415504u, 0x55455655u, 0x50545550u, 0x55555554u, 0x54555965u, 0x55459655u,
    0x55555554u, 0x44415995u, 0x55445554u, 0x555556a4u, 0x00156954u, 0x5555a954u, 0x55405550u, 0x50000000u,
    0x54545410u, 0x54556565u, 0x54155995u, 0x100555a5u, 0x45555955u, 0x55555555u, 0x95555510u, 0x55505555u,
    0x55155554u, 0x5015a5a9u, 0x54145040u, 0x54001555u, 0x54555959u, 0x14555565u, 0x54556955u, 0x85555554u,
    0x55559555u, 0x54545454u, 0x55454511u, 0x65555554u, 0x45555591u, 0x55455550u, 0x55145569u, 0x55555555u,
    0x55559a55u, 0x55455559u, 0x55556555u, 0x54545454u, 0x55055555u, 0x51515555u, 0x55555515u, 0x51544154u,
    0x55555555u, 0x50555555u, 0x10595595u, 0x045595a9u, 0x155555a9u, 0x55404044u, 0x55545554u, 0x55555555u,
    0x50411550u, 0x55015554u, 0x41555694u, 0x55419a50u, 0x55115140u, 0x55155550u, 0x95455655u, 0x51155554u,
    0x44545594u, 0x55155655u, 0x11555655u, 0x55555654u, 0x55559955u, 0x51555594u, 0x94455451u, 0x41555595u,
    0x54555555u, 0x55555550u, 0x51555555u, 0x455569a5u, 0x95555a54u, 0x15455555u, 0x54455555u, 0x15556555u,
    0x5155a555u, 0xa5555550u, 0x55051144u, 0x55555555u, 0x54105415u, 0x15559a65u, 0x55555555u, 0x05559556u,
    0x95551511u, 0x55155555u, 0x555595a5u, 0x51155554u, 0x44444554u, 0x51555555u, 0x59555994u, 0x04556999u,
    0x55555555u, 0x55666955u, 0x55555555u, 0x55555a55u, 0x55155554u, 0x55545550u, 0x445669a6u, 0x95555515u,
    0x55444555u, 0x54555415u, 0x05596995u, 0x55559555u, 0x55545514u, 0x11555696u, 0x55455514u, 0x51555555u,
    0x95514551u, 0x95410155u, 0x5559a699u, 0x55545659u, 0x55555555u, 0x55555555u, 0x96595555u, 0x55556596u
);

float rsqrt_nv(float r)
{
    uint b = floatBitsToUint(r);
    if (r != r)
        return r;
    if (b == 0x7f800000u)                    // +inf
        return 0.0;
    if ((b & 0x7f800000u) == 0u)             // +-0 (f16 values are never f32 subnormals)
        return uintBitsToFloat((b & 0x80000000u) | 0x7f800000u);
    if ((b & 0x80000000u) != 0u)
        return uintBitsToFloat(0x7fffffffu);
    int e = int(b >> 23) - 127;
    int odd = e & 1;                         // two's complement: the parity for e < 0 too
    int k = (e - odd) / 2;
    uint i = uint(odd) * 1024u + ((b >> 13) & 0x3ffu);
    float xr = uintBitsToFloat((b & 0x007fffffu) | (uint(127 + odd) << 23));
    float ref = float(1.0lf / sqrt(double(xr)));
    int delta = int((RSQRT_DELTA[i >> 4] >> (2u * (i & 15u))) & 3u) - 1;
    return ldexp(uintBitsToFloat(uint(int(floatBitsToUint(ref)) + delta)), -k);
}
