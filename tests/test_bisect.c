/* test_bisect: perturbation arithmetic; the culprit/amplifier rule on
 * hand-made results (the original on the chained inputs, where it ran,
 * outranks the isolated error); on lavapipe from small synth
 * captures: a perturbed middle layer is the culprit of `vkrr bisect` and of
 * chained validate, later chained failures are amplifiers; a corrupted
 * pre-launch input fails isolated but not chained; `vkrr diff` of a copy is
 * exact and names a corrupted dump; JUnit has one testcase per launch; the
 * HTML report has its table.  `test_bisect xmllint` and `test_bisect chromium`
 * (ctest test_bisect_xmllint, test_bisect_chromium) check that the JUnit file
 * is well-formed XML and that the report renders in headless Chromium without
 * console errors; without the tool they are skipped (testutil.h test_skip). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "cuformat.h"
#include "perturb.h"
#include "synth.h"
#include "testutil.h"
#include "validate_chain.h"

static void check_perturb_math(void)
{
    uint16_t h = 0x3c00; /* 1.0 */
    vkrr_perturb_element(VKRR_DT_F16, &h, 3);
    CHECK_EQ_U64(h, 0x3c03);
    h = 0x0001; /* smallest subnormal, -2 ULP crosses zero */
    vkrr_perturb_element(VKRR_DT_F16, &h, -2);
    CHECK_EQ_U64(h, 0x8001);
    h = 0x7bff; /* largest finite stays finite */
    vkrr_perturb_element(VKRR_DT_F16, &h, 5);
    CHECK_EQ_U64(h, 0x7bff);
    h = 0x7e00; /* NaN untouched */
    vkrr_perturb_element(VKRR_DT_F16, &h, 5);
    CHECK_EQ_U64(h, 0x7e00);
    uint8_t e = 0x7e;
    vkrr_perturb_element(VKRR_DT_E4M3, &e, 1);
    CHECK_EQ_U64(e, 0x7e);
    uint16_t a = 0x4000, b = a;
    vkrr_perturb_element(VKRR_DT_F16, &b, 8);
    CHECK_EQ_U64(vkrr_dtype_ulp_index(VKRR_DT_F16, &b) - vkrr_dtype_ulp_index(VKRR_DT_F16, &a), 8);
    vkrr_perturb p;
    CHECK(vkrr_perturb_parse("k_enc1#2=-4", &p) && !strcmp(p.kernel, "k_enc1") &&
          p.occurrence == 2 && p.ulps == -4);
    CHECK(vkrr_perturb_parse("k=8", &p) && p.occurrence == 0 && p.ulps == 8);
    CHECK(!vkrr_perturb_parse("k#x=8", &p) && !vkrr_perturb_parse("=8", &p) &&
          !vkrr_perturb_parse("k=", &p) && !vkrr_perturb_parse("k", &p));
}

/* The verdict rule on hand-made results (validate_chain.h, README "culprit"):
 * where the original kernel ran on a launch's chained inputs, it alone
 * decides; the isolated error decides only where it did not run.  So a
 * chained failure whose port agrees with the original on those inputs is an
 * AMPLIFIER even when its isolated error is out of tolerance, and one whose
 * port disagrees is the CULPRIT even when its isolated error is clean. */
static vkrr_launch_result judged(const vkrr_launch *l, bool iso_pass, bool orig_ran, bool orig_pass)
{
    return (vkrr_launch_result){.launch = l, .worst = -1, .chained_worst = -1,
                                .has_isolated = true,
                                .status = iso_pass ? VKRR_LAUNCH_PASS : VKRR_LAUNCH_FAIL,
                                .has_chained = true, .chained_status = VKRR_LAUNCH_FAIL,
                                .chained_original_ran = orig_ran, .chained_original_pass = orig_pass};
}

static char *printed(const vkrr_bisect *b, const vkrr_launch_result *res)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        vkrr_bisect_print(f, b, res);
        fclose(f);
    }
    return text;
}

static void check_verdict_rule(void)
{
    vkrr_launch l[3] = {{.sequence = 7, .kernel = "k_a"}, {.sequence = 8, .kernel = "k_b"},
                        {.sequence = 9, .kernel = "k_c"}};
    /* first failure: isolated out of tolerance, original agrees -> amplifier */
    vkrr_launch_result res[3] = {judged(&l[0], false, true, true), judged(&l[1], false, true, true),
                                 judged(&l[2], true, true, false)};
    CHECK_STR(vkrr_bisect_role(&res[0]), "amplifier");
    CHECK(vkrr_bisect_evidence_of(&res[0]) == VKRR_EVIDENCE_ORIGINAL);
    CHECK_STR(vkrr_bisect_role(&res[1]), "amplifier");
    CHECK_STR(vkrr_bisect_role(&res[2]), "culprit");
    vkrr_bisect b;
    vkrr_bisect_analyze(res, 3, &b);
    CHECK_EQ_U64(b.first_fail, 0);
    CHECK(!b.culprit && b.evidence == VKRR_EVIDENCE_ORIGINAL && b.isolated_known && b.isolated_bad);
    /* #8 (isolated bad, original agrees) is no later culprit; #9 is the only one */
    CHECK_EQ_U64(b.later_culprit, 2);
    CHECK_EQ_U64(b.later_culprits, 1);
    char *text = printed(&b, res);
    CHECK(text && strstr(text, "#7 k_a (frame 0, occurrence 0) is an AMPLIFIER") &&
          strstr(text, "its isolated error is out of tolerance, though") &&
          strstr(text, "bisect: a later culprit: #9 k_c") && !strstr(text, "later culprits in all"));
    free(text);
    /* without the original, the same isolated error makes it the culprit */
    res[0].chained_original_ran = false;
    CHECK_STR(vkrr_bisect_role(&res[0]), "culprit");
    CHECK(vkrr_bisect_evidence_of(&res[0]) == VKRR_EVIDENCE_ISOLATED);
    vkrr_bisect_analyze(res, 1, &b);
    CHECK(b.first_fail == 0 && b.culprit && b.evidence == VKRR_EVIDENCE_ISOLATED);
}

static int run(const char *args, char **out)
{
    char *err = NULL;
    int rc = test_run_vkrr(args, out, &err);
    free(err);
    return rc;
}

static void check_perturb_culprit(const char *cap, const char *root)
{
    char args[8192], *out = NULL;
    snprintf(args, sizeof args, "bisect '%s' --perturb cuda_dldn_rrref_enc0_kernel=64 "
             "--heatmaps none", cap);
    CHECK_EQ_U64(run(args, &out), 1);
    CHECK(out && strstr(out, "first divergence: #4 cuda_dldn_rrref_enc0_kernel") &&
          strstr(out, "CULPRIT"));
    free(out);
    snprintf(args, sizeof args, "validate '%s' --perturb cuda_dldn_rrref_enc0_kernel=64 "
             "--heatmaps none --json '%s/p.json' --junit '%s/p.xml'", cap, root, root);
    out = NULL;
    CHECK_EQ_U64(run(args, &out), 1);
    /* launches after the perturbed one that fail chained, before frame 0's
     * output kernel, are amplifiers (their isolated error is clean) */
    CHECK(out && strstr(out, "cuda_dldn_rrref_down_kernel") && strstr(out, "amplifier"));
    free(out);
    char path[4096];
    snprintf(path, sizeof path, "%s/p.json", root);
    char *json = test_read_file(path, NULL);
    CHECK(json && strstr(json, "\"first_divergence\": 4, \"class\": \"culprit\"") &&
          strstr(json, "\"chained\": {") && strstr(json, "\"role\": \"amplifier\""));
    free(json);
    snprintf(path, sizeof path, "%s/p.xml", root);
    char *xml = test_read_file(path, NULL);
    unsigned cases = 0;
    for (const char *p = xml; p && (p = strstr(p, "<testcase ")); p++)
        cases++;
    CHECK_EQ_U64(cases, 24); /* 2 frames of 12 launches */
    CHECK(xml && strstr(xml, "classname=\"cuda_dldn_rrref_enc0_kernel\" name=\"seq 4 frame 0 occ 0\""));
    free(xml);
}

/* xmllint takes the JUnit file of a failing run, and refuses it cut short
 * (so that its verdict is one that can fail). */
static void check_xmllint(const char *cap, const char *root)
{
    char args[16384], path[4096];
    snprintf(path, sizeof path, "%s/p.xml", root);
    snprintf(args, sizeof args, "validate '%s' --perturb cuda_dldn_rrref_enc0_kernel=64 "
             "--heatmaps none -q --junit '%s'", cap, path);
    CHECK_EQ_U64(run(args, NULL), 1);
    snprintf(args, sizeof args, "xmllint --noout '%s'", path);
    CHECK_EQ_U64(system(args), 0);
    snprintf(args, sizeof args, "head -c 600 '%s' >'%s.cut' && ! xmllint --noout '%s.cut' 2>/dev/null",
             path, path, path);
    CHECK_EQ_U64(system(args), 0);
}

/* A middle launch's pre-launch input (replay/.../alloc-0.bin) corrupted:
 * isolated feeds it to the launch, so its output departs from the dump;
 * chained feeds the port's own earlier output instead and stays clean. */
/* "dispatches": N in the JSON summary, -1 when absent. */
static long json_count(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = json ? strstr(json, pat) : NULL;
    return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* --mode both on an exact port costs one pass: while every chained input is
 * the captured one, the chained result is the isolated one (not dispatched);
 * from a perturbed first launch on, chained dispatches again. */
static void check_reuse(const char *cap, const char *root)
{
    char args[16384], path[4096];
    snprintf(path, sizeof path, "%s/both.json", root);
    snprintf(args, sizeof args, "validate '%s' --mode both --heatmaps none -q --json '%s'", cap, path);
    CHECK_EQ_U64(run(args, NULL), 0);
    char *json = test_read_file(path, NULL);
    CHECK_EQ_U64(json_count(json, "launches"), 24);
    CHECK_EQ_U64(json_count(json, "dispatches"), 24);
    CHECK_EQ_U64(json_count(json, "chained_reused"), 24);
    CHECK(json && strstr(json, "\"chained\": \"same as isolated\"") &&
          !strstr(json, "\"chained\": \"dispatched\""));
    free(json);
    snprintf(args, sizeof args, "validate '%s' --mode both --heatmaps none -q --json '%s' "
             "--perturb cuda_dldn_rrref_expo0_kernel=4", cap, path);
    run(args, NULL);
    json = test_read_file(path, NULL);
    long d = json_count(json, "dispatches"), r = json_count(json, "chained_reused");
    /* a launch whose chained inputs differ from the captured ones runs twice;
     * one whose inputs are the captured ones again (the input layer reads
     * the capture's textures; at this size the error is absorbed in frame 1)
     * is reused */
    CHECK(d + r == 48 && r >= 0 && r < 24);
    const char *first = json ? strstr(json, "\"chained\": \"") : NULL;
    CHECK(first && !strncmp(first, "\"chained\": \"dispatched\"", strlen("\"chained\": \"dispatched\"")));
    free(json);
}

static void check_corrupt_input(const char *cap, const char *root)
{
    char copy[1024], cmd[9000];
    snprintf(copy, sizeof copy, "%s/badin", root);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", copy, cap, copy);
    CHECK(system(cmd) == 0);
    vkrr_error err = {0};
    vkrr_capture *c = NULL;
    if (!CHECK(vkrr_capture_open(&c, copy, &err) == VKRR_OK))
        return;
    const vkrr_launch *l = vkrr_capture_find(c, "cuda_dldn_rrref_down_kernel", 0);
    if (CHECK(l && l->nallocs > 0)) {
        size_t len = 0;
        uint8_t *b = (uint8_t *)test_read_file(l->allocs[0].pre_path, &len);
        for (size_t i = 0; b && i < len; i += 2)
            b[i] ^= 0x55; /* every f16 low byte */
        CHECK(b && test_write_file(l->allocs[0].pre_path, b, len));
        free(b);
    }
    char *out = NULL, args[12000];
    snprintf(args, sizeof args, "validate '%s' --heatmaps none --json '%s/ci.json' -q", copy, root);
    CHECK_EQ_U64(run(args, &out), 1);
    free(out);
    char path[4096];
    snprintf(path, sizeof path, "%s/ci.json", root);
    char *json = test_read_file(path, NULL);
    const char *d = json ? strstr(json, "\"sequence\": 5, \"kernel\": \"cuda_dldn_rrref_down_kernel\"") : NULL;
    CHECK(d && !strncmp(strstr(d, "\"status\": ") + 10, "\"FAIL\"", 6));
    CHECK(d && !strncmp(strstr(d, "\"chained_status\": ") + 18, "\"PASS\"", 6));
    free(json);
    vkrr_capture_close(c);
}

static void check_diff(const char *cap, const char *root)
{
    char copy[1024], cmd[9000], args[9000], *out = NULL;
    snprintf(copy, sizeof copy, "%s/copy", root);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", copy, cap, copy);
    CHECK(system(cmd) == 0);
    snprintf(args, sizeof args, "diff '%s' '%s' --heatmaps none -q", cap, copy);
    CHECK_EQ_U64(run(args, &out), 0);
    CHECK(out && strstr(out, "24 within tolerance, 0 differ") && strstr(out, "SAME"));
    free(out);
    vkrr_error err = {0};
    vkrr_capture *c = NULL;
    if (!CHECK(vkrr_capture_open(&c, copy, &err) == VKRR_OK))
        return;
    const vkrr_launch *l = vkrr_capture_find(c, "cuda_dldn_rrref_enc1_kernel", 1);
    const char *dump = NULL;
    for (uint32_t a = 0; l && a < l->nallocs; a++)
        if (l->allocs[a].post_path)
            dump = l->allocs[a].post_path;
    if (CHECK(dump)) {
        size_t len = 0;
        char *b = test_read_file(dump, &len);
        for (size_t i = 1; b && i < len; i += 64)
            b[i] ^= 0x20;
        CHECK(b && test_write_file(dump, b, len));
        free(b);
    }
    vkrr_capture_close(c);
    out = NULL;
    CHECK_EQ_U64(run(args, &out), 1);
    CHECK(out && strstr(out, "first launch that differs: #18 cuda_dldn_rrref_enc1_kernel "
                             "(frame 1, occurrence 1)"));
    free(out);
}

/* The report's table of a thin buffer's values (output_kernel's 72192 x 1
 * arg0, chained, frame 0: the whole arena as bytes; at 37 x 23, half 19 x
 * 12, its windows of 16 f16 full, 8 f16 full, 8 e4m3 half, 16 f16 half, 8
 * f16 full and 16 f16 half res, each from a 256-byte boundary after the
 * first 256 bytes, end at 72192), beside its picture wrapped into rows: its 64
 * worst elements, worst first, and how many more the file holds, against
 * the .tsv read here, which holds the worst 256 and the counts, not every
 * element.  (The page once insertion-sorted every line of a file of every
 * element: 160 s for this 37 x 23 capture.) */
static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static void check_values_table(const char *html, const char *root)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rep/heatmaps/heat-000012-cuda_dldn_rrref_output_kernel-arg000-chained.tsv",
             root);
    char *tsv = test_read_file(path, NULL);
    const char *tab = html ? strstr(html, "heat-000012-cuda_dldn_rrref_output_kernel-arg000-chained.png'></a>"
                                          "<a href='heatmaps/heat-000012-cuda_dldn_rrref_output_kernel-arg000-"
                                          "chained.tsv'>values</a><table class='v'>") : NULL;
    if (!CHECK(tsv && tab))
        return;
    unsigned long long elements = 0, differ = 0;
    const char *counts = strstr(tsv, "\n# 72192x1, 1 planes, 1 channels: ");
    CHECK(counts && sscanf(counts, "\n# 72192x1, 1 planes, 1 channels: %llu elements, %llu differ",
                           &elements, &differ) == 2);
    CHECK_EQ_U64(elements, 72192);
    size_t n = 0, cap = 1 << 16;
    double *errs = malloc(cap * sizeof *errs);
    for (char *line = tsv, *next; line && *line && errs; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (line[0] == '#' || !strncmp(line, "index", 5))
            continue;
        if (n == cap)
            errs = realloc(errs, (cap *= 2) * sizeof *errs);
        if (errs)
            errs[n++] = strtod(strrchr(line, '\t') + 1, NULL);
    }
    if (!CHECK(errs && differ >= 64 && n == (differ < 256 ? differ : 256))) {
        free(errs);
        free(tsv);
        return;
    }
    qsort(errs, n, sizeof *errs, cmp_desc);
    /* the table's rows: eight cells, the last the error */
    const char *end = strstr(tab, "</table>");
    unsigned rows = 0, order = 0, match = 0;
    double prev = INFINITY;
    for (const char *r = strstr(tab, "<tr><td>"); r && r < end; r = strstr(r + 1, "<tr><td>")) {
        const char *last = r;
        for (int c = 0; c < 8; c++)
            last = strstr(last, "<td>") + 4;
        double e = strtod(last, NULL);
        order += e <= prev;
        match += e == errs[rows];
        prev = e;
        rows++;
    }
    printf("report values table: %u rows, %u in order, %u equal to the file's worst\n", rows, order, match);
    CHECK_EQ_U64(rows, 64);
    CHECK_EQ_U64(order, 64);
    CHECK_EQ_U64(match, 64);
    CHECK(errs[0] > 0 && errs[63] > 0);
    char more[64];
    snprintf(more, sizeof more, "</table>%zu more in the file", n - 64);
    CHECK(strstr(end, more) == end);
    free(errs);
    free(tsv);
}

/* The HTML report of a failing run into ROOT/rep; its page in PATH. */
static void make_report(const char *cap, const char *root, char *path, size_t size)
{
    char args[8192];
    snprintf(args, sizeof args, "validate '%s' --report '%s/rep' -q "
             "--perturb cuda_dldn_rrref_enc0_kernel=64", cap, root);
    CHECK_EQ_U64(run(args, NULL), 1);
    snprintf(path, size, "%s/rep/index.html", root);
}

static void check_html(const char *cap, const char *root)
{
    char path[4096];
    make_report(cap, root, path, sizeof path);
    char *html = test_read_file(path, NULL);
    CHECK(html && strstr(html, "<table id='launches'>") && strstr(html, "<svg") &&
          strstr(html, "id='first-divergence'") && !strstr(html, "<script") &&
          !strstr(html, "src='http") && !strstr(html, "https://"));
    check_values_table(html, root);
    free(html);
}

/* --dump-dom gives the page as Chromium parsed it; console errors show on
 * stderr as "CONSOLE" lines with --enable-logging. */
static void check_chromium(const char *cap, const char *root)
{
    char args[16384], path[4096];
    make_report(cap, root, path, sizeof path);
    snprintf(args, sizeof args,
             "timeout 60 chromium --headless --disable-gpu --no-sandbox --enable-logging=stderr "
             "--v=0 --dump-dom 'file://%s' >'%s/dom.html' 2>'%s/chromium.err' && "
             "grep -q 'id=\"launches\"' '%s/dom.html' && ! grep -q 'CONSOLE' '%s/chromium.err'",
             path, root, root, root, root);
    CHECK(system(args) == 0);
}

int main(int argc, char **argv)
{
    const char *tool = argc > 1 ? argv[1] : NULL;
    if (tool && strcmp(tool, "xmllint") && strcmp(tool, "chromium")) {
        fprintf(stderr, "usage: test_bisect [xmllint|chromium]\n");
        return 2;
    }
    if (tool && !test_have_tool(tool)) {
        char why[128];
        snprintf(why, sizeof why, "%s is not installed (Debian: %s)", tool,
                 strcmp(tool, "xmllint") ? "chromium" : "libxml2-utils");
        return test_skip(tool, why);
    }
    if (!tool) {
        check_perturb_math();
        check_verdict_rule();
    }
    char *root = test_tmpdir(tool ? "test_bisect_tool" : "test_bisect");
    char cap[4096];
    snprintf(cap, sizeof cap, "%s/cap", root);
    vkrr_error err = {0};
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = cap, .width = 37, .height = 23, .frames = 2, .module_dir = ""};
    if (!CHECK(vkrr_synth_run(&d, &st, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
    } else if (tool && !strcmp(tool, "xmllint")) {
        check_xmllint(cap, root);
    } else if (tool) {
        check_chromium(cap, root);
    } else {
        check_perturb_culprit(cap, root);
        check_reuse(cap, root);
        check_corrupt_input(cap, root);
        check_diff(cap, root);
        check_html(cap, root);
    }
    int rc = test_finish(tool ? tool : "bisect");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
