/* test_ptx_mbarrier: mbarrier objects in the PTX interpreter.
 *   - nvcc's cuda::barrier and cuda::pipeline (tests/ptx/barrier_ops.cu,
 *     compute_80 and compute_89 PTX): mbarrier.init/arrive/test_wait with
 *     cp.async.mbarrier.arrive and a %globaltimer/nanosleep back-off loop, 8
 *     warps a block, the waiting warps letting the others arrive;
 *   - sm_90 forms written here: mbarrier.arrive.expect_tx, try_wait.parity,
 *     cp.async.bulk global -> shared completing the transaction and shared ->
 *     global in a bulk group, fence.proxy.async, test_wait.parity of the next
 *     phase, inval; the arrive made by the second warp while the first one
 *     already waits;
 *   - one warp whose waiting lanes sit at a lower pc than its arriving ones;
 *   - what must not pass: a phase nothing completes is a deadlock naming the
 *     wait, an mbarrier used before init and a zero count are faults. */
#include <stdio.h>

#include "ptx_testutil.h"

static const char bulk_ptx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry bulk(.param .u64 src, .param .u64 out, .param .u64 out2, .param .u32 need)\n"
    "{\n"
    " .reg .pred %p<4>;\n"
    " .reg .b32 %r<12>;\n"
    " .reg .b64 %rd<12>;\n"
    " .reg .f32 %f<4>;\n"
    " .shared .align 16 .b8 buf[256];\n"
    " .shared .align 8 .b64 mbar;\n"
    " ld.param.u64 %rd1, [src];\n"
    " ld.param.u64 %rd2, [out];\n"
    " ld.param.u64 %rd3, [out2];\n"
    " ld.param.u32 %r9, [need];\n"
    " cvta.to.global.u64 %rd1, %rd1;\n"
    " cvta.to.global.u64 %rd2, %rd2;\n"
    " cvta.to.global.u64 %rd3, %rd3;\n"
    " mov.u32 %r1, %tid.x;\n"
    " setp.ne.u32 %p1, %r1, 0;\n"
    " @%p1 bra INITED;\n"
    " mbarrier.init.shared.b64 [mbar], %r9;\n"
    "INITED:\n"
    " bar.sync 0;\n"
    " setp.ne.u32 %p2, %r1, 32;\n"
    " @%p2 bra WAIT;\n"
    " mbarrier.arrive.expect_tx.shared.b64 %rd4, [mbar], 256;\n"
    " mov.u32 %r2, 256;\n"
    " cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], %r2, [mbar];\n"
    "WAIT:\n"
    " mbarrier.try_wait.parity.shared.b64 %p3, [mbar], 0;\n"
    " @!%p3 bra WAIT;\n"
    " mov.u32 %r3, buf;\n"
    " shl.b32 %r4, %r1, 2;\n"
    " add.u32 %r5, %r3, %r4;\n"
    " ld.shared.f32 %f1, [%r5];\n"
    " add.f32 %f2, %f1, 0f3F800000;\n"
    " mul.wide.u32 %rd5, %r1, 4;\n"
    " add.s64 %rd6, %rd2, %rd5;\n"
    " st.global.f32 [%rd6], %f2;\n"
    " bar.sync 0;\n"
    " @%p1 bra DONE;\n"
    " fence.proxy.async.shared::cta;\n"
    " cp.async.bulk.global.shared::cta.bulk_group [%rd3], [buf], 256;\n"
    " cp.async.bulk.commit_group;\n"
    " cp.async.bulk.wait_group 0;\n"
    " mbarrier.test_wait.parity.shared.b64 %p3, [mbar], 1;\n"
    " selp.u32 %r6, 1, 0, %p3;\n"
    " mbarrier.inval.shared.b64 [mbar];\n"
    " st.global.u32 [%rd3+256], %r6;\n"
    "DONE:\n"
    " ret;\n"
    "}\n"
;

static void check_barrier(vkrr_ptx_module *m)
{
    static float in[3 * 256], out[3 * 256];
    for (int i = 0; i < 3 * 256; i++)
        in[i] = (float)(i * 3 % 101) - 50.0f;
    ptxt_args a = {0};
    ptxt_ptr(&a, in, sizeof in);
    ptxt_ptr(&a, out, sizeof out);
    if (!ptxt_run(m, "k_barrier", &a, 3, 256, 0))
        return;
    unsigned bad = 0;
    for (int b = 0; b < 3; b++)
        for (int t = 0; t < 256; t++)
            bad += out[b * 256 + t] != 2.0f * in[b * 256 + (t + 1) % 256];
    CHECK_EQ_U64(bad, 0);
}

static void check_pipeline(vkrr_ptx_module *m)
{
    static float in[4 * 128], out[128];
    for (int i = 0; i < 4 * 128; i++)
        in[i] = (float)(i % 37) * 0.25f;
    ptxt_args a = {0};
    ptxt_ptr(&a, in, sizeof in);
    ptxt_ptr(&a, out, sizeof out);
    if (!ptxt_run(m, "k_pipeline", &a, 1, 128, 0))
        return;
    unsigned bad = 0;
    for (int t = 0; t < 128; t++) {
        float acc = 0;
        for (int s = 0; s < 4; s++)
            acc += in[s * 128 + t];
        bad += out[t] != acc;
    }
    CHECK_EQ_U64(bad, 0);
}

static vkrr_status run_bulk(const char *text, uint32_t need, float *src, float *out, uint32_t *out2,
                            vkrr_error *err)
{
    vkrr_ptx_module *m = NULL;
    vkrr_status st = vkrr_ptx_module_load(&m, text, strlen(text), "bulk.ptx", err);
    if (st == VKRR_OK) {
        ptxt_args a = {0};
        ptxt_ptr(&a, src, 64 * 4);
        ptxt_ptr(&a, out, 64 * 4);
        ptxt_ptr(&a, out2, 65 * 4);
        ptxt_u32(&a, need);
        st = ptxt_run_ex(m, "bulk", &a, 1, 64, 0, NULL, 0, NULL, 0, err);
    }
    vkrr_ptx_module_free(m);
    return st;
}

static void check_bulk(void)
{
    static _Alignas(16) float src[64], out[64];
    static _Alignas(16) uint32_t out2[68];
    for (int i = 0; i < 64; i++)
        src[i] = (float)i * 0.5f - 3.0f;
    out2[64] = 7;
    vkrr_error err = {0};
    if (!CHECK(run_bulk(bulk_ptx, 1, src, out, out2, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    unsigned bad = 0;
    for (int i = 0; i < 64; i++)
        bad += out[i] != src[i] + 1.0f || out2[i] != ptxt_u(src[i]);
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(out2[64], 0); /* the next phase has not completed */

    /* two arrivals expected, one made: every warp waits for ever */
    vkrr_status st = run_bulk(bulk_ptx, 2, src, out, out2, &err);
    if (!CHECK(st == VKRR_ERR_FAULT && strstr(err.msg, "deadlock") && strstr(err.msg, "mbarrier") &&
               err.line == 31))
        vkrr_error_print(&err, stderr);
    st = run_bulk(bulk_ptx, 0, src, out, out2, &err);
    CHECK(st == VKRR_ERR_FAULT && strstr(err.msg, "count 0") && err.line == 22);

    /* never initialised: the first wait on it is a fault, not a guess */
    char text[sizeof bulk_ptx];
    memcpy(text, bulk_ptx, sizeof text);
    char *init = strstr(text, "mbarrier.init.shared.b64 [mbar], %r9;");
    if (CHECK(init != NULL)) {
        static const char nop[] = "mov.u32 %r10, %r9;"; /* the same length, padded */
        memset(init, ' ', 37);
        memcpy(init, nop, sizeof nop - 1);
        st = run_bulk(text, 1, src, out, out2, &err);
        if (!CHECK(st == VKRR_ERR_FAULT && strstr(err.msg, "before mbarrier.init") && err.line == 31))
            vkrr_error_print(&err, stderr);
    }
}

/* One warp split in two: lanes 0-15 wait on the mbarrier at a lower pc than
 * the arrive lanes 16-31 make (a producer/consumer warp); the waiters must
 * let their own warp's other lanes run, not only the other warps. */
static const char diverged_ptx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry dv(.param .u64 out)\n"
    "{\n"
    " .reg .pred %p<4>;\n"
    " .reg .b32 %r<8>;\n"
    " .reg .b64 %rd<8>;\n"
    " .shared .align 8 .b64 mbar;\n"
    " ld.param.u64 %rd1, [out];\n"
    " cvta.to.global.u64 %rd1, %rd1;\n"
    " mov.u32 %r1, %tid.x;\n"
    " setp.ne.u32 %p1, %r1, 0;\n"
    " @%p1 bra INITED;\n"
    " mov.u32 %r2, 16;\n"
    " mbarrier.init.shared.b64 [mbar], %r2;\n"
    "INITED:\n"
    " bar.sync 0;\n"
    " setp.ge.u32 %p2, %r1, 16;\n"
    " @%p2 bra ARRIVE;\n"
    "WAIT:\n"
    " mbarrier.try_wait.parity.shared.b64 %p3, [mbar], 0;\n"
    " @!%p3 bra WAIT;\n"
    " bra.uni DONE;\n"
    "ARRIVE:\n"
    " mbarrier.arrive.shared.b64 %rd2, [mbar];\n"
    " add.u32 %r1, %r1, 100;\n"
    "DONE:\n"
    " mov.u32 %r3, %tid.x;\n"
    " mul.wide.u32 %rd3, %r3, 4;\n"
    " add.s64 %rd4, %rd1, %rd3;\n"
    " st.global.u32 [%rd4], %r1;\n"
    " ret;\n"
    "}\n"
;

static void check_diverged(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, diverged_ptx, strlen(diverged_ptx), "dv.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint32_t out[32];
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    if (!CHECK(ptxt_run_ex(m, "dv", &a, 1, 32, 0, NULL, 0, NULL, 0, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    unsigned bad = 0;
    for (uint32_t t = 0; t < 32; t++)
        bad += out[t] != (t < 16 ? t : t + 100);
    CHECK_EQ_U64(bad, 0);
    vkrr_ptx_module_free(m);
}

int main(void)
{
    check_diverged();
    static const unsigned sms[2] = {80, 89};
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("barrier_ops", sms[k]);
        if (!m)
            continue;
        check_barrier(m);
        check_pipeline(m);
        vkrr_ptx_module_free(m);
    }
    check_bulk();
    return test_finish("ptx_mbarrier");
}
