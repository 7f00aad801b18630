/* vkfeat.c - optional device features: found, enabled, held against a
 * port's needs (vkfeat.h). */
#include "vkfeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool vkrr_vk_has_extension(VkPhysicalDevice phys, const char *name)
{
    uint32_t n = 0;
    bool found = false;
    if (vkEnumerateDeviceExtensionProperties(phys, NULL, &n, NULL) != VK_SUCCESS || !n)
        return false;
    VkExtensionProperties *e = calloc(n, sizeof *e);
    if (e && vkEnumerateDeviceExtensionProperties(phys, NULL, &n, e) == VK_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = !strcmp(e[i].extensionName, name);
    free(e);
    return found;
}

/* A feature bit in the core chain: where it is in `have` and in `want`. */
#define VKRR_CORE_OPTIONAL(X) \
    X(VKRR_FEAT_FLOAT16, f12, shaderFloat16) \
    X(VKRR_FEAT_FLOAT64, f2, features.shaderFloat64) \
    X(VKRR_FEAT_INT8, f12, shaderInt8) \
    X(VKRR_FEAT_INT16, f2, features.shaderInt16) \
    X(VKRR_FEAT_INT64, f2, features.shaderInt64) \
    X(VKRR_FEAT_INT64_ATOMICS, f12, shaderBufferInt64Atomics) \
    X(VKRR_FEAT_STORAGE_8BIT, f12, storageBuffer8BitAccess) \
    X(VKRR_FEAT_UNIFORM_8BIT, f12, uniformAndStorageBuffer8BitAccess) \
    X(VKRR_FEAT_PUSH_8BIT, f12, storagePushConstant8) \
    X(VKRR_FEAT_STORAGE_16BIT, f11, storageBuffer16BitAccess) \
    X(VKRR_FEAT_UNIFORM_16BIT, f11, uniformAndStorageBuffer16BitAccess) \
    X(VKRR_FEAT_PUSH_16BIT, f11, storagePushConstant16) \
    X(VKRR_FEAT_MEMORY_MODEL, f12, vulkanMemoryModel) \
    X(VKRR_FEAT_MEMORY_MODEL_DEVICE, f12, vulkanMemoryModelDeviceScope) \
    X(VKRR_FEAT_IMAGE_READ_NOFMT, f2, features.shaderStorageImageReadWithoutFormat) \
    X(VKRR_FEAT_IMAGE_WRITE_NOFMT, f2, features.shaderStorageImageWriteWithoutFormat)

/* The subgroup properties: operations supported in compute, the sizes. */
static void subgroups(vkrr_vk_ctx *vk, bool ssc)
{
    VkPhysicalDeviceSubgroupSizeControlPropertiesEXT sp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT};
    VkPhysicalDeviceSubgroupProperties sg = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                             .pNext = ssc ? &sp : NULL};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sg};
    vkGetPhysicalDeviceProperties2(vk->phys, &p2);
    bool compute = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
    for (int b = 0; b <= VKRR_FEAT_SUBGROUP_QUAD - VKRR_FEAT_SUBGROUP_BASIC; b++)
        vk->feat[VKRR_FEAT_SUBGROUP_BASIC + b] = compute && (sg.supportedOperations & (1u << b));
    vk->subgroup_size = sg.subgroupSize;
    if (vk->feat[VKRR_FEAT_SUBGROUP_SIZE] && (sp.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT)) {
        vk->subgroup_min = sp.minSubgroupSize;
        vk->subgroup_max = sp.maxSubgroupSize;
    } else {
        vk->feat[VKRR_FEAT_SUBGROUP_SIZE] = false;
    }
}

void vkrr_vk_feat_setup(vkrr_vk_ctx *vk, vkrr_vk_feat_chain *c, VkPhysicalDeviceFeatures2 *f2,
                        VkPhysicalDeviceVulkan11Features *f11, VkPhysicalDeviceVulkan12Features *f12)
{
    memset(c, 0, sizeof *c);
    memset(vk->feat, 0, sizeof vk->feat);
    bool coop_khr = vkrr_vk_has_extension(vk->phys, VKRR_VK_COOPMAT_KHR_EXTENSION);
    bool coop_nv = vkrr_vk_has_extension(vk->phys, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    bool ssc = vkrr_vk_has_extension(vk->phys, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    struct {
        VkPhysicalDeviceFeatures2 f2;
        VkPhysicalDeviceVulkan11Features f11;
        VkPhysicalDeviceVulkan12Features f12;
    } have = {{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2},
              {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES},
              {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES}};
    vkrr_vk_coopmat_khr_features hk = {.sType = VKRR_VK_STYPE_COOPMAT_KHR_FEATURES};
    VkPhysicalDeviceCooperativeMatrixFeaturesNV hn = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    VkPhysicalDeviceSubgroupSizeControlFeaturesEXT hs = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT};
    void **tail = &have.f12.pNext;
    have.f2.pNext = &have.f11;
    have.f11.pNext = &have.f12;
    if (coop_khr)
        *tail = &hk, tail = &hk.pNext;
    if (coop_nv)
        *tail = &hn, tail = &hn.pNext;
    if (ssc)
        *tail = &hs, tail = &hs.pNext;
    vkGetPhysicalDeviceFeatures2(vk->phys, &have.f2);
#define VKRR_ENABLE(id, s, member) \
    if (have.s.member) { (s)->member = VK_TRUE; vk->feat[id] = true; }
    VKRR_CORE_OPTIONAL(VKRR_ENABLE)
#undef VKRR_ENABLE
    /* the extensions' structs go after f12, only for what the device has */
    void **want_tail = &f12->pNext;
    if (coop_khr && hk.cooperativeMatrix) {
        c->coop_khr = (vkrr_vk_coopmat_khr_features){.sType = VKRR_VK_STYPE_COOPMAT_KHR_FEATURES,
                                                     .cooperativeMatrix = VK_TRUE};
        *want_tail = &c->coop_khr, want_tail = &c->coop_khr.pNext;
        c->ext[c->next++] = VKRR_VK_COOPMAT_KHR_EXTENSION;
        vk->feat[VKRR_FEAT_COOPMAT_KHR] = true;
    }
    if (coop_nv && hn.cooperativeMatrix) {
        c->coop_nv = (VkPhysicalDeviceCooperativeMatrixFeaturesNV){
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
            .cooperativeMatrix = VK_TRUE};
        *want_tail = &c->coop_nv, want_tail = &c->coop_nv.pNext;
        c->ext[c->next++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
        vk->feat[VKRR_FEAT_COOPMAT_NV] = true;
    }
    if (ssc && hs.subgroupSizeControl) {
        c->ssc = (VkPhysicalDeviceSubgroupSizeControlFeaturesEXT){
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT,
            .subgroupSizeControl = VK_TRUE, .computeFullSubgroups = hs.computeFullSubgroups};
        *want_tail = &c->ssc, want_tail = &c->ssc.pNext;
        c->ext[c->next++] = VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME;
        vk->feat[VKRR_FEAT_SUBGROUP_SIZE] = true;
    }
    *want_tail = NULL;
    subgroups(vk, vk->feat[VKRR_FEAT_SUBGROUP_SIZE]);
}

bool vkrr_vk_feat_has(const vkrr_vk_ctx *vk, const vkrr_port_needs *n, const char *port, char *why,
                      size_t cap)
{
    for (uint32_t i = 0; n && i < n->n; i++) {
        const vkrr_port_need *d = &n->need[i];
        char from[600];
        if (d->line)
            snprintf(from, sizeof from, "%s:%ld: 'require %s%s%.0u'", port, d->line,
                     vkrr_port_feature_keyword(d->f), d->value ? " " : "", d->value);
        else
            snprintf(from, sizeof from, "the shader declares OpCapability %s",
                     vkrr_port_capability_name(d->capability));
        if (d->f == VKRR_FEAT_SUBGROUP_SIZE) {
            if (vk->feat[d->f] && d->value >= vk->subgroup_min && d->value <= vk->subgroup_max)
                continue;
            char have[80];
            if (vk->feat[d->f])
                snprintf(have, sizeof have, "it has %u..%u", vk->subgroup_min, vk->subgroup_max);
            else
                snprintf(have, sizeof have, "it has %u and no subgroupSizeControl in compute",
                         vk->subgroup_size);
            snprintf(why, cap, "needs subgroup size %u, which this device lacks (%s; %s)", d->value,
                     have, from);
            return false;
        }
        if (!vk->feat[d->f]) {
            snprintf(why, cap, "needs %s, which this device lacks (%s)",
                     vkrr_port_feature_vk_name(d->f), from);
            return false;
        }
    }
    return true;
}
