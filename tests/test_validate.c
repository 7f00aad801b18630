/* test_validate: rrref captures made by synth validate clean on the Vulkan
 * port (lavapipe, validation layer on), and a corrupted block in one
 * post-launch dump fails exactly that launch, with the worst texel and the
 * heatmap inside the block. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend_vk.h"
#include "capture.h"
#include "cuformat.h"
#include "portdesc.h"
#include "synth.h"
#include "testutil.h"
#include "validate.h"

static char *make_capture(const char *root, const char *name, uint32_t w, uint32_t h)
{
    char *dir = malloc(4096);
    snprintf(dir, 4096, "%s/%s", root, name);
    vkrr_error err = {0};
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = dir, .width = w, .height = h, .frames = 3, .module_dir = ""};
    if (!CHECK(vkrr_synth_run(&d, &st, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    return dir;
}

/* The whole tool, as a user runs it: every launch passes, exit 0, and the
 * validation layer said nothing. */
static void check_cli_pass(const char *cap, const char *root)
{
    char args[8192], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "validate '%s' --validation --out '%s/out' --json '%s/v.json'",
             cap, root, root);
    int rc = test_run_vkrr(args, &out, &err);
    CHECK_EQ_U64(rc, 0);
    CHECK(out && strstr(out, " 0 FAIL, 0 NO PORT, 0 TIMEOUT, 0 ERROR, 0 SKIPPED -> PASS"));
    CHECK(out && strstr(out, "summary (chained): 36 PASS, 0 FAIL"));
    CHECK(out && strstr(out, "validation layer: 0 messages"));
    if (rc != 0)
        fprintf(stderr, "--- stdout\n%s\n--- stderr\n%s\n", out ? out : "", err ? err : "");
    char path[4096];
    snprintf(path, sizeof path, "%s/v.json", root);
    char *json = test_read_file(path, NULL);
    CHECK(json && strstr(json, "\"launches\": [") && strstr(json, "\"exact_pct\""));
    free(json);
    free(out);
    free(err);
}

/* Finds frame 1's dec0 launch and the window its port descriptor says it writes. */
static const vkrr_launch *pick(const vkrr_capture *cap, vkrr_portdesc_set *ports, uint32_t *alloc,
                               vkrr_view *win)
{
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        if (strcmp(l->kernel, "cuda_dldn_rrref_dec0_kernel") || l->frame != 1)
            continue;
        vkrr_port_output out[VKRR_PORT_MAX_OUTPUTS];
        uint32_t n = 0;
        vkrr_error err = {0};
        if (!CHECK(vkrr_portdesc_set_outputs(ports, l, out, VKRR_PORT_MAX_OUTPUTS, &n, &err) == VKRR_OK))
            vkrr_error_print(&err, stderr);
        if (n == 1 && !out[0].surface) {
            *win = out[0].view;
            *alloc = out[0].index;
            return l;
        }
    }
    return NULL;
}

static void check_corrupted_block(const char *cap_dir, const char *root)
{
    char copy[4096], cmd[9000];
    snprintf(copy, sizeof copy, "%s/corrupt", root);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", cap_dir, copy);
    CHECK(system(cmd) == 0);

    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    if (!CHECK(vkrr_capture_open(&cap, copy, &err) == VKRR_OK))
        return;
    uint32_t a = 0;
    vkrr_view win = {0};
    vkrr_portdesc_set *ports = NULL;
    CHECK(vkrr_portdesc_set_create(&ports, NULL, &err) == VKRR_OK);
    const vkrr_launch *target = pick(cap, ports, &a, &win);
    if (!CHECK(target && win.dtype == VKRR_DT_F16 && target->allocs[a].post_path)) {
        vkrr_portdesc_set_destroy(ports);
        vkrr_capture_close(cap);
        return;
    }
    /* A 6x5 block of plane 1 at (x 9..14, y 7..11) becomes 12.0. */
    size_t len = 0;
    char *bytes = test_read_file(target->allocs[a].post_path, &len);
    CHECK(bytes && len == target->allocs[a].size);
    for (uint32_t y = 7; y < 12; y++)
        for (uint32_t x = 9; x < 15; x++) {
            uint64_t at = win.offset + ((uint64_t)win.width * win.height + y * win.width + x) * 2;
            bytes[at] = 0x00;
            bytes[at + 1] = 0x4a;
        }
    CHECK(test_write_file(target->allocs[a].post_path, bytes, len));
    free(bytes);

    vkrr_backend port = {0};
    CHECK(vkrr_vk_backend_create(&port, &(vkrr_vk_desc){0}, &err) == VKRR_OK);
    char hm[4096];
    snprintf(hm, sizeof hm, "%s/heatmaps", root);
    mkdir(hm, 0755);
    vkrr_validate_opts o = {.port_backend = &port, .descs = ports,
                            .buffer_dtype = VKRR_DT_F16, .heatmap_dir = hm};
    unsigned failing = 0;
    for (uint32_t i = 0; port.run && i < cap->nlaunches; i++) {
        vkrr_launch_result r;
        if (!CHECK(vkrr_validate_launch(&o, cap, &cap->launches[i], &r, &err) == VKRR_OK)) {
            vkrr_error_print(&err, stderr);
            break;
        }
        if (r.status != VKRR_LAUNCH_PASS) {
            failing++;
            CHECK(&cap->launches[i] == target);
            CHECK(r.status == VKRR_LAUNCH_FAIL);
            const vkrr_resource_result *w = &r.res[r.worst];
            CHECK(!w->isolated.pass);
            CHECK(w->isolated.m.max_abs_pos.plane == 1);
            CHECK(w->isolated.m.max_abs_pos.x >= 9 && w->isolated.m.max_abs_pos.x < 15);
            CHECK(w->isolated.m.max_abs_pos.y >= 7 && w->isolated.m.max_abs_pos.y < 12);
            struct stat st;
            CHECK(w->isolated.heatmap[0] && stat(w->isolated.heatmap, &st) == 0 && st.st_size > 0);
        }
        vkrr_launch_result_free(&r);
    }
    CHECK_EQ_U64(failing, 1);
    if (port.destroy)
        port.destroy(port.self);
    vkrr_portdesc_set_destroy(ports);
    vkrr_capture_close(cap);

    /* Through the tool: the dump no longer matches its hash= in the log, so
     * the launch is ERROR "changed since capture" (exit 2), not the port's
     * FAIL; told not to check, it is the FAIL the bytes show. */
    char args[8192];
    snprintf(args, sizeof args, "validate '%s' --heatmaps none -q --no-hash-check", copy);
    char *out = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 1);
    CHECK(out && strstr(out, "1 FAIL") && strstr(out, "first failing launch"));
    free(out);
    out = NULL;
    snprintf(args, sizeof args, "validate '%s' --heatmaps none -q", copy);
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 2);
    CHECK(out && strstr(out, " 0 FAIL, 0 NO PORT, 0 TIMEOUT, 1 ERROR, 0 SKIPPED -> INCOMPLETE"));
    CHECK(out && strstr(out, "changed since capture: its FNV-1a hash is ") && strstr(out, ") says hash="));
    free(out);
}

/* --ref cpu reruns the original kernels: the rerun agrees with the capture
 * synth made with the same CPU backend, so it is exact; --ref cuda without
 * libcuda (this machine, CI) is exit 3 naming the library. */
static void check_rerun(const char *cap)
{
    char args[8192], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "validate '%s' --ref cpu --heatmaps none", cap);
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 0);
    CHECK(out && strstr(out, "original kernels rerun on cpu") && strstr(out, "rerun vs cap"));
    CHECK(out && !strstr(out, "BAD"));
    free(out);
    out = NULL;
    if (system("ldconfig -p | grep -q 'libcuda\\.so\\.1'") != 0) {
        snprintf(args, sizeof args, "validate '%s' --ref cuda --heatmaps none", cap);
        CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 3);
        CHECK(err && strstr(err, "libcuda.so.1"));
    }
    free(out);
    free(err);
}

int main(void)
{
    char *root = test_tmpdir("test_validate");
    char *a = make_capture(root, "cap-64x48", 64, 48);
    char *b = make_capture(root, "cap-37x23", 37, 23);
    check_cli_pass(a, root);
    check_cli_pass(b, root);
    check_corrupted_block(a, root);
    check_rerun(b);
    int rc = test_finish("validate");
    if (rc == 0)
        test_rmtree(root);
    free(a);
    free(b);
    free(root);
    return rc;
}
