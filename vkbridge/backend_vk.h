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
 * A port whose KERNEL.port says `interface own` (portiface.h) gets none of
 * the above bindings: its shader is reflected when its module is made
 * (prepare) and refused where it does not match the descriptor, and each
 * launch binds the descriptor's views of its allocations, pushes its
 * constants, specialises and dispatches its grid (vkiface.c).
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
    bool no_builtin;       /* run only ports_dir's ports: a kernel without one has no port */
    bool validation;       /* Khronos validation layer (also env VKRR_VALIDATION=1) */
} vkrr_vk_desc;

vkrr_status vkrr_vk_backend_create(vkrr_backend *out, const vkrr_vk_desc *desc, vkrr_error *err);

/* The optional operations of the interface (replay.h) it has: stats (the
 * device name, validation messages, pipelines created and reused, device
 * rebuilds), last_gpu_ms (milliseconds between timestamps written right
 * before and after the dispatch, masked to timestampValidBits and scaled by
 * timestampPeriod; NaN without timestamps, before the first run or after a
 * failed one) and run_frame (the launches of a frame recorded into ONE
 * command buffer: each allocation made once by base address and each image
 * once by handle, a compute barrier only before a launch that uses a buffer
 * or surface an earlier launch since the last barrier used, timestamps
 * around all the dispatches).  `vkrr bench` uses the last two. */

#endif
