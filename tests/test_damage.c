/* test_damage: damaged and partial captures (issue 14), on a 3-frame rrref
 * capture made by synth and on captures the writer makes.
 *   - table: each file kind of one launch (manifest, args.bin, alloc file,
 *     buffer, texture and surface dumps) missing, truncated, garbage: only
 *     that launch is ERROR naming the file, every other launch PASS, exit 2;
 *     garbage in a pre-launch alloc file cannot be told from the port's
 *     error (no hash is logged for it): that launch FAILs, exit 1;
 *   - a cut or garbled run/run.log: the capture says so, exit 2;
 *   - chained: the launches that need what the damaged one would have made
 *     are SKIPPED naming it, and the frame after says so;
 *   - one bit of the weight image's dump flipped: ERROR naming the hash;
 *     --no-hash-check: that launch FAILs (bytes, not f16 ULPs);
 *   - nothing readable: exit 2 at once; vkrr info lists damaged launches;
 *   - a capture with textures over linear and pitch-2D memory validates on
 *     the Vulkan port, with the CPU rerun, isolated and chained;
 *   - a surface without array= is tied to its array by the log's order;
 *   - SIGINT mid-run: exit 130, the reports whole (as of the last finished
 *     launch) or absent, no temporary file left; `test_damage xmllint` (ctest
 *     test_damage_xmllint) checks that JUnit file with xmllint, and is
 *     skipped without it (testutil.h test_skip). */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "capture_write.h"
#include "cuformat.h"
#include "synth.h"
#include "testutil.h"
#include "validate_chain.h"

static char *root;
static char cap[4096];

#define sh test_sh

/* The JSON of an isolated run: each SEQ:STATUS:NOTE argument says that launch
 * has that status (damaged when ERROR) and a note holding NOTE; every other
 * launch PASSes. */
static const char check_py[] =
    "import json, sys\n"
    "d = json.load(open(sys.argv[1]))\n"
    "want = {int(a.split(':', 2)[0]): a.split(':', 2)[1:] for a in sys.argv[2:]}\n"
    "bad = []\n"
    "for l in d['launches']:\n"
    "    status, note = want.get(l['sequence'], ('PASS', ''))\n"
    "    if l['status'] != status: bad.append('#%d is %s, want %s: %s' % (l['sequence'], l['status'], status, l['note']))\n"
    "    if note not in l['note']: bad.append('#%d: note lacks %r: %s' % (l['sequence'], note, l['note']))\n"
    "    if l['damaged'] != (status == 'ERROR'): bad.append('#%d: damaged is %s' % (l['sequence'], l['damaged']))\n"
    "if len(d['launches']) != 36: bad.append('%d launches' % len(d['launches']))\n"
    "if bad: print('\\n'.join(bad))\n"
    "sys.exit(1 if bad else 0)\n";

typedef enum { DEL, CUT, GARBAGE } action;
static const char *action_name[] = {"missing", "truncated", "garbage"};

/* One file kind, each in its own launch of frame 1, so one run per action
 * shows every kind at once (isolated launches do not touch each other). */
typedef struct dcase {
    const char *file;   /* glob under CAPDIR naming one file */
    uint32_t seq;       /* the launch it belongs to */
    const char *status[3], *note[3]; /* per action: that launch's status and note */
} dcase;

/* frame 1 is launches 13..24 (docs/rrref.md's order) */
#define R18 "replay/replay-000018-cuda_dldn_rrref_enc1_kernel/"
#define R16 "replay/replay-000016-cuda_dldn_rrref_enc0_kernel/"
#define R23 "replay/replay-000023-cuda_dldn_rrref_dec0_kernel/"
#define D17 "dump/launch-017-cuda_dldn_rrref_down_kernel-arg000-buffer-"
#define T15 "dump/launch-015-cuda_dldn_rrref_input_kernel-arg000-texture-"
#define S24 "dump/launch-024-cuda_dldn_rrref_output_kernel-arg032-surface-"
#define ALL3(x) {x, x, x}
static const dcase cases[] = {
    {R18 "manifest.txt", 18, ALL3("ERROR"), ALL3(R18 "manifest.txt")},
    {R16 "args.bin", 16, ALL3("ERROR"), ALL3(R16 "args.bin")},
    /* no hash of a pre-launch file is logged: garbage in it is the launch's input */
    {R23 "alloc-1.bin", 23, {"ERROR", "ERROR", "FAIL"}, {R23 "alloc-1.bin", R23 "alloc-1.bin", ""}},
    {D17 "*", 17, ALL3("ERROR"), {D17, D17, "changed since capture"}},
    {T15 "*", 15, ALL3("ERROR"),
     {"texture at argument offset 0 has no dump", T15, "changed since capture"}},
    {S24 "*", 24, ALL3("ERROR"),
     {"surface at argument offset 32 has no dump", S24, "changed since capture"}},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* Damages `file` of dir. */
static void damage(const char *dir, const char *file, action act)
{
    const char *how[] = {"os.remove(p)",
                         "open(p, 'r+b').truncate(os.path.getsize(p) // 2)",
                         ("n = os.path.getsize(p); random.seed(14); "
                          "open(p, 'wb').write(bytes(random.randrange(256) for _ in range(n)))")};
    int rc = sh("cd '%s' && python3 -c \"import glob, os, random, sys; g = glob.glob('%s'); "
            "assert len(g) == 1, g; p = g[0]; %s\"", dir, file, how[act]);
    CHECK_EQ_U64(rc, 0);
}

/* A copy of the capture with `file` damaged. */
static char *damaged_copy(const char *name, const char *file, action act)
{
    static char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    sh("rm -rf '%s' && cp -r '%s' '%s'", dir, cap, dir);
    if (file)
        damage(dir, file, act);
    return dir;
}

static void check_table(void)
{
    char py[4200];
    snprintf(py, sizeof py, "%s/check.py", root);
    CHECK(test_write_file(py, check_py, strlen(check_py)));
    for (int act = DEL; act <= GARBAGE; act++) {
        char *dir = damaged_copy(action_name[act], NULL, DEL);
        char want[8192] = "", args[9000], *out = NULL;
        int want_rc = 2;
        for (size_t i = 0; i < NCASES; i++) {
            const dcase *c = &cases[i];
            damage(dir, c->file, (action)act);
            size_t n = strlen(want);
            snprintf(want + n, sizeof want - n, " '%u:%s:%s'", c->seq, c->status[act], c->note[act]);
            if (!strcmp(c->status[act], "FAIL"))
                want_rc = 1; /* a failure outranks what could not be read */
        }
        snprintf(args, sizeof args, "validate '%s' --mode isolated --heatmaps none -q --json '%s.json'",
                 dir, dir);
        int rc = test_run_vkrr(args, &out, NULL);
        if (!test_check(rc == want_rc, __FILE__, __LINE__, "exit"))
            fprintf(stderr, "    %s: exit %d, want %d\n%s\n", action_name[act], rc, want_rc,
                    out ? out : "");
        int jr = sh("python3 '%s' '%s.json'%s", py, dir, want);
        if (!test_check(jr == 0, __FILE__, __LINE__, "only those launches, as expected"))
            fprintf(stderr, "    files %s\n", action_name[act]);
        free(out);
        if (!test_failed)
            sh("rm -rf '%s' '%s.json'", dir, dir);
    }
}

/* The log cut short (mid-line) and a garbled line: the capture says so; the
 * launches after a cut lose their hashes and, with textures, their state. */
static void check_log(void)
{
    char *dir = damaged_copy("log_cut", "run/run.log", CUT);
    char args[9000], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "validate '%s' --mode isolated --heatmaps none -q --json '%s.json'",
             dir, dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 2);
    CHECK(out && strstr(out, "damaged: ") && strstr(out, "run/run.log:") &&
          strstr(out, "the last line has no newline"));
    CHECK(out && strstr(out, "0 FAIL") && strstr(out, "-> INCOMPLETE"));
    CHECK_EQ_U64(sh("python3 -c \"import json; d = json.load(open('%s.json')); L = d['launches']; "
                    "e = [l for l in L if l['status'] == 'ERROR']; "
                    "assert e and all('run/run.log' in l['note'] and l['damaged'] for l in e), e; "
                    "assert all(l['status'] in ('PASS', 'ERROR') for l in L); "
                    "assert L[0]['status'] == 'PASS' and d['damage']\"", dir), 0);
    free(out);
    out = NULL;
    snprintf(args, sizeof args, "info '%s'", dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 2);
    CHECK(err && strstr(err, "vkrr: error: ") && strstr(err, "run/run.log:"));
    free(out);
    free(err);
    out = NULL;

    /* a garbled line at the end: after every launch, so none is damaged */
    dir = damaged_copy("log_garbled", NULL, DEL);
    sh("echo 'cuTexObjectCreate object=zz' >> '%s/run/run.log'", dir);
    snprintf(args, sizeof args, "validate '%s' --mode isolated --heatmaps none -q", dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 2);
    CHECK(out && strstr(out, "36 PASS, 0 FAIL") && strstr(out, "object=zz is not a number") &&
          strstr(out, "capture problems listed above"));
    free(out);
}

/* alloc-1.bin of #18 (enc1#1) missing, chained: #18 ERROR, what needs its
 * outputs SKIPPED naming it (the arena: the rest of frame 1, the attention
 * block's token arrays with it, and frame 2 from its input layer on), frame
 * 2's exposure launches (which do not) PASS. */
static void check_chained(void)
{
    char *dir = damaged_copy("chained", R18 "alloc-1.bin", DEL);
    char args[9000], *out = NULL;
    snprintf(args, sizeof args, "validate '%s' --mode chained --heatmaps none -q --json '%s.json'",
             dir, dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 2);
    CHECK(out && strstr(out, "19 PASS, 0 FAIL, 0 NO PORT, 0 TIMEOUT, 1 ERROR, 16 SKIPPED"));
    CHECK(out && strstr(out, "chained: frame 2: 10 launches not validated") &&
          strstr(out, "#18 cuda_dldn_rrref_enc1_kernel could not be read"));
    CHECK_EQ_U64(sh("python3 -c \"import json; L = json.load(open('%s.json'))['launches']; "
                    "s = {l['sequence']: l['chained_status'] for l in L}; "
                    "assert s[18] == 'ERROR' and 'alloc-1.bin' in L[17]['note'], L[17]; "
                    "assert [q for q in s if s[q] == 'SKIPPED'] == list(range(19, 25)) + list(range(27, 37)), s; "
                    "assert all('#18 cuda_dldn_rrref_enc1_kernel' in l['note'] for l in L "
                    "if l['chained_status'] == 'SKIPPED'); "
                    "assert all(s[q] == 'PASS' for q in list(range(1, 18)) + [25, 26]); "
                    /* chained only: no isolated verdict is made up for a resource */
                    "R = [x for l in L for x in l['resources']]; "
                    "assert R and all(x['pass'] is None and x['metrics'] is None for x in R), R[0]; "
                    "assert all(x['chained']['pass'] for l in L if l['chained_status'] == 'PASS' "
                    "for x in l['resources'])\"", dir), 0);
    free(out);
}

/* One bit of a post-launch dump of the weight image (an input dec0 never
 * writes, no descriptor names it) flipped. */
static void check_hash(void)
{
    char *dir = damaged_copy("hash", NULL, DEL);
    sh("cd '%s' && python3 -c \"import glob; p = glob.glob('dump/launch-023-*-arg040-*')[0]; "
       "b = bytearray(open(p, 'rb').read()); b[100] ^= 0x01; open(p, 'wb').write(b)\"",
       dir); /* the lowest bit of an f16: 1 ULP */
    char args[9000], *out = NULL;
    snprintf(args, sizeof args, "validate '%s' --mode isolated --heatmaps none -q --json '%s.json'",
             dir, dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 2);
    char py[4200];
    snprintf(py, sizeof py, "%s/check.py", root);
    CHECK_EQ_U64(sh("python3 '%s' '%s.json' '23:ERROR:changed since capture: its FNV-1a hash is'",
                    py, dir), 0);
    CHECK(out && strstr(out, "launch-023-cuda_dldn_rrref_dec0_kernel-arg040") &&
          strstr(out, ") says hash=") && strstr(out, "not judged"));
    free(out);
    out = NULL;
    snprintf(args, sizeof args, "validate '%s' --mode isolated --heatmaps none -q --no-hash-check "
             "--json '%s.json'", dir, dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 1);
    CHECK_EQ_U64(sh("python3 '%s' '%s.json' '23:FAIL:'", py, dir), 0);
    CHECK(out && strstr(out, "buffer arg40") && strstr(out, "1 FAIL"));
    free(out);
    out = NULL;
    /* asked for, the old f16 view of undescribed buffers lets the flip pass */
    snprintf(args, sizeof args, "validate '%s' --mode isolated --heatmaps none -q --no-hash-check "
             "--buffer-type f16", dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 0);
    free(out);
}

/* A bridge that hashes another way: every hash= disagrees with FNV-1a 64
 * from either basis.  Not a false alarm on every launch: vkrr says the
 * hashes are not its to check.  The bridge's statistics still are: a flipped
 * bit that moves nonzero_bytes or an f16/f32 minimum or maximum is "changed
 * since capture" by them; without them, vkrr validates by the bytes (the
 * flipped bit then FAILs). */
static void check_foreign_hash(void)
{
    char *dir = damaged_copy("foreign", NULL, DEL);
    CHECK_EQ_U64(sh("cd '%s' && python3 -c \"import re; p = 'run/run.log'; t = open(p).read(); "
                    "open(p, 'w').write(re.sub(r'hash=([0-9a-f]{16})', lambda m: 'hash=%%016x' %% "
                    "(int(m.group(1), 16) ^ 0x5a5a), t))\"", dir), 0);
    char args[9000], *out = NULL, *err = NULL;
    snprintf(args, sizeof args, "validate '%s' --mode isolated --heatmaps none -q", dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 0);
    CHECK(err && strstr(err, "hash= values are not FNV-1a 64") &&
          strstr(err, "not checked against them"));
    CHECK(out && strstr(out, "36 PASS"));
    free(out), free(err);
    out = err = NULL;
    /* a finite f16 with both bytes nonzero made a NaN (0x7c01): one more in
     * the dump's f16 nan_inf, the same nonzero_bytes */
    sh("cd '%s' && python3 -c \"import glob; p = glob.glob('dump/launch-023-*-arg040-*')[0]; "
       "b = bytearray(open(p, 'rb').read()); i = next(k for k in range(1, len(b), 2) if (b[k] & 0x7c) != 0x7c and b[k - 1] and b[k]); "
       "b[i - 1 : i + 1] = b'\\\\x01\\\\x7c'; open(p, 'wb').write(b)\"", dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 2);
    CHECK(out && strstr(out, "changed since capture: its f16 nan_inf is ") &&
          strstr(out, "the log (run/run.log:"));
    free(out), free(err);
    out = err = NULL;
    /* no statistics either: the bytes alone */
    CHECK_EQ_U64(sh("cd '%s' && sed -i -E 's/ nonzero_bytes=[0-9]+//; s/ f16\\{[^}]*\\}//; "
                    "s/ f32\\{[^}]*\\}//' run/run.log", dir), 0);
    CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 1);
    CHECK(out && strstr(out, "1 FAIL") && !strstr(out, "changed since capture"));
    free(out), free(err);
}

/* Nothing to validate: exit 2 at once, saying why; vkrr info lists what is
 * damaged. */
static void check_nothing_readable(void)
{
    char dir[4096], args[9000], *out = NULL, *err = NULL;
    snprintf(dir, sizeof dir, "%s/nothing", root);
    sh("rm -rf '%s' && cp -r '%s' '%s' && rm '%s'/replay/*/manifest.txt", dir, cap, dir, dir);
    snprintf(args, sizeof args, "validate '%s' --heatmaps none", dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 2);
    CHECK(err && strstr(err, "no launch of") && strstr(err, "manifest.txt"));
    CHECK(out && !strstr(out, "summary:"));
    free(out);
    free(err);
    out = err = NULL;
    snprintf(args, sizeof args, "info '%s'", dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 2);
    CHECK(out && strstr(out, "DAMAGED (manifest)") && strstr(out, "36 of 36 launches"));
    free(out);
    free(err);
    out = err = NULL;
    sh("rm -rf '%s/replay'", dir);
    snprintf(args, sizeof args, "validate '%s' --heatmaps none", dir);
    CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 2);
    CHECK(err && strstr(err, "/replay"));
    free(out);
    free(err);
    out = err = NULL;
    char *one = damaged_copy("info_one", R18 "args.bin", CUT);
    snprintf(args, sizeof args, "info '%s' --json", one);
    CHECK_EQ_U64(test_run_vkrr(args, &out, &err), 2);
    CHECK(out && strstr(out, "\"damaged_launches\":1") && strstr(out, "\"kind\":\"input\"") &&
          strstr(out, "args.bin"));
    CHECK(err && strstr(err, "vkrr: error: ") && strstr(err, "args.bin"));
    free(out);
    free(err);
}

/* ---- textures over linear memory ---------------------------------------- */

#define LIN_N 5000u /* > VKRR_LINEAR_ROW: folded into two rows */
#define PW 7u
#define PH 5u
#define PPITCH 64u  /* > 7 texels of 8 bytes */

/* One launch of vkrr_test_linear_kernel (tests/cuda/vkrr_test_linear.cu):
 * the output is what CUDA's fetches give (f32 and f16 values, exact). */
static void write_linear_capture(const char *dir)
{
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] "},
                                &err) == VKRR_OK))
        return;
    const uint64_t lbase = 0x7f5000000000ull, loff = 256, lbytes = loff + LIN_N * 4 + 100;
    const uint64_t pbase = 0x7f5100000000ull, poff = 128, pbytes = poff + PPITCH * PH + 32;
    const uint64_t obase = 0x7f5200000000ull, m = LIN_N + 3, obytes = (m + 4 * PW * PH) * 4;
    uint8_t *lin = calloc(lbytes, 1), *pit = calloc(pbytes, 1);
    float *opre = calloc(obytes, 1), *opost = calloc(obytes, 1);
    if (!CHECK(lin && pit && opre && opost))
        goto done;
    for (uint64_t i = 0; i < lbytes; i++)
        lin[i] = (uint8_t)(i * 13);
    for (uint32_t i = 0; i < LIN_N; i++) {
        float v = (float)i * 0.25f - 100.0f;
        memcpy(lin + loff + 4 * i, &v, 4);
        opost[i] = v;
    }
    for (uint64_t i = 0; i < pbytes; i++)
        pit[i] = 0xEE; /* pitch padding: must never be read */
    for (uint32_t y = 0; y < PH; y++)
        for (uint32_t x = 0; x < PW; x++)
            for (uint32_t c = 0; c < 4; c++) {
                uint16_t h = vkrr_f32_to_f16_rne((float)(y * 100 + x * 10 + c) - 3.5f);
                memcpy(pit + poff + y * PPITCH + x * 8 + c * 2, &h, 2);
                opost[m + 4 * (y * PW + x) + c] = vkrr_f16_to_f32(h);
            }
    vkrr_sampler point = {.address = {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP}};
    uint64_t lt = vkrr_writer_texture_create_linear(
        w, &(vkrr_linear_desc){.resource = VKRR_TEXRES_LINEAR, .devptr = lbase + loff, .format = 32,
                               .channels = 1, .bytes = LIN_N * 4},
        &point, 0);
    uint64_t pt = vkrr_writer_texture_create_linear(
        w, &(vkrr_linear_desc){.resource = VKRR_TEXRES_PITCH2D, .devptr = pbase + poff, .format = 16,
                               .channels = 4, .width = PW, .height = PH, .pitch = PPITCH},
        &point, 0);
    uint8_t args[40] = {0};
    uint64_t words[3] = {lt, pt, obase};
    uint32_t dims[3] = {LIN_N, PW, PH};
    memcpy(args, words, sizeof words);
    memcpy(args + 24, dims, sizeof dims);
    vkrr_alloc_record ar[1] = {{obase, obytes, opre, opost}};
    vkrr_pointer_record pr[1] = {{16, 0, 0}};
    vkrr_image_record ir[2] = {
        {.offset = 0, .kind = VKRR_IMAGE_TEXTURE, .handle = lt, .post = lin,
         .resource = VKRR_TEXRES_LINEAR, .base = lbase, .delta = loff, .buffer_bytes = lbytes},
        {.offset = 8, .kind = VKRR_IMAGE_TEXTURE, .handle = pt, .post = pit,
         .resource = VKRR_TEXRES_PITCH2D, .base = pbase, .delta = poff, .buffer_bytes = pbytes}};
    uint32_t threads = (uint32_t)(m + PW * PH);
    CHECK(vkrr_writer_launch(w, &(vkrr_launch_record){.kernel = "vkrr_test_linear_kernel",
                                                      .grid = {(threads + 63) / 64, 1, 1},
                                                      .block = {64, 1, 1}, .args = args,
                                                      .args_bytes = sizeof args, .allocs = ar,
                                                      .nallocs = 1, .pointers = pr, .npointers = 1,
                                                      .images = ir, .nimages = 2},
                             NULL, &err) == VKRR_OK);
done:
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
    free(lin);
    free(pit);
    free(opre);
    free(opost);
}

/* What keeps one kernel from running costs only that kernel's launches.
 * rrref_expo.ptx holds expo0 and expo1; each case breaks expo1 (or, the last,
 * the module around both) and reruns from PTX: the broken kernel's launches
 * are ERROR, each note naming the file, the line the test put the fault on
 * and the reason; every other launch reruns and passes; the summary, the
 * JSON and exit 2 come as for any launch that could not run. */
typedef struct bad_kernel {
    const char *name;
    const char *before_entry; /* module-level text put before expo1's .entry line */
    const char *in_body;      /* text put first in expo1's body */
    const char *marker;       /* on the line the error must name */
    const char *reason;       /* in every ERROR note */
    unsigned broken;          /* launches that must be ERROR (3 frames) */
} bad_kernel;

static const bad_kernel bad_kernels[] = {
    {"garbled", "", "\n  @@ not ptx @@;", "@@ not ptx @@", "the body of "
     "'cuda_dldn_rrref_expo1_kernel' does not parse", 3},
    {"undeclared", "", "\n  .reg .b32 %vkrr_u<2>;\n  add.u32 %vkrr_u0, %vkrr_u1, VKRR_NOT_DECLARED;",
     "VKRR_NOT_DECLARED", "'VKRR_NOT_DECLARED' is not declared", 3},
    {"unimplemented", "", "\n  .reg .b32 %vkrr_u<2>;\n  frobnicate.u32 %vkrr_u0, %vkrr_u1;",
     "frobnicate", "instruction frobnicate is not implemented", 3},
    {"missing-function", "\n.extern .func vkrr_missing\n()\n;\n", "\n  call.uni vkrr_missing, ();",
     "call.uni vkrr_missing", "'vkrr_missing' is declared but not defined", 3},
    {"broken-function", "\n.func vkrr_broken()\n{\n  @@ not ptx @@;\n}\n",
     "\n  call.uni vkrr_broken, ();", "call.uni vkrr_broken", "'vkrr_broken' does not parse", 3},
    {"module", "\n@@ not ptx @@;\n", "", "@@ not ptx @@", "the module does not parse", 6},
};

/* 1-based line of the first line of path holding needle; 0 when none */
static long line_of(const char *path, const char *needle)
{
    char *t = test_read_file(path, NULL);
    char *at = t ? strstr(t, needle) : NULL;
    long line = at ? 1 : 0;
    for (char *c = t; at && c < at; c++)
        line += *c == '\n';
    free(t);
    return line;
}

/* dir: a copy of the capture whose modules/rrref_expo.ptx is broken as b says */
static char *broken_module_copy(const bad_kernel *b, char *path, size_t cap)
{
    char *dir = damaged_copy(b->name, NULL, DEL);
    sh("mkdir -p '%s/modules' && cp '%s'/*.ptx '%s/modules/'", dir, VKRR_PTX_RRREF_DIR, dir);
    snprintf(path, cap, "%s/modules/rrref_expo.ptx", dir);
    char *t = test_read_file(path, NULL);
    char *entry = t ? strstr(t, ".entry cuda_dldn_rrref_expo1_kernel") : NULL;
    if (CHECK(entry)) {
        char *line = entry;
        while (line > t && line[-1] != '\n')
            line--;
        char *body = strchr(entry, '{') + 1;
        FILE *f = fopen(path, "w");
        if (CHECK(f)) {
            fprintf(f, "%.*s%s%.*s%s%s", (int)(line - t), t, b->before_entry, (int)(body - line),
                    line, b->in_body, body);
            fclose(f);
        }
    }
    free(t);
    return dir;
}

static void check_bad_kernels(void)
{
    for (size_t i = 0; i < sizeof bad_kernels / sizeof bad_kernels[0]; i++) {
        const bad_kernel *b = &bad_kernels[i];
        char path[4200], args[9000], want[1400], *out = NULL;
        char *dir = broken_module_copy(b, path, sizeof path);
        long line = line_of(path, b->marker);
        CHECK(line > 0);
        snprintf(want, sizeof want, "rrref_expo.ptx:%ld: ", line);
        snprintf(args, sizeof args, "rerun '%s' --backend ptx --heatmaps none --json '%s.json'",
                 dir, dir);
        int rc = test_run_vkrr(args, &out, NULL);
        if (!test_check(rc == 2, __FILE__, __LINE__, b->name))
            fprintf(stderr, "%s: exit %d\n%s\n", b->name, rc, out ? out : "");
        char counts[120];
        snprintf(counts, sizeof counts, "36 launches: %u PASS, 0 FAIL", 36 - b->broken);
        CHECK(out && strstr(out, counts) && strstr(out, want) && strstr(out, b->reason));
        CHECK_EQ_U64(sh("python3 -c \"import json, sys; L = json.load(open('%s.json'))['launches']; "
                        "bad = [l for l in L if l['status'] == 'ERROR']; "
                        "k = sorted(set(l['kernel'] for l in bad)); "
                        "assert len(bad) == %u and len(L) == 36, len(bad); "
                        "assert k == ['cuda_dldn_rrref_expo1_kernel'] or (%u == 6 and k == "
                        "['cuda_dldn_rrref_expo0_kernel', 'cuda_dldn_rrref_expo1_kernel']), k; "
                        "assert all(sys.argv[1] in l['note'] and sys.argv[2] in l['note'] "
                        "for l in bad), bad[0]['note']; "
                        "assert all(l['status'] == 'PASS' for l in L if l not in bad)\" '%s' \"%s\"",
                        dir, b->broken, b->broken, want, b->reason), 0);
        free(out);
        out = NULL;
        if (i != 1)
            continue;
        /* validate --ref ptx: the port is judged on every launch, the original
         * could not be rerun on 3: incomplete (exit 2), said in the summary */
        snprintf(args, sizeof args, "validate '%s' --ref ptx --heatmaps none --json '%s.v.json'",
                 dir, dir);
        rc = test_run_vkrr(args, &out, NULL);
        CHECK_EQ_U64(rc, 2);
        CHECK(out && strstr(out, "36 launches: 36 PASS") && strstr(out, "-> INCOMPLETE") &&
              strstr(out, "original not rerun: 3 launches (first: #2 cuda_dldn_rrref_expo1_kernel"));
        CHECK_EQ_U64(sh("python3 -c \"import json; d = json.load(open('%s.v.json')); "
                        "assert d['summary']['original_not_rerun'] == 3; "
                        "L = [l for l in d['launches'] if l['rerun_failed']]; "
                        "assert len(L) == 3 and all('%s' in l['note'] for l in L)\"",
                        dir, want), 0);
        free(out);
        out = NULL;
        /* stress: the broken kernel's launches could not run, the others are stressed */
        snprintf(args, sizeof args, "stress '%s' --runs 3 --out '%s.stress'", dir, dir);
        rc = test_run_vkrr(args, &out, NULL);
        CHECK_EQ_U64(rc, 2);
        CHECK(out && strstr(out, "33 launches stressed, 0 disagreements") &&
              strstr(out, "3 could not run") && strstr(out, want));
        free(out);
    }
}

/* record: a module with a kernel that does not parse beside a good one
 * records the good one; the broken one is exit 2, naming file and line,
 * and writes nothing. */
static void check_record_bad_kernel(void)
{
    char ptx[4200], args[9000], want[600], *out = NULL;
    snprintf(ptx, sizeof ptx, "%s/two.ptx", root);
    /* scale again as scale_bad, its multiply given an undeclared name */
    CHECK_EQ_U64(sh("python3 -c \"import sys, re; t = open(sys.argv[1]).read(); "
                    "k = t[t.index('.visible .entry scale('):].replace('scale(', 'scale_bad(', 1); "
                    "k, n = re.subn(r'mul.rn.f32\\s+%%f4, %%f3, %%f1;', "
                    "'mul.rn.f32 %%f4, %%f3, VKRR_NOT_DECLARED;', k); assert n == 1; "
                    "open(sys.argv[2], 'w').write(t + chr(10) + k)\" '%s' '%s'",
                    VKRR_SOURCE_DIR "/examples/first-port/scale.ptx", ptx), 0);
    long line = line_of(ptx, "VKRR_NOT_DECLARED");
    snprintf(want, sizeof want, "two.ptx:%ld: ", line);
    const char *kargs = "--grid 4 --block 64 --arg in:f32:256 --arg out:f32:256 --arg f32:2.5 "
                        "--arg f32:0.5 --arg u32:256";
    snprintf(args, sizeof args, "record '%s/rec-good' --ptx '%s' --kernel scale %s", root, ptx, kargs);
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 0);
    free(out);
    snprintf(args, sizeof args, "record '%s/rec-bad' --ptx '%s' --kernel scale_bad %s", root, ptx,
             kargs);
    char *errs = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, &out, &errs), 2);
    CHECK(errs && strstr(errs, want) && strstr(errs, "'VKRR_NOT_DECLARED' is not declared"));
    CHECK_EQ_U64(sh("test ! -e '%s/rec-bad'", root), 0);
    free(out);
    free(errs);
}

static void check_linear(void)
{
    char dir[4096], args[9000], *out = NULL;
    snprintf(dir, sizeof dir, "%s/linear", root);
    write_linear_capture(dir);
    vkrr_capture *c = NULL;
    vkrr_error err = {0};
    if (CHECK(vkrr_capture_open(&c, dir, &err) == VKRR_OK)) {
        const vkrr_image *l = &c->launches[0].images[0], *p = &c->launches[0].images[1];
        CHECK(l->resource == VKRR_TEXRES_LINEAR && l->width == LIN_N && l->height == 1 &&
              l->format == 32 && l->source_offset == 256 && l->dump_log.has_hash);
        CHECK(p->resource == VKRR_TEXRES_PITCH2D && p->width == PW && p->height == PH &&
              p->pitch == PPITCH && p->channels == 4 && p->source_offset == 128);
    } else {
        vkrr_error_print(&err, stderr);
    }
    vkrr_capture_close(c);
    /* the kernel's PTX in the capture's modules/: --ref ptx runs it too */
    sh("mkdir -p '%s/modules' && cp '%s/linear_ops.sm80.ptx' '%s/modules/'", dir,
       VKRR_PTX_KERNEL_DIR, dir);
    static const char *modes[] = {"--mode isolated", "--mode chained", "--ref cpu", "--ref ptx"};
    for (int i = 0; i < 4; i++) {
        snprintf(args, sizeof args, "validate '%s' %s --heatmaps none --validation", dir, modes[i]);
        out = NULL;
        int rc = test_run_vkrr(args, &out, NULL);
        if (!test_check(rc == 0, __FILE__, __LINE__, "linear textures validate"))
            fprintf(stderr, "    %s: exit %d\n%s\n", modes[i], rc, out ? out : "");
        CHECK(out && strstr(out, "1 PASS, 0 FAIL") && strstr(out, "validation layer: 0 messages"));
        if (i >= 2)
            CHECK(out && strstr(out, i == 2 ? "original kernels rerun on cpu"
                                            : "original kernels rerun on ptx") && !strstr(out, "BAD"));
        free(out);
    }
    /* and on its own, exactly: linear and pitch-2D textures from PTX */
    snprintf(args, sizeof args, "rerun '%s' --heatmaps none", dir);
    out = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 0);
    CHECK(out && strstr(out, "1 PASS, 0 FAIL"));
    free(out);
    snprintf(args, sizeof args, "info '%s' --json", dir);
    out = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 0);
    CHECK(out && strstr(out, "\"resource\":\"linear\"") && strstr(out, "\"resource\":\"pitch2d\",\"pitch\":64"));
    free(out);

    /* the linear texture's dump no longer what the log hashed: the launch
     * reads it and fails, and the check of its inputs says why */
    snprintf(dir, sizeof dir, "%s/linear_garbled", root);
    write_linear_capture(dir);
    sh("cd '%s' && python3 -c \"import glob; p = glob.glob('dump/*-arg000-buffer-*')[0]; "
       "b = bytearray(open(p, 'rb').read()); b[256 + 4 * 17] ^= 0x5a; open(p, 'wb').write(b)\"", dir);
    snprintf(args, sizeof args, "validate '%s' --mode isolated --heatmaps none", dir);
    out = NULL;
    CHECK_EQ_U64(test_run_vkrr(args, &out, NULL), 2);
    CHECK(out && strstr(out, "the texture at arg 0") && strstr(out, "changed since capture"));
    free(out);
}

/* ---- surfaces without array= --------------------------------------------- */

/* Real bridges log no array on cuSurfObjectCreate: the history surface of
 * frame 0 is tied to its array by the log's order among arrays of its shape
 * (a guess), which chained validation follows only where the bytes confirm
 * it: frame 1's history texture reads frame 0's surface, the link "inferred
 * from equal bytes".  With that texture's dump altered the bytes contradict
 * the guess: no link, and the texture is said to read the capture. */
static void check_surface_tie(void)
{
    for (int altered = 0; altered < 2; altered++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/noarray%d", root, altered);
        sh("rm -rf '%s' && cp -r '%s' '%s' && sed -i '/^.*vkrr surface object=/d' '%s/run/run.log'",
           dir, cap, dir, dir);
        if (altered)
            sh("python3 -c \"import glob; p = glob.glob('%s/dump/launch-024-*-arg024-texture-*')[0]; "
               "b = bytearray(open(p, 'rb').read()); b[0] ^= 1; open(p, 'wb').write(b)\"", dir);
        CHECK_EQ_U64(sh("grep -q 'vkrr surface' '%s/run/run.log'", dir), 1); /* none left */
        vkrr_capture *c = NULL;
        vkrr_error err = {0};
        vkrr_chain *ch = NULL;
        if (!CHECK(vkrr_capture_open(&c, dir, &err) == VKRR_OK))
            return;
        const vkrr_launch *o0 = vkrr_capture_find(c, "cuda_dldn_rrref_output_kernel", 0);
        const vkrr_launch *o1 = vkrr_capture_find(c, "cuda_dldn_rrref_output_kernel", 1);
        CHECK(o0 && o1 && o0->images[4].kind == VKRR_IMAGE_SURFACE && o0->images[4].array &&
              o0->images[4].link == VKRR_LINK_ORDER && o1->images[2].array == o0->images[4].array);
        CHECK(vkrr_chain_create(&ch, c, &err) == VKRR_OK);
        const vkrr_texture_link *k = ch ? vkrr_chain_link(ch, (uint32_t)(o1 - c->launches), 2) : NULL;
        if (!altered)
            CHECK(k && k->launch < c->nlaunches && &c->launches[k->launch] == o0 && k->image == 4 &&
                  k->how == VKRR_LINK_BYTES);
        else
            CHECK(k && k->launch == UINT32_MAX && k->unknown);
        vkrr_chain_destroy(ch);
        vkrr_capture_close(c);
    }
}

/* ---- interrupted ----------------------------------------------------------- */

/* Runs validate, sends SIGINT once the 4th launch is under way, waits. */
static int interrupt_validate(const char *dir, const char *out_prefix, char **stdout_text)
{
    char outp[4300], errp[4300];
    snprintf(outp, sizeof outp, "%s.out", out_prefix);
    snprintf(errp, sizeof errp, "%s.err", out_prefix);
    int pfd[2];
    if (pipe(pfd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char json[4300], junit[4300], rep[4300];
        snprintf(json, sizeof json, "%s.json", out_prefix);
        snprintf(junit, sizeof junit, "%s.xml", out_prefix);
        snprintf(rep, sizeof rep, "%s.report", out_prefix);
        if (!freopen(outp, "w", stdout))
            _exit(99);
        dup2(pfd[1], 2);
        close(pfd[0]);
        close(pfd[1]);
        execl(VKRR_BIN, VKRR_BIN, "validate", dir, "--heatmaps", "none", "--json", json, "--junit",
              junit, "--report", rep, "--progress", (char *)NULL);
        _exit(98);
    }
    close(pfd[1]);
    FILE *e = fdopen(pfd[0], "r"), *log = fopen(errp, "w");
    char line[2048];
    bool sent = false;
    while (e && fgets(line, sizeof line, e)) {
        if (log)
            fputs(line, log);
        if (!sent && strstr(line, "progress: launch 4/")) {
            kill(pid, SIGINT);
            sent = true;
        }
    }
    if (e)
        fclose(e);
    if (log)
        fclose(log);
    int st = 0;
    waitpid(pid, &st, 0);
    *stdout_text = test_read_file(outp, NULL);
    CHECK(sent);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_interrupt(void)
{
    char prefix[4200], *out = NULL;
    snprintf(prefix, sizeof prefix, "%s/int", root);
    int rc = interrupt_validate(cap, prefix, &out);
    CHECK_EQ_U64(rc, 130);
    CHECK(out && strstr(out, ", interrupted after ") && strstr(out, " of 36: "));
    /* each report whole, as of the last finished launch, never half */
    CHECK_EQ_U64(sh("python3 -c \"import json; d = json.load(open('%s.json')); s = d['summary']; "
                    "assert s['interrupted'] and s['launches_total'] == 36, s; "
                    "assert 4 <= len(d['launches']) < 36 and len(d['launches']) == s['launches'], s\"",
                    prefix), 0);
    CHECK_EQ_U64(sh("tail -c 14 '%s.xml' | grep -q '</testsuites>' && grep -q 'name=\"interrupted\"' '%s.xml'",
                    prefix, prefix), 0);
    CHECK_EQ_U64(sh("tail -c 8 '%s.report/index.html' | grep -q '</html>' && "
                    "grep -q \"id='interrupted'\" '%s.report/index.html'", prefix, prefix), 0);
    CHECK_EQ_U64(sh("ls -a '%s' '%s.report' | grep -q 'tmp-'", root, prefix), 1);
    free(out);
}

/* The JUnit file of an interrupted run is well-formed XML. */
static void check_interrupt_xmllint(void)
{
    char prefix[4200], *out = NULL;
    snprintf(prefix, sizeof prefix, "%s/int", root);
    CHECK_EQ_U64(interrupt_validate(cap, prefix, &out), 130);
    CHECK_EQ_U64(sh("xmllint --noout '%s.xml'", prefix), 0);
    free(out);
}

int main(int argc, char **argv)
{
    bool xmllint = argc > 1 && !strcmp(argv[1], "xmllint");
    if (argc > 1 && !xmllint) {
        fprintf(stderr, "usage: test_damage [xmllint]\n");
        return 2;
    }
    if (xmllint && !test_have_tool("xmllint"))
        return test_skip("xmllint", "xmllint is not installed (Debian: libxml2-utils)");
    root = test_tmpdir(xmllint ? "test_damage_xmllint" : "test_damage");
    snprintf(cap, sizeof cap, "%s/cap", root);
    vkrr_error err = {0};
    vkrr_synth_stats st;
    vkrr_synth_desc d = {.dir = cap, .width = 32, .height = 24, .frames = 3, .module_dir = ""};
    if (!CHECK(vkrr_synth_run(&d, &st, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
    } else if (xmllint) {
        check_interrupt_xmllint();
    } else {
        check_table();
        check_log();
        check_chained();
        check_hash();
        check_foreign_hash();
        check_nothing_readable();
        check_surface_tie();
        check_interrupt();
        check_bad_kernels();
    }
    if (!xmllint) {
        check_linear();
        check_record_bad_kernel();
    }
    int rc = test_finish(xmllint ? "damage xmllint" : "damage");
    if (rc == 0)
        test_rmtree(root);
    free(root);
    return rc;
}
