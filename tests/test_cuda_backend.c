/* test_cuda_backend.c - the libcuda backend without a GPU: library loading
 * errors, the parameter-block relocation, and module lookup over PTX, cubin
 * and fatbin files nvcc made at build time (plus damaged ones).
 * `test_cuda_backend gpu` (ctest test_cuda_backend_gpu) runs the test kernels
 * on the GPU; without nvcc's modules, libcuda or a device it is skipped
 * (testutil.h test_skip: exit 77, ctest shows why). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_loader.h"
#include "cuformat.h"
#include "cuda_modules.h"
#include "replay.h"
#include "testutil.h"

#ifdef VKRR_TEST_HAVE_CUDA_H
#include <cuda.h>
/* Our hand-declared driver structs must match the toolkit's byte for byte. */
#define SAME(ours, theirs) _Static_assert(sizeof(ours) == sizeof(theirs), #ours " size")
#define AT(ours, theirs, f) _Static_assert(offsetof(ours, f) == offsetof(theirs, f), #ours "." #f)
SAME(vkrr_cu_array3d_desc, CUDA_ARRAY3D_DESCRIPTOR);
AT(vkrr_cu_array3d_desc, CUDA_ARRAY3D_DESCRIPTOR, Format);
AT(vkrr_cu_array3d_desc, CUDA_ARRAY3D_DESCRIPTOR, Flags);
SAME(vkrr_cu_memcpy2d, CUDA_MEMCPY2D);
AT(vkrr_cu_memcpy2d, CUDA_MEMCPY2D, srcHost);
AT(vkrr_cu_memcpy2d, CUDA_MEMCPY2D, srcArray);
AT(vkrr_cu_memcpy2d, CUDA_MEMCPY2D, dstHost);
AT(vkrr_cu_memcpy2d, CUDA_MEMCPY2D, dstArray);
AT(vkrr_cu_memcpy2d, CUDA_MEMCPY2D, WidthInBytes);
SAME(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC);
AT(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC, res.array.hArray);
AT(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC, flags);
AT(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC, res.linear.devPtr);
AT(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC, res.linear.format);
AT(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC, res.linear.numChannels);
AT(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC, res.linear.sizeInBytes);
AT(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC, res.pitch2D.numChannels);
AT(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC, res.pitch2D.width);
AT(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC, res.pitch2D.height);
AT(vkrr_cu_resource_desc, CUDA_RESOURCE_DESC, res.pitch2D.pitchInBytes);
_Static_assert((int)VKRR_CU_RESOURCE_TYPE_LINEAR == (int)CU_RESOURCE_TYPE_LINEAR, "linear");
_Static_assert((int)VKRR_CU_RESOURCE_TYPE_PITCH2D == (int)CU_RESOURCE_TYPE_PITCH2D, "pitch 2D");
_Static_assert((int)VKRR_TEXRES_LINEAR == (int)CU_RESOURCE_TYPE_LINEAR, "log type=2");
_Static_assert((int)VKRR_TEXRES_PITCH2D == (int)CU_RESOURCE_TYPE_PITCH2D, "log type=3");
_Static_assert((int)VKRR_CU_MEMORYTYPE_DEVICE == (int)CU_MEMORYTYPE_DEVICE, "device memory");
SAME(vkrr_cu_texture_desc, CUDA_TEXTURE_DESC);
AT(vkrr_cu_texture_desc, CUDA_TEXTURE_DESC, filterMode);
AT(vkrr_cu_texture_desc, CUDA_TEXTURE_DESC, flags);
AT(vkrr_cu_texture_desc, CUDA_TEXTURE_DESC, borderColor);
_Static_assert(VKRR_CU_ARRAY3D_SURFACE_LDST == CUDA_ARRAY3D_SURFACE_LDST, "LDST flag");
_Static_assert((int)VKRR_CU_ERROR_NO_DEVICE == (int)CUDA_ERROR_NO_DEVICE, "no device code");
_Static_assert((int)VKRR_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
               (int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "shared attribute");
_Static_assert(VKRR_TEXFLAG_NORMALIZED == CU_TRSF_NORMALIZED_COORDINATES, "texture flags");
_Static_assert(VKRR_TEXFLAG_INTEGER == CU_TRSF_READ_AS_INTEGER, "texture flags");
#endif

static void test_no_library(void)
{
    vkrr_backend be;
    vkrr_error err = { 0 };
    vkrr_status st = vkrr_cuda_backend_create(&be, &(vkrr_cuda_desc){ .library = "/nonexistent/dir/libcuda.so.1" }, &err);
    CHECK_EQ_U64(st, VKRR_ERR_NO_LIBRARY);
    CHECK_EQ_U64(vkrr_status_exit_code(st), 3);
    CHECK(strstr(err.msg, "libcuda.so.1") != NULL);
    CHECK(strstr(err.msg, "/nonexistent/dir/libcuda.so.1") != NULL);
    CHECK(be.self == NULL && be.run == NULL);

    /* $VKRR_LIBCUDA is the override when the desc names none. */
    setenv("VKRR_LIBCUDA", "/nonexistent/other.so", 1);
    memset(&err, 0, sizeof err);
    st = vkrr_cuda_backend_create(&be, &(vkrr_cuda_desc){ 0 }, &err);
    CHECK_EQ_U64(st, VKRR_ERR_NO_LIBRARY);
    CHECK(strstr(err.msg, "/nonexistent/other.so") != NULL);
    CHECK(strstr(err.msg, "libcuda.so.1") != NULL);
    unsetenv("VKRR_LIBCUDA");

    /* A real library that is not libcuda: named, and the missing symbol said. */
    memset(&err, 0, sizeof err);
    st = vkrr_cuda_backend_create(&be, &(vkrr_cuda_desc){ .library = "libm.so.6" }, &err);
    CHECK_EQ_U64(st, VKRR_ERR_NO_LIBRARY);
    CHECK(strstr(err.msg, "no cuInit") != NULL);
    CHECK(strstr(err.msg, "libcuda.so.1") != NULL);

    /* The default: this machine has no driver, so libcuda.so.1 is absent. */
    void *probe = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (probe) {
        dlclose(probe);
        printf("cuda_backend: libcuda.so.1 is present here; default-path absence check skipped\n");
        return;
    }
    memset(&err, 0, sizeof err);
    st = vkrr_cuda_backend_create(&be, NULL, &err);
    CHECK_EQ_U64(st, VKRR_ERR_NO_LIBRARY);
    CHECK_EQ_U64(vkrr_status_exit_code(err.status), 3);
    CHECK(strstr(err.msg, "libcuda.so.1") != NULL);
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void test_relocate(void)
{
    uint8_t args[40];
    for (int i = 0; i < 40; i++) args[i] = (uint8_t)(0xA0 + i);
    vkrr_replay_alloc allocs[2] = { { .base = 0x7f0000, .size = 64 }, { .base = 0x9000, .size = 16 } };
    vkrr_pointer ptrs[2] = { { .offset = 0, .alloc = 1, .delta = 8 }, { .offset = 16, .alloc = 0, .delta = 0 } };
    vkrr_replay_image ims[1] = { { .offset = 24, .kind = VKRR_IMAGE_TEXTURE } };
    vkrr_replay r = { .kernel = "k", .args = args, .args_bytes = 36, .allocs = allocs, .nallocs = 2,
                      .pointers = ptrs, .npointers = 2, .images = ims, .nimages = 1 };
    const uint64_t addr[2] = { 0x1000, 0x2000 }, word[1] = { 7 };
    uint8_t out[40];
    memset(out, 0xEE, sizeof out);
    vkrr_error err = { 0 };
    CHECK_EQ_U64(vkrr_replay_relocate(&r, addr, word, out, &err), VKRR_OK);
    CHECK_EQ_U64(get_u64(out + 0), 0x2008);
    CHECK_EQ_U64(get_u64(out + 16), 0x1000);
    CHECK_EQ_U64(get_u64(out + 24), 7);
    CHECK(memcmp(out + 8, args + 8, 8) == 0);   /* plain words untouched */
    CHECK(memcmp(out + 32, args + 32, 4) == 0);
    CHECK_EQ_U64(out[36], 0xEE);                 /* nothing past args_bytes */

    ims[0].offset = 32; /* 8-byte word would cross the 36-byte end */
    CHECK_EQ_U64(vkrr_replay_relocate(&r, addr, word, out, &err), VKRR_ERR_RANGE);
    CHECK_EQ_U64(err.offset, 32);
    ims[0].offset = 24;
    ptrs[1].alloc = 2;
    CHECK_EQ_U64(vkrr_replay_relocate(&r, addr, word, out, &err), VKRR_ERR_RANGE);
}

#ifdef VKRR_TEST_CUDA_MODULES
#define MODDIR VKRR_TEST_CUDA_MODULES

/* Only where libcuda and a GPU exist (the GPU check script runs this binary
 * there, VKRR_TEST_CUDA_MODULES_DIR pointing at its copy of the modules).
 * Without them: test_skip's code, having said why. */
static int test_gpu_run(void)
{
    const char *dir = getenv("VKRR_TEST_CUDA_MODULES_DIR");
    vkrr_backend be;
    vkrr_error err = { 0 };
    vkrr_status st = vkrr_cuda_backend_create(&be, &(vkrr_cuda_desc){ .module_dir = dir ? dir : MODDIR }, &err);
    if (st == VKRR_ERR_NO_LIBRARY || st == VKRR_ERR_NO_DEVICE) {
        char why[1200];
        snprintf(why, sizeof why, "cuda_backend: no GPU run (%s)", err.msg);
        return test_skip("gpu", why);
    }
    CHECK_EQ_U64(st, VKRR_OK);
    if (st != VKRR_OK) return test_finish("cuda_backend gpu");
    CHECK(be.has_kernel(be.self, "vkrr_test_scale"));
    CHECK(!be.has_kernel(be.self, "vkrr_test_nonexistent"));

    float pre[100], post[100];
    for (int i = 0; i < 100; i++) pre[i] = (float)i - 50.0f;
    memset(post, 0, sizeof post);
    uint8_t args[16] = { 0 };
    const float scale = 3.0f;
    const int32_t n = 99; /* the last element must stay as it was */
    memcpy(args + 8, &scale, 4);
    memcpy(args + 12, &n, 4);
    vkrr_replay_alloc al = { .base = 0x7000000, .size = sizeof pre, .pre = pre, .post = post };
    vkrr_pointer ptr = { .offset = 0, .alloc = 0, .delta = 4 }; /* window one float in */
    vkrr_replay r = { .kernel = "vkrr_test_scale", .grid = { 1, 1, 1 }, .block = { 128, 1, 1 },
                      .args = args, .args_bytes = 16, .allocs = &al, .nallocs = 1,
                      .pointers = &ptr, .npointers = 1 };
    st = be.run(be.self, &r, &err);
    CHECK_EQ_U64(st, VKRR_OK);
    if (st != VKRR_OK) fprintf(stderr, "    %s\n", err.msg);
    CHECK(post[0] == pre[0] && post[1] == pre[1] * 3.0f && post[99] == pre[99] * 3.0f);
    unsigned bad = 0;
    for (int i = 1; i < 100; i++) bad += post[i] != pre[i] * 3.0f;
    CHECK_EQ_U64(bad, 0);
    /* timed by CUDA events around the kernel */
    const double ms = be.last_gpu_ms(be.self);
    CHECK(ms >= 0 && ms < 1e4);

    enum { W = 5, H = 3 };
    float tex[W * H], surf[W * H];
    for (int i = 0; i < W * H; i++) tex[i] = (float)(i * i) * 0.25f;
    memset(surf, 0, sizeof surf);
    vkrr_replay_image ims[2] = {
        { .offset = 0, .kind = VKRR_IMAGE_TEXTURE, .width = W, .height = H, .channels = 1, .format = 32,
          .sampler = { .filter = VKRR_FILTER_POINT, .address = { VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP } },
          .pre = tex },
        { .offset = 8, .kind = VKRR_IMAGE_SURFACE, .width = W, .height = H, .channels = 1, .format = 32,
          .post = surf },
    };
    uint8_t targs[24] = { 0 };
    const int32_t wh[2] = { W, H - 1 }; /* last row untouched: stays sentinel */
    memcpy(targs + 16, wh, 8);
    vkrr_replay t = { .kernel = "vkrr_test_tex2surf", .grid = { 1, 1, 1 }, .block = { 8, 4, 1 },
                      .args = targs, .args_bytes = 24, .images = ims, .nimages = 2 };
    st = be.run(be.self, &t, &err);
    CHECK_EQ_U64(st, VKRR_OK);
    if (st != VKRR_OK) fprintf(stderr, "    %s\n", err.msg);
    bad = 0;
    for (int i = 0; i < W * (H - 1); i++) bad += surf[i] != tex[i] * 2.0f;
    CHECK_EQ_U64(bad, 0);
    uint32_t last;
    memcpy(&last, &surf[W * (H - 1)], 4);
    CHECK_EQ_U64(last, 0xFFFFFFFFu);

    /* Textures over linear memory (tests/cuda/vkrr_test_linear.cu): a linear
     * FLOAT x1 one folded as the replay folds it, a pitch-2D HALF x4 one. */
    enum { N = 5000, PW = 7, PH = 5, M = N + 3 };
    float *lin = calloc(2 * VKRR_LINEAR_ROW, sizeof *lin), *lout = calloc(M + 4 * PW * PH, sizeof *lout);
    uint16_t ptex[PW * PH * 4];
    for (int i = 0; i < N && lin; i++) lin[i] = (float)i * 0.5f - 7.0f;
    for (int i = 0; i < PW * PH * 4; i++) ptex[i] = (uint16_t)(0x3c00 + i); /* 1.0 and up */
    vkrr_replay_image lims[2] = {
        { .offset = 0, .kind = VKRR_IMAGE_TEXTURE, .width = VKRR_LINEAR_ROW, .height = 2, .channels = 1,
          .format = 32, .pre = lin, .resource = VKRR_TEXRES_LINEAR, .linear_count = N,
          .sampler = { .address = { VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP } } },
        { .offset = 8, .kind = VKRR_IMAGE_TEXTURE, .width = PW, .height = PH, .channels = 4,
          .format = 16, .pre = ptex, .resource = VKRR_TEXRES_PITCH2D,
          .sampler = { .address = { VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP } } },
    };
    uint8_t largs[40] = { 0 };
    const uint32_t lp[3] = { N, PW, PH };
    memcpy(largs + 24, lp, sizeof lp);
    vkrr_replay_alloc lal = { .base = 0x7f0000300000ull, .size = (M + 4 * PW * PH) * 4, .pre = lout,
                              .post = lout };
    vkrr_pointer lptr = { .offset = 16, .alloc = 0, .delta = 0 };
    vkrr_replay lr = { .kernel = "vkrr_test_linear_kernel", .grid = { (M + PW * PH + 63) / 64, 1, 1 },
                       .block = { 64, 1, 1 }, .args = largs, .args_bytes = 40, .allocs = &lal,
                       .nallocs = 1, .pointers = &lptr, .npointers = 1, .images = lims, .nimages = 2 };
    st = lin && lout ? be.run(be.self, &lr, &err) : VKRR_ERR_NOMEM;
    CHECK_EQ_U64(st, VKRR_OK);
    if (st != VKRR_OK) fprintf(stderr, "    %s\n", err.msg);
    bad = 0;
    for (int i = 0; lin && lout && i < M; i++) bad += lout[i] != (i < N ? lin[i] : 0.0f);
    for (int k = 0; lout && k < PW * PH * 4; k++) bad += lout[M + k] != vkrr_f16_to_f32(ptex[k]);
    CHECK_EQ_U64(bad, 0);
    free(lin);
    free(lout);

    /* a frame: launches back to back on one stream, timed as a whole */
    vkrr_replay *frame[2] = { &r, &t };
    double fms = -1;
    uint32_t barriers = 9;
    st = be.run_frame(be.self, frame, 2, &fms, &barriers, &err);
    CHECK_EQ_U64(st, VKRR_OK);
    if (st != VKRR_OK) fprintf(stderr, "    %s\n", err.msg);
    CHECK(fms >= 0 && fms < 1e4 && barriers == 0);
    vkrr_backend_stats bs = { 0 };
    be.stats(be.self, &bs);
    CHECK(bs.device_name[0] && strstr(bs.driver, "CUDA driver") && bs.uuid);

    t.kernel = "vkrr_test_nonexistent";
    CHECK_EQ_U64(be.run(be.self, &t, &err), VKRR_ERR_MISSING);
    CHECK(strstr(err.msg, "vkrr_test_nonexistent") != NULL);
    printf("cuda_backend: GPU run done\n");
    be.destroy(be.self);
    return test_finish("cuda_backend gpu");
}

static vkrr_cuda_module_answer has(const char *file, const char *kernel, vkrr_status *st, vkrr_error *err)
{
    char path[1024];
    vkrr_cuda_module_answer a = VKRR_CUDA_MODULE_NO;
    snprintf(path, sizeof path, "%s/%s", MODDIR, file);
    memset(err, 0, sizeof *err);
    *st = vkrr_cuda_module_file_has(path, kernel, &a, err);
    return a;
}

static void test_lookup(void)
{
    static const char *files[] = { "k.ptx", "k.cubin", "k.fatbin" };
    vkrr_error err;
    vkrr_status st;
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_U64(has(files[i], "vkrr_test_scale", &st, &err), VKRR_CUDA_MODULE_YES);
        CHECK_EQ_U64(st, VKRR_OK);
        CHECK_EQ_U64(has(files[i], "_Z17vkrr_test_mangledPi", &st, &err), VKRR_CUDA_MODULE_YES);
        CHECK_EQ_U64(has(files[i], "vkrr_test_scal", &st, &err), VKRR_CUDA_MODULE_NO); /* prefix only */
        CHECK_EQ_U64(has(files[i], "vkrr_test_missing", &st, &err), VKRR_CUDA_MODULE_NO);
        CHECK_EQ_U64(st, VKRR_OK);
    }
    /* nvcc's default compressed entries: only the driver can tell. */
    CHECK_EQ_U64(has("packed/k.fatbin", "vkrr_test_scale", &st, &err), VKRR_CUDA_MODULE_UNKNOWN);
    CHECK_EQ_U64(st, VKRR_OK);

    char path[4096], *list = NULL;
    memset(&err, 0, sizeof err);
    CHECK_EQ_U64(vkrr_cuda_module_find(MODDIR, "vkrr_test_scale", path, sizeof path, &err), VKRR_OK);
    CHECK(strstr(path, "/k.cubin") != NULL); /* sorted by name: k.cubin, k.fatbin, k.ptx */
    memset(&err, 0, sizeof err);
    CHECK_EQ_U64(vkrr_cuda_module_candidates(MODDIR, "vkrr_test_scale", &list, &err), VKRR_OK);
    if (list) {
        const char *second = list + strlen(list) + 1, *third = second + strlen(second) + 1;
        CHECK(strstr(list, "/k.cubin") && strstr(second, "/k.fatbin") && strstr(third, "/k.ptx"));
        CHECK(third[strlen(third) + 1] == '\0');
    }
    free(list);
    memset(&err, 0, sizeof err);
    CHECK_EQ_U64(vkrr_cuda_module_candidates(MODDIR, "no_such_kernel", &list, &err), VKRR_ERR_MISSING);
    CHECK(strstr(err.msg, "no module") && strstr(err.msg, "no_such_kernel"));
    CHECK(strstr(err.msg, "3 .ptx/.cubin/.fatbin file(s) searched") != NULL);
    CHECK(list == NULL);
    free(list);
    memset(&err, 0, sizeof err);
    CHECK_EQ_U64(vkrr_cuda_module_candidates(MODDIR "/packed", "no_such_kernel", &list, &err),
                 VKRR_ERR_MISSING);
    CHECK(list && strstr(list, "packed/k.fatbin") && list[strlen(list) + 1] == '\0');
    CHECK(strstr(err.msg, "1 with compressed") != NULL);
    free(list);
    CHECK_EQ_U64(vkrr_cuda_module_find(MODDIR "/nonexistent", "x", path, sizeof path, &err),
                 VKRR_ERR_MISSING);
}

/* Every truncation of a real cubin and fatbin, and damaged header fields:
 * never a crash (ASan watches the reads), and a damaged file says where. */
static void test_damaged(const char *file, vkrr_cuda_module_kind kind)
{
    char path[1024];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s", MODDIR, file);
    uint8_t *orig = (uint8_t *)test_read_file(path, &n);
    CHECK(orig != NULL && n > 256);
    if (!orig) return;
    unsigned errors = 0;
    for (size_t len = 0; len < n; len++) {
        uint8_t *copy = malloc(len ? len : 1); /* exact size, so ASan sees any overread */
        memcpy(copy, orig, len);
        vkrr_cuda_module_answer a;
        vkrr_error err = { 0 };
        if (vkrr_cuda_module_search(kind, copy, len, "vkrr_test_scale", path, &a, &err) != VKRR_OK) {
            errors++;
            if (err.msg[0] == '\0') CHECK(!"error without a message");
        }
        free(copy);
    }
    CHECK(errors > n / 2); /* most truncations cut the section table or the container */

    uint8_t *bad = malloc(n);
    for (size_t at = 0; at + 8 <= 0x80 && at + 8 <= n; at += 2) {
        memcpy(bad, orig, n);
        memset(bad + at, 0xFF, 8);
        vkrr_cuda_module_answer a;
        vkrr_error err = { 0 };
        (void)vkrr_cuda_module_search(kind, bad, n, "vkrr_test_scale", path, &a, &err);
    }
    /* A file truncated on disk: a clear error naming it. */
    char *dir = test_tmpdir("cuda_damaged");
    snprintf(path, sizeof path, "%s/cut%s", dir, kind == VKRR_CUDA_MODULE_CUBIN ? ".cubin" : ".fatbin");
    CHECK(test_write_file(path, orig, n / 2));
    vkrr_cuda_module_answer a;
    vkrr_error err = { 0 };
    CHECK_EQ_U64(vkrr_cuda_module_file_has(path, "vkrr_test_scale", &a, &err), VKRR_ERR_PARSE);
    CHECK(strstr(err.file, "cut") != NULL && err.offset >= 0);
    char line[1600];
    vkrr_error_format(&err, line, sizeof line);
    printf("cuda_backend: truncated %s -> %s\n", file, line);
    /* Garbage: random-looking bytes. */
    for (size_t i = 0; i < n; i++) bad[i] = (uint8_t)(i * 131u + 7u);
    CHECK(test_write_file(path, bad, n));
    CHECK_EQ_U64(vkrr_cuda_module_file_has(path, "vkrr_test_scale", &a, &err), VKRR_ERR_PARSE);
    /* In a folder the damaged file is skipped with a warning, not fatal. */
    vkrr_warn_set_stream(NULL);
    char out[4096];
    CHECK_EQ_U64(vkrr_cuda_module_find(dir, "vkrr_test_scale", out, sizeof out, &err), VKRR_ERR_MISSING);
    CHECK(strstr(err.msg, "1 damaged file(s) skipped") != NULL);
    vkrr_warn_set_stream(stderr);
    test_rmtree(dir);
    free(dir);
    free(bad);
    free(orig);
}
#endif

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "gpu")) {
#ifdef VKRR_TEST_CUDA_MODULES
        return test_gpu_run();
#else
        return test_skip("gpu", "cuda_backend: no GPU run: built without nvcc (VKRR_CUDA=OFF or no nvcc)");
#endif
    }
    if (argc > 1) {
        fprintf(stderr, "usage: test_cuda_backend [gpu]\n");
        return 2;
    }
    test_no_library();
    test_relocate();
#ifdef VKRR_TEST_CUDA_MODULES
    test_lookup();
    test_damaged("k.cubin", VKRR_CUDA_MODULE_CUBIN);
    test_damaged("k.fatbin", VKRR_CUDA_MODULE_FATBIN);
#else
    printf("cuda_backend: SKIPPED module lookup tests: built without nvcc (VKRR_CUDA=OFF or no nvcc)\n");
#endif
    return test_finish("cuda_backend");
}
