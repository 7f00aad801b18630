/* test_scene: the procedural scene is deterministic, any size works, the
 * G-buffer agrees with itself, the noise is heavy-tailed, and the motion
 * vectors point to where each pixel was in the previous frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuformat.h"
#include "scene.h"
#include "testutil.h"

static bool render(uint32_t w, uint32_t h, uint64_t seed, const char *name, uint32_t frame,
                   vkrr_scene_frame *f)
{
    vkrr_error err = {0};
    vkrr_status st = vkrr_scene_render(
        &(vkrr_scene_desc){.width = w, .height = h, .seed = seed, .name = name}, frame, f, &err);
    if (st != VKRR_OK)
        vkrr_error_print(&err, stderr);
    return st == VKRR_OK;
}

static bool frames_equal(const vkrr_scene_frame *a, const vkrr_scene_frame *b)
{
    size_t n = (size_t)a->width * a->height;
    return a->width == b->width && a->height == b->height &&
           !memcmp(a->noisy, b->noisy, n * 8) && !memcmp(a->depth, b->depth, n * 4) &&
           !memcmp(a->motion, b->motion, n * 4) && !memcmp(a->albedo, b->albedo, n * 4) &&
           !memcmp(a->normal, b->normal, n * 4) && !memcmp(a->mask, b->mask, n) &&
           !memcmp(a->clean, b->clean, n * 16);
}

static void test_determinism(void)
{
    vkrr_scene_frame a = {0}, b = {0}, c = {0}, d = {0};
    CHECK(render(64, 48, 1, NULL, 1, &a));
    CHECK(render(64, 48, 1, "default", 1, &b));
    CHECK(frames_equal(&a, &b));
    CHECK(render(64, 48, 2, NULL, 1, &c));
    CHECK(!frames_equal(&a, &c)); /* the seed matters */
    CHECK(render(64, 48, 1, "stripes", 1, &d));
    CHECK(!frames_equal(&a, &d)); /* so does the scene */
    /* A few fixed values: a change of the renderer shows up here, on every machine. */
    CHECK(a.depth[0] > 0.0f);
    vkrr_scene_frame_free(&a);
    vkrr_scene_frame_free(&b);
    vkrr_scene_frame_free(&c);
    vkrr_scene_frame_free(&d);
    vkrr_scene_frame_free(NULL);
}

/* Every pixel: depth finite and > 0; geometry has a unit normal with w = 0;
 * sky has none; alpha is 1. */
static void check_planes(const vkrr_scene_frame *f)
{
    size_t n = (size_t)f->width * f->height, bad_depth = 0, bad_normal = 0, bad_alpha = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(f->depth[i] > 0.0f) || !isfinite(f->depth[i]))
            bad_depth++;
        const int8_t *nv = &f->normal[4 * i];
        int len2 = nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2];
        if (f->mask[i] == 255) {
            if (len2 < 120 * 120 || len2 > 130 * 130 || nv[3] != 0)
                bad_normal++;
        } else if (f->mask[i] != 0 || len2 != 0 || nv[3] != 0) {
            bad_normal++;
        }
        if (f->noisy[4 * i + 3] != 0x3c00 || f->clean[4 * i + 3] != 1.0f ||
            f->albedo[4 * i + 3] != 255)
            bad_alpha++;
    }
    CHECK_EQ_U64(bad_depth, 0);
    CHECK_EQ_U64(bad_normal, 0);
    CHECK_EQ_U64(bad_alpha, 0);
}

static void test_sizes(void)
{
    static const uint32_t sizes[][2] = {{37, 23}, {1, 1}, {2, 1}, {1, 3}, {64, 48}, {5, 200}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int s = 0; s < 2; s++) {
            vkrr_scene_frame f = {0};
            CHECK(render(sizes[k][0], sizes[k][1], 7, vkrr_scene_names()[s], 2, &f));
            CHECK_EQ_U64(f.width, sizes[k][0]);
            CHECK_EQ_U64(f.height, sizes[k][1]);
            if (f.depth)
                check_planes(&f);
            vkrr_scene_frame_free(&f);
        }
    }
    /* Both kinds of pixel at a normal size. */
    vkrr_scene_frame f = {0};
    CHECK(render(64, 48, 1, NULL, 0, &f));
    size_t sky = 0, geo = 0;
    for (size_t i = 0; i < 64 * 48; i++)
        f.mask[i] ? geo++ : sky++;
    CHECK(sky > 64 && geo > 64 * 10);
    vkrr_scene_frame_free(&f);

    vkrr_error err = {0};
    CHECK(vkrr_scene_render(&(vkrr_scene_desc){.width = 0, .height = 4}, 0, &f, &err) ==
          VKRR_ERR_RANGE);
    CHECK(vkrr_scene_render(&(vkrr_scene_desc){.width = 70000, .height = 70000}, 0, &f, &err) ==
          VKRR_ERR_RANGE);
    CHECK(vkrr_scene_render(&(vkrr_scene_desc){.width = 4, .height = 4, .name = "nope"}, 0, &f,
                            &err) == VKRR_ERR_USAGE);
    CHECK(strstr(err.msg, "nope") != NULL);
    CHECK(f.noisy == NULL);
    CHECK_STR(vkrr_scene_names()[0], "default");
    CHECK_STR(vkrr_scene_names()[1], "stripes");
    CHECK(vkrr_scene_names()[2] == NULL);
}

static double lum(const float *c)
{
    return 0.25 * c[0] + 0.5 * c[1] + 0.25 * c[2];
}

static void test_noise(void)
{
    vkrr_scene_frame f = {0}, g = {0};
    CHECK(render(128, 96, 3, NULL, 0, &f));
    CHECK(render(128, 96, 3, NULL, 1, &g));
    size_t n = 128 * 96, differ = 0, fireflies = 0, above = 0;
    double sum_noisy = 0, sum_clean = 0, max_ratio = 0;
    for (size_t i = 0; i < n; i++) {
        float nz[3];
        for (int c = 0; c < 3; c++)
            nz[c] = vkrr_f16_to_f32(f.noisy[4 * i + c]);
        double ln = lum(nz), lc = lum(&f.clean[4 * i]);
        if (fabs(ln - lc) > 1e-3 * (lc + 1e-3))
            differ++;
        if (ln > 4.0 * lc + 4.0)
            fireflies++;
        if (ln > lc)
            above++;
        if (lc > 0.05 && ln / lc > max_ratio)
            max_ratio = ln / lc;
        sum_noisy += ln;
        sum_clean += lc;
    }
    CHECK(differ > n * 9 / 10);
    CHECK(fireflies >= 2);            /* rare large values */
    CHECK(fireflies < n / 100);       /* ... and rare */
    CHECK(above < n / 2);             /* skewed: most samples below the mean ... */
    CHECK(max_ratio > 8.0);           /* ... a few far above it */
    /* Unbiased apart from the fireflies: the frame mean stays close. */
    CHECK(sum_noisy > 0.85 * sum_clean && sum_noisy < 1.3 * sum_clean);
    /* Each frame gets fresh noise. */
    size_t same = 0;
    for (size_t i = 0; i < n; i++)
        same += f.noisy[4 * i] == g.noisy[4 * i] && f.mask[i] && g.mask[i];
    CHECK(same < n / 10);
    vkrr_scene_frame_free(&f);
    vkrr_scene_frame_free(&g);
}

/* Pixels whose previous position (current + motion, rounded) shows the same
 * surface: same albedo and depth within 3%. */
static size_t matches(const vkrr_scene_frame *cur, const vkrr_scene_frame *prev, float sign,
                      size_t *moving_y)
{
    size_t ok = 0;
    uint32_t w = cur->width, h = cur->height;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            float mx = vkrr_f16_to_f32(cur->motion[2 * i]);
            float my = vkrr_f16_to_f32(cur->motion[2 * i + 1]);
            if (moving_y && my != 0.0f)
                (*moving_y)++;
            double px = floor(x + 0.5 + sign * mx), py = floor(y + 0.5 + sign * my);
            if (px < 0 || py < 0 || px >= w || py >= h)
                continue;
            size_t j = (size_t)py * w + (size_t)px;
            if (!memcmp(&cur->albedo[4 * i], &prev->albedo[4 * j], 4) &&
                fabsf(cur->depth[i] - prev->depth[j]) <= 0.03f * cur->depth[i])
                ok++;
        }
    return ok;
}

static void test_motion(void)
{
    vkrr_scene_frame f0 = {0}, f1 = {0};
    CHECK(render(96, 64, 5, NULL, 0, &f0));
    CHECK(render(96, 64, 5, NULL, 1, &f1));
    size_t n = 96 * 64, moving_x = 0, moving_y = 0;
    for (size_t i = 0; i < n; i++)
        moving_x += vkrr_f16_to_f32(f1.motion[2 * i]) >= 0.5f;
    CHECK(moving_x > n / 2); /* the camera pans */
    CHECK(memcmp(f0.clean, f1.clean, n * 16) != 0);
    size_t good = matches(&f1, &f0, 1.0f, &moving_y);
    size_t wrong = matches(&f1, &f0, -1.0f, NULL);
    CHECK(moving_y > 20); /* the object that moves by itself */
    CHECK(moving_y < n / 4);
    CHECK(good > n * 85 / 100);
    CHECK(good > wrong + n / 50);
    fprintf(stderr, "motion: %zu of %zu pixels found where motion says (%zu with it negated)\n",
            good, n, wrong);
    vkrr_scene_frame_free(&f0);
    vkrr_scene_frame_free(&f1);
}

int main(void)
{
    test_determinism();
    test_sizes();
    test_noise();
    test_motion();
    return test_finish("scene");
}
