/* mma_sum_bench: the tensor-core sum's time (cuda_ref/ptx/isa/ptx_mma_sum.c),
 * in ns a product, against the model as first written in doubles
 * (tests/mma_sum_ref.c, test_mma_sum_simd's oracle), for the form that made
 * it matter: mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16, 128
 * outputs of 32 products an instruction, under the sm_90 and sm_89 models.
 *
 *     build/mma_sum_bench [SECONDS]   (each figure the best of five spans of
 *                                      SECONDS / 5; 1 when not given)
 *
 * Four figures a model: the oracle one output at a time, the integer sum
 * one output at a time (ptx_dot_sum_in) and a whole tile at a time
 * (ptx_dot_tile_sum, what mma calls); and the whole instruction, a PTX
 * kernel of one warp running it 536 times in the interpreter.  Random finite codes; the results of
 * the three are checked equal as they run, a figure of a wrong sum being
 * worth nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw_model.h"
#include "mma_sum_ref.h"
#include "ptx.h"
#include "ptx_mma_sum.h"

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

/* The whole instruction in the interpreter: one warp running the mma
 * `reps` times in a loop (a, b from the lane, codes with bit 3 clear: never
 * NaN; c fixed), on one host thread; ns a product, or < 0 when it failed. */
static const char kernel_ptx[] =
    ".version 8.7\n.target sm_89\n.address_size 64\n"
    ".visible .entry k(.param .u64 out, .param .u32 reps)\n{\n"
    "  .reg .b32 %r<32>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p;\n"
    "  mov.u32 %r1, %tid.x;\n  mul.lo.u32 %r2, %r1, -1640531535;\n"
    "  and.b32 %r3, %r2, 0xf7f7f7f7;\n  xor.b32 %r4, %r3, 0x35353535;\n  and.b32 %r4, %r4, 0xf7f7f7f7;\n"
    "  shr.u32 %r5, %r2, 7;\n  and.b32 %r5, %r5, 0xf7f7f7f7;\n  xor.b32 %r6, %r5, 0x93939393;\n"
    "  and.b32 %r6, %r6, 0xf7f7f7f7;\n  xor.b32 %r7, %r3, 0xc6c6c6c6;\n  and.b32 %r7, %r7, 0xf7f7f7f7;\n"
    "  shr.u32 %r8, %r2, 13;\n  and.b32 %r8, %r8, 0xf7f7f7f7;\n"
    "  mov.b32 %r9, 0x3c00bc00;\n  mov.b32 %r10, 0x34003800;\n"
    "  ld.param.u32 %r20, [reps];\n  mov.u32 %r21, 0;\n"
    "LOOP:\n"
    "  mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%r11, %r12}, {%r3, %r4, %r5, %r6}, {%r7, %r8}, "
    "{%r9, %r10};\n"
    "  add.u32 %r21, %r21, 1;\n  setp.lt.u32 %p, %r21, %r20;\n  @%p bra LOOP;\n"
    "  ld.param.u64 %rd1, [out];\n  mul.wide.u32 %rd2, %r1, 8;\n  add.u64 %rd3, %rd1, %rd2;\n"
    "  st.global.v2.u32 [%rd3], {%r11, %r12};\n  ret;\n}\n";

static double time_kernel(unsigned reps)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (vkrr_ptx_module_load(&m, kernel_ptx, sizeof kernel_ptx - 1, "mma_sum_bench.ptx", &err) != VKRR_OK) {
        vkrr_error_print(&err, stderr);
        return -1;
    }
    uint64_t out[32];
    uint8_t params[16];
    uint64_t p = (uint64_t)(uintptr_t)out;
    memcpy(params, &p, 8);
    memcpy(params + 8, &reps, 4);
    vkrr_ptx_region reg = {out, sizeof out, true, 0};
    vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = params, .params_bytes = 12,
                         .regions = &reg, .nregions = 1, .threads = 1, .engine = VKRR_PTX_ENGINE_INTERP};
    double t0 = now();
    vkrr_status st = vkrr_ptx_run(m, "k", &l, &err);
    double t = now() - t0;
    if (st != VKRR_OK)
        vkrr_error_print(&err, stderr);
    vkrr_ptx_module_free(m);
    return st == VKRR_OK ? t * 1e9 / ((double)reps * M * N * K) : -1;
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
        double kn = time_kernel(536);
        for (int run = 0; run < 4 && kn >= 0; run++) { /* the best of five: a launch's own costs vary */
            double t = time_kernel(536);
            kn = t < kn ? t : kn;
        }
        printf("  %s: the whole mma in the interpreter (one warp, 536 of them): %.2f ns a product, "
               "%.1f ms\n", arch[a], kn, kn * 536 * M * N * K * 1e-6);
        rc |= kn < 0;
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(hw);
    }
    free(tiles);
    free(d);
    return rc;
}
