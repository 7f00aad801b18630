/* bench.h - what `vkrr bench` needs besides the backend: the CUDA side's
 * per-launch times from a capture's run.log, and a median.
 *
 *     double *cuda_ms = calloc(cap->nlaunches, sizeof *cuda_ms);
 *     unsigned n = 0;
 *     vkrr_bench_profile_load(cap, cuda_ms, &n, &err);  // NAN where no line matched
 *
 * Profiler lines (not part of the bridge's format; read leniently, after any
 * "[...] " prefix):
 *     KERNEL_PROFILE [launch[N] | launch=N | seq=N | sequence=N]
 *                    [kernel=NAME | name=NAME | NAME] ... gpu_ms=X ...
 * A line names its launch by sequence number when it has one, else by kernel
 * name, the k-th line for a kernel being that kernel's occurrence k.  Several
 * lines for one launch (a profiler that ran it N times): their median.  Lines
 * without a finite gpu_ms >= 0, or naming no launch of the capture, are
 * skipped and counted, never an error.
 *
 * Errors: only reading run.log (VKRR_ERR_IO) or memory.  A capture without a
 * log gives all NAN.  The caller owns cuda_ms (cap->nlaunches entries).
 */
#ifndef VKRR_BENCH_H
#define VKRR_BENCH_H

#include <stddef.h>

#include "capture.h"
#include "status.h"

typedef struct vkrr_bench_profile_stats {
    unsigned lines;     /* KERNEL_PROFILE lines seen */
    unsigned matched;   /* of those, attributed to a launch */
    unsigned launches;  /* launches that got a time */
} vkrr_bench_profile_stats;

/* Parses log text (len bytes) into cuda_ms[cap->nlaunches]. */
vkrr_status vkrr_bench_profile_parse(const vkrr_capture *cap, const char *text, size_t len,
                                     double *cuda_ms, vkrr_bench_profile_stats *stats,
                                     vkrr_error *err);
/* Reads CAPDIR/run/run.log (absent: all NAN, stats zero). */
vkrr_status vkrr_bench_profile_load(const vkrr_capture *cap, double *cuda_ms,
                                    vkrr_bench_profile_stats *stats, vkrr_error *err);

/* Median of n values (sorts v in place); NAN when n is 0. */
double vkrr_bench_median(double *v, size_t n);

#endif
