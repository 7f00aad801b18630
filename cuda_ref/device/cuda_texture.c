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
    unsigned q = t->weight_bits ? t->weight_bits : vkrr_texfilter_bits();
    vkrr_texfilter_weights_q(vkrr_texfilter_fraction_q(u, q, &i), vkrr_texfilter_fraction_q(v, q, &j),
                             q, w);
    float t00[4], t10[4], t01[4], t11[4];
    tex_fetch(t, i, j, t00);
    tex_fetch(t, i + 1, j, t10);
    tex_fetch(t, i, j + 1, t01);
    tex_fetch(t, i + 1, j + 1, t11);
    for (unsigned c = 0; c < 4; c++) {
        if (t->format == 16) { /* f16 texels: non-finite ones handled as texfilter.h says */
            uint16_t h[4] = {vkrr_f32_to_f16_rne(t00[c]), vkrr_f32_to_f16_rne(t10[c]),
                             vkrr_f32_to_f16_rne(t01[c]), vkrr_f32_to_f16_rne(t11[c])};
            out[c] = vkrr_texfilter_f16_q(h, w, q);
        } else {
            double x[4] = {t00[c], t10[c], t01[c], t11[c]};
            out[c] = vkrr_texfilter_exact_q(x, w, q);
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

/* The four texels of tld4's footprint, in the order cuda_texture.h gives. */
static void gather_texels(const vkrr_cutex *t, float x, float y, const unsigned char *p[4])
{
    float u, v;
    tex_uv(t, x, y, &u, &v);
    long i = (long)floorf(u + -0.5f), j = (long)floorf(v + -0.5f);
    const long di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0};
    for (unsigned k = 0; k < 4; k++)
        p[k] = texel_at(t, i + di[k], j + dj[k]);
}

void vkrr_cutex_gather(const vkrr_cutex *t, float x, float y, unsigned comp, float out[4])
{
    const unsigned char *p[4];
    gather_texels(t, x, y, p);
    for (unsigned k = 0; k < 4; k++)
        out[k] = p[k] ? texel_channel(t, p[k], comp & 3u) : 0.0f;
}

void vkrr_cutex_fetch_int(const vkrr_cutex *t, float x, float y, uint32_t out[4])
{
    float u, v;
    tex_uv(t, x, y, &u, &v);
    const unsigned char *p = texel_at(t, (long)floorf(u), (long)floorf(v));
    for (unsigned c = 0; c < 4; c++)
        out[c] = p ? texel_int(t, p, c) : 0u;
}

/* ---- every geometry: planes, layers, cube faces, 3D ----------------------------------- */
unsigned vkrr_cutex_planes(const vkrr_cutex *t)
{
    unsigned n = t->dims == 3 ? t->depth : t->layers;
    return n ? n : 1u;
}

static size_t plane_bytes(const vkrr_cutex *t)
{
    return (size_t)t->width * t->height * t->texel_bytes;
}

/* Plane k of t (clamped to the last: a cube array of fewer than 6 layers) as a 2D texture. */
static vkrr_cutex plane_of(const vkrr_cutex *t, size_t k)
{
    size_t n = vkrr_cutex_planes(t);
    vkrr_cutex p = *t;
    p.data = t->data + (k < n ? k : n - 1) * plane_bytes(t);
    return p;
}

/* An array index of n (>= 1) entries: an unsigned integer clamped to [0, n-1]
 * (the ISA leaves an index out of range undefined; a documented choice). */
static size_t layer_clamp(uint32_t layer, size_t n)
{
    return layer < n ? layer : n - 1;
}

/* The face a cubemap direction selects and the normalized coordinates on it,
 * by the CUDA Programming Guide's cubemap table: the major axis m picks the
 * face, s and t are ((s/m + 1)/2, (t/m + 1)/2) in f32.  Ties between axes of
 * equal magnitude pick x over y over z, and -0 counts as positive (choices:
 * the table compares strictly). */
static size_t cube_face(const float d[3], float *s, float *t)
{
    float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]), m, sc, tc;
    size_t f;
    if (ax >= ay && ax >= az) {
        f = d[0] >= 0.0f ? 0 : 1;
        m = ax, sc = f == 0 ? -d[2] : d[2], tc = -d[1];
    } else if (ay >= az) {
        f = d[1] >= 0.0f ? 2 : 3;
        m = ay, sc = d[0], tc = f == 2 ? d[2] : -d[2];
    } else {
        f = d[2] >= 0.0f ? 4 : 5;
        m = az, sc = f == 4 ? d[0] : -d[0], tc = -d[1];
    }
    *s = (sc / m + 1.0f) * 0.5f;
    *t = (tc / m + 1.0f) * 0.5f;
    return f;
}

/* A lookup on any geometry but 3D as a 2D one: the plane it reads as a 2D
 * texture, and the coordinates on it.  1D: row 0 alone (height 1, clamped),
 * read at y = 0.5, so the 2D filter gives the row below weight 0; a cube
 * face: normalized coordinates, clamped to the face. */
static vkrr_cutex on_plane(const vkrr_cutex *t, const vkrr_cutex_at *at, float *x, float *y)
{
    size_t n = vkrr_cutex_planes(t);
    vkrr_cutex p;
    *x = at->c[0];
    *y = at->c[1];
    switch (at->geom) {
    case VKRR_GEOM_1D:
    case VKRR_GEOM_A1D:
        p = plane_of(t, at->geom == VKRR_GEOM_A1D ? layer_clamp(at->layer, n) : 0);
        if (t->linear_count) /* linear memory: linear_count texels in order */
            p.width = t->linear_count;
        p.height = 1;
        p.address[1] = 1;
        *y = 0.5f;
        return p;
    case VKRR_GEOM_A2D:
        return plane_of(t, layer_clamp(at->layer, n));
    case VKRR_GEOM_CUBE:
    case VKRR_GEOM_ACUBE: {
        size_t cube = at->geom == VKRR_GEOM_ACUBE ? layer_clamp(at->layer, n >= 6 ? n / 6 : 1) : 0;
        p = plane_of(t, 6 * cube + cube_face(at->c, x, y));
        p.normalized = true;
        p.address[0] = p.address[1] = 1;
        return p;
    }
    default:
        return *t;
    }
}

/* 3D: texel-space coordinates, and the texel at (i, j, k) after addressing. */
static void tex_uvw(const vkrr_cutex *t, const float c[3], float u[3])
{
    const float n[3] = {(float)t->width, (float)t->height, (float)vkrr_cutex_planes(t)};
    for (unsigned a = 0; a < 3; a++)
        u[a] = tex_coord(t->normalized ? c[a] * n[a] : c[a]);
}

static const unsigned char *texel_at3(const vkrr_cutex *t, long i, long j, long k)
{
    k = tex_address(k, (long)vkrr_cutex_planes(t), t->address[2], t->normalized);
    const unsigned char *p = k < 0 ? NULL : texel_at(t, i, j);
    return p ? p + (size_t)k * plane_bytes(t) : NULL;
}

/* 3D linear: the 2D filter's 9-bit weights on each axis, w = (wx wy) wz, the
 * sum in f32 over the eight texels with x fastest, then y, then z (a
 * documented choice, not measured on a GPU). */
static void sample3(const vkrr_cutex *t, const float c[3], float out[4])
{
    float u[3], s[4] = {0};
    tex_uvw(t, c, u);
    long i, j, k;
    float a = (float)vkrr_texfilter_fraction(u[0], &i) * 0.00390625f;
    float b = (float)vkrr_texfilter_fraction(u[1], &j) * 0.00390625f;
    float g = (float)vkrr_texfilter_fraction(u[2], &k) * 0.00390625f;
    const float wx[2] = {1.0f - a, a}, wy[2] = {1.0f - b, b}, wz[2] = {1.0f - g, g};
    for (unsigned n = 0; n < 8; n++) {
        unsigned di = n & 1u, dj = n >> 1 & 1u, dk = n >> 2;
        float w = (wx[di] * wy[dj]) * wz[dk];
        const unsigned char *p = texel_at3(t, i + di, j + dj, k + dk);
        for (unsigned ch = 0; ch < 4; ch++) {
            float v = w * (p ? texel_channel(t, p, ch) : 0.0f);
            s[ch] = n ? s[ch] + v : v;
        }
    }
    memcpy(out, s, sizeof s);
}

/* The texel a point-sampled or integer-coordinate lookup reads; NULL: the border. */
static const unsigned char *point_texel(const vkrr_cutex *t, const vkrr_cutex_at *at)
{
    if (at->geom == VKRR_GEOM_3D) {
        float u[3];
        tex_uvw(t, at->c, u);
        return at->icoords ? texel_at3(t, at->ic[0], at->ic[1], at->ic[2])
                           : texel_at3(t, (long)floorf(u[0]), (long)floorf(u[1]), (long)floorf(u[2]));
    }
    float x, y, u, v;
    vkrr_cutex p = on_plane(t, at, &x, &y);
    bool row = at->geom == VKRR_GEOM_1D || at->geom == VKRR_GEOM_A1D;
    if (at->icoords)
        return texel_at(&p, at->ic[0], row ? 0 : at->ic[1]);
    tex_uv(&p, x, y, &u, &v);
    return texel_at(&p, (long)floorf(u), (long)floorf(v));
}

void vkrr_cutex_lookup(const vkrr_cutex *t, const vkrr_cutex_at *at, bool as_int, uint32_t out[4])
{
    float f[4];
    bool fetch1d = at->icoords && t->linear_count && at->geom == VKRR_GEOM_1D;
    if (fetch1d && as_int) {
        vkrr_cutex_fetch1d_int(t, at->ic[0], out);
        return;
    }
    if (fetch1d) {
        vkrr_cutex_fetch1d(t, at->ic[0], f);
    } else if (as_int || at->icoords) {
        const unsigned char *p = point_texel(t, at);
        for (unsigned c = 0; c < 4; c++) {
            out[c] = p && as_int ? texel_int(t, p, c) : 0u;
            f[c] = p && !as_int ? texel_channel(t, p, c) : 0.0f;
        }
        if (as_int)
            return;
    } else if (at->geom == VKRR_GEOM_3D && t->filter != 0) {
        sample3(t, at->c, f);
    } else if (at->geom == VKRR_GEOM_3D) {
        const unsigned char *p = point_texel(t, at);
        for (unsigned c = 0; c < 4; c++)
            f[c] = p ? texel_channel(t, p, c) : 0.0f;
    } else {
        float x, y;
        vkrr_cutex p = on_plane(t, at, &x, &y);
        vkrr_cutex_sample(&p, x, y, f);
    }
    memcpy(out, f, sizeof f);
}

void vkrr_cutex_gather_at(const vkrr_cutex *t, const vkrr_cutex_at *at, unsigned comp, bool as_int,
                          uint32_t out[4])
{
    float x, y, f[4];
    vkrr_cutex p = on_plane(t, at, &x, &y);
    const unsigned char *q[4];
    gather_texels(&p, x, y, q);
    for (unsigned k = 0; k < 4; k++) {
        out[k] = q[k] && as_int ? texel_int(&p, q[k], comp & 3u) : 0u;
        f[k] = q[k] && !as_int ? texel_channel(&p, q[k], comp & 3u) : 0.0f;
    }
    if (!as_int)
        memcpy(out, f, sizeof f);
}

unsigned vkrr_cusurf_planes(const vkrr_cusurf *s)
{
    unsigned n = s->dims == 3 ? s->depth : s->layers;
    return n ? n : 1u;
}

/* The texel a surface access at byte x, row y, plane z lands on; NULL: no
 * texel (a fault in TRAP mode, nothing in ZERO mode). */
static unsigned char *surf_texel(const vkrr_cusurf *s, unsigned bytes, int x_bytes, int y, int64_t z,
                                 vkrr_cusurf_mode mode, bool *fault)
{
    *fault = false;
    if (bytes != s->texel_bytes || s->texel_bytes == 0 || s->width == 0 || s->height == 0) {
        *fault = true;
        return NULL;
    }
    int64_t n = vkrr_cusurf_planes(s);
    long xt = x_bytes >= 0 ? (long)(x_bytes / (int)s->texel_bytes) : -1;
    bool misaligned = x_bytes >= 0 && (unsigned)x_bytes % s->texel_bytes != 0;
    bool out = x_bytes < 0 || y < 0 || xt >= (long)s->width || (unsigned)y >= s->height || z < 0 || z >= n;
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
        z = z < 0 ? 0 : z >= n ? n - 1 : z;
    }
    return s->data + (((size_t)z * s->height + (size_t)y) * s->width + (size_t)xt) * s->texel_bytes;
}

bool vkrr_cusurf_write(const vkrr_cusurf *s, const void *v, unsigned bytes, int x_bytes, int y,
                       vkrr_cusurf_mode mode)
{
    return vkrr_cusurf_write_at(s, v, bytes, x_bytes, y, 0, mode);
}

bool vkrr_cusurf_write_at(const vkrr_cusurf *s, const void *v, unsigned bytes, int x_bytes, int y,
                          int64_t plane, vkrr_cusurf_mode mode)
{
    bool fault;
    unsigned char *p = surf_texel(s, bytes, x_bytes, y, plane, mode, &fault);
    if (p)
        memcpy(p, v, bytes);
    if (fault && s->fault)
        __atomic_store_n(s->fault, 1, __ATOMIC_RELAXED); /* several CPU threads write */
    return !fault;
}

bool vkrr_cusurf_read(const vkrr_cusurf *s, void *v, unsigned bytes, int x_bytes, int y,
                      vkrr_cusurf_mode mode)
{
    return vkrr_cusurf_read_at(s, v, bytes, x_bytes, y, 0, mode);
}

bool vkrr_cusurf_read_at(const vkrr_cusurf *s, void *v, unsigned bytes, int x_bytes, int y, int64_t plane,
                         vkrr_cusurf_mode mode)
{
    bool fault;
    const unsigned char *p = surf_texel(s, bytes, x_bytes, y, plane, mode, &fault);
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
    return vkrr_cusurf_reduce_at(s, op, sgn, v, bytes, x_bytes, y, 0, mode);
}

bool vkrr_cusurf_reduce_at(const vkrr_cusurf *s, int op, bool sgn, uint64_t v, unsigned bytes, int x_bytes,
                           int y, int64_t plane, vkrr_cusurf_mode mode)
{
    bool fault = bytes != 4 && bytes != 8;
    unsigned char *p = fault ? NULL : surf_texel(s, bytes, x_bytes, y, plane, mode, &fault);
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
