/* mma_sum_ref.h - the pre-SIMD tensor-core sum (mma_sum_ref.c), the oracle
 * of test_mma_sum_simd and the baseline of bench/mma_sum_bench: d's bits of
 * d = c + sum a[k] b[k] under the current hardware model, as ptx_dot_sum
 * gave them before it was rewritten in integers. */
#ifndef VKRR_MMA_SUM_REF_H
#define VKRR_MMA_SUM_REF_H

#include "ptx_mma_sum.h"

uint32_t mma_sum_ref(const ptx_dot *d);

#endif
