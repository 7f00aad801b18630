// mma_ops.cu - ldmatrix and mma.sync for the PTX interpreter's tests (one
// warp; tests/test_ptx_mma.c computes D = A*B + C on its own).
//   k_mma16:  A 16x16 f16 row-major, B 16x8 f16 row-major (k rows), C 16x8 f32;
//             A via ldmatrix.x4, B via ldmatrix.x2.trans; D f32 and (D16) f16
//             from an f16 C.
//   k_mma8:   (sm_89) A 16x32 e4m3 row-major, Bt 8x32 e4m3 (B column-major),
//             C 16x8 f32 -> D f32, and C16 f16 -> D16 f16.
#include <stdint.h>
#include <cuda_fp16.h>

extern "C" __global__ void k_mma16(const __half *A, const __half *B, const float *C, const __half *C16,
                                   float *D, __half *D16)
{
    __shared__ __align__(16) __half sA[16 * 16];
    __shared__ __align__(16) __half sB[16 * 8];
    unsigned l = threadIdx.x, g = l / 4, t = l % 4;
    for (unsigned k = l; k < 256; k += 32)
        sA[k] = A[k];
    for (unsigned k = l; k < 128; k += 32)
        sB[k] = B[k];
    __syncwarp();
    unsigned mi = l / 8, r = l % 8;
    uint32_t aaddr = (uint32_t)__cvta_generic_to_shared(&sA[((mi & 1) * 8 + r) * 16 + (mi >> 1) * 8]);
    uint32_t baddr = (uint32_t)__cvta_generic_to_shared(&sB[(l % 16) * 8]);
    uint32_t a0, a1, a2, a3, b0, b1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(aaddr));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b0), "=r"(b1) : "r"(baddr));
    float c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1];
    float c2 = C[(g + 8) * 8 + 2 * t], c3 = C[(g + 8) * 8 + 2 * t + 1];
    float d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
                 " {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
    D[(g + 8) * 8 + 2 * t] = d2;
    D[(g + 8) * 8 + 2 * t + 1] = d3;
    uint32_t h0, h1, e0, e1;
    __half2 p0 = __halves2half2(C16[g * 8 + 2 * t], C16[g * 8 + 2 * t + 1]);
    __half2 p1 = __halves2half2(C16[(g + 8) * 8 + 2 * t], C16[(g + 8) * 8 + 2 * t + 1]);
    h0 = *(uint32_t *)&p0;
    h1 = *(uint32_t *)&p1;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5},"
                 " {%6, %7}, {%8, %9};"
                 : "=r"(e0), "=r"(e1)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(h0), "r"(h1));
    *(uint32_t *)&D16[g * 8 + 2 * t] = e0;
    *(uint32_t *)&D16[(g + 8) * 8 + 2 * t] = e1;
}

extern "C" __global__ void k_mma8(const uint8_t *A, const uint8_t *Bt, const float *C, const __half *C16,
                                  float *D, __half *D16)
{
#if __CUDA_ARCH__ >= 890
    unsigned l = threadIdx.x, g = l / 4, t = l % 4;
    const uint32_t *A32 = (const uint32_t *)A, *B32 = (const uint32_t *)Bt;
    uint32_t a0 = A32[(g * 32 + 4 * t) / 4], a1 = A32[((g + 8) * 32 + 4 * t) / 4];
    uint32_t a2 = A32[(g * 32 + 16 + 4 * t) / 4], a3 = A32[((g + 8) * 32 + 16 + 4 * t) / 4];
    uint32_t b0 = B32[(g * 32 + 4 * t) / 4], b1 = B32[(g * 32 + 16 + 4 * t) / 4];
    float c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1];
    float c2 = C[(g + 8) * 8 + 2 * t], c3 = C[(g + 8) * 8 + 2 * t + 1];
    float d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
                 " {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
    D[(g + 8) * 8 + 2 * t] = d2;
    D[(g + 8) * 8 + 2 * t + 1] = d3;
    __half2 p0 = __halves2half2(C16[g * 8 + 2 * t], C16[g * 8 + 2 * t + 1]);
    __half2 p1 = __halves2half2(C16[(g + 8) * 8 + 2 * t], C16[(g + 8) * 8 + 2 * t + 1]);
    uint32_t h0 = *(uint32_t *)&p0, h1 = *(uint32_t *)&p1, e0, e1;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0, %1}, {%2, %3, %4, %5},"
                 " {%6, %7}, {%8, %9};"
                 : "=r"(e0), "=r"(e1)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(h0), "r"(h1));
    *(uint32_t *)&D16[g * 8 + 2 * t] = e0;
    *(uint32_t *)&D16[(g + 8) * 8 + 2 * t] = e1;
#endif
}
