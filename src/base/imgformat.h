/* imgformat.h - the Vulkan image formats a port may bind a CUDA array as,
 * and which of them hold the array's texels bit for bit.
 *
 * An `interface own` port (portiface.h) binds a texture's or surface's CUDA
 * array as a storage image, sampled image or combined image sampler in a
 * format of its choosing, named as GLSL's image format qualifiers name them
 * (`rgba16f`, `r32f`, `rgba8`, `rgba8ui`, ...; SPIR-V's ImageFormat, which
 * reflection reports for storage images).  This is the one table of those
 * formats and the one rule for which CUarray format x channel count each
 * fits (docs/own-interface.md "CUarray formats and Vulkan formats"):
 *
 *   BITCOPY  same channel count, same bytes a channel, and the format reads
 *            the channel's bits as the array stores them: the integer type
 *            itself or the normalized type CUDA reads it as (an UNSIGNED_INT8
 *            array as rgba8ui or rgba8), f16 as *16f, f32 as *32f.  The
 *            captured bytes go in and come out unchanged.
 *   CONVERT  same channel count, a float format (*16f, *32f), and an array
 *            CUDA reads as float (HALF, FLOAT, the 8- and 16-bit integers
 *            read normalized, UNORM_INT_101010_2's RGBA32F backing): each
 *            value is converted to the format going in and back to the
 *            array's type coming out, so the comparison is in the array's
 *            own type.
 *   NONE     anything else (a 32-bit integer array as a float image, a
 *            channel count that differs): refused.
 *
 * Does NOT: create images or convert texels (vkbridge).  Pure functions.
 */
#ifndef VKRR_IMGFORMAT_H
#define VKRR_IMGFORMAT_H

#include <stdbool.h>

#include "cuformat.h"

typedef struct vkrr_imgformat {
    const char *name;         /* GLSL qualifier: "rgba16f" */
    unsigned spv;             /* SPIR-V ImageFormat (SpvImageFormatRgba16f = 2) */
    VkFormat vk;
    unsigned channels;        /* 1, 2 or 4 */
    unsigned texel_bytes;
    vkrr_dtype dtype;         /* each channel's type; VKRR_DT_BYTES when packed */
} vkrr_imgformat;

typedef enum vkrr_imgmap { VKRR_IMGMAP_NONE = 0, VKRR_IMGMAP_BITCOPY, VKRR_IMGMAP_CONVERT } vkrr_imgmap;

/* The i-th format of the table, NULL past its end (to walk it). */
const vkrr_imgformat *vkrr_imgformat_at(unsigned i);
/* By GLSL name / by SPIR-V ImageFormat; NULL when not in the table. */
const vkrr_imgformat *vkrr_imgformat_find(const char *name);
const vkrr_imgformat *vkrr_imgformat_of_spv(unsigned spv);

/* How a CUDA array of code x channels maps onto f (NONE for an invalid
 * array too). */
vkrr_imgmap vkrr_imgformat_map(unsigned code, unsigned channels, const vkrr_imgformat *f);
const char *vkrr_imgmap_name(vkrr_imgmap m); /* "bitcopy", "convert", "none" */

/* A CONVERT pairing's texels, n of them, from the array's bytes into f's
 * (in) and back (out).  In: each channel as CUDA reads it as float (f16
 * widened, unorm v/(2^b-1), snorm max(v/(2^(b-1)-1), -1), each one IEEE f32
 * division), then f32 kept or rounded to f16 (nearest even).  Out: f16
 * widened, then stored as vkrr_cuformat_store_formatted stores a formatted
 * surface write (f16 rounded to nearest even; unorm/snorm clamped and
 * rounded, NaN 0).  -0.0 stays -0.0 where the type has it; a NaN keeps its
 * payload going wider (f16 -> f32) and becomes 0x7fff going narrower (what
 * the f16 store gives).  False, writing nothing, for a pairing that is not
 * CONVERT or an array of code 80. */
bool vkrr_imgformat_convert_in(unsigned code, unsigned channels, const vkrr_imgformat *f,
                               const void *array_texels, void *image_texels, uint64_t n);
bool vkrr_imgformat_convert_out(unsigned code, unsigned channels, const vkrr_imgformat *f,
                                const void *image_texels, void *array_texels, uint64_t n);

#endif
