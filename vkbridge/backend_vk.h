/* backend_vk.h - the Vulkan port as a vkrr_backend (replay.h), name "vulkan".
 *
 *     vkrr_backend be;
 *     vkrr_vk_desc d = {.device = "0", .timeout_s = 10};
 *     if (vkrr_vk_backend_create(&be, &d, &err) != VKRR_OK) { ... exit 3 ... }
 *     if (be.has_kernel(be.self, r.kernel)) be.run(be.self, &r, &err);
 *     be.destroy(be.self);
 *
 * One launch (docs/capture-format.md "A launch, as vkrr replays it",
 * docs/architecture.md "CUDA on Vulkan", shaders/common/bindings.glsl):
 * a device buffer with SHADER_DEVICE_ADDRESS usage per allocation, filled from
 * pre; the parameter block (vkrr_replay_relocate: pointer words -> buffer
 * address + delta, handle words -> table index) at binding 0; textures as
 * VkImages of the mapped CUarray format in the binding 1/2/3 tables (float /
 * unsigned / signed reads) with a VkSampler from the captured state; surfaces
 * as MUTABLE_FORMAT images seen through an unsigned integer view of the same
 * texel size (bindings 4..8), filled with pre or VKRR_SENTINEL_BYTE; unused
 * slots hold 1x1 dummies.  Compute pipeline per (kernel, block), cached across
 * launches, local size from specialization constants 0,1,2; vkCmdDispatch(grid);
 * a fence wait bounded by the timeout (VKRR_ERR_TIMEOUT); every allocation and
 * surface read back into post where post is given.  Buffers live in mapped
 * device memory where the device has a DEVICE_LOCAL|HOST_VISIBLE|CACHED type
 * (vkmem.h), else a staging buffer carries them.  keeps_outputs: the last
 * launch's outputs (its buffers, its surfaces' read-back staging; textures,
 * images and upload staging are freed as soon as it finished) stay until the
 * next run(), release() or destroy(), and post_view points at them, so a
 * caller needs no copy of its own;
 * memory is bounded by one launch (a launch that timed out keeps its
 * resources until the device finishes it).  Dynamic shared memory
 * size is not passed to the shader: a port declares its shared arrays itself.
 *
 * Errors: VKRR_ERR_NO_LIBRARY (no libvulkan.so.1), VKRR_ERR_NO_DEVICE (selector
 * or missing feature, named), VKRR_ERR_NO_PORT, VKRR_ERR_FORMAT,
 * VKRR_ERR_TIMEOUT, VKRR_ERR_DEVICE (device lost: the device is recreated, so
 * later launches can still run).
 */
#ifndef VKRR_BACKEND_VK_H
#define VKRR_BACKEND_VK_H

#include <stdbool.h>

#include "replay.h"
#include "status.h"

typedef struct vkrr_vk_desc {
    const char *device;    /* --device INDEX|NAME; NULL: first discrete GPU, else any */
    double timeout_s;      /* per launch; 0: 60 */
    const char *ports_dir; /* NAME.spv files overriding the built-in ports; NULL: none */
    bool validation;       /* Khronos validation layer (also env VKRR_VALIDATION=1) */
} vkrr_vk_desc;

vkrr_status vkrr_vk_backend_create(vkrr_backend *out, const vkrr_vk_desc *desc, vkrr_error *err);

/* Introspection for tests and `vkrr info`-like output; self is vkrr_backend.self. */
typedef struct vkrr_vk_stats {
    const char *device_name;
    unsigned validation_messages; /* warnings/errors from the validation layer so far */
    unsigned pipelines_created;   /* pipelines compiled so far (cache misses) */
    unsigned pipeline_hits;       /* launches that reused a cached pipeline */
    unsigned device_recreated;    /* times the device was rebuilt after VK_ERROR_DEVICE_LOST */
} vkrr_vk_stats;
void vkrr_vk_backend_stats(void *self, vkrr_vk_stats *out);

/* GPU time of the last successful run(): milliseconds between timestamps
 * written right before and right after the dispatch (uploads and read-back
 * excluded), masked to the queue's timestampValidBits and scaled by
 * timestampPeriod.  NAN when the device has no timestamps, before the first
 * run, or after a run that failed.  For `vkrr bench`; self is vkrr_backend.self. */
double vkrr_vk_backend_last_gpu_ms(void *self);

/* The launches of a frame (in order) recorded into ONE command buffer: each
 * allocation made once by base address and each image once by handle
 * (uploaded from the first launch that uses it), a compute barrier only
 * before a launch that uses a buffer or surface an earlier launch since the
 * last barrier used, timestamps around all the dispatches (uploads
 * excluded).  Nothing is read back (posts untouched).  *gpu_ms: NAN without
 * timestamps; *barriers: how many were recorded.  For `vkrr bench`. */
vkrr_status vkrr_vk_backend_run_frame(void *self, vkrr_replay *const *r, uint32_t n,
                                      double *gpu_ms, uint32_t *barriers, vkrr_error *err);

#endif
