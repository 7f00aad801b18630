/* texfilter.c - the measured bilinear filter (texfilter.h), in doubles:
 * after step 3 a texel has at most 15 significant bits and a weight q + 1
 * (q <= 12), so the sum of four products is exact until the one rounding. */
#include "texfilter.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuformat.h"
#include "hw_model.h"
#include "hw_tables.h"

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

unsigned vkrr_texfilter_bits(void)
{
    vkrr_hw_tables *t = vkrr_hw_model_tables(vkrr_hw_current());
    return t ? vkrr_hw_tables_tex_bits(t) : 8;
}

int vkrr_texfilter_fraction_q(float coord, unsigned q, long *texel)
{
    float b = coord + -0.5f, f = floorf(b);
    *texel = (long)f;
    return (int)floorf((b + -f) * ldexpf(1.0f, (int)q) + 0.5f); /* f32 steps, as CUDA's 9-bit weights */
}

int vkrr_texfilter_fraction(float coord, long *texel)
{
    return vkrr_texfilter_fraction_q(coord, 8, texel);
}

/* p / 2^q rounded to nearest even */
static int rne_div(int p, unsigned q)
{
    int h = 1 << (q - 1), m = (1 << q) - 1, d = p >> q, r = p & m;
    return d + (r > h || (r == h && (d & 1)));
}

void vkrr_texfilter_weights_q(int a, int b, unsigned q, int w[4])
{
    int one = 1 << q;
    w[0] = rne_div((one - a) * (one - b), q);
    w[1] = rne_div(a * (one - b), q);
    w[2] = rne_div((one - a) * b, q);
    w[3] = rne_div(a * b, q);
}

void vkrr_texfilter_weights(int a, int b, int w[4])
{
    vkrr_texfilter_weights_q(a, b, 8, w);
}

/* s rounded to f16, ties away from zero, as f32 (s has at most 26
 * significant bits, so every step here is exact). */
static float round_f16_away(double s)
{
    double a = fabs(s);
    if (a == 0)
        return 0.0f;
    if (a >= 65520.0)                      /* rounds past 65504 */
        return s < 0 ? -INFINITY : INFINITY;
    int e;
    frexp(a, &e);                          /* a in [2^(e-1), 2^e) */
    double ulp = ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 10);
    double q = floor(a / ulp), r = a / ulp - q;
    float v = (float)((q + (r >= 0.5)) * ulp);
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

float vkrr_texfilter_exact_q(const double t[4], const int w[4], unsigned q)
{
    double big = 0;
    for (int k = 0; k < 4; k++)
        if (w[k] && fabs(t[k]) > big)
            big = fabs(t[k]);
    if (big == 0)
        return 0.0f;
    int e;
    frexp(big, &e);                        /* E = e - 1 */
    double g = ldexp(1.0, e - 1 - 14), s = 0;
    for (int k = 0; k < 4; k++)
        if (w[k])
            s += w[k] * (trunc(t[k] / g) * g); /* toward zero to the grid; exact */
    return round_f16_away(ldexp(s, -(int)q));
}

float vkrr_texfilter_exact(const double t[4], const int w[4])
{
    return vkrr_texfilter_exact_q(t, w, 8);
}

float vkrr_texfilter_f16_q(const uint16_t t[4], const int w[4], unsigned q)
{
    float special;
    if (nonfinite(t, w, &special))
        return special;
    double v[4];
    for (int k = 0; k < 4; k++)
        v[k] = vkrr_f16_to_f32(t[k]);
    return vkrr_texfilter_exact_q(v, w, q);
}

float vkrr_texfilter_f16(const uint16_t t[4], const int w[4])
{
    return vkrr_texfilter_f16_q(t, w, 8);
}
