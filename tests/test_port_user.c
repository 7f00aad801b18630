/* test_port_user: porting a kernel vkrr has never seen, only through files.
 *
 * vkrr_test_planes_kernel (tests/kernels/vkrr_test_planes.cu: three planar
 * f16 planes into a window of an arena, and a FLOAT x1 surface) is known to
 * this test program's CPU backend only (registered at run time); a capture of
 * two launches of it (two resolutions) is made with the capture writer.  Its
 * Vulkan port and port descriptor are written into a temporary folder, as a
 * user would, and the vkrr binary is run on them:
 *   - the right descriptor: PASS, metrics in f16, a heatmap tiling 3 planes;
 *     the port is off by exactly 1 f16 ULP on odd x of plane 1 (on purpose),
 *     so the max ULP is 1, within the default f16 tolerance;
 *   - the wrong type (f32): FAIL, the same error measured in f32 (65536 ULP);
 *   - the descriptor's tolerance counts (max_ulp=0 fails) under --tolerance
 *     and --max-ulp (which win);
 *   - every malformed descriptor: exit 2 naming the file, the line and the field;
 *   - `vkrr port new` on it: a .comp that compiles, a .port naming exactly the
 *     arguments it writes, and validate runs that skeleton: FAIL with the
 *     unwritten texels counted, not a crash. */
#include <stdlib.h>
#include <string.h>

#include "capture_write.h"
#include "cpu_backend.h"
#include "cuformat.h"
#include "heatmap.h"
#include "portdesc.h"
#include "testutil.h"
#include "vkrr_test_planes.h"

bool vkrr_test_kernels_register(void);

static const char *K = "vkrr_test_planes_kernel";
#define DELTA 256u

/* The port a user writes.  WRONG_BIT: on odd x, plane 1 gets one more f16 ULP. */
static const char port_comp[] =
    "#version 460\n"
    "// The user's port of vkrr_test_planes_kernel (tests/kernels/vkrr_test_planes.cu).\n"
    "#extension GL_GOOGLE_include_directive : require\n"
    "#include \"cuda.glsl\"\n"
    "#include \"half.glsl\"\n"
    "#include \"surface.glsl\"\n"
    "struct Params { VkrrF32Ptr src; VkrrF16Ptr dst; uint64_t surf; uint width; uint height;\n"
    "                float gain; uint pad; };\n"
    "VKRR_PARAMS(Params);\n"
    "void main()\n"
    "{\n"
    "    uvec3 g = vkrr_global_id();\n"
    "    if (g.x >= vkrr_p.width || g.y >= vkrr_p.height)\n"
    "        return;\n"
    "    VkrrF32Ptr src = vkrr_p.src;\n"
    "    VkrrF16Ptr dst = vkrr_p.dst;\n"
    "    uint i = g.y * vkrr_p.width + g.x, plane = vkrr_p.width * vkrr_p.height;\n"
    "    float v = vkrr_ld_f(src, i);\n"
    "    precise float a = v * vkrr_p.gain;\n"
    "    precise float sq = v * v;\n"
    "    precise float b = v + -0.25;\n"
    "    vkrr_st_h(dst, i, vkrr_f2h(a));\n"
    "    vkrr_st_h(dst, plane + i, vkrr_f2h(sq) + (g.x & 1u)); // WRONG_BIT\n"
    "    vkrr_st_h(dst, 2u * plane + i, vkrr_f2h(b));\n"
    "    precise float s = a + 1.0;\n"
    "    vkrr_surf2d_write_f1(vkrr_surf_handle(vkrr_p.surf), s, int(g.x) * 4, int(g.y));\n"
    "}\n";

static const char port_desc_head[] =
    "# What the port of vkrr_test_planes_kernel writes.\n"
    "# (written by test_port_user)\n";

static void put(const char *dir, const char *ext, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", dir, K, ext);
    CHECK(test_write_file(path, text, strlen(text)));
}

/* The descriptor: the two comment lines, then `lines` from line 3 on. */
static void put_desc(const char *dir, const char *lines)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", port_desc_head, lines);
    put(dir, "port", text);
}

/* One launch of the kernel at w x h, run on the CPU and recorded. */
static void record(vkrr_writer *wr, const vkrr_backend *cpu, uint32_t w, uint32_t h, float gain,
                   uint64_t src_base, uint64_t arena_base)
{
    uint64_t n = (uint64_t)w * h, arena = DELTA + 3 * n * 4 + 256; /* room for a wrong f32 */
    float *src = malloc(n * 4);
    uint8_t *apre = malloc(arena), *apost = malloc(arena), *spost = malloc(n * 4);
    uint8_t *srcpost = malloc(n * 4);
    for (uint64_t i = 0; i < n; i++)
        src[i] = 0.125f + (float)((i * 37 + 11) % 97) / 32.0f; /* 0.125 .. 3.1 */
    memset(apre, 0x5a, arena); /* no written f16 is 0x5a5a (203.25), so every byte changes */
    uint64_t arr = vkrr_writer_array_create(wr, w, h, 32, 1);
    uint64_t surf = vkrr_writer_surface_create(wr, arr, 0);
    vkrr_test_planes_params p = {src_base, arena_base + DELTA, surf, w, h, gain, 0};
    vkrr_replay_alloc al[2] = {{src_base, n * 4, src, srcpost, NULL},
                               {arena_base, arena, apre, apost, NULL}};
    vkrr_pointer ptr[2] = {{0, 0, 0}, {8, 1, DELTA}};
    vkrr_replay_image im = {.offset = 16, .kind = VKRR_IMAGE_SURFACE, .handle = surf, .width = w,
                            .height = h, .channels = 1, .format = 32, .post = spost};
    vkrr_replay r = {K, {(w + 7) / 8, (h + 7) / 8, 1}, {8, 8, 1}, 0, (const uint8_t *)&p,
                     sizeof p, al, 2, ptr, 2, &im, 1, NULL, NULL, 0, NULL, NULL, NULL, NULL};
    vkrr_error err = {0};
    if (!CHECK(cpu->run(cpu->self, &r, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    vkrr_alloc_record ar[2] = {{src_base, n * 4, src, srcpost}, {arena_base, arena, apre, apost}};
    vkrr_pointer_record pr[2] = {{0, 0, 0}, {8, 1, DELTA}};
    vkrr_image_record ir = {.offset = 16, .kind = VKRR_IMAGE_SURFACE, .handle = surf, .width = w,
                            .height = h, .channels = 1, .format = 32, .post = spost};
    vkrr_launch_record rec = {K, {r.grid[0], r.grid[1], 1}, {8, 8, 1}, 0, &p, sizeof p,
                              ar, 2, pr, 2, &ir, 1, NULL};
    if (!CHECK(vkrr_writer_launch(wr, &rec, NULL, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    free(src), free(apre), free(apost), free(spost), free(srcpost);
}

static void make_capture(const char *cap)
{
    vkrr_backend cpu;
    vkrr_error err = {0};
    vkrr_writer *wr = NULL;
    CHECK(vkrr_test_kernels_register());
    CHECK(vkrr_cpu_backend_create(&cpu, &err) == VKRR_OK);
    CHECK(cpu.has_kernel(cpu.self, K));
    CHECK(vkrr_writer_open(&wr, &(vkrr_writer_desc){.dir = cap, .log_prefix = "[d4r nvcuda] "},
                           &err) == VKRR_OK);
    record(wr, &cpu, 24, 10, 1.5f, 0x7e0000000000ull, 0x7e1000000000ull);
    record(wr, &cpu, 16, 6, 0.75f, 0x7e2000000000ull, 0x7e3000000000ull);
    CHECK(vkrr_writer_close(wr, &err) == VKRR_OK);
    cpu.destroy(cpu.self);
}

static int validate(const char *cap, const char *ports, const char *extra, char **out, char **err)
{
    char args[16384];
    snprintf(args, sizeof args, "validate '%s' --ports '%s' --mode isolated --heatmaps none -q %s",
             cap, ports, extra);
    return test_run_vkrr(args, out, err);
}

/* The port through files only: passes typed; the heatmap tiles 3 planes. */
static void check_right_type(const char *root, const char *cap, const char *ports)
{
    put(ports, "comp", port_comp);
    put_desc(ports, "output arg8 f16 width=u32@24 height=u32@28 channels=3 layout=planar\n"
                    "output arg16 f32    # the FLOAT x1 surface\n");
    char args[16384], *out = NULL, *err = NULL;
    snprintf(args, sizeof args,
             "validate '%s' --ports '%s' --only %s --heatmaps all --out '%s/out' --json '%s/v.json'",
             cap, ports, K, root, root);
    int rc = test_run_vkrr(args, &out, &err);
    CHECK_EQ_U64(rc, 0);
    CHECK(out && strstr(out, "2 PASS, 0 FAIL"));
    if (rc)
        fprintf(stderr, "--- stdout\n%s\n--- stderr\n%s\n", out ? out : "", err ? err : "");
    free(out), free(err);
    snprintf(args, sizeof args, "%s/v.json", root);
    char *json = test_read_file(args, NULL);
    /* the window as three 24x10 f16 planes, max 1 ULP (the deliberate bit) */
    CHECK(json && strstr(json, "\"offset\": 8, \"kind\": \"buffer\", \"type\": \"f16\", \"base\": "
                               "\"0x7e1000000000\", \"window_offset\": 256, \"width\": 24, "
                               "\"height\": 10, \"planes\": 3, \"channels\": 1, \"pass\": true"));
    CHECK(json && strstr(json, "\"width\": 16, \"height\": 6, \"planes\": 3, \"channels\": 1, "
                               "\"pass\": true, \"exact_pct\": 83.33"));
    CHECK(json && strstr(json, "\"max_ulp\": 1, \"psnr\""));
    CHECK(json && strstr(json, "\"offset\": 16, \"kind\": \"surface\", \"type\": \"f32\""));
    free(json);
    /* the heatmap of the 24x10 window: the 3-plane grid layout, not one plane's */
    vkrr_heatmap_layout l3, l1;
    vkrr_error e = {0};
    vkrr_heatmap_desc d = {.view = {.width = 24, .height = 10, .planes = 3, .channels = 1},
                           .grid = true, .title = "t"};
    CHECK(vkrr_heatmap_layout_of(&d, &l3, &e) == VKRR_OK);
    d.view.planes = 1;
    CHECK(vkrr_heatmap_layout_of(&d, &l1, &e) == VKRR_OK);
    CHECK(l3.cols == 2 && l3.rows == 2 && (l3.width != l1.width || l3.height != l1.height));
    char png[4096];
    snprintf(args, sizeof args, "%s/out/heatmaps", root);
    CHECK(vkrr_heatmap_path(png, sizeof png, args, 1, K, 8, -1));
    size_t len = 0;
    unsigned char *p = (unsigned char *)test_read_file(png, &len);
    CHECK(p && len > 24 && !memcmp(p + 1, "PNG", 3));
    if (p && len > 24) {
        uint32_t pw = (uint32_t)p[16] << 24 | p[17] << 16 | p[18] << 8 | p[19];
        uint32_t ph = (uint32_t)p[20] << 24 | p[21] << 16 | p[22] << 8 | p[23];
        CHECK_EQ_U64(pw, l3.width);
        CHECK_EQ_U64(ph, l3.height);
    }
    free(p);
}

/* The same bytes read as the wrong type: the 1-ULP f16 error of every high
 * half becomes 65536 f32 ULP, and the launch fails, measured in f32. */
static void check_wrong_type(const char *root, const char *cap, const char *ports)
{
    put_desc(ports, "output arg8 f32 width=u32@24 height=u32@28 channels=3 layout=planar\n"
                    "output arg16 f32\n");
    char args[16384], *out = NULL;
    snprintf(args, sizeof args, "validate '%s' --ports '%s' --mode isolated --heatmaps none "
                                "--json '%s/w.json'", cap, ports, root);
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 1);
    CHECK(out && strstr(out, "0 PASS, 2 FAIL") && strstr(out, "buffer arg8"));
    CHECK(out && strstr(out, "65536"));
    free(out);
    snprintf(args, sizeof args, "%s/w.json", root);
    char *json = test_read_file(args, NULL);
    CHECK(json && strstr(json, "\"offset\": 8, \"kind\": \"buffer\", \"type\": \"f32\""));
    CHECK(json && strstr(json, "\"pass\": false") && strstr(json, "\"max_ulp\": 65536, \"psnr\""));
    free(json);
}

/* The descriptor's tolerance applies; a --tolerance file and --max-ulp win over it. */
static void check_tolerance(const char *root, const char *cap, const char *ports)
{
    put_desc(ports, "output arg8 f16 width=u32@24 height=u32@28 planes=3 max_ulp=0\n"
                    "output arg16 f32\n");
    char *out = NULL, extra[4200], tol[4096];
    CHECK_EQ_U64(validate(cap, ports, "", &out, NULL), 1);
    CHECK(out && strstr(out, "2 FAIL"));
    free(out);
    snprintf(tol, sizeof tol, "%s/tol.txt", root);
    const char *rule = "vkrr_test_planes_kernel arg8 max_ulp=1\n";
    CHECK(test_write_file(tol, rule, strlen(rule)));
    snprintf(extra, sizeof extra, "--tolerance '%s'", tol);
    CHECK_EQ_U64(validate(cap, ports, extra, &out, NULL), 0);
    free(out);
    snprintf(extra, sizeof extra, "--tolerance '%s' --max-ulp 0", tol);
    CHECK_EQ_U64(validate(cap, ports, extra, &out, NULL), 1);
    free(out);
}

/* Each malformed descriptor (at line 3): exit 2, "FILE:3:" and the field named. */
static void check_malformed(const char *cap, const char *ports)
{
    static const char *const cases[][2] = {
        {"outptu arg8 f16 width=4", "'outptu'"},
        {"output argX f16 width=4", "'argX'"},
        {"output arg8 f17 width=4", "'f17'"},
        {"output arg8 f16 widht=4", "'widht=4': unknown key"},
        {"output arg8 f16 width=u32@", "'width=u32@'"},
        {"output arg8 f16 width=(u32@24", "'width=(u32@24': a '(' is not closed"},
        {"output arg8 f16 width=u32@24+", "'width=u32@24+'"},
        {"output arg8 f16 width=4 width=5", "'width=5': width is given twice"},
        {"output arg8 f16 width=4 max_ulp=-1", "'max_ulp=-1'"},
        {"output arg8 f16 width=4 layout=diagonal", "'layout=diagonal'"},
        {"output arg8 f16 width=u32@40", "'width=u32@40': bytes 40..43 are past the 40-byte parameter block"},
        {"output arg40 f16 width=4", "arg40: the word at byte 40 is past the 40-byte parameter block"},
        {"output arg8 f16 offset=100000 width=u32@24", "arg8: the window"},
        {"output arg8 f16 width=u32@24 height=u32@28 planes=100", "is outside the"},
        {"output arg8 f16 offset=-300 width=4", "arg8: the window"},
        {"output arg24 f16 width=4", "arg24: neither a pointer nor a surface"},
        {"output arg16 f32 width=4", "'width=4': arg16 is a surface"},
        {"output arg8 f16 width=u32@36", "'width=u32@36': width is 0"},
        {"output arg8 f16 width=u32@24/u32@36", "'width=u32@24/u32@36': division by zero"},
        {"output arg8 f16", "arg8: a pointer"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char lines[512], want[4200], *out = NULL, *err = NULL;
        snprintf(lines, sizeof lines, "%s\n", cases[i][0]);
        put_desc(ports, lines);
        int rc = validate(cap, ports, "", &out, &err);
        snprintf(want, sizeof want, "%s/%s.port:3: ", ports, K);
        bool ok = rc == 2 && err && strstr(err, want) && strstr(err, cases[i][1]) &&
                  out && !strstr(out, "summary:");
        if (!CHECK(ok))
            fprintf(stderr, "    case '%s': rc %d, stderr: %s", cases[i][0], rc, err ? err : "");
        free(out), free(err);
    }
}

/* `vkrr port new`: a compiling skeleton naming what the kernel writes, and
 * validate runs it (nothing written yet) as FAIL with the unwritten count. */
static void check_port_new(const char *root, const char *cap)
{
    char skel[4096], args[8192], path[4200], *out = NULL, *err = NULL;
    snprintf(skel, sizeof skel, "%s/skel", root);
    snprintf(args, sizeof args, "port new %s '%s' --out '%s'", K, cap, skel);
    CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 0);
    CHECK(out && strstr(out, "compiles"));
    free(out), free(err);
    snprintf(path, sizeof path, "%s/%s.port", skel, K);
    vkrr_portdesc *d = NULL;
    vkrr_error e = {0};
    CHECK(vkrr_portdesc_load(&d, path, &e) == VKRR_OK);
    uint32_t a[8], n = d ? vkrr_portdesc_args(d, a, 8) : 0;
    CHECK(n == 2 && a[0] == 8 && a[1] == 16);
    vkrr_portdesc_destroy(d);
    char *text = test_read_file(path, NULL);
    CHECK(text && strstr(text, "output arg8 f16 width=u32@24 height=u32@28 planes=3") &&
          strstr(text, "GUESS") && strstr(text, "output arg16 f32"));
    free(text);
    snprintf(path, sizeof path, "%s/%s.comp", skel, K);
    text = test_read_file(path, NULL);
    CHECK(text && strstr(text, "VkrrF16Ptr arg8;") && strstr(text, "uint64_t arg16;") &&
          strstr(text, "uint arg24;    // = 24 (0x00000018)") && strstr(text, "as f32 1.5"));
    free(text);
    /* an existing file is not overwritten without --force */
    CHECK(test_write_file(path, "keep", 4));
    CHECK_EQ_U64(test_run_vkrr(args, NULL, &err), 2);
    CHECK(err && strstr(err, "--force"));
    free(err);
    text = test_read_file(path, NULL);
    CHECK(text && !strcmp(text, "keep"));
    free(text);
    snprintf(args, sizeof args, "port new %s '%s' --out '%s' --force", K, cap, skel);
    CHECK_EQ_U64(test_run_vkrr(args, NULL, NULL), 0);
    /* the skeleton runs: FAIL, every surface texel unwritten, every buffer
     * element left at its pre-launch bytes */
    snprintf(args, sizeof args, "validate '%s' --ports '%s' --only %s --heatmaps none", cap, skel, K);
    CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 1);
    CHECK(out && strstr(out, "0 PASS, 2 FAIL, 0 NO PORT, 0 TIMEOUT, 0 ERROR"));
    CHECK(out && strstr(out, "240 unwritten") && strstr(out, "96 unwritten"));
    CHECK(out && strstr(out, "720 the port left at their pre-launch bytes where CUDA wrote"));
    free(out), free(err);
}

int main(void)
{
    char *root = test_tmpdir("test_port_user");
    char cap[1024], ports[1024], cmd[2200];
    snprintf(cap, sizeof cap, "%s/cap", root);
    snprintf(ports, sizeof ports, "%s/ports", root);
    make_capture(cap);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", ports);
    CHECK(system(cmd) == 0);
    check_right_type(root, cap, ports);
    check_wrong_type(root, cap, ports);
    check_tolerance(root, cap, ports);
    check_malformed(cap, ports);
    check_port_new(root, cap);
    int rc = test_finish("port_user");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
