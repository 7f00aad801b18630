/* vkrecord.c - command recording: barriers, the upload of a launch's
 * resources, its dispatch between two timestamps and the read-back of its
 * outputs; and a frame's launches in one command buffer with a barrier only
 * where a launch uses what an earlier one used. */
#include "vkdev.h"

#include <string.h>

#include "texfilter.h"

void vkrr_vk_image_barrier(vkrr_vk_ctx *vk, VkCommandBuffer cmd, VkImage img, VkImageLayout from,
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

void vkrr_vk_memory_barrier(vkrr_vk_ctx *vk, VkCommandBuffer cmd, VkAccessFlags src_access,
                            VkAccessFlags dst_access, VkPipelineStageFlags src_stage,
                            VkPipelineStageFlags dst_stage)
{
    VkMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                         .srcAccessMask = src_access,
                         .dstAccessMask = dst_access};
    vk->fn.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, NULL, 0, NULL);
}

vkrr_status vkrr_vk_cmd_begin(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err)
{
    vkrr_status st = vkrr_vk_check(vk->fn.vkResetCommandPool(vk->device, d->cmdpool, 0), "vkResetCommandPool", err);
    if (st != VKRR_OK)
        return st;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    return vkrr_vk_check(vk->fn.vkBeginCommandBuffer(d->cmd, &bi), "vkBeginCommandBuffer", err);
}

vkrr_status vkrr_vk_submit_wait(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err)
{
    vkrr_status st;
    if ((st = vkrr_vk_check(vk->fn.vkEndCommandBuffer(d->cmd), "vkEndCommandBuffer", err)) != VKRR_OK)
        return st;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                       .pCommandBuffers = &d->cmd};
    if ((st = vkrr_vk_check(vk->fn.vkQueueSubmit(vk->queue, 1, &si, d->fence), "vkQueueSubmit", err)) != VKRR_OK)
        return st;
    if ((st = vkrr_vk_check(vk->fn.vkWaitForFences(vk->device, 1, &d->fence, VK_TRUE, UINT64_MAX),
                            "vkWaitForFences", err)) != VKRR_OK)
        return st;
    return vkrr_vk_check(vk->fn.vkResetFences(vk->device, 1, &d->fence), "vkResetFences", err);
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
        vkrr_vk_image_barrier(vk, cmd, L->imgs[i].img, VK_IMAGE_LAYOUT_UNDEFINED,
                              VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, T);
        VkBufferImageCopy c = {.bufferOffset = L->img_off[i],
                               .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                               .imageExtent = {r->images[i].width, r->images[i].height, 1}};
        bool tex = r->images[i].kind == VKRR_IMAGE_TEXTURE;
        vk->fn.vkCmdCopyBufferToImage(cmd, tex ? L->upload.buf : L->stage.buf, L->imgs[i].img,
                                      VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &c);
        vkrr_vk_image_barrier(vk, cmd, L->imgs[i].img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                              vkrr_vk_bound_layout(L, i), VK_ACCESS_TRANSFER_WRITE_BIT,
                              VK_ACCESS_SHADER_READ_BIT | (tex ? 0 : VK_ACCESS_SHADER_WRITE_BIT), T, C);
    }
}

static void upload_barrier(vkrr_vk_ctx *vk, VkCommandBuffer cmd)
{
    /* UNIFORM_READ: an own interface may read an allocation as a uniform buffer */
    vkrr_vk_memory_barrier(vk, cmd, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT,
                           VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
}

/* What a port's filter needs to know of each float texture slot and cannot
 * ask the image (bindings.glsl vkrr_texinfo): its CUarray format, channels,
 * whether it is an array (not linear memory), and the sampler state the
 * original ran with (logged, or found by running it: sampler_fit.h), so a
 * port samples as it did, whatever the state; and the current hardware
 * model's filter weight bits (texfilter.h).  After them, the address of the
 * approximate-instruction tables (math.glsl): a push constant, not a
 * specialisation constant, so the shader is the same in every process and
 * the driver's shader cache (lavapipe's on disk) finds it. */
static void push_words(const vkrr_vk_dev *d, const vkrr_replay *r, const vkrr_vk_launch *L,
                       uint32_t info[VKRR_VK_PUSH_WORDS])
{
    memset(info, 0, VKRR_VK_PUSH_WORDS * sizeof *info);
    info[VKRR_VK_MAX_TEXTURES] = (uint32_t)d->approx.addr;
    info[VKRR_VK_MAX_TEXTURES + 1] = (uint32_t)(d->approx.addr >> 32);
    for (uint32_t i = 0; i < r->nimages; i++) {
        const vkrr_replay_image *im = &r->images[i];
        if (im->kind != VKRR_IMAGE_TEXTURE || L->binding[i] != VKRR_VK_BIND_TEX ||
            L->slot[i] >= VKRR_VK_MAX_TEXTURES)
            continue;
        info[L->slot[i]] = (im->format & 0xffu) | (im->channels & 0xffu) << 8 |
                           (im->resource == VKRR_TEXRES_ARRAY ? 1u << 16 : 0u) |
                           (im->sampler.filter == VKRR_FILTER_LINEAR ? 1u << 17 : 0u) |
                           (im->sampler.normalized ? 1u << 18 : 0u) |
                           ((uint32_t)im->sampler.address[0] & 3u) << 19 |
                           ((uint32_t)im->sampler.address[1] & 3u) << 21 |
                           (vkrr_texfilter_bits() & 15u) << 23;
    }
}

/* A later pass of a split launch: after everything the passes before it
 * wrote (allocations and scratch buffers alike), its own pipeline, sets,
 * push constants and grid. */
static void record_pass(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_vk_pass *P)
{
    const VkPipelineStageFlags C = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    vkrr_vk_memory_barrier(vk, d->cmd, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_UNIFORM_READ_BIT,
                           C, C);
    vk->fn.vkCmdBindPipeline(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, P->pipe);
    if (P->own->nsets)
        vk->fn.vkCmdBindDescriptorSets(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, P->own->layout, 0,
                                       P->own->nsets, P->sets, 0, NULL);
    if (P->own->push_size)
        vk->fn.vkCmdPushConstants(d->cmd, P->own->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                  P->own->push_size, P->run.push);
    vk->fn.vkCmdDispatch(d->cmd, P->run.dispatch[0], P->run.dispatch[1], P->run.dispatch[2]);
}

static void record_dispatch(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r,
                            const vkrr_vk_launch *L, VkPipeline pipe)
{
    uint32_t info[VKRR_VK_PUSH_WORDS];
    vk->fn.vkCmdBindPipeline(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    if (L->own) { /* the shader's own sets, its push constants, its grid */
        const vkrr_port_iface_run *run = &L->own_run;
        if (L->own->nsets)
            vk->fn.vkCmdBindDescriptorSets(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, L->own->layout, 0,
                                           L->own->nsets, L->own_sets, 0, NULL);
        if (L->own->push_size) /* bytes no push line gives are zero (push_size <= its size) */
            vk->fn.vkCmdPushConstants(d->cmd, L->own->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                      L->own->push_size, run->push);
        vk->fn.vkCmdDispatch(d->cmd, run->dispatch[0], run->dispatch[1], run->dispatch[2]);
        for (uint32_t p = 0; p < L->npasses; p++) /* a split launch's later passes, in order */
            record_pass(vk, d, &L->passes[p]);
        return;
    }
    push_words(d, r, L, info);
    vk->fn.vkCmdBindDescriptorSets(d->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, 0, 1, &L->set,
                                   0, NULL);
    vk->fn.vkCmdPushConstants(d->cmd, d->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof info, info);
    vk->fn.vkCmdDispatch(d->cmd, r->grid[0], r->grid[1], r->grid[2]);
}

void vkrr_vk_record_launch(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r, const vkrr_vk_launch *L,
                   VkPipeline pipe)
{
    VkCommandBuffer cmd = d->cmd;
    const VkPipelineStageFlags T = VK_PIPELINE_STAGE_TRANSFER_BIT, C = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    if (d->timestamps)
        vk->fn.vkCmdResetQueryPool(cmd, d->timestamps, 0, 2);
    if (!L->streamed) /* streamed: vkstream.c uploaded it */
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
    vkrr_vk_memory_barrier(vk, cmd, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, C, T);
    for (uint32_t a = 0; a < L->nbufs && !L->streamed; a++) {
        VkBufferCopy c = {0, L->buf_off[a], r->allocs[a].size};
        if (c.size && !L->bufs[a].map)
            vk->fn.vkCmdCopyBuffer(cmd, L->bufs[a].buf, L->stage.buf, 1, &c);
    }
    for (uint32_t i = 0; i < L->nimgs && !L->streamed; i++) {
        if (r->images[i].kind != VKRR_IMAGE_SURFACE)
            continue;
        vkrr_vk_image_barrier(vk, cmd, L->imgs[i].img, VK_IMAGE_LAYOUT_GENERAL,
                              VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_ACCESS_TRANSFER_READ_BIT, C, T);
        VkBufferImageCopy c = {.bufferOffset = L->img_off[i],
                               .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                               .imageExtent = {r->images[i].width, r->images[i].height, 1}};
        vk->fn.vkCmdCopyImageToBuffer(cmd, L->imgs[i].img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                      L->stage.buf, 1, &c);
    }
    /* mapped buffers are read by the host straight after the dispatch */
    vkrr_vk_memory_barrier(vk, cmd, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                           VK_ACCESS_HOST_READ_BIT, T | C, VK_PIPELINE_STAGE_HOST_BIT);
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

uint32_t vkrr_vk_record_frame(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_replay *const *r,
                              const vkrr_vk_launch *L, const VkPipeline *pipes, uint32_t n)
{
    uint32_t barriers = 0;
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
            vkrr_vk_memory_barrier(vk, d->cmd, VK_ACCESS_SHADER_WRITE_BIT,
                                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                       VK_ACCESS_UNIFORM_READ_BIT,
                                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
            ++barriers;
            since = k;
        }
        record_dispatch(vk, d, r[k], &L[k], pipes[k]);
    }
    if (d->timestamps)
        vk->fn.vkCmdWriteTimestamp(d->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->timestamps, 1);
    return barriers;
}
