/* test_ptx_float: floating-point instructions (tests/ptx/float_ops.cu) run by
 * the interpreter against references computed here: f32/f64 in each rounding
 * mode by the host FPU switched into that mode (fesetround), f16/bf16 exactly
 * in long double then rounded by searching every code of the format; .ftz,
 * .sat, .relu, min/max NaN and signed-zero rules, testp, unordered setp,
 * canonical NaNs.  The approximate instructions against what the H200
 * returned: f16-valued inputs from the measured tables read here (hw_raw.h:
 * f16_inputs.u32, native16.u16), others from worked examples off the
 * measured delta tables; never from src/hw, which the interpreter runs. */
#include <fenv.h>

#include "approx.h"
#include "hw_raw.h"
#include "ptx_testutil.h"

#define F32_NOUT 48
#define F64_NOUT 20
#define F16_NOUT 16
#define N 256
/* k_f32's out[34..42]: ex2.ftz, ex2, rsqrt.ftz |a|, lg2 |a|, sin, cos.ftz, rcp, sqrt |a|, tanh */
#define APPROX_OUT0 34

static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

/* op 0 add 1 mul 2 fma 3 div 4 sqrt 5 rcp 6 sub; in the host's mode */
static float fop(int mode, int op, float a, float b, float c)
{
    volatile float va = a, vb = b, vc = c, vr;
    fesetround(modes[mode]);
    switch (op) {
    case 0: vr = va + vb; break;
    case 1: vr = va * vb; break;
    case 2: vr = fmaf(va, vb, vc); break;
    case 3: vr = va / vb; break;
    case 4: vr = sqrtf(va); break;
    case 5: vr = 1.0f / va; break;
    default: vr = va - vb; break;
    }
    fesetround(FE_TONEAREST);
    return vr;
}

static double dop(int mode, int op, double a, double b, double c)
{
    volatile double va = a, vb = b, vc = c, vr;
    fesetround(modes[mode]);
    switch (op) {
    case 0: vr = va + vb; break;
    case 1: vr = va * vb; break;
    case 2: vr = fma(va, vb, vc); break;
    case 3: vr = va / vb; break;
    case 4: vr = sqrt(va); break;
    default: vr = 1.0 / va; break;
    }
    fesetround(FE_TONEAREST);
    return vr;
}

static float ftz(float x) { return fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x; }
static float sat(float x) { return x != x ? 0.0f : x < 0 ? 0.0f : x > 1 ? 1.0f : x; }
/* arithmetic results: NaN is the canonical 0x7fffffff */
static uint32_t canon(float x) { return x != x ? 0x7fffffffu : ptxt_u(x); }

static uint32_t fminmax(float a, float b, bool max, bool nanp)
{
    bool na = a != a, nb = b != b;
    if (na || nb) {
        if (nanp || (na && nb))
            return 0x7fffffffu;
        return ptxt_u(na ? b : a);
    }
    if (a == b) /* -0 < +0 */
        return ptxt_u(max ? (signbit(a) ? b : a) : (signbit(a) ? a : b));
    return ptxt_u(max ? (a > b ? a : b) : (a < b ? a : b));
}

static void f32_expect(float a, float b, float c, uint32_t *e)
{
    float aa = fabsf(a);
    for (int m = 0; m < 4; m++) {
        e[0 + m] = canon(fop(m, 0, a, b, 0));
        e[4 + m] = canon(fop(m, 1, a, b, 0));
        e[8 + m] = canon(fop(m, 2, a, b, c));
        e[12 + m] = canon(fop(m, 3, a, b, 0));
        e[16 + m] = canon(fop(m, 4, aa, 0, 0));
    }
    e[20] = canon(fop(0, 5, a, 0, 0));
    e[21] = canon(fop(1, 5, a, 0, 0));
    e[22] = canon(fop(2, 6, a, b, 0));
    e[23] = canon(ftz(ftz(a) + ftz(b)));
    e[24] = canon(sat(ftz(ftz(a) * ftz(b))));
    e[25] = canon(sat(fmaf(a, b, c)));
    e[26] = fminmax(a, b, false, false);
    e[27] = fminmax(a, b, true, false);
    e[28] = fminmax(a, b, false, true);
    uint32_t mx = fminmax(fabsf(a), fabsf(b), true, false);
    e[29] = mx == 0x7fffffffu ? mx : (mx & 0x7fffffffu) | ((ptxt_u(a) ^ ptxt_u(b)) & 0x80000000u);
    e[30] = ptxt_u(a) & 0x7fffffffu;
    e[31] = ptxt_u(ftz(a)) ^ 0x80000000u;
    e[32] = (ptxt_u(b) & 0x7fffffffu) | (ptxt_u(a) & 0x80000000u);
    bool un = a != a || b != b;
    uint32_t bits = 0;
    bits |= (uint32_t)(isfinite(a) && a != 0 && fabsf(a) < 0x1p-126f) << 0;
    bits |= (uint32_t)(isnormal(a)) << 1;
    bits |= (uint32_t)(isfinite(a)) << 2;
    bits |= (uint32_t)(un || a < b) << 3;
    bits |= (uint32_t)(un || a != b) << 4;
    bits |= (uint32_t)(!un) << 5;
    bits |= (uint32_t)(un) << 6;
    bits |= (uint32_t)(!un && a >= b) << 7;
    bits |= (uint32_t)(!un && ftz(a) != ftz(b)) << 8;
    e[33] = bits;
    /* e[34..42], the approximate instructions: check_approx */
    e[43] = canon(a / b); /* div.full and div.approx: the quotient, correctly rounded (README) */
    e[44] = canon(a / b);
    e[45] = canon(fmaf(a, b, c));
    e[46] = canon(sat(a - b));
    e[47] = canon(ftz(fop(3, 2, ftz(a), ftz(b), ftz(c))));
}

static float rand_float(uint64_t *s, int i)
{
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                       0x7fc00000u, 0x00000001u, 0x807fffffu, 0x00800000u,
                                       0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0x3f800001u,
                                       0x4b000001u, 0xcb800003u, 0x33800000u, 0x00400000u};
    if (i < 16)
        return ptxt_f(special[i]);
    uint32_t r = ptxt_rand(s);
    /* exponents in a range where products and sums stay interesting */
    uint32_t e = 100 + ptxt_rand(s) % 56;
    return ptxt_f((r & 0x807fffffu) | e << 23);
}

static void check_f32(vkrr_ptx_module *m, unsigned sm)
{
    static float A[N], B[N], C[N];
    static float out[N * F32_NOUT];
    uint64_t s = 7;
    for (int i = 0; i < N; i++) {
        A[i] = rand_float(&s, i % 64 < 16 ? i % 16 : 99);
        B[i] = rand_float(&s, i >= 16 && i < 32 ? i - 16 : 99);
        C[i] = rand_float(&s, i >= 32 && i < 48 ? i - 32 : 99);
        if (i % 7 == 3) /* a sum that is exactly a tie at f32 */
            B[i] = ptxt_f((ptxt_u(A[i]) & 0xff800000u) - (24u << 23));
        if (i % 11 == 5)
            C[i] = -A[i] * B[i];
    }
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, N);
    if (!ptxt_run(m, "k_f32", &a, N / 64, 64, 0))
        return;
    unsigned bad = 0;
    for (int i = 0; i < N; i++) {
        uint32_t e[F32_NOUT];
        f32_expect(A[i], B[i], C[i], e);
        for (int k = 0; k < F32_NOUT; k++) {
            if (k >= APPROX_OUT0 && k < APPROX_OUT0 + 9)
                continue; /* check_approx */
            uint32_t got = ptxt_u(out[i * F32_NOUT + k]);
            if (got != e[k] && bad++ < 12)
                fprintf(stderr, "sm%u k_f32 out[%d] a %08x b %08x c %08x: %08x, want %08x\n", sm, k,
                        ptxt_u(A[i]), ptxt_u(B[i]), ptxt_u(C[i]), got, e[k]);
        }
    }
    CHECK_EQ_U64(bad, 0);
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static void check_f64(vkrr_ptx_module *m, unsigned sm)
{
    static double A[N], B[N], C[N], out[N * F64_NOUT];
    uint64_t s = 11;
    for (int i = 0; i < N; i++) {
        A[i] = ldexp((double)(ptxt_rand(&s) | 1u) * (ptxt_rand(&s) | 1u), (int)(ptxt_rand(&s) % 40) - 60);
        B[i] = ldexp((double)(ptxt_rand(&s) | 1u), (int)(ptxt_rand(&s) % 40) - 20) * (i % 3 ? 1 : -1);
        C[i] = i % 5 ? -A[i] * B[i] * 0.75 : ldexp(1.0, -80);
        if (i < 6)
            A[i] = i == 0 ? 0.0 : i == 1 ? -0.0 : i == 2 ? INFINITY : i == 3 ? NAN : i == 4 ? 1e-310 : -1.0;
    }
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, N);
    if (!ptxt_run(m, "k_f64", &a, N / 64, 64, 0))
        return;
    unsigned bad = 0;
    for (int i = 0; i < N; i++) {
        double x = A[i], y = B[i], z = C[i], ax = fabs(x), e[F64_NOUT];
        for (int k = 0; k < 4; k++)
            e[k] = dop(k, 0, x, y, 0);
        e[4] = dop(1, 1, x, y, 0);
        e[5] = dop(3, 1, x, y, 0);
        for (int k = 0; k < 4; k++)
            e[6 + k] = dop(k, 2, x, y, z);
        e[10] = dop(0, 3, x, y, 0);
        e[11] = dop(1, 3, x, y, 0);
        e[12] = dop(0, 4, ax, 0, 0);
        e[13] = dop(3, 4, ax, 0, 0);
        e[14] = dop(0, 5, x, 0, 0);
        e[15] = dop(2, 5, x, 0, 0);
        e[16] = x != x ? y : x < y ? x : y;
        e[17] = x != x ? y : x > y ? x : y;
        e[18] = -x;
        e[19] = vkrr_approx_f64(VKRR_APPROX_RSQRT, ax, 0, NULL);
        for (int k = 0; k < F64_NOUT; k++) {
            double g = out[i * F64_NOUT + k];
            bool same = (g != g && e[k] != e[k]) || dbits(g) == dbits(e[k]);
            if (!same && bad++ < 12)
                fprintf(stderr, "sm%u k_f64 out[%d] a %a b %a c %a: %a, want %a\n", sm, k, x, y, z, g,
                        e[k]);
        }
    }
    CHECK_EQ_U64(bad, 0);
}

/* ---- f16 / bf16 ------------------------------------------------------------------ */
static long double h(uint32_t code, const ptxt_fmt *f) { return ptxt_decode(f, code & 0xffffu); }

static bool is_sub16(uint32_t code, const ptxt_fmt *f)
{
    return (code & 0x7fffu) && !((code >> f->mbits) & ((1u << f->ebits) - 1u));
}

static uint32_t hround(const ptxt_fmt *f, long double x)
{
    if (x != x)
        return 0x7fffu;
    return ptxt_round(f, x, 0, false);
}

static uint32_t hsat(uint32_t r)
{
    double v = ptxt_decode(&PTXT_F16, r);
    return v != v || v <= 0 ? 0u : v > 1 ? 0x3c00u : r;
}

static uint32_t hminmax(uint32_t a, uint32_t b, bool max, bool nanp)
{
    double x = ptxt_decode(&PTXT_F16, a), y = ptxt_decode(&PTXT_F16, b);
    if (x != x || y != y)
        return (nanp || (x != x && y != y)) ? 0x7fffu : (x != x ? b : a);
    if (x == y)
        return max ? ((a & 0x8000u) ? b : a) : ((a & 0x8000u) ? a : b);
    return max ? (x > y ? a : b) : (x < y ? a : b);
}

static uint32_t f16_rand(uint64_t *s, int i)
{
    static const uint16_t special[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x83ff, 0x3c00};
    if (i < 8)
        return special[i];
    uint32_t r = ptxt_rand(s);
    uint32_t e = 9 + ptxt_rand(s) % 13; /* 2^-6 .. 2^6 */
    return (r & 0x83ffu) | e << 10;
}

static uint32_t bf16_rand(uint64_t *s)
{
    uint32_t r = ptxt_rand(s), e = 120 + ptxt_rand(s) % 15;
    return (r & 0x807fu) | e << 7;
}

static void check_f16(vkrr_ptx_module *m, unsigned sm, const uint8_t *n16)
{
    static uint32_t A[N], B[N], C[N], out[N * F16_NOUT];
    uint64_t s = 5;
    for (int i = 0; i < N; i++) {
        A[i] = f16_rand(&s, i % 32) | f16_rand(&s, 99) << 16;
        B[i] = f16_rand(&s, (i / 8) % 16) | f16_rand(&s, 99) << 16;
        C[i] = f16_rand(&s, 99) | f16_rand(&s, 99) << 16;
    }
    /* the bf16x2 fma reads the same words: keep a second set for it */
    static uint32_t AB[N], BB[N], CB[N];
    for (int i = 0; i < N; i++) {
        AB[i] = bf16_rand(&s) | bf16_rand(&s) << 16;
        BB[i] = bf16_rand(&s) | bf16_rand(&s) << 16;
        CB[i] = bf16_rand(&s) | bf16_rand(&s) << 16;
    }
    for (int pass = 0; pass < 2; pass++) {
        uint32_t *a0 = pass ? AB : A, *b0 = pass ? BB : B, *c0 = pass ? CB : C;
        ptxt_args a = {0};
        ptxt_ptr(&a, a0, sizeof A);
        ptxt_ptr(&a, b0, sizeof B);
        ptxt_ptr(&a, c0, sizeof C);
        ptxt_ptr(&a, out, sizeof out);
        ptxt_u32(&a, N);
        if (!ptxt_run(m, "k_f16", &a, N / 64, 64, 0))
            return;
        unsigned bad = 0;
        for (int i = 0; i < N; i++) {
            uint32_t x = a0[i], y = b0[i], z = c0[i], e[F16_NOUT];
            const ptxt_fmt *F = &PTXT_F16, *BF = &PTXT_BF16;
            uint32_t xl = x & 0xffff, yl = y & 0xffff, zl = z & 0xffff;
            e[0] = hround(F, h(xl, F) + h(yl, F));
            e[1] = hround(F, h(xl, F) - h(yl, F));
            e[2] = hsat(hround(F, h(xl, F) * h(yl, F)));
            e[3] = hround(F, h(xl, F) * h(yl, F) + h(zl, F));
            {
                uint32_t fx = is_sub16(xl, F) ? xl & 0x8000u : xl, fy = is_sub16(yl, F) ? yl & 0x8000u : yl;
                uint32_t fz = is_sub16(zl, F) ? zl & 0x8000u : zl;
                uint32_t r = hround(F, h(fx, F) * h(fy, F) + h(fz, F));
                e[4] = is_sub16(r, F) ? r & 0x8000u : r;
            }
            uint32_t lo, hi;
            lo = hround(F, h(x, F) + h(y, F));
            hi = hround(F, h(x >> 16, F) + h(y >> 16, F));
            e[5] = lo | hi << 16;
            lo = hround(F, h(x, F) * h(y, F));
            hi = hround(F, h(x >> 16, F) * h(y >> 16, F));
            e[6] = lo | hi << 16;
            lo = hround(F, h(x, F) * h(y, F) + h(z, F));
            hi = hround(F, h(x >> 16, F) * h(y >> 16, F) + h(z >> 16, F));
            e[7] = lo | hi << 16;
            uint32_t rl = lo, rh = hi;
            rl = rl == 0x7fffu ? rl : (ptxt_decode(F, rl) < 0 || (rl & 0x8000u)) ? 0 : rl;
            rh = rh == 0x7fffu ? rh : (ptxt_decode(F, rh) < 0 || (rh & 0x8000u)) ? 0 : rh;
            e[8] = rl | rh << 16;
            lo = hround(BF, h(x, BF) * h(y, BF) + h(z, BF));
            hi = hround(BF, h(x >> 16, BF) * h(y >> 16, BF) + h(z >> 16, BF));
            e[9] = lo | hi << 16;
            e[10] = hminmax(x & 0xffff, y & 0xffff, false, false) |
                    hminmax(x >> 16, y >> 16, false, false) << 16;
            e[11] = hminmax(x & 0xffff, y & 0xffff, true, true) | hminmax(x >> 16, y >> 16, true, true) << 16;
            e[12] = n16 ? hwraw_u16(n16, HWRAW_N16_EX2_F16 * 65536u + xl) : 0; /* ex2.approx.f16 */
            e[13] = xl ^ 0x8000u;
            e[14] = x & 0x7fff7fffu;
            double dx = ptxt_decode(F, xl), dy = ptxt_decode(F, yl);
            e[15] = (dx != dx || dy != dy || dx > dy) ? 1u : 0u;
            for (int k = 0; k < F16_NOUT; k++) {
                if (pass && k != 9)
                    continue; /* the bf16 pass checks only the bf16 instruction */
                if (!pass && k == 9)
                    continue;
                if (out[i * F16_NOUT + k] != e[k] && bad++ < 12)
                    fprintf(stderr, "sm%u k_f16 out[%d] a %08x b %08x c %08x: %08x, want %08x\n", sm, k,
                            x, y, z, out[i * F16_NOUT + k], e[k]);
            }
        }
        CHECK_EQ_U64(bad, 0);
    }
}

/* ---- the approximate instructions ------------------------------------------------- */
/* Worked examples at inputs no f16 table holds, each from one entry of a
 * measured delta table by the laws of src/hw/README.md, worked with
 * Python's lzma and struct (not vkrr): a grid point j, ref = the exact
 * function at j rounded once to f32, delta the table's int8 at j, the GPU's
 * value inverse(ord(ref) + delta), then the law's scaling.  t of sin/cos is
 * FMUL.RZ(x, 0x3e22f983) and j = floor(|t| 2^25) mod 2^25. */
static const struct {
    uint32_t a;   /* the lane's input (rsqrt, lg2 and sqrt read |a|) */
    unsigned out; /* k_f32's output */
    uint32_t want;
} worked[] = {
    /* ex2.ftz(-1.7): E-[5872026], ref 3f1d9624, delta -1: 3f1d9623, times 2^-1 */
    {0xbfd9999au, 34, 0x3e9d9623u},
    /* ex2.ftz(-0.05): E-[419430], ref 3f77479b, delta -1 */
    {0xbd4ccccdu, 34, 0x3f77479au},
    /* ex2.ftz(pi): E+[1187766], ref 3f8d331d, delta 0, times 2^3 */
    {0x40490fdbu, 34, 0x410d331du},
    /* ex2(-140.3) (x < -126): t = ex2.ftz(-70.15) = 2^-70 E-[1258304] (ref
     * 3f66b84a, delta -1: 3f66b849) = 1c66b849; t * t to nearest, subnormal */
    {0xc30c4ccdu, 35, 0x000001a0u},
    {0xbfd9999au, 35, 0x3e9d9623u},
    /* rsqrt.ftz(1234.567) = 2^-5 R[1724965] (xr 1.2056), ref 3f692603, delta 1 */
    {0x449a5225u, 36, 0x3ce92604u},
    /* rsqrt.ftz(0.05) = 2^3 R[13421773] (xr 3.2), ref 3f0f1bbd, delta 0 */
    {0xbd4ccccdu, 36, 0x408f1bbdu},
    /* lg2(1.7) = L[5872026], ref 3f43fa16, delta 1 */
    {0xbfd9999au, 37, 0x3f43fa17u},
    /* sin(0.3): t 3d4391d0, S[1602106], ref 3e974e6c, delta 1 */
    {0x3e99999au, 38, 0x3e974e6du},
    /* sin(-0.05): t bc026135, S[267017], ref 3d4cb6d3, delta -7, negated */
    {0xbd4ccccdu, 38, 0xbd4cb6ccu},
    /* sin(1234.567): t 43447cc8 (to nearest it would be ...cc9), S[16355328],
     * ref 3da19fb0, delta -9 */
    {0x449a5225u, 38, 0x3da19fa7u},
    /* sin(pi): t 3effffff, j 16777215: the exceptions list's entry, +0 */
    {0x40490fdbu, 38, 0x00000000u},
    /* sin(-140.3): t c1b2a2b0, S[11054080], ref 3f60c4e9, delta -2, negated */
    {0xc30c4ccdu, 38, 0xbf60c4e7u},
    /* cos.ftz(-1.7): t be8a8749, C[9078601], ref be03efcc, delta -6 */
    {0xbfd9999au, 39, 0xbe03efd2u},
    /* cos.ftz(0.3): C[1602106], ref 3f7490ef, delta -2 */
    {0x3e99999au, 39, 0x3f7490edu},
    /* cos.ftz(1234.567): C[16355328], ref bf7f339a, delta 1 */
    {0x449a5225u, 39, 0xbf7f3399u},
    /* rcp(-140.3) = -2^-7 C[806093], ref 3f698e81, delta 1 */
    {0xc30c4ccdu, 40, 0xbbe98e82u},
    /* rcp(9.646e37) (above 2^126: s = 1/4): 2^-124 C[1123141] (ref 3f61c58d,
     * delta 1: 3f61c58e), times 1/4 to a subnormal */
    {0x7e912345u, 40, 0x0070e2c7u},
    /* rcp(-0.05) = -2^5 C[5033165], ref 3f200000, delta 0 */
    {0xbd4ccccdu, 40, 0xc1a00000u},
    /* sqrt(140.3) = 2^3 S[9194701] (xr 2.1922), ref 3fbd846d, delta -1 */
    {0xc30c4ccdu, 41, 0x413d846cu},
    /* sqrt(subnormal 0x00012345): x 2^24 = 0911a280 = 2.2755 4^-55,
     * S[9544320], ref 3fc11636, delta 1: 3fc11637, times 2^-55, then 2^-12 */
    {0x00012345u, 41, 0x1e411637u},
};
#define NWORKED (sizeof worked / sizeof worked[0])

/* f16_inputs.u32's row for k_f32's output k (of an input a or |a|) */
static const int approx_row[9] = {HWRAW_F16_EX2_FTZ, HWRAW_F16_EX2, HWRAW_F16_RSQRT_FTZ,
                                  HWRAW_F16_LG2,     HWRAW_F16_SIN, HWRAW_F16_COS_FTZ,
                                  HWRAW_F16_RCP,     HWRAW_F16_SQRT, HWRAW_F16_TANH};
static const bool approx_abs[9] = {false, false, true, true, false, false, false, true, false};

/* k_f32 over 1024 f16 values (every exponent, both signs, the special
 * codes) and the worked examples; out[34..42] against the H200's. */
static void check_approx(vkrr_ptx_module *m, unsigned sm, const uint8_t *f16in)
{
    enum { NF = 1024, NA = NF + 64 };
    static float A[NA], B[NA], C[NA], out[NA * F32_NOUT];
    static uint16_t code[NF];
    static const uint16_t special[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001,
                                       0x83ff, 0x3c00, 0xbc00, 0x0400, 0x7bff, 0xfbff};
    for (int i = 0; i < NF; i++) {
        code[i] = (uint16_t)(i < 12 ? special[i] : i * 64 + (i * 41) % 64);
        A[i] = (float)ptxt_decode(&PTXT_F16, code[i]);
    }
    for (int i = NF; i < NA; i++)
        A[i] = ptxt_f(worked[(size_t)(i - NF) % NWORKED].a);
    for (int i = 0; i < NA; i++)
        B[i] = C[i] = 1.0f;
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, NA);
    if (!f16in || !ptxt_run(m, "k_f32", &a, NA / 64, 64, 0))
        return;
    unsigned bad = 0, n = 0;
    for (int i = 0; i < NF; i++)
        for (int k = 0; k < 9; k++, n++) {
            uint32_t h = approx_abs[k] ? code[i] & 0x7fffu : code[i];
            uint32_t want = hwraw_u32(f16in, (size_t)approx_row[k] * 65536u + h);
            uint32_t got = ptxt_u(out[i * F32_NOUT + APPROX_OUT0 + k]);
            if (got != want && bad++ < 12)
                fprintf(stderr, "sm%u k_f32 out[%d] a %08x (f16 %04x): %08x, the H200 %08x\n", sm,
                        APPROX_OUT0 + k, ptxt_u(A[i]), code[i], got, want);
        }
    for (size_t w = 0; w < NWORKED; w++, n++) {
        uint32_t got = ptxt_u(out[(NF + w) * F32_NOUT + worked[w].out]);
        if (got != worked[w].want && bad++ < 12)
            fprintf(stderr, "sm%u k_f32 out[%u] a %08x: %08x, worked from the H200's tables %08x\n",
                    sm, worked[w].out, worked[w].a, got, worked[w].want);
    }
    printf("sm%u approximate f32 instructions: %u results (%u f16 inputs, %zu worked), %u differ "
           "from the H200\n", sm, n, NF, NWORKED, bad);
    CHECK_EQ_U64(bad, 0);
}

int main(void)
{
    static const unsigned sms[2] = {80, 89};
    uint8_t *f16in = hwraw_shipped("f16_inputs.u32", NULL), *n16 = hwraw_shipped("native16.u16", NULL);
    CHECK(f16in && n16);
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("float_ops", sms[k]);
        if (!m)
            continue;
        check_f32(m, sms[k]);
        check_approx(m, sms[k], f16in);
        check_f64(m, sms[k]);
        check_f16(m, sms[k], n16);
        vkrr_ptx_module_free(m);
    }
    free(f16in);
    free(n16);
    return test_finish("ptx_float");
}
