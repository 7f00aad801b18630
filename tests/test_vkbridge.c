/* test_vkbridge.c - the Vulkan backend on lavapipe (or any device), with the
 * Khronos validation layer on: every test also fails on any validation message.
 *
 * Test ports live in shaders/test/ (vkrr_test_NAME_kernel.comp).  The timeout
 * test runs alone, `test_vkbridge timeout` (ctest test_vkbridge_timeout). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend_vk.h"
#include "cuformat.h"
#include "ports.h"
#include "testutil.h"
#include "vkload.h"

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static unsigned messages(vkrr_backend *be)
{
    vkrr_backend_stats s;
    be->stats(be->self, &s);
    return s.validation_messages;
}

static void run_ok(vkrr_backend *be, vkrr_replay *r)
{
    vkrr_error err = {0};
    vkrr_status st = be->run(be->self, r, &err);
    if (st != VKRR_OK)
        vkrr_error_print(&err, stderr);
    CHECK(st == VKRR_OK);
}

/* A pointer 32 bytes into an arena, and a destination with untouched tail. */
static void test_copy(vkrr_backend *be, const char *kernel, uint32_t blockx, uint32_t gridx)
{
    float arena[64], dst_pre[20], dst_post[20], arena_post[64];
    for (int i = 0; i < 64; i++)
        arena[i] = (float)i * 0.5f - 3.0f;
    for (int i = 0; i < 20; i++)
        dst_pre[i] = -7.25f;
    uint8_t args[24];
    put64(args, 0x7f0000001000ull + 32); /* captured values: replaced */
    put64(args + 8, 0x7f0000009000ull);
    put32(args + 16, 16);
    float scale = 2.0f;
    memcpy(args + 20, &scale, 4);
    vkrr_replay_alloc allocs[2] = {
        {0x7f0000001000ull, sizeof arena, arena, arena_post, NULL},
        {0x7f0000009000ull, sizeof dst_pre, dst_pre, dst_post, NULL},
    };
    vkrr_pointer ptrs[2] = {{0, 0, 32}, {8, 1, 0}};
    vkrr_replay r = {.kernel = kernel, .grid = {gridx, 1, 1}, .block = {blockx, 1, 1},
                     .args = args, .args_bytes = sizeof args, .allocs = allocs, .nallocs = 2,
                     .pointers = ptrs, .npointers = 2};
    run_ok(be, &r);
    bool ok = true;
    for (int i = 0; i < 16; i++)
        ok = ok && dst_post[i] == arena[8 + i] * 2.0f;
    CHECK(ok);
    CHECK(dst_post[16] == -7.25f && dst_post[19] == -7.25f); /* past n: untouched */
    CHECK(!memcmp(arena, arena_post, sizeof arena));
}

static uint16_t f16(float f) { return vkrr_f32_to_f16_rne(f); }

static void test_textures(vkrr_backend *be)
{
    enum { W = 3, H = 2 };
    uint16_t half4[H][W][4];
    float flt[H][W];
    uint8_t unorm[H][W][4];
    int8_t snorm[H][W][4];
    uint32_t u32x2[H][W][2];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            flt[y][x] = -1.5f * (float)(x + 1) + 100.0f * (float)y;
            for (int c = 0; c < 4; c++) {
                half4[y][x][c] = f16((float)x + 10.0f * (float)y + 0.25f * (float)c + 0.5f);
                unorm[y][x][c] = (uint8_t)((x * 40 + y * 100 + c * 17) & 0xff);
                snorm[y][x][c] = (int8_t)(uint8_t)((x * 53 + y * 91 + c * 37 + 128) & 0xff);
            }
            u32x2[y][x][0] = (uint32_t)(x * 1000 + y * 7);
            u32x2[y][x][1] = 0xfffffff0u + (uint32_t)x;
        }
    float out_f[4 * H * W * 4];
    uint32_t out_u[H * W * 4];
    memset(out_f, 0, sizeof out_f);
    memset(out_u, 0, sizeof out_u);
    uint8_t args[64];
    memset(args, 0, sizeof args);
    for (int i = 0; i < 5; i++)
        put64(args + 8 * i, 0x1000 + (uint64_t)i); /* captured handles: replaced */
    put32(args + 56, W);
    put32(args + 60, H);
    vkrr_replay_alloc allocs[2] = {
        {0x10000, sizeof out_f, out_f, out_f, NULL},
        {0x20000, sizeof out_u, out_u, out_u, NULL},
    };
    vkrr_pointer ptrs[2] = {{40, 0, 0}, {48, 1, 0}};
    vkrr_sampler lin_wrap = {VKRR_FILTER_LINEAR, {VKRR_ADDRESS_WRAP, VKRR_ADDRESS_WRAP}, true, false, false, true};
    vkrr_sampler unnorm_wrap = {VKRR_FILTER_POINT, {VKRR_ADDRESS_WRAP, VKRR_ADDRESS_MIRROR}, false, false, false, true};
    vkrr_sampler border = {VKRR_FILTER_LINEAR, {VKRR_ADDRESS_BORDER, VKRR_ADDRESS_CLAMP}, false, false, false, true};
    vkrr_sampler mirror = {VKRR_FILTER_POINT, {VKRR_ADDRESS_MIRROR, VKRR_ADDRESS_MIRROR}, true, false, false, true};
    vkrr_sampler integer = {VKRR_FILTER_LINEAR, {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP}, false, true, false, true};
    vkrr_replay_image ims[5] = {
        {0, VKRR_IMAGE_TEXTURE, 0x1000, W, H, 4, 16, lin_wrap, half4, NULL, NULL, 0, 0, {0}},
        {8, VKRR_IMAGE_TEXTURE, 0x1001, W, H, 1, 32, unnorm_wrap, flt, NULL, NULL, 0, 0, {0}},
        {16, VKRR_IMAGE_TEXTURE, 0x1002, W, H, 4, 194, border, unorm, NULL, NULL, 0, 0, {0}},
        {24, VKRR_IMAGE_TEXTURE, 0x1003, W, H, 4, 200, mirror, snorm, NULL, NULL, 0, 0, {0}},
        {32, VKRR_IMAGE_TEXTURE, 0x1004, W, H, 2, 3, integer, u32x2, NULL, NULL, 0, 0, {0}},
    };
    vkrr_replay r = {.kernel = "vkrr_test_tex_kernel", .grid = {1, 1, 1}, .block = {4, 2, 1},
                     .args = args, .args_bytes = sizeof args, .allocs = allocs, .nallocs = 2,
                     .pointers = ptrs, .npointers = 2, .images = ims, .nimages = 5};
    run_ok(be, &r);
    int bad[5] = {0};
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const float *t0 = &out_f[((0 * H + y) * W + x) * 4];
            const float *t1 = &out_f[((1 * H + y) * W + x) * 4];
            const float *t2 = &out_f[((2 * H + y) * W + x) * 4];
            const float *t3 = &out_f[((3 * H + y) * W + x) * 4];
            const uint32_t *u = &out_u[(y * W + x) * 4];
            for (int c = 0; c < 4; c++) {
                bad[0] += t0[c] != vkrr_f16_to_f32(half4[y][x][c]);
                bad[2] += fabsf(t2[c] - (float)unorm[y][x][c] / 255.0f) > 1e-6f;
                float s = (float)snorm[y][x][c] / 127.0f;
                bad[3] += fabsf(t3[c] - (s < -1.0f ? -1.0f : s)) > 1e-6f;
            }
            /* one channel: (r, 0, 0, 1) */
            bad[1] += t1[0] != flt[y][x] || t1[1] != 0.0f || t1[2] != 0.0f || t1[3] != 1.0f;
            bad[4] += u[0] != u32x2[y][x][0] || u[1] != u32x2[y][x][1] || u[2] != 0 || u[3] != 1;
        }
    CHECK_EQ_U64(bad[0], 0); /* HALF x4 */
    CHECK_EQ_U64(bad[1], 0); /* FLOAT x1 */
    CHECK_EQ_U64(bad[2], 0); /* UNORM_INT8X4 */
    CHECK_EQ_U64(bad[3], 0); /* SNORM_INT8X4, -128 clamps to -1 */
    CHECK_EQ_U64(bad[4], 0); /* UNSIGNED_INT32 x2 read as integer */
}

static void test_surface(vkrr_backend *be)
{
    enum { W = 4, H = 3 };
    /* 1 + 3*2^-11 lies halfway between two halves: RNE gives 0x3c02, truncation 0x3c01. */
    CHECK_EQ_U64(f16(1.0f + 3.0f / 2048.0f), 0x3c02);
    static const uint16_t special[] = {0x3c02, 0x7e01, 0x8000, 0x0001, 0x7bff, 0xfc00, 0x3555};
    uint16_t src[H * W * 4];
    for (int i = 0; i < H * W * 4; i++)
        src[i] = special[i % 7] ^ (uint16_t)(i << 1 & 0x0100);
    src[0] = 0x3c02;
    uint16_t post[H * W * 4];
    memset(post, 0, sizeof post);
    uint8_t args[24];
    put64(args, 0x5005);
    put64(args + 8, 0x30000);
    put32(args + 16, W);
    put32(args + 20, H);
    vkrr_replay_alloc allocs[1] = {{0x30000, sizeof src, src, NULL, NULL}};
    vkrr_pointer ptrs[1] = {{8, 0, 0}};
    vkrr_replay_image ims[1] = {{0, VKRR_IMAGE_SURFACE, 0x5005, W, H, 4, 16, {0}, NULL, post, NULL, 0, 0, {0}}};
    vkrr_replay r = {.kernel = "vkrr_test_surf_kernel", .grid = {2, 3, 1}, .block = {2, 1, 1},
                     .args = args, .args_bytes = sizeof args, .allocs = allocs, .nallocs = 1,
                     .pointers = ptrs, .npointers = 1, .images = ims, .nimages = 1};
    run_ok(be, &r);
    int wrong = 0, sentinel = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) {
                int i = (y * W + x) * 4 + c;
                if (x == W - 1)
                    sentinel += post[i] == 0xffff;
                else
                    wrong += post[i] != src[i];
            }
    CHECK_EQ_U64(wrong, 0);
    CHECK_EQ_U64(sentinel, H * 4);
    CHECK_EQ_U64(post[0], 0x3c02);
    /* a layered array's surface: ports bind 2D images, so the launch is an
     * error naming it (rows of three layers, as a capture holds them) */
    ims[0].geometry = (vkrr_geometry){.dims = 2, .layers = 3};
    ims[0].height = 3 * H;
    vkrr_error err = {0};
    CHECK(be->run(be->self, &r, &err) == VKRR_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "surface at offset 0 is a layered 2D array") != NULL);
}

static void test_errors(void)
{
    vkrr_backend be;
    vkrr_error err = {0};
    CHECK(vkrr_vk_backend_create(&be, &(vkrr_vk_desc){.device = "99", .validation = true}, &err) ==
          VKRR_ERR_NO_DEVICE);
    CHECK(strstr(err.msg, "99") != NULL);
    CHECK(vkrr_status_exit_code(err.status) == 3);
    memset(&err, 0, sizeof err);
    CHECK(vkrr_vk_backend_create(&be, &(vkrr_vk_desc){.device = "no such gpu"}, &err) ==
          VKRR_ERR_NO_DEVICE);
    CHECK(strstr(err.msg, "no such gpu") != NULL);
    vkrr_vk_ctx *vk = NULL;
    memset(&err, 0, sizeof err);
    CHECK(vkrr_vk_ctx_create(&vk, &(vkrr_vk_ctx_desc){.library = "libvulkan-missing.so.1"}, &err) ==
          VKRR_ERR_NO_LIBRARY);
    CHECK(strstr(err.msg, "libvulkan-missing.so.1") != NULL);
    CHECK(vk == NULL);
}

static void test_ports_dir(const vkrr_port_shader *copy)
{
    char *dir = test_tmpdir("vkbridge_ports");
    char path[4096];
    snprintf(path, sizeof path, "%s/vkrr_test_alias_kernel.spv", dir);
    CHECK(test_write_file(path, copy->code, copy->bytes));
    snprintf(path, sizeof path, "%s/vkrr_test_bad_kernel.spv", dir);
    CHECK(test_write_file(path, "not spirv", 8));
    vkrr_backend be;
    vkrr_error err = {0};
    vkrr_status st = vkrr_vk_backend_create(&be, &(vkrr_vk_desc){.ports_dir = dir, .validation = true}, &err);
    CHECK(st == VKRR_OK);
    if (st == VKRR_OK) {
        CHECK(be.has_kernel(be.self, "vkrr_test_alias_kernel"));
        CHECK(be.has_kernel(be.self, "vkrr_test_copy_kernel"));
        CHECK(!be.has_kernel(be.self, "no_such_kernel"));
        test_copy(&be, "vkrr_test_alias_kernel", 8, 2);
        uint8_t args[24] = {0};
        vkrr_replay r = {.kernel = "vkrr_test_bad_kernel", .grid = {1, 1, 1}, .block = {1, 1, 1},
                         .args = args, .args_bytes = sizeof args};
        CHECK(be.run(be.self, &r, &err) == VKRR_ERR_FORMAT);
        r.kernel = "no_such_kernel";
        CHECK(be.run(be.self, &r, &err) == VKRR_ERR_NO_PORT);
        CHECK(strstr(err.msg, "no_such_kernel") != NULL);
        CHECK_EQ_U64(messages(&be), 0);
        be.destroy(be.self);
    }
    test_rmtree(dir);
    free(dir);
}

static uint32_t spun; /* the spin kernel's result */

static vkrr_status spin(vkrr_backend *be, uint32_t iters, uint32_t groups, double *seconds,
                        vkrr_error *err)
{
    uint32_t out[1] = {0};
    uint8_t args[12];
    put64(args, 0x40000);
    put32(args + 8, iters);
    vkrr_replay_alloc allocs[1] = {{0x40000, sizeof out, out, out, NULL}};
    vkrr_pointer ptrs[1] = {{0, 0, 0}};
    vkrr_replay r = {.kernel = "vkrr_test_spin_kernel", .grid = {groups, 1, 1}, .block = {64, 1, 1},
                     .args = args, .args_bytes = sizeof args, .allocs = allocs, .nallocs = 1,
                     .pointers = ptrs, .npointers = 1};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    vkrr_status st = be->run(be->self, &r, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    spun = out[0];
    return st;
}

/* Enough work for about 3 s against a 1 s timeout (calibrated on the device):
 * the launch reports VKRR_ERR_TIMEOUT, the next launch waits for it and runs.
 * False when the device is too fast for one dispatch to time out. */
static bool test_timeout(void)
{
    vkrr_backend be;
    vkrr_error err = {0};
    if (vkrr_vk_backend_create(&be, &(vkrr_vk_desc){.timeout_s = 1.0}, &err) != VKRR_OK) {
        CHECK(!"backend for the timeout test");
        return true;
    }
    double s = 0;
    vkrr_status st = spin(&be, 50000u, 1, &s, &err);
    CHECK(st == VKRR_OK);
    uint32_t x = 1;
    for (uint32_t i = 0; i < 50000u; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    CHECK_EQ_U64(spun, x); /* every step ran */
    st = spin(&be, 50000u, 64, &s, &err);
    CHECK(st == VKRR_OK);
    double want = s > 0 ? 64.0 * 3.0 / s : 65535.0;
    uint32_t groups = want > 65535.0 ? 65535u : want < 64.0 ? 64u : (uint32_t)want;
    printf("timeout test: 64 groups took %.3f s; %u groups should take ~3 s\n", s, groups);
    bool ran = st != VKRR_OK || want <= 65535.0;
    if (st == VKRR_OK && want <= 65535.0) {
        st = spin(&be, 50000u, groups, &s, &err);
        printf("timeout test: %s after %.2f s\n", vkrr_status_name(st), s);
        CHECK(st == VKRR_ERR_TIMEOUT);
        CHECK(s < 2.5);
        /* each try waits one timeout for the stuck launch before giving up */
        int tries = 0;
        do
            st = spin(&be, 10, 1, &s, &err);
        while (st == VKRR_ERR_TIMEOUT && ++tries < 20);
        if (st != VKRR_OK)
            vkrr_error_print(&err, stderr);
        CHECK(st == VKRR_OK);
        printf("timeout test: the next launch ran after %d busy report(s)\n", tries);
    }
    be.destroy(be.self);
    return ran;
}

/* `test_vkbridge timeout` (ctest test_vkbridge_timeout): the timeout test
 * alone; skipped (testutil.h test_skip) when VKRR_SKIP_TIMEOUT_TEST is set or
 * the device is too fast for it. */
static int main_timeout(void)
{
    vkrr_warn_set_stream(stderr);
    if (getenv("VKRR_SKIP_TIMEOUT_TEST"))
        return test_skip("timeout", "timeout test: VKRR_SKIP_TIMEOUT_TEST is set");
    if (!test_timeout() && test_failed == 0)
        return test_skip("timeout", "timeout test: the device is too fast to time out with one dispatch");
    return test_finish("vkbridge timeout");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "timeout"))
        return main_timeout();
    if (argc > 1) {
        fprintf(stderr, "usage: test_vkbridge [timeout]\n");
        return 2;
    }
    vkrr_warn_set_stream(stderr);
    const vkrr_port_shader *copy = vkrr_port_shader_find("vkrr_test_copy_kernel");
    CHECK(copy != NULL);
    CHECK(vkrr_port_shader_find("no_such_kernel") == NULL);
    CHECK(vkrr_port_shader_count() >= 4);

    vkrr_backend be;
    vkrr_error err = {0};
    vkrr_status st = vkrr_vk_backend_create(&be, &(vkrr_vk_desc){.validation = true}, &err);
    if (st != VKRR_OK)
        vkrr_error_print(&err, stderr);
    CHECK(st == VKRR_OK);
    if (st != VKRR_OK)
        return test_finish("vkbridge");
    CHECK_STR(be.name, "vulkan");
    vkrr_backend_stats s0, s1;
    be.stats(be.self, &s0);
    printf("device: %s\n", s0.device_name);
    CHECK(be.has_kernel(be.self, "vkrr_test_copy_kernel"));

    test_copy(&be, "vkrr_test_copy_kernel", 8, 2);
    test_copy(&be, "vkrr_test_copy_kernel", 8, 2);   /* same (kernel, block): cached */
    test_copy(&be, "vkrr_test_copy_kernel", 16, 1);  /* another block: a new pipeline */
    be.stats(be.self, &s1);
    CHECK_EQ_U64(s1.pipelines_created - s0.pipelines_created, 2);
    CHECK_EQ_U64(s1.pipeline_hits - s0.pipeline_hits, 1);

    test_textures(&be);
    test_surface(&be);
    CHECK_EQ_U64(messages(&be), 0);
    be.destroy(be.self);

    test_errors();
    test_ports_dir(copy);
    return test_finish("vkbridge");
}
