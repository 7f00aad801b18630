/* vkmem.h - buffers and images with their own memory.
 *
 * vkbridge's allocator is deliberately the simplest that is correct: one
 * dedicated VkDeviceMemory per buffer or image (VMA is not available, and a
 * launch holds a few dozen resources at most, far below
 * maxMemoryAllocationCount, which is at least 4096).  Device buffers carry
 * SHADER_DEVICE_ADDRESS usage and memory allocated with the device-address
 * flag, so their address can be written into a parameter block.  Host buffers
 * (staging for uploads and read-back) are HOST_VISIBLE | HOST_COHERENT and
 * stay mapped for their lifetime.
 *
 *     vkrr_vk_buffer b = {0};
 *     vkrr_vk_buffer_create(vk, bytes, usage, VKRR_VK_MEM_DEVICE, &b, &err);
 *     ... b.addr ...
 *     vkrr_vk_buffer_destroy(vk, &b);   // zeroes b; accepts a zeroed one
 *
 * Does NOT: suballocate, record commands, or copy data.
 */
#ifndef VKRR_VKMEM_H
#define VKRR_VKMEM_H

#include "vkload.h"

/* VKRR_VK_MEM_DEVICE_MAPPED: device memory that the host can also see,
 * mapped (map != NULL) when a memory type is DEVICE_LOCAL | HOST_VISIBLE |
 * HOST_COHERENT | HOST_CACHED (lavapipe, integrated GPUs, some ReBAR), so a
 * launch needs no staging copies; plain device memory (map == NULL)
 * otherwise, or when VKRR_VK_UNMAPPED=1 (the discrete-GPU path, for tests).  Uncached BAR memory is not used: reading results back through
 * it is slower than a staging copy. */
/* VKRR_VK_MEM_DEVICE_BULK: a streamed launch's buffer (bulk.h).  Where
 * DEVICE_MAPPED would be host memory anyway (the device's memory is the
 * host's) and the device can import host pages (VK_EXT_external_memory_host),
 * the buffer's memory is bulk pages it owns (host: anonymous up to the
 * memory limit, a scratch file beyond), so a launch larger than memory runs
 * there too; DEVICE_MAPPED otherwise. */
typedef enum vkrr_vk_mem {
    VKRR_VK_MEM_DEVICE = 0,
    VKRR_VK_MEM_HOST = 1,
    VKRR_VK_MEM_DEVICE_MAPPED = 2,
    VKRR_VK_MEM_DEVICE_BULK = 3
} vkrr_vk_mem;

typedef struct vkrr_vk_buffer {
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceSize size;
    void *map;            /* host (and mapped device) buffers: mapped pointer */
    VkDeviceAddress addr; /* buffers with SHADER_DEVICE_ADDRESS usage */
    void *host;           /* DEVICE_BULK: the imported bulk pages (== map), freed with it */
} vkrr_vk_buffer;

typedef struct vkrr_vk_image {
    VkImage img;
    VkDeviceMemory mem;
    VkImageView view;
    VkFormat format;      /* the image's own format */
    VkFormat view_format; /* the view's (differs for surfaces: an integer view) */
    uint32_t width, height;
} vkrr_vk_image;

vkrr_status vkrr_vk_buffer_create(vkrr_vk_ctx *vk, VkDeviceSize size, VkBufferUsageFlags usage,
                                  vkrr_vk_mem where, vkrr_vk_buffer *out, vkrr_error *err);
void vkrr_vk_buffer_destroy(vkrr_vk_ctx *vk, vkrr_vk_buffer *b);

/* A 2D image of format with a view of view_format; when they differ the
 * image is MUTABLE_FORMAT | EXTENDED_USAGE (same texel size required). */
vkrr_status vkrr_vk_image_create(vkrr_vk_ctx *vk, uint32_t width, uint32_t height, VkFormat format,
                                 VkFormat view_format, VkImageUsageFlags usage,
                                 vkrr_vk_image *out, vkrr_error *err);
void vkrr_vk_image_destroy(vkrr_vk_ctx *vk, vkrr_vk_image *im);

/* Bytes per texel of the uncompressed color formats vkbridge uses; 0 for others. */
unsigned vkrr_vk_format_bytes(VkFormat f);

#endif
