// mma_sp8_ops.cu - sparse mma (mma.sp) on 8-bit and 4-bit A and B: .s8/.u8
// m16n8k32 and m16n8k64 and .s4/.u4 m16n8k64 and m16n8k128 (s32 accumulators),
// .e4m3/.e5m2 m16n8k64 (f32 accumulators, sm_89).
// test_ptx_mma_sp8 runs them against products it computes itself.
//
// Every kernel takes the fragments the way the PTX ISA lays them out (g = lane
// / 4, t = lane % 4), so the test can hand each lane exactly the registers it
// means it to hold:
//   Ac  16 x K/2 bytes, row-major: the kept elements of each row (4-bit: one
//       a byte, in its low nibble).  A register r (K/16 of them; 4-bit K/32)
//       holds row g + 8 (r % 2), kept elements 4t + 16 (r / 2) + {0..3}
//       (4-bit: 8t + 32 (r / 2) + {0..7}): the dense m16n8k(K/2) A layout.
//   E   32 words: lane l's metadata register is E[l] (which lane holds which
//       row's metadata is the test's to say).
//   Bt  8 x K bytes (B transposed; 4-bit: one a byte): register r (K/16 of
//       them; 4-bit K/32) holds column g, rows 4t + 16r + {0..3} (4-bit:
//       8t + 32r + {0..7}).
//   C/D 16 x 8: c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1).
//
// k_mma_sp8 (int32 C/D), variant:
//   0  m16n8k32 .s32.s8.s8.s32, selector 0
//   1  m16n8k32 .satfinite.s32.u8.s8.s32, selector 1
//   2  m16n8k64 .s32.s8.u8.s32 (selector 0, the only one)
//   3  m16n8k64 .sp::ordered_metadata .satfinite.s32.u8.u8.s32
// k_mma_sp4 (int32 C/D), variant:
//   0  m16n8k64 .s32.s4.s4.s32, selector 1
//   1  m16n8k128 .satfinite.s32.u4.s4.s32 (selector 0, the only one)
// k_mma_sp_fp8 (float C/D; empty in the compute_80 PTX), variant:
//   0  m16n8k64 .f32.e4m3.e4m3.f32
//   1  m16n8k64 .sp::ordered_metadata .f32.e5m2.e4m3.f32
#include <stdint.h>

// C's fragment from C (16 x 8), or with store D's into it
template <typename T> __device__ static void cd_frag(T *M, T f[4], bool store = false)
{
    unsigned l = threadIdx.x, g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 4; i++) {
        unsigned at = (g + 8 * (i / 2)) * 8 + 2 * t + i % 2;
        if (store)
            M[at] = f[i];
        else
            f[i] = M[at];
    }
}

// A's and B's registers for K and elements of `bits` bits (8 or 4; one a byte
// in Ac and Bt), as the header says
__device__ static void load_frags(const uint8_t *Ac, const uint8_t *Bt, unsigned K, unsigned bits, uint32_t a[4],
                                  uint32_t b[4])
{
    unsigned l = threadIdx.x, g = l / 4, t = l % 4, per = 32 / bits, mask = (1u << bits) - 1u;
    for (unsigned r = 0; r < K / (4 * per); r++) {
        unsigned row = g + 8 * (r % 2), kc = per * t + 4 * per * (r / 2), k = per * t + 4 * per * r;
        a[r] = 0;
        b[r] = 0;
        for (unsigned i = 0; i < per; i++) {
            a[r] |= (uint32_t)(Ac[row * (K / 2) + kc + i] & mask) << (bits * i);
            b[r] |= (uint32_t)(Bt[g * K + k + i] & mask) << (bits * i);
        }
    }
}

#define SP_ARGS_K32                                                                                 \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                                                \
    : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(e)
#define SP_ARGS_K64(OUT, IN)                                                                        \
    : OUT(d[0]), OUT(d[1]), OUT(d[2]), OUT(d[3])                                                    \
    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),       \
      IN(c[0]), IN(c[1]), IN(c[2]), IN(c[3]), "r"(e)

extern "C" __global__ void k_mma_sp8(const uint8_t *Ac, const uint32_t *E, const uint8_t *Bt, int *C, int *D,
                                     int variant)
{
    unsigned l = threadIdx.x, K = variant < 2 ? 32 : 64;
    uint32_t a[4], b[4], e = E[l];
    load_frags(Ac, Bt, K, 8, a, b);
    int c[4], d[4];
    cd_frag(C, c);
    if (variant == 0)
        asm volatile("mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, "
                     "{%6, %7}, {%8, %9, %10, %11}, %12, 0x0;" SP_ARGS_K32);
    else if (variant == 1)
        asm volatile("mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%0, %1, %2, %3}, "
                     "{%4, %5}, {%6, %7}, {%8, %9, %10, %11}, %12, 0x1;" SP_ARGS_K32);
    else if (variant == 2)
        asm volatile("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.u8.s32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0x0;"
                     SP_ARGS_K64("=r", "r"));
    else
        asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.u8.s32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0x0;"
                     SP_ARGS_K64("=r", "r"));
    cd_frag(D, d, true);
}

extern "C" __global__ void k_mma_sp4(const uint8_t *Ac, const uint32_t *E, const uint8_t *Bt, int *C, int *D,
                                     int variant)
{
    unsigned l = threadIdx.x, K = variant == 0 ? 64 : 128;
    uint32_t a[4], b[4], e = E[l];
    load_frags(Ac, Bt, K, 4, a, b);
    int c[4], d[4];
    cd_frag(C, c);
    if (variant == 0)
        asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0, %1, %2, %3}, "
                     "{%4, %5}, {%6, %7}, {%8, %9, %10, %11}, %12, 0x1;" SP_ARGS_K32);
    else
        asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.s4.s32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0x0;"
                     SP_ARGS_K64("=r", "r"));
    cd_frag(D, d, true);
}

extern "C" __global__ void k_mma_sp_fp8(const uint8_t *Ac, const uint32_t *E, const uint8_t *Bt, float *C,
                                        float *D, int variant)
{
#if __CUDA_ARCH__ >= 890
    unsigned l = threadIdx.x;
    uint32_t a[4], b[4], e = E[l];
    load_frags(Ac, Bt, 64, 8, a, b);
    float c[4], d[4];
    cd_frag(C, c);
    if (variant == 0)
        asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0x0;"
                     SP_ARGS_K64("=f", "f"));
    else
        asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e5m2.e4m3.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, 0x0;"
                     SP_ARGS_K64("=f", "f"));
    cd_frag(D, d, true);
#endif
}
