/* test_heatmap.c - an asymmetric 'F' of errors, drawn and read back: the
 * picture has the promised size, the hottest error pixel is where the worst
 * error was put, the F is not flipped, and the worst texel is ringed. */
#define STB_IMAGE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_image.h>
#pragma GCC diagnostic pop

#include "compare.h"
#include "heatmap.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { W = 12, H = 16 };

static const uint8_t *pix(const uint8_t *img, int w, uint32_t x, uint32_t y)
{
    return img + ((size_t)y * (size_t)w + x) * 3;
}

static bool is_rgb(const uint8_t *p, uint8_t r, uint8_t g, uint8_t b)
{
    return p[0] == r && p[1] == g && p[2] == b;
}

/* Errors of an 'F' in plane `plane` of a W x H x planes f32 view: the stem
 * x=2, y=2..13; the top bar y=2, x=2..9; the middle bar y=7, x=2..6; the
 * worst error at the top bar's tip (9, 2). */
static void make_f(float *ref, float *cand, uint32_t planes, uint32_t plane)
{
    for (uint32_t i = 0; i < W * H * planes; i++)
        ref[i] = cand[i] = (float)(i % (W * H)) * 0.01f;
    float *c = cand + (size_t)plane * W * H;
    for (int y = 2; y <= 13; y++)
        c[y * W + 2] += 1e-3f;
    for (int x = 3; x <= 9; x++)
        c[2 * W + x] += 1e-3f;
    for (int x = 3; x <= 6; x++)
        c[7 * W + x] += 1e-5f;
    c[2 * W + 9] += 0.5f;
}

static void check_picture(const char *path, const vkrr_heatmap_desc *d, uint32_t tile)
{
    vkrr_heatmap_layout l;
    vkrr_error err = {0};
    CHECK_EQ_U64(vkrr_heatmap_layout_of(d, &l, &err), VKRR_OK);
    int w = 0, h = 0, n = 0;
    uint8_t *img = stbi_load(path, &w, &h, &n, 3);
    CHECK(img != NULL);
    if (!img)
        return;
    CHECK_EQ_U64(w, l.width);
    CHECK_EQ_U64(h, l.height);

    /* the hottest error pixel: nearest to the top of the colour map */
    uint8_t top[3];
    vkrr_heatmap_color(1.0, top);
    long best = -1;
    uint32_t bx = 0, by = 0;
    for (uint32_t y = l.panel_y; y < l.panel_y + l.panel_h; y++)
        for (uint32_t x = l.panel_x[2]; x < l.panel_x[2] + l.panel_w; x++) {
            const uint8_t *p = pix(img, w, x, y);
            long dist = labs((long)p[0] - top[0]) + labs((long)p[1] - top[1]) + labs((long)p[2] - top[2]);
            if (best < 0 || dist < best) {
                best = dist;
                bx = x;
                by = y;
            }
        }
    uint32_t cx, cy;
    vkrr_heatmap_texel_pixel(&l, 2, tile, 9, 2, &cx, &cy);
    CHECK(best == 0);
    /* the hottest pixel lies in texel (9, 2) */
    CHECK(labs((long)bx - (long)cx) < (long)l.scale && labs((long)by - (long)cy) < (long)l.scale);

    /* not flipped: the stem's foot (2,13) has an error, (9,13) none; the
     * middle bar (5,7) is cooler than the stem (2,7) */
    uint32_t px, py;
    vkrr_heatmap_texel_pixel(&l, 2, tile, 2, 13, &px, &py);
    CHECK(!is_rgb(pix(img, w, px, py), 0, 0, 0));
    vkrr_heatmap_texel_pixel(&l, 2, tile, 9, 13, &px, &py);
    CHECK(is_rgb(pix(img, w, px, py), 0, 0, 0));
    vkrr_heatmap_texel_pixel(&l, 2, tile, 10, 2, &px, &py);
    CHECK(is_rgb(pix(img, w, px, py), 0, 0, 0) || is_rgb(pix(img, w, px, py), 255, 0, 0));
    uint32_t sx, sy, mx, my;
    vkrr_heatmap_texel_pixel(&l, 2, tile, 2, 7, &sx, &sy);
    vkrr_heatmap_texel_pixel(&l, 2, tile, 5, 7, &mx, &my);
    const uint8_t *ps = pix(img, w, sx, sy), *pm = pix(img, w, mx, my);
    CHECK(ps[0] + ps[1] + ps[2] > pm[0] + pm[1] + pm[2]); /* viridis brightens with error */

    /* the ring around the worst texel, in all three panels */
    for (unsigned p = 0; p < 3; p++) {
        vkrr_heatmap_texel_pixel(&l, p, tile, 9, 2, &cx, &cy);
        CHECK(is_rgb(pix(img, w, cx - l.ring_r, cy), 255, 0, 0));
        CHECK(is_rgb(pix(img, w, cx, cy + l.ring_r), 255, 0, 0));
        CHECK(!is_rgb(pix(img, w, cx, cy), 255, 0, 0)); /* the texel itself stays visible */
    }
    /* reference panel is grey, darkest at texel (0,0) of its plane */
    vkrr_heatmap_texel_pixel(&l, 0, tile, 0, 0, &px, &py);
    const uint8_t *p0 = pix(img, w, px, py);
    CHECK(p0[0] == p0[1] && p0[1] == p0[2] && p0[0] == 0);
    vkrr_heatmap_texel_pixel(&l, 0, tile, W - 1, H - 1, &px, &py);
    CHECK(pix(img, w, px, py)[0] == 255);
    /* the colour bar: top is the map's top, bottom its bottom */
    uint8_t bot[3];
    vkrr_heatmap_color(0.0, bot);
    CHECK(is_rgb(pix(img, w, l.bar_x + 2, l.bar_y), top[0], top[1], top[2]));
    CHECK(is_rgb(pix(img, w, l.bar_x + 2, l.bar_y + l.bar_h - 1), bot[0], bot[1], bot[2]));
    /* some label text was drawn right of the bar */
    unsigned lit = 0;
    for (uint32_t y = l.bar_y; y < l.bar_y + 24; y++)
        for (uint32_t x = l.bar_x + l.bar_w + 2; x < l.width; x++)
            lit += is_rgb(pix(img, w, x, y), 230, 230, 230);
    CHECK(lit > 10);
    stbi_image_free(img);
}

int main(void)
{
    char *dir = test_tmpdir("heatmap");
    char path[1024];
    vkrr_error err = {0};

    /* the colour map: dark purple to yellow, brightening */
    uint8_t a[3], b[3];
    vkrr_heatmap_color(0, a);
    vkrr_heatmap_color(1, b);
    CHECK(a[0] == 68 && a[1] == 1 && a[2] == 84);
    CHECK(b[0] == 253 && b[1] == 231 && b[2] == 37);
    unsigned nonmono = 0;
    for (int i = 1; i < 256; i++) {
        uint8_t p[3], q[3];
        vkrr_heatmap_color((i - 1) / 255.0, p);
        vkrr_heatmap_color(i / 255.0, q);
        nonmono += (q[1] < p[1]); /* green rises all the way in viridis */
    }
    CHECK_EQ_U64(nonmono, 0);

    /* one plane */
    {
        float ref[W * H], cand[W * H], e[W * H];
        make_f(ref, cand, 1, 0);
        vkrr_view v = {.dtype = VKRR_DT_F32, .width = W, .height = H, .planes = 1, .channels = 1};
        CHECK_EQ_U64(vkrr_compare_error_map(&v, ref, cand, sizeof ref, e, &err), VKRR_OK);
        CHECK(vkrr_heatmap_path(path, sizeof path, dir, 42, "swin<enc>0", 16, -1));
        CHECK(strstr(path, "/heat-000042-swin_enc_0-arg016.png") != NULL);
        vkrr_heatmap_desc d = {.path = path, .view = v, .ref = ref, .cand = cand, .err = e,
                               .title = "launch 42 swin_enc0 arg 16"};
        CHECK_EQ_U64(vkrr_heatmap_write(&d, &err), VKRR_OK);
        check_picture(path, &d, 0);
        char tmp[1100];
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
        CHECK(access(tmp, F_OK) != 0); /* no temporary left behind */
    }

    /* three planes as a grid, the F in plane 2 */
    {
        enum { P = 3 };
        float *ref = malloc(sizeof(float) * W * H * P), *cand = malloc(sizeof(float) * W * H * P);
        float *e = malloc(sizeof(float) * W * H * P);
        make_f(ref, cand, P, 2);
        vkrr_view v = {.dtype = VKRR_DT_F32, .width = W, .height = H, .planes = P, .channels = 1};
        CHECK_EQ_U64(vkrr_compare_error_map(&v, ref, cand, sizeof(float) * W * H * P, e, &err), VKRR_OK);
        CHECK(vkrr_heatmap_path(path, sizeof path, dir, 7, "k", 8, -1));
        vkrr_heatmap_desc d = {.path = path, .view = v, .ref = ref, .cand = cand, .err = e,
                               .grid = true};
        vkrr_heatmap_layout l;
        CHECK_EQ_U64(vkrr_heatmap_layout_of(&d, &l, &err), VKRR_OK);
        CHECK_EQ_U64(l.cols, 2);
        CHECK_EQ_U64(l.rows, 2);
        CHECK_EQ_U64(vkrr_heatmap_write(&d, &err), VKRR_OK);
        check_picture(path, &d, 2);
        /* one plane of it */
        CHECK(vkrr_heatmap_path(path, sizeof path, dir, 7, "k", 8, 2));
        CHECK(strstr(path, "-arg008-p2.png") != NULL);
        d.grid = false;
        d.plane = 2;
        CHECK_EQ_U64(vkrr_heatmap_write(&d, &err), VKRR_OK);
        check_picture(path, &d, 0);
        d.plane = 3;
        CHECK_EQ_U64(vkrr_heatmap_write(&d, &err), VKRR_ERR_RANGE);
        free(ref);
        free(cand);
        free(e);
    }

    /* readable at any shape: plane tiles numbered, captions spaced by their
     * width on a thin panel, the title never cut */
    {
        enum { TW = 8, TH = 300, TP = 2 };
        float *z = calloc((size_t)TW * TH * TP, sizeof(float));
        char title[160];
        memset(title, 'k', 150);
        title[150] = 0;
        vkrr_heatmap_desc d = {.path = path, .grid = true, .title = title, .ref = z, .cand = z, .err = z,
                               .view = {.dtype = VKRR_DT_F32, .width = TW, .height = TH, .planes = TP,
                                        .channels = 1}};
        vkrr_heatmap_layout l;
        CHECK_EQ_U64(vkrr_heatmap_layout_of(&d, &l, &err), VKRR_OK);
        CHECK(l.label_h >= 8);                          /* a strip for "p0", "p1" */
        CHECK(l.panel_x[1] - l.panel_x[0] >= 13 * 8);   /* "|error| log10" at scale 2, */
        CHECK(l.panel_x[2] - l.panel_x[1] >= 13 * 8);   /* not the 8-pixel panel */
        CHECK(l.width >= 150 * 12);                     /* the whole title */
        CHECK(vkrr_heatmap_path(path, sizeof path, dir, 9, "thin", 0, -1));
        CHECK(!vkrr_heatmap_is_table(&d.view));
        CHECK_EQ_U64(vkrr_heatmap_write(&d, &err), VKRR_OK);
        int w = 0, h = 0, n = 0;
        uint8_t *img = stbi_load(path, &w, &h, &n, 3);
        if (CHECK(img && (uint32_t)w == l.width)) {
            /* text in the label strip above plane 1's tile of the error panel */
            uint32_t lit = 0, x0 = l.panel_x[2] + l.tile_w + l.gap, y0 = l.panel_y;
            for (uint32_t y = y0; y < y0 + l.label_h; y++)
                for (uint32_t x = x0; x < x0 + 20; x++)
                    lit += is_rgb(pix(img, w, x, y), 230, 230, 230);
            CHECK(lit > 5);
        }
        stbi_image_free(img);
        free(z);
    }

    /* too small or thin for a picture: a table of every value */
    {
        float ref[40], cand[40], e[40];
        for (int i = 0; i < 40; i++)
            ref[i] = (float)i, cand[i] = (float)i + (i == 7 ? 0.5f : 0), e[i] = i == 7 ? 0.5f : 0;
        e[3] = INFINITY;
        vkrr_heatmap_desc d = {.path = path, .ref = ref, .cand = cand, .err = e, .title = "tiny",
                               .view = {.dtype = VKRR_DT_F32, .width = 40, .height = 1, .planes = 1,
                                        .channels = 1}};
        CHECK(vkrr_heatmap_is_table(&d.view));
        CHECK(vkrr_heatmap_path(path, sizeof path, dir, 10, "tiny", 8, -1));
        vkrr_heatmap_table_path(path);
        CHECK(strstr(path, "-arg008.tsv") != NULL);
        CHECK_EQ_U64(vkrr_heatmap_write(&d, &err), VKRR_OK);
        char *t = test_read_file(path, NULL);
        unsigned lines = 0;
        for (const char *p = t; p && *p; p++)
            lines += *p == '\n';
        CHECK(t && lines == 3 + 1 + 40 && strstr(t, "# tiny\n") &&
              strstr(t, ": 40 elements, 2 differ (1 NaN/Inf") &&
              strstr(t, "\n7\t7\t0\t0\t0\t7\t7.5\t0.5\n") && strstr(t, "\t3\t3\tinf\n"));
        free(t);
        vkrr_view sq = {.width = 7, .height = 9, .planes = 1, .channels = 1};
        CHECK(vkrr_heatmap_is_table(&sq)); /* 63 texels */
        sq.width = 8;
        CHECK(!vkrr_heatmap_is_table(&sq) && !vkrr_heatmap_wraps(&sq));
        sq = (vkrr_view){.width = 100, .height = 1, .planes = 1, .channels = 4};
        CHECK(!vkrr_heatmap_is_table(&sq) && vkrr_heatmap_wraps(&sq)); /* a row */
        CHECK_EQ_U64(vkrr_heatmap_wrap_width(&sq), 10);
    }

    /* a long buffer (no 2-D shape): a picture of its elements wrapped into
     * rows, and beside it a table of the worst 256 and the counts, however
     * long it is; every value only when asked */
    {
        enum { N = 1000003 }; /* prime: the last row is part padding */
        float *ref = calloc(N, sizeof(float)), *cand = calloc(N, sizeof(float)),
              *e = calloc(N, sizeof(float));
        if (!CHECK(ref && cand && e))
            return test_finish("heatmap");
        for (uint32_t i = 0; i < N; i++) {
            ref[i] = (float)(i % 1000);
            cand[i] = ref[i];
            if (i % 997 == 0) { /* 1004 differ, by 1 + i/997 % 500 */
                cand[i] += (float)(1 + i / 997 % 500);
                e[i] = cand[i] - ref[i];
            }
        }
        cand[5 * 997] = NAN, e[5 * 997] = INFINITY; /* a mismatch: the worst */
        vkrr_heatmap_desc d = {.path = path, .ref = ref, .cand = cand, .err = e, .title = "long",
                               .view = {.dtype = VKRR_DT_F32, .width = N, .height = 1,
                                        .planes = 1, .channels = 1}};
        CHECK(vkrr_heatmap_wraps(&d.view));
        CHECK_EQ_U64(vkrr_heatmap_wrap_width(&d.view), 1001); /* ceil(sqrt(1000003)) */
        CHECK(vkrr_heatmap_path(path, sizeof path, dir, 11, "long", 0, -1));
        CHECK_EQ_U64(vkrr_heatmap_write(&d, &err), VKRR_OK);
        int w = 0, h = 0, n = 0;
        uint8_t *img = stbi_load(path, &w, &h, &n, 3);
        struct stat sb;
        CHECK(img && w < 2400 && h < 600 && stat(path, &sb) == 0 && sb.st_size < (1 << 20));
        stbi_image_free(img);
        char tsv[1200];
        snprintf(tsv, sizeof tsv, "%s", path);
        vkrr_heatmap_table_path(tsv);
        size_t len = 0;
        char *t = test_read_file(tsv, &len);
        unsigned lines = 0;
        for (const char *p = t; p && *p; p++)
            lines += *p == '\n';
        /* title, counts, what follows, the header, 256 rows: worst first (the
         * mismatch, then errors 500, 499, ... each twice: i/997 % 500 repeats) */
        CHECK(t && lines == 4 + 256 && len < 64 * 1024);
        CHECK(t && strstr(t, ": 1000003 elements, 1004 differ (1 NaN/Inf"));
        CHECK(t && strstr(t, "# the worst 256 of the 1004 that differ"));
        CHECK(t && strstr(t, "error\n4985\t4985\t0\t0\t0\t985\tnan\tinf\n"
                             "497503\t497503\t0\t0\t0\t503\t1003\t500\n"));
        free(t);
        d.all_values = true;
        CHECK_EQ_U64(vkrr_heatmap_write(&d, &err), VKRR_OK);
        t = test_read_file(tsv, &len);
        lines = 0;
        for (const char *p = t; p && *p; p++)
            lines += *p == '\n';
        CHECK(t && lines == 4 + N && strstr(t, "# every value, in index order (--dump-values)"));
        free(t);
        free(ref), free(cand), free(e);
    }

    /* the folder is made by the first heatmap written into it; a place
     * that cannot be a folder (under a file) is an error */
    {
        float z[4] = {0};
        char fresh[1200], blocked[1200];
        snprintf(fresh, sizeof fresh, "%s/made/on/demand/x.png", dir);
        vkrr_heatmap_desc d = {.path = fresh,
                               .view = {.width = 2, .height = 2, .planes = 1, .channels = 1},
                               .ref = z, .cand = z, .err = z};
        CHECK_EQ_U64(vkrr_heatmap_write(&d, &err), VKRR_OK);
        CHECK(access(fresh, R_OK) == 0);
        snprintf(blocked, sizeof blocked, "%s/made/on/demand/x.png/y.png", dir);
        d.path = blocked;
        CHECK_EQ_U64(vkrr_heatmap_write(&d, &err), VKRR_ERR_IO);
        CHECK(!vkrr_heatmap_path(path, 20, dir, 1, "k", 0, -1));
    }

    if (!test_failed)
        test_rmtree(dir);
    free(dir);
    return test_finish("heatmap");
}
