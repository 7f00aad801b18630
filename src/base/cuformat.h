/* cuformat.h - CUDA array formats and the number types vkrr compares in.
 *
 * The one table of CUarray_format codes (docs/capture-format.md): name, bytes
 * per channel, bytes per texel for a channel count, and the Vulkan format an
 * array maps to when read as normalized float or as integer.  And the exact
 * conversions of every element type to double, used by metrics and heatmaps:
 * f16, bf16, f32, unorm/snorm 8 and 16, e4m3 (NaN codes 0x7f/0xff included), e5m2
 * (the number formats themselves: fpformat.h, included here).
 *
 * Does NOT: touch files or devices.  All functions are pure.
 */
#ifndef VKRR_CUFORMAT_H
#define VKRR_CUFORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES /* only the types: entry points come from volk (vkbridge) */
#endif
#include <vulkan/vulkan_core.h>

#include "fpformat.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of compared data. */
typedef enum vkrr_dtype {
    VKRR_DT_BYTES = 0, /* opaque bytes: exact match only */
    VKRR_DT_F16,
    VKRR_DT_BF16,
    VKRR_DT_F32,
    VKRR_DT_E4M3,
    VKRR_DT_U8,
    VKRR_DT_S8,
    VKRR_DT_U16,
    VKRR_DT_S16,
    VKRR_DT_U32,
    VKRR_DT_S32,
    VKRR_DT_UNORM8,
    VKRR_DT_SNORM8,
    VKRR_DT_UNORM16,
    VKRR_DT_SNORM16,
    VKRR_DT_E5M2,      /* fp8 1-5-2: the top byte of an f16 (Inf 0x7c, NaN 0x7d..0x7f) */
    VKRR_DT_F64,
    VKRR_DT_S64,
    VKRR_DT_U64,
    VKRR_DT_COUNT
} vkrr_dtype;

const char *vkrr_dtype_name(vkrr_dtype t);           /* "f16", "e4m3", ... */
bool vkrr_dtype_parse(const char *name, vkrr_dtype *out); /* also i8 .. i64 for s8 .. s64 */
unsigned vkrr_dtype_size(vkrr_dtype t);              /* bytes per element; 1 for BYTES */
bool vkrr_dtype_is_float(vkrr_dtype t);              /* has ULPs: f16, bf16, f32, f64, e4m3, e5m2 */

/* Value of one element at p (little-endian), as double: exact, but for s64
 * and u64 beyond 2^53 (rounded to nearest).  NaN and Inf come through as NaN
 * and Inf. */
double vkrr_dtype_to_double(vkrr_dtype t, const void *p);

/* Ordered integer position of a float code, so that |a - b| is the distance
 * in ULPs; +0 and -0 map to the same position.  Only for float dtypes and
 * non-NaN codes. */
int64_t vkrr_dtype_ulp_index(vkrr_dtype t, const void *p);

/* The scalar conversions (f16, bf16, e4m3, e5m2 <-> f32) are fpformat.h's. */

/* CUarray_format codes. */
typedef struct vkrr_cuformat_info {
    unsigned code;
    const char *name;         /* "HALF", "UNORM_INT8X4", ... */
    unsigned channel_bytes;   /* bytes per channel */
    unsigned fixed_channels;  /* 0: channels come from the array; else 1, 2 or 4 */
    unsigned texel_bytes_override; /* non-zero: bytes per texel regardless (code 80) */
    vkrr_dtype norm_dtype;    /* element type when read as normalized float */
    vkrr_dtype int_dtype;     /* element type when read as integer */
} vkrr_cuformat_info;

/* NULL for an unknown or unsupported code. */
const vkrr_cuformat_info *vkrr_cuformat_find(unsigned code);

/* Checks code and channel count; VKRR_ERR_FORMAT with a message naming both
 * otherwise (err's file/line left for the caller to fill). */
vkrr_status vkrr_cuformat_check(unsigned code, unsigned channels, vkrr_error *err);

unsigned vkrr_cuformat_texel_bytes(unsigned code, unsigned channels); /* 0 when invalid */

/* The Vulkan format of an array read as normalized float (read_as_integer
 * false) or as integer; VK_FORMAT_UNDEFINED when invalid. */
VkFormat vkrr_cuformat_vk_format(unsigned code, unsigned channels, bool read_as_integer);

/* The element type the array's contents are compared in. */
vkrr_dtype vkrr_cuformat_dtype(unsigned code, bool read_as_integer);

/* PTX's formatted surface store (sust.p): n 32-bit values, R G B A, into one
 * texel of an array of `code` x `channels`.  The ISA takes each value as f32
 * for FLOAT, HALF, UNORM and SNORM arrays, u32 for UNSIGNED_INT ones and s32
 * for SIGNED_INT ones, converted to the array's channel type; the
 * conversions are not in the ISA, and these are vkrr's choice (Vulkan's and
 * Direct3D's rules, not measured on a GPU): f32 to f16 rounded to nearest
 * even; unorm and snorm: NaN is 0, clamped to [0, 1] or [-1, 1], times
 * 2^b-1 or 2^(b-1)-1, rounded to nearest even; integers saturated to the
 * channel's range.  Channels past n keep their bytes (the ISA: unpredictable
 * values).  False, writing nothing, for a format it cannot store (code 80). */
bool vkrr_cuformat_store_formatted(unsigned code, unsigned channels, const uint32_t *v, unsigned n,
                                   void *texel);
/* Its load (suld.p): the texel's channels R G B A as f32 (FLOAT, HALF
 * widened, UNORM v/(2^b-1), SNORM max(v/(2^(b-1)-1), -1), each one IEEE f32
 * division, as textures read them), u32 (UNSIGNED_INT) or s32 (SIGNED_INT);
 * channels the array lacks read 0 (as textures here; the ISA leaves them
 * to the format).  False for a format it cannot load (code 80). */
bool vkrr_cuformat_load_formatted(unsigned code, unsigned channels, const void *texel, uint32_t out[4]);

#ifdef __cplusplus
}
#endif

#endif
