/* exp2_grid.h - ex2's grid reference without a libm call each value
 * (approx.h's vkrr_hw_ex2_grid_ref; the tables in exp2_grid.c).
 *
 * The delta tables of ex2.approx.ftz.f32 are read at a warp's lanes'
 * inputs, a libm exp2 each: half of the model's time in an mma kernel's
 * epilogue.  Here 2^(+-j 2^-23), j = hi 2^12 + lo, is T[hi] P(lo) in
 * double: T a table of 2^11 libm values (glibc: under 1 ULP each) and P
 * the series of e^(lo ln2 2^-23) to its fifth term (|y| < 2^-11.5: what it
 * leaves out is under 2^-60), within 2^-49 of the exact value all told.
 * Rounding that to f32 gives the correctly rounded value, which is
 * vkrr_hw_grid_ref's (exact at every grid point: approx.c), unless it lies
 * within its error of a point halfway between two f32 values; there, and
 * only there, libm's value is used.  test_hw_model checks every grid point
 * of both tables against vkrr_hw_grid_ref.
 *
 *     const double *tab = vkrr_hw_ex2_grid_table(neg);   // once, for many values
 *     float ref = vkrr_hw_ex2_grid_ref_at(tab, neg, j);
 */
#ifndef VKRR_EXP2_GRID_H
#define VKRR_EXP2_GRID_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "approx.h"

/* T: 2^(hi 2^-11), or 2^(-hi 2^-11) where neg, hi < 2^11; filled once.
 * The negative table follows the positive one: table(true) is
 * table(false) + 2048. */
const double *vkrr_hw_ex2_grid_table(bool neg);

/* The series' step, ln2 2^-23, and the window about a halfway point where
 * libm's value is taken: r's low VKRR_EX2_DROP bits (those f32 drops)
 * within VKRR_EX2_NEAR of 2^(VKRR_EX2_DROP - 1) (r is within 2^-49
 * relative, under 16 of them).  approx_lanes.c's vector copies of this
 * function use the same. */
#define VKRR_EX2_LN2_ULP 0x1.62e42fefa39efp-24
#define VKRR_EX2_DROP 29
#define VKRR_EX2_NEAR 64

static inline float vkrr_hw_ex2_grid_ref_at(const double *tab, bool neg, uint32_t j)
{
    double y = (double)(j & 4095u) * (neg ? -VKRR_EX2_LN2_ULP : VKRR_EX2_LN2_ULP); /* lo ln2 2^-23 */
    double p = 1.0 + y * (1.0 + y * (0.5 + y * (1.0 / 6.0 + y * (1.0 / 24.0))));
    double r = tab[j >> 12] * p;
    uint64_t b;
    memcpy(&b, &r, 8);
    uint64_t low = b & ((UINT64_C(1) << VKRR_EX2_DROP) - 1u), half = UINT64_C(1) << (VKRR_EX2_DROP - 1);
    if (low > half - VKRR_EX2_NEAR && low < half + VKRR_EX2_NEAR)
        return vkrr_hw_grid_ref(neg ? VKRR_HWT_EX2_NEG : VKRR_HWT_EX2_POS, j);
    return (float)r;
}

#endif
