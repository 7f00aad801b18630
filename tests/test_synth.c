/* test_synth: `vkrr synth` as a library call.  The denoised frames must be
 * closer to the clean image than the noisy input (measured twice: by synth's
 * own statistics and, independently, from the preview PNGs it wrote), the
 * output directory appears whole or not at all, and an existing capture is
 * only replaced with force. */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "synth.h"
#include "testutil.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
#pragma GCC diagnostic pop

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* RMSE between two 8-bit RGB PNGs (the tone-mapped previews); -1 on error. */
static double png_rmse(const char *a, const char *b)
{
    int wa, ha, ca, wb, hb, cb;
    unsigned char *pa = stbi_load(a, &wa, &ha, &ca, 3), *pb = stbi_load(b, &wb, &hb, &cb, 3);
    double r = -1;
    if (pa && pb && wa == wb && ha == hb) {
        double s = 0;
        size_t n = (size_t)wa * ha * 3;
        for (size_t i = 0; i < n; i++)
            s += ((double)pa[i] - pb[i]) * ((double)pa[i] - pb[i]);
        r = sqrt(s / (double)n);
    }
    stbi_image_free(pa);
    stbi_image_free(pb);
    return r;
}

static void test_denoising_helps(const char *root, uint32_t w, uint32_t h, const char *scene)
{
    char dir[4096], a[4200], b[4200], c[4200];
    snprintf(dir, sizeof dir, "%s/cap-%ux%u-%s", root, w, h, scene);
    vkrr_error err = {0};
    vkrr_synth_stats s = {0};
    vkrr_status st = vkrr_synth_run(
        &(vkrr_synth_desc){.dir = dir, .width = w, .height = h, .frames = 3, .scene = scene}, &s,
        &err);
    if (st != VKRR_OK)
        vkrr_error_print(&err, stderr);
    CHECK(st == VKRR_OK);
    CHECK_EQ_U64(s.frames, 3);
    CHECK_EQ_U64(s.launches, 3 * 12); /* 12 a frame: docs/rrref.md */
    fprintf(stderr, "%ux%u %s: RMSE noisy %.4f denoised %.4f; tone-mapped %.4f / %.4f\n", w, h,
            scene, s.rmse_noisy, s.rmse_denoised, s.rmse_noisy_tm, s.rmse_denoised_tm);
    CHECK(s.rmse_noisy > 0.0);
    CHECK(s.rmse_denoised < s.rmse_noisy);
    CHECK(s.rmse_denoised_tm < s.rmse_noisy_tm);

    /* The same from the files: the previews, decoded. */
    for (unsigned k = 0; k < 3; k++) {
        snprintf(a, sizeof a, "%s/preview/frame-%u-clean.png", dir, k);
        snprintf(b, sizeof b, "%s/preview/frame-%u-noisy.png", dir, k);
        snprintf(c, sizeof c, "%s/preview/frame-%u-denoised.png", dir, k);
        double rn = png_rmse(a, b), rd = png_rmse(a, c);
        fprintf(stderr, "  frame %u preview RMSE (8-bit): noisy %.2f denoised %.2f\n", k, rn, rd);
        CHECK(rn > 0.0);
        CHECK(rd >= 0.0 && rd < rn);
    }
}

static void test_directory_rules(const char *root)
{
    char dir[4096], f[4200];
    vkrr_error err = {0};
    snprintf(dir, sizeof dir, "%s/rules", root);
    vkrr_synth_desc d = {.dir = dir, .width = 9, .height = 7, .frames = 1};
    /* An empty directory is fine to write into. */
    CHECK(mkdir(dir, 0777) == 0);
    CHECK(vkrr_synth_run(&d, NULL, &err) == VKRR_OK);
    snprintf(f, sizeof f, "%s/preview/frame-0-denoised.png", dir);
    CHECK(exists(f));
    /* A full one is refused without force, and left alone. */
    snprintf(f, sizeof f, "%s/keep-me", dir);
    CHECK(test_write_file(f, "x", 1));
    CHECK(vkrr_synth_run(&d, NULL, &err) == VKRR_ERR_USAGE);
    CHECK(strstr(err.msg, "--force") != NULL);
    CHECK(exists(f));
    /* With force it is replaced. */
    d.force = true;
    CHECK(vkrr_synth_run(&d, NULL, &err) == VKRR_OK);
    CHECK(!exists(f));
    snprintf(f, sizeof f, "%s/preview/frame-0-clean.png", dir);
    CHECK(exists(f));
    /* Cancelled before the first frame: nothing at dir, no temporary left. */
    volatile sig_atomic_t stop = 1;
    snprintf(dir, sizeof dir, "%s/cancelled", root);
    d.dir = dir;
    d.cancel = &stop;
    CHECK(vkrr_synth_run(&d, NULL, &err) != VKRR_OK);
    CHECK(!exists(dir));
    /* Bad arguments. */
    d.cancel = NULL;
    d.scene = "nope";
    CHECK(vkrr_synth_run(&d, NULL, &err) == VKRR_ERR_USAGE);
    d.scene = NULL;
    d.frames = VKRR_SYNTH_MAX_FRAMES + 1;
    CHECK(vkrr_synth_run(&d, NULL, &err) == VKRR_ERR_RANGE);
    CHECK(!exists(dir));
    /* Nothing but our directories under root: no .tmp-PID or .old-PID left. */
    DIR *dd = opendir(root);
    unsigned stray = 0;
    struct dirent *e;
    while (dd && (e = readdir(dd)))
        stray += strstr(e->d_name, ".tmp-") != NULL || strstr(e->d_name, ".old-") != NULL;
    if (dd)
        closedir(dd);
    CHECK_EQ_U64(stray, 0);
}

int main(void)
{
    char *root = test_tmpdir("synth");
    CHECK(root != NULL);
    if (!root)
        return test_finish("synth");
    test_denoising_helps(root, 64, 48, "default");
    test_denoising_helps(root, 37, 23, "default");
    test_denoising_helps(root, 64, 48, "stripes");
    test_directory_rules(root);
    int rc = test_finish("synth");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
