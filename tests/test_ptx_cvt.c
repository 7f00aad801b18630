/* test_ptx_cvt: conversions (tests/ptx/cvt_ops.cu) against references made
 * here: small formats (f16, bf16, e4m3, e5m2) by searching every code for the
 * nearest/directed neighbour, f32 results of f64/s64 by the host FPU in each
 * rounding mode, integer results by C rounding functions and explicit
 * saturation; .sat, .relu, .satfinite, tf32 (.rna), NaN codes, sign and zero
 * extension into wider registers; the fp8 forms (cvt.rn.satfinite.e4m3x2.f32
 * and friends) from the compute_89 PTX. */
#include <fenv.h>

#include "ptx_testutil.h"

#define CVT_NOUT 58
#define N 256

static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

static float f_of_d(double d, int m)
{
    volatile double vd = d;
    volatile float r;
    fesetround(modes[m]);
    r = (float)vd;
    fesetround(FE_TONEAREST);
    return r;
}
static float f_of_l(int64_t l, int m)
{
    volatile int64_t vl = l;
    volatile float r;
    fesetround(modes[m]);
    r = (float)vl;
    fesetround(FE_TONEAREST);
    return r;
}
static uint32_t canon(float x) { return x != x ? 0x7fffffffu : ptxt_u(x); }

static uint32_t small(const ptxt_fmt *F, long double x, int mode, bool satf)
{
    uint32_t nan = F == &PTXT_F16 || F == &PTXT_BF16 ? 0x7fffu : 0x7fu;
    if (x != x)
        return nan;
    if (isinf(x) && !satf) { /* infinity converts to infinity in every rounding mode */
        uint32_t inf = F->has_inf ? ((1u << F->ebits) - 1u) << F->mbits : 0x7fu;
        return x < 0 ? inf | 1u << (F->ebits + F->mbits) : inf;
    }
    if (isinf(x) && satf) {
        uint32_t sign = 1u << (F->ebits + F->mbits);
        uint32_t mx = ptxt_round(F, 1e300L, 0, true); /* the largest finite code */
        return x < 0 ? mx | sign : mx;
    }
    return ptxt_round(F, x, mode, satf);
}

static int64_t sat_int(long double r, int bits, bool sgn)
{
    long double lo = sgn ? -ldexpl(1, bits - 1) : 0, hi = sgn ? ldexpl(1, bits - 1) - 1 : ldexpl(1, bits) - 1;
    if (r != r)
        return 0;
    if (r < lo)
        r = lo;
    if (r > hi)
        r = hi;
    return (int64_t)(sgn ? r : 0) + (sgn ? 0 : (int64_t)(uint64_t)r);
}

static uint32_t tf32_rna(float f)
{
    if (f != f)
        return 0x7fffffffu;
    uint32_t b = ptxt_u(f), s = b & 0x80000000u, a = b & 0x7fffffffu;
    if (a >= 0x7f800000u)
        return b;
    a = (a + 0x1000u) & ~0x1fffu;
    return s | a;
}

static void expect(float f, float g, double d, int64_t l, uint32_t u, uint32_t *e, unsigned sm)
{
    const ptxt_fmt *H = &PTXT_F16, *BF = &PTXT_BF16;
    for (int m = 0; m < 4; m++)
        e[m] = small(H, f, m, false);
    e[4] = (f != f || f <= 0) ? 0 : f >= 1 ? 0x3c00u : small(H, f, 0, false);
    e[5] = f != f ? 0x7fffu : (f < 0 || (f == 0 && signbit(f))) ? 0 : small(H, f, 0, false);
    e[6] = small(H, f, 0, true);
    e[7] = small(BF, f, 0, false);
    e[8] = small(BF, f, 1, false);
    e[9] = f != f ? 0x7fffu : (f < 0 || (f == 0 && signbit(f))) ? 0 : small(BF, f, 0, false);
    e[10] = small(H, g, 0, false) | small(H, f, 0, false) << 16;
    e[11] = small(BF, g, 1, false) | small(BF, f, 1, false) << 16;
    uint32_t hu = u & 0xffffu;
    double hv = ptxt_decode(H, hu);
    e[12] = hv != hv ? ((hu & 0x8000u) << 16) | 0x7f800000u | ((hu & 0x3ffu) << 13) : ptxt_u((float)hv);
    e[13] = hu << 16;
    e[14] = (uint32_t)sat_int(nearbyintl(f), 32, true);
    e[15] = (uint32_t)sat_int(truncl(f), 32, true);
    e[16] = (uint32_t)sat_int(floorl(f), 32, true);
    e[17] = (uint32_t)sat_int(ceill(f), 32, true);
    e[18] = (uint32_t)sat_int(truncl(f), 32, false);
    e[19] = (uint16_t)(int16_t)sat_int(nearbyintl(f), 8, true); /* sign-extended into 16 bits */
    e[20] = (uint32_t)sat_int(truncl(f), 16, false);
    int64_t q = sat_int(nearbyintl(f), 64, true);
    if (f == f && f >= 0x1p63f)
        q = INT64_MAX;
    e[21] = (uint32_t)q;
    e[22] = (uint32_t)((uint64_t)q >> 32);
    e[23] = canon(nearbyintf(f));
    e[24] = canon(floorf(f));
    for (int m = 0; m < 4; m++) {
        e[25 + m] = canon(f_of_d(d, m));
        e[29 + m] = ptxt_u(f_of_l(l, m));
    }
    e[33] = ptxt_u((float)u);
    uint64_t db;
    double dl = (double)l;
    memcpy(&db, &dl, 8);
    e[34] = (uint32_t)db;
    e[35] = (uint32_t)(db >> 32);
    e[36] = small(H, (long double)(int32_t)u, 1, false);
    int32_t si = (int32_t)u;
    e[37] = (uint16_t)(int16_t)(si < -128 ? -128 : si > 127 ? 127 : si);
    e[38] = (uint32_t)(si < 0 ? 0 : si > 65535 ? 65535 : si);
    int64_t sx = (int16_t)(uint16_t)hu;
    e[39] = (uint32_t)sx;
    e[40] = (uint32_t)((uint64_t)sx >> 32);
    e[41] = u & 0xffu;
    e[42] = tf32_rna(f);
    e[43] = canon(fabsf(f) < 0x1p-126f ? copysignf(0.0f, f) : f);
    e[44] = f != f ? 0 : ptxt_u(f < 0 || (f == 0 && signbit(f)) ? 0.0f : f > 1 ? 1.0f : f);
    e[45] = (uint32_t)sat_int(truncl(d), 32, true);
    e[46] = small(H, d, 0, false);
    double fd = (double)f;
    memcpy(&db, &fd, 8);
    e[47] = (uint32_t)(db >> 29);
    e[56] = (uint16_t)(int16_t)(int8_t)(uint8_t)u; /* s8 result, sign-extended in its 16-bit register */
    e[57] = (uint32_t)(int32_t)(int8_t)(uint8_t)hu;
    if (sm < 89) {
        for (int k = 48; k < 56; k++)
            e[k] = 0;
        return;
    }
    const ptxt_fmt *E4 = &PTXT_E4M3, *E5 = &PTXT_E5M2;
    e[48] = small(E4, g, 0, true) | small(E4, f, 0, true) << 8;
    e[49] = small(E5, g, 0, true) | small(E5, f, 0, true) << 8;
    e[50] = small(E4, ptxt_decode(H, u & 0xffff), 0, true) | small(E4, ptxt_decode(H, u >> 16), 0, true) << 8;
    uint32_t b0 = hu & 0xff, b1 = (hu >> 8) & 0xff;
    e[51] = small(H, ptxt_decode(E4, b0), 0, false) | small(H, ptxt_decode(E4, b1), 0, false) << 16;
    e[52] = small(H, ptxt_decode(E5, b0), 0, false) | small(H, ptxt_decode(E5, b1), 0, false) << 16;
    float rf = f != f ? f : (f < 0 || (f == 0 && signbit(f))) ? 0.0f : f;
    float rg = g != g ? g : (g < 0 || (g == 0 && signbit(g))) ? 0.0f : g;
    e[53] = small(E4, rg, 0, true) | small(E4, rf, 0, true) << 8;
    e[54] = small(E5, ptxt_decode(H, u & 0xffff), 0, true) | small(E5, ptxt_decode(H, u >> 16), 0, true) << 8;
    e[55] = 0;
}

int main(void)
{
    static float F[N];
    static double D[N];
    static int64_t L[N];
    static uint32_t U[N], out[N * CVT_NOUT];
    uint64_t s = 3;
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                       0x00000001u, 0x3f000000u, 0x3fc00000u, 0xbfc00000u, 0x40200000u,
                                       0x477ff000u, 0x477fefffu, 0x43e00000u, 0x43e80000u, 0x4f000000u,
                                       0xcf000000u, 0x5f000000u, 0x3f800000u, 0x33000000u, 0x38800000u};
    for (int i = 0; i < N; i++) {
        uint32_t r = ptxt_rand(&s);
        F[i] = i < 20 ? ptxt_f(special[i]) : ptxt_f((r & 0x80ffffffu) | (100u + ptxt_rand(&s) % 60) << 23);
        if (i % 9 == 4) /* halfway cases of f16, bf16 and e4m3 */
            F[i] = ptxt_f((ptxt_rand(&s) & 0xbf800000u) | 0x00001000u | (ptxt_rand(&s) & 0x7fe000u));
        D[i] = ldexp((double)ptxt_rand(&s) * ptxt_rand(&s) + 0.5, (int)(ptxt_rand(&s) % 120) - 90) *
               (i % 2 ? -1 : 1);
        if (i == 0)
            D[i] = NAN;
        L[i] = (int64_t)((uint64_t)ptxt_rand(&s) << 32 | ptxt_rand(&s)) >> (ptxt_rand(&s) % 40);
        U[i] = ptxt_rand(&s);
        if (i % 4 == 1) /* f16 pairs and fp8 pairs with specials */
            U[i] = (i % 8 == 1) ? 0x7c00fc00u : 0x7e00ffu;
    }
    static const unsigned sms[2] = {80, 89};
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("cvt_ops", sms[k]);
        if (!m)
            continue;
        memset(out, 0, sizeof out);
        ptxt_args a = {0};
        ptxt_ptr(&a, F, sizeof F);
        ptxt_ptr(&a, D, sizeof D);
        ptxt_ptr(&a, L, sizeof L);
        ptxt_ptr(&a, U, sizeof U);
        ptxt_ptr(&a, out, sizeof out);
        ptxt_u32(&a, N);
        if (ptxt_run(m, "k_cvt", &a, N / 64, 64, 0)) {
            unsigned bad = 0;
            for (int i = 0; i < N; i++) {
                uint32_t e[CVT_NOUT];
                expect(F[i], F[(i + 1) % N], D[i], L[i], U[i], e, sms[k]);
                for (int j = 0; j < CVT_NOUT; j++)
                    if (out[i * CVT_NOUT + j] != e[j] && bad++ < 16)
                        fprintf(stderr, "sm%u out[%d] f %08x (%a) g %08x d %a l %lld u %08x: %08x, want %08x\n",
                                sms[k], j, ptxt_u(F[i]), F[i], ptxt_u(F[(i + 1) % N]), D[i],
                                (long long)L[i], U[i], out[i * CVT_NOUT + j], e[j]);
            }
            CHECK_EQ_U64(bad, 0);
        }
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_cvt");
}
