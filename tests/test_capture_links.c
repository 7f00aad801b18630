/* test_capture_links: which earlier surface each texture reads
 * (capture_links.c), read straight from vkrr_capture_texture_links on small
 * captures the capture writer makes here.  The expected link of every
 * texture is written out below from how the capture was made, never from
 * vkrr's own linking:
 *   - order: two arrays of one shape, their surfaces created without the
 *     log saying which array each writes (the real bridge's log), so the
 *     reader guesses by creation order (sa -> A, sb -> B); A and B written
 *     with equal bytes, A first; a texture over A reads A's surface, the
 *     guess confirmed by the bytes, with nothing alike (B is another array);
 *     a texture over A whose bytes equal no surface reads the capture and
 *     says an earlier launch may have written it;
 *   - unknown: a texture whose creation the log lacks, beside a surface of
 *     its shape in its own launch: no earlier launch wrote it, so it reads
 *     the capture with nothing to say; one launch later the surface is
 *     earlier, and the link is unknown;
 *   - linear: a texture over pitched linear memory of a surface's shape,
 *     whose bytes equal that surface's dump: never linked to a surface (the
 *     chain feeds it from its buffer);
 *   - alike: five surfaces of one launch with equal dumps, read by a texture
 *     the log does not tie to an array: linked to the first, with the next
 *     three alike (VKRR_LINK_ALIKE_MAX) and no more. */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "capture_write.h"
#include "testutil.h"

#define W 8
#define H 4
#define N (W * H)
#define NONE UINT32_MAX
#define FMT_FLOAT 32 /* CU_AD_FORMAT_FLOAT */

static char *root;

static vkrr_image_record image(vkrr_image_kind kind, uint32_t offset, uint64_t handle,
                               const float *post)
{
    return (vkrr_image_record){.offset = offset, .kind = kind, .handle = handle, .width = W,
                               .height = H, .channels = 1, .format = FMT_FLOAT, .post = post};
}

/* A launch whose arguments are the images' handles, one 8-byte word each. */
static vkrr_status launch(vkrr_writer *w, const char *kernel, const vkrr_image_record *im,
                          uint32_t nim, vkrr_error *err)
{
    uint64_t args[8] = {0};
    for (uint32_t i = 0; i < nim; i++)
        args[im[i].offset / 8] = im[i].handle;
    return vkrr_writer_launch(w, &(vkrr_launch_record){.kernel = kernel, .grid = {1, 1, 1},
                                                       .block = {W, H, 1}, .args = args,
                                                       .args_bytes = 8 * nim, .images = im,
                                                       .nimages = nim},
                              NULL, err);
}

static vkrr_writer *open_writer(const char *name, bool surface_arrays, char *dir, size_t cap)
{
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    snprintf(dir, cap, "%s/%s", root, name);
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] ",
                                                        .log_surface_arrays = surface_arrays},
                                &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    return w;
}

/* Opens dir and computes its links; NULL (after failing a check) if either fails. */
static vkrr_texture_link **links_of(const char *dir, vkrr_capture **cap)
{
    vkrr_error err = {0};
    vkrr_texture_link **links = NULL;
    *cap = NULL;
    if (!CHECK(vkrr_capture_open(cap, dir, &err) == VKRR_OK) ||
        !CHECK(vkrr_capture_texture_links(*cap, &links, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return NULL;
    }
    return links;
}

/* One launch of the capture: its kernel and images. */
typedef struct step {
    const char *kernel;
    const vkrr_image_record *im;
    uint32_t nim;
} step;

/* Writes the launches in order, closes the writer and returns the links of
 * the capture made (NULL after failing a check). */
static vkrr_texture_link **write_and_link(vkrr_writer *w, const char *dir, const step *steps,
                                          uint32_t n, vkrr_capture **cap)
{
    vkrr_error err = {0};
    vkrr_status s = VKRR_OK;
    for (uint32_t i = 0; i < n && s == VKRR_OK; i++)
        s = launch(w, steps[i].kernel, steps[i].im, steps[i].nim, &err);
    if (!CHECK(s == VKRR_OK))
        vkrr_error_print(&err, stderr);
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
    return links_of(dir, cap);
}

static void done(vkrr_capture *cap, vkrr_texture_link **l)
{
    vkrr_capture_links_free(cap, l);
    vkrr_capture_close(cap);
}

static void check_link(const vkrr_texture_link *l, uint32_t launch, uint32_t im,
                       vkrr_link_how how, bool unknown, uint32_t nalike, int line)
{
    bool ok = l->launch == launch && l->image == im && l->how == how && l->unknown == unknown &&
              l->nalike == nalike;
    if (!test_check(ok, __FILE__, line, "link as made"))
        fprintf(stderr, "    got {%u, %u, %s, unknown %d, nalike %u}, want {%u, %u, %s, %d, %u}\n",
                l->launch, l->image, vkrr_link_how_name(l->how), l->unknown, l->nalike, launch, im,
                vkrr_link_how_name(how), unknown, nalike);
}

static void check_order(void)
{
    char dir[4200];
    vkrr_writer *w = open_writer("order", false, dir, sizeof dir);
    if (!w)
        return;
    float x[N], y[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 7) + 0.5f, y[i] = -x[i];
    uint64_t a = vkrr_writer_array_create(w, W, H, FMT_FLOAT, 1);
    uint64_t b = vkrr_writer_array_create(w, W, H, FMT_FLOAT, 1);
    uint64_t sa = vkrr_writer_surface_create(w, a, 0), sb = vkrr_writer_surface_create(w, b, 0);
    vkrr_sampler point = {.address = {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP}};
    uint64_t ta = vkrr_writer_texture_create(w, a, &point, 0); /* after both surfaces */
    vkrr_image_record wa = image(VKRR_IMAGE_SURFACE, 0, sa, x);
    vkrr_image_record wb = image(VKRR_IMAGE_SURFACE, 0, sb, x);
    vkrr_image_record rx = image(VKRR_IMAGE_TEXTURE, 0, ta, x);
    vkrr_image_record ry = image(VKRR_IMAGE_TEXTURE, 0, ta, y);
    const step steps[] = {{"links_write_a", &wa, 1}, {"links_write_b", &wb, 1},
                          {"links_read_x", &rx, 1}, {"links_read_y", &ry, 1}};
    vkrr_capture *cap;
    vkrr_texture_link **l = write_and_link(w, dir, steps, sizeof steps / sizeof steps[0], &cap);
    if (l && CHECK(cap->nlaunches == 4)) {
        /* the reader's guess, which the rest relies on */
        CHECK(cap->launches[0].images[0].link == VKRR_LINK_ORDER);
        CHECK(cap->launches[0].images[0].array == a && cap->launches[1].images[0].array == b);
        check_link(&l[2][0], 0, 0, VKRR_LINK_BYTES, false, 0, __LINE__);
        check_link(&l[3][0], NONE, NONE, VKRR_LINK_NONE, true, 0, __LINE__);
    }
    done(cap, l);
}

static void check_unknown(void)
{
    char dir[4200];
    vkrr_writer *w = open_writer("unknown", true, dir, sizeof dir);
    if (!w)
        return;
    float x[N], z[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i, z[i] = (float)(3 * i + 1);
    uint64_t sc = vkrr_writer_surface_create(w, vkrr_writer_array_create(w, W, H, FMT_FLOAT, 1), 0);
    const uint64_t lost = 0x7001; /* no cuTexObjectCreate line names it */
    vkrr_image_record first[2] = {image(VKRR_IMAGE_TEXTURE, 0, lost, z),
                                  image(VKRR_IMAGE_SURFACE, 8, sc, x)};
    vkrr_image_record again = image(VKRR_IMAGE_TEXTURE, 0, lost, z);
    const step steps[] = {{"links_both", first, 2}, {"links_read_z", &again, 1}};
    vkrr_capture *cap;
    vkrr_texture_link **l = write_and_link(w, dir, steps, sizeof steps / sizeof steps[0], &cap);
    if (l && CHECK(cap->nlaunches == 2)) {
        CHECK(cap->launches[0].images[0].kind == VKRR_IMAGE_TEXTURE &&
              cap->launches[0].images[0].array == 0);
        check_link(&l[0][0], NONE, NONE, VKRR_LINK_NONE, false, 0, __LINE__);
        check_link(&l[1][0], NONE, NONE, VKRR_LINK_NONE, true, 0, __LINE__);
    }
    done(cap, l);
}

static void check_linear(void)
{
    char dir[4200];
    vkrr_writer *w = open_writer("linear", true, dir, sizeof dir);
    if (!w)
        return;
    float x[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i * i) * 0.25f;
    const uint64_t base = 0x7f0000400000ull;
    uint64_t sc = vkrr_writer_surface_create(w, vkrr_writer_array_create(w, W, H, FMT_FLOAT, 1), 0);
    vkrr_sampler point = {.address = {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP}};
    uint64_t lin = vkrr_writer_texture_create_linear(
        w, &(vkrr_linear_desc){.resource = VKRR_TEXRES_PITCH2D, .devptr = base,
                               .format = FMT_FLOAT, .channels = 1, .width = W, .height = H,
                               .pitch = W * 4},
        &point, 0);
    vkrr_image_record ws = image(VKRR_IMAGE_SURFACE, 0, sc, x);
    vkrr_image_record rl = {.offset = 0, .kind = VKRR_IMAGE_TEXTURE, .handle = lin, .post = x,
                            .resource = VKRR_TEXRES_PITCH2D, .base = base, .delta = 0,
                            .buffer_bytes = sizeof x};
    const step steps[] = {{"links_write", &ws, 1}, {"links_read_lin", &rl, 1}};
    vkrr_capture *cap;
    vkrr_texture_link **l = write_and_link(w, dir, steps, sizeof steps / sizeof steps[0], &cap);
    if (l && CHECK(cap->nlaunches == 2)) {
        const vkrr_image *t = &cap->launches[1].images[0];
        /* of the surface's shape, so only its being linear keeps it unlinked */
        CHECK(t->resource == VKRR_TEXRES_PITCH2D && t->width == W && t->height == H &&
              t->format == FMT_FLOAT && t->channels == 1);
        check_link(&l[1][0], NONE, NONE, VKRR_LINK_NONE, false, 0, __LINE__);
    }
    done(cap, l);
}

static void check_alike(void)
{
    char dir[4200];
    vkrr_writer *w = open_writer("alike", true, dir, sizeof dir);
    if (!w)
        return;
    float x[N];
    for (int i = 0; i < N; i++)
        x[i] = 1.0f / (float)(i + 1);
    vkrr_image_record ws[5];
    for (uint32_t k = 0; k < 5; k++) {
        uint64_t arr = vkrr_writer_array_create(w, W, H, FMT_FLOAT, 1);
        ws[k] = image(VKRR_IMAGE_SURFACE, 8 * k, vkrr_writer_surface_create(w, arr, 0), x);
    }
    vkrr_image_record rx = image(VKRR_IMAGE_TEXTURE, 0, 0x7002, x); /* no creation line */
    const step steps[] = {{"links_write5", ws, 5}, {"links_read_x", &rx, 1}};
    vkrr_capture *cap;
    vkrr_texture_link **l = write_and_link(w, dir, steps, sizeof steps / sizeof steps[0], &cap);
    if (l && CHECK(cap->nlaunches == 2)) {
        check_link(&l[1][0], 0, 0, VKRR_LINK_BYTES, false, VKRR_LINK_ALIKE_MAX, __LINE__);
        for (uint32_t k = 0; k < VKRR_LINK_ALIKE_MAX; k++)
            CHECK(l[1][0].alike[k].launch == 0 && l[1][0].alike[k].image == k + 1);
    }
    done(cap, l);
}

int main(void)
{
    root = test_tmpdir("test_capture_links");
    if (!root)
        return 1;
    check_order();
    check_unknown();
    check_linear();
    check_alike();
    if (!test_failed)
        test_rmtree(root);
    free(root);
    return test_finish("test_capture_links");
}
