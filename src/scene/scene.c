/* scene.c - the procedural scene behind `vkrr synth` (see scene.h).
 *
 * Model: a camera trucking sideways at PAN_X pixels per frame (at depth
 * DEPTH_REF; a point at depth d moves PAN_X * DEPTH_REF / d), looking at a
 * perspective ground plane below a sky gradient, with rectangles, spheres
 * (shown as shaded discs), triangles, 1-px wires and tiny lamps standing at
 * different depths.  One sphere also moves on its own.  Every object is rigid,
 * so "where was this pixel last frame" is its shift difference: the motion
 * vectors are exact for the clean image.
 *
 * Determinism: the layout comes from splitmix64 over the seed and scene name;
 * the noise is a counter-based hash of (seed, frame, pixel, sample), so no
 * state depends on iteration order.  All float math feeding the bytes is
 * + - * / and sqrt (exact IEEE operations; the build has -ffp-contract=off),
 * float -> int conversions are range-checked truncations.
 */
#include "scene.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuformat.h"

#define PAN_X 1.5f          /* camera pan, pixels per frame at DEPTH_REF */
#define DEPTH_REF 4.0f
#define DEPTH_SKY 10000.0f
#define SPP 4               /* samples per pixel of the noisy estimate */
#define MAX_OBJECTS 48
#define MAX_PIXELS (1ull << 28)

typedef enum { OBJ_RECT, OBJ_SPHERE, OBJ_TRI, OBJ_WIRE, OBJ_LAMP } obj_kind;
typedef enum { PAT_SOLID, PAT_CHECKER, PAT_STRIPES, PAT_ZONE } pattern;

typedef struct object {
    obj_kind kind;
    pattern pat;
    float depth;            /* at the reference point; shift comes from it */
    float p[6];             /* rect: x0 y0 x1 y1; sphere/lamp: cx cy r; tri/wire: x0 y0 x1 y1 (x2 y2) */
    float slope[2];         /* rect/tri: depth change per pixel in x and y (tilted planes) */
    float normal[3];        /* flat objects */
    float albedo[3];
    float emit;             /* lamps: radiance */
    float vel[2];           /* own motion, pixels per frame */
} object;

typedef struct scene {
    uint32_t w, h;
    uint64_t seed;
    bool stripes;
    float focal;            /* pixels per world unit at depth 1 */
    float horizon;          /* screen y of the horizon */
    float sun[2];           /* screen position of the sun in the sky at frame 0 */
    float light[3];         /* unit direction towards the light, view space */
    object obj[MAX_OBJECTS];
    unsigned nobj;
} scene;

typedef struct hit {
    float depth;
    float n[3];
    float albedo[3];
    float emit;
    float motion[2];
    bool geometry;
} hit;

static const char *const scene_names[] = {"default", "stripes", NULL};

const char *const *vkrr_scene_names(void)
{
    return scene_names;
}

/* ---- random numbers ---------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t splitmix64(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ull;
    return mix64(*state);
}

/* [0, 1) with 24 bits: exact in float. */
static float unit24(uint64_t h)
{
    return (float)(uint32_t)(h >> 40) * (1.0f / 16777216.0f);
}

static float rnd(uint64_t *st, float lo, float hi)
{
    return lo + (hi - lo) * unit24(splitmix64(st));
}

/* ---- exact float helpers ---------------------------------------------- */

static float floor_f(float x)
{
    if (!(x > -8388608.0f && x < 8388608.0f))
        return x; /* already integral (or NaN) */
    float t = (float)(int32_t)x;
    return t > x ? t - 1.0f : t;
}

static float clampf(float x, float lo, float hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* Triangle wave in [0, 1] with period 1: a stand-in for a cosine. */
static float tri_wave(float x)
{
    float f = x - floor_f(x);
    return f < 0.5f ? 2.0f * f : 2.0f - 2.0f * f;
}

static void normalize3(float v[3])
{
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0.0f) {
        v[0] /= l;
        v[1] /= l;
        v[2] /= l;
    }
}

/* ---- layout ------------------------------------------------------------ */

static void random_colour(uint64_t *st, float c[3])
{
    for (int i = 0; i < 3; i++)
        c[i] = rnd(st, 0.15f, 0.9f);
}

static void tilted_normal(uint64_t *st, object *o)
{
    o->normal[0] = rnd(st, -0.5f, 0.5f);
    o->normal[1] = rnd(st, -0.5f, 0.5f);
    o->normal[2] = 1.0f;
    normalize3(o->normal);
    /* A plane with that normal: depth grows where the surface faces away. */
    o->slope[0] = -o->normal[0] / o->normal[2] * 0.02f;
    o->slope[1] = o->normal[1] / o->normal[2] * 0.02f;
}

static object *add(scene *s, obj_kind k, float depth)
{
    object *o = &s->obj[s->nobj++];
    memset(o, 0, sizeof *o);
    o->kind = k;
    o->depth = depth;
    return o;
}

static uint64_t name_hash(const char *name)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a: stable, no table */
    for (; *name; name++)
        h = (h ^ (uint8_t)*name) * 1099511628211ull;
    return h;
}

static void scene_build(scene *s, const vkrr_scene_desc *d, bool stripes)
{
    memset(s, 0, sizeof *s);
    s->w = d->width;
    s->h = d->height;
    s->seed = d->seed;
    s->stripes = stripes;
    float W = (float)d->width, H = (float)d->height;
    float m = W < H ? W : H;
    s->focal = m;
    uint64_t st = mix64(d->seed ^ name_hash(stripes ? "stripes" : "default"));
    s->horizon = H * rnd(&st, 0.35f, 0.5f);
    s->sun[0] = W * rnd(&st, 0.1f, 0.9f);
    s->sun[1] = s->horizon * rnd(&st, 0.2f, 0.6f);
    s->light[0] = 0.4f;
    s->light[1] = 0.7f;
    s->light[2] = 0.6f;
    normalize3(s->light);

    unsigned nrect = 4, nsph = 3, ntri = 3, nwire = 4, nlamp = 5;
    for (unsigned i = 0; i < nrect; i++) {
        object *o = add(s, OBJ_RECT, rnd(&st, 3.0f, 12.0f));
        float cx = W * rnd(&st, -0.1f, 1.1f), cy = H * rnd(&st, 0.1f, 0.9f);
        float hw = m * rnd(&st, 0.08f, 0.25f), hh = m * rnd(&st, 0.08f, 0.3f);
        o->p[0] = cx - hw, o->p[1] = cy - hh, o->p[2] = cx + hw, o->p[3] = cy + hh;
        tilted_normal(&st, o);
        random_colour(&st, o->albedo);
        o->pat = stripes ? (i & 1 ? PAT_STRIPES : PAT_ZONE) : (i == 0 ? PAT_CHECKER : PAT_SOLID);
    }
    for (unsigned i = 0; i < nsph; i++) {
        object *o = add(s, OBJ_SPHERE, rnd(&st, 2.5f, 10.0f));
        o->p[0] = W * rnd(&st, 0.0f, 1.0f);
        o->p[1] = H * rnd(&st, 0.2f, 0.9f);
        o->p[2] = m * rnd(&st, 0.06f, 0.2f);
        random_colour(&st, o->albedo);
        o->pat = stripes && i == 0 ? PAT_STRIPES : PAT_SOLID;
        if (i == 0) { /* the object that moves on its own */
            o->vel[0] = -1.0f;
            o->vel[1] = 0.75f;
        }
    }
    for (unsigned i = 0; i < ntri; i++) {
        object *o = add(s, OBJ_TRI, rnd(&st, 2.5f, 11.0f));
        float cx = W * rnd(&st, 0.0f, 1.0f), cy = H * rnd(&st, 0.2f, 0.9f);
        float r = m * rnd(&st, 0.1f, 0.3f);
        for (int k = 0; k < 3; k++) {
            o->p[2 * k] = cx + r * rnd(&st, -1.0f, 1.0f);
            o->p[2 * k + 1] = cy + r * rnd(&st, -1.0f, 1.0f);
        }
        tilted_normal(&st, o);
        random_colour(&st, o->albedo);
        o->pat = stripes ? PAT_CHECKER : PAT_SOLID;
    }
    for (unsigned i = 0; i < nwire + (stripes ? 6u : 0u); i++) {
        object *o = add(s, OBJ_WIRE, rnd(&st, 2.0f, 6.0f));
        o->p[0] = W * rnd(&st, -0.2f, 1.2f);
        o->p[1] = H * rnd(&st, 0.0f, 0.8f);
        o->p[2] = W * rnd(&st, -0.2f, 1.2f);
        o->p[3] = H * rnd(&st, 0.0f, 0.8f);
        o->albedo[0] = o->albedo[1] = o->albedo[2] = rnd(&st, 0.05f, 0.3f);
    }
    for (unsigned i = 0; i < nlamp; i++) {
        object *o = add(s, OBJ_LAMP, rnd(&st, 2.0f, 12.0f));
        o->p[0] = W * rnd(&st, 0.0f, 1.0f);
        o->p[1] = H * rnd(&st, 0.1f, 0.9f);
        o->p[2] = rnd(&st, 0.6f, 1.6f);
        o->emit = rnd(&st, 4.0f, 24.0f);
        o->albedo[0] = rnd(&st, 0.7f, 1.0f);
        o->albedo[1] = rnd(&st, 0.6f, 1.0f);
        o->albedo[2] = rnd(&st, 0.4f, 1.0f);
    }
}

/* How far a point at depth d (with own velocity v) has moved on screen by frame f. */
static float shift_x(float d, float vx, float f)
{
    return PAN_X * DEPTH_REF / d * f - vx * f;
}

static float shift_y(float vy, float f)
{
    return -vy * f;
}

/* ---- shading ----------------------------------------------------------- */

static float pattern_value(pattern p, float u, float v)
{
    switch (p) {
    case PAT_CHECKER: {
        float c = floor_f(u * 0.25f) + floor_f(v * 0.25f);
        return c - 2.0f * floor_f(c * 0.5f) > 0.5f ? 0.45f : 1.0f;
    }
    case PAT_STRIPES: /* period 2 px: the highest frequency a frame can hold */
        return floor_f(u) - 2.0f * floor_f(u * 0.5f) > 0.5f ? 0.25f : 1.0f;
    case PAT_ZONE: /* zone plate: frequency rises with radius */
        return 0.2f + 0.8f * tri_wave((u * u + v * v) * 0.02f);
    case PAT_SOLID:
        break;
    }
    return 1.0f;
}

/* Tests one object at screen position (x, y) in frame f; fills h when it is
 * nearer than h->depth. */
static void hit_object(const scene *s, const object *o, float x, float y, float f, hit *h)
{
    float sx = shift_x(o->depth, o->vel[0], f);
    float sy = shift_y(o->vel[1], f);
    float px = x + sx, py = y + sy; /* the point in frame-0 object space */
    float depth, n[3] = {0, 0, 1}, tex = 1.0f;
    switch (o->kind) {
    case OBJ_RECT:
        if (px < o->p[0] || px >= o->p[2] || py < o->p[1] || py >= o->p[3])
            return;
        depth = o->depth + (px - o->p[0]) * o->slope[0] + (py - o->p[1]) * o->slope[1];
        memcpy(n, o->normal, sizeof n);
        tex = pattern_value(o->pat, px - o->p[0], py - o->p[1]);
        break;
    case OBJ_SPHERE:
    case OBJ_LAMP: {
        float dx = (px - o->p[0]) / o->p[2], dy = (py - o->p[1]) / o->p[2];
        float r2 = dx * dx + dy * dy;
        if (r2 > 1.0f)
            return;
        n[0] = dx;
        n[1] = -dy;
        n[2] = sqrtf(1.0f - r2);
        /* Bulge towards the camera; capped so tiny frames (lamps of a
         * pixel or two in a 1x1 frame) keep depth > 0. */
        float bulge = o->p[2] / s->focal;
        depth = o->depth - n[2] * (bulge < 0.25f ? bulge : 0.25f) * o->depth;
        tex = pattern_value(o->pat, px - o->p[0], py - o->p[1]);
        break;
    }
    case OBJ_TRI: {
        const float *q = o->p;
        float e0 = (q[2] - q[0]) * (py - q[1]) - (q[3] - q[1]) * (px - q[0]);
        float e1 = (q[4] - q[2]) * (py - q[3]) - (q[5] - q[3]) * (px - q[2]);
        float e2 = (q[0] - q[4]) * (py - q[5]) - (q[1] - q[5]) * (px - q[4]);
        bool in = (e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0);
        if (!in || (e0 == 0 && e1 == 0 && e2 == 0))
            return;
        depth = o->depth + (px - q[0]) * o->slope[0] + (py - q[1]) * o->slope[1];
        memcpy(n, o->normal, sizeof n);
        tex = pattern_value(o->pat, px - q[0], py - q[1]);
        break;
    }
    case OBJ_WIRE: {
        /* Distance to the segment <= 0.5 px: one pixel wide at any angle. */
        float ax = o->p[2] - o->p[0], ay = o->p[3] - o->p[1];
        float len2 = ax * ax + ay * ay;
        float t = len2 > 0.0f ? ((px - o->p[0]) * ax + (py - o->p[1]) * ay) / len2 : 0.0f;
        t = clampf(t, 0.0f, 1.0f);
        float ex = px - (o->p[0] + t * ax), ey = py - (o->p[1] + t * ay);
        float d2 = ex * ex + ey * ey;
        if (d2 > 0.25f)
            return;
        /* A thin cylinder: the normal leans towards the side the pixel is on. */
        n[0] = 2.0f * ex;
        n[1] = -2.0f * ey;
        float r2 = n[0] * n[0] + n[1] * n[1];
        n[2] = sqrtf(r2 < 1.0f ? 1.0f - r2 : 0.0f);
        depth = o->depth;
        break;
    }
    default:
        return;
    }
    if (!(depth < h->depth))
        return;
    h->depth = depth;
    memcpy(h->n, n, sizeof n);
    for (int c = 0; c < 3; c++)
        h->albedo[c] = o->albedo[c] * tex;
    h->emit = o->emit;
    /* current + motion = previous: the shift grew by one frame's worth. */
    h->motion[0] = shift_x(o->depth, o->vel[0], f) - shift_x(o->depth, o->vel[0], f - 1.0f);
    h->motion[1] = sy - shift_y(o->vel[1], f - 1.0f);
    h->geometry = true;
}

/* Ground below the horizon (depth from the row), sky above it. */
static void hit_background(const scene *s, float x, float y, float f, hit *h)
{
    float H = (float)s->h;
    if (y > s->horizon + 0.5f) {
        float k = 2.0f * (H - s->horizon);
        float depth = k / (y - s->horizon);
        float sx = shift_x(depth, 0.0f, f);
        float wx = (x + sx - 0.5f * (float)s->w) * depth / s->focal; /* world units */
        float tex;
        if (s->stripes)
            tex = pattern_value(PAT_STRIPES, wx * 8.0f, 0.0f);
        else
            tex = pattern_value(PAT_CHECKER, wx * 4.0f, depth * 4.0f);
        h->depth = depth;
        h->n[0] = 0.0f, h->n[1] = 1.0f, h->n[2] = 0.0f;
        h->albedo[0] = 0.55f * tex, h->albedo[1] = 0.5f * tex, h->albedo[2] = 0.4f * tex;
        h->emit = 0.0f;
        h->motion[0] = sx - shift_x(depth, 0.0f, f - 1.0f);
        h->motion[1] = 0.0f;
        h->geometry = true;
        return;
    }
    float t = clampf(y / (s->horizon > 1.0f ? s->horizon : 1.0f), 0.0f, 1.0f);
    float sx = shift_x(DEPTH_SKY, 0.0f, f);
    h->depth = DEPTH_SKY;
    h->n[0] = h->n[1] = h->n[2] = 0.0f;
    /* zenith blue -> pale horizon */
    h->albedo[0] = 0.25f + 0.6f * t;
    h->albedo[1] = 0.45f + 0.45f * t;
    h->albedo[2] = 0.9f + 0.05f * t;
    float dx = x + sx - s->sun[0], dy = y - s->sun[1];
    h->emit = dx * dx + dy * dy <= 2.25f ? 30.0f : 0.0f;
    h->motion[0] = sx - shift_x(DEPTH_SKY, 0.0f, f - 1.0f);
    h->motion[1] = 0.0f;
    h->geometry = false;
}

static void shade(const scene *s, const hit *h, float out[3])
{
    if (!h->geometry) { /* sky: its colour is its radiance */
        for (int c = 0; c < 3; c++)
            out[c] = h->albedo[c] + h->emit;
        return;
    }
    if (h->emit > 0.0f) {
        for (int c = 0; c < 3; c++)
            out[c] = h->albedo[c] * h->emit;
        return;
    }
    float ndl = h->n[0] * s->light[0] + h->n[1] * s->light[1] + h->n[2] * s->light[2];
    if (ndl < 0.0f)
        ndl = 0.0f;
    static const float sun_col[3] = {1.6f, 1.45f, 1.2f}, amb[3] = {0.18f, 0.22f, 0.3f};
    for (int c = 0; c < 3; c++)
        out[c] = h->albedo[c] * (amb[c] + sun_col[c] * ndl);
}

/* Monte-Carlo-like estimate of clean: the mean of SPP samples, each the clean
 * value times a Pareto(alpha 2, mean 1) weight or zero, so the error is
 * unbiased but heavy-tailed; plus rare outright fireflies (paths that hit a
 * light). */
static void noisy_pixel(const scene *s, uint32_t frame, uint32_t x, uint32_t y,
                        const float clean[3], float out[3])
{
    uint64_t base = mix64(s->seed ^ mix64(((uint64_t)frame << 32) ^ 0x5eedull)) ^
                    (((uint64_t)y << 32) | x);
    float acc[3] = {0, 0, 0};
    for (unsigned k = 0; k < SPP; k++) {
        uint64_t h = mix64(base + 0x9e3779b97f4a7c15ull * (k + 1));
        float u = 1.0f - unit24(h); /* (0, 1] */
        if (u < 1.0f / 1048576.0f)
            u = 1.0f / 1048576.0f;
        /* Half the paths find no light at all (weight 0, doubled on the
         * others): sparse, speckled noise like a path tracer's at low spp. */
        float wgt = (h & 1u) ? 1.0f / sqrtf(u) : 0.0f;
        uint64_t hc = mix64(h);
        for (int c = 0; c < 3; c++) {
            float uc = (float)(uint32_t)((hc >> (16 * c)) & 0xffffu) * (1.0f / 65536.0f);
            acc[c] += clean[c] * wgt * (0.75f + 0.5f * uc);
        }
    }
    uint64_t hf = mix64(base ^ 0xf1ef1eull);
    float firefly = (hf & 1023u) == 0 ? 16.0f + 48.0f * unit24(hf) : 0.0f;
    for (int c = 0; c < 3; c++)
        out[c] = acc[c] / (float)SPP + firefly;
}

static uint8_t to_unorm8(float v)
{
    return (uint8_t)(clampf(v, 0.0f, 1.0f) * 255.0f + 0.5f);
}

static int8_t to_snorm8(float v)
{
    float t = clampf(v, -1.0f, 1.0f) * 127.0f;
    return (int8_t)(int32_t)(t < 0.0f ? t - 0.5f : t + 0.5f);
}

void vkrr_scene_frame_free(vkrr_scene_frame *f)
{
    if (!f)
        return;
    free(f->noisy);
    free(f->depth);
    free(f->motion);
    free(f->albedo);
    free(f->normal);
    free(f->mask);
    free(f->clean);
    memset(f, 0, sizeof *f);
}

vkrr_status vkrr_scene_render(const vkrr_scene_desc *desc, uint32_t frame,
                              vkrr_scene_frame *out, vkrr_error *err)
{
    scene *s = NULL;
    vkrr_status st = VKRR_OK;
    if (!desc || !out)
        return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "scene: no description or output");
    memset(out, 0, sizeof *out);
    if (desc->width == 0 || desc->height == 0 ||
        (uint64_t)desc->width * desc->height > MAX_PIXELS)
        return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1,
                         "scene size %ux%u: each side must be >= 1 and the frame at most %llu pixels",
                         desc->width, desc->height, (unsigned long long)MAX_PIXELS);
    bool stripes = false;
    if (desc->name && strcmp(desc->name, "default")) {
        if (strcmp(desc->name, "stripes"))
            return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1,
                             "unknown scene '%s' (scenes: default, stripes)", desc->name);
        stripes = true;
    }
    s = malloc(sizeof *s);
    if (!s)
        goto nomem;
    scene_build(s, desc, stripes);

    size_t n = (size_t)desc->width * desc->height;
    out->width = desc->width;
    out->height = desc->height;
    out->noisy = malloc(n * 4 * sizeof *out->noisy);
    out->depth = malloc(n * sizeof *out->depth);
    out->motion = malloc(n * 2 * sizeof *out->motion);
    out->albedo = malloc(n * 4);
    out->normal = malloc(n * 4);
    out->mask = malloc(n);
    out->clean = malloc(n * 4 * sizeof *out->clean);
    if (!out->noisy || !out->depth || !out->motion || !out->albedo || !out->normal ||
        !out->mask || !out->clean)
        goto nomem;

    float f = (float)frame;
    for (uint32_t y = 0; y < desc->height; y++) {
        for (uint32_t x = 0; x < desc->width; x++) {
            size_t i = (size_t)y * desc->width + x;
            float fx = (float)x + 0.5f, fy = (float)y + 0.5f;
            hit h;
            hit_background(s, fx, fy, f, &h);
            for (unsigned k = 0; k < s->nobj; k++)
                hit_object(s, &s->obj[k], fx, fy, f, &h);
            float c[3], nz[3];
            shade(s, &h, c);
            noisy_pixel(s, frame, x, y, c, nz);
            for (int ch = 0; ch < 3; ch++) {
                out->clean[4 * i + ch] = c[ch];
                out->noisy[4 * i + ch] = vkrr_f32_to_f16_rne(nz[ch]);
                out->albedo[4 * i + ch] = to_unorm8(h.albedo[ch]);
                out->normal[4 * i + ch] = h.geometry ? to_snorm8(h.n[ch]) : 0;
            }
            out->clean[4 * i + 3] = 1.0f;
            out->noisy[4 * i + 3] = 0x3c00; /* 1.0 */
            out->albedo[4 * i + 3] = 255;
            out->normal[4 * i + 3] = 0;
            out->depth[i] = h.depth;
            out->motion[2 * i] = vkrr_f32_to_f16_rne(h.motion[0]);
            out->motion[2 * i + 1] = vkrr_f32_to_f16_rne(h.motion[1]);
            out->mask[i] = h.geometry ? 255 : 0;
        }
    }
    free(s);
    return VKRR_OK;

nomem:
    st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "scene: out of memory for %ux%u",
                   desc->width, desc->height);
    free(s);
    vkrr_scene_frame_free(out);
    return st;
}
