/* test_texfilter: the measured bilinear filter (src/hw/texfilter.h).
 *
 * 1. The C model against an independent reference written from the page's
 *    five steps (long double truncation and sum, the f16 result found by
 *    searching every f16 code, ties away from zero), on the page's worked
 *    example and edge cases and on random texels and fractions.
 * 2. The ports' GLSL filter (shaders/common/tex.glsl, through the test port
 *    vkrr_test_filter_kernel on lavapipe) against cuda_texture.c, which the
 *    CPU backend and the PTX interpreter share, bit for bit: the measured
 *    case (4-channel f16, clamp, unnormalized) and two that are not measured
 *    (f16 normalized with wrap, FLOAT x1 with border), whose f32 filter must
 *    agree too.
 *    And under a hardware model with 6-bit weights (texfilter_bits 6), the
 *    measured case again, which then differs from the 8-bit filter.
 * 3. Which cases say they are not measured. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_vk.h"
#include "cuda_texture.h"
#include "cuformat.h"
#include "hw_model.h"
#include "hw_tables.h"
#include "testutil.h"
#include "texfilter.h"

#define fb vkrr_f32_bits

/* ---- 1: the model against the page --------------------------------------- */

/* Nearest f16 value to v, ties away from zero (every finite code searched). */
static long double ref_round_f16_away(long double v)
{
    if (fabsl(v) >= 65520.0L)
        return v > 0 ? INFINITY : -INFINITY;
    long double best = 0;
    for (uint32_t h = 0; h < 0x7c00; h++) {
        long double c = (long double)vkrr_f16_to_f32((uint16_t)h) * (v < 0 ? -1 : 1);
        long double d = fabsl(c - v), bd = fabsl(best - v);
        if (d < bd || (d == bd && fabsl(c) > fabsl(best)))
            best = c;
    }
    return best;
}

static float ref_filter(const uint16_t t[4], const int w[4])
{
    long double v[4], big = 0;
    for (int k = 0; k < 4; k++) {
        v[k] = vkrr_f16_to_f32(t[k]);
        if (w[k] && fabsl(v[k]) > big)
            big = fabsl(v[k]);
    }
    if (big == 0)
        return 0.0f;
    int e;
    frexpl(big, &e); /* big = m 2^e, m in [0.5, 1): E = e - 1 */
    long double g = ldexpl(1.0L, (e - 1) - 14), s = 0;
    for (int k = 0; k < 4; k++)
        if (w[k])
            s += w[k] * (truncl(v[k] / g) * g);
    return (float)ref_round_f16_away(s / 256.0L);
}

static void test_model(void)
{
    int w[4];
    vkrr_texfilter_weights(62, 64, w); /* the page's worked example */
    CHECK(w[0] == 146 && w[1] == 46 && w[2] == 48 && w[3] == 16);
    vkrr_texfilter_weights(256, 0, w);
    CHECK(w[0] == 0 && w[1] == 256 && w[2] == 0 && w[3] == 0);
    vkrr_texfilter_weights(128, 128, w);
    CHECK(w[0] == 64 && w[1] == 64 && w[2] == 64 && w[3] == 64);
    long texel;
    CHECK(vkrr_texfilter_fraction(10.5f, &texel) == 0 && texel == 10);
    CHECK(vkrr_texfilter_fraction(10.75f, &texel) == 64 && texel == 10);
    CHECK(vkrr_texfilter_fraction(0.25f, &texel) == 192 && texel == -1);
    CHECK(vkrr_texfilter_fraction(nextafterf(3.5f, 0.0f), &texel) == 256 && texel == 2); /* A may be 256 */
    /* another texture unit's 6 fraction bits (hw_tables.h texfilter_bits): 1/64 steps,
     * products rounded to nearest even: 56*52/64 = 45.5 -> 46, 8*52/64 = 6.5 -> 6,
     * 56*12/64 = 10.5 -> 10, 8*12/64 = 1.5 -> 2 */
    vkrr_texfilter_weights_q(8, 12, 6, w);
    CHECK(w[0] == 46 && w[1] == 6 && w[2] == 10 && w[3] == 2);
    CHECK(vkrr_texfilter_fraction_q(10.75f, 6, &texel) == 16 && texel == 10);
    CHECK(vkrr_texfilter_fraction_q(10.5f + 0x1p-7f, 6, &texel) == 1); /* 0.5 of a step: up */
    uint16_t one3[4] = {0x3c00, 0x4200, 0, 0}; /* 1, 3: (46 + 6 * 3) / 64 = 1 */
    int w6[4] = {46, 18, 0, 0};
    CHECK_EQ_U64(fb(vkrr_texfilter_f16_q(one3, w6, 6)), fb(1.5625f)); /* (46 + 54) / 64 */
    CHECK_EQ_U64(vkrr_texfilter_bits(), 8); /* sm_90's, the built-in model */

    /* a tie rounds away from zero: (1 + 1 + 2^-10) / 2 lies halfway */
    uint16_t tie[4] = {0x3c00, 0x3c01, 0, 0}; /* 1, 1 + 2^-10 */
    int half[4] = {128, 128, 0, 0};
    CHECK_EQ_U64(fb(vkrr_texfilter_f16(tie, half)), fb(1.0f + 0x1p-10f)); /* to even would be 1.0 */
    uint16_t ntie[4] = {0xbc00, 0xbc01, 0, 0};
    CHECK_EQ_U64(fb(vkrr_texfilter_f16(ntie, half)), fb(-1.0f - 0x1p-10f));
    /* a large texel truncates its neighbour: beside 2048 (grid 2^-3) 0.1875
     * counts as 0.125: (2048 + 255 * 0.125) / 256 = 8.1245 -> 8.125, where
     * the exact texel would give 8.1868 -> 8.1875 */
    uint16_t big[4] = {0x6800, 0x3200, 0, 0}; /* 2048, 0.1875 */
    int w1[4] = {1, 255, 0, 0};
    float got = vkrr_texfilter_f16(big, w1);
    CHECK_EQ_U64(fb(got), fb(ref_filter(big, w1)));
    CHECK(got == 8.125f);
    /* a zero-weight texel does not truncate the others */
    int w0[4] = {0, 256, 0, 0};
    CHECK_EQ_U64(fb(vkrr_texfilter_f16(big, w0)), fb(0.1875f));
    /* overflow past 65504, +-0, subnormals, Inf and NaN */
    uint16_t top[4] = {0x7bff, 0x7bff, 0x7bff, 0x7bff};
    int w257[4] = {65, 64, 64, 64};
    CHECK(isinf(vkrr_texfilter_f16(top, w257)));
    uint16_t zero[4] = {0x8000, 0x0000, 0x8000, 0};
    CHECK_EQ_U64(fb(vkrr_texfilter_f16(zero, half)), 0);
    uint16_t sub[4] = {0x0001, 0x0003, 0, 0};
    CHECK_EQ_U64(fb(vkrr_texfilter_f16(sub, half)), fb(ref_filter(sub, half)));
    uint16_t inf[4] = {0x7c00, 0x3c00, 0, 0}, nan[4] = {0x7e00, 0xfc00, 0, 0};
    CHECK(isinf(vkrr_texfilter_f16(inf, half)) && vkrr_texfilter_f16(inf, half) > 0);
    CHECK(isnan(vkrr_texfilter_f16(nan, half)));
    CHECK(!isinf(vkrr_texfilter_f16(inf, w0))); /* a zero weight hides it */

    /* negative texels beside large ones: step 3 truncates toward zero, so a
     * small negative texel moves up to the grid (toward 0), never down.
     * Worked by hand (f16 steps: 2^-8 in [4, 8), 2^-7 in [8, 16), 2^-9 in
     * [2, 4)); rounding toward -Inf instead gives the value in brackets. */
    uint16_t negsmall[4] = {0x6800, 0xb200, 0, 0}; /* 2048, -0.1875 -> -0.125 (-0.25) */
    CHECK(vkrr_texfilter_f16(negsmall, w1) == 7.875f); /* (2048 - 31.875) / 256 = 7.87549 (7.75) */
    uint16_t bothneg[4] = {0xe800, 0xb200, 0, 0};  /* -2048, -0.1875 */
    CHECK(vkrr_texfilter_f16(bothneg, w1) == -8.125f); /* -2079.875 / 256 = -8.12451 (-8.25) */
    uint16_t negbig[4] = {0xe800, 0x3200, 0, 0};   /* -2048, 0.1875 -> 0.125 */
    CHECK(vkrr_texfilter_f16(negbig, w1) == -7.875f); /* -2016.125 / 256 */
    /* 2^-24, the least subnormal, beside 1024 (grid 2^-4): -2^-24 counts as
     * -0, so the sum is 1024 / 256 = 4 exactly (with 255 * -2^-4: 3.9375) */
    uint16_t tiny[4] = {0x6400, 0x8001, 0, 0};
    CHECK_EQ_U64(fb(vkrr_texfilter_f16(tiny, w1)), fb(4.0f));
    uint16_t ntiny[4] = {0xe400, 0x0001, 0, 0};
    CHECK_EQ_U64(fb(vkrr_texfilter_f16(ntiny, w1)), fb(-4.0f));
    /* all four texels, 2^10 to 2^-10, both signs: 1024 (grid 2^-4),
     * -3.03125 -> -3, 0.099976 (0x2e66) -> 0.0625, -0.00098 (0x9404) -> 0;
     * weights 1, 85, 85, 85: (1024 + 85 (-3 + 0.0625)) / 256 = 774.3125 / 256
     * = 3.0246582 = 1548.625 f16 steps of 2^-9 -> 1549 steps = 3.0253906
     * (toward -Inf: -3.0625, 0.0625, -0.0625 -> 763.6875 / 256 -> 2.9824219) */
    uint16_t spread[4] = {0x6400, 0xc210, 0x2e66, 0x9404};
    int w85[4] = {1, 85, 85, 85};
    CHECK(vkrr_texfilter_f16(spread, w85) == 1549 * 0x1p-9f);
    CHECK_EQ_U64(fb(vkrr_texfilter_f16(spread, w85)), fb(ref_filter(spread, w85)));

    srand(7);
    unsigned bad = 0;
    for (int n = 0; n < 4000; n++) {
        uint16_t t[4];
        int e0 = rand() % 30;
        for (int k = 0; k < 4; k++) { /* exponents near each other, so truncation bites */
            int e = e0 + rand() % 5 - 2;
            e = e < 0 ? 0 : e > 30 ? 30 : e;
            t[k] = (uint16_t)((rand() & 1) << 15 | e << 10 | (rand() & 0x3ff));
        }
        vkrr_texfilter_weights(rand() % 257, rand() % 257, w);
        float a = vkrr_texfilter_f16(t, w), b = ref_filter(t, w);
        if (fb(a) != fb(b) && bad++ < 5)
            fprintf(stderr, "  texels %04x %04x %04x %04x w %d %d %d %d: %a, reference %a\n", t[0],
                    t[1], t[2], t[3], w[0], w[1], w[2], w[3], a, b);
    }
    CHECK_EQ_U64(bad, 0);
    /* exponents anywhere in the f16 range and either sign, so small texels
     * beside large ones lose bits to step 3 (the loop above keeps them
     * within 4 binades, where every f16 is on the grid) */
    bad = 0;
    for (int n = 0; n < 4000; n++) {
        uint16_t t[4];
        for (int k = 0; k < 4; k++)
            t[k] = (uint16_t)((rand() & 1) << 15 | (rand() % 31) << 10 | (rand() & 0x3ff));
        vkrr_texfilter_weights(rand() % 257, rand() % 257, w);
        float a = vkrr_texfilter_f16(t, w), b = ref_filter(t, w);
        if (fb(a) != fb(b) && bad++ < 5)
            fprintf(stderr, "  wide: texels %04x %04x %04x %04x w %d %d %d %d: %a, reference %a\n",
                    t[0], t[1], t[2], t[3], w[0], w[1], w[2], w[3], a, b);
    }
    CHECK_EQ_U64(bad, 0);
}

/* ---- 2: GLSL against the CPU filter -------------------------------------- */

enum { W = 7, H = 5, N = 600 };

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* Samples N coordinates through the port and the CPU; returns differences. */
static unsigned compare_case(vkrr_backend *be, unsigned format, unsigned channels, bool normalized,
                             int mode, const void *texels)
{
    float coord[N][2], out[N][4];
    for (int i = 0; i < N; i++) {
        float span = normalized ? 1.4f : (float)W + 3.0f;
        coord[i][0] = ((float)rand() / (float)RAND_MAX) * span - (normalized ? 0.2f : 1.5f);
        coord[i][1] = ((float)rand() / (float)RAND_MAX) * (normalized ? 1.4f : H + 3.0f) - (normalized ? 0.2f : 1.5f);
        if (i % 7 == 0 && !normalized) { /* exact texel centres and 8-bit steps */
            coord[i][0] = (float)(rand() % W) + 0.5f + (float)(rand() % 256) / 256.0f;
            coord[i][1] = (float)(rand() % H) + 0.5f;
        }
    }
    uint8_t args[40];
    put64(args, 0x7001);
    put64(args + 8, 0x10000);
    put64(args + 16, 0x20000);
    put32(args + 24, N);
    put32(args + 28, normalized);
    put32(args + 32, (uint32_t)mode);
    put32(args + 36, (uint32_t)mode);
    vkrr_replay_alloc allocs[2] = {{0x10000, sizeof coord, coord, NULL, NULL},
                                   {0x20000, sizeof out, NULL, out, NULL}};
    static float zero[N][4];
    allocs[1].pre = zero;
    vkrr_pointer ptrs[2] = {{8, 0, 0}, {16, 1, 0}};
    vkrr_sampler smp = {.filter = 1, .address = {mode, mode}, .normalized = normalized};
    vkrr_replay_image im = {.offset = 0, .kind = VKRR_IMAGE_TEXTURE, .handle = 0x7001, .width = W,
                            .height = H, .channels = channels, .format = format, .sampler = smp,
                            .pre = texels};
    vkrr_replay r = {.kernel = "vkrr_test_filter_kernel", .grid = {(N + 63) / 64, 1, 1},
                     .block = {64, 1, 1}, .args = args, .args_bytes = sizeof args, .allocs = allocs,
                     .nallocs = 2, .pointers = ptrs, .npointers = 2, .images = &im, .nimages = 1};
    vkrr_error err = {0};
    if (!CHECK(be->run(be->self, &r, &err) == VKRR_OK)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    unsigned tb = vkrr_cuformat_texel_bytes(format, channels);
    vkrr_cutex t = {.data = texels, .width = W, .height = H, .channels = channels, .format = format,
                    .texel_bytes = tb, .filter = 1, .address = {mode, mode}, .normalized = normalized};
    unsigned bad = 0;
    for (int i = 0; i < N; i++) {
        float cpu[4];
        vkrr_cutex_sample(&t, coord[i][0], coord[i][1], cpu);
        for (unsigned c = 0; c < channels; c++)
            if (fb(cpu[c]) != fb(out[i][c]) && !(isnan(cpu[c]) && isnan(out[i][c])) && bad++ < 5)
                fprintf(stderr, "  fmt %u x%u (%.9g, %.9g) ch %u: port %a, cpu %a\n", format, channels,
                        coord[i][0], coord[i][1], c, out[i][c], cpu[c]);
    }
    return bad;
}

static void test_glsl(void)
{
    vkrr_backend be;
    vkrr_error err = {0};
    if (!CHECK(vkrr_vk_backend_create(&be, &(vkrr_vk_desc){.timeout_s = 60}, &err) == VKRR_OK)) {
        fprintf(stderr, "no Vulkan device: %s\n", err.msg);
        return;
    }
    static uint16_t half4[H][W][4];
    static float f1[H][W];
    srand(11);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            for (int c = 0; c < 4; c++) { /* mixed magnitudes and signs, an Inf, a NaN */
                int e = (x + c) % 3 == 0 ? 25 : 10 + rand() % 8;
                half4[y][x][c] = (uint16_t)((rand() % 5 == 0) << 15 | e << 10 | (rand() & 0x3ff));
            }
            f1[y][x] = (float)rand() / (float)RAND_MAX * 100.0f - 50.0f;
        }
    half4[2][3][1] = 0x7c00;
    half4[4][6][2] = 0x7e00;
    unsigned measured = compare_case(&be, 16, 4, false, 1, half4);
    unsigned norm = compare_case(&be, 16, 4, true, 0, half4);
    unsigned flt = compare_case(&be, 32, 1, false, 3, f1);
    printf("port filter vs cuda_texture.c, %d samples each: measured %u, f16 normalized wrap %u, "
           "FLOAT x1 border %u differ\n", N, measured, norm, flt);
    CHECK_EQ_U64(measured, 0);
    CHECK_EQ_U64(norm, 0);
    CHECK_EQ_U64(flt, 0);
    /* a hardware model whose texture unit has 6-bit weights (texfilter_bits):
     * the port follows it through vkrr_texinfo as cuda_texture.c does */
    char *dir = test_tmpdir("texfilter"), man[4200];
    snprintf(man, sizeof man, "%s/tables.tsv", dir);
    /* sm_90's set with the line added */
    char ship[4200];
    snprintf(ship, sizeof ship, "%s/src/hw/sm_90/tables.tsv", VKRR_SOURCE_DIR);
    size_t n = 0;
    char *base = test_read_file(ship, &n), *six = base ? malloc(n + 32) : NULL;
    if (six) {
        memcpy(six, base, n);
        n += (size_t)sprintf(six + n, "texfilter_bits\t6\n");
    }
    free(base);
    for (int i = 0; i < VKRR_HWT_COUNT; i++) { /* its files, linked */
        char from[4400], to[4400];
        snprintf(from, sizeof from, "%s/src/hw/sm_90/%s.xz", VKRR_SOURCE_DIR,
                 vkrr_hw_table_name((vkrr_hw_table_id)i));
        snprintf(to, sizeof to, "%s/%s.xz", dir, vkrr_hw_table_name((vkrr_hw_table_id)i));
        CHECK(symlink(from, to) == 0);
    }
    vkrr_hw_model *m = NULL;
    if (CHECK(six) && CHECK(test_write_file(man, six, n)) &&
        CHECK(vkrr_hw_model_open(&(vkrr_hw_choice){.approx = "sm_90", .tables_dir = dir}, &m,
                                 &err) == VKRR_OK)) {
        vkrr_hw_use(m);
        CHECK_EQ_U64(vkrr_texfilter_bits(), 6);
        unsigned q6 = compare_case(&be, 16, 4, false, 1, half4);
        /* and 6 bits is another filter: most values differ from 8 bits' */
        vkrr_cutex t = {.data = (const unsigned char *)half4, .width = W, .height = H, .channels = 4,
                        .format = 16, .texel_bytes = 8, .filter = 1, .address = {1, 1}};
        unsigned differ = 0;
        for (int i = 0; i < 100; i++) {
            float x = 0.37f + (float)i * 0.0713f, y = 1.1f + (float)i * 0.031f, a[4], b[4];
            t.weight_bits = 6;
            vkrr_cutex_filter(&t, x, y, VKRR_CUTEX_MODEL, a);
            t.weight_bits = 8;
            vkrr_cutex_filter(&t, x, y, VKRR_CUTEX_MODEL, b);
            differ += fb(a[0]) != fb(b[0]);
        }
        printf("6-bit weights: port vs cuda_texture.c %u differ; 6 vs 8 bits: %u of 100 differ\n",
               q6, differ);
        CHECK_EQ_U64(q6, 0);
        CHECK(differ > 30);
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(m);
    } else {
        vkrr_error_print(&err, stderr);
    }
    free(six);
    test_rmtree(dir);
    free(dir);
    be.destroy(be.self);
}

/* ---- 3: what says it is not measured ------------------------------------- */

static void test_cases(void)
{
    char buf[256];
    vkrr_texcase m = {16, 4, 1, {1, 1}, false, false};
    CHECK(vkrr_texfilter_measured(&m));
    CHECK(vkrr_texfilter_unmeasured(&m, buf, sizeof buf) == NULL);
    vkrr_texcase point = {32, 1, 0, {0, 0}, true, false};
    CHECK(vkrr_texfilter_unmeasured(&point, buf, sizeof buf) == NULL);
    vkrr_texcase f1 = {32, 1, 1, {1, 1}, false, false};
    CHECK(vkrr_texfilter_unmeasured(&f1, buf, sizeof buf) != NULL);
    CHECK(strstr(buf, "FLOAT x1") && strstr(buf, "not measured"));
    vkrr_texcase border = {16, 4, 1, {3, 1}, false, false};
    CHECK(vkrr_texfilter_unmeasured(&border, buf, sizeof buf) && strstr(buf, "border"));
    vkrr_texcase normalized = {16, 4, 1, {1, 1}, true, false};
    CHECK(vkrr_texfilter_unmeasured(&normalized, buf, sizeof buf) && strstr(buf, "normalized"));
}

int main(void)
{
    test_model();
    test_cases();
    test_glsl();
    return test_finish("texfilter");
}
