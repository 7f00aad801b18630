/* mma_sum_bench: the tensor-core sum's time (cuda_ref/ptx/ptx_mma_sum.c),
 * in ns a product, against the model as first written in doubles
 * (tests/mma_sum_ref.c, test_mma_sum_simd's oracle), for the form that made
 * it matter: mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16, 128
 * outputs of 32 products an instruction, under the sm_90 and sm_89 models.
 *
 *     build/mma_sum_bench [SECONDS]   (each figure the best of five spans of
 *                                      SECONDS / 5; 1 when not given)
 *
 * Three figures a model: the oracle one output at a time, the integer sum
 * one output at a time (ptx_dot_sum_in) and a whole tile at a time
 * (ptx_dot_tile_sum, what mma calls).  Random finite codes; the results of
 * the three are checked equal as they run, a figure of a wrong sum being
 * worth nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw_model.h"
#include "mma_sum_ref.h"
#include "ptx_internal.h"

enum { M = 16, N = 8, K = 32, TILES = 64 };

typedef struct tile {
    uint32_t a[M * K], b[N * K], c[M * N];
} tile;

static uint64_t rng = 0x243f6a8885a308d3u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static uint32_t e4m3(void) /* any finite code */
{
    uint32_t v;
    do
        v = rnd() & 0xffu;
    while ((v & 0x7fu) == 0x7fu);
    return v;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static ptx_dot dot_of(const tile *t, unsigned i, unsigned j)
{
    ptx_dot d = {.ta = DOT_E4M3, .tb = DOT_E4M3, .n = K, .c = t->c[i * N + j], .c16 = true, .d16 = true,
                 .split = true};
    memcpy(d.a, t->a + i * K, sizeof(uint32_t) * K);
    memcpy(d.b, t->b + j * K, sizeof(uint32_t) * K);
    return d;
}

/* way 0 the oracle, 1 ptx_dot_sum_in, 2 ptx_dot_tile_sum: d of every tile */
static void run(int way, const tile *tiles, uint32_t (*d)[M * N])
{
    ptx_dot_arith ar = ptx_dot_arith_current();
    for (unsigned n = 0; n < TILES; n++) {
        const tile *t = &tiles[n];
        if (way == 2) {
            ptx_dot_tile tl = {.ta = DOT_E4M3, .tb = DOT_E4M3, .m = M, .n = N, .k = K, .a = t->a, .b = t->b,
                               .c = t->c, .d = d[n], .c16 = true, .d16 = true, .split = true};
            ptx_dot_tile_sum(&tl, &ar);
            continue;
        }
        for (unsigned i = 0; i < M; i++)
            for (unsigned j = 0; j < N; j++) {
                ptx_dot dd = dot_of(t, i, j);
                d[n][i * N + j] = way ? ptx_dot_sum_in(&dd, &ar) : mma_sum_ref(&dd);
            }
    }
}

/* ns a product of way: the best of five spans of secs / 5 (the least
 * disturbed by whatever else the machine runs) */
static double time_way(int way, const tile *tiles, uint32_t (*d)[M * N], double secs)
{
    double best = 0;
    for (int span = 0; span < 5; span++) {
        unsigned reps = 0;
        double t0 = now(), t;
        do {
            run(way, tiles, d);
            reps++;
        } while ((t = now() - t0) < secs / 5);
        double ns = t * 1e9 / ((double)reps * TILES * M * N * K);
        best = span == 0 || ns < best ? ns : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 1.0;
    tile *tiles = malloc(sizeof *tiles * TILES);
    uint32_t(*d)[TILES][M * N] = malloc(sizeof *d * 3);
    if (!tiles || !d)
        return 1;
    for (unsigned n = 0; n < TILES; n++) {
        for (unsigned e = 0; e < M * K; e++)
            tiles[n].a[e] = e4m3();
        for (unsigned e = 0; e < N * K; e++)
            tiles[n].b[e] = e4m3();
        for (unsigned e = 0; e < M * N; e++)
            tiles[n].c[e] = (rnd() & 0x7fffu) % 0x7c00u | (rnd() & 0x8000u); /* finite f16 */
    }
    printf("mma.m16n8k32 .f16.e4m3.e4m3.f16, ns a product (%d per instruction):\n", M * N * K);
    static const char *const arch[] = {"sm_90", "sm_89"};
    int rc = 0;
    for (int a = 0; a < 2; a++) {
        vkrr_hw_model *hw = NULL;
        vkrr_error err = {0};
        if (vkrr_hw_model_open(&(vkrr_hw_choice){.capture_arch = arch[a]}, &hw, &err) != VKRR_OK) {
            fprintf(stderr, "mma_sum_bench: the %s model: %s\n", arch[a], err.msg);
            return 1;
        }
        vkrr_hw_use(hw);
        double ns[3];
        for (int way = 0; way < 3; way++)
            ns[way] = time_way(way, tiles, d[way], secs);
        bool same = !memcmp(d[0], d[1], sizeof d[0]) && !memcmp(d[0], d[2], sizeof d[0]);
        printf("  %s: oracle (doubles) %7.2f  integer, one output %6.2f  integer, whole tile %6.2f  "
               "(%.0fx)%s\n", arch[a], ns[0], ns[1], ns[2], ns[0] / ns[2], same ? "" : "  RESULTS DIFFER");
        rc |= !same;
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(hw);
    }
    free(tiles);
    free(d);
    return rc;
}
