/* vkrr bench CAPDIR: the port's GPU time per launch and per frame beside
 * the original's (timed here through libcuda with --ref cuda, else read from
 * the capture's profiler lines).  Printing: bench_print.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "bench.h"
#include "bench_print.h"
#include "capture.h"
#include "cli.h"
#include "replay.h"

#define BENCH_MAX_RUNS 1000u

static const char bench_help[] =
    "usage: vkrr bench CAPDIR [--runs N] [--ref cuda] [--modules DIR] [--cuda-device N]\n"
    "                  [--device INDEX|NAME] [--warmup-max SECONDS] [--json FILE]\n"
    "                  [--timeout SECONDS] [--ports DIR]\n"
    "\n"
    "Times every launch of a capture through the Vulkan port, and with --ref cuda\n"
    "the original kernel through libcuda on the same inputs, and prints per launch\n"
    "the minimum, median and maximum GPU time of each, their ratio, and the same per\n"
    "frame and in total.  Nothing is compared: run `vkrr validate` for that.\n"
    "\n"
    "How a launch is timed (the same for both): its inputs are uploaded, its\n"
    "pipeline or module made, and it is run once untimed (first-use costs:\n"
    "shader compilation, lazy loading); then in batches of N runs until the\n"
    "medians of two consecutive batches agree within 2 % (a GPU that was idle\n"
    "clocks up meanwhile); the last batch gives the figures.  Only the dispatch\n"
    "is timed: Vulkan timestamps around vkCmdDispatch, CUDA events around\n"
    "cuLaunchKernel.  'unsteady' marks a launch whose medians had not agreed when\n"
    "--warmup-max ran out; 'spread P%' one whose (max - min) / median is over 10 %.\n"
    "A frame is timed as it really runs: its launches in one command buffer (a\n"
    "barrier where a launch uses what an earlier one wrote) and on one CUDA\n"
    "stream, beside the sum of their per-launch medians.\n"
    "\n"
    "Without --ref the CUDA column comes from profiler lines in run/run.log (vkrr\n"
    "synth --backend cuda writes them; other recorders may too):\n"
    "    KERNEL_PROFILE [launch[N] | launch=N | seq=N] [kernel=NAME | NAME] gpu_ms=X\n"
    "(a line with no sequence number is the next occurrence of its kernel; several\n"
    "lines for one launch: their median).  '-' where there is no figure.\n"
    "The devices, their drivers and, where NVML tells them, the GPU's clocks\n"
    "before and after are printed with the figures.\n"
    "\n"
    "  --runs N             timed runs per launch and per frame, 1..1000 (default 5)\n"
    "  --ref cuda           time the original kernels through libcuda too (exit 3\n"
    "                       without libcuda.so.1 or an NVIDIA GPU)\n"
    "  --modules DIR        the original's modules for --ref cuda (default CAPDIR/modules)\n"
    "  --cuda-device N      CUDA device ordinal for --ref cuda (default 0; keep it the\n"
    "                       GPU --device picks: a warning says when it is not)\n"
    "  --device INDEX|NAME  Vulkan device (default: first discrete GPU, else any)\n"
    "  --warmup-max SECONDS warm-up bound per launch and per frame (default 10)\n"
    "  --json FILE          the same figures as JSON\n"
    "  --timeout SECONDS    per launch (default 60)\n"
    "  --ports DIR          load NAME.spv port shaders from DIR over the built-in ones\n"
    "\n"
    "Exit 0 when every launch with a port ran, 1 when one failed, 2 bad input,\n"
    "3 no usable device (or, with --ref cuda, no libcuda or NVIDIA GPU).\n";

enum {
    O_RUNS, O_TIMEOUT, O_WARMUP_MAX, O_REF, O_CUDA_DEVICE, O_MODULES, O_DEVICE, O_JSON, O_PORTS
};
static const vkrr_cli_opt bench_opts[] = {
    {"runs", 0, true, O_RUNS, false},           {"timeout", 0, true, O_TIMEOUT, false},
    {"warmup-max", 0, true, O_WARMUP_MAX, false}, {"ref", 0, true, O_REF, false},
    {"cuda-device", 0, true, O_CUDA_DEVICE, false}, {"modules", 0, true, O_MODULES, false},
    {"device", 0, true, O_DEVICE, false},       {"json", 0, true, O_JSON, false},
    {"ports", 0, true, O_PORTS, false},
    {0},
};

/* One option into a: 0, or the exit code of a usage error. */
static int take_option(int id, const char *v, vkrr_bench_args *a)
{
    uint64_t u;
    switch (id) {
    case O_RUNS:
        if (!vkrr_cli_parse_u64(v, BENCH_MAX_RUNS, &a->runs) || !a->runs)
            return vkrr_cli_usage_error("bench", "--runs wants 1..%u, not '%s'", BENCH_MAX_RUNS, v);
        return 0;
    case O_TIMEOUT:
        if (!vkrr_cli_parse_double(v, &a->timeout) || !(a->timeout > 0))
            return vkrr_cli_usage_error("bench", "--timeout wants seconds > 0, not '%s'", v);
        return 0;
    case O_WARMUP_MAX:
        if (!vkrr_cli_parse_double(v, &a->warmup_max) || !(a->warmup_max > 0))
            return vkrr_cli_usage_error("bench", "--warmup-max wants seconds > 0, not '%s'", v);
        return 0;
    case O_REF:
        if (strcmp(v, "cuda") != 0)
            return vkrr_cli_usage_error("bench", "--ref wants cuda (the original on the same GPU), "
                                        "not '%s'", v);
        a->ref_cuda = true;
        return 0;
    case O_CUDA_DEVICE:
        if (!vkrr_cli_parse_u64(v, 1023, &u))
            return vkrr_cli_usage_error("bench", "--cuda-device wants an ordinal 0..1023, not '%s'",
                                        v);
        a->cuda_device = (int)u;
        a->cuda_device_set = true;
        return 0;
    case O_MODULES: a->modules = v; return 0;
    case O_DEVICE: a->device = v; return 0;
    case O_JSON: a->json = v; return 0;
    default: a->ports = v; return 0; /* O_PORTS */
    }
}

static int parse_args(int argc, char **argv, vkrr_bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->runs = 5;
    a->warmup_max = VKRR_BENCH_MAX_WARMUP_S;
    vkrr_cli_opts p = vkrr_cli_opts_begin("bench", argc, argv, 1, bench_opts, NULL);
    const char *v;
    for (int id, rc; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;) {
        if (id == VKRR_OPT_ERROR)
            return p.rc;
        if (id == VKRR_OPT_HELP) {
            fputs(bench_help, stdout);
            return 0;
        }
        if (id == VKRR_OPT_ARG && a->dir)
            return vkrr_cli_usage_error("bench", "unexpected argument '%s'", v);
        if (id == VKRR_OPT_ARG)
            a->dir = v;
        else if ((rc = take_option(id, v, a)) != 0)
            return rc;
    }
    if (!a->dir)
        return vkrr_cli_usage_error("bench", "missing CAPDIR");
    if ((a->modules || a->cuda_device_set) && !a->ref_cuda)
        return vkrr_cli_usage_error("bench", "--modules and --cuda-device are for --ref cuda");
    return -1; /* go on */
}

/* One launch, run again and again on one backend. */
typedef struct launch_ctx {
    vkrr_backend *be;
    vkrr_replay r;
} launch_ctx;

static vkrr_status run_launch(void *ctx, double *ms, vkrr_error *err)
{
    launch_ctx *c = ctx;
    vkrr_status s = c->be->run(c->be->self, &c->r, err);
    *ms = s == VKRR_OK && c->be->last_gpu_ms ? c->be->last_gpu_ms(c->be->self) : NAN;
    return s;
}

static vkrr_status bench_launch(vkrr_backend *be, const vkrr_capture *cap, const vkrr_launch *l,
                                const vkrr_bench_plan *plan, vkrr_bench_fig *fig, vkrr_error *err)
{
    launch_ctx c = {.be = be};
    vkrr_replay_storage *st = NULL;
    /* timing only: a backend that keeps its outputs needs no posts */
    vkrr_status s = vkrr_replay_from_capture_ex(cap, l, !be->keeps_outputs, &c.r, &st, err);
    if (s != VKRR_OK) {
        *fig = vkrr_bench_fig_none();
        return s;
    }
    c.r.pre_done = NULL; /* every run reads the inputs again: keep them mapped */
    s = vkrr_bench_measure(plan, run_launch, &c, fig, err);
    if (be->release)
        be->release(be->self);
    vkrr_replay_capture_free(st);
    return s;
}

/* One frame's launches, in one submission, again and again. */
typedef struct frame_ctx {
    vkrr_backend *be;
    vkrr_replay **rp;
    uint32_t n, barriers;
} frame_ctx;

static vkrr_status run_frame(void *ctx, double *ms, vkrr_error *err)
{
    frame_ctx *c = ctx;
    return c->be->run_frame(c->be->self, c->rp, c->n, ms, &c->barriers, err);
}

static vkrr_status bench_frame(vkrr_backend *be, const vkrr_capture *cap, uint32_t first, uint32_t n,
                               const vkrr_bench_plan *plan, vkrr_bench_fig *fig, uint32_t *barriers,
                               vkrr_error *err)
{
    vkrr_status s = VKRR_OK;
    *fig = vkrr_bench_fig_none();
    vkrr_replay *r = calloc(n, sizeof *r);
    vkrr_replay **rp = calloc(n, sizeof *rp);
    vkrr_replay_storage **st = calloc(n, sizeof *st);
    if (!r || !rp || !st) {
        s = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        goto done;
    }
    if (!be->run_frame) {
        s = vkrr_fail(err, VKRR_ERR_UNSUPPORTED, NULL, 0, -1, "the %s backend cannot run a frame", be->name);
        goto done;
    }
    for (uint32_t k = 0; k < n; k++) {
        if ((s = vkrr_replay_from_capture_ex(cap, &cap->launches[first + k], false, &r[k], &st[k],
                                             err)) != VKRR_OK)
            goto done;
        r[k].pre_done = NULL; /* read again every run */
        rp[k] = &r[k];
    }
    frame_ctx c = {.be = be, .rp = rp, .n = n};
    s = vkrr_bench_measure(plan, run_frame, &c, fig, err);
    *barriers = c.barriers;
done:
    for (uint32_t k = 0; st && k < n; k++)
        vkrr_replay_capture_free(st[k]);
    free(st);
    free(rp);
    free(r);
    return s;
}

/* Every launch on one backend into its column; *failed when one failed. */
static void bench_launches(vkrr_backend *be, const vkrr_capture *cap, const vkrr_bench_plan *plan,
                           vkrr_bench_row *rows, bool cuda, bool *failed)
{
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        vkrr_bench_side *side = cuda ? &rows[i].cuda : &rows[i].vk;
        vkrr_error err = {0};
        side->fig = vkrr_bench_fig_none();
        if (!be->has_kernel(be->self, l->kernel)) {
            side->note = cuda ? "no module" : "no port";
        } else if (bench_launch(be, cap, l, plan, &side->fig, &err) != VKRR_OK) {
            fprintf(stderr, "vkrr bench: launch %llu %s on %s: %s\n", (unsigned long long)l->sequence,
                    l->kernel, be->name, err.msg);
            side->note = "failed";
            *failed = true;
        } else {
            side->from = "measured";
            if (isnan(side->fig.median))
                side->note = "no timestamps";
        }
    }
}

/* Per frame: one submission on each backend, beside the per-launch sums. */
static void bench_frames(vkrr_backend *vk, vkrr_backend *cu, const vkrr_capture *cap,
                         const vkrr_bench_plan *plan, const vkrr_bench_row *rows,
                         vkrr_bench_frame *frames, uint32_t *nframes, bool *failed)
{
    *nframes = 0;
    for (uint32_t i = 0; i < cap->nlaunches;) {
        uint32_t n = 1;
        while (i + n < cap->nlaunches && cap->launches[i + n].frame == cap->launches[i].frame)
            n++;
        vkrr_bench_frame *f = &frames[(*nframes)++];
        *f = (vkrr_bench_frame){.frame = cap->launches[i].frame, .first = i, .n = n,
                                .vk = vkrr_bench_fig_none(), .cuda = vkrr_bench_fig_none()};
        for (uint32_t k = 0; k < n; k++) {
            f->vk_sum += rows[i + k].vk.fig.median;
            f->cuda_sum += rows[i + k].cuda.fig.median;
        }
        vkrr_backend *be[2] = {vk, cu};
        vkrr_bench_fig *fig[2] = {&f->vk, &f->cuda};
        const double sum[2] = {f->vk_sum, f->cuda_sum};
        const char **why[2] = {&f->vk_note, &f->cuda_note};
        for (int s = 0; s < 2; s++) {
            vkrr_error err = {0};
            uint32_t barriers = 0;
            if (!be[s])
                continue;
            if (isnan(sum[s])) {
                *why[s] = s == 0 ? "not run (a launch has no port or no GPU time)"
                                 : "not run (a launch has no module or no GPU time)";
            } else if (bench_frame(be[s], cap, i, n, plan, fig[s], &barriers, &err) != VKRR_OK) {
                fprintf(stderr, "vkrr bench: frame %u on %s: %s\n", f->frame, be[s]->name, err.msg);
                *why[s] = "failed";
                *failed = true;
            } else if (s == 0) {
                f->barriers = barriers;
            }
        }
        i += n;
    }
}

int vkrr_cmd_bench(int argc, char **argv)
{
    vkrr_bench_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    vkrr_backend vk = {0}, cu = {0};
    vkrr_bench_row *rows = NULL;
    vkrr_bench_frame *frames = NULL;
    double *cuda_log = NULL;
    char modules[4096], ordinal[16];
    vkrr_bench_env env;
    if (vkrr_capture_open(&cap, a.dir, &err) != VKRR_OK)
        return vkrr_cli_fail(&err);
    const uint32_t n = cap->nlaunches;
    rows = calloc(n ? n : 1, sizeof *rows);
    frames = calloc(n ? n : 1, sizeof *frames);
    cuda_log = calloc(n ? n : 1, sizeof *cuda_log);
    if (!rows || !frames || !cuda_log) {
        vkrr_fail(&err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        rc = vkrr_cli_fail(&err);
        goto done;
    }
    vkrr_bench_profile_stats ps;
    if (vkrr_bench_profile_load(cap, cuda_log, &ps, &err) != VKRR_OK) {
        rc = vkrr_cli_fail(&err);
        goto done;
    }
    /* the original first: without libcuda or a GPU, stop before any work */
    if (a.ref_cuda) {
        if (!a.modules)
            snprintf(modules, sizeof modules, "%s/modules", cap->path);
        snprintf(ordinal, sizeof ordinal, "%d", a.cuda_device);
        if (vkrr_backend_open(&(vkrr_backend_desc){.name = "cuda", .modules = a.modules ? a.modules : modules,
                                                    .device = ordinal},
                              &cu, &err) != VKRR_OK) {
            rc = vkrr_cli_fail(&err);
            goto done;
        }
    }
    if (vkrr_backend_open(&(vkrr_backend_desc){.name = "vulkan", .device = a.device,
                                                .timeout_s = a.timeout, .ports_dir = a.ports},
                          &vk, &err) != VKRR_OK) {
        rc = vkrr_cli_fail(&err);
        goto done;
    }
    vkrr_backend *ref = a.ref_cuda ? &cu : NULL;
    vkrr_bench_env_read(&env, &vk, ref, 0);
    vkrr_bench_print_header(&a, cap, &env, &ps);
    const vkrr_bench_plan plan = {.runs = (unsigned)a.runs, .max_warmup_s = a.warmup_max};
    bool failed = false;
    for (uint32_t i = 0; i < n; i++)
        rows[i].cuda.fig = vkrr_bench_fig_none();
    bench_launches(&vk, cap, &plan, rows, false, &failed);
    if (a.ref_cuda) {
        bench_launches(&cu, cap, &plan, rows, true, &failed);
    } else {
        for (uint32_t i = 0; i < n; i++)
            if (!isnan(cuda_log[i])) {
                rows[i].cuda.fig.median = cuda_log[i];
                rows[i].cuda.from = "run.log";
            }
    }
    vkrr_bench_print_rows(cap, rows);
    uint32_t nframes = 0;
    bench_frames(&vk, ref, cap, &plan, rows, frames, &nframes, &failed);
    vkrr_bench_print_frames(frames, nframes, a.ref_cuda);
    vkrr_bench_env_read(&env, &vk, ref, 1);
    vkrr_bench_print_clocks(&env, 1);
    rc = failed ? vkrr_status_exit_code(VKRR_ERR_MISMATCH) : 0;
    if (a.json) {
        int jrc = vkrr_bench_write_json(&a, cap, &env, rows, frames, nframes);
        if (jrc)
            rc = jrc;
    }
done:
    if (vk.destroy)
        vk.destroy(vk.self);
    if (cu.destroy)
        cu.destroy(cu.self);
    free(rows);
    free(frames);
    free(cuda_log);
    vkrr_capture_close(cap);
    return rc;
}
