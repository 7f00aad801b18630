/* test_fpformat: the number formats (src/base/fpformat.h), each defined once.
 *
 * - Every 16-bit code as f16 and bf16, every 8-bit code as e4m3 and e5m2:
 *   decoded against a reference written from the formats' definitions
 *   (sign, exponent, mantissa with ldexp), and round-tripped.
 * - Rounding: vkrr_round_to in every mode (rn, rz, rm, rp, rna) and with and
 *   without satfinite, to f16, bf16, e4m3 and e5m2, against a brute-force
 *   search over every code of the format, on values around every code.
 * - The inline fast paths (f32 -> f16/bf16 RNE, f32 -> e4m3 with and without
 *   satfinite, ftz) equal vkrr_round_to's round-to-nearest-even on every f32
 *   whose dropped bits are 0, 1, half-1, half, half+1 or all ones (every tie
 *   and its neighbours), for every value of the kept bits. */
#include <math.h>
#include <stdlib.h>

#include "fpformat.h"
#include "testutil.h"

typedef struct fmt {
    vkrr_ffmt id;
    unsigned bits, ebits, mbits;
    bool has_inf;
    double maxv;
} fmt;

static const fmt F16 = {VKRR_FF_F16, 16, 5, 10, true, 65504.0};
static const fmt BF16 = {VKRR_FF_BF16, 16, 8, 7, true, 0x1.fep127};
static const fmt E4M3 = {VKRR_FF_E4M3, 8, 4, 3, false, 448.0};
static const fmt E5M2 = {VKRR_FF_E5M2, 8, 5, 2, true, 57344.0};

/* The value of code c, from the definition. */
static double ref_decode(const fmt *f, uint32_t c)
{
    uint32_t emask = (1u << f->ebits) - 1u, e = (c >> f->mbits) & emask, m = c & ((1u << f->mbits) - 1u);
    bool neg = (c >> (f->bits - 1)) & 1u;
    int bias = (1 << (f->ebits - 1)) - 1;
    double v;
    if (f->has_inf && e == emask)
        v = m ? NAN : INFINITY;
    else if (!f->has_inf && e == emask && m == (1u << f->mbits) - 1u)
        v = NAN;
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - (int)f->mbits);
    else
        v = ldexp((double)(m | (1u << f->mbits)), (int)e - bias - (int)f->mbits);
    return neg ? -v : v;
}

static void test_decode(void)
{
    unsigned bad = 0;
    for (uint32_t c = 0; c < 65536; c++) {
        double r = ref_decode(&F16, c), b = ref_decode(&BF16, c);
        float f = vkrr_f16_to_f32((uint16_t)c), g = vkrr_bf16_to_f32((uint16_t)c);
        bad += !(isnan(r) ? isnan(f) : (double)f == r && !signbit(f) == !signbit(r));
        bad += !(isnan(b) ? isnan(g) : (double)g == b && !signbit(g) == !signbit(b));
        bad += !isnan(r) && vkrr_f32_to_f16_rne(f) != c;
        bad += !isnan(b) && vkrr_f32_to_bf16_rne(g) != c;
        bad += isnan(r) && vkrr_f32_to_f16_rne(f) != 0x7fff;
        bad += (double)vkrr_decode_bits(c, VKRR_FF_F16) != r && !isnan(r);
    }
    for (uint32_t c = 0; c < 256; c++) {
        double r = ref_decode(&E4M3, c), s = ref_decode(&E5M2, c);
        float e = vkrr_e4m3_to_f32((uint8_t)c), f = vkrr_e5m2_to_f32((uint8_t)c);
        bad += !(isnan(r) ? isnan(e) : (double)e == r && !signbit(e) == !signbit(r));
        bad += !(isnan(s) ? isnan(f) : (double)f == s && !signbit(f) == !signbit(s));
        bad += !isnan(r) && vkrr_f32_to_e4m3(e, true) != c && !(r == 0 && c == 0x80);
        bad += isnan(r) && vkrr_f32_to_e4m3(e, true) != 0x7f;
    }
    printf("decode: every 16-bit code (f16, bf16) and 8-bit code (e4m3, e5m2): %u wrong\n", bad);
    CHECK_EQ_U64(bad, 0);
}

static double table[4][65536];

static const double *decoded(const fmt *f)
{
    unsigned k = f == &F16 ? 0 : f == &BF16 ? 1 : f == &E4M3 ? 2 : 3;
    if (table[k][1] == 0)
        for (uint32_t c = 0; c < (1u << f->bits); c++)
            table[k][c] = ref_decode(f, c);
    return table[k];
}

/* Brute force: the code of f nearest to v in mode.  Above the largest
 * finite value sits one more step (the value the next exponent would give):
 * rounding to it overflows, to Inf (+-max with satfinite; NaN 0x7f for a
 * format without Inf). */
static uint32_t ref_round(const fmt *f, double v, vkrr_rmode mode, bool sat)
{
    const double *dec = decoded(f);
    uint32_t signbit_code = 1u << (f->bits - 1), nan_code = f->bits == 16 ? 0x7fffu : 0x7fu;
    if (isnan(v))
        return nan_code;
    bool neg = signbit(v);
    double a = fabs(v), lo = -1, hi = INFINITY, over = 0;
    uint32_t clo = 0, chi = 0, cmax = 0;
    for (uint32_t c = 0; c < signbit_code; c++) { /* the non-negative codes */
        double x = dec[c];
        if (isnan(x) || isinf(x))
            continue;
        if (x == f->maxv)
            cmax = c;
        if (x <= a && x > lo)
            lo = x, clo = c;
        if (x >= a && x < hi)
            hi = x, chi = c;
    }
    int e;
    frexp(f->maxv, &e);
    over = f->maxv + ldexp(1.0, e - 1 - (int)f->mbits); /* max + one ulp */
    bool to_over = false;
    if (hi == INFINITY) { /* above max: between max and the step past it, or beyond */
        hi = over;
        to_over = true;
    }
    bool up; /* pick hi (away from zero) */
    if (lo == a)
        up = false;
    else if (mode == VKRR_RM_RZ || (mode == VKRR_RM_RM && !neg) || (mode == VKRR_RM_RP && neg))
        up = false;
    else if (mode == VKRR_RM_RP || mode == VKRR_RM_RM)
        up = true;
    else if (a - lo != hi - a)
        up = hi - a < a - lo;
    else
        up = mode == VKRR_RM_RNA || (to_over ? (clo & 1u) != 0 : (chi & 1u) == 0);
    if (up && (to_over || a > over)) {
        if (sat)
            return (neg ? signbit_code : 0) | cmax;
        if (!f->has_inf)
            return nan_code;
        return (neg ? signbit_code : 0) | (((1u << f->ebits) - 1u) << f->mbits);
    }
    if (!up && a > over && !(mode == VKRR_RM_RZ || (mode == VKRR_RM_RM && !neg) || (mode == VKRR_RM_RP && neg)))
        return sat ? (neg ? signbit_code : 0) | cmax : f->has_inf ? (neg ? signbit_code : 0) | (((1u << f->ebits) - 1u) << f->mbits) : nan_code;
    return (neg ? signbit_code : 0) | (up ? chi : clo);
}

static void test_round_modes(void)
{
    static const fmt *const fmts[] = {&F16, &BF16, &E4M3, &E5M2};
    unsigned bad = 0, n = 0;
    srand(5);
    for (unsigned k = 0; k < 4; k++) {
        const fmt *f = fmts[k];
        unsigned step = f->bits == 16 ? 331 : 1;
        for (uint32_t c = 0; c < (1u << f->bits); c += step) {
            double x = ref_decode(f, c);
            if (!isfinite(x))
                continue;
            double up = ref_decode(f, c + 1 < (1u << f->bits) ? c + 1 : c);
            double vals[4] = {x, x + (isfinite(up) ? (up - x) / 2 : 0), x + (isfinite(up) ? (up - x) / 3 : 0),
                              x * 1.0000001};
            for (unsigned v = 0; v < 4; v++)
                for (int mode = 0; mode < 5; mode++)
                    for (int sat = 0; sat < 2; sat++) {
                        uint32_t got = vkrr_round_to(vals[v], 0.0, f->id, (vkrr_rmode)mode, sat);
                        uint32_t want = ref_round(f, vals[v], (vkrr_rmode)mode, sat);
                        n++;
                        if (got != want && bad++ < 8)
                            fprintf(stderr, "  fmt %u round_to(%a, mode %d, sat %d) = %x, brute force %x\n",
                                    k, vals[v], mode, sat, got, want);
                    }
        }
    }
    printf("vkrr_round_to: %u cases (4 formats x 5 modes x satfinite), %u differ from brute force\n", n,
           bad);
    CHECK_EQ_U64(bad, 0);
}

/* Every f32 whose `drop` low bits are one of the tie patterns, all high bits. */
static void test_fast_paths(void)
{
    unsigned bad = 0;
    uint64_t n = 0;
    static const struct {
        unsigned drop;
    } d[] = {{13}, {16}, {20}};
    for (unsigned k = 0; k < 3; k++) {
        uint32_t half = 1u << (d[k].drop - 1), full = (1u << d[k].drop) - 1u;
        uint32_t low[6] = {0, 1, half - 1, half, half + 1, full};
        for (uint64_t hi = 0; hi < (1ull << (32 - d[k].drop)); hi++)
            for (unsigned j = 0; j < 6; j++) {
                uint32_t b = (uint32_t)(hi << d[k].drop) | low[j];
                float x = vkrr_f32_from_bits(b);
                n++;
                if (k == 0)
                    bad += vkrr_f32_to_f16_rne(x) != vkrr_round_to(x, 0, VKRR_FF_F16, VKRR_RM_RN, false);
                else if (k == 1)
                    bad += vkrr_f32_to_bf16_rne(x) != vkrr_round_to(x, 0, VKRR_FF_BF16, VKRR_RM_RN, false);
                else
                    for (int sat = 0; sat < 2; sat++)
                        bad += vkrr_f32_to_e4m3(x, sat) != vkrr_round_to(x, 0, VKRR_FF_E4M3, VKRR_RM_RN, sat);
                float z = vkrr_ftz_f32(x);
                bad += fabsf(x) < 0x1p-126f ? (z != 0 || !signbit(z) != !signbit(x))
                                            : vkrr_f32_bits(z) != b;
            }
    }
    printf("fast paths against vkrr_round_to: %llu f32 values (every tie and its neighbours), %u differ\n",
           (unsigned long long)n, bad);
    CHECK_EQ_U64(bad, 0);
}

/* Past the largest finite value, in every mode, both signs, with and
 * without satfinite: the codes written here by hand from IEEE 754's overflow
 * rule (7.4: to nearest -> Inf of the sign; toward zero -> +-max; down -> +max
 * for a positive value, -Inf for a negative one; up -> the mirror), with
 * fpformat.h's two changes: satfinite turns every Inf into +-max, and e4m3,
 * which has no Inf, gives its canonical NaN 0x7f where Inf would be.  Values:
 * exactly one step past max (what the next binade would hold), twice max, and
 * 1e300, far past every format. */
static void test_past_max(void)
{
    static const struct {
        vkrr_ffmt id;
        const char *name;
        double over;                  /* max + one ulp of max */
        uint32_t maxc, infc, signc;   /* +max, the code where Inf goes, the sign bit */
    } F[] = {
        {VKRR_FF_F16, "f16", 65536.0, 0x7bff, 0x7c00, 0x8000},
        {VKRR_FF_BF16, "bf16", 0x1p128, 0x7f7f, 0x7f80, 0x8000},
        {VKRR_FF_E4M3, "e4m3", 480.0, 0x7e, 0x7f, 0x80}, /* NaN: no sign, e4m3 has no Inf */
        {VKRR_FF_E5M2, "e5m2", 65536.0, 0x7b, 0x7c, 0x80},
    };
    static const char *const mname[] = {"rn", "rz", "rm", "rp", "rna"};
    unsigned bad = 0, n = 0;
    for (size_t f = 0; f < sizeof F / sizeof F[0]; f++) {
        double vals[3] = {F[f].over, 2 * F[f].over, 1e300};
        for (int neg = 0; neg < 2; neg++)
            for (int v = 0; v < 3; v++)
                for (int mode = VKRR_RM_RN; mode <= VKRR_RM_RNA; mode++)
                    for (int sat = 0; sat < 2; sat++) {
                        /* toward zero: RZ always; RM for +, RP for - */
                        bool to_max = mode == VKRR_RM_RZ || (mode == VKRR_RM_RM && !neg) ||
                                      (mode == VKRR_RM_RP && neg);
                        uint32_t sign = neg ? F[f].signc : 0, want;
                        if (to_max || sat)
                            want = sign | F[f].maxc;
                        else if (F[f].id == VKRR_FF_E4M3)
                            want = F[f].infc; /* the canonical NaN, unsigned */
                        else
                            want = sign | F[f].infc;
                        double x = neg ? -vals[v] : vals[v];
                        uint32_t got = vkrr_round_to(x, 0.0, F[f].id, (vkrr_rmode)mode, sat);
                        n++;
                        if (got != want && bad++ < 8)
                            fprintf(stderr, "  %s round_to(%a, %s, sat %d) = %#x, expected %#x\n",
                                    F[f].name, x, mname[mode], sat, got, want);
                    }
    }
    printf("past the largest finite value: %u cases, %u wrong\n", n, bad);
    CHECK_EQ_U64(bad, 0);
}

/* The exact value s + e where e is far below any step of the format (the
 * tail of an exact sum, as the tensor-core model passes it): on a code or a
 * midpoint, e alone decides the direction.  Brute force on s nudged by a
 * double far below the step (|s| 2^-40: exact in a double, never a tie), for
 * every nonzero code and midpoint of the 8-bit formats and a sample of the
 * 16-bit ones, both signs of e, every mode (zero has no tail: |e| is at
 * most half of s's ulp, fpformat.h). */
static void test_round_with_error(void)
{
    static const fmt *const fmts[] = {&F16, &BF16, &E4M3, &E5M2};
    unsigned bad = 0, n = 0;
    for (unsigned k = 0; k < 4; k++) {
        const fmt *f = fmts[k];
        unsigned step = f->bits == 16 ? 97 : 1;
        for (uint32_t c = 0; c + 1 < (1u << f->bits); c += step) {
            double x = ref_decode(f, c), up = ref_decode(f, c + 1);
            if (!isfinite(x) || x == 0)
                continue;
            double vals[2] = {x, isfinite(up) && fabs(up) > fabs(x) ? (x + up) / 2 : x};
            for (unsigned v = 0; v < 2; v++)
                for (int sgn = -1; sgn <= 1; sgn += 2)
                    for (int mode = VKRR_RM_RN; mode <= VKRR_RM_RNA; mode++) {
                        double s = vals[v], mag = fabs(s);
                        uint32_t got = vkrr_round_to(s, sgn * ldexp(mag, -60), f->id, (vkrr_rmode)mode, false);
                        uint32_t want = ref_round(f, s + sgn * ldexp(mag, -40), (vkrr_rmode)mode, false);
                        n++;
                        if (got != want && bad++ < 8)
                            fprintf(stderr, "  fmt %u round_to(%a, %+d tiny, mode %d) = %#x, brute force %#x\n",
                                    k, s, sgn, mode, got, want);
                    }
        }
    }
    printf("vkrr_round_to with the tail of a sum: %u cases, %u differ from brute force\n", n, bad);
    CHECK_EQ_U64(bad, 0);
    /* f32 and tf32, worked by hand (f32 bits):
     * - 1 - tiny toward zero: the largest f32 below 1, 0x3f7fffff;
     * - 2^-126 - tiny toward zero: one step down is the largest subnormal
     *   0x007fffff (below the least normal the step stays 2^-149, not half);
     * - -(2^-126) + tiny rounded toward +Inf: the same magnitude, negative;
     * - tf32 (10 fraction bits) of 2^-126 (1 + 2^-10): exact, 0x00802000
     *   (its least normal binade has steps of 2^-136). */
    CHECK_EQ_U64(vkrr_round_to(1.0, -0x1p-80, VKRR_FF_F32, VKRR_RM_RZ, false), 0x3f7fffffu);
    CHECK_EQ_U64(vkrr_round_to(0x1p-126, -0x1p-200, VKRR_FF_F32, VKRR_RM_RZ, false), 0x007fffffu);
    CHECK_EQ_U64(vkrr_round_to(0x1p-126, -0x1p-200, VKRR_FF_F32, VKRR_RM_RM, false), 0x007fffffu);
    CHECK_EQ_U64(vkrr_round_to(-0x1p-126, 0x1p-200, VKRR_FF_F32, VKRR_RM_RP, false), 0x807fffffu);
    CHECK_EQ_U64(vkrr_round_to(0x1p-126 + 0x1p-136, 0.0, VKRR_FF_TF32, VKRR_RM_RN, false), 0x00802000u);
    CHECK_EQ_U64(vkrr_round_to(0x1p-126 + 0x1p-136, 0.0, VKRR_FF_TF32, VKRR_RM_RZ, false), 0x00802000u);
}

int main(void)
{
    test_decode();
    test_round_modes();
    test_past_max();
    test_round_with_error();
    test_fast_paths();
    return test_finish("fpformat");
}
