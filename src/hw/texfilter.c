/* texfilter.c - the measured bilinear filter (texfilter.h), in integers:
 * an f16 texel is an integer number of 2^-24, the weighted sum an integer
 * number of 2^-32, so every step is exact until the one rounding. */
#include "texfilter.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuformat.h"

bool vkrr_texfilter_measured(const vkrr_texcase *c)
{
    return c->filter == 1 && c->format == 16 && c->channels == 4 && !c->normalized &&
           !c->linear_memory && c->address[0] == 1 && c->address[1] == 1;
}

const char *vkrr_texfilter_unmeasured(const vkrr_texcase *c, char *buf, size_t cap)
{
    static const char *const modes[4] = {"wrap", "clamp", "mirror", "border"};
    if (c->filter != 1 || vkrr_texfilter_measured(c) || c->linear_memory)
        return NULL; /* point sampling; linear memory is never filtered */
    const vkrr_cuformat_info *fi = vkrr_cuformat_find(c->format);
    snprintf(buf, cap, "linear filtering of %s x%u (%s/%s%s) is not measured on a GPU: vkrr's f32 filter",
             fi ? fi->name : "?", c->channels, modes[c->address[0] & 3], modes[c->address[1] & 3],
             c->normalized ? ", normalized" : "");
    return buf;
}

int vkrr_texfilter_fraction(float coord, long *texel)
{
    float b = coord + -0.5f, f = floorf(b);
    *texel = (long)f;
    return (int)floorf((b + -f) * 256.0f + 0.5f); /* f32 steps, as CUDA's 9-bit weights */
}

static int rne_div256(int p)
{
    int q = p >> 8, r = p & 255;
    return q + (r > 128 || (r == 128 && (q & 1)));
}

void vkrr_texfilter_weights(int a, int b, int w[4])
{
    w[0] = rne_div256((256 - a) * (256 - b));
    w[1] = rne_div256(a * (256 - b));
    w[2] = rne_div256((256 - a) * b);
    w[3] = rne_div256(a * b);
}

/* An f16 code as an integer number of 2^-24 (finite codes only). */
static int64_t f16_units(uint16_t h)
{
    int64_t e = (h >> 10) & 31, m = h & 0x3ff;
    int64_t v = e ? (m | 0x400) << (e - 1) : m;
    return (h & 0x8000) ? -v : v;
}

static int floor_log2(uint64_t v)
{
    return 63 - __builtin_clzll(v);
}

/* s 2^-32 rounded to f16, ties away from zero, as f32. */
static float round_f16_away(int64_t s)
{
    if (s == 0)
        return 0.0f;
    uint64_t a = (uint64_t)(s < 0 ? -s : s);
    int e = floor_log2(a) - 32;               /* binade of the value */
    float v;
    if (a >= (uint64_t)65520 << 32) {         /* rounds past 65504 */
        v = INFINITY;
    } else {
        int sh = (e < -14 ? -14 : e) + 22;    /* the f16 ulp, in 2^-32 */
        uint64_t q = a >> sh, r = a & ((1ull << sh) - 1);
        q += r >= 1ull << (sh - 1);
        v = ldexpf((float)q, sh - 32);
    }
    return s < 0 ? -v : v;
}

/* Non-finite texels (not measured): NaN beats Inf, opposite Infs make NaN. */
static bool nonfinite(const uint16_t t[4], const int w[4], float *out)
{
    int inf = 0;
    bool any = false;
    for (int k = 0; k < 4; k++) {
        if (!w[k] || (t[k] & 0x7c00) != 0x7c00)
            continue;
        any = true;
        if (t[k] & 0x3ff) {
            inf = 2;
            break;
        }
        int s = (t[k] & 0x8000) ? -1 : 1;
        inf = inf == 0 ? s : inf == s ? s : 2;
    }
    if (any)
        *out = inf == 2 ? NAN : inf * INFINITY;
    return any;
}

float vkrr_texfilter_f16(const uint16_t t[4], const int w[4])
{
    float special;
    if (nonfinite(t, w, &special))
        return special;
    int64_t v[4];
    int e = -1;
    for (int k = 0; k < 4; k++) {
        v[k] = w[k] ? f16_units(t[k]) : 0;
        if (v[k])
            e = e < floor_log2((uint64_t)(v[k] < 0 ? -v[k] : v[k]))
                    ? floor_log2((uint64_t)(v[k] < 0 ? -v[k] : v[k])) : e;
    }
    /* E - 14 in units of 2^-24: the largest texel keeps 15 bits */
    int sh = e - 14;
    int64_t s = 0;
    for (int k = 0; k < 4; k++) {
        int64_t x = v[k];
        if (sh > 0)
            x = x / ((int64_t)1 << sh) * ((int64_t)1 << sh); /* toward zero */
        s += (int64_t)w[k] * x;
    }
    return round_f16_away(s);
}
