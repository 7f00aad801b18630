/* test_rrref.c - one rrref frame on the CPU backend: finite, a weighted
 * average of its inputs, deterministic; recorded into a capture that reads
 * back with the right launches. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "capture_write.h"
#include "cpu_backend.h"
#include "cuformat.h"
#include "rrref.h"
#include "portdesc.h"
#include "rrref_host.h"
#include "testutil.h"

/* A hand-made scene: an asymmetric colour ramp with a bright dot and an
 * edge, no motion (so the history sample is the pixel itself). */
static void make_scene(vkrr_scene_frame *f, uint32_t w, uint32_t h)
{
    size_t n = (size_t)w * h;
    f->width = w, f->height = h;
    f->noisy = calloc(n * 4, 2);
    f->depth = calloc(n, 4);
    f->motion = calloc(n * 2, 2);
    f->albedo = calloc(n * 4, 1);
    f->normal = calloc(n * 4, 1);
    f->mask = calloc(n, 1);
    f->clean = calloc(n * 4, 4);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            float r = (float)x / (float)w, g = x < w / 3 ? 0.1f : 0.8f, b = (float)((x * 7 + y * 3) % 11) / 10.0f;
            if (x == 5 && y == 4)
                r = g = b = 40.0f;
            f->noisy[4 * i + 0] = vkrr_f32_to_f16_rne(r);
            f->noisy[4 * i + 1] = vkrr_f32_to_f16_rne(g);
            f->noisy[4 * i + 2] = vkrr_f32_to_f16_rne(b);
            f->noisy[4 * i + 3] = vkrr_f32_to_f16_rne(1.0f);
            f->depth[i] = 1.0f + (float)y;
            f->albedo[4 * i] = (uint8_t)(x * 5), f->albedo[4 * i + 1] = 128, f->albedo[4 * i + 2] = (uint8_t)(y * 9);
            f->normal[4 * i] = 0, f->normal[4 * i + 1] = -20, f->normal[4 * i + 2] = 127;
            f->mask[i] = x + y > 6 ? 255 : 0;
        }
}

static void check_frame(const vkrr_backend *cpu, uint32_t w, uint32_t h)
{
    vkrr_scene_frame sc = {0};
    vkrr_error err = {0};
    rrref_net *a = NULL, *b = NULL;
    size_t n = (size_t)w * h;
    uint16_t *out1 = calloc(n * 4, 2), *out2 = calloc(n * 4, 2), *out3 = calloc(n * 4, 2);
    make_scene(&sc, w, h);
    CHECK(rrref_net_create(&a, &(rrref_net_desc){.width = w, .height = h, .seed = 7}, &err) == VKRR_OK);
    CHECK(rrref_net_create(&b, &(rrref_net_desc){.width = w, .height = h, .seed = 7}, &err) == VKRR_OK);
    if (!a || !b)
        goto done;
    CHECK(rrref_net_run_frame(a, cpu, &sc, NULL, out1, &err) == VKRR_OK);
    CHECK(rrref_net_run_frame(b, cpu, &sc, NULL, out2, &err) == VKRR_OK);
    CHECK(memcmp(out1, out2, n * 8) == 0);
    unsigned bad_finite = 0, bad_range = 0, not_identity = 0;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                float v = vkrr_f16_to_f32(out1[4 * ((size_t)y * w + x) + c]);
                float lo = INFINITY, hi = -INFINITY;
                for (int dy = -2; dy <= 2; dy++)
                    for (int dx = -2; dx <= 2; dx++) {
                        int sx = (int)x + dx, sy = (int)y + dy;
                        sx = sx < 0 ? 0 : sx >= (int)w ? (int)w - 1 : sx;
                        sy = sy < 0 ? 0 : sy >= (int)h ? (int)h - 1 : sy;
                        float s = vkrr_f16_to_f32(sc.noisy[4 * ((size_t)sy * w + sx) + c]);
                        lo = fminf(lo, s), hi = fmaxf(hi, s);
                    }
                float tol = fmaxf(fabsf(lo), fabsf(hi)) * 0.001f;
                if (!isfinite(v))
                    bad_finite++;
                else if (v < lo - tol || v > hi + tol)
                    bad_range++;
                if (out1[4 * ((size_t)y * w + x) + c] != sc.noisy[4 * ((size_t)y * w + x) + c])
                    not_identity++;
            }
    CHECK_EQ_U64(bad_finite, 0);
    CHECK_EQ_U64(bad_range, 0);
    CHECK(not_identity > n); /* it filtered: most values changed */
    CHECK_EQ_U64(out1[3], 0x3c00); /* alpha 1.0 */
    /* a second frame uses the history: differs from the first, still deterministic */
    CHECK(rrref_net_run_frame(a, cpu, &sc, NULL, out3, &err) == VKRR_OK);
    CHECK(rrref_net_run_frame(b, cpu, &sc, NULL, out2, &err) == VKRR_OK);
    CHECK(memcmp(out3, out2, n * 8) == 0);
    CHECK(memcmp(out3, out1, n * 8) != 0);
    /* a scene of the wrong size is refused */
    sc.width = w + 1;
    CHECK(rrref_net_run_frame(a, cpu, &sc, NULL, out3, &err) == VKRR_ERR_INCONSISTENT);
    sc.width = w;
done:
    rrref_net_destroy(a);
    rrref_net_destroy(b);
    vkrr_scene_frame_free(&sc);
    free(out1), free(out2), free(out3);
}

/* rrref's outputs come from its built-in port descriptors (shaders/KERNEL.port):
 * a launch with the enc1 and down parameter blocks gets the windows the
 * kernels write; a block too short for a word the descriptor reads is an
 * error naming the descriptor, its line and the field. */
static void check_describe(void)
{
    rrref_conv_params p = {0, 0, 0, 19, 12, 19, 12, 0};
    vkrr_alloc al = {.base = 0x1000, .size = 1 << 20};
    vkrr_pointer ptr[2] = {{0, 0, 64}, {16, 0, 4096}};
    vkrr_launch l = {.sequence = 7, .kernel = "cuda_dldn_rrref_enc1_kernel", .args_bytes = sizeof p,
                     .args = (uint8_t *)&p, .allocs = &al, .nallocs = 1, .pointers = ptr, .npointers = 2};
    vkrr_portdesc_set *ps = NULL;
    vkrr_error err = {0};
    vkrr_port_output o[VKRR_PORT_MAX_OUTPUTS];
    uint32_t n = 0;
    CHECK(vkrr_portdesc_set_create(&ps, NULL, &err) == VKRR_OK);
    CHECK(vkrr_portdesc_set_outputs(ps, &l, o, VKRR_PORT_MAX_OUTPUTS, &n, &err) == VKRR_OK);
    CHECK_EQ_U64(n, 1);
    CHECK(n == 1 && o[0].arg == 16 && !o[0].surface && o[0].index == 0);
    CHECK(o[0].view.dtype == VKRR_DT_F16 && o[0].view.width == 19 && o[0].view.height == 12 &&
          o[0].view.planes == RRREF_C_E1 && o[0].view.offset == 4096);
    l.args_bytes = 8;
    CHECK(vkrr_portdesc_set_outputs(ps, &l, o, VKRR_PORT_MAX_OUTPUTS, &n, &err) == VKRR_ERR_RANGE);
    CHECK(strstr(err.file, "cuda_dldn_rrref_enc1_kernel.port") && err.line > 0);
    rrref_down_params d = {0, 0, 19, 12, 37, 23};
    vkrr_pointer dptr[2] = {{0, 0, 64}, {8, 0, 256}};
    l = (vkrr_launch){.sequence = 8, .kernel = "cuda_dldn_rrref_down_kernel", .args_bytes = sizeof d,
                      .args = (uint8_t *)&d, .allocs = &al, .nallocs = 1, .pointers = dptr, .npointers = 2};
    CHECK(vkrr_portdesc_set_outputs(ps, &l, o, VKRR_PORT_MAX_OUTPUTS, &n, &err) == VKRR_OK);
    CHECK(n == 1 && o[0].arg == 8 && o[0].view.dtype == VKRR_DT_E4M3 &&
          o[0].view.planes == RRREF_C_E0 && vkrr_view_bytes(&o[0].view) == 19u * 12 * 8);
    /* every rrref kernel has a descriptor */
    for (const char *const *k = rrref_kernel_names(); *k; k++) {
        const vkrr_portdesc *pd = NULL;
        CHECK(vkrr_portdesc_set_get(ps, *k, &pd, &err) == VKRR_OK && pd != NULL);
    }
    vkrr_portdesc_set_destroy(ps);
}

/* Frame 0's attention block as docs/rrref.md lays it out: tok0, attn0
 * twice (enc2's launch shape, its own weight image each), untok0 and dec0
 * reading untok0's window; each texture of the block over the array the
 * launch before wrote through a surface. */
static void check_attention_block(const vkrr_capture *cap)
{
    static const char *const order[] = {"tok0", "attn0", "attn0", "untok0", "dec0"};
    const vkrr_launch *l[5];
    for (int i = 0; i < 5; i++) {
        l[i] = &cap->launches[6 + i]; /* after expo0 expo1 input enc0 down enc1 */
        char name[64];
        snprintf(name, sizeof name, "cuda_dldn_rrref_%s_kernel", order[i]);
        CHECK_STR(l[i]->kernel, name);
    }
    const uint32_t tw = 11 * 8, th = 7; /* 21 x 13: half res 11 x 7, 8 texels a token */
    CHECK(l[0]->nimages == 1 && l[0]->images[0].kind == VKRR_IMAGE_SURFACE &&
          l[0]->images[0].width == tw && l[0]->images[0].height == th);
    for (int a = 1; a <= 2; a++) {
        const vkrr_launch *x = l[a];
        CHECK(x->block[0] == 32 && x->block[1] == 1 && x->block[2] == 4 &&
              x->shared_bytes == RRREF_ATTN_SHARED && x->args_bytes == 144);
        CHECK(x->grid[0] == 1 && x->grid[1] == 1); /* 2 x 2 windows of 8 x 4 */
        CHECK(x->npointers == 1 && x->pointers[0].offset == 40 &&
              x->pointers[0].delta == (a == 1 ? RRREF_W_ATTN0 : RRREF_W_ATTN1));
        if (!CHECK(x->nimages == 3))
            continue;
        CHECK(x->images[0].kind == VKRR_IMAGE_TEXTURE && x->images[0].sampler.filter == VKRR_FILTER_LINEAR &&
              x->images[0].sampler.normalized);
        /* the first reads tok0's surface, the second the first's out (arg 8) */
        const vkrr_image *from = a == 1 ? &l[0]->images[0] : &l[1]->images[1];
        CHECK(x->images[0].array && x->images[0].array == from->array);
    }
    CHECK(l[3]->nimages == 1 && l[3]->images[0].sampler.filter == VKRR_FILTER_POINT &&
          l[2]->nimages == 3 && l[3]->images[0].array == l[2]->images[1].array);
    CHECK(l[3]->npointers == 1 && l[4]->npointers == 4 &&
          l[4]->pointers[0].delta == l[3]->pointers[0].delta);
}

static void check_capture(const vkrr_backend *cpu)
{
    char *dir = test_tmpdir("rrref");
    char cap_dir[1024];
    vkrr_scene_frame sc = {0};
    vkrr_error err = {0};
    rrref_net *net = NULL;
    vkrr_writer *w = NULL;
    vkrr_capture *cap = NULL;
    snprintf(cap_dir, sizeof cap_dir, "%s/cap", dir);
    make_scene(&sc, 21, 13);
    CHECK(rrref_net_create(&net, &(rrref_net_desc){.width = 21, .height = 13, .seed = 3}, &err) == VKRR_OK);
    CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = cap_dir, .log_prefix = "[d4r nvcuda] "}, &err) == VKRR_OK);
    for (int k = 0; k < 2 && net && w; k++)
        CHECK(rrref_net_run_frame(net, cpu, &sc, w, NULL, &err) == VKRR_OK);
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
    CHECK(vkrr_capture_open(&cap, cap_dir, &err) == VKRR_OK);
    if (cap) {
        CHECK_EQ_U64(cap->nlaunches, 24); /* 12 a frame: docs/rrref.md */
        CHECK_EQ_U64(cap->nframes, 2);
        const vkrr_launch *o0 = vkrr_capture_find(cap, "cuda_dldn_rrref_output_kernel", 0);
        const vkrr_launch *o1 = vkrr_capture_find(cap, "cuda_dldn_rrref_output_kernel", 1);
        CHECK(o0 && o1);
        if (o0 && o1 && o0->nimages == 5 && o1->nimages == 5) {
            CHECK(o0->images[2].handle == o1->images[2].handle); /* history re-created, same handle */
            CHECK(o0->images[2].sampler.filter == VKRR_FILTER_LINEAR);
            CHECK(o0->images[4].handle != o1->images[4].handle); /* ping-pong history surfaces */
        }
        const vkrr_launch *e0 = vkrr_capture_find(cap, "cuda_dldn_rrref_enc0_kernel", 0);
        CHECK(e0 && e0->npointers == 3 && e0->pointers[2].offset == 40 && e0->pointers[2].delta == RRREF_W_ENC0);
        CHECK(e0 && e0->pointers[0].delta != 0);
        check_attention_block(cap);
    } else {
        vkrr_error_print(&err, stderr);
    }
    vkrr_capture_close(cap);
    rrref_net_destroy(net);
    vkrr_scene_frame_free(&sc);
    if (!test_failed)
        test_rmtree(dir);
    free(dir);
}

int main(void)
{
    vkrr_backend cpu;
    vkrr_error err = {0};
    CHECK(vkrr_cpu_backend_create(&cpu, &err) == VKRR_OK);
    CHECK_STR(cpu.name, "cpu");
    CHECK(cpu.has_kernel(cpu.self, "cuda_dldn_rrref_output_kernel"));
    CHECK(!cpu.has_kernel(cpu.self, "cuda_dldn_engine_swin_enc0_kernel"));
    for (const char *const *k = rrref_kernel_names(); *k; k++)
        CHECK(cpu.has_kernel(cpu.self, *k));
    check_frame(&cpu, 37, 23);
    check_frame(&cpu, 64, 48);
    check_describe();
    check_capture(&cpu);
    cpu.destroy(cpu.self);
    return test_finish("rrref");
}
