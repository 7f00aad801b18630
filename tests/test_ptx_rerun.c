/* test_ptx_rerun: `vkrr rerun` on a capture of a kernel vkrr has never seen
 * (tests/ptx/novel.cu: no port, no CPU build, nothing of it in vkrr but its
 * PTX in the capture's modules/), made here with the capture writer from
 * values this test computes itself: exit 0 when the dumps are right, 1 when
 * one word of one dump is wrong; a kernel with an instruction the
 * interpreter does not implement is an ERROR row naming the instruction and
 * FILE:LINE, exit 2, and the launches after it still run; --backend cpu has
 * no such kernel (exit 2).  And `vkrr rerun` on an rrref synth capture
 * passes. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture_write.h"
#include "cuformat.h"
#include "ptx_testutil.h"
#include "synth.h"

#define W 37
#define H 21
#define TILE 16

static const char bad_ptx[] =
    ".version 9.0\n.target sm_80\n.address_size 64\n\n"
    ".visible .entry vkrr_bad_kernel(.param .u64 p)\n{\n"
    "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
    "\tld.param.u64 %rd1, [p];\n"
    "\twgmma.fence.sync.aligned;\n"
    "\tret;\n}\n";

static float in[W * H], wmax[6 * 8], wmax0[6 * 8];
static uint16_t out[W * H], out0[W * H];
static uint32_t hist[16], hist0[16];

static void reference(void)
{
    int gx = (W + TILE - 1) / TILE, gy = (H + TILE - 1) / TILE;
    for (int by = 0; by < gy; by++)
        for (int bx = 0; bx < gx; bx++) {
            float avgs[TILE * TILE];
            for (int ty = 0; ty < TILE; ty++)
                for (int tx = 0; tx < TILE; tx++) {
                    float s = 0.0f;
                    for (int dy = 0; dy < 3; dy++)
                        for (int dx = 0; dx < 3; dx++) {
                            int X = bx * TILE - 1 + tx + dx, Y = by * TILE - 1 + ty + dy;
                            X = X < 0 ? 0 : X >= W ? W - 1 : X;
                            Y = Y < 0 ? 0 : Y >= H ? H - 1 : Y;
                            s = s + in[Y * W + X];
                        }
                    avgs[ty * TILE + tx] = s * 0.11111111f;
                }
            for (int wp = 0; wp < TILE * TILE / 32; wp++) {
                float m = 0;
                for (int l = 0; l < 32; l++)
                    m = fmaxf(m, fabsf(avgs[wp * 32 + l]));
                int x = bx * TILE, y = by * TILE + wp * 2; /* lane 0 */
                if (x < W && y < H)
                    wmax[(by * gx + bx) * 8 + wp] = m;
            }
            for (int t = 0; t < TILE * TILE; t++) {
                int x = bx * TILE + t % TILE, y = by * TILE + t / TILE;
                if (x >= W || y >= H)
                    continue;
                float avg = avgs[t];
                out[y * W + x] = vkrr_f32_to_f16_rne(fmaf(avg, 2.0f, -0.5f));
                int bin = (int)(avg * 4.0f);
                bin = bin < 0 ? 0 : bin > 15 ? 15 : bin;
                hist[bin]++;
            }
        }
}

/* a capture of: novel, bad, novel; wrong_last: the last launch's output was
 * recorded with one word wrong (as a faulty GPU run would be: its hash= is
 * that of the wrong bytes) */
static bool make_capture(const char *dir, const char *ptx, size_t ptx_len, bool wrong_last)
{
    vkrr_error err = {0};
    vkrr_writer *w = NULL;
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] "}, &err) == VKRR_OK))
        return false;
    const char *k1[] = {"vkrr_novel_box"}, *k2[] = {"vkrr_bad_kernel"};
    bool ok = CHECK(vkrr_writer_module(w, "novel.ptx", ptx, ptx_len, k1, 1, &err) == VKRR_OK) &&
              CHECK(vkrr_writer_module(w, "bad.ptx", bad_ptx, strlen(bad_ptx), k2, 1, &err) == VKRR_OK);
    uint8_t args[40] = {0};
    const uint64_t base[4] = {0x7f0000000000ull, 0x7f0000100000ull, 0x7f0000200000ull, 0x7f0000300000ull};
    for (int i = 0; i < 4; i++)
        memcpy(args + 8 * i, &base[i], 8);
    int32_t wh[2] = {W, H};
    memcpy(args + 32, wh, 8);
    vkrr_alloc_record allocs[4] = {
        {base[0], sizeof in, in, in},
        {base[1], sizeof out, out0, out},
        {base[2], sizeof hist, hist0, hist},
        {base[3], sizeof wmax, wmax0, wmax},
    };
    vkrr_pointer_record ptrs[4] = {{0, 0, 0}, {8, 1, 0}, {16, 2, 0}, {24, 3, 0}};
    static uint16_t wrong[sizeof out / sizeof out[0]];
    memcpy(wrong, out, sizeof out);
    wrong[W * 10 + 20] ^= 0x0004;
    vkrr_alloc_record last_allocs[4];
    memcpy(last_allocs, allocs, sizeof allocs);
    if (wrong_last)
        last_allocs[1].post = wrong;
    vkrr_launch_record novel = {.kernel = "vkrr_novel_box", .grid = {3, 2, 1}, .block = {16, 16, 1},
                                .args = args, .args_bytes = 40, .allocs = allocs, .nallocs = 4,
                                .pointers = ptrs, .npointers = 4};
    uint8_t bargs[8];
    memcpy(bargs, &base[0], 8);
    vkrr_launch_record bad = {.kernel = "vkrr_bad_kernel", .grid = {1, 1, 1}, .block = {32, 1, 1},
                              .args = bargs, .args_bytes = 8, .allocs = allocs, .nallocs = 1,
                              .pointers = ptrs, .npointers = 1};
    vkrr_launch_record last = novel;
    last.allocs = last_allocs;
    ok = ok && CHECK(vkrr_writer_launch(w, &novel, NULL, &err) == VKRR_OK) &&
         CHECK(vkrr_writer_launch(w, &bad, NULL, &err) == VKRR_OK) &&
         CHECK(vkrr_writer_launch(w, &last, NULL, &err) == VKRR_OK);
    if (!CHECK(vkrr_writer_close(w, &err) == VKRR_OK) || !ok) {
        vkrr_error_print(&err, stderr);
        return false;
    }
    return true;
}

static int rerun(const char *dir, const char *extra, char **outp)
{
    char args[8192];
    snprintf(args, sizeof args, "rerun '%s' --heatmaps none %s", dir, extra);
    char *o = NULL, *e = NULL;
    int rc = test_run_vkrr(args, &o, &e);
    if (outp)
        *outp = o;
    else
        free(o);
    if (e && *e)
        fprintf(stderr, "%s", e);
    free(e);
    return rc;
}

/* the dump file of launch `seq`'s allocation with base `base` */
static char *dump_of(const char *dir, unsigned seq, uint64_t base)
{
    vkrr_capture *cap = NULL;
    vkrr_error err = {0};
    char *path = NULL;
    if (vkrr_capture_open(&cap, dir, &err) != VKRR_OK)
        return NULL;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (cap->launches[i].sequence == seq)
            for (uint32_t a = 0; a < cap->launches[i].nallocs; a++)
                if (cap->launches[i].allocs[a].base == base && cap->launches[i].allocs[a].post_path)
                    path = strdup(cap->launches[i].allocs[a].post_path);
    vkrr_capture_close(cap);
    return path;
}

int main(void)
{
    uint64_t s = 8;
    for (int i = 0; i < W * H; i++)
        in[i] = (float)(ptxt_rand(&s) % 4097) / 1024.0f;
    memset(out0, 0xff, sizeof out0);
    reference();
    char path[4096];
    snprintf(path, sizeof path, "%s/novel.sm80.ptx", VKRR_PTX_KERNEL_DIR);
    size_t len = 0;
    char *ptx = test_read_file(path, &len);
    char *root = test_tmpdir("ptx_rerun");
    char cap[4096];
    snprintf(cap, sizeof cap, "%s/novel", root);
    if (!CHECK(ptx && make_capture(cap, ptx, len, false)))
        return test_finish("ptx_rerun");
    char *o = NULL;
    /* novel PASS, bad ERROR (named), novel PASS: exit 2 */
    int rc = rerun(cap, "", &o);
    CHECK_EQ_U64(rc, 2);
    CHECK(o && strstr(o, "2 PASS, 0 FAIL, 0 NO KERNEL, 0 TIMEOUT, 1 ERROR"));
    CHECK(o && strstr(o, "wgmma.fence.sync.aligned") && strstr(o, "dlss-module-4242-0002.ptx:10"));
    if (rc != 2 && o)
        fprintf(stderr, "%s", o);
    free(o);
    /* without the bad launch: a capture of novel only */
    char cap2[4096];
    snprintf(cap2, sizeof cap2, "%s/novel_only", root);
    char cmd[20000];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s' && rm -rf '%s'/replay/replay-000002-* '%s'/dump/launch-002-*", cap, cap2,
             cap2, cap2);
    CHECK(system(cmd) == 0);
    rc = rerun(cap2, "--json '/dev/null'", &o);
    CHECK_EQ_U64(rc, 0);
    struct stat dn; /* written to, not replaced by a file (as root, a rename would) */
    CHECK(stat("/dev/null", &dn) == 0 && S_ISCHR(dn.st_mode));
    CHECK(o && strstr(o, "2 PASS, 0 FAIL") && strstr(o, "compared as validate compares"));
    if (rc != 0 && o)
        fprintf(stderr, "%s", o);
    free(o);
    /* the CPU backend has no such kernel */
    CHECK_EQ_U64(rerun(cap2, "--backend cpu", NULL), 2);
    /* one word of the f16 output wrong as recorded: exit 1, that launch named */
    char cap3[4096];
    snprintf(cap3, sizeof cap3, "%s/wrong", root);
    if (CHECK(make_capture(cap3, ptx, len, true))) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'/replay/replay-000002-* '%s'/dump/launch-002-*", cap3, cap3);
        CHECK(system(cmd) == 0);
        rc = rerun(cap3, "", &o);
        CHECK_EQ_U64(rc, 1);
        CHECK(o && strstr(o, "1 PASS, 1 FAIL") && strstr(o, "first launch that differs: #3 vkrr_novel_box"));
        free(o);
    }
    /* the same word changed in the dump after capture: its hash= says so,
     * ERROR (exit 2), not a wrong kernel; unchecked, the rerun differs */
    char *dump = dump_of(cap2, 3, 0x7f0000100000ull);
    size_t dl = 0;
    char *bytes = dump ? test_read_file(dump, &dl) : NULL;
    if (CHECK(bytes && dl == sizeof out)) {
        bytes[2 * (W * 10 + 20)] ^= 0x04;
        CHECK(test_write_file(dump, bytes, dl));
        rc = rerun(cap2, "", &o);
        CHECK_EQ_U64(rc, 2);
        CHECK(o && strstr(o, "changed since capture"));
        free(o);
        rc = rerun(cap2, "--no-hash-check", &o);
        CHECK_EQ_U64(rc, 1);
        CHECK(o && strstr(o, "1 PASS, 1 FAIL") && strstr(o, "first launch that differs: #3 vkrr_novel_box"));
        free(o);
    }
    free(bytes);
    free(dump);
    /* rrref: rerun on a synth capture (validate --ref ptx: test_ptx_validate) */
    char rr[4096];
    snprintf(rr, sizeof rr, "%s/rrref", root);
    vkrr_error err = {0};
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = rr, .width = 40, .height = 24, .frames = 2};
    if (CHECK(vkrr_synth_run(&d, &st, &err) == VKRR_OK)) {
        char mods[4096];
        snprintf(mods, sizeof mods, "--modules '%s'", VKRR_PTX_RRREF_DIR);
        rc = rerun(rr, mods, &o);
        CHECK_EQ_U64(rc, 0);
        CHECK(o && strstr(o, "24 PASS, 0 FAIL"));
        free(o);
    } else {
        vkrr_error_print(&err, stderr);
    }
    free(ptx);
    int r = test_finish("ptx_rerun");
    if (r == 0)
        test_rmtree(root);
    free(root);
    return r;
}
