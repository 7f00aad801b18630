/* test_ports_glsl: `--ports DIR` with NAME.comp compiles the port at run time
 * (glslang's C API, includes from DIR then the embedded shaders/common):
 * an unchanged copy validates clean, a changed one is really the one run
 * (its launches fail), and broken sources are exit 2 naming file and line. */
#include <stdlib.h>
#include <string.h>

#include "synth.h"
#include "testutil.h"

static const char *K = "cuda_dldn_rrref_output_kernel";

static void put_port(const char *dir, const char *from, const char *to)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/shaders/%s.comp", VKRR_SOURCE_DIR, K);
    size_t len = 0;
    char *src = test_read_file(path, &len);
    if (!CHECK(src != NULL))
        return;
    if (from) {
        char *at = strstr(src, from);
        CHECK(at != NULL);
        if (at)
            memcpy(at, to, strlen(to)); /* same length */
    }
    snprintf(path, sizeof path, "%s/%s.comp", dir, K);
    CHECK(test_write_file(path, src, strlen(src)));
    free(src);
}

static int validate(const char *cap, const char *ports, char **out, char **err)
{
    char args[8192];
    snprintf(args, sizeof args, "validate '%s' --ports '%s' --mode isolated --heatmaps none -q",
             cap, ports);
    return test_run_vkrr(args, out, err);
}

int main(void)
{
    char *root = test_tmpdir("test_ports_glsl");
    char cap[4096], ports[4096];
    snprintf(cap, sizeof cap, "%s/cap", root);
    snprintf(ports, sizeof ports, "%s/ports", root);
    vkrr_error e = {0};
    vkrr_synth_stats st;
    CHECK(vkrr_synth_run(&(vkrr_synth_desc){.dir = cap, .width = 21, .height = 13, .frames = 1,
                                            .module_dir = ""},
                         &st, &e) == VKRR_OK);
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", ports);
    CHECK(system(cmd) == 0);
    char *out = NULL, *err = NULL;

    /* an unchanged copy: compiled at run time, every launch passes */
    put_port(ports, NULL, NULL);
    CHECK_EQ_U64(validate(cap, ports, &out, &err), 0);
    CHECK(out && strstr(out, "0 FAIL"));
    free(out), free(err);

    /* alpha written as 2.0 instead of 1.0: only the output launch fails */
    put_port(ports, "0x3c00u", "0x4000u");
    CHECK_EQ_U64(validate(cap, ports, &out, &err), 1);
    CHECK(out && strstr(out, "1 FAIL") && strstr(out, K));
    free(out), free(err);

    /* a syntax error: exit 2, the message names the file and the line */
    put_port(ports, "0x3c00u", "0x3c00q");
    CHECK_EQ_U64(validate(cap, ports, &out, &err), 2);
    CHECK(err && strstr(err, "does not compile") && strstr(err, ".comp:"));
    free(out), free(err);

    /* an include found nowhere: exit 2 naming it */
    put_port(ports, "#include \"surface.glsl\"", "#include \"surfaxx.glsl\"");
    CHECK_EQ_U64(validate(cap, ports, &out, &err), 2);
    CHECK(err && strstr(err, "surfaxx.glsl"));
    free(out), free(err);

    /* an include in DIR wins over the embedded one: a surface.glsl that
     * drops every store leaves the output unwritten */
    put_port(ports, NULL, NULL);
    snprintf(cmd, sizeof cmd,
             "sed 's/imageStore(table\\[s_\\], (p), (v));/;/' '%s/shaders/common/surface.glsl' > '%s/surface.glsl'",
             VKRR_SOURCE_DIR, ports);
    CHECK(system(cmd) == 0);
    CHECK_EQ_U64(validate(cap, ports, &out, &err), 1);
    CHECK(out && strstr(out, "unwritten"));
    free(out), free(err);

    int rc = test_finish("ports_glsl");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
