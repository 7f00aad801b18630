/* test_ports_common.c - the shared port includes (shaders/common/NAME.glsl) on lavapipe,
 * checked exhaustively against independent C references.
 *
 * Runs shaders/test/vkrr_test_common.comp through the Vulkan backend with
 * hand-built replays (one input and one output allocation) and compares:
 *   f32 -> f16 RNE on every f16 midpoint (exact ties, +-1 f32 ulp around them)
 *     and every f16 value, both signs, plus inf/NaN/overflow edges, against
 *     an arithmetic reference (scale, nearbyint, scale back);
 *   f16 -> e4m3 satfinite on all 65,536 f16 inputs against a brute-force
 *     nearest-value search with ties to even code (and cuformat's converter);
 *   f16 -> f32 on all 65,536, e4m3 -> f32 on all 256;
 *   32-term e4m3 slices (random, plus overflow/NaN/cancellation cases)
 *     against a long-double exact sum rounded once to f16;
 *   code/255, code/127 and other small quotients against (float) division;
 *   ex2.approx.ftz / rsqrt.approx.ftz of every f16 value against the H200's
 *     results (src/hw/sm_90/f16_inputs.u32, read by tests/hw_raw.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend_vk.h"
#include "cuformat.h"
#include "hw_raw.h"
#include "testutil.h"

typedef struct {
    uint64_t src, dst;
    uint32_t n, mode;
} selftest_params;

static vkrr_backend vk;
static bool have_vk;

/* Runs mode over n elements: in (in_bytes) -> out (out_bytes). */
static bool run_mode(uint32_t mode, uint32_t n, const void *in, size_t in_bytes, void *out,
                     size_t out_bytes)
{
    selftest_params p = {0, 0, n, mode};
    vkrr_replay_alloc allocs[2] = {
        {0x10000, in_bytes, in, NULL, NULL},
        {0x80000000, out_bytes, NULL, out, NULL},
    };
    void *zero = calloc(1, out_bytes);
    allocs[1].pre = zero;
    vkrr_pointer ptrs[2] = {{0, 0, 0}, {8, 1, 0}};
    uint32_t groups = (n + 63) / 64;
    vkrr_replay r = {
        .kernel = "vkrr_test_common",
        .grid = {groups < 65535 ? groups : 65535, (groups + 65534) / 65535, 1},
        .block = {64, 1, 1},
        .args = (const uint8_t *)&p,
        .args_bytes = sizeof p,
        .allocs = allocs,
        .nallocs = 2,
        .pointers = ptrs,
        .npointers = 2,
    };
    vkrr_error err = {0};
    vkrr_status st = vk.run(vk.self, &r, &err);
    free(zero);
    if (st != VKRR_OK)
        fprintf(stderr, "mode %u: %s\n", mode, err.msg);
    return st == VKRR_OK;
}

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
/* f16 by arithmetic, not by bit manipulation (what the shaders and cuformat do):
 * scale |d| so that one f16 step is 1, round once with nearbyint (the default
 * mode, to nearest even; the scaling by a power of two is exact), scale back.
 * Needs no compiler _Float16 (clang 14 has none on x86). */
static uint16_t ref_d2h(double d)
{
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    double a = fabs(d);
    if (isnan(d))
        return 0x7fff;
    if (isinf(a))
        return sign | 0x7c00;
    int e;
    frexp(a, &e);                               /* a = m 2^e, m in [0.5, 1) */
    int ex = a == 0 || e - 1 < -14 ? -14 : e - 1; /* f16's exponent, subnormals at -14 */
    double q = nearbyint(ldexp(a, 10 - ex));    /* the significand in f16 steps */
    if (q == 2048) {                            /* rounded up into the next binade */
        q = 1024;
        ex++;
    }
    if (ex > 15)
        return sign | 0x7c00;
    if (q < 1024)
        return sign | (uint16_t)q;              /* subnormal (ex == -14) or zero */
    return sign | (uint16_t)((ex + 15) << 10 | ((int)q - 1024));
}
static uint16_t ref_f2h(float f)
{
    if (isnan(f))
        return 0x7fff;   /* __float2half_rn's canonical NaN */
    return ref_d2h((double)f);
}
static float ref_h2f(uint16_t b)
{
    int ex = b >> 10 & 31, m = b & 0x3ff;
    double v = ex == 31 ? (m ? NAN : INFINITY) : ex == 0 ? ldexp(m, -24) : ldexp(1024 + m, ex - 25);
    return (float)(b & 0x8000 ? -v : v);
}

/* e4m3 by brute force: nearest finite value, ties to the even code, +-448 saturation. */
static double e4m3_value(unsigned c)
{
    unsigned e = (c >> 3) & 15, m = c & 7;
    double v = e ? ldexp(8 + m, (int)e - 10) : ldexp(m, -9);
    return (c & 0x80) ? -v : v;
}
static uint8_t ref_e4m3(double x)
{
    if (isnan(x))
        return 0x7f;
    unsigned sign = signbit(x) ? 0x80 : 0;
    double a = fabs(x);
    if (a >= 448)
        return (uint8_t)(sign | 0x7e);
    unsigned best = 0;
    for (unsigned c = 1; c <= 0x7e; c++) {
        double d = fabs(e4m3_value(c) - a), db = fabs(e4m3_value(best) - a);
        if (d < db || (d == db && (c & 1) == 0))
            best = c;
    }
    return (uint8_t)(sign | best);
}

static void test_f2h(void)
{
    /* every f16 value h >= 0 (finite): h itself, the midpoint to h+1, and one
     * f32 ulp either side of the midpoint; both signs */
    uint32_t n = 0, cap = 65536 * 4 + 64;
    uint32_t *in = malloc(cap * 4);
    for (uint32_t h = 0; h < 0x7c00; h++) {
        double lo = ref_h2f((uint16_t)h), hi = h + 1 < 0x7c00 ? ref_h2f((uint16_t)(h + 1)) : 65536.0;
        float mid = (float)((lo + hi) / 2);   /* exact: midpoints need 12 bits */
        uint32_t mb = f2u(mid);
        uint32_t c[4] = {f2u((float)lo), mb, mb - 1, mb + 1};
        for (int k = 0; k < 4; k++) {
            in[n++] = c[k] | ((h & 1) ? 0x80000000u : 0);
        }
    }
    uint32_t edge[] = {0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x477fefff,
                       0x477ff000, 0x477ff001, 0x33000000, 0x33000001, 0x32ffffff, 0x00000001,
                       0x80000001, 0x387fffff, 0x38800000, 0x7f7fffff};
    for (size_t k = 0; k < sizeof edge / 4; k++)
        in[n++] = edge[k];
    uint16_t *out = calloc(n, 2);
    if (CHECK(run_mode(0, n, in, n * 4, out, n * 2))) {
        uint32_t bad = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint16_t want = ref_f2h(u2f(in[i]));
            if (out[i] != want || want != vkrr_f32_to_f16_rne(u2f(in[i]))) {
                if (bad++ < 8)
                    fprintf(stderr, "  f2h(0x%08x): shader 0x%04x, ref 0x%04x, cuformat 0x%04x\n",
                            in[i], out[i], want, vkrr_f32_to_f16_rne(u2f(in[i])));
            }
        }
        printf("f32->f16 RNE: %u inputs, %u mismatches\n", n, bad);
        CHECK_EQ_U64(bad, 0);
    }
    free(in);
    free(out);
}

static void test_h2f_e4m3(void)
{
    uint16_t *h = malloc(65536 * 2);
    for (uint32_t i = 0; i < 65536; i++)
        h[i] = (uint16_t)i;
    uint32_t *f = calloc(65536, 4);
    uint8_t *e = calloc(65536, 1);
    if (CHECK(run_mode(2, 65536, h, 65536 * 2, f, 65536 * 4))) {
        uint32_t bad = 0;
        for (uint32_t i = 0; i < 65536; i++) {
            float want = ref_h2f((uint16_t)i);
            bool ok = isnan(want) ? isnan(u2f(f[i])) && (f[i] >> 13 & 0x3ff) == (i & 0x3ff)
                                  : f[i] == f2u(want);
            bad += !ok;
        }
        printf("f16->f32: 65536 inputs, %u mismatches\n", bad);
        CHECK_EQ_U64(bad, 0);
    }
    if (CHECK(run_mode(1, 65536, h, 65536 * 2, e, 65536))) {
        uint32_t bad = 0;
        for (uint32_t i = 0; i < 65536; i++) {
            uint8_t want = ref_e4m3((double)ref_h2f((uint16_t)i));
            if (e[i] != want || want != vkrr_f32_to_e4m3_satfinite(ref_h2f((uint16_t)i))) {
                if (bad++ < 8)
                    fprintf(stderr, "  e4m3(f16 0x%04x): shader 0x%02x, ref 0x%02x, cuformat 0x%02x\n",
                            i, e[i], want, vkrr_f32_to_e4m3_satfinite(ref_h2f((uint16_t)i)));
            }
        }
        printf("f16->e4m3 satfinite: 65536 inputs, %u mismatches\n", bad);
        CHECK_EQ_U64(bad, 0);
    }
    uint8_t codes[256];
    uint32_t df[256];
    for (int i = 0; i < 256; i++)
        codes[i] = (uint8_t)i;
    if (CHECK(run_mode(3, 256, codes, 256, df, 256 * 4))) {
        uint32_t bad = 0;
        for (int i = 0; i < 256; i++) {
            bool nan = (i & 0x7f) == 0x7f;
            bad += nan ? !isnan(u2f(df[i])) : (double)u2f(df[i]) != e4m3_value((unsigned)i);
        }
        printf("e4m3->f32: 256 inputs, %u mismatches\n", bad);
        CHECK_EQ_U64(bad, 0);
    }
    free(h);
    free(f);
    free(e);
}

static void test_slices(void)
{
    enum { N = 20000 };
    uint8_t *in = malloc((size_t)N * 64);
    uint16_t *out = calloc(N, 2);
    uint32_t seed = 12345;
    for (uint32_t i = 0; i < N; i++) {
        for (int k = 0; k < 64; k++) {
            seed = seed * 1664525u + 1013904223u;
            uint8_t c = (uint8_t)(seed >> 24);
            if (i % 4 == 1)
                c &= 0x9f;                 /* small magnitudes: subnormal f16 results */
            if (i % 4 == 2 && k >= 32)
                c = (uint8_t)(in[i * 64 + k - 32] ^ 0x80 ^ (k == 40 ? 1 : 0)); /* cancellation */
            if ((c & 0x7f) == 0x7f && i % 97 != 0)
                c ^= 1;                    /* NaN only in a few slices */
            in[i * 64 + k] = c;
        }
        if (i == 3)
            memset(in + i * 64, 0x7e, 64); /* 32 * 448^2: overflows f16 -> inf */
    }
    if (CHECK(run_mode(4, N, in, (size_t)N * 64, out, N * 2))) {
        uint32_t bad = 0;
        for (uint32_t i = 0; i < N; i++) {
            long double s = 0;
            bool nan = false;
            for (int k = 0; k < 32; k++) {
                uint8_t a = in[i * 64 + k], b = in[i * 64 + 32 + k];
                nan |= (a & 0x7f) == 0x7f || (b & 0x7f) == 0x7f;
                s += (long double)e4m3_value(a) * e4m3_value(b); /* exact: 64-bit significand */
            }
            /* one rounding: long double -> f16 via the exact value (|s| < 2^24, step 2^-18) */
            double sd = (double)s; /* exact: the sum has < 43 significant bits */
            uint16_t want = nan ? 0x7fff : ref_f2h((float)0);
            if (!nan) {
                want = ref_d2h(sd); /* double -> f16 directly: one RNE */
                if (sd == 0)
                    want = 0;
            }
            if (out[i] != want && bad++ < 8)
                fprintf(stderr, "  slice %u: shader 0x%04x, ref 0x%04x (sum %.17g)\n", i, out[i],
                        want, sd);
        }
        printf("e4m3 slices: %d slices, %u mismatches\n", N, bad);
        CHECK_EQ_U64(bad, 0);
    }
    free(in);
    free(out);
}

static void test_div(void)
{
    enum { N = 256 * 3 + 4096 };
    uint32_t in[N], out[N];
    uint32_t n = 0;
    for (uint32_t c = 0; c < 256; c++) {
        in[n++] = c | 255u << 16;
        in[n++] = c | 127u << 16;
        in[n++] = (c * 257) | 65535u << 16;
    }
    uint32_t seed = 7;
    while (n < N) {
        seed = seed * 1664525u + 1013904223u;
        uint32_t num = seed >> 16, den = (seed & 0xffff) | 1;
        in[n++] = num | den << 16;
    }
    if (CHECK(run_mode(5, n, in, sizeof in, out, sizeof out))) {
        uint32_t bad = 0;
        for (uint32_t i = 0; i < n; i++) {
            float want = (float)(in[i] & 0xffff) / (float)(in[i] >> 16); /* IEEE, correctly rounded */
            if (out[i] != f2u(want) && bad++ < 8)
                fprintf(stderr, "  %u/%u: shader 0x%08x, ref 0x%08x\n", in[i] & 0xffff, in[i] >> 16,
                        out[i], f2u(want));
        }
        printf("integer quotients (unorm/snorm): %u inputs, %u mismatches\n", n, bad);
        CHECK_EQ_U64(bad, 0);
    }
}

static uint32_t rnd(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed ^ (*seed >> 13);
}

/* vkrr_fma against the C library's fmaf (one rounding): random bit patterns
 * over the whole range, products that land on rounding ties, cancellation
 * against the rounded product, subnormal and overflowing results. */
static void test_fma(void)
{
    enum { N = 60000 };
    static uint32_t in[3 * N], out[N];
    uint32_t seed = 12345;
#define RND() rnd(&seed)
    for (uint32_t i = 0; i < N; i++) {
        float a, b, c;
        switch (i % 6) {
        case 0: /* anything, NaN and Inf included */
            a = u2f(RND()), b = u2f(RND()), c = u2f(RND());
            break;
        case 1: /* ordinary magnitudes, mixed signs */
            a = u2f((RND() & 0x807fffffu) | (120u + RND() % 16) << 23);
            b = u2f((RND() & 0x807fffffu) | (120u + RND() % 16) << 23);
            c = u2f((RND() & 0x807fffffu) | (118u + RND() % 20) << 23);
            break;
        case 2: /* cancellation: c is minus the rounded product */
            a = u2f((RND() & 0x007fffffu) | 127u << 23);
            b = u2f((RND() & 0x807fffffu) | 127u << 23);
            c = -(a * b);
            break;
        case 3: { /* ties: 12-bit significands make exact 24-bit-plus-one products */
            a = (float)((RND() & 0xfffu) | 0x800u);
            b = (float)((RND() & 0xfffu) | 0x801u);
            c = (RND() & 1) ? 0.5f : -0.5f;
            break;
        }
        case 4: /* subnormal results */
            a = u2f((RND() & 0x807fffffu) | (40u + RND() % 20) << 23);
            b = u2f((RND() & 0x807fffffu) | (40u + RND() % 20) << 23);
            c = u2f(RND() & 0x807fffffu);
            break;
        default: /* overflow and the largest finite values */
            a = u2f((RND() & 0x807fffffu) | (200u + RND() % 54) << 23);
            b = u2f((RND() & 0x807fffffu) | (120u + RND() % 20) << 23);
            c = u2f((RND() & 0x807fffffu) | (250u + RND() % 5) << 23);
            break;
        }
        in[3 * i] = f2u(a), in[3 * i + 1] = f2u(b), in[3 * i + 2] = f2u(c);
    }
#undef RND
    if (!CHECK(run_mode(7, N, in, sizeof in, out, sizeof out)))
        return;
    uint32_t bad = 0;
    for (uint32_t i = 0; i < N; i++) {
        float want = fmaf(u2f(in[3 * i]), u2f(in[3 * i + 1]), u2f(in[3 * i + 2]));
        bool same = out[i] == f2u(want) || (isnan(want) && isnan(u2f(out[i])));
        if (!same && bad++ < 8)
            fprintf(stderr, "  fma(0x%08x, 0x%08x, 0x%08x): shader 0x%08x, fmaf 0x%08x\n", in[3 * i],
                    in[3 * i + 1], in[3 * i + 2], out[i], f2u(want));
    }
    printf("fmaf (one rounding): %u inputs, %u mismatches\n", N, bad);
    CHECK_EQ_U64(bad, 0);
}

/* ex2.approx.ftz.f32 and rsqrt.approx.ftz.f32 of every f16 value, the
 * port's (math.glsl, through the tables vkbridge uploads) against what the
 * H200 returned for the same inputs: f16_inputs.u32 read here (hw_raw.h),
 * not through src/hw, which builds the port's tables. */
static void test_approx(void)
{
    enum { N = 65536 };
    static uint16_t in[N];
    static uint32_t out[2 * N];
    uint8_t *hw = hwraw_shipped("f16_inputs.u32", NULL);
    if (!CHECK(hw))
        return;
    for (uint32_t i = 0; i < N; i++)
        in[i] = (uint16_t)i;
    if (!CHECK(run_mode(8, N, in, sizeof in, out, sizeof out))) {
        free(hw);
        return;
    }
    uint32_t bad = 0, glsl_differs = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t e = hwraw_u32(hw, HWRAW_F16_EX2_FTZ * 65536u + i);
        uint32_t r = hwraw_u32(hw, HWRAW_F16_RSQRT_FTZ * 65536u + i);
        /* a NaN input is no f16 value to the port's lookup: GLSL's NaN, any payload */
        bool ok_e = out[2 * i] == e || (isnan(u2f(e)) && isnan(u2f(out[2 * i])));
        bool ok_r = out[2 * i + 1] == r || (isnan(u2f(r)) && isnan(u2f(out[2 * i + 1])));
        if ((!ok_e || !ok_r) && bad++ < 8)
            fprintf(stderr, "  f16 0x%04x: ex2 0x%08x, the H200 0x%08x; rsqrt 0x%08x, the H200 0x%08x\n",
                    i, out[2 * i], e, out[2 * i + 1], r);
        float x = ref_h2f((uint16_t)i);
        glsl_differs += !isnan(u2f(e)) && f2u(exp2f(x)) != e && fabsf(x) >= 0x1p-126f;
    }
    printf("ex2/rsqrt: %u f16 inputs, %u differ from the H200's f16_inputs.u32 "
           "(libm's exp2f differs from it on %u)\n", N, bad, glsl_differs);
    CHECK_EQ_U64(bad, 0);
    free(hw);
}

int main(void)
{
    vkrr_error err = {0};
    vkrr_vk_desc d = {.device = NULL, .timeout_s = 60};
    have_vk = vkrr_vk_backend_create(&vk, &d, &err) == VKRR_OK;
    if (!CHECK(have_vk)) {
        fprintf(stderr, "no Vulkan device: %s\n", err.msg);
        return test_finish("ports_common");
    }
    CHECK(vk.has_kernel(vk.self, "vkrr_test_common"));
    test_f2h();
    test_h2f_e4m3();
    test_slices();
    test_div();
    test_fma();
    test_approx();
    vk.destroy(vk.self);
    return test_finish("ports_common");
}
