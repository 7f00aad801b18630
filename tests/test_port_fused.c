/* test_port_fused: two consecutive CUDA launches ported as one dispatch (a
 * fused port: `covers`, K:argOFF, src/port/fused_runs.h), validated on
 * lavapipe against a capture this test writes with the capture writer.
 *
 * The capture: launch #1 vkrr_fuse_scale(const float *src, float *tmp, uint
 * n, float s) writes tmp[i] = src[i] * s (s = 3); launch #2
 * vkrr_fuse_add(const float *tmp, float *dst, uint n, float b) writes
 * dst[i] = tmp[i] + b (b = 0.5), dst pointing 256 bytes into its
 * allocation; both frame 0.  Then frame 1: #3 vkrr_fuse_scale again, but
 * followed by #4 vkrr_fuse_other (not vkrr_fuse_add); frame 2: #5
 * vkrr_fuse_scale, the capture's last launch.  The fused port
 * (vkrr_fuse_scale.comp/.port) computes dst[i] = src[i] * s + b in one
 * dispatch, never writing tmp.  Expected values are computed here, in C:
 * src[i] = (i mod 97) / 4 - 3, every value exact in f32.
 *   - as written: PASS in isolated and chained mode (exit 0); the table has
 *     one row "vkrr_fuse_scale+vkrr_fuse_add (#1..#2)" with a note that it
 *     is fused, the JSON one launch listing sequences 1 and 2 and none for
 *     #2 (valid against docs/json's schema, and so after vkrr merge); tmp
 *     is not compared (the fused port never writes it);
 *   - #3 (followed by another kernel) and #5 (the capture's end): NO PORT,
 *     each naming why, not an error of the run;
 *   - the shader wrong at i = 5: FAIL isolated and chained, and bisect names
 *     the fused run as one step and the culprit;
 *   - b read from launch #1's block instead of #2's (f32@20: s): FAIL;
 *   - refused before any launch runs, exit 2, naming the .port file and
 *     line: a `covers` whose first kernel is not the port's, a `covers` of
 *     one kernel, a K: past the limit, an output of a launch the run does
 *     not have, `covers` without `interface own`. */
#include <stdlib.h>
#include <string.h>

#include "capture_write.h"
#include "testutil.h"

#define SCALE "vkrr_fuse_scale"
#define ADD "vkrr_fuse_add"
#define N 1000u
#define SRC_BASE 0x7f0000000000ull
#define TMP_BASE 0x7f0000100000ull
#define DST_BASE 0x7f0000200000ull
#define DST_DELTA 256u
#define DST_BYTES (DST_DELTA + 4 * N + 96)

static char *root;

static const char shader[] =
    "#version 460\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };\n"
    "layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };\n"
    "layout(push_constant, std430) uniform Push { uint n; float s; float b; } pc;\n"
    "void main()\n{\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i < pc.n)\n"
    "        dst[i] = src[i] * pc.s + pc.b + BUG;\n"
    "}\n";

/* The descriptor, a line each (line k of the file is lines[k - 1]). */
static const char *const port_lines[] = {
    "interface own",                                     /* 1 */
    "covers " SCALE " " ADD,                             /* 2 */
    "workgroup 64 1 1",                                  /* 3 */
    "dispatch (u32@16+63)/64 1 1",                       /* 4 */
    "binding 0.0 storage-buffer arg0 size=u32@16*4",     /* 5: src, launch 0's */
    "binding 0.1 storage-buffer 1:arg8 size=u32@16*4",  /* 6: dst, launch 1's */
    "push 0 u32 u32@16",                                 /* 7 */
    "push 4 f32 f32@20",                                 /* 8: s */
    "push 8 f32 1:f32@20",                               /* 9: b, launch 1's word at 20 */
    "output 1:arg8 f32 width=1:u32@16",                 /* 10 */
};
#define NLINES (sizeof port_lines / sizeof port_lines[0])

static void write_port(const char *name, const char *bug, unsigned replace, const char *with,
                       char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", root, name);
    CHECK_EQ_U64(test_sh("mkdir -p '%s'", dir), 0);
    char path[4400], text[4096];
    const char *at = strstr(shader, "void main");
    size_t n = (size_t)snprintf(text, sizeof text, "%.*s#define BUG %s\n%s", (int)(at - shader),
                                shader, bug, at);
    snprintf(path, sizeof path, "%s/" SCALE ".comp", dir);
    CHECK(test_write_file(path, text, n));
    n = 0;
    for (unsigned k = 1; k <= NLINES; k++) {
        const char *l = k == replace ? with : port_lines[k - 1];
        if (l)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s\n", l);
    }
    snprintf(path, sizeof path, "%s/" SCALE ".port", dir);
    CHECK(test_write_file(path, text, n));
}

typedef struct { uint64_t a, b; uint32_t n; float x; } params;

static void launch(vkrr_writer *w, const char *kernel, const params *p, vkrr_alloc_record *a)
{
    vkrr_error err = {0};
    vkrr_pointer_record pt[2] = {{0, 0, 0}, {8, 1, p->b == DST_BASE + DST_DELTA ? DST_DELTA : 0}};
    vkrr_status s = vkrr_writer_launch(
        w, &(vkrr_launch_record){.kernel = kernel, .grid = {(N + 31) / 32, 1, 1}, .block = {32, 1, 1},
                                 .args = p, .args_bytes = sizeof *p, .allocs = a, .nallocs = 2,
                                 .pointers = pt, .npointers = 2},
        NULL, &err);
    if (!CHECK(s == VKRR_OK))
        vkrr_error_print(&err, stderr);
}

static void write_capture(const char *dir)
{
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] "},
                                &err) == VKRR_OK))
        return;
    static float src[N], tmp_pre[N], tmp[N];
    static uint8_t pre[DST_BYTES], post[DST_BYTES];
    for (uint32_t i = 0; i < N; i++) {
        src[i] = (float)(i % 97) / 4.0f - 3.0f;
        tmp_pre[i] = -1.0f; /* what tmp held before: a port reading it is wrong */
        tmp[i] = src[i] * 3.0f;
    }
    for (uint32_t i = 0; i < DST_BYTES; i++)
        pre[i] = (uint8_t)(i * 13 + 5);
    memcpy(post, pre, sizeof post);
    for (uint32_t i = 0; i < N; i++)
        test_putf32(post + DST_DELTA + 4 * i, tmp[i] + 0.5f);
    params ps = {SRC_BASE, TMP_BASE, N, 3.0f}, pa = {TMP_BASE, DST_BASE + DST_DELTA, N, 0.5f};
    vkrr_alloc_record as[2] = {{SRC_BASE, sizeof src, src, src}, {TMP_BASE, sizeof tmp, tmp_pre, tmp}};
    vkrr_alloc_record aa[2] = {{TMP_BASE, sizeof tmp, tmp, tmp}, {DST_BASE, DST_BYTES, pre, post}};
    vkrr_alloc_record ao[2] = {{TMP_BASE, sizeof tmp, tmp, tmp}, {DST_BASE, DST_BYTES, post, post}};
    launch(w, SCALE, &ps, as); /* #1, frame 0 */
    launch(w, ADD, &pa, aa);   /* #2 */
    launch(w, SCALE, &ps, as); /* #3, frame 1 */
    launch(w, "vkrr_fuse_other", &pa, ao); /* #4: not vkrr_fuse_add */
    launch(w, SCALE, &ps, as); /* #5, frame 2, the last */
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
}

/* vkrr CMD CAP --ports DIR exits want, its output holding each of `has`. */
static void run(const char *cmd, const char *cap, const char *dir, const char *mode, int want,
                const char *const *has, int line)
{
    char args[9000];
    snprintf(args, sizeof args, "%s '%s' --ports '%s' --heatmaps none --json '%s/out.json'%s%s", cmd,
             cap, dir, dir, mode ? " --mode " : "", mode ? mode : "");
    test_vkrr_says_at(__FILE__, line, args, want, has, NULL);
}
#define VALIDATE(cap, dir, mode, want, ...) \
    run("validate", cap, dir, mode, want, (const char *const[]){__VA_ARGS__, NULL}, __LINE__)

static void refused(const char *cap, const char *name, unsigned replace, const char *with,
                    unsigned line, const char *what, int caller)
{
    char dir[4096], where[4300];
    write_port(name, "0.0", replace, with, dir, sizeof dir);
    snprintf(where, sizeof where, "%s/" SCALE ".port:%u: ", dir, line);
    run("validate", cap, dir, NULL, 2, (const char *const[]){where, what, NULL}, caller);
}
#define REFUSED(name, replace, with, line, what) refused(cap, name, replace, with, line, what, __LINE__)

#define ROW SCALE "+" ADD " (#1..#2)"

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
    root = test_tmpdir("test_port_fused");
    char cap[4096], dir[4096];
    snprintf(cap, sizeof cap, "%s/cap", root);
    write_capture(cap);

    write_port("good", "0.0", 0, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, NULL, 0, ROW "     0  buffer 1:arg8", "fused: 2 launches as one step, #1..#2",
             "its launch 1 is #4 vkrr_fuse_other, not " ADD,
             "the capture ends before its launch 1 (" ADD ")");
    /* one launch for the run (sequences 1 and 2), none for #2; tmp (never
     * written by the fused port) not compared; #3 and #5 NO PORT */
    CHECK_EQ_U64(test_sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
                         "ls = {l['sequence']: l for l in d['launches']}; "
                         "assert sorted(ls) == [1, 3, 4, 5], sorted(ls); f = ls[1]; "
                         "assert f['fused'] == {'name': '" ROW "', 'sequences': [1, 2]}, f; "
                         "assert f['status'] == 'PASS' and f['chained_status'] == 'PASS', f; "
                         "r = [x for x in f['resources'] if x.get('output')]; "
                         "assert len(r) == 1 and r[0]['exact_pct'] == 100, r; "
                         "assert all(x['base'] != %llu for x in f['resources']), f['resources']; "
                         "assert ls[3]['status'] == 'NO PORT' and ls[5]['status'] == 'NO PORT', ls\" "
                         "'%s/out.json'", (unsigned long long)TMP_BASE, dir), 0);
    { /* vkrr merge reads it back: the same row, the same "fused" */
        char args[9000], *out = NULL, *err = NULL;
        snprintf(args, sizeof args, "merge '%s/out.json' --json '%s/merged.json'", dir, dir);
        CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 0);
        CHECK(out && strstr(out, ROW));
        free(out);
        free(err);
        CHECK_EQ_U64(test_sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
                             "f = d['launches'][0]['fused']; assert f['sequences'] == [1, 2], f\" "
                             "'%s/merged.json'", dir), 0);
    }
    /* and the JSON the schema docs/json ships describes, "fused" included */
    if (test_sh("python3 -c 'import jsonschema' 2>/dev/null") == 0)
        CHECK_EQ_U64(test_sh("python3 -c \"import json, sys, jsonschema; "
                             "jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))\" "
                             "'%s/docs/json/vkrr-results.schema.json' '%s/out.json'", VKRR_SOURCE_DIR, dir), 0);
    else
        printf("note: python3-jsonschema is not installed: the JSON is not held against its schema\n");
    VALIDATE(cap, dir, "isolated", 0, ROW, "PASS");
    VALIDATE(cap, dir, "chained", 0, ROW, "PASS");

    write_port("readme", "0.0", 0, NULL, dir, sizeof dir);
    readme_port(dir, "# ports/vkrr_fuse_scale.port", SCALE ".port");
    VALIDATE(cap, dir, NULL, 0, ROW, "PASS");
    write_port("wrong", "(i == 5u ? 1.0 : 0.0)", 0, NULL, dir, sizeof dir);
    VALIDATE(cap, dir, "isolated", 1, ROW, "FAIL");
    VALIDATE(cap, dir, NULL, 1, "first divergence: #1 " ROW " (frame 0, occurrence 0; a fused run, one step) is the CULPRIT");
    run("bisect", cap, dir, NULL, 1, (const char *const[]){"#1 " ROW, "a fused run, one step", NULL},
        __LINE__);
    write_port("wrong_word", "0.0", 9, "push 8 f32 f32@20", dir, sizeof dir);
    VALIDATE(cap, dir, "isolated", 1, "FAIL");

    REFUSED("first", 2, "covers " ADD " " SCALE, 2,
            "covers: the run starts with " ADD ", but this is the port of " SCALE);
    REFUSED("one", 2, "covers " SCALE, 2, "a line is 'covers KERNEL0 KERNEL1 ...'");
    REFUSED("past", 6, "binding 0.1 storage-buffer 8:arg8", 6,
            "binding 0.1: '8:arg8': expected the pointer argument as argOFF");
    REFUSED("no_launch", 10, "output 2:arg8 f32 width=u32@16", 10,
            "arg8200: the word at byte 8200 is past the 4120-byte parameter block of launch #1");
    REFUSED("no_iface", 1, "# no interface line", 2,
            "'covers' describes a shader's own interface: it needs 'interface own' above it");

    int rc = test_finish("port_fused");
    if (rc == 0 && !getenv("KEEP"))
        test_rmtree(root);
    free(root);
    return rc;
}
