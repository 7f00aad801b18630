// math.glsl - f32 arithmetic as CUDA did it: rounding, contraction, approximations, flushes.
//
// Traps handled here:
// - FMA contraction: nvcc fuses a*b+c into one fma unless the code says
//   __fmul_rn/__fadd_rn (rrref also builds with -fmad=false).  A port writes
//   fma(a, b, c) exactly where the .cu has fmaf (GLSL fma() is one rounding)
//   and computes every other product/sum into a `precise` variable, which
//   forbids contraction and reassociation (SPIR-V NoContraction).
// - division: Vulkan lets f32 '/' be 2.5 ULP off; CUDA's '/' and __fdiv_rn
//   are IEEE.  vkrr_div is correctly rounded by integer long division (no
//   shaderFloat64 needed).
// - fmaxf/fminf: CUDA returns the other operand for a NaN; GLSL max/min do
//   not promise that.  vkrr_fmaxf/vkrr_fminf test NaN on the bits.
// - approximate instructions (ex2.approx.ftz, rsqrt.approx.ftz,
//   rcp.approx.ftz): not
//   specified to the bit, and a GPU does not return the correctly rounded
//   value.  The hardware model (src/hw/approx.h: the laws measured on a
//   GPU) defines them; the CPU backend calls it and ports read its values
//   from a table over every f16 input, so a port gives the GPU's bits on
//   f16 inputs; other inputs fall back to GLSL's exp2/inversesqrt.
// - denormals: .ftz flushes f32 denormal inputs and outputs to signed zero;
//   vkrr_ftz does it by hand (lavapipe promises no denormal mode).
#ifndef VKRR_MATH_GLSL
#define VKRR_MATH_GLSL

#include "cuda.glsl"
#include "half.glsl"

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

bool vkrr_isnan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }

float vkrr_fmaxf(float a, float b) { return vkrr_isnan(a) ? b : (vkrr_isnan(b) ? a : max(a, b)); }
float vkrr_fminf(float a, float b) { return vkrr_isnan(a) ? b : (vkrr_isnan(b) ? a : min(a, b)); }

// f32 denormal -> signed zero (the .ftz flush).
float vkrr_ftz(float x)
{
    uint b = floatBitsToUint(x);
    return (b & 0x7f800000u) == 0u ? uintBitsToFloat(b & 0x80000000u) : x;
}

// Significand (leading bit at 23) and biased exponent of a nonzero finite |x|.
void vkrr_unpack_f(uint ax, out uint m, out int e)
{
    e = int(ax >> 23);
    m = ax & 0x7fffffu;
    if (e == 0) {
        int sh = 23 - findMSB(m);
        m <<= uint(sh);
        e = 1 - sh;
    } else {
        m |= 0x800000u;
    }
}

// a / b correctly rounded (RNE, subnormals kept).  NaN results are 0x7fffffff.
float vkrr_div(float a, float b)
{
    uint ua = floatBitsToUint(a), ub = floatBitsToUint(b);
    uint s = (ua ^ ub) & 0x80000000u;
    uint aa = ua & 0x7fffffffu, ab = ub & 0x7fffffffu;
    if (aa > 0x7f800000u || ab > 0x7f800000u || (aa == ab && (aa == 0u || aa == 0x7f800000u)))
        return uintBitsToFloat(0x7fffffffu);
    if (aa == 0x7f800000u || ab == 0u)
        return uintBitsToFloat(s | 0x7f800000u);
    if (aa == 0u || ab == 0x7f800000u)
        return uintBitsToFloat(s);
    uint ma, mb;
    int ea, eb;
    vkrr_unpack_f(aa, ma, ea);
    vkrr_unpack_f(ab, mb, eb);
    uint64_t n = uint64_t(ma) << 26;
    uint64_t q = n / uint64_t(mb);                    // in (2^25, 2^27)
    bool sticky = (n % uint64_t(mb)) != uint64_t(0);
    int lead = q >= (uint64_t(1) << 26) ? 26 : 25;
    int be = ea - eb + 127 + (lead - 26);             // biased exponent of the result
    int drop = lead - 23 + (be <= 0 ? 1 - be : 0);
    if (drop > 40)
        return uintBitsToFloat(s);                    // far below the smallest subnormal
    uint64_t keep = q >> uint(drop);
    uint64_t rest = q & ((uint64_t(1) << uint(drop)) - uint64_t(1));
    uint64_t half_ = uint64_t(1) << uint(drop - 1);
    if (rest > half_ || (rest == half_ && (sticky || (keep & uint64_t(1)) != uint64_t(0))))
        keep += uint64_t(1);
    uint bits = be <= 0 ? uint(keep) : (uint(be - 1) << 23) + uint(keep);
    if (be > 0 && bits >= 0x7f800000u)
        bits = 0x7f800000u;
    return uintBitsToFloat(s | bits);
}

// msb of a non-zero uint64.
int vkrr_msb64(uint64_t v)
{
    uint hi = uint(v >> 32);
    return hi != 0u ? 32 + findMSB(hi) : findMSB(uint(v));
}

// fmaf(a, b, c): a*b + c with ONE rounding (RNE), done in integers.
// GLSL's fma() is fused only where the result is `precise`, and even then
// lavapipe (Mesa 22.3) computed it as a rounded product plus an add: rrref's
// expo0 came out 1 ULP off the CUDA result through rr_log2_poly.  So the
// exact product of the two 24-bit significands (48 bits, a uint64) is added
// to c's significand, both aligned with their leading bit at 61 and the
// smaller shifted right with a sticky bit (when bits are shifted out, the
// larger operand is at least 4x the smaller, so the sum keeps its leading
// bit at 60 or above and 37+ bits below the result's last bit: rounding from
// there is exact), then rounded once, subnormals and overflow included.
float vkrr_fma(float a, float b, float c)
{
    uint ua = floatBitsToUint(a), ub = floatBitsToUint(b), uc = floatBitsToUint(c);
    uint aa = ua & 0x7fffffffu, ab = ub & 0x7fffffffu, ac = uc & 0x7fffffffu;
    // NaN/Inf anywhere, or an exact zero product: no rounding of the product
    // happens, so product-then-add is the fused result.
    if (aa >= 0x7f800000u || ab >= 0x7f800000u || ac >= 0x7f800000u || aa == 0u || ab == 0u) {
        precise float p = a * b;
        precise float r = p + c;
        return r;
    }
    uint ma, mb, mc;
    int ea, eb, ec;
    vkrr_unpack_f(aa, ma, ea);
    vkrr_unpack_f(ab, mb, eb);
    bool sp = ((ua ^ ub) & 0x80000000u) != 0u, sc = (uc & 0x80000000u) != 0u;
    // value = X * 2^EX with X's leading bit at 61 (exponents unbiased, of the lsb).
    uint64_t X = uint64_t(ma) * uint64_t(mb);
    int sh = 61 - vkrr_msb64(X);
    X <<= uint(sh);
    int EX = (ea - 150) + (eb - 150) - sh;
    uint64_t Y = uint64_t(0);
    int EY = EX;
    if (ac != 0u) {
        vkrr_unpack_f(ac, mc, ec);
        Y = uint64_t(mc) << 38;
        EY = ec - 150 - 38;
    }
    bool sx = sp, sy = sc;
    if (Y != uint64_t(0) && (EY > EX || (EY == EX && Y > X))) {
        uint64_t t = X; X = Y; Y = t;
        int te = EX; EX = EY; EY = te;
        bool ts = sx; sx = sy; sy = ts;
    }
    int d = EX - EY;
    if (Y != uint64_t(0) && d > 0) {
        uint64_t lost = d >= 64 ? Y : (Y & ((uint64_t(1) << uint(d)) - uint64_t(1)));
        Y = d >= 64 ? uint64_t(0) : (Y >> uint(d));
        if (lost != uint64_t(0))
            Y |= uint64_t(1);
    }
    uint64_t S = sx == sy ? X + Y : X - Y;
    if (S == uint64_t(0))
        return 0.0; // exact cancellation: +0 under RNE
    uint sign = sx ? 0x80000000u : 0u;
    int k = vkrr_msb64(S);
    // Keep 24 bits, fewer where the result is subnormal (last bit 2^-149).
    int drop = max(k - 23, -149 - EX);
    uint64_t m;
    int E;
    if (drop <= 0) {
        m = S << uint(-drop);
        E = EX + drop;
    } else if (drop > 63) {
        return uintBitsToFloat(sign); // far below the smallest subnormal
    } else {
        m = S >> uint(drop);
        uint64_t rest = S & ((uint64_t(1) << uint(drop)) - uint64_t(1));
        uint64_t half_ = uint64_t(1) << uint(drop - 1);
        if (rest > half_ || (rest == half_ && (m & uint64_t(1)) != uint64_t(0)))
            m += uint64_t(1);
        E = EX + drop;
        if (m == (uint64_t(1) << 24)) {
            m >>= 1;
            E += 1;
        }
    }
    uint bits;
    if (m < (uint64_t(1) << 23)) {
        bits = uint(m); // subnormal (E == -149), or zero
    } else {
        int be = E + 23 + 127; // biased exponent of the leading bit
        bits = be >= 255 ? 0x7f800000u : (uint(be) << 23) | (uint(m) & 0x7fffffu);
    }
    return uintBitsToFloat(sign | bits);
}

// The approximate instructions are defined once, in src/hw/approx.h
// (the CPU backend calls it).  vkbridge hands every port the tabulation of
// that definition over all f16 inputs, through a device address in the
// push constants (bindings.glsl vkrr_approx_lo, _hi; a push constant, not
// a specialization constant, so the shader is the same in every process
// and the driver's shader cache finds it): f32 bits, [0, 65536) ex2, [65536,
// 131072) rsqrt and [131072, 196608) rcp, indexed by the input's f16 code
// (vkrr_approx_port_tables).  An input that is not an f16 value (or no
// table: address 0) falls back to GLSL's exp2 / inversesqrt / 1.0 / x,
// which may differ from the CPU in the last bits.
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer VkrrApproxTable { uint v[]; };

// The table entry for x when x is exactly an f16 value and a table is bound.
bool vkrr_approx_lookup(float x, uint base, out float y)
{
    uint64_t addr = (uint64_t(vkrr_approx_hi) << 32) | uint64_t(vkrr_approx_lo);
    uint h = vkrr_f2h(x);
    if (addr == uint64_t(0) || floatBitsToUint(vkrr_h2f(h)) != floatBitsToUint(x)) {
        y = 0.0;
        return false;
    }
    y = uintBitsToFloat(VkrrApproxTable(addr).v[base + h]);
    return true;
}

// ex2.approx.ftz.f32 (the hardware model on f16 inputs).
float vkrr_ex2_approx(float x)
{
    float y;
    if (vkrr_approx_lookup(x, 0u, y))
        return y;
    x = vkrr_ftz(x);
    precise float e = exp2(x);
    return vkrr_ftz(e);
}

// rsqrt.approx.ftz.f32 (the hardware model on f16 inputs).
float vkrr_rsqrt_approx(float x)
{
    float y;
    if (vkrr_approx_lookup(x, 65536u, y))
        return y;
    x = vkrr_ftz(x);
    precise float r = inversesqrt(x);
    return vkrr_ftz(r);
}

// rcp.approx.ftz.f32 (the hardware model on f16 inputs).
float vkrr_rcp_approx(float x)
{
    float y;
    if (vkrr_approx_lookup(x, 131072u, y))
        return y;
    x = vkrr_ftz(x);
    precise float r = 1.0 / x;
    return vkrr_ftz(r);
}

// div.approx.ftz.f32: vkrr's stand-in (src/hw/approx.h, cuda_cpu.h's
// cpu_div_approx_ftz), the correctly rounded quotient of the flushed
// operands, flushed.  On a GPU it is exact too where b is a power of two.
float vkrr_div_approx_ftz(float a, float b) { return vkrr_ftz(vkrr_div(vkrr_ftz(a), vkrr_ftz(b))); }

#endif
