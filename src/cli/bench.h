/* bench.h - what `vkrr bench` needs besides the backend: how a thing is
 * timed (warm-up until steady, then min/median/max), the CUDA side's
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

#include <stdbool.h>
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

/* Timing one thing (a launch, a frame), the same way for every backend:
 *
 *     vkrr_bench_fig fig;
 *     vkrr_bench_measure(&(vkrr_bench_plan){.runs = 5}, run_once, ctx, &fig, &err);
 *
 * run_once runs it once and gives its GPU time in ms (NAN: the backend cannot
 * time it).  First one untimed run: whatever happens only on first use
 * (pipeline or module compilation, lazy loading, caches) lands there.  Then
 * batches of `runs` runs until the medians of two consecutive batches agree
 * within VKRR_BENCH_STEADY (a GPU that was idle clocks up meanwhile); the
 * figures are the last batch's, every earlier run is warm-up.  The wait is
 * bounded by max_batches and max_warmup_s, checked before each batch after
 * the first: when hit, the latest batch is the figure (the first one's when
 * the bound came at once: a tiny max_warmup_s means one untimed run and one
 * batch) and `steady` is false (say so).  A first run without a time (NAN):
 * nothing more is run and the figures are NAN. */
#define VKRR_BENCH_STEADY 0.02 /* relative difference of two medians */
#define VKRR_BENCH_SPREAD 0.10 /* (max - min) / median above this is marked */
#define VKRR_BENCH_MAX_BATCHES 10u
#define VKRR_BENCH_MAX_WARMUP_S 10.0

typedef struct vkrr_bench_plan {
    unsigned runs;          /* timed runs, >= 1 */
    unsigned max_batches;   /* 0: VKRR_BENCH_MAX_BATCHES; 2 at least */
    double max_warmup_s;    /* 0: VKRR_BENCH_MAX_WARMUP_S; wall time before the last batch */
} vkrr_bench_plan;

typedef struct vkrr_bench_fig {
    double min, median, max; /* ms over the timed runs; NAN: no time */
    unsigned timed;          /* runs in them */
    unsigned warmup;         /* untimed runs before them */
    bool steady;             /* two consecutive medians agreed */
    double spread;           /* (max - min) / median; NAN without a time */
} vkrr_bench_fig;

typedef vkrr_status (*vkrr_bench_run_fn)(void *ctx, double *ms, vkrr_error *err);

/* An error of run_once is returned as it is (fig then holds NANs). */
vkrr_status vkrr_bench_measure(const vkrr_bench_plan *plan, vkrr_bench_run_fn run_once, void *ctx,
                               vkrr_bench_fig *fig, vkrr_error *err);
/* A fig without any time: NANs, nothing run. */
vkrr_bench_fig vkrr_bench_fig_none(void);
/* The spread is over VKRR_BENCH_SPREAD. */
bool vkrr_bench_fig_spread(const vkrr_bench_fig *f);

#endif
