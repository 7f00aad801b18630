/* test_port_split: one CUDA launch ported as two dispatches with a buffer of
 * the port's own between them (`pass` and `scratch` lines, src/port/portpass.h,
 * vkbridge/vkpass.c), validated on lavapipe against a capture this test
 * writes with the capture writer.
 *
 * The kernel, vkrr_split_kernel(const float *src, float *dst, uint n),
 * captured with CUDA's grid 32 x block 32: dst[i] = src[i] + the sum of the
 * 64-element group src[i] is in (i / 64), for i < n = 1000, dst pointing 256
 * bytes into its allocation.  Its port is split the way a production port
 * splits a reduction: pass 1 (vkrr_split_sum.comp, shader= of its own) sums
 * each group into `scratch partial` (one float a group); pass 2 (the
 * kernel's own shader) adds the group's sum to each element.  The expected
 * values are computed here, in C: src[i] = (i mod 97) / 4 - 3, so every sum
 * is exact in f32 whatever the order.
 *   - as written: PASS (exit 0), the output exact, the row noting the split;
 *   - pass 1 wrong at group 3: FAIL (exit 1), and only group 3's elements
 *     differ (64 of them);
 *   - pass 2 reading a group sum of its own instead of the scratch: FAIL;
 *   - refused before any launch runs, exit 2, naming the .port file and
 *     line: a binding of a scratch no line declares, a binding above the
 *     first pass, a pass shader that is not in the ports folder, a binding a
 *     pass's shader declares and the pass leaves empty, a scratch bound as
 *     an image, a scratch of 0 bytes, a view outside its scratch.
 * SPIRV-Cross and glslang are build dependencies, so nothing here skips. */
#include <stdlib.h>
#include <string.h>

#include "capture_write.h"
#include "testutil.h"

#define KERNEL "vkrr_split_kernel"
#define N 1000u
#define GROUPS ((N + 63) / 64)
#define SRC_BASE 0x7f0000000000ull
#define DST_BASE 0x7f0000100000ull
#define DST_DELTA 256u
#define DST_BYTES (DST_DELTA + 4 * N + 96)

static char *root;

/* Pass 1: one invocation a group of 64 elements. */
static const char sum_shader[] =
    "#version 460\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };\n"
    "layout(set = 0, binding = 1, std430) writeonly buffer Partial { float partial[]; };\n"
    "layout(push_constant, std430) uniform Push { uint n; } pc;\n"
    "void main()\n{\n"
    "    uint g = gl_GlobalInvocationID.x;\n"
    "    if (g * 64u >= pc.n)\n"
    "        return;\n"
    "    float s = 0.0;\n"
    "    for (uint j = 0u; j < 64u && g * 64u + j < pc.n; j++)\n"
    "        s += src[g * 64u + j];\n"
    "    partial[g] = s + BUG;\n"
    "}\n";

/* Pass 2, the kernel's own shader: each element plus its group's sum. */
static const char add_shader[] =
    "#version 460\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };\n"
    "layout(set = 0, binding = 1, std430) readonly buffer Partial { float partial[]; };\n"
    "layout(set = 0, binding = 2, std430) writeonly buffer Dst { float dst[]; };\n"
    "layout(push_constant, std430) uniform Push { uint n; } pc;\n"
    "void main()\n{\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i < pc.n)\n"
    "        dst[i] = src[i] + GROUP;\n"
    "}\n";

/* The descriptor, a line each (line k of the file is lines[k - 1]). */
static const char *const port_lines[] = {
    "interface own",                                  /* 1 */
    "scratch partial size=(u32@16+63)/64*4",          /* 2 */
    "pass shader=vkrr_split_sum",                     /* 3 */
    "dispatch (u32@16+4095)/4096 1 1",                /* 4 */
    "binding 0.0 storage-buffer arg0 size=u32@16*4",  /* 5 */
    "binding 0.1 storage-buffer scratch:partial",     /* 6 */
    "push 0 u32 u32@16",                              /* 7 */
    "pass",                                           /* 8 */
    "dispatch (u32@16+63)/64 1 1",                    /* 9 */
    "binding 0.0 storage-buffer arg0 size=u32@16*4",  /* 10 */
    "binding 0.1 storage-buffer scratch:partial",     /* 11 */
    "binding 0.2 storage-buffer arg8 size=u32@16*4",  /* 12 */
    "push 0 u32 u32@16",                              /* 13 */
    "output arg8 f32 width=u32@16",                   /* 14 */
};
#define NLINES (sizeof port_lines / sizeof port_lines[0])

/* A ports folder `name`: pass 1's shader with BUG defined as bug, pass 2's
 * with GROUP as group, the descriptor with line `replace` (1-based; 0:
 * none) replaced by `with` (NULL: dropped) and `extra` appended. */
static void write_port(const char *name, const char *bug, const char *group, unsigned replace,
                       const char *with, const char *extra, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", root, name);
    CHECK_EQ_U64(test_sh("mkdir -p '%s'", dir), 0);
    char path[4400], text[4096];
    const char *at = strstr(sum_shader, "void main");
    size_t n = (size_t)snprintf(text, sizeof text, "%.*s#define BUG %s\n%s", (int)(at - sum_shader),
                                sum_shader, bug, at);
    snprintf(path, sizeof path, "%s/vkrr_split_sum.comp", dir);
    CHECK(test_write_file(path, text, n));
    at = strstr(add_shader, "void main");
    n = (size_t)snprintf(text, sizeof text, "%.*s#define GROUP %s\n%s", (int)(at - add_shader),
                         add_shader, group, at);
    snprintf(path, sizeof path, "%s/%s.comp", dir, KERNEL);
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
#define GOOD_GROUP "partial[i / 64u]"

static void write_capture(const char *dir)
{
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] "},
                                &err) == VKRR_OK))
        return;
    static float src[N], sum[GROUPS];
    static uint8_t pre[DST_BYTES], post[DST_BYTES];
    for (uint32_t i = 0; i < N; i++) {
        src[i] = (float)(i % 97) / 4.0f - 3.0f;
        sum[i / 64] += src[i];
    }
    for (uint32_t i = 0; i < DST_BYTES; i++)
        pre[i] = (uint8_t)(i * 13 + 5);
    memcpy(post, pre, sizeof post);
    for (uint32_t i = 0; i < N; i++)
        test_putf32(post + DST_DELTA + 4 * i, src[i] + sum[i / 64]);
    struct { uint64_t src, dst; uint32_t n, pad; } p = {SRC_BASE, DST_BASE + DST_DELTA, N, 0};
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
    write_port(name, "0.0", GOOD_GROUP, replace, with, extra, dir, sizeof dir);
    snprintf(where, sizeof where, "%s/%s.port:%u: ", dir, KERNEL, line);
    test_validate_ports_at(__FILE__, caller, cap, dir, 2, (const char *const[]){where, what, NULL});
}
#define REFUSED(name, replace, with, extra, line, what) \
    refused(cap, name, replace, with, extra, line, what, __LINE__)

/* README's example descriptor (the block that starts with `header`) over
 * folder dir's: what the README prints must be what runs. */
static void readme_port(const char *dir, const char *header, const char *port)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/README.md", VKRR_SOURCE_DIR);
    CHECK_EQ_U64(test_sh("python3 - '%s' '%s' '%s' '%s' <<'PY'\n"
                         "import sys\n"
                         "text = open(sys.argv[1]).read()\n"
                         "port = text.split('```\\n' + sys.argv[3] + '\\n', 1)[1].split('```', 1)[0]\n"
                         "open(sys.argv[2] + '/' + sys.argv[4], 'w').write(port)\n"
                         "PY", path, dir, header, port),
                 0);
}

int main(void)
{
    root = test_tmpdir("test_port_split");
    char cap[4096], dir[4096];
    snprintf(cap, sizeof cap, "%s/cap", root);
    write_capture(cap);

    write_port("good", "0.0", GOOD_GROUP, 0, NULL, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 0, "PASS", "split: 2 passes, one launch");
    { /* the pass's shader is used: no warning that no kernel is called so */
        char args[9000], *out = NULL, *err = NULL;
        snprintf(args, sizeof args, "validate '%s' --ports '%s' --heatmaps none", cap, dir);
        CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 0);
        CHECK(err && !strstr(err, "vkrr_split_sum.comp"));
        free(out);
        free(err);
    }
    CHECK_EQ_U64(test_sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
                         "l = d['launches'][0]; r = {x['offset']: x for x in l['resources']}; "
                         "assert l['status'] == 'PASS', l; o = r[8]; "
                         "assert o['output'] and o['exact_pct'] == 100 and o['max_ulp'] == 0, o; "
                         "assert o['outside_window_bytes'] == 0, o; "
                         "assert 'split: 2 passes' in json.dumps(l), l\" '%s/out.json'", dir), 0);
    write_port("readme", "0.0", GOOD_GROUP, 0, NULL, NULL, dir, sizeof dir);
    readme_port(dir, "# ports/vkrr_split_kernel.port (vkrr_split_kernel.comp: pass 2; vkrr_split_sum.comp: pass 1)",
                KERNEL ".port");
    VALIDATE(cap, dir, 0, "PASS", "split: 2 passes, one launch");
    /* group 3's sum one too high: exactly its 64 elements differ, by 1 */
    write_port("wrong_sum", "(g == 3u ? 1.0 : 0.0)", GOOD_GROUP, 0, NULL, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 1, "FAIL");
    CHECK_EQ_U64(test_sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
                         "l = d['launches'][0]; o = [x for x in l['resources'] if x['offset'] == 8][0]; "
                         "assert l['status'] == 'FAIL' and o['max_abs'] == 1, o; "
                         "assert abs(o['exact_pct'] - 100.0 * (1000 - 64) / 1000) < 0.01, o\" "
                         "'%s/out.json'", dir), 0);
    /* pass 2 without the scratch (a sum of zero): every element off */
    write_port("no_scratch", "0.0", "partial[i / 64u] * 0.0", 0, NULL, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, 1, "FAIL");

    REFUSED("no_such_scratch", 11, "binding 0.1 storage-buffer scratch:partials", NULL, 11,
            "binding 0.1: scratch:partials: no 'scratch partials size=...' line above it");
    REFUSED("above_pass", 2, "binding 0.0 storage-buffer arg0", NULL, 3,
            "pass: line 2 is above the first 'pass'");
    REFUSED("no_shader", 3, "pass shader=vkrr_split_sums", NULL, 3,
            "pass shader=vkrr_split_sums: there is no vkrr_split_sums.spv or vkrr_split_sums.comp");
    REFUSED("empty", 11, NULL, NULL, 8,
            "binding 0.1: the shader declares a storage buffer there (Partial) and the port leaves it empty");
    REFUSED("as_image", 6, "binding 0.1 storage-image scratch:partial format=r32f", NULL, 6,
            "binding 0.1: scratch:partial is a buffer: bind it as a storage-buffer or uniform-buffer");
    REFUSED("zero", 2, "scratch partial size=0", NULL, 2,
            "scratch partial: 'size=0' is 0 bytes");
    REFUSED("outside", 6, "binding 0.1 storage-buffer scratch:partial size=(u32@16+63)/64*4+4", NULL, 6,
            "binding 0.1: 68 bytes from byte 0 are not inside scratch partial's 64-byte buffer");
    REFUSED("twice", 0, NULL, "scratch partial size=4", 15, "scratch partial is given twice (first on line 2)");

    int rc = test_finish("port_split");
    if (rc == 0 && !getenv("KEEP"))
        test_rmtree(root);
    free(root);
    return rc;
}
