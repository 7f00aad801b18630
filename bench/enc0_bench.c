/* enc0_bench - the PTX engines on an enc0-shaped kernel (issue 44).
 *
 *     enc0_bench (--phases N | --ptx FILE) [--warps W] [--threads T] [--reps R] [--check]
 *
 * The kernel is bench/enc0_gen.py's: N phases of fp8 (e4m3) mma with f16
 * accumulation, each followed by the epilogue the production denoiser's enc0
 * layer has (f16 -> f32 -> ex2/rcp -> f16, cvt.rn.satfinite.relu.e4m3x2.f16x2,
 * shfl.sync.bfly), 32-thread blocks, one block a warp.  --phases N takes
 * bench/enc0/enc0_pN.ptx where it is checked in, else makes it with
 * enc0_gen.py and nvcc ($NVCC, else /usr/local/cuda/bin/nvcc), else says
 * SKIPPED and exits 77.  Buffers hold deterministic data (enc0_data.h).
 *
 * Prints the kernel's instructions (as vkrr decodes it) and mma; the
 * interpreter's and the JIT's ms a warp (a launch of W warps, default 4, on 1
 * host thread, best of R, default 3, the two engines' launches in turn); the
 * JIT's first launch with an empty
 * cache (XDG_CACHE_HOME in a temp dir) in a child process, with the child's
 * peak RSS (ru_maxrss) and its RSS before the JIT ran; what each host thread
 * holds for its block (vkrr_ptx_launch.worker_bytes); the JIT's launch
 * loading the kernel from that cache; both at T threads too (default 2);
 * whether the interpreter's and the JIT's outputs are byte-identical; and a
 * 720p enc0 launch (161 x 93 = 14,973 warps) projected from the 1-thread
 * ms/warp at 1 and 16 cores.  Figures, never pass/fail: exit 0, 2 on bad
 * input, 77 when the PTX cannot be had.  The last line, `summary: key=value ...`,
 * is bench/enc0.sh's.
 *
 * --check (the ctest smoke test): exact data (enc0_data.h), and the outputs
 * of both engines against enc0_expect's and each other's; exit 1 on any
 * difference, 77 (SKIPPED) after the interpreter's check in a build without
 * the JIT, unless VKRR_TEST_REQUIRE names llvm (then 1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enc0_data.h"
#include "ptx.h"

enum { WARPS_720P = 161 * 93 };

typedef struct opts {
    const char *ptx;
    uint32_t phases, warps, threads;
    int reps;
    bool check;
} opts;

typedef struct cold_result { /* what the child sends back */
    double first_s, again_s;
    long rss_before_kb;
    uint64_t hash;
    int ok;
    char why[1024];
} cold_result;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t fnv(const void *p, size_t n)
{
    const unsigned char *c = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

static int usage(const char *why)
{
    fprintf(stderr, "enc0_bench: %s\nusage: enc0_bench (--phases N | --ptx FILE) [--warps W] "
                    "[--threads T] [--reps R] [--check]\n", why);
    return 2;
}

static bool num_arg(int argc, char **argv, int *i, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    if (*i + 1 >= argc)
        return false;
    errno = 0;
    unsigned long v = strtoul(argv[*i + 1], &end, 10);
    if (errno || *end || end == argv[*i + 1] || v < lo || v > hi)
        return false;
    *out = (uint32_t)v;
    ++*i;
    return true;
}

static int parse(int argc, char **argv, opts *o)
{
    *o = (opts){.warps = 4, .threads = 2, .reps = 3};
    uint32_t reps = 3;
    for (int i = 1; i < argc; i++) {
        char why[300];
        snprintf(why, sizeof why, "argument %d: '%s' is not an option or lacks a valid value", i,
                 argv[i]);
        if (!strcmp(argv[i], "--ptx") && i + 1 < argc)
            o->ptx = argv[++i];
        else if (!strcmp(argv[i], "--phases")) {
            if (!num_arg(argc, argv, &i, 1, 100000, &o->phases))
                return usage("--phases wants 1..100000");
        } else if (!strcmp(argv[i], "--warps")) {
            if (!num_arg(argc, argv, &i, 1, 65535, &o->warps))
                return usage("--warps wants 1..65535");
        } else if (!strcmp(argv[i], "--threads")) {
            if (!num_arg(argc, argv, &i, 1, 64, &o->threads))
                return usage("--threads wants 1..64");
        } else if (!strcmp(argv[i], "--reps")) {
            if (!num_arg(argc, argv, &i, 1, 1000, &reps))
                return usage("--reps wants 1..1000");
        } else if (!strcmp(argv[i], "--check"))
            o->check = true;
        else
            return usage(why);
    }
    o->reps = (int)reps;
    if (!o->ptx == !o->phases)
        return usage("give one of --phases N and --ptx FILE");
    return 0;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* --phases N: the checked-in PTX, else one nvcc makes in tmp; 77 when neither. */
static int resolve_ptx(const opts *o, const char *tmp, char *path, size_t cap)
{
    if (o->ptx) {
        snprintf(path, cap, "%s", o->ptx);
        return 0;
    }
    snprintf(path, cap, "%s/enc0/enc0_p%u.ptx", ENC0_DIR, o->phases);
    if (exists(path))
        return 0;
    const char *nvcc = getenv("NVCC") && *getenv("NVCC") ? getenv("NVCC") : "/usr/local/cuda/bin/nvcc";
    if (access(nvcc, X_OK) != 0) {
        printf("enc0_bench: SKIPPED: %u phases: %s is not checked in and there is no nvcc (%s) "
               "to make it\n", o->phases, path, nvcc);
        return 77;
    }
    snprintf(path, cap, "%s/enc0_p%u.ptx", tmp, o->phases);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "python3 '%s/enc0_gen.py' --phases %u --ptx '%s'", ENC0_DIR,
             o->phases, path);
    if (system(cmd) != 0) {
        fprintf(stderr, "enc0_bench: could not make %s (%s)\n", path, cmd);
        return 2;
    }
    return 0;
}

/* The kernel's mma and its phases (one shfl.sync each: --mma-standin's
 * kernel has no mma), from its text. */
static uint32_t count_text(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fprintf(stderr, "enc0_bench: cannot read %s: %s\n", path, strerror(errno));
    char line[4096];
    uint32_t n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return n;
}

/* The decoded instruction count: coverage's total, on a copy of its own;
 * 0, the reason printed, when the module or its enc0 entry does not load. */
static uint32_t count_instructions(const char *path)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    uint32_t ran = 0, total = 0;
    if (vkrr_ptx_module_load_file(&m, path, &err) != VKRR_OK ||
        vkrr_ptx_entry_status(m, "enc0", &err) != VKRR_OK || vkrr_ptx_coverage_on(m, &err) != VKRR_OK)
        vkrr_error_print(&err, stderr);
    else
        vkrr_ptx_instr_coverage(m, "enc0", &ran, &total, NULL, 0);
    vkrr_ptx_module_free(m);
    return total;
}

typedef struct launch_ctx {
    const vkrr_ptx_module *m;
    enc0_bufs *b;
    uint64_t *worker_bytes; /* out, optional: vkrr_ptx_launch's */
    uint32_t *jit_runs, *jit_fns; /* out, optional: the JIT's runs and functions (its last launch's) */
} launch_ctx;

/* One launch of b->warps blocks; its time in s, or -1 with err set. */
static double launch(const launch_ctx *c, vkrr_ptx_engine engine, uint32_t threads,
                     const char **used, vkrr_error *err)
{
    enc0_bufs *b = c->b;
    vkrr_ptx_region regions[3] = {
        {.base = b->act, .size = b->act_bytes},
        {.base = b->w, .size = b->w_bytes},
        {.base = b->out, .size = b->out_bytes, .writable = true},
    };
    uint64_t params[3] = {(uint64_t)(uintptr_t)b->act, (uint64_t)(uintptr_t)b->w,
                          (uint64_t)(uintptr_t)b->out};
    vkrr_ptx_launch l = {.grid = {b->warps, 1, 1}, .block = {32, 1, 1},
                         .params = (const uint8_t *)params, .params_bytes = sizeof params,
                         .regions = regions, .nregions = 3, .threads = threads, .engine = engine,
                         .engine_used = used, .worker_bytes = c->worker_bytes,
                         .jit_runs = engine == VKRR_PTX_ENGINE_JIT ? c->jit_runs : NULL,
                         .jit_functions = engine == VKRR_PTX_ENGINE_JIT ? c->jit_fns : NULL};
    double t0 = now_s();
    if (vkrr_ptx_run(c->m, "enc0", &l, err) != VKRR_OK)
        return -1;
    return now_s() - t0;
}

static double best(const launch_ctx *c, vkrr_ptx_engine e, uint32_t threads, int reps,
                   const char **used, vkrr_error *err)
{
    double t = 1e30;
    for (int i = 0; i < reps; i++) {
        double s = launch(c, e, threads, used, err);
        if (s < 0)
            return -1;
        t = s < t ? s : t;
    }
    return t;
}

static long rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* The child: load, run the JIT with the empty cache, run again. */
static void cold_child(const char *path, uint32_t phases, uint32_t warps, bool exact, int fd)
{
    cold_result r = {.ok = 0};
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    enc0_bufs b;
    const char *used = NULL;
    if (!enc0_bufs_alloc(&b, phases, warps)) {
        snprintf(r.why, sizeof r.why, "out of memory");
    } else if (vkrr_ptx_module_load_file(&m, path, &err) == VKRR_OK) {
        enc0_fill(&b, exact);
        memset(b.out, 0xa5, b.out_bytes); /* as measure() does: words left unwritten agree */
        launch_ctx c = {m, &b, NULL, NULL, NULL};
        r.rss_before_kb = rss_kb();
        r.first_s = launch(&c, VKRR_PTX_ENGINE_JIT, 1, &used, &err);
        r.again_s = r.first_s < 0 ? -1 : launch(&c, VKRR_PTX_ENGINE_JIT, 1, &used, &err);
        r.ok = r.again_s >= 0 && used && !strcmp(used, "jit");
        r.hash = fnv(b.out, b.out_bytes);
        if (r.again_s < 0)
            snprintf(r.why, sizeof r.why, "%s", err.msg);
        else if (!r.ok)
            snprintf(r.why, sizeof r.why, "ran as %s", used ? used : "?");
    } else {
        snprintf(r.why, sizeof r.why, "%s", err.msg);
    }
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        _exit(3);
    _exit(0);
}

static bool cold_run(const char *path, uint32_t phases, uint32_t warps, bool exact, cold_result *r,
                     long *peak_kb)
{
    int fd[2];
    if (pipe(fd) != 0)
        return false;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        close(fd[0]);
        cold_child(path, phases, warps, exact, fd[1]);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], r, sizeof *r);
    close(fd[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid)
        return false;
    *peak_kb = ru.ru_maxrss;
    if (WIFSIGNALED(status))
        fprintf(stderr, "enc0_bench: the cold JIT's child process was killed by signal %d (%s)\n",
                WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "enc0_bench: the cold JIT's child process exited %d\n", WEXITSTATUS(status));
    return got == (ssize_t)sizeof *r && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The first of the output words where got differs from want, printed. */
static bool same_words(const char *what, const enc0_bufs *b, const uint32_t *want)
{
    for (size_t i = 0; i < b->out_bytes / 4; i++)
        if (b->out[i] != want[i]) {
            size_t phase = i / ENC0_OUT_WORDS;
            printf("  %s: DIFFERENT at out word %zu (warp %zu, phase %zu, lane %zu, word %zu): "
                   "%08x, expected %08x\n", what, i, phase / b->phases, phase % b->phases,
                   i % ENC0_OUT_WORDS / 2, i % 2, b->out[i], want[i]);
            return false;
        }
    return true;
}

/* The CPU's model and widest vector extension, from /proc/cpuinfo: the
 * JIT's figures depend on it more than on anything else measured (its
 * <32 x i64> lane vectors and <32 x i1> lane masks are a few AVX-512
 * registers, and on a host with AVX2 alone many more instructions: the
 * 10k-instruction kernel took 26 s to compile on a 2-core AVX2 EPYC, 94 % of
 * it in LLVM's SelectionDAG, against 8.7 s of CPU in ptx_jit.c's earlier
 * figures, and its code ran slower than the interpreter). */
static void host_cpu(char *buf, size_t cap)
{
    char line[4096], model[128] = "?";
    const char *vec = "no AVX2";
    FILE *f = fopen("/proc/cpuinfo", "r");
    bool got_model = false, got_flags = false;
    while (f && (!got_model || !got_flags) && fgets(line, sizeof line, f)) {
        char *v = strchr(line, ':');
        if (!v)
            continue;
        v += 1 + (v[1] == ' ');
        v[strcspn(v, "\n")] = 0;
        if (!got_model && !strncmp(line, "model name", 10)) {
            snprintf(model, sizeof model, "%s", v);
            got_model = true;
        } else if (!got_flags && !strncmp(line, "flags", 5)) {
            vec = strstr(v, " avx512f") ? "AVX-512" : strstr(v, " avx2") ? "AVX2, no AVX-512" : "no AVX2";
            got_flags = true;
        }
    }
    if (f)
        fclose(f);
    const char *jit_cpu = getenv("VKRR_PTX_JIT_CPU"); /* the JIT's code for another CPU */
    snprintf(buf, cap, "%s, %s%s%s%s", model, vec, jit_cpu && *jit_cpu ? "; the JIT's code for " : "",
             jit_cpu && *jit_cpu ? jit_cpu : "", jit_cpu && *jit_cpu ? " (VKRR_PTX_JIT_CPU)" : "");
}

static void project(const char *engine, double ms_warp)
{
    printf("  %-6s 720p enc0 (%d warps) projected: %9.1f ms at 1 core, %8.1f ms at 16 cores\n",
           engine, WARPS_720P, ms_warp * WARPS_720P, ms_warp * WARPS_720P / 16);
}

typedef struct figures {
    double interp1, interpT, jit_load, jit1, jitT;
} figures;

/* The interpreter's and the JIT's runs in this process; out_interp keeps
 * the interpreter's bytes, b->out is left with the JIT's (1 thread).  The
 * two engines' one-thread launches are taken in turn, the best of each
 * kept: on a shared host a spell of load (it can double a figure for
 * seconds) then falls on both, and their ratio is measured under one
 * load.  -1 in a figure: not measured. */
static int measure(const launch_ctx *c, const opts *o, bool jit, uint32_t *out_interp, figures *f,
                   vkrr_error *err)
{
    const char *used = NULL;
    *f = (figures){-1, -1, -1, -1, -1};
    size_t nb = c->b->out_bytes;
    uint32_t *keep = malloc(nb);
    if (!keep)
        return 2;
    int rc = 2;
    for (int i = 0; i < o->reps; i++) {
        memset(c->b->out, 0xa5, nb);
        double s = launch(c, VKRR_PTX_ENGINE_INTERP, 1, &used, err);
        if (s < 0)
            goto out;
        f->interp1 = f->interp1 < 0 || s < f->interp1 ? s : f->interp1;
        if (i == 0)
            memcpy(out_interp, c->b->out, nb);
        if (jit && i == 0) { /* the JIT's first launch: its code loaded from the cache */
            memset(c->b->out, 0xa5, nb);
            if ((f->jit_load = launch(c, VKRR_PTX_ENGINE_JIT, 1, &used, err)) < 0)
                goto out;
            if (!used || strcmp(used, "jit")) {
                printf("  jit: the launch ran as %s\n", used ? used : "?");
                f->jit_load = -1;
                jit = false;
            }
        }
        if (jit) {
            memset(c->b->out, 0xa5, nb);
            if ((s = launch(c, VKRR_PTX_ENGINE_JIT, 1, &used, err)) < 0)
                goto out;
            f->jit1 = f->jit1 < 0 || s < f->jit1 ? s : f->jit1;
        }
    }
    memcpy(keep, c->b->out, nb);
    if (o->threads > 1 && (f->interpT = best(c, VKRR_PTX_ENGINE_INTERP, o->threads, o->reps, &used, err)) < 0)
        goto out;
    if (jit && o->threads > 1 && (f->jitT = best(c, VKRR_PTX_ENGINE_JIT, o->threads, o->reps, &used, err)) < 0)
        goto out;
    memcpy(c->b->out, keep, nb);
    rc = 0;
out:
    free(keep);
    return rc;
}

static void print_engine(const char *name, double t1, double tT, const opts *o)
{
    uint32_t w = o->warps;
    printf("  %-6s 1 thread: %9.3f ms a launch of %u warps = %8.3f ms/warp", name, 1e3 * t1, w,
           1e3 * t1 / w);
    if (tT >= 0)
        printf("; %u threads: %9.3f ms (%.2fx)", o->threads, 1e3 * tT, t1 / tT);
    printf("\n");
}

static int check_skip_jit(void)
{
    const char *req = getenv("VKRR_TEST_REQUIRE");
    bool need = false;
    for (const char *p = req; p && *p;) {
        p += strspn(p, " ");
        size_t len = strcspn(p, " ");
        need = need || (len == 4 && !strncmp(p, "llvm", 4));
        p += len;
    }
    printf("%s: the JIT: this build has none (no llvm-15-dev, or -DVKRR_PTX_JIT=OFF)%s\n",
           need ? "FAIL" : "SKIPPED", need ? " (required: VKRR_TEST_REQUIRE names llvm)" : "");
    return need ? 1 : 77;
}

/* One size's figures, for printing and the check. */
typedef struct run {
    const opts *o;
    enc0_bufs *b;
    figures f;
    cold_result cold;
    long peak_kb;
    bool jit, same, cold_same;
    uint32_t insts, mma;
    double load_s;
    uint64_t worker_bytes; /* what each host thread holds for its block */
    uint32_t jit_runs, jit_fns; /* the JIT's compiled runs, and the functions they share */
} run;

static void print_figures(const run *r)
{
    const figures *f = &r->f;
    const cold_result *cold = &r->cold;
    const opts *o = r->o;
    printf("  load (parse + decode): %.3f s\n", r->load_s);
    printf("  memory: each host thread holds %.1f KB for its block (a warp's registers, predicates, "
           "local and shared memory), and the JIT's run frames on its stack\n", r->worker_bytes / 1024.0);
    print_engine("interp", f->interp1, f->interpT, o);
    if (!r->jit)
        printf("  jit: SKIPPED: this build has no JIT (no llvm-15-dev, or -DVKRR_PTX_JIT=OFF)\n");
    else if (!cold->ok)
        printf("  jit: cold run failed: %s\n", cold->why);
    else {
        printf("  jit    cold (empty cache): first launch %.3f s, again %.3f s: compile ~%.3f s; "
               "peak RSS %.1f MB (%.1f MB before the JIT)\n", cold->first_s, cold->again_s,
               cold->first_s - cold->again_s, r->peak_kb / 1024.0, cold->rss_before_kb / 1024.0);
        if (f->jit1 >= 0) {
            printf("  jit    from the cache: first launch %.3f s (%.3f s over a warm one); "
                   "%u compiled runs in %u functions\n",
                   f->jit_load, f->jit_load - f->jit1, r->jit_runs, r->jit_fns);
            print_engine("jit", f->jit1, f->jitT, o);
        }
    }
    if (f->jit1 >= 0)
        printf("  outputs: interp and jit %s; cold jit %s\n", r->same ? "byte-identical" : "DIFFERENT",
               r->cold_same ? "byte-identical" : "DIFFERENT");
    project("interp", 1e3 * f->interp1 / o->warps);
    if (f->jit1 >= 0)
        project("jit", 1e3 * f->jit1 / o->warps);
    /* one line for bench/enc0.sh's table; -1: not measured */
    printf("summary: insts=%u mma=%u compile_s=%.3f peak_mb=%.1f worker_kb=%.1f interp_ms_warp=%.3f "
           "jit_ms_warp=%.3f interp_%ut_ms=%.3f jit_%ut_ms=%.3f same=%s jit_runs=%u jit_fns=%u\n",
           r->insts, r->mma,
           cold->ok ? cold->first_s - cold->again_s : -1, cold->ok ? r->peak_kb / 1024.0 : -1,
           r->worker_bytes / 1024.0, 1e3 * f->interp1 / o->warps, f->jit1 >= 0 ? 1e3 * f->jit1 / o->warps : -1, o->threads,
           f->interpT >= 0 ? 1e3 * f->interpT : -1, o->threads, f->jitT >= 0 ? 1e3 * f->jitT : -1,
           f->jit1 < 0 ? "-" : r->same && r->cold_same ? "yes" : "NO", r->jit_runs, r->jit_fns);
}

/* --check: the interpreter's bytes (interp) against enc0_expect's, and the
 * JIT's against the interpreter's (r->same, r->cold_same); the exit code. */
static int check(const run *r, const uint32_t *interp, uint32_t *expect)
{
    enc0_bufs *b = r->b;
    char why[400];
    if (!enc0_expect(b, expect, why, sizeof why)) {
        printf("FAIL: no expected values: %s\n", why);
        return 1;
    }
    size_t nonzero = 0;
    for (size_t i = 0; i < b->out_bytes / 4; i++)
        nonzero += expect[i] != 0;
    memcpy(b->out, interp, b->out_bytes);
    bool interp_ok = same_words("interp vs expected", b, expect);
    printf("check: %zu of %zu expected words nonzero; interp %s the expected values\n", nonzero,
           b->out_bytes / 4, interp_ok ? "matches" : "DIFFERS FROM");
    if (!interp_ok || !nonzero)
        return 1;
    if (!r->jit)
        return check_skip_jit();
    if (!r->same || !r->cold_same)
        return 1;
    printf("check: jit (cold and cached) byte-identical to interp: PASS\n");
    return 0;
}

int main(int argc, char **argv)
{
    opts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    char tmp[] = "/tmp/enc0_bench.XXXXXX", path[4096], cache[4200];
    if (!mkdtemp(tmp)) {
        perror("enc0_bench: mkdtemp");
        return 2;
    }
    snprintf(cache, sizeof cache, "%s/cache", tmp);
    unsetenv("VKRR_PTX_ENGINE");
    if (setenv("XDG_CACHE_HOME", cache, 1) != 0 || (rc = resolve_ptx(&o, tmp, path, sizeof path)))
        goto done;
    uint32_t mma = count_text(path, "mma.sync"), phases = count_text(path, "shfl.sync");
    uint32_t insts = phases ? count_instructions(path) : 0;
    if (!phases || !insts) {
        fprintf(stderr, "enc0_bench: %s: no enc0 kernel of bench/enc0_gen.py's (%u instructions, "
                "%u shfl.sync)\n", path, insts, phases);
        rc = 2;
        goto done;
    }
    bool jit = vkrr_ptx_jit_built();
    char load[64] = "?";
    FILE *la = fopen("/proc/loadavg", "r"); /* a shared machine's figures need it */
    if (la && !fgets(load, sizeof load, la))
        snprintf(load, sizeof load, "?");
    if (la)
        fclose(la);
    load[strcspn(load, " ")] = 0;
    char cpu[160];
    host_cpu(cpu, sizeof cpu);
    printf("enc0_bench: host: %ld cores online (%s), load average %s before the runs\n",
           sysconf(_SC_NPROCESSORS_ONLN), cpu, load);
    printf("enc0_bench: %s: %u instructions, %u phases, %u mma; %u warps, best of %d, JIT %s%s\n",
           path, insts, phases, mma, o.warps, o.reps, jit ? "LLVM " : "none", jit ? vkrr_ptx_jit_llvm_version() : "");
    cold_result cold = {0};
    long peak_kb = 0;
    if (jit && !cold_run(path, phases, o.warps, o.check, &cold, &peak_kb)) {
        fprintf(stderr, "enc0_bench: the cold JIT's child process failed\n");
        rc = 2;
        goto done;
    }
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    enc0_bufs b = {0};
    uint32_t *keep = NULL, *expect = NULL;
    double t0 = now_s();
    if (vkrr_ptx_module_load_file(&m, path, &err) != VKRR_OK) {
        vkrr_error_print(&err, stderr);
        rc = 2;
        goto done;
    }
    double load_s = now_s() - t0;
    if (!enc0_bufs_alloc(&b, phases, o.warps) || !(keep = malloc(b.out_bytes)) ||
        !(expect = malloc(b.out_bytes))) {
        fprintf(stderr, "enc0_bench: out of memory\n");
        rc = 2;
        goto free;
    }
    enc0_fill(&b, o.check);
    figures f;
    uint64_t worker_bytes = 0;
    uint32_t jit_runs = 0, jit_fns = 0;
    launch_ctx c = {m, &b, &worker_bytes, &jit_runs, &jit_fns};
    if ((rc = measure(&c, &o, jit && cold.ok, keep, &f, &err))) {
        vkrr_error_print(&err, stderr);
        goto free;
    }
    run r = {.o = &o, .b = &b, .f = f, .cold = cold, .peak_kb = peak_kb, .jit = jit,
             .insts = insts, .mma = mma, .load_s = load_s, .worker_bytes = worker_bytes,
             .jit_runs = jit_runs, .jit_fns = jit_fns};
    r.same = f.jit1 >= 0 && same_words("jit vs interp", &b, keep);
    r.cold_same = cold.ok && cold.hash == fnv(keep, b.out_bytes);
    print_figures(&r);
    if (o.check)
        rc = check(&r, keep, expect);
free:
    free(keep);
    free(expect);
    enc0_bufs_free(&b);
    vkrr_ptx_module_free(m);
done:;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0 && !rc)
        rc = 2;
    return rc;
}
