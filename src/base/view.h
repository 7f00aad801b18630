/* view.h - how to look at a resource: element type and plane geometry.
 *
 * Compare and heatmap need to know what the bytes of an output are: a window
 * of an arena allocation holding P planes of W x H f16 values, an RGBA16F
 * surface, a small f32 buffer.  A view says so.  A port's descriptor
 * (KERNEL.port, src/port/portdesc.h) gives the views of its outputs;
 * anything undescribed is compared as a flat run of elements.
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
    bool sentinel;        /* compared, the candidate started as VKRR_SENTINEL_BYTE (a
                           * surface): an all-sentinel element is "unwritten".  false (a
                           * buffer, which starts from its pre-launch bytes): such an
                           * element is a value like any other */
} vkrr_view;

/* Bytes covered by a view. */
static inline uint64_t vkrr_view_bytes(const vkrr_view *v)
{
    return (uint64_t)v->width * v->height * v->planes * v->channels * vkrr_dtype_size(v->dtype);
}

#ifdef __cplusplus
}
#endif

#endif
