/* test_cuformat.c - the CUarray_format table and exact conversions, checked
 * exhaustively against references computed a second, independent way. */
#include "cuformat.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Reference f16 value from the fields, by ldexp in double. */
static double ref_f16(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 31)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp(m, -24);
    else
        v = ldexp(1024 + m, e - 25);
    return s ? -v : v;
}

static double ref_e4m3(uint8_t c)
{
    int s = c >> 7, e = (c >> 3) & 15, m = c & 7;
    double v;
    if (e == 15 && m == 7)
        v = NAN;
    else if (e == 0)
        v = ldexp(m, -9);
    else
        v = ldexp(8 + m, e - 10);
    return s ? -v : v;
}

static bool same_double(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

static float fbits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void test_formats(void)
{
    struct {
        unsigned code, cb, fixed;
        vkrr_dtype norm, integer;
        VkFormat vk1n, vk4n, vk4i;
    } rows[] = {
        {1, 1, 0, VKRR_DT_UNORM8, VKRR_DT_U8, VK_FORMAT_R8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UINT},
        {2, 2, 0, VKRR_DT_UNORM16, VKRR_DT_U16, VK_FORMAT_R16_UNORM, VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_R16G16B16A16_UINT},
        {3, 4, 0, VKRR_DT_U32, VKRR_DT_U32, VK_FORMAT_R32_UINT, VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32B32A32_UINT},
        {8, 1, 0, VKRR_DT_SNORM8, VKRR_DT_S8, VK_FORMAT_R8_SNORM, VK_FORMAT_R8G8B8A8_SNORM, VK_FORMAT_R8G8B8A8_SINT},
        {9, 2, 0, VKRR_DT_SNORM16, VKRR_DT_S16, VK_FORMAT_R16_SNORM, VK_FORMAT_R16G16B16A16_SNORM, VK_FORMAT_R16G16B16A16_SINT},
        {10, 4, 0, VKRR_DT_S32, VKRR_DT_S32, VK_FORMAT_R32_SINT, VK_FORMAT_R32G32B32A32_SINT, VK_FORMAT_R32G32B32A32_SINT},
        {16, 2, 0, VKRR_DT_F16, VKRR_DT_F16, VK_FORMAT_R16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R16G16B16A16_SFLOAT},
        {32, 4, 0, VKRR_DT_F32, VKRR_DT_F32, VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT},
        {192, 1, 1, VKRR_DT_UNORM8, VKRR_DT_U8, VK_FORMAT_R8_UNORM, 0, 0},
        {193, 1, 2, VKRR_DT_UNORM8, VKRR_DT_U8, 0, 0, 0},
        {194, 1, 4, VKRR_DT_UNORM8, VKRR_DT_U8, 0, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UINT},
        {195, 2, 1, VKRR_DT_UNORM16, VKRR_DT_U16, VK_FORMAT_R16_UNORM, 0, 0},
        {196, 2, 2, VKRR_DT_UNORM16, VKRR_DT_U16, 0, 0, 0},
        {197, 2, 4, VKRR_DT_UNORM16, VKRR_DT_U16, 0, VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_R16G16B16A16_UINT},
        {198, 1, 1, VKRR_DT_SNORM8, VKRR_DT_S8, VK_FORMAT_R8_SNORM, 0, 0},
        {199, 1, 2, VKRR_DT_SNORM8, VKRR_DT_S8, 0, 0, 0},
        {200, 1, 4, VKRR_DT_SNORM8, VKRR_DT_S8, 0, VK_FORMAT_R8G8B8A8_SNORM, VK_FORMAT_R8G8B8A8_SINT},
        {201, 2, 1, VKRR_DT_SNORM16, VKRR_DT_S16, VK_FORMAT_R16_SNORM, 0, 0},
        {202, 2, 2, VKRR_DT_SNORM16, VKRR_DT_S16, 0, 0, 0},
        {203, 2, 4, VKRR_DT_SNORM16, VKRR_DT_S16, 0, VK_FORMAT_R16G16B16A16_SNORM, VK_FORMAT_R16G16B16A16_SINT},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        unsigned code = rows[i].code;
        const vkrr_cuformat_info *fi = vkrr_cuformat_find(code);
        CHECK(fi != NULL);
        if (!fi)
            continue;
        CHECK_EQ_U64(fi->code, code);
        CHECK(fi->name && fi->name[0]);
        CHECK_EQ_U64(fi->channel_bytes, rows[i].cb);
        CHECK_EQ_U64(fi->fixed_channels, rows[i].fixed);
        CHECK_EQ_U64(vkrr_cuformat_dtype(code, false), rows[i].norm);
        CHECK_EQ_U64(vkrr_cuformat_dtype(code, true), rows[i].integer);
        CHECK_EQ_U64(vkrr_dtype_size(rows[i].norm), rows[i].cb);
        for (unsigned c = 0; c <= 5; c++) {
            bool ok = (c == 1 || c == 2 || c == 4) && (!rows[i].fixed || c == rows[i].fixed);
            vkrr_error err = {0};
            CHECK_EQ_U64(vkrr_cuformat_check(code, c, &err), ok ? VKRR_OK : VKRR_ERR_FORMAT);
            CHECK_EQ_U64(vkrr_cuformat_texel_bytes(code, c), ok ? rows[i].cb * c : 0);
            if (!ok) {
                CHECK(strstr(err.msg, fi->name) != NULL);
                CHECK_EQ_U64(vkrr_cuformat_vk_format(code, c, false), VK_FORMAT_UNDEFINED);
            }
        }
        if (rows[i].vk1n)
            CHECK_EQ_U64(vkrr_cuformat_vk_format(code, 1, false), rows[i].vk1n);
        if (rows[i].vk4n) {
            CHECK_EQ_U64(vkrr_cuformat_vk_format(code, 4, false), rows[i].vk4n);
            CHECK_EQ_U64(vkrr_cuformat_vk_format(code, 4, true), rows[i].vk4i);
        }
    }
    /* spot checks of 2-channel formats */
    CHECK_EQ_U64(vkrr_cuformat_vk_format(193, 2, false), VK_FORMAT_R8G8_UNORM);
    CHECK_EQ_U64(vkrr_cuformat_vk_format(2, 2, true), VK_FORMAT_R16G16_UINT);
    CHECK_EQ_U64(vkrr_cuformat_vk_format(16, 2, true), VK_FORMAT_R16G16_SFLOAT);
    CHECK_EQ_U64(vkrr_cuformat_vk_format(202, 2, false), VK_FORMAT_R16G16_SNORM);
    CHECK_EQ_U64(vkrr_cuformat_texel_bytes(32, 4), 16);
    CHECK_EQ_U64(vkrr_cuformat_texel_bytes(16, 4), 8);

    /* 101010_2: 16 bytes a texel whatever the channel count, packed Vulkan format */
    CHECK_EQ_U64(vkrr_cuformat_texel_bytes(80, 4), 16);
    CHECK_EQ_U64(vkrr_cuformat_texel_bytes(80, 1), 16);
    CHECK_EQ_U64(vkrr_cuformat_texel_bytes(80, 3), 0);
    CHECK_EQ_U64(vkrr_cuformat_vk_format(80, 4, false), VK_FORMAT_A2B10G10R10_UNORM_PACK32);
    CHECK_EQ_U64(vkrr_cuformat_dtype(80, false), VKRR_DT_F32);

    /* rejected codes, with a message saying why */
    struct {
        unsigned code;
        const char *why;
    } bad[] = {{0x91, "block-compressed"}, {0x9d, "block-compressed"}, {0xb0, "YUV"},
               {0x9f, "YUV"},              {0xa8, "YUV"},              {0, "unknown"},
               {4, "unknown"},             {33, "unknown"},            {204, "unknown"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        vkrr_error err = {0};
        CHECK(vkrr_cuformat_find(bad[i].code) == NULL);
        CHECK_EQ_U64(vkrr_cuformat_check(bad[i].code, 4, &err), VKRR_ERR_FORMAT);
        CHECK_EQ_U64(err.status, VKRR_ERR_FORMAT);
        CHECK(strstr(err.msg, bad[i].why) != NULL);
        CHECK_EQ_U64(vkrr_cuformat_texel_bytes(bad[i].code, 4), 0);
        CHECK_EQ_U64(vkrr_cuformat_vk_format(bad[i].code, 4, false), VK_FORMAT_UNDEFINED);
        CHECK_EQ_U64(vkrr_cuformat_dtype(bad[i].code, false), VKRR_DT_BYTES);
    }
}

static void test_dtypes(void)
{
    for (unsigned t = 0; t < VKRR_DT_COUNT; t++) {
        vkrr_dtype back;
        CHECK(vkrr_dtype_parse(vkrr_dtype_name((vkrr_dtype)t), &back));
        CHECK_EQ_U64(back, t);
    }
    vkrr_dtype d;
    CHECK(!vkrr_dtype_parse("f128", &d) && !vkrr_dtype_parse("f6", &d));
    CHECK(vkrr_dtype_parse("i64", &d) && d == VKRR_DT_S64);
    CHECK(!vkrr_dtype_parse(NULL, &d));
    CHECK(vkrr_dtype_is_float(VKRR_DT_E4M3) && vkrr_dtype_is_float(VKRR_DT_BF16));
    CHECK(!vkrr_dtype_is_float(VKRR_DT_UNORM8) && !vkrr_dtype_is_float(VKRR_DT_BYTES));

    /* normalized integers */
    uint8_t b;
    b = 0xff; CHECK(vkrr_dtype_to_double(VKRR_DT_UNORM8, &b) == 1.0);
    b = 0x80; CHECK(vkrr_dtype_to_double(VKRR_DT_UNORM8, &b) == 128 / 255.0);
    b = 0x81; CHECK(vkrr_dtype_to_double(VKRR_DT_SNORM8, &b) == -1.0); /* -127 */
    b = 0x80; CHECK(vkrr_dtype_to_double(VKRR_DT_SNORM8, &b) == -1.0); /* -128 clamps */
    b = 0x7f; CHECK(vkrr_dtype_to_double(VKRR_DT_SNORM8, &b) == 1.0);
    b = 0x40; CHECK(vkrr_dtype_to_double(VKRR_DT_SNORM8, &b) == 64 / 127.0);
    b = 0xfe; CHECK(vkrr_dtype_to_double(VKRR_DT_S8, &b) == -2.0);
    b = 0xfe; CHECK(vkrr_dtype_to_double(VKRR_DT_U8, &b) == 254.0);
    uint8_t w[4] = {0x00, 0x80, 0, 0};
    CHECK(vkrr_dtype_to_double(VKRR_DT_SNORM16, w) == -1.0);
    CHECK(vkrr_dtype_to_double(VKRR_DT_UNORM16, w) == 32768 / 65535.0);
    CHECK(vkrr_dtype_to_double(VKRR_DT_S16, w) == -32768.0);
    w[0] = 0x01; w[1] = 0x80;
    CHECK(vkrr_dtype_to_double(VKRR_DT_SNORM16, w) == -1.0);
    w[0] = 0x00; w[1] = 0x40;
    CHECK(vkrr_dtype_to_double(VKRR_DT_SNORM16, w) == 16384 / 32767.0);
    uint8_t d4[4] = {0xfe, 0xff, 0xff, 0xff};
    CHECK(vkrr_dtype_to_double(VKRR_DT_S32, d4) == -2.0);
    CHECK(vkrr_dtype_to_double(VKRR_DT_U32, d4) == 4294967294.0);
    uint8_t f1[4] = {0x00, 0x00, 0x80, 0x3f}; /* 1.0f little-endian */
    CHECK(vkrr_dtype_to_double(VKRR_DT_F32, f1) == 1.0);
    uint8_t bf[2] = {0xc0, 0x3f}; /* bf16 1.5 */
    CHECK(vkrr_dtype_to_double(VKRR_DT_BF16, bf) == 1.5);
    CHECK(vkrr_bf16_to_f32(0xff80) == -INFINITY);
    CHECK(isnan(vkrr_bf16_to_f32(0x7fc1)));
}

static void test_f16(void)
{
    unsigned bad_value = 0, bad_trip = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        double ref = ref_f16((uint16_t)h);
        float f = vkrr_f16_to_f32((uint16_t)h);
        uint8_t le[2] = {(uint8_t)h, (uint8_t)(h >> 8)};
        if (!same_double(f, ref) || !same_double(vkrr_dtype_to_double(VKRR_DT_F16, le), ref))
            bad_value++;
        bool nan = ((h >> 10) & 31) == 31 && (h & 1023);
        uint16_t back = vkrr_f32_to_f16_rne(f);
        if (nan ? back != 0x7fff : back != h)
            bad_trip++;
    }
    CHECK_EQ_U64(bad_value, 0);
    CHECK_EQ_U64(bad_trip, 0);

    /* Every midpoint between neighbouring positive finite f16 values ties to the
     * even code; one f32 ULP either side goes to the nearer one. The midpoint is
     * exact in f32 (11-bit significands, 12 bits needed). */
    unsigned bad_tie = 0;
    for (uint32_t h = 0; h < 0x7bff; h++) {
        double a = ref_f16((uint16_t)h), b = ref_f16((uint16_t)(h + 1));
        float mid = (float)((a + b) / 2);
        if ((double)mid != (a + b) / 2) {
            bad_tie++;
            continue;
        }
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : (uint16_t)h;
        if (vkrr_f32_to_f16_rne(mid) != even) bad_tie++;
        if (vkrr_f32_to_f16_rne(nextafterf(mid, 0)) != h) bad_tie++;
        if (vkrr_f32_to_f16_rne(nextafterf(mid, INFINITY)) != h + 1) bad_tie++;
        if (vkrr_f32_to_f16_rne(-mid) != (even | 0x8000)) bad_tie++;
    }
    CHECK_EQ_U64(bad_tie, 0);

    /* hand-made midpoints and edges */
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(1.0f + 0x1p-11f), 0x3c00);           /* tie, down to even */
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(1.0f + 3 * 0x1p-11f), 0x3c02);       /* tie, up to even */
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(1.0f + 0x1p-11f + 0x1p-23f), 0x3c01); /* above the tie */
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(0x1p-25f), 0x0000);                   /* tie with zero */
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(nextafterf(0x1p-25f, 1)), 0x0001);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(3 * 0x1p-25f), 0x0002);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(1023.5f * 0x1p-24f), 0x0400);   /* subnormal -> normal */
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(0x1p-149f), 0x0000);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(-0x1p-149f), 0x8000);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(-0.0f), 0x8000);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(65504.0f), 0x7bff);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(nextafterf(65520.0f, 0)), 0x7bff);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(65520.0f), 0x7c00); /* tie to the even "65536" = Inf */
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(-1e30f), 0xfc00);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(INFINITY), 0x7c00);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(-INFINITY), 0xfc00);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(fbits(0x7fc00000u)), 0x7fff);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(fbits(0xff800001u)), 0x7fff);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(0.1f), 0x2e66);
    CHECK_EQ_U64(vkrr_f32_to_f16_rne(-2.0f), 0xc000);
}

static void test_e4m3(void)
{
    unsigned bad_value = 0, bad_trip = 0;
    for (unsigned c = 0; c < 256; c++) {
        double ref = ref_e4m3((uint8_t)c);
        float f = vkrr_e4m3_to_f32((uint8_t)c);
        uint8_t cc = (uint8_t)c;
        if (!same_double(f, ref) || !same_double(vkrr_dtype_to_double(VKRR_DT_E4M3, &cc), ref))
            bad_value++;
        uint8_t back = vkrr_f32_to_e4m3_satfinite(f);
        if ((c & 0x7f) == 0x7f ? back != 0x7f : back != c)
            bad_trip++;
    }
    CHECK_EQ_U64(bad_value, 0);
    CHECK_EQ_U64(bad_trip, 0);

    /* the value table at its landmarks */
    CHECK(vkrr_e4m3_to_f32(0x00) == 0.0f && !signbit(vkrr_e4m3_to_f32(0x00)));
    CHECK(vkrr_e4m3_to_f32(0x80) == 0.0f && signbit(vkrr_e4m3_to_f32(0x80)));
    CHECK(vkrr_e4m3_to_f32(0x01) == 0x1p-9f);  /* smallest subnormal */
    CHECK(vkrr_e4m3_to_f32(0x07) == 7 * 0x1p-9f);
    CHECK(vkrr_e4m3_to_f32(0x08) == 0x1p-6f);  /* smallest normal */
    CHECK(vkrr_e4m3_to_f32(0x38) == 1.0f);     /* bias 7 */
    CHECK(vkrr_e4m3_to_f32(0x3c) == 1.5f);
    CHECK(vkrr_e4m3_to_f32(0x78) == 256.0f);   /* exponent 15 is finite */
    CHECK(vkrr_e4m3_to_f32(0x7e) == 448.0f);
    CHECK(vkrr_e4m3_to_f32(0xfe) == -448.0f);
    CHECK(isnan(vkrr_e4m3_to_f32(0x7f)) && isnan(vkrr_e4m3_to_f32(0xff)));

    /* saturation and NaN */
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(500.0f), 0x7e);
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(-1e6f), 0xfe);
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(INFINITY), 0x7e);
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(-INFINITY), 0xfe);
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(449.0f), 0x7e);
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(NAN), 0x7f);
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(-NAN), 0x7f);
    /* ties to even, normal and subnormal */
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(1.0625f), 0x38);  /* 1 + 1/16: tie -> 1.0 */
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(1.1875f), 0x3a);  /* 1 + 3/16: tie -> 1.25 */
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(0x1p-10f), 0x00); /* half the smallest subnormal */
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(3 * 0x1p-10f), 0x02);
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(15 * 0x1p-10f), 0x08); /* 7.5 units -> normal */
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(-0.0f), 0x80);
    CHECK_EQ_U64(vkrr_f32_to_e4m3_satfinite(1e-30f), 0x00);

    /* every midpoint of neighbouring positive codes ties to even */
    unsigned bad_tie = 0;
    for (unsigned c = 0; c < 0x7e; c++) {
        float mid = (float)((ref_e4m3((uint8_t)c) + ref_e4m3((uint8_t)(c + 1))) / 2);
        unsigned even = (c & 1) ? c + 1 : c;
        if (vkrr_f32_to_e4m3_satfinite(mid) != even) bad_tie++;
        if (vkrr_f32_to_e4m3_satfinite(nextafterf(mid, 0)) != c) bad_tie++;
        if (vkrr_f32_to_e4m3_satfinite(nextafterf(mid, 1000)) != c + 1) bad_tie++;
    }
    CHECK_EQ_U64(bad_tie, 0);
}

/* ULP positions order the values: walking the positions walks the values up. */
static void test_ulp(void)
{
    /* f16: every non-NaN code by position */
    enum { N16 = 2 * 0x7c00 + 1 };
    double *byidx = malloc(N16 * sizeof *byidx);
    int *seen = calloc(N16, sizeof *seen);
    CHECK(byidx && seen);
    if (!byidx || !seen)
        goto done;
    for (uint32_t h = 0; h < 65536; h++) {
        if (((h >> 10) & 31) == 31 && (h & 1023))
            continue;
        uint8_t le[2] = {(uint8_t)h, (uint8_t)(h >> 8)};
        int64_t i = vkrr_dtype_ulp_index(VKRR_DT_F16, le) + 0x7c00;
        if (i < 0 || i >= N16) {
            CHECK(!"f16 ulp index out of range");
            continue;
        }
        byidx[i] = ref_f16((uint16_t)h);
        seen[i]++;
    }
    unsigned bad = 0;
    for (int i = 0; i < N16; i++) {
        if (seen[i] != (i == 0x7c00 ? 2 : 1)) /* both zeros share 0 */
            bad++;
        if (i > 0 && !(byidx[i] > byidx[i - 1]))
            bad++;
    }
    CHECK_EQ_U64(bad, 0);

    /* e4m3: same walk */
    double prev = -INFINITY;
    int64_t previ = -1000;
    bad = 0;
    for (int v = -126; v <= 126; v++) {
        uint8_t c = (uint8_t)(v < 0 ? 0x80 | -v : v);
        int64_t i = vkrr_dtype_ulp_index(VKRR_DT_E4M3, &c);
        if (i != v || (previ != -1000 && i != previ + 1) || !(ref_e4m3(c) > prev))
            bad++;
        prev = ref_e4m3(c);
        previ = i;
    }
    CHECK_EQ_U64(bad, 0);
    uint8_t nz = 0x80;
    CHECK_EQ_U64(vkrr_dtype_ulp_index(VKRR_DT_E4M3, &nz), 0);

    /* f32 and bf16: distances across zero and at landmarks */
    float a = -0x1p-149f, b = 0x1p-149f, one = 1.0f, one_up = nextafterf(1.0f, 2);
    CHECK_EQ_U64(vkrr_dtype_ulp_index(VKRR_DT_F32, &b) - vkrr_dtype_ulp_index(VKRR_DT_F32, &a), 2);
    CHECK_EQ_U64(vkrr_dtype_ulp_index(VKRR_DT_F32, &one_up) - vkrr_dtype_ulp_index(VKRR_DT_F32, &one), 1);
    CHECK_EQ_U64(vkrr_dtype_ulp_index(VKRR_DT_F32, &one), 0x3f800000);
    uint8_t bfm1[2] = {0x80, 0xbf}, bfp1[2] = {0x80, 0x3f}; /* -1, +1 */
    CHECK_EQ_U64(vkrr_dtype_ulp_index(VKRR_DT_BF16, bfp1) - vkrr_dtype_ulp_index(VKRR_DT_BF16, bfm1),
                 2 * 0x3f80);
done:
    free(byidx);
    free(seen);
}

/* sust.p's conversions, from values worked out by hand: f32 to unorm8 at
 * 0.5 is 127.5 codes, to nearest even 128; 0.25 is 63.75, 64; clamps and
 * NaN; snorm16 (0.5: 16383.5, even 16384); HALF; saturated integers;
 * channels past n untouched. */
static void test_store_formatted(void)
{
    const float f[4] = {0.5f, 0.25f, -0.25f, 7.0f};
    uint32_t v[4];
    memcpy(v, f, sizeof v);
    uint8_t u8[4] = {9, 9, 9, 9};
    CHECK(vkrr_cuformat_store_formatted(194, 4, v, 4, u8)); /* UNORM_INT8X4 */
    CHECK(u8[0] == 128 && u8[1] == 64 && u8[2] == 0 && u8[3] == 255);
    uint8_t two[4] = {9, 9, 9, 9};
    CHECK(vkrr_cuformat_store_formatted(194, 4, v, 2, two)); /* .v2: B and A keep their bytes */
    CHECK(two[0] == 128 && two[1] == 64 && two[2] == 9 && two[3] == 9);
    const float g[2] = {-2.0f, 0.5f};
    uint32_t w[4] = {0};
    memcpy(w, g, sizeof g);
    int16_t s16[2];
    CHECK(vkrr_cuformat_store_formatted(202, 2, w, 2, s16)); /* SNORM_INT16X2 */
    CHECK(s16[0] == -32767 && s16[1] == 16384); /* 16383.5: to even */
    float nan = NAN;
    uint32_t vn[4] = {0};
    memcpy(vn, &nan, 4);
    uint8_t z = 7;
    CHECK(vkrr_cuformat_store_formatted(192, 1, vn, 1, &z) && z == 0);
    uint16_t h[2];
    CHECK(vkrr_cuformat_store_formatted(16, 2, v, 2, h)); /* HALF */
    CHECK(h[0] == 0x3800 && h[1] == vkrr_f32_to_f16_rne(f[1]));
    const uint32_t ints[4] = {300, (uint32_t)-5, 65536, 7};
    uint8_t u8i[4];
    CHECK(vkrr_cuformat_store_formatted(1, 4, ints, 4, u8i)); /* UNSIGNED_INT8: saturated */
    CHECK(u8i[0] == 255 && u8i[1] == 255 && u8i[2] == 255 && u8i[3] == 7);
    int8_t s8i[2];
    CHECK(vkrr_cuformat_store_formatted(8, 2, ints + 1, 2, s8i)); /* SIGNED_INT8 */
    CHECK(s8i[0] == -5 && s8i[1] == 127);
    uint32_t u32[1];
    CHECK(vkrr_cuformat_store_formatted(3, 1, ints + 1, 1, u32) && u32[0] == (uint32_t)-5);
    uint32_t f32[1];
    CHECK(vkrr_cuformat_store_formatted(32, 1, v, 1, f32) && f32[0] == v[0]);
    uint8_t big[16];
    CHECK(!vkrr_cuformat_store_formatted(80, 4, v, 4, big)); /* 10-10-10-2: not stored */
}

int main(void)
{
    test_formats();
    test_dtypes();
    test_f16();
    test_e4m3();
    test_ulp();
    test_store_formatted();
    return test_finish("cuformat");
}
