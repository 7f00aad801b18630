/* test_ptx_set: the PTX `set` instruction as nvcc emits it for cuda_fp16.h's
 * paired comparisons (tests/ptx/half2_cmp.cu: __heq2, __hltu2, __hge2_mask,
 * __hne2 -> set.eq.f16x2.f16x2, set.ltu.f16x2.f16x2, set.ge.u32.f16x2,
 * set.ne.f16x2.f16x2), run on the PTX interpreter for every pair of a set
 * of halves (NaN, +-0, +-inf, subnormals, neighbours) against a C reference:
 * 1.0 (0x3c00) or 0 a half for the f16x2 results, 0xffff or 0 a half for
 * the mask; ordered comparisons false on NaN, unordered true.
 * And `set` with integer sources (hand-written PTX: every comparison, s16,
 * u32, s64 and b32 sources, .u32 and .f32 results, a bool op with a negated
 * predicate) against C: all ones or 1.0 where it holds, else 0. */
#include "ptx_testutil.h"

static const uint16_t vals[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0xfe01,
                                0x0001, 0x8001, 0x03ff, 0x3c01, 0x3bff, 0x7bff, 0x4000, 0x5640};
#define NV (sizeof vals / sizeof vals[0])
#define N (NV * NV)

static const char iset_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry iset(.param .u64 pa, .param .u64 pb, .param .u64 pd)\n{\n"
    " .reg .b32 %r<40>;\n .reg .b16 %h<3>;\n .reg .b64 %rd<12>;\n .reg .pred %p<2>;\n"
    " mov.u32 %r0, %tid.x;\n mul.wide.u32 %rd0, %r0, 8;\n mul.wide.u32 %rd1, %r0, 64;\n"
    " ld.param.u64 %rd2, [pa];\n ld.param.u64 %rd3, [pb];\n ld.param.u64 %rd4, [pd];\n"
    " add.s64 %rd2, %rd2, %rd0;\n add.s64 %rd3, %rd3, %rd0;\n add.s64 %rd4, %rd4, %rd1;\n"
    " ld.global.u64 %rd5, [%rd2];\n ld.global.u64 %rd6, [%rd3];\n"
    " cvt.u32.u64 %r1, %rd5;\n cvt.u32.u64 %r2, %rd6;\n cvt.u16.u64 %h0, %rd5;\n cvt.u16.u64 %h1, %rd6;\n"
    " set.lt.u32.s16 %r10, %h0, %h1;\n set.ge.f32.s16 %r11, %h0, %h1;\n"
    " set.lo.u32.u32 %r12, %r1, %r2;\n set.hs.u32.u32 %r13, %r1, %r2;\n"
    " set.lt.s32.s32 %r14, %r1, %r2;\n set.gt.u32.s64 %r15, %rd5, %rd6;\n"
    " set.le.u32.u64 %r16, %rd5, %rd6;\n set.eq.f32.b32 %r17, %r1, %r2;\n"
    " set.ne.u32.b32 %r18, %r1, %r2;\n setp.ne.u32 %p0, %r1, 0;\n"
    " set.ls.and.u32.u32 %r19, %r1, %r2, !%p0;\n set.hi.or.u32.u32 %r20, %r1, %r2, %p0;\n"
    " set.ge.xor.f32.s32 %r21, %r1, %r2, %p0;\n"
    " st.global.v4.u32 [%rd4], {%r10, %r11, %r12, %r13};\n"
    " st.global.v4.u32 [%rd4+16], {%r14, %r15, %r16, %r17};\n"
    " st.global.v4.u32 [%rd4+32], {%r18, %r19, %r20, %r21};\n"
    " ret;\n}\n";

/* set with integer sources, against C */
static void test_iset(void)
{
    enum { NI = 64 };
    static const uint64_t vals[] = {0, 1, 2, 0xffffffffffffffffull, 0x8000000000000000ull, 0x7fff,
                                    0x8000, 0xffff, 0x7fffffff, 0x80000000u, 0xffffffffu,
                                    0x100000000ull, 0x12345678, 0xfedcba9876543210ull};
    static uint64_t a[NI], b[NI];
    static uint32_t d[NI * 16];
    for (unsigned i = 0; i < NI; i++) {
        a[i] = vals[i % 14];
        b[i] = vals[(i * 5 + i / 14) % 14];
    }
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, iset_ptx, sizeof iset_ptx - 1, "iset.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    ptxt_args args = {0};
    ptxt_ptr(&args, a, sizeof a);
    ptxt_ptr(&args, b, sizeof b);
    ptxt_ptr(&args, d, sizeof d);
    unsigned bad = 0;
    if (CHECK(ptxt_run(m, "iset", &args, 1, NI, 0)))
        for (unsigned i = 0; i < NI; i++) {
            int16_t ha = (int16_t)(uint16_t)a[i], hb = (int16_t)(uint16_t)b[i];
            uint32_t ua = (uint32_t)a[i], ub = (uint32_t)b[i];
            int32_t sa = (int32_t)ua, sb = (int32_t)ub;
            int64_t la = (int64_t)a[i], lb = (int64_t)b[i];
            bool p = ua != 0;
            const uint32_t T = 0xffffffffu, ONE = 0x3f800000u;
            uint32_t want[12] = {ha < hb ? T : 0, ha >= hb ? ONE : 0, ua < ub ? T : 0,
                                 ua >= ub ? T : 0, sa < sb ? T : 0, la > lb ? T : 0,
                                 a[i] <= b[i] ? T : 0, ua == ub ? ONE : 0, ua != ub ? T : 0,
                                 (ua <= ub && !p) ? T : 0, (ua > ub || p) ? T : 0,
                                 ((sa >= sb) != p) ? ONE : 0};
            for (unsigned k = 0; k < 12; k++)
                if (d[i * 16 + k] != want[k] && bad++ < 8)
                    fprintf(stderr, "  iset thread %u result %u: 0x%08x, want 0x%08x (a 0x%llx b 0x%llx)\n",
                            i, k, d[i * 16 + k], want[k], (unsigned long long)a[i],
                            (unsigned long long)b[i]);
        }
    printf("set with integer sources: %u threads x 12 forms, %u wrong\n", NI, bad);
    CHECK_EQ_U64(bad, 0);
    vkrr_ptx_module_free(m);
}

int main(void)
{
    test_iset();
    static const unsigned sms[] = {80, 89};
    for (unsigned k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("half2_cmp", sms[k]);
        if (!m)
            continue;
        /* half h of element i compares vals[x] with vals[y], two pairs an element */
        static uint32_t a[N], b[N], eq[N], ltu[N], ge[N], ne[N];
        for (uint32_t i = 0; i < N; i++) {
            uint32_t x0 = i % NV, y0 = i / NV, x1 = (i * 7 + 3) % NV, y1 = (i * 5 + 1) % NV;
            a[i] = vals[x0] | (uint32_t)vals[x1] << 16;
            b[i] = vals[y0] | (uint32_t)vals[y1] << 16;
        }
        ptxt_args args = {0};
        ptxt_ptr(&args, a, sizeof a);
        ptxt_ptr(&args, b, sizeof b);
        ptxt_ptr(&args, eq, sizeof eq);
        ptxt_ptr(&args, ltu, sizeof ltu);
        ptxt_ptr(&args, ge, sizeof ge);
        ptxt_ptr(&args, ne, sizeof ne);
        ptxt_u32(&args, N);
        if (!CHECK(ptxt_run(m, "half2_cmp", &args, (N + 63) / 64, 64, 0))) {
            vkrr_ptx_module_free(m);
            continue;
        }
        unsigned bad = 0;
        for (uint32_t i = 0; i < N; i++)
            for (unsigned h = 0; h < 2; h++) {
                float x = vkrr_f16_to_f32((uint16_t)(a[i] >> (16 * h)));
                float y = vkrr_f16_to_f32((uint16_t)(b[i] >> (16 * h)));
                bool un = x != x || y != y;
                uint32_t want_eq = !un && x == y ? 0x3c00u : 0, want_ltu = un || x < y ? 0x3c00u : 0;
                uint32_t want_ge = !un && x >= y ? 0xffffu : 0, want_ne = !un && x != y ? 0x3c00u : 0;
                bool ok = ((eq[i] >> (16 * h)) & 0xffff) == want_eq &&
                          ((ltu[i] >> (16 * h)) & 0xffff) == want_ltu &&
                          ((ge[i] >> (16 * h)) & 0xffff) == want_ge &&
                          ((ne[i] >> (16 * h)) & 0xffff) == want_ne;
                if (!ok && bad++ < 8)
                    fprintf(stderr, "  sm%u element %u half %u: %g vs %g: eq %08x ltu %08x ge %08x ne %08x\n",
                            sms[k], i, h, (double)x, (double)y, eq[i], ltu[i], ge[i], ne[i]);
            }
        printf("half2_cmp sm%u: %u pairs of halves, %u wrong\n", sms[k], 2 * (unsigned)N, bad);
        CHECK_EQ_U64(bad, 0);
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_set");
}
