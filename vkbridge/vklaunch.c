/* vklaunch.c - one launch's resources: buffers, images and samplers (borrowed
 * from earlier launches of a frame in frame mode), staging, the relocated
 * parameter block and its descriptor set; its outputs afterwards. */
#include "vkdev.h"

#include <stdlib.h>
#include <string.h>

#include "bulk.h"

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

/* ... made in the same image and view formats (an own interface's image,
 * in its port's format, is not one a built-in launch can bind). */
static bool find_img(const vkrr_vk_launch *prev, uint32_t nprev, const vkrr_replay_image *im,
                     VkFormat fmt, VkFormat view, vkrr_vk_image *out, VkSampler *sampler)
{
    for (uint32_t j = 0; j < nprev; j++)
        for (uint32_t k = 0; k < prev[j].nimgs; k++) {
            const vkrr_replay_image *b = &prev[j].r->images[k];
            if (b->handle == im->handle && b->kind == im->kind && b->width == im->width &&
                b->height == im->height && b->format == im->format && b->channels == im->channels &&
                !memcmp(&b->sampler, &im->sampler, sizeof b->sampler) &&
                prev[j].imgs[k].format == fmt && prev[j].imgs[k].view_format == view &&
                !prev[j].own_general[k]) {
                *out = prev[j].imgs[k];
                *sampler = prev[j].samplers[k];
                return true;
            }
        }
    return false;
}

/* Creates buffers, images and samplers, and sizes the staging buffers: a
 * region for everything not mapped, or for a streamed launch one slice
 * (at least an image row) that vkstream.c moves it all through. */
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
    L->own_conv = zalloc(r->nimages, sizeof *L->own_conv);
    L->own_conv_post = zalloc(r->nimages, sizeof *L->own_conv_post);
    L->own_general = zalloc(r->nimages, 1);
    if (!L->bufs || !L->buf_off || !L->imgs || !L->samplers || !L->binding || !L->slot ||
        !L->img_off || !L->borrowed || !L->own_conv || !L->own_conv_post || !L->own_general)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory for a launch");
    uint64_t up = 0, tex_up = 0, row_max = 0;
    const VkBufferUsageFlags busage = VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | /* own interfaces */
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    for (uint32_t a = 0; a < r->nallocs; a++) {
        if (find_buf(prev, nprev, &r->allocs[a], &L->bufs[a])) {
            L->borrowed[a] = 1;
            continue;
        }
        if ((st = vkrr_vk_buffer_create(vk, r->allocs[a].size, busage,
                                        L->streamed ? VKRR_VK_MEM_DEVICE_BULK : VKRR_VK_MEM_DEVICE_MAPPED,
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
        if (!vkrr_geometry_is_2d(&im->geometry)) /* ports bind 2D images (bindings.glsl) */
            return vkrr_fail(err, VKRR_ERR_UNSUPPORTED, NULL, 0, im->offset,
                             "the %s at offset %u is a %s array: the Vulkan replay binds 2D "
                             "images only (`vkrr rerun --backend ptx` runs such launches)",
                             im->kind == VKRR_IMAGE_TEXTURE ? "texture" : "surface", im->offset,
                             vkrr_geometry_name(&im->geometry));
        uint32_t binding = 0;
        if ((st = vkrr_vk_image_formats(vk, im, i, &fmt, &view, &binding, err)) != VKRR_OK)
            return st;
        bool tex = im->kind == VKRR_IMAGE_TEXTURE;
        uint32_t cap = vkrr_vk_table_size(binding);
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
        VkImageUsageFlags u = VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                              (tex ? VK_IMAGE_USAGE_SAMPLED_BIT
                                   : VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
        bool own_bound = false; /* an own interface's view of it, in the port's format */
        if (L->own && (st = vkrr_vk_own_image(vk, L, i, im, &own_bound, &view, &u, &L->own_conv[i],
                                              &L->own_general[i], err)) != VKRR_OK)
            return st;
        if (L->own_conv[i]) /* converted: the image is in the port's format, texels and all */
            fmt = view;
        if (!own_bound && find_img(prev, nprev, im, fmt, view, &L->imgs[i], &L->samplers[i])) {
            L->borrowed[r->nallocs + i] = 1;
            continue;
        }
        if ((st = vkrr_vk_image_create(vk, im->width, im->height, fmt, view, u, &L->imgs[i], err)) != VKRR_OK)
            return st;
        if (tex && (st = vkrr_vk_make_sampler(vk, &im->sampler, fmt, im->sampler.read_as_integer,
                                              &L->samplers[i], err)) != VKRR_OK)
            return st;
        uint64_t bytes = L->own_conv[i] ? (uint64_t)im->width * im->height * L->own_conv[i]->texel_bytes
                                        : vkrr_replay_image_bytes(im);
        if (L->own_conv[i] && !tex && !(L->own_conv_post[i] = malloc(vkrr_replay_image_bytes(im))))
            return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory for a launch");
        if (bytes / im->height > row_max)
            row_max = bytes / im->height;
        L->img_off[i] = tex ? tex_up : up;
        if (!add_size(tex ? &tex_up : &up, bytes))
            return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1, "image sizes overflow");
    }
    *stage_bytes = up;
    *upload_bytes = tex_up;
    if (L->streamed) {
        uint64_t slice = vkrr_mem_slice() < row_max ? VKRR_ALIGN16(row_max) : vkrr_mem_slice();
        *stage_bytes = up + tex_up < slice ? up + tex_up : slice;
        *upload_bytes = 0;
    }
    return VKRR_OK;
}

/* A split launch's scratch buffers (portpass.h): zeroed, so a pass that
 * reads what no earlier pass wrote reads zeros, the same on every run. */
static vkrr_status scratch_buffers(vkrr_vk_ctx *vk, vkrr_vk_launch *L, vkrr_error *err)
{
    for (uint32_t i = 0; i < L->own_run.nscratch; i++) {
        vkrr_status st = vkrr_vk_buffer_create(vk, L->own_run.scratch_size[i],
                                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                                   VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                               VKRR_VK_MEM_HOST, &L->scratch[i], err);
        if (st != VKRR_OK)
            return st;
        memset(L->scratch[i].map, 0, L->own_run.scratch_size[i]);
    }
    return VKRR_OK;
}

/* Resources (borrowing from prev), staging filled, parameter block,
 * descriptor set from pool. */
static vkrr_status setup(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r,
                         const vkrr_vk_launch *prev, uint32_t nprev, VkDescriptorPool pool,
                         bool streamed, const vkrr_vk_own *own, const vkrr_port_iface_run *run,
                         vkrr_vk_pass *passes, uint32_t npasses, vkrr_vk_launch *L, vkrr_error *err)
{
    vkrr_status st;
    uint64_t *addr = NULL, *words = NULL;
    memset(L, 0, sizeof *L);
    L->passes = passes; /* L's from here on: freed with it */
    L->npasses = npasses;
    L->streamed = streamed;
    L->own = own;
    if (own)
        L->own_run = *run;
    uint64_t stage_bytes = 0, upload_bytes = 0;
    if (streamed && !(L->outs = zalloc(r->nallocs + r->nimages, sizeof *L->outs))) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory for a launch");
        goto fail;
    }
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
        if (L->borrowed[a] || (streamed && !L->bufs[a].map))
            continue; /* streamed: vkrr_vk_stream_upload */
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
        if (L->borrowed[r->nallocs + i] || streamed)
            continue;
        uint64_t bytes = vkrr_replay_image_bytes(im);
        uint8_t *dst = (im->kind == VKRR_IMAGE_TEXTURE ? (uint8_t *)L->upload.map : up) + L->img_off[i];
        const vkrr_imgformat *cf = L->own_conv[i];
        if (cf && im->pre)
            vkrr_imgformat_convert_in(im->format, im->channels, cf, im->pre, dst,
                                      (uint64_t)im->width * im->height);
        else if (im->pre)
            memcpy(dst, im->pre, bytes);
        else
            memset(dst, im->kind == VKRR_IMAGE_SURFACE ? VKRR_SENTINEL_BYTE : 0,
                   cf ? (uint64_t)im->width * im->height * cf->texel_bytes : bytes);
        if (r->pre_done && im->pre)
            r->pre_done(r->pre_done_ctx, im->pre);
    }
    memset(L->params.map, 0, L->params.size);
    /* an own interface binds no parameter block; a fused run's (launches at
     * a 4096-byte stride, fused_runs.h) is past what relocation takes */
    if ((!own || r->args_bytes <= VKRR_ARGS_MAX_BYTES) &&
        (st = vkrr_replay_relocate(r, addr, words, L->params.map, err)) != VKRR_OK)
        goto fail;
    if (own) { /* the shader's own sets: views of the allocations and scratch buffers */
        if ((st = scratch_buffers(vk, L, err)) != VKRR_OK || (st = vkrr_vk_own_sets(vk, L, err)) != VKRR_OK)
            goto fail;
    } else {
        VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = pool, .descriptorSetCount = 1,
                                          .pSetLayouts = &d->dsl};
        if ((st = vkrr_vk_check(vk->fn.vkAllocateDescriptorSets(vk->device, &ai, &L->set),
                                "vkAllocateDescriptorSets", err)) != VKRR_OK)
            goto fail;
        vkrr_vk_write_descriptors(vk, d, L, L->set);
    }
    if (streamed && (st = vkrr_vk_stream_upload(vk, d, r, L, err)) != VKRR_OK)
        goto fail;
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
                                   VkPipeline pipe, const vkrr_vk_own *own,
                                   const vkrr_port_iface_run *run, vkrr_vk_pass *passes,
                                   uint32_t npasses, vkrr_vk_launch *L, vkrr_error *err)
{
    vkrr_status st;
    memset(L, 0, sizeof *L);
    if ((st = vkrr_vk_check(vk->fn.vkResetDescriptorPool(vk->device, d->pool, 0), "vkResetDescriptorPool", err)) != VKRR_OK) {
        free(passes);
        return st;
    }
    if ((st = setup(vk, d, r, NULL, 0, d->pool, vkrr_mem_streamed(vkrr_replay_bytes(r)), own, run,
                    passes, npasses, L, err)) != VKRR_OK)
        return st;
    if ((st = vkrr_vk_cmd_begin(vk, d, err)) != VKRR_OK)
        goto fail;
    vkrr_vk_record_launch(vk, d, r, L, pipe);
    if ((st = vkrr_vk_check(vk->fn.vkEndCommandBuffer(d->cmd), "vkEndCommandBuffer", err)) != VKRR_OK)
        goto fail;
    return VKRR_OK;
fail:
    vkrr_vk_launch_free(vk, L);
    return st;
}

vkrr_status vkrr_vk_frame_prepare(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_replay *const *r,
                                  const VkPipeline *pipes, const vkrr_vk_own *const *own,
                                  const vkrr_port_iface_run *run, uint32_t n, vkrr_vk_launch *L,
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
    if ((st = vkrr_vk_check(vk->fn.vkCreateDescriptorPool(vk->device, &pi, NULL, pool),
                            "vkCreateDescriptorPool", err)) != VKRR_OK)
        return st;
    for (uint32_t k = 0; k < n; k++)
        if ((st = setup(vk, d, r[k], L, k, *pool, false, own[k], &run[k], NULL, 0, &L[k], err)) != VKRR_OK)
            return st;
    if ((st = vkrr_vk_cmd_begin(vk, d, err)) != VKRR_OK)
        return st;
    *barriers = vkrr_vk_record_frame(vk, d, r, L, pipes, n);
    return vkrr_vk_check(vk->fn.vkEndCommandBuffer(d->cmd), "vkEndCommandBuffer", err);
}

vkrr_status vkrr_vk_launch_finish(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_replay *r,
                                  vkrr_vk_launch *L, vkrr_error *err)
{
    if (L->streamed)
        return vkrr_vk_stream_readback(vk, d, r, L, err);
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
        if (L->own_conv[i]) { /* back into the array's own type */
            vkrr_imgformat_convert_out(im->format, im->channels, L->own_conv[i], im->post_view,
                                       L->own_conv_post[i], (uint64_t)im->width * im->height);
            im->post_view = L->own_conv_post[i];
        }
        if (im->post)
            memcpy(im->post, im->post_view, vkrr_replay_image_bytes(im));
    }
    return VKRR_OK;
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
    if (L->own_pool)
        vk->fn.vkDestroyDescriptorPool(vk->device, L->own_pool, NULL);
    for (uint32_t p = 0; L->passes && p < L->npasses; p++) {
        if (L->passes[p].pool)
            vk->fn.vkDestroyDescriptorPool(vk->device, L->passes[p].pool, NULL);
        for (uint32_t k = 0; k < VKRR_PORT_MAX_BINDINGS; k++)
            if (L->passes[p].samplers[k])
                vk->fn.vkDestroySampler(vk->device, L->passes[p].samplers[k], NULL);
    }
    free(L->passes);
    for (uint32_t i = 0; i < VKRR_PORT_MAX_SCRATCH; i++)
        vkrr_vk_buffer_destroy(vk, &L->scratch[i]);
    for (uint32_t k = 0; k < VKRR_PORT_MAX_BINDINGS; k++)
        if (L->own_samplers[k])
            vk->fn.vkDestroySampler(vk->device, L->own_samplers[k], NULL);
    vkrr_vk_buffer_destroy(vk, &L->params);
    vkrr_vk_buffer_destroy(vk, &L->stage);
    vkrr_vk_buffer_destroy(vk, &L->upload);
    free(L->bufs);
    free(L->imgs);
    free(L->samplers);
    free(L->binding);
    free(L->slot);
    free(L->img_off);
    for (uint32_t i = 0; L->own_conv_post && i < L->nimgs; i++)
        free(L->own_conv_post[i]);
    free(L->own_conv_post);
    free(L->own_conv);
    free(L->own_general);
    free(L->buf_off);
    free(L->borrowed);
    for (uint32_t k = 0; L->outs && k < L->nbufs + L->nimgs; k++)
        vkrr_bulk_free(L->outs[k]);
    free(L->outs);
    memset(L, 0, sizeof *L);
}
