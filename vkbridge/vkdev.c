/* vkdev.c - vkbridge's device-level state (what outlives a launch): the
 * descriptor set layout and pool, the command buffer and fence, the dummies
 * for unused table slots, the approximate-instruction tables, and the
 * timestamp queries that time a dispatch. */
#include "vkdev.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "approx.h"

static vkrr_status make_dummies(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err)
{
    static const VkFormat tex_format[3] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UINT,
                                           VK_FORMAT_R8G8B8A8_SINT};
    vkrr_status st;
    for (int b = VKRR_VK_BIND_TEX; b < VKRR_VK_BIND_COUNT; b++) {
        bool tex = b < VKRR_VK_BIND_SURF8;
        VkFormat f = tex ? tex_format[b - VKRR_VK_BIND_TEX] : vkrr_vk_surf_view_format[b - VKRR_VK_BIND_SURF8];
        VkImageUsageFlags u = VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                              (tex ? VK_IMAGE_USAGE_SAMPLED_BIT : VK_IMAGE_USAGE_STORAGE_BIT);
        if ((st = vkrr_vk_image_create(vk, 1, 1, f, f, u, &d->dummy[b], err)) != VKRR_OK)
            return st;
    }
    if ((st = vkrr_vk_cmd_begin(vk, d, err)) != VKRR_OK)
        return st;
    VkClearColorValue zero = {{0}};
    VkImageSubresourceRange range = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    for (int b = VKRR_VK_BIND_TEX; b < VKRR_VK_BIND_COUNT; b++) {
        bool tex = b < VKRR_VK_BIND_SURF8;
        vkrr_vk_image_barrier(vk, d->cmd, d->dummy[b].img, VK_IMAGE_LAYOUT_UNDEFINED,
                              VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
        vk->fn.vkCmdClearColorImage(d->cmd, d->dummy[b].img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                    &zero, 1, &range);
        vkrr_vk_image_barrier(vk, d->cmd, d->dummy[b].img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                              tex ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL,
                              VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    }
    return vkrr_vk_submit_wait(vk, d, err);
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
    return vkrr_vk_check(vk->fn.vkCreateQueryPool(vk->device, &qi, NULL, &d->timestamps),
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
        b[i].descriptorCount = vkrr_vk_table_size(i);
    }
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = VKRR_VK_BIND_COUNT, .pBindings = b};
    if ((st = vkrr_vk_check(vk->fn.vkCreateDescriptorSetLayout(vk->device, &li, NULL, &d->dsl),
                            "vkCreateDescriptorSetLayout", err)) != VKRR_OK)
        goto fail;
    /* push constants: bindings.glsl's VkrrPush (VKRR_VK_PUSH_WORDS) */
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, VKRR_VK_PUSH_WORDS * 4};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .setLayoutCount = 1, .pSetLayouts = &d->dsl,
                                      .pushConstantRangeCount = 1, .pPushConstantRanges = &pcr};
    if ((st = vkrr_vk_check(vk->fn.vkCreatePipelineLayout(vk->device, &pli, NULL, &d->layout),
                            "vkCreatePipelineLayout", err)) != VKRR_OK)
        goto fail;
    VkDescriptorPoolSize ps[3] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VKRR_VK_MAX_TEXTURES + 2 * VKRR_VK_MAX_INT_TEXTURES},
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 5 * VKRR_VK_MAX_SURFACES},
    };
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = 1, .poolSizeCount = 3, .pPoolSizes = ps};
    if ((st = vkrr_vk_check(vk->fn.vkCreateDescriptorPool(vk->device, &pi, NULL, &d->pool),
                            "vkCreateDescriptorPool", err)) != VKRR_OK)
        goto fail;
    VkCommandPoolCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .queueFamilyIndex = vk->queue_family};
    if ((st = vkrr_vk_check(vk->fn.vkCreateCommandPool(vk->device, &ci, NULL, &d->cmdpool),
                            "vkCreateCommandPool", err)) != VKRR_OK)
        goto fail;
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = d->cmdpool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    if ((st = vkrr_vk_check(vk->fn.vkAllocateCommandBuffers(vk->device, &ai, &d->cmd),
                            "vkAllocateCommandBuffers", err)) != VKRR_OK)
        goto fail;
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if ((st = vkrr_vk_check(vk->fn.vkCreateFence(vk->device, &fi, NULL, &d->fence), "vkCreateFence", err)) != VKRR_OK)
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
    if ((st = vkrr_vk_check(vk->fn.vkCreateSampler(vk->device, &si, NULL, &d->dummy_sampler),
                            "vkCreateSampler", err)) != VKRR_OK)
        goto fail;
    if ((st = make_dummies(vk, d, err)) != VKRR_OK)
        goto fail;
    if ((st = make_timestamps(vk, d, err)) != VKRR_OK)
        goto fail;
    /* Read through a device address, so no descriptor binding changes; host
     * memory is fine for the 768 KiB that a port reads a few times a pixel. */
    if ((st = vkrr_vk_buffer_create(vk, VKRR_APPROX_PORT_TABLE_BYTES,
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                        VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                    VKRR_VK_MEM_HOST, &d->approx, err)) != VKRR_OK)
        goto fail;
    if ((st = vkrr_vk_dev_approx_refresh(d, err)) != VKRR_OK)
        goto fail;
    return VKRR_OK;
fail:
    vkrr_vk_dev_fini(vk, d);
    return st;
}

vkrr_status vkrr_vk_dev_approx_refresh(vkrr_vk_dev *d, vkrr_error *err)
{
    const uint32_t *t;
    vkrr_status st = vkrr_approx_port_tables(&t, err);
    if (st == VKRR_OK && t != d->approx_src) {
        memcpy(d->approx.map, t, VKRR_APPROX_PORT_TABLE_BYTES);
        d->approx_src = t;
    }
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

