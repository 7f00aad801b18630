/* test_spirv_strip: a SPIR-V module reduced to its interface
 * (src/port/spirv_strip.h), for the reflection of ports whose modules this
 * SPIRV-Cross cannot parse whole.
 *   - a GLSL shader with cooperative matrices (GL_NV_cooperative_matrix),
 *     compiled by glslang: Debian 12's SPIRV-Cross refuses the module itself
 *     (said, not required: a newer one may parse it); the reduced copy
 *     parses, and SPIRV-Cross reads from it what the GLSL declares: storage
 *     buffers Src (set 0, binding 0) and Dst (0, 1), an 8-byte push-constant
 *     block, a local size of 64 x 1 x 1;
 *   - a shader SPIRV-Cross parses whole (f16 and int8 arithmetic, a
 *     specialisation constant, a storage image): its copy reflects the same
 *     resources, push block and specialisation constants as the module;
 *   - not a module (bad magic, an instruction running past the end, a
 *     zero-length instruction): false, nothing allocated.
 * glslangValidator is a build dependency: nothing skips. */
#include <stdlib.h>
#include <string.h>

#include <spirv_cross_c.h>

#include "spirv_strip.h"
#include "testutil.h"

static const char shader_plain[] =
    "#version 460\n"
    "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
    "#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require\n"
    "layout(local_size_x = 8, local_size_y = 8) in;\n"
    "layout(constant_id = 3) const uint K = 5;\n"
    "layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };\n"
    "layout(set = 1, binding = 2, rgba16f) uniform writeonly image2D img;\n"
    "layout(push_constant, std430) uniform Push { uint w, h; float s; } pc;\n"
    "float twice(float x) { return x + x; }\n"
    "void main()\n{\n"
    "    uvec2 p = gl_GlobalInvocationID.xy;\n"
    "    if (p.x >= pc.w || p.y >= pc.h) return;\n"
    "    float16_t v = float16_t(src[p.y * pc.w + p.x] * pc.s);\n"
    "    int8_t z = int8_t(K);\n"
    "    imageStore(img, ivec2(p), vec4(twice(float(v)) + float(z)));\n"
    "}\n";

static uint32_t *compile(const char *root, const char *name, const char *src, size_t *words)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.comp", root, name);
    CHECK(test_write_file(path, src, strlen(src)));
    if (!CHECK(test_sh("cd '%s' && glslangValidator -V --target-env vulkan1.2 -o %s.spv %s.comp >/dev/null",
                       root, name, name) == 0))
        return NULL;
    snprintf(path, sizeof path, "%s/%s.spv", root, name);
    size_t len = 0;
    uint32_t *w = (uint32_t *)test_read_file(path, &len);
    *words = len / 4;
    return w;
}

/* What SPIRV-Cross reads of a module: "kind set.binding name" lines, the
 * push block's size, the local size and the specialisation constants'
 * ids; false when it does not parse. */
static bool reflect(const uint32_t *w, size_t n, char *desc, size_t cap)
{
    spvc_context ctx = NULL;
    spvc_parsed_ir ir = NULL;
    spvc_compiler c = NULL;
    spvc_resources res = NULL;
    bool ok = false;
    desc[0] = 0;
    if (spvc_context_create(&ctx) != SPVC_SUCCESS)
        return false;
    if (spvc_context_parse_spirv(ctx, w, n, &ir) != SPVC_SUCCESS ||
        spvc_context_create_compiler(ctx, SPVC_BACKEND_NONE, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &c) !=
            SPVC_SUCCESS ||
        spvc_compiler_create_shader_resources(c, &res) != SPVC_SUCCESS)
        goto done;
    static const struct { spvc_resource_type t; const char *name; } kinds[] = {
        {SPVC_RESOURCE_TYPE_STORAGE_BUFFER, "storage"}, {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, "uniform"},
        {SPVC_RESOURCE_TYPE_STORAGE_IMAGE, "image"}, {SPVC_RESOURCE_TYPE_PUSH_CONSTANT, "push"}};
    size_t at = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const spvc_reflected_resource *l = NULL;
        size_t m = 0;
        spvc_resources_get_resource_list_for_type(res, kinds[k].t, &l, &m);
        for (size_t i = 0; i < m; i++) {
            size_t size = 0;
            if (kinds[k].t == SPVC_RESOURCE_TYPE_PUSH_CONSTANT)
                spvc_compiler_get_declared_struct_size(c, spvc_compiler_get_type_handle(c, l[i].base_type_id),
                                                       &size);
            at += (size_t)snprintf(desc + at, cap - at, "%s %u.%u %s %zu; ", kinds[k].name,
                                   spvc_compiler_get_decoration(c, l[i].id, SpvDecorationDescriptorSet),
                                   spvc_compiler_get_decoration(c, l[i].id, SpvDecorationBinding),
                                   l[i].name, size);
        }
    }
    at += (size_t)snprintf(desc + at, cap - at, "local %u %u %u;",
                           spvc_compiler_get_execution_mode_argument_by_index(c, SpvExecutionModeLocalSize, 0),
                           spvc_compiler_get_execution_mode_argument_by_index(c, SpvExecutionModeLocalSize, 1),
                           spvc_compiler_get_execution_mode_argument_by_index(c, SpvExecutionModeLocalSize, 2));
    const spvc_specialization_constant *sc = NULL;
    size_t nsc = 0;
    spvc_compiler_get_specialization_constants(c, &sc, &nsc);
    for (size_t i = 0; i < nsc; i++)
        at += (size_t)snprintf(desc + at, cap - at, " spec %u;", sc[i].constant_id);
    ok = true;
done:
    spvc_context_destroy(ctx);
    return ok;
}

int main(void)
{
    char *root = test_tmpdir("test_spirv_strip");
    char whole[2048], part[2048];
    uint32_t *out = NULL;
    size_t n = 0, words = 0;

    uint32_t *coop = compile(root, "coop", test_glsl_coopmat_nv, &words);
    if (coop) {
        if (reflect(coop, words, whole, sizeof whole))
            printf("note: this SPIRV-Cross parses the cooperative-matrix module itself\n");
        if (CHECK(vkrr_spirv_interface_only(coop, words, &out, &n)) && CHECK(n < words) &&
            CHECK(reflect(out, n, part, sizeof part)))
            CHECK_STR(part, "storage 0.0 Src 0; storage 0.1 Dst 0; push 0.0 pc 8; local 64 1 1;");
        free(out);
        out = NULL;
    }

    uint32_t *plain = compile(root, "plain", shader_plain, &words);
    if (plain && CHECK(reflect(plain, words, whole, sizeof whole))) {
        CHECK_STR(whole, "storage 0.0 Src 0; image 1.2 img 0; push 0.0 pc 12; local 8 8 1; spec 3;");
        if (CHECK(vkrr_spirv_interface_only(plain, words, &out, &n)) && CHECK(reflect(out, n, part, sizeof part)))
            CHECK_STR(part, whole);
        free(out);
        out = NULL;

        /* not a module */
        uint32_t *bad = malloc(words * 4);
        memcpy(bad, plain, words * 4);
        bad[0] ^= 1u;
        CHECK(!vkrr_spirv_interface_only(bad, words, &out, &n) && out == NULL);
        memcpy(bad, plain, words * 4);
        bad[5] = (bad[5] & 0xffffu) | (uint32_t)(words << 16); /* runs past the end */
        CHECK(!vkrr_spirv_interface_only(bad, words, &out, &n) && out == NULL);
        bad[5] = bad[5] & 0xffffu; /* zero words long */
        CHECK(!vkrr_spirv_interface_only(bad, words, &out, &n) && out == NULL);
        CHECK(!vkrr_spirv_interface_only(plain, 4, &out, &n) && out == NULL);
        free(bad);
    }
    free(coop);
    free(plain);
    free(root);
    return test_finish("spirv_strip");
}
