/* test_port_own: a port whose shader has its own interface (`interface own`,
 * src/port/portiface.h, vkbridge/vkiface.c), validated on lavapipe against
 * a capture this test writes with the capture writer.
 *
 * The kernel, vkrr_own_scale_kernel(const float *src, float *dst, uint n,
 * float scale), captured with CUDA's grid 32 x block 32: dst[i] = src[i] *
 * scale for i < n = 1000, dst pointing 256 bytes into its allocation (the
 * bytes before and after its window are left as they were).  Its port
 * includes no vkrr header: two storage buffers at set 0 bindings 0 and 1, a
 * push-constant block {uint n; float scale;}, a float specialisation
 * constant OFFSET (id 3, default 100: added to every result, so the port's
 * `specialize 3 f32 0.0` line is what makes it right) and a 64x1x1
 * workgroup over a grid of its own, ceil(n / 64).  The expected values are
 * computed here, in C: src[i] = (i mod 97) / 4 - 3 and scale 3 make every
 * product exact in f32.
 *   - as written: PASS (exit 0), the output exact; README's example too
 *     (its shader and descriptor, as printed there);
 *   - the shader wrong by one at i = 5: FAIL (exit 1);
 *   - no specialize line (OFFSET stays 100): FAIL;
 *   - dispatch 1 1 1 (64 of the 1000 written): FAIL;
 *   - the shader as stripped SPIR-V (.spv, no names): PASS, and a binding
 *     left empty refused all the same;
 *   - the shader's local size from local_size_x_id / _y_id: workgroup 64 1 1
 *     PASSes, workgroup 16 1 1 (a quarter written) FAILs, and a specialize
 *     line for that constant is refused;
 *   - a uniform buffer at set 1 over src's first 16 bytes, added as
 *     (v.x + 3) = 0: PASS; over bytes 16..31 (src[4] = -2): FAIL;
 *   - each descriptor the shader does not match refused before any launch
 *     runs, exit 2, naming the .port file, its line and the binding: a
 *     binding the shader declares left empty, one it lacks, a uniform buffer
 *     where it has a storage buffer, a push past its block, a workgroup not
 *     its local size, a specialisation constant it lacks; and a window
 *     outside the allocation, a texel buffer line (not yet supported), a
 *     binding line without `interface own`.
 * SPIRV-Cross is a build dependency (scripts/deps.sh), so nothing here skips. */
#include <stdlib.h>
#include <string.h>

#include "capture_write.h"
#include "testutil.h"

#define KERNEL "vkrr_own_scale_kernel"
#define N 1000u
#define SRC_BASE 0x7f0000000000ull
#define DST_BASE 0x7f0000100000ull
#define DST_DELTA 256u
#define DST_BYTES (DST_DELTA + 4 * N + 96)

static char *root;

static const char shader[] =
    "#version 460\n"
    "// " KERNEL ", ported with its own bindings (no vkrr header)\n"
    "layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;\n"
    "layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };\n"
    "layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };\n"
    "layout(push_constant, std430) uniform Push { uint n; float scale; } pc;\n"
    "layout(constant_id = 3) const float OFFSET = 100.0;\n"
    "void main()\n{\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i < pc.n)\n"
    "        dst[i] = src[i] * pc.scale + OFFSET + BUG;\n"
    "}\n";

/* The descriptor, a line each (line k of the file is lines[k - 1]). */
static const char *const port_lines[] = {
    "# " KERNEL ": a shader with its own interface",  /* 1 */
    "interface own",                                  /* 2 */
    "workgroup 64 1 1",                               /* 3 */
    "dispatch (u32@16+63)/64 1 1",                    /* 4 */
    "binding 0.0 storage-buffer arg0 size=u32@16*4",  /* 5 */
    "binding 0.1 storage-buffer arg8 size=u32@16*4",  /* 6 */
    "push 0 u32 u32@16",                              /* 7 */
    "push 4 f32 f32@20",                              /* 8 */
    "specialize 3 f32 0.0",                           /* 9 */
    "output arg8 f32 width=u32@16",                   /* 10 */
};
#define NLINES (sizeof port_lines / sizeof port_lines[0])

/* A ports folder `name`: the shader with BUG defined as bug (its first line;
 * lines after it are declarations added before main), and the
 * descriptor with line `replace` (1-based; 0: none) replaced by `with`
 * (NULL: dropped) and `extra` (NULL: none) appended. */
static const char *local_size; /* NULL: the shader's literal local size; else its layout line */

static void write_port(const char *name, const char *bug, unsigned replace, const char *with,
                       const char *extra, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", root, name);
    CHECK_EQ_U64(test_sh("mkdir -p '%s'", dir), 0);
    char path[4400], text[4096];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s.comp", dir, KERNEL);
    const char *at = strstr(shader, "void main"), *ls = strstr(shader, "layout(local_size_x = 64");
    const char *after = strchr(ls, '\n') + 1;
    if (local_size)
        n = (size_t)snprintf(text, sizeof text, "%.*s%s\n%.*s#define BUG %s\n%s", (int)(ls - shader),
                             shader, local_size, (int)(at - after), after, bug, at);
    else
        n = (size_t)snprintf(text, sizeof text, "%.*s#define BUG %s\n%s", (int)(at - shader), shader,
                             bug, at);
    CHECK(test_write_file(path, text, n));
    n = 0;
    for (unsigned k = 1; k <= NLINES; k++) {
        const char *l = k == replace ? with : port_lines[k - 1];
        if (l)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s\n", l);
    }
    if (extra)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s\n", extra);
    snprintf(path, sizeof path, "%s/%s.port", dir, KERNEL);
    CHECK(test_write_file(path, text, n));
}

static void write_capture(const char *dir)
{
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] "},
                                &err) == VKRR_OK))
        return;
    static float src[N];
    static uint8_t pre[DST_BYTES], post[DST_BYTES];
    for (uint32_t i = 0; i < N; i++)
        src[i] = (float)(i % 97) / 4.0f - 3.0f;
    for (uint32_t i = 0; i < DST_BYTES; i++)
        pre[i] = (uint8_t)(i * 13 + 5);
    memcpy(post, pre, sizeof post);
    for (uint32_t i = 0; i < N; i++)
        test_putf32(post + DST_DELTA + 4 * i, src[i] * 3.0f);
    struct { uint64_t src, dst; uint32_t n; float scale; } p = {SRC_BASE, DST_BASE + DST_DELTA, N, 3.0f};
    vkrr_alloc_record a[2] = {{SRC_BASE, sizeof src, src, src}, {DST_BASE, DST_BYTES, pre, post}};
    vkrr_pointer_record pt[2] = {{0, 0, 0}, {8, 1, DST_DELTA}};
    vkrr_status s = vkrr_writer_launch(
        w, &(vkrr_launch_record){.kernel = KERNEL, .grid = {(N + 31) / 32, 1, 1}, .block = {32, 1, 1},
                                 .args = &p, .args_bytes = sizeof p, .allocs = a, .nallocs = 2,
                                 .pointers = pt, .npointers = 2},
        NULL, &err);
    if (!CHECK(s == VKRR_OK))
        vkrr_error_print(&err, stderr);
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
}

/* vkrr validate CAP --ports DIR exits want, its output holding each of
 * `has` (testutil.h); else what it printed. */
#define VALIDATE(cap, dir, want, ...) \
    test_validate_ports_at(__FILE__, __LINE__, cap, dir, want, (const char *const[]){__VA_ARGS__, NULL})

/* A refusal: exit 2, naming the descriptor's file and line, and what. */
static void refused(const char *cap, const char *name, unsigned replace, const char *with,
                    const char *extra, unsigned line, const char *what, int caller)
{
    char dir[4096], where[4300];
    write_port(name, "0.0", replace, with, extra, dir, sizeof dir);
    snprintf(where, sizeof where, "%s/%s.port:%u: ", dir, KERNEL, line);
    test_validate_ports_at(__FILE__, caller, cap, dir, 2, (const char *const[]){where, what, NULL});
}
#define REFUSED(name, replace, with, extra, line, what) \
    refused(cap, name, replace, with, extra, line, what, __LINE__)

/* README "A shader with its own interface": its shader and descriptor, as
 * printed, are a port of this test's kernel (the README calls it
 * my_scale): written to DIR, they must PASS. */
static void readme_port(const char *cap)
{
    char path[4096], dir[4096];
    snprintf(path, sizeof path, "%s/README.md", VKRR_SOURCE_DIR);
    snprintf(dir, sizeof dir, "%s/readme", root);
    CHECK_EQ_U64(test_sh("python3 - '%s' '%s' " KERNEL " <<'PY'\n"
                         "import os, sys\n"
                         "text = open(sys.argv[1]).read()\n"
                         "sec = text.split('### A shader with its own interface', 1)[1].split('\\n## ', 1)[0]\n"
                         "glsl = sec.split('```glsl\\n', 1)[1].split('```', 1)[0]\n"
                         "port = sec.split('```\\n# ports/my_scale.port\\n', 1)[1].split('```', 1)[0]\n"
                         "os.makedirs(sys.argv[2])\n"
                         "open(os.path.join(sys.argv[2], sys.argv[3] + '.comp'), 'w').write(glsl)\n"
                         "open(os.path.join(sys.argv[2], sys.argv[3] + '.port'), 'w').write(port)\n"
                         "PY", path, dir),
                 0);
    VALIDATE(cap, dir, 0, "PASS");
}

int main(void)
{
    root = test_tmpdir("test_port_own");
    char cap[4096], dir[4096];
    snprintf(cap, sizeof cap, "%s/cap", root);
    write_capture(cap);

    write_port("good", "0.0", 0, NULL, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 0, "PASS");
    CHECK_EQ_U64(test_sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
                         "l = d['launches'][0]; r = {x['offset']: x for x in l['resources']}; "
                         "assert l['status'] == 'PASS' and sorted(r) == [0, 8], l; "
                         "o = r[8]; assert o['output'] and o['type'] == 'f32' and o['width'] == 1000, o; "
                         "assert o['window_offset'] == 256 and o['outside_window_bytes'] == 0, o; "
                         "assert o['exact_pct'] == 100 and o['max_ulp'] == 0, o; "
                         "assert r[0]['pass'] and r[0]['exact_pct'] == 100, r[0]\" '%s/out.json'",
                         dir), 0);
    readme_port(cap);
    write_port("wrong", "(i == 5u ? 1.0 : 0.0)", 0, NULL, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 1, "FAIL");
    write_port("nospec", "0.0", 9, NULL, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 1, "FAIL");
    /* a uniform buffer in set 1: src's first 16 bytes (src[0] = -3), so
     * the result is right only if it holds them */
    write_port("uniform", "(u.v.x + 3.0)\nlayout(set = 1, binding = 0, std140) uniform U { vec4 v; } u;",
               0, NULL, "binding 1.0 uniform-buffer arg0 size=16", dir, sizeof dir);
    VALIDATE(cap, dir, 0, "PASS");
    write_port("uniform_off", "(u.v.x + 3.0)\nlayout(set = 1, binding = 0, std140) uniform U { vec4 v; } u;",
               0, NULL, "binding 1.0 uniform-buffer arg0 offset=16 size=16", dir, sizeof dir);
    VALIDATE(cap, dir, 1, "FAIL"); /* src[4] = -2 */
    /* the port's grid is what runs: one workgroup writes 64 of the 1000 */
    write_port("grid", "0.0", 4, "dispatch 1 1 1", NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 1, "FAIL");

    /* SPIR-V as shipped, not GLSL: the .comp compiled by glslangValidator,
     * its names stripped by spirv-opt (both build dependencies) */
    write_port("spv", "0.0", 0, NULL, NULL, dir, sizeof dir);
    CHECK_EQ_U64(test_sh("cd '%s' && glslangValidator -V --target-env vulkan1.2 -o k.spv " KERNEL
                         ".comp >/dev/null && spirv-opt --strip-debug k.spv -o " KERNEL ".spv && "
                         "rm k.spv " KERNEL ".comp", dir), 0);
    VALIDATE(cap, dir, 0, "PASS");
    CHECK_EQ_U64(test_sh("cd '%s' && grep -v '^binding 0.1' " KERNEL ".port > p && mv p " KERNEL ".port",
                         dir), 0);
    VALIDATE(cap, dir, 2, "vkrr_own_scale_kernel.port:2: binding 0.1: the shader declares a storage buffer there");
    /* a local size from specialisation constants: the workgroup line sets it */
    local_size = "layout(local_size_x_id = 0, local_size_y_id = 1) in;";
    write_port("local_id", "0.0", 0, NULL, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 0, "PASS");
    write_port("local_id_short", "0.0", 3, "workgroup 16 1 1", NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 1, "FAIL"); /* 16 wide over (n+63)/64 groups: a quarter written */
    REFUSED("local_id_spec", 0, NULL, "specialize 0 u32 64", 11,
            "specialize 0: that constant is the shader's local size (local_size_x_id): give it with 'workgroup'");
    local_size = NULL;

    REFUSED("empty", 6, NULL, NULL, 2,
            "binding 0.1: the shader declares a storage buffer there (Dst) and the port leaves it empty");
    REFUSED("lacks", 0, NULL, "binding 0.2 storage-buffer arg8", 11,
            "binding 0.2: the shader declares no such binding");
    REFUSED("kind", 5, "binding 0.0 uniform-buffer arg0 size=u32@16*4", NULL, 5,
            "binding 0.0: the port binds a uniform buffer, the shader declares a storage buffer (Src)");
    REFUSED("push", 0, NULL, "push 8 u32 1", 11,
            "push 8: bytes 8..11 are beyond the shader's push-constant block (8 bytes, pc)");
    REFUSED("workgroup", 3, "workgroup 32 1 1", NULL, 3,
            "workgroup 32 1 1: the shader's local size is 64 1 1");
    REFUSED("spec", 9, "specialize 4 f32 0.0", NULL, 9,
            "specialize 4: the shader has no specialisation constant 4");
    REFUSED("window", 6, "binding 0.1 storage-buffer arg8 size=u32@16*5", NULL, 6,
            "binding 0.1: 5000 bytes from byte 256 are not inside arg8's 4352-byte allocation");
    REFUSED("image", 0, NULL, "binding 0.2 storage-texel-buffer arg8", 11,
            "binding 0.2: storage-texel-buffer bindings are not yet supported");
    REFUSED("noiface", 2, "# (no interface line)", NULL, 3,
            "'workgroup' describes a shader's own interface: it needs 'interface own' above it");

    int rc = test_finish("port_own");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
