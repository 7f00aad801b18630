/* perturb.h - deliberate error injected into one launch's outputs, to see how
 * far it travels (`vkrr validate --perturb KERNEL[#OCC]=ULPS`).
 *
 *     vkrr_perturb p;
 *     if (!vkrr_perturb_parse("cuda_dldn_rrref_enc1_kernel#1=8", &p)) usage error;
 *     if (vkrr_perturb_matches(&p, launch)) vkrr_perturb_view(&view, data, bytes, p.ulps);
 *
 * What "ULPS" means: each element of a float type (f16, bf16, f32, e4m3) moves
 * ULPS steps along the ordered code line of its own type (vkrr_dtype_ulp_index:
 * +0 and -0 are one point), so +8 on an f16 output is exactly 8 ULP of error
 * wherever the element lies.  Deterministic.  NaN and Inf stay as they are
 * (they are not numbers to move), and a step that would leave the finite range
 * stops at the largest finite code, so a perturbation never creates NaN/Inf
 * mismatches on its own.  Integer types move by ULPS units, saturating.
 * Without #OCC the first occurrence (0) is perturbed: one launch, always.
 *
 * Does NOT allocate, print or know about backends.
 */
#ifndef VKRR_PERTURB_H
#define VKRR_PERTURB_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "view.h"

typedef struct vkrr_perturb {
    char kernel[256];
    uint32_t occurrence;
    int64_t ulps;          /* may be negative; 0 changes nothing */
} vkrr_perturb;

/* "KERNEL[#OCC]=ULPS"; false on anything else. */
bool vkrr_perturb_parse(const char *s, vkrr_perturb *out);
bool vkrr_perturb_matches(const vkrr_perturb *p, const vkrr_launch *l);

/* Moves one element (little-endian, dtype t) by ulps. */
void vkrr_perturb_element(vkrr_dtype t, void *elem, int64_t ulps);
/* Every element of the view's window of a resource of `bytes` bytes; false
 * (and nothing changed) when the window does not fit. */
bool vkrr_perturb_view(const vkrr_view *v, void *data, uint64_t bytes, int64_t ulps);

#endif
