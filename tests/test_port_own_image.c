/* test_port_own_image: images in a port with its own interface (issue 48
 * item 2): a texture's HALF x4 CUDA array as a combined image sampler and a
 * surface's HALF x4 array as an `rgba16f` storage image, validated on
 * lavapipe against captures this test writes with the capture writer.
 *
 * The kernel, vkrr_own_image_kernel(cudaTextureObject_t tex,
 * cudaSurfaceObject_t surf, uint w, uint h, float gain), 16 x 8 texels,
 * CUDA's grid 1 x 1 of 16 x 8: surf(x, y) = tex2D(tex, ...) * gain.  Its
 * expected values are computed here, in C, and rounded to f16 once:
 *   - nearest: the capture's texture samples with point filtering at
 *     texel (x, y) exactly; the port reads texelFetch through a
 *     `sampler=nearest` combined image sampler: every value exact (-0.0 at
 *     one texel stays -0.0), PASS, and the row notes that the sampler is
 *     the device's;
 *   - linear: the capture's texture filters linearly (normalized, clamp),
 *     read at (x + 0.75, y + 0.5) / (w, h): 0.75 T[x] + 0.25 T[x + 1]; the
 *     port samples with `sampler=captured` (a linear VkSampler), PASS
 *     within the output's declared atol, with the note;
 *   - the shader wrong at one texel: FAIL (exit 1);
 *   - formats that convert: the HALF x4 arrays bound as rgba32f (texture
 *     and surface; the shader declares rgba32f): PASS, exact, the values
 *     rounded back to f16 on read-back; off by 0.1 at one texel (over the atol): FAIL;
 *   - a separate sampled image and a sampler stated alone ('-'), combined
 *     in the shader: PASS; without the sampler line: refused;
 *   - the texture as an rgba16f storage image read with imageLoad: PASS;
 *     wrong at one texel: FAIL;
 *   - refused, exit 2, naming the .port file, its line and the binding:
 *     format=rgba32f where the shader declares rgba16f (the array maps onto
 *     both, the shader disagrees); format=rgba8ui (no mapping from HALF x4);
 *     a storage image the port leaves empty.
 * SPIRV-Cross is a build dependency (scripts/deps.sh), so nothing skips. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture_write.h"
#include "fpformat.h"
#include "testutil.h"

#define KERNEL "vkrr_own_image_kernel"
#define W 16u
#define H 8u
#define GAIN 2.0f

static char *root;

static const char shader_nearest[] =
    "#version 460\n"
    "layout(local_size_x = 8, local_size_y = 8) in;\n"
    "layout(set = 0, binding = 0) uniform sampler2D src;\n"
    "layout(set = 0, binding = 1, rgba16f) writeonly uniform image2D dst;\n"
    "layout(push_constant) uniform P { uint w, h; float gain; } pc;\n"
    "void main()\n{\n"
    "    ivec2 p = ivec2(gl_GlobalInvocationID.xy);\n"
    "    if (p.x >= int(pc.w) || p.y >= int(pc.h))\n"
    "        return;\n"
    "    vec4 v = READ;\n"
    "    imageStore(dst, p, v * pc.gain BUG);\n"
    "}\n";

/* The storage image's declared format (the shader's layout qualifier), and
 * the texture's declaration (NULL: binding 0's combined sampler2D). */
static const char *shader_format = "rgba16f";
static const char *src_decl;

static const char read_nearest[] = "texelFetch(src, p, 0)";
static const char read_linear[] = "textureLod(src, (vec2(p) + vec2(0.75, 0.5)) / vec2(pc.w, pc.h), 0.0)";

static const char *const port_lines[] = {
    "# " KERNEL ": images of its own",                                      /* 1 */
    "interface own",                                                         /* 2 */
    "workgroup 8 8 1",                                                       /* 3 */
    "dispatch (u32@16+7)/8 (u32@20+7)/8 1",                                  /* 4 */
    "binding 0.0 combined-image-sampler arg0 format=rgba16f sampler=nearest", /* 5 */
    "binding 0.1 storage-image arg8 format=rgba16f",                         /* 6 */
    "push 0 u32 u32@16",                                                     /* 7 */
    "push 4 u32 u32@20",                                                     /* 8 */
    "push 8 f32 f32@24",                                                     /* 9 */
    "output arg8 f16 atol=0.01",                                             /* 10 */
};
#define NLINES (sizeof port_lines / sizeof port_lines[0])

static float texel(uint32_t x, uint32_t y, uint32_t c)
{
    if (x == 1 && y == 1 && c == 0)
        return -0.0f;
    return (float)((int)((x * 7 + y * 3 + c * 5) % 17) - 8) / 4.0f;
}

/* A capture of one launch; linear: the texture filters linearly. */
static void write_capture(const char *dir, bool linear)
{
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] "},
                                &err) == VKRR_OK))
        return;
    static uint16_t tex[W * H * 4], out[W * H * 4];
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++)
            for (uint32_t c = 0; c < 4; c++) {
                tex[(y * W + x) * 4 + c] = vkrr_f32_to_f16_rne(texel(x, y, c));
                double v = texel(x, y, c);
                if (linear) /* CUDA: xB = px + 0.25, weights 0.75 / 0.25, clamped at the edge */
                    v = 0.75 * texel(x, y, c) + 0.25 * texel(x + 1 < W ? x + 1 : W - 1, y, c);
                out[(y * W + x) * 4 + c] = vkrr_f32_to_f16_rne((float)(v * GAIN));
            }
    uint64_t ta = vkrr_writer_array_create(w, W, H, 16, 4), sa = vkrr_writer_array_create(w, W, H, 16, 4);
    vkrr_sampler s = {.filter = linear ? VKRR_FILTER_LINEAR : VKRR_FILTER_POINT,
                      .address = {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP},
                      .normalized = linear, .from_log = true};
    uint64_t th = vkrr_writer_texture_create(w, ta, &s, 0), sh = vkrr_writer_surface_create(w, sa, 0);
    struct { uint64_t tex, surf; uint32_t w, h; float gain; uint32_t pad; } p = {th, sh, W, H, GAIN, 0};
    vkrr_image_record ir[2] = {
        {.offset = 0, .kind = VKRR_IMAGE_TEXTURE, .handle = th, .width = W, .height = H, .channels = 4,
         .format = 16, .post = tex},
        {.offset = 8, .kind = VKRR_IMAGE_SURFACE, .handle = sh, .width = W, .height = H, .channels = 4,
         .format = 16, .post = out}};
    vkrr_status st = vkrr_writer_launch(
        w, &(vkrr_launch_record){.kernel = KERNEL, .grid = {1, 1, 1}, .block = {W, H, 1}, .args = &p,
                                 .args_bytes = sizeof p, .images = ir, .nimages = 2},
        NULL, &err);
    if (!CHECK(st == VKRR_OK))
        vkrr_error_print(&err, stderr);
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
}

/* A ports folder `name`: the shader with READ and BUG (empty, or "+ EXPR":
 * nothing is added by default, so the -0.0 texel stays -0.0), the descriptor with
 * line `replace` (1-based; 0 none) replaced by `with` (NULL: dropped). */
static void write_port(const char *name, const char *read, const char *bug, unsigned replace,
                       const char *with, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", root, name);
    CHECK_EQ_U64(test_sh("mkdir -p '%s'", dir), 0);
    char path[4400], text[4096];
    const char *main_at = strstr(shader_nearest, "void main"), *fmt_at = strstr(shader_nearest, "rgba16f)");
    const char *src_at = strstr(shader_nearest, "layout(set = 0, binding = 0)"), *src_end = strchr(src_at, '\n') + 1;
    size_t n = (size_t)snprintf(text, sizeof text, "%.*s%s\n%.*s%s%.*s#define READ %s\n#define BUG %s\n%s",
                                (int)(src_at - shader_nearest), shader_nearest,
                                src_decl ? src_decl : "layout(set = 0, binding = 0) uniform sampler2D src;",
                                (int)(fmt_at - src_end), src_end, shader_format,
                                (int)(main_at - fmt_at - 7), fmt_at + 7, read, bug, main_at);
    snprintf(path, sizeof path, "%s/%s.comp", dir, KERNEL);
    CHECK(test_write_file(path, text, n));
    n = 0;
    for (unsigned k = 1; k <= NLINES; k++) {
        const char *l = k == replace ? with : port_lines[k - 1];
        if (l)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s\n", l);
    }
    snprintf(path, sizeof path, "%s/%s.port", dir, KERNEL);
    CHECK(test_write_file(path, text, n));
}

/* vkrr validate CAP --ports DIR exits want, its output holding each of
 * `has` (testutil.h); else what it printed. */
#define VALIDATE(cap, dir, want, ...) \
    test_validate_ports_at(__FILE__, __LINE__, cap, dir, want, (const char *const[]){__VA_ARGS__, NULL})

static void refused(const char *cap, const char *name, unsigned replace, const char *with,
                    unsigned line, const char *what, int caller)
{
    char dir[4096], where[4300];
    write_port(name, read_nearest, "", replace, with, dir, sizeof dir);
    snprintf(where, sizeof where, "%s/%s.port:%u: ", dir, KERNEL, line);
    test_validate_ports_at(__FILE__, caller, cap, dir, 2, (const char *const[]){where, what, NULL});
}
#define REFUSED(name, replace, with, line, what) refused(cap, name, replace, with, line, what, __LINE__)

/* The JSON row: status and the sampler note. */
static void check_json(const char *dir, const char *status)
{
    CHECK_EQ_U64(test_sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
                         "l = d['launches'][0]; assert l['status'] == '%s', l; "
                         "assert \\\"sampler: the device's, not NVIDIA's (binding 0.0\\\" in l['note'], l\" "
                         "'%s/out.json'", status, dir), 0);
}

int main(void)
{
    root = test_tmpdir("test_port_own_image");
    char cap[4096], capl[4096], dir[4096];
    snprintf(cap, sizeof cap, "%s/cap", root);
    snprintf(capl, sizeof capl, "%s/cap_linear", root);
    write_capture(cap, false);
    write_capture(capl, true);

    write_port("nearest", read_nearest, "", 0, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 0, "PASS");
    check_json(dir, "PASS");
    CHECK_EQ_U64(test_sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
                         "l = d['launches'][0]; r = {x['offset']: x for x in l['resources']}; "
                         "o = r[8]; assert o['output'] and o['type'] == 'f16', o; "
                         "assert o['exact_pct'] == 100 and o['max_ulp'] == 0, o\" '%s/out.json'", dir), 0);
    write_port("wrong", read_nearest, "+ (p == ivec2(3, 2) ? 1.0 : 0.0)", 0, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 1, "FAIL");

    write_port("linear", read_linear, "", 5,
               "binding 0.0 combined-image-sampler arg0 format=rgba16f sampler=captured", dir, sizeof dir);
    VALIDATE(capl, dir, 0, "PASS");
    check_json(dir, "PASS");
    /* the same port without the output's atol: the device's filtering is
     * still within f16's default tolerance or exact; a nearest sampler where
     * CUDA filtered linearly is not */
    write_port("linear_as_nearest", read_linear, "", 5,
               "binding 0.0 combined-image-sampler arg0 format=rgba16f sampler=nearest", dir, sizeof dir);
    VALIDATE(capl, dir, 1, "FAIL");

    /* formats that convert: the HALF x4 arrays as rgba32f, texture and
     * surface; each value goes in widened and comes back rounded to f16,
     * exact here, -0.0 included */
    shader_format = "rgba32f";
    write_port("convert", read_nearest, "", 5,
               "binding 0.0 combined-image-sampler arg0 format=rgba32f sampler=nearest", dir, sizeof dir);
    CHECK_EQ_U64(test_sh("sed -i 's/^binding 0.1 storage-image arg8 format=rgba16f/binding 0.1 "
                         "storage-image arg8 format=rgba32f/' '%s/" KERNEL ".port'", dir), 0);
    VALIDATE(cap, dir, 0, "PASS");
    CHECK_EQ_U64(test_sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
                         "l = d['launches'][0]; r = {x['offset']: x for x in l['resources']}; "
                         "o = r[8]; assert o['exact_pct'] == 100 and o['max_ulp'] == 0, o\" '%s/out.json'",
                         dir), 0);
    write_port("convert_wrong", read_nearest, "+ (p == ivec2(9, 7) ? 0.1 : 0.0)", 6,
               "binding 0.1 storage-image arg8 format=rgba32f", dir, sizeof dir);
    VALIDATE(cap, dir, 1, "FAIL");
    shader_format = "rgba16f";

    /* a separate sampled image and a sampler of no texture ('-'), combined
     * in the shader */
    src_decl = "layout(set = 0, binding = 0) uniform texture2D srcT;\n"
               "layout(set = 0, binding = 2) uniform sampler smp;";
    write_port("separate", "texelFetch(sampler2D(srcT, smp), p, 0)", "", 5,
               "binding 0.0 sampled-image arg0 format=rgba16f\n"
               "binding 0.2 sampler - sampler=nearest address=clamp normalized=0", dir, sizeof dir);
    VALIDATE(cap, dir, 0, "PASS", "sampler: the device's, not NVIDIA's (binding 0.2");
    write_port("separate_empty", "texelFetch(sampler2D(srcT, smp), p, 0)", "", 5,
               "binding 0.0 sampled-image arg0 format=rgba16f", dir, sizeof dir);
    VALIDATE(cap, dir, 2, KERNEL ".port:2: binding 0.2: the shader declares a sampler there (smp)");
    src_decl = NULL;

    /* the texture as a storage image, read with imageLoad */
    src_decl = "layout(set = 0, binding = 0, rgba16f) readonly uniform image2D srcI;";
    write_port("tex_storage", "imageLoad(srcI, p)", "", 5,
               "binding 0.0 storage-image arg0 format=rgba16f", dir, sizeof dir);
    VALIDATE(cap, dir, 0, "PASS");
    write_port("tex_storage_wrong", "imageLoad(srcI, p)", "+ (p == ivec2(0, 0) ? 1.0 : 0.0)", 5,
               "binding 0.0 storage-image arg0 format=rgba16f", dir, sizeof dir);
    VALIDATE(cap, dir, 1, "FAIL");
    src_decl = NULL;

    REFUSED("format_shader", 6, "binding 0.1 storage-image arg8 format=rgba32f", 6,
            "binding 0.1: the port gives format=rgba32f, the shader declares rgba16f (dst)");
    REFUSED("format_array", 6, "binding 0.1 storage-image arg8 format=rgba8ui", 6,
            "binding 0.1: format=rgba8ui does not fit arg8's CUDA array (HALF x 4");
    REFUSED("empty", 6, NULL, 2,
            "binding 0.1: the shader declares a storage image there (dst) and the port leaves it empty");
    REFUSED("sampled_kind", 5, "binding 0.0 sampled-image arg0 format=rgba16f", 5,
            "binding 0.0: the port binds a sampled image, the shader declares a combined image sampler (src)");

    int rc = test_finish("port_own_image");
    if (rc == 0 && !getenv("KEEPTMP"))
        test_rmtree(root);
    free(root);
    return rc;
}
