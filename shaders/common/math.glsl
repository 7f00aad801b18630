// math.glsl - f32 arithmetic as CUDA did it: rounding, contraction, approximations, flushes.
//
// Traps handled here:
// - FMA contraction: nvcc fuses a*b+c into one fma unless the code says
//   __fmul_rn/__fadd_rn.  A port writes fma(a, b, c) exactly where nvcc fused
//   (GLSL fma() is a single rounding, an OpExtInst Fma) and computes every
//   other product/sum into a `precise` variable, which forbids contraction and
//   reassociation (SPIR-V NoContraction).
// - division and sqrt: Vulkan lets f32 '/' be 2.5 ULP off; CUDA's '/' and
//   sqrtf are IEEE.  vkrr_div/vkrr_sqrt compute in f64 and round once to f32,
//   which is the correctly rounded f32 result (53 >= 2*24+2 bits: the double
//   rounding is innocuous for / and sqrt).
// - approximate instructions (ex2.approx.ftz, rcp.approx.ftz, rsqrt.approx.ftz):
//   the hardware's results are not specified to the bit.  The stand-ins here
//   are the functions cuda_cpu.h uses for them (exact-rounded 2^x, 1/x,
//   1/sqrt(x) with the .ftz flushes), so ports match the CPU backend; against
//   a real GPU expect differences in the last 1-2 bits of the f32 result
//   (ex2.approx: max rel. error 2^-22.5 per the PTX ISA; rcp/rsqrt.approx:
//   about 1 ULP), which usually vanish when the result is rounded to f16.
// - denormals: .ftz flushes f32 denormal inputs and outputs to signed zero;
//   vkrr_ftz does it by hand (lavapipe guarantees no denormal mode).
#ifndef VKRR_MATH_GLSL
#define VKRR_MATH_GLSL

// f32 denormal -> signed zero (the .ftz flush).
float vkrr_ftz(float x)
{
    uint b = floatBitsToUint(x);
    return (b & 0x7f800000u) == 0u ? uintBitsToFloat(b & 0x80000000u) : x;
}

float vkrr_div(float a, float b) { return float(double(a) / double(b)); }
float vkrr_sqrt(float a) { return float(sqrt(double(a))); }

// 2^x in f64 to ~1e-16 relative: 2^x = 2^n * e^(f ln2), |f| <= 1/2, Taylor.
double vkrr_exp2_d(double x)
{
    double n = floor(x + 0.5lf);
    precise double t = (x - n) * 0.69314718055994530942lf;
    precise double s = 1.0lf;
    for (int k = 20; k >= 1; k--)
        s = 1.0lf + s * t / double(k);
    return ldexp(s, int(n));
}

// ex2.approx.ftz.f32 stand-in.
float vkrr_ex2_approx(float x)
{
    x = vkrr_ftz(x);
    if (isnan(x))
        return x;
    if (x >= 128.0)
        return uintBitsToFloat(0x7f800000u);
    if (x < -150.0)
        return 0.0;
    return vkrr_ftz(float(vkrr_exp2_d(double(x))));
}

// rcp.approx.ftz.f32 stand-in.
float vkrr_rcp_approx(float x) { return vkrr_ftz(float(1.0lf / double(vkrr_ftz(x)))); }

// rsqrt.approx.ftz.f32 stand-in.
float vkrr_rsqrt_approx(float x) { return vkrr_ftz(float(1.0lf / sqrt(double(vkrr_ftz(x))))); }

#endif
