/* replay.h - one launch, ready to run on any backend, and the backend interface.
 *
 * Every execution path (the Vulkan port, the original kernels on the CPU, the
 * original kernels through libcuda) is a vkrr_backend: a struct of function
 * pointers.  The validator never knows which one it drives.  A vkrr_replay is a
 * launch with its inputs in host memory (usually mapped capture files) and
 * caller-provided output storage:
 *
 *     vkrr_replay r;                       // from vkrr_replay_from_capture()
 *     backend.run(backend.self, &r, &err); // fills every alloc's and surface's post
 *
 * The backend creates its own resources for the launch (allocations with the
 * pre contents; textures from their contents and sampler state; surfaces
 * filled with pre, or with VKRR_SENTINEL_BYTE when pre is NULL), rewrites the
 * parameter block with vkrr_replay_relocate() (one relocation for every
 * backend: pointer words -> new address + delta, handle words -> what names
 * the image on the new side), launches with the recorded grid/block/shared
 * bytes, and copies every allocation and every surface back into post.
 *
 * Ownership: the caller owns every buffer in a vkrr_replay; a backend keeps no
 * pointer into it after run() returns.
 */
#ifndef VKRR_REPLAY_H
#define VKRR_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Surfaces with no known contents start as this byte everywhere, so texels a
 * kernel never wrote can be told apart (0xFFFF is a NaN in f16, 0xFFFFFFFF in f32). */
#define VKRR_SENTINEL_BYTE 0xFFu

typedef struct vkrr_replay_alloc {
    uint64_t base;           /* base address in the capture (identity) */
    uint64_t size;
    const void *pre;         /* size bytes before the launch */
    void *post;              /* size bytes, written by the backend; NULL: not wanted */
} vkrr_replay_alloc;

typedef struct vkrr_replay_image {
    uint32_t offset;         /* handle word in args */
    vkrr_image_kind kind;
    uint64_t handle;         /* the captured handle value */
    uint32_t width, height, channels, format;
    vkrr_sampler sampler;
    const void *pre;         /* texture: contents; surface: initial contents or NULL (sentinel) */
    void *post;              /* surface: W*H*texel bytes written by the backend; NULL: not wanted */
} vkrr_replay_image;

typedef struct vkrr_replay {
    const char *kernel;
    uint32_t grid[3], block[3];
    uint32_t shared_bytes;
    const uint8_t *args;
    uint32_t args_bytes;
    vkrr_replay_alloc *allocs;
    uint32_t nallocs;
    const vkrr_pointer *pointers;  /* .alloc indexes allocs */
    uint32_t npointers;
    vkrr_replay_image *images;
    uint32_t nimages;
} vkrr_replay;

/* Writes the launch's parameter block into params (args_bytes bytes): args
 * with each pointer word replaced by alloc_addr[p.alloc] + p.delta and each
 * image handle word replaced by image_word[i].  Checks every offset. */
vkrr_status vkrr_replay_relocate(const vkrr_replay *r, const uint64_t *alloc_addr,
                                 const uint64_t *image_word, uint8_t *params,
                                 vkrr_error *err);

/* Bytes of one image's contents: width * height * texel bytes. */
uint64_t vkrr_replay_image_bytes(const vkrr_replay_image *im);

/* A replay of a captured launch: pre contents mapped from the capture, post
 * buffers allocated (allocations and surfaces).  Free with
 * vkrr_replay_capture_free().  Memory: the mapped inputs plus one copy of
 * every output. */
typedef struct vkrr_replay_storage vkrr_replay_storage;
vkrr_status vkrr_replay_from_capture(const vkrr_capture *cap, const vkrr_launch *l,
                                     vkrr_replay *r, vkrr_replay_storage **st,
                                     vkrr_error *err);
void vkrr_replay_capture_free(vkrr_replay_storage *st); /* accepts NULL */

typedef struct vkrr_backend {
    const char *name;        /* "vulkan", "cpu", "cuda" */
    void *self;
    /* true when the backend can run this kernel (a port, a CPU kernel, a module) */
    bool (*has_kernel)(void *self, const char *kernel);
    vkrr_status (*run)(void *self, vkrr_replay *r, vkrr_error *err);
    void (*destroy)(void *self);  /* accepts NULL self */
} vkrr_backend;

#ifdef __cplusplus
}
#endif

#endif
