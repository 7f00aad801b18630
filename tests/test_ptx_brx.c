/* test_ptx_brx: brx.idx through a .branchtargets list (the jump table a
 * switch compiles to; LLVM's NVPTX back end emits it), PTX text here (ptxas
 * accepts it):
 *   - each lane of two warps takes the target its own index names (tid + bias
 *     mod div): with div 3 the warp splits three ways and reconverges for a
 *     warp-wide vote.sync; with div 1 every lane takes target 0 together;
 *   - the jump table inside a called .func (a linked function's labels);
 *   - an index past the list is a fault naming brx.idx and the line, and a
 *     brx.idx naming no .branchtargets list is a decode error. */
#include "ptx_testutil.h"

static const char brx_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".func (.param .b32 r) pick(.param .b32 i)\n"
    "{\n"
    " .reg .b32 %r<4>;\n"
    " ld.param.b32 %r1, [i];\n"
    " tf: .branchtargets F0, F1;\n"
    " brx.idx %r1, tf;\n"
    "F0:\n"
    " mov.u32 %r2, 7;\n"
    " bra.uni FJ;\n"
    "F1:\n"
    " mov.u32 %r2, 9;\n"
    "FJ:\n"
    " st.param.b32 [r], %r2;\n"
    " ret;\n"
    "}\n"
    ".visible .entry k_switch(.param .u64 out, .param .u32 bias, .param .u32 div)\n"
    "{\n"
    " .reg .b32 %r<10>;\n"
    " .reg .b64 %rd<4>;\n"
    " .reg .pred %p<2>;\n"
    " ld.param.u64 %rd1, [out];\n"
    " ld.param.u32 %r5, [bias];\n"
    " ld.param.u32 %r6, [div];\n"
    " mov.u32 %r1, %tid.x;\n"
    " add.u32 %r2, %r1, %r5;\n"
    " rem.u32 %r2, %r2, %r6;\n"
    " ts: .branchtargets L0, L1, L2;\n"
    " brx.idx %r2, ts;\n"
    "L0:\n"
    " mov.u32 %r3, 100;\n"
    " bra.uni JOIN;\n"
    "L1:\n"
    " mov.u32 %r3, 200;\n"
    " bra.uni JOIN;\n"
    "L2:\n"
    " mov.u32 %r3, 300;\n"
    "JOIN:\n"
    " setp.eq.u32 %p1, %r1, %r1;\n"
    " vote.sync.ballot.b32 %r4, %p1, 0xffffffff;\n"
    " and.b32 %r7, %r1, 1;\n"
    " {\n"
    " .param .b32 a;\n"
    " .param .b32 r;\n"
    " st.param.b32 [a], %r7;\n"
    " call.uni (r), pick, (a);\n"
    " ld.param.b32 %r8, [r];\n"
    " }\n"
    " add.u32 %r3, %r3, %r1;\n"
    " add.u32 %r3, %r3, %r8;\n"
    " mul.wide.u32 %rd2, %r1, 8;\n"
    " add.s64 %rd3, %rd1, %rd2;\n"
    " st.global.v2.u32 [%rd3], {%r3, %r4};\n"
    " ret;\n"
    "}\n"
    ".visible .entry k_bad(.param .u32 idx)\n"
    "{\n"
    " .reg .b32 %r<2>;\n"
    " ld.param.u32 %r1, [idx];\n"
    " t2: .branchtargets A, B;\n"
    " brx.idx.uni %r1, t2;\n"
    "A:\n"
    " ret;\n"
    "B:\n"
    " ret;\n"
    "}\n";

static void check_switch(const vkrr_ptx_module *m, uint32_t bias, uint32_t div)
{
    static uint32_t out[64][2];
    memset(out, 0, sizeof out);
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, bias);
    ptxt_u32(&a, div);
    if (!CHECK(ptxt_run(m, "k_switch", &a, 1, 64, 0)))
        return;
    unsigned bad = 0;
    for (uint32_t l = 0; l < 64; l++) {
        uint32_t want = 100 * ((l + bias) % div + 1) + l + (l & 1 ? 9 : 7);
        if ((out[l][0] != want || out[l][1] != 0xffffffffu) && bad++ < 4)
            fprintf(stderr, "  thread %u: %u 0x%08x, want %u 0xffffffff\n", l, out[l][0], out[l][1], want);
    }
    printf("brx.idx, bias %u, div %u: %u of 64 threads wrong\n", bias, div, bad);
    CHECK_EQ_U64(bad, 0);
}

int main(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (CHECK(vkrr_ptx_module_load(&m, brx_ptx, strlen(brx_ptx), "brx.ptx", &err) == VKRR_OK)) {
        check_switch(m, 0, 3);
        check_switch(m, 2, 3);
        check_switch(m, 5, 1);
        ptxt_args a = {0};
        ptxt_u32(&a, 1);
        CHECK(ptxt_run(m, "k_bad", &a, 1, 32, 0)); /* the last target */
        ptxt_args b = {0};
        ptxt_u32(&b, 2);
        memset(&err, 0, sizeof err);
        vkrr_status st = ptxt_run_ex(m, "k_bad", &b, 1, 32, 0, NULL, 0, NULL, 0, &err);
        if (!CHECK(st == VKRR_ERR_FAULT && err.line == ptxt_line_of(brx_ptx, "brx.idx.uni") &&
                   strstr(err.msg, "index 2 is past its 2 targets")))
            vkrr_error_print(&err, stderr);
    } else {
        vkrr_error_print(&err, stderr);
    }
    vkrr_ptx_module_free(m);
    /* a brx.idx whose list is no .branchtargets: that kernel does not decode */
    static const char bad[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                              ".visible .entry e(.param .u32 i)\n{\n .reg .b32 %r<2>;\n"
                              " ld.param.u32 %r1, [i];\n brx.idx %r1, X;\nX:\n ret;\n}\n";
    m = NULL;
    memset(&err, 0, sizeof err);
    vkrr_status st = vkrr_ptx_module_load(&m, bad, strlen(bad), "bad.ptx", &err);
    if (st == VKRR_OK)
        st = vkrr_ptx_entry_status(m, "e", &err);
    if (!CHECK(st == VKRR_ERR_PARSE && err.line == 8 && strstr(err.msg, "no .branchtargets list")))
        vkrr_error_print(&err, stderr);
    vkrr_ptx_module_free(m);
    return test_finish("ptx_brx");
}
