/* compare_bench - how fast vkrr_compare gets through two files.
 *
 *     compare_bench FILE_A FILE_B [--dtype f16|f32|bytes] [--reps N] [--hash] [--no-simd]
 *
 * Maps both files (they must have the same size), compares them as one flat
 * view of DTYPE (default f16) N times (default 3), and prints the best run:
 *     compare_bench: BYTES bytes, dtype f16, best S s, X MB/s, pass 1
 * (MB = 1e6 bytes, counted once per file pair).  The files stay mapped across
 * runs, so after the first run they come from the page cache, as cmp's would.
 * Then the same file A against two candidates made from it in memory, where
 * the element loop (not memcmp) does the work:
 *     compare_bench differing 1%: ...    every 100th element 1 ULP off
 *     compare_bench differing all: ...   every element 1 ULP off
 * (the lowest bit of each such element flipped).
 * --hash: FILE_A is hashed as it is compared (vkrr_compare_hashed, what
 * validate does with a dump the log gives a hash= for); "hashed" is printed
 * after the dtype.  --no-simd: the f16 scan element by element, as on a CPU
 * without AVX2 and F16C (vkrr_compare_scan_set_simd); "no simd" is printed.
 * Exit 0 on success, 2 on bad input.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuformat.h"

#include "compare.h"
#include "compare_scan.h"
#include "mapfile.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Best of reps compares of a and b; prints one line.  0 on success. */
static int run(vkrr_dtype t, const char *dt, bool hash, const char *label, const void *a,
               const void *b, size_t bytes, long reps)
{
    vkrr_error err = {0};
    vkrr_view v = vkrr_compare_flat_view(t, bytes);
    double best = 1e300;
    vkrr_metrics m = {0};
    for (long r = 0; r < reps; r++) {
        double t0 = now_s();
        vkrr_hash_cursor hc = {VKRR_FNV1A64_INIT, 0};
        if (vkrr_compare_hashed(&v, a, b, bytes, NULL, hash ? &hc : NULL, &m, &err) != VKRR_OK) {
            fprintf(stderr, "compare_bench: %s\n", err.msg);
            return 1;
        }
        double dt_s = now_s() - t0;
        if (dt_s < best)
            best = dt_s;
    }
    printf("compare_bench%s: %zu bytes, dtype %s%s%s, best %.6f s, %.1f MB/s, pass %d\n", label,
           bytes, dt, hash ? ", hashed" : "", vkrr_compare_scan_simd() ? "" : ", no simd", best, best > 0 ? (double)bytes / best / 1e6 : 0.0,
           (int)m.pass);
    return 0;
}

int main(int argc, char **argv)
{
    const char *a = NULL, *b = NULL, *dt = "f16";
    long reps = 3;
    bool hash = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--hash"))
            hash = true;
        else if (!strcmp(argv[i], "--no-simd"))
            vkrr_compare_scan_set_simd(false);
        else if (!strcmp(argv[i], "--dtype") && i + 1 < argc)
            dt = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = strtol(argv[++i], NULL, 10);
        else if (!a)
            a = argv[i];
        else if (!b)
            b = argv[i];
        else
            a = NULL, b = NULL, i = argc;
    }
    vkrr_dtype t = !strcmp(dt, "f16") ? VKRR_DT_F16 : !strcmp(dt, "f32") ? VKRR_DT_F32 : VKRR_DT_BYTES;
    if (!a || !b || reps < 1 || reps > 1000 || (t == VKRR_DT_BYTES && strcmp(dt, "bytes"))) {
        fprintf(stderr, "usage: compare_bench FILE_A FILE_B [--dtype f16|f32|bytes] [--reps 1..1000] [--hash] [--no-simd]\n");
        return 2;
    }
    int rc = 2;
    vkrr_error err = {0};
    vkrr_mapfile ma = {0}, mb = {0};
    if (vkrr_mapfile_open(&ma, a, VKRR_MAPFILE_ANY_SIZE, &err) != VKRR_OK ||
        vkrr_mapfile_open(&mb, b, ma.size, &err) != VKRR_OK) {
        fprintf(stderr, "compare_bench: %s\n", err.msg);
        goto done;
    }
    if (run(t, dt, hash, "", ma.data, mb.data, ma.size, reps) != 0)
        goto done;
    unsigned size = vkrr_dtype_size(t);
    size_t n = ma.size / size;
    uint8_t *cand = malloc(ma.size ? ma.size : 1);
    if (!cand) {
        fprintf(stderr, "compare_bench: out of memory\n");
        goto done;
    }
    static const struct { const char *label; size_t every; } cases[] = {
        {" differing 1%", 100}, {" differing all", 1}};
    for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(cand, ma.data, ma.size);
        for (size_t i = 0; i < n; i += cases[c].every)
            cand[i * size] ^= 1; /* the lowest bit (little-endian): 1 ULP */
        if (run(t, dt, hash, cases[c].label, ma.data, cand, ma.size, reps) != 0) {
            free(cand);
            goto done;
        }
    }
    free(cand);
    rc = 0;
done:
    vkrr_mapfile_close(&ma);
    vkrr_mapfile_close(&mb);
    return rc;
}
