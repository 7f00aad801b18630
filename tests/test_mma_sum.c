/* test_mma_sum: the tensor-core sum (cuda_ref/ptx/isa/ptx_mma_sum.c, ptx_dot_sum)
 * called directly, on what the mma tests' kernels do not reach: Inf and NaN
 * among the products with f32 and f16 results, and the `rounded` model's
 * exact fp8 sum for .e5m2 (its codes, its Inf and NaN, and a cancellation a
 * sum in doubles would lose) and for .e4m3 (a tie a sum in doubles would
 * make).  Every expected value is worked by hand in the
 * comment beside it. */
#include <string.h>

#include "hw_model.h"
#include "ptx_internal.h"
#include "ptx_mma_sum.h"
#include "testutil.h"

/* d = c + a[0] b[0] + a[1] b[1] + a[2] b[2], the other products 0 */
static uint32_t dot3(ptx_dot_type t, bool d16, const uint32_t a[3], const uint32_t b[3], uint32_t c)
{
    ptx_dot d;
    memset(&d, 0, sizeof d);
    d.ta = d.tb = t;
    d.n = t == DOT_E4M3 || t == DOT_E5M2 ? 32 : 16; /* m16n8k32 fp8, m16n8k16 f16 */
    for (int k = 0; k < 3; k++)
        d.a[k] = a[k], d.b[k] = b[k];
    d.c = c;
    d.c16 = d.d16 = d16;
    return ptx_dot_sum(&d);
}

/* The measured model (sm_90, the default): Inf and NaN pass through as
 * IEEE's sum gives them, with the sign. */
static void check_special(void)
{
    /* f16 -Inf (0xfc00) x 1.0 (0x3c00): -Inf, f32 0xff800000, f16 0xfc00 */
    CHECK_EQ_U64(dot3(DOT_F16, false, (uint32_t[]){0xfc00, 0, 0}, (uint32_t[]){0x3c00, 0, 0}, 0),
                 0xff800000u);
    CHECK_EQ_U64(dot3(DOT_F16, true, (uint32_t[]){0xfc00, 0, 0}, (uint32_t[]){0x3c00, 0, 0}, 0),
                 0xfc00u);
    /* +Inf x 1.0 + 5.0: +Inf */
    CHECK_EQ_U64(dot3(DOT_F16, false, (uint32_t[]){0x7c00, 0, 0}, (uint32_t[]){0x3c00, 0, 0},
                      0x40a00000u),
                 0x7f800000u);
    CHECK_EQ_U64(dot3(DOT_F16, true, (uint32_t[]){0x7c00, 0, 0}, (uint32_t[]){0x3c00, 0, 0}, 0),
                 0x7c00u);
    /* Inf x 0: NaN, the canonical one of each width */
    CHECK_EQ_U64(dot3(DOT_F16, false, (uint32_t[]){0x7c00, 0, 0}, (uint32_t[]){0, 0, 0}, 0),
                 0x7fffffffu);
    CHECK_EQ_U64(dot3(DOT_F16, true, (uint32_t[]){0x7c00, 0, 0}, (uint32_t[]){0, 0, 0}, 0),
                 0x7fffu);
    /* +Inf + -Inf: NaN */
    CHECK_EQ_U64(dot3(DOT_F16, false, (uint32_t[]){0x7c00, 0xfc00, 0}, (uint32_t[]){0x3c00, 0x3c00, 0},
                      0),
                 0x7fffffffu);
}

/* The `rounded` model: the exact sum rounded once.  fp8 factors are
 * integers times a power of two, summed exactly. */
static void check_rounded_fp8(void)
{
    vkrr_hw_model *r = NULL;
    vkrr_error err = {0};
    CHECK(vkrr_hw_model_open(&(vkrr_hw_choice){.approx = "rounded"}, &r, &err) == VKRR_OK);
    if (!r)
        return;
    vkrr_hw_use(r);
    /* e5m2 0x3d: exponent 15 (bias 15), fraction .01 = 1.25; 1.25^2 = 1.5625,
     * f32 0x3fc80000 */
    CHECK_EQ_U64(dot3(DOT_E5M2, false, (uint32_t[]){0x3d, 0, 0}, (uint32_t[]){0x3d, 0, 0}, 0),
                 0x3fc80000u);
    /* e5m2 0x7b = 1.75 * 2^15 = 57344 (the largest), 0x01 = 2^-16 (the least
     * subnormal), 0xfb = -57344: 57344^2 + 2^-32 - 57344^2 = 2^-32 exactly,
     * f32 0x2f800000 (2^-32: biased exponent 95).  A sum in doubles loses
     * the 2^-32 beside 57344^2 (~2^31.6: 63 bits apart) and gives +0. */
    CHECK_EQ_U64(dot3(DOT_E5M2, false, (uint32_t[]){0x7b, 0x01, 0xfb}, (uint32_t[]){0x7b, 0x01, 0x7b},
                      0),
                 0x2f800000u);
    /* e5m2 0x7c is +Inf, 0xfc -Inf, 0x7e NaN: x 1.0 (0x3c) */
    CHECK_EQ_U64(dot3(DOT_E5M2, false, (uint32_t[]){0x7c, 0, 0}, (uint32_t[]){0x3c, 0, 0}, 0),
                 0x7f800000u);
    CHECK_EQ_U64(dot3(DOT_E5M2, false, (uint32_t[]){0xfc, 0, 0}, (uint32_t[]){0x3c, 0, 0}, 0),
                 0xff800000u);
    CHECK_EQ_U64(dot3(DOT_E5M2, false, (uint32_t[]){0x7e, 0, 0}, (uint32_t[]){0x3c, 0, 0}, 0),
                 0x7fffffffu);
    /* e4m3 has no Inf: 0x7f is NaN; 0x7e = 448 is finite: 448 x 1.0 (0x38) */
    CHECK_EQ_U64(dot3(DOT_E4M3, false, (uint32_t[]){0x7f, 0, 0}, (uint32_t[]){0x38, 0, 0}, 0),
                 0x7fffffffu);
    CHECK_EQ_U64(dot3(DOT_E4M3, false, (uint32_t[]){0x7e, 0, 0}, (uint32_t[]){0x38, 0, 0}, 0),
                 0x43e00000u);
    /* e4m3 0x78 = 256, 0x01 = 2^-9, c = 2^40 (f32 0x53800000): the sum is
     * 2^40 + 2^16 + 2^-18, half an f32 step (2^17) above 2^40 and a little
     * more, so rounded once it is 2^40 + 2^17, 0x53800001.  A double holds
     * 2^40 + 2^16 + 2^-18 only to 2^-12: it makes an exact tie of it, which
     * then rounds to even, 0x53800000 (what the exact fixed-point sum avoids). */
    CHECK_EQ_U64(dot3(DOT_E4M3, false, (uint32_t[]){0x78, 0x01, 0}, (uint32_t[]){0x78, 0x01, 0},
                      0x53800000u),
                 0x53800001u);
    vkrr_hw_use(NULL);
    vkrr_hw_model_close(r);
}

int main(void)
{
    vkrr_warn_set_stream(NULL);
    check_special();
    check_rounded_fp8();
    return test_finish("mma_sum");
}
