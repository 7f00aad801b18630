/* vktables.c - the descriptor tables of bindings.glsl: table sizes, the
 * image and view format each CUDA array is bound with (surfaces through an
 * integer view of their texel size), samplers from CUDA texture state, and
 * the descriptor writes of one launch. */
#include "vkdev.h"

#include <string.h>

#include "cuformat.h"

/* Here, below the files that call it (vkdev.c, vkrecord.c, this one), so
 * that no file of vkbridge calls one that calls it back. */
vkrr_status vkrr_vk_check(VkResult r, const char *what, vkrr_error *err)
{
    if (r == VK_SUCCESS)
        return VKRR_OK;
    return vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "%s: %s", what, vkrr_vk_result_name(r));
}

/* Integer view formats of the surface bindings 4..8, by texel size. */
const VkFormat vkrr_vk_surf_view_format[5] = {VK_FORMAT_R8_UINT, VK_FORMAT_R16_UINT,
                                             VK_FORMAT_R32_UINT, VK_FORMAT_R32G32_UINT,
                                             VK_FORMAT_R32G32B32A32_UINT};

static int surf_class(unsigned texel_bytes)
{
    switch (texel_bytes) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    default: return -1;
    }
}

/* Descriptors in a binding of bindings.glsl. */
uint32_t vkrr_vk_table_size(uint32_t binding)
{
    if (binding == VKRR_VK_BIND_PARAMS)
        return 1;
    if (binding == VKRR_VK_BIND_TEX)
        return VKRR_VK_MAX_TEXTURES;
    return binding < VKRR_VK_BIND_SURF8 ? VKRR_VK_MAX_INT_TEXTURES : VKRR_VK_MAX_SURFACES;
}

static bool is_sint(VkFormat f)
{
    return f == VK_FORMAT_R8_SINT || f == VK_FORMAT_R8G8_SINT || f == VK_FORMAT_R8G8B8A8_SINT ||
           f == VK_FORMAT_R16_SINT || f == VK_FORMAT_R16G16_SINT || f == VK_FORMAT_R16G16B16A16_SINT ||
           f == VK_FORMAT_R32_SINT || f == VK_FORMAT_R32G32_SINT || f == VK_FORMAT_R32G32B32A32_SINT;
}

static VkFormat srgb_of(VkFormat f)
{
    switch (f) {
    case VK_FORMAT_R8_UNORM: return VK_FORMAT_R8_SRGB;
    case VK_FORMAT_R8G8_UNORM: return VK_FORMAT_R8G8_SRGB;
    case VK_FORMAT_R8G8B8A8_UNORM: return VK_FORMAT_R8G8B8A8_SRGB;
    default: return f;
    }
}

static VkSamplerAddressMode address_mode(int a, bool normalized)
{
    /* CUDA ignores wrap and mirror with unnormalized coordinates (they clamp);
     * Vulkan forbids them there. */
    switch (a) {
    case VKRR_ADDRESS_WRAP:
        return normalized ? VK_SAMPLER_ADDRESS_MODE_REPEAT : VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case VKRR_ADDRESS_MIRROR:
        return normalized ? VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT : VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case VKRR_ADDRESS_BORDER: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
    default: return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    }
}

vkrr_status vkrr_vk_make_sampler(vkrr_vk_ctx *vk, const vkrr_sampler *s, VkFormat f, bool integer,
                                 VkSampler *out, vkrr_error *err)
{
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(vk->phys, f, &fp);
    /* Ports filter by hand (docs/porting-traps.md); the sampler only has to be a
     * valid description of the captured state, so linear falls back to
     * nearest where the format cannot filter (integers, some drivers). */
    bool linear = s->filter == VKRR_FILTER_LINEAR && !integer &&
                  (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT);
    VkFilter filt = linear ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
    VkSamplerCreateInfo si = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = filt,
        .minFilter = filt,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
        .addressModeU = address_mode(s->address[0], s->normalized),
        .addressModeV = address_mode(s->address[1], s->normalized),
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .borderColor = integer ? VK_BORDER_COLOR_INT_TRANSPARENT_BLACK : VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
        .unnormalizedCoordinates = s->normalized ? VK_FALSE : VK_TRUE,
    };
    return vkrr_vk_check(vk->fn.vkCreateSampler(vk->device, &si, NULL, out), "vkCreateSampler", err);
}

/* The image format of a replay image and the view format it is bound with. */
vkrr_status vkrr_vk_image_formats(vkrr_vk_ctx *vk, const vkrr_replay_image *im, uint32_t i,
                                  VkFormat *fmt, VkFormat *view, uint32_t *binding, vkrr_error *err)
{
    bool integer = im->kind == VKRR_IMAGE_TEXTURE && im->sampler.read_as_integer;
    unsigned tb = vkrr_cuformat_texel_bytes(im->format, im->channels);
    VkFormat f = vkrr_cuformat_vk_format(im->format, im->channels, integer);
    if (!tb || f == VK_FORMAT_UNDEFINED)
        return vkrr_fail(err, VKRR_ERR_FORMAT, NULL, 0, im->offset,
                         "image %u: CUarray format %u with %u channels has no Vulkan format", i,
                         im->format, im->channels);
    if (vkrr_vk_format_bytes(f) != tb) {
        /* UNORM_INT_101010_2 as dumped: an RGBA32F backing of 16 bytes a texel. */
        if (tb == 16 && vkrr_cuformat_dtype(im->format, integer) == VKRR_DT_F32)
            f = VK_FORMAT_R32G32B32A32_SFLOAT;
        else
            return vkrr_fail(err, VKRR_ERR_FORMAT, NULL, 0, im->offset,
                             "image %u: CUarray format %u holds %u bytes a texel, its Vulkan format %d does not",
                             i, im->format, tb, (int)f);
    }
    VkFormatProperties fp;
    VkFormatFeatureFlags need;
    if (im->kind == VKRR_IMAGE_TEXTURE) {
        if (im->sampler.srgb)
            f = srgb_of(f);
        *fmt = *view = f;
        *binding = !integer ? VKRR_VK_BIND_TEX : is_sint(f) ? VKRR_VK_BIND_ITEX : VKRR_VK_BIND_UTEX;
        need = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
    } else {
        int c = surf_class(tb);
        if (c < 0)
            return vkrr_fail(err, VKRR_ERR_FORMAT, NULL, 0, im->offset,
                             "surface %u: %u-byte texels have no integer view", i, tb);
        *fmt = f;
        *view = vkrr_vk_surf_view_format[c];
        *binding = VKRR_VK_BIND_SURF8 + (uint32_t)c;
        f = *view;
        need = VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
    }
    vkGetPhysicalDeviceFormatProperties(vk->phys, f, &fp);
    if ((fp.optimalTilingFeatures & need) != need)
        return vkrr_fail(err, VKRR_ERR_FORMAT, NULL, 0, im->offset,
                         "image %u: VkFormat %d cannot be %s on %s", i, (int)f,
                         im->kind == VKRR_IMAGE_TEXTURE ? "sampled" : "a storage image",
                         vk->props.deviceName);
    return VKRR_OK;
}

void vkrr_vk_write_descriptors(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_vk_launch *L, VkDescriptorSet set)
{
    VkDescriptorImageInfo info[VKRR_VK_BIND_COUNT][VKRR_VK_MAX_TEXTURES];
    VkWriteDescriptorSet w[VKRR_VK_BIND_COUNT];
    memset(w, 0, sizeof w);
    for (uint32_t b = VKRR_VK_BIND_TEX; b < VKRR_VK_BIND_COUNT; b++) {
        bool tex = b < VKRR_VK_BIND_SURF8;
        uint32_t n = vkrr_vk_table_size(b);
        for (uint32_t s = 0; s < n; s++)
            info[b][s] = (VkDescriptorImageInfo){
                .sampler = tex ? d->dummy_sampler : VK_NULL_HANDLE,
                .imageView = d->dummy[b].view,
                .imageLayout = tex ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL,
            };
        w[b] = (VkWriteDescriptorSet){
            .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
            .dstSet = set,
            .dstBinding = b,
            .descriptorCount = n,
            .descriptorType = tex ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
            .pImageInfo = info[b],
        };
    }
    for (uint32_t i = 0; i < L->nimgs; i++) {
        VkDescriptorImageInfo *ii = &info[L->binding[i]][L->slot[i]];
        ii->imageView = L->imgs[i].view;
        if (L->samplers[i])
            ii->sampler = L->samplers[i];
    }
    VkDescriptorBufferInfo pb = {L->params.buf, 0, VK_WHOLE_SIZE};
    w[0] = (VkWriteDescriptorSet){
        .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
        .dstSet = set,
        .dstBinding = VKRR_VK_BIND_PARAMS,
        .descriptorCount = 1,
        .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .pBufferInfo = &pb,
    };
    vk->fn.vkUpdateDescriptorSets(vk->device, VKRR_VK_BIND_COUNT, w, 0, NULL);
}

