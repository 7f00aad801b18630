/* host_launch.h - one launch's resources in host memory, for the backends
 * that run kernels on this CPU (cuda_ref/cpu and cuda_ref/ptx): set up once,
 * here, so both backends see the same memory, textures and surfaces.
 *
 *     vkrr_host_launch hl;
 *     if (vkrr_host_launch_prepare(r, &hl, &err) != VKRR_OK) ...;  // frees on failure
 *     run the kernel on hl.params (pointer words: host addresses of
 *     hl.alloc_addr; handle words: &hl.tex[k] / &hl.surf[k]);
 *     if (hl.fault) ...;   // a surface write faulted (the CPU backend's kernels)
 *     vkrr_host_launch_free(&hl);
 *
 * Allocations: each alloc's post buffer when the caller gave one (else a
 * scratch copy), filled with pre (zeros without).  Textures: vkrr_cutex
 * over pre with the captured sampler state; a texture over linear memory
 * (VKRR_TEXRES_LINEAR) reads its texels in order (tex1Dfetch, linear_count
 * of them), a pitch-2D one is an ordinary 2D image of its packed rows.
 * Surfaces: vkrr_cusurf over post (else scratch), filled with pre or
 * VKRR_SENTINEL_BYTE; a faulting write sets hl.fault.
 *
 * Errors: VKRR_ERR_FORMAT (a format/channel count CUDA arrays cannot hold),
 * VKRR_ERR_MISSING (a texture without contents), VKRR_ERR_NOMEM, and what
 * vkrr_replay_relocate says of the parameter block.
 * Ownership: hl owns its scratch buffers and tables; the replay's buffers
 * stay the caller's.
 */
#ifndef VKRR_HOST_LAUNCH_H
#define VKRR_HOST_LAUNCH_H

#include "cuda_texture.h"
#include "replay.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkrr_host_launch {
    uint8_t params[VKRR_ARGS_MAX_BYTES]; /* the relocated parameter block */
    uint64_t *alloc_addr;                /* [nallocs] host address of each allocation */
    vkrr_cutex *tex;                     /* the textures, in image order */
    uint32_t ntex;
    vkrr_cusurf *surf;                   /* the surfaces, in image order */
    uint32_t nsurf;
    int fault;                           /* set by a faulting surface write */
    void **scratch;                      /* buffers made here */
    uint32_t nscratch;
} vkrr_host_launch;

vkrr_status vkrr_host_launch_prepare(const vkrr_replay *r, vkrr_host_launch *hl, vkrr_error *err);

/* The launch the CPU backend runs (one at a time; NULL when none).  A kernel
 * compiled for the CPU reads a handle word as a pointer to its descriptor,
 * so a word the capture does not declare as a texture or surface (a damaged
 * manifest) would be a wild pointer: the accessors check it against the
 * current launch's descriptors first, and a stranger sets fault bit 2 and
 * reads zeros / writes nothing (no current launch: nothing to check). */
#define VKRR_HOST_FAULT_SURFACE 1
#define VKRR_HOST_FAULT_HANDLE 2
void vkrr_host_launch_current(vkrr_host_launch *hl);
bool vkrr_host_tex_ok(uint64_t handle);
bool vkrr_host_surf_ok(uint64_t handle);
void vkrr_host_launch_free(vkrr_host_launch *hl); /* accepts a zeroed or freed one */

#ifdef __cplusplus
}
#endif

#endif
