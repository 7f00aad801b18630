/* test_chain_frames: chained mode over more frames than the other tests
 * capture.  rrref (cuda_ref/host/rrref_host.c) keeps two history arrays used
 * in turn: frame k reads history[k%2] through its history texture and its
 * output kernel writes history[(k+1)%2] through the surface at arg 48.  From
 * frame 3 on, the array a frame reads was written twice before (frames k-1
 * and k-3), so only there does it matter that a texture reads the LATEST
 * earlier surface of its array (validate_chain.h, capture_links.c); with
 * three frames the earliest writer is the latest one too.  On lavapipe, a
 * 32x24 capture of 5 frames with the surfaces' arrays logged: every chained
 * launch PASSes, and each history texture of frame k >= 1 is fed by frame
 * k-1's output kernel, arg 48, as the JSON "links" say.  The arrays are
 * logged (--log-surface-arrays): without them a surface's array is a guess
 * that only equal dumps confirm, and the search by bytes finds a latest
 * writer by itself, so the array rule is not what decides.  Within each
 * frame the attention block links too (its token arrays are written every
 * frame, so they are read after several writes as well): the first attn0
 * reads tok0's surface, the second the first's out surface, untok0 the
 * second's.  Then, with one launch's replay folder gone, the chain restarts
 * after it and says so. */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "synth.h"
#include "testutil.h"

#define FRAMES 5u
#define PER_FRAME 12u /* rrref's launches per frame (docs/rrref.md) */
#define OUTPUT_KERNEL "cuda_dldn_rrref_output_kernel"
#define HIST_SURFACE_ARG 48u
#define HIST_TEXTURE_ARG 48u /* the input kernel's history texture */

/* The premise, from the capture's own array fields: the history texture of
 * frame 3 reads an array that two earlier launches wrote through a surface. */
static void check_premise(const char *cap_dir)
{
    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    if (!CHECK(vkrr_capture_open(&cap, cap_dir, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    unsigned most = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        for (uint32_t t = 0; l->frame == 3 && t < l->nimages; t++) {
            const vkrr_image *tex = &l->images[t];
            if (tex->kind != VKRR_IMAGE_TEXTURE || !tex->array ||
                strcmp(l->kernel, "cuda_dldn_rrref_input_kernel") || tex->offset != HIST_TEXTURE_ARG)
                continue;
            unsigned writers = 0;
            for (uint32_t j = 0; j < i; j++)
                for (uint32_t k = 0; k < cap->launches[j].nimages; k++)
                    writers += cap->launches[j].images[k].kind == VKRR_IMAGE_SURFACE &&
                               cap->launches[j].images[k].array == tex->array;
            if (writers > most)
                most = writers;
        }
    }
    CHECK_EQ_U64(most, 2);
    vkrr_capture_close(cap);
}

/* The JSON launch entry of sequence seq: its text up to the next entry. */
static const char *entry(const char *json, unsigned long long seq, size_t *len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n    {\"sequence\": %llu, ", seq);
    const char *p = json ? strstr(json, pat) : NULL;
    if (!p)
        return NULL;
    const char *q = strstr(p + 1, "\n    {\"sequence\": ");
    *len = q ? (size_t)(q - p) : strlen(p);
    return p;
}

/* An unsigned value after key in [p, p+len); -1 when absent. */
static long field(const char *p, size_t len, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *f = strstr(p, pat);
    return f && f < p + len ? strtol(f + strlen(pat), NULL, 10) : -1;
}

/* Where launch seq's texture link must come from: the launch and its
 * surface argument (0: the launch has none). */
static void expected_link(unsigned long long seq, long *from, long *arg, const char **kernel)
{
    unsigned pos = (unsigned)((seq - 1) % PER_FRAME);
    long frame = (long)((seq - 1) / PER_FRAME);
    *from = 0, *arg = 0, *kernel = NULL;
    if ((pos == 2 || pos == 11) && frame > 0) {
        /* frame k's history array was last written by frame k-1's output
         * kernel, the last launch of that frame */
        *from = frame * (long)PER_FRAME, *arg = HIST_SURFACE_ARG, *kernel = OUTPUT_KERNEL;
    } else if (pos == 7) { /* the first attn0 reads tok0's tokens */
        *from = (long)seq - 1, *arg = 16, *kernel = "cuda_dldn_rrref_tok0_kernel";
    } else if (pos == 8 || pos == 9) { /* the second attn0 and untok0: the one before's out */
        *from = (long)seq - 1, *arg = 8, *kernel = "cuda_dldn_rrref_attn0_kernel";
    }
}

static void check_links(const char *json)
{
    unsigned links = 0, as_expected = 0;
    for (unsigned long long seq = 1; seq <= FRAMES * PER_FRAME; seq++) {
        size_t len = 0;
        const char *e = entry(json, seq, &len);
        if (!CHECK(e)) {
            fprintf(stderr, "    no launch %llu in the JSON\n", seq);
            continue;
        }
        long frame = field(e, len, "frame");
        CHECK_EQ_U64(frame, (seq - 1) / PER_FRAME);
        const char *ch = strstr(e, "\"chained_status\": \"PASS\"");
        if (!CHECK(ch && ch < e + len))
            fprintf(stderr, "    launch %llu is not PASS chained\n", seq);
        const char *ls = strstr(e, "\"links\": [");
        if (!CHECK(ls && ls < e + len))
            continue;
        for (const char *f = strstr(ls, "\"from\": {\"launch\": "); f && f < e + len;
             f = strstr(f + 1, "\"from\": {\"launch\": ")) {
            size_t rest = (size_t)(e + len - f);
            long from = field(f, rest, "launch"), arg = field(f, rest, "arg");
            const char *k = strstr(f, "\"kernel\": ");
            links++;
            long want_from, want_arg;
            const char *want_kernel;
            expected_link(seq, &want_from, &want_arg, &want_kernel);
            bool ok = want_kernel && from == want_from && arg == want_arg && k &&
                      !strncmp(k + 10, "\"", 1) && !strncmp(k + 11, want_kernel, strlen(want_kernel)) &&
                      k[11 + strlen(want_kernel)] == '"';
            as_expected += ok;
            if (!CHECK(ok))
                fprintf(stderr, "    launch %llu (frame %ld) reads launch %ld arg %ld, not %ld arg %ld\n",
                        seq, frame, from, arg, want_from, want_arg);
        }
    }
    /* the input and the output kernel of frames 1.. read the history; each
     * frame's attention block has its three links */
    CHECK_EQ_U64(links, 2 * (FRAMES - 1) + 3 * FRAMES);
    CHECK_EQ_U64(as_expected, 2 * (FRAMES - 1) + 3 * FRAMES);
}

/* A launch with no replay folder (#28, frame 2's enc0): the chain restarts
 * from the capture at the next launch, which says which launches it lost;
 * everything still PASSes chained (the capture's own inputs are right). */
static void check_gap(const char *root, const char *cap)
{
    char cmd[9000], args[9000], path[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'/replay/replay-000028-*", cap);
    if (!CHECK(system(cmd) == 0))
        return;
    snprintf(path, sizeof path, "%s/gap.json", root);
    snprintf(args, sizeof args, "validate '%s' --mode chained --heatmaps none -q --json '%s'", cap,
             path);
    char *out = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 0);
    CHECK(out && strstr(out, "59 launches (chained): 59 PASS, 0 FAIL, 0 NO PORT, 0 TIMEOUT, 0 ERROR, "
                          "0 SKIPPED"));
    free(out);
    char *json = test_read_file(path, NULL);
    size_t len = 0;
    const char *e = json ? entry(json, 29, &len) : NULL;
    const char *note = e ? strstr(e, "\"note\": \"chained: restarted from the capture (launches "
                                     "#28-#28 have no replay folder, so what they wrote is not "
                                     "replayed)") : NULL;
    CHECK(note && note < e + len);
    free(json);
}

int main(void)
{
    char *root = test_tmpdir("test_chain_frames");
    char cap[4096], path[4096], args[12000];
    snprintf(cap, sizeof cap, "%s/cap", root);
    snprintf(path, sizeof path, "%s/v.json", root);
    vkrr_error err = {0};
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = cap, .width = 32, .height = 24, .frames = FRAMES,
                         .module_dir = "", .log_surface_arrays = true};
    if (CHECK(vkrr_synth_run(&d, &st, &err) == VKRR_OK)) {
        check_premise(cap);
        char *out = NULL;
        snprintf(args, sizeof args, "validate '%s' --mode both --heatmaps none -q --json '%s'",
                 cap, path);
        CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 0);
        CHECK(out && strstr(out, "summary (chained): 60 PASS, 0 FAIL, 0 NO PORT, 0 TIMEOUT, "
                                 "0 ERROR, 0 SKIPPED"));
        free(out);
        char *json = test_read_file(path, NULL);
        CHECK(json);
        check_links(json);
        free(json);
        check_gap(root, cap);
    } else {
        vkrr_error_print(&err, stderr);
    }
    int rc = test_finish("chain_frames");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
