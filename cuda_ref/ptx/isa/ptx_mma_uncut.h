/* ptx_mma_uncut.h - ptx_mma_sum.c's tile that cuts no term (tile_uncut),
 * summed in doubles.  Part of ptx_mma_sum.c, which includes it once where
 * its types (fmt, facs, DECODE8, the vectors, sumcfg) and round4 are
 * defined: its functions inline into that file's SIMD clones, so it is a
 * header of that one file, not an interface. */
#ifndef VKRR_PTX_MMA_UNCUT_H
#define VKRR_PTX_MMA_UNCUT_H

/* ---- a tile that cuts no term ------------------------------------------------------ */

/* nrow rows of k factors of format f (row r's at v + r k, k a multiple of
 * 8) as exact doubles, +-m 2^(e - mb), into out[r][0..k): decode's steps
 * eight at a time; the least and the largest exponent of the nonzero ones
 * into *lo and *hi (*lo > *hi: all zero).  False where one is a NaN or an
 * Inf. */
INLINE bool rows_double(const uint32_t *v, unsigned nrow, unsigned k, const fmt *f, double (*out)[32],
                        int32_t *lo, int32_t *hi)
{
    v8 mn = VSPLAT(INT32_MAX), mx = VSPLAT(INT32_MIN), bad = {0};
    for (unsigned r = 0; r < nrow; r++)
        for (unsigned kk = 0; kk < k; kk += 8) {
            v8u x;
            memcpy(&x, v + r * k + kk, 32);
            v8 m, e, s, cls;
            DECODE8(x, f, m, e, s, cls);
            bad |= cls;
            v8 nz = m != 0;
            mn = VMIN(mn, (e & nz) | (VSPLAT(INT32_MAX) & ~nz));
            mx = VMAX(mx, (e & nz) | (VSPLAT(INT32_MIN) & ~nz));
            v8 sc = ((e - (int32_t)f->mb) & nz) + 1023; /* 2^(e - mb)'s field, e - mb >= -149 (an f32 c); a zero's 2^0 */
            for (unsigned h = 0; h < 2; h++) {
                i4 m4, c4, s4v;
                memcpy(&m4, (const int32_t *)&m + 4 * h, 16);
                memcpy(&c4, (const int32_t *)&sc + 4 * h, 16);
                memcpy(&s4v, (const int32_t *)&s + 4 * h, 16);
                d4 val = __builtin_convertvector(m4, d4) * (d4)(__builtin_convertvector(c4, s4) << 52);
                val = (d4)((s4)val ^ (__builtin_convertvector(s4v, s4) << 63)); /* s: 0 or -1 */
                memcpy(out[r] + kk + 4 * h, &val, 32);
            }
        }
    *lo = INT32_MAX;
    *hi = INT32_MIN;
    int32_t any = 0;
    for (unsigned j = 0; j < 8; j++) {
        *lo = mn[j] < *lo ? mn[j] : *lo;
        *hi = mx[j] > *hi ? mx[j] : *hi;
        any |= bad[j];
    }
    return !any;
}

/* Every e4m3 and e5m2 byte decoded (by decode: the formats' one decoding):
 * its exponent e, and whether it is a NaN or an Inf; for rows_bytes. */
static struct {
    int32_t e[256];
    bool bad[256];
} bytes_of[2]; /* e4m3, e5m2 */
static pthread_once_t bytes_once = PTHREAD_ONCE_INIT;

static void bytes_fill(void)
{
    for (unsigned t = 0; t < 2; t++) {
        const fmt *f = &fmts[DOT_E4M3 + t];
        for (uint32_t x0 = 0; x0 < 256; x0 += 32) {
            uint32_t v[32];
            facs o;
            for (uint32_t j = 0; j < 32; j++)
                v[j] = x0 + j;
            decode(v, 32, f, &o);
            for (uint32_t j = 0; j < 32; j++) {
                bytes_of[t].e[x0 + j] = o.e[j];
                bytes_of[t].bad[x0 + j] = o.cls[j] != FINITE;
            }
        }
    }
}

/* Eight finite 8-bit factors of format f (e4m3 or e5m2) as exact doubles,
 * into out: the byte's magnitude bits are an f32's exponent and fraction's
 * top bits, its exponent field rebased (+ 127 - bias), and the f32 widened.
 * A subnormal (field 0) is made normal at field 1, 2^(1 - bias) (1 + m
 * 2^-mb), less 2^(1 - bias): m 2^(1 - bias - mb), exactly; no f32 is
 * subnormal, so no DAZ or FTZ setting changes a value.  The sign last (a
 * -0 stays -0).  Eight lanes of 32 bits, each byte shifted down from its
 * word (__builtin_convertvector of bytes: GCC inserts them one by one). */
INLINE void bytes8_double(const uint8_t *v, const fmt *f, double *out)
{
    typedef float f8 __attribute__((vector_size(32)));
    uint32_t w[2];
    memcpy(w, v, 8);
    v8u x = (v8u){w[0], w[0], w[0], w[0], w[1], w[1], w[1], w[1]} >> (v8u){0, 8, 16, 24, 0, 8, 16, 24};
    x &= 0xffu;
    v8u mag = x & 0x7fu;
    v8u sub = (v8u)((mag >> f->mb) == 0); /* -1 where the exponent field is 0 */
    v8u bits = (mag << (23 - f->mb)) + (uint32_t)((127 - f->bias) << 23) + (sub & (1u << 23));
    f8 val = (f8)bits - (f8)(sub & (uint32_t)((127 + 1 - f->bias) << 23));
    val = (f8)((v8u)val ^ ((x >> 7) << 31));
    d4 d0 = __builtin_convertvector(__builtin_shufflevector(val, val, 0, 1, 2, 3), d4);
    d4 d1 = __builtin_convertvector(__builtin_shufflevector(val, val, 4, 5, 6, 7), d4);
    memcpy(out, &d0, 32);
    memcpy(out + 4, &d1, 32);
}

/* rows_double of 8-bit factors given as bytes: their values by
 * bytes8_double; the least and the largest exponent of the nonzero ones those of
 * the least nonzero and the largest magnitude (a byte's low seven bits: its
 * exponent grows with them), and a NaN or an Inf is among them when the
 * largest magnitude is one (they are e4m3's and e5m2's largest). */
INLINE bool rows_bytes(const uint8_t *v, unsigned nrow, unsigned k, ptx_dot_type t, double (*out)[32],
                       int32_t *lo, int32_t *hi)
{
    typedef uint8_t u8x32 __attribute__((vector_size(32)));
    pthread_once(&bytes_once, bytes_fill);
    const unsigned n = nrow * k;
    u8x32 mnv = (u8x32){0} + 0xff, mxv = {0}; /* mn: 0xff, no nonzero one (0xff & 0x7f is no magnitude) */
    unsigned i = 0;
    for (; i + 32 <= n; i += 32) { /* 32 at a time: selects, no branch */
        u8x32 mag;
        memcpy(&mag, v + i, 32);
        mag &= 0x7f;
        u8x32 nz = mag | (u8x32)(mag == 0), gt = (u8x32)(mag > mxv), lt = (u8x32)(nz < mnv);
        mxv = (mag & gt) | (mxv & ~gt);
        mnv = (nz & lt) | (mnv & ~lt);
    }
    uint8_t mn = 0xff, mx = 0;
    for (unsigned j = 0; j < 32; j++) {
        mx = mxv[j] > mx ? mxv[j] : mx;
        mn = mnv[j] < mn ? mnv[j] : mn;
    }
    for (; i < n; i++) {
        uint8_t mag = v[i] & 0x7fu, nz = mag ? mag : 0xffu;
        mx = mag > mx ? mag : mx;
        mn = nz < mn ? nz : mn;
    }
    const unsigned ti = t == DOT_E5M2;
    if (bytes_of[ti].bad[mx])
        return false;
    for (unsigned r = 0; r < nrow; r++)
        for (unsigned kk = 0; kk < k; kk += 8) /* k: a multiple of 8 (tile_uncut) */
            bytes8_double(v + r * k + kk, &fmts[t], out[r] + kk);
    *lo = mn == 0xffu ? INT32_MAX : bytes_of[ti].e[mn];
    *hi = mn == 0xffu ? INT32_MIN : bytes_of[ti].e[mx];
    return true;
}

/* The tile when no output cuts a term: with X the largest exponent any
 * output aligns to (the largest product exponent the factors allow, or a
 * c's), every nonzero product's lowest bit (ea + eb - mba - mbb) and every
 * nonzero c's (its e - mb) at or above X - F.  Each output's terms are then
 * its exact products and c, and its d the exact sum rounded as out_bits4
 * rounds it; that sum is exact in doubles (every partial sum a multiple of
 * 2^(X - F) under 2^(X + 8): F + 8 < 53 bits), so it is summed there,
 * without the exponents' alignment.  Activations and weights of one scale
 * make such tiles (enc0_bench's held-out kernel: every one).  No NaN or Inf
 * among the inputs; one sum of k (not the split halves); k and n multiples
 * of 8.  False, with nothing written, where the tile is not such a tile. */
INLINE bool tile_uncut(const ptx_dot_tile *t, const sumcfg *g)
{
    const fmt *fa = &fmts[t->ta], *fb = &fmts[t->tb], *fc = t->c16 ? &fmts[DOT_F16] : &fmt_f32;
    if (g->e8m13 || t->k % 8 || t->n % 8)
        return false;
    double ad[32][32], bd[32][32], cd[32][32]; /* rows of a and c, columns of b, as doubles */
    int32_t alo, ahi, blo, bhi, clo, chi;
    if (!(t->a8 ? rows_bytes(t->a8, t->m, t->k, t->ta, ad, &alo, &ahi)
                : rows_double(t->a, t->m, t->k, fa, ad, &alo, &ahi)) ||
        !(t->b8 ? rows_bytes(t->b8, t->n, t->k, t->tb, bd, &blo, &bhi)
                : rows_double(t->b, t->n, t->k, fb, bd, &blo, &bhi)) ||
        !rows_double(t->c, t->m, t->n, fc, cd, &clo, &chi))
        return false;
    bool products = alo <= ahi && blo <= bhi, cs = clo <= chi;
    if (!products && !cs)
        return false; /* all zero: the usual path's +0 */
    int32_t x = products ? ahi + bhi : INT32_MIN / 2;
    x = cs && chi > x ? chi : x;
    int32_t cut = x - g->frac;
    if ((products && alo + blo - (int32_t)(fa->mb + fb->mb) < cut) || (cs && clo - (int32_t)fc->mb < cut))
        return false;
    i4 e0 = {0, 0, 0, 0};
    for (unsigned i = 0; i < t->m; i++)
        for (unsigned j0 = 0; j0 < t->n; j0 += 4) { /* four outputs: four dot products, then across */
            d4 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}; /* in registers: an array here stayed in memory */
            for (unsigned k = 0; k < t->k; k += 4) { /* exact: any order gives the same sums */
                d4 av, b0, b1, b2, b3;
                memcpy(&av, ad[i] + k, 32);
                memcpy(&b0, bd[j0] + k, 32);
                memcpy(&b1, bd[j0 + 1] + k, 32);
                memcpy(&b2, bd[j0 + 2] + k, 32);
                memcpy(&b3, bd[j0 + 3] + k, 32);
                s0 += av * b0;
                s1 += av * b1;
                s2 += av * b2;
                s3 += av * b3;
            }
            /* each vector's lanes summed, four sums a vector (__builtin_shufflevector: GCC 12 and clang) */
            d4 t0 = __builtin_shufflevector(s0, s1, 0, 4, 2, 6) + __builtin_shufflevector(s0, s1, 1, 5, 3, 7);
            d4 t1 = __builtin_shufflevector(s2, s3, 0, 4, 2, 6) + __builtin_shufflevector(s2, s3, 1, 5, 3, 7);
            d4 sum = __builtin_shufflevector(t0, t1, 0, 1, 4, 5) + __builtin_shufflevector(t0, t1, 2, 3, 6, 7), cv;
            memcpy(&cv, cd[i] + j0, 32);
            sum += cv;
            uint32_t bits[4];
            round4(&sum, &e0, g->d16, false, bits);
            memcpy(t->d + i * t->n + j0, bits, sizeof bits);
        }
    return true;
}

#endif
