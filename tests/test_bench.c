/* test_bench: KERNEL_PROFILE lines -> per-launch CUDA times, and the median. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "capture_write.h"
#include "testutil.h"

static bool near(double a, double b) { return fabs(a - b) < 1e-12; }

/* A thing to time that takes the scripted times, one per run. */
typedef struct script {
    const double *ms;
    unsigned n, calls;
    unsigned fail_at; /* 1-based call that fails; 0: none */
} script;

static vkrr_status scripted(void *ctx, double *ms, vkrr_error *err)
{
    script *s = ctx;
    if (++s->calls == s->fail_at)
        return vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "run %u failed", s->calls);
    *ms = s->calls <= s->n ? s->ms[s->calls - 1] : s->ms[s->n - 1];
    return VKRR_OK;
}

static void test_measure(void)
{
    vkrr_error err = {0};
    vkrr_bench_fig f;
    /* first use (500 ms) untimed; an idle GPU clocking up: 20, then 10, 10 */
    static const double up[] = {500, 20, 19, 21, 10, 10.1, 9.9, 10.05, 10, 9.95};
    script s = {up, 10, 0, 0};
    CHECK(vkrr_bench_measure(&(vkrr_bench_plan){.runs = 3}, scripted, &s, &f, &err) == VKRR_OK);
    CHECK_EQ_U64(s.calls, 10);
    CHECK(f.steady);
    CHECK(near(f.min, 9.95) && near(f.median, 10) && near(f.max, 10.05));
    CHECK_EQ_U64(f.timed, 3);
    CHECK_EQ_U64(f.warmup, 7);
    CHECK(!vkrr_bench_fig_spread(&f));

    /* never steady: the bound is hit and said; the figures are the last batch's */
    static const double flip[] = {1, 10, 10, 20, 20, 10, 10, 20, 21};
    s = (script){flip, 9, 0, 0};
    CHECK(vkrr_bench_measure(&(vkrr_bench_plan){.runs = 2, .max_batches = 4}, scripted, &s, &f, &err) ==
          VKRR_OK);
    CHECK_EQ_U64(s.calls, 9);
    CHECK(!f.steady);
    CHECK(near(f.min, 20) && near(f.median, 20.5) && near(f.max, 21));
    CHECK_EQ_U64(f.warmup, 7);

    /* one run a batch: two consecutive runs within 2 % */
    static const double one[] = {9, 5, 4, 4.05};
    s = (script){one, 4, 0, 0};
    CHECK(vkrr_bench_measure(&(vkrr_bench_plan){.runs = 1}, scripted, &s, &f, &err) == VKRR_OK);
    CHECK(f.steady && near(f.median, 4.05) && f.warmup == 3 && s.calls == 4);

    /* a bound that came at once: one untimed run and one batch, unsteady */
    s = (script){up, 10, 0, 0};
    CHECK(vkrr_bench_measure(&(vkrr_bench_plan){.runs = 3, .max_warmup_s = 1e-9}, scripted, &s, &f, &err) ==
          VKRR_OK);
    CHECK(s.calls == 4 && !f.steady && f.warmup == 1 && f.timed == 3);
    CHECK(near(f.min, 19) && near(f.median, 20) && near(f.max, 21));

    /* a wide batch is marked */
    static const double wide[] = {3, 10, 12, 10, 10, 12, 10};
    s = (script){wide, 7, 0, 0};
    CHECK(vkrr_bench_measure(&(vkrr_bench_plan){.runs = 3}, scripted, &s, &f, &err) == VKRR_OK);
    CHECK(f.steady && near(f.spread, 0.2) && vkrr_bench_fig_spread(&f));

    /* no time from the backend: one run, NAN figures */
    static const double none[] = {NAN};
    s = (script){none, 1, 0, 0};
    CHECK(vkrr_bench_measure(&(vkrr_bench_plan){.runs = 5}, scripted, &s, &f, &err) == VKRR_OK);
    CHECK(s.calls == 1 && isnan(f.median) && isnan(f.min) && isnan(f.spread) && f.timed == 0);

    /* a failing run: its error, NAN figures */
    s = (script){up, 10, 0, 3};
    CHECK(vkrr_bench_measure(&(vkrr_bench_plan){.runs = 3}, scripted, &s, &f, &err) == VKRR_ERR_DEVICE);
    CHECK(strstr(err.msg, "run 3 failed") && isnan(f.median));
}

/* What a recorder writes (vkrr_writer_profile, as synth --backend cuda
 * does after each launch) is what bench reads back, launch for launch. */
static void test_profile_round_trip(void)
{
    char dir[] = "/tmp/vkrr-test-bench-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    char cap_dir[sizeof dir + 8];
    snprintf(cap_dir, sizeof cap_dir, "%s/cap", dir);
    vkrr_error err = {0};
    vkrr_writer *w = NULL;
    CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = cap_dir, .log_prefix = "[d4r nvcuda] "}, &err) ==
          VKRR_OK);
    uint32_t data[4] = {1, 2, 3, 4}, out[4] = {5, 6, 7, 8};
    uint8_t args[8];
    const uint64_t base = 0x7f0000000000ull;
    memcpy(args, &base, 8);
    vkrr_alloc_record al = {base, sizeof data, data, out};
    vkrr_pointer_record pr = {0, 0, 0};
    const double times[3] = {0.125, NAN, 3.5}; /* the second launch has no time */
    const char *names[3] = {"ka", "kb", "ka"};
    for (int i = 0; w && i < 3; i++) {
        vkrr_launch_record rec = {.kernel = names[i], .grid = {1, 1, 1}, .block = {4, 1, 1}, .args = args,
                                  .args_bytes = 8, .allocs = &al, .nallocs = 1, .pointers = &pr,
                                  .npointers = 1};
        uint64_t seq = 0;
        CHECK(vkrr_writer_launch(w, &rec, &seq, &err) == VKRR_OK);
        vkrr_writer_profile(w, seq, names[i], times[i]);
    }
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
    vkrr_capture *cap = NULL;
    if (CHECK(vkrr_capture_open(&cap, cap_dir, &err) == VKRR_OK) && CHECK(cap->nlaunches == 3)) {
        double ms[3];
        vkrr_bench_profile_stats st;
        CHECK(vkrr_bench_profile_load(cap, ms, &st, &err) == VKRR_OK);
        CHECK(ms[0] == 0.125 && isnan(ms[1]) && ms[2] == 3.5);
        CHECK_EQ_U64(st.lines, 2);
        CHECK_EQ_U64(st.launches, 2);
    } else {
        vkrr_error_print(&err, stderr);
    }
    vkrr_capture_close(cap);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

int main(void)
{
    test_measure();
    test_profile_round_trip();
    double v[5] = {3, 1, 2, 5, 4};
    CHECK(near(vkrr_bench_median(v, 5), 3));
    double w[4] = {10, 1, 4, 2};
    CHECK(near(vkrr_bench_median(w, 4), 3));
    CHECK(isnan(vkrr_bench_median(NULL, 0)));

    /* Two kernels, "a" twice (occurrences 0, 1), "b" once; sequences 7, 9, 12. */
    vkrr_launch L[3];
    memset(L, 0, sizeof L);
    L[0] = (vkrr_launch){.sequence = 7, .kernel = "a", .occurrence = 0};
    L[1] = (vkrr_launch){.sequence = 9, .kernel = "b", .occurrence = 0};
    L[2] = (vkrr_launch){.sequence = 12, .kernel = "a", .occurrence = 1};
    vkrr_capture cap = {.path = "mem", .launches = L, .nlaunches = 3};
    static const char log[] =
        "[d4r nvcuda] launch[7] a grid=(1,1,1)\n"
        "[prof] KERNEL_PROFILE a gpu_ms=1.25\n"          /* name only: a#0 */
        "KERNEL_PROFILE name=a gpu_ms=3\n"               /* a#1 */
        "KERNEL_PROFILE launch[12] gpu_ms=5\n"           /* a#1 again: median 4 */
        "KERNEL_PROFILE kernel=b gpu_ms=-1\n"            /* negative: skipped */
        "KERNEL_PROFILE kernel=b gpu_ms=inf\n"           /* not finite: skipped */
        "KERNEL_PROFILE seq=99 gpu_ms=1\n"               /* no such launch */
        "KERNEL_PROFILE kernel=zz gpu_ms=1\n"            /* no such kernel */
        "KERNEL_PROFILE a\n"                             /* no time */
        "KERNEL_PROFILE launch[x] gpu_ms=2\n"            /* bad number, no name: skipped */
        "KERNEL_PROFILE kernel=a gpu_ms=7";              /* a#2 does not exist; no newline */
    double ms[3];
    vkrr_bench_profile_stats st;
    vkrr_error err = {0};
    CHECK(vkrr_bench_profile_parse(&cap, log, strlen(log), ms, &st, &err) == VKRR_OK);
    CHECK(near(ms[0], 1.25));
    CHECK(isnan(ms[1]));
    CHECK(near(ms[2], 4));
    CHECK_EQ_U64(st.lines, 10);
    CHECK_EQ_U64(st.matched, 3);
    CHECK_EQ_U64(st.launches, 2);

    /* Empty text: all NAN. */
    CHECK(vkrr_bench_profile_parse(&cap, "", 0, ms, &st, &err) == VKRR_OK);
    CHECK(isnan(ms[0]) && isnan(ms[1]) && isnan(ms[2]));
    CHECK_EQ_U64(st.lines, 0);

    /* A capture without a log: all NAN, no error. */
    ms[0] = 1;
    CHECK(vkrr_bench_profile_load(&cap, ms, &st, &err) == VKRR_OK);
    CHECK(isnan(ms[0]));
    return test_finish("bench");
}
