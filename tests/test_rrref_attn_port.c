/* test_rrref_attn_port: the Vulkan port of rrref's window-attention block
 * (shaders/cuda_dldn_rrref_attn0_kernel.comp) against the CPU backend, on
 * lavapipe, under every hardware model (sm_90, sm_89, sm_80, rounded).
 *
 * For each model this test runs the block on the CPU backend (rrref_attn.cu
 * compiled for the CPU: the reference, never the port) at 44 x 22 pixels
 * (6 x 6 windows, the right column and bottom row partly outside the image:
 * reads clamped, stores dropped) and at 64 x 48, writes the two launches into a capture with the capture writer
 * (its device line naming the model, as synth does), and runs
 * `vkrr validate`: every launch PASSes with every resource 100 % exact.
 * Negative controls, each of which must FAIL:
 *   - the sm_89 capture (13 fraction bits in the fp8 sums) labelled sm_90:
 *     the port follows the label's tensor core, so its bytes differ (the
 *     test first checks that the two models' CPU outputs differ at all);
 *   - the sm_90 capture with one bit of one recorded output texel flipped.
 * `test_rrref_attn_port bench W H` (not in CI) writes one launch at W x H
 * and prints how long validate took: the 720p-class measurement.
 * `test_rrref_attn_port capture DIR MODEL W H` (not in CI) writes one
 * launch at W x H under MODEL, with the block's PTX as its module (so
 * rerun and stress can run the original): examples/attn-fast uses it. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture_write.h"
#include "cpu_backend.h"
#include "hw_model.h"
#include "rrref.h"
#include "testutil.h"

static const char *const kernel = "cuda_dldn_rrref_attn0_kernel";
static const char *const model_names[] = {"sm_90", "sm_89", "sm_80", "rounded"};
#define NMODELS 4
#define WBASE 0x7f0000001000ull

static uint8_t wimg[RRREF_ATTN_W_BYTES];

/* One launch's surfaces, HALF x4 texels of (w * 8) x h. */
typedef struct attn_run {
    uint32_t w, h;
    uint16_t *tokens, *out, *branch;
} attn_run;

static size_t halves(uint32_t w, uint32_t h) { return (size_t)w * 8 * h * 4; }

static uint16_t f16_of(double v) /* v a multiple of 1/16 in (-4, 4): exact */
{
    uint16_t s = v < 0 ? 0x8000 : 0;
    double a = v < 0 ? -v : v;
    if (a == 0)
        return s;
    int e = 0;
    while (a >= 2)
        a /= 2, e++;
    while (a < 1)
        a *= 2, e--;
    return (uint16_t)(s | (e + 15) << 10 | (uint16_t)((a - 1) * 1024));
}

static void make_weights(void)
{
    for (unsigned i = 0; i < RRREF_ATTN_W_BYTES; i++) {
        uint32_t h = (i + 7) * 2246822519u;
        h ^= h >> 15;
        unsigned e = i < RRREF_ATTN_W_BIAS ? 3 + (h >> 5) % 4 : 2 + (h >> 5) % 3; /* 2^-4 .. 0.94 */
        wimg[i] = (uint8_t)(((h >> 9) & 1) << 7 | e << 3 | ((h >> 11) & 7));
    }
}

static attn_run run_new(uint32_t w, uint32_t h)
{
    attn_run r = {w, h, malloc(halves(w, h) * 2), malloc(halves(w, h) * 2), malloc(halves(w, h) * 2)};
    for (size_t i = 0; i < halves(w, h); i++) /* -3 .. 3 in steps of 1/16, an asymmetric pattern */
        r.tokens[i] = f16_of((double)((int)((i * 53 + (i / 32) * 7 + (i / 4) % 5) % 97) - 48) / 16.0);
    return r;
}

static void run_free(attn_run *r)
{
    free(r->tokens), free(r->out), free(r->branch);
}

static rrref_attn_params params(uint32_t w, uint32_t h, uint64_t src, uint64_t out, uint64_t branch)
{
    rrref_attn_params p;
    memset(&p, 0, sizeof p);
    p.src = src, p.out = out, p.branch = branch;
    p.width = w, p.height = h;
    p.windows_x = (w + 7) / 8, p.windows_y = (h + 3) / 4;
    p.weights = WBASE;
    p.log2_tau = 0xb800; /* -0.5 */
    p.channels = 0x5000; /* 32 */
    p.eps = 0x1400;      /* 2^-10 */
    return p;
}

static const vkrr_sampler linear = {.filter = VKRR_FILTER_LINEAR,
                                    .address = {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP},
                                    .normalized = true, .from_log = true};

/* The CPU backend's outputs of r (under the current hardware model). */
static bool cpu_run(vkrr_backend *cpu, attn_run *r)
{
    rrref_attn_params p = params(r->w, r->h, 0x5100, 0x5200, 0x5300);
    uint32_t tw = r->w * 8;
    uint8_t wpost[RRREF_ATTN_W_BYTES];
    memset(r->out, 0xff, halves(r->w, r->h) * 2);
    memset(r->branch, 0xff, halves(r->w, r->h) * 2);
    vkrr_replay_alloc al = {WBASE, sizeof wimg, wimg, wpost, NULL};
    vkrr_pointer ptr = {40, 0, 0};
    vkrr_replay_image im[3] = {
        {.offset = 0, .kind = VKRR_IMAGE_TEXTURE, .handle = p.src, .width = tw, .height = r->h,
         .channels = 4, .format = 16, .sampler = linear, .pre = r->tokens},
        {.offset = 8, .kind = VKRR_IMAGE_SURFACE, .handle = p.out, .width = tw, .height = r->h,
         .channels = 4, .format = 16, .post = r->out},
        {.offset = 16, .kind = VKRR_IMAGE_SURFACE, .handle = p.branch, .width = tw, .height = r->h,
         .channels = 4, .format = 16, .post = r->branch}};
    vkrr_replay rp = {.kernel = kernel, .grid = {(p.windows_x + 1) / 2, (p.windows_y + 1) / 2, 1},
                      .block = {32, 1, 4}, .shared_bytes = RRREF_ATTN_SHARED,
                      .args = (const uint8_t *)&p, .args_bytes = sizeof p, .allocs = &al, .nallocs = 1,
                      .pointers = &ptr, .npointers = 1, .images = im, .nimages = 3};
    vkrr_error err = {0};
    if (!CHECK(cpu->run(cpu->self, &rp, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return false;
    }
    size_t unwritten = 0; /* every in-range texel written (0xffff is no output's value here) */
    for (size_t i = 0; i < halves(r->w, r->h); i++)
        unwritten += r->out[i] == 0xffff || r->branch[i] == 0xffff;
    CHECK_EQ_U64(unwritten, 0);
    return unwritten == 0;
}

/* The launches of runs into a capture at dir, its device line naming
 * `model`; flip: one bit of the first launch's recorded out changed. */
static void write_capture(const char *dir, const char *model, attn_run *runs, unsigned n, bool flip)
{
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] "},
                                &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    vkrr_writer_log_line(w, "device name=\"vkrr cpu backend\" model=\"%s\"", model);
    char ptx[4096];
    snprintf(ptx, sizeof ptx, "%s/rrref_attn.ptx", VKRR_PTX_RRREF_DIR);
    size_t len = 0;
    char *text = test_read_file(ptx, &len);
    if (CHECK(text != NULL) && !CHECK(vkrr_writer_module(w, "rrref_attn.ptx", text, len, &kernel, 1, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    free(text);
    for (unsigned i = 0; i < n; i++) {
        attn_run *r = &runs[i];
        uint32_t tw = r->w * 8;
        uint64_t src = vkrr_writer_texture_create(w, vkrr_writer_array_create(w, tw, r->h, 16, 4), &linear, 0);
        uint64_t out = vkrr_writer_surface_create(w, vkrr_writer_array_create(w, tw, r->h, 16, 4), 0);
        uint64_t br = vkrr_writer_surface_create(w, vkrr_writer_array_create(w, tw, r->h, 16, 4), 0);
        rrref_attn_params p = params(r->w, r->h, src, out, br);
        if (flip && i == 0)
            r->out[halves(r->w, r->h) / 2 + 1] ^= 0x0001;
        vkrr_alloc_record a = {WBASE, sizeof wimg, wimg, wimg};
        vkrr_pointer_record pt = {40, 0, 0};
        vkrr_image_record im[3] = {
            {.offset = 0, .kind = VKRR_IMAGE_TEXTURE, .handle = src, .width = tw, .height = r->h,
             .channels = 4, .format = 16, .post = r->tokens},
            {.offset = 8, .kind = VKRR_IMAGE_SURFACE, .handle = out, .width = tw, .height = r->h,
             .channels = 4, .format = 16, .post = r->out},
            {.offset = 16, .kind = VKRR_IMAGE_SURFACE, .handle = br, .width = tw, .height = r->h,
             .channels = 4, .format = 16, .post = r->branch}};
        vkrr_status st = vkrr_writer_launch(
            w, &(vkrr_launch_record){.kernel = kernel, .grid = {(p.windows_x + 1) / 2, (p.windows_y + 1) / 2, 1},
                                     .block = {32, 1, 4}, .shared_bytes = RRREF_ATTN_SHARED, .args = &p,
                                     .args_bytes = sizeof p, .allocs = &a, .nallocs = 1, .pointers = &pt,
                                     .npointers = 1, .images = im, .nimages = 3},
            NULL, &err);
        if (flip && i == 0)
            r->out[halves(r->w, r->h) / 2 + 1] ^= 0x0001;
        if (!CHECK(st == VKRR_OK))
            vkrr_error_print(&err, stderr);
    }
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
}

/* vkrr validate CAP (the built-in port) exits `want`; on a pass every
 * launch is PASS with every resource 100 % exact (the JSON report). */
static void validate(const char *cap, int want, unsigned launches, int line)
{
    char args[9000], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "validate '%s' --mode both --heatmaps none --json '%s.json'", cap, cap);
    int rc = test_run_vkrr(args, &out, &err);
    bool ok = test_check(rc == want, __FILE__, line, "exit code");
    if (want == 0)
        ok = test_check(test_sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
                                "ls = d['launches']; assert len(ls) == %u, len(ls); "
                                "bad = [(l['kernel'], r.get('offset'), r.get('exact_pct'), r.get('max_ulp')) "
                                "for l in ls for r in l['resources'] "
                                "if l['status'] != 'PASS' or r.get('exact_pct') != 100 or r.get('max_ulp', 0) != 0]; "
                                "assert not bad, bad\" '%s.json'",
                                launches, cap) == 0,
                        __FILE__, line, "every launch PASS, every resource 100 % exact") && ok;
    else
        ok = test_check(out && strstr(out, "FAIL"), __FILE__, line, "FAIL in the report") && ok;
    if (!ok)
        fprintf(stderr, "--- vkrr %s: exit %d, want %d\n%s%s", args, rc, want, out ? out : "",
                err ? err : "");
    free(out);
    free(err);
}

/* model i of model_names, current */
static vkrr_hw_model *use_model(int i) { return test_use_hw_model(model_names[i]); }

static bool same(const attn_run *a, const attn_run *b)
{
    size_t n = halves(a->w, a->h) * 2;
    return !memcmp(a->out, b->out, n) && !memcmp(a->branch, b->branch, n);
}

/* bench W H: one launch, validated once, timed (a figure, never a verdict). */
static int bench(const char *root, vkrr_backend *cpu, uint32_t w, uint32_t h)
{
    attn_run r = run_new(w, h);
    char cap[4200];
    snprintf(cap, sizeof cap, "%s/bench", root);
    vkrr_hw_model *m = use_model(0);
    bool ok = cpu_run(cpu, &r);
    vkrr_hw_use(NULL);
    vkrr_hw_model_close(m);
    if (ok)
        write_capture(cap, "sm_90", &r, 1, false);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char args[9000], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "validate '%s' --mode isolated --heatmaps none --timeout 1200", cap);
    int rc = test_run_vkrr(args, &out, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%s%s", out ? out : "", err ? err : "");
    printf("attn0 %ux%u: validate exit %d in %.1f s (the port on lavapipe, its capture's upload and the "
           "comparison)\n", w, h, rc, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    free(out), free(err);
    run_free(&r);
    return rc;
}

/* capture DIR MODEL W H: one launch under MODEL, for the examples. */
static int capture(const char *dir, const char *model, vkrr_backend *cpu, uint32_t w, uint32_t h)
{
    int i = 0;
    while (i < NMODELS && strcmp(model_names[i], model))
        i++;
    if (i == NMODELS || !w || !h) {
        fprintf(stderr, "test_rrref_attn_port capture: MODEL is sm_90, sm_89, sm_80 or rounded, W and H > 0\n");
        return 2;
    }
    attn_run r = run_new(w, h);
    vkrr_hw_model *m = use_model(i);
    bool ok = cpu_run(cpu, &r);
    vkrr_hw_use(NULL);
    vkrr_hw_model_close(m);
    if (ok)
        write_capture(dir, model, &r, 1, false);
    run_free(&r);
    return test_finish("rrref_attn_port capture");
}

int main(int argc, char **argv)
{
    bool bench_mode = argc == 4 && !strcmp(argv[1], "bench");
    bool capture_mode = argc == 6 && !strcmp(argv[1], "capture");
    if (argc > 1 && !bench_mode && !capture_mode) {
        fprintf(stderr, "usage: test_rrref_attn_port [bench WIDTH HEIGHT | capture DIR MODEL WIDTH HEIGHT]\n");
        return 2;
    }
    vkrr_warn_set_stream(NULL);
    make_weights();
    char *root = test_tmpdir("test_rrref_attn_port");
    vkrr_error err = {0};
    vkrr_backend cpu = {0};
    if (!CHECK(vkrr_cpu_backend_create(&cpu, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return test_finish("rrref_attn_port");
    }
    if (capture_mode) {
        int rc = capture(argv[2], argv[3], &cpu, (uint32_t)atoi(argv[4]), (uint32_t)atoi(argv[5]));
        cpu.destroy(cpu.self);
        test_rmtree(root);
        free(root);
        return rc;
    }
    if (bench_mode) {
        int rc = bench(root, &cpu, (uint32_t)atoi(argv[2]), (uint32_t)atoi(argv[3]));
        cpu.destroy(cpu.self);
        test_rmtree(root);
        free(root);
        return rc;
    }
    static const uint32_t sizes[2][2] = {{44, 22}, {64, 48}};
    attn_run runs[NMODELS][2];
    char cap[4200];
    for (int i = 0; i < NMODELS; i++) {
        vkrr_hw_model *m = use_model(i);
        for (int s = 0; s < 2; s++) {
            runs[i][s] = run_new(sizes[s][0], sizes[s][1]);
            cpu_run(&cpu, &runs[i][s]);
        }
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(m);
        snprintf(cap, sizeof cap, "%s/%s", root, model_names[i]);
        write_capture(cap, model_names[i], runs[i], 2, false);
        validate(cap, 0, 2, __LINE__);
    }
    /* the negative controls mean something only if the models' bytes differ */
    CHECK(!same(&runs[0][0], &runs[1][0]));
    snprintf(cap, sizeof cap, "%s/sm_89_as_sm_90", root);
    write_capture(cap, "sm_90", runs[1], 2, false);
    validate(cap, 1, 2, __LINE__);
    snprintf(cap, sizeof cap, "%s/flipped", root);
    write_capture(cap, "sm_90", runs[0], 2, true);
    validate(cap, 1, 2, __LINE__);
    for (int i = 0; i < NMODELS; i++)
        for (int s = 0; s < 2; s++)
            run_free(&runs[i][s]);
    cpu.destroy(cpu.self);
    int rc = test_finish("rrref_attn_port");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
