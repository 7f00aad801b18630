/* test_imgformat.c - the port image formats and the CUarray -> Vulkan format
 * mapping (imgformat.h), for every CUarray format vkrr knows and every
 * channel count: expectations derived here from the GLSL names and from the
 * CUDA formats' definitions, not from the table under test. */
#include "imgformat.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a GLSL image format qualifier says: channels, bits a channel, kind
 * ('f' float, 'u' unsigned integer, 'i' signed integer, 'n' unorm, 's' snorm,
 * 'p' packed). */
typedef struct { unsigned channels, bits; char kind; } glsl_fmt;

static glsl_fmt parse_glsl(const char *name)
{
    glsl_fmt g = {0, 0, '?'};
    if (!strcmp(name, "rgb10_a2"))
        return (glsl_fmt){4, 0, 'p'};
    const char *p = name;
    while (*p == 'r' || *p == 'g' || *p == 'b' || *p == 'a')
        g.channels++, p++;
    g.bits = (unsigned)strtoul(p, (char **)&p, 10);
    g.kind = !strcmp(p, "f") ? 'f' : !strcmp(p, "ui") ? 'u' : !strcmp(p, "i") ? 'i'
             : !strcmp(p, "_snorm") ? 's' : !*p ? 'n' : '?';
    return g;
}

/* The CUarray formats vkrr knows (docs/capture-format.md), as CUDA defines
 * them: bits a channel, kind ('u' 's' 'f'), fixed channel count (0: any). */
static const struct { unsigned code; unsigned bits; char kind; unsigned fixed; } arrays[] = {
    {1, 8, 'u', 0},    {2, 16, 'u', 0},   {3, 32, 'u', 0},   {8, 8, 's', 0},
    {9, 16, 's', 0},   {10, 32, 's', 0},  {16, 16, 'f', 0},  {32, 32, 'f', 0},
    {80, 32, 'x', 0}, /* 101010_2 on an RGBA32F backing */
    {192, 8, 'u', 1},  {193, 8, 'u', 2},  {194, 8, 'u', 4},  {195, 16, 'u', 1},
    {196, 16, 'u', 2}, {197, 16, 'u', 4}, {198, 8, 's', 1},  {199, 8, 's', 2},
    {200, 8, 's', 4},  {201, 16, 's', 1}, {202, 16, 's', 2}, {203, 16, 's', 4},
};

/* The expectation, from the definitions in imgformat.h's comment. */
static vkrr_imgmap expect(unsigned ai, unsigned channels, glsl_fmt g)
{
    unsigned bits = arrays[ai].bits;
    char k = arrays[ai].kind;
    bool is_float_fmt = g.kind == 'f';
    if (k == 'x') { /* four f32 channels stored, whatever the channel count */
        if (g.kind == 'f' && g.channels == 4)
            return g.bits == 32 ? VKRR_IMGMAP_BITCOPY : VKRR_IMGMAP_CONVERT;
        return g.kind == 'p' ? VKRR_IMGMAP_CONVERT : VKRR_IMGMAP_NONE;
    }
    if (g.channels != channels || g.kind == 'p')
        return VKRR_IMGMAP_NONE;
    bool same_bits = g.bits == bits;
    if (same_bits && ((k == 'u' && (g.kind == 'u' || (g.kind == 'n' && bits < 32))) ||
                      (k == 's' && (g.kind == 'i' || (g.kind == 's' && bits < 32))) ||
                      (k == 'f' && g.kind == 'f')))
        return VKRR_IMGMAP_BITCOPY;
    /* CUDA reads 8/16-bit integers normalized, floats as they are; 32-bit
     * integers never as float */
    if (is_float_fmt && (k == 'f' || bits < 32))
        return VKRR_IMGMAP_CONVERT;
    return VKRR_IMGMAP_NONE;
}

static void test_table_itself(void)
{
    unsigned n = 0;
    for (const vkrr_imgformat *f; (f = vkrr_imgformat_at(n)); n++) {
        glsl_fmt g = parse_glsl(f->name);
        CHECK(g.kind != '?');
        CHECK_EQ_U64(f->channels, g.channels);
        /* bytes a texel: from the name (rgb10_a2: 32 bits packed) */
        CHECK_EQ_U64(f->texel_bytes, g.kind == 'p' ? 4u : g.channels * g.bits / 8);
        if (g.kind != 'p')
            CHECK_EQ_U64(vkrr_dtype_size(f->dtype) * f->channels, f->texel_bytes);
        CHECK(vkrr_imgformat_find(f->name) == f);
        CHECK(vkrr_imgformat_of_spv(f->spv) == f);
    }
    CHECK_EQ_U64(n, 37u); /* every 1-, 2- and 4-channel GLSL storage format, and rgb10_a2 */
    /* a few by hand: Vulkan format and SPIR-V ImageFormat (the SPIR-V spec's numbers) */
    CHECK(vkrr_imgformat_find("rgba16f")->vk == VK_FORMAT_R16G16B16A16_SFLOAT);
    CHECK_EQ_U64(vkrr_imgformat_find("rgba16f")->spv, 2u);
    CHECK(vkrr_imgformat_find("r32f")->vk == VK_FORMAT_R32_SFLOAT);
    CHECK_EQ_U64(vkrr_imgformat_find("r32f")->spv, 3u);
    CHECK(vkrr_imgformat_find("rgba8")->vk == VK_FORMAT_R8G8B8A8_UNORM);
    CHECK(vkrr_imgformat_find("rgba8ui")->vk == VK_FORMAT_R8G8B8A8_UINT);
    CHECK_EQ_U64(vkrr_imgformat_find("r8ui")->spv, 39u);
    CHECK(vkrr_imgformat_find("rg16_snorm")->vk == VK_FORMAT_R16G16_SNORM);
    CHECK(!vkrr_imgformat_find("rgba16") || vkrr_imgformat_find("rgba16")->vk == VK_FORMAT_R16G16B16A16_UNORM);
    CHECK(vkrr_imgformat_find("rgb16f") == NULL);
    CHECK(vkrr_imgformat_find("") == NULL);
    CHECK(vkrr_imgformat_of_spv(0) == NULL); /* Unknown: a shader without a format */
}

static void test_every_array(void)
{
    unsigned pairs = 0, bitcopies = 0;
    for (unsigned ai = 0; ai < sizeof arrays / sizeof arrays[0]; ai++)
        for (unsigned ch = 1; ch <= 4; ch++) {
            bool valid = ch != 3 && (!arrays[ai].fixed || arrays[ai].fixed == ch);
            for (unsigned i = 0; vkrr_imgformat_at(i); i++) {
                const vkrr_imgformat *f = vkrr_imgformat_at(i);
                vkrr_imgmap want = valid ? expect(ai, ch, parse_glsl(f->name)) : VKRR_IMGMAP_NONE;
                vkrr_imgmap got = vkrr_imgformat_map(arrays[ai].code, ch, f);
                if (got != want)
                    fprintf(stderr, "CUarray %u x%u as %s: %s, want %s\n", arrays[ai].code, ch,
                            f->name, vkrr_imgmap_name(got), vkrr_imgmap_name(want));
                CHECK(got == want);
                if (got == VKRR_IMGMAP_BITCOPY) {
                    /* a bit copy moves the array's texel bytes as they are */
                    CHECK_EQ_U64(f->texel_bytes, vkrr_cuformat_texel_bytes(arrays[ai].code, ch));
                    bitcopies++;
                }
                pairs += got != VKRR_IMGMAP_NONE;
            }
        }
    CHECK(bitcopies > 0 && pairs > bitcopies);
    /* the pairings issue 48 names, by hand */
    CHECK(vkrr_imgformat_map(16, 4, vkrr_imgformat_find("rgba16f")) == VKRR_IMGMAP_BITCOPY);
    CHECK(vkrr_imgformat_map(32, 1, vkrr_imgformat_find("r32f")) == VKRR_IMGMAP_BITCOPY);
    CHECK(vkrr_imgformat_map(1, 4, vkrr_imgformat_find("rgba8ui")) == VKRR_IMGMAP_BITCOPY);
    CHECK(vkrr_imgformat_map(1, 4, vkrr_imgformat_find("rgba8")) == VKRR_IMGMAP_BITCOPY);
    CHECK(vkrr_imgformat_map(194, 4, vkrr_imgformat_find("rgba8")) == VKRR_IMGMAP_BITCOPY);
    CHECK(vkrr_imgformat_map(1, 4, vkrr_imgformat_find("rgba16f")) == VKRR_IMGMAP_CONVERT);
    CHECK(vkrr_imgformat_map(32, 4, vkrr_imgformat_find("rgba16f")) == VKRR_IMGMAP_CONVERT);
    CHECK(vkrr_imgformat_map(16, 4, vkrr_imgformat_find("rgba32f")) == VKRR_IMGMAP_CONVERT);
    CHECK(vkrr_imgformat_map(3, 1, vkrr_imgformat_find("r32f")) == VKRR_IMGMAP_NONE);
    CHECK(vkrr_imgformat_map(3, 1, vkrr_imgformat_find("r32ui")) == VKRR_IMGMAP_BITCOPY);
    CHECK(vkrr_imgformat_map(16, 2, vkrr_imgformat_find("rgba16f")) == VKRR_IMGMAP_NONE);
    CHECK(vkrr_imgformat_map(16, 4, vkrr_imgformat_find("rgba16i")) == VKRR_IMGMAP_NONE);
    CHECK(vkrr_imgformat_map(80, 4, vkrr_imgformat_find("rgba32f")) == VKRR_IMGMAP_BITCOPY);
    CHECK(vkrr_imgformat_map(80, 1, vkrr_imgformat_find("rgb10_a2")) == VKRR_IMGMAP_CONVERT);
    CHECK(vkrr_imgformat_map(7, 4, vkrr_imgformat_find("rgba16f")) == VKRR_IMGMAP_NONE); /* no such code */
    CHECK(vkrr_imgformat_map(16, 4, NULL) == VKRR_IMGMAP_NONE);
}

/* Conversions, expected values worked out by hand from the formats' bits. */
static void test_convert(void)
{
    const vkrr_imgformat *rgba32f = vkrr_imgformat_find("rgba32f"), *rgba16f = vkrr_imgformat_find("rgba16f");
    const vkrr_imgformat *r16f = vkrr_imgformat_find("r16f"), *r32f = vkrr_imgformat_find("r32f");
    /* HALF x4 -> rgba32f: 1.0, -0.0, a NaN with payload 0x201, 65504 */
    uint16_t h[4] = {0x3c00, 0x8000, 0x7e01, 0x7bff}, hb[4];
    uint32_t f[4];
    CHECK(vkrr_imgformat_convert_in(16, 4, rgba32f, h, f, 1));
    CHECK(f[0] == 0x3f800000u && f[1] == 0x80000000u && f[2] == 0x7fc02000u && f[3] == 0x477fe000u);
    /* and back: exact, but the NaN: the f16 store's canonical 0x7fff */
    CHECK(vkrr_imgformat_convert_out(16, 4, rgba32f, f, hb, 1));
    CHECK(hb[0] == 0x3c00 && hb[1] == 0x8000 && hb[2] == 0x7fff && hb[3] == 0x7bff);
    /* FLOAT x1 -> r16f: 1/3 (0x3eaaaaab) rounds to 0x3555, which widens to 0x3eaaa000 */
    uint32_t third = 0x3eaaaaabu, back = 0;
    uint16_t t16 = 0;
    CHECK(vkrr_imgformat_convert_in(32, 1, r16f, &third, &t16, 1) && t16 == 0x3555);
    CHECK(vkrr_imgformat_convert_out(32, 1, r16f, &t16, &back, 1) && back == 0x3eaaa000u);
    /* FLOAT x1 -> r16f, a NaN with payload and -0.0: 0x7fff (canonical), 0x8000;
     * back: the f16 NaN widened (payload 0x3ff << 13), -0.0 */
    uint32_t in2[2] = {0x7f800123u, 0x80000000u}, out2[2];
    uint16_t h2[2];
    CHECK(vkrr_imgformat_convert_in(32, 1, r16f, in2, h2, 2) && h2[0] == 0x7fff && h2[1] == 0x8000);
    CHECK(vkrr_imgformat_convert_out(32, 1, r16f, h2, out2, 2) && out2[0] == 0x7fffe000u &&
          out2[1] == 0x80000000u);
    /* UNSIGNED_INT8 x1 (normalized) -> r16f: 255 is 1.0, 0 is 0; every code comes back */
    uint8_t u8[256], u8b[256];
    uint16_t u16[256];
    for (int i = 0; i < 256; i++)
        u8[i] = (uint8_t)i;
    CHECK(vkrr_imgformat_convert_in(1, 1, r16f, u8, u16, 256) && u16[255] == 0x3c00 && u16[0] == 0);
    CHECK(vkrr_imgformat_convert_out(1, 1, r16f, u16, u8b, 256) && !memcmp(u8, u8b, 256));
    /* SNORM_INT8X1 -> r32f: -128 reads -1.0 (clamped), which stores back as -127 (0x81) */
    uint8_t s8 = 0x80, s8b = 0;
    uint32_t sf = 0;
    CHECK(vkrr_imgformat_convert_in(198, 1, r32f, &s8, &sf, 1) && sf == 0xbf800000u);
    CHECK(vkrr_imgformat_convert_out(198, 1, r32f, &sf, &s8b, 1) && s8b == 0x81);
    /* not CONVERT pairings: nothing written */
    uint32_t untouched = 0x12345678u;
    CHECK(!vkrr_imgformat_convert_in(16, 4, rgba16f, h, &untouched, 1) && untouched == 0x12345678u);
    CHECK(!vkrr_imgformat_convert_in(3, 1, r32f, &third, &untouched, 1));
    CHECK(!vkrr_imgformat_convert_out(80, 4, rgba16f, h, &untouched, 1) && untouched == 0x12345678u);
}

int main(void)
{
    test_convert();
    test_table_itself();
    test_every_array();
    return test_finish("imgformat");
}
