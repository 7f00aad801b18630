/* test_port_new: `vkrr port new` on every rrref kernel of a synth capture
 * writes a .comp that compiles (checked here again with glslang, apart from
 * the command's own check) and a .port whose outputs are exactly the
 * arguments of the built-in rrref descriptor, and which evaluates on the
 * launch it came from.  Bad usage is exit 2 with a message. */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "port_new.h"
#include "portdesc.h"
#include "ports.h"
#include "rrref_host.h"
#include "synth.h"
#include "testutil.h"

static void check_kernel(const vkrr_capture *cap, vkrr_portdesc_set *builtin, const char *dir,
                         const char *kernel)
{
    char args[8192], path[4200];
    char *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "port new %s '%s' --out '%s'", kernel, cap->path, dir);
    int rc = test_run_vkrr(args, &out, &err);
    if (!CHECK(rc == 0 && out && strstr(out, "compiles")))
        fprintf(stderr, "    %s: rc %d\n%s%s", kernel, rc, out ? out : "", err ? err : "");
    free(out), free(err);

    uint32_t *code = NULL;
    size_t bytes = 0;
    vkrr_error e = {0};
    snprintf(path, sizeof path, "%s/%s.comp", dir, kernel);
    if (!CHECK(vkrr_port_shader_compile_glsl(path, dir, &code, &bytes, &e) == VKRR_OK && bytes > 20))
        vkrr_error_print(&e, stderr);
    free(code);

    snprintf(path, sizeof path, "%s/%s.port", dir, kernel);
    vkrr_portdesc *made = NULL;
    const vkrr_portdesc *want = NULL;
    if (!CHECK(vkrr_portdesc_load(&made, path, &e) == VKRR_OK)) {
        vkrr_error_print(&e, stderr);
        return;
    }
    CHECK(vkrr_portdesc_set_get(builtin, kernel, &want, &e) == VKRR_OK && want);
    uint32_t a[16], b[16], na = vkrr_portdesc_args(made, a, 16), nb = want ? vkrr_portdesc_args(want, b, 16) : 0;
    bool same = na == nb && nb > 0;
    for (uint32_t i = 0; same && i < na; i++)
        same = a[i] == b[i];
    if (!CHECK(same)) {
        fprintf(stderr, "    %s: port new names", kernel);
        for (uint32_t i = 0; i < na; i++)
            fprintf(stderr, " arg%u", a[i]);
        fprintf(stderr, "; the built-in descriptor");
        for (uint32_t i = 0; i < nb; i++)
            fprintf(stderr, " arg%u", b[i]);
        fputc('\n', stderr);
    }
    const vkrr_launch *l = vkrr_capture_find(cap, kernel, 0);
    vkrr_port_output o[VKRR_PORT_MAX_OUTPUTS];
    uint32_t n = 0;
    if (!CHECK(l && vkrr_portdesc_eval(made, l, o, VKRR_PORT_MAX_OUTPUTS, &n, &e) == VKRR_OK && n == na))
        vkrr_error_print(&e, stderr);
    vkrr_portdesc_destroy(made);
}

static void check_usage(const char *cap, const char *dir)
{
    char args[8192], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "port new no_such_kernel '%s' --out '%s'", cap, dir);
    CHECK_EQ_U64(test_run_vkrr(args, NULL, &err), 2);
    CHECK(err && strstr(err, "no launch of no_such_kernel") && strstr(err, "cuda_dldn_rrref_dec0_kernel"));
    free(err);
    CHECK_EQ_U64(test_run_vkrr("port", NULL, &err), 2);
    CHECK(err && strstr(err, "'new'"));
    free(err);
    CHECK_EQ_U64(test_run_vkrr("port new cuda_dldn_rrref_dec0_kernel", NULL, NULL), 2);
    CHECK_EQ_U64(test_run_vkrr("port new --help", &out, NULL), 0);
    CHECK(out && strstr(out, "--force") && strstr(out, "--watch"));
    free(out);
    CHECK_EQ_U64(test_run_vkrr("--help", &out, NULL), 0);
    CHECK(out && strstr(out, "port "));
    free(out);
}

/* With the kernel's PTX in the capture, port new types each pointer from
 * what the kernel does through it: no VkrrU8Ptr for an argument read or
 * written as 16- or 32-bit elements, each output's type with its reason,
 * and a GUESS with its alternatives where the PTX cannot settle it. */
static void check_from_ptx(const char *root)
{
    char capdir[1024], dir[1100], args[4096], path[1300];
    snprintf(capdir, sizeof capdir, "%s/cap-ptx", root);
    snprintf(dir, sizeof dir, "%s/ports-ptx", root);
    vkrr_error e = {0};
    vkrr_synth_stats st;
    if (!CHECK(vkrr_synth_run(&(vkrr_synth_desc){.dir = capdir, .width = 16, .height = 16, .frames = 1,
                                                 .module_dir = VKRR_SOURCE_DIR "/tests/ptx/checked_in/rrref"},
                              &st, &e) == VKRR_OK))
        return;
    for (const char *const *k = rrref_kernel_names(); *k; k++) {
        snprintf(args, sizeof args, "port new %s '%s' --out '%s'", *k, capdir, dir);
        CHECK_EQ_U64(test_run_vkrr(args, NULL, NULL), 0);
        snprintf(path, sizeof path, "%s/%s.comp", dir, *k);
        char *comp = test_read_file(path, NULL);
        if (!CHECK(comp && strstr(comp, "read off the kernel's PTX (modules/dlss-module-4242-")))
            continue;
        /* every VkrrU8Ptr member is one the kernel moves bytes through */
        for (char *p = strstr(comp, "VkrrU8Ptr arg"); p; p = strstr(p + 1, "VkrrU8Ptr arg")) {
            char *next = strstr(p, "\n    ");
            char line[512] = "";
            if (next)
                snprintf(line, sizeof line, "%.*s", (int)(strcspn(next + 1, "\n") + 1), next + 1);
            bool wide = strstr(line, ".u16") || strstr(line, ".f32") || strstr(line, ".b32") ||
                        strstr(line, ".u32") || strstr(line, ".f16") || strstr(line, ".b16");
            if (!CHECK(!wide))
                fprintf(stderr, "    %s: a byte pointer for 16/32-bit accesses: %s\n", *k, line);
        }
        free(comp);
    }
    snprintf(path, sizeof path, "%s/cuda_dldn_rrref_input_kernel.comp", dir);
    char *comp = test_read_file(path, NULL);
    CHECK(comp && strstr(comp, "VkrrF32Ptr arg56;") && strstr(comp, "VkrrF16Ptr arg64;") &&
          strstr(comp, "ld.global.f32") && strstr(comp, "the PTX: tex.2d.v4.f32.f32") &&
          strstr(comp, "VKRR_CLAMP x VKRR_CLAMP") && strstr(comp, "vkrr_unorm8()"));
    free(comp);
    snprintf(path, sizeof path, "%s/cuda_dldn_rrref_down_kernel.comp", dir);
    comp = test_read_file(path, NULL);
    CHECK(comp && strstr(comp, "VkrrF16Ptr arg0;") && strstr(comp, "read only") &&
          strstr(comp, "cvt.f32.f16"));
    free(comp);
    snprintf(path, sizeof path, "%s/cuda_dldn_rrref_enc0_kernel.port", dir);
    char *port = test_read_file(path, NULL);
    CHECK(port && strstr(port, "output arg16 f16") &&
          strstr(port, "# the type, from the PTX: st.global.u16") && strstr(port, "cvt.rn.f16.f32") &&
          !strstr(port, "GUESS: f16"));
    free(port);
    /* down writes e4m3 bytes its own code encodes: the PTX cannot tell */
    snprintf(path, sizeof path, "%s/cuda_dldn_rrref_down_kernel.port", dir);
    port = test_read_file(path, NULL);
    CHECK(port && strstr(port, "# GUESS: the type: st.global.u8") && strstr(port, "e4m3/e5m2"));
    free(port);
}

/* A zero 8-byte word is shown as what it likely is: a null pointer (one
 * 64-bit member), not two uint words. */
static void check_null_pointer(void)
{
    uint8_t args[24] = {0};
    args[8] = 5; /* a count between two null words */
    vkrr_launch l = {.sequence = 1, .kernel = "k", .grid = {1, 1, 1}, .block = {32, 1, 1},
                     .args_bytes = sizeof args, .args = args, .dir = "replay/replay-000001-k"};
    vkrr_capture cap = {.path = "cap"};
    vkrr_port_skeleton sk;
    vkrr_error e = {0};
    if (!CHECK(vkrr_port_skeleton_make(&cap, &l, "test", &sk, &e) == VKRR_OK))
        return;
    CHECK(strstr(sk.comp, "uint64_t arg0;  // null in this launch: a null pointer, or two zero uint words") &&
          strstr(sk.comp, "uint arg8;") && strstr(sk.comp, "uint arg12;") &&
          strstr(sk.comp, "uint64_t arg16;  // null in this launch"));
    vkrr_port_skeleton_free(&sk);
}

int main(void)
{
    char *root = test_tmpdir("test_port_new");
    char capdir[1024], dir[1024];
    snprintf(capdir, sizeof capdir, "%s/cap", root);
    snprintf(dir, sizeof dir, "%s/ports", root);
    vkrr_error e = {0};
    vkrr_synth_stats st;
    CHECK(vkrr_synth_run(&(vkrr_synth_desc){.dir = capdir, .width = 27, .height = 15, .frames = 1,
                                            .module_dir = ""},
                         &st, &e) == VKRR_OK);
    vkrr_capture *cap = NULL;
    vkrr_portdesc_set *builtin = NULL;
    CHECK(vkrr_capture_open(&cap, capdir, &e) == VKRR_OK);
    CHECK(vkrr_portdesc_set_create(&builtin, NULL, &e) == VKRR_OK);
    unsigned kernels = 0;
    for (const char *const *k = rrref_kernel_names(); cap && *k; k++, kernels++)
        check_kernel(cap, builtin, dir, *k);
    CHECK_EQ_U64(kernels, 11); /* each kernel once: attn0 runs twice a frame */
    check_usage(capdir, dir);
    check_from_ptx(root);
    check_null_pointer();
    vkrr_portdesc_set_destroy(builtin);
    vkrr_capture_close(cap);
    int rc = test_finish("port_new");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
