/* test_ptx_overrun: memory as the device had it, through the vkrr binary.
 *
 * One kernel, peek (out[t] = in[k + t], one warp; the writer names its module
 * dlss-module-4242-0001.ptx, as the bridge does), in a capture whose two
 * allocations sit at device addresses the test chooses:
 *
 * - a gap after `in` (cudaMalloc's 512-byte granularity): k = 56 makes
 *   lane 8 read the first word past in's end.  The GPU had nothing there,
 *   so the rerun is an ERROR naming the ld's line, the thread, the device
 *   address, how far past which allocation (index, base, size) and what
 *   follows, in the interpreter and in the JIT alike.
 * - `out` right after `in` (sub-allocations of an arena): k = 48 makes lanes
 *   16-31 read out's first words, as the GPU did.  The capture holds what
 *   the GPU computed that way, so the rerun passes, and the row says the ld
 *   reached both allocations, which lie next to each other.
 * - the same kernel within bounds: no note.
 *
 * Every expected address, index and value is the test's own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_write.h"
#include "ptx.h"
#include "testutil.h"

static const char peek_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry peek(.param .u64 pin, .param .u64 pout, .param .u32 pk)\n"
    "{\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  .reg .f32 %f<2>;\n"
    "  ld.param.u64 %rd1, [pin];\n"
    "  ld.param.u64 %rd2, [pout];\n"
    "  ld.param.u32 %r1, [pk];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  add.u32 %r3, %r1, %r2;\n"
    "  mul.wide.u32 %rd3, %r3, 4;\n"
    "  add.s64 %rd4, %rd1, %rd3;\n"
    "  ld.global.f32 %f1, [%rd4];\n" /* line 17 */
    "  mul.wide.u32 %rd5, %r2, 4;\n"
    "  add.s64 %rd6, %rd2, %rd5;\n"
    "  st.global.f32 [%rd6], %f1;\n"
    "  ret;\n"
    "}\n";
#define LD_LINE 17
#define N 64 /* floats in each allocation */

typedef struct layout {
    uint64_t in, out; /* device bases */
    uint32_t k;
} layout;

static const layout layouts[] = {
    {0x7f6000000000ull, 0x7f6000000200ull, 56}, /* a gap: lane 8 faults */
    {0x7f6100000000ull, 0x7f6100000100ull, 48}, /* neighbours: lanes 16-31 read out */
    {0x7f6200000000ull, 0x7f6200000100ull, 16}, /* within bounds */
};
#define NLAUNCH (sizeof layouts / sizeof layouts[0])

static void write_capture(const char *dir)
{
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] "},
                                &err) == VKRR_OK))
        return;
    const char *kernels[] = {"peek"};
    CHECK(vkrr_writer_module(w, "peek.ptx", peek_ptx, sizeof peek_ptx - 1, kernels, 1, &err) ==
          VKRR_OK);
    for (size_t i = 0; i < NLAUNCH; i++) {
        const layout *y = &layouts[i];
        float in[N], out_pre[N], out_post[N];
        for (int j = 0; j < N; j++) {
            in[j] = (float)(i * 1000 + j);
            out_pre[j] = out_post[j] = -(float)(i * 1000 + j) - 0.5f;
        }
        /* what the GPU computed: in past its end reads what lies there */
        const float *past = y->out == y->in + sizeof in ? out_pre : NULL;
        for (uint32_t t = 0; t < 32; t++) {
            uint32_t e = y->k + t;
            out_post[t] = e < N ? in[e] : past ? past[e - N] : 0.0f;
        }
        uint8_t args[20] = {0};
        memcpy(args, &y->in, 8);
        memcpy(args + 8, &y->out, 8);
        memcpy(args + 16, &y->k, 4);
        vkrr_alloc_record ar[2] = {{y->in, sizeof in, in, in}, {y->out, sizeof out_pre, out_pre, out_post}};
        vkrr_pointer_record pr[2] = {{0, 0, 0}, {8, 1, 0}};
        CHECK(vkrr_writer_launch(w, &(vkrr_launch_record){.kernel = "peek", .grid = {1, 1, 1},
                                                          .block = {32, 1, 1}, .args = args,
                                                          .args_bytes = sizeof args, .allocs = ar,
                                                          .nallocs = 2, .pointers = pr,
                                                          .npointers = 2},
                                 NULL, &err) == VKRR_OK);
    }
    if (!CHECK(vkrr_writer_close(w, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
}

static void check_engine(const char *cap, const char *root, const char *engine)
{
    char args[9000], json[4200], want[600], *out = NULL;
    snprintf(json, sizeof json, "%s/%s.json", root, engine);
    snprintf(args, sizeof args,
             "rerun '%s' --backend ptx --ptx-engine %s --buffer-type f32 --heatmaps none --json '%s'",
             cap, engine, json);
    int rc = test_run_vkrr(args, &out, NULL);
    CHECK_EQ_U64(rc, 2); /* the gap's launch could not run */
    CHECK(out && strstr(out, "3 launches: 2 PASS, 0 FAIL"));
    /* the gap: lane 8 reads 0x7f6000000100, 0 bytes past in's end */
    snprintf(want, sizeof want,
             "dlss-module-4242-0001.ptx:%d: ld.global.f32: global address 0x7f6000000100 (4 bytes) is "
             "0 bytes past the end of allocation 0 (0x7f6000000000, 256 bytes); the next is "
             "allocation 1 (0x7f6000000200, 256 bytes) (thread (8,0,0) of block (0,0,0))",
             LD_LINE);
    if (!CHECK(out && strstr(out, want)))
        fprintf(stderr, "%s: want\n  %s\nin\n%s\n", engine, want, out ? out : "");
    /* the neighbours: said in the row */
    snprintf(want, sizeof want,
             "memory: %s/modules/dlss-module-4242-0001.ptx:%d: ld.global.f32 reached allocation 0 "
             "(0x7f6100000000, 256 bytes) and allocation 1 (0x7f6100000100, 256 bytes), which lie "
             "0 bytes apart in the capture",
             cap, LD_LINE);
    if (!CHECK(out && strstr(out, want)))
        fprintf(stderr, "%s: want\n  %s\nin\n%s\n", engine, want, out ? out : "");
    unsigned notes = 0;
    for (const char *c = out; c && (c = strstr(c, "memory: ")); c++)
        notes++;
    CHECK_EQ_U64(notes, 1); /* within bounds: nothing */
    char py[5000];
    snprintf(py, sizeof py,
             "python3 -c \"import json; L = json.load(open('%s'))['launches']; "
             "assert [l['status'] for l in L] == ['ERROR', 'PASS', 'PASS'], L; "
             "assert '0x7f6000000100' in L[0]['note'] and 'memory:' in L[1]['note'] and "
             "'memory:' not in L[2]['note']\"",
             json);
    CHECK_EQ_U64(system(py), 0);
    free(out);
}

/* Shared and local memory, checked against their declared sizes: a word
 * past a 128-byte .shared array and past a 64-byte .local one. */
static const char windows_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry sh(.param .u32 pk)\n"
    "{\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .f32 %f<2>;\n"
    "  .shared .align 4 .b8 buf[128];\n"
    "  ld.param.u32 %r1, [pk];\n"
    "  mov.u32 %r2, buf;\n"
    "  add.u32 %r3, %r2, %r1;\n"
    "  ld.shared.f32 %f1, [%r3];\n" /* line 13 */
    "  st.shared.f32 [%r2], %f1;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry lo(.param .u32 pk)\n"
    "{\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  .reg .f32 %f<2>;\n"
    "  .local .align 4 .b8 lbuf[64];\n"
    "  ld.param.u32 %r1, [pk];\n"
    "  mov.u64 %rd1, lbuf;\n"
    "  cvt.u64.u32 %rd2, %r1;\n"
    "  add.u64 %rd3, %rd1, %rd2;\n"
    "  ld.local.f32 %f1, [%rd3];\n" /* line 27 */
    "  st.local.f32 [%rd1], %f1;\n"
    "  ret;\n"
    "}\n";

static void check_windows(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, windows_ptx, sizeof windows_ptx - 1, "w.ptx", &err) ==
               VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static const struct {
        const char *entry;
        uint32_t k;
        long line;
        const char *want; /* NULL: runs */
    } cases[] = {
        {"sh", 124, 13, NULL},
        {"sh", 128, 13, "shared address 0x80 (4 bytes) is outside the block's 128 bytes of shared memory"},
        {"lo", 60, 27, NULL},
        {"lo", 64, 27, "local address 0x40 (4 bytes) is outside the thread's 64 bytes of local memory"},
    };
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        if (e == VKRR_PTX_ENGINE_JIT && !vkrr_ptx_jit_built())
            break;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1},
                                 .params = (const uint8_t *)&cases[i].k, .params_bytes = 4,
                                 .engine = (vkrr_ptx_engine)e};
            err = (vkrr_error){0};
            vkrr_status st = vkrr_ptx_run(m, cases[i].entry, &l, &err);
            bool ok = cases[i].want ? st == VKRR_ERR_FAULT && err.line == cases[i].line &&
                                          strstr(err.msg, cases[i].want) &&
                                          strstr(err.msg, "thread (0,0,0)")
                                    : st == VKRR_OK;
            if (!CHECK(ok))
                fprintf(stderr, "%s k=%u engine %d: %s (line %ld)\n", cases[i].entry, cases[i].k, e,
                        err.msg, err.line);
        }
    }
    vkrr_ptx_module_free(m);
}

int main(void)
{
    check_windows();
    char *root = test_tmpdir("ptx_overrun");
    char cap[4096];
    snprintf(cap, sizeof cap, "%s/cap", root);
    write_capture(cap);
    check_engine(cap, root, "interp");
    if (vkrr_ptx_jit_built())
        check_engine(cap, root, "jit");
    else
        printf("ptx_overrun: the JIT: SKIPPED (this build has no PTX JIT)\n");
    int rc = test_finish("ptx_overrun");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
