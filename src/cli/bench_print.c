/* bench_print.c - `vkrr bench`'s table and JSON (bench_print.h). */
#include "bench_print.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends.h"
#include "json.h"
#include "version.h"
#include "status.h"

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

void vkrr_bench_env_read(vkrr_bench_env *env, const vkrr_backend *vk, const vkrr_backend *cuda, int when)
{
    vkrr_backend_stats vs = {0}, cs = {0};
    if (when == 0)
        memset(env, 0, sizeof *env);
    if (vk->stats)
        vk->stats(vk->self, &vs);
    vkrr_backend_clocks(vk, env->vk_clocks[when], sizeof env->vk_clocks[when]);
    if (when == 0) {
        env->vk_device = or_empty(vs.device_name);
        env->vk_driver = or_empty(vs.driver);
    }
    if (!cuda)
        return;
    if (cuda->stats)
        cuda->stats(cuda->self, &cs);
    vkrr_backend_clocks(cuda, env->cuda_clocks[when], sizeof env->cuda_clocks[when]);
    if (when == 0) {
        env->cuda_device = or_empty(cs.device_name);
        env->cuda_driver = or_empty(cs.driver);
        env->different_gpus = vs.uuid && cs.uuid && memcmp(vs.uuid, cs.uuid, 16) != 0;
    }
}

void vkrr_bench_print_clocks(const vkrr_bench_env *env, int when)
{
    const char *w = when ? "after" : "before";
    printf("clocks %s: vulkan device: %s\n", w, env->vk_clocks[when]);
    if (env->cuda_device)
        printf("clocks %s: cuda device:   %s\n", w, env->cuda_clocks[when]);
}

void vkrr_bench_print_header(const vkrr_bench_args *a, const vkrr_capture *cap, const vkrr_bench_env *env,
                             const vkrr_bench_profile_stats *ps)
{
    printf("vkrr bench %s: %u launches, %llu timed runs each after warm-up (until two medians agree "
           "within %g %%, at most %g s)\n", cap->path, cap->nlaunches, (unsigned long long)a->runs,
           100 * VKRR_BENCH_STEADY, a->warmup_max);
    printf("vulkan device: %s, driver %s\n", env->vk_device, env->vk_driver[0] ? env->vk_driver : "unknown");
    if (env->cuda_device)
        printf("cuda device:   %s, %s\n", env->cuda_device, env->cuda_driver[0] ? env->cuda_driver : "driver unknown");
    if (env->different_gpus)
        printf("warning: the CUDA device is not the Vulkan device (different GPU UUIDs): the ratios "
               "compare two GPUs; pick the same one with --device and --cuda-device\n");
    vkrr_bench_print_clocks(env, 0);
    if (!env->cuda_device && ps->lines)
        printf("profiler lines: %u, %u attributed, %u launches with a CUDA time\n", ps->lines, ps->matched,
               ps->launches);
}

static void print_ms(double ms)
{
    if (isnan(ms))
        printf(" %10s", "-");
    else
        printf(" %10.4f", ms);
}

static void print_ratio(double num, double den)
{
    if (!isnan(num) && !isnan(den) && den > 0)
        printf(" %8.3f", num / den);
    else
        printf(" %8s", "-");
}

/* "unsteady", "spread 14%" of one side into buf at *len. */
static void fig_marks(char *buf, size_t cap, size_t *len, const char *side, const vkrr_bench_fig *f,
                      const char *note)
{
    const char *sep = *len ? "; " : "";
    if (note)
        *len += (size_t)snprintf(buf + *len, cap - *len, "%s%s%s", sep, side, note);
    else if (!isnan(f->median) && f->timed && !f->steady)
        *len += (size_t)snprintf(buf + *len, cap - *len, "%s%sunsteady", sep, side);
    sep = *len ? "; " : "";
    if (*len < cap && vkrr_bench_fig_spread(f))
        *len += (size_t)snprintf(buf + *len, cap - *len, "%s%sspread %.0f%%", sep, side, 100 * f->spread);
    if (*len >= cap)
        *len = cap - 1;
}

static void row_note(const vkrr_bench_row *r, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    fig_marks(buf, cap, &len, "", &r->vk.fig, r->vk.note);
    fig_marks(buf, cap, &len, "cuda ", &r->cuda.fig, r->cuda.note);
}

void vkrr_bench_print_rows(const vkrr_capture *cap, const vkrr_bench_row *rows)
{
    printf("%6s %-36s %5s %4s %10s %10s %10s %10s %10s %10s %8s  %s\n", "seq", "kernel", "frame", "occ",
           "vulkan_ms", "vk_min", "vk_max", "cuda_ms", "cuda_min", "cuda_max", "vk/cuda", "note");
    double vk_total = 0, cuda_total = 0, vk_both = 0, cuda_both = 0;
    bool any_vk = false, any_cuda = false;
    uint32_t both = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        const vkrr_bench_row *r = &rows[i];
        char note[160];
        row_note(r, note, sizeof note);
        printf("%6llu %-36s %5u %4u", (unsigned long long)l->sequence, l->kernel, l->frame, l->occurrence);
        print_ms(r->vk.fig.median);
        print_ms(r->vk.fig.min);
        print_ms(r->vk.fig.max);
        print_ms(r->cuda.fig.median);
        print_ms(r->cuda.fig.min);
        print_ms(r->cuda.fig.max);
        print_ratio(r->vk.fig.median, r->cuda.fig.median);
        printf("%s%s\n", note[0] ? "  " : "", note);
        if (!isnan(r->vk.fig.median)) {
            vk_total += r->vk.fig.median;
            any_vk = true;
        }
        if (!isnan(r->cuda.fig.median)) {
            cuda_total += r->cuda.fig.median;
            any_cuda = true;
        }
        if (!isnan(r->vk.fig.median) && !isnan(r->cuda.fig.median)) {
            vk_both += r->vk.fig.median;
            cuda_both += r->cuda.fig.median;
            both++;
        }
    }
    printf("%6s %-36s %5s %4s", "total", "", "", "");
    print_ms(any_vk ? vk_total : NAN);
    printf(" %10s %10s", "", "");
    print_ms(any_cuda ? cuda_total : NAN);
    printf(" %10s %10s", "", "");
    print_ratio(both ? vk_both : NAN, both ? cuda_both : NAN);
    if (both && both < cap->nlaunches)
        printf("  (ratio over the %u launches with both times)", both);
    printf("\n");
}

static void frame_marks(const vkrr_bench_fig *f)
{
    if (!f->steady)
        printf("  unsteady");
    if (vkrr_bench_fig_spread(f))
        printf("  spread %.0f%%", 100 * f->spread);
}

void vkrr_bench_print_frames(const vkrr_bench_frame *f, uint32_t n, bool cuda)
{
    double one[2] = {0, 0}, sum[2] = {0, 0};
    uint32_t counted[2] = {0, 0};
    for (uint32_t i = 0; i < n; i++) {
        const vkrr_bench_frame *x = &f[i];
        if (x->vk_note) {
            printf("frame %u: one command buffer %s\n", x->frame, x->vk_note);
        } else if (isnan(x->vk.median)) {
            printf("frame %u: one command buffer has no GPU time\n", x->frame);
        } else {
            printf("frame %u: one command buffer %.4f ms (min %.4f, max %.4f), per-dispatch sum %.4f ms, "
                   "ratio %.3f  (%u launches, %u barriers)", x->frame, x->vk.median, x->vk.min, x->vk.max,
                   x->vk_sum, x->vk.median / x->vk_sum, x->n, x->barriers);
            frame_marks(&x->vk);
            printf("\n");
            one[0] += x->vk.median;
            sum[0] += x->vk_sum;
            counted[0]++;
        }
        if (!cuda)
            continue;
        if (x->cuda_note) {
            printf("frame %u: cuda one stream %s\n", x->frame, x->cuda_note);
        } else if (isnan(x->cuda.median)) {
            printf("frame %u: cuda one stream has no GPU time\n", x->frame);
        } else {
            printf("frame %u: cuda one stream %.4f ms (min %.4f, max %.4f), per-launch sum %.4f ms; "
                   "vulkan / cuda", x->frame, x->cuda.median, x->cuda.min, x->cuda.max, x->cuda_sum);
            print_ratio(x->vk.median, x->cuda.median);
            frame_marks(&x->cuda);
            printf("\n");
            if (!isnan(x->vk.median)) {
                one[1] += x->cuda.median;
                sum[1] += x->vk.median; /* the Vulkan frames beside them */
                counted[1]++;
            }
        }
    }
    if (counted[0])
        printf("one-command-buffer / per-dispatch sum: %.3f  (%.4f ms / %.4f ms over %u frames)\n",
               one[0] / sum[0], one[0], sum[0], counted[0]);
    if (counted[1])
        printf("frames vulkan / cuda: %.3f  (%.4f ms / %.4f ms over %u frames)\n", sum[1] / one[1], sum[1],
               one[1], counted[1]);
}

static void json_ms(FILE *f, const char *key, double ms)
{
    if (isnan(ms))
        fprintf(f, "\"%s\": null", key);
    else
        fprintf(f, "\"%s\": %.6f", key, ms);
}

static void json_fig(FILE *f, const char *key, const vkrr_bench_fig *g, const char *from)
{
    fprintf(f, "\"%s\": ", key);
    if (isnan(g->median)) {
        fprintf(f, "null");
        return;
    }
    fprintf(f, "{\"from\": ");
    vkrr_json_put_string(f, or_empty(from));
    fprintf(f, ", ");
    json_ms(f, "median_ms", g->median);
    fprintf(f, ", ");
    json_ms(f, "min_ms", g->min);
    fprintf(f, ", ");
    json_ms(f, "max_ms", g->max);
    fprintf(f, ", \"runs\": %u, \"warmup_runs\": %u, \"steady\": %s, ", g->timed, g->warmup,
            g->steady ? "true" : "false");
    if (isnan(g->spread))
        fprintf(f, "\"spread\": null, \"spread_marked\": false}");
    else
        fprintf(f, "\"spread\": %.6f, \"spread_marked\": %s}", g->spread,
                vkrr_bench_fig_spread(g) ? "true" : "false");
}

static void json_ratio(FILE *f, double num, double den)
{
    if (!isnan(num) && !isnan(den) && den > 0)
        fprintf(f, "\"ratio\": %.6f", num / den);
    else
        fprintf(f, "\"ratio\": null");
}

static void json_env(FILE *f, const char *device, const char *driver, const char (*clocks)[192])
{
    fprintf(f, "{\"name\": ");
    vkrr_json_put_string(f, device);
    fprintf(f, ", \"driver\": ");
    vkrr_json_put_string(f, driver);
    fprintf(f, ", \"clocks_before\": ");
    vkrr_json_put_string(f, clocks[0]);
    fprintf(f, ", \"clocks_after\": ");
    vkrr_json_put_string(f, clocks[1]);
    fprintf(f, "}");
}

static void json_launches(FILE *f, const vkrr_capture *cap, const vkrr_bench_row *rows)
{
    double total[2] = {0, 0};
    bool any[2] = {false, false};
    fprintf(f, "\"launches\": [\n");
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        const vkrr_bench_row *r = &rows[i];
        char note[160];
        row_note(r, note, sizeof note);
        fprintf(f, "  {\"sequence\": %llu, \"kernel\": ", (unsigned long long)l->sequence);
        vkrr_json_put_string(f, l->kernel);
        fprintf(f, ", \"frame\": %u, \"occurrence\": %u, ", l->frame, l->occurrence);
        json_ms(f, "vulkan_ms", r->vk.fig.median);
        fprintf(f, ", ");
        json_ms(f, "cuda_ms", r->cuda.fig.median);
        fprintf(f, ", ");
        json_ratio(f, r->vk.fig.median, r->cuda.fig.median);
        fprintf(f, ", ");
        json_fig(f, "vulkan", &r->vk.fig, r->vk.from);
        fprintf(f, ", ");
        json_fig(f, "cuda", &r->cuda.fig, r->cuda.from);
        fprintf(f, ", \"note\": ");
        vkrr_json_put_string(f, note);
        fprintf(f, "}%s\n", i + 1 < cap->nlaunches ? "," : "");
        const double ms[2] = {r->vk.fig.median, r->cuda.fig.median};
        for (int s = 0; s < 2; s++)
            if (!isnan(ms[s])) {
                total[s] += ms[s];
                any[s] = true;
            }
    }
    fprintf(f, "], ");
    json_ms(f, "vulkan_total_ms", any[0] ? total[0] : NAN);
    fprintf(f, ", ");
    json_ms(f, "cuda_total_ms", any[1] ? total[1] : NAN);
}

static void json_frames(FILE *f, const vkrr_bench_frame *frames, uint32_t n)
{
    fprintf(f, "\"frames\": [\n");
    for (uint32_t i = 0; i < n; i++) {
        const vkrr_bench_frame *x = &frames[i];
        fprintf(f, "  {\"frame\": %u, \"launches\": %u, \"barriers\": %u, ", x->frame, x->n, x->barriers);
        json_fig(f, "vulkan", &x->vk, "one command buffer");
        fprintf(f, ", ");
        json_ms(f, "vulkan_sum_ms", x->vk_sum);
        fprintf(f, ", ");
        json_fig(f, "cuda", &x->cuda, "one stream");
        fprintf(f, ", ");
        json_ms(f, "cuda_sum_ms", x->cuda_sum);
        fprintf(f, ", ");
        json_ratio(f, x->vk.median, x->cuda.median);
        fprintf(f, "}%s\n", i + 1 < n ? "," : "");
    }
    fprintf(f, "]");
}

int vkrr_bench_write_json(const vkrr_bench_args *a, const vkrr_capture *cap, const vkrr_bench_env *env,
                          const vkrr_bench_row *rows, const vkrr_bench_frame *frames, uint32_t nframes)
{
    FILE *f = fopen(a->json, "w");
    if (!f) {
        fprintf(stderr, "vkrr: error: cannot write %s\n", a->json);
        return vkrr_status_exit_code(VKRR_ERR_IO);
    }
    fputc('{', f);
    vkrr_json_put_header(f, VKRR_SCHEMA_BENCH, VKRR_VERSION);
    fprintf(f, ",\n \"capture\": ");
    vkrr_json_put_string(f, cap->path);
    fprintf(f, ", \"runs\": %llu, \"warmup_max_s\": %g, \"steady_within\": %g, \"spread_mark\": %g,\n",
            (unsigned long long)a->runs, a->warmup_max, VKRR_BENCH_STEADY, VKRR_BENCH_SPREAD);
    fprintf(f, " \"device\": ");
    vkrr_json_put_string(f, env->vk_device);
    fprintf(f, ", \"vulkan\": ");
    json_env(f, env->vk_device, env->vk_driver, env->vk_clocks);
    fprintf(f, ", \"cuda\": ");
    if (env->cuda_device)
        json_env(f, env->cuda_device, env->cuda_driver, env->cuda_clocks);
    else
        fprintf(f, "null");
    fprintf(f, ", \"different_gpus\": %s,\n ", env->different_gpus ? "true" : "false");
    json_launches(f, cap, rows);
    fprintf(f, ",\n ");
    json_frames(f, frames, nframes);
    fprintf(f, "}\n");
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "vkrr: error: cannot write %s\n", a->json);
        return vkrr_status_exit_code(VKRR_ERR_IO);
    }
    return 0;
}
