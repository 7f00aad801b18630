/* test_ptx_jit_float: the float operations the PTX JIT compiles inline
 * (ptx_jit_float.c, and ptx_jit_emit.c's mov pack/unpack) against C, run
 * by the JIT and by the interpreter (both must give C's bits, so they give
 * each other's): add/sub/mul/fma .rn .f32 with and without .ftz and .sat,
 * guarded so some lanes keep the old value, on adversarial operands (NaN
 * payloads quiet and signalling, -0, subnormals, Inf, the largest finite,
 * products that underflow to subnormals, fma's single rounding); and
 * cvt.rn.f16.f32 on those and on 2^20 bit patterns spread over every
 * exponent (ties, the subnormal range, the overflow threshold), its
 * expected codes from testutil's search over every f16 code; and setp.f32
 * in all 14 comparisons, with and without .ftz, with bool ops, and min/max
 * (.ftz, .NaN; -0 below +0) and abs/neg (.f32 .ftz, .f64) on the same
 * operands. */
#include "ptx_testutil.h"

static const char fl_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry fl(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"
    " .reg .b16 %h<4>;\n .reg .b32 %r<8>;\n .reg .f32 %f<24>;\n .reg .b64 %rd<12>;\n"
    " .reg .pred %p<2>;\n"
    " mov.u32 %r0, %tid.x;\n mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n"
    " mad.lo.u32 %r3, %r1, %r2, %r0;\n"
    " ld.param.u64 %rd0, [pa];\n ld.param.u64 %rd1, [pb];\n ld.param.u64 %rd2, [pc];\n"
    " ld.param.u64 %rd3, [pd];\n mul.wide.u32 %rd4, %r3, 4;\n mul.wide.u32 %rd5, %r3, 64;\n"
    " add.s64 %rd6, %rd0, %rd4;\n add.s64 %rd7, %rd1, %rd4;\n add.s64 %rd8, %rd2, %rd4;\n"
    " add.s64 %rd9, %rd3, %rd5;\n"
    " ld.global.f32 %f0, [%rd6];\n ld.global.f32 %f1, [%rd7];\n ld.global.f32 %f2, [%rd8];\n"
    " rem.u32 %r4, %r3, 3;\n setp.ne.u32 %p0, %r4, 0;\n"
    " add.f32 %f3, %f0, %f1;\n sub.f32 %f4, %f0, %f1;\n mul.f32 %f5, %f0, %f1;\n"
    " fma.rn.f32 %f6, %f0, %f1, %f2;\n add.ftz.f32 %f7, %f0, %f1;\n"
    " sub.rn.ftz.f32 %f8, %f0, %f1;\n mul.ftz.f32 %f9, %f0, %f1;\n"
    " fma.rn.ftz.f32 %f10, %f0, %f1, %f2;\n add.sat.f32 %f11, %f0, %f1;\n"
    " fma.rn.ftz.sat.f32 %f12, %f0, %f1, %f2;\n mul.rn.sat.f32 %f13, %f0, %f1;\n"
    " mov.f32 %f14, 0f3F000001;\n @%p0 fma.rn.f32 %f14, %f0, %f1, %f2;\n"
    " cvt.rn.f16.f32 %h0, %f0;\n cvt.rn.f16.f32 %h1, %f1;\n"
    " mov.b32 %r5, {%h0, %h1};\n mov.b32 {%h2, %h3}, %r5;\n mov.b32 %r6, {%h3, %h2};\n"
    " mov.f32 %f15, 0f00000007;\n @!%p0 mul.ftz.f32 %f15, %f0, %f1;\n"
    " st.global.v4.f32 [%rd9], {%f3, %f4, %f5, %f6};\n"
    " st.global.v4.f32 [%rd9+16], {%f7, %f8, %f9, %f10};\n"
    " st.global.v4.f32 [%rd9+32], {%f11, %f12, %f13, %f14};\n"
    " mov.b32 %r7, %f15;\n st.global.v4.b32 [%rd9+48], {%r5, %r6, %r7, %r3};\n"
    " ret;\n}\n"
    /* cvt.rn.f16.f32 of pattern t << 12 | hash(t) & 0xfff */
    ".visible .entry h(.param .u64 pd)\n{\n"
    " .reg .b16 %h<1>;\n .reg .b32 %r<8>;\n .reg .f32 %f<1>;\n .reg .b64 %rd<4>;\n"
    " mov.u32 %r0, %tid.x;\n mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n"
    " mad.lo.u32 %r3, %r1, %r2, %r0;\n mul.lo.u32 %r4, %r3, -1640531535;\n"
    " shr.u32 %r4, %r4, 20;\n shl.b32 %r5, %r3, 12;\n or.b32 %r5, %r5, %r4;\n"
    " mov.b32 %f0, %r5;\n cvt.rn.f16.f32 %h0, %f0;\n"
    " ld.param.u64 %rd0, [pd];\n mul.wide.u32 %rd1, %r3, 2;\n add.s64 %rd2, %rd0, %rd1;\n"
    " st.global.b16 [%rd2], %h0;\n ret;\n}\n";

enum { NT = 52 * 80, E = 40 };

static void test_setp(const uint32_t *a, const uint32_t *b);
static void test_minmax(const uint32_t *a, const uint32_t *b);

static uint32_t canon(uint32_t u)
{
    return isnan(ptxt_f(u)) ? 0x7fffffffu : u;
}
static uint32_t flushed(uint32_t u)
{
    return (u & 0x7f800000u) == 0 ? u & 0x80000000u : u;
}
static uint32_t sat(uint32_t u)
{
    float x = ptxt_f(u);
    return isnan(x) || x < 0.0f ? 0u : x > 1.0f ? 0x3f800000u : u;
}
static uint16_t f16(uint32_t u)
{
    float x = ptxt_f(u);
    return isnan(x) ? 0x7fffu : (uint16_t)ptxt_round(&PTXT_F16, (long double)x, 0, false);
}

/* What thread t's 16 words must be: C's operations on the operand bits. */
static void expect(uint32_t t, uint32_t a, uint32_t b, uint32_t c, uint32_t *w)
{
    float x = ptxt_f(a), y = ptxt_f(b), z = ptxt_f(c);
    float fx = ptxt_f(flushed(a)), fy = ptxt_f(flushed(b)), fz = ptxt_f(flushed(c));
    bool p = t % 3 != 0;
    w[0] = canon(ptxt_u(x + y));
    w[1] = canon(ptxt_u(x - y));
    w[2] = canon(ptxt_u(x * y));
    w[3] = canon(ptxt_u(fmaf(x, y, z)));
    w[4] = canon(flushed(ptxt_u(fx + fy)));
    w[5] = canon(flushed(ptxt_u(fx - fy)));
    w[6] = canon(flushed(ptxt_u(fx * fy)));
    w[7] = canon(flushed(ptxt_u(fmaf(fx, fy, fz))));
    w[8] = sat(ptxt_u(x + y));
    w[9] = sat(flushed(ptxt_u(fmaf(fx, fy, fz))));
    w[10] = sat(ptxt_u(x * y));
    w[11] = p ? w[3] : 0x3f000001u;
    w[12] = (uint32_t)f16(a) | (uint32_t)f16(b) << 16;
    w[13] = (uint32_t)f16(b) | (uint32_t)f16(a) << 16;
    w[14] = p ? 7u : w[6];
    w[15] = t;
}

static void test_arith(void)
{
    static const uint32_t edge[E] = {
        0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,
        0x00800000u, 0x80800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7fc00001u,
        0xffc12345u, 0x7f800001u, 0xff812345u, 0x3f800000u, 0xbf800000u, 0x3f800001u,
        0x7f7fffffu, 0xff7fffffu, 0x3f000000u, 0x1f800000u, 0x1f000001u, 0x20000000u,
        0x477ff000u, 0x477fefffu, 0x477fe000u, 0x38800000u, 0x387fffffu, 0x33000000u,
        0x33000001u, 0x33c00000u, 0x34200000u, 0x3f801000u, 0x3f803000u, 0xc7800000u,
        0x3f7fffffu, 0x40000000u, 0x3e800000u, 0x00400000u};
    static uint32_t a[NT], b[NT], c[NT], d[NT * 16];
    uint64_t seed = 11;
    for (uint32_t i = 0; i < NT; i++) {
        if (i < E * E) {
            a[i] = edge[i % E];
            b[i] = edge[i / E];
            c[i] = edge[(i * 7u) % E];
        } else if (i % 2) { /* small products: subnormal and flushed results, fma's rounding */
            a[i] = (ptxt_rand(&seed) & 0x807fffffu) | (0x10u + ptxt_rand(&seed) % 0x40u) << 23;
            b[i] = (ptxt_rand(&seed) & 0x807fffffu) | (0x10u + ptxt_rand(&seed) % 0x40u) << 23;
            c[i] = i % 4 == 1 ? ptxt_u(-ptxt_f(a[i]) * ptxt_f(b[i])) : ptxt_rand(&seed) & 0x80ffffffu;
        } else {
            a[i] = ptxt_rand(&seed);
            b[i] = ptxt_rand(&seed);
            c[i] = ptxt_rand(&seed);
        }
    }
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, fl_ptx, sizeof fl_ptx - 1, "fl.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint32_t got[2][NT * 16];
    unsigned wrong[2] = {0, 0};
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        unsigned k = e == VKRR_PTX_ENGINE_JIT;
        memset(d, 0xa5, sizeof d);
        ptxt_args args = {0};
        ptxt_ptr(&args, a, sizeof a);
        ptxt_ptr(&args, b, sizeof b);
        ptxt_ptr(&args, c, sizeof c);
        ptxt_ptr(&args, d, sizeof d);
        /* blocks of 52: a last warp of 20 lanes */
        vkrr_ptx_launch l = {.grid = {NT / 52, 1, 1}, .block = {52, 1, 1}, .params = args.bytes,
                             .params_bytes = args.n, .regions = args.regions,
                             .nregions = args.nregions, .engine = (vkrr_ptx_engine)e};
        if (!CHECK(vkrr_ptx_run(m, "fl", &l, &err) == VKRR_OK))
            vkrr_error_print(&err, stderr);
        memcpy(got[k], d, sizeof d);
        for (uint32_t t = 0; t < NT; t++) {
            uint32_t w[16];
            expect(t, a[t], b[t], c[t], w);
            for (unsigned i = 0; i < 16; i++)
                if (d[t * 16 + i] != w[i] && wrong[k]++ < 8)
                    fprintf(stderr, "  %s: thread %u word %u: 0x%08x, want 0x%08x (a 0x%08x b 0x%08x c 0x%08x)\n",
                            k ? "jit" : "interp", t, i, d[t * 16 + i], w[i], a[t], b[t], c[t]);
        }
    }
    printf("f32 add/sub/mul/fma (.ftz, .sat, guarded), cvt.rn.f16.f32, pack/unpack: %u threads, "
           "interpreter %u wrong, JIT %u wrong (JIT %s)\n",
           NT, wrong[0], wrong[1], vkrr_ptx_jit_built() ? "built" : "not in this build");
    CHECK_EQ_U64(wrong[0], 0);
    CHECK_EQ_U64(wrong[1], 0);
    CHECK(memcmp(got[0], got[1], sizeof got[0]) == 0);
    test_setp(a, b);
    test_minmax(a, b);

    /* cvt.rn.f16.f32 of 2^20 patterns */
    enum { NH = 1u << 20 };
    static uint16_t h[NH];
    unsigned hw[2] = {0, 0};
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        unsigned k = e == VKRR_PTX_ENGINE_JIT;
        memset(h, 0xa5, sizeof h);
        ptxt_args args = {0};
        ptxt_ptr(&args, h, sizeof h);
        vkrr_ptx_launch l = {.grid = {NH / 256, 1, 1}, .block = {256, 1, 1}, .params = args.bytes,
                             .params_bytes = args.n, .regions = args.regions,
                             .nregions = args.nregions, .engine = (vkrr_ptx_engine)e};
        if (!CHECK(vkrr_ptx_run(m, "h", &l, &err) == VKRR_OK))
            vkrr_error_print(&err, stderr);
        for (uint32_t t = 0; t < NH; t++) {
            uint32_t p = t << 12 | (t * 2654435761u) >> 20;
            if (h[t] != f16(p) && hw[k]++ < 8)
                fprintf(stderr, "  %s: cvt.rn.f16.f32 0x%08x: 0x%04x, want 0x%04x\n", k ? "jit" : "interp",
                        p, h[t], f16(p));
        }
    }
    printf("cvt.rn.f16.f32 of %u patterns: interpreter %u wrong, JIT %u wrong\n", (unsigned)NH, hw[0],
           hw[1]);
    CHECK_EQ_U64(hw[0], 0);
    CHECK_EQ_U64(hw[1], 0);
    vkrr_ptx_module_free(m);
}

/* setp.f32: each of the 14 comparisons plain and .ftz (bits 0..27 of a
 * word), .and with both outputs under a guard (bits 28, 29: lanes off the
 * guard keep p2 = p3 = 1), .xor with a negated predicate (30, 31). */
static const char *const cmps[14] = {"eq", "ne", "lt", "le", "gt", "ge", "equ",
                                     "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

static bool fcmp_ref(float x, float y, unsigned k)
{
    bool un = isnan(x) || isnan(y);
    switch (k) {
    case 0: return !un && x == y;
    case 1: return !un && x != y;
    case 2: return !un && x < y;
    case 3: return !un && x <= y;
    case 4: return !un && x > y;
    case 5: return !un && x >= y;
    case 6: return un || x == y;
    case 7: return un || x != y;
    case 8: return un || x < y;
    case 9: return un || x <= y;
    case 10: return un || x > y;
    case 11: return un || x >= y;
    case 12: return !un;
    default: return un;
    }
}

static uint32_t setp_expect(uint32_t t, uint32_t a, uint32_t b)
{
    float x = ptxt_f(a), y = ptxt_f(b), fx = ptxt_f(flushed(a)), fy = ptxt_f(flushed(b));
    uint32_t w = 0;
    for (unsigned k = 0; k < 14; k++)
        w |= (uint32_t)fcmp_ref(x, y, k) << k | (uint32_t)fcmp_ref(fx, fy, k) << (14 + k);
    bool p0 = t % 3 != 0, g = fcmp_ref(fx, fy, 10);
    if (p0)
        w |= (uint32_t)(g && p0) << 28 | (uint32_t)(!g && p0) << 29;
    else
        w |= 3u << 28;
    bool n = fcmp_ref(x, y, 12);
    return w | (uint32_t)(n != !p0) << 30 | (uint32_t)(!n != !p0) << 31;
}

static void test_setp(const uint32_t *a, const uint32_t *b)
{
    static char ptx[16384];
    size_t n = (size_t)snprintf(ptx, sizeof ptx,
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".visible .entry sp(.param .u64 pa, .param .u64 pb, .param .u64 pd)\n{\n"
        " .reg .b32 %%r<8>;\n .reg .f32 %%f<2>;\n .reg .b64 %%rd<10>;\n .reg .pred %%p<40>;\n"
        " mov.u32 %%r0, %%tid.x;\n mov.u32 %%r1, %%ctaid.x;\n mov.u32 %%r2, %%ntid.x;\n"
        " mad.lo.u32 %%r3, %%r1, %%r2, %%r0;\n"
        " ld.param.u64 %%rd0, [pa];\n ld.param.u64 %%rd1, [pb];\n ld.param.u64 %%rd3, [pd];\n"
        " mul.wide.u32 %%rd4, %%r3, 4;\n add.s64 %%rd6, %%rd0, %%rd4;\n add.s64 %%rd7, %%rd1, %%rd4;\n"
        " add.s64 %%rd9, %%rd3, %%rd4;\n ld.global.f32 %%f0, [%%rd6];\n ld.global.f32 %%f1, [%%rd7];\n"
        " rem.u32 %%r4, %%r3, 3;\n setp.ne.u32 %%p0, %%r4, 0;\n mov.u32 %%r5, 0;\n");
    for (unsigned k = 0; k < 28; k++)
        n += (size_t)snprintf(ptx + n, sizeof ptx - n,
                              " setp.%s%s.f32 %%p%u, %%f0, %%f1;\n selp.u32 %%r6, %u, 0, %%p%u;\n"
                              " or.b32 %%r5, %%r5, %%r6;\n",
                              cmps[k % 14], k < 14 ? "" : ".ftz", k + 1, 1u << k, k + 1);
    n += (size_t)snprintf(ptx + n, sizeof ptx - n,
        " setp.eq.u32 %%p30, %%r3, %%r3;\n setp.eq.u32 %%p31, %%r3, %%r3;\n"
        " @%%p0 setp.gtu.and.ftz.f32 %%p30|%%p31, %%f0, %%f1, %%p0;\n"
        " selp.u32 %%r6, 268435456, 0, %%p30;\n or.b32 %%r5, %%r5, %%r6;\n"
        " selp.u32 %%r6, 536870912, 0, %%p31;\n or.b32 %%r5, %%r5, %%r6;\n"
        " setp.num.xor.f32 %%p32|%%p33, %%f0, %%f1, !%%p0;\n"
        " selp.u32 %%r6, 1073741824, 0, %%p32;\n or.b32 %%r5, %%r5, %%r6;\n"
        " selp.u32 %%r6, -2147483648, 0, %%p33;\n or.b32 %%r5, %%r5, %%r6;\n"
        " st.global.b32 [%%rd9], %%r5;\n ret;\n}\n");
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(n < sizeof ptx && vkrr_ptx_module_load(&m, ptx, n, "sp.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint32_t d[NT];
    unsigned wrong[2] = {0, 0};
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        unsigned k = e == VKRR_PTX_ENGINE_JIT;
        memset(d, 0xa5, sizeof d);
        ptxt_args args = {0};
        ptxt_ptr(&args, (void *)a, NT * 4);
        ptxt_ptr(&args, (void *)b, NT * 4);
        ptxt_ptr(&args, d, sizeof d);
        vkrr_ptx_launch l = {.grid = {NT / 52, 1, 1}, .block = {52, 1, 1}, .params = args.bytes,
                             .params_bytes = args.n, .regions = args.regions,
                             .nregions = args.nregions, .engine = (vkrr_ptx_engine)e};
        if (!CHECK(vkrr_ptx_run(m, "sp", &l, &err) == VKRR_OK))
            vkrr_error_print(&err, stderr);
        for (uint32_t t = 0; t < NT; t++) {
            uint32_t w = setp_expect(t, a[t], b[t]);
            if (d[t] != w && wrong[k]++ < 8)
                fprintf(stderr, "  %s: setp thread %u: 0x%08x, want 0x%08x (a 0x%08x b 0x%08x)\n",
                        k ? "jit" : "interp", t, d[t], w, a[t], b[t]);
        }
    }
    printf("setp.f32, 14 comparisons plain and .ftz, bool ops: %u threads, interpreter %u wrong, "
           "JIT %u wrong\n", NT, wrong[0], wrong[1]);
    CHECK_EQ_U64(wrong[0], 0);
    CHECK_EQ_U64(wrong[1], 0);
    vkrr_ptx_module_free(m);
}

/* min/max .f32 (.ftz, .NaN, guarded) and abs/neg .f32 (.ftz) and .f64 */
static const char mm_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry mm(.param .u64 pa, .param .u64 pb, .param .u64 pd)\n{\n"
    " .reg .b32 %r<8>;\n .reg .f32 %f<16>;\n .reg .f64 %fd<4>;\n .reg .b64 %rd<12>;\n"
    " .reg .pred %p<2>;\n"
    " mov.u32 %r0, %tid.x;\n mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n"
    " mad.lo.u32 %r3, %r1, %r2, %r0;\n"
    " ld.param.u64 %rd0, [pa];\n ld.param.u64 %rd1, [pb];\n ld.param.u64 %rd3, [pd];\n"
    " mul.wide.u32 %rd4, %r3, 4;\n mul.wide.u32 %rd5, %r3, 64;\n add.s64 %rd6, %rd0, %rd4;\n"
    " add.s64 %rd7, %rd1, %rd4;\n add.s64 %rd9, %rd3, %rd5;\n"
    " ld.global.f32 %f0, [%rd6];\n ld.global.f32 %f1, [%rd7];\n"
    " rem.u32 %r4, %r3, 3;\n setp.ne.u32 %p0, %r4, 0;\n"
    " min.f32 %f2, %f0, %f1;\n max.f32 %f3, %f0, %f1;\n min.ftz.f32 %f4, %f0, %f1;\n"
    " max.NaN.f32 %f5, %f0, %f1;\n min.ftz.NaN.f32 %f6, %f0, %f1;\n abs.f32 %f7, %f0;\n"
    " neg.ftz.f32 %f8, %f0;\n abs.ftz.f32 %f9, %f1;\n"
    " ld.global.u32 %r5, [%rd6];\n ld.global.u32 %r6, [%rd7];\n mov.b64 %fd0, {%r5, %r6};\n"
    " neg.f64 %fd1, %fd0;\n abs.f64 %fd2, %fd0;\n"
    " mov.f32 %f10, 0f00000005;\n @%p0 max.ftz.f32 %f10, %f0, %f1;\n neg.f32 %f11, %f1;\n"
    " st.global.v4.f32 [%rd9], {%f2, %f3, %f4, %f5};\n"
    " st.global.v4.f32 [%rd9+16], {%f6, %f7, %f8, %f9};\n"
    " st.global.f64 [%rd9+32], %fd1;\n st.global.f64 [%rd9+40], %fd2;\n"
    " st.global.v2.f32 [%rd9+48], {%f10, %f11};\n ret;\n}\n";

/* PTX's min/max: a NaN operand ignored (both, or .NaN: canonical NaN), -0 < +0. */
static uint32_t mm_ref(uint32_t a, uint32_t b, bool max, bool nan, bool ftz)
{
    if (ftz) {
        a = flushed(a);
        b = flushed(b);
    }
    float x = ptxt_f(a), y = ptxt_f(b);
    if (isnan(x) || isnan(y))
        return nan || (isnan(x) && isnan(y)) ? 0x7fffffffu : isnan(x) ? b : a;
    if (x == y && signbit(x) != signbit(y))
        return (signbit(x) != 0) == max ? b : a;
    return (max ? x > y : x < y) ? a : (x == y ? a : b);
}

static void test_minmax(const uint32_t *a, const uint32_t *b)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, mm_ptx, sizeof mm_ptx - 1, "mm.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint32_t d[NT * 16];
    unsigned wrong[2] = {0, 0};
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        unsigned k = e == VKRR_PTX_ENGINE_JIT;
        memset(d, 0xa5, sizeof d);
        ptxt_args args = {0};
        ptxt_ptr(&args, (void *)a, NT * 4);
        ptxt_ptr(&args, (void *)b, NT * 4);
        ptxt_ptr(&args, d, sizeof d);
        vkrr_ptx_launch l = {.grid = {NT / 52, 1, 1}, .block = {52, 1, 1}, .params = args.bytes,
                             .params_bytes = args.n, .regions = args.regions,
                             .nregions = args.nregions, .engine = (vkrr_ptx_engine)e};
        if (!CHECK(vkrr_ptx_run(m, "mm", &l, &err) == VKRR_OK))
            vkrr_error_print(&err, stderr);
        for (uint32_t t = 0; t < NT; t++) {
            uint32_t x = a[t], y = b[t], w[14];
            w[0] = mm_ref(x, y, false, false, false);
            w[1] = mm_ref(x, y, true, false, false);
            w[2] = mm_ref(x, y, false, false, true);
            w[3] = mm_ref(x, y, true, true, false);
            w[4] = mm_ref(x, y, false, true, true);
            w[5] = x & 0x7fffffffu;
            w[6] = flushed(x) ^ 0x80000000u;
            w[7] = flushed(y) & 0x7fffffffu;
            w[8] = x;
            w[9] = y ^ 0x80000000u;
            w[10] = x;
            w[11] = y & 0x7fffffffu;
            w[12] = t % 3 ? mm_ref(x, y, true, false, true) : 5u;
            w[13] = y ^ 0x80000000u;
            for (unsigned i = 0; i < 14; i++)
                if (d[t * 16 + i] != w[i] && wrong[k]++ < 8)
                    fprintf(stderr, "  %s: min/max/abs/neg thread %u word %u: 0x%08x, want 0x%08x (a 0x%08x b 0x%08x)\n",
                            k ? "jit" : "interp", t, i, d[t * 16 + i], w[i], x, y);
        }
    }
    printf("min/max .f32 (.ftz, .NaN), abs/neg .f32 (.ftz) and .f64: %u threads, interpreter %u wrong, "
           "JIT %u wrong\n", NT, wrong[0], wrong[1]);
    CHECK_EQ_U64(wrong[0], 0);
    CHECK_EQ_U64(wrong[1], 0);
    vkrr_ptx_module_free(m);
}

int main(void)
{
    test_arith();
    return test_finish("ptx_jit_float");
}
