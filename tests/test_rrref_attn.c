/* test_rrref_attn: rrref's window-attention block (cuda_ref/kernels/rrref_attn.cu)
 * on deterministic inputs, run by the CPU backend (its C++ source, threads
 * as fibers) and by the PTX interpreter (its compute_89 PTX), under every
 * hardware model (sm_90, sm_89, sm_80, rounded): the two write the same
 * bytes; every in-range texel is written and nothing past the image; the
 * tensor-core model matters (sm_89's fp8 sums differ from sm_90's); under
 * `rounded` (every mma the exact sum rounded once, the approximate
 * instructions correctly rounded) every output equals a plain host
 * computation of the block written here, by matrices, with its own f16 and
 * e4m3 roundings; and the PTX holds the fp8 mma.  `test_rrref_attn jit`: the
 * JIT against the CPU under every model (SKIPPED without the JIT). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "hw_model.h"
#include "ptx.h"
#include "rrref.h"
#include "testutil.h"

#define W 12 /* 2 x 2 windows, one block: the right column and bottom row partly outside */
#define H 6
#define TW (W * 8) /* texels across: 8 HALF x4 texels a pixel */
#define NTEX ((size_t)TW * H)
static const char *const kernel = "cuda_dldn_rrref_attn0_kernel";

/* ---- f16 and e4m3, written for this test ---------------------------------- */
static double h2d(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return h & 0x8000 ? -v : v;
}

/* v (exact in a double) rounded to nearest even f16, overflow to Inf */
static uint16_t d2h(double v)
{
    uint16_t s = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    if (a < 0x1p-14)
        return s | (uint16_t)nearbyint(a * 0x1p24); /* 1024 is the least normal */
    int ex;
    frexp(a, &ex);
    int e = ex - 1;
    double m = nearbyint(ldexp(a, 10 - e));
    if (m == 2048)
        e++, m = 1024;
    if (e > 15)
        return s | 0x7c00;
    return s | (uint16_t)((e + 15) << 10 | ((int)m - 1024));
}

static double e4m3_val(uint8_t c)
{
    int e = (c >> 3) & 15, m = c & 7;
    double v = e == 0 ? ldexp(m, -9) : ldexp(8 + m, e - 10);
    return c & 0x80 ? -v : v;
}

/* RNE, satfinite (beyond 448: 448); relu: negatives to +0 */
static uint8_t e4m3_of(double v, bool relu)
{
    uint8_t s = signbit(v) ? 0x80 : 0;
    if (relu && s)
        return 0;
    double a = fabs(v);
    if (a < 0x1p-6)
        return s | (uint8_t)nearbyint(a * 0x1p9);
    int ex;
    frexp(a, &ex);
    int e = ex - 1;
    double m = nearbyint(ldexp(a, 3 - e));
    if (m == 16)
        e++, m = 8;
    if (e > 8 || (e == 8 && m > 14))
        return s | 0x7e;
    return s | (uint8_t)((e + 7) << 3 | ((int)m - 8));
}
static double q8(double v) { return e4m3_val(e4m3_of(v, false)); }

/* ---- inputs ------------------------------------------------------------------ */
static uint16_t tokens[NTEX * 4];      /* HALF x4 texels: pixel (x, y) channel c at [(y TW + 8x) 4 + c] */
static uint8_t wimg[RRREF_ATTN_W_BYTES];
static const uint16_t log2_tau = 0xba00; /* -0.75 */
static const uint16_t eps_h = 0x1400;    /* 2^-10 */

static void make_inputs(void)
{
    for (size_t i = 0; i < NTEX * 4; i++) /* -2.5 .. 2.5 in steps of 1/8 */
        tokens[i] = d2h((double)((int)((i * 37 + (i / 4) * 11) % 41) - 20) / 8.0);
    for (unsigned i = 0; i < RRREF_ATTN_W_BYTES; i++) {
        uint32_t h = i * 2654435761u;
        h ^= h >> 13;
        unsigned e = i < RRREF_ATTN_W_BIAS ? 3 + (h >> 5) % 4 : 2 + (h >> 5) % 3; /* 2^-4 .. 0.94 */
        wimg[i] = (uint8_t)(((h >> 9) & 1) << 7 | e << 3 | ((h >> 11) & 7));
    }
}

/* ---- the block, by matrices (rrref.h, rrref_attn.cu's top comment) --------- */
static double tok(int x, int y, int c)
{
    x = x < 0 ? 0 : x >= W ? W - 1 : x;
    y = y < 0 ? 0 : y >= H ? H - 1 : y;
    return h2d(tokens[((size_t)y * TW + 8 * (size_t)x) * 4 + (size_t)c]);
}

/* the exact sum c + sum a[k] b[k] rounded once to f16 (the `rounded` model) */
static double dot_h(const double *a, const double *b, double c)
{
    double s = c;
    for (int k = 0; k < 32; k++)
        s += a[k] * b[k]; /* exact: e4m3 products, 47 bits at most */
    return h2d(d2h(s));
}

/* four f32 partial sums combined as the butterflies do: (s0 + s1) + (s2 + s3) */
static float quad_sum(const float s[4]) { return (s[0] + s[1]) + (s[2] + s[3]); }

static float exp2_cubic(float v)
{
    v = fminf(fmaxf(v, -14.0f), 10.0f);
    float n = nearbyintf(v), f = v - n;
    float q = fmaf(fmaf(fmaf(0.0555041f, f, 0.2402265f), f, 0.6931472f), f, 1.0f);
    return ldexpf(q, (int)n);
}

static void ref_window(int wx, int wy, uint16_t *out, uint16_t *branch)
{
    int ox = wx * 8, oy = wy * 4;
    double x[32][32], xq[32][32], q[32][32], k[32][32], v[32][32], o[32][32], y[32][32];
    const uint8_t *wq = wimg + RRREF_ATTN_W_Q, *bias = wimg + RRREF_ATTN_W_BIAS;
    for (int t = 0; t < 32; t++) {
        float part[4] = {0, 0, 0, 0}; /* lane t%4 of the quad holds channels 4l..4l+3, 16+4l.. */
        for (int c = 0; c < 32; c++)
            x[t][c] = tok(ox + t % 8, oy + t / 8, c);
        for (int l = 0; l < 4; l++)
            for (int i = 0; i < 8; i++) {
                float xv = (float)x[t][(i < 4 ? 4 * l : 16 + 4 * l) + i % 4];
                part[l] += xv * xv;
            }
        double ms = h2d(d2h(h2d(d2h(quad_sum(part))) / 32.0));
        double r = h2d(d2h((float)ms + (float)h2d(eps_h)));
        double inv = h2d(d2h((float)(1.0 / sqrt(r))));
        for (int c = 0; c < 32; c++)
            xq[t][c] = q8(h2d(d2h((float)x[t][c] * (float)inv)));
    }
    double wrow[4][32][32], b[4][32];
    for (int p = 0; p < 4; p++)
        for (int n = 0; n < 32; n++) {
            b[p][n] = e4m3_val(bias[32 * p + n]);
            for (int c = 0; c < 32; c++)
                wrow[p][n][c] = e4m3_val(wq[1024 * p + 32 * n + c]);
        }
    for (int t = 0; t < 32; t++)
        for (int n = 0; n < 32; n++) {
            q[t][n] = q8(dot_h(xq[t], wrow[0][n], b[0][n]));
            k[t][n] = q8(dot_h(xq[t], wrow[1][n], b[1][n]));
            v[t][n] = q8(dot_h(xq[t], wrow[2][n], b[2][n]));
        }
    float tau = (float)h2d(d2h((float)exp2(h2d(log2_tau))));
    double vt[32][32];
    for (int j = 0; j < 32; j++)
        for (int c = 0; c < 32; c++)
            vt[c][j] = v[j][c];
    for (int i = 0; i < 32; i++) {
        float e[32], part[4] = {0, 0, 0, 0};
        double p[32];
        for (int j = 0; j < 32; j++)
            e[j] = exp2_cubic((float)dot_h(q[i], k[j], 0.0) * tau);
        for (int l = 0; l < 4; l++) /* lane l: keys 8kt + 2l, + 1 for kt = 0..3 */
            for (int kt = 0; kt < 4; kt++)
                for (int h = 0; h < 2; h++)
                    part[l] += e[8 * kt + 2 * l + h];
        float inv = (float)h2d(d2h((float)(1.0 / h2d(d2h(quad_sum(part))))));
        for (int j = 0; j < 32; j++)
            p[j] = e4m3_val(e4m3_of(h2d(d2h(e[j] * inv)), true));
        for (int c = 0; c < 32; c++)
            o[i][c] = q8(dot_h(p, vt[c], 0.0));
    }
    for (int t = 0; t < 32; t++)
        for (int n = 0; n < 32; n++)
            y[t][n] = dot_h(o[t], wrow[3][n], b[3][n]);
    for (int t = 0; t < 32; t++) {
        int px = ox + t % 8, py = oy + t / 8;
        if (px >= W || py >= H)
            continue;
        for (int c = 0; c < 32; c++) {
            size_t at = ((size_t)py * TW + 8 * (size_t)px) * 4 + (size_t)c;
            branch[at] = d2h(y[t][c]);
            out[at] = d2h((float)x[t][c] + (float)y[t][c]);
        }
    }
}

/* ---- running it ------------------------------------------------------------ */
typedef struct run_out {
    uint16_t out[NTEX * 4], branch[NTEX * 4];
    unsigned standins;
} run_out;

static bool run(vkrr_backend *be, run_out *ro)
{
    rrref_attn_params p;
    memset(&p, 0, sizeof p);
    p.src = 0x5100;
    p.out = 0x5200;
    p.branch = 0x5300;
    p.width = W;
    p.height = H;
    p.windows_x = (W + 7) / 8;
    p.windows_y = (H + 3) / 4;
    p.weights = 0x7f0000001000ull;
    p.log2_tau = log2_tau;
    p.channels = 0x5000; /* 32 */
    p.eps = eps_h;
    uint8_t wpost[RRREF_ATTN_W_BYTES];
    vkrr_replay_alloc al = {0x7f0000001000ull, sizeof wimg, wimg, wpost, NULL};
    vkrr_pointer ptr = {40, 0, 0};
    vkrr_sampler linear = {.filter = VKRR_FILTER_LINEAR,
                           .address = {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP},
                           .normalized = true, .from_log = true};
    vkrr_replay_image im[3] = {
        {.offset = 0, .kind = VKRR_IMAGE_TEXTURE, .handle = p.src, .width = TW, .height = H, .channels = 4,
         .format = 16, .sampler = linear, .pre = tokens},
        {.offset = 8, .kind = VKRR_IMAGE_SURFACE, .handle = p.out, .width = TW, .height = H, .channels = 4,
         .format = 16, .post = ro->out},
        {.offset = 16, .kind = VKRR_IMAGE_SURFACE, .handle = p.branch, .width = TW, .height = H,
         .channels = 4, .format = 16, .post = ro->branch}};
    vkrr_replay r = {.kernel = kernel,
                     .grid = {(p.windows_x + 1) / 2, (p.windows_y + 1) / 2, 1},
                     .block = {32, 1, 4},
                     .shared_bytes = RRREF_ATTN_SHARED,
                     .args = (const uint8_t *)&p,
                     .args_bytes = sizeof p,
                     .allocs = &al,
                     .nallocs = 1,
                     .pointers = &ptr,
                     .npointers = 1,
                     .images = im,
                     .nimages = 3};
    vkrr_error err = {0};
    if (!CHECK(be->run(be->self, &r, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return false;
    }
    ro->standins = r.standins;
    CHECK(memcmp(wpost, wimg, sizeof wimg) == 0); /* the weights are only read */
    return true;
}

/* How many texels of two runs' surfaces differ; the first one in the log
 * unless what is NULL. */
static size_t differ(const run_out *a, const run_out *b, const char *what)
{
    size_t n = 0;
    for (size_t i = 0; i < NTEX * 4; i++)
        if (a->out[i] != b->out[i] || a->branch[i] != b->branch[i]) {
            if (!n++ && what)
                fprintf(stderr, "  %s: first difference at pixel (%zu, %zu) channel %zu: out %04x/%04x "
                        "branch %04x/%04x\n", what, (i / 4 % TW) / 8, i / 4 / TW, (i / 4 % 8) * 4 + i % 4,
                        a->out[i], b->out[i], a->branch[i], b->branch[i]);
        }
    return n;
}

static const char *const model_names[] = {"sm_90", "sm_89", "sm_80", "rounded"};

/* model i of model_names, current */
static vkrr_hw_model *use_model(int i) { return test_use_hw_model(model_names[i]); }

static vkrr_status ptx_backend(vkrr_backend *be, const char *engine, vkrr_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rrref_attn.ptx", VKRR_PTX_RRREF_DIR);
    const char *paths[1] = {path};
    vkrr_status st = vkrr_ptx_backend_create(be, paths, 1, err);
    if (st == VKRR_OK && (st = vkrr_ptx_backend_engine(be, engine, false, err)) != VKRR_OK)
        be->destroy(be->self);
    return st;
}

/* the PTX holds the production forms */
static void check_ptx_text(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rrref_attn.ptx", VKRR_PTX_RRREF_DIR);
    size_t len = 0;
    char *text = test_read_file(path, &len);
    if (!CHECK(text != NULL))
        return;
    static const char *const forms[] = {
        ".target sm_89", "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16",
        "cvt.rn.satfinite.relu.e4m3x2.f16x2", "movmatrix.sync.aligned.m8n8.trans.b16",
        "shfl.sync.bfly.b32", "rcp.approx.ftz.f32", "rsqrt.approx.ftz.f32", "ex2.approx.ftz.f32",
        "div.approx.ftz.f32", "tex.base.2d.v4.f32.s32", "sust.b.2d.v4.b16.zero"};
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
        if (!CHECK(strstr(text, forms[i]) != NULL))
            fprintf(stderr, "  %s lacks %s\n", path, forms[i]);
    free(text);
}

/* every in-range texel written (no sentinel 0xffff left: no output is a NaN) */
static void check_coverage(const run_out *ro)
{
    size_t unwritten = 0;
    for (size_t i = 0; i < NTEX * 4; i++)
        unwritten += ro->out[i] == 0xffff || ro->branch[i] == 0xffff;
    CHECK_EQ_U64(unwritten, 0);
}

static void check_reference(const run_out *ro)
{
    static uint16_t out[NTEX * 4], branch[NTEX * 4];
    for (int wy = 0; wy < (H + 3) / 4; wy++)
        for (int wx = 0; wx < (W + 7) / 8; wx++)
            ref_window(wx, wy, out, branch);
    size_t bad = 0;
    for (size_t i = 0; i < NTEX * 4; i++)
        if (out[i] != ro->out[i] || branch[i] != ro->branch[i]) {
            if (bad++ < 4)
                fprintf(stderr, "  reference: texel %zu channel %zu: out %04x want %04x, branch %04x want %04x\n",
                        i / 4, i % 4, ro->out[i], out[i], ro->branch[i], branch[i]);
        }
    CHECK_EQ_U64(bad, 0);
    /* a hand-worked value: pixel (0, 0) channel 0's branch is not trivially zero */
    CHECK(h2d(ro->branch[0]) != 0.0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : NULL;
    if (mode && strcmp(mode, "jit")) {
        fprintf(stderr, "usage: test_rrref_attn [jit]\n");
        return 2;
    }
    if (mode && !vkrr_ptx_jit_built())
        return test_skip("llvm", "this build has no PTX JIT (llvm-15-dev): the JIT's runs of the block");
    vkrr_warn_set_stream(NULL);
    make_inputs();
    if (!mode)
        check_ptx_text();
    vkrr_error err = {0};
    vkrr_backend cpu = {0}, ptx = {0};
    if (!CHECK(vkrr_cpu_backend_create(&cpu, &err) == VKRR_OK) ||
        !CHECK(ptx_backend(&ptx, mode ? "jit" : "interp", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return test_finish("rrref_attn");
    }
    CHECK(cpu.has_kernel(cpu.self, kernel) && ptx.has_kernel(ptx.self, kernel));
    static run_out c[4], x[4];
    for (int i = 0; i < 4; i++) {
        vkrr_hw_model *m = use_model(i);
        memset(&c[i], 0xff, sizeof c[i]);
        memset(&x[i], 0xff, sizeof x[i]);
        bool ok = run(&cpu, &c[i]) && run(&ptx, &x[i]);
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(m);
        if (!ok)
            continue;
        char what[64];
        snprintf(what, sizeof what, "%s, cpu against %s", model_names[i], mode ? "jit" : "interp");
        CHECK_EQ_U64(differ(&c[i], &x[i], what), 0);
        CHECK_EQ_U64(c[i].standins, x[i].standins);
        check_coverage(&c[i]);
        if (i == 3 && !mode)
            check_reference(&c[i]);
    }
    /* the hardware model reaches the sums: sm_89's fp8 (13 bits) is not sm_90's (25) */
    CHECK(differ(&c[0], &c[1], NULL) > 0);
    cpu.destroy(cpu.self);
    ptx.destroy(ptx.self);
    return test_finish(mode ? "rrref_attn jit" : "rrref_attn");
}
