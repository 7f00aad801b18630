/* vkstream.c - a streamed launch's data (bulk.h: a launch larger than the
 * memory limit) moved through one staging buffer a slice at a time, one
 * submission per slice: what each resource held before the launch up to the
 * device before the dispatch, its outputs back after it into bulk memory
 * (anonymous up to the limit, a scratch file beyond), so the host never
 * holds a second copy of the whole launch.  Buffers in mapped device memory
 * need none of this: they are filled and read in place. */
#include "vkdev.h"

#include <string.h>

#include "bulk.h"

static const VkPipelineStageFlags T = VK_PIPELINE_STAGE_TRANSFER_BIT;

/* Transfer writes to staging made visible to the host, then submitted and waited on. */
static vkrr_status to_host(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err)
{
    vkrr_vk_memory_barrier(vk, d->cmd, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT, T,
                           VK_PIPELINE_STAGE_HOST_BIT);
    return vkrr_vk_submit_wait(vk, d, err);
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Image rows per slice: at least one (staging holds a row; vklaunch.c sizes it). */
static uint32_t rows_per_slice(const vkrr_vk_launch *L, const vkrr_replay_image *im)
{
    uint64_t row = vkrr_replay_image_bytes(im) / im->height;
    uint64_t n = row ? L->stage.size / row : im->height;
    return n < 1 ? 1u : n > im->height ? im->height : (uint32_t)n;
}

static vkrr_status upload_buffer(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay_alloc *a,
                                 const vkrr_vk_launch *L, const vkrr_vk_buffer *dst, vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    for (uint64_t off = 0; st == VKRR_OK && off < a->size; off += L->stage.size) {
        uint64_t n = min64(L->stage.size, a->size - off);
        if (a->pre)
            memcpy(L->stage.map, (const uint8_t *)a->pre + off, n);
        else
            memset(L->stage.map, 0, n);
        if ((st = vkrr_vk_cmd_begin(vk, d, err)) != VKRR_OK)
            break;
        VkBufferCopy c = {0, off, n};
        vk->fn.vkCmdCopyBuffer(d->cmd, L->stage.buf, dst->buf, 1, &c);
        st = vkrr_vk_submit_wait(vk, d, err);
    }
    return st;
}

/* Rows [y, y + rows) of im as one copy region at staging's start. */
static VkBufferImageCopy rows_region(const vkrr_replay_image *im, uint32_t y, uint32_t rows)
{
    return (VkBufferImageCopy){.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                               .imageOffset = {0, (int32_t)y, 0},
                               .imageExtent = {im->width, rows, 1}};
}

static vkrr_status upload_image(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay_image *im,
                                const vkrr_vk_launch *L, VkImage img, vkrr_error *err)
{
    const VkPipelineStageFlags C = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    bool tex = im->kind == VKRR_IMAGE_TEXTURE;
    uint64_t row = vkrr_replay_image_bytes(im) / im->height;
    uint32_t per = rows_per_slice(L, im);
    vkrr_status st = VKRR_OK;
    for (uint32_t y = 0; st == VKRR_OK && y < im->height; y += per) {
        uint32_t rows = im->height - y < per ? im->height - y : per;
        if (im->pre)
            memcpy(L->stage.map, (const uint8_t *)im->pre + y * row, rows * row);
        else
            memset(L->stage.map, tex ? 0 : VKRR_SENTINEL_BYTE, rows * row);
        if ((st = vkrr_vk_cmd_begin(vk, d, err)) != VKRR_OK)
            break;
        if (y == 0)
            vkrr_vk_image_barrier(vk, d->cmd, img, VK_IMAGE_LAYOUT_UNDEFINED,
                                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
                                  VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, T);
        VkBufferImageCopy c = rows_region(im, y, rows);
        vk->fn.vkCmdCopyBufferToImage(d->cmd, L->stage.buf, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                      1, &c);
        if (y + rows == im->height) /* the last slice: the layout the dispatch binds */
            vkrr_vk_image_barrier(vk, d->cmd, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                  tex ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL,
                                  VK_ACCESS_TRANSFER_WRITE_BIT,
                                  VK_ACCESS_SHADER_READ_BIT | (tex ? 0 : VK_ACCESS_SHADER_WRITE_BIT), T, C);
        st = vkrr_vk_submit_wait(vk, d, err);
    }
    return st;
}

vkrr_status vkrr_vk_stream_upload(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r,
                                  vkrr_vk_launch *L, vkrr_error *err)
{
    vkrr_status st;
    for (uint32_t a = 0; a < r->nallocs; a++) {
        if (L->bufs[a].map || L->borrowed[a])
            continue; /* mapped: filled in place by vklaunch.c */
        if ((st = upload_buffer(vk, d, &r->allocs[a], L, &L->bufs[a], err)) != VKRR_OK)
            return st;
        if (r->pre_done && r->allocs[a].pre)
            r->pre_done(r->pre_done_ctx, r->allocs[a].pre);
    }
    for (uint32_t i = 0; i < r->nimages; i++) {
        if (L->borrowed[r->nallocs + i])
            continue;
        if ((st = upload_image(vk, d, &r->images[i], L, L->imgs[i].img, err)) != VKRR_OK)
            return st;
        if (r->pre_done && r->images[i].pre)
            r->pre_done(r->pre_done_ctx, r->images[i].pre);
    }
    return VKRR_OK;
}

/* Where output k (allocations, then images) is read back to: the caller's
 * post, else the launch's own bulk copy. */
static uint8_t *out_of(vkrr_vk_launch *L, uint32_t k, void *post, uint64_t bytes)
{
    if (post)
        return post;
    if (!L->outs[k])
        L->outs[k] = vkrr_bulk_alloc(bytes);
    return L->outs[k];
}

static vkrr_status nomem(const char *kernel, uint64_t bytes, vkrr_error *err)
{
    return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1,
                     "%s: no memory or scratch file for a %llu-byte output (VKRR_SCRATCH_DIR)",
                     kernel, (unsigned long long)bytes);
}

vkrr_status vkrr_vk_stream_readback(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_replay *r,
                                    vkrr_vk_launch *L, vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    for (uint32_t a = 0; a < r->nallocs; a++) {
        vkrr_replay_alloc *al = &r->allocs[a];
        if (L->bufs[a].map) {
            al->post_view = L->bufs[a].map;
            if (al->post)
                memcpy(al->post, al->post_view, al->size);
            continue;
        }
        uint8_t *dst = out_of(L, a, al->post, al->size);
        if (!dst)
            return nomem(r->kernel, al->size, err);
        for (uint64_t off = 0; off < al->size; off += L->stage.size) {
            uint64_t n = min64(L->stage.size, al->size - off);
            if ((st = vkrr_vk_cmd_begin(vk, d, err)) != VKRR_OK)
                return st;
            VkBufferCopy c = {off, 0, n};
            vk->fn.vkCmdCopyBuffer(d->cmd, L->bufs[a].buf, L->stage.buf, 1, &c);
            if ((st = to_host(vk, d, err)) != VKRR_OK)
                return st;
            memcpy(dst + off, L->stage.map, n);
        }
        al->post_view = dst;
    }
    for (uint32_t i = 0; i < r->nimages; i++) {
        vkrr_replay_image *im = &r->images[i];
        if (im->kind != VKRR_IMAGE_SURFACE)
            continue;
        uint64_t bytes = vkrr_replay_image_bytes(im), row = bytes / im->height;
        uint8_t *dst = out_of(L, r->nallocs + i, im->post, bytes);
        if (!dst)
            return nomem(r->kernel, bytes, err);
        uint32_t per = rows_per_slice(L, im);
        for (uint32_t y = 0; y < im->height; y += per) {
            uint32_t rows = im->height - y < per ? im->height - y : per;
            if ((st = vkrr_vk_cmd_begin(vk, d, err)) != VKRR_OK)
                return st;
            if (y == 0)
                vkrr_vk_image_barrier(vk, d->cmd, L->imgs[i].img, VK_IMAGE_LAYOUT_GENERAL,
                                      VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_ACCESS_SHADER_WRITE_BIT,
                                      VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, T);
            VkBufferImageCopy c = rows_region(im, y, rows);
            vk->fn.vkCmdCopyImageToBuffer(d->cmd, L->imgs[i].img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                          L->stage.buf, 1, &c);
            if ((st = to_host(vk, d, err)) != VKRR_OK)
                return st;
            memcpy(dst + (uint64_t)y * row, L->stage.map, rows * row);
        }
        im->post_view = dst;
    }
    return VKRR_OK;
}
