/* test_ptx_tex: textures and surfaces (check_sust_p: formatted stores and loads, sured.p) (tests/ptx/tex_ops.cu): tex.2d on a
 * bilinear HALF x4 texture (against cuda_texture.c, the one implementation
 * the CPU backend uses too) and on a point-sampled UNORM_INT8X4 texture
 * (against texels read here), tld4 on both (the four footprint texels in
 * the documented order, computed here), suld with clamp and zero, sust with
 * trap, clamp and zero, and the faults: a trap-mode write out of range, a
 * handle that is not one of the launch's textures. */
#include "cuda_texture.h"
#include "ptx_testutil.h"

#define TEX_NOUT 20
#define N 35

static float h2f(uint16_t h) { return (float)ptxt_decode(&PTXT_F16, h); }

static long clampi(long v, long n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

/* sured.b.2d (PTX 8.1; ptxas accepts this text): 32 lanes reduce into a 4 x 2
 * u32 surface (add: four lanes a texel) and a 4 x 2 s64 one (signed max),
 * then OR into row 5, clamped to row 1. */
static const char sured_ptx[] =
    ".version 8.1\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry sr(.param .u64 s32surf, .param .u64 s64surf)\n"
    "{\n"
    " .reg .b32 %r<8>;\n"
    " .reg .b64 %rd<8>;\n"
    " ld.param.u64 %rd1, [s32surf];\n"
    " ld.param.u64 %rd2, [s64surf];\n"
    " mov.u32 %r1, %tid.x;\n"
    " and.b32 %r2, %r1, 3;\n"
    " shl.b32 %r3, %r2, 2;\n"
    " shr.u32 %r4, %r1, 2;\n"
    " and.b32 %r4, %r4, 1;\n"
    " sured.b.add.2d.u32.trap [%rd1, {%r3, %r4}], 1;\n"
    " sub.s32 %r5, %r1, 16;\n"
    " shl.b32 %r6, %r2, 3;\n"
    " cvt.s64.s32 %rd3, %r5;\n"
    " sured.b.max.2d.s64.trap [%rd2, {%r6, %r4}], %rd3;\n"
    " sured.b.or.2d.b32.clamp [%rd1, {%r3, 5}], %r1;\n"
    " ret;\n"
    "}\n"
;

static void check_sured(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, sured_ptx, strlen(sured_ptx), "sr.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint32_t u[8];
    static int64_t v[8];
    for (int i = 0; i < 8; i++) {
        u[i] = 100u * (uint32_t)i;
        v[i] = i == 5 ? 1000 : -100;
    }
    vkrr_cusurf surf[2] = {{.data = (unsigned char *)u, .width = 4, .height = 2, .texel_bytes = 4}, {.data = (unsigned char *)v, .width = 4, .height = 2, .texel_bytes = 8}};
    ptxt_args a = {0};
    ptxt_ptr(&a, &surf[0], 0);
    ptxt_ptr(&a, &surf[1], 0);
    if (!CHECK(ptxt_run_ex(m, "sr", &a, 1, 32, 0, NULL, 0, surf, 2, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    unsigned bad = 0;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 4; x++) {
            uint32_t want = 100u * (uint32_t)(y * 4 + x) + 4, ors = 0;
            int64_t mx = y * 4 + x == 5 ? 1000 : -100;
            for (int t = 0; t < 32; t++) {
                if (t % 4 == x && (t / 4) % 2 == y && t - 16 > mx)
                    mx = t - 16;
                if (t % 4 == x)
                    ors |= (uint32_t)t;
            }
            if (y == 1)
                want |= ors;
            bad += u[y * 4 + x] != want || v[y * 4 + x] != mx;
        }
    CHECK_EQ_U64(bad, 0);
    vkrr_ptx_module_free(m);
}

/* sust.p (formatted stores; ptxas accepts this text): f32 values into a
 * UNORM_INT8X4 2D surface at sample x 1, s32 into a SIGNED_INT16 x2 1D one
 * (.v2 saturated; a scalar store leaves channel 1 as it was), f32 into a
 * HALF x4 3D one in zero mode (in range, and z 5 dropped); then a trap-mode
 * store past the edge and one to a surface of unknown format fault.  The
 * expected bytes are worked out by hand: 0.5 -> 127.5 -> 128, 0.25 -> 64,
 * -1 -> 0, 2 -> 255; 40000 -> 32767, -40000 -> -32768; 1.5 -> 0x3e00. */
static const char sust_p_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry sp(.param .u64 u8s, .param .u64 s16s, .param .u64 h4s)\n"
    "{\n"
    " .reg .b32 %r<12>;\n"
    " .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [u8s];\n"
    " ld.param.u64 %rd2, [s16s];\n"
    " ld.param.u64 %rd3, [h4s];\n"
    " mov.b32 %r1, 0f3F000000;\n"
    " mov.b32 %r2, 0f3E800000;\n"
    " mov.b32 %r3, 0fBF800000;\n"
    " mov.b32 %r4, 0f40000000;\n"
    " mov.u32 %r5, 1;\n"
    " mov.u32 %r6, 0;\n"
    " sust.p.2d.v4.b32.trap [%rd1, {%r5, %r6}], {%r1, %r2, %r3, %r4};\n"
    " mov.u32 %r7, 40000;\n"
    " mov.u32 %r8, -5;\n"
    " mov.u32 %r9, 2;\n"
    " sust.p.1d.v2.b32.trap [%rd2, {%r9}], {%r7, %r8};\n"
    " mov.u32 %r10, -40000;\n"
    " sust.p.1d.b32.trap [%rd2, {%r6}], {%r10};\n"
    " mov.b32 %r11, 0f3FC00000;\n"
    " sust.p.3d.b32.zero [%rd3, {%r6, %r6, %r5, %r5}], {%r11};\n"
    " mov.u32 %r9, 5;\n"
    " sust.p.3d.b32.zero [%rd3, {%r6, %r6, %r9, %r9}], {%r1};\n"
    " ret;\n"
    "}\n"
    ".visible .entry spf(.param .u64 u8s)\n"
    "{\n"
    " .reg .b32 %r<4>;\n"
    " .reg .b64 %rd<2>;\n"
    " ld.param.u64 %rd1, [u8s];\n"
    " mov.u32 %r1, 2;\n"
    " mov.u32 %r2, 0;\n"
    " sust.p.2d.b32.trap [%rd1, {%r1, %r2}], {%r2};\n"
    " ret;\n"
    "}\n"
    ".visible .entry srp(.param .u64 s32s, .param .u64 u32x2s)\n"
    "{\n"
    " .reg .b32 %r<4>;\n"
    " .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [s32s];\n"
    " ld.param.u64 %rd2, [u32x2s];\n"
    " mov.u32 %r1, %tid.x;\n"
    " sub.s32 %r2, %r1, 2;\n"
    " mov.u32 %r3, 1;\n"
    " sured.p.min.1d.b32.trap [%rd1, {%r3}], %r2;\n"
    " mov.u32 %r3, 5;\n"
    " mov.u64 %rd3, 4294967297;\n"
    " sured.p.add.2d.b64.clamp [%rd2, {%r3, %r1}], %rd3;\n"
    " ret;\n"
    "}\n"
    ".visible .entry lp(.param .u64 u8s, .param .u64 s16s, .param .u64 out)\n"
    "{\n"
    " .reg .b32 %r<12>;\n"
    " .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [u8s];\n"
    " ld.param.u64 %rd2, [s16s];\n"
    " ld.param.u64 %rd3, [out];\n"
    " mov.u32 %r1, 1;\n"
    " mov.u32 %r2, 0;\n"
    " mov.u32 %r3, 2;\n"
    " suld.p.2d.v4.b32.trap {%r4, %r5, %r6, %r7}, [%rd1, {%r1, %r2}];\n"
    " st.global.v4.u32 [%rd3], {%r4, %r5, %r6, %r7};\n"
    " suld.p.1d.v4.b32.trap {%r8, %r9, %r10, %r11}, [%rd2, {%r3}];\n"
    " st.global.v4.u32 [%rd3+16], {%r8, %r9, %r10, %r11};\n"
    " ret;\n"
    "}\n"
    ".visible .entry srpf(.param .u64 u32x2s)\n"
    "{\n"
    " .reg .b32 %r<2>;\n"
    " .reg .b64 %rd<2>;\n"
    " ld.param.u64 %rd1, [u32x2s];\n"
    " mov.u32 %r1, 0;\n"
    " sured.p.or.1d.b32.trap [%rd1, {%r1}], %r1;\n"
    " ret;\n"
    "}\n";

static void check_sust_p(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, sust_p_ptx, strlen(sust_p_ptx), "sp.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    uint8_t u8[8];
    int16_t s16[6];
    uint16_t h4[8];
    memset(u8, 0x11, sizeof u8);
    for (int i = 0; i < 6; i++)
        s16[i] = 0x2222;
    memset(h4, 0x33, sizeof h4);
    vkrr_cusurf surf[3] = {
        {.data = u8, .width = 2, .height = 1, .texel_bytes = 4, .format = 194, .channels = 4},
        {.data = (unsigned char *)s16, .width = 3, .height = 1, .texel_bytes = 4, .dims = 1, .format = 9,
         .channels = 2},
        {.data = (unsigned char *)h4, .width = 1, .height = 1, .texel_bytes = 8, .dims = 3, .depth = 2,
         .format = 16, .channels = 4},
    };
    ptxt_args a = {0};
    for (int i = 0; i < 3; i++)
        ptxt_ptr(&a, &surf[i], 0);
    if (!CHECK(ptxt_run_ex(m, "sp", &a, 1, 1, 0, NULL, 0, surf, 3, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    const uint8_t u8_want[8] = {0x11, 0x11, 0x11, 0x11, 128, 64, 0, 255};
    const int16_t s16_want[6] = {-32768, 0x2222, 0x2222, 0x2222, 32767, -5};
    const uint16_t h4_want[8] = {0x3333, 0x3333, 0x3333, 0x3333, 0x3e00, 0x3333, 0x3333, 0x3333};
    CHECK(!memcmp(u8, u8_want, sizeof u8));
    CHECK(!memcmp(s16, s16_want, sizeof s16));
    CHECK(!memcmp(h4, h4_want, sizeof h4));
    /* suld.p of what was stored: unorm8 codes / 255 as f32, s16 sign-extended,
     * the two channels the s16 array lacks 0 */
    static uint32_t lo[8];
    ptxt_args la = {0};
    ptxt_ptr(&la, &surf[0], 0);
    ptxt_ptr(&la, &surf[1], 0);
    ptxt_ptr(&la, lo, sizeof lo);
    if (!CHECK(ptxt_run_ex(m, "lp", &la, 1, 1, 0, NULL, 0, surf, 3, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    const float un[4] = {128.0f / 255.0f, 64.0f / 255.0f, 0.0f, 1.0f};
    for (int k = 0; k < 4; k++) {
        float got;
        memcpy(&got, &lo[k], 4);
        CHECK(got == un[k]);
    }
    CHECK(lo[4] == 32767 && lo[5] == (uint32_t)-5 && lo[6] == 0 && lo[7] == 0);
    ptxt_args f = {0};
    ptxt_ptr(&f, &surf[0], 0);
    memset(&err, 0, sizeof err);
    CHECK(ptxt_run_ex(m, "spf", &f, 1, 1, 0, NULL, 0, surf, 3, &err) == VKRR_ERR_FAULT);
    CHECK(strstr(err.msg, "formatted store") != NULL);
    surf[0].format = 0;
    memset(&err, 0, sizeof err);
    CHECK(ptxt_run_ex(m, "sp", &a, 1, 1, 0, NULL, 0, surf, 3, &err) == VKRR_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "CUarray_format 0") != NULL);
    /* sured.p: min of -2..1 into texel 1 of a SIGNED_INT32 1D surface is -2
     * (an unsigned min would be 0); four adds of 2^32+1 at sample x 5, rows
     * clamped, into the last texel of a 2x1 UNSIGNED_INT32 x2 one; a 4-byte
     * reduction on its 8-byte texels faults */
    int32_t s32[3] = {5, 5, 5};
    uint64_t u64[2] = {7, 0xffffffffull};
    vkrr_cusurf rs[2] = {
        {.data = (unsigned char *)s32, .width = 3, .height = 1, .texel_bytes = 4, .dims = 1, .format = 10,
         .channels = 1},
        {.data = (unsigned char *)u64, .width = 2, .height = 1, .texel_bytes = 8, .format = 3, .channels = 2},
    };
    ptxt_args r = {0};
    ptxt_ptr(&r, &rs[0], 0);
    ptxt_ptr(&r, &rs[1], 0);
    memset(&err, 0, sizeof err);
    if (!CHECK(ptxt_run_ex(m, "srp", &r, 1, 4, 0, NULL, 0, rs, 2, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    CHECK(s32[0] == 5 && s32[1] == -2 && s32[2] == 5);
    CHECK(u64[0] == 7 && u64[1] == 0xffffffffull + 4 * 4294967297ull);
    ptxt_args rf = {0};
    ptxt_ptr(&rf, &rs[1], 0);
    memset(&err, 0, sizeof err);
    CHECK(ptxt_run_ex(m, "srpf", &rf, 1, 1, 0, NULL, 0, rs, 2, &err) == VKRR_ERR_FAULT);
    CHECK(strstr(err.msg, "a 4-byte sured.p on a surface of 8-byte texels") != NULL);
    vkrr_ptx_module_free(m);
}

int main(void)
{
    check_sured();
    check_sust_p();
    /* lin: 5 x 4 HALF x4; pt: 5 x 4 UNORM_INT8X4; src/dst: 7 x 5 u32 */
    static uint16_t lin_data[5 * 4 * 4];
    static uint8_t pt_data[5 * 4 * 4];
    static uint32_t src[7 * 5], dst[7 * 5];
    uint64_t s = 5;
    for (int i = 0; i < 80; i++) {
        lin_data[i] = (uint16_t)ptxt_round(&PTXT_F16, (long double)((int)(ptxt_rand(&s) % 200) - 100) / 16, 0, false);
        pt_data[i] = (uint8_t)ptxt_rand(&s);
    }
    for (int i = 0; i < 35; i++)
        src[i] = ptxt_rand(&s);
    vkrr_cutex tex[2] = {
        {.data = (const unsigned char *)lin_data, .width = 5, .height = 4, .channels = 4, .format = 16,
         .texel_bytes = 8, .filter = 1, .address = {1, 1}},
        {.data = pt_data, .width = 5, .height = 4, .channels = 4, .format = 194, .texel_bytes = 4,
         .filter = 0, .address = {1, 1}},
    };
    vkrr_cusurf surf[2] = {{.data = (unsigned char *)src, .width = 7, .height = 5, .texel_bytes = 4}, {.data = (unsigned char *)dst, .width = 7, .height = 5, .texel_bytes = 4}};
    static float xy[2 * N], out[N * TEX_NOUT];
    for (int i = 0; i < N; i++) {
        xy[2 * i] = (float)((int)(ptxt_rand(&s) % 900) - 150) / 100.0f; /* -1.5 .. 7.5 */
        xy[2 * i + 1] = (float)((int)(ptxt_rand(&s) % 700) - 150) / 100.0f;
        if (i < 4) { /* texel centres */
            xy[2 * i] = (float)i + 0.5f;
            xy[2 * i + 1] = 1.5f;
        }
    }
    static const unsigned sms[2] = {80, 89};
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("tex_ops", sms[k]);
        if (!m)
            continue;
        memset(dst, 0xff, sizeof dst);
        memset(out, 0, sizeof out);
        ptxt_args a = {0};
        ptxt_ptr(&a, &tex[0], 0); /* handles: descriptor addresses, not memory the kernel reads */
        ptxt_ptr(&a, &tex[1], 0);
        ptxt_ptr(&a, &surf[0], 0);
        ptxt_ptr(&a, &surf[1], 0);
        ptxt_ptr(&a, xy, sizeof xy);
        ptxt_ptr(&a, out, sizeof out);
        ptxt_u32(&a, N);
        vkrr_error err = {0};
        vkrr_status st = ptxt_run_ex(m, "k_tex", &a, 1, 64, 0, tex, 2, surf, 2, &err);
        if (!CHECK(st == VKRR_OK)) {
            vkrr_error_print(&err, stderr);
            vkrr_ptx_module_free(m);
            continue;
        }
        unsigned bad = 0;
        for (int i = 0; i < N; i++) {
            float x = xy[2 * i], y = xy[2 * i + 1], e[TEX_NOUT];
            vkrr_cutex_sample(&tex[0], x, y, e);
            long pi = clampi((long)floorf(x), 5), pj = clampi((long)floorf(y), 4);
            for (int c = 0; c < 4; c++)
                e[4 + c] = (float)pt_data[(pj * 5 + pi) * 4 + c] / 255.0f;
            long gi = (long)floorf(x - 0.5f), gj = (long)floorf(y - 0.5f);
            const long di[4] = {0, 1, 1, 0}, dj[4] = {1, 1, 0, 0};
            for (int q = 0; q < 4; q++) {
                long ti = clampi(gi + di[q], 5), tj = clampi(gj + dj[q], 4);
                e[8 + q] = h2f(lin_data[(tj * 5 + ti) * 4 + 0]);
                e[12 + q] = (float)pt_data[(tj * 5 + ti) * 4 + 2] / 255.0f;
            }
            long xi = (long)floorf(x), yi = (long)floorf(y);
            e[16] = ptxt_f(src[clampi(yi, 5) * 7 + clampi(xi, 7)]);
            e[17] = ptxt_f((xi >= 0 && xi < 7 && yi >= 0 && yi < 5) ? src[yi * 7 + xi] : 0u);
            e[18] = e[19] = 0;
            if (i < 4) { /* at a texel centre the bilinear result is the texel */
                for (int c = 0; c < 4; c++)
                    CHECK(e[c] == h2f(lin_data[(1 * 5 + i) * 4 + c]));
            }
            for (int j = 0; j < TEX_NOUT; j++)
                if (ptxt_u(out[i * TEX_NOUT + j]) != ptxt_u(e[j]) && bad++ < 10)
                    fprintf(stderr, "sm%u thread %d (%g, %g) out[%d]: %a, want %a\n", sms[k], i, x, y, j,
                            out[i * TEX_NOUT + j], e[j]);
            /* its own dst texel */
            if (i != 28 && dst[(i / 7) * 7 + i % 7] != (ptxt_u(e[16]) ^ 0x5a5a5a5au) && bad++ < 10)
                fprintf(stderr, "dst texel of thread %d: %08x\n", i, dst[(i / 7) * 7 + i % 7]);
        }
        CHECK_EQ_U64(bad, 0);
        CHECK_EQ_U64(dst[4 * 7 + 0], 0x01020304u); /* the clamped write: (-40, 100) -> (0, 4) */
        /* trap mode out of range: a fault naming sust */
        ptxt_args b = {0};
        ptxt_ptr(&b, &surf[1], 0);
        ptxt_u32(&b, 7);
        st = ptxt_run_ex(m, "k_surf_trap", &b, 1, 1, 0, tex, 2, surf, 2, &err);
        CHECK(st == VKRR_ERR_FAULT && strstr(err.msg, "sust.b.2d.b32.trap") && err.line > 0);
        /* a handle that is no texture of the launch */
        ptxt_args c = a;
        uint64_t badh = 0x1234;
        memcpy(c.bytes, &badh, 8);
        st = ptxt_run_ex(m, "k_tex", &c, 1, 64, 0, tex, 2, surf, 2, &err);
        CHECK(st == VKRR_ERR_FAULT && strstr(err.msg, "not a texture object"));
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_tex");
}
