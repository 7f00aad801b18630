/* enc0_data.c - see enc0_data.h. */
#include "enc0_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool enc0_bufs_alloc(enc0_bufs *b, uint32_t phases, uint32_t warps)
{
    memset(b, 0, sizeof *b);
    b->phases = phases;
    b->warps = warps;
    b->act_bytes = (size_t)warps * phases * ENC0_ACT_WORDS * 4;
    b->w_bytes = (size_t)phases * ENC0_W_WORDS * 4;
    b->out_bytes = (size_t)warps * phases * ENC0_OUT_WORDS * 4;
    b->act = malloc(b->act_bytes);
    b->w = malloc(b->w_bytes);
    b->out = calloc(1, b->out_bytes);
    if (b->act && b->w && b->out)
        return true;
    enc0_bufs_free(b);
    return false;
}

void enc0_bufs_free(enc0_bufs *b)
{
    free(b->act);
    free(b->w);
    free(b->out);
    memset(b, 0, sizeof *b);
}

static uint32_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 16);
}

/* One e4m3 byte: random sign, exponent field 4..8 (2^-3 .. 2^1), mantissa. */
static uint32_t rnd_e4m3(uint64_t *s)
{
    uint32_t r = next(s);
    return (r & 0x80u) | ((4u + r % 5u) << 3) | ((r >> 8) & 7u);
}

/* e4m3 0, 1, -1 */
static const uint32_t trit_e4m3[3] = {0x00, 0x38, 0xb8};

static uint32_t word_of(uint64_t *s, bool exact, bool b_operand)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t byte = exact ? trit_e4m3[next(s) % 3u] : rnd_e4m3(s);
        if (exact && b_operand && i != 0) /* B: only k = 0 mod 4 */
            byte = 0;
        v |= byte << (8 * i);
    }
    return v;
}

static uint32_t bias_half(uint64_t *s, bool exact)
{
    static const uint32_t small[4] = {0xbc00, 0x0000, 0x3c00, 0x4000}; /* -1 0 1 2 */
    uint32_t r = next(s);
    if (exact)
        return small[r % 4u];
    return (r & 0x8000u) | ((13u + r % 4u) << 10) | ((r >> 4) & 0x3ffu);
}

void enc0_fill(enc0_bufs *b, bool exact)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < b->act_bytes / 4; i++)
        b->act[i] = word_of(&s, exact, false);
    for (uint32_t p = 0; p < b->phases; p++) {
        uint32_t *w = b->w + (size_t)p * ENC0_W_WORDS;
        for (int l = 0; l < 32; l++) {
            w[4 * l + 0] = word_of(&s, exact, true);
            w[4 * l + 1] = word_of(&s, exact, true);
            w[4 * l + 2] = bias_half(&s, exact) | bias_half(&s, exact) << 16;
            w[4 * l + 3] = bias_half(&s, exact) | bias_half(&s, exact) << 16;
        }
        for (int j = 128; j < ENC0_W_WORDS; j++) { /* +-(1/64 .. 1/16) as f32 */
            uint32_t r = next(&s);
            w[j] = exact ? 0 : (r & 0x80000000u) | ((121u + r % 2u) << 23) | (r & 0x7fffffu);
        }
    }
    memset(b->out, 0, b->out_bytes);
}

static double e4m3_value(uint32_t c)
{
    uint32_t e = (c >> 3) & 15u, m = c & 7u;
    double v = e ? ldexp(8.0 + m, (int)e - 10) : ldexp((double)m, -9);
    return c & 0x80u ? -v : v;
}

/* The exact data's values; anything else clears *ok. */
static int int_of_e4m3(uint32_t c, bool *ok)
{
    double v = e4m3_value(c);
    *ok = *ok && (v == 0 || v == 1 || v == -1);
    return (int)v;
}

static int int_of_f16(uint32_t h, bool *ok)
{
    switch (h) {
    case 0x0000: return 0;
    case 0x3c00: return 1;
    case 0x4000: return 2;
    case 0xbc00: return -1;
    default: *ok = false; return 0;
    }
}

/* relu(x 2^-x) as e4m3 (saturating), for an integer x; -1 when not exact. */
static int requant(int x)
{
    if (x <= 0)
        return 0;
    double v = ldexp((double)x, -x);
    for (uint32_t c = 0; c < 0x7f; c++)
        if (e4m3_value(c) == v)
            return (int)c;
    return -1;
}

/* The ISA's m16n8k32 .e4m3 fragments (row A, col B, f16 C/D), lane L:
 * g = L / 4, t = L % 4.  A element e (byte e % 4 of register e / 4): row
 * g + 8 ((e / 4) % 2), column 4 t + e % 4 + 16 (e / 8).  B element e:
 * row 4 t + e % 4 + 16 (e / 4), column g.  C/D element e (half e % 2 of
 * register e / 2): row g + 8 (e / 2), column 2 t + e % 2. */
static bool phase_expect(const uint32_t *act, const uint32_t *w, uint32_t *out, char *why,
                         size_t cap)
{
    int a[16][32], bm[32][8], d[16][8];
    bool ok = true;
    for (int l = 0; l < 32; l++) {
        int g = l / 4, t = l % 4;
        for (int e = 0; e < 16; e++)
            a[g + 8 * ((e / 4) % 2)][4 * t + e % 4 + 16 * (e / 8)] =
                int_of_e4m3(act[4 * l + e / 4] >> (8 * (e % 4)) & 0xffu, &ok);
        for (int e = 0; e < 8; e++)
            bm[4 * t + e % 4 + 16 * (e / 4)][g] =
                int_of_e4m3(w[4 * l + e / 4] >> (8 * (e % 4)) & 0xffu, &ok);
        for (int e = 0; e < 4; e++)
            d[g + 8 * (e / 2)][2 * t + e % 2] =
                int_of_f16(w[4 * l + 2 + e / 2] >> (16 * (e % 2)) & 0xffffu, &ok);
    }
    if (!ok) {
        snprintf(why, cap, "an A, B or C value is not one of the exact data's (0, +-1, 2)");
        return false;
    }
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 8; j++)
            for (int k = 0; k < 32; k++)
                d[i][j] += a[i][k] * bm[k][j];
    uint32_t q[32];
    for (int l = 0; l < 32; l++) {
        int g = l / 4, t = l % 4;
        q[l] = 0;
        for (int e = 0; e < 4; e++) {
            int c = requant(d[g + 8 * (e / 2)][2 * t + e % 2]);
            if (c < 0) {
                snprintf(why, cap, "relu(x 2^-x) of D = %d is no e4m3", d[g + 8 * (e / 2)][2 * t + e % 2]);
                return false;
            }
            q[l] |= (uint32_t)c << (8 * e);
        }
    }
    for (int l = 0; l < 32; l++) {
        out[2 * l] = q[l];
        out[2 * l + 1] = q[l ^ 1];
    }
    return true;
}

bool enc0_expect(const enc0_bufs *b, uint32_t *expect, char *why, size_t cap)
{
    for (uint32_t wp = 0; wp < b->warps; wp++)
        for (uint32_t p = 0; p < b->phases; p++) {
            size_t i = (size_t)wp * b->phases + p;
            for (int j = 128; j < ENC0_W_WORDS; j++)
                if (b->w[(size_t)p * ENC0_W_WORDS + j]) {
                    snprintf(why, cap, "phase %u has a nonzero scale: the data is not exact", p);
                    return false;
                }
            if (!phase_expect(b->act + i * ENC0_ACT_WORDS, b->w + (size_t)p * ENC0_W_WORDS,
                              expect + i * ENC0_OUT_WORDS, why, cap))
                return false;
        }
    return true;
}
