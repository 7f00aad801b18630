// float_ops.cu - floating-point instructions for the PTX interpreter's tests
// (tests/test_ptx_float.c computes the expected values on its own): f32 and
// f64 arithmetic in every rounding mode, .ftz, .sat, min/max NaN rules,
// testp, copysign, unordered compares, the approximate instructions, and
// f16 / f16x2 / bf16x2 arithmetic.
#include <stdint.h>

#define F32_NOUT 48
#define F64_NOUT 20
#define F16_NOUT 16

#define F2(op, d, a) asm(op " %0, %1;" : "=f"(d) : "f"(a))
#define F3(op, d, a, b) asm(op " %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b))
#define F4(op, d, a, b, c) asm(op " %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c))
#define P2(op, d, a, b)                                                                    \
    asm("{ .reg .pred p; " op " p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(d) : "f"(a), "f"(b))

extern "C" __global__ void k_f32(const float *A, const float *B, const float *C, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = A[i], b = B[i], c = C[i], r, aa = fabsf(a);
    float *o = out + (size_t)i * F32_NOUT;
    F3("add.rn.f32", r, a, b); o[0] = r;
    F3("add.rz.f32", r, a, b); o[1] = r;
    F3("add.rm.f32", r, a, b); o[2] = r;
    F3("add.rp.f32", r, a, b); o[3] = r;
    F3("mul.rn.f32", r, a, b); o[4] = r;
    F3("mul.rz.f32", r, a, b); o[5] = r;
    F3("mul.rm.f32", r, a, b); o[6] = r;
    F3("mul.rp.f32", r, a, b); o[7] = r;
    F4("fma.rn.f32", r, a, b, c); o[8] = r;
    F4("fma.rz.f32", r, a, b, c); o[9] = r;
    F4("fma.rm.f32", r, a, b, c); o[10] = r;
    F4("fma.rp.f32", r, a, b, c); o[11] = r;
    F3("div.rn.f32", r, a, b); o[12] = r;
    F3("div.rz.f32", r, a, b); o[13] = r;
    F3("div.rm.f32", r, a, b); o[14] = r;
    F3("div.rp.f32", r, a, b); o[15] = r;
    F2("sqrt.rn.f32", r, aa); o[16] = r;
    F2("sqrt.rz.f32", r, aa); o[17] = r;
    F2("sqrt.rm.f32", r, aa); o[18] = r;
    F2("sqrt.rp.f32", r, aa); o[19] = r;
    F2("rcp.rn.f32", r, a); o[20] = r;
    F2("rcp.rz.f32", r, a); o[21] = r;
    F3("sub.rm.f32", r, a, b); o[22] = r;
    F3("add.ftz.f32", r, a, b); o[23] = r;
    F3("mul.rn.ftz.sat.f32", r, a, b); o[24] = r;
    F4("fma.rn.sat.f32", r, a, b, c); o[25] = r;
    F3("min.f32", r, a, b); o[26] = r;
    F3("max.f32", r, a, b); o[27] = r;
    F3("min.NaN.f32", r, a, b); o[28] = r;
    F3("max.xorsign.abs.f32", r, a, b); o[29] = r;
    F2("abs.f32", r, a); o[30] = r;
    F2("neg.ftz.f32", r, a); o[31] = r;
    F3("copysign.f32", r, a, b); o[32] = r;
    uint32_t t;
    asm("{ .reg .pred p; testp.subnormal.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(t) : "f"(a));
    uint32_t bits = t;
    asm("{ .reg .pred p; testp.normal.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(t) : "f"(a));
    bits |= t << 1;
    asm("{ .reg .pred p; testp.finite.f32 p, %1; selp.u32 %0, 1, 0, p; }" : "=r"(t) : "f"(a));
    bits |= t << 2;
    P2("setp.ltu.f32", t, a, b); bits |= t << 3;
    P2("setp.neu.f32", t, a, b); bits |= t << 4;
    P2("setp.num.f32", t, a, b); bits |= t << 5;
    P2("setp.nan.f32", t, a, b); bits |= t << 6;
    P2("setp.ge.f32", t, a, b); bits |= t << 7;
    P2("setp.ne.ftz.f32", t, a, b); bits |= t << 8;
    o[33] = __uint_as_float(bits);
    F2("ex2.approx.ftz.f32", r, a); o[34] = r;
    F2("ex2.approx.f32", r, a); o[35] = r;
    F2("rsqrt.approx.ftz.f32", r, aa); o[36] = r;
    F2("lg2.approx.f32", r, aa); o[37] = r;
    F2("sin.approx.f32", r, a); o[38] = r;
    F2("cos.approx.ftz.f32", r, a); o[39] = r;
    F2("rcp.approx.f32", r, a); o[40] = r;
    F2("sqrt.approx.f32", r, aa); o[41] = r;
    F2("tanh.approx.f32", r, a); o[42] = r;
    F3("div.full.f32", r, a, b); o[43] = r;
    F3("div.approx.f32", r, a, b); o[44] = r;
    F4("mad.rn.f32", r, a, b, c); o[45] = r;
    F3("sub.rn.sat.f32", r, a, b); o[46] = r;
    F4("fma.rp.ftz.f32", r, a, b, c); o[47] = r;
}

#define D3(op, d, a, b) asm(op " %0, %1, %2;" : "=d"(d) : "d"(a), "d"(b))
#define D4(op, d, a, b, c) asm(op " %0, %1, %2, %3;" : "=d"(d) : "d"(a), "d"(b), "d"(c))
#define D2(op, d, a) asm(op " %0, %1;" : "=d"(d) : "d"(a))

extern "C" __global__ void k_f64(const double *A, const double *B, const double *C, double *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double a = A[i], b = B[i], c = C[i], r, aa = fabs(a);
    double *o = out + (size_t)i * F64_NOUT;
    D3("add.rn.f64", r, a, b); o[0] = r;
    D3("add.rz.f64", r, a, b); o[1] = r;
    D3("add.rm.f64", r, a, b); o[2] = r;
    D3("add.rp.f64", r, a, b); o[3] = r;
    D3("mul.rz.f64", r, a, b); o[4] = r;
    D3("mul.rp.f64", r, a, b); o[5] = r;
    D4("fma.rn.f64", r, a, b, c); o[6] = r;
    D4("fma.rz.f64", r, a, b, c); o[7] = r;
    D4("fma.rm.f64", r, a, b, c); o[8] = r;
    D4("fma.rp.f64", r, a, b, c); o[9] = r;
    D3("div.rn.f64", r, a, b); o[10] = r;
    D3("div.rz.f64", r, a, b); o[11] = r;
    D2("sqrt.rn.f64", r, aa); o[12] = r;
    D2("sqrt.rp.f64", r, aa); o[13] = r;
    D2("rcp.rn.f64", r, a); o[14] = r;
    D2("rcp.rm.f64", r, a); o[15] = r;
    D3("min.f64", r, a, b); o[16] = r;
    D3("max.f64", r, a, b); o[17] = r;
    D2("neg.f64", r, a); o[18] = r;
    D2("rsqrt.approx.f64", r, aa); o[19] = r;
}

/* f16 / f16x2 / bf16x2 on packed words: A, B, C hold two halves each */
#define H3(op, d, a, b) asm(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define H4(op, d, a, b, c) asm(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))

extern "C" __global__ void k_f16(const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *out,
                                 int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t a = A[i], b = B[i], c = C[i], r;
    uint32_t *o = out + (size_t)i * F16_NOUT;
    unsigned short ha = (unsigned short)a, hb = (unsigned short)b, hc = (unsigned short)c, hr;
    asm("add.f16 %0, %1, %2;" : "=h"(hr) : "h"(ha), "h"(hb)); o[0] = hr;
    asm("sub.rn.f16 %0, %1, %2;" : "=h"(hr) : "h"(ha), "h"(hb)); o[1] = hr;
    asm("mul.rn.sat.f16 %0, %1, %2;" : "=h"(hr) : "h"(ha), "h"(hb)); o[2] = hr;
    asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(hr) : "h"(ha), "h"(hb), "h"(hc)); o[3] = hr;
    asm("fma.rn.ftz.f16 %0, %1, %2, %3;" : "=h"(hr) : "h"(ha), "h"(hb), "h"(hc)); o[4] = hr;
    H3("add.rn.f16x2", r, a, b); o[5] = r;
    H3("mul.rn.f16x2", r, a, b); o[6] = r;
    H4("fma.rn.f16x2", r, a, b, c); o[7] = r;
    H4("fma.rn.relu.f16x2", r, a, b, c); o[8] = r;
    H4("fma.rn.bf16x2", r, a, b, c); o[9] = r;
    H3("min.f16x2", r, a, b); o[10] = r;
    H3("max.NaN.f16x2", r, a, b); o[11] = r;
    asm("ex2.approx.f16 %0, %1;" : "=h"(hr) : "h"(ha)); o[12] = hr;
    asm("neg.f16 %0, %1;" : "=h"(hr) : "h"(ha)); o[13] = hr;
    asm("abs.bf16x2 %0, %1;" : "=r"(r) : "r"(a)); o[14] = r;
    asm("{ .reg .pred p; setp.gtu.f16 p, %1, %2; selp.u32 %0, 1, 0, p; }" : "=r"(r) : "h"(ha), "h"(hb));
    o[15] = r;
}
