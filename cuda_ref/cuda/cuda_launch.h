/* cuda_launch.h - one captured launch's resources on the CUDA device.
 *
 *     vkrr_cu_launch L;
 *     vkrr_cu_launch_prepare(&dev, r, &L, &err);   // allocations, arrays, objects, parameters
 *     vkrr_cu_launch_start(&dev, r, fn, &L, stream, &err);   // cuLaunchKernel, asynchronous
 *     ... cuCtxSynchronize ...
 *     vkrr_cu_launch_read_back(&dev, r, &L, &err); // allocations and surfaces into r's posts
 *     vkrr_cu_launch_free(&dev, r, &L);
 *
 * prepare: a fresh cuMemAlloc per allocation filled with pre; a CUDA array
 * per image (captured format and channel count, surface-capable, filled with
 * its contents or VKRR_SENTINEL_BYTE), or device memory for a texture over
 * linear / pitch-2D memory; a texture object from the captured sampler state
 * or a surface object; the parameter block relocated (vkrr_replay_relocate).
 * Everything that is not the kernel itself happens here, so the kernel alone
 * can be timed (events around start()).
 * Errors name the kernel, the driver call and the CUresult text.
 * free() accepts a partly prepared launch; r must be the one it was prepared for.
 */
#ifndef VKRR_CUDA_LAUNCH_H
#define VKRR_CUDA_LAUNCH_H

#include "cuda_loader.h"
#include "replay.h"
#include "status.h"

/* The device a launch runs on: the driver table and the name errors give. */
typedef struct vkrr_cu_dev {
    const vkrr_cu_api *api;
    const char *name;
} vkrr_cu_dev;

typedef struct vkrr_cu_launch {
    vkrr_cu_deviceptr *dptr;  /* per allocation */
    vkrr_cu_array *arr;       /* per image: its CUDA array (NULL: linear memory) */
    uint64_t *word;           /* per image: its texture or surface object */
    unsigned *texel;          /* per image: bytes per texel */
    vkrr_cu_deviceptr *tmem;  /* per image: a linear texture's memory */
    uint64_t params[VKRR_ARGS_MAX_BYTES / 8]; /* relocated, 8-byte aligned as the driver wants */
    size_t psize;
} vkrr_cu_launch;

vkrr_status vkrr_cu_launch_prepare(const vkrr_cu_dev *d, const vkrr_replay *r, vkrr_cu_launch *L,
                                   vkrr_error *err);
/* The recorded grid, block and dynamic shared bytes on stream (NULL: the default). */
vkrr_status vkrr_cu_launch_start(const vkrr_cu_dev *d, const vkrr_replay *r, vkrr_cu_function fn,
                                 vkrr_cu_launch *L, vkrr_cu_stream stream, vkrr_error *err);
vkrr_status vkrr_cu_launch_read_back(const vkrr_cu_dev *d, const vkrr_replay *r,
                                     const vkrr_cu_launch *L, vkrr_error *err);
void vkrr_cu_launch_free(const vkrr_cu_dev *d, const vkrr_replay *r, vkrr_cu_launch *L);

/* "kernel K: CALL failed on DEVICE: CUresult text", status st. */
vkrr_status vkrr_cu_fail(const vkrr_cu_dev *d, vkrr_error *err, vkrr_status st, const char *kernel,
                         const char *call, vkrr_cu_result r);

#endif
