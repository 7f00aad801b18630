/* vklaunch.c - device-level state and one launch's resources and commands. */
#include "vkdev.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "approx.h"
#include "cuformat.h"

/* Integer view formats of the surface bindings 4..8, by texel size. */
static const VkFormat surf_view_format[5] = {VK_FORMAT_R8_UINT, VK_FORMAT_R16_UINT,
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
static uint32_t table_size(uint32_t binding)
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

static vkrr_status vkcheck(VkResult r, const char *what, vkrr_error *err)
{
    if (r == VK_SUCCESS)
        return VKRR_OK;
    return vkrr_fail(err, r == VK_ERROR_DEVICE_LOST ? VKRR_ERR_DEVICE : VKRR_ERR_DEVICE, NULL, 0, -1,
                     "%s: %s", what, vkrr_vk_result_name(r));
}

static void image_barrier(vkrr_vk_ctx *vk, VkCommandBuffer cmd, VkImage img, VkImageLayout from,
                          VkImageLayout to, VkAccessFlags src_access, VkAccessFlags dst_access,
                          VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage)
{
    VkImageMemoryBarrier b = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
        .srcAccessMask = src_access,
        .dstAccessMask = dst_access,
        .oldLayout = from,
        .newLayout = to,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = img,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
    };
    vk->fn.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

static void memory_barrier(vkrr_vk_ctx *vk, VkCommandBuffer cmd, VkAccessFlags src_access,
                           VkAccessFlags dst_access, VkPipelineStageFlags src_stage,
                           VkPipelineStageFlags dst_stage)
{
    VkMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                         .srcAccessMask = src_access,
                         .dstAccessMask = dst_access};
    vk->fn.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, NULL, 0, NULL);
}

static vkrr_status begin(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err)
{
    vkrr_status st = vkcheck(vk->fn.vkResetCommandPool(vk->device, d->cmdpool, 0), "vkResetCommandPool", err);
    if (st != VKRR_OK)
        return st;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    return vkcheck(vk->fn.vkBeginCommandBuffer(d->cmd, &bi), "vkBeginCommandBuffer", err);
}

/* ---- device-level state ---- */

static vkrr_status make_dummies(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err)
{
    static const VkFormat tex_format[3] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UINT,
                                           VK_FORMAT_R8G8B8A8_SINT};
    vkrr_status st;
    for (int b = VKRR_VK_BIND_TEX; b < VKRR_VK_BIND_COUNT; b++) {
        bool tex = b < VKRR_VK_BIND_SURF8;
        VkFormat f = tex ? tex_format[b - VKRR_VK_BIND_TEX] : surf_view_format[b - VKRR_VK_BIND_SURF8];
        VkImageUsageFlags u = VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                              (tex ? VK_IMAGE_USAGE_SAMPLED_BIT : VK_IMAGE_USAGE_STORAGE_BIT);
        if ((st = vkrr_vk_image_create(vk, 1, 1, f, f, u, &d->dummy[b], err)) != VKRR_OK)
            return st;
    }
    if ((st = begin(vk, d, err)) != VKRR_OK)
        return st;
    VkClearColorValue zero = {{0}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    for (int b = VKRR_VK_BIND_TEX; b < VKRR_VK_BIND_COUNT; b++) {
        bool tex = b < VKRR_VK_BIND_SURF8;
        image_barrier(vk, d->cmd, d->dummy[b].img, VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
        vk->fn.vkCmdClearColorImage(d->cmd, d->dummy[b].img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                    &zero, 1, &range);
        image_barrier(vk, d->cmd, d->dummy[b].img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      tex ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL,
                      VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    }
    if ((st = vkcheck(vk->fn.vkEndCommandBuffer(d->cmd), "vkEndCommandBuffer", err)) != VKRR_OK)
        return st;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                       .pCommandBuffers = &d->cmd};
    if ((st = vkcheck(vk->fn.vkQueueSubmit(vk->queue, 1, &si, d->fence), "vkQueueSubmit", err)) != VKRR_OK)
        return st;
    if ((st = vkcheck(vk->fn.vkWaitForFences(vk->device, 1, &d->fence, VK_TRUE, UINT64_MAX),
                      "vkWaitForFences", err)) != VKRR_OK)
        return st;
    return vkcheck(vk->fn.vkResetFences(vk->device, 1, &d->fence), "vkResetFences", err);
}

/* Timing is optional: a queue family without timestamps (timestampValidBits
 * 0) or a device without a period just reports no GPU time. */
static vkrr_status make_timestamps(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err)
{
    if (!vk->timestamp_bits || !(vk->props.limits.timestampPeriod > 0))
        return VKRR_OK;
    d->timestamp_bits = vk->timestamp_bits;
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
    return vkcheck(vk->fn.vkCreateQueryPool(vk->device, &qi, NULL, &d->timestamps),
                   "vkCreateQueryPool", err);
}

double vkrr_vk_launch_gpu_ms(vkrr_vk_ctx *vk, const vkrr_vk_dev *d)
{
    if (!d->timestamps)
        return NAN;
    uint64_t t[2];
    VkResult r = vk->fn.vkGetQueryPoolResults(vk->device, d->timestamps, 0, 2, sizeof t, t, sizeof t[0],
                                              VK_QUERY_RESULT_64_BIT);
    if (r != VK_SUCCESS)
        return NAN;
    uint64_t mask = d->timestamp_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << d->timestamp_bits) - 1;
    uint64_t ticks = ((t[1] & mask) - (t[0] & mask)) & mask; /* wraps within the valid bits */
    return (double)ticks * (double)vk->props.limits.timestampPeriod * 1e-6;
}

vkrr_status vkrr_vk_dev_init(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err)
{
    vkrr_status st;
    memset(d, 0, sizeof *d);
    VkDescriptorSetLayoutBinding b[VKRR_VK_BIND_COUNT];
    memset(b, 0, sizeof b);
    for (uint32_t i = 0; i < VKRR_VK_BIND_COUNT; i++) {
        b[i].binding = i;
        b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        b[i].descriptorType = i == VKRR_VK_BIND_PARAMS ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                              : i < VKRR_VK_BIND_SURF8 ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                                      : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
        b[i].descriptorCount = table_size(i);
    }
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = VKRR_VK_BIND_COUNT, .pBindings = b};
    if ((st = vkcheck(vk->fn.vkCreateDescriptorSetLayout(vk->device, &li, NULL, &d->dsl),
                      "vkCreateDescriptorSetLayout", err)) != VKRR_OK)
        goto fail;
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .setLayoutCount = 1, .pSetLayouts = &d->dsl};
    if ((st = vkcheck(vk->fn.vkCreatePipelineLayout(vk->device, &pli, NULL, &d->layout),
                      "vkCreatePipelineLayout", err)) != VKRR_OK)
        goto fail;
    VkDescriptorPoolSize ps[3] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VKRR_VK_MAX_TEXTURES + 2 * VKRR_VK_MAX_INT_TEXTURES},
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 5 * VKRR_VK_MAX_SURFACES},
    };
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1, .poolSizeCount = 3, .pPoolSizes = ps};
    if ((st = vkcheck(vk->fn.vkCreateDescriptorPool(vk->device, &pi, NULL, &d->pool),
                      "vkCreateDescriptorPool", err)) != VKRR_OK)
        goto fail;
    VkCommandPoolCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .queueFamilyIndex = vk->queue_family};
    if ((st = vkcheck(vk->fn.vkCreateCommandPool(vk->device, &ci, NULL, &d->cmdpool),
                      "vkCreateCommandPool", err)) != VKRR_OK)
        goto fail;
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = d->cmdpool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    if ((st = vkcheck(vk->fn.vkAllocateCommandBuffers(vk->device, &ai, &d->cmd),
                      "vkAllocateCommandBuffers", err)) != VKRR_OK)
        goto fail;
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if ((st = vkcheck(vk->fn.vkCreateFence(vk->device, &fi, NULL, &d->fence), "vkCreateFence", err)) != VKRR_OK)
        goto fail;
    VkSamplerCreateInfo si = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = VK_FILTER_NEAREST,
        .minFilter = VK_FILTER_NEAREST,
        .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    };
    if ((st = vkcheck(vk->fn.vkCreateSampler(vk->device, &si, NULL, &d->dummy_sampler),
                      "vkCreateSampler", err)) != VKRR_OK)
        goto fail;
    if ((st = make_dummies(vk, d, err)) != VKRR_OK)
        goto fail;
    if ((st = make_timestamps(vk, d, err)) != VKRR_OK)
        goto fail;
    /* Read through a device address, so no descriptor binding changes; host
     * memory is fine for 512 KiB that a port reads a few times a pixel. */
    if ((st = vkrr_vk_buffer_create(vk, VKRR_APPROX_TABLE_BYTES,
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                        VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                    VKRR_VK_MEM_HOST, &d->approx, err)) != VKRR_OK)
        goto fail;
    memcpy(d->approx.map, vkrr_approx_tables(), VKRR_APPROX_TABLE_BYTES);
    return VKRR_OK;
fail:
    vkrr_vk_dev_fini(vk, d);
    return st;
}

void vkrr_vk_dev_fini(vkrr_vk_ctx *vk, vkrr_vk_dev *d)
{
    if (!vk->device)
        return;
    for (int b = 0; b < VKRR_VK_BIND_COUNT; b++)
        vkrr_vk_image_destroy(vk, &d->dummy[b]);
    vkrr_vk_buffer_destroy(vk, &d->approx);
    if (d->dummy_sampler)
        vk->fn.vkDestroySampler(vk->device, d->dummy_sampler, NULL);
    if (d->timestamps)
        vk->fn.vkDestroyQueryPool(vk->device, d->timestamps, NULL);
    if (d->fence)
        vk->fn.vkDestroyFence(vk->device, d->fence, NULL);
    if (d->cmdpool)
        vk->fn.vkDestroyCommandPool(vk->device, d->cmdpool, NULL);
    if (d->pool)
        vk->fn.vkDestroyDescriptorPool(vk->device, d->pool, NULL);
    if (d->layout)
        vk->fn.vkDestroyPipelineLayout(vk->device, d->layout, NULL);
    if (d->dsl)
        vk->fn.vkDestroyDescriptorSetLayout(vk->device, d->dsl, NULL);
    memset(d, 0, sizeof *d);
}

/* ---- one launch ---- */

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

static vkrr_status make_sampler(vkrr_vk_ctx *vk, const vkrr_sampler *s, VkFormat f, bool integer,
                                VkSampler *out, vkrr_error *err)
{
    VkFormatProperties fp;
    vk->fn.vkGetPhysicalDeviceFormatProperties(vk->phys, f, &fp);
    /* Ports filter by hand (porting-traps.md); the sampler only has to be a
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
    return vkcheck(vk->fn.vkCreateSampler(vk->device, &si, NULL, out), "vkCreateSampler", err);
}

/* The image format of a replay image and the view format it is bound with. */
static vkrr_status image_formats(vkrr_vk_ctx *vk, const vkrr_replay_image *im, uint32_t i,
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
        *view = surf_view_format[c];
        *binding = VKRR_VK_BIND_SURF8 + (uint32_t)c;
        f = *view;
        need = VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
    }
    vk->fn.vkGetPhysicalDeviceFormatProperties(vk->phys, f, &fp);
    if ((fp.optimalTilingFeatures & need) != need)
        return vkrr_fail(err, VKRR_ERR_FORMAT, NULL, 0, im->offset,
                         "image %u: VkFormat %d cannot be %s on %s", i, (int)f,
                         im->kind == VKRR_IMAGE_TEXTURE ? "sampled" : "a storage image",
                         vk->props.deviceName);
    return VKRR_OK;
}

#define VKRR_ALIGN16(x) (((x) + 15u) & ~(uint64_t)15u)

static bool add_size(uint64_t *total, uint64_t n)
{
    uint64_t a = VKRR_ALIGN16(n);
    if (a < n || *total + a < *total)
        return false;
    *total += a;
    return true;
}

static void *zalloc(size_t n, size_t size) { return calloc(n ? n : 1, size); }

/* Creates buffers, images and samplers, and sizes the staging buffers. */
/* Frame mode: the same allocation (base, size) or image (handle, kind,
 * size, format) in an earlier launch of the frame; false when none. */
static bool find_buf(const vkrr_vk_launch *prev, uint32_t nprev, const vkrr_replay_alloc *a,
                     vkrr_vk_buffer *out)
{
    for (uint32_t j = 0; j < nprev; j++)
        for (uint32_t k = 0; k < prev[j].nbufs; k++) {
            const vkrr_replay_alloc *b = &prev[j].r->allocs[k];
            if (b->base == a->base && b->size == a->size) {
                *out = prev[j].bufs[k];
                return true;
            }
        }
    return false;
}

static bool find_img(const vkrr_vk_launch *prev, uint32_t nprev, const vkrr_replay_image *im,
                     vkrr_vk_image *out, VkSampler *sampler)
{
    for (uint32_t j = 0; j < nprev; j++)
        for (uint32_t k = 0; k < prev[j].nimgs; k++) {
            const vkrr_replay_image *b = &prev[j].r->images[k];
            if (b->handle == im->handle && b->kind == im->kind && b->width == im->width &&
                b->height == im->height && b->format == im->format && b->channels == im->channels &&
                !memcmp(&b->sampler, &im->sampler, sizeof b->sampler)) {
                *out = prev[j].imgs[k];
                *sampler = prev[j].samplers[k];
                return true;
            }
        }
    return false;
}

static vkrr_status create_resources(vkrr_vk_ctx *vk, const vkrr_replay *r, const vkrr_vk_launch *prev,
                                    uint32_t nprev, vkrr_vk_launch *L, uint64_t *stage_bytes,
                                    uint64_t *upload_bytes, vkrr_error *err)
{
    vkrr_status st;
    L->r = r;
    L->borrowed = zalloc(r->nallocs + r->nimages, 1);
    L->nbufs = r->nallocs;
    L->nimgs = r->nimages;
    L->bufs = zalloc(r->nallocs, sizeof *L->bufs);
    L->buf_off = zalloc(r->nallocs, sizeof *L->buf_off);
    L->imgs = zalloc(r->nimages, sizeof *L->imgs);
    L->samplers = zalloc(r->nimages, sizeof *L->samplers);
    L->binding = zalloc(r->nimages, sizeof *L->binding);
    L->slot = zalloc(r->nimages, sizeof *L->slot);
    L->img_off = zalloc(r->nimages, sizeof *L->img_off);
    if (!L->bufs || !L->buf_off || !L->imgs || !L->samplers || !L->binding || !L->slot ||
        !L->img_off || !L->borrowed)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory for a launch");
    uint64_t up = 0, tex_up = 0;
    const VkBufferUsageFlags busage = VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    for (uint32_t a = 0; a < r->nallocs; a++) {
        if (find_buf(prev, nprev, &r->allocs[a], &L->bufs[a])) {
            L->borrowed[a] = 1;
            continue;
        }
        if ((st = vkrr_vk_buffer_create(vk, r->allocs[a].size, busage, VKRR_VK_MEM_DEVICE_MAPPED,
                                        &L->bufs[a], err)) != VKRR_OK)
            return st;
        L->buf_off[a] = up;
        if (!L->bufs[a].map && !add_size(&up, r->allocs[a].size))
            return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1, "allocation sizes overflow");
    }
    uint32_t used[VKRR_VK_BIND_COUNT] = {0};
    for (uint32_t i = 0; i < r->nimages; i++) {
        const vkrr_replay_image *im = &r->images[i];
        VkFormat fmt = VK_FORMAT_UNDEFINED, view = VK_FORMAT_UNDEFINED;
        uint32_t binding = 0;
        if ((st = image_formats(vk, im, i, &fmt, &view, &binding, err)) != VKRR_OK)
            return st;
        bool tex = im->kind == VKRR_IMAGE_TEXTURE;
        uint32_t cap = table_size(binding);
        if (used[binding] >= cap)
            return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, im->offset,
                             "more than %u images for binding %u (bindings.glsl)", cap, binding);
        if (im->width == 0 || im->height == 0 || im->width > vk->props.limits.maxImageDimension2D ||
            im->height > vk->props.limits.maxImageDimension2D)
            return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, im->offset,
                             "image %u: %ux%u is not a valid 2D image size on this device", i,
                             im->width, im->height);
        L->binding[i] = binding;
        L->slot[i] = used[binding]++;
        if (find_img(prev, nprev, im, &L->imgs[i], &L->samplers[i])) {
            L->borrowed[r->nallocs + i] = 1;
            continue;
        }
        VkImageUsageFlags u = VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                              (tex ? VK_IMAGE_USAGE_SAMPLED_BIT
                                   : VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
        if ((st = vkrr_vk_image_create(vk, im->width, im->height, fmt, view, u, &L->imgs[i], err)) != VKRR_OK)
            return st;
        if (tex && (st = make_sampler(vk, &im->sampler, fmt, im->sampler.read_as_integer,
                                      &L->samplers[i], err)) != VKRR_OK)
            return st;
        uint64_t bytes = vkrr_replay_image_bytes(im);
        L->img_off[i] = tex ? tex_up : up;
        if (!add_size(tex ? &tex_up : &up, bytes))
            return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1, "image sizes overflow");
    }
    *stage_bytes = up;
    *upload_bytes = tex_up;
    return VKRR_OK;
}

static void write_descriptors(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_vk_launch *L, VkDescriptorSet set)
{
    VkDescriptorImageInfo info[VKRR_VK_BIND_COUNT][VKRR_VK_MAX_TEXTURES];
    VkWriteDescriptorSet w[VKRR_VK_BIND_COUNT];
    memset(w, 0, sizeof w);
    for (uint32_t b = VKRR_VK_BIND_TEX; b < VKRR_VK_BIND_COUNT; b++) {
        bool tex = b < VKRR_VK_BIND_SURF8;
        uint32_t n = table_size(b);
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

/* Uploads and layout transitions of the resources L owns (not borrowed). */
static void record_upload(vkrr_vk_ctx *vk, VkCommandBuffer cmd, const vkrr_replay *r,
                          const vkrr_vk_launch *L)
{
    const VkPipelineStageFlags T = VK_PIPELINE_STAGE_TRANSFER_BIT, C = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    for (uint32_t a = 0; a < L->nbufs; a++) {
        VkBufferCopy c = {L->buf_off[a], 0, r->allocs[a].size};
        if (c.size && !L->bufs[a].map && !L->borrowed[a])
            vk->fn.vkCmdCopyBuffer(cmd, L->stage.buf, L->bufs[a].buf, 1, &c);
    }
    for (uint32_t i = 0; i < L->nimgs; i++) {
        if (L->borrowed[L->nbufs + i])
            continue;
        image_barrier(vk, cmd, L->imgs[i].img, VK_IMAGE_LAYOUT_UNDEFINED,
                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, T);
        VkBufferImageCopy c = {.bufferOffset = L->img_off[i],
                               .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                               .imageExtent = {r->images[i].width, r->images[i].height, 1}};
        bool tex = r->images[i].kind == VKRR_IMAGE_TEXTURE;
        vk->fn.vkCmdCopyBufferToImage(cmd, tex ? L->upload.buf : L->stage.buf, L->imgs[i].img,
                                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &c);
        image_barrier(vk, cmd, L->imgs[i].img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                      tex ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL,
                      VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_ACCESS_SHADER_READ_BIT | (tex ? 0 : VK_ACCESS_SHADER_WRITE_BIT), T, C);
    }
}

static void upload_barrier(vkrr_vk_ctx *vk, VkCommandBuffer cmd)
{
    memory_barrier(vk, cmd, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
}

static void record_dispatch(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r,
                            const vkrr_vk_launch *L, VkPipeline pipe)
{
    vk->fn.vkCmdBindPipeline(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    vk->fn.vkCmdBindDescriptorSets(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, 0, 1, &L->set,
                                   0, NULL);
    vk->fn.vkCmdDispatch(d->cmd, r->grid[0], r->grid[1], r->grid[2]);
}

static void record(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r, const vkrr_vk_launch *L,
                   VkPipeline pipe)
{
    VkCommandBuffer cmd = d->cmd;
    const VkPipelineStageFlags T = VK_PIPELINE_STAGE_TRANSFER_BIT, C = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    if (d->timestamps)
        vk->fn.vkCmdResetQueryPool(cmd, d->timestamps, 0, 2);
    record_upload(vk, cmd, r, L);
    upload_barrier(vk, cmd);
    /* BOTTOM_OF_PIPE both times: the first waits for the uploads, the second
     * for the dispatch, so the difference is the dispatch alone. */
    if (d->timestamps)
        vk->fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->timestamps, 0);
    record_dispatch(vk, d, r, L, pipe);
    if (d->timestamps)
        vk->fn.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->timestamps, 1);
    /* The read-back reuses each resource's upload region: the barriers
     * around the dispatch order it after the upload that read it. */
    memory_barrier(vk, cmd, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, C, T);
    for (uint32_t a = 0; a < L->nbufs; a++) {
        VkBufferCopy c = {0, L->buf_off[a], r->allocs[a].size};
        if (c.size && !L->bufs[a].map)
            vk->fn.vkCmdCopyBuffer(cmd, L->bufs[a].buf, L->stage.buf, 1, &c);
    }
    for (uint32_t i = 0; i < L->nimgs; i++) {
        if (r->images[i].kind != VKRR_IMAGE_SURFACE)
            continue;
        image_barrier(vk, cmd, L->imgs[i].img, VK_IMAGE_LAYOUT_GENERAL,
                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT, C, T);
        VkBufferImageCopy c = {.bufferOffset = L->img_off[i],
                               .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                               .imageExtent = {r->images[i].width, r->images[i].height, 1}};
        vk->fn.vkCmdCopyImageToBuffer(cmd, L->imgs[i].img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                      L->stage.buf, 1, &c);
    }
    /* mapped buffers are read by the host straight after the dispatch */
    memory_barrier(vk, cmd, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                   VK_ACCESS_HOST_READ_BIT, T | C, VK_PIPELINE_STAGE_HOST_BIT);
}

/* Resources (borrowing from prev), staging filled, parameter block,
 * descriptor set from pool. */
static vkrr_status setup(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r,
                         const vkrr_vk_launch *prev, uint32_t nprev, VkDescriptorPool pool,
                         vkrr_vk_launch *L, vkrr_error *err)
{
    vkrr_status st;
    uint64_t *addr = NULL, *words = NULL;
    memset(L, 0, sizeof *L);
    uint64_t stage_bytes = 0, upload_bytes = 0;
    if ((st = create_resources(vk, r, prev, nprev, L, &stage_bytes, &upload_bytes, err)) != VKRR_OK)
        goto fail;
    if ((st = vkrr_vk_buffer_create(vk, upload_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                    VKRR_VK_MEM_HOST, &L->upload, err)) != VKRR_OK)
        goto fail;
    if ((st = vkrr_vk_buffer_create(vk, stage_bytes,
                                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    VKRR_VK_MEM_HOST, &L->stage, err)) != VKRR_OK ||
        (st = vkrr_vk_buffer_create(vk, r->args_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                    VKRR_VK_MEM_HOST, &L->params, err)) != VKRR_OK)
        goto fail;
    uint8_t *up = L->stage.map;
    for (uint32_t a = 0; a < r->nallocs; a++) {
        if (L->borrowed[a])
            continue;
        uint8_t *dst = L->bufs[a].map ? L->bufs[a].map : up + L->buf_off[a];
        if (r->allocs[a].pre)
            memcpy(dst, r->allocs[a].pre, r->allocs[a].size);
        else
            memset(dst, 0, r->allocs[a].size);
        if (r->pre_done && r->allocs[a].pre)
            r->pre_done(r->pre_done_ctx, r->allocs[a].pre);
    }
    addr = zalloc(r->nallocs, sizeof *addr);
    words = zalloc(r->nimages, sizeof *words);
    if (!addr || !words) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory for a launch");
        goto fail;
    }
    for (uint32_t a = 0; a < r->nallocs; a++)
        addr[a] = L->bufs[a].addr;
    for (uint32_t i = 0; i < r->nimages; i++) {
        const vkrr_replay_image *im = &r->images[i];
        words[i] = L->slot[i];
        if (L->borrowed[r->nallocs + i])
            continue;
        uint64_t bytes = vkrr_replay_image_bytes(im);
        uint8_t *dst = (im->kind == VKRR_IMAGE_TEXTURE ? (uint8_t *)L->upload.map : up) + L->img_off[i];
        if (im->pre)
            memcpy(dst, im->pre, bytes);
        else
            memset(dst, im->kind == VKRR_IMAGE_SURFACE ? VKRR_SENTINEL_BYTE : 0, bytes);
        if (r->pre_done && im->pre)
            r->pre_done(r->pre_done_ctx, im->pre);
    }
    memset(L->params.map, 0, L->params.size);
    if ((st = vkrr_replay_relocate(r, addr, words, L->params.map, err)) != VKRR_OK)
        goto fail;
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = pool, .descriptorSetCount = 1,
                                      .pSetLayouts = &d->dsl};
    if ((st = vkcheck(vk->fn.vkAllocateDescriptorSets(vk->device, &ai, &L->set),
                      "vkAllocateDescriptorSets", err)) != VKRR_OK)
        goto fail;
    write_descriptors(vk, d, L, L->set);
    free(addr);
    free(words);
    return VKRR_OK;
fail:
    free(addr);
    free(words);
    vkrr_vk_launch_free(vk, L);
    return st;
}

vkrr_status vkrr_vk_launch_prepare(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r,
                                   VkPipeline pipe, vkrr_vk_launch *L, vkrr_error *err)
{
    vkrr_status st;
    memset(L, 0, sizeof *L);
    if ((st = vkcheck(vk->fn.vkResetDescriptorPool(vk->device, d->pool, 0), "vkResetDescriptorPool", err)) != VKRR_OK)
        return st;
    if ((st = setup(vk, d, r, NULL, 0, d->pool, L, err)) != VKRR_OK)
        return st;
    if ((st = begin(vk, d, err)) != VKRR_OK)
        goto fail;
    record(vk, d, r, L, pipe);
    if ((st = vkcheck(vk->fn.vkEndCommandBuffer(d->cmd), "vkEndCommandBuffer", err)) != VKRR_OK)
        goto fail;
    return VKRR_OK;
fail:
    vkrr_vk_launch_free(vk, L);
    return st;
}

/* Does launch k use a buffer or image that launches [from, k) used? */
static bool touches_earlier(const vkrr_vk_launch *L, uint32_t from, uint32_t k)
{
    for (uint32_t j = from; j < k; j++) {
        for (uint32_t a = 0; a < L[k].nbufs; a++)
            for (uint32_t b = 0; b < L[j].nbufs; b++)
                if (L[k].bufs[a].buf == L[j].bufs[b].buf)
                    return true;
        for (uint32_t i = 0; i < L[k].nimgs; i++)
            for (uint32_t m = 0; m < L[j].nimgs; m++)
                if (L[k].imgs[i].img == L[j].imgs[m].img &&
                    L[j].r->images[m].kind == VKRR_IMAGE_SURFACE)
                    return true;
    }
    return false;
}

vkrr_status vkrr_vk_frame_prepare(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_replay *const *r,
                                  const VkPipeline *pipes, uint32_t n, vkrr_vk_launch *L,
                                  VkDescriptorPool *pool, uint32_t *barriers, vkrr_error *err)
{
    vkrr_status st;
    *barriers = 0;
    VkDescriptorPoolSize ps[3] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, n * (VKRR_VK_MAX_TEXTURES + 2 * VKRR_VK_MAX_INT_TEXTURES)},
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, n * 5 * VKRR_VK_MAX_SURFACES},
    };
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = n, .poolSizeCount = 3, .pPoolSizes = ps};
    if ((st = vkcheck(vk->fn.vkCreateDescriptorPool(vk->device, &pi, NULL, pool),
                      "vkCreateDescriptorPool", err)) != VKRR_OK)
        return st;
    for (uint32_t k = 0; k < n; k++)
        if ((st = setup(vk, d, r[k], L, k, *pool, &L[k], err)) != VKRR_OK)
            return st;
    if ((st = begin(vk, d, err)) != VKRR_OK)
        return st;
    if (d->timestamps)
        vk->fn.vkCmdResetQueryPool(d->cmd, d->timestamps, 0, 2);
    for (uint32_t k = 0; k < n; k++)
        record_upload(vk, d->cmd, r[k], &L[k]);
    upload_barrier(vk, d->cmd);
    if (d->timestamps)
        vk->fn.vkCmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->timestamps, 0);
    uint32_t since = 0; /* first launch after the last barrier */
    for (uint32_t k = 0; k < n; k++) {
        if (touches_earlier(L, since, k)) {
            memory_barrier(vk, d->cmd, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
            ++*barriers;
            since = k;
        }
        record_dispatch(vk, d, r[k], &L[k], pipes[k]);
    }
    if (d->timestamps)
        vk->fn.vkCmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->timestamps, 1);
    return vkcheck(vk->fn.vkEndCommandBuffer(d->cmd), "vkEndCommandBuffer", err);
}

void vkrr_vk_launch_finish(vkrr_replay *r, const vkrr_vk_launch *L)
{
    uint8_t *stage = L->stage.map;
    for (uint32_t a = 0; a < r->nallocs; a++) {
        vkrr_replay_alloc *al = &r->allocs[a];
        al->post_view = L->bufs[a].map ? L->bufs[a].map : stage + L->buf_off[a];
        if (al->post)
            memcpy(al->post, al->post_view, al->size);
    }
    for (uint32_t i = 0; i < r->nimages; i++) {
        vkrr_replay_image *im = &r->images[i];
        if (im->kind != VKRR_IMAGE_SURFACE)
            continue;
        im->post_view = stage + L->img_off[i];
        if (im->post)
            memcpy(im->post, im->post_view, vkrr_replay_image_bytes(im));
    }
}

void vkrr_vk_launch_free(vkrr_vk_ctx *vk, vkrr_vk_launch *L)
{
    if (!L)
        return;
    for (uint32_t a = 0; L->bufs && a < L->nbufs; a++)
        if (!L->borrowed || !L->borrowed[a])
            vkrr_vk_buffer_destroy(vk, &L->bufs[a]);
    for (uint32_t i = 0; L->imgs && i < L->nimgs; i++) {
        if (L->borrowed && L->borrowed[L->nbufs + i])
            continue;
        vkrr_vk_image_destroy(vk, &L->imgs[i]);
        if (L->samplers && L->samplers[i])
            vk->fn.vkDestroySampler(vk->device, L->samplers[i], NULL);
    }
    vkrr_vk_buffer_destroy(vk, &L->params);
    vkrr_vk_buffer_destroy(vk, &L->stage);
    vkrr_vk_buffer_destroy(vk, &L->upload);
    free(L->bufs);
    free(L->imgs);
    free(L->samplers);
    free(L->binding);
    free(L->slot);
    free(L->img_off);
    free(L->buf_off);
    free(L->borrowed);
    memset(L, 0, sizeof *L);
}
