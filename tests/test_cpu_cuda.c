/* test_cpu_cuda.c - the CPU backend's CUDA device API (cuda_cpu.h) against
 * hand-computed values: CUDA's 8-bit bilinear weights, addressing modes,
 * normalized coordinates, 8-bit normalized reads, surface byte x, f16 RNE
 * ties, e4m3 satfinite. */
#include <math.h>
#include <string.h>

#include "cpu_probe.h"
#include "cuformat.h"
#include "testutil.h"

static float tex1(const vkrr_cpu_probe_tex *t, float x, float y)
{
    float o[4];
    vkrr_cpu_probe_tex2d(t, x, y, o);
    return o[0];
}

static void check_bilinear(void)
{
    /* 3 x 2 HALF x1: row 0 = 0 1 4, row 1 = 2 8 16 */
    uint16_t d[6];
    const float v[6] = {0, 1, 4, 2, 8, 16};
    for (int i = 0; i < 6; i++)
        d[i] = vkrr_f32_to_f16_rne(v[i]);
    vkrr_cpu_probe_tex t = {d, 3, 2, 1, 16, 1, {1, 1}, false, false};
    /* x 1.1: frac 0.6 -> alpha = round(153.6)/256 = 154/256 (a float bilerp gives 0.6) */
    CHECK(tex1(&t, 1.1f, 0.5f) == 154.0f / 256.0f);
    CHECK(tex1(&t, 1.1f, 0.5f) != 0.6f);
    /* (1.3, 1.2): alpha 205/256, beta 179/256 */
    double a = 205.0 / 256, b = 179.0 / 256;
    double want = a * (1 - b) * 1 + (1 - a) * b * 2 + a * b * 8;
    float got = tex1(&t, 1.3f, 1.2f);
    CHECK(fabs(got - want) < 1e-6);
    CHECK(fabs(got - 5.0) > 1e-3); /* the naive bilerp is 5.0 */
    /* texel centres are exact; clamp replicates the edge */
    CHECK(tex1(&t, 2.5f, 1.5f) == 16.0f);
    CHECK(tex1(&t, -4.0f, 0.5f) == 0.0f);
    CHECK(tex1(&t, 9.0f, 9.0f) == 16.0f);
    /* border: outside texels read 0, so half of the edge texel at x = 3.0 */
    t.address[0] = t.address[1] = 3;
    CHECK(tex1(&t, 3.0f, 0.5f) == 2.0f);
    CHECK(tex1(&t, -1.0f, 0.5f) == 0.0f);
    /* point filtering ignores fractions */
    t.filter = 0;
    CHECK(tex1(&t, 1.99f, 1.01f) == 8.0f);
}

static void check_addressing(void)
{
    const float d[4] = {10, 20, 30, 40};
    vkrr_cpu_probe_tex t = {d, 4, 1, 1, 32, 0, {0, 0}, true, false};
    /* normalized x 1.3 -> u 5.2 -> texel 5; x -0.1 -> texel -1 */
    const float want_hi[4] = {20, 40, 30, 0}, want_lo[4] = {40, 10, 10, 0};
    for (int mode = 0; mode < 4; mode++) {
        t.address[0] = t.address[1] = mode;
        CHECK(tex1(&t, 1.3f, 0.5f) == want_hi[mode]);
        CHECK(tex1(&t, -0.1f, 0.5f) == want_lo[mode]);
        CHECK(tex1(&t, 0.6f, 0.5f) == 30.0f); /* in range: u 2.4 */
    }
    /* linear + wrap across the seam, normalized: u = 0.0 -> between texel -1 (40) and 0 (10) */
    t.filter = 1;
    t.address[0] = t.address[1] = 0;
    CHECK(tex1(&t, 0.0f, 0.5f) == 25.0f);
    /* unnormalized: clamp and border */
    t.filter = 0;
    t.normalized = false;
    t.address[0] = t.address[1] = 1;
    CHECK(tex1(&t, -3.0f, 0.5f) == 10.0f);
    CHECK(tex1(&t, 7.5f, 0.5f) == 40.0f);
    CHECK(tex1(&t, 2.5f, 0.5f) == 30.0f);
    t.address[0] = t.address[1] = 3;
    CHECK(tex1(&t, 7.5f, 0.5f) == 0.0f);
    CHECK(tex1(&t, 0.5f, -0.5f) == 0.0f);
    CHECK(tex1(&t, NAN, 0.5f) == 10.0f); /* NaN reads as 0 */
}

static void check_normalized_reads(void)
{
    float o[4];
    const uint8_t un[4] = {0, 51, 255, 128};
    vkrr_cpu_probe_tex t = {un, 1, 1, 4, 194, 0, {1, 1}, false, false};
    vkrr_cpu_probe_tex2d(&t, 0.5f, 0.5f, o);
    CHECK(o[0] == 0.0f && o[1] == 0.2f && o[2] == 1.0f && o[3] == 128.0f / 255.0f);
    const int8_t sn[4] = {-128, -127, 127, 64};
    t.data = sn, t.format = 200;
    vkrr_cpu_probe_tex2d(&t, 0.5f, 0.5f, o);
    CHECK(o[0] == -1.0f && o[1] == -1.0f && o[2] == 1.0f && o[3] == 64.0f / 127.0f);
    const uint8_t m[2] = {255, 51};
    vkrr_cpu_probe_tex u8 = {m, 2, 1, 1, 1, 0, {1, 1}, false, false};
    vkrr_cpu_probe_tex2d(&u8, 1.5f, 0.5f, o);
    CHECK(o[0] == 0.2f && o[1] == 0.0f && o[2] == 0.0f && o[3] == 0.0f); /* missing channels 0 */
    CHECK(tex1(&u8, 0.5f, 0.5f) == 1.0f);
    u8.read_as_integer = true;
    CHECK(tex1(&u8, 1.5f, 0.5f) == 51.0f);
    /* HALF x2: both channels, exact */
    const uint16_t h2[2] = {0x3c00, 0xc500}; /* 1, -5 */
    vkrr_cpu_probe_tex th = {h2, 1, 1, 2, 16, 0, {1, 1}, false, false};
    vkrr_cpu_probe_tex2d(&th, 0.5f, 0.5f, o);
    CHECK(o[0] == 1.0f && o[1] == -5.0f);
}

static void check_surface(void)
{
    uint8_t s[4 * 2 * 8];
    const uint8_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    memset(s, 0xff, sizeof s);
    CHECK(vkrr_cpu_probe_surf_write(s, 4, 2, 8, v, 8, 16, 1)); /* byte x 16 = texel 2 */
    CHECK(memcmp(s + (1 * 4 + 2) * 8, v, 8) == 0);
    unsigned untouched = 0;
    for (unsigned i = 0; i < sizeof s; i++)
        untouched += s[i] == 0xff;
    CHECK_EQ_U64(untouched, sizeof s - 8);
    CHECK(!vkrr_cpu_probe_surf_write(s, 4, 2, 8, v, 8, 12, 0)); /* not a texel boundary */
    CHECK(!vkrr_cpu_probe_surf_write(s, 4, 2, 8, v, 8, 32, 0)); /* x = 4 texels: out of range */
    CHECK(!vkrr_cpu_probe_surf_write(s, 4, 2, 8, v, 4, 8, 0));  /* 4 bytes into 8-byte texels */
    CHECK(!vkrr_cpu_probe_surf_write(s, 4, 2, 8, v, 8, 0, 2));
    CHECK_EQ_U64(memcmp(s, (uint8_t[8]){0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 8), 0);
    uint16_t s2[3] = {0, 0, 0}, one = 0x3c00;
    CHECK(vkrr_cpu_probe_surf_write(s2, 3, 1, 2, &one, 2, 4, 0));
    CHECK(s2[2] == 0x3c00 && s2[0] == 0 && s2[1] == 0);
}

static void check_f16(void)
{
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(1.0f + 0x1p-11f), 0x3c00);      /* tie -> even */
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(1.0f + 3 * 0x1p-11f), 0x3c02);  /* tie -> even (up) */
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(65519.0f), 0x7bff);
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(65520.0f), 0x7c00);
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(-1e9f), 0xfc00);
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(0x1p-24f), 0x0001);
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(0x1p-25f), 0x0000);             /* tie -> 0 */
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(3 * 0x1p-25f), 0x0002);         /* tie -> 2 */
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(0x1p-14f - 0x1p-26f), 0x0400);  /* rounds up to the smallest normal */
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(-0.0f), 0x8000);
    CHECK_EQ_U64(vkrr_cpu_probe_f2h(NAN), 0x7fff);
    CHECK(vkrr_cpu_probe_h2f(0x0001) == 0x1p-24f);
    CHECK(vkrr_cpu_probe_h2f(0xfbff) == -65504.0f);
    CHECK(isinf(vkrr_cpu_probe_h2f(0x7c00)));
    CHECK_EQ_U64(vkrr_cpu_probe_hadd(0x3c00, 0x1000), 0x3c00); /* 1 + 2^-11: tie -> even */
    CHECK_EQ_U64(vkrr_cpu_probe_hadd(0x3c01, 0x1000), 0x3c02);
    CHECK_EQ_U64(vkrr_cpu_probe_hadd(0x7bff, 0x7bff), 0x7c00);
    /* exhaustive agreement with cuformat's independent RNE on every f16 -> f32 -> f16 */
    unsigned bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        float f = vkrr_cpu_probe_h2f((uint16_t)h);
        if (isnan(f))
            continue;
        bad += vkrr_cpu_probe_f2h(f) != h;
        bad += vkrr_cpu_probe_f2h(f * 1.0009765625f) != vkrr_f32_to_f16_rne(f * 1.0009765625f);
    }
    CHECK_EQ_U64(bad, 0);
}

static void check_e4m3(void)
{
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x5f00, true), 0x7e);  /* 448 */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x5f80, true), 0x7e);  /* 480 saturates */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x5f80, false), 0x7f); /* ... or is NaN without satfinite */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x5f40, true), 0x7e);  /* 464 */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x7c00, true), 0x7e);  /* +Inf */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0xfc00, true), 0xfe);  /* -Inf */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x7e00, true), 0x7f);  /* NaN */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x3c00, true), 0x38);  /* 1.0 */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x3c40, true), 0x38);  /* 1.0625: tie -> even */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x3cc0, true), 0x3a);  /* 1.1875: tie -> even (up) */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x1800, true), 0x01);  /* 2^-9 */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x1400, true), 0x00);  /* 2^-10: tie -> 0 */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x1a00, true), 0x02);  /* 3*2^-10: tie -> 2 */
    CHECK_EQ_U64(vkrr_cpu_probe_h2e4m3(0x9800, true), 0x81);  /* -2^-9 */
    CHECK_EQ_U64(vkrr_cpu_probe_e4m32h(0x7e), 0x5f00);
    CHECK_EQ_U64(vkrr_cpu_probe_e4m32h(0x01), 0x1800);
    CHECK_EQ_U64(vkrr_cpu_probe_e4m32h(0xb8), 0xbc00);
    CHECK_EQ_U64(vkrr_cpu_probe_e4m32h(0x7f), 0x7fff);
    /* every finite f16 agrees with cuformat's satfinite conversion of the same value */
    unsigned bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        float f = vkrr_f16_to_f32((uint16_t)h);
        if (isnan(f))
            continue;
        bad += vkrr_cpu_probe_h2e4m3((uint16_t)h, true) != vkrr_f32_to_e4m3_satfinite(f);
    }
    CHECK_EQ_U64(bad, 0);
    /* and every e4m3 code round-trips */
    bad = 0;
    for (uint32_t c = 0; c < 256; c++)
        if ((c & 0x7f) != 0x7f)
            bad += vkrr_cpu_probe_h2e4m3(vkrr_cpu_probe_e4m32h((uint8_t)c), true) != c;
    CHECK_EQ_U64(bad, 0);
}

int main(void)
{
    check_bilinear();
    check_addressing();
    check_normalized_reads();
    check_surface();
    check_f16();
    check_e4m3();
    return test_finish("cpu_cuda");
}
