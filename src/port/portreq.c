/* portreq.c - the features a port needs: `require` lines and the shader's
 * OpCapability list (portreq.h). */
#include "portreq.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The one table: keyword, the device's name, the SPIR-V capability that
 * needs it (0: none; the SPIR-V names are the spec's). */
static const struct {
    const char *keyword, *vk;
    uint32_t cap;
    const char *cap_name;
} table[VKRR_FEAT_COUNT] = {
    [VKRR_FEAT_COOPMAT_KHR] = {"cooperative-matrix", "cooperativeMatrix (VK_KHR_cooperative_matrix)",
                               6022, "CooperativeMatrixKHR"},
    [VKRR_FEAT_COOPMAT_NV] = {"cooperative-matrix-nv", "cooperativeMatrix (VK_NV_cooperative_matrix)",
                              5357, "CooperativeMatrixNV"},
    [VKRR_FEAT_FLOAT16] = {"float16", "shaderFloat16", 9, "Float16"},
    [VKRR_FEAT_FLOAT64] = {"float64", "shaderFloat64", 10, "Float64"},
    [VKRR_FEAT_INT8] = {"int8", "shaderInt8", 39, "Int8"},
    [VKRR_FEAT_INT16] = {"int16", "shaderInt16", 22, "Int16"},
    [VKRR_FEAT_INT64] = {"int64", "shaderInt64", 11, "Int64"},
    [VKRR_FEAT_INT64_ATOMICS] = {"int64-atomics", "shaderBufferInt64Atomics", 12, "Int64Atomics"},
    [VKRR_FEAT_STORAGE_8BIT] = {"storage-8bit", "storageBuffer8BitAccess", 4448,
                                "StorageBuffer8BitAccess"},
    [VKRR_FEAT_UNIFORM_8BIT] = {"uniform-8bit", "uniformAndStorageBuffer8BitAccess", 4449,
                                "UniformAndStorageBuffer8BitAccess"},
    [VKRR_FEAT_PUSH_8BIT] = {"push-constant-8bit", "storagePushConstant8", 4450,
                             "StoragePushConstant8"},
    [VKRR_FEAT_STORAGE_16BIT] = {"storage-16bit", "storageBuffer16BitAccess", 4433,
                                 "StorageBuffer16BitAccess"},
    [VKRR_FEAT_UNIFORM_16BIT] = {"uniform-16bit", "uniformAndStorageBuffer16BitAccess", 4434,
                                 "UniformAndStorageBuffer16BitAccess"},
    [VKRR_FEAT_PUSH_16BIT] = {"push-constant-16bit", "storagePushConstant16", 4435,
                              "StoragePushConstant16"},
    [VKRR_FEAT_MEMORY_MODEL] = {"vulkan-memory-model", "vulkanMemoryModel", 5345, "VulkanMemoryModel"},
    [VKRR_FEAT_MEMORY_MODEL_DEVICE] = {"vulkan-memory-model-device-scope",
                                       "vulkanMemoryModelDeviceScope", 5346,
                                       "VulkanMemoryModelDeviceScope"},
    [VKRR_FEAT_IMAGE_READ_NOFMT] = {"image-read-without-format", "shaderStorageImageReadWithoutFormat",
                                    55, "StorageImageReadWithoutFormat"},
    [VKRR_FEAT_IMAGE_WRITE_NOFMT] = {"image-write-without-format",
                                     "shaderStorageImageWriteWithoutFormat", 56,
                                     "StorageImageWriteWithoutFormat"},
    [VKRR_FEAT_SUBGROUP_BASIC] = {"subgroup-basic", "subgroup operations (basic) in compute", 61,
                                  "GroupNonUniform"},
    [VKRR_FEAT_SUBGROUP_VOTE] = {"subgroup-vote", "subgroup operations (vote) in compute", 62,
                                 "GroupNonUniformVote"},
    [VKRR_FEAT_SUBGROUP_ARITHMETIC] = {"subgroup-arithmetic",
                                       "subgroup operations (arithmetic) in compute", 63,
                                       "GroupNonUniformArithmetic"},
    [VKRR_FEAT_SUBGROUP_BALLOT] = {"subgroup-ballot", "subgroup operations (ballot) in compute", 64,
                                   "GroupNonUniformBallot"},
    [VKRR_FEAT_SUBGROUP_SHUFFLE] = {"subgroup-shuffle", "subgroup operations (shuffle) in compute",
                                    65, "GroupNonUniformShuffle"},
    [VKRR_FEAT_SUBGROUP_SHUFFLE_RELATIVE] = {"subgroup-shuffle-relative",
                                             "subgroup operations (shuffle relative) in compute", 66,
                                             "GroupNonUniformShuffleRelative"},
    [VKRR_FEAT_SUBGROUP_CLUSTERED] = {"subgroup-clustered",
                                      "subgroup operations (clustered) in compute", 67,
                                      "GroupNonUniformClustered"},
    [VKRR_FEAT_SUBGROUP_QUAD] = {"subgroup-quad", "subgroup operations (quad) in compute", 68,
                                 "GroupNonUniformQuad"},
    [VKRR_FEAT_SUBGROUP_SIZE] = {"subgroup-size", "a required subgroup size (subgroupSizeControl)", 0,
                                 NULL},
};

const char *vkrr_port_feature_keyword(vkrr_port_feature f)
{
    return (unsigned)f < VKRR_FEAT_COUNT ? table[f].keyword : "?";
}

const char *vkrr_port_feature_vk_name(vkrr_port_feature f)
{
    return (unsigned)f < VKRR_FEAT_COUNT ? table[f].vk : "?";
}

const char *vkrr_port_capability_name(uint32_t capability)
{
    for (int f = 0; f < VKRR_FEAT_COUNT; f++)
        if (table[f].cap && table[f].cap == capability)
            return table[f].cap_name;
    return "?";
}

bool vkrr_port_req_keyword(const char *tok)
{
    return !strcmp(tok, "require");
}

static bool add(vkrr_port_needs *n, vkrr_port_need need)
{
    for (uint32_t i = 0; i < n->n; i++)
        if (n->need[i].f == need.f && n->need[i].value == need.value)
            return true; /* said twice: once is enough */
    if (n->n == VKRR_PORT_MAX_NEEDS)
        return false;
    n->need[n->n++] = need;
    return true;
}

/* `subgroup-size N`: a power of two Vulkan allows (1..128). */
static bool subgroup_size(const char *s, uint32_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < 1 || v > 128 || (v & (v - 1)))
        return false;
    *out = (uint32_t)v;
    return true;
}

vkrr_status vkrr_port_req_line(vkrr_port_needs **n, char **tok, int nt, const char *name, long line,
                               vkrr_error *err)
{
    if (nt < 2)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "'require' needs a feature (cooperative-matrix, float16, int8, "
                         "storage-8bit, subgroup-size N, ...: README \"Device features\")");
    int f = 0;
    while (f < VKRR_FEAT_COUNT && strcmp(tok[1], table[f].keyword))
        f++;
    if (f == VKRR_FEAT_COUNT)
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "require %s: not a feature vkrr knows (cooperative-matrix, float16, int8, "
                         "storage-8bit, subgroup-size N, ...: README \"Device features\")", tok[1]);
    vkrr_port_need need = {.f = (vkrr_port_feature)f, .line = line};
    bool sized = f == VKRR_FEAT_SUBGROUP_SIZE;
    if (nt != (sized ? 3 : 2))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, sized
                             ? "require subgroup-size: give one size, e.g. 'require subgroup-size 32'"
                             : "require %s: takes no value ('%s' is extra)", tok[1],
                         nt > 2 ? tok[2] : "");
    if (sized && !subgroup_size(tok[2], &need.value))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                         "require subgroup-size %s: a power of two from 1 to 128", tok[2]);
    if (sized && *n)
        for (uint32_t i = 0; i < (*n)->n; i++)
            if ((*n)->need[i].f == VKRR_FEAT_SUBGROUP_SIZE && (*n)->need[i].value != need.value)
                return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1,
                                 "require subgroup-size %u: line %ld already requires %u",
                                 need.value, (*n)->need[i].line, (*n)->need[i].value);
    if (!*n && !(*n = calloc(1, sizeof **n)))
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, line, -1, "out of memory");
    if (!add(*n, need))
        return vkrr_fail(err, VKRR_ERR_PARSE, name, line, -1, "more than %d 'require' lines",
                         VKRR_PORT_MAX_NEEDS);
    return VKRR_OK;
}

void vkrr_port_spirv_needs(const uint32_t *code, size_t bytes, vkrr_port_needs *out)
{
    enum { OP_CAPABILITY = 17, SPIRV_MAGIC = 0x07230203 };
    size_t words = bytes / 4;
    if (words < 5 || code[0] != SPIRV_MAGIC)
        return;
    /* OpCapability instructions come first in a module (the spec's layout),
     * but walking every instruction costs nothing and trusts no order */
    for (size_t i = 5; i < words;) {
        uint32_t count = code[i] >> 16, op = code[i] & 0xffffu;
        if (count == 0 || i + count > words)
            return; /* malformed: the driver will say so */
        if (op == OP_CAPABILITY && count == 2)
            for (int f = 0; f < VKRR_FEAT_COUNT; f++)
                if (table[f].cap && table[f].cap == code[i + 1])
                    (void)add(out, (vkrr_port_need){.f = (vkrr_port_feature)f,
                                                    .capability = code[i + 1]});
        i += count;
    }
}
