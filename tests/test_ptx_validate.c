/* test_ptx_validate: `vkrr validate --ref ptx` runs the Vulkan port and, as
 * the reference rerun, the original rrref kernels from their PTX through the
 * interpreter: every launch passes and the rerun matches the capture
 * (lavapipe; this test uses Vulkan). */
#include <stdlib.h>
#include <string.h>

#include "synth.h"
#include "testutil.h"

int main(void)
{
    char *root = test_tmpdir("ptx_validate");
    char rr[4096];
    snprintf(rr, sizeof rr, "%s/rrref", root);
    vkrr_error err = {0};
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = rr, .width = 40, .height = 24, .frames = 2, .module_dir = ""};
    if (!CHECK(vkrr_synth_run(&d, &st, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return test_finish("ptx_validate");
    }
    char args[9000], *o = NULL, *e = NULL;
    snprintf(args, sizeof args, "validate '%s' --ref ptx --modules '%s' --mode isolated --out '%s/out'",
             rr, VKRR_PTX_RRREF_DIR, root);
    int rc = test_run_vkrr(args, &o, &e);
    CHECK_EQ_U64(rc, 0);
    CHECK(o && strstr(o, "original kernels rerun on ptx") && strstr(o, "24 PASS, 0 FAIL"));
    /* with no module folder: bad input, naming it */
    snprintf(args, sizeof args, "validate '%s' --ref ptx --mode isolated --out '%s/out'", rr, root);
    free(o);
    free(e);
    rc = test_run_vkrr(args, &o, &e);
    CHECK_EQ_U64(rc, 2);
    CHECK(e && strstr(e, "modules"));
    free(o);
    free(e);
    int r = test_finish("ptx_validate");
    if (r == 0)
        test_rmtree(root);
    free(root);
    return r;
}
