/* test_ptx_cvt_f8: cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 (the fp8
 * epilogue of mma kernels; ptx_cvt.c converts it by a table per form) of
 * every f16 code in each half, by both engines, against the nearest fp8
 * code found by testutil's search over every code: NaN -> 0x7f, Inf and
 * overflow -> the largest finite of its sign, .relu: negatives and -0 ->
 * +0.  A fifth, guarded to a warp's first 17 lanes, leaves the others'
 * register as it was (the JIT calls its routine directly for a whole warp
 * only: a partial one takes the handler). */
#include "ptx_testutil.h"

static const char f8_ptx[] =
    ".version 8.0\n.target sm_89\n.address_size 64\n"
    ".visible .entry f8(.param .u64 pd)\n{\n"
    " .reg .pred %p<2>;\n .reg .b16 %h<6>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n"
    " mov.u32 %r0, %tid.x;\n mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n"
    " mad.lo.u32 %r3, %r1, %r2, %r0;\n"
    /* low half: code t, high half: code t ^ 0x8001 (the other sign, another code) */
    " xor.b32 %r4, %r3, 32769;\n shl.b32 %r4, %r4, 16;\n or.b32 %r4, %r4, %r3;\n"
    " cvt.rn.satfinite.e4m3x2.f16x2 %h0, %r4;\n cvt.rn.satfinite.relu.e4m3x2.f16x2 %h1, %r4;\n"
    " cvt.rn.satfinite.e5m2x2.f16x2 %h2, %r4;\n cvt.rn.satfinite.relu.e5m2x2.f16x2 %h3, %r4;\n"
    " and.b32 %r5, %r0, 31;\n setp.lt.u32 %p0, %r5, 17;\n mov.b16 %h4, 0x5a5a;\n"
    " @%p0 cvt.rn.satfinite.e4m3x2.f16x2 %h4, %r4;\n"
    " ld.param.u64 %rd0, [pd];\n mul.wide.u32 %rd1, %r3, 16;\n add.s64 %rd2, %rd0, %rd1;\n"
    " st.global.v4.b16 [%rd2], {%h0, %h1, %h2, %h3};\n st.global.b16 [%rd2+8], %h4;\n ret;\n}\n";

/* The fp8 code of f16 code h: nearest even, saturated to the finite range. */
static uint32_t want(const ptxt_fmt *f, uint32_t h, bool relu)
{
    long double x = ptxt_decode(&PTXT_F16, h);
    if (x != x)
        return 0x7fu;
    if (relu && (x < 0 || (h & 0x8000u)))
        return 0;
    return ptxt_round(f, isinf(x) ? (x < 0 ? -1e300L : 1e300L) : x, 0, true);
}

int main(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, f8_ptx, sizeof f8_ptx - 1, "f8.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return test_finish("ptx_cvt_f8");
    }
    static uint16_t d[65536 * 8]; /* 16 bytes a thread: v4 at 0 (aligned), the guarded one at 8 */
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        memset(d, 0xa5, sizeof d);
        ptxt_args args = {0};
        ptxt_ptr(&args, d, sizeof d);
        vkrr_ptx_launch l = {.grid = {256, 1, 1}, .block = {256, 1, 1}, .params = args.bytes,
                             .params_bytes = args.n, .regions = args.regions,
                             .nregions = args.nregions, .engine = (vkrr_ptx_engine)e};
        if (!CHECK(vkrr_ptx_run(m, "f8", &l, &err) == VKRR_OK))
            vkrr_error_print(&err, stderr);
        unsigned wrong = 0;
        for (uint32_t t = 0; t < 65536; t++)
            for (unsigned k = 0; k < 5; k++) { /* k 4: form 0 in lanes 0..16 of each warp */
                const ptxt_fmt *f = k < 2 || k == 4 ? &PTXT_E4M3 : &PTXT_E5M2;
                bool relu = k & 1;
                uint32_t w = want(f, t, relu) | want(f, t ^ 0x8001u, relu) << 8;
                if (k == 4 && t % 32 >= 17)
                    w = 0x5a5a;
                if (d[t * 8 + k] != w && wrong++ < 8)
                    fprintf(stderr, "  %s: form %u of 0x%04x|0x%04x: 0x%04x, want 0x%04x\n",
                            e == VKRR_PTX_ENGINE_JIT ? "jit" : "interp", k, t, t ^ 0x8001u,
                            d[t * 8 + k], w);
            }
        printf("fp8x2 from f16x2, 4 forms x 65536 codes and a guarded one (%s): %u wrong\n",
               e == VKRR_PTX_ENGINE_JIT ? "jit" : "interp", wrong);
        CHECK_EQ_U64(wrong, 0);
    }
    vkrr_ptx_module_free(m);
    return test_finish("ptx_cvt_f8");
}
