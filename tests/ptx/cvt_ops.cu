// cvt_ops.cu - conversions for the PTX interpreter's tests (tests/test_ptx_cvt.c
// computes every expected value on its own).  The fp8 forms need sm_89:
// they are compiled only there (the compute_80 PTX leaves those words 0).
#include <stdint.h>

#define CVT_NOUT 58

#define CV(op, dcon, scon, d, a) asm(op " %0, %1;" : dcon(d) : scon(a))

extern "C" __global__ void k_cvt(const float *F, const double *D, const int64_t *L, const uint32_t *U,
                                 uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float f = F[i], g = F[(i + 1) % n];
    double d = D[i];
    int64_t l = L[i];
    uint32_t u = U[i];
    uint32_t *o = out + (size_t)i * CVT_NOUT;
    unsigned short h;
    uint32_t r;
    int32_t s;
    float x;
    int64_t q;
    CV("cvt.rn.f16.f32", "=h", "f", h, f); o[0] = h;
    CV("cvt.rz.f16.f32", "=h", "f", h, f); o[1] = h;
    CV("cvt.rm.f16.f32", "=h", "f", h, f); o[2] = h;
    CV("cvt.rp.f16.f32", "=h", "f", h, f); o[3] = h;
    CV("cvt.rn.sat.f16.f32", "=h", "f", h, f); o[4] = h;
    CV("cvt.rn.relu.f16.f32", "=h", "f", h, f); o[5] = h;
    CV("cvt.rn.satfinite.f16.f32", "=h", "f", h, f); o[6] = h;
    CV("cvt.rn.bf16.f32", "=h", "f", h, f); o[7] = h;
    CV("cvt.rz.bf16.f32", "=h", "f", h, f); o[8] = h;
    CV("cvt.rn.relu.bf16.f32", "=h", "f", h, f); o[9] = h;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(f), "f"(g)); o[10] = r;
    asm("cvt.rz.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(f), "f"(g)); o[11] = r;
    unsigned short hu = (unsigned short)u;
    CV("cvt.f32.f16", "=f", "h", x, hu); o[12] = __float_as_uint(x);
    CV("cvt.f32.bf16", "=f", "h", x, hu); o[13] = __float_as_uint(x);
    CV("cvt.rni.s32.f32", "=r", "f", s, f); o[14] = s;
    CV("cvt.rzi.s32.f32", "=r", "f", s, f); o[15] = s;
    CV("cvt.rmi.s32.f32", "=r", "f", s, f); o[16] = s;
    CV("cvt.rpi.s32.f32", "=r", "f", s, f); o[17] = s;
    CV("cvt.rzi.u32.f32", "=r", "f", r, f); o[18] = r;
    CV("cvt.rni.s8.f32", "=h", "f", h, f); o[19] = h;
    CV("cvt.rzi.u16.f32", "=h", "f", h, f); o[20] = h;
    CV("cvt.rni.s64.f32", "=l", "f", q, f); o[21] = (uint32_t)q; o[22] = (uint32_t)((uint64_t)q >> 32);
    CV("cvt.rni.f32.f32", "=f", "f", x, f); o[23] = __float_as_uint(x);
    CV("cvt.rmi.f32.f32", "=f", "f", x, f); o[24] = __float_as_uint(x);
    CV("cvt.rn.f32.f64", "=f", "d", x, d); o[25] = __float_as_uint(x);
    CV("cvt.rz.f32.f64", "=f", "d", x, d); o[26] = __float_as_uint(x);
    CV("cvt.rm.f32.f64", "=f", "d", x, d); o[27] = __float_as_uint(x);
    CV("cvt.rp.f32.f64", "=f", "d", x, d); o[28] = __float_as_uint(x);
    CV("cvt.rn.f32.s64", "=f", "l", x, l); o[29] = __float_as_uint(x);
    CV("cvt.rz.f32.s64", "=f", "l", x, l); o[30] = __float_as_uint(x);
    CV("cvt.rm.f32.s64", "=f", "l", x, l); o[31] = __float_as_uint(x);
    CV("cvt.rp.f32.s64", "=f", "l", x, l); o[32] = __float_as_uint(x);
    CV("cvt.rn.f32.u32", "=f", "r", x, u); o[33] = __float_as_uint(x);
    double y;
    CV("cvt.rn.f64.s64", "=d", "l", y, l); o[34] = (uint32_t)__double_as_longlong(y);
    o[35] = (uint32_t)((uint64_t)__double_as_longlong(y) >> 32);
    CV("cvt.rz.f16.s32", "=h", "r", h, (int32_t)u); o[36] = h;
    CV("cvt.sat.s8.s32", "=h", "r", h, (int32_t)u); o[37] = h;
    CV("cvt.sat.u16.s32", "=h", "r", h, (int32_t)u); o[38] = h;
    CV("cvt.s64.s16", "=l", "h", q, hu); o[39] = (uint32_t)q; o[40] = (uint32_t)((uint64_t)q >> 32);
    CV("cvt.u8.u32", "=h", "r", h, u); o[41] = h;
    CV("cvt.rna.tf32.f32", "=r", "f", r, f); o[42] = r;
    CV("cvt.ftz.f32.f32", "=f", "f", x, f); o[43] = __float_as_uint(x);
    CV("cvt.sat.f32.f32", "=f", "f", x, f); o[44] = __float_as_uint(x);
    CV("cvt.rzi.s32.f64", "=r", "d", s, d); o[45] = s;
    CV("cvt.rn.f16.f64", "=h", "d", h, d); o[46] = h;
    CV("cvt.f64.f32", "=d", "f", y, f); o[47] = (uint32_t)((uint64_t)__double_as_longlong(y) >> 29);
    CV("cvt.s8.s32", "=h", "r", h, (int32_t)u); o[56] = h;
    CV("cvt.u32.s8", "=r", "h", r, hu); o[57] = r;
#if __CUDA_ARCH__ >= 890
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(f), "f"(g)); o[48] = h;
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(h) : "f"(f), "f"(g)); o[49] = h;
    asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(h) : "r"(u)); o[50] = h;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(hu)); o[51] = r;
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(r) : "h"(hu)); o[52] = r;
    asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(f), "f"(g)); o[53] = h;
    asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(h) : "r"(u)); o[54] = h;
#endif
}
