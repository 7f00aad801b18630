/* compare_scan.h - the element loop behind vkrr_compare (internal to compare/).
 *
 * vkrr_compare_scan classifies every element of two runs of n elements and
 * sums what the metrics need (compare.h says the classes and the sums).  It is
 * the hot path of a port that is not bit-identical, so it is written for
 * speed, at memory speed where it can be:
 *   - f16 decodes in registers (a few integer operations, exact), and where
 *     the CPU has AVX2 with F16C, sixteen pairs at a time in blocks whose
 *     sums are exact (compare_f16.c); other 1- and 2-byte types through a
 *     table of every code (256 or 65,536 doubles, built once per type from
 *     vkrr_dtype_to_double), never a switch per element; 4-byte types
 *     decode inline.
 *   - The reference's statistics (peak, range, sum of squares) of elements
 *     that match or differ numerically are a histogram of the reference's
 *     codes for 1- and 2-byte types, summed once at the end: a matching
 *     element costs one compare and one increment.
 *   - Long runs are cut into chunks whose length depends on n only, scanned
 *     by up to VKRR_SCAN_MAX_THREADS threads, and merged in chunk order, so
 *     the result does not depend on how many cores ran it.
 * Floating-point sums are therefore taken chunk by chunk (and the reference's
 * sum of squares code by code), not element by element across the whole run: the last bits of mean, RMSE and NMSE may differ
 * from a sequential sum; counts, maxima, positions and ULPs are exact.
 *
 * Memory: per thread, a histogram of the reference's codes (6 KiB, or 1.5 MiB
 * for 2-byte types: four ways of 32-bit counts flushed into 64-bit ones),
 * kept for the next compare (at most VKRR_SCAN_MAX_THREADS of each size);
 * VKRR_ERR_NOMEM when one cannot be had.  The tables live for the process
 * (at most 512 KiB per 2-byte type used).
 */
#ifndef VKRR_COMPARE_SCAN_H
#define VKRR_COMPARE_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "compare.h"

#define VKRR_SCAN_MAX_THREADS 8u

typedef struct vkrr_scan {
    uint64_t exact, unwritten, nan_mm, inf_mm, oot;
    uint64_t first_bad;      /* UINT64_MAX: none */
    uint64_t nnum;           /* exact + numeric elements */
    double sum_abs, sum_sq, sum_ref_sq;
    double max_abs, max_ref, max_cand;
    uint64_t max_idx;        /* UINT64_MAX: max_abs is 0 */
    double peak, rmin, rmax; /* over finite reference elements */
    bool have_ref;
    int64_t ulp_seen;
    uint64_t w1, w4;         /* elements within 1 and 4 ULP (float types) */
    /* f16, while a chunk is scanned (compare_scan.c, "exact sums") */
    uint64_t f16_or;          /* the OR of every |difference| in units of 2^-24 */
    bool f16_inexact;         /* a difference whose square a double rounds */
} vkrr_scan;

/* Told, in element order, before each slice [lo, hi) of the run is scanned
 * (vkrr_compare_hashed hashes the reference there, while it is in cache). */
typedef struct vkrr_scan_hook {
    void (*before)(void *ctx, uint64_t lo, uint64_t hi);
    void *ctx;
} vkrr_scan_hook;

/* a and b: n elements of t each (unaligned is fine).  tol: resolved.
 * sentinel: an all-VKRR_SENTINEL_BYTE element of b is unwritten (vkrr_view).  hook
 * NULL or its before NULL: none; with one, the run is scanned in order on this
 * thread, in slices of 64 KiB. */
vkrr_status vkrr_compare_scan(vkrr_dtype t, const uint8_t *a, const uint8_t *b, uint64_t n,
                              const vkrr_tolerance *tol, bool sentinel,
                              const vkrr_scan_hook *hook, vkrr_scan *out, vkrr_error *err);

/* Whether the f16 scan uses the CPU's vector unit: AVX2 with F16C on x86-64
 * when the CPU has them (the default), else element by element.  The
 * metrics are the same bit for bit either way (test_compare compares them);
 * tests and compare_bench turn it off to compare, while no scan runs.
 * set returns whether it is on now. */
bool vkrr_compare_scan_set_simd(bool on);
bool vkrr_compare_scan_simd(void);

/* The value of every code of a 1- or 2-byte type (NULL for other sizes, or
 * when the table cannot be allocated). */
const double *vkrr_compare_values(vkrr_dtype t);

#endif
