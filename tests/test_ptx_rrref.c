/* test_ptx_rrref: every rrref launch of synth captures (64x48 and 37x23, 3
 * frames) rerun by the PTX interpreter from the PTX nvcc built (or, without
 * nvcc, the checked-in copy of it) is byte-identical with the capture, which
 * the CPU backend made from the same .cu source.  And the check can fail: a
 * capture with one flipped byte in a dump is caught. */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "ptx.h"
#include "replay.h"
#include "synth.h"
#include "testutil.h"

static const char *const module_names[] = {"rrref_attn.ptx", "rrref_conv.ptx", "rrref_expo.ptx",
                                           "rrref_input.ptx", "rrref_output.ptx", "rrref_tok.ptx"};
#define NMODULES (sizeof module_names / sizeof module_names[0])

static vkrr_status make_backend(vkrr_backend *be, vkrr_error *err)
{
    char paths[NMODULES][4096];
    const char *p[NMODULES];
    for (size_t i = 0; i < NMODULES; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", VKRR_PTX_RRREF_DIR, module_names[i]);
        p[i] = paths[i];
    }
    return vkrr_ptx_backend_create(be, p, (uint32_t)NMODULES, err);
}

/* Runs every launch; counts launches whose outputs differ from the dumps. */
static unsigned rerun(vkrr_backend *be, const char *dir, unsigned *launches)
{
    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    unsigned bad = 0;
    *launches = 0;
    if (!CHECK(vkrr_capture_open(&cap, dir, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return 1;
    }
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        vkrr_replay r;
        vkrr_replay_storage *st = NULL;
        if (!CHECK(vkrr_replay_from_capture(cap, l, &r, &st, &err) == VKRR_OK)) {
            vkrr_error_print(&err, stderr);
            bad++;
            continue;
        }
        (*launches)++;
        if (be->run(be->self, &r, &err) != VKRR_OK) {
            fprintf(stderr, "launch %s#%u: ", l->kernel, l->occurrence);
            vkrr_error_print(&err, stderr);
            bad++;
            vkrr_replay_capture_free(st);
            continue;
        }
        bool same = true;
        for (uint32_t a = 0; a < r.nallocs; a++) {
            vkrr_mapfile post;
            if (!l->allocs[a].post_path)
                continue;
            if (vkrr_capture_map_alloc_post(cap, l, a, &post, &err) != VKRR_OK) {
                same = false;
                continue;
            }
            if (post.size != r.allocs[a].size || memcmp(post.data, r.allocs[a].post, post.size)) {
                size_t k = 0;
                while (k < post.size && ((const uint8_t *)post.data)[k] == ((uint8_t *)r.allocs[a].post)[k])
                    k++;
                fprintf(stderr, "%s#%u alloc %u differs at byte %zu\n", l->kernel, l->occurrence, a, k);
                same = false;
            }
            vkrr_mapfile_close(&post);
        }
        for (uint32_t k = 0; k < r.nimages; k++) {
            if (r.images[k].kind != VKRR_IMAGE_SURFACE)
                continue;
            vkrr_mapfile dump;
            if (vkrr_capture_map_image(cap, l, k, &dump, &err) != VKRR_OK) {
                same = false;
                continue;
            }
            uint64_t bytes = vkrr_replay_image_bytes(&r.images[k]);
            if (dump.size != bytes || memcmp(dump.data, r.images[k].post, bytes)) {
                fprintf(stderr, "%s#%u surface at %u differs\n", l->kernel, l->occurrence,
                        r.images[k].offset);
                same = false;
            }
            vkrr_mapfile_close(&dump);
        }
        if (!same)
            bad++;
        vkrr_replay_capture_free(st);
    }
    vkrr_capture_close(cap);
    return bad;
}

int main(void)
{
    vkrr_warn_set_stream(NULL);
    char *root = test_tmpdir("ptx_rrref");
    vkrr_error err = {0};
    vkrr_backend be = {0};
    if (!CHECK(make_backend(&be, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return test_finish("ptx_rrref");
    }
    CHECK(be.has_kernel(be.self, "cuda_dldn_rrref_enc0_kernel"));
    CHECK(!be.has_kernel(be.self, "no_such_kernel"));
    static const uint32_t sizes[2][2] = {{64, 48}, {37, 23}};
    char dir[4096];
    for (int s = 0; s < 2; s++) {
        snprintf(dir, sizeof dir, "%s/cap%ux%u", root, sizes[s][0], sizes[s][1]);
        vkrr_synth_stats stats;
        vkrr_synth_desc d = {.dir = dir, .width = sizes[s][0], .height = sizes[s][1], .frames = 3,
                             .module_dir = ""};
        if (!CHECK(vkrr_synth_run(&d, &stats, &err) == VKRR_OK)) {
            vkrr_error_print(&err, stderr);
            continue;
        }
        unsigned n = 0;
        CHECK_EQ_U64(rerun(&be, dir, &n), 0);
        CHECK_EQ_U64(n, 36); /* 12 launches a frame (attn0 twice) x 3 frames */
    }
    /* the comparison can fail: one byte of one dump changed */
    vkrr_capture *cap = NULL;
    if (CHECK(vkrr_capture_open(&cap, dir, &err) == VKRR_OK)) {
        const vkrr_launch *l = vkrr_capture_find(cap, "cuda_dldn_rrref_enc1_kernel", 1);
        const char *path = NULL;
        for (uint32_t a = 0; l && a < l->nallocs; a++)
            if (l->allocs[a].post_path)
                path = l->allocs[a].post_path;
        size_t len = 0;
        char *bytes = path ? test_read_file(path, &len) : NULL;
        if (CHECK(bytes && len > 100)) {
            bytes[len / 2] ^= 0x01;
            CHECK(test_write_file(path, bytes, len));
        }
        free(bytes);
        vkrr_capture_close(cap);
        unsigned n = 0;
        CHECK_EQ_U64(rerun(&be, dir, &n), 1);
    }
    be.destroy(be.self);
    int rc = test_finish("ptx_rrref");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
