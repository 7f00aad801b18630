/* approx_lanes.h - ex2.approx.ftz.f32 and rcp.approx.ftz.f32 over a warp's
 * lanes, eight or four at a time in vectors (approx.c's
 * vkrr_approx_f32_many).
 *
 * Each lane is approx.c's law with a grid point whose delta is small:
 * ex2_ftz's 2^(+-i) E+-[j] and rcp_ftz's +-2^(1-e) C[xr], the reference
 * rounded to f32, the delta added to its bits (the references are positive:
 * ord() is the bits themselves), scaled by a power of two in double and
 * flushed.  On a CPU with AVX2, eight lanes at a time with the table
 * entries gathered (AVX2 intrinsics); elsewhere four at a time, the
 * entries loaded lane by lane and the arithmetic in GCC's vector extension
 * (SSE2 on x86-64).  Both do the same IEEE operations on the same values
 * and so give the same bits.  A lane these cannot do (out of the table's
 * range, a saturated entry whose value the exceptions list holds, for the
 * AVX2 path any entry not in -1..+1, ex2's reference next to a halfway
 * point) is left to the caller: its bit in the mask returned.
 * test_hw_sim's lanes_match checks every lane of both paths against the
 * one-value functions.
 *
 *     uint32_t rest = vkrr_approx_ex2_lanes(tab, p2, ref, x, y, n);
 *     for (unsigned k = 0; k < n; k++)
 *         if (rest >> k & 1)
 *             y[k] = ex2_ftz(t, x[k]);
 */
#ifndef VKRR_APPROX_LANES_H
#define VKRR_APPROX_LANES_H

#include <stdbool.h>
#include <stdint.h>

#include "hw_tables.h"

/* The byte of vkrr_hw_tables_delta2's copy p2 that holds point j. */
static inline const uint8_t *vkrr_approx_delta2_byte(const uint8_t *p2, uint32_t j)
{
    return p2 + vkrr_hw_delta2_pos(j) / 4;
}

/* The lanes' deltas: packed 2-bit codes p2 (vkrr_hw_tables_delta2), the
 * int8 table d where the code is 3. */
static inline int8_t vkrr_approx_delta_at(const uint8_t *p2, const int8_t *d, uint32_t j)
{
    uint32_t pos = vkrr_hw_delta2_pos(j);
    unsigned c = (p2[pos / 4] >> (2 * (pos % 4))) & 3u;
    return c < 3 ? (int8_t)((int)c - 1) : d[j];
}

/* n <= 32 lanes of ex2.approx.ftz.f32: tab, p2 and ref (exp2_grid.h's T)
 * indexed by the sign, [0] for x >= 0. */
uint32_t vkrr_approx_ex2_lanes(const int8_t *const tab[2], const uint8_t *const p2[2], const double *const ref[2],
                               const float *x, float *y, unsigned n);

/* n <= 32 lanes of rcp.approx.ftz.f32. */
uint32_t vkrr_approx_rcp_lanes(const int8_t *tab, const uint8_t *p2, const float *x, float *y, unsigned n);

/* Tests: the AVX2 lanes on (where the CPU has AVX2) or off (every CPU's
 * vectors); returns whether they are on. */
bool vkrr_approx_lanes_set_simd(bool on);

#endif
