/* test_hw_cli: the hardware model as a user meets it, through the vkrr binary.
 *
 * - A CPU synth records its model on run.log's device line; `vkrr info`
 *   shows it; rerun and validate name the model in the header, JSON and
 *   JUnit, and pass exactly; `--approx rounded` (the old stand-ins) fails
 *   the same capture, which is why the model matters.
 * - A capture from a GPU vkrr has no tables for (cc=8.6) is validated with
 *   sm_90's, and the header says so; `--approx sm_86` is an error that says
 *   how to measure; --hw-tables picks a measured set by its architecture.
 * - A kernel vkrr never saw (the hardware measurement kernel, from its PTX)
 *   whose lg2.approx.f32 inputs are not f16 values: the interpreter computes
 *   them with a stand-in; a capture whose values differ from it by 1 ULP
 *   passes within the ISA's bound, the row says so, and the launch beside it
 *   (ex2, which the model gets exact) still fails on 1 ULP.  With an explicit
 *   tolerance the bound is not applied. */
#include <stdlib.h>
#include <string.h>

#include "approx.h"
#include "capture_write.h"
#include "cuformat.h"
#include "synth.h"
#include "testutil.h"

static int vkrr(const char *args, char **out)
{
    char *e = NULL;
    int rc = test_run_vkrr(args, out, &e);
    if (e && *e && rc != 0 && rc != 1)
        fprintf(stderr, "%s", e);
    if (out && *out && rc == 2)
        fprintf(stderr, "%s", *out);
    free(e);
    return rc;
}

/* Replaces run.log's device line. */
static bool set_device_line(const char *cap, const char *line)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/run/run.log", cap);
    size_t n = 0;
    char *log = test_read_file(path, &n);
    char *d = log ? strstr(log, "device name=") : NULL;
    if (!d)
        return false;
    char *e = strchr(d, '\n');
    size_t head = (size_t)(d - log);
    char *out = malloc(n + strlen(line) + 2);
    memcpy(out, log, head);
    strcpy(out + head, line);
    strcat(out + head, e);
    bool ok = test_write_file(path, out, strlen(out));
    free(out);
    free(log);
    return ok;
}

static void test_synth_capture(const char *root)
{
    char cap[4096], args[8192], *o = NULL;
    snprintf(cap, sizeof cap, "%s/rr", root);
    vkrr_error err = {0};
    vkrr_synth_desc d = {.dir = cap, .width = 64, .height = 48, .frames = 2};
    if (!CHECK(vkrr_synth_run(&d, NULL, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    snprintf(args, sizeof args, "info '%s'", cap);
    CHECK_EQ_U64(vkrr(args, &o), 0);
    CHECK(o && strstr(o, "made on: vkrr cpu backend, hardware model sm_90, measured"));
    CHECK(o && strstr(o, "hardware model (validate, rerun): sm_90, measured\n"));
    free(o);
    snprintf(args, sizeof args, "rerun '%s' --backend cpu --heatmaps none --json '%s/r.json' "
             "--junit '%s/r.xml' --report '%s/html'", cap, root, root, root);
    CHECK_EQ_U64(vkrr(args, &o), 0);
    CHECK(o && strstr(o, "hardware model: sm_90, measured\n") && strstr(o, "24 PASS, 0 FAIL"));
    free(o);
    char path[4200];
    snprintf(path, sizeof path, "%s/r.json", root);
    char *json = test_read_file(path, NULL);
    CHECK(json && strstr(json, "\"hardware_model\": {\"name\": \"sm_90, measured\", \"note\": \"\"}"));
    free(json);
    snprintf(path, sizeof path, "%s/r.xml", root);
    char *xml = test_read_file(path, NULL);
    CHECK(xml && strstr(xml, "<property name=\"hardware_model\" value=\"sm_90, measured\"/>"));
    free(xml);
    snprintf(path, sizeof path, "%s/html/index.html", root);
    char *html = test_read_file(path, NULL);
    CHECK(html && strstr(html, "hardware model sm_90, measured"));
    free(html);
    /* the stand-ins vkrr used before it measured a GPU: not what the capture holds */
    snprintf(args, sizeof args, "rerun '%s' --backend cpu --heatmaps none --approx rounded --exact -q",
             cap);
    CHECK_EQ_U64(vkrr(args, &o), 1);
    CHECK(o && strstr(o, "hardware model: rounded"));
    free(o);
    snprintf(args, sizeof args, "validate '%s' --heatmaps none -q --mode both", cap);
    CHECK_EQ_U64(vkrr(args, &o), 0);
    CHECK(o && strstr(o, "hardware model: sm_90, measured\n"));
    free(o);

    /* a capture from a GPU without tables: sm_90's, and the header says so */
    CHECK(set_device_line(cap, "device name=\"NVIDIA GeForce RTX 3090\" cc=8.6"));
    snprintf(args, sizeof args, "info '%s'", cap);
    CHECK_EQ_U64(vkrr(args, &o), 0);
    CHECK(o && strstr(o, "made on: NVIDIA GeForce RTX 3090, compute capability 8.6 (sm_86)"));
    /* which command would make that GPU's tables */
    CHECK(o && strstr(o, "to model the capture's sm_86 GPU itself: on it run `vkrr hw measure "
                         "hw-tables`, then `cp -r hw-tables/sm_86 ~/.local/share/vkrr/hw/`"));
    /* the sm_90 set's lg2 cut is named wherever its model is used */
    CHECK(o && strstr(o, "delta_lg2_ftz_1_2.i8: 15832 entries cut at +-127 ULP"));
    free(o);
    CHECK_EQ_U64(vkrr("hw list", &o), 0);
    CHECK(o && strstr(o, "built in (NVIDIA H200") &&
          strstr(o, "delta_lg2_ftz_1_2.i8: 15832 entries cut at +-127 ULP, the GPU's value not kept"));
    free(o);
    snprintf(args, sizeof args, "rerun '%s' --backend cpu --heatmaps none -q --json '%s/r86.json'",
             cap, root);
    /* The tables are sm_90's, but the tensor-core sum follows the capture's
     * architecture (sm_80..sm_89: k in two halves, ptx_mma_sum.h), and the
     * capture was made under sm_90's: the attention block's four launches,
     * and only they, differ (the e4m3 requantisations between its mmas turn
     * last-bit differences into whole steps). */
    CHECK_EQ_U64(vkrr(args, &o), 1);
    CHECK(o && strstr(o, "hardware model: sm_90, measured (the capture's GPU (sm_86) has no "
                         "measured tables: sm_90's used)"));
    CHECK(o && strstr(o, "24 launches: 20 PASS, 4 FAIL") &&
          strstr(o, "first launch that differs: #8 cuda_dldn_rrref_attn0_kernel"));
    free(o);
    snprintf(args, sizeof args, "rerun '%s' --backend cpu --approx sm_86", cap);
    char *e = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, NULL, &e), 2);
    CHECK(e && strstr(e, "no measured tables for sm_86") && strstr(e, "vkrr hw measure"));
    free(e);
    snprintf(args, sizeof args, "rerun '%s' --backend cpu --approx fast", cap);
    CHECK_EQ_U64(test_run_vkrr(args, NULL, NULL), 2);
    /* not an architecture's name, though its tail is digits: a usage error
     * naming the forms, not a search for tables */
    snprintf(args, sizeof args, "rerun '%s' --backend cpu --approx xx_90", cap);
    e = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, NULL, &e), 2);
    CHECK(e && strstr(e, "--approx: expected auto, rounded or sm_NN (sm_90), not 'xx_90'"));
    free(e);
    /* the longest name taken is 8 characters (sm_NNNNN or sm_NNNNa) */
    snprintf(args, sizeof args, "rerun '%s' --backend cpu --approx sm_123456", cap);
    e = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, NULL, &e), 2);
    CHECK(e && strstr(e, "--approx: expected auto, rounded or sm_NN (sm_90), not 'sm_123456'"));
    free(e);
    snprintf(args, sizeof args, "rerun '%s' --backend cpu --approx sm_12345", cap);
    e = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, NULL, &e), 2);
    CHECK(e && strstr(e, "no measured tables for sm_12345"));
    free(e);
    /* hw measure on the PTX backend without --sample or --no-laws: refused,
     * naming both (--sample 1 is every input, hours: accepted) */
    snprintf(args, sizeof args, "hw measure '%s/m' --backend ptx", root);
    e = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, NULL, &e), 2);
    CHECK(e && strstr(e, "give --sample N") && strstr(e, "1: every input") &&
          strstr(e, "--no-laws"));
    free(e);
    /* --hw-tables: a set labelled sm_86 in DIR/sm_86 is used for it */
    char cmd[12000], path_home[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/tables/sm_86' && cp '%s'/src/hw/sm_90/*.xz '%s/tables/sm_86/' && "
             "sed 's/^arch\tsm_90/arch\tsm_86/' '%s/src/hw/sm_90/tables.tsv' > '%s/tables/sm_86/tables.tsv'",
             root, VKRR_SOURCE_DIR, root, VKRR_SOURCE_DIR, root);
    CHECK(system(cmd) == 0);
    snprintf(args, sizeof args, "rerun '%s' --backend cpu --heatmaps none -q --hw-tables '%s/tables'",
             cap, root);
    CHECK_EQ_U64(vkrr(args, &o), 1); /* the attention block under sm_86's sum, as above */
    CHECK(o && strstr(o, "hardware model: sm_86, measured (tables from"));
    free(o);
    /* the user's tables: ~/.local/share/vkrr/hw where XDG_DATA_HOME is not
     * set (a relative one counts as not set), picked for the capture's sm_86 */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/home/.local/share/vkrr/hw' && "
             "cp -r '%s/tables/sm_86' '%s/home/.local/share/vkrr/hw/'", root, root, root);
    CHECK(system(cmd) == 0);
    const char *old_home = getenv("HOME"), *old_xdg = getenv("XDG_DATA_HOME");
    char *saved_home = old_home ? strdup(old_home) : NULL, *saved_xdg = old_xdg ? strdup(old_xdg) : NULL;
    snprintf(path_home, sizeof path_home, "%s/home", root);
    setenv("HOME", path_home, 1);
    setenv("XDG_DATA_HOME", "relative/data", 1);
    snprintf(args, sizeof args, "rerun '%s' --backend cpu --heatmaps none -q", cap);
    CHECK_EQ_U64(vkrr(args, &o), 1); /* the attention block under sm_86's sum, as above */
    snprintf(cmd, sizeof cmd, "hardware model: sm_86, measured (tables from %s/home/.local/share/vkrr/hw/sm_86",
             root);
    if (!CHECK(o && strstr(o, cmd)))
        fprintf(stderr, "--- vkrr %s:\n%s", args, o ? o : "");
    free(o);
    if (saved_home)
        setenv("HOME", saved_home, 1);
    else
        unsetenv("HOME");
    if (saved_xdg)
        setenv("XDG_DATA_HOME", saved_xdg, 1);
    else
        unsetenv("XDG_DATA_HOME");
    free(saved_home);
    free(saved_xdg);
    /* a malformed device line is a malformed log line: named */
    CHECK(set_device_line(cap, "device name=\"GPU\" cc=9"));
    snprintf(args, sizeof args, "info '%s'", cap);
    e = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, NULL, &e), 2);
    CHECK(e && strstr(e, "run.log:") && strstr(e, "cc=9 is not MAJOR.MINOR"));
    free(e);
}

/* ---- a stand-in in a kernel vkrr never saw ------------------------------- */

enum { N = 700 };

#define fb vkrr_f32_bits

static void test_standin(const char *root)
{
    char cap[4096], args[8800], path[4200], *o = NULL;
    snprintf(cap, sizeof cap, "%s/standin", root);
    snprintf(path, sizeof path, "%s/src/hw/ptx/measure.ptx", VKRR_SOURCE_DIR);
    size_t plen = 0;
    char *ptx = test_read_file(path, &plen);
    if (!CHECK(ptx))
        return;
    static uint32_t in[N], lg2_out[N], ex2_out[N], zero[N];
    uint64_t s = 3;
    for (int i = 0; i < N; i++) { /* 3..1000, full mantissas: no f16 values */
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        in[i] = fb(3.0f + (float)((s >> 33) % 997000000) / 1000000.0f) | 1u;
    }
    unsigned si = 0;
    for (int i = 0; i < N; i++) {
        float x;
        memcpy(&x, &in[i], 4);
        lg2_out[i] = fb(vkrr_approx_f32_noted(VKRR_APPROX_LG2, x, 0, &si)) + 1; /* 1 ULP off */
        ex2_out[i] = fb(vkrr_approx_f32(VKRR_APPROX_EX2, x / 128.0f, 1));
        in[i] = in[i]; /* ex2's input is x / 128 below */
    }
    CHECK_EQ_U64(si, VKRR_STANDIN_LG2);
    static uint32_t ex2_in[N];
    for (int i = 0; i < N; i++) {
        float x;
        memcpy(&x, &in[i], 4);
        ex2_in[i] = fb(x / 128.0f);
    }
    ex2_out[5] += 1; /* ex2 is exact: 1 ULP is a real difference */
    vkrr_error err = {0};
    vkrr_writer *w = NULL;
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = cap}, &err) == VKRR_OK))
        return;
    const char *k[] = {"vkrr_hw_measure"};
    CHECK(vkrr_writer_module(w, "measure.ptx", ptx, plen, k, 1, &err) == VKRR_OK);
    vkrr_writer_log_line(w, "device name=\"NVIDIA H200\" cc=9.0");
    const uint64_t ib = 0x7f0000000000ull, ob = 0x7f0000100000ull;
    for (int launch = 0; launch < 2; launch++) {
        uint8_t a[24];
        uint32_t nop[2] = {N, launch ? 0u : 9u}; /* ex2.approx.ftz.f32 ; lg2.approx.f32 */
        memcpy(a, &ib, 8);
        memcpy(a + 8, &ob, 8);
        memcpy(a + 16, nop, 8);
        vkrr_alloc_record al[2] = {{ib, sizeof in, launch ? ex2_in : in, launch ? ex2_in : in},
                                   {ob, sizeof zero, zero, launch ? ex2_out : lg2_out}};
        vkrr_pointer_record pr[2] = {{0, 0, 0}, {8, 1, 0}};
        vkrr_launch_record lr = {.kernel = "vkrr_hw_measure", .grid = {(N + 255) / 256, 1, 1},
                                 .block = {256, 1, 1}, .args = a, .args_bytes = 24, .allocs = al,
                                 .nallocs = 2, .pointers = pr, .npointers = 2};
        CHECK(vkrr_writer_launch(w, &lr, NULL, &err) == VKRR_OK);
    }
    if (!CHECK(vkrr_writer_close(w, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
    free(ptx);
    /* typed and otherwise exact: lg2's launch passes within the bound and
     * says so; ex2's fails */
    snprintf(args, sizeof args,
             "rerun '%s' --buffer-type f32 --exact --heatmaps none --json '%s/s.json'", cap, root);
    CHECK_EQ_U64(vkrr(args, &o), 1);
    CHECK(o && strstr(o, "1 PASS, 1 FAIL"));
    CHECK(o && strstr(o, "model: the reference computed lg2.approx.f32 with a stand-in"));
    CHECK(o && strstr(o, "stand-in (not measured exactly on a GPU): compared within the PTX ISA's "
                         "bound"));
    CHECK(o && strstr(o, "first launch that differs: #2"));
    free(o);
    snprintf(path, sizeof path, "%s/s.json", root);
    char *json = test_read_file(path, NULL);
    CHECK(json && strstr(json, "\"standins\": [\"lg2.approx.f32\"]"));
    free(json);
    /* an explicit tolerance: the bound is not added, and the row says what was */
    snprintf(args, sizeof args, "rerun '%s' --buffer-type f32 --heatmaps none --max-ulp 0 --atol 0 --rtol 0", cap);
    CHECK_EQ_U64(vkrr(args, &o), 1);
    CHECK(o && strstr(o, "0 PASS, 2 FAIL"));
    CHECK(o && strstr(o, "compared within the tolerance given (arg0 --atol --rtol --max-ulp; arg8 --atol "
                         "--rtol --max-ulp), not the "
                         "PTX ISA's bound") && !strstr(o, "compared within the PTX ISA's bound"));
    free(o);
    /* a tolerance file: its matching lines are named; where none matches,
     * the default decided */
    snprintf(path, sizeof path, "%s/tol.txt", root);
    const char *tol = "# lg2's launch within one ULP\nvkrr_hw_meas* max_ulp=1\nother_kernel atol=1\n"
                      "vkrr_hw_measure#0 arg8 max_ulp=1\n";
    CHECK(test_write_file(path, tol, strlen(tol)));
    snprintf(args, sizeof args, "rerun '%s' --buffer-type f32 --heatmaps none --tolerance '%s'", cap,
             path);
    CHECK_EQ_U64(vkrr(args, &o), 0);
    char want[8600];
    snprintf(want, sizeof want, "compared within the tolerance given (arg0 %s:2; arg8 %s:2,4), "
             "not the PTX ISA's bound", path, path);
    CHECK(o && strstr(o, want) && !strstr(o, "compared within the PTX ISA's bound"));
    free(o);
    /* the file and a flag: both named, the flag after the lines */
    snprintf(args, sizeof args,
             "rerun '%s' --buffer-type f32 --heatmaps none --tolerance '%s' --atol 1", cap, path);
    CHECK_EQ_U64(vkrr(args, &o), 0);
    snprintf(want, sizeof want, "compared within the tolerance given (arg0 %s:2 and --atol; "
             "arg8 %s:2,4 and --atol), not the PTX ISA's bound", path, path);
    CHECK(o && strstr(o, want));
    free(o);
    snprintf(args, sizeof args, "rerun '%s' --buffer-type f32 --heatmaps none --tolerance '%s'", cap,
             path);
    /* more matching lines than the row's list holds: whole line numbers,
     * 1, 2, 3 ... in order, then "..." (never a number cut short) */
    char many[60 * 40] = "";
    for (int i = 0; i < 60; i++)
        strcat(many, "vkrr_hw_measure#0 arg8 max_ulp=1\n");
    CHECK(test_write_file(path, many, strlen(many)));
    CHECK_EQ_U64(vkrr(args, &o), 0);
    snprintf(want, sizeof want, "compared within the tolerance given (arg8 %s:", path);
    const char *at = o ? strstr(o, want) : NULL;
    int listed = 0;
    if (CHECK(at)) {
        at += strlen(want);
        while (*at >= '0' && *at <= '9') {
            char *end;
            long v = strtol(at, &end, 10);
            CHECK_EQ_U64(v, listed + 1);
            listed++;
            at = *end == ',' ? end + 1 : end;
        }
        CHECK(!strncmp(at, "...), not the PTX ISA's bound", 29));
    }
    CHECK(listed >= 30 && listed < 60);
    free(o);
    tol = "other_kernel max_ulp=1\n";
    CHECK(test_write_file(path, tol, strlen(tol)));
    CHECK_EQ_U64(vkrr(args, &o), 0); /* f32's default, 4 ULP */
    CHECK(o && strstr(o, "compared within the default tolerance: the tolerance given has no rule"));
    free(o);
    /* untyped (bytes): the bound cannot apply, and the row says why */
    snprintf(args, sizeof args, "rerun '%s' --heatmaps none -q", cap);
    CHECK_EQ_U64(vkrr(args, &o), 1);
    CHECK(o && strstr(o, "0 PASS, 2 FAIL") && strstr(o, "compared as bytes cannot be"));
    free(o);
}

int main(void)
{
    char *root = test_tmpdir("hw_cli");
    test_synth_capture(root);
    test_standin(root);
    int r = test_finish("hw_cli");
    if (r == 0)
        test_rmtree(root);
    free(root);
    return r;
}
