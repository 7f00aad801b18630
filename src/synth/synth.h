/* synth.h - `vkrr synth`: render the procedural scene, run rrref on it frame
 * by frame, and record everything as a capture.
 *
 *     vkrr_synth_stats stats;
 *     vkrr_synth_run(&(vkrr_synth_desc){ .dir = "cap", .width = 64, .height = 48 }, &stats, &err);
 *
 * What it writes (all into DIR.tmp-PID, renamed to DIR only when everything
 * succeeded, so DIR is never a partial capture):
 *   replay/, dump/, run/run.log   the launches, as the CUDA bridge records them
 *   modules/                      the rrref PTX/fatbin when the build made them
 *   preview/frame-K-{noisy,clean,denoised}.png   tone-mapped, for people
 *
 * The output is a function of (size, frames, seed, scene) only: two runs give
 * byte-identical directories.  DIR must not exist or be an empty directory,
 * unless force is set (then an existing DIR is replaced at the end).
 *
 * Does NOT: print anything except the progress lines it is asked for; all
 * errors come back through vkrr_error.
 */
#ifndef VKRR_SYNTH_H
#define VKRR_SYNTH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

#define VKRR_SYNTH_MAX_SIDE 16384u
#define VKRR_SYNTH_MAX_FRAMES 1000u

typedef struct vkrr_synth_desc {
    const char *dir;
    uint32_t width, height;       /* 0: 64 x 48 */
    uint32_t frames;              /* 0: 3 */
    uint64_t seed;                /* 0: 1 (seed 0 is not a value of its own) */
    const char *scene;            /* NULL: "default" */
    bool force;                   /* replace an existing non-empty dir */
    const char *module_dir;       /* NULL: rrref's modules in the data folder (datadir.h);
                                   * "": copy no modules */
    const char *backend;          /* NULL or "cpu": the CPU backend; "cuda": libcuda on an
                                   * NVIDIA GPU, loading the build's modules (exit 3 without) */
    FILE *progress;               /* NULL: quiet; else "frame i/N ..." lines */
    bool log_surface_arrays;      /* vkrr's extension lines naming each surface's array */
    const volatile sig_atomic_t *cancel; /* non-NULL and set: stop between frames */
} vkrr_synth_desc;

typedef struct vkrr_synth_stats {
    uint32_t frames;
    uint64_t launches;
    unsigned modules;             /* files copied into modules/ */
    /* RMSE against the clean image over RGB, linear, mean over frames;
     * and the same after the preview tone map (x/(1+x), gamma 2). */
    double rmse_noisy, rmse_denoised;
    double rmse_noisy_tm, rmse_denoised_tm;
} vkrr_synth_stats;

/* Fills the defaults of a desc (the zero values above). */
vkrr_synth_desc vkrr_synth_defaults(const vkrr_synth_desc *d);

vkrr_status vkrr_synth_run(const vkrr_synth_desc *desc, vkrr_synth_stats *stats,
                           vkrr_error *err);

#endif
