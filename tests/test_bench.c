/* test_bench: KERNEL_PROFILE lines -> per-launch CUDA times, and the median. */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "testutil.h"

static bool near(double a, double b) { return fabs(a - b) < 1e-12; }

int main(void)
{
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
