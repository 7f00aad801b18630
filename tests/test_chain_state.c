/* test_chain_state: the state chained validation carries from launch to
 * launch (src/validate/validate_chain.c), each case a capture made so that
 * only what the chain holds decides a later launch's chained verdict.  On
 * lavapipe, a 32x24 rrref capture of 2 frames (synth, surfaces' arrays
 * logged; rrref_host.c says which launch reads and writes what):
 *   - held bytes: expo1#0's output (the exposure window of the stats
 *     allocation) moved 64 f32 ULPs.  expo0#1 writes only the partials
 *     window and leaves the exposure as it found it, so chained it must
 *     FAIL: partials exact, the moved exposure bytes outside its window.
 *     The chain's copy of stats survives the launches between (input#0 ..
 *     output#0), which hand other held buffers to the port;
 *   - dump state (--mode both): expo0#1's pre-launch file with its exposure
 *     zeroed and input#1's history texture dump garbled.  Isolated, expo0#1
 *     FAILs and input#1 is ERROR (changed since capture); chained, both
 *     PASS: expo0#1 reads the stats the chain has, and input#1 the surface
 *     output#0 wrote, as output#0's dump (reused from isolated), although
 *     expo0#1 was dispatched in between;
 *   - sampler state the log does not give, found in chained mode alone: the
 *     history texture's cuTexObjectCreate lines gone, every launch PASSes
 *     chained (inferred: linear, rrref's); input#0 perturbed, the fitted
 *     launch FAILs (an inferred state makes the FAIL the port's).  The
 *     colour texture's lines gone instead (ambiguous: its reads never tell
 *     point from linear), input#0 failing chained is ERROR saying so: chained
 *     mode has no isolated run to show the port failing under every state. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "synth.h"
#include "testutil.h"

static char *root;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* A copy of capture `from` named `name` under root; its path in dir. */
static void copy_capture(const char *from, const char *name, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s/%s", root, name);
    CHECK_EQ_U64(sh("rm -rf '%s' && cp -r '%s' '%s'", dir, from, dir), 0);
}

/* vkrr validate DIR ARGS --json DIR.json exits `want`; else what it printed. */
static void validate(const char *dir, const char *args, int want, int line)
{
    char a[12000], *out = NULL, *err = NULL;
    snprintf(a, sizeof a, "validate '%s' --heatmaps none -q --json '%s.json' %s", dir, dir, args);
    int rc = test_run_vkrr(a, &out, &err);
    if (!test_check(rc == want, __FILE__, line, "exit code"))
        fprintf(stderr, "--- vkrr %s: exit %d, want %d\n%s%s", a, rc, want, out ? out : "",
                err ? err : "");
    free(out);
    free(err);
}
#define VALIDATE(dir, args, want) validate(dir, args, want, __LINE__)

/* Runs the Python statements `py` on the launches L (by sequence: L[seq])
 * of DIR.json; an assert that fails prints what it found. */
static int json_check(const char *dir, const char *py)
{
    return sh("python3 -c \"import json, sys; d = json.load(open(sys.argv[1])); "
              "L = {l['sequence']: l for l in d['launches']}; %s\" '%s.json'", py, dir);
}

static void check_held(const char *cap)
{
    char dir[4096];
    copy_capture(cap, "held", dir, sizeof dir);
    VALIDATE(dir, "--mode chained --perturb 'cuda_dldn_rrref_expo1_kernel#0=64'", 1);
    CHECK_EQ_U64(json_check(dir,
        "x = L[9]; r = x['resources']; c = r[0]['chained']; "
        "assert x['kernel'] == 'cuda_dldn_rrref_expo0_kernel' and x['frame'] == 1, x['kernel']; "
        "assert x['chained_status'] == 'FAIL' and len(r) == 1, x; "
        /* the partials come from the noisy texture alone: exact */
        "assert c['exact_pct'] == 100 and c['max_ulp'] == 0, c; "
        /* 4 f32 of exposure moved 64 ULPs: 1..4 bytes each */
        "assert 4 <= c['outside_window_bytes'] <= 16, c; "
        /* expo1#1 computes the exposure again: frame 1 is clean from there */
        "assert all(L[s]['chained_status'] == 'PASS' for s in range(10, 17)), "
        "[(s, L[s]['chained_status']) for s in range(10, 17)]"), 0);
}

static void check_dump_state(const char *cap)
{
    char dir[4096];
    copy_capture(cap, "dumpstate", dir, sizeof dir);
    CHECK_EQ_U64(sh("cd '%s' && python3 -c \"import glob; "
                    "p = glob.glob('replay/replay-000009-cuda_dldn_rrref_expo0_kernel/alloc-0.bin')[0]; "
                    "b = bytearray(open(p, 'rb').read()); b[64:80] = bytes(16); open(p, 'wb').write(b); "
                    "p = glob.glob('dump/launch-011-*-arg048-texture-*')[0]; "
                    "b = bytearray(open(p, 'rb').read()); b[0::2] = bytes(x ^ 0x55 for x in b[0::2]); "
                    "open(p, 'wb').write(b)\"", dir), 0);
    VALIDATE(dir, "--mode both", 1);
    CHECK_EQ_U64(json_check(dir,
        "assert L[9]['status'] == 'FAIL' and L[9]['chained_status'] == 'PASS' and "
        "L[9]['chained'] == 'dispatched', L[9]; "
        "assert L[11]['status'] == 'ERROR' and 'changed since capture' in L[11]['note'], L[11]; "
        "assert L[11]['chained_status'] == 'PASS', L[11]; "
        "assert L[8]['chained'] == 'same as isolated', L[8]['chained']; "
        "assert all(l['chained_status'] == 'PASS' for l in L.values()), "
        "[(s, l['chained_status']) for s, l in L.items()]"), 0);
}

/* The capture with the cuTexObjectCreate lines matching `pattern` (a sed
 * address) gone, and the rrref PTX in modules/ to find their state. */
static void unlogged_copy(const char *cap, const char *name, const char *pattern, char *dir,
                          size_t len)
{
    copy_capture(cap, name, dir, len);
    CHECK_EQ_U64(sh("n=$(grep -c '%s' '%s/run/run.log') && [ \"$n\" -ge 1 ] && "
                    "sed -i '/%s/d' '%s/run/run.log' && mkdir -p '%s/modules' && "
                    "cp '%s'/*.ptx '%s/modules/'", pattern, dir, pattern, dir, dir,
                    VKRR_PTX_RRREF_DIR, dir), 0);
}

static void check_fit(const char *cap)
{
    char dir[4096];
    /* the history texture: the only one rrref filters (linear) */
    unlogged_copy(cap, "fit", "cuTexObjectCreate .* filter=1 ", dir, sizeof dir);
    VALIDATE(dir, "--mode chained", 0);
    CHECK_EQ_U64(json_check(dir, "assert len(L) == 16 and all(l['chained_status'] == 'PASS' "
                                 "for l in L.values()), [(s, l['chained_status'], l['note']) "
                                 "for s, l in L.items()]"), 0);
    VALIDATE(dir, "--mode chained --perturb 'cuda_dldn_rrref_input_kernel#0=64'", 1);
    CHECK_EQ_U64(json_check(dir, "assert L[3]['chained_status'] == 'FAIL', L[3]; "
                                 "assert L[8]['chained_status'] == 'FAIL', L[8]; "
                                 "assert not [s for s, l in L.items() if l['chained_status'] == 'ERROR']"),
                 0);
    /* the colour texture: created first, read at texel centres */
    unlogged_copy(cap, "fit_ambiguous", "cuTexObjectCreate .* object=0x1$", dir, sizeof dir);
    VALIDATE(dir, "--mode chained --perturb 'cuda_dldn_rrref_expo0_kernel#0=64'", 1);
    CHECK_EQ_U64(json_check(dir, "x = L[3]; assert x['chained_status'] == 'ERROR' and "
                                 "'sampler state ambiguous' in x['note'], x"), 0);
}

int main(void)
{
    root = test_tmpdir("test_chain_state");
    char cap[4096];
    snprintf(cap, sizeof cap, "%s/cap", root);
    vkrr_error err = {0};
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = cap, .width = 32, .height = 24, .frames = 2, .module_dir = "",
                         .log_surface_arrays = true};
    if (CHECK(vkrr_synth_run(&d, &st, &err) == VKRR_OK)) {
        check_held(cap);
        check_dump_state(cap);
        check_fit(cap);
    } else {
        vkrr_error_print(&err, stderr);
    }
    int rc = test_finish("chain_state");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
