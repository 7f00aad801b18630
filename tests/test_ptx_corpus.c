/* test_ptx_corpus: kernels written against NVIDIA's own headers, compiled by
 * nvcc (tests/ptx/corpus_ops.cu, compute_80 and compute_89 PTX), run by the
 * PTX interpreter and checked against values computed here: CUB block
 * radix sort (4 keys a thread, negative ones too), block reduce, block scan
 * and warp reduce over 2 blocks of 128 threads;
 * cuda_fp8.h conversions of every kind of f32 (normals, subnormals, ties,
 * values past the largest finite: saturated) to e4m3 and e5m2 and back; a
 * coalesced group of the odd-valued lanes (reduce, rank, shfl). */
#include <stdio.h>

#include "ptx_testutil.h"

static void check_cub(vkrr_ptx_module *m)
{
    uint64_t s = 41;
    static int in[256], sum[2], scan[256];
    static float wsum[8];
    for (int i = 0; i < 256; i++)
        in[i] = (int)(ptxt_rand(&s) % 2001) - 1000;
    ptxt_args a = {0};
    ptxt_ptr(&a, in, sizeof in);
    ptxt_ptr(&a, sum, sizeof sum);
    ptxt_ptr(&a, scan, sizeof scan);
    ptxt_ptr(&a, wsum, sizeof wsum);
    if (!ptxt_run(m, "k_cub", &a, 2, 128, 0))
        return;
    unsigned bad = 0;
    for (int b = 0; b < 2; b++) {
        int acc = 0;
        for (int t = 0; t < 128; t++) {
            bad += scan[b * 128 + t] != acc;
            acc += in[b * 128 + t];
        }
        bad += sum[b] != acc;
        for (int w = 0; w < 4; w++) {
            float f = 0;
            for (int t = 0; t < 32; t++)
                f += (float)in[b * 128 + w * 32 + t] * 0.5f; /* exact: small halves */
            bad += wsum[b * 4 + w] != f;
        }
    }
    CHECK_EQ_U64(bad, 0);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void check_radix(vkrr_ptx_module *m)
{
    uint64_t s = 53;
    static int in[1024], out[1024], want[1024];
    for (int i = 0; i < 1024; i++)
        in[i] = (int)ptxt_rand(&s) >> (i % 3 * 8); /* wide and narrow, either sign */
    ptxt_args a = {0};
    ptxt_ptr(&a, in, sizeof in);
    ptxt_ptr(&a, out, sizeof out);
    if (!ptxt_run(m, "k_radix", &a, 2, 128, 0))
        return;
    memcpy(want, in, sizeof want);
    qsort(want, 512, sizeof *want, cmp_int);
    qsort(want + 512, 512, sizeof *want, cmp_int);
    CHECK(memcmp(out, want, sizeof want) == 0);
}

static void check_fp8(vkrr_ptx_module *m)
{
    enum { N = 256 };
    static float in[N], back[2 * N];
    static uint8_t e4[N], e5[N];
    uint64_t s = 43;
    for (int i = 0; i < N; i++) {
        int e = (int)(ptxt_rand(&s) % 48) - 30; /* 2^-30 .. 2^17: subnormals to past 448 and 57344 */
        float mant = 1.0f + (float)(ptxt_rand(&s) % 1024) / 1024.0f;
        in[i] = ldexpf(i & 1 ? -mant : mant, e);
    }
    in[0] = 0.0f;
    in[1] = -0.0f;
    in[2] = 1.0625f;   /* a tie in e4m3: to even (1.0) */
    in[3] = 1.1875f;   /* a tie in e4m3: to even (1.25) */
    in[4] = 464.0f;    /* past e4m3's 448: saturated */
    in[5] = 1e30f;     /* saturated in both */
    in[6] = ldexpf(1.0f, -10); /* e4m3 subnormal */
    ptxt_args a = {0};
    ptxt_ptr(&a, in, sizeof in);
    ptxt_ptr(&a, e4, sizeof e4);
    ptxt_ptr(&a, e5, sizeof e5);
    ptxt_ptr(&a, back, sizeof back);
    if (!ptxt_run(m, "k_fp8", &a, 2, 128, 0))
        return;
    unsigned bad = 0;
    for (int i = 0; i < N; i++) {
        uint32_t x4 = ptxt_round(&PTXT_E4M3, in[i], 0, true), x5 = ptxt_round(&PTXT_E5M2, in[i], 0, true);
        uint32_t h4 = ptxt_round(&PTXT_E4M3, -in[i] * 0.5f, 0, true);
        float want0 = (float)ptxt_decode(&PTXT_E4M3, x4) + (float)ptxt_decode(&PTXT_E4M3, x4);
        float want1 = (float)ptxt_decode(&PTXT_E5M2, x5) + (float)ptxt_decode(&PTXT_E4M3, h4);
        if (e4[i] != x4 || e5[i] != x5 || back[2 * i] != want0 || back[2 * i + 1] != want1) {
            if (bad < 4)
                printf("fp8: %a -> e4m3 0x%02x (want 0x%02x), e5m2 0x%02x (want 0x%02x)\n", (double)in[i],
                       e4[i], x4, e5[i], x5);
            bad++;
        }
    }
    CHECK_EQ_U64(bad, 0);
}

static void check_coalesced(vkrr_ptx_module *m)
{
    uint64_t s = 47;
    static int in[32], out[32];
    for (int i = 0; i < 32; i++)
        in[i] = (int)(ptxt_rand(&s) % 100);
    in[0] |= 1; /* at least one lane in the group */
    ptxt_args a = {0};
    ptxt_ptr(&a, in, sizeof in);
    ptxt_ptr(&a, out, sizeof out);
    if (!ptxt_run(m, "k_coalesced", &a, 1, 32, 0))
        return;
    int lanes[32], n = 0, sum = 0;
    for (int i = 0; i < 32; i++)
        if (in[i] & 1) {
            lanes[n++] = i;
            sum += in[i];
        }
    unsigned bad = 0;
    for (int i = 0; i < 32; i++)
        if (!(in[i] & 1))
            bad += out[i] != -1;
    for (int r = 0; r < n; r++)
        bad += out[lanes[r]] != sum * 1000 + r * 10 + (in[lanes[(r + 1) % n]] & 7);
    CHECK_EQ_U64(bad, 0);
}

int main(void)
{
    static const unsigned sms[2] = {80, 89};
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("corpus_ops", sms[k]);
        if (!m)
            continue;
        check_cub(m);
        check_radix(m);
        check_fp8(m);
        check_coalesced(m);
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_corpus");
}
