// mma_more_ops.cu - mma.sync on integers and tf32 for the PTX interpreter's
// tests (one warp; tests/test_ptx_mma.c computes D = A*B + C on its own).
// Fragments are gathered as the PTX ISA lays them out (g = lane / 4,
// t = lane % 4), from row-major A and column-major B (Bt, row n = column n).
//   k_mma_s8:   m16n8k32 .s8.s8 -> D, the same .satfinite -> Dsat; m16n8k16
//               .u8 (A's first 16 columns as unsigned) x .s8 -> D16.
//   k_mma_tf32: m16n8k8 .tf32 -> D; m16n8k4 (A's first 4 columns) -> D4.
//   k_mma_sub:  A 16 x 64 s4 and B 64 x 8 s4 (packed, low nibble first), the
//               same bits as 16 x 256 and 256 x 8 b1 (low bit first):
//               m16n8k64 .s4.s4 -> D, .satfinite -> Dsat; m16n8k32 .u4.s4 (first
//               32 columns) -> D32; m16n8k256 .b1 .xor.popc -> Dx; m16n8k128 .b1
//               .and.popc (first 128 columns) -> Da.
//   k_mma_m8:   the m8n8 shapes on one 8-row A and 8-column B of 16 bytes a row:
//               m8n8k16 .s8.s8 -> D8, m8n8k32 .u4.u4 -> D4, m8n8k128 .b1
//               .xor.popc -> D1.
//   k_mma_f64:  m8n8k4 .f64 on an 8 x 4 A and a 4 x 8 B (Bt 8 x 4) -> D;
//               k_mma_f64_rn/_rz/_rm/_rp the same with each rounding modifier.
//   k_movmatrix: an 8 x 8 b16 matrix M (row-major) in ldmatrix's layout,
//               movmatrix.trans'd, stored in the same layout -> T.
//   k_mma_sp:   sparse A (2:4): Ac 16 x K/2 f16 or bf16 (bf16 != 0; the kept
//               elements, row-major), Meta 16 x K/16 u16 (four bits a group of four
//               columns), Bt 8 x K of the same type, C 16 x 8 f32 -> D (f32):
//               m16n8k32 (k32 != 0, selector 1) or m16n8k16 (selector 2); each lane loads the metadata of
//               rows g and g + 8 as the ISA's holders do (k32: lanes 4g + 2 sel
//               + h, h the half of the row's groups; k16: lane 4g + sel); the
//               other lanes pass 0, metadata that faults if it were read.
//   k_mma_sp_tf32: sparse A (1:2) .tf32: Ac 16 x K/2 floats (the kept elements,
//               row-major), Meta 16 x K/8 u16 (four bits a pair of columns: 0x4
//               the first, 0xe the second), Bt 8 x K, C 16 x 8 -> D (f32):
//               m16n8k16 (k16 != 0, selector 1: lanes 4g + 2 + h hold the
//               metadata, h the half of the row's pairs) or m16n8k8 (selector 3:
//               lane 4g + 3); the other lanes pass 0, which faults if read.
//               A as the ISA's sparse tf32 tables: a0 (g, t), a1 (g + 8, t), a2
//               (g, t + 4), a3 (g + 8, t + 4) of Ac; B b_i (k = t + 4i, n = g)
//               (the k8 table; its k16 figure read as the same rule); C/D
//               c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1).
//   k_mma_884:  m8n8k4 .f16: four 8 x 4 A (row-major f16), four 4 x 8 B
//               (row-major f16), four 8 x 8 C (f32, and the same as f16 in Ch),
//               one product a quad pair, the fragments gathered as the PTX ISA's
//               tables give them (t = lane % 4, h = 4 for lanes 16-31):
//               A .row (t+h, i), .col (i+h, t); B .row (t, i+h), .col (i, t+h);
//               C/D .f16 (t+h, i); .f32 ((t&1)+(i&2)+h, (t&2)+(i&1)+(i&4)).
//               D[0..3]: .f32 d and c with A.B layouts row.row, row.col, col.row,
//               col.col; D[4]: row.row .f32 d from .f16 c; Dh[0]: row.col .f16
//               d and c; Dh[1]: col.row .f16 d and c.  Each 4 x 64 floats
//               or halves (product q's 8 x 8 row-major at 64 q).
#include <stdint.h>

extern "C" __global__ void k_mma_s8(const int8_t *A, const int8_t *Bt, const int *C, int *D, int *Dsat,
                                    int *D16)
{
    unsigned l = threadIdx.x, g = l / 4, t = l % 4;
    const uint32_t *A32 = (const uint32_t *)A, *B32 = (const uint32_t *)Bt;
    uint32_t a0 = A32[(g * 32 + 4 * t) / 4], a1 = A32[((g + 8) * 32 + 4 * t) / 4];
    uint32_t a2 = A32[(g * 32 + 16 + 4 * t) / 4], a3 = A32[((g + 8) * 32 + 16 + 4 * t) / 4];
    uint32_t b0 = B32[(g * 32 + 4 * t) / 4], b1 = B32[(g * 32 + 16 + 4 * t) / 4];
    int c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1];
    int c2 = C[(g + 8) * 8 + 2 * t], c3 = C[(g + 8) * 8 + 2 * t + 1];
    int d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
                 " {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
    D[(g + 8) * 8 + 2 * t] = d2;
    D[(g + 8) * 8 + 2 * t + 1] = d3;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3},"
                 " {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
    Dsat[g * 8 + 2 * t] = d0;
    Dsat[g * 8 + 2 * t + 1] = d1;
    Dsat[(g + 8) * 8 + 2 * t] = d2;
    Dsat[(g + 8) * 8 + 2 * t + 1] = d3;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6},"
                 " {%7, %8, %9, %10};"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
                 : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
    D16[g * 8 + 2 * t] = d0;
    D16[g * 8 + 2 * t + 1] = d1;
    D16[(g + 8) * 8 + 2 * t] = d2;
    D16[(g + 8) * 8 + 2 * t + 1] = d3;
}

extern "C" __global__ void k_mma_tf32(const float *A, const float *Bt, const float *C, float *D, float *D4)
{
    unsigned l = threadIdx.x, g = l / 4, t = l % 4;
    uint32_t a0 = __float_as_uint(A[g * 8 + t]), a1 = __float_as_uint(A[(g + 8) * 8 + t]);
    uint32_t a2 = __float_as_uint(A[g * 8 + t + 4]), a3 = __float_as_uint(A[(g + 8) * 8 + t + 4]);
    uint32_t b0 = __float_as_uint(Bt[g * 8 + t]), b1 = __float_as_uint(Bt[g * 8 + t + 4]);
    float c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1];
    float c2 = C[(g + 8) * 8 + 2 * t], c3 = C[(g + 8) * 8 + 2 * t + 1];
    float d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
                 " {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
    D[(g + 8) * 8 + 2 * t] = d2;
    D[(g + 8) * 8 + 2 * t + 1] = d3;
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, {%6},"
                 " {%7, %8, %9, %10};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(b0), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    D4[g * 8 + 2 * t] = d0;
    D4[g * 8 + 2 * t + 1] = d1;
    D4[(g + 8) * 8 + 2 * t] = d2;
    D4[(g + 8) * 8 + 2 * t + 1] = d3;
}

extern "C" __global__ void k_mma_sub(const uint32_t *A, const uint32_t *Bt, const int *C, int *D, int *Dsat,
                                     int *D32, int *Dx, int *Da)
{
    unsigned l = threadIdx.x, g = l / 4, t = l % 4;
    uint32_t a0 = A[g * 8 + t], a1 = A[(g + 8) * 8 + t], a2 = A[g * 8 + 4 + t], a3 = A[(g + 8) * 8 + 4 + t];
    uint32_t b0 = Bt[g * 8 + t], b1 = Bt[g * 8 + 4 + t];
    int c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1];
    int c2 = C[(g + 8) * 8 + 2 * t], c3 = C[(g + 8) * 8 + 2 * t + 1];
    int d[4];
#define STORE(P)                                                                                   \
    P[g * 8 + 2 * t] = d[0];                                                                       \
    P[g * 8 + 2 * t + 1] = d[1];                                                                   \
    P[(g + 8) * 8 + 2 * t] = d[2];                                                                 \
    P[(g + 8) * 8 + 2 * t + 1] = d[3];
    asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7},"
                 " {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
    STORE(D)
    asm volatile("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.s4.s32 {%0, %1, %2, %3},"
                 " {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
    STORE(Dsat)
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u4.s4.s32 {%0, %1, %2, %3}, {%4, %5}, {%6},"
                 " {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
    STORE(D32)
    asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0, %1, %2, %3},"
                 " {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
    STORE(Dx)
    asm volatile("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc {%0, %1, %2, %3}, {%4, %5},"
                 " {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1), "r"(c2), "r"(c3));
    STORE(Da)
#undef STORE
}

extern "C" __global__ void k_mma_m8(const uint32_t *A, const uint32_t *Bt, const int *C, int *D8, int *D4,
                                    int *D1)
{
    unsigned l = threadIdx.x, g = l / 4, t = l % 4;
    uint32_t a = A[g * 4 + t], b = Bt[g * 4 + t];
    int c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1], d0, d1;
    asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=r"(d0), "=r"(d1) : "r"(a), "r"(b), "r"(c0), "r"(c1));
    D8[g * 8 + 2 * t] = d0;
    D8[g * 8 + 2 * t + 1] = d1;
    asm volatile("mma.sync.aligned.m8n8k32.row.col.s32.u4.u4.s32 {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=r"(d0), "=r"(d1) : "r"(a), "r"(b), "r"(c0), "r"(c1));
    D4[g * 8 + 2 * t] = d0;
    D4[g * 8 + 2 * t + 1] = d1;
    asm volatile("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=r"(d0), "=r"(d1) : "r"(a), "r"(b), "r"(c0), "r"(c1));
    D1[g * 8 + 2 * t] = d0;
    D1[g * 8 + 2 * t + 1] = d1;
}

#define MMA_F64(NAME, RND)                                                                      \
    extern "C" __global__ void NAME(const double *A, const double *Bt, const double *C, double *D) \
    {                                                                                            \
        unsigned l = threadIdx.x, g = l / 4, t = l % 4;                                          \
        double a0 = A[g * 4 + t], b0 = Bt[g * 4 + t];                                            \
        double c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1], d0, d1;                         \
        asm volatile("mma.sync.aligned.m8n8k4.row.col" RND ".f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};" \
                     : "=d"(d0), "=d"(d1)                                                        \
                     : "d"(a0), "d"(b0), "d"(c0), "d"(c1));                                      \
        D[g * 8 + 2 * t] = d0;                                                                   \
        D[g * 8 + 2 * t + 1] = d1;                                                               \
    }
MMA_F64(k_mma_f64, "")
// the rounding modes: each kernel the same but for its modifier
MMA_F64(k_mma_f64_rn, ".rn")
MMA_F64(k_mma_f64_rz, ".rz")
MMA_F64(k_mma_f64_rm, ".rm")
MMA_F64(k_mma_f64_rp, ".rp")

extern "C" __global__ void k_mma_sp(const uint16_t *Ac, const uint16_t *Meta, const uint16_t *Bt,
                                    const float *C, float *D, int k32, int bf16)
{
    unsigned l = threadIdx.x, g = l / 4, t = l % 4;
    unsigned K = k32 ? 32 : 16, w = K / 16; // metadata u16 words a row
    // the metadata word this lane would hold if it were a holder
    unsigned h = k32 ? (t & 1) : 0;
    uint32_t e = Meta[g * w + h] | (uint32_t)Meta[(g + 8) * w + h] << 16;
    if (k32 ? (t >> 1) != 1 : t != 2)
        e = 0; // not a holder for the selectors below: metadata that would fault
    uint32_t a[4], b[4];
    for (unsigned r = 0; r < 4; r++) { // dense layout of K/2 columns
        unsigned row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        a[r] = Ac[row * (K / 2) + col] | (uint32_t)Ac[row * (K / 2) + col + 1] << 16;
        unsigned k = 2 * t + 8 * r;
        b[r] = Bt[g * K + k] | (uint32_t)Bt[g * K + k + 1] << 16;
    }
    float c[4] = {C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1], C[(g + 8) * 8 + 2 * t], C[(g + 8) * 8 + 2 * t + 1]};
    float d[4];
#define MMA_SP_K32(T)                                                                               \
    asm volatile("mma.sp.sync.aligned.m16n8k32.row.col.f32." T "." T ".f32 {%0, %1, %2, %3}, "     \
                 "{%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0x1;"            \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]),   \
                   "r"(b[3]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]), "r"(e))
#define MMA_SP_K16(T)                                                                               \
    asm volatile("mma.sp.sync.aligned.m16n8k16.row.col.f32." T "." T ".f32 {%0, %1, %2, %3}, "     \
                 "{%4, %5}, {%6, %7}, {%8, %9, %10, %11}, %12, 0x2;"                                \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),   \
                   "f"(c[3]), "r"(e))
    if (k32 && bf16)
        MMA_SP_K32("bf16");
    else if (k32)
        MMA_SP_K32("f16");
    else if (bf16)
        MMA_SP_K16("bf16");
    else
        MMA_SP_K16("f16");
    D[g * 8 + 2 * t] = d[0];
    D[g * 8 + 2 * t + 1] = d[1];
    D[(g + 8) * 8 + 2 * t] = d[2];
    D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

extern "C" __global__ void k_mma_sp_tf32(const float *Ac, const uint16_t *Meta, const float *Bt,
                                         const float *C, float *D, int k16)
{
    unsigned l = threadIdx.x, g = l / 4, t = l % 4;
    unsigned K = k16 ? 16 : 8, w = K / 8; // metadata u16 words a row
    unsigned h = k16 ? (t & 1) : 0;
    uint32_t e = Meta[g * w + h] | (uint32_t)Meta[(g + 8) * w + h] << 16;
    if (k16 ? (t >> 1) != 1 : t != 3)
        e = 0; // not a holder for the selectors below: metadata that would fault
    uint32_t a[4], b[4];
    for (unsigned r = 0; r < 4; r++) {
        unsigned row = g + 8 * (r & 1), col = t + 4 * (r >> 1);
        a[r] = __float_as_uint(Ac[row * (K / 2) + col % (K / 2)]);
        b[r] = __float_as_uint(Bt[g * K + (t + 4 * r) % K]);
    }
    float c[4] = {C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1], C[(g + 8) * 8 + 2 * t], C[(g + 8) * 8 + 2 * t + 1]};
    float d[4];
    if (k16)
        asm volatile("mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0x1;"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]),
                       "r"(b[3]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]), "r"(e));
    else
        asm volatile("mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                     "{%4, %5}, {%6, %7}, {%8, %9, %10, %11}, %12, 0x3;"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
                       "f"(c[3]), "r"(e));
    D[g * 8 + 2 * t] = d[0];
    D[g * 8 + 2 * t + 1] = d[1];
    D[(g + 8) * 8 + 2 * t] = d[2];
    D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

// The uniform-metadata case of a published sm_80 test of mma.sp m16n8k32 f16
// (f16 accumulators, selector 0): Ac[i][j] = i + j + 1, every group keeps
// columns 0 and 2 (0x8888), Bt[n][k] = n - k, C = 0 -> D (16 x 8 f16).
extern "C" __global__ void k_mma_sp_f16acc(const uint16_t *Ac, const uint16_t *Meta, const uint16_t *Bt,
                                           uint16_t *D)
{
    unsigned l = threadIdx.x, g = l / 4, t = l % 4;
    uint32_t e = Meta[g * 2 + (l & 1)] | (uint32_t)Meta[(g + 8) * 2 + (l & 1)] << 16;
    uint32_t a[4], b[4], d0, d1;
    for (unsigned r = 0; r < 4; r++) {
        unsigned row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        a[r] = Ac[row * 16 + col] | (uint32_t)Ac[row * 16 + col + 1] << 16;
        b[r] = Bt[g * 32 + 2 * t + 8 * r] | (uint32_t)Bt[g * 32 + 2 * t + 8 * r + 1] << 16;
    }
    asm volatile("mma.sp.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, "
                 "{%6, %7, %8, %9}, {%10, %11}, %12, 0x0;"
                 : "=r"(d0), "=r"(d1)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),
                   "r"(0u), "r"(0u), "r"(e));
    D[g * 8 + 2 * t] = d0 & 0xffffu;
    D[g * 8 + 2 * t + 1] = d0 >> 16;
    D[(g + 8) * 8 + 2 * t] = d1 & 0xffffu;
    D[(g + 8) * 8 + 2 * t + 1] = d1 >> 16;
}

extern "C" __global__ void k_movmatrix(const uint16_t *M, uint16_t *T)
{
    unsigned l = threadIdx.x, r = l / 4, c = 2 * (l % 4), d;
    unsigned a = M[r * 8 + c] | (unsigned)M[r * 8 + c + 1] << 16;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d) : "r"(a));
    T[r * 8 + c] = (uint16_t)d;
    T[r * 8 + c + 1] = (uint16_t)(d >> 16);
}

// m8n8k4 .f16 (see the header): the fragment formulas are the PTX ISA's
__device__ static void frag884_c32(unsigned l, unsigned i, unsigned *row, unsigned *col)
{
    unsigned t = l % 4, h = l >= 16 ? 4 : 0;
    *row = (t & 1) + (i & 2) + h;
    *col = (t & 2) + (i & 1) + (i & 4);
}

extern "C" __global__ void k_mma_884(const uint16_t *A, const uint16_t *B, const float *C, const uint16_t *Ch,
                                     float *D, uint16_t *Dh)
{
    unsigned l = threadIdx.x, q = (l % 16) / 4, t = l % 4, h = l >= 16 ? 4 : 0;
    const uint16_t *Aq = A + 32 * q, *Bq = B + 32 * q, *Chq = Ch + 64 * q;
    const float *Cq = C + 64 * q;
    uint16_t ar[4], ac[4], br[4], bc[4];
    for (unsigned i = 0; i < 4; i++) {
        ar[i] = Aq[(t + h) * 4 + i];
        ac[i] = Aq[(i + h) * 4 + t];
        br[i] = Bq[t * 8 + i + h];
        bc[i] = Bq[i * 8 + t + h];
    }
    uint32_t a[2][2], b[2][2]; /* [.row/.col][register] */
    for (unsigned r = 0; r < 2; r++) {
        a[0][r] = ar[2 * r] | (uint32_t)ar[2 * r + 1] << 16;
        a[1][r] = ac[2 * r] | (uint32_t)ac[2 * r + 1] << 16;
        b[0][r] = br[2 * r] | (uint32_t)br[2 * r + 1] << 16;
        b[1][r] = bc[2 * r] | (uint32_t)bc[2 * r + 1] << 16;
    }
    float c[8], d[8];
    uint32_t ch[4], dh[4];
    for (unsigned i = 0; i < 8; i++) {
        unsigned row, col;
        frag884_c32(l, i, &row, &col);
        c[i] = Cq[row * 8 + col];
    }
    for (unsigned r = 0; r < 4; r++)
        ch[r] = Chq[(t + h) * 8 + 2 * r] | (uint32_t)Chq[(t + h) * 8 + 2 * r + 1] << 16;
#define F32_F32(LAY, AL, BL)                                                                          \
    asm volatile("mma.sync.aligned.m8n8k4." LAY ".f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9},"  \
                 " {%10,%11}, {%12,%13,%14,%15,%16,%17,%18,%19};"                                    \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), \
                   "=f"(d[7])                                                                        \
                 : "r"(a[AL][0]), "r"(a[AL][1]), "r"(b[BL][0]), "r"(b[BL][1]), "f"(c[0]), "f"(c[1]),  \
                   "f"(c[2]), "f"(c[3]), "f"(c[4]), "f"(c[5]), "f"(c[6]), "f"(c[7]))
#define STORE_D(V)                                                                                    \
    for (unsigned i = 0; i < 8; i++) {                                                                \
        unsigned row, col;                                                                            \
        frag884_c32(l, i, &row, &col);                                                                \
        D[(V) * 256 + 64 * q + row * 8 + col] = d[i];                                                 \
    }
    F32_F32("row.row", 0, 0);
    STORE_D(0)
    F32_F32("row.col", 0, 1);
    STORE_D(1)
    F32_F32("col.row", 1, 0);
    STORE_D(2)
    F32_F32("col.col", 1, 1);
    STORE_D(3)
    asm volatile("mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9},"
                 " {%10,%11}, {%12,%13,%14,%15};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]), "=f"(d[6]), "=f"(d[7])
                 : "r"(a[0][0]), "r"(a[0][1]), "r"(b[0][0]), "r"(b[0][1]), "r"(ch[0]), "r"(ch[1]), "r"(ch[2]),
                   "r"(ch[3]));
    STORE_D(4)
#define STORE_DH(V)                                                                                   \
    for (unsigned r = 0; r < 4; r++) {                                                                \
        Dh[(V) * 256 + 64 * q + (t + h) * 8 + 2 * r] = (uint16_t)dh[r];                               \
        Dh[(V) * 256 + 64 * q + (t + h) * 8 + 2 * r + 1] = (uint16_t)(dh[r] >> 16);                   \
    }
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7},"
                 " {%8,%9,%10,%11};"
                 : "=r"(dh[0]), "=r"(dh[1]), "=r"(dh[2]), "=r"(dh[3])
                 : "r"(a[0][0]), "r"(a[0][1]), "r"(b[1][0]), "r"(b[1][1]), "r"(ch[0]), "r"(ch[1]), "r"(ch[2]),
                   "r"(ch[3]));
    STORE_DH(0)
    asm volatile("mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7},"
                 " {%8,%9,%10,%11};"
                 : "=r"(dh[0]), "=r"(dh[1]), "=r"(dh[2]), "=r"(dh[3])
                 : "r"(a[1][0]), "r"(a[1][1]), "r"(b[0][0]), "r"(b[0][1]), "r"(ch[0]), "r"(ch[1]), "r"(ch[2]),
                   "r"(ch[3]));
    STORE_DH(1)
}
