/* test_portreq: what a port needs (src/port/portreq.h), without a device:
 *   - the SPIR-V capability numbers of the table are the SPIR-V spec's
 *     (checked against SPIRV-Cross's spirv.h where it has them; 6022,
 *     CooperativeMatrixKHR, is newer than Debian 12's header and is spelt
 *     here from the spec);
 *   - a module's OpCapability instructions found wherever they are, each
 *     once; capabilities outside the table (Shader) ignored; a module that
 *     is not SPIR-V (wrong magic, short, an instruction running past the
 *     end) adds nothing and does not crash;
 *   - `require` lines: each keyword, subgroup-size's bounds, errors naming
 *     the file and line. */
#include <stdlib.h>
#include <string.h>

#include <spirv_cross/spirv.h> /* SPIRV-Cross's copy of the SPIR-V header: the spec's numbers */

#include "portreq.h"
#include "testutil.h"

static uint32_t spirv[64];
static size_t nw;

static void module_start(void)
{
    uint32_t h[5] = {0x07230203u, 0x00010500u, 0, 100, 0};
    memcpy(spirv, h, sizeof h);
    nw = 5;
}

static void op(uint32_t opcode, uint32_t count, const uint32_t *operands)
{
    spirv[nw++] = (count << 16) | opcode;
    for (uint32_t i = 1; i < count; i++)
        spirv[nw++] = operands[i - 1];
}

static bool has(const vkrr_port_needs *n, vkrr_port_feature f, uint32_t cap)
{
    for (uint32_t i = 0; i < n->n; i++)
        if (n->need[i].f == f && n->need[i].capability == cap && n->need[i].line == 0)
            return true;
    return false;
}

static vkrr_status req(vkrr_port_needs **n, const char *line, long lineno, vkrr_error *err)
{
    char buf[200], *tok[8];
    int nt = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && nt < 8; t = strtok_r(NULL, " ", &save))
        tok[nt++] = t;
    return vkrr_port_req_line(n, tok, nt, "k.port", lineno, err);
}

int main(void)
{
    /* the capabilities, one by one: the spec's numbers */
    const struct { vkrr_port_feature f; uint32_t cap; } caps[] = {
        {VKRR_FEAT_COOPMAT_KHR, 6022},
        {VKRR_FEAT_COOPMAT_NV, SpvCapabilityCooperativeMatrixNV},
        {VKRR_FEAT_FLOAT16, SpvCapabilityFloat16},
        {VKRR_FEAT_FLOAT64, SpvCapabilityFloat64},
        {VKRR_FEAT_INT8, SpvCapabilityInt8},
        {VKRR_FEAT_INT16, SpvCapabilityInt16},
        {VKRR_FEAT_INT64, SpvCapabilityInt64},
        {VKRR_FEAT_INT64_ATOMICS, SpvCapabilityInt64Atomics},
        {VKRR_FEAT_STORAGE_8BIT, SpvCapabilityStorageBuffer8BitAccess},
        {VKRR_FEAT_UNIFORM_8BIT, SpvCapabilityUniformAndStorageBuffer8BitAccess},
        {VKRR_FEAT_PUSH_8BIT, SpvCapabilityStoragePushConstant8},
        {VKRR_FEAT_STORAGE_16BIT, SpvCapabilityStorageBuffer16BitAccess},
        {VKRR_FEAT_UNIFORM_16BIT, SpvCapabilityUniformAndStorageBuffer16BitAccess},
        {VKRR_FEAT_PUSH_16BIT, SpvCapabilityStoragePushConstant16},
        {VKRR_FEAT_MEMORY_MODEL, SpvCapabilityVulkanMemoryModel},
        {VKRR_FEAT_MEMORY_MODEL_DEVICE, SpvCapabilityVulkanMemoryModelDeviceScope},
        {VKRR_FEAT_IMAGE_READ_NOFMT, SpvCapabilityStorageImageReadWithoutFormat},
        {VKRR_FEAT_IMAGE_WRITE_NOFMT, SpvCapabilityStorageImageWriteWithoutFormat},
        {VKRR_FEAT_SUBGROUP_BASIC, SpvCapabilityGroupNonUniform},
        {VKRR_FEAT_SUBGROUP_VOTE, SpvCapabilityGroupNonUniformVote},
        {VKRR_FEAT_SUBGROUP_ARITHMETIC, SpvCapabilityGroupNonUniformArithmetic},
        {VKRR_FEAT_SUBGROUP_BALLOT, SpvCapabilityGroupNonUniformBallot},
        {VKRR_FEAT_SUBGROUP_SHUFFLE, SpvCapabilityGroupNonUniformShuffle},
        {VKRR_FEAT_SUBGROUP_SHUFFLE_RELATIVE, SpvCapabilityGroupNonUniformShuffleRelative},
        {VKRR_FEAT_SUBGROUP_CLUSTERED, SpvCapabilityGroupNonUniformClustered},
        {VKRR_FEAT_SUBGROUP_QUAD, SpvCapabilityGroupNonUniformQuad},
    };
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        vkrr_port_needs n = {0};
        module_start();
        op(SpvOpCapability, 2, (uint32_t[]){SpvCapabilityShader});
        op(SpvOpCapability, 2, &caps[i].cap);
        vkrr_port_spirv_needs(spirv, 4 * nw, &n);
        if (!CHECK(n.n == 1 && has(&n, caps[i].f, caps[i].cap)))
            fprintf(stderr, "  capability %u -> %u needs\n", caps[i].cap, n.n);
    }
    CHECK_STR(vkrr_port_capability_name(6022), "CooperativeMatrixKHR");
    CHECK_STR(vkrr_port_feature_vk_name(VKRR_FEAT_COOPMAT_KHR), "cooperativeMatrix (VK_KHR_cooperative_matrix)");

    /* anywhere in the module, each once; other instructions skipped by their count */
    vkrr_port_needs n = {0};
    module_start();
    op(SpvOpCapability, 2, (uint32_t[]){SpvCapabilityFloat16});
    op(SpvOpExtension, 4, (uint32_t[]){0x5f565053u, 0x5f52484bu, 0}); /* "SPV_KHR_" */
    op(SpvOpCapability, 2, (uint32_t[]){SpvCapabilityFloat16});
    op(SpvOpCapability, 2, (uint32_t[]){SpvCapabilityInt8});
    vkrr_port_spirv_needs(spirv, 4 * nw, &n);
    CHECK(n.n == 2 && has(&n, VKRR_FEAT_FLOAT16, 9) && has(&n, VKRR_FEAT_INT8, 39));
    /* not SPIR-V: nothing */
    memset(&n, 0, sizeof n);
    spirv[0] = 0x03022307u;
    vkrr_port_spirv_needs(spirv, 4 * nw, &n);
    CHECK_EQ_U64(n.n, 0);
    module_start();
    op(SpvOpCapability, 2, (uint32_t[]){SpvCapabilityFloat16});
    vkrr_port_spirv_needs(spirv, 12, &n); /* shorter than its header */
    CHECK_EQ_U64(n.n, 0);
    module_start();
    op(SpvOpCapability, 2, (uint32_t[]){SpvCapabilityInt8});
    spirv[nw++] = (9u << 16) | SpvOpCapability; /* claims 9 words, 1 left */
    spirv[nw++] = SpvCapabilityFloat16;
    vkrr_port_spirv_needs(spirv, 4 * nw, &n);
    CHECK(n.n == 1 && has(&n, VKRR_FEAT_INT8, 39));
    module_start();
    spirv[nw++] = SpvOpCapability; /* a count of 0 */
    spirv[nw++] = SpvCapabilityFloat16;
    memset(&n, 0, sizeof n);
    vkrr_port_spirv_needs(spirv, 4 * nw, &n);
    CHECK_EQ_U64(n.n, 0);

    /* require lines */
    vkrr_port_needs *r = NULL;
    vkrr_error err = {0};
    for (int f = 0; f < VKRR_FEAT_COUNT; f++) {
        char line[80];
        snprintf(line, sizeof line, "require %s%s", vkrr_port_feature_keyword((vkrr_port_feature)f),
                 f == VKRR_FEAT_SUBGROUP_SIZE ? " 32" : "");
        CHECK(req(&r, line, 10 + f, &err) == VKRR_OK);
    }
    CHECK(r && r->n == VKRR_FEAT_COUNT && r->need[VKRR_FEAT_SUBGROUP_SIZE].value == 32 &&
          r->need[VKRR_FEAT_INT8].line == 10 + VKRR_FEAT_INT8);
    CHECK(req(&r, "require int8", 50, &err) == VKRR_OK && r->n == VKRR_FEAT_COUNT); /* once is enough */
    CHECK(req(&r, "require subgroup-size 32", 51, &err) == VKRR_OK);
    const struct { const char *line, *msg; } bad[] = {
        {"require", "'require' needs a feature"},
        {"require warp-speed", "require warp-speed: not a feature vkrr knows"},
        {"require int8 yes", "require int8: takes no value ('yes' is extra)"},
        {"require subgroup-size", "require subgroup-size: give one size"},
        {"require subgroup-size 0", "require subgroup-size 0: a power of two from 1 to 128"},
        {"require subgroup-size 48", "a power of two from 1 to 128"},
        {"require subgroup-size 256", "a power of two from 1 to 128"},
        {"require subgroup-size -4", "a power of two from 1 to 128"},
        {"require subgroup-size 16", "require subgroup-size 16: line 36 already requires 32"}, /* 10 + its index */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        vkrr_error e = {0};
        char msg[600];
        CHECK(req(&r, bad[i].line, 99, &e) == VKRR_ERR_PARSE);
        vkrr_error_format(&e, msg, sizeof msg);
        if (!CHECK(strstr(msg, "k.port:99: ") && strstr(msg, bad[i].msg)))
            fprintf(stderr, "  '%s': %s\n", bad[i].line, msg);
    }
    free(r);
    CHECK(vkrr_port_req_keyword("require") && !vkrr_port_req_keyword("requires"));
    return test_finish("portreq");
}
