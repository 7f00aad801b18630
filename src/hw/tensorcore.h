/* tensorcore.h - which tensor-core arithmetic the current hardware model's
 * GPU has: the parameters of the sum of a floating-point mma/wmma (F, the
 * halves of k, sm_89's 13-bit fp8, or the `rounded` model), read from its
 * architecture (vkrr_hw_model_arch).  One place for that mapping: the PTX
 * path's sum (cuda_ref/ptx/isa/ptx_mma_sum.c, whose top comment states the
 * model) and the Vulkan ports' (vkbridge sets shaders/common/tensorcore.glsl's
 * specialisation constants from it) both read it here.
 * Does NOT: compute a sum. */
#ifndef VKRR_TENSORCORE_H
#define VKRR_TENSORCORE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct vkrr_tensorcore {
    int frac;     /* F: fraction bits the terms keep: 23 before sm_75, 24 to sm_89, 25 from sm_90 */
    bool split;   /* sm_80-sm_89: the split shapes (k16 f16/bf16, k8 tf32, k32 fp8) in two halves of k */
    bool ada;     /* sm_89: fp8 terms and an f32 d keep 13 fraction bits */
    bool rounded; /* the `rounded` model: the exact sum rounded once */
} vkrr_tensorcore;

/* The current hardware model's (vkrr_hw_current; none: sm_90's) */
vkrr_tensorcore vkrr_tensorcore_current(void);

/* shaders/common/tensorcore.glsl's specialisation constants 5-8 for the fp8
 * forms under tc: F, halves (1 or 2), rounded (0/1), an f32 d's fraction bits */
void vkrr_tensorcore_glsl_fp8(const vkrr_tensorcore *tc, uint32_t spec[4]);

#endif
