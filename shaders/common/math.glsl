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
// - approximate instructions (ex2.approx.ftz, rsqrt.approx.ftz): not
//   specified to the bit.  The CPU backend (cuda_cpu.h) returns the exactly
//   rounded f32 of exp2 / 1/sqrt computed in double (FTZ in and out).  The
//   stand-ins here use GLSL exp2 / inversesqrt in f32 (no shaderFloat64 in
//   vkbridge), so expect a few-ULP f32 difference from the CPU backend and
//   from the GPU (ex2.approx: rel. error up to 2^-22.5 per the PTX ISA;
//   rsqrt.approx: about 1 ULP); the f16 rounding after them hides most of it.
//   NOT YET MEASURED: a 65536-entry f16-input table, or float-float
//   evaluation, would make them exact against the CPU backend.
// - denormals: .ftz flushes f32 denormal inputs and outputs to signed zero;
//   vkrr_ftz does it by hand (lavapipe promises no denormal mode).
#ifndef VKRR_MATH_GLSL
#define VKRR_MATH_GLSL

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

// ex2.approx.ftz.f32 stand-in (see the header comment).
float vkrr_ex2_approx(float x)
{
    x = vkrr_ftz(x);
    precise float y = exp2(x);
    return vkrr_ftz(y);
}

// rsqrt.approx.ftz.f32 stand-in.
float vkrr_rsqrt_approx(float x)
{
    x = vkrr_ftz(x);
    precise float y = inversesqrt(x);
    return vkrr_ftz(y);
}

#endif
