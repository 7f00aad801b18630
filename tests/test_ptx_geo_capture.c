/* test_ptx_geo_capture: arrays beyond 2D through a capture.  The capture
 * writer logs a 3D array and a layered 2D one (cuArray3DCreate) and a 1D one
 * (cuArrayCreate height=0); `vkrr info` reads their geometry from the log;
 * `vkrr rerun --backend ptx` runs a kernel (PTX text here) that reads the 3D
 * texture point-sampled at texel centres, the 1D one bilinearly halfway
 * between texels, and writes the layered surface, against expected dumps
 * computed here from the texel values: exit 0, and 1 when one word of the
 * surface dump is wrong.  The 3D texture and the surface arrive as .texref and
 * .surfref kernel parameters (as LLVM's NVPTX emits OpenCL images), named by
 * the instructions themselves; the 1D texture as a .u64 handle in a register. */
#include <stdlib.h>
#include <string.h>

#include "capture_write.h"
#include "ptx_testutil.h"

#define TW 4
#define TH 3
#define TD 2
#define N (TW * TH * TD)

static const char geo_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry vkrr_geo(.param .texref t3, .param .surfref s2a, .param .u64 out, .param .u64 t1,\n"
    "                         .param .u64 out1)\n"
    "{\n"
    " .reg .b32 %r<12>;\n"
    " .reg .f32 %f<16>;\n"
    " .reg .b64 %rd<12>;\n"
    " ld.param.u64 %rd3, [out];\n"
    " ld.param.u64 %rd6, [t1];\n"
    " ld.param.u64 %rd7, [out1];\n"
    " mov.u32 %r1, %tid.x;\n"
    " mov.u32 %r2, %tid.y;\n"
    " mov.u32 %r3, %tid.z;\n"
    " cvt.rn.f32.u32 %f1, %r1;\n"
    " add.f32 %f1, %f1, 0f3F000000;\n"
    " cvt.rn.f32.u32 %f2, %r2;\n"
    " add.f32 %f2, %f2, 0f3F000000;\n"
    " cvt.rn.f32.u32 %f3, %r3;\n"
    " add.f32 %f3, %f3, 0f3F000000;\n"
    " tex.3d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [t3, {%f1, %f2, %f3, %f3}];\n"
    " mad.lo.u32 %r4, %r3, 3, %r2;\n"
    " mad.lo.u32 %r4, %r4, 4, %r1;\n"
    " mul.wide.u32 %rd4, %r4, 4;\n"
    " add.s64 %rd5, %rd3, %rd4;\n"
    " st.global.f32 [%rd5], %f4;\n"
    " add.f32 %f8, %f4, 0f3F800000;\n"
    " mov.b32 %r5, %f8;\n"
    " shl.b32 %r6, %r1, 2;\n"
    " sust.b.a2d.b32.trap [s2a, {%r3, %r6, %r2, %r2}], {%r5};\n"
    " cvt.rn.f32.u32 %f9, %r1;\n"
    " add.f32 %f9, %f9, 0f3F800000;\n"
    " tex.1d.v4.f32.f32 {%f10, %f11, %f12, %f13}, [%rd6, {%f9}];\n"
    " add.s64 %rd8, %rd7, %rd4;\n"
    " st.global.f32 [%rd8], %f10;\n"
    " ret;\n"
    "}\n";

static float tex3[N], tex1[TW] = {2.0f, 4.0f, 8.0f, 16.0f}, out[N], out1[N], zero[N];
static uint32_t surf[N];

static void expected(void)
{
    for (int z = 0; z < TD; z++)
        for (int y = 0; y < TH; y++)
            for (int x = 0; x < TW; x++) {
                int i = (z * TH + y) * TW + x;
                tex3[i] = (float)(100 * z + 10 * y + x + 1);
                out[i] = tex3[i];
                float v = tex3[i] + 1.0f;
                memcpy(&surf[i], &v, 4);
                /* u = x + 1: halfway between texels x and x + 1 (clamped) */
                out1[i] = 0.5f * tex1[x] + 0.5f * tex1[x + 1 < TW ? x + 1 : TW - 1];
            }
}

static bool make_capture(const char *dir, bool wrong)
{
    vkrr_error err = {0};
    vkrr_writer *w = NULL;
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir}, &err) == VKRR_OK))
        return false;
    const char *k[] = {"vkrr_geo"};
    bool ok = CHECK(vkrr_writer_module(w, "geo.ptx", geo_ptx, strlen(geo_ptx), k, 1, &err) == VKRR_OK);
    vkrr_sampler point = {.filter = VKRR_FILTER_POINT,
                          .address = {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP}};
    vkrr_sampler linear = point;
    linear.filter = VKRR_FILTER_LINEAR;
    uint64_t a3 = vkrr_writer_array3d_create(w, TW, TH, TD, 32, 1, 0);
    uint64_t a2 = vkrr_writer_array3d_create(w, TW, TH, TD, 32, 1, VKRR_ARRAY_LAYERED | VKRR_ARRAY_SURFACE_LDST);
    uint64_t a1 = vkrr_writer_array_create(w, TW, 0, 32, 1);
    uint64_t t3 = vkrr_writer_texture_create(w, a3, &point, 0);
    uint64_t s2 = vkrr_writer_surface_create(w, a2, 0);
    uint64_t t1 = vkrr_writer_texture_create(w, a1, &linear, 0);
    const uint64_t base[2] = {0x7f0000000000ull, 0x7f0000100000ull};
    uint8_t args[40];
    memcpy(args, &t3, 8);
    memcpy(args + 8, &s2, 8);
    memcpy(args + 16, &base[0], 8);
    memcpy(args + 24, &t1, 8);
    memcpy(args + 32, &base[1], 8);
    static uint32_t bad[N];
    memcpy(bad, surf, sizeof surf);
    bad[(1 * TH + 2) * TW + 3] ^= 0x00400000; /* layer 1, row 2, texel 3: x1.5 */
    vkrr_alloc_record allocs[2] = {{base[0], sizeof out, zero, out}, {base[1], sizeof out1, zero, out1}};
    vkrr_pointer_record ptrs[2] = {{16, 0, 0}, {32, 1, 0}};
    vkrr_image_record ims[3] = {
        {.offset = 0, .kind = VKRR_IMAGE_TEXTURE, .handle = t3, .width = TW, .height = TH * TD,
         .channels = 1, .format = 32, .post = tex3},
        {.offset = 8, .kind = VKRR_IMAGE_SURFACE, .handle = s2, .width = TW, .height = TH * TD,
         .channels = 1, .format = 32, .post = wrong ? bad : surf},
        {.offset = 24, .kind = VKRR_IMAGE_TEXTURE, .handle = t1, .width = TW, .height = 1,
         .channels = 1, .format = 32, .post = tex1},
    };
    vkrr_launch_record l = {.kernel = "vkrr_geo", .grid = {1, 1, 1}, .block = {TW, TH, TD},
                            .args = args, .args_bytes = sizeof args, .allocs = allocs, .nallocs = 2,
                            .pointers = ptrs, .npointers = 2, .images = ims, .nimages = 3};
    ok = ok && CHECK(vkrr_writer_launch(w, &l, NULL, &err) == VKRR_OK);
    if (!CHECK(vkrr_writer_close(w, &err) == VKRR_OK) || !ok) {
        vkrr_error_print(&err, stderr);
        return false;
    }
    return true;
}

static int vkrr(const char *fmt, const char *dir, char **o)
{
    char args[16384];
    snprintf(args, sizeof args, fmt, dir);
    char *e = NULL;
    int rc = test_run_vkrr(args, o, &e);
    if (e && *e)
        fprintf(stderr, "%s", e);
    free(e);
    return rc;
}

int main(void)
{
    expected();
    char *root = test_tmpdir("ptx_geo_capture");
    char cap[4096], wrong[4096];
    snprintf(cap, sizeof cap, "%s/geo", root);
    snprintf(wrong, sizeof wrong, "%s/wrong", root);
    if (!CHECK(make_capture(cap, false)) || !CHECK(make_capture(wrong, true)))
        return test_finish("ptx_geo_capture");
    char *o = NULL;
    CHECK_EQ_U64(vkrr("info '%s'", cap, &o), 0);
    CHECK(o && strstr(o, "3D, 2 slices of 3 rows") && strstr(o, "layered 2D, 2 layers of 3 rows") &&
          strstr(o, "array 0x") && strstr(o, " 1D\n"));
    free(o);
    CHECK_EQ_U64(vkrr("info '%s' --json", cap, &o), 0);
    CHECK(o && strstr(o, "\"geometry\":{\"name\":\"3D\",\"dims\":3,\"depth\":2,\"layers\":0,\"cube\":false,"
                         "\"plane_height\":3}"));
    CHECK(o && strstr(o, "\"geometry\":{\"name\":\"layered 2D\",\"dims\":2,\"depth\":0,\"layers\":2,"));
    CHECK(o && strstr(o, "\"geometry\":{\"name\":\"1D\",\"dims\":1,"));
    free(o);
    /* a port's starting point says what the Vulkan replay cannot bind, and
     * validate with it reports the launch as an error naming the array */
    char port[4096], args[12000];
    snprintf(port, sizeof port, "%s/port", root);
    snprintf(args, sizeof args, "port new vkrr_geo '%s' --out '%s'", cap, port);
    CHECK_EQ_U64(vkrr("%s", args, NULL), 0);
    snprintf(args, sizeof args, "%s/vkrr_geo.comp", port);
    char *comp = test_read_file(args, NULL);
    CHECK(comp && strstr(comp, "a 3D array (its 2 planes stacked as rows)") &&
          strstr(comp, "a layered 2D array (its 2 planes stacked as rows)"));
    free(comp);
    snprintf(args, sizeof args, "validate '%s' --ports '%s' --heatmaps none", cap, port);
    int rc = vkrr("%s", args, &o);
    CHECK_EQ_U64(rc, 1); /* an ERROR row fails validate */
    CHECK(o && strstr(o, "the texture at offset 0 is a 3D array: the Vulkan replay binds 2D images only"));
    CHECK(o && strstr(o, "is the CULPRIT: its isolated run is an ERROR too")); /* not "out of tolerance" */
    if (rc != 1 && o)
        fprintf(stderr, "%s", o);
    free(o);
    rc = vkrr("rerun '%s' --backend ptx --heatmaps none", cap, &o);
    CHECK_EQ_U64(rc, 0);
    CHECK(o && strstr(o, "1 PASS, 0 FAIL"));
    if (rc != 0 && o)
        fprintf(stderr, "%s", o);
    free(o);
    rc = vkrr("rerun '%s' --backend ptx --heatmaps none", wrong, &o);
    CHECK_EQ_U64(rc, 1);
    CHECK(o && strstr(o, "0 PASS, 1 FAIL"));
    if (rc != 1 && o)
        fprintf(stderr, "%s", o);
    free(o);
    int r = test_finish("ptx_geo_capture");
    if (r == 0)
        test_rmtree(root);
    free(root);
    return r;
}
