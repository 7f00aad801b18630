/* cuda_texture.c - CUDA texture sampling and surface access (see cuda_texture.h).
 * Built with -ffp-contract=off like the whole tree: every step below is one
 * IEEE-rounded f32 operation, in the order written. */
#include "cuda_texture.h"

#include <math.h>
#include <string.h>

#include "cuformat.h"
#include "texfilter.h"


/* One channel of a texel as a normalized-float read. */
static float texel_channel(const vkrr_cutex *t, const unsigned char *p, unsigned c)
{
    bool integer = t->read_as_integer;
    if (c >= t->channels)
        return 0.0f;
    switch (t->format) {
    case 16: {
        uint16_t h;
        memcpy(&h, p + 2 * c, 2);
        return vkrr_f16_to_f32(h);
    }
    case 32: {
        float v;
        memcpy(&v, p + 4 * c, 4);
        return v;
    }
    case 1: case 192: case 193: case 194:
        return integer ? (float)p[c] : (float)p[c] / 255.0f;
    case 8: case 198: case 199: case 200: {
        float v = (float)(signed char)p[c];
        return integer ? v : fmaxf(v / 127.0f, -1.0f);
    }
    case 2: case 195: case 196: case 197: {
        uint16_t v;
        memcpy(&v, p + 2 * c, 2);
        return integer ? (float)v : (float)v / 65535.0f;
    }
    case 9: case 201: case 202: case 203: {
        int16_t v;
        memcpy(&v, p + 2 * c, 2);
        return integer ? (float)v : fmaxf((float)v / 32767.0f, -1.0f);
    }
    case 3: {
        uint32_t v;
        memcpy(&v, p + 4 * c, 4);
        return (float)v;
    }
    case 10: {
        int32_t v;
        memcpy(&v, p + 4 * c, 4);
        return (float)v;
    }
    default:
        return 0.0f;
    }
}

static uint32_t texel_int(const vkrr_cutex *t, const unsigned char *p, unsigned c)
{
    if (c >= t->channels)
        return 0;
    switch (t->format) {
    case 1: case 192: case 193: case 194:
        return p[c];
    case 8: case 198: case 199: case 200:
        return (uint32_t)(int32_t)(signed char)p[c];
    case 2: case 16: case 195: case 196: case 197: {
        uint16_t v;
        memcpy(&v, p + 2 * c, 2);
        return v;
    }
    case 9: case 201: case 202: case 203: {
        int16_t v;
        memcpy(&v, p + 2 * c, 2);
        return (uint32_t)(int32_t)v;
    }
    case 3: case 10: case 32: {
        uint32_t v;
        memcpy(&v, p + 4 * c, 4);
        return v;
    }
    default:
        return 0;
    }
}

/* Texel index i on an axis of n texels after addressing; -1: border. */
static long tex_address(long i, long n, int mode, bool normalized)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == 3)
        return -1;
    if (normalized && mode == 0)
        return ((i % n) + n) % n;
    if (normalized && mode == 2) {
        long m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    return i < 0 ? 0 : n - 1;
}

/* The texel at (i, j) after addressing, or NULL for the border. */
static const unsigned char *texel_at(const vkrr_cutex *t, long i, long j)
{
    i = tex_address(i, (long)t->width, t->address[0], t->normalized);
    j = tex_address(j, (long)t->height, t->address[1], t->normalized);
    if (i < 0 || j < 0)
        return NULL;
    return t->data + ((size_t)j * t->width + (size_t)i) * t->texel_bytes;
}

static void tex_fetch(const vkrr_cutex *t, long i, long j, float out[4])
{
    const unsigned char *p = texel_at(t, i, j);
    for (unsigned c = 0; c < 4; c++)
        out[c] = p ? texel_channel(t, p, c) : 0.0f;
}

/* A coordinate made safe to floor into a long (NaN -> 0, huge -> +-2^24). */
static float tex_coord(float v)
{
    if (!(v == v))
        return 0.0f;
    return fminf(fmaxf(v, -16777216.0f), 16777216.0f);
}

/* Texel-space coordinates of (x, y). */
static void tex_uv(const vkrr_cutex *t, float x, float y, float *u, float *v)
{
    if (t->normalized) {
        x = x * (float)t->width;
        y = y * (float)t->height;
    }
    *u = tex_coord(x);
    *v = tex_coord(y);
}

void vkrr_cutex_fetch1d_int(const vkrr_cutex *t, int i, uint32_t out[4])
{
    const unsigned char *p = i >= 0 && (unsigned)i < t->linear_count
                                 ? t->data + (size_t)i * t->texel_bytes : NULL;
    for (unsigned c = 0; c < 4; c++)
        out[c] = p ? texel_int(t, p, c) : 0u;
}

void vkrr_cutex_fetch1d(const vkrr_cutex *t, int i, float out[4])
{
    if (i < 0 || (unsigned)i >= t->linear_count) {
        out[0] = out[1] = out[2] = out[3] = 0.0f;
        return;
    }
    const unsigned char *p = t->data + (size_t)i * t->texel_bytes;
    for (unsigned c = 0; c < 4; c++)
        out[c] = texel_channel(t, p, c);
}

/* The measured filter's steps (src/hw/texfilter.h) on the texels as exact
 * values: the model itself for 4-channel f16 arrays, a hypothesis for
 * every other format (vkrr hw measure tries it). */
static void sample_model(const vkrr_cutex *t, float u, float v, float out[4])
{
    long i, j;
    int w[4];
    vkrr_texfilter_weights(vkrr_texfilter_fraction(u, &i), vkrr_texfilter_fraction(v, &j), w);
    float t00[4], t10[4], t01[4], t11[4];
    tex_fetch(t, i, j, t00);
    tex_fetch(t, i + 1, j, t10);
    tex_fetch(t, i, j + 1, t01);
    tex_fetch(t, i + 1, j + 1, t11);
    for (unsigned c = 0; c < 4; c++) {
        if (t->format == 16) { /* f16 texels: non-finite ones handled as texfilter.h says */
            uint16_t h[4] = {vkrr_f32_to_f16_rne(t00[c]), vkrr_f32_to_f16_rne(t10[c]),
                             vkrr_f32_to_f16_rne(t01[c]), vkrr_f32_to_f16_rne(t11[c])};
            out[c] = vkrr_texfilter_f16(h, w);
        } else {
            double x[4] = {t00[c], t10[c], t01[c], t11[c]};
            out[c] = vkrr_texfilter_exact(x, w);
        }
    }
}

/* vkrr's f32 filter: where the texture unit was not measured. */
static void sample_f32(const vkrr_cutex *t, float u, float v, float out[4])
{
    long i, j;
    /* 9-bit fixed point weights, 8 fractional bits */
    float a = (float)vkrr_texfilter_fraction(u, &i) * 0.00390625f;
    float b = (float)vkrr_texfilter_fraction(v, &j) * 0.00390625f;
    float t00[4], t10[4], t01[4], t11[4];
    tex_fetch(t, i, j, t00);
    tex_fetch(t, i + 1, j, t10);
    tex_fetch(t, i, j + 1, t01);
    tex_fetch(t, i + 1, j + 1, t11);
    float w00 = (1.0f - a) * (1.0f - b), w10 = a * (1.0f - b);
    float w01 = (1.0f - a) * b, w11 = a * b;
    for (unsigned c = 0; c < 4; c++)
        out[c] = ((w00 * t00[c] + w10 * t10[c]) + w01 * t01[c]) + w11 * t11[c];
}

void vkrr_cutex_filter(const vkrr_cutex *t, float x, float y, vkrr_cutex_filter_how how,
                       float out[4])
{
    float u, v;
    tex_uv(t, x, y, &u, &v);
    if (t->filter == 0) {
        tex_fetch(t, (long)floorf(u), (long)floorf(v), out);
        return;
    }
    vkrr_texcase tc = {t->format, t->channels, t->filter, {t->address[0], t->address[1]},
                       t->normalized, t->linear_count != 0};
    if (how == VKRR_CUTEX_MODEL || (how == VKRR_CUTEX_AUTO && vkrr_texfilter_measured(&tc)))
        sample_model(t, u, v, out);
    else
        sample_f32(t, u, v, out);
}

void vkrr_cutex_sample(const vkrr_cutex *t, float x, float y, float out[4])
{
    vkrr_cutex_filter(t, x, y, VKRR_CUTEX_AUTO, out);
}

void vkrr_cutex_gather(const vkrr_cutex *t, float x, float y, unsigned comp, float out[4])
{
    float u, v;
    tex_uv(t, x, y, &u, &v);
    long i = (long)floorf(u + -0.5f), j = (long)floorf(v + -0.5f);
    const long di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0};
    for (unsigned k = 0; k < 4; k++) {
        const unsigned char *p = texel_at(t, i + di[k], j + dj[k]);
        out[k] = p ? texel_channel(t, p, comp & 3u) : 0.0f;
    }
}

void vkrr_cutex_fetch_int(const vkrr_cutex *t, float x, float y, uint32_t out[4])
{
    float u, v;
    tex_uv(t, x, y, &u, &v);
    const unsigned char *p = texel_at(t, (long)floorf(u), (long)floorf(v));
    for (unsigned c = 0; c < 4; c++)
        out[c] = p ? texel_int(t, p, c) : 0u;
}

/* The texel a surface access at byte x, row y lands on; NULL: no texel
 * (a fault in TRAP mode, nothing in ZERO mode). */
static unsigned char *surf_texel(const vkrr_cusurf *s, unsigned bytes, int x_bytes, int y,
                                 vkrr_cusurf_mode mode, bool *fault)
{
    *fault = false;
    if (bytes != s->texel_bytes || s->texel_bytes == 0 || s->width == 0 || s->height == 0) {
        *fault = true;
        return NULL;
    }
    long xt = x_bytes >= 0 ? (long)(x_bytes / (int)s->texel_bytes) : -1;
    bool misaligned = x_bytes >= 0 && (unsigned)x_bytes % s->texel_bytes != 0;
    bool out = x_bytes < 0 || y < 0 || xt >= (long)s->width || (unsigned)y >= s->height;
    if (misaligned) {
        *fault = true;
        return NULL;
    }
    if (out) {
        if (mode == VKRR_CUSURF_TRAP) {
            *fault = true;
            return NULL;
        }
        if (mode == VKRR_CUSURF_ZERO)
            return NULL;
        xt = xt < 0 ? 0 : (xt >= (long)s->width ? (long)s->width - 1 : xt);
        y = y < 0 ? 0 : ((unsigned)y >= s->height ? (int)s->height - 1 : y);
    }
    return s->data + ((size_t)y * s->width + (size_t)xt) * s->texel_bytes;
}

bool vkrr_cusurf_write(const vkrr_cusurf *s, const void *v, unsigned bytes, int x_bytes, int y,
                       vkrr_cusurf_mode mode)
{
    bool fault;
    unsigned char *p = surf_texel(s, bytes, x_bytes, y, mode, &fault);
    if (p)
        memcpy(p, v, bytes);
    if (fault && s->fault)
        __atomic_store_n(s->fault, 1, __ATOMIC_RELAXED); /* several CPU threads write */
    return !fault;
}

bool vkrr_cusurf_read(const vkrr_cusurf *s, void *v, unsigned bytes, int x_bytes, int y,
                      vkrr_cusurf_mode mode)
{
    bool fault;
    const unsigned char *p = surf_texel(s, bytes, x_bytes, y, mode, &fault);
    if (p)
        memcpy(v, p, bytes);
    else
        memset(v, 0, bytes);
    if (fault && s->fault)
        __atomic_store_n(s->fault, 1, __ATOMIC_RELAXED);
    return !fault;
}

/* The new value of one texel under op (width bytes: 4 or 8). */
static uint64_t reduce_one(int op, bool sgn, unsigned bytes, uint64_t old, uint64_t v)
{
    uint64_t mask = bytes == 4 ? 0xffffffffull : ~0ull;
    int64_t so = bytes == 4 ? (int32_t)(uint32_t)old : (int64_t)old;
    int64_t sv = bytes == 4 ? (int32_t)(uint32_t)v : (int64_t)v;
    switch (op) {
    case VKRR_CUSURF_ADD: return (old + v) & mask;
    case VKRR_CUSURF_MIN: return sgn ? (uint64_t)(so < sv ? so : sv) & mask : (old & mask) < (v & mask) ? old : v;
    case VKRR_CUSURF_MAX: return sgn ? (uint64_t)(so > sv ? so : sv) & mask : (old & mask) > (v & mask) ? old : v;
    case VKRR_CUSURF_AND: return old & v & mask;
    default: return (old | v) & mask;
    }
}

bool vkrr_cusurf_reduce(const vkrr_cusurf *s, int op, bool sgn, uint64_t v, unsigned bytes, int x_bytes,
                        int y, vkrr_cusurf_mode mode)
{
    bool fault = bytes != 4 && bytes != 8;
    unsigned char *p = fault ? NULL : surf_texel(s, bytes, x_bytes, y, mode, &fault);
    /* several CPU threads may reduce into one texel: compare and swap */
    if (p && bytes == 4) {
        uint32_t *q = (uint32_t *)(void *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(q, &old, (uint32_t)reduce_one(op, sgn, 4, old, v), false,
                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
    } else if (p) {
        uint64_t *q = (uint64_t *)(void *)p, old = __atomic_load_n(q, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(q, &old, reduce_one(op, sgn, 8, old, v), false, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED))
            ;
    }
    if (fault && s->fault)
        __atomic_store_n(s->fault, 1, __ATOMIC_RELAXED);
    return !fault;
}
