/* test_ptx_texgeo: textures and surfaces on every geometry (tests/ptx/tex_geo.cu)
 * against values computed here from the texel arrays, by the definitions
 * (texel (i, j) of plane k is at ((k*height + j)*width + i); texel values
 * 1000*plane + 10*j + i + 1, all exact in f32):
 *   - point sampling at texel centres and beyond the edges on .1d (border),
 *     .a1d, .a2d (two channels), .3d, .cube (every face, two direction
 *     lengths), .acube; layer indices past the end and 0xffffffff clamp to
 *     the last layer; an integer result (tex.3d.s32) from an int array;
 *     integer coordinates on .1d/.3d/.a2d/.2d; channels an array lacks read 0;
 *   - linear filtering: 1D (fractions in 1/256) and 3D (border on z) with
 *     fractions whose weighted sums are exact;
 *   - tld4.g on .a2d and tld4.r on a cube face: the footprint's texels;
 *     tld4.r on .acube, tld4 .u32 of an integer array, the cube tie rule
 *     (check_gather_more, PTX text here);
 *   - sust/suld on .1d (b32), .3d (v2.b32), .a1d (b8), .a2d (b64), cubemap
 *     faces through .a2d (v4.b32), read back from the arrays; clamp on a layer,
 *     zero on z; sured add on .1d, min and a clamped add on .3d;
 *   - txq depth/array_size/num_mipmap_levels/num_samples/addr_mode_2 and suq
 *     depth/array_size/width; a trap-mode store past z and past the last
 *     layer faults and writes nothing; unimplemented forms are
 *     VKRR_ERR_UNSUPPORTED naming them. */
#include "cuda_texture.h"
#include "ptx_testutil.h"

#define N 24
#define POINT_NOUT 13

typedef struct q_t {
    float x, y, z, cx, cy, cz;
    int32_t layer, ix, iy, iz, pad0, pad1;
} q_t;

/* the arrays: T1 8 (1D), T1L 8 x 3 layers, T2L 5x4 x 3 layers of float2,
 * T3 4x3x5, TC a 4x4 cubemap, TCL two 4x4 cubemaps, T3I T3 as int32 */
static float d1[8], d1l[3 * 8], d2l[3 * 4 * 5 * 2], d3[5 * 3 * 4], dc[6 * 16], dcl[12 * 16];
static int32_t d3i[5 * 3 * 4];

static float val(long k, long j, long i) { return (float)(1000 * k + 10 * j + i + 1); }
static long clampl(long v, long n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }
static long lay(int32_t layer, long n) { return (uint32_t)layer >= (uint32_t)n ? n - 1 : layer; }

static void fill(float *d, long planes, long h, long w, long ch)
{
    for (long k = 0; k < planes; k++)
        for (long j = 0; j < h; j++)
            for (long i = 0; i < w; i++)
                for (long c = 0; c < ch; c++)
                    d[(((k * h + j) * w) + i) * ch + c] = c ? -val(k, j, i) : val(k, j, i);
}

enum { T1, T1L, T2, T2L, T3, TC, TCL, T3I, T1F, T3F, NTEX };

static void make_textures(vkrr_cutex *t)
{
    fill(d1, 1, 1, 8, 1);
    fill(d1l, 3, 1, 8, 1);
    fill(d2l, 3, 4, 5, 2);
    fill(d3, 5, 3, 4, 1);
    fill(dc, 6, 4, 4, 1);
    fill(dcl, 12, 4, 4, 1);
    for (int k = 0; k < 60; k++)
        d3i[k] = -(int32_t)d3[k];
#define FT(d, w, h, ch) .data = (const unsigned char *)(d), .width = (w), .height = (h), .channels = (ch), \
                        .format = 32, .texel_bytes = 4 * (ch), .address = {1, 1, 1}
    t[T1] = (vkrr_cutex){FT(d1, 8, 1, 1), .dims = 1};
    t[T1].address[0] = 3; /* border */
    t[T1L] = (vkrr_cutex){FT(d1l, 8, 1, 1), .dims = 1, .layers = 3};
    t[T2] = (vkrr_cutex){FT(d2l, 5, 4, 2)}; /* plane 0 of T2L as a 2D array */
    t[T2L] = (vkrr_cutex){FT(d2l, 5, 4, 2), .dims = 2, .layers = 3};
    t[T3] = (vkrr_cutex){FT(d3, 4, 3, 1), .dims = 3, .depth = 5};
    t[TC] = (vkrr_cutex){FT(dc, 4, 4, 1), .normalized = true, .layers = 6, .cube = true};
    t[TCL] = (vkrr_cutex){FT(dcl, 4, 4, 1), .normalized = true, .layers = 12, .cube = true};
    t[T3I] = (vkrr_cutex){FT(d3i, 4, 3, 1), .read_as_integer = true, .dims = 3, .depth = 5};
    t[T3I].format = 10; /* SIGNED_INT32 */
    t[T1F] = (vkrr_cutex){FT(d1, 8, 1, 1), .filter = 1, .dims = 1};
    t[T3F] = (vkrr_cutex){FT(d3, 4, 3, 1), .filter = 1, .dims = 3, .depth = 5};
    t[T3F].address[2] = 3; /* border on z */
#undef FT
}

/* A direction that hits texel (a, b) of face f at its centre, |major axis| m:
 * the CUDA Programming Guide's cubemap table read backwards (face: major
 * axis, s, t): 0 +x (-z, -y), 1 -x (z, -y), 2 +y (x, z), 3 -y (x, -z),
 * 4 +z (x, -y), 5 -z (-x, -y); s = m (2 (a + 0.5) / 4 - 1). */
static void cube_dir(int f, int a, int b, float m, float d[3])
{
    float s = m * (float)(2 * a - 3) / 4, t = m * (float)(2 * b - 3) / 4;
    switch (f) {
    case 0: d[0] = m, d[1] = -t, d[2] = -s; break;
    case 1: d[0] = -m, d[1] = -t, d[2] = s; break;
    case 2: d[0] = s, d[1] = m, d[2] = t; break;
    case 3: d[0] = s, d[1] = -m, d[2] = -t; break;
    case 4: d[0] = s, d[1] = -t, d[2] = m; break;
    default: d[0] = -s, d[1] = -t, d[2] = -m; break;
    }
}

static int cube_face_of(int t) { return t % 6; }
static int cube_a(int t) { return t / 6 % 4; }
static int cube_b(int t) { return (t + t / 6) % 4; }

static void make_queries(q_t *q)
{
    for (int t = 0; t < N; t++) {
        q_t *e = &q[t];
        e->x = (float)(t % 9) - 0.5f; /* -0.5 .. 7.5: texel centres, past the left edge */
        e->y = (float)(t % 5) + 0.5f; /* .. 4.5: past the bottom of 4 and 3 rows */
        e->z = (float)(t % 6) + 0.5f; /* .. 5.5: past 5 slices */
        e->layer = t == 23 ? -1 : t % 4;
        e->ix = t % 10 - 1;
        e->iy = t % 5 - (t == 7);
        e->iz = t % 6;
        float d[3];
        cube_dir(cube_face_of(t), cube_a(t), cube_b(t), t & 1 ? 2.0f : 1.0f, d);
        e->cx = d[0], e->cy = d[1], e->cz = d[2];
    }
}

static float bitsf(int32_t v)
{
    float f;
    memcpy(&f, &v, 4);
    return f;
}

static unsigned check_point(const q_t *q, const float *out, unsigned sm)
{
    unsigned bad = 0;
    for (int t = 0; t < N; t++) {
        const q_t *e = &q[t];
        long i = (long)floorf(e->x), j = (long)floorf(e->y), k = (long)floorf(e->z);
        float w[POINT_NOUT];
        w[0] = i >= 0 && i < 8 ? val(0, 0, i) : 0.0f;
        w[1] = val(lay(e->layer, 3), 0, clampl(i, 8));
        w[2] = val(lay(e->layer, 3), clampl(j, 4), clampl(i, 5));
        w[3] = -w[2];
        w[4] = val(clampl(k, 5), clampl(j, 3), clampl(i, 4));
        int f = cube_face_of(t), a = cube_a(t), b = cube_b(t);
        w[5] = val(f, b, a);
        w[6] = val(6 * lay(e->layer, 2) + f, b, a);
        w[7] = bitsf(-(int32_t)w[4]);
        w[8] = e->ix >= 0 && e->ix < 8 ? val(0, 0, e->ix) : 0.0f;
        w[9] = val(clampl(e->iz, 5), clampl(e->iy, 3), clampl(e->ix, 4));
        w[10] = -val(lay(e->layer, 3), clampl(e->iy, 4), clampl(e->ix, 5));
        w[11] = val(0, clampl(e->iy, 4), clampl(e->ix, 5));
        w[12] = 0.0f;
        for (int c = 0; c < POINT_NOUT; c++)
            if (ptxt_u(out[t * POINT_NOUT + c]) != ptxt_u(w[c]) && bad++ < 10)
                fprintf(stderr, "sm%u k_point thread %d out[%d]: %a, want %a\n", sm, t, c,
                        out[t * POINT_NOUT + c], w[c]);
    }
    return bad;
}

/* linear queries: 1D x with fractions in 1/256; 3D (cx, cy, cz) in 1/4, 1/2, 1/8 */
static void make_linear(q_t *q)
{
    memset(q, 0, sizeof *q * N);
    for (int t = 0; t < N; t++) {
        q[t].x = (float)(t % 12) * 0.75f - 0.25f + (float)t / 256.0f;
        q[t].cx = (float)(t % 7) * 0.75f - 0.25f;
        q[t].cy = 0.5f + (float)(t % 6) * 0.5f;
        q[t].cz = 0.5f + (float)(t % 8) * 0.625f;
    }
}

static double t3f_at(long i, long j, long k)
{
    return k < 0 || k >= 5 ? 0.0 : val(k, clampl(j, 3), clampl(i, 4)); /* clamp x, y; border z */
}

static unsigned check_linear(const q_t *q, const float *out, unsigned sm)
{
    unsigned bad = 0;
    for (int t = 0; t < N; t++) {
        double xb = q[t].x - 0.5, i0 = floor(xb), a = xb - i0;
        double w1 = (1 - a) * val(0, 0, clampl((long)i0, 8)) + a * val(0, 0, clampl((long)i0 + 1, 8));
        double u[3] = {q[t].cx - 0.5, q[t].cy - 0.5, q[t].cz - 0.5}, fl[3], fr[3], w3 = 0;
        for (int d = 0; d < 3; d++)
            fl[d] = floor(u[d]), fr[d] = u[d] - fl[d];
        for (int c = 0; c < 8; c++) {
            int di = c & 1, dj = c >> 1 & 1, dk = c >> 2;
            double wt = (di ? fr[0] : 1 - fr[0]) * (dj ? fr[1] : 1 - fr[1]) * (dk ? fr[2] : 1 - fr[2]);
            w3 += wt * t3f_at((long)fl[0] + di, (long)fl[1] + dj, (long)fl[2] + dk);
        }
        if ((double)out[2 * t] != w1 && bad++ < 10)
            fprintf(stderr, "sm%u 1D linear x %a: %a, want %a\n", sm, q[t].x, out[2 * t], w1);
        if ((double)out[2 * t + 1] != w3 && bad++ < 10)
            fprintf(stderr, "sm%u 3D linear (%g, %g, %g): %a, want %a\n", sm, q[t].cx, q[t].cy, q[t].cz,
                    out[2 * t + 1], w3);
    }
    return bad;
}

static unsigned check_gather(const q_t *q, const float *out, unsigned sm)
{
    unsigned bad = 0;
    const long di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0}; /* counter-clockwise from lower left */
    for (int t = 0; t < N; t++) {
        long i0 = (long)floorf(q[t].x - 0.5f), j0 = (long)floorf(q[t].y - 0.5f), k = lay(q[t].layer, 3);
        int f = cube_face_of(t), a = cube_a(t), b = cube_b(t);
        for (int c = 0; c < 4; c++) {
            float w = -val(k, clampl(j0 + dj[c], 4), clampl(i0 + di[c], 5));
            float wc = val(f, clampl(b + dj[c], 4), clampl(a + di[c], 4));
            if ((out[t * 8 + c] != w || out[t * 8 + 4 + c] != wc) && bad++ < 10)
                fprintf(stderr, "sm%u tld4 thread %d [%d]: a2d %g (want %g), cube %g (want %g)\n", sm, t, c,
                        out[t * 8 + c], w, out[t * 8 + 4 + c], wc);
        }
    }
    return bad;
}

/* surfaces: S1 8 u32 (1D), S3 4x3x2 uint2, S1L 6 x 3 layers of u8, S2L 3x2 x 4
 * layers of u64, SC a 2x2 cubemap of uint4 */
static uint32_t s1[8], s3[24 * 2], s1r[8], sc[24 * 4];
static uint8_t s1l[18];
static uint64_t s2l[24];
static int64_t s3r[8];
enum { S1, S3, S1L, S2L, SC, S1R, S3R, NSURF };

static void make_surfaces(vkrr_cusurf *s, int *fault)
{
    s[S1] = (vkrr_cusurf){.data = (unsigned char *)s1, .width = 8, .height = 1, .texel_bytes = 4, .dims = 1};
    s[S3] = (vkrr_cusurf){.data = (unsigned char *)s3, .width = 4, .height = 3, .texel_bytes = 8, .dims = 3,
                          .depth = 2};
    s[S1L] = (vkrr_cusurf){.data = s1l, .width = 6, .height = 1, .texel_bytes = 1, .dims = 1, .layers = 3};
    s[S2L] = (vkrr_cusurf){.data = (unsigned char *)s2l, .width = 3, .height = 2, .texel_bytes = 8,
                           .dims = 2, .layers = 4};
    s[SC] = (vkrr_cusurf){.data = (unsigned char *)sc, .width = 2, .height = 2, .texel_bytes = 16,
                          .layers = 6, .cube = true};
    s[S1R] = (vkrr_cusurf){.data = (unsigned char *)s1r, .width = 8, .height = 1, .texel_bytes = 4, .dims = 1};
    s[S3R] = (vkrr_cusurf){.data = (unsigned char *)s3r, .width = 2, .height = 2, .texel_bytes = 8, .dims = 3,
                           .depth = 2};
    for (int k = 0; k < NSURF; k++)
        s[k].fault = fault;
}

static unsigned check_surf_write(unsigned sm)
{
    unsigned bad = 0;
    for (uint32_t t = 0; t < N; t++) {
        uint32_t x = t % 4, y = t / 4 % 3, z = t / 12, i3 = (z * 3 + y) * 4 + x;
        uint32_t i2 = (t / 6 * 2 + t / 3 % 2) * 3 + t % 3, ic = ((t / 4) * 2 + t / 2 % 2) * 2 + t % 2;
        bad += t < 8 && s1[t] != 0x100u + t;
        bad += s3[2 * i3] != 0x300u + t || s3[2 * i3 + 1] != 0x3000u + t;
        bad += t < 18 && s1l[(t / 6) * 6 + t % 6] != 0x40u + t;
        bad += s2l[i2] != 0x5000000000ull + t;
        for (uint32_t c = 0; c < 4; c++)
            bad += sc[4 * ic + c] != t + 100 * c;
    }
    if (bad)
        fprintf(stderr, "sm%u k_surf_write: %u texels differ\n", sm, bad);
    return bad;
}

static void fill_surfaces(void)
{
    for (uint32_t k = 0; k < 8; k++)
        s1[k] = 0xa000u + k;
    for (uint32_t k = 0; k < 48; k++)
        s3[k] = 0xb0000u + k;
    for (uint32_t k = 0; k < 18; k++)
        s1l[k] = (uint8_t)(0x80u + k);
    for (uint32_t k = 0; k < 24; k++)
        s2l[k] = 0xc00000000ull + 3ull * k;
    for (uint32_t k = 0; k < 96; k++)
        sc[k] = 0xd0000u + k;
}

static unsigned check_surf_read(const uint32_t *out, unsigned sm)
{
    unsigned bad = 0;
    for (uint32_t t = 0; t < N; t++) {
        const uint32_t *o = out + t * 12;
        uint32_t i3 = ((t / 12) * 3 + t / 4 % 3) * 4 + t % 4;
        uint32_t i2 = (t / 6 * 2 + t / 3 % 2) * 3 + t % 3, ic = ((t / 4) * 2 + t / 2 % 2) * 2 + t % 2;
        uint32_t w[11] = {t < 8 ? s1[t] : 0, s3[2 * i3], s3[2 * i3 + 1], t < 18 ? s1l[t] : 0,
                          (uint32_t)s2l[i2], (uint32_t)(s2l[i2] >> 32), sc[4 * ic], sc[4 * ic + 3],
                          (uint32_t)s2l[(3 * 2 + 1) * 3 + 0], /* layer 100+t clamped to 3, (0, 1) */
                          0,                                   /* z out of range: zero */
                          s1l[2 * 6 + 5]};                     /* layer 0xffffffff-t clamped to 2 */
        for (int c = 0; c < 11; c++)
            if (o[c] != w[c] && bad++ < 10)
                fprintf(stderr, "sm%u k_surf_read thread %u out[%d]: %08x, want %08x\n", sm, t, c, o[c], w[c]);
    }
    return bad;
}

static unsigned check_sured(unsigned sm)
{
    unsigned bad = 0;
    for (uint32_t x = 0; x < 8; x++) {
        uint32_t want = 1000 + x;
        for (uint32_t t = 0; t < N; t++)
            want += t % 8 == x ? t : 0;
        bad += s1r[x] != want;
    }
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 2; x++) {
            int64_t mn = 5, add = 100;
            for (int t = 0; t < N; t++)
                if (t % 2 == x && t / 2 % 2 == y) {
                    mn = t - 12 < mn ? t - 12 : mn;
                    add++;
                }
            bad += s3r[y * 2 + x] != mn || s3r[4 + y * 2 + x] != add;
        }
    if (bad)
        fprintf(stderr, "sm%u k_sured: %u texels differ\n", sm, bad);
    return bad;
}

static vkrr_status run(const vkrr_ptx_module *m, const char *entry, ptxt_args *a, uint32_t block,
                       const vkrr_cutex *tex, const vkrr_cusurf *surf, vkrr_error *err)
{
    vkrr_status st = ptxt_run_ex(m, entry, a, 1, block, 0, tex, NTEX, surf, NSURF, err);
    if (st != VKRR_OK) {
        fprintf(stderr, "%s: ", entry);
        vkrr_error_print(err, stderr);
    }
    return st;
}

static void check_module(vkrr_ptx_module *m, unsigned sm, vkrr_cutex *tex, vkrr_cusurf *surf, int *fault)
{
    static q_t q[N], ql[N];
    static float out[N * POINT_NOUT];
    static uint32_t uout[N * 12];
    vkrr_error err = {0};
    make_queries(q);
    make_linear(ql);
    ptxt_args a = {0};
    for (int k = 0; k < 8; k++)
        ptxt_ptr(&a, &tex[k], 0); /* handles: descriptor addresses */
    ptxt_ptr(&a, q, sizeof q);
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, N);
    if (CHECK(run(m, "k_point", &a, 32, tex, surf, &err) == VKRR_OK))
        CHECK_EQ_U64(check_point(q, out, sm), 0);

    ptxt_args b = {0};
    ptxt_ptr(&b, &tex[T1F], 0);
    ptxt_ptr(&b, &tex[T3F], 0);
    ptxt_ptr(&b, ql, sizeof ql);
    ptxt_ptr(&b, out, sizeof out);
    ptxt_u32(&b, N);
    if (CHECK(run(m, "k_linear", &b, 32, tex, surf, &err) == VKRR_OK))
        CHECK_EQ_U64(check_linear(ql, out, sm), 0);

    ptxt_args g = {0};
    ptxt_ptr(&g, &tex[T2L], 0);
    ptxt_ptr(&g, &tex[TC], 0);
    ptxt_ptr(&g, q, sizeof q);
    ptxt_ptr(&g, out, sizeof out);
    ptxt_u32(&g, N);
    if (CHECK(run(m, "k_gather", &g, 32, tex, surf, &err) == VKRR_OK))
        CHECK_EQ_U64(check_gather(q, out, sm), 0);

    ptxt_args s = {0};
    for (int k = S1; k <= SC; k++)
        ptxt_ptr(&s, &surf[k], 0);
    memset(s1, 0xab, sizeof s1), memset(s3, 0xab, sizeof s3), memset(s1l, 0xab, sizeof s1l);
    memset(s2l, 0xab, sizeof s2l), memset(sc, 0xab, sizeof sc);
    if (CHECK(run(m, "k_surf_write", &s, N, tex, surf, &err) == VKRR_OK))
        CHECK_EQ_U64(check_surf_write(sm), 0);
    fill_surfaces();
    ptxt_ptr(&s, uout, sizeof uout);
    if (CHECK(run(m, "k_surf_read", &s, N, tex, surf, &err) == VKRR_OK))
        CHECK_EQ_U64(check_surf_read(uout, sm), 0);

    for (int k = 0; k < 8; k++)
        s1r[k] = 1000u + (uint32_t)k, s3r[k] = k < 4 ? 5 : 100;
    ptxt_args r = {0};
    ptxt_ptr(&r, &surf[S1R], 0);
    ptxt_ptr(&r, &surf[S3R], 0);
    if (CHECK(run(m, "k_sured", &r, N, tex, surf, &err) == VKRR_OK))
        CHECK_EQ_U64(check_sured(sm), 0);

    ptxt_args qa = {0};
    const int qt[6] = {T1, T1L, T2L, T3F, TC, TCL}, qs[4] = {S1, S3, S1L, S2L};
    for (int k = 0; k < 6; k++)
        ptxt_ptr(&qa, &tex[qt[k]], 0);
    for (int k = 0; k < 4; k++)
        ptxt_ptr(&qa, &surf[qs[k]], 0);
    ptxt_ptr(&qa, uout, sizeof uout);
    static const uint32_t wq[16] = {5, 3, 3, 2, 1, 0, 1, 0, 3, 1, 1, 2, 4, 0, 8, 1};
    if (CHECK(run(m, "k_query", &qa, 1, tex, surf, &err) == VKRR_OK))
        for (int k = 0; k < 16; k++)
            if (!CHECK(uout[k] == wq[k]))
                fprintf(stderr, "sm%u k_query out[%d]: %u, want %u\n", sm, k, uout[k], wq[k]);

    /* trap mode: z past the slices, then a layer past the last; nothing written */
    const struct { const char *entry, *inst; int surf; int32_t c; } traps[3] = {
        {"k_trap3", "sust.b.3d.v2.b32.trap", S3, 2},
        {"k_trap3", "sust.b.3d.v2.b32.trap", S3, -1},
        {"k_trap_layer", "sust.b.a1d.b8.trap", S1L, 3}};
    for (int k = 0; k < 3; k++) {
        fill_surfaces();
        *fault = 0;
        ptxt_args ta = {0};
        ptxt_ptr(&ta, &surf[traps[k].surf], 0);
        ptxt_u32(&ta, (uint32_t)traps[k].c);
        vkrr_status st = ptxt_run_ex(m, traps[k].entry, &ta, 1, 1, 0, tex, NTEX, surf, NSURF, &err);
        if (!CHECK(st == VKRR_ERR_FAULT && strstr(err.msg, traps[k].inst) && strstr(err.msg, "plane")))
            vkrr_error_print(&err, stderr);
        CHECK(s3[0] == 0xb0000u && s3[1] == 0xb0001u && s1l[0] == 0x80u);
    }
}

/* Forms that stay unimplemented decode to VKRR_ERR_UNSUPPORTED naming them. */
static void check_unsupported(void)
{
    static const struct { const char *inst, *says; } cases[] = {
        {"tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f7;", "mipmaps"},
        {"tex.grad.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}], "
         "{%f5, %f6, %f7, %f7}, {%f5, %f6, %f7, %f7};", "mipmaps"},
        {"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], {%r1, %r2};", "offsets"},
        {"tex.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}];", "multi-sample"},
        {"tex.cube.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}];", "types"},
        {"tld4.r.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}];", "tld4 form"},
        {"sured.b.add.a2d.u32.trap [%rd1, {%r1, %r2, %r3, %r3}], %r4;", "sured form"},
        {"txq.channel_order.b32 %r1, [%rd1];", "txq form"},
        {"sust.b.2d.b32.trap [%rd1, %rd1, {%r1, %r2}], %r3;", "a sampler operand on sust"},
    };
    size_t n = sizeof cases / sizeof *cases;
    for (size_t k = 0; k < n; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 ".version 8.1\n.target sm_80\n.address_size 64\n\n"
                 ".visible .entry e(.param .u64 p)\n{\n .reg .b32 %%r<8>;\n .reg .f32 %%f<8>;\n"
                 " .reg .b64 %%rd<4>;\n ld.param.u64 %%rd1, [p];\n %s\n ret;\n}\n", cases[k].inst);
        vkrr_ptx_module *m = NULL;
        vkrr_error err = {0};
        vkrr_status st = vkrr_ptx_module_load(&m, text, strlen(text), "u.ptx", &err);
        if (st == VKRR_OK)
            st = vkrr_ptx_entry_status(m, "e", &err);
        vkrr_status want = k == n - 1 ? VKRR_ERR_PARSE : VKRR_ERR_UNSUPPORTED; /* the last: malformed */
        if (!CHECK(st == want && strstr(err.msg, cases[k].says) && err.line == 11))
            fprintf(stderr, "%s: status %d, %s (line %ld)\n", cases[k].inst, (int)st, err.msg, (long)err.line);
        vkrr_ptx_module_free(m);
    }
}

/* tld4 on a layered cubemap (.acube), tld4 of raw integers (.u32 from an
 * integer array: values past f32's 24 bits come through exactly), and the
 * cubemap tie rule (x over y over z, a documented choice) on a direction
 * with |x| = |y|.  PTX text here (ptxas accepts it); the expected texels
 * are worked out by hand from the Programming Guide's table: +x major at
 * (1, 0, 0) is face 0 at its centre, u = v = 0.5 on 4x4 texels, so the
 * footprint is texels (1..2, 1..2) of layer 6 (cube 1, face 0). */
static const char gather_more_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry gm(.param .u64 tcl, .param .u64 ti, .param .u64 tc, .param .u64 out)\n"
    "{\n"
    " .reg .b32 %r<8>;\n"
    " .reg .f32 %f<12>;\n"
    " .reg .b64 %rd<6>;\n"
    " ld.param.u64 %rd1, [tcl];\n"
    " ld.param.u64 %rd2, [ti];\n"
    " ld.param.u64 %rd3, [tc];\n"
    " ld.param.u64 %rd4, [out];\n"
    " mov.u32 %r1, 1;\n"
    " mov.f32 %f1, 0f3F800000;\n"
    " mov.f32 %f2, 0f00000000;\n"
    " tld4.r.acube.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%r1, %f1, %f2, %f2}];\n"
    " st.global.v4.f32 [%rd4], {%f3, %f4, %f5, %f6};\n"
    " tld4.g.2d.v4.u32.f32 {%r2, %r3, %r4, %r5}, [%rd2, {%f1, %f1}];\n"
    " st.global.v4.u32 [%rd4+16], {%r2, %r3, %r4, %r5};\n"
    " tex.cube.v4.f32.f32 {%f7, %f8, %f9, %f10}, [%rd3, {%f1, %f1, %f2, %f2}];\n"
    " st.global.f32 [%rd4+32], %f7;\n"
    " ret;\n"
    "}\n";

static void check_gather_more(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, gather_more_ptx, strlen(gather_more_ptx), "gm.ptx", &err) ==
               VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static float cl[12 * 16], c6[6 * 16];
    fill(cl, 12, 4, 4, 1);
    fill(c6, 6, 4, 4, 1);
    static uint32_t ti[2 * 3 * 2]; /* 3 x 2 texels of two channels */
    for (uint32_t j = 0; j < 2; j++)
        for (uint32_t i = 0; i < 3; i++) {
            ti[(j * 3 + i) * 2] = 7;
            ti[(j * 3 + i) * 2 + 1] = 0xffffff00u + 10 * j + i;
        }
    vkrr_cutex t[3] = {
        {.data = (const unsigned char *)cl, .width = 4, .height = 4, .channels = 1, .format = 32,
         .texel_bytes = 4, .address = {1, 1, 1}, .normalized = true, .layers = 12, .cube = true},
        {.data = (const unsigned char *)ti, .width = 3, .height = 2, .channels = 2, .format = 3,
         .texel_bytes = 8, .address = {1, 1, 1}, .read_as_integer = true},
        {.data = (const unsigned char *)c6, .width = 4, .height = 4, .channels = 1, .format = 32,
         .texel_bytes = 4, .address = {1, 1, 1}, .normalized = true, .layers = 6, .cube = true},
    };
    static uint32_t out[9];
    ptxt_args a = {0};
    for (int k = 0; k < 3; k++)
        ptxt_ptr(&a, &t[k], 0);
    ptxt_ptr(&a, out, sizeof out);
    if (!CHECK(ptxt_run_ex(m, "gm", &a, 1, 1, 0, t, 3, NULL, 0, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    /* the footprint in PTX's order: (i, j+1), (i+1, j+1), (i+1, j), (i, j) with i = j = 1 */
    const float acube[4] = {val(6, 2, 1), val(6, 2, 2), val(6, 1, 2), val(6, 1, 1)};
    for (int k = 0; k < 4; k++) {
        float f;
        memcpy(&f, &out[k], 4);
        CHECK(f == acube[k]);
    }
    /* (1.0, 1.0) unnormalized: i = j = 0, channel g */
    const uint32_t gi[4] = {0xffffff00u + 10, 0xffffff00u + 11, 0xffffff00u + 1, 0xffffff00u};
    for (int k = 0; k < 4; k++)
        CHECK_EQ_U64(out[4 + k], gi[k]);
    /* (1, 1, 0): |x| = |y|, x wins: face 0, s = -z = 0, t = -y = -1, so texel
     * (2, 0) of face 0 (face 2 would give texel (3, 2): 2024) */
    float tie;
    memcpy(&tie, &out[8], 4);
    CHECK(tie == val(0, 0, 2));
    vkrr_ptx_module_free(m);
}

int main(void)
{
    static vkrr_cutex tex[NTEX];
    static vkrr_cusurf surf[NSURF];
    static int fault;
    make_textures(tex);
    make_surfaces(surf, &fault);
    check_unsupported();
    check_gather_more();
    static const unsigned sms[2] = {80, 89};
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("tex_geo", sms[k]);
        if (!m)
            continue;
        check_module(m, sms[k], tex, surf, &fault);
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_texgeo");
}
