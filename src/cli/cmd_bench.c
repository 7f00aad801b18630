/* vkrr bench CAPDIR: the port's GPU time per launch beside CUDA's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "bench.h"
#include "capture.h"
#include "cli.h"
#include "replay.h"

#define BENCH_MAX_RUNS 1000u

static const char bench_help[] =
    "usage: vkrr bench CAPDIR [--runs N] [--device INDEX|NAME] [--json FILE]\n"
    "                  [--timeout SECONDS] [--ports DIR]\n"
    "\n"
    "Replays every launch of a capture through the Vulkan port N times and prints\n"
    "the median GPU time of its dispatch (Vulkan timestamps right before and after\n"
    "vkCmdDispatch: uploads and read-back are not counted), beside the CUDA time\n"
    "when run/run.log holds profiler lines for that launch:\n"
    "    KERNEL_PROFILE [launch[N] | launch=N | seq=N] [kernel=NAME | NAME] gpu_ms=X\n"
    "(a line with no sequence number is the next occurrence of its kernel; several\n"
    "lines for one launch: their median).  '-' where there is no figure.  Nothing\n"
    "is compared: run `vkrr validate` for that.  Exit 0 when every launch with a\n"
    "port ran, 1 when one failed, 2 bad input, 3 no usable device.\n"
    "Then, per frame whose launches all have a port, the whole frame recorded into\n"
    "one command buffer (a barrier only where a launch uses what an earlier one\n"
    "wrote), its median GPU time beside the sum of the per-dispatch times.\n"
    "\n"
    "  --runs N             runs per launch, 1..1000 (default 5)\n"
    "  --device INDEX|NAME  Vulkan device (default: first discrete GPU, else any)\n"
    "  --json FILE          the same figures as JSON\n"
    "  --timeout SECONDS    per launch (default 60)\n"
    "  --ports DIR          load NAME.spv port shaders from DIR over the built-in ones\n";

typedef struct bench_args {
    const char *dir, *device, *json, *ports;
    uint64_t runs;
    double timeout;
} bench_args;

static int parse_args(int argc, char **argv, bench_args *a)
{
    memset(a, 0, sizeof *a);
    a->runs = 5;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        bool has_val = i + 1 < argc;
        if (vkrr_cli_is_help(o)) {
            fputs(bench_help, stdout);
            return 0;
        } else if (!strcmp(o, "--runs") && has_val) {
            if (!vkrr_cli_parse_u64(argv[++i], BENCH_MAX_RUNS, &a->runs) || !a->runs)
                return vkrr_cli_usage_error("bench", "--runs wants 1..%u, not '%s'", BENCH_MAX_RUNS, argv[i]);
        } else if (!strcmp(o, "--timeout") && has_val) {
            if (!vkrr_cli_parse_double(argv[++i], &a->timeout) || !(a->timeout > 0))
                return vkrr_cli_usage_error("bench", "--timeout wants seconds > 0, not '%s'", argv[i]);
        } else if (!strcmp(o, "--device") && has_val) {
            a->device = argv[++i];
        } else if (!strcmp(o, "--json") && has_val) {
            a->json = argv[++i];
        } else if (!strcmp(o, "--ports") && has_val) {
            a->ports = argv[++i];
        } else if (o[0] == '-') {
            return vkrr_cli_usage_error("bench", "unknown option or missing value '%s'", o);
        } else if (!a->dir) {
            a->dir = o;
        } else {
            return vkrr_cli_usage_error("bench", "unexpected argument '%s'", o);
        }
    }
    if (!a->dir)
        return vkrr_cli_usage_error("bench", "missing CAPDIR");
    return -1; /* go on */
}

static void print_ms(FILE *f, double ms)
{
    if (isnan(ms))
        fprintf(f, " %12s", "-");
    else
        fprintf(f, " %12.4f", ms);
}

static void json_ms(FILE *f, const char *key, double ms)
{
    if (isnan(ms))
        fprintf(f, "\"%s\": null", key);
    else
        fprintf(f, "\"%s\": %.6f", key, ms);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static int write_json(const bench_args *a, const vkrr_capture *cap, const double *vk_ms,
                      const double *cuda_ms, const char *const *note, double vk_total,
                      double cuda_total, const char *device)
{
    FILE *f = fopen(a->json, "w");
    if (!f) {
        fprintf(stderr, "vkrr: error: cannot write %s\n", a->json);
        return vkrr_status_exit_code(VKRR_ERR_IO);
    }
    fprintf(f, "{\"capture\": ");
    json_string(f, cap->path);
    fprintf(f, ", \"device\": ");
    json_string(f, device);
    fprintf(f, ", \"runs\": %llu, \"launches\": [\n", (unsigned long long)a->runs);
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        fprintf(f, "  {\"sequence\": %llu, \"kernel\": ", (unsigned long long)l->sequence);
        json_string(f, l->kernel);
        fprintf(f, ", \"frame\": %u, \"occurrence\": %u, ", l->frame, l->occurrence);
        json_ms(f, "vulkan_ms", vk_ms[i]);
        fprintf(f, ", ");
        json_ms(f, "cuda_ms", cuda_ms[i]);
        fprintf(f, ", \"note\": ");
        json_string(f, note[i] ? note[i] : "");
        fprintf(f, "}%s\n", i + 1 < cap->nlaunches ? "," : "");
    }
    fprintf(f, "], ");
    json_ms(f, "vulkan_total_ms", vk_total);
    fprintf(f, ", ");
    json_ms(f, "cuda_total_ms", cuda_total);
    fprintf(f, "}\n");
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "vkrr: error: cannot write %s\n", a->json);
        return vkrr_status_exit_code(VKRR_ERR_IO);
    }
    return 0;
}

/* Runs one launch a->runs times; *ms the median GPU time (NAN: no timestamps). */
static vkrr_status bench_launch(vkrr_backend *be, const vkrr_capture *cap, const vkrr_launch *l,
                                uint64_t runs, double *samples, double *ms, vkrr_error *err)
{
    vkrr_replay r;
    vkrr_replay_storage *st = NULL;
    /* timing only: a backend that keeps its outputs needs no posts */
    vkrr_status s = vkrr_replay_from_capture_ex(cap, l, !be->keeps_outputs, &r, &st, err);
    if (s != VKRR_OK)
        return s;
    r.pre_done = NULL; /* every run reads the inputs again: keep them mapped */
    size_t n = 0;
    for (uint64_t k = 0; k < runs; k++) {
        if ((s = be->run(be->self, &r, err)) != VKRR_OK)
            goto done;
        double t = be->last_gpu_ms ? be->last_gpu_ms(be->self) : NAN;
        if (!isnan(t))
            samples[n++] = t;
    }
    *ms = vkrr_bench_median(samples, n);
done:
    vkrr_replay_capture_free(st);
    return s;
}

/* The launches [first, first + n) of one frame in one command buffer,
 * runs times; *ms the median (NAN: no timestamps). */
static vkrr_status bench_frame(vkrr_backend *be, const vkrr_capture *cap, uint32_t first, uint32_t n,
                               uint64_t runs, double *samples, double *ms, uint32_t *barriers,
                               vkrr_error *err)
{
    vkrr_status s = VKRR_OK;
    vkrr_replay *r = calloc(n, sizeof *r);
    vkrr_replay **rp = calloc(n, sizeof *rp);
    vkrr_replay_storage **st = calloc(n, sizeof *st);
    if (!r || !rp || !st) {
        s = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        goto done;
    }
    for (uint32_t k = 0; k < n; k++) {
        if ((s = vkrr_replay_from_capture_ex(cap, &cap->launches[first + k], false, &r[k], &st[k],
                                             err)) != VKRR_OK)
            goto done;
        r[k].pre_done = NULL; /* read again every run */
        rp[k] = &r[k];
    }
    size_t m = 0;
    for (uint64_t k = 0; k < runs; k++) {
        double t;
        if (!be->run_frame) {
            s = vkrr_fail(err, VKRR_ERR_UNSUPPORTED, NULL, 0, -1, "the %s backend cannot run a frame",
                          be->name);
            goto done;
        }
        if ((s = be->run_frame(be->self, rp, n, &t, barriers, err)) != VKRR_OK)
            goto done;
        if (!isnan(t))
            samples[m++] = t;
    }
    *ms = vkrr_bench_median(samples, m);
done:
    for (uint32_t k = 0; st && k < n; k++)
        vkrr_replay_capture_free(st[k]);
    free(st);
    free(rp);
    free(r);
    return s;
}

/* Per frame: one command buffer vs the sum of the per-dispatch times. */
static int bench_frames(vkrr_backend *be, const vkrr_capture *cap, const double *vk_ms,
                        uint64_t runs, double *samples)
{
    int rc = 0;
    double one_total = 0, sum_total = 0;
    uint32_t frames = 0;
    for (uint32_t i = 0; i < cap->nlaunches;) {
        uint32_t n = 1;
        while (i + n < cap->nlaunches && cap->launches[i + n].frame == cap->launches[i].frame)
            n++;
        double sum = 0;
        for (uint32_t k = 0; k < n; k++)
            sum += vk_ms[i + k];
        uint32_t f = cap->launches[i].frame, barriers = 0;
        double one = NAN;
        vkrr_error err = {0};
        if (isnan(sum)) {
            printf("frame %u: one command buffer not run (a launch has no port or no GPU time)\n", f);
        } else if (bench_frame(be, cap, i, n, runs, samples, &one, &barriers, &err) != VKRR_OK) {
            fprintf(stderr, "vkrr bench: frame %u in one command buffer: %s\n", f, err.msg);
            rc = vkrr_status_exit_code(VKRR_ERR_MISMATCH);
        } else {
            printf("frame %u: one command buffer %.4f ms, per-dispatch sum %.4f ms, ratio %.3f  "
                   "(%u launches, %u barriers)\n", f, one, sum, one / sum, n, barriers);
            if (!isnan(one)) {
                one_total += one;
                sum_total += sum;
                frames++;
            }
        }
        i += n;
    }
    if (frames)
        printf("one-command-buffer / per-dispatch sum: %.3f  (%.4f ms / %.4f ms over %u frames)\n",
               one_total / sum_total, one_total, sum_total, frames);
    return rc;
}

int vkrr_cmd_bench(int argc, char **argv)
{
    bench_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    vkrr_backend be = {0};
    double *vk_ms = NULL, *cuda_ms = NULL, *samples = NULL;
    const char **note = NULL;
    if (vkrr_capture_open(&cap, a.dir, &err) != VKRR_OK)
        return vkrr_cli_fail(&err);
    uint32_t n = cap->nlaunches;
    vk_ms = calloc(n ? n : 1, sizeof *vk_ms);
    cuda_ms = calloc(n ? n : 1, sizeof *cuda_ms);
    note = calloc(n ? n : 1, sizeof *note);
    samples = calloc(a.runs, sizeof *samples);
    if (!vk_ms || !cuda_ms || !note || !samples) {
        vkrr_fail(&err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        rc = vkrr_cli_fail(&err);
        goto done;
    }
    vkrr_bench_profile_stats ps;
    if (vkrr_bench_profile_load(cap, cuda_ms, &ps, &err) != VKRR_OK) {
        rc = vkrr_cli_fail(&err);
        goto done;
    }
    if (vkrr_backend_open(&(vkrr_backend_desc){.name = "vulkan", .device = a.device,
                                                .timeout_s = a.timeout, .ports_dir = a.ports},
                          &be, &err) != VKRR_OK) {
        rc = vkrr_cli_fail(&err);
        goto done;
    }
    vkrr_backend_stats vs = {.device_name = ""};
    if (be.stats)
        be.stats(be.self, &vs);
    printf("vkrr bench %s: %u launches, %llu runs each, device %s\n", cap->path, n,
           (unsigned long long)a.runs, vs.device_name);
    if (ps.lines)
        printf("profiler lines: %u, %u attributed, %u launches with a CUDA time\n", ps.lines,
               ps.matched, ps.launches);
    printf("%6s %-44s %5s %4s %12s %12s %8s\n", "seq", "kernel", "frame", "occ", "vulkan_ms",
           "cuda_ms", "vk/cuda");
    double vk_total = 0, cuda_total = 0;
    bool any_vk = false, any_cuda = false;
    rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        const vkrr_launch *l = &cap->launches[i];
        vk_ms[i] = NAN;
        if (!be.has_kernel(be.self, l->kernel)) {
            note[i] = "no port";
        } else if (bench_launch(&be, cap, l, a.runs, samples, &vk_ms[i], &err) != VKRR_OK) {
            fprintf(stderr, "vkrr bench: launch %llu %s: %s\n", (unsigned long long)l->sequence,
                    l->kernel, err.msg);
            note[i] = "failed";
            rc = vkrr_status_exit_code(VKRR_ERR_MISMATCH);
        } else if (isnan(vk_ms[i])) {
            note[i] = "no timestamps";
        }
        printf("%6llu %-44s %5u %4u", (unsigned long long)l->sequence, l->kernel, l->frame,
               l->occurrence);
        print_ms(stdout, vk_ms[i]);
        print_ms(stdout, cuda_ms[i]);
        if (!isnan(vk_ms[i]) && !isnan(cuda_ms[i]) && cuda_ms[i] > 0)
            printf(" %8.2f", vk_ms[i] / cuda_ms[i]);
        else
            printf(" %8s", "-");
        printf("%s%s\n", note[i] ? "  " : "", note[i] ? note[i] : "");
        if (!isnan(vk_ms[i])) {
            vk_total += vk_ms[i];
            any_vk = true;
        }
        if (!isnan(cuda_ms[i])) {
            cuda_total += cuda_ms[i];
            any_cuda = true;
        }
    }
    if (!any_vk)
        vk_total = NAN;
    if (!any_cuda)
        cuda_total = NAN;
    printf("%6s %-44s %5s %4s", "total", "", "", "");
    print_ms(stdout, vk_total);
    print_ms(stdout, cuda_total);
    printf("\n");
    if (bench_frames(&be, cap, vk_ms, a.runs, samples))
        rc = vkrr_status_exit_code(VKRR_ERR_MISMATCH);
    if (a.json) {
        int jrc = write_json(&a, cap, vk_ms, cuda_ms, note, vk_total, cuda_total, vs.device_name);
        if (jrc)
            rc = jrc;
    }
done:
    if (be.destroy)
        be.destroy(be.self);
    free(vk_ms);
    free(cuda_ms);
    free(note);
    free(samples);
    vkrr_capture_close(cap);
    return rc;
}
