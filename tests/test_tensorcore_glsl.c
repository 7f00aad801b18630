/* test_tensorcore_glsl: the ports' tensor-core sum (shaders/common/
 * tensorcore.glsl, through the test port vkrr_test_tc_kernel on lavapipe)
 * against cuda_ref/ptx/isa/ptx_mma_sum.c (ptx_dot_sum_in: the sum the PTX
 * interpreter, the JIT and the CPU backend compute), bit for bit, for one
 * output of mma.sync.aligned.m16n8k32.row.col.{f16,f32}.e4m3.e4m3.{f16,f32}
 * under each model (sm_90, sm_89, sm_80, rounded), the f16 and the f32 form.  The C sum is the oracle: test_mma_sum and
 * test_mma_sum_simd check it against hand-worked values and a sum in doubles.
 *
 * The inputs: every e4m3 code in a and in b (each at several k); random
 * codes; exponent spreads whose small terms the truncation drops; final
 * roundings on ties (a product of exactly half c's ULP; for f32, products on
 * an f32 tie beside a tiny c that breaks it only in the exact sum); cancellations of
 * large products; NaN codes in either half of k; c of every class (zero of
 * either sign, subnormal, large, Inf, NaN); products that overflow f16.
 *
 * Then that the comparison can fail: the port given F - 1 (sm_90 with 24
 * bits), or sm_80's sum in one piece, must disagree somewhere.
 *
 * And the model vkbridge specialises a port's pipeline for (constants 5-8,
 * src/hw/tensorcore.h): the port calling vkrr_tc_model() under the hardware
 * models sm_90, sm_89, sm_80 and rounded gives what ptx_dot_sum gives under
 * each (the PTX path's model, read from the same current model). */
#include <stdlib.h>
#include <string.h>

#include "backend_vk.h"
#include "hw_model.h"
#include "ptx_mma_sum.h"
#include "testutil.h"

enum { N = 6144 };

typedef struct tcase {
    uint32_t ab[16]; /* a's 32 codes, then b's, 4 a word (byte 0 lowest) */
    uint32_t c;
} tcase;

/* A model: C's arithmetic and the port's constants (tensorcore.glsl's table) */
typedef struct model {
    const char *name;
    ptx_dot_arith ar;
    int32_t frac, halves, rounded, d32_frac;
} model;

static const model models[] = {
    {"sm_90", {25, false, false, false}, 25, 1, 0, 23},
    {"sm_89", {24, true, true, false}, 13, 2, 0, 13},
    {"sm_80", {24, true, false, false}, 24, 2, 0, 23},
    {"rounded", {25, false, false, true}, 25, 1, 1, 23},
};

static uint32_t rnd(void) { return (uint32_t)rand() << 16 ^ (uint32_t)rand(); }

static void set8(tcase *t, int which, int k, uint32_t code)
{
    uint32_t *w = &t->ab[which * 8 + k / 4];
    unsigned sh = 8u * (unsigned)(k % 4);
    *w = (*w & ~(0xffu << sh)) | (code & 0xffu) << sh;
}

/* e4m3 code of +-2^e, e in -9..8 */
static uint32_t pow2(int e, bool neg)
{
    uint32_t c = e >= -6 ? (uint32_t)(e + 7) << 3 : 1u << (e + 9);
    return c | (neg ? 0x80u : 0u);
}

/* a finite e4m3 code (never 0x7f/0xff) */
static uint32_t finite8(void)
{
    uint32_t c = rnd() & 0xffu;
    return (c & 0x7fu) == 0x7fu ? c ^ 1u : c;
}

/* a finite code of exponent field in [lo, hi] */
static uint32_t ranged8(unsigned lo, unsigned hi)
{
    uint32_t c = (rnd() & 0x80u) | (lo + rnd() % (hi - lo + 1)) << 3 | (rnd() & 7u);
    return (c & 0x7fu) == 0x7fu ? c ^ 1u : c;
}

/* c's bits: f16 (c16) or f32, of a class chosen by r */
static uint32_t cbits(unsigned r, bool c16)
{
    uint32_t s16 = rnd() & 0x8000u, s32 = s16 << 16;
    switch (r % 10) {
    case 0: return c16 ? s16 : s32;                                          /* +-0 */
    case 1: return c16 ? s16 | (rnd() & 0x3ffu) : s32 | (rnd() & 0x7fffffu); /* subnormal */
    case 2: return c16 ? s16 | 0x7bffu : s32 | (uint32_t)(140 + rnd() % 100) << 23 | (rnd() & 0x7fffffu);
    case 3: return c16 ? s16 | 0x7c00u : s32 | 0x7f800000u;                  /* Inf */
    case 4: return c16 ? 0x7e00u | (rnd() & 0x1ffu) : 0x7fc00000u | (rnd() & 0x3fffffu);
    case 5: return c16 ? s16 | (1u + rnd() % 6) << 10 | (rnd() & 0x3ffu) /* tiny normal */
                       : s32 | (uint32_t)(60 + rnd() % 40) << 23 | (rnd() & 0x7fffffu);
    default: /* the products' range: 2^-12 .. 2^15 */
        return c16 ? s16 | (3u + rnd() % 27) << 10 | (rnd() & 0x3ffu)
                   : s32 | (uint32_t)(115 + rnd() % 28) << 23 | (rnd() & 0x7fffffu);
    }
}

static void make_cases(tcase *t, bool c16)
{
    srand(c16 ? 45 : 46);
    for (int i = 0; i < N; i++) {
        tcase *x = &t[i];
        memset(x, 0, sizeof *x);
        unsigned kind = (unsigned)i % 8;
        x->c = cbits(rnd(), c16);
        if (kind != 7 && rnd() % 3) /* mostly finite c of the products' range */
            x->c = cbits(6, c16);
        for (int k = 0; k < 32; k++)
            set8(x, 0, k, finite8()), set8(x, 1, k, finite8());
        if (i < 512) { /* every code, in a (i < 256) or in b, at k = i % 32 and i % 32 + 16 */
            int w = i < 256, k = i % 16 + (i / 16 % 2) * 16;
            set8(x, !w, k, (uint32_t)i & 0xffu);
            set8(x, !w, (k + 7) % 32, (uint32_t)i & 0xffu);
            continue;
        }
        switch (kind) {
        case 0: /* random codes */ break;
        case 1: /* one large product, the others small: truncation */
            for (int k = 0; k < 32; k++)
                set8(x, 0, k, ranged8(0, 6)), set8(x, 1, k, ranged8(0, 8));
            set8(x, 0, (int)(rnd() % 32), ranged8(12, 15));
            set8(x, 1, (int)(rnd() % 32), ranged8(10, 15));
            break;
        case 2: { /* a tie: c normal, one product half its ULP, perhaps a tiny third */
            memset(x->ab, 0, sizeof x->ab);
            int e = -6 + (int)(rnd() % 22), pe = e - 11; /* c in [2^e, 2^(e+1)), ULP 2^(e-10) */
            int lo = pe - 8 < -9 ? -9 : pe - 8, hi = pe + 9 > 8 ? 8 : pe + 9;
            int ea = lo + (int)(rnd() % (unsigned)(hi - lo + 1)), eb = pe - ea; /* both in -9..8 */
            uint32_t cs = rnd() & 1u;
            x->c = c16 ? cs << 15 | (uint32_t)(e + 15) << 10 | (rnd() & 0x3ffu)
                       : cs << 31 | (uint32_t)(e + 127) << 23 | (rnd() & 0x7fe000u);
            int k = (int)(rnd() % 32);
            if (!c16 && rnd() % 2) { /* f32: products 2^t + 2^(t-24), an f32 tie; c tiny or 0 */
                int t = 6 + (int)(rnd() % 11), k2 = (k + 1 + (int)(rnd() % 31)) % 32;
                bool neg = rnd() & 1u;
                set8(x, 0, k, pow2(t / 2, neg)), set8(x, 1, k, pow2(t - t / 2, false));
                set8(x, 0, k2, pow2((t - 24) / 2, neg)), set8(x, 1, k2, pow2(t - 24 - (t - 24) / 2, false));
                x->c = cbits(rnd() % 3 ? 5 : rnd() % 2, false);
                break;
            }
            set8(x, 0, k, pow2(ea, rnd() & 1u));
            set8(x, 1, k, pow2(eb, false));
            if (rnd() % 4) { /* a term at 2^(e-29)..2^(e-22): the truncation cuts it or part of it */
                int pt = e - 22 - (int)(rnd() % 8), ta = pt / 2, tb = pt - ta;
                if (pt < -18)
                    ta = tb = -9;
                int k2 = (k + 1 + (int)(rnd() % 31)) % 32;
                set8(x, 0, k2, pow2(ta, rnd() & 1u) | (ta >= -6 ? rnd() & 7u : 0u));
                set8(x, 1, k2, pow2(tb, false) | (tb >= -6 ? rnd() & 7u : 0u));
            }
            break;
        }
        case 3: /* cancellation: pairs of equal and opposite products, a residue */
            for (int k = 0; k < 32; k += 2) {
                uint32_t a = ranged8(8, 15), b = ranged8(8, 15);
                set8(x, 0, k, a), set8(x, 1, k, b);
                set8(x, 0, k + 1, a ^ 0x80u), set8(x, 1, k + 1, b);
            }
            if (rnd() & 1u) /* a residue; else exactly 0, and c of any class */
                set8(x, 0, (int)(rnd() % 32), ranged8(0, 5));
            else
                x->c = cbits(rnd() % 2 ? 0 : rnd(), c16);
            break;
        case 4: /* NaN codes in either half, perhaps with an overflow before them */
            set8(x, (int)(rnd() & 1u), (int)(rnd() % 32), rnd() & 1u ? 0xffu : 0x7fu);
            if (rnd() & 1u)
                for (int k = 0; k < 16; k++)
                    set8(x, 0, k, 0x7eu), set8(x, 1, k, 0x7eu);
            break;
        case 5: /* overflow of f16 (448 x 448 > 65504), perhaps cancelled */
            for (int k = 0; k < 32; k++)
                set8(x, 0, k, ranged8(13, 15)), set8(x, 1, k, ranged8(13, 15));
            if (rnd() & 1u)
                for (int k = 16; k < 32; k++)
                    set8(x, 0, k, (x->ab[k / 4] >> (8 * (k % 4)) & 0xffu) ^ 0x80u);
            break;
        case 6: /* subnormal factors and tiny c */
            for (int k = 0; k < 32; k++)
                set8(x, 0, k, finite8() & 0x8fu), set8(x, 1, k, ranged8(0, 3));
            x->c = cbits(rnd() % 2 ? 1 : 5, c16);
            break;
        default: /* sparse: a few products (or none: zeros of either sign), any c */
            memset(x->ab, 0, sizeof x->ab);
            if (rnd() % 4 == 0) {
                for (int k = 0; k < 32; k++)
                    set8(x, 0, k, rnd() & 0x80u), set8(x, 1, k, finite8());
                x->c = cbits(0, c16);
                break;
            }
            for (int j = 0; j < 3; j++) {
                int k = (int)(rnd() % 32);
                set8(x, 0, k, finite8()), set8(x, 1, k, finite8());
            }
            break;
        }
    }
}

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* The port's d for every case under (frac, halves, rounded, d32_frac) */
static bool run_port(vkrr_backend *be, const tcase *t, const int32_t cfg[4], bool c16, uint32_t *out)
{
    static uint32_t ab[N][16], c[N], zero[N];
    for (int i = 0; i < N; i++) {
        memcpy(ab[i], t[i].ab, sizeof ab[i]);
        c[i] = t[i].c;
    }
    uint8_t args[52];
    put64(args, 0x10000);
    put64(args + 8, 0x20000);
    put64(args + 16, 0x30000);
    put32(args + 24, N);
    for (int j = 0; j < 4; j++)
        put32(args + 28 + 4 * j, (uint32_t)cfg[j]);
    put32(args + 44, c16);
    put32(args + 48, c16);
    vkrr_replay_alloc allocs[3] = {{0x10000, sizeof ab, ab, NULL, NULL},
                                   {0x20000, sizeof c, c, NULL, NULL},
                                   {0x30000, sizeof zero, zero, out, NULL}};
    vkrr_pointer ptrs[3] = {{0, 0, 0}, {8, 1, 0}, {16, 2, 0}};
    vkrr_replay r = {.kernel = "vkrr_test_tc_kernel", .grid = {N / 64, 1, 1}, .block = {64, 1, 1},
                     .args = args, .args_bytes = sizeof args, .allocs = allocs, .nallocs = 3,
                     .pointers = ptrs, .npointers = 3};
    vkrr_error err = {0};
    if (!CHECK(be->run(be->self, &r, &err) == VKRR_OK)) {
        fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    return true;
}

/* The C sum's d of case t under ar (NULL: the current hardware model's) */
static uint32_t c_sum(const tcase *t, const ptx_dot_arith *ar, bool c16)
{
    ptx_dot d;
    memset(&d, 0, sizeof d);
    d.ta = d.tb = DOT_E4M3;
    d.n = 32;
    for (int k = 0; k < 32; k++) {
        d.a[k] = t->ab[k / 4] >> (8 * (k % 4)) & 0xffu;
        d.b[k] = t->ab[8 + k / 4] >> (8 * (k % 4)) & 0xffu;
    }
    d.c = t->c;
    d.c16 = d.d16 = c16;
    d.split = true; /* the k32 fp8 shape is one sm_80-sm_89 split */
    return ar ? ptx_dot_sum_in(&d, ar) : ptx_dot_sum(&d);
}

/* Cases where the port under cfg and C under ar differ (the first shown) */
static unsigned compare(vkrr_backend *be, const tcase *t, const model *m, const int32_t cfg[4], bool c16,
                        bool show)
{
    static uint32_t out[N];
    if (!run_port(be, t, cfg, c16, out))
        return N;
    unsigned bad = 0;
    for (int i = 0; i < N; i++) {
        uint32_t want = c_sum(&t[i], &m->ar, c16);
        if (out[i] != want && bad++ < 4 && show)
            fprintf(stderr, "  %s %s case %d (c %#x): port %#x, ptx_mma_sum.c %#x\n", m->name,
                    c16 ? "f16" : "f32", i, t[i].c, out[i], want);
    }
    return bad;
}

int main(void)
{
    vkrr_backend be;
    vkrr_error err = {0};
    if (vkrr_vk_backend_create(&be, &(vkrr_vk_desc){.timeout_s = 60}, &err) != VKRR_OK)
        return test_skip("a Vulkan device (lavapipe)", err.msg);
    static tcase t16[N], t32[N];
    make_cases(t16, true);
    make_cases(t32, false);
    unsigned total = 0;
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        const model *m = &models[i];
        int32_t cfg[4] = {m->frac, m->halves, m->rounded, m->d32_frac};
        unsigned b16 = compare(&be, t16, m, cfg, true, true);
        unsigned b32 = compare(&be, t32, m, cfg, false, true);
        total += 2 * N;
        printf("%-8s %d outputs (f16 %d, f32 %d): %u differ\n", m->name, 2 * N, N, N, b16 + b32);
        CHECK_EQ_U64(b16, 0);
        CHECK_EQ_U64(b32, 0);
    }
    printf("tensorcore.glsl vs ptx_mma_sum.c: %u outputs compared bit for bit\n", total);
    /* what the inputs reach: the models disagree (truncation, halves), NaN, Inf, zeros */
    unsigned trunc = 0, halves = 0, nan = 0, inf = 0, zero = 0;
    for (int i = 0; i < N; i++) {
        uint32_t d90 = c_sum(&t16[i], &models[0].ar, true), d80 = c_sum(&t16[i], &models[2].ar, true);
        uint32_t dr = c_sum(&t16[i], &models[3].ar, true);
        trunc += d90 != dr;
        halves += d80 != d90;
        nan += (d90 & 0x7fffu) > 0x7c00u;
        inf += (d90 & 0x7fffu) == 0x7c00u;
        zero += (d90 & 0x7fffu) == 0;
    }
    printf("f16 inputs where sm_90 and rounded differ: %u, sm_80 and sm_90: %u; sm_90's d NaN %u, "
           "Inf %u, zero %u\n", trunc, halves, nan, inf, zero);
    CHECK(trunc > 100 && halves > 100 && nan > 100 && inf > 100 && zero > 10);
    /* the comparison sees a fault: F one bit short, sm_80 summed in one piece */
    int32_t f24[4] = {24, 1, 0, 23}, one[4] = {24, 1, 0, 23};
    unsigned short_f = compare(&be, t16, &models[0], f24, true, false);
    unsigned unsplit = compare(&be, t16, &models[2], one, true, false);
    printf("faults caught: sm_90 with F = 24: %u of %d differ; sm_80 in one piece: %u of %d differ\n",
           short_f, N, unsplit, N);
    CHECK(short_f > 0);
    CHECK(unsplit > 0);
    /* the pipeline's model, from the current hardware model */
    static const struct { const char *approx, *arch; const model *m; } hw[] = {
        {NULL, NULL, &models[0]}, {NULL, "sm_89", &models[1]}, {NULL, "sm_80", &models[2]},
        {"rounded", NULL, &models[3]}};
    for (size_t i = 0; i < sizeof hw / sizeof *hw; i++) {
        vkrr_hw_model *h = NULL;
        if (hw[i].approx || hw[i].arch) {
            vkrr_hw_choice hc = {.approx = hw[i].approx, .capture_arch = hw[i].arch};
            if (!CHECK(vkrr_hw_model_open(&hc, &h, &err) == VKRR_OK)) {
                vkrr_error_print(&err, stderr);
                continue;
            }
        }
        vkrr_hw_use(h);
        int32_t spec[4] = {0, 0, 0, 0}; /* frac 0: vkrr_tc_model() */
        unsigned bad = compare(&be, t16, hw[i].m, spec, true, true);
        static uint32_t out[N];
        unsigned bad_current = 0; /* and ptx_dot_sum's own reading of the model agrees */
        if (run_port(&be, t16, spec, true, out))
            for (int k = 0; k < N; k++)
                bad_current += out[k] != c_sum(&t16[k], NULL, true);
        printf("hardware model %s: the port's specialised model, %d outputs: %u differ from %s's sum, "
               "%u from ptx_dot_sum\n", hw[i].m->name, N, bad, hw[i].m->name, bad_current);
        CHECK_EQ_U64(bad, 0);
        CHECK_EQ_U64(bad_current, 0);
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(h);
    }
    be.destroy(be.self);
    return test_finish("tensorcore_glsl");
}
