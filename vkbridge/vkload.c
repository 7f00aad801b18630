#include "vkload.h"
#include "vkfeat.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define VKRR_VK_DEFAULT_LIBRARY "libvulkan.so.1"
#define VKRR_VK_VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"

/* Sanitizer builds keep every library that is loaded while Vulkan is up (the
 * loader, the drivers, the layers, LLVM) resident until exit.  Why: Mesa keeps
 * process-lifetime blocks behind its drivers' static data (lavapipe: the L3
 * affinity mask of util_cpu_caps, src/util/u_cpu_detect.c, realloc'd once per
 * load), and the loader dlcloses the driver in vkDestroyInstance.  Once the
 * library is unmapped LeakSanitizer no longer sees the pointer, reports the
 * block as a direct leak from "<unknown module>", and no suppression can name
 * it.  Resident, such a block stays reachable, and a real leak in a driver is
 * still reported under its library's name (tests/lsan.supp).  Plain builds
 * load and unload as the loader decides. */
#if defined(__SANITIZE_ADDRESS__)
#define VKRR_VK_KEEP_LIBRARIES 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VKRR_VK_KEEP_LIBRARIES 1
#endif
#endif

#ifdef VKRR_VK_KEEP_LIBRARIES
#include <link.h>

typedef struct lib_names {
    char **name;
    size_t n, cap;
} lib_names;

static int collect_library(struct dl_phdr_info *info, size_t size, void *user)
{
    (void)size;
    lib_names *l = user;
    if (!info->dlpi_name || !info->dlpi_name[0]) /* the executable itself */
        return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **grown = realloc(l->name, cap * sizeof *grown);
        if (!grown)
            return 1;
        l->name = grown;
        l->cap = cap;
    }
    if ((l->name[l->n] = strdup(info->dlpi_name)) != NULL)
        l->n++;
    return 0;
}

/* RTLD_NOLOAD|RTLD_NODELETE marks an object already loaded as never to be
 * unloaded; the handle it returns is closed again at once.  dlopen is not
 * called from inside dl_iterate_phdr, which holds the loader's lock. */
void vkrr_vk_keep_libraries_loaded(void)
{
    lib_names l = {0};
    dl_iterate_phdr(collect_library, &l);
    for (size_t i = 0; i < l.n; i++) {
        void *h = dlopen(l.name[i], RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        if (h)
            dlclose(h);
        free(l.name[i]);
    }
    free(l.name);
    dlerror(); /* a name dlopen does not find again is skipped, and its error with it */
}
#else
void vkrr_vk_keep_libraries_loaded(void) {}
#endif

const char *vkrr_vk_result_name(VkResult r)
{
    switch (r) {
#define R(x) case x: return #x;
    R(VK_SUCCESS) R(VK_NOT_READY) R(VK_TIMEOUT) R(VK_INCOMPLETE)
    R(VK_ERROR_OUT_OF_HOST_MEMORY) R(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    R(VK_ERROR_INITIALIZATION_FAILED) R(VK_ERROR_DEVICE_LOST)
    R(VK_ERROR_MEMORY_MAP_FAILED) R(VK_ERROR_LAYER_NOT_PRESENT)
    R(VK_ERROR_EXTENSION_NOT_PRESENT) R(VK_ERROR_FEATURE_NOT_PRESENT)
    R(VK_ERROR_INCOMPATIBLE_DRIVER) R(VK_ERROR_TOO_MANY_OBJECTS)
    R(VK_ERROR_FORMAT_NOT_SUPPORTED) R(VK_ERROR_OUT_OF_POOL_MEMORY)
    R(VK_ERROR_INVALID_SHADER_NV)
#undef R
    default: return "VkResult(?)";
    }
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *d,
                                                 void *user)
{
    (void)type;
    vkrr_vk_ctx *vk = user;
    vk->messages++;
    fprintf(stderr, "vkrr: vulkan validation %s: %s\n",
            (sev & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning",
            d && d->pMessage ? d->pMessage : "(no message)");
    return VK_FALSE;
}

static bool env_validation(void)
{
    const char *v = getenv("VKRR_VALIDATION");
    return v && v[0] && strcmp(v, "0") != 0;
}

static bool has_layer(const char *name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0)
        return false;
    VkLayerProperties *p = calloc(n, sizeof *p);
    bool found = false;
    if (p && vkEnumerateInstanceLayerProperties(&n, p) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(p[i].layerName, name) == 0;
    free(p);
    return found;
}

static vkrr_status create_instance(vkrr_vk_ctx *vk, vkrr_error *err)
{
    uint32_t version = volkGetInstanceVersion();
    if (version < VK_API_VERSION_1_2)
        return vkrr_fail(err, VKRR_ERR_NO_DEVICE, NULL, 0, -1,
                         "the Vulkan loader supports only %u.%u; vkrr needs Vulkan 1.2",
                         VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));
    const char *layers[1] = {VKRR_VK_VALIDATION_LAYER};
    const char *exts[1] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    if (vk->validation && !has_layer(VKRR_VK_VALIDATION_LAYER))
        return vkrr_fail(err, VKRR_ERR_NO_LIBRARY, NULL, 0, -1,
                         "validation was asked for but the layer %s is not installed",
                         VKRR_VK_VALIDATION_LAYER);
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "vkrr",
        .apiVersion = VK_API_VERSION_1_2,
    };
    VkInstanceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pApplicationInfo = &app,
        .enabledLayerCount = vk->validation ? 1 : 0,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = vk->validation ? 1 : 0,
        .ppEnabledExtensionNames = exts,
    };
    VkResult r = vkCreateInstance(&ci, NULL, &vk->instance);
    if (r != VK_SUCCESS)
        return vkrr_fail(err, r == VK_ERROR_INCOMPATIBLE_DRIVER ? VKRR_ERR_NO_DEVICE : VKRR_ERR_DEVICE,
                         NULL, 0, -1, "vkCreateInstance failed: %s", vkrr_vk_result_name(r));
    volkLoadInstanceOnly(vk->instance);
    if (vk->validation && vkCreateDebugUtilsMessengerEXT) {
        VkDebugUtilsMessengerCreateInfoEXT mi = {
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
            .pfnUserCallback = on_message,
            .pUserData = vk,
        };
        r = vkCreateDebugUtilsMessengerEXT(vk->instance, &mi, NULL, &vk->messenger);
        if (r != VK_SUCCESS)
            return vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1,
                             "vkCreateDebugUtilsMessengerEXT failed: %s", vkrr_vk_result_name(r));
    }
    return VKRR_OK;
}

/* The feature chain vkbridge needs; `want` has the required bits set. */
typedef struct feature_set {
    VkPhysicalDeviceFeatures2 f2;
    VkPhysicalDeviceVulkan11Features f11;
    VkPhysicalDeviceVulkan12Features f12;
} feature_set;

static void feature_chain(feature_set *s)
{
    memset(s, 0, sizeof *s);
    s->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    s->f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
    s->f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    s->f2.pNext = &s->f11;
    s->f11.pNext = &s->f12;
}

/* X(struct member path, name) of every required feature. */
#define VKRR_VK_REQUIRED_FEATURES(X) \
    X(f12.bufferDeviceAddress, "bufferDeviceAddress") \
    X(f2.features.shaderInt64, "shaderInt64") \
    X(f2.features.shaderInt16, "shaderInt16") \
    X(f12.shaderInt8, "shaderInt8") \
    X(f12.shaderFloat16, "shaderFloat16") \
    X(f12.storageBuffer8BitAccess, "storageBuffer8BitAccess") \
    X(f12.uniformAndStorageBuffer8BitAccess, "uniformAndStorageBuffer8BitAccess") \
    X(f11.storageBuffer16BitAccess, "storageBuffer16BitAccess") \
    X(f11.uniformAndStorageBuffer16BitAccess, "uniformAndStorageBuffer16BitAccess") \
    X(f12.scalarBlockLayout, "scalarBlockLayout") \
    X(f2.features.shaderStorageImageExtendedFormats, "shaderStorageImageExtendedFormats")

/* Writes the names of missing features into buf; true when none is missing. */
static bool check_device(VkPhysicalDevice pd, char *buf, size_t cap)
{
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(pd, &p);
    buf[0] = 0;
    size_t len = 0;
    if (p.apiVersion < VK_API_VERSION_1_2)
        len += (size_t)snprintf(buf, cap, " Vulkan 1.2");
    /* bindings.glsl: 16 + 8 + 8 combined image samplers, 5 x 8 storage images */
    if (p.limits.maxPerStageDescriptorSamplers < 32 || p.limits.maxPerStageDescriptorSampledImages < 32)
        len += (size_t)snprintf(buf + len, cap - len, " maxPerStageDescriptorSamplers>=32");
    if (p.limits.maxPerStageDescriptorStorageImages < 40)
        len += (size_t)snprintf(buf + len, cap - len, " maxPerStageDescriptorStorageImages>=40");
    feature_set have;
    feature_chain(&have);
    if (p.apiVersion >= VK_API_VERSION_1_2)
        vkGetPhysicalDeviceFeatures2(pd, &have.f2);
#define VKRR_CHECK_FEATURE(member, name) \
    if (!have.member && len < cap) len += (size_t)snprintf(buf + len, cap - len, " %s", name);
    VKRR_VK_REQUIRED_FEATURES(VKRR_CHECK_FEATURE)
#undef VKRR_CHECK_FEATURE
    return buf[0] == 0;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static bool name_matches(const char *name, const char *want)
{
    size_t n = strlen(want);
    for (const char *p = name; *p; p++)
        if (strncasecmp(p, want, n) == 0)
            return true;
    return false;
}

static vkrr_status pick_device(vkrr_vk_ctx *vk, const char *sel, vkrr_error *err)
{
    uint32_t n = 0;
    VkResult r = vkEnumeratePhysicalDevices(vk->instance, &n, NULL);
    if (r != VK_SUCCESS || n == 0)
        return vkrr_fail(err, VKRR_ERR_NO_DEVICE, NULL, 0, -1, "no Vulkan device found (%s)",
                         vkrr_vk_result_name(r));
    VkPhysicalDevice pds[64];
    if (n > 64)
        n = 64;
    r = vkEnumeratePhysicalDevices(vk->instance, &n, pds);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE)
        return vkrr_fail(err, VKRR_ERR_NO_DEVICE, NULL, 0, -1, "vkEnumeratePhysicalDevices: %s",
                         vkrr_vk_result_name(r));
    char missing[512], list[512] = "";
    size_t llen = 0;
    for (uint32_t i = 0; i < n && llen < sizeof list; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(pds[i], &p);
        llen += (size_t)snprintf(list + llen, sizeof list - llen, "%s%u: %s", i ? ", " : "", i,
                                 p.deviceName);
    }
    int chosen = -1;
    if (sel && sel[0]) {
        if (all_digits(sel)) {
            unsigned long idx = strtoul(sel, NULL, 10);
            if (idx >= n)
                return vkrr_fail(err, VKRR_ERR_NO_DEVICE, NULL, 0, -1,
                                 "--device %s: no such device index (devices: %s)", sel, list);
            chosen = (int)idx;
        } else {
            for (uint32_t i = 0; i < n && chosen < 0; i++) {
                VkPhysicalDeviceProperties p;
                vkGetPhysicalDeviceProperties(pds[i], &p);
                if (name_matches(p.deviceName, sel))
                    chosen = (int)i;
            }
            if (chosen < 0)
                return vkrr_fail(err, VKRR_ERR_NO_DEVICE, NULL, 0, -1,
                                 "--device %s: no device name contains it (devices: %s)", sel, list);
        }
        if (!check_device(pds[chosen], missing, sizeof missing)) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(pds[chosen], &p);
            return vkrr_fail(err, VKRR_ERR_NO_DEVICE, NULL, 0, -1,
                             "device %d (%s) lacks required features:%s", chosen, p.deviceName,
                             missing);
        }
    } else {
        /* First discrete GPU that qualifies, else the first device that does. */
        char first_missing[1024] = "";
        for (int pass = 0; pass < 2 && chosen < 0; pass++)
            for (uint32_t i = 0; i < n && chosen < 0; i++) {
                VkPhysicalDeviceProperties p;
                vkGetPhysicalDeviceProperties(pds[i], &p);
                if (pass == 0 && p.deviceType != VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)
                    continue;
                if (check_device(pds[i], missing, sizeof missing))
                    chosen = (int)i;
                else if (!first_missing[0])
                    snprintf(first_missing, sizeof first_missing, "%s lacks:%s", p.deviceName,
                             missing);
            }
        if (chosen < 0)
            return vkrr_fail(err, VKRR_ERR_NO_DEVICE, NULL, 0, -1,
                             "no Vulkan device has every required feature (%s)", first_missing);
    }
    vk->phys = pds[chosen];
    vkGetPhysicalDeviceProperties(vk->phys, &vk->props);
    vkGetPhysicalDeviceMemoryProperties(vk->phys, &vk->mem);
    /* the driver and UUID, for the record beside timings (core in 1.2) */
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceDriverProperties dp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
                                           .pNext = &id};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &dp};
    vkGetPhysicalDeviceProperties2(vk->phys, &p2);
    snprintf(vk->driver, sizeof vk->driver, "%.*s%s%.*s", VK_MAX_DRIVER_NAME_SIZE, dp.driverName,
             dp.driverInfo[0] ? " " : "", VK_MAX_DRIVER_INFO_SIZE, dp.driverInfo);
    memcpy(vk->uuid, id.deviceUUID, sizeof vk->uuid);
    return VKRR_OK;
}

static vkrr_status create_device(vkrr_vk_ctx *vk, vkrr_error *err)
{
    uint32_t nq = 0;
    VkQueueFamilyProperties qf[32];
    vkGetPhysicalDeviceQueueFamilyProperties(vk->phys, &nq, NULL);
    if (nq > 32)
        nq = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(vk->phys, &nq, qf);
    uint32_t fam = UINT32_MAX;
    for (uint32_t i = 0; i < nq && fam == UINT32_MAX; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
            fam = i;
    if (fam == UINT32_MAX)
        return vkrr_fail(err, VKRR_ERR_NO_DEVICE, NULL, 0, -1, "%s has no compute queue",
                         vk->props.deviceName);
    feature_set want;
    feature_chain(&want);
#define VKRR_WANT_FEATURE(member, name) want.member = VK_TRUE;
    VKRR_VK_REQUIRED_FEATURES(VKRR_WANT_FEATURE)
#undef VKRR_WANT_FEATURE
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = fam,
        .queueCount = 1,
        .pQueuePriorities = &prio,
    };
    /* what a port may need beyond that, where the device has it */
    vkrr_vk_feat_chain opt;
    vkrr_vk_feat_setup(vk, &opt, &want.f2, &want.f11, &want.f12);
    const char *ext[1 + VKRR_VK_FEAT_MAX_EXT] = {VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME};
    uint32_t next = 0;
    vk->host_import = vkrr_vk_has_extension(vk->phys, ext[0]);
    next += vk->host_import;
    for (uint32_t i = 0; i < opt.next; i++)
        ext[next++] = opt.ext[i];
    if (vk->host_import) {
        VkPhysicalDeviceExternalMemoryHostPropertiesEXT hp = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                          .pNext = &hp};
        vkGetPhysicalDeviceProperties2(vk->phys, &p2);
        vk->host_import_align = hp.minImportedHostPointerAlignment;
    }
    VkDeviceCreateInfo di = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &want.f2,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qi,
        .enabledExtensionCount = next,
        .ppEnabledExtensionNames = ext,
    };
    VkResult r = vkCreateDevice(vk->phys, &di, NULL, &vk->device);
    if (r != VK_SUCCESS)
        return vkrr_fail(err, VKRR_ERR_NO_DEVICE, NULL, 0, -1, "vkCreateDevice on %s failed: %s",
                         vk->props.deviceName, vkrr_vk_result_name(r));
    vk->queue_family = fam;
    vk->timestamp_bits = qf[fam].timestampValidBits;
    volkLoadDeviceTable(&vk->fn, vk->device);
    /* a 1.2 driver has every core function; say so if one is missing */
    if (!vk->fn.vkGetBufferDeviceAddress || !vk->fn.vkCmdPushConstants || !vk->fn.vkGetQueryPoolResults)
        return vkrr_fail(err, VKRR_ERR_NO_LIBRARY, NULL, 0, -1,
                         "the Vulkan driver of %s lacks core 1.2 functions", vk->props.deviceName);
    vk->fn.vkGetDeviceQueue(vk->device, fam, 0, &vk->queue);
    return VKRR_OK;
}

vkrr_status vkrr_vk_ctx_create(vkrr_vk_ctx **out, const vkrr_vk_ctx_desc *desc, vkrr_error *err)
{
    vkrr_status st;
    *out = NULL;
    vkrr_vk_ctx *vk = calloc(1, sizeof *vk);
    if (!vk)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory for the Vulkan context");
    vk->validation = (desc && desc->validation) || env_validation();
    const char *libname = desc && desc->library ? desc->library : VKRR_VK_DEFAULT_LIBRARY;
    vk->lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
    if (!vk->lib) {
        const char *why = dlerror();
        st = vkrr_fail(err, VKRR_ERR_NO_LIBRARY, libname, 0, -1, "cannot load %s: %s", libname,
                       why ? why : "unknown reason");
        goto fail;
    }
    PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(vk->lib, "vkGetInstanceProcAddr");
    if (!gipa) {
        st = vkrr_fail(err, VKRR_ERR_NO_LIBRARY, libname, 0, -1, "%s has no vkGetInstanceProcAddr",
                       libname);
        goto fail;
    }
    volkInitializeCustom(gipa); /* volk's global entry points from this library */
    if (!vkCreateInstance || !vkEnumerateInstanceLayerProperties) {
        st = vkrr_fail(err, VKRR_ERR_NO_LIBRARY, libname, 0, -1, "%s lacks vkCreateInstance", libname);
        goto fail;
    }
    if ((st = create_instance(vk, err)) != VKRR_OK)
        goto fail;
    vkrr_vk_keep_libraries_loaded(); /* the drivers and instance layers are loaded now */
    if ((st = pick_device(vk, desc ? desc->device : NULL, err)) != VKRR_OK)
        goto fail;
    if ((st = create_device(vk, err)) != VKRR_OK)
        goto fail;
    vkrr_vk_keep_libraries_loaded(); /* and whatever the device brought in */
    *out = vk;
    return VKRR_OK;
fail:
    vkrr_vk_ctx_destroy(vk);
    return st;
}

vkrr_status vkrr_vk_ctx_recreate_device(vkrr_vk_ctx *vk, vkrr_error *err)
{
    if (vk->device)
        vk->fn.vkDestroyDevice(vk->device, NULL);
    vk->device = VK_NULL_HANDLE;
    return create_device(vk, err);
}

void vkrr_vk_ctx_destroy(vkrr_vk_ctx *vk)
{
    if (!vk)
        return;
    if (vk->device && vk->fn.vkDestroyDevice)
        vk->fn.vkDestroyDevice(vk->device, NULL);
    if (vk->messenger && vkDestroyDebugUtilsMessengerEXT)
        vkDestroyDebugUtilsMessengerEXT(vk->instance, vk->messenger, NULL);
    if (vk->instance && vkDestroyInstance)
        vkDestroyInstance(vk->instance, NULL);
    if (vk->lib)
        dlclose(vk->lib);
    free(vk);
}
