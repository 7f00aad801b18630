/* vkrr synth OUTDIR [...]: make a capture from nothing, to try every other
 * command on (and to test them end to end). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "hw_model.h"
#include "scene.h"
#include "synth.h"

static const char synth_help[] =
    "usage: vkrr synth OUTDIR [--size WxH] [--frames N] [--seed S] [--scene NAME]\n"
    "                  [--backend cpu|cuda] [--approx WHICH] [--hw-tables DIR] [--force]\n"
    "                  [--progress] [--log-surface-arrays]\n"
    "\n"
    "Makes a capture without a GPU or any download: renders a procedural scene\n"
    "(edges, a sky gradient, 1-px wires, small bright lamps, a panning camera and\n"
    "one moving object) with Monte-Carlo-like noise, runs rrref, vkrr's reference\n"
    "CUDA denoiser, on it frame by frame, and records every kernel launch exactly\n"
    "as the CUDA bridge records a real one.  OUTDIR then holds:\n"
    "\n"
    "  replay/   one folder per launch: manifest.txt, args.bin, alloc-N.bin (inputs)\n"
    "  dump/     every launch's resources after it ran (what CUDA wrote)\n"
    "  run/run.log   the bridge's log, as d4r's bridge writes it with D4R_CUDA_VERBOSE=1\n"
    "            and D4R_CUDA_LAUNCH_STATS=1 (arrays, textures, sampler state, modules,\n"
    "            statistics), plus vkrr's device line\n"
    "  modules/  rrref's PTX and fatbins, when this build compiled them with nvcc, under\n"
    "            the bridge's names (dlss-module-PID-NNNN.ptx / .fatbin)\n"
    "  preview/frame-K-{noisy,clean,denoised}.png   to look at\n"
    "\n"
    "The same arguments always give byte-identical files.  The capture appears\n"
    "under OUTDIR only once complete (it is written to OUTDIR.tmp-PID first).\n"
    "\n"
    "  --size WxH      frame size, each side 1..16384 (default 64x48)\n"
    "  --frames N      frames, 1..1000; history carries over between them (default 3)\n"
    "  --seed S        seeds the scene, its noise and rrref's weights (default 1)\n"
    "  --scene NAME    default | stripes (high-frequency patterns) (default: default)\n"
    "  --backend cpu   runs the kernels on the CPU (default; the same .cu source)\n"
    "  --backend cuda  runs them through libcuda on an NVIDIA GPU (exit 3 without one)\n"
    "  --approx WHICH  the GPU the CPU backend stands for: auto (sm_90, the default) or\n"
    "                  sm_NN, whose tensor cores the fp8 mma sums follow and whose\n"
    "                  measured tables the approximate instructions (ex2, rcp, ...) and\n"
    "                  the bilinear filter follow (sm_90's, with a warning, when there\n"
    "                  are none), or rounded (correctly rounded stand-ins).  run.log's\n"
    "                  device line records it, so validate and rerun pick the same model.\n"
    "                  To compare a GPU capture with a CPU one byte for byte, give the\n"
    "                  GPU's architecture (scripts/gpu-check.sh does)\n"
    "  --hw-tables DIR measured tables (`vkrr hw measure` output) in DIR or DIR/sm_NN\n"
    "  --force         replace OUTDIR if it exists and is not empty\n"
    "  --progress      a line per frame on stderr (large frames) even when it is not a\n"
    "                  terminal (on a terminal always)\n"
    "  --log-surface-arrays  also log which array each surface writes (a vkrr extension\n"
    "                  line: the bridge cannot say it, and readers infer it), for a\n"
    "                  capture whose chain links are all logged\n"
    "\n"
    "Then:\n"
    "  vkrr info OUTDIR            list the launches, frames, resources, samplers\n"
    "  vkrr validate OUTDIR        replay every launch on the Vulkan port and compare\n"
    "\n"
    "Example:\n"
    "  vkrr synth /tmp/cap --size 1280x720 --frames 3 && vkrr validate /tmp/cap\n";

enum {
    O_FORCE, O_PROGRESS, O_LOG_SURFACE_ARRAYS, O_SIZE, O_FRAMES, O_SEED, O_SCENE, O_APPROX,
    O_HW_TABLES, O_BACKEND
};
static const vkrr_cli_opt synth_opts[] = {
    {"force", 0, false, O_FORCE, false},
    {"progress", 0, false, O_PROGRESS, false},
    {"log-surface-arrays", 0, false, O_LOG_SURFACE_ARRAYS, false},
    {"size", 0, true, O_SIZE, false},
    {"frames", 0, true, O_FRAMES, false},
    {"seed", 0, true, O_SEED, false},
    {"scene", 0, true, O_SCENE, false},
    {"backend", 0, true, O_BACKEND, false},
    {"approx", 0, true, O_APPROX, false},
    {"hw-tables", 0, true, O_HW_TABLES, false},
    {0},
};

/* The hardware model the CPU backend computes with (--approx, --hw-tables). */
typedef struct synth_hw {
    const char *approx, *tables;
} synth_hw;

/* One option into d or hw: 0, or the exit code of a usage error. */
static int take_option(int id, const char *v, vkrr_synth_desc *d, synth_hw *hw)
{
    uint64_t u;
    bool known = false;
    switch (id) {
    case O_FORCE: d->force = true; return 0;
    case O_PROGRESS: d->progress = stderr; return 0;
    case O_LOG_SURFACE_ARRAYS: d->log_surface_arrays = true; return 0;
    case O_SIZE:
        if (!vkrr_cli_parse_size(v, VKRR_SYNTH_MAX_SIDE, &d->width, &d->height))
            return vkrr_cli_usage_error("synth", "--size '%s': expected WxH, each 1..%u", v,
                                        VKRR_SYNTH_MAX_SIDE);
        return 0;
    case O_FRAMES:
        if (!vkrr_cli_parse_u64(v, VKRR_SYNTH_MAX_FRAMES, &u) || u == 0)
            return vkrr_cli_usage_error("synth", "--frames '%s': expected 1..%u", v,
                                        VKRR_SYNTH_MAX_FRAMES);
        d->frames = (uint32_t)u;
        return 0;
    case O_SEED:
        if (!vkrr_cli_parse_u64(v, UINT64_MAX, &u) || u == 0)
            return vkrr_cli_usage_error("synth", "--seed '%s': expected a number >= 1", v);
        d->seed = u;
        return 0;
    case O_SCENE:
        for (const char *const *n = vkrr_scene_names(); *n; n++)
            known |= !strcmp(*n, v);
        if (!known)
            return vkrr_cli_usage_error("synth", "--scene '%s': scenes are default, stripes", v);
        d->scene = v;
        return 0;
    case O_APPROX: hw->approx = v; return 0; /* checked by open_model */
    case O_HW_TABLES: hw->tables = v; return 0;
    default: /* O_BACKEND */
        if (strcmp(v, "cpu") && strcmp(v, "cuda"))
            return vkrr_cli_usage_error("synth", "--backend '%s': cpu or cuda", v);
        d->backend = v;
        return 0;
    }
}

/* The model --approx / --hw-tables ask for, made current; *m NULL when
 * neither was given (the default model, sm_90's).  An architecture without
 * measured tables is not refused, as validate's --approx refuses it: synth's
 * tensor cores are the architecture's own whatever the tables, and the device
 * line it writes makes validate open the same model (the same fallback). */
static int open_model(const synth_hw *hw, const vkrr_synth_desc *d, vkrr_hw_model **m)
{
    vkrr_error err = {0};
    *m = NULL;
    if (!hw->approx && !hw->tables)
        return 0;
    if (d->backend && !strcmp(d->backend, "cuda"))
        return vkrr_cli_usage_error("synth", "%s: the cuda backend computes on the GPU itself; "
                                    "the option is for --backend cpu",
                                    hw->approx ? "--approx" : "--hw-tables");
    vkrr_hw_choice ch = {.approx = hw->approx, .tables_dir = hw->tables};
    vkrr_status st = vkrr_hw_model_open(&ch, m, &err);
    if (st == VKRR_ERR_MISSING) {
        ch = (vkrr_hw_choice){.capture_arch = hw->approx, .tables_dir = hw->tables};
        st = vkrr_hw_model_open(&ch, m, &err);
        if (st == VKRR_OK)
            vkrr_warn("synth: no measured tables for %s: the approximate instructions follow "
                      "sm_90's; the tensor cores sum as %s's", hw->approx, hw->approx);
    }
    if (st != VKRR_OK)
        return st == VKRR_ERR_USAGE ? vkrr_cli_usage_error("synth", "%s", err.msg)
                                    : vkrr_cli_fail(&err);
    vkrr_hw_use(*m);
    return 0;
}

int vkrr_cmd_synth(int argc, char **argv)
{
    /* frame lines on a terminal, or when asked (--progress): not in CI logs */
    vkrr_synth_desc d = {.progress = isatty(fileno(stderr)) ? stderr : NULL,
                         .cancel = &vkrr_cli_interrupted};
    synth_hw hw = {0};
    vkrr_cli_opts p = vkrr_cli_opts_begin("synth", argc, argv, 1, synth_opts, NULL);
    const char *v;
    for (int id, rc; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;) {
        if (id == VKRR_OPT_ERROR)
            return p.rc;
        if (id == VKRR_OPT_HELP) {
            fputs(synth_help, stdout);
            return 0;
        }
        if (id == VKRR_OPT_ARG && d.dir)
            return vkrr_cli_usage_error("synth", "unexpected argument '%s'", v);
        if (id == VKRR_OPT_ARG)
            d.dir = v;
        else if ((rc = take_option(id, v, &d, &hw)) != 0)
            return rc;
    }
    if (!d.dir)
        return vkrr_cli_usage_error("synth", "missing OUTDIR");
    vkrr_hw_model *model;
    int rc = open_model(&hw, &d, &model);
    if (rc)
        return rc;

    vkrr_cli_signals saved;
    vkrr_cli_interrupts(&saved, false, false);
    vkrr_error err = {0};
    vkrr_synth_stats s = {0};
    vkrr_status st = vkrr_synth_run(&d, &s, &err);
    vkrr_cli_interrupts_done(&saved);
    vkrr_cli_hw_done(model);
    if (st != VKRR_OK)
        return vkrr_cli_fail(&err);
    printf("wrote %s: %u frame%s, %llu launches, %u module file%s\n", d.dir, s.frames,
           s.frames == 1 ? "" : "s", (unsigned long long)s.launches, s.modules,
           s.modules == 1 ? "" : "s");
    printf("RMSE vs clean (linear / tone-mapped): noisy %.4g / %.4g, denoised %.4g / %.4g\n",
           s.rmse_noisy, s.rmse_noisy_tm, s.rmse_denoised, s.rmse_denoised_tm);
    printf("next: vkrr info %s   or   vkrr validate %s\n", d.dir, d.dir);
    return 0;
}
