/* imgformat.c - the port image formats and their CUarray mapping (imgformat.h). */
#include "imgformat.h"

#include <string.h>

/* SPIR-V ImageFormat values are fixed by the SPIR-V specification. */
static const vkrr_imgformat table[] = {
    {"rgba32f", 1, VK_FORMAT_R32G32B32A32_SFLOAT, 4, 16, VKRR_DT_F32},
    {"rg32f", 6, VK_FORMAT_R32G32_SFLOAT, 2, 8, VKRR_DT_F32},
    {"r32f", 3, VK_FORMAT_R32_SFLOAT, 1, 4, VKRR_DT_F32},
    {"rgba16f", 2, VK_FORMAT_R16G16B16A16_SFLOAT, 4, 8, VKRR_DT_F16},
    {"rg16f", 7, VK_FORMAT_R16G16_SFLOAT, 2, 4, VKRR_DT_F16},
    {"r16f", 9, VK_FORMAT_R16_SFLOAT, 1, 2, VKRR_DT_F16},
    {"rgba16", 10, VK_FORMAT_R16G16B16A16_UNORM, 4, 8, VKRR_DT_UNORM16},
    {"rg16", 12, VK_FORMAT_R16G16_UNORM, 2, 4, VKRR_DT_UNORM16},
    {"r16", 14, VK_FORMAT_R16_UNORM, 1, 2, VKRR_DT_UNORM16},
    {"rgba8", 4, VK_FORMAT_R8G8B8A8_UNORM, 4, 4, VKRR_DT_UNORM8},
    {"rg8", 13, VK_FORMAT_R8G8_UNORM, 2, 2, VKRR_DT_UNORM8},
    {"r8", 15, VK_FORMAT_R8_UNORM, 1, 1, VKRR_DT_UNORM8},
    {"rgba16_snorm", 16, VK_FORMAT_R16G16B16A16_SNORM, 4, 8, VKRR_DT_SNORM16},
    {"rg16_snorm", 17, VK_FORMAT_R16G16_SNORM, 2, 4, VKRR_DT_SNORM16},
    {"r16_snorm", 19, VK_FORMAT_R16_SNORM, 1, 2, VKRR_DT_SNORM16},
    {"rgba8_snorm", 5, VK_FORMAT_R8G8B8A8_SNORM, 4, 4, VKRR_DT_SNORM8},
    {"rg8_snorm", 18, VK_FORMAT_R8G8_SNORM, 2, 2, VKRR_DT_SNORM8},
    {"r8_snorm", 20, VK_FORMAT_R8_SNORM, 1, 1, VKRR_DT_SNORM8},
    {"rgba32i", 21, VK_FORMAT_R32G32B32A32_SINT, 4, 16, VKRR_DT_S32},
    {"rg32i", 25, VK_FORMAT_R32G32_SINT, 2, 8, VKRR_DT_S32},
    {"r32i", 24, VK_FORMAT_R32_SINT, 1, 4, VKRR_DT_S32},
    {"rgba16i", 22, VK_FORMAT_R16G16B16A16_SINT, 4, 8, VKRR_DT_S16},
    {"rg16i", 26, VK_FORMAT_R16G16_SINT, 2, 4, VKRR_DT_S16},
    {"r16i", 28, VK_FORMAT_R16_SINT, 1, 2, VKRR_DT_S16},
    {"rgba8i", 23, VK_FORMAT_R8G8B8A8_SINT, 4, 4, VKRR_DT_S8},
    {"rg8i", 27, VK_FORMAT_R8G8_SINT, 2, 2, VKRR_DT_S8},
    {"r8i", 29, VK_FORMAT_R8_SINT, 1, 1, VKRR_DT_S8},
    {"rgba32ui", 30, VK_FORMAT_R32G32B32A32_UINT, 4, 16, VKRR_DT_U32},
    {"rg32ui", 35, VK_FORMAT_R32G32_UINT, 2, 8, VKRR_DT_U32},
    {"r32ui", 33, VK_FORMAT_R32_UINT, 1, 4, VKRR_DT_U32},
    {"rgba16ui", 31, VK_FORMAT_R16G16B16A16_UINT, 4, 8, VKRR_DT_U16},
    {"rg16ui", 36, VK_FORMAT_R16G16_UINT, 2, 4, VKRR_DT_U16},
    {"r16ui", 38, VK_FORMAT_R16_UINT, 1, 2, VKRR_DT_U16},
    {"rgba8ui", 32, VK_FORMAT_R8G8B8A8_UINT, 4, 4, VKRR_DT_U8},
    {"rg8ui", 37, VK_FORMAT_R8G8_UINT, 2, 2, VKRR_DT_U8},
    {"r8ui", 39, VK_FORMAT_R8_UINT, 1, 1, VKRR_DT_U8},
    /* packed: only UNORM_INT_101010_2 (code 80) converts into it */
    {"rgb10_a2", 11, VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4, 4, VKRR_DT_BYTES},
};

#define NFORMATS (sizeof table / sizeof table[0])

const vkrr_imgformat *vkrr_imgformat_at(unsigned i)
{
    return i < NFORMATS ? &table[i] : NULL;
}

const vkrr_imgformat *vkrr_imgformat_find(const char *name)
{
    for (unsigned i = 0; name && i < NFORMATS; i++)
        if (!strcmp(table[i].name, name))
            return &table[i];
    return NULL;
}

const vkrr_imgformat *vkrr_imgformat_of_spv(unsigned spv)
{
    for (unsigned i = 0; i < NFORMATS; i++)
        if (table[i].spv == spv)
            return &table[i];
    return NULL;
}

static bool read_as_float(vkrr_dtype t)
{
    return t == VKRR_DT_F16 || t == VKRR_DT_F32 || t == VKRR_DT_UNORM8 || t == VKRR_DT_UNORM16 ||
           t == VKRR_DT_SNORM8 || t == VKRR_DT_SNORM16;
}

vkrr_imgmap vkrr_imgformat_map(unsigned code, unsigned channels, const vkrr_imgformat *f)
{
    if (!f || vkrr_cuformat_check(code, channels, NULL) != VKRR_OK)
        return VKRR_IMGMAP_NONE;
    const vkrr_cuformat_info *fi = vkrr_cuformat_find(code);
    if (fi->texel_bytes_override) /* code 80: an RGBA32F backing whatever the channels say */
        return f->dtype == VKRR_DT_F32 && f->channels == 4   ? VKRR_IMGMAP_BITCOPY
               : f->dtype == VKRR_DT_F16 && f->channels == 4 ? VKRR_IMGMAP_CONVERT
               : f->dtype == VKRR_DT_BYTES                   ? VKRR_IMGMAP_CONVERT
                                                             : VKRR_IMGMAP_NONE;
    if (f->channels != channels || f->dtype == VKRR_DT_BYTES)
        return VKRR_IMGMAP_NONE;
    if (vkrr_dtype_size(f->dtype) == fi->channel_bytes && (f->dtype == fi->int_dtype || f->dtype == fi->norm_dtype))
        return VKRR_IMGMAP_BITCOPY;
    if ((f->dtype == VKRR_DT_F16 || f->dtype == VKRR_DT_F32) && read_as_float(fi->norm_dtype))
        return VKRR_IMGMAP_CONVERT;
    return VKRR_IMGMAP_NONE;
}

const char *vkrr_imgmap_name(vkrr_imgmap m)
{
    return m == VKRR_IMGMAP_BITCOPY ? "bitcopy" : m == VKRR_IMGMAP_CONVERT ? "convert" : "none";
}

/* The normalized-read code of an 8/16-bit integer array (cuformat's
 * formatted load and store read codes 1..10 as integers; a texture read as
 * float, and a float image, see them normalized). */
static unsigned normalized_code(unsigned code, unsigned channels)
{
    unsigned k = channels == 1 ? 0 : channels == 2 ? 1 : 2;
    switch (code) {
    case 1: return 192 + k;
    case 2: return 195 + k;
    case 8: return 198 + k;
    case 9: return 201 + k;
    default: return code;
    }
}

static bool convertible(unsigned code, unsigned channels, const vkrr_imgformat *f)
{
    return vkrr_imgformat_map(code, channels, f) == VKRR_IMGMAP_CONVERT && code != 80 &&
           (f->dtype == VKRR_DT_F16 || f->dtype == VKRR_DT_F32);
}

bool vkrr_imgformat_convert_in(unsigned code, unsigned channels, const vkrr_imgformat *f,
                               const void *array_texels, void *image_texels, uint64_t n)
{
    if (!convertible(code, channels, f))
        return false;
    unsigned eq = normalized_code(code, channels), tb = vkrr_cuformat_texel_bytes(code, channels);
    const unsigned char *src = array_texels;
    unsigned char *dst = image_texels;
    for (uint64_t t = 0; t < n; t++, src += tb, dst += f->texel_bytes) {
        uint32_t v[4];
        vkrr_cuformat_load_formatted(eq, channels, src, v);
        for (unsigned c = 0; c < channels; c++) {
            if (f->dtype == VKRR_DT_F32) {
                memcpy(dst + 4 * c, &v[c], 4);
            } else {
                uint16_t h = vkrr_f32_to_f16_rne(vkrr_f32_from_bits(v[c]));
                memcpy(dst + 2 * c, &h, 2);
            }
        }
    }
    return true;
}

bool vkrr_imgformat_convert_out(unsigned code, unsigned channels, const vkrr_imgformat *f,
                                const void *image_texels, void *array_texels, uint64_t n)
{
    if (!convertible(code, channels, f))
        return false;
    unsigned eq = normalized_code(code, channels), tb = vkrr_cuformat_texel_bytes(code, channels);
    const unsigned char *src = image_texels;
    unsigned char *dst = array_texels;
    for (uint64_t t = 0; t < n; t++, src += f->texel_bytes, dst += tb) {
        uint32_t v[4] = {0, 0, 0, 0};
        for (unsigned c = 0; c < channels; c++) {
            if (f->dtype == VKRR_DT_F32) {
                memcpy(&v[c], src + 4 * c, 4);
            } else {
                uint16_t h;
                memcpy(&h, src + 2 * c, 2);
                v[c] = vkrr_f32_bits(vkrr_f16_to_f32(h));
            }
        }
        vkrr_cuformat_store_formatted(eq, channels, v, channels, dst);
    }
    return true;
}
