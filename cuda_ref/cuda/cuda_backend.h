/* cuda_backend.h - the original kernels on an NVIDIA GPU, through libcuda.
 *
 *     vkrr_backend be;
 *     vkrr_cuda_desc d = { .module_dir = "CAPDIR/modules" };
 *     if (vkrr_cuda_backend_create(&be, &d, &err) != VKRR_OK) ... // exit 3 without driver/GPU
 *     be.run(be.self, &replay, &err);
 *     be.destroy(be.self);
 *
 * libcuda.so.1 is dlopen'ed (cuda_loader.h), never linked.  A kernel is found
 * by name in module_dir's *.ptx / *.cubin / *.fatbin (cuda_modules.h; files
 * whose compressed fatbin entries cannot be searched are loaded and asked
 * through cuModuleGetFunction), each module loaded once per backend.
 *
 * run(): per launch, a fresh cuMemAlloc per allocation filled with pre; a
 * CUDA array per image (captured format and channel count, surface-capable,
 * filled with its contents or VKRR_SENTINEL_BYTE), a texture object from the
 * captured sampler state or a surface object; the parameter block relocated
 * (vkrr_replay_relocate) and passed whole with CU_LAUNCH_PARAM_BUFFER_*;
 * cuLaunchKernel with the recorded grid, block and dynamic shared bytes;
 * cuCtxSynchronize; every allocation and surface copied back into post; all
 * of it freed before returning.
 *
 * Errors: VKRR_ERR_NO_LIBRARY (no libcuda.so.1), VKRR_ERR_NO_DEVICE (no GPU),
 * VKRR_ERR_DEVICE (a driver call failed: the message names the kernel, the
 * call and the CUresult text), VKRR_ERR_MISSING (no module holds the kernel),
 * VKRR_ERR_FORMAT (an image format CUDA arrays cannot hold).
 * Ownership: the backend owns its context and modules; destroy() frees them.
 */
#ifndef VKRR_CUDA_BACKEND_H
#define VKRR_CUDA_BACKEND_H

#include "replay.h"
#include "status.h"

typedef struct vkrr_cuda_desc {
    const char *library;     /* NULL: $VKRR_LIBCUDA, else libcuda.so.1 */
    const char *module_dir;  /* *.ptx / *.cubin / *.fatbin; NULL: has_kernel() is always false */
    int device;              /* CUDA device ordinal; 0 by default */
} vkrr_cuda_desc;

vkrr_status vkrr_cuda_backend_create(vkrr_backend *out, const vkrr_cuda_desc *desc,
                                     vkrr_error *err);

#endif
