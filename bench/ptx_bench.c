/* ptx_bench - the PTX engines' speed against the CPU backend.
 *
 *     ptx_bench MODULE_DIR [--size WxH] [--frames N] [--reps R] [--interp-reps R]
 *                          [--work DIR]
 *
 * Makes an rrref capture with `vkrr synth`'s library (default 320x180, 1
 * frame) in DIR (default a temp dir, removed), then times every launch on
 *   cpu        the CPU backend (the same .cu source, compiled into vkrr)
 *   interp     the "ptx" backend's interpreter (modules MODULE_DIR/rrref_*.ptx)
 *   jit-first  the PTX JIT on its first run with an empty cache: the kernel's
 *              compilation included (a kernel's later launches reuse it)
 *   jit        the PTX JIT from a fresh backend over the filled cache: the best
 *              of R runs, the first of them loading the kernel from the cache
 * best of R runs each (default 3; the interpreter --interp-reps, default R),
 * all with their default threads (every core), and prints per launch
 *     KERNEL#OCC  cpu MS  interp MS (x)  jit-first MS (x)  jit MS (x)  same|DIFFERENT
 * (x: over cpu; same: every engine's bytes equal the CPU backend's), then per
 * frame and in total.  The cache lives in DIR (XDG_CACHE_HOME is set there).
 * Figures, never pass/fail; exit 2 on bad input.
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

/* The launch's outputs (allocations, then images with a post), to compare. */
static size_t outputs(const vkrr_replay *r, unsigned char *to)
{
    size_t n = 0;
    for (uint32_t a = 0; a < r->nallocs; a++) {
        if (to)
            memcpy(to + n, r->allocs[a].post, r->allocs[a].size);
        n += r->allocs[a].size;
    }
    for (uint32_t k = 0; k < r->nimages; k++)
        if (r->images[k].post) {
            if (to)
                memcpy(to + n, r->images[k].post, vkrr_replay_image_bytes(&r->images[k]));
            n += vkrr_replay_image_bytes(&r->images[k]);
        }
    return n;
}

static bool same_as(const vkrr_replay *r, const unsigned char *keep, size_t n, unsigned char *tmp)
{
    outputs(r, tmp);
    return !memcmp(keep, tmp, n);
}

enum { E_CPU, E_INTERP, E_FIRST, E_JIT, E_N };
static const char *const engine_names[E_N] = {"cpu", "interp", "jit-first", "jit"};

/* rrref's modules, one a cuda_ref/kernels/NAME.cu */
static const char *const module_names[] = {"rrref_attn.ptx",  "rrref_conv.ptx",   "rrref_expo.ptx",
                                           "rrref_input.ptx", "rrref_output.ptx", "rrref_tok.ptx"};
enum { NMOD = sizeof module_names / sizeof module_names[0] };

static vkrr_status open_ptx(vkrr_backend *be, const char *const *p, const char *engine,
                            vkrr_error *err)
{
    vkrr_status st = vkrr_ptx_backend_create(be, p, NMOD, err);
    if (st == VKRR_OK && (st = vkrr_ptx_backend_engine(be, engine, false, err)) != VKRR_OK)
        be->destroy(be->self);
    return st;
}

static void print_row(const char *what, const double *t, const char *tail)
{
    printf("%-36s cpu %9.3f ms", what, 1e3 * t[E_CPU]);
    for (int e = E_INTERP; e < E_N; e++)
        printf("  %s %9.3f ms (%5.2fx)", engine_names[e], 1e3 * t[e], t[e] / t[E_CPU]);
    printf("%s\n", tail);
}

int main(int argc, char **argv)
{
    const char *mods = NULL, *work = NULL;
    unsigned w = 320, h = 180, frames = 1;
    int reps = 3, ireps = 0;
    static const char usage[] = "usage: ptx_bench MODULE_DIR [--size WxH] [--frames N] [--reps R] "
                                "[--interp-reps R] [--work DIR]\n";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc && sscanf(argv[i + 1], "%ux%u", &w, &h) == 2)
            i++;
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--interp-reps") && i + 1 < argc)
            ireps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--work") && i + 1 < argc)
            work = argv[++i];
        else if (!mods && argv[i][0] != '-')
            mods = argv[i];
        else {
            fputs(usage, stderr);
            return 2;
        }
    }
    if (!ireps)
        ireps = reps;
    if (!mods || reps < 1 || ireps < 1 || frames < 1) {
        fputs(usage, stderr);
        return 2;
    }
    char tmp[] = "/tmp/ptx_bench.XXXXXX", dir[4096], cache[4096];
    bool own = !work;
    if (own && !mkdtemp(tmp)) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s/cap", own ? tmp : work);
    snprintf(cache, sizeof cache, "%s/cache", own ? tmp : work);
    char rmcache[8300];
    snprintf(rmcache, sizeof rmcache, "rm -rf '%s'", cache);
    if (system(rmcache) != 0 || setenv("XDG_CACHE_HOME", cache, 1) != 0) {
        fprintf(stderr, "ptx_bench: cannot empty %s\n", cache);
        return 2;
    }
    unsetenv("VKRR_PTX_ENGINE");
    vkrr_error err = {0};
    vkrr_warn_set_stream(NULL);
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = dir, .width = w, .height = h, .frames = frames, .module_dir = "",
                         .force = true};
    if (vkrr_synth_run(&d, &st, &err) != VKRR_OK) {
        vkrr_error_print(&err, stderr);
        return 2;
    }
    char paths[NMOD][4096];
    const char *p[NMOD];
    for (int i = 0; i < NMOD; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", mods, module_names[i]);
        p[i] = paths[i];
    }
    vkrr_backend cpu = {0}, interp = {0}, first = {0}, jit = {0};
    vkrr_capture *cap = NULL;
    if (vkrr_cpu_backend_create(&cpu, &err) != VKRR_OK || open_ptx(&interp, p, "interp", &err) ||
        open_ptx(&first, p, "jit", &err) || vkrr_capture_open(&cap, dir, &err) != VKRR_OK) {
        vkrr_error_print(&err, stderr);
        return 2;
    }
    uint32_t n = cap->nlaunches;
    double (*t)[E_N] = calloc(n ? n : 1, sizeof *t);
    bool *same = calloc(n ? n : 1, sizeof *same);
    int rc = t && same ? 0 : 2;
    printf("ptx_bench: rrref %ux%u, %u frame(s), best of %d (interpreter %d)\n", w, h, frames, reps,
           ireps);
    /* two passes: cpu, interp and the JIT's first run; then the JIT from the cache */
    for (int pass = 0; pass < 2 && !rc; pass++) {
        if (pass == 1 && open_ptx(&jit, p, "jit", &err) != VKRR_OK) {
            rc = 2;
            break;
        }
        for (uint32_t i = 0; i < n && !rc; i++) {
            vkrr_replay r;
            vkrr_replay_storage *s = NULL;
            if (vkrr_replay_from_capture(cap, &cap->launches[i], &r, &s, &err) != VKRR_OK) {
                rc = 2;
                break;
            }
            double c = best_run(&cpu, &r, reps, &err);
            size_t bytes = outputs(&r, NULL);
            unsigned char *keep = malloc(bytes ? bytes : 1), *cmp = malloc(bytes ? bytes : 1);
            if (!keep || !cmp || c < 0) {
                rc = 2;
            } else {
                outputs(&r, keep);
                if (pass == 0) {
                    t[i][E_CPU] = c;
                    t[i][E_FIRST] = best_run(&first, &r, 1, &err);
                    same[i] = t[i][E_FIRST] >= 0 && same_as(&r, keep, bytes, cmp);
                    t[i][E_INTERP] = best_run(&interp, &r, ireps, &err);
                    same[i] = same[i] && t[i][E_INTERP] >= 0 && same_as(&r, keep, bytes, cmp);
                    rc = t[i][E_FIRST] < 0 || t[i][E_INTERP] < 0 ? 2 : 0;
                } else {
                    t[i][E_JIT] = best_run(&jit, &r, reps, &err);
                    same[i] = same[i] && t[i][E_JIT] >= 0 && same_as(&r, keep, bytes, cmp);
                    rc = t[i][E_JIT] < 0 ? 2 : 0;
                }
            }
            free(keep);
            free(cmp);
            vkrr_replay_capture_free(s);
        }
    }
    if (rc)
        vkrr_error_print(&err, stderr);
    double frame[E_N] = {0}, total[E_N] = {0};
    bool all_same = true;
    for (uint32_t i = 0; i < n && !rc; i++) {
        const vkrr_launch *l = &cap->launches[i];
        char what[64];
        snprintf(what, sizeof what, "%.31s#%u", l->kernel, l->occurrence);
        print_row(what, t[i], same[i] ? "  same" : "  DIFFERENT");
        all_same = all_same && same[i];
        for (int e = 0; e < E_N; e++) {
            frame[e] += t[i][e];
            total[e] += t[i][e];
        }
        if (i + 1 == n || cap->launches[i + 1].frame != l->frame) {
            snprintf(what, sizeof what, "frame %u", l->frame);
            print_row(what, frame, "");
            memset(frame, 0, sizeof frame);
        }
    }
    if (!rc)
        print_row("total", total, all_same ? "  same bytes" : "  DIFFERENT BYTES");
    vkrr_capture_close(cap);
    cpu.destroy(cpu.self);
    interp.destroy(interp.self);
    first.destroy(first.self);
    if (jit.self)
        jit.destroy(jit.self);
    free(t);
    free(same);
    if (own) {
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            rc = rc ? rc : 2;
    }
    return rc;
}
