/* exp2_grid.c - the table of exp2_grid.h, and approx.h's
 * vkrr_hw_ex2_grid_ref through it. */
#include "exp2_grid.h"

#include <math.h>
#include <pthread.h>

static double t[2][2048]; /* 2^(hi 2^-11) and 2^(-hi 2^-11), libm's: one array, [1] right after [0] (approx_lanes.c gathers from both at once) */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fill(void)
{
    for (int hi = 0; hi < 2048; hi++) {
        t[0][hi] = exp2(hi * 0x1p-11);
        t[1][hi] = exp2(-hi * 0x1p-11);
    }
}

const double *vkrr_hw_ex2_grid_table(bool neg)
{
    pthread_once(&once, fill);
    return t[neg];
}

float vkrr_hw_ex2_grid_ref(bool neg, uint32_t j)
{
    return vkrr_hw_ex2_grid_ref_at(vkrr_hw_ex2_grid_table(neg), neg, j);
}
