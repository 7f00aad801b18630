/* test_ptx_mma: ldmatrix (x4, x2.trans) feeding mma.sync m16n8k16 f16 with
 * f32 and f16 accumulators, and mma.sync m16n8k32 e4m3 (compute_89 PTX)
 * with f32 and f16 accumulators, one warp, against D = A*B + C computed here:
 * the exact products summed exactly (in long double, exact for these
 * inputs: as rrref sums a 32-term slice), c added, rounded once to the type
 * of D (the PTX ISA: products exact, accumulation in at least single
 * precision; see cuda_ref/ptx/isa/ptx_mma.c).  One case is built so that
 * rounding the slice to f16 before adding c (two roundings, rrref's own
 * accumulator) gives a different f16 than the one rounding mma makes. */
#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "approx.h"
#include "hw_model.h"
#include "ptx_testutil.h"

static uint16_t f16_of(long double x) { return (uint16_t)ptxt_round(&PTXT_F16, x, 0, false); }
static long double h(uint16_t c) { return ptxt_decode(&PTXT_F16, c); }

/* k_mma16 (mma_ops.cu) on A 16x16, B 16x8 (f16), C 16x8 (f32) and C16 (f16) */
static bool run_mma16(vkrr_ptx_module *m, uint16_t *A, uint16_t *B, float *C, uint16_t *C16, float *D,
                      uint16_t *D16)
{
    ptxt_args a = {0};
    ptxt_ptr(&a, A, 256 * sizeof *A);
    ptxt_ptr(&a, B, 128 * sizeof *B);
    ptxt_ptr(&a, C, 128 * sizeof *C);
    ptxt_ptr(&a, C16, 128 * sizeof *C16);
    ptxt_ptr(&a, D, 128 * sizeof *D);
    ptxt_ptr(&a, D16, 128 * sizeof *D16);
    unsigned standins = 0;
    bool ok = ptxt_run_standins(m, "k_mma16", &a, &standins);
    /* its rows say the reference's tensor-core sums are a model (approx.h) */
    CHECK_EQ_U64(standins, VKRR_STANDIN_TCSUM);
    return ok;
}

static void check_mma16(vkrr_ptx_module *m, unsigned sm)
{
    static uint16_t A[256], B[128], C16[128], D16[128];
    static float C[128], D[128];
    uint64_t s = 23;
    for (int i = 0; i < 256; i++)
        A[i] = f16_of((long double)((int)(ptxt_rand(&s) % 33) - 16) / 8);
    for (int i = 0; i < 128; i++) {
        B[i] = f16_of((long double)((int)(ptxt_rand(&s) % 33) - 16) / 8);
        C[i] = (float)((int)(ptxt_rand(&s) % 2001) - 1000) / 64.0f;
        C16[i] = f16_of((long double)((int)(ptxt_rand(&s) % 2001) - 1000) / 64);
    }
    if (!run_mma16(m, A, B, C, C16, D, D16))
        return;
    unsigned bad = 0;
    for (int r = 0; r < 16; r++)
        for (int n = 0; n < 8; n++) {
            long double acc = 0;
            for (int k = 0; k < 16; k++)
                acc += h(A[r * 16 + k]) * h(B[k * 8 + n]);
            float want = (float)(acc + C[r * 8 + n]);
            uint16_t want16 = f16_of(acc + h(C16[r * 8 + n]));
            if ((D[r * 8 + n] != want || D16[r * 8 + n] != want16) && bad++ < 8)
                fprintf(stderr, "sm%u mma16 (%d,%d): %a / %04x, want %a / %04x\n", sm, r, n, D[r * 8 + n],
                        D16[r * 8 + n], want, want16);
        }
    CHECK_EQ_U64(bad, 0);
}

/* m16n8k16 .f16 -> .f32 on the sm_90 model (25 fraction bits, one sum) and
 * the sm_80 model (24 bits, the two halves of k in turn), on two elements
 * worked out by hand:
 *   (0,0): c = 1, products 2^-24 at k = 0 and k = 8.  One sum: 1 + 2^-23
 *     (0x3f800001).  Halves: 1 + 2^-24 -> toward zero 1.0, then again 1.0.
 *   (1,1): c = 1, one product -2^-25.  25 bits: 1 - 2^-25 -> toward zero
 *     1 - 2^-24 (0x3f7fffff), where the exact sum rounded to nearest is 1.0;
 *     24 bits: -2^-25 truncates to 0: 1.0. */
static void check_mma16_models(vkrr_ptx_module *m)
{
    static uint16_t A[256], B[128], C16[128], D16[128];
    static float C[128], D[128];
    memset(A, 0, sizeof A);
    memset(B, 0, sizeof B);
    A[0 * 16 + 0] = A[0 * 16 + 8] = f16_of(0x1p-12L);
    B[0 * 8 + 0] = B[8 * 8 + 0] = f16_of(0x1p-12L);
    A[1 * 16 + 0] = f16_of(-0x1p-12L);
    B[0 * 8 + 1] = f16_of(0x1p-13L);
    C[0] = C[1 * 8 + 1] = 1.0f;
    static const struct { const char *arch; uint32_t d00, d11; } want[] = {
        {NULL, 0x3f800001u, 0x3f7fffffu}, {"sm_80", 0x3f800000u, 0x3f800000u}};
    for (int i = 0; i < 2; i++) {
        vkrr_hw_model *hw = NULL;
        vkrr_error err = {0};
        vkrr_hw_choice hc = {.capture_arch = want[i].arch};
        if (want[i].arch && !CHECK(vkrr_hw_model_open(&hc, &hw, &err) == VKRR_OK))
            return;
        vkrr_hw_use(hw);
        bool ok = run_mma16(m, A, B, C, C16, D, D16);
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(hw);
        printf("mma m16n8k16 f16 on the %s model: d(0,0) 0x%08x, d(1,1) 0x%08x\n",
               want[i].arch ? want[i].arch : "sm_90", ptxt_u(D[0]), ptxt_u(D[9]));
        CHECK(ok);
        CHECK_EQ_U64(ptxt_u(D[0]), want[i].d00);
        CHECK_EQ_U64(ptxt_u(D[9]), want[i].d11);
    }
}

/* The tensor cores' sum (ptx_mma_sum.c), written again here from the model
 * its header states: c and each product (at the sum of its factors'
 * exponents, each at least its type's least normal one) aligned to the
 * largest exponent among them, truncated to frac fraction bits of it and
 * summed exactly. */
static long double tc_fused(const long double *x, const long double *y, int k0, int k1, int xymin,
                            long double c, int cmin, int frac)
{
    int maxe = INT_MIN, ex[32];
    for (int k = k0; k < k1; k++) {
        ex[k] = INT_MIN;
        if (x[k] != 0 && y[k] != 0) {
            int a = ilogbl(x[k]), b = ilogbl(y[k]);
            ex[k] = (a < xymin ? xymin : a) + (b < xymin ? xymin : b);
            maxe = ex[k] > maxe ? ex[k] : maxe;
        }
    }
    int ec = c != 0 ? (ilogbl(c) < cmin ? cmin : ilogbl(c)) : INT_MIN;
    maxe = ec > maxe ? ec : maxe;
    if (maxe == INT_MIN)
        return 0;
    long double sum = c != 0 ? truncl(ldexpl(c, frac - maxe)) : 0;
    for (int k = k0; k < k1; k++)
        if (ex[k] != INT_MIN)
            sum += truncl(ldexpl(x[k] * y[k], frac - maxe));
    return ldexpl(sum, maxe - frac);
}

/* toward zero to an f32 of `bits` fraction bits (23, or sm_89 fp8's 13); +0 for 0 */
static float tc_f32(long double v, int bits)
{
    if (v == 0)
        return 0.0f;
    int e = ilogbl(v) < -126 ? -126 : ilogbl(v);
    long double q = ldexpl(1, e - bits);
    return (float)(truncl(v / q) * q);
}

/* one m16n8k32 fp8 element on the architecture (90: 25 bits; 89: 13 bits,
 * an f32 d of 13 fraction bits, the halves of k in turn), d f32 from c
 * (f32) and d f16 from c16 */
static void tc_fp8(const long double *x, const long double *y, float c, uint16_t c16, int sm, float *d,
                   uint16_t *d16)
{
    int frac = sm == 89 ? 13 : 25, halves = sm == 89 ? 2 : 1, step = 32 / halves;
    long double cf = c, ch = h(c16);
    int cfmin = -126, chmin = -14;
    for (int p = 0; p < halves; p++) {
        *d = tc_f32(tc_fused(x, y, p * step, (p + 1) * step, -6, cf, cfmin, frac), sm == 89 ? 13 : 23);
        *d16 = f16_of(tc_fused(x, y, p * step, (p + 1) * step, -6, ch, chmin, frac));
        if (*d16 == 0x8000u)
            *d16 = 0;
        cf = *d;
        ch = h(*d16);
        chmin = -14;
    }
}

static void check_mma8(vkrr_ptx_module *m)
{
    static uint8_t A[16 * 32], Bt[8 * 32];
    static float C[128], D[128];
    static uint16_t C16[128], D16[128];
    uint64_t s = 31;
    for (int i = 0; i < 16 * 32; i++) {
        A[i] = (uint8_t)ptxt_rand(&s);
        if ((A[i] & 0x7f) == 0x7f)
            A[i] ^= 1; /* NaN codes only where placed below */
    }
    for (int i = 0; i < 8 * 32; i++) {
        Bt[i] = (uint8_t)(ptxt_rand(&s) & 0xbf); /* |b| < 2: sums stay in f16 range */
    }
    for (int i = 0; i < 128; i++) {
        C[i] = (float)((int)(ptxt_rand(&s) % 4001) - 2000) / 1024.0f;
        C16[i] = f16_of((long double)((int)(ptxt_rand(&s) % 4001) - 2000) / 1024);
    }
    A[5 * 32 + 7] = 0x7f; /* row 5 is NaN in every column */
    /* row 0, column 0: the slice is S = 1 + 2^-11 + 2^-13 and c = -2^-12.  One
     * rounding: S + c = 1 + 2^-12 + 2^-13 -> 1.0.  Two (f16(S) = 1 + 2^-10, then
     * + c = 1 + 3 * 2^-12) -> 1 + 2^-10. */
    memset(A, 0, 32);
    memset(Bt, 0, 32);
    A[0] = 0x38; /* 1.0 */
    Bt[0] = 0x38;
    A[1] = 0x08; /* 2^-6 */
    Bt[1] = 0x10; /* 2^-5 */
    A[2] = 0x08;
    Bt[2] = 0x04; /* 4 * 2^-9 = 2^-7 */
    C16[0] = f16_of(-0x1p-12L);
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, Bt, sizeof Bt);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, C16, sizeof C16);
    ptxt_ptr(&a, D, sizeof D);
    ptxt_ptr(&a, D16, sizeof D16);
    /* on the sm_90 model (the default), on sm_89's (the capture's GPU an Ada:
     * its tables fall back to sm_90's, its tensor-core sums are its own), and
     * on the rounded model (sm 0 here: the exact sum rounded once) */
    static const int sms[] = {90, 89, 0};
    for (int si = 0; si < 3; si++) {
        int sm = sms[si];
        vkrr_hw_model *hw = NULL;
        if (sm != 90) {
            vkrr_error err = {0};
            vkrr_hw_choice hc = {.approx = sm ? NULL : "rounded", .capture_arch = sm ? "sm_89" : NULL};
            if (!CHECK(vkrr_hw_model_open(&hc, &hw, &err) == VKRR_OK))
                return;
            vkrr_hw_use(hw);
        }
        bool ok = ptxt_run(m, "k_mma8", &a, 1, 32, 0);
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(hw);
        if (!CHECK(ok))
            return;
        unsigned bad = 0, exact_differs = 0;
        bool twice_differs = false;
        for (int r = 0; r < 16; r++)
            for (int n = 0; n < 8; n++) {
                long double acc = 0, x[32], y[32];
                bool nan = false;
                for (int k = 0; k < 32; k++) {
                    x[k] = ptxt_decode(&PTXT_E4M3, A[r * 32 + k]);
                    y[k] = ptxt_decode(&PTXT_E4M3, Bt[n * 32 + k]);
                    nan |= x[k] != x[k] || y[k] != y[k];
                    acc += x[k] * y[k];
                }
                float f = 0;
                uint16_t f16 = 0;
                if (!nan && sm) {
                    tc_fp8(x, y, C[r * 8 + n], C16[r * 8 + n], sm, &f, &f16);
                } else if (!nan) {
                    f = (float)(acc + C[r * 8 + n]);
                    f16 = f16_of(acc + h(C16[r * 8 + n]));
                }
                uint32_t want = nan ? 0x7fffffffu : ptxt_u(f);
                uint16_t want16 = nan ? 0x7fffu : f16;
                exact_differs += !nan && (ptxt_u((float)(acc + C[r * 8 + n])) != want ||
                                          f16_of(acc + h(C16[r * 8 + n])) != want16);
                if (!nan && f16_of(h(f16_of(acc)) + h(C16[r * 8 + n])) != want16)
                    twice_differs = true;
                if ((ptxt_u(D[r * 8 + n]) != want || D16[r * 8 + n] != want16) && bad++ < 8)
                    fprintf(stderr, "sm_%d model mma8 (%d,%d): %08x / %04x, want %08x / %04x\n", sm, r, n,
                            ptxt_u(D[r * 8 + n]), D16[r * 8 + n], want, want16);
            }
        printf("mma m16n8k32 e4m3 on the %s model: %u of 128 elements wrong; %u of them differ from "
               "the exact sum rounded once\n", sm == 90 ? "sm_90" : sm ? "sm_89" : "rounded", bad, exact_differs);
        CHECK_EQ_U64(bad, 0);
        CHECK(twice_differs);                   /* the inputs tell one rounding from two */
        CHECK(sm ? exact_differs > 0 : exact_differs == 0); /* and the models from the exact sum */
    }
}

/* m16n8k32 s8 (wrapping and .satfinite), m16n8k16 u8 x s8: exact integers */
static void check_mma_s8(vkrr_ptx_module *m)
{
    uint64_t s = 29;
    static int8_t A[16 * 32], Bt[8 * 32];
    static int32_t C[128], D[128], Dsat[128], D16[128];
    for (int i = 0; i < 16 * 32; i++)
        A[i] = (int8_t)ptxt_rand(&s);
    for (int i = 0; i < 8 * 32; i++)
        Bt[i] = (int8_t)ptxt_rand(&s);
    for (int i = 0; i < 128; i++)
        C[i] = (int32_t)ptxt_rand(&s) >> 4;
    C[3] = INT32_MAX - 5; /* these overflow unless saturated */
    C[100] = INT32_MIN + 5;
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, Bt, sizeof Bt);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, D, sizeof D);
    ptxt_ptr(&a, Dsat, sizeof Dsat);
    ptxt_ptr(&a, D16, sizeof D16);
    if (!ptxt_run(m, "k_mma_s8", &a, 1, 32, 0))
        return;
    unsigned bad = 0, clamped = 0;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 8; j++) {
            int64_t p = C[i * 8 + j], q = C[i * 8 + j];
            for (int k = 0; k < 32; k++)
                p += (int64_t)A[i * 32 + k] * Bt[j * 32 + k];
            for (int k = 0; k < 16; k++)
                q += (int64_t)(uint8_t)A[i * 32 + k] * Bt[j * 32 + k];
            int64_t sat = p > INT32_MAX ? INT32_MAX : p < INT32_MIN ? INT32_MIN : p;
            clamped += sat != p;
            bad += D[i * 8 + j] != (int32_t)(uint32_t)(uint64_t)p || Dsat[i * 8 + j] != (int32_t)sat ||
                   D16[i * 8 + j] != (int32_t)(uint32_t)(uint64_t)q;
        }
    CHECK_EQ_U64(bad, 0);
    CHECK(clamped >= 1);
}

/* m16n8k8 and m16n8k4 tf32 (inputs exact in tf32: the sums are exact) */
static void check_mma_tf32(vkrr_ptx_module *m)
{
    uint64_t s = 31;
    static float A[16 * 8], Bt[8 * 8], C[128], D[128], D4[128];
    for (int i = 0; i < 16 * 8; i++)
        A[i] = (float)((int)(ptxt_rand(&s) % 129) - 64) / 8.0f;
    for (int i = 0; i < 64; i++)
        Bt[i] = (float)((int)(ptxt_rand(&s) % 129) - 64) / 16.0f;
    for (int i = 0; i < 128; i++)
        C[i] = (float)((int)(ptxt_rand(&s) % 2001) - 1000) / 4.0f;
    A[5] = ptxt_f(ptxt_u(1.5f) | 0x1fffu); /* bits below tf32's are ignored: 1.5 */
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, Bt, sizeof Bt);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, D, sizeof D);
    ptxt_ptr(&a, D4, sizeof D4);
    if (!ptxt_run(m, "k_mma_tf32", &a, 1, 32, 0))
        return;
    unsigned bad = 0;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 8; j++) {
            double p = C[i * 8 + j], q = C[i * 8 + j];
            for (int k = 0; k < 8; k++) {
                double x = ptxt_f(ptxt_u(A[i * 8 + k]) & ~0x1fffu) * (double)Bt[j * 8 + k];
                p += x;
                if (k < 4)
                    q += x;
            }
            bad += D[i * 8 + j] != (float)p || D4[i * 8 + j] != (float)q;
        }
    CHECK_EQ_U64(bad, 0);
}

/* stmatrix (sm_90; ptxas accepts this text): ldmatrix.x4 then stmatrix.x4
 * gives the matrices back, stmatrix.x4.trans each one transposed. */
static const char stmatrix_ptx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry st(.param .u64 in, .param .u64 out, .param .u32 trans)\n"
    "{\n"
    " .reg .pred %p<2>;\n"
    " .reg .b32 %r<20>;\n"
    " .reg .b64 %rd<8>;\n"
    " .shared .align 16 .b16 src[256];\n"
    " .shared .align 16 .b16 dst[256];\n"
    " ld.param.u64 %rd1, [in];\n"
    " cvta.to.global.u64 %rd1, %rd1;\n"
    " ld.param.u64 %rd2, [out];\n"
    " cvta.to.global.u64 %rd2, %rd2;\n"
    " ld.param.u32 %r10, [trans];\n"
    " mov.u32 %r1, %tid.x;\n"
    " shl.b32 %r3, %r1, 4;\n"
    " mul.wide.u32 %rd3, %r1, 16;\n"
    " add.s64 %rd4, %rd1, %rd3;\n"
    " ld.global.v4.u32 {%r12, %r13, %r14, %r15}, [%rd4];\n"
    " mov.u32 %r2, src;\n"
    " add.u32 %r4, %r2, %r3;\n"
    " st.shared.v4.u32 [%r4], {%r12, %r13, %r14, %r15};\n"
    " bar.sync 0;\n"
    " ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r5, %r6, %r7, %r8}, [%r4];\n"
    " mov.u32 %r9, dst;\n"
    " add.u32 %r11, %r9, %r3;\n"
    " setp.ne.u32 %p1, %r10, 0;\n"
    " @%p1 bra TR;\n"
    " stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r11], {%r5, %r6, %r7, %r8};\n"
    " bra.uni OUT;\n"
    "TR:\n"
    " stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r11], {%r5, %r6, %r7, %r8};\n"
    "OUT:\n"
    " bar.sync 0;\n"
    " ld.shared.v4.u32 {%r12, %r13, %r14, %r15}, [%r11];\n"
    " add.s64 %rd5, %rd2, %rd3;\n"
    " st.global.v4.u32 [%rd5], {%r12, %r13, %r14, %r15};\n"
    " ret;\n"
    "}\n"
;

static void check_stmatrix(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, stmatrix_ptx, strlen(stmatrix_ptx), "st.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static _Alignas(16) uint16_t in[256], out[256];
    for (int i = 0; i < 256; i++)
        in[i] = (uint16_t)(i * 37 + 11);
    for (uint32_t trans = 0; trans < 2; trans++) {
        ptxt_args a = {0};
        ptxt_ptr(&a, in, sizeof in);
        ptxt_ptr(&a, out, sizeof out);
        ptxt_u32(&a, trans);
        memset(out, 0, sizeof out);
        if (!ptxt_run(m, "st", &a, 1, 32, 0))
            break;
        unsigned bad = 0;
        for (int i = 0; i < 4; i++)
            for (int r = 0; r < 8; r++)
                for (int c = 0; c < 8; c++)
                    bad += out[i * 64 + r * 8 + c] != in[i * 64 + (trans ? c * 8 + r : r * 8 + c)];
        CHECK_EQ_U64(bad, 0);
    }
    vkrr_ptx_module_free(m);
}

/* s4/u4 and b1 on the same packed bits (low nibble, low bit first) */
static int nib(const uint32_t *w, unsigned i, bool sgn)
{
    unsigned v = (w[i / 8] >> (4 * (i % 8))) & 15u;
    return sgn && v >= 8 ? (int)v - 16 : (int)v;
}

static unsigned bit(const uint32_t *w, unsigned i) { return (w[i / 32] >> (i % 32)) & 1u; }

static void check_mma_sub(vkrr_ptx_module *m)
{
    uint64_t s = 37;
    static uint32_t A[16 * 8], Bt[8 * 8];
    static int32_t C[128], D[128], Dsat[128], D32[128], Dx[128], Da[128];
    for (int i = 0; i < 128; i++)
        A[i] = ptxt_rand(&s);
    for (int i = 0; i < 64; i++)
        Bt[i] = ptxt_rand(&s);
    for (int i = 0; i < 128; i++)
        C[i] = (int32_t)ptxt_rand(&s) >> 8;
    C[7] = INT32_MAX - 3;
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, Bt, sizeof Bt);
    ptxt_ptr(&a, C, sizeof C);
    int32_t *outs[5] = {D, Dsat, D32, Dx, Da};
    for (int k = 0; k < 5; k++)
        ptxt_ptr(&a, outs[k], 128 * sizeof(int32_t));
    if (!ptxt_run(m, "k_mma_sub", &a, 1, 32, 0))
        return;
    unsigned bad = 0, clamped = 0;
    for (unsigned i = 0; i < 16; i++)
        for (unsigned j = 0; j < 8; j++) {
            int64_t c = C[i * 8 + j], p = c, q = c, x = c, y = c;
            for (unsigned k = 0; k < 64; k++) {
                p += (int64_t)nib(A, i * 64 + k, true) * nib(Bt, j * 64 + k, true);
                if (k < 32)
                    q += (int64_t)nib(A, i * 64 + k, false) * nib(Bt, j * 64 + k, true);
            }
            for (unsigned k = 0; k < 256; k++) {
                x += bit(A, i * 256 + k) ^ bit(Bt, j * 256 + k);
                if (k < 128)
                    y += bit(A, i * 256 + k) & bit(Bt, j * 256 + k);
            }
            int64_t sat = p > INT32_MAX ? INT32_MAX : p < INT32_MIN ? INT32_MIN : p;
            clamped += sat != p;
            bad += D[i * 8 + j] != (int32_t)(uint32_t)(uint64_t)p || Dsat[i * 8 + j] != (int32_t)sat ||
                   D32[i * 8 + j] != (int32_t)q || Dx[i * 8 + j] != (int32_t)(uint32_t)(uint64_t)x ||
                   Da[i * 8 + j] != (int32_t)y;
        }
    CHECK_EQ_U64(bad, 0);
    CHECK(clamped >= 1);
}

/* m8n8k16 s8, m8n8k32 u4, m8n8k128 b1 on the same 8 x 16-byte rows */
static void check_mma_m8(vkrr_ptx_module *m)
{
    uint64_t s = 59;
    static uint32_t A[32], Bt[32];
    static int32_t C[64], D8[64], D4[64], D1[64];
    for (int i = 0; i < 32; i++) {
        A[i] = ptxt_rand(&s);
        Bt[i] = ptxt_rand(&s);
    }
    for (int i = 0; i < 64; i++)
        C[i] = (int32_t)(ptxt_rand(&s) % 20001) - 10000;
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, Bt, sizeof Bt);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, D8, sizeof D8);
    ptxt_ptr(&a, D4, sizeof D4);
    ptxt_ptr(&a, D1, sizeof D1);
    if (!ptxt_run(m, "k_mma_m8", &a, 1, 32, 0))
        return;
    const int8_t *a8 = (const int8_t *)A, *b8 = (const int8_t *)Bt;
    unsigned bad = 0;
    for (unsigned i = 0; i < 8; i++)
        for (unsigned j = 0; j < 8; j++) {
            int64_t c = C[i * 8 + j], p = c, q = c, x = c;
            for (unsigned k = 0; k < 16; k++)
                p += (int64_t)a8[i * 16 + k] * b8[j * 16 + k];
            for (unsigned k = 0; k < 32; k++)
                q += (int64_t)nib(A, i * 32 + k, false) * nib(Bt, j * 32 + k, false);
            for (unsigned k = 0; k < 128; k++)
                x += bit(A, i * 128 + k) ^ bit(Bt, j * 128 + k);
            bad += D8[i * 8 + j] != (int32_t)p || D4[i * 8 + j] != (int32_t)q || D1[i * 8 + j] != (int32_t)x;
        }
    CHECK_EQ_U64(bad, 0);
}

/* m8n8k4 .f16 (mma_more_ops.cu's header): four independent 8 x 4 x 8 products,
 * one a quad pair.  Inputs are quarters of -8..8 and C integers, so every sum
 * is exact in f16 and f32 and only the layouts show: a lane, a quad pair or a
 * row swapped anywhere moves a value. */
static void check_mma_884(vkrr_ptx_module *m)
{
    uint64_t s = 884;
    static uint16_t A[128], B[128], Ch[256], Dh[2 * 256];
    static float Af[128], Bf[128], C[256], D[5 * 256];
    for (int i = 0; i < 128; i++) {
        Af[i] = (float)((int)(ptxt_rand(&s) % 17) - 8) / 4.0f;
        Bf[i] = (float)((int)(ptxt_rand(&s) % 17) - 8) / 4.0f;
        A[i] = vkrr_f32_to_f16_rne(Af[i]);
        B[i] = vkrr_f32_to_f16_rne(Bf[i]);
    }
    for (int i = 0; i < 256; i++) {
        C[i] = (float)((int)(ptxt_rand(&s) % 129) - 64);
        Ch[i] = vkrr_f32_to_f16_rne(C[i]);
    }
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, Ch, sizeof Ch);
    ptxt_ptr(&a, D, sizeof D);
    ptxt_ptr(&a, Dh, sizeof Dh);
    if (!CHECK(ptxt_run(m, "k_mma_884", &a, 1, 32, 0)))
        return;
    unsigned bad = 0;
    for (int q = 0; q < 4; q++)
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++) {
                float want = C[64 * q + r * 8 + c];
                for (int k = 0; k < 4; k++)
                    want += Af[32 * q + r * 4 + k] * Bf[32 * q + k * 8 + c];
                unsigned at = 64 * q + r * 8 + c;
                for (int v = 0; v < 5; v++)
                    if (D[v * 256 + at] != want && bad++ < 4)
                        fprintf(stderr, "  m8n8k4 f16 variant %d product %d d(%d,%d) = %g, want %g\n", v, q, r, c,
                                D[v * 256 + at], want);
                for (int v = 0; v < 2; v++)
                    if (Dh[v * 256 + at] != vkrr_f32_to_f16_rne(want) && bad++ < 4)
                        fprintf(stderr, "  m8n8k4 f16 .f16 d %d product %d d(%d,%d) = 0x%04x, want %g\n", v, q, r,
                                c, Dh[v * 256 + at], want);
            }
    printf("mma m8n8k4 .f16 (4 layouts, f16/f32 c and d): %u of 1792 elements wrong\n", bad);
    CHECK_EQ_U64(bad, 0);
}

/* m8n8k4 forms the ISA lacks are refused, naming the line, when the kernel
 * that holds one runs */
static void check_mma_884_refused(void)
{
    static const char src[] =
        ".version 8.0\n"
        ".target sm_80\n"
        ".address_size 64\n"
        ".visible .entry bad()\n"
        "{\n"
        " .reg .b32 %r<8>;\n"
        " .reg .f32 %f<16>;\n"
        " mma.sync.aligned.m8n8k4.row.row.f32.bf16.bf16.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7}, {%r0,%r1},"
        " {%r2,%r3}, {%f8,%f9,%f10,%f11,%f12,%f13,%f14,%f15};\n"
        " ret;\n"
        "}\n"
        ".visible .entry mixed()\n" /* .f16 d from .f32 c: ptxas refuses it */
        "{\n"
        " .reg .b32 %r<8>;\n"
        " .reg .f32 %f<16>;\n"
        " mma.sync.aligned.m8n8k4.row.row.f16.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r6,%r7},"
        " {%f8,%f9,%f10,%f11,%f12,%f13,%f14,%f15};\n"
        " ret;\n"
        "}\n";
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, src, strlen(src), "bad884.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    ptxt_args none = {0};
    memset(&err, 0, sizeof err);
    vkrr_status st = ptxt_run_ex(m, "bad", &none, 1, 32, 0, NULL, 0, NULL, 0, &err);
    CHECK(st == VKRR_ERR_UNSUPPORTED && err.line == 8 && strstr(err.msg, "mma.m8n8k4 other than"));
    memset(&err, 0, sizeof err);
    st = ptxt_run_ex(m, "mixed", &none, 1, 32, 0, NULL, 0, NULL, 0, &err);
    CHECK(st == VKRR_ERR_UNSUPPORTED && err.line == 15 && strstr(err.msg, "with .f16 d and .f32 c"));
    vkrr_ptx_module_free(m);
}

/* m8n8k4 .f64 (dyadic inputs: every sum is exact, so only the layout shows) */
static void check_mma_f64(vkrr_ptx_module *m)
{
    uint64_t s = 73;
    static double A[32], Bt[32], C[64], D[64];
    for (int i = 0; i < 32; i++) {
        A[i] = (double)((int)(ptxt_rand(&s) % 2049) - 1024) / 64.0;
        Bt[i] = (double)((int)(ptxt_rand(&s) % 2049) - 1024) / 32.0;
    }
    for (int i = 0; i < 64; i++)
        C[i] = (double)((int)(ptxt_rand(&s) % 200001) - 100000) / 8.0;
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, Bt, sizeof Bt);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, D, sizeof D);
    unsigned standins = 0;
    if (!ptxt_run_standins(m, "k_mma_f64", &a, &standins))
        return;
    /* its rows say the reference is a model there (approx.h) */
    CHECK_EQ_U64(standins, VKRR_STANDIN_DMMA);
    unsigned bad = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            double want = C[i * 8 + j];
            for (int k = 0; k < 4; k++)
                want += A[i * 4 + k] * Bt[j * 4 + k];
            if (D[i * 8 + j] != want && bad++ < 4)
                fprintf(stderr, "  m8n8k4 f64 d(%d,%d) = %.17g, want %.17g\n", i, j, D[i * 8 + j], want);
        }
    printf("mma m8n8k4 .f64: %u of 64 elements wrong\n", bad);
    CHECK_EQ_U64(bad, 0);
}

/* fma(a, b, c) in the rounding mode fe (the host FPU's, around the call;
 * volatile so the compiler neither folds nor moves it) */
static double fma_in(double a, double b, double c, int fe)
{
    volatile double va = a, vb = b, vc = c;
    int old = fegetround();
    fesetround(fe);
    volatile double r = fma(va, vb, vc);
    fesetround(old);
    return r;
}

/* The .rn/.rz/.rm/.rp modifiers of the f64 mma on inputs whose products
 * and sums round: each kernel against the model's four fmas in k order in
 * that mode, computed here by the host FPU; the modes must not all agree
 * (or the inputs would test nothing), and no modifier is .rn in disguise. */
static void check_mma_f64_rounding(vkrr_ptx_module *m)
{
    uint64_t s = 91;
    static double A[32], Bt[32], C[64], D[4][64];
    for (int i = 0; i < 32; i++) {
        A[i] = ((double)ptxt_rand(&s) / 4294967296.0 - 0.5) * 3.0;
        Bt[i] = ((double)ptxt_rand(&s) / 4294967296.0 - 0.5) / 7.0;
    }
    for (int i = 0; i < 64; i++)
        C[i] = ((double)ptxt_rand(&s) / 4294967296.0 - 0.5) * 1e-3;
    static const char *const kernel[4] = {"k_mma_f64_rn", "k_mma_f64_rz", "k_mma_f64_rm", "k_mma_f64_rp"};
    static const int fe[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
    unsigned bad = 0, differ = 0;
    for (int r = 0; r < 4; r++) {
        ptxt_args a = {0};
        ptxt_ptr(&a, A, sizeof A);
        ptxt_ptr(&a, Bt, sizeof Bt);
        ptxt_ptr(&a, C, sizeof C);
        ptxt_ptr(&a, D[r], sizeof D[r]);
        if (!CHECK(ptxt_run(m, kernel[r], &a, 1, 32, 0)))
            return;
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++) {
                double want = C[i * 8 + j];
                for (int k = 0; k < 4; k++)
                    want = fma_in(A[i * 4 + k], Bt[j * 4 + k], want, fe[r]);
                if (memcmp(&D[r][i * 8 + j], &want, 8) && bad++ < 4)
                    fprintf(stderr, "  %s d(%d,%d) = %.17g, want %.17g\n", kernel[r], i, j,
                            D[r][i * 8 + j], want);
            }
    }
    for (int i = 0; i < 64; i++)
        differ += D[1][i] != D[0][i] && D[2][i] != D[3][i];
    printf("mma m8n8k4 .f64 .rn/.rz/.rm/.rp: %u elements wrong; %u of 64 differ in .rz and .rn, "
           "and in .rm and .rp\n", bad, differ);
    CHECK_EQ_U64(bad, 0);
    CHECK(differ > 16);
}

/* Sparse A (mma.sp), the case a published sm_80 run checked: m16n8k32 f16
 * with f16 accumulators, Ac[i][j] = i + j + 1, every group keeping its
 * columns 0 and 2 (0x8888), Bt[n][k] = n - k, C = 0.  D against the sum
 * computed here, and three of that run's printed results. */
static void check_mma_sp_published(vkrr_ptx_module *m)
{
    static uint16_t Ac[16 * 16], Meta[16 * 2], Bt[8 * 32], D[16 * 8];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++)
            Ac[i * 16 + j] = vkrr_f32_to_f16_rne((float)(i + j + 1));
    for (int i = 0; i < 32; i++)
        Meta[i] = 0x8888;
    for (int n = 0; n < 8; n++)
        for (int k = 0; k < 32; k++)
            Bt[n * 32 + k] = vkrr_f32_to_f16_rne((float)(n - k));
    ptxt_args a = {0};
    ptxt_ptr(&a, Ac, sizeof Ac);
    ptxt_ptr(&a, Meta, sizeof Meta);
    ptxt_ptr(&a, Bt, sizeof Bt);
    ptxt_ptr(&a, D, sizeof D);
    if (!CHECK(ptxt_run(m, "k_mma_sp_f16acc", &a, 1, 32, 0)))
        return;
    unsigned bad = 0;
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++) {
            double want = 0;
            for (int j = 0; j < 16; j++)
                want += (double)(i + j + 1) * (n - (4 * (j / 2) + (j % 2 ? 2 : 0)));
            if (D[i * 8 + n] != vkrr_f32_to_f16_rne((float)want) && bad++ < 4)
                fprintf(stderr, "  mma.sp k32 f16 d(%d,%d) = 0x%04x, want %g\n", i, n, D[i * 8 + n], want);
        }
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(D[0], vkrr_f32_to_f16_rne(-2720.0f));
    CHECK_EQ_U64(D[7 * 8 + 3], vkrr_f32_to_f16_rne(-3656.0f));
    CHECK_EQ_U64(D[15 * 8 + 7], vkrr_f32_to_f16_rne(-3688.0f));
    printf("mma.sp m16n8k32 f16 (published case): %u of 128 elements wrong\n", bad);
}

/* mma.sp m16n8k32 (selector 1) and m16n8k16 (selector 2), .f16 and .bf16, f32 accumulators,
 * on metadata that differs row by row and group by group (every one of the
 * six ways to keep two of four columns), small dyadic values (every sum
 * exact), against the dense product computed here; lanes that do not hold
 * the metadata for the selector pass metadata that would fault if read.
 * Then one group naming a column twice: the launch faults. */
/* a value of the type (bf16: the f32's upper half; these values fit it exactly) */
static uint16_t half_of(float v, int bf16)
{
    return bf16 ? (uint16_t)(ptxt_u(v) >> 16) : vkrr_f32_to_f16_rne(v);
}

static float from_half(uint16_t h, int bf16)
{
    return bf16 ? ptxt_f((uint32_t)h << 16) : vkrr_f16_to_f32(h);
}

/* The sparse tests' B (8 x K values, Bf[n * K + k]) and C (16 x 8), and their
 * check: D against C + A.B over the dense A, in double (every sum is exact). */
static void sp_fill_bc(uint64_t *s, int K, float *Bf, float *C)
{
    for (int i = 0; i < 8 * K; i++)
        Bf[i] = (float)((int)(ptxt_rand(s) % 41) - 20) / 4.0f;
    for (int i = 0; i < 128; i++)
        C[i] = (float)((int)(ptxt_rand(s) % 1001) - 500) / 16.0f;
}

static unsigned sp_wrong(const char *what, int K, float A[16][32], const float *Bf, const float *C,
                         const float *D)
{
    unsigned bad = 0;
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++) {
            double want = C[i * 8 + n];
            for (int k = 0; k < K; k++)
                want += (double)A[i][k] * Bf[n * K + k];
            if (D[i * 8 + n] != (float)want && bad++ < 4)
                fprintf(stderr, "  mma.sp k%d %s d(%d,%d) = %g, want %g\n", K, what, i, n, D[i * 8 + n], want);
        }
    printf("mma.sp m16n8k%d %s (varied metadata): %u of 128 elements wrong\n", K, what, bad);
    return bad;
}

static void check_mma_sp(vkrr_ptx_module *m)
{
    static const uint8_t keep[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    uint64_t s = 5;
    for (int run = 0; run < 4; run++) {
        int k32 = run < 2, bf16 = run % 2, K = k32 ? 32 : 16;
        static uint16_t Ac[16 * 16], Meta[16 * 2], Bt[8 * 32];
        static float C[128], D[128], A[16][32], Bf[8 * 32];
        memset(A, 0, sizeof A);
        memset(Meta, 0, sizeof Meta);
        for (int i = 0; i < 16; i++)
            for (int grp = 0; grp < K / 4; grp++) {
                const uint8_t *kp = keep[(i * 5 + grp * 3 + k32) % 6];
                Meta[i * (K / 16) + grp / 4] |= (uint16_t)((kp[0] | kp[1] << 2) << (4 * (grp % 4)));
                for (int e = 0; e < 2; e++) {
                    float v = (float)((int)(ptxt_rand(&s) % 61) - 30) / 8.0f;
                    Ac[i * (K / 2) + 2 * grp + e] = half_of(v, bf16);
                    A[i][4 * grp + kp[e]] = v;
                }
            }
        sp_fill_bc(&s, K, Bf, C);
        unsigned inexact = 0; /* the check's B is Bf: every value must fit the type */
        for (int i = 0; i < 8 * K; i++) {
            Bt[i] = half_of(Bf[i], bf16);
            inexact += from_half(Bt[i], bf16) != Bf[i];
        }
        CHECK_EQ_U64(inexact, 0);
        ptxt_args a = {0};
        ptxt_ptr(&a, Ac, sizeof Ac);
        ptxt_ptr(&a, Meta, sizeof Meta);
        ptxt_ptr(&a, Bt, sizeof Bt);
        ptxt_ptr(&a, C, sizeof C);
        ptxt_ptr(&a, D, sizeof D);
        ptxt_u32(&a, (uint32_t)k32);
        ptxt_u32(&a, (uint32_t)bf16);
        if (!CHECK(ptxt_run(m, "k_mma_sp", &a, 1, 32, 0)))
            return;
        CHECK_EQ_U64(sp_wrong(bf16 ? "bf16" : "f16", K, A, Bf, C, D), 0);
        if (k32 && !bf16) { /* row 5's group 2 keeps column 1 twice: undefined, a fault */
            Meta[5 * 2] = (uint16_t)((Meta[5 * 2] & ~0x0f00u) | 0x0500u);
            vkrr_error err = {0};
            vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = a.bytes,
                                 .params_bytes = a.n, .regions = a.regions, .nregions = a.nregions};
            CHECK(vkrr_ptx_run(m, "k_mma_sp", &l, &err) != VKRR_OK);
            CHECK(strstr(err.msg, "mma.sp metadata: row 5, columns 8-11 name column 9 twice") != NULL);
        }
    }
}

/* mma.sp .tf32 (1:2) m16n8k16 (selector 1) and m16n8k8 (selector 3), on
 * metadata that keeps the first or the second element of each pair, varying
 * by row and pair (0x4 or 0xe, the ISA's two values), small dyadic values
 * (every sum exact), against the dense product computed here; lanes that do
 * not hold the metadata pass 0, which faults if read.  Then a pair whose
 * metadata is 0x5: undefined in the ISA, a fault naming it. */
static void check_mma_sp_tf32(vkrr_ptx_module *m)
{
    uint64_t s = 32;
    for (int k16 = 1; k16 >= 0; k16--) {
        int K = k16 ? 16 : 8;
        static uint16_t Meta[16 * 2];
        static float Ac[16 * 8], Bt[8 * 16], C[128], D[128], A[16][32];
        memset(A, 0, sizeof A);
        memset(Meta, 0, sizeof Meta);
        for (int i = 0; i < 16; i++)
            for (int p = 0; p < K / 2; p++) {
                int second = (i * 3 + p * 5 + k16) % 7 < 3; /* 3 of 7 keep the second */
                Meta[i * (K / 8) + p / 4] |= (uint16_t)((second ? 0xeu : 0x4u) << (4 * (p % 4)));
                float v = (float)((int)(ptxt_rand(&s) % 61) - 30) / 8.0f;
                Ac[i * (K / 2) + p] = v;
                A[i][2 * p + second] = v;
            }
        sp_fill_bc(&s, K, Bt, C);
        ptxt_args a = {0};
        ptxt_ptr(&a, Ac, sizeof Ac);
        ptxt_ptr(&a, Meta, sizeof Meta);
        ptxt_ptr(&a, Bt, sizeof Bt);
        ptxt_ptr(&a, C, sizeof C);
        ptxt_ptr(&a, D, sizeof D);
        ptxt_u32(&a, (uint32_t)k16);
        if (!CHECK(ptxt_run(m, "k_mma_sp_tf32", &a, 1, 32, 0)))
            return;
        CHECK_EQ_U64(sp_wrong("tf32", K, A, Bt, C, D), 0);
        if (k16) { /* row 1, pair 6: the low half of lane 4 + 2 + 1's register */
            Meta[1 * 2 + 1] = (uint16_t)((Meta[1 * 2 + 1] & ~0x0f00u) | 0x0500u);
            vkrr_error err = {0};
            vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = a.bytes,
                                 .params_bytes = a.n, .regions = a.regions, .nregions = a.nregions};
            CHECK(vkrr_ptx_run(m, "k_mma_sp_tf32", &l, &err) != VKRR_OK);
            CHECK(strstr(err.msg, "mma.sp .tf32 metadata: row 1, columns 12-13: 0x5, not 0x4 or 0xe") != NULL);
        }
    }
}

/* movmatrix.trans: every element of an 8 x 8 matrix lands at its transposed
 * place (distinct values, so a wrong lane or half shows) */
static void check_movmatrix(vkrr_ptx_module *m)
{
    static uint16_t M[64], T[64];
    for (int i = 0; i < 64; i++)
        M[i] = (uint16_t)(0x1000 + i * 7);
    ptxt_args a = {0};
    ptxt_ptr(&a, M, sizeof M);
    ptxt_ptr(&a, T, sizeof T);
    if (!CHECK(ptxt_run(m, "k_movmatrix", &a, 1, 32, 0)))
        return;
    unsigned bad = 0;
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++)
            bad += T[r * 8 + c] != M[c * 8 + r];
    printf("movmatrix.trans: %u of 64 elements misplaced\n", bad);
    CHECK_EQ_U64(bad, 0);
}

int main(void)
{
    check_stmatrix();
    check_mma_884_refused();
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("mma_more_ops", k ? 89 : 80);
        if (!m)
            continue;
        check_mma_s8(m);
        check_mma_tf32(m);
        check_mma_sub(m);
        check_mma_m8(m);
        check_mma_f64(m);
        check_mma_f64_rounding(m);
        check_mma_884(m);
        check_mma_sp_published(m);
        check_mma_sp(m);
        check_mma_sp_tf32(m);
        check_movmatrix(m);
        vkrr_ptx_module_free(m);
    }
    static const unsigned sms[2] = {80, 89};
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("mma_ops", sms[k]);
        if (!m)
            continue;
        check_mma16(m, sms[k]);
        check_mma16_models(m);
        if (sms[k] >= 89)
            check_mma8(m);
        else { /* the fp8 mma is not in the compute_80 PTX: an empty kernel there */
            ptxt_args none = {0};
            for (int p = 0; p < 6; p++)
                ptxt_ptr(&none, NULL, 0);
            CHECK(ptxt_run(m, "k_mma8", &none, 1, 32, 0));
        }
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_mma");
}
