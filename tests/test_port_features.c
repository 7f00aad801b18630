/* test_port_features: the device features a port needs (issue 48 item 4:
 * src/port/portreq.h, vkbridge/vkfeat.h), on lavapipe.
 *
 * The kernel is test_port_own's, vkrr_own_scale_kernel(const float *src,
 * float *dst, uint n, float scale), captured here (grid 16 x block 64,
 * n = 1000, scale 3, src[i] = (i mod 97) / 4 - 3: every product exact in
 * f16 as in f32), ported with its own interface.
 *   - in f16 arithmetic with an int8 term (the SPIR-V declares Float16 and
 *     Int8) and `require float16`, `require int8`, `require storage-8bit`
 *     lines: lavapipe has them all: PASS, exit 0;
 *   - a GLSL shader using cooperative matrices (GL_NV_cooperative_matrix:
 *     Debian 12's glslang predates GL_KHR_cooperative_matrix), compiled by
 *     glslang: lavapipe lacks them: NO PORT, its row naming
 *     "cooperativeMatrix (VK_NV_cooperative_matrix), which this device
 *     lacks (the shader declares OpCapability CooperativeMatrixNV)", and the
 *     exit code of a run that ran no port (2), not an error of the run
 *     (these three checks say SKIPPED where a device has cooperative matrices);
 *   - the f16 shader's SPIR-V with `OpCapability CooperativeMatrixKHR`
 *     (6022) added after its header, the way a module compiled from
 *     GL_KHR_cooperative_matrix declares it: NO PORT naming
 *     "cooperativeMatrix (VK_KHR_cooperative_matrix)";
 *   - the f16 port with `require cooperative-matrix`: NO PORT naming the
 *     descriptor's line;
 *   - `require subgroup-size 128` (lavapipe's subgroups are 4 to 16 wide):
 *     NO PORT "needs subgroup size 128, which this device lacks";
 *   - a feature vkrr does not know, a subgroup size not a power of two, two
 *     different subgroup sizes: refused, exit 2, naming file and line.
 * glslangValidator and spirv-dis are build dependencies: nothing skips. */
#include <stdlib.h>
#include <string.h>

#include <volk.h>

#include "capture_write.h"
#include "testutil.h"
#include "vkload.h"

#define KERNEL "vkrr_own_scale_kernel"
#define N 1000u
#define SRC_BASE 0x7f0000000000ull
#define DST_BASE 0x7f0000100000ull

static char *root;

static const char shader_f16[] =
    "#version 460\n"
    "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require\n"
    "#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0, std430) readonly buffer Src { float src[]; };\n"
    "layout(set = 0, binding = 1, std430) writeonly buffer Dst { float dst[]; };\n"
    "layout(push_constant, std430) uniform Push { uint n; float scale; } pc;\n"
    "void main()\n{\n"
    "    uint i = gl_GlobalInvocationID.x;\n"
    "    if (i < pc.n) {\n"
    "        float16_t h = float16_t(src[i]) * float16_t(pc.scale);\n"
    "        int8_t z = int8_t(int(pc.n) - 1000);\n"
    "        dst[i] = float(h) + float(z);\n"
    "    }\n"
    "}\n";

static const char port_text[] =
    "# " KERNEL ": its own interface\n"     /* 1 */
    "interface own\n"                        /* 2 */
    "workgroup 64 1 1\n"                     /* 3 */
    "dispatch (u32@16+63)/64 1 1\n"          /* 4 */
    "binding 0.0 storage-buffer arg0\n"      /* 5 */
    "binding 0.1 storage-buffer arg8\n"      /* 6 */
    "push 0 u32 u32@16\n"                    /* 7 */
    "push 4 f32 f32@20\n"                    /* 8 */
    "output arg8 f32 width=u32@16\n";        /* 9 */

/* A ports folder `name` with the shader's GLSL and the descriptor plus
 * `extra` lines (from line 10). */
static void write_port(const char *name, const char *glsl, const char *extra, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", root, name);
    CHECK_EQ_U64(test_sh("mkdir -p '%s'", dir), 0);
    char path[4400], text[4096];
    snprintf(path, sizeof path, "%s/%s.comp", dir, KERNEL);
    CHECK(test_write_file(path, glsl, strlen(glsl)));
    size_t n = (size_t)snprintf(text, sizeof text, "%s%s", port_text, extra ? extra : "");
    snprintf(path, sizeof path, "%s/%s.port", dir, KERNEL);
    CHECK(test_write_file(path, text, n));
}

static void write_capture(const char *dir)
{
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] "},
                                &err) == VKRR_OK))
        return;
    static float src[N], pre[N], post[N];
    for (uint32_t i = 0; i < N; i++) {
        src[i] = (float)(i % 97) / 4.0f - 3.0f;
        pre[i] = -1.0f;
        post[i] = src[i] * 3.0f;
    }
    struct { uint64_t src, dst; uint32_t n; float scale; } p = {SRC_BASE, DST_BASE, N, 3.0f};
    vkrr_alloc_record a[2] = {{SRC_BASE, sizeof src, src, src}, {DST_BASE, sizeof pre, pre, post}};
    vkrr_pointer_record pt[2] = {{0, 0, 0}, {8, 1, 0}};
    vkrr_status s = vkrr_writer_launch(
        w, &(vkrr_launch_record){.kernel = KERNEL, .grid = {(N + 63) / 64, 1, 1}, .block = {64, 1, 1},
                                 .args = &p, .args_bytes = sizeof p, .allocs = a, .nallocs = 2,
                                 .pointers = pt, .npointers = 2},
        NULL, &err);
    if (!CHECK(s == VKRR_OK))
        vkrr_error_print(&err, stderr);
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
}

/* vkrr validate CAP --ports DIR exits want, its output holding each of
 * `has` (NULL-terminated); else what it printed. */
static char last_out[16384]; /* what the last validate printed */

static void validate(const char *cap, const char *dir, int want, const char *const *has, int line)
{
    char args[9000], *out = NULL;
    snprintf(args, sizeof args, "validate '%s' --ports '%s' --mode isolated --heatmaps none", cap, dir);
    test_vkrr_says_at(__FILE__, line, args, want, has, &out);
    snprintf(last_out, sizeof last_out, "%s", out ? out : "");
    free(out);
}
#define VALIDATE(cap, dir, want, ...) \
    validate(cap, dir, want, (const char *const[]){__VA_ARGS__, NULL}, __LINE__)

/* Whether some Vulkan device here lists extension ext, asked of the loader
 * directly (not through vkfeat.c, the code under test): where one has
 * cooperative matrices (a newer Mesa's lavapipe, a GPU), their NO PORT
 * cannot be shown, and those checks say SKIPPED. */
static bool device_lists(const char *ext)
{
    bool found = false;
    VkInstance inst = VK_NULL_HANDLE;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (volkInitialize() != VK_SUCCESS || vkCreateInstance(&ci, NULL, &inst) != VK_SUCCESS)
        return false;
    volkLoadInstanceOnly(inst);
    /* lavapipe realloc's a block once per load (its L3 affinity masks, on a
     * CPU with several L3 caches): unloaded at vkDestroyInstance, it would
     * be reported as a leak from "<unknown module>" under ASan */
    vkrr_vk_keep_libraries_loaded();
    VkPhysicalDevice pd[8];
    uint32_t n = 8;
    if (vkEnumeratePhysicalDevices(inst, &n, pd) >= 0)
        for (uint32_t i = 0; i < n && !found; i++) {
            VkExtensionProperties e[512];
            uint32_t ne = 512;
            if (vkEnumerateDeviceExtensionProperties(pd[i], NULL, &ne, e) >= 0)
                for (uint32_t k = 0; k < ne; k++)
                    found |= !strcmp(e[k].extensionName, ext);
        }
    vkDestroyInstance(inst, NULL);
    return found;
}

/* Exit 2: the run validated nothing (every launch NO PORT), as for a kernel
 * with no port at all. */
#define NO_PORT_EXIT 2

int main(void)
{
    root = test_tmpdir("test_port_features");
    char cap[4096], dir[4096], where[4400];
    snprintf(cap, sizeof cap, "%s/cap", root);
    write_capture(cap);

    /* f16 and int8 arithmetic, said by the SPIR-V and by require lines */
    write_port("f16", shader_f16, "require float16\nrequire int8\nrequire storage-8bit\n", dir, sizeof dir);
    CHECK_EQ_U64(test_sh("cd '%s' && glslangValidator -V --target-env vulkan1.2 -o k.spv " KERNEL
                         ".comp >/dev/null && spirv-dis k.spv | grep -q 'OpCapability Float16' && "
                         "spirv-dis k.spv | grep -q 'OpCapability Int8'", dir), 0);
    VALIDATE(cap, dir, 0, "PASS", "1 PASS, 0 FAIL, 0 NO PORT");
    /* lavapipe's subgroup is its vector width in 32-bit lanes, which its
     * name says ("llvmpipe (LLVM 15.0.6, 256 bits)"): that size PASSes */
    const char *bits = strstr(last_out, " bits)");
    unsigned width = 0;
    while (bits && bits > last_out && bits[-1] >= '0' && bits[-1] <= '9')
        bits--;
    if (bits && sscanf(bits, "%u bits)", &width) == 1 && width >= 128) {
        char line[64];
        snprintf(line, sizeof line, "require subgroup-size %u\n", width / 32);
        write_port("subgroup_ok", shader_f16, line, dir, sizeof dir);
        VALIDATE(cap, dir, 0, "PASS", "1 PASS, 0 FAIL, 0 NO PORT");
    } else {
        printf("SKIPPED the subgroup-size PASS check: the device is not lavapipe with its width "
               "in its name\n");
    }

    /* cooperative matrices: NO PORT where the device lacks them */
    bool nv = device_lists("VK_NV_cooperative_matrix"), khr = device_lists("VK_KHR_cooperative_matrix");
    if (nv || khr) {
        printf("SKIPPED the cooperative-matrix NO PORT checks: a device here has %s\n",
               nv ? "VK_NV_cooperative_matrix" : "VK_KHR_cooperative_matrix");
    } else {
        /* cooperative matrices, from GLSL through glslang (testutil's shader:
         * the f16 shader's interface through a 16x16 matrix of f16) */
        write_port("coop_nv", test_glsl_coopmat_nv, NULL, dir, sizeof dir);
        VALIDATE(cap, dir, NO_PORT_EXIT, "NO PORT", "0 PASS, 0 FAIL, 1 NO PORT",
                 "needs cooperativeMatrix (VK_NV_cooperative_matrix), which this device lacks (the "
                 "shader declares OpCapability CooperativeMatrixNV)");

        /* CooperativeMatrixKHR declared by the module itself: the f16 shader's
         * SPIR-V with the capability inserted after the 5-word header */
        write_port("coop_khr", shader_f16, NULL, dir, sizeof dir);
        CHECK_EQ_U64(test_sh("cd '%s' && glslangValidator -V --target-env vulkan1.2 -o k.spv " KERNEL
                             ".comp >/dev/null && python3 -c \"import struct, sys; b = open('k.spv', 'rb')"
                             ".read(); open('" KERNEL ".spv', 'wb').write(b[:20] + struct.pack('<II', "
                             "(2 << 16) | 17, 6022) + b[20:])\" && rm k.spv " KERNEL ".comp", dir), 0);
        VALIDATE(cap, dir, NO_PORT_EXIT, "NO PORT",
                 "needs cooperativeMatrix (VK_KHR_cooperative_matrix), which this device lacks (the "
                 "shader declares OpCapability CooperativeMatrixKHR)");

        /* the descriptor's require line */
        write_port("req_coop", shader_f16, "require cooperative-matrix\n", dir, sizeof dir);
        snprintf(where, sizeof where,
                 "needs cooperativeMatrix (VK_KHR_cooperative_matrix), which this device lacks (%s/" KERNEL
                 ".port:10: 'require cooperative-matrix')", dir);
        VALIDATE(cap, dir, NO_PORT_EXIT, "NO PORT", where);
    }
    write_port("subgroup", shader_f16, "require subgroup-size 128\n", dir, sizeof dir);
    VALIDATE(cap, dir, NO_PORT_EXIT, "NO PORT", "needs subgroup size 128, which this device lacks (");

    /* require lines that do not parse */
    write_port("bad_name", shader_f16, "require warp-speed\n", dir, sizeof dir);
    snprintf(where, sizeof where, "%s/" KERNEL ".port:10: require warp-speed: not a feature vkrr knows", dir);
    VALIDATE(cap, dir, 2, where);
    write_port("bad_size", shader_f16, "require subgroup-size 48\n", dir, sizeof dir);
    snprintf(where, sizeof where, "%s/" KERNEL ".port:10: require subgroup-size 48: a power of two from 1 to 128", dir);
    VALIDATE(cap, dir, 2, where);
    write_port("two_sizes", shader_f16, "require subgroup-size 8\nrequire subgroup-size 16\n", dir, sizeof dir);
    snprintf(where, sizeof where, "%s/" KERNEL ".port:11: require subgroup-size 16: line 10 already requires 8", dir);
    VALIDATE(cap, dir, 2, where);

    int rc = test_finish("port_features");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
