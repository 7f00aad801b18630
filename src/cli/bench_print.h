/* bench_print.h - what `vkrr bench` found, as a table and as JSON.
 *
 * cmd_bench.c measures into rows (one per launch) and frames, then:
 *     vkrr_bench_env_read(&env, &vk, ref, 0);    // devices, drivers, clocks before
 *     vkrr_bench_print_header(&args, cap, &env, &profile_stats);
 *     vkrr_bench_print_rows(cap, rows);
 *     vkrr_bench_print_frames(frames, nframes, ref != NULL);
 *     vkrr_bench_env_read(&env, &vk, ref, 1);    // clocks after
 *     vkrr_bench_print_clocks(&env, 1);
 *     vkrr_bench_write_json(&args, cap, &env, rows, frames, nframes);
 * A figure that is NAN prints as '-' (JSON null).
 */
#ifndef VKRR_BENCH_PRINT_H
#define VKRR_BENCH_PRINT_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"
#include "capture.h"
#include "replay.h"

typedef struct vkrr_bench_args {
    const char *dir, *device, *json, *ports, *modules;
    uint64_t runs;
    double timeout, warmup_max;
    bool ref_cuda, cuda_device_set;
    int cuda_device;
} vkrr_bench_args;

/* One launch on one side (the port, the original). */
typedef struct vkrr_bench_side {
    vkrr_bench_fig fig;
    const char *from; /* "measured", "run.log" (profiler lines: the median only); NULL: none */
    const char *note; /* "no port", "no module", "failed", "no timestamps"; NULL: none */
} vkrr_bench_side;

typedef struct vkrr_bench_row {
    vkrr_bench_side vk, cuda;
} vkrr_bench_row;

typedef struct vkrr_bench_frame {
    uint32_t frame, first, n, barriers;
    vkrr_bench_fig vk, cuda;     /* one command buffer, one stream */
    double vk_sum, cuda_sum;     /* the per-launch medians added up (NAN: one is missing) */
    const char *vk_note, *cuda_note;
} vkrr_bench_frame;

typedef struct vkrr_bench_env {
    const char *vk_device, *vk_driver, *cuda_device, *cuda_driver; /* NULL cuda_*: no --ref */
    char vk_clocks[2][192], cuda_clocks[2][192];                    /* [0] before, [1] after */
    bool different_gpus; /* both UUIDs known and not the same GPU */
} vkrr_bench_env;

/* when: 0 before the runs (everything), 1 after (the clocks). */
void vkrr_bench_env_read(vkrr_bench_env *env, const vkrr_backend *vk, const vkrr_backend *cuda, int when);
void vkrr_bench_print_header(const vkrr_bench_args *a, const vkrr_capture *cap, const vkrr_bench_env *env,
                             const vkrr_bench_profile_stats *ps);
void vkrr_bench_print_clocks(const vkrr_bench_env *env, int when);
void vkrr_bench_print_rows(const vkrr_capture *cap, const vkrr_bench_row *rows);
void vkrr_bench_print_frames(const vkrr_bench_frame *f, uint32_t n, bool cuda);
/* 0, or the exit code of a write error (said on stderr). */
int vkrr_bench_write_json(const vkrr_bench_args *a, const vkrr_capture *cap, const vkrr_bench_env *env,
                          const vkrr_bench_row *rows, const vkrr_bench_frame *frames, uint32_t nframes);

#endif
