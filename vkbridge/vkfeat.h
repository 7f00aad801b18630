/* vkfeat.h - the device features a fast port may need (portreq.h), found
 * and enabled where the device has them, and held against a port's needs.
 *
 * vkload.c's device has the features every port needs (vkload.h lists
 * them).  The others a port may use (cooperative matrices, shaderFloat64,
 * 8/16-bit push constants, the Vulkan memory model, storage images without
 * a format, subgroup operations, a required subgroup size) are queried when
 * the device is made: what the device has is enabled, with its extension
 * (VK_KHR_cooperative_matrix, VK_NV_cooperative_matrix,
 * VK_EXT_subgroup_size_control) where there is one, and recorded in the
 * context; a port that needs what is missing is NO PORT for its launches
 * (backend_vk.c), the feature named.
 *
 * The instance asks for Vulkan 1.2, so features promoted to 1.3 (subgroup
 * size control) are reached through their extensions.
 */
#ifndef VKRR_VKFEAT_H
#define VKRR_VKFEAT_H

#include <stdbool.h>
#include <stddef.h>

#include "portreq.h"
#include "vkload.h"

/* VK_KHR_cooperative_matrix's feature struct: Debian 12's Vulkan headers
 * (1.3.239) predate the extension, so its layout and sType are spelt here
 * as the registry gives them (extension 507). */
typedef struct vkrr_vk_coopmat_khr_features {
    VkStructureType sType;
    void *pNext;
    VkBool32 cooperativeMatrix;
    VkBool32 cooperativeMatrixRobustBufferAccess;
} vkrr_vk_coopmat_khr_features;
#define VKRR_VK_STYPE_COOPMAT_KHR_FEATURES ((VkStructureType)1000506000)
#define VKRR_VK_COOPMAT_KHR_EXTENSION "VK_KHR_cooperative_matrix"

#define VKRR_VK_FEAT_MAX_EXT 4

/* The optional structs chained into vkCreateDevice: they must outlive it. */
typedef struct vkrr_vk_feat_chain {
    vkrr_vk_coopmat_khr_features coop_khr;
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coop_nv;
    VkPhysicalDeviceSubgroupSizeControlFeaturesEXT ssc;
    const char *ext[VKRR_VK_FEAT_MAX_EXT];
    uint32_t next;
} vkrr_vk_feat_chain;

/* Does phys list the device extension name? */
bool vkrr_vk_has_extension(VkPhysicalDevice phys, const char *name);

/* Queries vk->phys's optional features; sets the ones it has in f2, f11,
 * f12 (the device's create chain, which must end at f12) and in c, chained
 * after f12, with c->ext the extensions to enable; records in vk what the
 * device has (vk->feat, the subgroup sizes). */
void vkrr_vk_feat_setup(vkrr_vk_ctx *vk, vkrr_vk_feat_chain *c, VkPhysicalDeviceFeatures2 *f2,
                        VkPhysicalDeviceVulkan11Features *f11, VkPhysicalDeviceVulkan12Features *f12);

/* True when vk has every need of n; else false and why names the first one
 * it lacks ("needs cooperativeMatrix (VK_KHR_cooperative_matrix), which this
 * device lacks (the shader declares OpCapability CooperativeMatrixKHR)");
 * port: the descriptor's file, for a `require` line. */
bool vkrr_vk_feat_has(const vkrr_vk_ctx *vk, const vkrr_port_needs *n, const char *port, char *why,
                      size_t cap);

#endif
