/* stress_values.h - element values for vkrr stress (stress.c). */
#ifndef VKRR_STRESS_VALUES_H
#define VKRR_STRESS_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuformat.h"

/* f16, bf16, f32, f64, e4m3, e5m2 */
bool vkrr_stress_is_float(vkrr_dtype t);
/* v as type t's bits: floats rounded to nearest (e4m3 saturating), integers
 * clamped to the type's range (NaN: 0). */
uint64_t vkrr_stress_encode(vkrr_dtype t, double v);
/* The values a kernel's edge cases live at, as t's bits (at most 32 into
 * out): +-0, +-Inf, NaN, the largest finite, subnormals, the smallest
 * normal, 1, -1, f16's 65504/65520 and e4m3's 448/464 in the wider types;
 * for integers 0, 1, 2, all ones, the top bit, the largest signed. */
uint32_t vkrr_stress_specials(vkrr_dtype t, uint64_t *out);
/* "-inf (0xff800000)", "448 (0x43e00000)", "17" */
void vkrr_stress_format(vkrr_dtype t, uint64_t bits, char *buf, size_t cap);

#endif
