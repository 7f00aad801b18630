/* cuformat.c - the CUarray_format table and exact element conversions.
 *
 * Conversions work on bits, never through a compiler's own half type, so the
 * results do not depend on the host's FPU modes or on what a compiler folds.
 */
#include "cuformat.h"

#include <math.h>
#include <string.h>

/* ---- element types ------------------------------------------------------ */

static const struct {
    const char *name;
    unsigned size;
} dtype_table[VKRR_DT_COUNT] = {
    [VKRR_DT_BYTES] = {"bytes", 1},     [VKRR_DT_F16] = {"f16", 2},
    [VKRR_DT_BF16] = {"bf16", 2},       [VKRR_DT_F32] = {"f32", 4},
    [VKRR_DT_E4M3] = {"e4m3", 1},       [VKRR_DT_U8] = {"u8", 1},
    [VKRR_DT_S8] = {"s8", 1},           [VKRR_DT_U16] = {"u16", 2},
    [VKRR_DT_S16] = {"s16", 2},         [VKRR_DT_U32] = {"u32", 4},
    [VKRR_DT_S32] = {"s32", 4},         [VKRR_DT_UNORM8] = {"unorm8", 1},
    [VKRR_DT_SNORM8] = {"snorm8", 1},   [VKRR_DT_UNORM16] = {"unorm16", 2},
    [VKRR_DT_SNORM16] = {"snorm16", 2}, [VKRR_DT_E5M2] = {"e5m2", 1},
    [VKRR_DT_F64] = {"f64", 8},         [VKRR_DT_S64] = {"s64", 8},
    [VKRR_DT_U64] = {"u64", 8},
};

const char *vkrr_dtype_name(vkrr_dtype t)
{
    return (unsigned)t < VKRR_DT_COUNT ? dtype_table[t].name : "?";
}

bool vkrr_dtype_parse(const char *name, vkrr_dtype *out)
{
    /* CUDA code says int32_t: i8/i16/i32/i64 are the signed types too */
    static const char *const alias[][2] = {{"i8", "s8"}, {"i16", "s16"}, {"i32", "s32"},
                                           {"i64", "s64"}};
    for (unsigned i = 0; name && i < sizeof alias / sizeof alias[0]; i++)
        if (!strcmp(name, alias[i][0]))
            name = alias[i][1];
    for (unsigned i = 0; name && i < VKRR_DT_COUNT; i++) {
        if (!strcmp(name, dtype_table[i].name)) {
            *out = (vkrr_dtype)i;
            return true;
        }
    }
    return false;
}

unsigned vkrr_dtype_size(vkrr_dtype t)
{
    return (unsigned)t < VKRR_DT_COUNT ? dtype_table[t].size : 1;
}

bool vkrr_dtype_is_float(vkrr_dtype t)
{
    return t == VKRR_DT_F16 || t == VKRR_DT_BF16 || t == VKRR_DT_F32 || t == VKRR_DT_E4M3 ||
           t == VKRR_DT_E5M2 || t == VKRR_DT_F64;
}

/* ---- scalar conversions ------------------------------------------------- */



/* ---- whole elements ----------------------------------------------------- */

static uint16_t ld16(const void *p)
{
    const uint8_t *b = p;
    return (uint16_t)(b[0] | (b[1] << 8));
}

static uint32_t ld32(const void *p)
{
    const uint8_t *b = p;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

double vkrr_dtype_to_double(vkrr_dtype t, const void *p)
{
    const uint8_t *b = p;
    switch (t) {
    case VKRR_DT_F16: return vkrr_f16_to_f32(ld16(p));
    case VKRR_DT_BF16: return vkrr_bf16_to_f32(ld16(p));
    case VKRR_DT_F32: return vkrr_f32_from_bits(ld32(p));
    case VKRR_DT_E4M3: return vkrr_e4m3_to_f32(b[0]);
    case VKRR_DT_E5M2: return vkrr_e5m2_to_f32(b[0]);
    case VKRR_DT_U8: return b[0];
    case VKRR_DT_S8: return (int8_t)b[0];
    case VKRR_DT_U16: return ld16(p);
    case VKRR_DT_S16: return (int16_t)ld16(p);
    case VKRR_DT_U32: return ld32(p);
    case VKRR_DT_S32: return (int32_t)ld32(p);
    case VKRR_DT_UNORM8: return b[0] / 255.0;
    case VKRR_DT_SNORM8: return fmax(-1.0, (int8_t)b[0] / 127.0);
    case VKRR_DT_UNORM16: return ld16(p) / 65535.0;
    case VKRR_DT_SNORM16: return fmax(-1.0, (int16_t)ld16(p) / 32767.0);
    case VKRR_DT_F64: {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    case VKRR_DT_S64: {
        int64_t v;
        memcpy(&v, p, 8);
        return (double)v;
    }
    case VKRR_DT_U64: {
        uint64_t v;
        memcpy(&v, p, 8);
        return (double)v;
    }
    case VKRR_DT_BYTES:
    default: return b[0];
    }
}

int64_t vkrr_dtype_ulp_index(vkrr_dtype t, const void *p)
{
    uint32_t bits, signbit;
    if (t == VKRR_DT_F64) {
        uint64_t b;
        memcpy(&b, p, 8);
        int64_t mag = (int64_t)(b & ~(1ull << 63));
        return b >> 63 ? -mag : mag;
    }
    switch (t) {
    case VKRR_DT_F16:
    case VKRR_DT_BF16: bits = ld16(p); signbit = 0x8000u; break;
    case VKRR_DT_F32: bits = ld32(p); signbit = 0x80000000u; break;
    case VKRR_DT_E4M3:
    case VKRR_DT_E5M2: bits = *(const uint8_t *)p; signbit = 0x80u; break;
    default: return 0;
    }
    /* sign-magnitude -> ordered integers; both zeros land on 0 */
    int64_t mag = (int64_t)(bits & (signbit - 1u));
    return (bits & signbit) ? -mag : mag;
}

/* ---- CUarray_format table ----------------------------------------------- */

static const vkrr_cuformat_info cuformat_table[] = {
    {1, "UNSIGNED_INT8", 1, 0, 0, VKRR_DT_UNORM8, VKRR_DT_U8},
    {2, "UNSIGNED_INT16", 2, 0, 0, VKRR_DT_UNORM16, VKRR_DT_U16},
    /* 32-bit integers cannot be read normalized in CUDA: integer either way */
    {3, "UNSIGNED_INT32", 4, 0, 0, VKRR_DT_U32, VKRR_DT_U32},
    {8, "SIGNED_INT8", 1, 0, 0, VKRR_DT_SNORM8, VKRR_DT_S8},
    {9, "SIGNED_INT16", 2, 0, 0, VKRR_DT_SNORM16, VKRR_DT_S16},
    {10, "SIGNED_INT32", 4, 0, 0, VKRR_DT_S32, VKRR_DT_S32},
    {16, "HALF", 2, 0, 0, VKRR_DT_F16, VKRR_DT_F16},
    {32, "FLOAT", 4, 0, 0, VKRR_DT_F32, VKRR_DT_F32},
    /* 101010_2 as some bridges store it: an RGBA32F backing, 16 bytes a texel */
    {80, "UNORM_INT_101010_2", 4, 0, 16, VKRR_DT_F32, VKRR_DT_F32},
    {192, "UNORM_INT8X1", 1, 1, 0, VKRR_DT_UNORM8, VKRR_DT_U8},
    {193, "UNORM_INT8X2", 1, 2, 0, VKRR_DT_UNORM8, VKRR_DT_U8},
    {194, "UNORM_INT8X4", 1, 4, 0, VKRR_DT_UNORM8, VKRR_DT_U8},
    {195, "UNORM_INT16X1", 2, 1, 0, VKRR_DT_UNORM16, VKRR_DT_U16},
    {196, "UNORM_INT16X2", 2, 2, 0, VKRR_DT_UNORM16, VKRR_DT_U16},
    {197, "UNORM_INT16X4", 2, 4, 0, VKRR_DT_UNORM16, VKRR_DT_U16},
    {198, "SNORM_INT8X1", 1, 1, 0, VKRR_DT_SNORM8, VKRR_DT_S8},
    {199, "SNORM_INT8X2", 1, 2, 0, VKRR_DT_SNORM8, VKRR_DT_S8},
    {200, "SNORM_INT8X4", 1, 4, 0, VKRR_DT_SNORM8, VKRR_DT_S8},
    {201, "SNORM_INT16X1", 2, 1, 0, VKRR_DT_SNORM16, VKRR_DT_S16},
    {202, "SNORM_INT16X2", 2, 2, 0, VKRR_DT_SNORM16, VKRR_DT_S16},
    {203, "SNORM_INT16X4", 2, 4, 0, VKRR_DT_SNORM16, VKRR_DT_S16},
};

const vkrr_cuformat_info *vkrr_cuformat_find(unsigned code)
{
    for (size_t i = 0; i < sizeof cuformat_table / sizeof cuformat_table[0]; i++)
        if (cuformat_table[i].code == code)
            return &cuformat_table[i];
    return NULL;
}

/* Why a code is not in the table, for the error message. */
static const char *unsupported_kind(unsigned code)
{
    if (code >= 0x91 && code <= 0x9e)
        return "a block-compressed (BC) format";
    if ((code >= 0x9f && code <= 0xb5) && code != 0xa0 && code != 0xaa && code != 0xab &&
        code != 0xac && code != 0xad && code != 0xae && code != 0xaf)
        return "a YUV format";
    return "an unknown code";
}

vkrr_status vkrr_cuformat_check(unsigned code, unsigned channels, vkrr_error *err)
{
    const vkrr_cuformat_info *fi = vkrr_cuformat_find(code);
    if (!fi)
        return vkrr_fail(err, VKRR_ERR_FORMAT, NULL, 0, -1,
                         "CUarray_format %u (0x%x) is %s; vkrr supports 1, 2, 3, 8, 9, 10, 16, "
                         "32, 80 and 192..203",
                         code, code, unsupported_kind(code));
    if (channels != 1 && channels != 2 && channels != 4)
        return vkrr_fail(err, VKRR_ERR_FORMAT, NULL, 0, -1,
                         "CUarray_format %u (%s) with %u channels: CUDA arrays have 1, 2 or 4",
                         code, fi->name, channels);
    if (fi->fixed_channels && channels != fi->fixed_channels)
        return vkrr_fail(err, VKRR_ERR_FORMAT, NULL, 0, -1,
                         "CUarray_format %u (%s) has %u channels, not %u", code, fi->name,
                         fi->fixed_channels, channels);
    return VKRR_OK;
}

unsigned vkrr_cuformat_texel_bytes(unsigned code, unsigned channels)
{
    if (vkrr_cuformat_check(code, channels, NULL) != VKRR_OK)
        return 0;
    const vkrr_cuformat_info *fi = vkrr_cuformat_find(code);
    return fi->texel_bytes_override ? fi->texel_bytes_override : fi->channel_bytes * channels;
}

/* Vulkan formats per element type for 1, 2 and 4 channels. */
static VkFormat vk_format_of(vkrr_dtype t, unsigned channels)
{
    unsigned i = channels == 1 ? 0 : channels == 2 ? 1 : 2;
    static const VkFormat unorm8[3] = {VK_FORMAT_R8_UNORM, VK_FORMAT_R8G8_UNORM,
                                       VK_FORMAT_R8G8B8A8_UNORM};
    static const VkFormat u8[3] = {VK_FORMAT_R8_UINT, VK_FORMAT_R8G8_UINT, VK_FORMAT_R8G8B8A8_UINT};
    static const VkFormat snorm8[3] = {VK_FORMAT_R8_SNORM, VK_FORMAT_R8G8_SNORM,
                                       VK_FORMAT_R8G8B8A8_SNORM};
    static const VkFormat s8[3] = {VK_FORMAT_R8_SINT, VK_FORMAT_R8G8_SINT, VK_FORMAT_R8G8B8A8_SINT};
    static const VkFormat unorm16[3] = {VK_FORMAT_R16_UNORM, VK_FORMAT_R16G16_UNORM,
                                        VK_FORMAT_R16G16B16A16_UNORM};
    static const VkFormat u16[3] = {VK_FORMAT_R16_UINT, VK_FORMAT_R16G16_UINT,
                                    VK_FORMAT_R16G16B16A16_UINT};
    static const VkFormat snorm16[3] = {VK_FORMAT_R16_SNORM, VK_FORMAT_R16G16_SNORM,
                                        VK_FORMAT_R16G16B16A16_SNORM};
    static const VkFormat s16[3] = {VK_FORMAT_R16_SINT, VK_FORMAT_R16G16_SINT,
                                    VK_FORMAT_R16G16B16A16_SINT};
    static const VkFormat u32[3] = {VK_FORMAT_R32_UINT, VK_FORMAT_R32G32_UINT,
                                    VK_FORMAT_R32G32B32A32_UINT};
    static const VkFormat s32[3] = {VK_FORMAT_R32_SINT, VK_FORMAT_R32G32_SINT,
                                    VK_FORMAT_R32G32B32A32_SINT};
    static const VkFormat f16[3] = {VK_FORMAT_R16_SFLOAT, VK_FORMAT_R16G16_SFLOAT,
                                    VK_FORMAT_R16G16B16A16_SFLOAT};
    static const VkFormat f32[3] = {VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32_SFLOAT,
                                    VK_FORMAT_R32G32B32A32_SFLOAT};
    switch (t) {
    case VKRR_DT_UNORM8: return unorm8[i];
    case VKRR_DT_U8: return u8[i];
    case VKRR_DT_SNORM8: return snorm8[i];
    case VKRR_DT_S8: return s8[i];
    case VKRR_DT_UNORM16: return unorm16[i];
    case VKRR_DT_U16: return u16[i];
    case VKRR_DT_SNORM16: return snorm16[i];
    case VKRR_DT_S16: return s16[i];
    case VKRR_DT_U32: return u32[i];
    case VKRR_DT_S32: return s32[i];
    case VKRR_DT_F16: return f16[i];
    case VKRR_DT_F32: return f32[i];
    default: return VK_FORMAT_UNDEFINED;
    }
}

VkFormat vkrr_cuformat_vk_format(unsigned code, unsigned channels, bool read_as_integer)
{
    if (vkrr_cuformat_check(code, channels, NULL) != VKRR_OK)
        return VK_FORMAT_UNDEFINED;
    /* The spec maps 101010_2 to the packed format; the backend owns the
     * conversion from the 16-byte backing the dump holds. */
    if (code == 80)
        return VK_FORMAT_A2B10G10R10_UNORM_PACK32;
    return vk_format_of(vkrr_cuformat_dtype(code, read_as_integer), channels);
}

vkrr_dtype vkrr_cuformat_dtype(unsigned code, bool read_as_integer)
{
    const vkrr_cuformat_info *fi = vkrr_cuformat_find(code);
    if (!fi)
        return VKRR_DT_BYTES;
    return read_as_integer ? fi->int_dtype : fi->norm_dtype;
}

/* One f32 as an unorm (sgn false) or snorm channel of `bits` bits. */
static int64_t norm_code(float f, unsigned bits, bool sgn)
{
    double max = sgn ? (double)((1u << (bits - 1)) - 1) : (double)((1u << bits) - 1);
    double v = f != f ? 0.0 : f < (sgn ? -1.0f : 0.0f) ? (sgn ? -1.0 : 0.0) : f > 1.0f ? 1.0 : (double)f;
    return (int64_t)nearbyint(v * max); /* the default rounding mode: to nearest even */
}

static int64_t saturate(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

bool vkrr_cuformat_store_formatted(unsigned code, unsigned channels, const uint32_t *v, unsigned n,
                                   void *texel)
{
    const vkrr_cuformat_info *fi = vkrr_cuformat_find(code);
    if (!fi || fi->texel_bytes_override || vkrr_cuformat_texel_bytes(code, channels) == 0)
        return false;
    unsigned cb = fi->channel_bytes;
    vkrr_dtype norm = fi->norm_dtype; /* F16 for HALF; UNORM/SNORM for the rest below 32 bits */
    bool as_int = code <= 10; /* UNSIGNED_INT* 1..3, SIGNED_INT* 8..10 */
    bool sgn = fi->int_dtype == VKRR_DT_S8 || fi->int_dtype == VKRR_DT_S16 || fi->int_dtype == VKRR_DT_S32;
    for (unsigned c = 0; c < n && c < channels; c++) {
        float f;
        memcpy(&f, &v[c], 4);
        int64_t x;
        if (cb == 4) { /* FLOAT, UNSIGNED_INT32, SIGNED_INT32: the bits as they are */
            x = v[c];
        } else if (norm == VKRR_DT_F16) {
            x = vkrr_f32_to_f16_rne(f);
        } else if (as_int) {
            int64_t i = sgn ? (int64_t)(int32_t)v[c] : (int64_t)v[c];
            int64_t hi = sgn ? (1ll << (8 * cb - 1)) - 1 : (1ll << (8 * cb)) - 1;
            x = saturate(i, sgn ? -hi - 1 : 0, hi);
        } else {
            x = norm_code(f, 8 * cb, sgn);
        }
        uint32_t bits = (uint32_t)x;
        memcpy((unsigned char *)texel + c * cb, &bits, cb); /* little-endian low bytes */
    }
    return true;
}

bool vkrr_cuformat_load_formatted(unsigned code, unsigned channels, const void *texel, uint32_t out[4])
{
    const vkrr_cuformat_info *fi = vkrr_cuformat_find(code);
    if (!fi || fi->texel_bytes_override || vkrr_cuformat_texel_bytes(code, channels) == 0)
        return false;
    unsigned cb = fi->channel_bytes;
    bool as_int = code <= 10; /* UNSIGNED_INT* 1..3, SIGNED_INT* 8..10 */
    bool sgn = fi->int_dtype == VKRR_DT_S8 || fi->int_dtype == VKRR_DT_S16 || fi->int_dtype == VKRR_DT_S32;
    for (unsigned c = 0; c < 4; c++) {
        uint32_t raw = 0;
        if (c < channels)
            memcpy(&raw, (const unsigned char *)texel + c * cb, cb);
        int64_t i = sgn && cb < 4 ? (int64_t)(raw ^ (1u << (8 * cb - 1))) - (1ll << (8 * cb - 1)) : raw;
        float f;
        if (c >= channels || cb == 4) { /* FLOAT and 32-bit integers: the bits as they are */
            out[c] = raw;
            continue;
        }
        if (as_int) {
            out[c] = (uint32_t)i;
            continue;
        }
        if (fi->norm_dtype == VKRR_DT_F16)
            f = vkrr_f16_to_f32((uint16_t)raw);
        else if (sgn)
            f = fmaxf((float)i / (float)((1u << (8 * cb - 1)) - 1), -1.0f);
        else
            f = (float)i / (float)((1u << (8 * cb)) - 1);
        memcpy(&out[c], &f, 4);
    }
    return true;
}
