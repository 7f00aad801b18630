/* ptx_models.h - the warp instructions' definitions the CPU backend shares
 * with the PTX interpreter (and so with the JIT, which calls the same
 * handlers): one definition each, so a kernel compiled for the CPU
 * (cuda_cpu.h) computes exactly what its PTX does.  Declared here, beside
 * what the kernels include; defined in cuda_ref/ptx beside the handlers that
 * use them (the files named below).
 *
 * Each takes the 32 lanes' registers of one instruction of a warp that runs
 * it with every lane (membermask 0xffffffff) and gives the lanes' results;
 * the interpreter's handlers call them on their register files, the CPU
 * backend on what each lane of a warp deposited (cpu_coop.h).
 *   - mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16: the ISA's
 *     fragment layouts (ptx_mma.c's top block) and the tensor-core sum of
 *     the current hardware model (ptx_mma_sum.h), one tile a call;
 *   - movmatrix.sync.aligned.m8n8.trans.b16 (ptx_ldmatrix.c);
 *   - shfl.sync's source lane for each mode (ptx_warp.c);
 *   - cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 (ptx_cvt.c's table).
 * Thread-safe (no state beyond the cvt table, filled once).
 * Does NOT: check masks or lanes (the callers do), or know about warps.
 */
#ifndef VKRR_PTX_MODELS_H
#define VKRR_PTX_MODELS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* d = a b + c for the 32 lanes' fragments: a[lane][0..3] the four e4m3x4
 * registers of A, b[lane][0..1] those of B, c/d[lane][0..1] the two f16x2
 * registers of C and D. */
void vkrr_ptx_mma_e4m3_f16(const uint32_t a[32][4], const uint32_t b[32][2], const uint32_t c[32][2],
                           uint32_t d[32][2]);

/* The 8 x 8 b16 matrix in a[lane] (row lane/4, columns 2(lane%4) and +1,
 * the lower half the lower column), transposed into d in the same layout. */
void vkrr_ptx_movmatrix_trans(const uint32_t a[32], uint32_t d[32]);

/* shfl.sync's source lane for lane l: mode 0 up, 1 down, 2 bfly, 3 idx; b
 * the lane operand, c the clamp/segment operand.  *ok false (the lane
 * keeps its own value: the result is l) when the source is out of range. */
uint32_t vkrr_ptx_shfl_source(unsigned mode, uint32_t l, uint32_t b, uint32_t c, bool *ok);

/* cvt.rn.satfinite{.relu}.e4m3x2.f16x2 (e5m2 false) or .e5m2x2 of the
 * f16x2 a: the upper half's byte in bits 8-15, the lower's in bits 0-7. */
uint16_t vkrr_ptx_cvt_f8x2_f16x2(uint32_t a, bool e5m2, bool relu);

#ifdef __cplusplus
}
#endif

#endif
