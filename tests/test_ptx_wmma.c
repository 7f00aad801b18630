/* test_ptx_wmma: nvcc's wmma.load/store/mma (tests/ptx/wmma_ops.cu, compute_80
 * and compute_89 PTX), one warp, against each product computed here: f16,
 * bf16 and tf32 (with cvt.rna.tf32 in between) with f32 and f16
 * accumulators, s8 with and without .satfinite, u4 and b1 (XOR and AND popc);
 * row- and column-major memory, strides wider than the matrix, a fragment
 * changed element by element between load and mma.  The float inputs are
 * small multiples of powers of two, so every product and sum is exact and
 * the expected value does not depend on how the accumulation rounds. */
#include <stdio.h>

#include "approx.h"
#include "ptx_testutil.h"

static uint16_t f16_of(long double x) { return (uint16_t)ptxt_round(&PTXT_F16, x, 0, false); }
static long double h(uint16_t c) { return ptxt_decode(&PTXT_F16, c); }
static uint16_t bf16_of(float x) { return (uint16_t)(ptxt_u(x) >> 16); } /* exact for these */
static float bf(uint16_t c) { return ptxt_f((uint32_t)c << 16); }
static int small(uint64_t *s, int range) { return (int)(ptxt_rand(s) % (2u * (unsigned)range + 1u)) - range; }

static void check_f16(vkrr_ptx_module *m)
{
    uint64_t s = 7;
    static uint16_t A[16 * 24], B[16 * 16], C16[256], D16[256];
    static float C[256], D[256];
    for (int i = 0; i < 16 * 24; i++)
        A[i] = f16_of((long double)small(&s, 6) / 2);
    for (int i = 0; i < 256; i++) {
        B[i] = f16_of((long double)small(&s, 6) / 4);
        C[i] = (float)small(&s, 50) / 8.0f;
        C16[i] = f16_of((long double)small(&s, 50) / 8);
    }
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, C16, sizeof C16);
    ptxt_ptr(&a, D, sizeof D);
    ptxt_ptr(&a, D16, sizeof D16);
    if (!ptxt_run(m, "k_wmma_f16", &a, 1, 32, 0))
        return;
    unsigned bad = 0, bad16 = 0;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            long double p = 0;
            for (int k = 0; k < 16; k++)
                p += h(A[i * 24 + k]) * h(B[j * 16 + k]); /* A lda 24, B column-major */
            bad += D[i * 16 + j] != (float)(p + 2.0L * C[i * 16 + j]);
            bad16 += D16[j * 16 + i] != f16_of(p + h(C16[i * 16 + j])); /* D16 column-major */
        }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(bad16, 0);
}

static void check_bf16(vkrr_ptx_module *m)
{
    uint64_t s = 11;
    static uint16_t A[32 * 16], B[16 * 8];
    static float C[32 * 8], D[32 * 8];
    for (int i = 0; i < 32 * 16; i++)
        A[i] = bf16_of((float)small(&s, 40) / 4.0f);
    for (int i = 0; i < 16 * 8; i++)
        B[i] = bf16_of((float)small(&s, 40) / 8.0f);
    for (int i = 0; i < 32 * 8; i++)
        C[i] = (float)small(&s, 100);
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, D, sizeof D);
    if (!ptxt_run(m, "k_wmma_bf16", &a, 1, 32, 0))
        return;
    unsigned bad = 0;
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 8; j++) {
            double p = C[i * 8 + j];
            for (int k = 0; k < 16; k++)
                p += (double)bf(A[k * 32 + i]) * bf(B[k * 8 + j]); /* A column-major */
            bad += D[i * 8 + j] != (float)p;
        }
    CHECK_EQ_U64(bad, 0);
}

/* cvt.rna.tf32.f32 of a positive or negative normal f32: nearest, ties away */
static float tf32_rna(float x)
{
    uint32_t u = ptxt_u(x);
    return ptxt_f((u + 0x1000u) & ~0x1fffu);
}

static void check_tf32(vkrr_ptx_module *m)
{
    uint64_t s = 13;
    static float A[16 * 8], B[8 * 16], C[256], D[256];
    for (int i = 0; i < 16 * 8; i++)
        A[i] = (float)small(&s, 64) / 8.0f;
    for (int i = 0; i < 8 * 16; i++)
        B[i] = (float)small(&s, 64) / 16.0f;
    A[3] = 1.00048828125f;  /* 1 + 2^-11: a tie, rounded away to 1 + 2^-10 */
    A[9] = -3.0001220703125f; /* low bits below tf32's: rounded off */
    for (int i = 0; i < 256; i++)
        C[i] = (float)small(&s, 100) / 4.0f;
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, D, sizeof D);
    if (!ptxt_run(m, "k_wmma_tf32", &a, 1, 32, 0))
        return;
    unsigned bad = 0;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            double p = C[j * 16 + i]; /* C and D column-major */
            for (int k = 0; k < 8; k++)
                p += (double)tf32_rna(A[i * 8 + k]) * tf32_rna(B[k * 16 + j]);
            bad += D[j * 16 + i] != (float)p;
        }
    CHECK_EQ_U64(bad, 0);
}

static void check_s8(vkrr_ptx_module *m)
{
    uint64_t s = 17;
    static int8_t A[8 * 16], B[32 * 16];
    static int32_t C[8 * 32], D[8 * 32], Dsat[8 * 32];
    for (int i = 0; i < 8 * 16; i++)
        A[i] = (int8_t)ptxt_rand(&s);
    for (int i = 0; i < 32 * 16; i++)
        B[i] = (int8_t)ptxt_rand(&s);
    for (int i = 0; i < 8 * 32; i++)
        C[i] = (int32_t)ptxt_rand(&s) >> 8;
    C[5] = INT32_MAX - 10; /* these overflow: wrap without .satfinite, clamp with */
    C[77] = INT32_MIN + 10;
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, D, sizeof D);
    ptxt_ptr(&a, Dsat, sizeof Dsat);
    if (!ptxt_run(m, "k_wmma_s8", &a, 1, 32, 0))
        return;
    unsigned bad = 0, clamped = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 32; j++) {
            int64_t p = C[i * 32 + j];
            for (int k = 0; k < 16; k++)
                p += (int64_t)A[i * 16 + k] * B[j * 16 + k];
            int64_t sat = p > INT32_MAX ? INT32_MAX : p < INT32_MIN ? INT32_MIN : p;
            bad += D[i * 32 + j] != (int32_t)(uint32_t)(uint64_t)p || Dsat[i * 32 + j] != (int32_t)sat;
            clamped += sat != p;
        }
    CHECK_EQ_U64(bad, 0);
    CHECK(clamped >= 1); /* the case is there */
}

static unsigned nib(const uint32_t *v, unsigned idx) { return (v[idx / 8] >> (4 * (idx % 8))) & 15u; }

static void check_u4(vkrr_ptx_module *m)
{
    uint64_t s = 19;
    static uint32_t A[8 * 32 / 8], B[32 * 8 / 8];
    static int32_t C[64], D[64];
    for (int i = 0; i < 32; i++) {
        A[i] = ptxt_rand(&s);
        B[i] = ptxt_rand(&s);
    }
    for (int i = 0; i < 64; i++)
        C[i] = small(&s, 1000);
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, D, sizeof D);
    if (!ptxt_run(m, "k_wmma_u4", &a, 1, 32, 0))
        return;
    unsigned bad = 0;
    for (unsigned i = 0; i < 8; i++)
        for (unsigned j = 0; j < 8; j++) {
            int64_t p = C[i * 8 + j];
            for (unsigned k = 0; k < 32; k++)
                p += (int64_t)nib(A, i * 32 + k) * nib(B, j * 32 + k); /* B column-major */
            bad += D[i * 8 + j] != (int32_t)p;
        }
    CHECK_EQ_U64(bad, 0);
}

static void check_b1(vkrr_ptx_module *m)
{
    uint64_t s = 23;
    static uint32_t A[8 * 4], B[8 * 4];
    static int32_t C[64], Dx[64], Da[64];
    for (int i = 0; i < 32; i++) {
        A[i] = ptxt_rand(&s);
        B[i] = ptxt_rand(&s);
    }
    for (int i = 0; i < 64; i++)
        C[i] = small(&s, 1000);
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, Dx, sizeof Dx);
    ptxt_ptr(&a, Da, sizeof Da);
    if (!ptxt_run(m, "k_wmma_b1", &a, 1, 32, 0))
        return;
    unsigned bad = 0;
    for (unsigned i = 0; i < 8; i++)
        for (unsigned j = 0; j < 8; j++) {
            int x = 0, n = 0;
            for (unsigned k = 0; k < 4; k++) {
                x += __builtin_popcount(A[i * 4 + k] ^ B[j * 4 + k]);
                n += __builtin_popcount(A[i * 4 + k] & B[j * 4 + k]);
            }
            bad += Dx[i * 8 + j] != C[i * 8 + j] + x || Da[i * 8 + j] != C[i * 8 + j] + n;
        }
    CHECK_EQ_U64(bad, 0);
}

/* m8n8k4 f64 through the WMMA API: dyadic inputs whose every sum is exact,
 * so any order of the sums gives D = A*B + C; the launch says it used the
 * f64 model (a stand-in, approx.h) */
static void check_f64(vkrr_ptx_module *m)
{
    uint64_t s = 29;
    static double A[8 * 4], B[4 * 8], C[64], D[64];
    for (int i = 0; i < 32; i++) {
        A[i] = (double)small(&s, 2000) / 64.0;
        B[i] = (double)small(&s, 2000) / 32.0;
    }
    for (int i = 0; i < 64; i++)
        C[i] = (double)small(&s, 200000) / 8.0;
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, D, sizeof D);
    unsigned standins = 0;
    if (!ptxt_run_standins(m, "k_wmma_f64", &a, &standins))
        return;
    CHECK_EQ_U64(standins, VKRR_STANDIN_DMMA);
    unsigned bad = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            double p = C[i * 8 + j]; /* B column-major: B[j * 4 + k]; D column-major */
            for (int k = 0; k < 4; k++)
                p += A[i * 4 + k] * B[j * 4 + k];
            if (D[j * 8 + i] != p && bad++ < 4)
                fprintf(stderr, "  wmma f64 d(%d,%d) = %.17g, want %.17g\n", i, j, D[j * 8 + i], p);
        }
    printf("wmma m8n8k4 f64: %u of 64 elements wrong\n", bad);
    CHECK_EQ_U64(bad, 0);
}

int main(void)
{
    static const unsigned sms[2] = {80, 89};
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("wmma_ops", sms[k]);
        if (!m)
            continue;
        check_f16(m);
        check_bf16(m);
        check_tf32(m);
        check_s8(m);
        check_u4(m);
        check_b1(m);
        check_f64(m);
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_wmma");
}
