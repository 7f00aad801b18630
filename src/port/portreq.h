/* portreq.h - the device features a port needs: its descriptor's `require`
 * lines and its shader's own OpCapability list (issue 48 item 4).
 *
 * A fast port uses what the device it ships on has: cooperative matrices,
 * 8-, 16- and 64-bit types, subgroup operations, a fixed subgroup size.  On
 * a device that lacks one, the port cannot run there: validate reports its
 * launches NO PORT with the missing feature named, not an ERROR of the run
 * (and not a pipeline that fails to build with a driver's message).
 *
 * What a port needs comes from two places, both held against the device
 * before its shader module is made (vkbridge/vkfeat.c):
 *
 *   - its SPIR-V: each OpCapability it declares that maps onto a Vulkan
 *     feature (vkrr_port_spirv_needs: CooperativeMatrixKHR ->
 *     cooperativeMatrix, Float16 -> shaderFloat16, ...).  A capability not in
 *     the table is left to pipeline creation.
 *   - its descriptor (KERNEL.port, any port, built-in interface or own):
 *
 *         require FEATURE            e.g. require cooperative-matrix
 *         require subgroup-size N    N a power of two, 1..128: the pipeline is
 *                                    made with that required subgroup size
 *
 *     for what the SPIR-V cannot say (a subgroup size) or to state a need
 *     plainly.  FEATURE is a keyword of the table below (portreq.c):
 *     cooperative-matrix cooperative-matrix-nv float16 float64 int8 int16
 *     int64 int64-atomics storage-8bit uniform-8bit push-constant-8bit
 *     storage-16bit uniform-16bit push-constant-16bit vulkan-memory-model
 *     vulkan-memory-model-device-scope image-read-without-format
 *     image-write-without-format subgroup-basic subgroup-vote
 *     subgroup-arithmetic subgroup-ballot subgroup-shuffle
 *     subgroup-shuffle-relative subgroup-clustered subgroup-quad.
 *
 * Errors: a `require` line that does not parse is VKRR_ERR_PARSE naming the
 * file and line (exit 2).  Pure data: no Vulkan here.
 */
#ifndef VKRR_PORTREQ_H
#define VKRR_PORTREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef enum vkrr_port_feature {
    VKRR_FEAT_COOPMAT_KHR,
    VKRR_FEAT_COOPMAT_NV,
    VKRR_FEAT_FLOAT16,
    VKRR_FEAT_FLOAT64,
    VKRR_FEAT_INT8,
    VKRR_FEAT_INT16,
    VKRR_FEAT_INT64,
    VKRR_FEAT_INT64_ATOMICS,
    VKRR_FEAT_STORAGE_8BIT,
    VKRR_FEAT_UNIFORM_8BIT,
    VKRR_FEAT_PUSH_8BIT,
    VKRR_FEAT_STORAGE_16BIT,
    VKRR_FEAT_UNIFORM_16BIT,
    VKRR_FEAT_PUSH_16BIT,
    VKRR_FEAT_MEMORY_MODEL,
    VKRR_FEAT_MEMORY_MODEL_DEVICE,
    VKRR_FEAT_IMAGE_READ_NOFMT,
    VKRR_FEAT_IMAGE_WRITE_NOFMT,
    VKRR_FEAT_SUBGROUP_BASIC, /* the subgroup ones in VkSubgroupFeatureFlagBits order */
    VKRR_FEAT_SUBGROUP_VOTE,
    VKRR_FEAT_SUBGROUP_ARITHMETIC,
    VKRR_FEAT_SUBGROUP_BALLOT,
    VKRR_FEAT_SUBGROUP_SHUFFLE,
    VKRR_FEAT_SUBGROUP_SHUFFLE_RELATIVE,
    VKRR_FEAT_SUBGROUP_CLUSTERED,
    VKRR_FEAT_SUBGROUP_QUAD,
    VKRR_FEAT_SUBGROUP_SIZE,  /* `require subgroup-size N` only */
    VKRR_FEAT_COUNT
} vkrr_port_feature;

/* The feature's `require` keyword ("cooperative-matrix") and the device's
 * name for it in messages ("cooperativeMatrix (VK_KHR_cooperative_matrix)"). */
const char *vkrr_port_feature_keyword(vkrr_port_feature f);
const char *vkrr_port_feature_vk_name(vkrr_port_feature f);

/* One need: the feature, where it comes from, and its value (subgroup-size N). */
typedef struct vkrr_port_need {
    vkrr_port_feature f;
    uint32_t value;       /* subgroup-size: N; else 0 */
    long line;            /* the `require` line; 0: the shader's OpCapability */
    uint32_t capability;  /* the SPIR-V capability (line 0) */
} vkrr_port_need;

#define VKRR_PORT_MAX_NEEDS 48

typedef struct vkrr_port_needs {
    vkrr_port_need need[VKRR_PORT_MAX_NEEDS];
    uint32_t n;
} vkrr_port_needs;

/* Is tok the `require` keyword? */
bool vkrr_port_req_keyword(const char *tok);
/* One `require` line (tok[0] "require") into *n (allocated on first use;
 * the caller frees it). */
vkrr_status vkrr_port_req_line(vkrr_port_needs **n, char **tok, int nt, const char *name, long line,
                               vkrr_error *err);

/* Adds to *out the needs of a SPIR-V module's OpCapability instructions
 * (bytes: its size; a module too short to be SPIR-V adds nothing: the
 * driver says what is wrong with it). */
void vkrr_port_spirv_needs(const uint32_t *code, size_t bytes, vkrr_port_needs *out);
/* The SPIR-V name of a capability the table knows ("CooperativeMatrixKHR"). */
const char *vkrr_port_capability_name(uint32_t capability);

#endif
