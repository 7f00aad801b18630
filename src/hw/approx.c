/* approx.c - the approximate instructions under the current hardware model
 * (approx.h).  The laws are those of src/hw/README.md, read off an sm_90
 * GPU over every f32 input; each comment names the law it implements.
 *
 * A delta table holds, per grid point j, hw = inverse(ord(ref(j)) + delta[j])
 * where ref(j) is the exact function at the grid point computed in double
 * and rounded once to f32 (exact at every grid point, checked against long
 * double when the tables were made). */
#include "approx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "approx_lanes.h"
#include "cuformat.h"
#include "exp2_grid.h"
#include "hw_internal.h"

#define NAN_BITS 0x7fffffffu /* the canonical NaN of NVIDIA GPUs */
#define F32_MIN_NORMAL 1.17549435e-38f

#define fbits vkrr_f32_bits
#define bitsf vkrr_f32_from_bits

#define ftz vkrr_ftz_f32

static bool subnormal(float x)
{
    return x != 0.0f && fabsf(x) < F32_MIN_NORMAL;
}

static float canon_nan(void)
{
    return bitsf(NAN_BITS);
}

static float apply_delta(float ref, int8_t d)
{
    return bitsf(vkrr_hw_unord(vkrr_hw_ord(fbits(ref)) + d));
}

/* A table of model t (the caller's vkrr_hw_current_tables, read once for
 * all the values it computes); NULL when it cannot be had (the value is
 * then a NaN; vkrr_approx_require reported why beforehand). */
static const void *table(vkrr_hw_tables *t, vkrr_hw_table_id id)
{
    return t ? vkrr_hw_tables_get(t, id, NULL) : NULL;
}

/* 2^k, k in [-126, 127], exactly: scaling by it is ldexpf's where the
 * result is normal (and Inf past the range, as ldexpf). */
static float pow2f(int k)
{
    return bitsf((uint32_t)(127 + k) << 23);
}

/* 2^k, k in [-1022, 1023], exactly. */
static double pow2(int k)
{
    uint64_t b = (uint64_t)(1023 + k) << 52;
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* A value rounded toward the exact one, then flushed: hw = flush(v) where v
 * is exact in double (a power-of-two scale of an f32). */
static float flush_exact(double v)
{
    return fabs(v) < (double)F32_MIN_NORMAL ? (float)copysign(0.0, v) : (float)v;
}

/* ---- the measured laws --------------------------------------------------- */

/* The hardware's bits at j from an exceptions list (sorted (j, bits) pairs). */
static bool exception_at(vkrr_hw_tables *t, vkrr_hw_table_id id, uint32_t j, uint32_t *bits)
{
    size_t bytes = 0;
    const uint32_t *e = t ? vkrr_hw_tables_get(t, id, &bytes) : NULL;
    size_t lo = 0, hi = bytes / 8;
    while (e && lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (e[2 * mid] == j) {
            *bits = e[2 * mid + 1];
            return true;
        }
        if (e[2 * mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* The hardware's value at grid point j of delta table id, into *v: the
 * delta applied, or where it is saturated (+-127) the exceptions list's
 * value; a saturated entry without one in a set that says it cut entries
 * (hw_tables.h) is a stand-in: *cut then true.  False when the table
 * cannot be had. */
static bool grid_value(vkrr_hw_tables *t, vkrr_hw_table_id id, uint32_t j, float *v, bool *cut)
{
    const int8_t *d = table(t, id);
    if (!d)
        return false;
    uint32_t eb;
    bool sat = d[j] == 127 || d[j] == -127;
    if (sat && exception_at(t, vkrr_hw_table_exceptions(id), j, &eb)) {
        *v = bitsf(eb);
        return true;
    }
    if (sat && cut)
        *cut = vkrr_hw_tables_cut(t, id) > 0;
    *v = apply_delta(vkrr_hw_grid_ref(id, j), d[j]);
    return true;
}


/* ex2.approx.ftz.f32's grid index of x, |x| < 128: q = floor(|x| 2^23)
 * (the conversion truncates: exact), i = q >> 23, j = q mod 2^23. */
static uint32_t ex2_grid(float x, int *i)
{
    uint64_t q = (uint64_t)(int64_t)(fabs((double)x) * 8388608.0); /* < 2^30: a signed conversion, one instruction */
    *i = (int)(q >> 23);
    return (uint32_t)(q & 0x7fffffu);
}

/* ex2.approx.ftz.f32: x >= 0: 2^i E+[j]; x < 0: flush(2^-i E-[j]). */
static float ex2_ftz(vkrr_hw_tables *t, float x)
{
    x = ftz(x);
    if (isnan(x))
        return canon_nan();
    if (x >= 128.0f)
        return INFINITY;
    if (x <= -127.0f)
        return 0.0f;
    int i;
    uint32_t j = ex2_grid(x, &i);
    bool neg = x < 0.0f;
    float e;
    if (!grid_value(t, neg ? VKRR_HWT_EX2_NEG : VKRR_HWT_EX2_POS, j, &e, NULL))
        return canon_nan();
    /* i <= 127, E+ in [1, 2]: 2^i E+ is normal or Inf; 2^-i E- in double, exact */
    return neg ? flush_exact((double)e * pow2(-i)) : e * pow2f(i);
}

/* ex2.approx.f32: nvcc's x < -126 ? MUFU.EX2(x/2)^2 : MUFU.EX2(x). */
static float ex2_full(vkrr_hw_tables *t, float x)
{
    if (x < -126.0f) {
        float h = ex2_ftz(t, x * 0.5f);
        return h * h; /* rounded to nearest, subnormal kept */
    }
    return ex2_ftz(t, x);
}

/* x = xr 4^k with xr in [1, 4): the grid index of xr in the rsqrt/sqrt tables. */
static uint32_t quarter_grid(float x, int *k)
{
    uint32_t b = fbits(x), m = b & 0x7fffffu;
    int e = (int)((b >> 23) & 0xffu) - 127;
    int odd = e & 1;
    *k = (e - odd) / 2;
    return odd ? (1u << 23) + m : m;
}

static double quarter_value(uint32_t j)
{
    return j < (1u << 23) ? 1.0 + (double)j * 0x1p-23 : 2.0 + (double)(j - (1u << 23)) * 0x1p-22;
}

float vkrr_hw_grid_ref(vkrr_hw_table_id id, uint32_t j)
{
    double g = (double)j * 0x1p-23;
    switch (id) {
    case VKRR_HWT_EX2_POS: return (float)exp2(g);
    case VKRR_HWT_EX2_NEG: return (float)exp2(-g);
    case VKRR_HWT_RSQRT: return (float)(1.0 / sqrt(quarter_value(j)));
    case VKRR_HWT_SQRT: return (float)sqrt(quarter_value(j));
    case VKRR_HWT_RCP: return (float)(1.0 / (1.0 + g));
    case VKRR_HWT_LG2: return (float)log2(1.0 + g);
    case VKRR_HWT_SIN:
    case VKRR_HWT_COS: {
        bool s = id == VKRR_HWT_SIN;
        if (j % (1u << 23) == 0) { /* exactly 0 or +-1 */
            unsigned q = j >> 23;
            return s ? (q == 1 ? 1.0f : q == 3 ? -1.0f : 0.0f) : (q == 0 ? 1.0f : q == 2 ? -1.0f : 0.0f);
        }
        double a = 2 * M_PI * j / 33554432.0; /* as written: ((2 pi) j) / 2^25 */
        return (float)(s ? sin(a) : cos(a));
    }
    default: return NAN;
    }
}

/* rsqrt.approx.ftz.f32: 2^-k R[xr]; sqrt.approx.ftz.f32: 2^k S[xr]. */
static float root_ftz(vkrr_hw_tables *t, bool rsq, float x)
{
    x = ftz(x);
    if (isnan(x) || x < 0.0f)
        return canon_nan();
    if (x == 0.0f)
        return rsq ? copysignf(INFINITY, x) : x;
    if (isinf(x))
        return rsq ? 0.0f : x;
    int k;
    uint32_t j = quarter_grid(x, &k);
    float r;
    if (!grid_value(t, rsq ? VKRR_HWT_RSQRT : VKRR_HWT_SQRT, j, &r, NULL))
        return canon_nan();
    return r * pow2f(rsq ? -k : k); /* |k| <= 64: normal, exact */
}

/* rsqrt/sqrt.approx.f32: a subnormal x is scaled by 2^24 first, the result
 * by 2^12 (rsqrt) or 2^-12 (sqrt). */
static float root_full(vkrr_hw_tables *t, bool rsq, float x)
{
    if (subnormal(x))
        return root_ftz(t, rsq, x * 16777216.0f) * (rsq ? 4096.0f : 0x1p-12f);
    return root_ftz(t, rsq, x);
}

/* rcp.approx.ftz.f32: |x| = xr 2^(e-1), xr in [1, 2): flush(+-2^(1-e) C[xr]). */
static uint32_t rcp_grid(float x)
{
    return fbits(x) & 0x7fffffu;
}

static float rcp_ftz(vkrr_hw_tables *t, float x)
{
    x = ftz(x);
    if (isnan(x))
        return canon_nan();
    if (x == 0.0f)
        return copysignf(INFINITY, x);
    if (isinf(x))
        return copysignf(0.0f, x);
    uint32_t b = fbits(x), j = rcp_grid(x);
    int e = (int)((b >> 23) & 0xffu) - 127;
    float c;
    if (!grid_value(t, VKRR_HWT_RCP, j, &c, NULL))
        return canon_nan();
    return flush_exact(copysign((double)c * pow2(-e), (double)x)); /* exact in double */
}

/* rcp.approx.f32: s * rcp.approx.ftz(x * s), s = 2^24 for a subnormal x,
 * 1/4 above 2^126, else 1. */
static float rcp_full(vkrr_hw_tables *t, float x)
{
    float s = subnormal(x) ? 16777216.0f : fabsf(x) > 0x1p126f ? 0.25f : 1.0f;
    float r = s * rcp_ftz(t, x * s);
    return isnan(r) ? canon_nan() : r;
}

/* sin/cos.approx: t = FMUL.RZ(x, 1/(2 pi) as f32); j = floor(|t| 2^25) mod
 * 2^25; cos = C[j]; sin = S[j], negated when x's sign bit is set. */
static float mul_rz(float a, float b)
{
    double p = (double)a * (double)b; /* exact: 24 x 24 bits */
    float f = (float)p;
    if (fabs((double)f) > fabs(p))
        f = nextafterf(f, 0.0f);
    return f;
}

static uint32_t turn_index(float t);

uint32_t vkrr_hw_turn_index(float x)
{
    return turn_index(mul_rz(x, bitsf(0x3e22f983u)));
}

static uint32_t turn_index(float t)
{
    uint32_t b = fbits(t) & 0x7fffffffu;
    if (b < 0x00800000u)
        return 0; /* subnormal or zero: well below 2^-25 */
    int sh = (int)(b >> 23) - 127 + 2; /* |t| 2^25 = m24 2^sh */
    uint64_t m24 = (b & 0x7fffffu) | 0x800000u;
    if (sh >= 25)
        return 0;
    if (sh >= 0)
        return (uint32_t)((m24 << sh) & 0x1ffffffu);
    return sh <= -25 ? 0 : (uint32_t)(m24 >> -sh);
}

static float turn(vkrr_hw_tables *t, bool is_sin, float x, int flush)
{
    if (flush)
        x = ftz(x);
    if (isnan(x) || isinf(x))
        return canon_nan();
    uint32_t j = vkrr_hw_turn_index(x);
    bool neg = is_sin && (fbits(x) & 0x80000000u);
    float v;
    uint32_t eb;
    const int8_t *d = table(t, is_sin ? VKRR_HWT_SIN : VKRR_HWT_COS);
    if (!d)
        return canon_nan();
    /* the zeros at quarter turns carry the hardware's signs */
    if (is_sin && (j == 0 || j == 1u << 24)) {
        v = j ? -0.0f : 0.0f;
    } else if (!is_sin && (j == 1u << 23 || j == 3u << 23)) {
        v = j == 1u << 23 ? -0.0f : 0.0f;
    } else if (exception_at(t, is_sin ? VKRR_HWT_SIN_EXC : VKRR_HWT_COS_EXC, j, &eb)) {
        /* searched every time: besides the saturated entries (+-127) the list
         * holds a near-tie of the reference whose delta looks ordinary */
        v = bitsf(eb);
    } else {
        v = apply_delta(vkrr_hw_grid_ref(is_sin ? VKRR_HWT_SIN : VKRR_HWT_COS, j), d[j]);
    }
    return neg ? -v : v;
}

/* ---- f16 inputs, lg2 and tanh -------------------------------------------- */

/* Rows of f16_inputs.u32: the op order of ulp_histograms.tsv. */
enum {
    ROW_EX2_FTZ, ROW_EX2, ROW_RSQRT_FTZ, ROW_RSQRT, ROW_RCP_FTZ, ROW_RCP, ROW_SQRT_FTZ, ROW_SQRT,
    ROW_LG2_FTZ, ROW_LG2, ROW_SIN_FTZ, ROW_SIN, ROW_COS_FTZ, ROW_COS, ROW_TANH
};

/* The f16 code of x when x is exactly an f16 value (NaN is not). */
static bool f16_code(float x, uint16_t *h)
{
    if (isnan(x))
        return false;
    *h = vkrr_f32_to_f16_rne(x);
    return fbits(vkrr_f16_to_f32(*h)) == fbits(x);
}

static bool from_f16_table(vkrr_hw_tables *t, int row, float x, float *y)
{
    uint16_t h;
    if (!f16_code(x, &h))
        return false;
    const uint32_t *v = table(t, VKRR_HWT_F16_INPUTS);
    *y = v ? bitsf(v[(size_t)row * 65536u + h]) : canon_nan();
    return true;
}

/* lg2 of a positive normal x: [1, 2) from the table (exact but where the
 * set cut entries: sm_90 near 1), elsewhere the stand-in RZ(e + L(m)) (the
 * law that holds for 99.4 % of inputs). */
static float lg2_normal(vkrr_hw_tables *t, float x, unsigned *standins)
{
    uint32_t b = fbits(x), j = b & 0x7fffffu;
    int e = (int)((b >> 23) & 0xffu) - 127;
    float l;
    bool cut = false;
    if (!grid_value(t, VKRR_HWT_LG2, j, &l, &cut))
        return canon_nan();
    if (cut)
        *standins |= VKRR_STANDIN_LG2;
    if (e == 0)
        return l;
    *standins |= VKRR_STANDIN_LG2;
    double s = (double)e + (double)l; /* exact: both fit in 53 bits */
    float r = (float)s;
    if (fabs((double)r) > fabs(s))
        r = nextafterf(r, 0.0f);
    return r;
}

static float lg2(vkrr_hw_tables *t, float x, int flush, unsigned *standins)
{
    float y;
    if (from_f16_table(t, flush ? ROW_LG2_FTZ : ROW_LG2, x, &y))
        return y;
    if (flush)
        x = ftz(x);
    if (isnan(x) || x < 0.0f)
        return canon_nan();
    if (x == 0.0f)
        return -INFINITY;
    if (isinf(x))
        return x;
    if (subnormal(x)) /* nvcc: lg2(x 2^24) - 24 */
        return lg2_normal(t, x * 16777216.0f, standins) + -24.0f;
    return lg2_normal(t, x, standins);
}

static float tanh_f32(vkrr_hw_tables *t, float x, unsigned *standins)
{
    float y;
    if (from_f16_table(t, ROW_TANH, x, &y))
        return y;
    if (isnan(x))
        return canon_nan();
    *standins |= VKRR_STANDIN_TANH;
    return subnormal(x) ? x : (float)tanh((double)x); /* subnormals pass through (ISA) */
}

/* ---- the rounded model (what vkrr used before measuring) ------------------ */

static double eval(vkrr_approx_op op, double x)
{
    switch (op) {
    case VKRR_APPROX_EX2: return exp2(x);
    case VKRR_APPROX_RSQRT: return 1.0 / sqrt(x);
    case VKRR_APPROX_RCP: return 1.0 / x;
    case VKRR_APPROX_SQRT: return sqrt(x);
    case VKRR_APPROX_LG2: return log2(x);
    case VKRR_APPROX_SIN: return sin(x);
    case VKRR_APPROX_COS: return cos(x);
    case VKRR_APPROX_TANH: return tanh(x);
    default: return NAN;
    }
}

static float rounded_f32(vkrr_approx_op op, float x, int flush)
{
    if (flush)
        x = ftz(x);
    float y = (float)eval(op, (double)x); /* correctly rounded (53 >= 2*24+2 bits) */
    return flush ? ftz(y) : y;
}

/* ---- the entry points ------------------------------------------------------ */

static bool rounded_model(void)
{
    return vkrr_hw_current_tables() == NULL;
}

/* The f32 form's row (measure.h's op order, ROW_* above). */
static unsigned form_of(vkrr_approx_op op, int flush)
{
    static const unsigned base[] = {ROW_EX2_FTZ, ROW_RSQRT_FTZ, ROW_RCP_FTZ, ROW_SQRT_FTZ,
                                    ROW_LG2_FTZ, ROW_SIN_FTZ, ROW_COS_FTZ, ROW_TANH};
    unsigned o = (unsigned)op < sizeof base / sizeof base[0] ? base[op] : ROW_TANH;
    return o == ROW_TANH || flush ? o : o + 1;
}

/* One value under model t (non-NULL). */
static float law_f32(vkrr_hw_tables *t, vkrr_approx_op op, float x, int flush, unsigned *standins)
{
    uint32_t dev; /* a simulated GPU's value off its laws (hw_tables.h) */
    if (vkrr_hw_tables_deviation(t, form_of(op, flush), fbits(x), &dev))
        return bitsf(dev);
    switch (op) {
    case VKRR_APPROX_EX2: return flush ? ex2_ftz(t, x) : ex2_full(t, x);
    case VKRR_APPROX_RSQRT: return flush ? root_ftz(t, true, x) : root_full(t, true, x);
    case VKRR_APPROX_SQRT: return flush ? root_ftz(t, false, x) : root_full(t, false, x);
    case VKRR_APPROX_RCP: return flush ? rcp_ftz(t, x) : rcp_full(t, x);
    case VKRR_APPROX_SIN: return turn(t, true, x, flush);
    case VKRR_APPROX_COS: return turn(t, false, x, flush);
    case VKRR_APPROX_LG2: return lg2(t, x, flush, standins);
    case VKRR_APPROX_TANH: return tanh_f32(t, x, standins);
    default: return canon_nan();
    }
}

/* Brings the delta-table bytes that ex2 and rcp (the forms a warp's lanes
 * look up at scattered grid points: 8 MiB tables) will read for x[0..n)
 * into the cache before any is read, so the misses overlap. */
static void prefetch_grid(vkrr_hw_tables *t, vkrr_approx_op op, const float *x, unsigned n)
{
    const int8_t *pos = NULL, *neg = NULL;
    if (op == VKRR_APPROX_EX2) {
        pos = table(t, VKRR_HWT_EX2_POS);
        neg = table(t, VKRR_HWT_EX2_NEG);
    } else if (op == VKRR_APPROX_RCP) {
        pos = neg = table(t, VKRR_HWT_RCP);
    }
    if (!pos || !neg)
        return;
    for (unsigned k = 0; k < n; k++) {
        float v = x[k];
        if (isnan(v) || isinf(v) || (op == VKRR_APPROX_EX2 && !(v < 128.0f && v > -127.0f)))
            continue; /* no look-up */
        int i;
        uint32_t j = op == VKRR_APPROX_EX2 ? ex2_grid(v, &i) : rcp_grid(v);
        __builtin_prefetch((v < 0.0f ? neg : pos) + j);
    }
}

/* ex2.approx.ftz.f32 and rcp.approx.ftz.f32 of n lanes: the tables read
 * once, eight or four lanes at a time (approx_lanes.h: AVX2 or not); a lane
 * those leave is the one-value law's. */
static void ex2_ftz_many(vkrr_hw_tables *t, const float *x, float *y, unsigned n)
{
    const int8_t *tab[2] = {table(t, VKRR_HWT_EX2_POS), table(t, VKRR_HWT_EX2_NEG)};
    const uint8_t *p2[2] = {vkrr_hw_tables_delta2(t, VKRR_HWT_EX2_POS), vkrr_hw_tables_delta2(t, VKRR_HWT_EX2_NEG)};
    const double *ref[2] = {vkrr_hw_ex2_grid_table(false), vkrr_hw_ex2_grid_table(true)};
    for (uint32_t rest = vkrr_approx_ex2_lanes(tab, p2, ref, x, y, n); rest; rest &= rest - 1)
        y[__builtin_ctz(rest)] = ex2_ftz(t, x[__builtin_ctz(rest)]);
}

static void rcp_ftz_many(vkrr_hw_tables *t, const float *x, float *y, unsigned n)
{
    uint32_t rest = vkrr_approx_rcp_lanes(table(t, VKRR_HWT_RCP), vkrr_hw_tables_delta2(t, VKRR_HWT_RCP), x, y, n);
    for (; rest; rest &= rest - 1)
        y[__builtin_ctz(rest)] = rcp_ftz(t, x[__builtin_ctz(rest)]);
}

void vkrr_approx_f32_many(vkrr_approx_op op, const float *x, float *y, unsigned n, int flush,
                          unsigned *standins)
{
    vkrr_hw_tables *t = vkrr_hw_current_tables();
    if (!t) {
        for (unsigned k = 0; k < n; k++)
            y[k] = rounded_f32(op, x[k], flush);
        return;
    }
    bool lanes = flush && n <= 32 && (op == VKRR_APPROX_EX2 || op == VKRR_APPROX_RCP) &&
                 !vkrr_hw_tables_form_deviates(t, form_of(op, flush));
    if (lanes && op == VKRR_APPROX_EX2) {
        ex2_ftz_many(t, x, y, n);
    } else if (lanes) {
        rcp_ftz_many(t, x, y, n);
    } else {
        prefetch_grid(t, op, x, n);
        for (unsigned k = 0; k < n; k++)
            y[k] = law_f32(t, op, x[k], flush, standins);
    }
}

float vkrr_approx_f32_noted(vkrr_approx_op op, float x, int flush, unsigned *standins)
{
    vkrr_hw_tables *t = vkrr_hw_current_tables();
    return t ? law_f32(t, op, x, flush, standins) : rounded_f32(op, x, flush);
}

float vkrr_approx_f32(vkrr_approx_op op, float x, int flush)
{
    unsigned ignored = 0;
    return vkrr_approx_f32_noted(op, x, flush, &ignored);
}

float vkrr_approx_ex2(float x)
{
    return vkrr_approx_f32(VKRR_APPROX_EX2, x, 1);
}

float vkrr_approx_rsqrt(float x)
{
    return vkrr_approx_f32(VKRR_APPROX_RSQRT, x, 1);
}

uint16_t vkrr_approx_16(vkrr_approx_op op, uint16_t h, bool bf16)
{
    if (op != VKRR_APPROX_EX2 && op != VKRR_APPROX_TANH)
        return 0x7fffu;
    if (rounded_model()) {
        float x = bf16 ? vkrr_bf16_to_f32(h) : vkrr_f16_to_f32(h);
        float y = rounded_f32(op, x, 0);
        if (bf16 && op == VKRR_APPROX_EX2) /* .ftz.bf16 */
            y = ftz(y);
        return bf16 ? vkrr_f32_to_bf16_rne(y) : vkrr_f32_to_f16_rne(y);
    }
    const uint16_t *v = table(vkrr_hw_current_tables(), VKRR_HWT_NATIVE16);
    unsigned row = (op == VKRR_APPROX_TANH ? 1u : 0u) + (bf16 ? 2u : 0u);
    return v ? v[row * 65536u + h] : 0x7fffu;
}

/* rcp.approx.ftz.f64 as the ISA describes it: the upper word (20 mantissa
 * bits) inverted, the result kept to 20 mantissa bits, the lower word 0. */
static double rcp_f64_isa(double x)
{
    uint64_t b;
    memcpy(&b, &x, 8);
    b &= 0xffffffff00000000ull;
    double hi;
    memcpy(&hi, &b, 8);
    if (isnan(hi)) {
        b = 0x7fffffff00000000ull;
        memcpy(&hi, &b, 8);
        return hi;
    }
    if (fabs(hi) < 2.2250738585072014e-308)
        return copysign(INFINITY, hi);
    double r = 1.0 / hi;
    if (fabs(r) < 2.2250738585072014e-308)
        return copysign(0.0, r);
    int e;
    double m = frexp(r, &e);               /* [0.5, 1) */
    double q = ldexp(nearbyint(ldexp(m, 21)), e - 21); /* 21 significant bits: 1.20 */
    memcpy(&b, &q, 8);
    b &= 0xffffffff00000000ull;
    memcpy(&q, &b, 8);
    return q;
}

double vkrr_approx_f64(vkrr_approx_op op, double x, int flush, unsigned *standins)
{
    if (standins)
        *standins |= VKRR_STANDIN_F64;
    if (op == VKRR_APPROX_RCP && !rounded_model())
        return rcp_f64_isa(x);
    if (flush && fabs(x) < 2.2250738585072014e-308)
        x = copysign(0.0, x);
    long double lx = (long double)x, r;
    switch (op) {
    case VKRR_APPROX_RCP: r = 1.0L / lx; break;
    case VKRR_APPROX_RSQRT: r = 1.0L / sqrtl(lx); break;
    case VKRR_APPROX_SQRT: r = sqrtl(lx); break;
    default: r = (long double)eval(op, x); break;
    }
    double y = (double)r;
    return flush && fabs(y) < 2.2250738585072014e-308 ? copysign(0.0, y) : y;
}

/* ---- loading ahead, and the ports' tables -------------------------------- */

vkrr_status vkrr_approx_require(vkrr_approx_op op, bool f16_forms, vkrr_error *err)
{
    vkrr_hw_tables *t = vkrr_hw_current_tables();
    if (!t)
        return VKRR_OK;
    vkrr_hw_table_id ids[6];
    unsigned n = 0;
    if (f16_forms) {
        ids[n++] = VKRR_HWT_NATIVE16;
    } else {
        switch (op) {
        case VKRR_APPROX_EX2: ids[n++] = VKRR_HWT_EX2_POS; ids[n++] = VKRR_HWT_EX2_NEG; break;
        case VKRR_APPROX_RSQRT: ids[n++] = VKRR_HWT_RSQRT; break;
        case VKRR_APPROX_SQRT: ids[n++] = VKRR_HWT_SQRT; break;
        case VKRR_APPROX_RCP: ids[n++] = VKRR_HWT_RCP; break;
        case VKRR_APPROX_LG2: ids[n++] = VKRR_HWT_LG2; ids[n++] = VKRR_HWT_F16_INPUTS; break;
        case VKRR_APPROX_SIN: ids[n++] = VKRR_HWT_SIN; break;
        case VKRR_APPROX_COS: ids[n++] = VKRR_HWT_COS; break;
        case VKRR_APPROX_TANH: ids[n++] = VKRR_HWT_F16_INPUTS; break;
        default: break;
        }
        for (unsigned i = 0, n0 = n; i < n0; i++) /* each delta table's exceptions with it */
            if (vkrr_hw_table_exceptions(ids[i]) != VKRR_HWT_COUNT)
                ids[n++] = vkrr_hw_table_exceptions(ids[i]);
    }
    for (unsigned i = 0; i < n; i++)
        if (!vkrr_hw_tables_get(t, ids[i], NULL)) {
            vkrr_hw_tables_error(t, err);
            return err ? err->status : VKRR_ERR_IO;
        }
    return VKRR_OK;
}

vkrr_status vkrr_approx_port_tables(const uint32_t **out, vkrr_error *err)
{
    vkrr_hw_model *m = vkrr_hw_current();
    vkrr_status st = VKRR_OK;
    pthread_mutex_lock(&m->lock);
    if (!m->port) {
        if ((st = vkrr_approx_require(VKRR_APPROX_EX2, false, err)) == VKRR_OK &&
            (st = vkrr_approx_require(VKRR_APPROX_RSQRT, false, err)) == VKRR_OK &&
            (st = vkrr_approx_require(VKRR_APPROX_RCP, false, err)) == VKRR_OK) {
            uint32_t *t = malloc(VKRR_APPROX_PORT_TABLE_BYTES);
            if (!t) {
                st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "approximate-instruction tables");
            } else {
                for (uint32_t h = 0; h < VKRR_APPROX_TABLE_ENTRIES; h++) {
                    float x = vkrr_f16_to_f32((uint16_t)h);
                    t[h] = fbits(vkrr_approx_ex2(x));
                    t[VKRR_APPROX_TABLE_ENTRIES + h] = fbits(vkrr_approx_rsqrt(x));
                    t[2u * VKRR_APPROX_TABLE_ENTRIES + h] = fbits(vkrr_approx_f32(VKRR_APPROX_RCP, x, 1));
                }
                m->port = t;
            }
        }
    }
    *out = m->port;
    pthread_mutex_unlock(&m->lock);
    return st;
}

/* ---- the stand-ins' bounds ------------------------------------------------- */

void vkrr_approx_standin_bound(unsigned s, double *atol, double *rtol, int64_t *max_ulp)
{
    *atol = -1.0;
    *rtol = -1.0;
    *max_ulp = -1;
    if (s & VKRR_STANDIN_LG2) { /* ISA: abs 2^-22 in (0.5, 2), else rel 2^-22 */
        *atol = fmax(*atol, 0x1p-22);
        *rtol = fmax(*rtol, 0x1p-22);
    }
    if (s & VKRR_STANDIN_TANH) /* ISA: rel 2^-11 over the whole range */
        *rtol = fmax(*rtol, 0x1p-11);
    if ((s & VKRR_STANDIN_DIV) && *max_ulp < 2) /* ISA: 2 ULP */
        *max_ulp = 2;
    if (s & VKRR_STANDIN_F64) /* a 20-bit mantissa (rcp.approx.ftz.f64) */
        *rtol = fmax(*rtol, 0x1p-19);
}

void vkrr_approx_standin_names(unsigned s, char *buf, size_t cap)
{
    static const char *const names[VKRR_STANDIN_COUNT] = {
        "lg2.approx.f32", "tanh.approx.f32", "div.approx.f32/div.full.f32",
        "rcp.approx.ftz.f64/rsqrt.approx.f64", "mma.m8n8k4.f64", "mma sums (tensor cores)"};
    size_t at = 0;
    if (cap)
        buf[0] = 0;
    for (unsigned i = 0; i < VKRR_STANDIN_COUNT && cap; i++) {
        if (!(s & (1u << i)))
            continue;
        int n = snprintf(buf + at, cap - at, "%s%s", at ? ", " : "", names[i]);
        if (n < 0 || (size_t)n >= cap - at)
            break;
        at += (size_t)n;
    }
}
