#include "vkmem.h"

#include <stdlib.h>
#include <string.h>

#include "bulk.h"

static int find_type(const vkrr_vk_ctx *vk, uint32_t bits, VkMemoryPropertyFlags want,
                     VkMemoryPropertyFlags prefer)
{
    int fallback = -1;
    for (uint32_t i = 0; i < vk->mem.memoryTypeCount; i++) {
        if (!(bits & (1u << i)))
            continue;
        VkMemoryPropertyFlags f = vk->mem.memoryTypes[i].propertyFlags;
        if ((f & want) != want)
            continue;
        if ((f & prefer) == prefer)
            return (int)i;
        if (fallback < 0)
            fallback = (int)i;
    }
    return fallback;
}

/* VKRR_VK_UNMAPPED=1: DEVICE_MAPPED requests get plain device memory, as on
 * a discrete GPU without ReBAR, so the staging paths (vklaunch.c, and
 * vkstream.c's slices) run and are tested on a device that maps everything. */
static bool unmapped_forced(void)
{
    const char *e = getenv("VKRR_VK_UNMAPPED");
    return e && *e && strcmp(e, "0") != 0;
}

/* *mapped: set when a DEVICE_MAPPED request got a host-visible type. */
static vkrr_status alloc_memory(vkrr_vk_ctx *vk, const VkMemoryRequirements *req, vkrr_vk_mem where,
                                bool device_address, VkDeviceMemory *out, bool *mapped,
                                vkrr_error *err)
{
    *mapped = where == VKRR_VK_MEM_HOST;
    VkMemoryPropertyFlags want = where == VKRR_VK_MEM_HOST
                                     ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                     : 0;
    VkMemoryPropertyFlags prefer = where == VKRR_VK_MEM_HOST ? want : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    int type = -1;
    if (where == VKRR_VK_MEM_DEVICE_MAPPED && !unmapped_forced()) {
        const VkMemoryPropertyFlags all = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                          VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
        type = find_type(vk, req->memoryTypeBits, all, all);
        *mapped = type >= 0;
    }
    if (type < 0)
        type = find_type(vk, req->memoryTypeBits, want, prefer);
    if (type < 0)
        return vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "no %s memory type for %llu bytes",
                         where == VKRR_VK_MEM_HOST ? "host-visible" : "device",
                         (unsigned long long)req->size);
    VkMemoryAllocateFlagsInfo flags = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
        .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT,
    };
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .pNext = device_address ? &flags : NULL,
        .allocationSize = req->size,
        .memoryTypeIndex = (uint32_t)type,
    };
    VkResult r = vk->fn.vkAllocateMemory(vk->device, &ai, NULL, out);
    if (r != VK_SUCCESS)
        return vkrr_fail(err, r == VK_ERROR_OUT_OF_HOST_MEMORY ? VKRR_ERR_NOMEM : VKRR_ERR_DEVICE,
                         NULL, 0, -1, "vkAllocateMemory(%llu bytes): %s",
                         (unsigned long long)req->size, vkrr_vk_result_name(r));
    return VKRR_OK;
}

/* DEVICE_BULK: is this a device whose mapped device memory is the host's
 * (the type DEVICE_MAPPED takes exists) and that imports host pages? */
static bool imports_bulk(const vkrr_vk_ctx *vk)
{
    const VkMemoryPropertyFlags all = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                      VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    uint64_t a = vk->host_import_align;
    return vk->host_import && !unmapped_forced() && a && a <= vkrr_bulk_page_bytes() &&
           vkrr_bulk_page_bytes() % a == 0 && find_type(vk, ~0u, all, all) >= 0;
}

/* The buffer's memory: bulk pages of its own, imported. */
static vkrr_status import_bulk(vkrr_vk_ctx *vk, const VkMemoryRequirements *req, bool device_address,
                               vkrr_vk_buffer *out, vkrr_error *err)
{
    uint64_t pg = vkrr_bulk_page_bytes(), bytes = (req->size + pg - 1) / pg * pg;
    if (!(out->host = vkrr_bulk_alloc_pages(bytes)))
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1,
                         "no memory or scratch file for a %llu-byte buffer (VKRR_SCRATCH_DIR)",
                         (unsigned long long)bytes);
    VkMemoryHostPointerPropertiesEXT hp = {.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    VkResult r = vk->fn.vkGetMemoryHostPointerPropertiesEXT(
        vk->device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, out->host, &hp);
    int type = r == VK_SUCCESS ? find_type(vk, req->memoryTypeBits & hp.memoryTypeBits, 0,
                                           VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
                               : -1;
    if (type < 0)
        return vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1,
                         "no memory type imports host pages for a %llu-byte buffer (%s)",
                         (unsigned long long)bytes, vkrr_vk_result_name(r));
    VkMemoryAllocateFlagsInfo flags = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                       .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkImportMemoryHostPointerInfoEXT imp = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
        .pNext = device_address ? &flags : NULL,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
        .pHostPointer = out->host};
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &imp,
                               .allocationSize = bytes, .memoryTypeIndex = (uint32_t)type};
    if ((r = vk->fn.vkAllocateMemory(vk->device, &ai, NULL, &out->mem)) != VK_SUCCESS)
        return vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1,
                         "vkAllocateMemory importing %llu host bytes: %s", (unsigned long long)bytes,
                         vkrr_vk_result_name(r));
    out->map = out->host;
    return VKRR_OK;
}

vkrr_status vkrr_vk_buffer_create(vkrr_vk_ctx *vk, VkDeviceSize size, VkBufferUsageFlags usage,
                                  vkrr_vk_mem where, vkrr_vk_buffer *out, vkrr_error *err)
{
    vkrr_status st;
    memset(out, 0, sizeof *out);
    if (size == 0)
        size = 16; /* Vulkan forbids empty buffers; nothing reads past the real size */
    bool import = where == VKRR_VK_MEM_DEVICE_BULK && imports_bulk(vk);
    if (where == VKRR_VK_MEM_DEVICE_BULK && !import)
        where = VKRR_VK_MEM_DEVICE_MAPPED;
    VkExternalMemoryBufferCreateInfo ext = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT};
    VkBufferCreateInfo bi = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .pNext = import ? &ext : NULL,
        .size = size,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult r = vk->fn.vkCreateBuffer(vk->device, &bi, NULL, &out->buf);
    if (r != VK_SUCCESS) {
        st = vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "vkCreateBuffer(%llu bytes): %s",
                       (unsigned long long)size, vkrr_vk_result_name(r));
        goto fail;
    }
    VkMemoryRequirements req;
    vk->fn.vkGetBufferMemoryRequirements(vk->device, out->buf, &req);
    bool bda = (usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0;
    bool mapped = false;
    if ((st = import ? import_bulk(vk, &req, bda, out, err)
                     : alloc_memory(vk, &req, where, bda, &out->mem, &mapped, err)) != VKRR_OK)
        goto fail;
    if ((r = vk->fn.vkBindBufferMemory(vk->device, out->buf, out->mem, 0)) != VK_SUCCESS) {
        st = vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "vkBindBufferMemory: %s", vkrr_vk_result_name(r));
        goto fail;
    }
    if (mapped &&
        (r = vk->fn.vkMapMemory(vk->device, out->mem, 0, VK_WHOLE_SIZE, 0, &out->map)) != VK_SUCCESS) {
        st = vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "vkMapMemory: %s", vkrr_vk_result_name(r));
        goto fail;
    }
    if (bda) {
        VkBufferDeviceAddressInfo ai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                        .buffer = out->buf};
        out->addr = vk->fn.vkGetBufferDeviceAddress(vk->device, &ai);
    }
    out->size = size;
    return VKRR_OK;
fail:
    vkrr_vk_buffer_destroy(vk, out);
    return st;
}

void vkrr_vk_buffer_destroy(vkrr_vk_ctx *vk, vkrr_vk_buffer *b)
{
    if (!b)
        return;
    if (b->buf)
        vk->fn.vkDestroyBuffer(vk->device, b->buf, NULL);
    if (b->mem) /* freeing mapped memory unmaps it */
        vk->fn.vkFreeMemory(vk->device, b->mem, NULL);
    vkrr_bulk_free(b->host); /* imported: after the memory that uses it */
    memset(b, 0, sizeof *b);
}

vkrr_status vkrr_vk_image_create(vkrr_vk_ctx *vk, uint32_t width, uint32_t height, VkFormat format,
                                 VkFormat view_format, VkImageUsageFlags usage,
                                 vkrr_vk_image *out, vkrr_error *err)
{
    vkrr_status st;
    memset(out, 0, sizeof *out);
    bool mutable = format != view_format;
    VkImageCreateInfo ii = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        /* EXTENDED_USAGE: STORAGE need only be supported by the integer view's format */
        .flags = mutable ? VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT : 0,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = format,
        .extent = {width, height, 1},
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = usage,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    VkResult r = vk->fn.vkCreateImage(vk->device, &ii, NULL, &out->img);
    if (r != VK_SUCCESS) {
        st = vkrr_fail(err, r == VK_ERROR_FORMAT_NOT_SUPPORTED ? VKRR_ERR_FORMAT : VKRR_ERR_DEVICE,
                       NULL, 0, -1, "vkCreateImage(%ux%u, VkFormat %d): %s", width, height,
                       (int)format, vkrr_vk_result_name(r));
        goto fail;
    }
    VkMemoryRequirements req;
    vk->fn.vkGetImageMemoryRequirements(vk->device, out->img, &req);
    bool mapped = false;
    if ((st = alloc_memory(vk, &req, VKRR_VK_MEM_DEVICE, false, &out->mem, &mapped, err)) != VKRR_OK)
        goto fail;
    if ((r = vk->fn.vkBindImageMemory(vk->device, out->img, out->mem, 0)) != VK_SUCCESS) {
        st = vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "vkBindImageMemory: %s", vkrr_vk_result_name(r));
        goto fail;
    }
    VkImageViewCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = out->img,
        .viewType = VK_IMAGE_VIEW_TYPE_2D,
        .format = view_format,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
    };
    if ((r = vk->fn.vkCreateImageView(vk->device, &vi, NULL, &out->view)) != VK_SUCCESS) {
        st = vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "vkCreateImageView(VkFormat %d): %s",
                       (int)view_format, vkrr_vk_result_name(r));
        goto fail;
    }
    out->format = format;
    out->view_format = view_format;
    out->width = width;
    out->height = height;
    return VKRR_OK;
fail:
    vkrr_vk_image_destroy(vk, out);
    return st;
}

void vkrr_vk_image_destroy(vkrr_vk_ctx *vk, vkrr_vk_image *im)
{
    if (!im)
        return;
    if (im->view)
        vk->fn.vkDestroyImageView(vk->device, im->view, NULL);
    if (im->img)
        vk->fn.vkDestroyImage(vk->device, im->img, NULL);
    if (im->mem)
        vk->fn.vkFreeMemory(vk->device, im->mem, NULL);
    memset(im, 0, sizeof *im);
}

unsigned vkrr_vk_format_bytes(VkFormat f)
{
    switch (f) {
    case VK_FORMAT_R8_UNORM: case VK_FORMAT_R8_SNORM: case VK_FORMAT_R8_UINT: case VK_FORMAT_R8_SINT:
        return 1;
    case VK_FORMAT_R8G8_UNORM: case VK_FORMAT_R8G8_SNORM: case VK_FORMAT_R8G8_UINT:
    case VK_FORMAT_R8G8_SINT: case VK_FORMAT_R16_UNORM: case VK_FORMAT_R16_SNORM:
    case VK_FORMAT_R16_UINT: case VK_FORMAT_R16_SINT: case VK_FORMAT_R16_SFLOAT:
        return 2;
    case VK_FORMAT_R8G8B8A8_UNORM: case VK_FORMAT_R8G8B8A8_SNORM: case VK_FORMAT_R8G8B8A8_UINT:
    case VK_FORMAT_R8G8B8A8_SINT: case VK_FORMAT_R16G16_UNORM: case VK_FORMAT_R16G16_SNORM:
    case VK_FORMAT_R16G16_UINT: case VK_FORMAT_R16G16_SINT: case VK_FORMAT_R16G16_SFLOAT:
    case VK_FORMAT_R32_UINT: case VK_FORMAT_R32_SINT: case VK_FORMAT_R32_SFLOAT:
    case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
        return 4;
    case VK_FORMAT_R16G16B16A16_UNORM: case VK_FORMAT_R16G16B16A16_SNORM:
    case VK_FORMAT_R16G16B16A16_UINT: case VK_FORMAT_R16G16B16A16_SINT:
    case VK_FORMAT_R16G16B16A16_SFLOAT: case VK_FORMAT_R32G32_UINT: case VK_FORMAT_R32G32_SINT:
    case VK_FORMAT_R32G32_SFLOAT:
        return 8;
    case VK_FORMAT_R32G32B32A32_UINT: case VK_FORMAT_R32G32B32A32_SINT:
    case VK_FORMAT_R32G32B32A32_SFLOAT:
        return 16;
    default:
        return 0;
    }
}
