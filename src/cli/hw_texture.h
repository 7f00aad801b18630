/* hw_texture.h - `vkrr hw measure`'s survey of the bilinear texture filter
 * (hw_texture.c): every format, channel count and address mode, on backend
 * be (libcuda on a GPU; the PTX interpreter in the tests), each value
 * compared with the measured model's steps and with vkrr's f32 filter.
 * Prints one line a case to out; *model_exact counts the cases the model
 * reproduces entirely.  First it measures the weights' fraction bits. */
#ifndef VKRR_HW_TEXTURE_H
#define VKRR_HW_TEXTURE_H

#include <stdio.h>

#include "replay.h"

typedef struct vkrr_hw_texcase_run {
    unsigned format, channels;
    int address;
    bool normalized;
} vkrr_hw_texcase_run;

typedef struct vkrr_hw_texcase_result {
    uint64_t values, model, f32;
    unsigned bits;               /* the weight fraction bits model counts */
} vkrr_hw_texcase_result;

/* *bits: the weights' fraction bits (texfilter.h) under which the modelled
 * case is reproduced entirely, first tried; 0 when no count does (the
 * survey then compares with 8). */
vkrr_status vkrr_hw_texture_survey(const vkrr_backend *be, uint32_t samples, FILE *out,
                                   unsigned *model_exact, unsigned *bits, vkrr_error *err);

#endif
