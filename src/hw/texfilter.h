/* texfilter.h - the texture unit's bilinear filter, as measured on sm_90.
 *
 * CUDA documents linear filtering only as "9-bit fixed point with 8 bits of
 * fractional value".  The texture unit of an H200 does exactly this for a
 * 4-channel f16 CUarray with clamp addressing and unnormalized coordinates
 * (src/hw/README.md; every one of 107,712 filtered values of three captures
 * reproduced):
 *   1. xb = x - 0.5 (f32), i = floor(xb), A = floor((xb - i) 256 + 0.5)
 *      (0..256); likewise B;
 *   2. weights in 1/256, each product rounded to nearest even:
 *      w00 = rne((256-A)(256-B)/256), w10 = rne(A(256-B)/256),
 *      w01 = rne((256-A)B/256), w11 = rne(AB/256);
 *   3. the texels with a nonzero weight truncated toward zero to the grid
 *      2^(E-14), E the binary exponent of the largest of them;
 *   4. the exact sum of w t / 256, 5. rounded once to f16, ties away from
 *      zero, returned as f32.
 * Every backend that filters on the CPU (cuda_ref/device/cuda_texture.c)
 * calls this; shaders/common/tex.glsl does the same in GLSL (test_texfilter
 * checks them against each other on lavapipe).
 *
 * Not measured (vkrr keeps its f32 filter there, and says so:
 * vkrr_texfilter_unmeasured): other formats (8/16-bit normalized, f32, 1- and
 * 2-channel f16), wrap/mirror/border addressing, normalized coordinates,
 * linear memory; and, inside the measured case, non-finite texels (the f32
 * filter answers).  Negative texels follow step 3 toward zero (inferred: the
 * measurement held none).
 * The weights' 8 fraction bits are the model's parameter q (tables.tsv's
 * texfilter_bits, measured by `vkrr hw measure`'s texture survey).
 * Does NOT: address or fetch texels (cuda_texture.c does).  Pure functions
 * but vkrr_texfilter_bits, which reads the current hardware model.
 */
#ifndef VKRR_TEXFILTER_H
#define VKRR_TEXFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkrr_texcase {
    unsigned format, channels;   /* CUarray_format code */
    int filter;                  /* 0 point, 1 linear */
    int address[2];              /* 0 wrap, 1 clamp, 2 mirror, 3 border */
    bool normalized;
    bool linear_memory;          /* a texture over linear memory */
} vkrr_texcase;

/* True when c is filtered by the measured model (linear, 4-channel f16
 * CUarray, clamp, unnormalized). */
bool vkrr_texfilter_measured(const vkrr_texcase *c);
/* NULL when c is point-sampled or measured; else buf, saying what vkrr does
 * instead: "linear filtering of FLOAT x1 (wrap) is not measured on a GPU:
 * vkrr's f32 filter". */
const char *vkrr_texfilter_unmeasured(const vkrr_texcase *c, char *buf, size_t cap);

/* The weights' fraction bits q under the current hardware model
 * (hw_tables.h: 8 on sm_90, a measured set may say otherwise); the steps
 * above with 256 read as 2^q.  The _q forms take q; the others are q = 8. */
unsigned vkrr_texfilter_bits(void);
int vkrr_texfilter_fraction_q(float coord, unsigned q, long *texel);
void vkrr_texfilter_weights_q(int a, int b, unsigned q, int w[4]);
float vkrr_texfilter_f16_q(const uint16_t t[4], const int w[4], unsigned q);
float vkrr_texfilter_exact_q(const double t[4], const int w[4], unsigned q);

/* Step 1: the 8-bit fraction of a coordinate (0..256) and its texel. */
int vkrr_texfilter_fraction(float coord, long *texel);
/* Step 2: w[0..3] = w00, w10, w01, w11 for fractions A, B. */
void vkrr_texfilter_weights(int a, int b, int w[4]);
/* Steps 3-5 for one channel: texels t[0..3] (f16 codes, in w's order). */
float vkrr_texfilter_f16(const uint16_t t[4], const int w[4]);
/* The same steps on exact finite texel values of any format (what `vkrr hw
 * measure` tries on the formats that are not measured). */
float vkrr_texfilter_exact(const double t[4], const int w[4]);

#ifdef __cplusplus
}
#endif

#endif
