/* test_mma_sum_simd: the tensor-core sum in integers (cuda_ref/ptx/isa/
 * ptx_mma_sum.c: ptx_dot_sum, ptx_dot_sum_in and the whole-tile
 * ptx_dot_tile_sum) against the model as first written in doubles, kept in
 * tests/mma_sum_ref.c as the oracle: the same bits for every input.
 *
 * Under each hardware model the sums differ by (sm_90: F 25; sm_89: F 24,
 * split halves, fp8 at 13 bits; sm_86 and sm_80: F 24, split; sm_75: F 24;
 * sm_70: F 23; `rounded`), for every type pair the forms take (f16, bf16,
 * tf32, e4m3, e5m2, e4m3 x e5m2), the counts of products they pass (4, 8,
 * 16, 32; split or not) and every c/d width:
 *   - random inputs of several kinds: any finite bits; a narrow exponent
 *     window (sums that round, f16 ties); exponents spread past F (terms
 *     truncated, some to nothing); subnormals; the largest magnitudes (f16
 *     and f32 d overflow); short mantissas (exact sums, ties); products
 *     that cancel; NaN and Inf now and then; bits above the type's that the
 *     sum must ignore;
 *   - c the negation of the largest product (fused: what is left aligned
 *     to it; rounded: e5m2's exact sum past a double's 53 bits);
 *   - whole tiles (m16n8k32 fp8, m16n8k16 f16, m32n8k16 and m16n16k8 as
 *     wmma's) through ptx_dot_tile_sum, and tiles of one scale (most cut
 *     no term: the tile summed in doubles; some cut one); fp8 tiles a
 *     second time with their factors as bytes (ptx_dot_tile.a8, b8);
 *   - every e4m3 x e4m3 and e5m2 x e5m2 code pair as one product, with
 *     several c.
 * test_mma_sum_portable runs this file again over the sum built without its
 * AVX2 clones (tests/CMakeLists.txt). */
#include <stdio.h>
#include <string.h>

#include "hw_model.h"
#include "mma_sum_ref.h"
#include "ptx_internal.h"
#include "ptx_mma_sum.h"
#include "testutil.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}
static uint32_t below(uint32_t n) { return rnd() % n; }

/* The bit layout of each type as its register holds it: fraction bits,
 * exponent bits, and where they start (tf32: bit 13). */
typedef struct layout {
    unsigned mb, ebits, shift;
} layout;
static layout lay(ptx_dot_type t)
{
    static const layout l[] = {{10, 5, 0}, {7, 8, 0}, {10, 8, 13}, {3, 4, 0}, {2, 5, 0}};
    return l[t];
}

/* The kinds of inputs (one a dot product). */
enum { ANY, WINDOW, SPREAD, SUBNORMAL, HUGE_, SHORT, NKINDS };
static const char *const kind_names[] = {"any", "window", "spread", "subnormal", "huge", "short"};

/* A factor's bits of type t: exponent field ef, random fraction (SHORT: its
 * top two bits only), random sign, and now and then bits above the type's. */
static uint32_t make(ptx_dot_type t, unsigned ef, int kind)
{
    layout l = lay(t);
    uint32_t emax = (1u << l.ebits) - 1u, frac = rnd() & ((1u << l.mb) - 1u);
    if (kind == SHORT)
        frac &= 3u << (l.mb - 2);
    ef = ef > emax ? emax : ef;
    uint32_t v = ((rnd() & 1u) << (l.ebits + l.mb) | ef << l.mb | frac) << l.shift;
    if (t == DOT_TF32)
        v |= rnd() & 0x1fffu; /* ignored */
    if (below(8) == 0 && t != DOT_TF32)
        v |= rnd() << (1 + l.ebits + l.mb); /* above the type: ignored */
    return v;
}

/* An exponent field for kind, about base (finite: below the all-ones one;
 * e4m3's all-ones field is finite but for one code). */
static unsigned field(ptx_dot_type t, int kind, unsigned base)
{
    unsigned emax = (1u << lay(t).ebits) - 2u + (t == DOT_E4M3);
    switch (kind) {
    case WINDOW: case SHORT: return base + below(3);
    case SPREAD: { unsigned d = below(4) == 0 ? 0 : below(30); return base > d ? base - d : 0; }
    case SUBNORMAL: return below(3);
    case HUGE_: return emax - below(2);
    default: return below(emax + 1);
    }
}

/* A NaN or Inf of type t (e4m3: NaN only), any sign */
static uint32_t special(ptx_dot_type t)
{
    layout l = lay(t);
    uint32_t emax = (1u << l.ebits) - 1u, frac = t == DOT_E4M3 ? 7u : below(2) ? 0u : 1u + below(3);
    return ((rnd() & 1u) << (l.ebits + l.mb) | emax << l.mb | frac) << l.shift;
}

/* A c of kind (f16 or f32 bits) */
static uint32_t make_c(bool c16, int kind, unsigned base)
{
    ptx_dot_type t = c16 ? DOT_F16 : DOT_BF16; /* bf16: f32's exponent */
    switch (below(8)) {
    case 0: return rnd() & 1u ? (c16 ? 0x8000u : 0x80000000u) : 0u; /* +-0 */
    case 1: if (below(8) == 0) return c16 ? special(DOT_F16) : special(DOT_BF16) << 16;
    /* fall through */
    default: {
        uint32_t v = make(t, field(t, kind, base), kind);
        return c16 ? v & 0xffffu : (v << 16 | (rnd() & 0xffffu));
    }
    }
}

/* A random dot product of n products of types ta x tb */
static void fill(ptx_dot *d, int kind)
{
    unsigned base_a = below((1u << lay(d->ta).ebits) - 1u), base_b = below((1u << lay(d->tb).ebits) - 1u);
    unsigned nspecial = below(16) == 0 ? 1 + below(2) : 0;
    for (unsigned k = 0; k < d->n; k++) {
        d->a[k] = below(16) == 0 ? (rnd() & 1u) << (lay(d->ta).ebits + lay(d->ta).mb + lay(d->ta).shift)
                                 : make(d->ta, field(d->ta, kind, base_a), kind);
        d->b[k] = make(d->tb, field(d->tb, kind, base_b), kind);
    }
    for (unsigned i = 0; i < nspecial; i++) {
        unsigned k = below(d->n);
        if (rnd() & 1u)
            d->a[k] = special(d->ta);
        else
            d->b[k] = special(d->tb);
    }
    if (below(4) == 0) /* products that cancel: k + 1 the negation of k */
        for (unsigned k = 0; k + 1 < d->n; k += 2 + below(3)) {
            d->a[k + 1] = d->a[k];
            d->b[k + 1] = d->b[k] ^ (1u << (lay(d->tb).ebits + lay(d->tb).mb + lay(d->tb).shift));
        }
    unsigned cb = d->c16 ? base_a : base_a + (d->ta == DOT_F16 || d->ta >= DOT_E4M3 ? 100 : 0);
    d->c = make_c(d->c16, kind, cb);
}

typedef struct shape {
    ptx_dot_type ta, tb;
    unsigned n;
    bool split;
} shape;
static const shape shapes[] = {
    {DOT_F16, DOT_F16, 16, true},    {DOT_F16, DOT_F16, 8, false},    {DOT_F16, DOT_F16, 4, false},
    {DOT_F16, DOT_F16, 16, false},   {DOT_BF16, DOT_BF16, 16, true},  {DOT_BF16, DOT_BF16, 8, false},
    {DOT_TF32, DOT_TF32, 8, true},   {DOT_TF32, DOT_TF32, 4, false},  {DOT_TF32, DOT_TF32, 8, false},
    {DOT_E4M3, DOT_E4M3, 32, true},  {DOT_E4M3, DOT_E4M3, 16, false}, {DOT_E4M3, DOT_E4M3, 32, false},
    {DOT_E5M2, DOT_E5M2, 32, true},  {DOT_E5M2, DOT_E5M2, 16, false}, {DOT_E4M3, DOT_E5M2, 32, true},
    {DOT_E5M2, DOT_E4M3, 32, true},  {DOT_F16, DOT_F16, 3, false},    {DOT_E4M3, DOT_E4M3, 7, false},
};
static const char *const type_names[] = {"f16", "bf16", "tf32", "e4m3", "e5m2"};

static unsigned long long compared, mismatched;

/* One comparison; the first few mismatches printed in full */
static void compare(const ptx_dot *d, uint32_t got, const char *model, const char *what)
{
    uint32_t want = mma_sum_ref(d);
    compared++;
    if (got == want)
        return;
    if (mismatched++ < 8) {
        fprintf(stderr, "  %s, %s: %s x %s n %u%s c%s d%s: got 0x%08x, the oracle 0x%08x\n    c 0x%08x", model,
                what, type_names[d->ta], type_names[d->tb], d->n, d->split ? " split" : "",
                d->c16 ? "16" : "32", d->d16 ? "16" : "32", got, want, d->c);
        for (unsigned k = 0; k < d->n; k++)
            fprintf(stderr, "%s%x*%x", k % 8 ? " " : "\n    ", d->a[k], d->b[k]);
        fprintf(stderr, "\n");
    }
}

/* Random dot products through ptx_dot_sum and ptx_dot_sum_in */
static void check_random(const char *model, unsigned per)
{
    ptx_dot_arith ar = ptx_dot_arith_current();
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (unsigned cd = 0; cd < 4; cd++)
            for (unsigned i = 0; i < per; i++) {
                ptx_dot d = {.ta = shapes[s].ta, .tb = shapes[s].tb, .n = shapes[s].n, .split = shapes[s].split,
                             .c16 = cd & 1u, .d16 = cd >> 1};
                int kind = (int)(i % NKINDS);
                fill(&d, kind);
                compare(&d, i & 1u ? ptx_dot_sum(&d) : ptx_dot_sum_in(&d, &ar), model, kind_names[kind]);
            }
}

/* Each output of tile t, summed, against the oracle's sum of its row and
 * column (d: the sum's types and widths; its factors and c are set here) */
static void compare_tile(const ptx_dot_tile *t, ptx_dot *d, const char *model, const char *what)
{
    for (unsigned r = 0; r < t->m; r++)
        for (unsigned j = 0; j < t->n; j++) {
            memcpy(d->a, t->a + r * t->k, t->k * sizeof *t->a);
            memcpy(d->b, t->b + j * t->k, t->k * sizeof *t->b);
            d->c = t->c[r * t->n + j];
            compare(d, t->d[r * t->n + j], model, what);
        }
}

/* ptx_dot_tile_sum of t, each output against the oracle; for 8-bit
 * factors a second time from their low bytes (ptx_dot_tile.a8, b8, as an
 * mma's fragments give them; a and b NULL), A's, B's or both in turn */
static void sum_tile(ptx_dot_tile *t, ptx_dot *d, const ptx_dot_arith *ar, const char *model, const char *what)
{
    static unsigned turn;
    static uint8_t a8[32 * 32], b8[32 * 32];
    static uint32_t d8[32 * 32];
    ptx_dot_tile_sum(t, ar);
    compare_tile(t, d, model, what);
    if (t->ta < DOT_E4M3 || t->tb < DOT_E4M3)
        return;
    for (unsigned i = 0; i < t->m * t->k; i++)
        a8[i] = (uint8_t)t->a[i];
    for (unsigned j = 0; j < t->n * t->k; j++)
        b8[j] = (uint8_t)t->b[j];
    ptx_dot_tile bt = *t;
    unsigned which = turn++ % 3; /* 0 both, 1 A's, 2 B's */
    if (which != 2)
        bt.a8 = a8, bt.a = NULL;
    if (which != 1)
        bt.b8 = b8, bt.b = NULL;
    bt.d = d8;
    ptx_dot_tile_sum(&bt, ar);
    bt.a = t->a, bt.b = t->b; /* for the oracle */
    char w[64];
    snprintf(w, sizeof w, "%s, as bytes", what);
    compare_tile(&bt, d, model, w);
}

/* Whole tiles through ptx_dot_tile_sum, each output against the oracle */
static void check_tiles(const char *model, unsigned per)
{
    static const struct { ptx_dot_type t; unsigned m, n, k; bool split; } tiles[] = {
        {DOT_E4M3, 16, 8, 32, true}, {DOT_E5M2, 16, 8, 32, true}, {DOT_F16, 16, 8, 16, true},
        {DOT_F16, 32, 8, 16, true},  {DOT_TF32, 16, 16, 8, true}, {DOT_BF16, 16, 8, 8, false},
        {DOT_F16, 8, 12, 16, false}, /* no shape has it: a block of 8 columns part filled */
    };
    ptx_dot_arith ar = ptx_dot_arith_current();
    uint32_t a[32 * 32], b[32 * 32], c[32 * 32], out[32 * 32];
    for (size_t s = 0; s < sizeof tiles / sizeof *tiles; s++)
        for (unsigned i = 0; i < per; i++) {
            unsigned M = tiles[s].m, N = tiles[s].n, K = tiles[s].k;
            ptx_dot d = {.ta = tiles[s].t, .tb = tiles[s].t, .n = K, .split = tiles[s].split, .c16 = i & 1u,
                         .d16 = (i >> 1) & 1u};
            int kind = (int)(i % NKINDS);
            for (unsigned r = 0; r < M; r++) { /* rows, columns and c from dot products of kind */
                fill(&d, kind);
                memcpy(a + r * K, d.a, K * sizeof *a);
            }
            for (unsigned j = 0; j < N; j++) {
                fill(&d, kind);
                memcpy(b + j * K, d.b, K * sizeof *b);
            }
            for (unsigned e = 0; e < M * N; e++) {
                fill(&d, kind);
                c[e] = d.c;
            }
            ptx_dot_tile t = {.ta = d.ta, .tb = d.tb, .m = M, .n = N, .k = K, .a = a, .b = b, .c = c, .d = out,
                              .c16 = d.c16, .d16 = d.d16, .split = d.split};
            sum_tile(&t, &d, &ar, model, "tile");
        }
}

/* Tiles of one scale, as a layer's activations and weights are: every
 * factor's exponent field within w (1 to 8) of one base, c near the
 * products' scale with a mantissa cut short or not, zeros now and then.
 * Most such tiles cut no term, which ptx_dot_tile_sum sums in doubles
 * (tile_uncut); the rest, a term's low bits below the cut, go the usual
 * way: each output against the oracle either way. */
static void check_scaled_tiles(const char *model, unsigned per)
{
    static const struct { ptx_dot_type t; unsigned m, n, k; } tiles[] = {
        {DOT_E4M3, 16, 8, 32}, {DOT_E5M2, 16, 8, 32}, {DOT_F16, 16, 8, 16}, {DOT_BF16, 16, 8, 8}, {DOT_TF32, 16, 16, 8},
    };
    ptx_dot_arith ar = ptx_dot_arith_current();
    uint32_t a[16 * 32], b[16 * 32], c[16 * 16], out[16 * 16];
    for (size_t s = 0; s < sizeof tiles / sizeof *tiles; s++)
        for (unsigned i = 0; i < per; i++) {
            ptx_dot_type t = tiles[s].t;
            unsigned M = tiles[s].m, N = tiles[s].n, K = tiles[s].k, w = 1 + below(8);
            layout l = lay(t);
            int bias = (1 << (l.ebits - 1)) - 1;
            unsigned base = 1 + below((1u << l.ebits) - 2 - w); /* fields base..base+w-1: finite */
            bool c16 = i & 1u, d16 = (i >> 1) & 1u;
            for (unsigned e = 0; e < M * K; e++)
                a[e] = below(16) == 0 ? 0 : make(t, base + below(w), ANY);
            for (unsigned e = 0; e < N * K; e++)
                b[e] = below(16) == 0 ? 0 : make(t, base + below(w), ANY);
            for (unsigned e = 0; e < M * N; e++) { /* about the products' exponent, 2 (base - bias) */
                int cb = c16 ? 15 : 127, ef = 2 * ((int)base - bias) + cb + (int)below(2 * w + 2) - (int)w;
                int top = c16 ? 30 : 254, mb = c16 ? 10 : 23;
                ef = ef < 1 ? 1 : ef > top ? top : ef;
                uint32_t frac = rnd() & ((1u << mb) - 1u) & ~0u << below((unsigned)mb + 1); /* cut short, or not */
                c[e] = below(8) == 0 ? 0 : (rnd() & 1u) << (c16 ? 15 : 31) | (uint32_t)ef << mb | frac;
            }
            ptx_dot_tile tile = {.ta = t, .tb = t, .m = M, .n = N, .k = K, .a = a, .b = b, .c = c, .d = out,
                                 .c16 = c16, .d16 = d16, .split = true};
            ptx_dot d = {.ta = t, .tb = t, .n = K, .c16 = c16, .d16 = d16, .split = true};
            sum_tile(&tile, &d, &ar, model, "scaled tile");
        }
}

/* c the exact negation of the largest product (f32 holds any one product
 * exactly), the others small: what is left is the small ones, aligned to
 * the cancelled product (fused) or kept whole (rounded: e5m2's sum beyond a
 * double's 53 bits) */
static void check_cancel_c(const char *model, unsigned per)
{
    static const vkrr_ffmt ff[] = {FMT_F16, FMT_F32, FMT_F32, FMT_E4M3, FMT_E5M2};
    ptx_dot_arith ar = ptx_dot_arith_current();
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (unsigned i = 0; i < per; i++) {
            ptx_dot d = {.ta = shapes[s].ta, .tb = shapes[s].tb, .n = shapes[s].n, .split = shapes[s].split,
                         .d16 = i & 1u};
            int kind = i % 3 == 0 ? SUBNORMAL : i % 3 == 1 ? SPREAD : ANY;
            fill(&d, kind);
            unsigned k = below(d.n);
            bool wide = d.ta == DOT_BF16 || d.ta == DOT_TF32; /* its largest squared is past f32's */
            d.a[k] = make(d.ta, wide ? 127 + below(60) : field(d.ta, HUGE_, 0), HUGE_);
            d.b[k] = make(d.tb, wide ? 127 + below(60) : field(d.tb, HUGE_, 0), HUGE_);
            uint32_t ra = d.ta == DOT_BF16 ? d.a[k] << 16 : d.ta == DOT_TF32 ? d.a[k] & ~0x1fffu : d.a[k] & 0xffffu;
            uint32_t rb = d.tb == DOT_BF16 ? d.b[k] << 16 : d.tb == DOT_TF32 ? d.b[k] & ~0x1fffu : d.b[k] & 0xffffu;
            if (d.ta >= DOT_E4M3)
                ra &= 0xffu, rb &= 0xffu;
            float p = (float)-(vkrr_decode_bits(ra, ff[d.ta]) * vkrr_decode_bits(rb, ff[d.tb]));
            memcpy(&d.c, &p, 4);
            compare(&d, ptx_dot_sum_in(&d, &ar), model, "c cancels");
        }
}

/* Every fp8 code pair as the one product (the others 0) of a split k32
 * sum, in the first half or the second, with several c */
static void check_fp8_pairs(const char *model)
{
    static const struct { uint32_t c; bool c16, d16; } cs[] = {
        {0x00000000u, false, false}, {0x3f800000u, false, false}, {0xc7000000u, false, false},
        {0x80000000u, false, true},  {0x3c00u, true, true},       {0x8001u, true, false},
    };
    ptx_dot_arith ar = ptx_dot_arith_current();
    for (ptx_dot_type t = DOT_E4M3; t <= DOT_E5M2; t++)
        for (size_t ci = 0; ci < sizeof cs / sizeof *cs; ci++)
            for (uint32_t x = 0; x < 256; x++) {
                ptx_dot_tile tile = {.ta = t, .tb = t, .m = 1, .n = 32, .k = 32, .c16 = cs[ci].c16,
                                     .d16 = cs[ci].d16, .split = true};
                uint32_t a[32] = {0}, b[32 * 32] = {0}, c[32], out[32];
                unsigned at = (x + (unsigned)ci) % 2 ? 16 : 0; /* which half */
                for (uint32_t y0 = 0; y0 < 256; y0 += 32) {
                    a[at] = x;
                    for (unsigned j = 0; j < 32; j++) {
                        b[j * 32 + at] = y0 + j;
                        c[j] = cs[ci].c;
                    }
                    tile.a = a, tile.b = b, tile.c = c, tile.d = out;
                    ptx_dot_tile_sum(&tile, &ar);
                    uint8_t a8[32], b8[32 * 32]; /* the same as bytes (ptx_dot_tile.a8, b8) */
                    uint32_t out8[32];
                    for (unsigned j = 0; j < 32 * 32; j++)
                        b8[j] = (uint8_t)b[j], a8[j % 32] = (uint8_t)a[j % 32];
                    ptx_dot_tile bt = {.ta = t, .tb = t, .m = 1, .n = 32, .k = 32, .a8 = a8, .b8 = b8, .c = c,
                                       .d = out8, .c16 = cs[ci].c16, .d16 = cs[ci].d16, .split = true};
                    ptx_dot_tile_sum(&bt, &ar);
                    ptx_dot d = {.ta = t, .tb = t, .n = 32, .c = cs[ci].c, .c16 = cs[ci].c16, .d16 = cs[ci].d16,
                                 .split = true};
                    for (unsigned j = 0; j < 32; j++) {
                        memset(d.a, 0, sizeof d.a);
                        memset(d.b, 0, sizeof d.b);
                        d.a[at] = x;
                        d.b[at] = y0 + j;
                        compare(&d, out[j], model, "fp8 pair");
                        compare(&d, out8[j], model, "fp8 pair, as bytes");
                    }
                }
            }
}

int main(void)
{
    vkrr_warn_set_stream(NULL);
    ptx_dot_tile_try_every(true); /* every tile of one scale through the exact-sum path it fits */
    static const struct { const char *approx, *arch; } models[] = {
        {NULL, NULL}, {NULL, "sm_89"}, {NULL, "sm_86"}, {NULL, "sm_80"},
        {NULL, "sm_75"}, {NULL, "sm_70"}, {"rounded", NULL},
    };
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        vkrr_hw_model *hw = NULL;
        vkrr_error err = {0};
        if (models[i].approx || models[i].arch) {
            vkrr_hw_choice hc = {.approx = models[i].approx, .capture_arch = models[i].arch};
            if (!CHECK(vkrr_hw_model_open(&hc, &hw, &err) == VKRR_OK))
                continue;
        }
        vkrr_hw_use(hw);
        const char *name = models[i].approx ? models[i].approx : models[i].arch ? models[i].arch : "sm_90";
        /* the model the sums follow is the one asked for */
        CHECK_STR(vkrr_hw_model_arch(vkrr_hw_current()), models[i].arch ? models[i].arch
                                                         : models[i].approx ? "" : "sm_90");
        unsigned long long before = mismatched, n0 = compared;
        check_random(name, 600);
        check_tiles(name, 24);
        check_scaled_tiles(name, 60);
        check_cancel_c(name, 1000);
        check_fp8_pairs(name);
        printf("%s: %llu sums compared, %llu differ from the oracle\n", name, compared - n0, mismatched - before);
        CHECK(mismatched == before);
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(hw);
    }
    return test_finish("mma_sum_simd");
}
