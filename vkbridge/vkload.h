/* vkload.h - libvulkan loaded at run time, an instance, and one device.
 *
 * Usage:
 *     vkrr_vk_ctx *vk = NULL;
 *     vkrr_vk_ctx_desc d = {.device = "llvmpipe", .validation = true};
 *     if (vkrr_vk_ctx_create(&vk, &d, &err) != VKRR_OK) { ... }
 *     vk->fn.vkCreateBuffer(vk->device, ...);     // device functions through the table
 *     vkrr_vk_ctx_destroy(vk);
 *
 * Entry points come from volk (Debian's libvulkan-volk-dev) in its three
 * phases: libvulkan.so.1 (dlopen'ed here, so a sanitizer build can keep it
 * resident and tests can point at another library; nothing links it), the
 * instance (volk's globals), and the device (volk's device table in
 * vkrr_vk_ctx.fn: a device's functions without the loader's dispatch).  Device choice (desc.device): NULL or "" takes the first
 * discrete GPU with every required feature, else any device that has them
 * (lavapipe included); digits select by index in vkEnumeratePhysicalDevices
 * order; anything else is a case-insensitive substring of the device name.
 * Required features (named in the error when missing, VKRR_ERR_NO_DEVICE):
 * Vulkan 1.2, bufferDeviceAddress, shaderInt64, shaderInt16, shaderInt8,
 * shaderFloat16, storageBuffer8BitAccess, storageBuffer16BitAccess,
 * uniformAndStorageBuffer8BitAccess, uniformAndStorageBuffer16BitAccess,
 * scalarBlockLayout, shaderStorageImageExtendedFormats (r8ui/r16ui/rg32ui
 * surface views).  Features a port may need beyond those (vkfeat.h:
 * cooperative matrices, subgroup size control, ...) are enabled where the
 * device has them.  Shaders are built for vulkan1.2, so maintenance4
 * (LocalSizeId) is not needed.
 *
 * Validation: desc.validation or env VKRR_VALIDATION=1 enables
 * VK_LAYER_KHRONOS_validation with a debug messenger that prints every
 * warning/error message to stderr and counts it (vkrr_vk_ctx.messages), so
 * tests can fail on any.  Missing layer: VKRR_ERR_NO_LIBRARY naming it.
 *
 * Does NOT: allocate resources (vkmem.h) or run anything (backend_vk.h).
 * Ownership: the ctx owns the library handle, instance and device.
 */
#ifndef VKRR_VKLOAD_H
#define VKRR_VKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <volk.h> /* Debian's libvulkan-volk-dev: the Vulkan entry points */

#include "portreq.h"
#include "status.h"

/* The device-level entry points of one device (volk's table); instance and
 * global ones are volk's, loaded when the context is made. */
typedef struct VolkDeviceTable vkrr_vk_fn;

typedef struct vkrr_vk_ctx_desc {
    const char *device;   /* NULL/"" default, "INDEX" or a name substring */
    bool validation;      /* also enabled by env VKRR_VALIDATION=1 */
    const char *library;  /* NULL: "libvulkan.so.1" (tests point it elsewhere) */
} vkrr_vk_ctx_desc;

typedef struct vkrr_vk_ctx {
    vkrr_vk_fn fn;
    void *lib;
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice phys;
    VkPhysicalDeviceProperties props;
    char driver[VK_MAX_DRIVER_NAME_SIZE + VK_MAX_DRIVER_INFO_SIZE + 4]; /* "NAME INFO" */
    uint8_t uuid[VK_UUID_SIZE];  /* deviceUUID: NVIDIA's is the GPU's own (NVML, CUDA) */
    VkPhysicalDeviceMemoryProperties mem;
    VkDevice device;
    VkQueue queue;
    uint32_t queue_family;
    uint32_t timestamp_bits;  /* timestampValidBits of queue_family (0: no timestamps) */
    bool validation;
    unsigned messages;    /* validation messages (warning or error) seen so far */
    /* VK_EXT_external_memory_host, enabled where the device has it: host
     * pages can be a buffer's memory (vkmem.h VKRR_VK_MEM_DEVICE_BULK) */
    bool host_import;
    uint64_t host_import_align; /* minImportedHostPointerAlignment */
    /* the optional features a port may need (vkfeat.h), each enabled where
     * present: the device has feat[f] */
    bool feat[VKRR_FEAT_COUNT];
    uint32_t subgroup_size;      /* the default one */
    uint32_t subgroup_min, subgroup_max; /* with subgroupSizeControl in compute; else 0 */
} vkrr_vk_ctx;

vkrr_status vkrr_vk_ctx_create(vkrr_vk_ctx **out, const vkrr_vk_ctx_desc *desc,
                               vkrr_error *err);
/* Destroys the device (and keeps the instance) then creates it again on the
 * same physical device: the way back from VK_ERROR_DEVICE_LOST.  Every
 * object made on the old device must be gone already. */
vkrr_status vkrr_vk_ctx_recreate_device(vkrr_vk_ctx *vk, vkrr_error *err);
void vkrr_vk_ctx_destroy(vkrr_vk_ctx *vk); /* accepts NULL */

/* "VK_ERROR_DEVICE_LOST" and friends, for messages. */
const char *vkrr_vk_result_name(VkResult r);
/* In a sanitizer build, every library loaded now stays loaded for the life
 * of the process (a Vulkan driver's static blocks stay reachable for
 * LeakSanitizer; vkload.c says why); elsewhere nothing.  vkrr's own instance
 * does it; code that makes an instance of its own (a test asking the loader
 * directly) calls it after vkCreateInstance. */
void vkrr_vk_keep_libraries_loaded(void);

#endif
