/* approx_lanes.c - ex2 and rcp .approx.ftz.f32 over a warp's lanes:
 * eight at a time with AVX2, four elsewhere (approx_lanes.h). */
#include "approx_lanes.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "exp2_grid.h"
#include "fpformat.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define LANES_AVX2 1
#include <immintrin.h>
#include <pthread.h>
#endif

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));
typedef int64_t v4l __attribute__((vector_size(32)));

#define F32_MIN_NORMAL 0x1p-126

/* The lanes' common end, four lanes into y + k: sign | flush(f32(ref) + d)
 * 2^(ex - 1023), the delta added to the positive reference's bits and the
 * power of two's exponent field ex built into a double; exact in double,
 * flushed below f32's normals, Inf past them as the f32 product.  The
 * lanes' values come as vectors built from scalars, not loaded from arrays
 * just stored (a store forwarded to a wider load stalls); a vector part
 * filled past n goes to ys. */
#define LANE_END(ref_d, d_, x_, s_, k)                                                              \
    do {                                                                                            \
        v4f f_ = __builtin_convertvector(ref_d, v4f);                                               \
        v4d e_ = __builtin_convertvector((v4f)((v4i)f_ + (d_)), v4d);                               \
        v4d v_ = e_ * (v4d)(__builtin_convertvector(x_, v4l) << 52);                                \
        v4i keep_ = __builtin_convertvector(v_ >= F32_MIN_NORMAL, v4i);                             \
        v4i o_ = ((v4i)__builtin_convertvector(v_, v4f) & keep_) | (s_);                            \
        if ((k) + 4 <= n)                                                                           \
            memcpy(y + (k), &o_, 16);                                                               \
        else                                                                                        \
            memcpy(ys, &o_, 16);                                                                    \
    } while (0)

/* p1 where s, else p0: by a mask, not a branch (a warp's signs are mixed;
 * GCC turns a plain select on a compare's result back into a branch, so
 * the mask is made opaque to it) */
static inline const void *pick(const void *p0, const void *p1, uintptr_t s)
{
    uintptr_t m = -s;
    __asm__("" : "+r"(m));
    return (const void *)((uintptr_t)p0 ^ (((uintptr_t)p0 ^ (uintptr_t)p1) & m));
}

static uint32_t all_lanes(unsigned n)
{
    return n >= 32 ? UINT32_MAX : (1u << n) - 1u;
}

/* ---- every CPU: GCC's vectors, four lanes at a time -------------------------- */

static uint32_t ex2_portable(const int8_t *const tab[2], const uint8_t *const p2[2], const double *const ref[2],
                             const float *x, float *y, unsigned n)
{
    uint32_t q[32], rest = 0;
    bool neg[32];
    for (unsigned k = 0; k < n; k++) { /* ex2_ftz's grid point, the entry fetched early */
        float v = vkrr_ftz_f32(x[k]);
        neg[k] = v < 0.0f; /* a flushed -subnormal is -0: E+ */
        bool in = v < 128.0f && v > -127.0f; /* a NaN fails both */
        q[k] = in ? (uint32_t)(int32_t)(fabsf(v) * 0x1p23f) : 0; /* exact in f32, under 2^30 */
        rest |= (uint32_t)!in << k;
        __builtin_prefetch(vkrr_approx_delta2_byte(pick(p2[0], p2[1], neg[k]), q[k] & 0x7fffffu));
    }
    /* four lanes at a time: the delta, the series' argument (lo ln2
     * 2^-23, signed), T[hi], 2^(+-i)'s exponent field; the sign picks the
     * tables by arithmetic, not by a branch on it (a warp's signs are mixed) */
    float ys[4];
    for (unsigned k = 0; k < n; k += 4) {
        int32_t dd[4], ex[4], lo[4];
        double tv[4], mul[4];
#pragma GCC unroll 4
        for (unsigned c = 0; c < 4; c++) {
            bool real = k + c < n; /* else a lane to fill the vector: 2^0 */
            uintptr_t s = real && neg[k + c];
            uint32_t j = real ? q[k + c] & 0x7fffffu : 0;
            int32_t i = real ? (int32_t)(q[k + c] >> 23) : 0;
            int8_t d = vkrr_approx_delta_at(pick(p2[0], p2[1], s), pick(tab[0], tab[1], s), j);
            rest |= (uint32_t)(d == 127 || d == -127) << (k + c);
            dd[c] = d;
            lo[c] = (int32_t)(j & 4095u);
            mul[c] = VKRR_EX2_LN2_ULP * (double)(1 - 2 * (int)s);
            tv[c] = ((const double *)pick(ref[0], ref[1], s))[j >> 12];
            ex[c] = 1023 + ((i ^ -(int32_t)s) + (int32_t)s); /* 1023 +- i */
        }
        /* exp2_grid.h's T[hi] P(lo), the same operations in the same order */
        v4d a = __builtin_convertvector(((v4i){lo[0], lo[1], lo[2], lo[3]}), v4d) * (v4d){mul[0], mul[1], mul[2], mul[3]};
        v4d p = 1.0 + a * (1.0 + a * (0.5 + a * (1.0 / 6.0 + a * (1.0 / 24.0))));
        v4d r = (v4d){tv[0], tv[1], tv[2], tv[3]} * p;
        v4l low = (v4l)r & ((INT64_C(1) << VKRR_EX2_DROP) - 1), half = (v4l){0} + (INT64_C(1) << (VKRR_EX2_DROP - 1));
        v4l near = (low > half - VKRR_EX2_NEAR) & (low < half + VKRR_EX2_NEAR); /* exp2_grid.h: libm's value there */
        for (unsigned c = 0; c < 4; c++)
            rest |= (uint32_t)(near[c] != 0) << (k + c);
        LANE_END(r, ((v4i){dd[0], dd[1], dd[2], dd[3]}), ((v4i){ex[0], ex[1], ex[2], ex[3]}), ((v4i){0, 0, 0, 0}), k);
    }
    for (unsigned k = n & ~3u; k < n; k++) /* a last vector part filled */
        y[k] = ys[k % 4];
    return rest & all_lanes(n);
}

static uint32_t rcp_portable(const int8_t *tab, const uint8_t *p2, const float *x, float *y, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        __builtin_prefetch(vkrr_approx_delta2_byte(p2, vkrr_f32_bits(x[k]) & 0x7fffffu));
    /* four lanes at a time: the delta, the grid point, 2^(127 - e)'s
     * exponent field, the sign */
    uint32_t rest = 0;
    float ys[4];
    for (unsigned k = 0; k < n; k += 4) {
        int32_t dd[4], ex[4], sg[4], jj[4];
#pragma GCC unroll 4
        for (unsigned c = 0; c < 4; c++) {
            uint32_t b = k + c < n ? vkrr_f32_bits(vkrr_ftz_f32(x[k + c])) : 0x3f800000u, ef = (b >> 23) & 0xffu;
            uint32_t j = b & 0x7fffffu;
            int8_t d = ef != 0 && ef != 0xffu ? vkrr_approx_delta_at(p2, tab, j) : 127; /* 0, Inf, NaN: the caller's */
            rest |= (uint32_t)(d == 127 || d == -127) << (k + c);
            dd[c] = d;
            jj[c] = (int32_t)j;
            ex[c] = 1023 + 127 - (int32_t)ef;
            sg[c] = (int32_t)(b & 0x80000000u);
        }
        v4d g = __builtin_convertvector(((v4i){jj[0], jj[1], jj[2], jj[3]}), v4d) * 0x1p-23;
        v4d r = 1.0 / (1.0 + g); /* vkrr_hw_grid_ref's C */
        LANE_END(r, ((v4i){dd[0], dd[1], dd[2], dd[3]}), ((v4i){ex[0], ex[1], ex[2], ex[3]}),
                 ((v4i){sg[0], sg[1], sg[2], sg[3]}), k);
    }
    for (unsigned k = n & ~3u; k < n; k++) /* a last vector part filled */
        y[k] = ys[k % 4];
    return rest & all_lanes(n);
}

/* ---- AVX2: eight lanes at a time, the table entries gathered ------------------ */

#ifdef LANES_AVX2
#define AVX2_FN __attribute__((target("avx2")))

/* Point j's 2-bit code from packed tables at base + off (off in 4-byte
 * words, per lane, a table's offset from base): the aligned word holding
 * it, gathered, shifted.  Four lanes of 64-bit offsets. */
AVX2_FN static inline __m128i codes4(const uint8_t *base, __m256i off, __m128i pos)
{
    __m256i w = _mm256_add_epi64(off, _mm256_cvtepu32_epi64(_mm_srli_epi32(pos, 4)));
    __m128i word = _mm256_i64gather_epi32((const int *)(const void *)base, w, 4);
    return _mm_and_si128(_mm_srlv_epi32(word, _mm_slli_epi32(_mm_and_si128(pos, _mm_set1_epi32(15)), 1)),
                         _mm_set1_epi32(3));
}

/* vkrr_hw_delta2_pos of eight grid points */
AVX2_FN static inline __m256i pos8(__m256i j)
{
    return _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(j, _mm256_set1_epi32(0x1fff)), 10),
                           _mm256_and_si256(_mm256_srli_epi32(j, 13), _mm256_set1_epi32(0x3ff)));
}

/* LANE_END's law, four lanes: sign | flush(f32(ref) + d) 2^(ex - 1023) */
AVX2_FN static inline __m128 end4(__m256d ref, __m128i d, __m128i ex, __m128i sign)
{
    __m128i f = _mm_add_epi32(_mm_castps_si128(_mm256_cvtpd_ps(ref)), d);
    __m256d v = _mm256_mul_pd(_mm256_cvtps_pd(_mm_castsi128_ps(f)),
                              _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_cvtepi32_epi64(ex), 52)));
    __m256i keep = _mm256_castpd_si256(_mm256_cmp_pd(v, _mm256_set1_pd(F32_MIN_NORMAL), _CMP_GE_OQ));
    keep = _mm256_permutevar8x32_epi32(keep, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)); /* 64-bit masks to 32 */
    __m128 o = _mm_and_ps(_mm256_cvtpd_ps(v), _mm_castsi128_ps(_mm256_castsi256_si128(keep)));
    return _mm_or_ps(o, _mm_castsi128_ps(sign));
}

/* x flushed as vkrr_ftz_f32: a zero exponent keeps the sign alone */
AVX2_FN static inline __m256i ftz8(__m256i b)
{
    __m256i zexp = _mm256_cmpeq_epi32(_mm256_and_si256(b, _mm256_set1_epi32(0x7f800000)), _mm256_setzero_si256());
    return _mm256_blendv_epi8(b, _mm256_and_si256(b, _mm256_set1_epi32(INT32_MIN)), zexp);
}

#define LO128(v) _mm256_castsi256_si128(v)
#define HI128(v) _mm256_extracti128_si256(v, 1)

/* x[0..n) (n not a multiple of eight) copied to xs, and xs[n] up to the
 * next multiple of eight (what the loops read past n) set to 0: not the
 * whole array, whose zeroing GCC makes a rep stos.  A multiple of eight
 * lanes (a whole warp: 32) is read and written in place, no copy. */
static inline const float *lanes_in(const float *x, float *xs, unsigned n)
{
    memcpy(xs, x, 4 * (size_t)n);
    for (unsigned k = n; k % 8u; k++)
        xs[k] = 0.0f;
    return xs;
}

/* ex2_portable's lanes, eight at a time: the same operations on the same
 * values, so the same bits; a lane at a code 3 (another delta: the int8
 * table's, or a saturated entry) is left to the caller, whose one-value
 * law reads it.  ref0: T for x >= 0, followed by T for x < 0. */
AVX2_FN static uint32_t ex2_avx2(const uint8_t *const p2[2], const double *ref0, const float *x, float *y,
                                 unsigned n)
{
    float xb[32], yb[32]; /* lanes past n, to the next eight: x = 0, their results dropped */
    const float *xs = n % 8 ? lanes_in(x, xb, n) : x;
    float *ys = n % 8 ? yb : y;
    __m256i other = _mm256_set1_epi64x(((intptr_t)p2[1] - (intptr_t)p2[0]) / 4); /* E-'s words from E+'s */
    uint32_t rest = 0;
    for (unsigned k = 0; k < n; k += 8) {
        __m256 v = _mm256_castsi256_ps(ftz8(_mm256_loadu_si256((const __m256i *)(const void *)(xs + k))));
        __m256i neg = _mm256_castps_si256(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ));
        __m256 in = _mm256_and_ps(_mm256_cmp_ps(v, _mm256_set1_ps(128.0f), _CMP_LT_OQ),
                                  _mm256_cmp_ps(v, _mm256_set1_ps(-127.0f), _CMP_GT_OQ));
        __m256i q = _mm256_cvttps_epi32(_mm256_mul_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v), _mm256_set1_ps(0x1p23f)));
        q = _mm256_and_si256(q, _mm256_castps_si256(in));
        __m256i j = _mm256_and_si256(q, _mm256_set1_epi32(0x7fffff)), pos = pos8(j);
        __m256i code = _mm256_set_m128i(codes4(p2[0], _mm256_and_si256(_mm256_cvtepi32_epi64(HI128(neg)), other), HI128(pos)),
                                        codes4(p2[0], _mm256_and_si256(_mm256_cvtepi32_epi64(LO128(neg)), other), LO128(pos)));
        __m256i d = _mm256_sub_epi32(code, _mm256_set1_epi32(1));
        __m256i ti = _mm256_add_epi32(_mm256_srli_epi32(j, 12), _mm256_and_si256(neg, _mm256_set1_epi32(2048)));
        __m256i lo = _mm256_and_si256(j, _mm256_set1_epi32(4095)), i = _mm256_srli_epi32(q, 23);
        __m256i ex = _mm256_add_epi32(_mm256_sub_epi32(_mm256_xor_si256(i, neg), neg), _mm256_set1_epi32(1023));
        uint32_t near = 0;
        __m128 out[2];
        for (int h = 0; h < 2; h++) {
            __m128i neg4 = h ? HI128(neg) : LO128(neg);
            __m256d m = _mm256_xor_pd(_mm256_set1_pd(VKRR_EX2_LN2_ULP),
                                      _mm256_and_pd(_mm256_castsi256_pd(_mm256_cvtepi32_epi64(neg4)), _mm256_set1_pd(-0.0)));
            __m256d a = _mm256_mul_pd(_mm256_cvtepi32_pd(h ? HI128(lo) : LO128(lo)), m);
            __m256d p = _mm256_add_pd(_mm256_set1_pd(1.0 / 6.0), _mm256_mul_pd(a, _mm256_set1_pd(1.0 / 24.0)));
            p = _mm256_add_pd(_mm256_set1_pd(0.5), _mm256_mul_pd(a, p));
            p = _mm256_add_pd(_mm256_set1_pd(1.0), _mm256_mul_pd(a, p));
            p = _mm256_add_pd(_mm256_set1_pd(1.0), _mm256_mul_pd(a, p));
            __m256d r = _mm256_mul_pd(_mm256_i32gather_pd(ref0, h ? HI128(ti) : LO128(ti), 8), p);
            __m256i low = _mm256_and_si256(_mm256_castpd_si256(r), _mm256_set1_epi64x((INT64_C(1) << VKRR_EX2_DROP) - 1));
            __m256i half = _mm256_set1_epi64x(INT64_C(1) << (VKRR_EX2_DROP - 1));
            __m256i nr = _mm256_and_si256(_mm256_cmpgt_epi64(low, _mm256_sub_epi64(half, _mm256_set1_epi64x(VKRR_EX2_NEAR))),
                                          _mm256_cmpgt_epi64(_mm256_add_epi64(half, _mm256_set1_epi64x(VKRR_EX2_NEAR)), low));
            near |= (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(nr)) << (4 * h);
            out[h] = end4(r, h ? HI128(d) : LO128(d), h ? HI128(ex) : LO128(ex), _mm_setzero_si128());
        }
        _mm256_storeu_ps(ys + k, _mm256_set_m128(out[1], out[0]));
        uint32_t esc = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(code, _mm256_set1_epi32(3))));
        rest |= ((~(uint32_t)_mm256_movemask_ps(in) | esc | near) & 0xffu) << k;
    }
    if (ys != y)
        memcpy(y, ys, 4 * (size_t)n);
    return rest & all_lanes(n);
}

/* rcp_portable's lanes, eight at a time (as ex2_avx2) */
AVX2_FN static uint32_t rcp_avx2(const uint8_t *p2, const float *x, float *y, unsigned n)
{
    float xb[32], yb[32];
    const float *xs = n % 8 ? lanes_in(x, xb, n) : x;
    float *ys = n % 8 ? yb : y;
    uint32_t rest = 0;
    for (unsigned k = 0; k < n; k += 8) {
        __m256i b = ftz8(_mm256_loadu_si256((const __m256i *)(const void *)(xs + k)));
        __m256i ef = _mm256_and_si256(_mm256_srli_epi32(b, 23), _mm256_set1_epi32(0xff));
        __m256i bad = _mm256_or_si256(_mm256_cmpeq_epi32(ef, _mm256_setzero_si256()),
                                      _mm256_cmpeq_epi32(ef, _mm256_set1_epi32(0xff))); /* 0, Inf, NaN */
        __m256i j = _mm256_and_si256(b, _mm256_set1_epi32(0x7fffff)), pos = pos8(j);
        __m256i word = _mm256_i32gather_epi32((const int *)(const void *)p2, _mm256_srli_epi32(pos, 4), 4);
        __m256i code = _mm256_and_si256(_mm256_srlv_epi32(word, _mm256_slli_epi32(_mm256_and_si256(pos, _mm256_set1_epi32(15)), 1)),
                                        _mm256_set1_epi32(3));
        bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(code, _mm256_set1_epi32(3)));
        __m256i d = _mm256_sub_epi32(code, _mm256_set1_epi32(1));
        __m256i ex = _mm256_sub_epi32(_mm256_set1_epi32(1023 + 127), ef);
        __m256i sign = _mm256_and_si256(b, _mm256_set1_epi32(INT32_MIN));
        __m128 out[2];
        for (int h = 0; h < 2; h++) {
            __m256d g = _mm256_mul_pd(_mm256_cvtepi32_pd(h ? HI128(j) : LO128(j)), _mm256_set1_pd(0x1p-23));
            __m256d r = _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_add_pd(_mm256_set1_pd(1.0), g));
            out[h] = end4(r, h ? HI128(d) : LO128(d), h ? HI128(ex) : LO128(ex), h ? HI128(sign) : LO128(sign));
        }
        _mm256_storeu_ps(ys + k, _mm256_set_m128(out[1], out[0]));
        rest |= ((uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(bad)) & 0xffu) << k;
    }
    if (ys != y)
        memcpy(y, ys, 4 * (size_t)n);
    return rest & all_lanes(n);
}

static bool simd_have, simd_on;
static pthread_once_t simd_once = PTHREAD_ONCE_INIT;

static void simd_detect(void)
{
    __builtin_cpu_init();
    simd_have = simd_on = __builtin_cpu_supports("avx2");
}
#endif

bool vkrr_approx_lanes_set_simd(bool on)
{
#ifdef LANES_AVX2
    pthread_once(&simd_once, simd_detect);
    simd_on = on && simd_have;
    return simd_on;
#else
    (void)on;
    return false;
#endif
}

static bool simd(void)
{
#ifdef LANES_AVX2
    pthread_once(&simd_once, simd_detect);
    return simd_on;
#else
    return false;
#endif
}

uint32_t vkrr_approx_ex2_lanes(const int8_t *const tab[2], const uint8_t *const p2[2], const double *const ref[2],
                               const float *x, float *y, unsigned n)
{
    if (!tab[0] || !tab[1] || !p2[0] || !p2[1] || !ref[0] || !ref[1] || n > 32)
        return all_lanes(n);
#ifdef LANES_AVX2
    if (simd() && ref[1] == ref[0] + 2048 && ((uintptr_t)p2[0] | (uintptr_t)p2[1]) % 4 == 0) /* gathered in 4-byte words */
        return ex2_avx2(p2, ref[0], x, y, n);
#endif
    return ex2_portable(tab, p2, ref, x, y, n);
}

uint32_t vkrr_approx_rcp_lanes(const int8_t *tab, const uint8_t *p2, const float *x, float *y, unsigned n)
{
    if (!tab || !p2 || n > 32)
        return all_lanes(n);
#ifdef LANES_AVX2
    if (simd() && (uintptr_t)p2 % 4 == 0)
        return rcp_avx2(p2, x, y, n);
#endif
    return rcp_portable(tab, p2, x, y, n);
}
