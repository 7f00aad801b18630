/* test_chain_ref: chained validation with a rerun backend runs the original
 * kernel on each dispatched chained launch's own inputs (chain_ref.h), and the
 * bisect verdict decides by it.  On lavapipe from small synth captures:
 *   - --ref cpu, --perturb on enc0: enc0 is the culprit by the original
 *     evidence (the port is 64 ULP from the original on the same inputs);
 *     every later launch whose chained error is out of tolerance agrees with
 *     the original on its chained inputs exactly (JSON chained_vs_original:
 *     100% exact, 0 ULP, nothing outside the windows): an amplifier.
 *   - a port of the down layer with a real bug that its captured inputs never
 *     reach (requantising to e4m3 without satfinite: past 464 it writes NaN
 *     where CUDA clamps to 448).  Isolated it is exact; fed by a hugely
 *     perturbed enc0 it disagrees with the original on the same chained
 *     inputs: a culprit by the original, an amplifier by isolated evidence
 *     alone (the same run without --ref).  Once as a later culprit, once (enc0
 *     given a tolerance that admits its perturbation) as the first divergence,
 *     in validate and bisect.
 *   - --ref ptx (the rrref PTX on vkrr's interpreter), chained only, on a
 *     one-frame capture: the same verdict. */
#include <stdlib.h>
#include <string.h>

#include "synth.h"
#include "testutil.h"

#define PERTURB_BIG "--perturb cuda_dldn_rrref_enc0_kernel=12000"

static int run(const char *args, char **out)
{
    char *err = NULL;
    int rc = test_run_vkrr(args, out, &err);
    if (rc != 0 && rc != 1)
        fprintf(stderr, "vkrr %s: exit %d\n%s\n", args, rc, err ? err : "");
    free(err);
    return rc;
}

/* The JSON text of launch `seq` (up to the next launch); caller frees. */
static char *launch_json(const char *json, unsigned seq)
{
    char pat[64];
    snprintf(pat, sizeof pat, "{\"sequence\": %u, ", seq);
    const char *p = json ? strstr(json, pat) : NULL;
    if (!p)
        return NULL;
    const char *e = strstr(p + 1, "{\"sequence\": ");
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

static unsigned count(const char *s, const char *what)
{
    unsigned n = 0;
    for (const char *p = s; p && (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static char *read_json(const char *root, const char *name)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", root, name);
    return test_read_file(path, NULL);
}

/* An amplifier by the original: every resource of the launch exactly the
 * original's on the same chained inputs.  Returns whether it is one. */
static bool exact_amplifier(const char *lj)
{
    unsigned nres = count(lj, "{\"offset\": ");
    unsigned exact = count(lj, "\"chained_vs_original\": {\"pass\": true, \"exact_pct\": 100, "
                               "\"max_abs\": 0, \"max_ulp\": 0, \"psnr\": null, \"nmse\": 0, "
                               "\"outside_window_bytes\": 0");
    return nres > 0 && exact == nres && strstr(lj, "\"chained_status\": \"FAIL\"") &&
           strstr(lj, "\"role\": \"amplifier\", \"role_evidence\": \"original\"") &&
           strstr(lj, "\"chained_vs_original\": {\"pass\": true, \"max_ulp\": 0}");
}

static void check_amplifiers(const char *cap, const char *root)
{
    char args[16384], *out = NULL;
    snprintf(args, sizeof args, "validate '%s' --ref cpu --perturb cuda_dldn_rrref_enc0_kernel=64 "
             "--heatmaps none --json '%s/amp.json' --report '%s/rep'", cap, root, root);
    CHECK_EQ_U64(run(args, &out), 1);
    CHECK(out && strstr(out, "ch vs orig") &&
          strstr(out, "first divergence: #4 cuda_dldn_rrref_enc0_kernel (frame 0, occurrence 0) "
                      "is the CULPRIT: on its chained inputs the port disagrees with the original "
                      "kernel run on the same inputs (evidence: the original kernel on the "
                      "chained inputs; its isolated error is out of tolerance too)") &&
          !strstr(out, "later culprit"));
    free(out);
    char *json = read_json(root, "amp.json");
    CHECK(json && strstr(json, "\"bisect\": {\"first_divergence\": 4, \"class\": \"culprit\", "
                               "\"evidence\": \"original\", \"upstream\": null, "
                               "\"later_culprits\": []}"));
    char *lj = launch_json(json, 4);
    CHECK(lj && strstr(lj, "\"role\": \"culprit\", \"role_evidence\": \"original\"") &&
          strstr(lj, "\"chained_vs_original\": {\"pass\": false, \"max_ulp\": 64}") &&
          strstr(lj, "\"chained_vs_original\": {\"pass\": false, \"exact_pct\": 0, "));
    free(lj);
    /* the launches before it read the captured inputs: reused from isolated,
     * whose port vs rerun stands for the original on the chained inputs */
    lj = launch_json(json, 3);
    CHECK(lj && strstr(lj, "\"chained\": \"same as isolated\"") &&
          strstr(lj, "\"chained_vs_original\": {\"pass\": true, \"max_ulp\": 0}"));
    free(lj);
    unsigned amplifiers = 0, bad = 0;
    for (unsigned seq = 5; seq <= 24; seq++) {
        lj = launch_json(json, seq);
        if (lj && strstr(lj, "\"chained_status\": \"FAIL\"")) {
            bad++;
            amplifiers += exact_amplifier(lj);
        }
        free(lj);
    }
    /* frame 0 after enc0 (8 of its 12 launches), and frame 1 from its input
     * layer on (it reads frame 0's history; 10): 18 launches carry the error */
    CHECK_EQ_U64(bad, 18);
    CHECK_EQ_U64(amplifiers, bad);
    free(json);
    char path[8192];
    snprintf(path, sizeof path, "%s/rep/index.html", root);
    char *html = test_read_file(path, NULL);
    CHECK(html && strstr(html, ">chained vs original</th>") &&
          strstr(html, "culprit (by original)") && strstr(html, "amplifier (by original)") &&
          strstr(html, "<td class='fail'>64 BAD</td>"));
    free(html);
}

/* ports/cuda_dldn_rrref_down_kernel.comp: the built-in port with the bug. */
static bool write_buggy_down(const char *dir)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/shaders/cuda_dldn_rrref_down_kernel.comp", VKRR_SOURCE_DIR);
    char *src = test_read_file(path, NULL);
    const char *call = "vkrr_e4m3_from_h(vkrr_f2h(q))", *params = "VKRR_PARAMS(RrrefDownParams);";
    char *at = src ? strstr(src, call) : NULL, *pp = src ? strstr(src, params) : NULL;
    if (!CHECK(at && pp && pp < at)) {
        free(src);
        return false;
    }
    const char *fn =
        "\n// The bug on purpose: requantised without satfinite, a value past 464\n"
        "// (448 + half an ULP) becomes the NaN code where CUDA clamps it to 448.\n"
        "uint e4m3_no_satfinite(uint h)\n{\n    float f = vkrr_h2f(h);\n"
        "    return abs(f) >= 464.0 ? VKRR_E4M3_NAN : vkrr_e4m3(f);\n}\n";
    size_t n = strlen(src) + strlen(fn) + 64;
    char *o = malloc(n);
    size_t p1 = (size_t)(pp - src) + strlen(params), p2 = (size_t)(at - src);
    snprintf(o, n, "%.*s%s%.*se4m3_no_satfinite(vkrr_f2h(q))%s", (int)p1, src, fn,
             (int)(p2 - p1), src + p1, at + strlen(call));
    snprintf(path, sizeof path, "mkdir -p '%s'", dir);
    bool ok = system(path) == 0;
    snprintf(path, sizeof path, "%s/cuda_dldn_rrref_down_kernel.comp", dir);
    ok = ok && test_write_file(path, o, strlen(o));
    free(o);
    free(src);
    return ok;
}

static void check_later_culprit(const char *cap, const char *root, const char *ports)
{
    char args[16384], *out = NULL;
    /* isolated, the bug does not show: the captured inputs stay below 448 */
    snprintf(args, sizeof args, "validate '%s' --ports '%s' --mode isolated --heatmaps none -q",
             cap, ports);
    CHECK_EQ_U64(run(args, &out), 0);
    free(out);
    out = NULL;
    snprintf(args, sizeof args, "validate '%s' --ref cpu --ports '%s' " PERTURB_BIG
             " --heatmaps none -q --json '%s/later.json'", cap, ports, root);
    CHECK_EQ_U64(run(args, &out), 1);
    CHECK(out && strstr(out, "first divergence: #4 cuda_dldn_rrref_enc0_kernel") &&
          strstr(out, "bisect: a later culprit: #5 cuda_dldn_rrref_down_kernel (frame 0, "
                      "occurrence 0) disagrees with the original kernel on its chained inputs "
                      "(evidence: original)"));
    free(out);
    char *json = read_json(root, "later.json");
    CHECK(json && strstr(json, "\"later_culprits\": [5]}"));
    char *lj = launch_json(json, 5);
    CHECK(lj && strstr(lj, "\"status\": \"PASS\"") && strstr(lj, "\"chained_status\": \"FAIL\"") &&
          strstr(lj, "\"role\": \"culprit\", \"role_evidence\": \"original\"") &&
          strstr(lj, "\"chained_vs_original\": {\"pass\": false"));
    /* what it disagrees on: NaN where the original saturated */
    const char *m = lj ? strstr(lj, "\"chained_vs_original\": {\"pass\": false, \"exact_pct\"") : NULL;
    m = m ? strstr(m, "\"nan_mismatches\": ") : NULL;
    CHECK(m && strtoull(m + strlen("\"nan_mismatches\": "), NULL, 10) > 0);
    free(lj);
    /* the launch after it is exact against the original on its inputs */
    lj = launch_json(json, 6);
    CHECK(lj && exact_amplifier(lj));
    free(lj);
    free(json);
    /* isolated evidence alone (no rerun backend) calls it an amplifier */
    out = NULL;
    snprintf(args, sizeof args, "validate '%s' --ports '%s' " PERTURB_BIG
             " --heatmaps none -q --json '%s/later-iso.json'", cap, ports, root);
    CHECK_EQ_U64(run(args, &out), 1);
    CHECK(out && !strstr(out, "later culprit") && !strstr(out, "ch vs orig"));
    free(out);
    json = read_json(root, "later-iso.json");
    lj = launch_json(json, 5);
    CHECK(lj && strstr(lj, "\"role\": \"amplifier\", \"role_evidence\": \"isolated\"") &&
          strstr(lj, "\"chained_vs_original\": null") && !strstr(lj, "\"chained_vs_original\": {"));
    CHECK(json && strstr(json, "\"evidence\": \"isolated\"") &&
          strstr(json, "\"later_culprits\": []}"));
    free(lj);
    free(json);
}

/* enc0 given a tolerance its perturbation stays within: the buggy down
 * layer is the first divergence, isolated exact. */
static void check_first_divergence(const char *cap, const char *root, const char *ports)
{
    char tol[2048], args[16384], *out = NULL;
    snprintf(tol, sizeof tol, "%s/enc0.tol", root);
    const char *rule = "cuda_dldn_rrref_enc0_kernel max_ulp=20000\n";
    CHECK(test_write_file(tol, rule, strlen(rule)));
    snprintf(args, sizeof args, "validate '%s' --ref cpu --ports '%s' --tolerance '%s' "
             PERTURB_BIG " --heatmaps none -q --json '%s/first.json'", cap, ports, tol, root);
    /* exit 0: in --mode both the exit code is the isolated verdict, and
     * every launch passes isolated here */
    CHECK_EQ_U64(run(args, &out), 0);
    CHECK(out && strstr(out, "first divergence: #5 cuda_dldn_rrref_down_kernel (frame 0, "
                             "occurrence 0) is the CULPRIT: on its chained inputs the port "
                             "disagrees with the original kernel run on the same inputs "
                             "(evidence: the original kernel on the chained inputs; its "
                             "isolated error alone is within tolerance)"));
    free(out);
    char *json = read_json(root, "first.json");
    CHECK(json && strstr(json, "\"bisect\": {\"first_divergence\": 5, \"class\": \"culprit\", "
                               "\"evidence\": \"original\", \"upstream\": null"));
    free(json);
    out = NULL;
    snprintf(args, sizeof args, "validate '%s' --ports '%s' --tolerance '%s' " PERTURB_BIG
             " --heatmaps none -q --json '%s/first-iso.json'", cap, ports, tol, root);
    CHECK_EQ_U64(run(args, &out), 0);
    CHECK(out && strstr(out, "first divergence: #5 cuda_dldn_rrref_down_kernel (frame 0, "
                             "occurrence 0) is an AMPLIFIER: its isolated error is within "
                             "tolerance (evidence: isolated;"));
    free(out);
    json = read_json(root, "first-iso.json");
    CHECK(json && strstr(json, "\"bisect\": {\"first_divergence\": 5, \"class\": \"amplifier\", "
                               "\"evidence\": \"isolated\", \"upstream\": 4"));
    free(json);
    /* vkrr bisect: the same evidence, stopping there */
    out = NULL;
    snprintf(args, sizeof args, "bisect '%s' --ref cpu --ports '%s' --tolerance '%s' " PERTURB_BIG
             " --heatmaps none", cap, ports, tol);
    CHECK_EQ_U64(run(args, &out), 1);
    CHECK(out && strstr(out, "first divergence: #5 cuda_dldn_rrref_down_kernel") &&
          strstr(out, "CULPRIT: on its chained inputs the port disagrees with the original"));
    free(out);
}

static void check_ptx(const char *root)
{
    char cap[2048], args[16384], *out = NULL;
    snprintf(cap, sizeof cap, "%s/cap1", root);
    vkrr_error err = {0};
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = cap, .width = 24, .height = 16, .frames = 1, .module_dir = ""};
    if (!CHECK(vkrr_synth_run(&d, &st, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    snprintf(args, sizeof args, "validate '%s' --ref ptx --modules '%s' --mode chained "
             "--perturb cuda_dldn_rrref_enc0_kernel=64 --heatmaps none -q --json '%s/ptx.json'",
             cap, VKRR_PTX_RRREF_DIR, root);
    CHECK_EQ_U64(run(args, &out), 1);
    CHECK(out && strstr(out, "original kernels rerun on ptx") &&
          strstr(out, "first divergence: #4 cuda_dldn_rrref_enc0_kernel (frame 0, occurrence 0) "
                      "is the CULPRIT: on its chained inputs the port disagrees with the original "
                      "kernel run on the same inputs (evidence: the original kernel on the "
                      "chained inputs)"));
    free(out);
    char *json = read_json(root, "ptx.json");
    /* chained only: the comparison with the rerun is the chained one, not
     * an isolated port vs rerun */
    CHECK(json && !strstr(json, "\"port_vs_rerun\"") &&
          strstr(json, "\"evidence\": \"original\""));
    char *lj = launch_json(json, 4);
    CHECK(lj && strstr(lj, "\"status\": null") &&
          strstr(lj, "\"chained_vs_original\": {\"pass\": false, \"max_ulp\": 64}"));
    free(lj);
    unsigned amplifiers = 0;
    for (unsigned seq = 5; seq <= 12; seq++) { /* the frame's launches after enc0 */
        lj = launch_json(json, seq);
        amplifiers += lj && exact_amplifier(lj);
        free(lj);
    }
    CHECK_EQ_U64(amplifiers, 8);
    free(json);
}

int main(void)
{
    char *root = test_tmpdir("test_chain_ref");
    char cap[1024], ports[1024];
    snprintf(cap, sizeof cap, "%s/cap", root);
    snprintf(ports, sizeof ports, "%s/ports", root);
    vkrr_error err = {0};
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = cap, .width = 37, .height = 23, .frames = 2, .module_dir = ""};
    if (CHECK(vkrr_synth_run(&d, &st, &err) == VKRR_OK)) {
        check_amplifiers(cap, root);
        if (write_buggy_down(ports)) {
            check_later_culprit(cap, root, ports);
            check_first_divergence(cap, root, ports);
        }
        check_ptx(root);
    } else {
        vkrr_error_print(&err, stderr);
    }
    int rc = test_finish("chain_ref");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
