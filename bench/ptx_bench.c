/* ptx_bench - the PTX interpreter's speed against the CPU backend.
 *
 *     ptx_bench MODULE_DIR [--size WxH] [--frames N] [--reps R] [--work DIR]
 *
 * Makes an rrref capture with `vkrr synth`'s library (default 320x180, 1
 * frame) in DIR (default a temp dir, removed), then times every launch on the
 * CPU backend and on the "ptx" backend (modules MODULE_DIR/rrref_*.ptx), best
 * of R runs each (default 3), both with their default threads (2), and prints
 *     KERNEL#OCC  cpu MS  ptx MS  ratio X
 * per launch and the total, plus whether both gave the same bytes.  Figures,
 * never pass/fail; exit 2 on bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cpu_backend.h"
#include "ptx.h"
#include "replay.h"
#include "synth.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double best_run(vkrr_backend *be, vkrr_replay *r, int reps, vkrr_error *err)
{
    double best = 1e30;
    for (int i = 0; i < reps; i++) {
        double t0 = now_s();
        if (be->run(be->self, r, err) != VKRR_OK)
            return -1;
        double t = now_s() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    const char *mods = NULL, *work = NULL;
    unsigned w = 320, h = 180, frames = 1;
    int reps = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%ux%u", &w, &h) == 2)
            i++;
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--work") && i + 1 < argc)
            work = argv[++i];
        else if (!mods && argv[i][0] != '-')
            mods = argv[i];
        else {
            fprintf(stderr, "usage: ptx_bench MODULE_DIR [--size WxH] [--frames N] [--reps R] [--work DIR]\n");
            return 2;
        }
    }
    if (!mods || reps < 1 || frames < 1) {
        fprintf(stderr, "usage: ptx_bench MODULE_DIR [--size WxH] [--frames N] [--reps R] [--work DIR]\n");
        return 2;
    }
    char tmp[] = "/tmp/ptx_bench.XXXXXX", dir[4096];
    bool own = !work;
    if (own && !mkdtemp(tmp)) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s/cap", own ? tmp : work);
    vkrr_error err = {0};
    vkrr_warn_set_stream(NULL);
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = dir, .width = w, .height = h, .frames = frames, .module_dir = "",
                         .force = true};
    if (vkrr_synth_run(&d, &st, &err) != VKRR_OK) {
        vkrr_error_print(&err, stderr);
        return 2;
    }
    static const char *const names[] = {"rrref_conv.ptx", "rrref_expo.ptx", "rrref_input.ptx",
                                        "rrref_output.ptx"};
    char paths[4][4096];
    const char *p[4];
    for (int i = 0; i < 4; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", mods, names[i]);
        p[i] = paths[i];
    }
    vkrr_backend cpu = {0}, ptx = {0};
    if (vkrr_cpu_backend_create(&cpu, &err) != VKRR_OK ||
        vkrr_ptx_backend_create(&ptx, p, 4, &err) != VKRR_OK) {
        vkrr_error_print(&err, stderr);
        return 2;
    }
    vkrr_capture *cap = NULL;
    if (vkrr_capture_open(&cap, dir, &err) != VKRR_OK) {
        vkrr_error_print(&err, stderr);
        return 2;
    }
    double tc = 0, tp = 0;
    int rc = 0;
    printf("ptx_bench: rrref %ux%u, %u frame(s), best of %d\n", w, h, frames, reps);
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        vkrr_replay r;
        vkrr_replay_storage *s = NULL;
        if (vkrr_replay_from_capture(cap, l, &r, &s, &err) != VKRR_OK) {
            vkrr_error_print(&err, stderr);
            rc = 2;
            break;
        }
        double c = best_run(&cpu, &r, reps, &err);
        /* keep the CPU's outputs to compare with the interpreter's */
        uint64_t total = 0;
        for (uint32_t a = 0; a < r.nallocs; a++)
            total += r.allocs[a].size;
        for (uint32_t k = 0; k < r.nimages; k++)
            if (r.images[k].post)
                total += vkrr_replay_image_bytes(&r.images[k]);
        unsigned char *keep = malloc(total ? total : 1), *q = keep;
        for (uint32_t a = 0; a < r.nallocs; q += r.allocs[a].size, a++)
            memcpy(q, r.allocs[a].post, r.allocs[a].size);
        for (uint32_t k = 0; k < r.nimages; k++)
            if (r.images[k].post) {
                memcpy(q, r.images[k].post, vkrr_replay_image_bytes(&r.images[k]));
                q += vkrr_replay_image_bytes(&r.images[k]);
            }
        double x = c >= 0 ? best_run(&ptx, &r, reps, &err) : -1;
        if (c < 0 || x < 0) {
            vkrr_error_print(&err, stderr);
            rc = 2;
            free(keep);
            vkrr_replay_capture_free(s);
            break;
        }
        bool same = true;
        q = keep;
        for (uint32_t a = 0; a < r.nallocs; q += r.allocs[a].size, a++)
            same = same && !memcmp(q, r.allocs[a].post, r.allocs[a].size);
        for (uint32_t k = 0; k < r.nimages; k++)
            if (r.images[k].post) {
                same = same && !memcmp(q, r.images[k].post, vkrr_replay_image_bytes(&r.images[k]));
                q += vkrr_replay_image_bytes(&r.images[k]);
            }
        free(keep);
        printf("%-34s#%u  cpu %9.3f ms  ptx %9.3f ms  ratio %6.2f  %s\n", l->kernel, l->occurrence,
               1e3 * c, 1e3 * x, x / c, same ? "same bytes" : "DIFFERENT BYTES");
        tc += c;
        tp += x;
        vkrr_replay_capture_free(s);
    }
    printf("total                               cpu %9.3f ms  ptx %9.3f ms  ratio %6.2f\n", 1e3 * tc,
           1e3 * tp, tp / tc);
    vkrr_capture_close(cap);
    cpu.destroy(cpu.self);
    ptx.destroy(ptx.self);
    if (own) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            rc = rc ? rc : 2;
    }
    return rc;
}
