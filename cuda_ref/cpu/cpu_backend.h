/* cpu_backend.h - the "cpu" vkrr_backend: the original rrref kernels run on
 * the CPU (cuda_cpu.h supplies the CUDA device API).
 *
 *     vkrr_backend cpu;
 *     if (vkrr_cpu_backend_create(&cpu, &err) != VKRR_OK) ...
 *     cpu.run(cpu.self, &replay, &err);
 *     cpu.destroy(cpu.self);
 *
 * Per launch: each allocation is a host copy of its pre contents (run in
 * place in post when post is given), textures read their pre contents with
 * the launch's sampler state, surfaces start from pre or VKRR_SENTINEL_BYTE;
 * the parameter block is relocated with vkrr_replay_relocate (pointer words ->
 * host addresses + delta, handle words -> addresses of texture/surface
 * descriptors), and the grid runs block by block on every core (VKRR_CPU_THREADS,
 * 1 to 64, overrides).
 *
 * Does NOT: run kernels it was not compiled with (has_kernel says which);
 * reproduce the GPU's approximate instructions or texture-unit internals
 * bit for bit (see cuda_cpu.h for what is exact and what is not).
 * Errors: VKRR_ERR_NO_PORT (unknown kernel), VKRR_ERR_SIZE (args size),
 * VKRR_ERR_FORMAT, VKRR_ERR_NOMEM, VKRR_ERR_DEVICE (a kernel wrote a surface
 * out of range), VKRR_ERR_FAULT (a handle word that names no texture or
 * surface; threads of a block that never met: cpu_coop.h).
 */
#ifndef VKRR_CPU_BACKEND_H
#define VKRR_CPU_BACKEND_H

#ifdef __cplusplus
extern "C" {
#endif

/* the project's C headers have no C++ guards of their own */
#include "replay.h"
#include "status.h"

vkrr_status vkrr_cpu_backend_create(vkrr_backend *out, vkrr_error *err);

#ifdef __cplusplus
}
#endif

#endif
