/* view.h - how to look at a resource: element type and plane geometry.
 *
 * Compare and heatmap need to know what the bytes of an output are: a window
 * of an arena allocation holding P planes of W x H f16 values, an RGBA16F
 * surface, a small f32 buffer.  A view says so.  Kernels with a port (or a
 * known source) describe their outputs with a vkrr_describe_fn; anything
 * undescribed is compared as a flat run of bytes.
 */
#ifndef VKRR_VIEW_H
#define VKRR_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "cuformat.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkrr_view {
    vkrr_dtype dtype;
    uint64_t offset;      /* bytes into the resource where the window starts */
    uint32_t width;       /* elements per row (texels for images) */
    uint32_t height;      /* rows */
    uint32_t planes;      /* planes of width*height*channels elements, back to back */
    uint32_t channels;    /* interleaved channels per element (1 for planar data) */
} vkrr_view;

/* Describes the output a kernel writes through the pointer argument at
 * arg_offset: the window it writes, in its own type.  The window's offset is
 * relative to where the pointer points (usually 0); the caller adds the
 * pointer's delta into its allocation.  False when the argument is not an
 * output the function knows (inputs, unknown kernels). */
typedef bool (*vkrr_describe_fn)(const char *kernel, const uint8_t *args,
                                 uint32_t args_bytes, uint32_t arg_offset,
                                 vkrr_view *out);

/* Bytes covered by a view. */
static inline uint64_t vkrr_view_bytes(const vkrr_view *v)
{
    return (uint64_t)v->width * v->height * v->planes * v->channels * vkrr_dtype_size(v->dtype);
}

#ifdef __cplusplus
}
#endif

#endif
