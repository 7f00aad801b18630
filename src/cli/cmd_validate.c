/* vkrr validate: replay every captured launch through the Vulkan port,
 * compare each output with what CUDA wrote, print the per-layer table, write
 * heatmaps and JSON, and exit non-zero when a layer is out of tolerance. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "clock.h"
#include "capture.h"
#include "cli.h"
#include "sampler_fit.h"
#include "cli_summary.h"
#include "compare.h"
#include "hw_model.h"
#include "fused_runs.h"
#include "portdesc.h"
#include "ports_dir.h"
#include "validate.h"
#include "validate_chain.h"
#include "validate_run.h"
#include "validate_report.h"
#include "shard.h"
#include "tex_unfiltered.h"
#include "cli_coverage.h"
#include "version.h"

static const char validate_help[] =
    "usage: vkrr validate CAPDIR [options]\n"
    "\n"
    "Options take a value as --opt VALUE or --opt=VALUE; -- ends the options.\n"
    "\n"
    "Replays every launch of the capture through the Vulkan port, each from its own\n"
    "captured inputs (isolated: the error shown is the port's own), and compares\n"
    "every output with what CUDA wrote: each allocation with a post-launch dump (the\n"
    "window the layer writes, in its own type, and the rest byte for byte) and\n"
    "every surface.  One row per launch, then a summary.\n"
    "\n"
    "A damaged capture is validated where it can be: a launch whose own files are\n"
    "missing, short or malformed (manifest.txt, args.bin, alloc-IDX.bin, a dump) is\n"
    "ERROR naming the file and the reason, the others are validated as usual; in\n"
    "chained mode the launches that need what it would have produced are SKIPPED,\n"
    "naming it.  Ctrl-C stops after the current launch: the summary (marked\n"
    "interrupted) and --json/--junit/--report cover the finished launches.\n"
    "\n"
    "modes:\n"
    "  --mode isolated|chained|both   (default both) chained runs the capture on the\n"
    "                       port from the first launch's inputs, each launch reading\n"
    "                       the port's own earlier outputs: the error accumulated up\n"
    "                       to it.  The summary names the first launch whose chained\n"
    "                       error leaves tolerance: the CULPRIT when its isolated\n"
    "                       error is out too, else an AMPLIFIER of error that began\n"
    "                       upstream (the first launch whose chained output is inexact).\n"
    "                       With --ref cpu|ptx|cuda each dispatched chained launch also\n"
    "                       runs the original kernel on the same chained inputs (column\n"
    "                       \"ch vs orig\", JSON \"chained_vs_original\"), and that decides\n"
    "                       instead: CULPRIT when the port disagrees with the original\n"
    "                       there, even deep in a frame where its isolated error is\n"
    "                       within tolerance, else AMPLIFIER; later culprits are named\n"
    "  --perturb KERNEL[#OCC]=ULPS  move every element of that launch's outputs by\n"
    "                       ULPS steps of its own type (occurrence 0 without #OCC), in\n"
    "                       both modes, to see how far an error travels\n"
    "\n"
    "a fast loop on one kernel:\n"
    "  --only KERNEL        run only the launches of KERNEL; KERNEL#OCC: only its\n"
    "                       0-based occurrence OCC; SEQ (a number): only the launch\n"
    "                       of that sequence number.  Repeatable.  Isolated unless\n"
    "                       --mode says otherwise: chained needs every launch before\n"
    "                       them, which then runs too (unshown), and the run says so\n"
    "  --shard K/N          validate only part K (1..N) of the capture, for a CI matrix\n"
    "                       of N jobs; `vkrr merge` makes their --json files into the\n"
    "                       run (README \"Validating in CI, in shards\").  Isolated: the\n"
    "                       launches balanced by cost; chained and both: whole frames,\n"
    "                       and the frames before them run too, unshown.  A shard with\n"
    "                       nothing to do says so and exits 0\n"
    "  --watch              with --ports DIR: run, then run again each time a .comp,\n"
    "                       .spv, .port or .glsl file in DIR changes, printing the new\n"
    "                       table, until Ctrl-C; a shader that does not compile or a\n"
    "                       descriptor that does not parse prints its error (file and\n"
    "                       line) and the next change is awaited\n"
    "\n"
    "output:\n"
    "  --out DIR            heatmaps go to DIR/heatmaps (default: " VKRR_OUT_DEFAULT "/\n"
    "                       CAPNAME-HASH/heatmaps, made when the first is written; the\n"
    "                       run's last line says where)\n"
    "  --heatmaps WHICH     failing (default), all, or none\n"
    "  --dump-values        a heatmap's table (.tsv) holds every value; by default a\n"
    "                       resource of over 256 holds its worst 256 and the counts\n"
    "  --json FILE          every metric of every resource of every launch\n"
    "  -q, --quiet          only the summary line and failures\n"
    "  --report DIR         a self-contained HTML page DIR/index.html (summary, table,\n"
    "                       error profile, heatmaps copied to DIR/heatmaps)\n"
    "  --junit FILE         JUnit XML, one test case per launch\n"
    "  --color WHEN         always, never, or auto (default): PASS, FAIL and the\n"
    "                       verdicts in colour on a terminal, never with NO_COLOR set,\n"
    "                       in a pipe, a file or a report\n"
    "  --progress           a progress line per launch on stderr even when it is not a\n"
    "                       terminal (on a terminal it is always shown, rewritten in\n"
    "                       place; elsewhere, without --progress, one line at the end)\n"
    "\n"
    "reference:\n"
    "  --ref capture        compare the port with the capture (default)\n"
    "  --ref cpu            also rerun the original kernels on the CPU (where vkrr has\n"
    "                       their source) and show port vs rerun and rerun vs capture;\n"
    "                       chained, also port vs the original on the chained inputs\n"
    "  --ref cuda           the same through libcuda on an NVIDIA GPU, with the modules\n"
    "                       of CAPDIR/modules (or the first --modules folder); exit 3\n"
    "                       without one\n"
    "  --ref ptx            the same from the modules' PTX, run by vkrr's PTX JIT (or\n"
    "                       interpreter: --ptx-engine) on this CPU (any kernel, no GPU,\n"
    "                       no source; the header line says which engine)\n"
    "  --modules FILE|DIR   the original's modules for --ref ptx/cuda (repeatable): PTX,\n"
    "                       fatbins, any binary holding fatbins (a DLL); default\n"
    "                       CAPDIR/modules, the files run.log names, and files of\n"
    "                       those names inside CAPDIR (vkrr rerun --help says more);\n"
    "                       their PTX also shows which linear-filtered textures a\n"
    "                       kernel reads only unfiltered (no \"not measured\" note)\n"
    "  --coverage           (--ref ptx) after the summary, per kernel: the directions of\n"
    "                       its branches and the instructions the original reached over\n"
    "                       the run, each one none reached at its PTX (and source) line;\n"
    "                       in --json and --report too (vkrr rerun --coverage, vkrr stress)\n"
    "\n"
    "tolerance (defaults per type: f16 2 ULP, f32 4 ULP or 1e-6 + 1e-5*|ref|, f64 4 ULP\n"
    "or 1e-12 + 1e-10*|ref|, e4m3 1 ULP, integers (u8 .. u64, i8 .. i64) and bytes exact):\n"
    "  --tolerance FILE     per-kernel and per-argument rules, one per line:\n"
    "                         KERNEL[#OCC] [argOFF] atol=X rtol=X max_ulp=N|off\n"
    "                       ('*' matches any run of characters; later lines win)\n"
    "  --atol X, --rtol X, --max-ulp N   override every rule\n"
    "  --buffer-type T      compare allocations no port descriptor names as an output\n"
    "                       as T (f16, f32, e4m3, ...); by default they are compared\n"
    "                       byte for byte: the port must leave them exactly as CUDA did\n"
    "  --no-hash-check      do not check dumps against the log's hash= (by default a\n"
    "                       dump that disagrees is ERROR \"changed since capture\",\n"
    "                       not a port failure; the hash is taken as the dump is read)\n"
    "  --strict             a kernel with no port is a failure\n"
    "\n%s\n%s"
    "\n"
    "device:\n"
    "  --device INDEX|NAME  Vulkan device (default: first discrete GPU, else any)\n"
    "  --timeout SECONDS    a launch running longer is reported TIMEOUT (default 60)\n"
    "  --ports DIR          ports in DIR over the built-in ones: KERNEL.spv or\n"
    "                       KERNEL.comp (compiled at run time) and KERNEL.port (what\n"
    "                       the port writes: see README \"Port descriptors\"); a\n"
    "                       KERNEL.port that does not parse or fit a launch is exit 2\n"
    "                       A folder in which no file is named after a captured kernel\n"
    "                       is exit 2 (no port of yours would run); a file named after\n"
    "                       no captured kernel is a warning naming the nearest one.\n"
    "                       Each row's last column names the port that ran: its file\n"
    "                       and the descriptor it was compared by, or built-in (JSON\n"
    "                       \"port\", JUnit and HTML likewise)\n"
    "  --no-builtin         run only the ports in --ports DIR: a kernel without one\n"
    "                       there is NO PORT, never the built-in port in its place\n"
    "  --validation         enable the Khronos validation layer\n"
    "\n"
    "memory: a launch larger than the memory limit is streamed, never refused: its\n"
    "data past the limit in unlinked scratch files, and its row says so.\n"
    "VKRR_MEM_LIMIT=SIZE (512M, 8G) sets the limit (default: half of what the system\n"
    "or the process's cgroup has free); VKRR_SCRATCH_DIR the files' folder (else\n"
    "TMPDIR, else /var/tmp).\n"
    "\n"
    "exit: 0 every launch passes, 1 a launch failed or timed out, else 2 when a\n"
    "launch could not be validated (damaged or changed capture files, SKIPPED), when\n"
    "--ref could not rerun a launch's original (its PTX does not parse or uses what\n"
    "the interpreter lacks: the row's note names the file and line), or on bad\n"
    "input or usage, 3 no usable Vulkan device or library, 130 interrupted.\n"
    "\n"
    "examples:\n"
    "  vkrr synth /tmp/cap && vkrr validate /tmp/cap --json /tmp/cap.json\n"
    "  vkrr port new my_kernel /tmp/cap --out ports &&\n"
    "    vkrr validate /tmp/cap --ports ports --only my_kernel --watch\n";

static const char bisect_help[] =
    "usage: vkrr bisect CAPDIR [options]\n"
    "\n"
    "Runs the capture chained on the Vulkan port (each launch reading the port's own\n"
    "earlier outputs) and stops at the first launch whose chained error leaves\n"
    "tolerance.  It prints that launch and its class: the CULPRIT when its isolated\n"
    "error (from its own captured inputs) is out of tolerance too, else an\n"
    "AMPLIFIER, naming the upstream launch where the chained error first grew.\n"
    "With --ref cpu|ptx|cuda the original kernel also runs on each chained launch's\n"
    "inputs, and the class is decided by it instead: CULPRIT when the port disagrees\n"
    "with the original on the same chained inputs, else AMPLIFIER.  The verdict\n"
    "says which evidence decided.\n"
    "\n"
    "options: --ref, --modules, --coverage, --perturb, --tolerance, --atol, --rtol,\n"
    "--max-ulp, --buffer-type, --no-hash-check, --approx, --hw-tables, --ptx-engine,\n"
    "--no-cache, --device, --timeout, --ports, --no-builtin, --validation, --strict,\n"
    "--progress, --out, --heatmaps, --dump-values, --json, -q, --color as for 'vkrr\n"
    "validate' (see vkrr validate --help), as --opt VALUE or --opt=VALUE.  Launches that\n"
    "could not be read are passed over (ERROR, and SKIPPED downstream).\n"
    "\n"
    "exit: 0 no divergence, 1 a divergence was found, 2 bad input or usage or a\n"
    "launch that could not be read, 3 no usable Vulkan device or library, 130\n"
    "interrupted.\n";

#define MAX_ONLY 64

typedef struct validate_args {
    vkrr_cli_select only[MAX_ONLY];
    char only_text[1024];   /* the --only values as given, space-separated (JSON "only") */
    unsigned nonly;
    uint32_t shard, shards; /* --shard K/N; shards 0: all */
    bool mode_given, watch;
    unsigned watch_max;     /* hidden --watch-max N (tests): stop after N runs */
    char **argv;
    const char *capdir, *ref, *device, *mode, *perturb_text;
    vkrr_cli_modules modules; /* --modules, repeatable */
    vkrr_cli_compare c;     /* --out, --json, --tolerance, ... (cli.h) */
    vkrr_perturb perturb;
    bool bisect;
    double timeout;
    bool strict, validation, no_builtin, progress;
    bool coverage;          /* --coverage (with --ref ptx) */
    const vkrr_capture *cap; /* the run's, for mine */
    bool *mine;             /* --shard: the launches of this shard, by index; NULL: all */
} validate_args;

enum {
    O_MODE, O_ONLY, O_SHARD, O_WATCH, O_WATCH_MAX, O_PERTURB, O_COVERAGE, O_REF, O_DEVICE,
    O_TIMEOUT, O_MODULES, O_STRICT, O_PROGRESS, O_NO_BUILTIN, O_VALIDATION,
};

/* bisect's options; validate takes these and validate_opts */
static const vkrr_cli_opt bisect_opts[] = {
    {"perturb", 0, true, O_PERTURB, false},    {"coverage", 0, false, O_COVERAGE, false},
    {"ref", 0, true, O_REF, false},            {"device", 0, true, O_DEVICE, false},
    {"timeout", 0, true, O_TIMEOUT, false},    {"modules", 0, true, O_MODULES, false},
    {"strict", 0, false, O_STRICT, false},     {"progress", 0, false, O_PROGRESS, false},
    {"no-builtin", 0, false, O_NO_BUILTIN, false}, {"validation", 0, false, O_VALIDATION, false},
    {0},
};
static const vkrr_cli_opt validate_opts[] = {
    {"mode", 0, true, O_MODE, false},   {"only", 0, true, O_ONLY, false},
    {"shard", 0, true, O_SHARD, false}, {"watch", 0, false, O_WATCH, false},
    {"watch-max", 0, true, O_WATCH_MAX, true},
    {0},
};

/* One option (not --help) into a: 0, or the exit code of a usage error. */
static int take_option(const char *cmd, int id, const char *v, void *ctx)
{
    validate_args *a = ctx;
    uint64_t x;
    switch (id) {
    case O_MODE:
        if (strcmp(v, "isolated") && strcmp(v, "chained") && strcmp(v, "both"))
            return vkrr_cli_usage_error(cmd, "--mode takes isolated, chained or both, not '%s'", v);
        a->mode = v;
        a->mode_given = true;
        return 0;
    case O_ONLY: {
        if (a->nonly == MAX_ONLY)
            return vkrr_cli_usage_error(cmd, "--only is given more than %d times", MAX_ONLY);
        if (!vkrr_cli_select_parse(v, &a->only[a->nonly++]))
            return vkrr_cli_usage_error(cmd, "--only takes KERNEL, KERNEL#OCC or SEQ, not '%s'", v);
        size_t ol = strlen(a->only_text);
        snprintf(a->only_text + ol, sizeof a->only_text - ol, "%s%s", ol ? " " : "", v);
        return 0;
    }
    case O_SHARD:
        return vkrr_cli_shard_take(cmd, v, &a->shard, &a->shards);
    case O_WATCH_MAX:
        if (!vkrr_cli_parse_u64(v, 1000000, &x) || !x)
            return vkrr_cli_usage_error(cmd, "--watch-max takes a count >= 1, not '%s'", v);
        a->watch_max = (unsigned)x;
        return 0;
    case O_PERTURB:
        if (!vkrr_perturb_parse(v, &a->perturb))
            return vkrr_cli_usage_error(cmd, "--perturb takes KERNEL[#OCC]=ULPS, not '%s'", v);
        a->perturb_text = v;
        return 0;
    case O_REF:
        if (strcmp(v, "capture") && strcmp(v, "cpu") && strcmp(v, "cuda") && strcmp(v, "ptx"))
            return vkrr_cli_usage_error(cmd, "--ref takes capture, cpu, cuda or ptx, not '%s'", v);
        a->ref = v;
        return 0;
    case O_TIMEOUT:
        if (!vkrr_cli_parse_double(v, &a->timeout) || a->timeout <= 0)
            return vkrr_cli_usage_error(cmd, "--timeout takes seconds > 0, not '%s'", v);
        return 0;
    case O_MODULES:
        return vkrr_cli_modules_take(cmd, v, &a->modules);
    case O_DEVICE: a->device = v; return 0;
    case O_WATCH: a->watch = true; return 0;
    case O_COVERAGE: a->coverage = true; return 0;
    case O_STRICT: a->strict = true; return 0;
    case O_PROGRESS: a->progress = true; return 0;
    case O_NO_BUILTIN: a->no_builtin = true; return 0;
    case O_VALIDATION: a->validation = true; return 0;
    default:
        return vkrr_cli_compare_take(cmd, id, v, &a->c);
    }
}

static void print_help(void *ctx)
{
    if (((const validate_args *)ctx)->bisect)
        fputs(bisect_help, stdout);
    else
        printf(validate_help, vkrr_cli_hw_help, vkrr_cli_ptx_help);
}

static int parse_args(int argc, char **argv, validate_args *a)
{
    bool bisect = !strcmp(argv[0], "bisect");
    *a = (validate_args){.c = {.heatmaps = "failing", .buffer_type = "bytes"},
                         .ref = "capture", .mode = "both", .bisect = bisect};
    vkrr_cli_opts p =
        vkrr_cli_opts_begin(argv[0], argc, argv, 1, bisect_opts, vkrr_cli_compare_opts);
    if (!bisect) {
        vkrr_cli_opts_add(&p, validate_opts);
        vkrr_cli_opts_add(&p, vkrr_cli_report_opts);
    }
    int rc = vkrr_cli_opts_one_arg(&p, "CAPDIR", &a->capdir, take_option, print_help, a);
    if (rc)
        return rc;
    if (a->watch && !a->c.ports)
        return vkrr_cli_usage_error(argv[0], "--watch watches the --ports DIR: give one");
    if (a->coverage && strcmp(a->ref, "ptx"))
        return vkrr_cli_usage_error(argv[0], "--coverage is the PTX interpreter's: it needs --ref "
                                             "ptx, not %s", a->ref);
    if (a->watch && a->shards)
        return vkrr_cli_usage_error(argv[0], "--watch and --shard do not go together (a shard is "
                                             "a CI job's part of a run)");
    if (a->nonly && !a->mode_given)
        a->mode = "isolated"; /* the fast loop: the launch's own error */
    return 0;
}

/* Launch i/N, frame, elapsed and an estimate of what is left: rewritten in
 * place on a terminal; elsewhere (logs, CI) one plain line per launch only
 * with --progress, else a single line at the end.  No colour is used (the
 * table's words are coloured by color.h, which NO_COLOR turns off). */
static void progress(bool tty, uint32_t i, uint32_t n, const vkrr_launch *l, double elapsed)
{
    double left = i ? elapsed / i * (n - i) : 0;
    if (tty)
        fprintf(stderr, "\r\033[Klaunch %u/%u  frame %u  %s  %.1fs elapsed  ~%.1fs left", i + 1,
                n, l->frame, l->kernel, elapsed, left);
    else
        fprintf(stderr, "progress: launch %u/%u frame %u %s %.1fs elapsed ~%.1fs left\n", i + 1,
                n, l->frame, l->kernel, elapsed, left);
    fflush(stderr);
}

/* The descriptor outputs the run compared that rest on a "# GUESS" (port
 * new's, not yet checked by the engineer): one line each, once per kernel. */
static void print_guesses(vkrr_portdesc_set *ports, const vkrr_launch_result *res, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const char *k = res[i].launch->kernel;
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = !strcmp(res[j].launch->kernel, k);
        const vkrr_portdesc *d = NULL;
        vkrr_error e = {0};
        if (seen || vkrr_portdesc_set_get(ports, k, &d, &e) != VKRR_OK || !d)
            continue;
        uint32_t args[16];
        long lines[16];
        uint32_t g = vkrr_portdesc_guesses(d, args, lines, 16);
        for (uint32_t q = 0; q < g && q < 16; q++)
            printf("guess: %s:%ld: output arg%u is compared as a GUESS says (check it against the "
                   "kernel, then delete the comment)\n", vkrr_portdesc_name(d), lines[q], args[q]);
    }
}

static bool only_selects(const validate_args *a, const vkrr_launch *l)
{
    for (unsigned k = 0; k < a->nonly; k++)
        if (vkrr_cli_select_matches(&a->only[k], l))
            return true;
    return a->nonly == 0;
}

/* Selected: by --only and, with --shard, in this shard (a->mine, by index). */
static bool is_selected(const validate_args *a, const vkrr_launch *l)
{
    return only_selects(a, l) && (!a->mine || a->mine[l - a->cap->launches]);
}

/* The selected launches' count; VKRR_ERR_USAGE naming an --only that
 * matches nothing. */
static vkrr_status selection(const validate_args *a, const vkrr_capture *cap, uint32_t *count,
                             vkrr_error *err)
{
    *count = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        *count += is_selected(a, &cap->launches[i]);
    for (unsigned k = 0; k < a->nonly; k++) {
        bool hit = false;
        for (uint32_t i = 0; i < cap->nlaunches && !hit; i++)
            hit = vkrr_cli_select_matches(&a->only[k], &cap->launches[i]);
        const vkrr_cli_select *o = &a->only[k];
        char what[300];
        if (!o->kernel[0])
            snprintf(what, sizeof what, "%llu", (unsigned long long)o->sequence);
        else if (o->occurrence >= 0)
            snprintf(what, sizeof what, "%.256s#%lld", o->kernel, (long long)o->occurrence);
        else
            snprintf(what, sizeof what, "%.256s", o->kernel);
        if (!hit)
            return vkrr_fail(err, VKRR_ERR_USAGE, cap->path, 0, -1,
                             "--only %s matches no launch ('vkrr info %s' lists them)", what,
                             cap->path);
    }
    return VKRR_OK;
}

/* --shard K/N: which part of the capture this job validates. */
static void print_shard(const validate_args *a, const vkrr_capture *cap, uint32_t nsel, bool chn)
{
    uint32_t f0 = UINT32_MAX, f1 = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (a->mine[i]) {
            f0 = cap->launches[i].frame < f0 ? cap->launches[i].frame : f0;
            f1 = cap->launches[i].frame > f1 ? cap->launches[i].frame : f1;
        }
    if (!nsel) {
        printf("shard %u/%u: no launch falls to this shard (%u launches in %u frames%s); "
               "nothing to do\n", a->shard, a->shards, cap->nlaunches, cap->nframes,
               chn ? ", split by whole frames" : "");
        return;
    }
    printf("shard %u/%u: %u of the %u launches", a->shard, a->shards, nsel, cap->nlaunches);
    if (chn)
        printf(", frames %u-%u; chained mode also runs, unshown, every launch before them (the "
               "port's history carries from frame to frame)\n", f0, f1);
    else
        printf(", balanced by cost (bytes and threads)\n");
}

/* The run's callbacks: progress before each launch, its row after it. */
typedef struct run_view {
    const validate_args *a;
    bool tty, rerun, chained;
    double t0;
} run_view;

static bool view_selected(void *ctx, const vkrr_launch *l)
{
    return is_selected(((const run_view *)ctx)->a, l);
}

static void view_before(void *ctx, uint32_t done, uint32_t total, const vkrr_launch *l)
{
    const run_view *v = ctx;
    if (v->tty || v->a->progress) /* a log gets per-launch lines only when asked */
        progress(v->tty, done, total, l, vkrr_now_s() - v->t0);
}

static void view_after(void *ctx, const vkrr_launch_result *r, bool cbad)
{
    const run_view *v = ctx;
    if (v->tty)
        fputs("\r\033[K", stderr);
    bool show = !v->a->c.quiet || r->status != VKRR_LAUNCH_PASS || cbad ||
                (v->chained && r->chained_status != VKRR_LAUNCH_PASS);
    if (show && !(v->a->bisect && !cbad))
        vkrr_report_table_row(stdout, r, v->rerun, v->chained, true);
    fflush(stdout);
}

static int validate_run(const validate_args *args, char **argv)
{
    validate_args a = *args;
    int rc;
    vkrr_error err = {0};
    vkrr_capture *cap = NULL, *opened = NULL; /* cap: opened, or what fused ports make of it */
    vkrr_tol_rules *rules = NULL;
    vkrr_backend port_be = {0}, rerun_be = {0}, orig_be = {0};
    vkrr_module_set mods = {0};
    struct vkrr_tex_unfiltered *unfiltered = NULL;
    vkrr_kernel_coverage *cov = NULL;
    uint32_t ncov = 0;
    vkrr_run run = {0};
    vkrr_cli_signals signals;
    bool signals_caught = false;
    vkrr_portdesc_set *ports = NULL;
    vkrr_hw_model *hw = NULL;
    char heatmap_dir[4096] = "";
    bool *mine = NULL;
    rc = 2;

    if (vkrr_capture_open_ex(&cap, a.capdir, VKRR_CAPTURE_KEEP_DAMAGED, &err) != VKRR_OK)
        goto fail;
    if (vkrr_cli_hw_use(&a.c, cap, &hw, &err) != VKRR_OK)
        goto fail;
    uint32_t readable = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        readable += cap->launches[i].damage < VKRR_DAMAGE_INPUT;
    if (readable == 0) { /* nothing to validate: say why, at once */
        err = cap->first_damage;
        if (err.status == VKRR_OK)
            vkrr_fail(&err, VKRR_ERR_MISSING, a.capdir, 0, -1, "the capture holds no launches");
        else
            fprintf(stderr, "vkrr: no launch of %s can be read (%u damaged); the first "
                    "problem:\n", a.capdir, cap->ndamaged);
        goto fail;
    }
    /* each run of launches a fused port stands for becomes one launch
     * (fused_runs.h), before anything selects, shards or checks launches */
    vkrr_capture *fused = NULL;
    if (vkrr_portdesc_set_create(&ports, a.c.ports, &err) != VKRR_OK ||
        vkrr_fused_derive(cap, ports, &fused, &err) != VKRR_OK)
        goto fail;
    if (fused)
        opened = cap, cap = fused;
    uint32_t nsel;
    if (selection(&a, cap, &nsel, &err) != VKRR_OK)
        goto fail;
    a.cap = cap;
    if (a.shards) {
        bool *sel = malloc((cap->nlaunches ? cap->nlaunches : 1) * sizeof *sel);
        mine = malloc((cap->nlaunches ? cap->nlaunches : 1) * sizeof *mine);
        if (!sel || !mine) {
            free(sel);
            vkrr_fail(&err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
            goto fail;
        }
        for (uint32_t i = 0; i < cap->nlaunches; i++)
            sel[i] = only_selects(&a, &cap->launches[i]);
        bool frames = a.bisect || strcmp(a.mode, "isolated");
        nsel = vkrr_shard_plan(cap, sel, a.shard, a.shards, frames, mine);
        free(sel);
        a.mine = mine;
    }
    /* a bad descriptor stops the run before anything is launched */
    if (a.c.ports && vkrr_ports_dir_check(a.c.ports, cap, &err) != VKRR_OK)
        goto fail;
    if (vkrr_portdesc_set_check(ports, cap, &err) != VKRR_OK)
        goto fail;
    if (vkrr_compare_tol_load(&rules, a.c.tolerance, &err) != VKRR_OK)
        goto fail;
    vkrr_compare_tol_set_flags(rules, &a.c.flags);
    if (strcmp(a.c.heatmaps, "none")) {
        /* with --report the heatmaps live next to the page that links them */
        if (vkrr_cli_heatmap_dir(a.c.report ? a.c.report : a.c.out, a.capdir, heatmap_dir,
                                 sizeof heatmap_dir, &err) != VKRR_OK)
            goto fail;
    }
    if (vkrr_backend_open(&(vkrr_backend_desc){.name = "vulkan", .device = a.device,
                                                .timeout_s = a.timeout, .ports_dir = a.c.ports,
                                                .no_builtin = a.no_builtin,
                                                .validation = a.validation},
                          &port_be, &err) != VKRR_OK)
        goto fail;
    if (strcmp(a.ref, "capture") &&
        vkrr_cli_open_reference(a.ref, cap, &a.modules,
                                (vkrr_backend_desc){.coverage = a.coverage, .ptx_engine = a.c.ptx_engine,
                                                    .no_cache = a.c.no_cache},
                                &rerun_be, &mods, a.c.quiet ? NULL : stdout, &err) != VKRR_OK)
        goto fail;
    /* textures whose sampler state the log does not give: found by running
     * the original (sampler_fit.h), from its PTX when no --ref runs it */
    bool fit = false;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        fit = fit || vkrr_sampler_fit_needed(&cap->launches[i]);
    if (fit && !rerun_be.run) {
        vkrr_error ferr = {0};
        if (vkrr_cli_open_reference("ptx", cap, &a.modules, (vkrr_backend_desc){.ptx_engine = a.c.ptx_engine,
                                                                                .no_cache = a.c.no_cache},
                                    &orig_be, &mods, NULL, &ferr) != VKRR_OK) {
            char buf[1200];
            vkrr_error_format(&ferr, buf, sizeof buf);
            vkrr_warn("the log does not give some textures' sampler state, and their original "
                      "kernels cannot run to find it (%s): those launches say so", buf);
        }
    }
    vkrr_backend_stats st = {.device_name = ""};
    if (port_be.stats)
        port_be.stats(port_be.self, &st);

    /* a texture the kernel reads only at integer coordinates: no note of its filter */
    unfiltered = vkrr_cli_tex_unfiltered(cap, &a.modules, &mods);
    vkrr_dtype bt = VKRR_DT_BYTES;
    vkrr_dtype_parse(a.c.buffer_type, &bt);
    vkrr_validate_opts opts = {
        .port_backend = &port_be,
        .rerun = rerun_be.run ? &rerun_be : NULL,
        .original = orig_be.run ? &orig_be : NULL,
        .rules = rules,
        .descs = ports,
        .buffer_dtype = bt,
        .heatmap_dir = heatmap_dir[0] ? heatmap_dir : NULL,
        .heatmaps_all = !strcmp(a.c.heatmaps, "all"),
        .dump_values = a.c.dump_values,
        .integrity = vkrr_cli_integrity(cap, a.c.no_hash_check),
        .standin_bounds = !a.c.tol_given,
        .tex_unfiltered = unfiltered,
    };
    bool rerun = opts.rerun != NULL;
    bool iso = !a.bisect && strcmp(a.mode, "chained");
    bool chn = a.bisect || strcmp(a.mode, "isolated");
    if (a.perturb_text)
        opts.perturb = &a.perturb;
    /* every selected kernel's port loaded before the table starts: a shader
     * that does not compile ends the run with glslang's message alone */
    for (uint32_t i = 0; port_be.prepare && i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        bool first = true;
        for (uint32_t j = 0; j < i && first; j++)
            first = strcmp(cap->launches[j].kernel, l->kernel) != 0;
        if (first && is_selected(&a, l) && port_be.prepare(port_be.self, l->kernel, &err) != VKRR_OK)
            goto fail;
    }
    /* Ctrl-C: stop after the current launch; a second one kills at once (the
     * reports are written atomically, so none is left half) */
    vkrr_cli_interrupts(&signals, true, true);
    signals_caught = true;
    char engine[180] = "", words[160];
    if (rerun && !strcmp(rerun_be.name, "ptx"))
        snprintf(engine, sizeof engine, " (%s)",
                 vkrr_cli_ptx_engine_words(a.c.ptx_engine, a.coverage, words, sizeof words));
    printf("%s %s: %u launches in %u frames, port on %s%s%s%s, %s\n", argv[0], a.capdir,
           cap->nlaunches, cap->nframes, st.device_name, rerun ? ", original kernels rerun on " : "",
           rerun ? rerun_be.name : "", engine,
           a.bisect ? "chained until the first divergence" : iso && chn ? "isolated and chained"
                                                            : iso ? "isolated" : "chained");
    if (a.nonly && !a.shards)
        printf("--only: %u of the %u launches%s\n", nsel, cap->nlaunches,
               chn ? "; chained mode also runs, unshown, every launch before the last of them "
                     "(it reads what they wrote)" : "");
    if (a.shards)
        print_shard(&a, cap, nsel, chn);
    for (uint32_t i = 0; i < cap->ndamage; i++) {
        char buf[1400];
        vkrr_error_format(&cap->damage[i], buf, sizeof buf);
        printf("damaged: %s\n", buf);
    }
    vkrr_report_info info = {.capture = a.capdir, .command = "validate", .version = VKRR_VERSION,
                             .capture_id = vkrr_capture_identity(cap),
                             .capture_launches = cap->nlaunches, .shard = a.shard,
                             .shards = a.shards, .only = a.nonly ? a.only_text : NULL,
                             .strict = a.strict,
                             .backend = port_be.name, .device = st.device_name,
                             .reference = a.ref, .mode = a.bisect ? "chained" : a.mode,
                             .perturb = a.perturb_text, .total = nsel,
                             .damage = cap->damage, .ndamage = cap->ndamage,
                             .hw_model = vkrr_hw_model_name(hw), .hw_note = vkrr_hw_model_note(hw)};
    vkrr_report_model_line(stdout, &info);
    if (!a.c.quiet && !a.bisect)
        vkrr_report_table_header(stdout, rerun, chn, "port");
    run_view view = {&a, isatty(fileno(stderr)), rerun, chn, vkrr_now_s()};
    vkrr_run_desc rd = {.opts = opts, .isolated = iso, .chained = chn, .bisect = a.bisect,
                        .strict = a.strict, .selected = view_selected, .before = view_before,
                        .after = view_after, .ctx = &view, .interrupted = &vkrr_cli_interrupted};
    vkrr_status rs = vkrr_run_capture(&rd, cap, &run, &err);
    if (view.tty)
        fputs("\r\033[K", stderr);
    else if (rs == VKRR_OK && !a.c.quiet)
        fprintf(stderr, "progress: %u launches in %.1fs\n", run.done, vkrr_now_s() - view.t0);
    if (rs != VKRR_OK)
        goto fail;
    const vkrr_launch_result *res = run.res;
    uint32_t done = run.done;
    memcpy(info.counts, run.counts, sizeof info.counts);
    memcpy(info.chained_counts, run.chained_counts, sizeof info.chained_counts);
    info.unreadable = run.unreadable;
    info.interrupted = run.interrupted;
    vkrr_cli_summary sum = {.run = &run, .nsel = nsel, .iso = iso, .chn = chn,
                            .bisect = a.bisect, .capture_damage = cap->ndamage};
    vkrr_cli_summary_lines(stdout, &sum);
    if (!a.bisect)
        print_guesses(ports, res, done);
    vkrr_cli_summary_details(stdout, &sum);
    if (chn && !a.c.quiet)
        printf("chain: at most %.1f MiB of intermediate state held\n", run.chain_peak / 1048576.0);
    if (a.coverage) {
        cov = vkrr_cli_coverage(&rerun_be, res, done, &ncov);
        vkrr_cli_coverage_print(stdout, cov, ncov);
        info.coverage = cov;
        info.ncoverage = ncov;
    }
    vkrr_cli_print_heatmap_dir(heatmap_dir, res, done);
    if (port_be.stats)
        port_be.stats(port_be.self, &st);
    info.dispatches = st.pipelines_created + st.pipeline_hits;
    if (chn && !a.c.quiet)
        printf("port: %u dispatches; %u chained results are the isolated ones (same inputs, "
               "not run again)\n", info.dispatches, run.reused);
    if (a.validation)
        printf("validation layer: %u messages\n", st.validation_messages);
    /* Whole or absent: each file is written atomically, as of the last
     * finished launch. */
    if (vkrr_cli_write_reports(&a.c, &info, res, done, done, &err) != VKRR_OK)
        goto fail;
    /* any validation-layer message: the bridge or a port misuses Vulkan, so
     * the results cannot be trusted and the run fails */
    vkrr_status verdict = vkrr_run_verdict(&rd, &run, cap->ndamage, a.validation ? st.validation_messages : 0);
    if (info.interrupted)
        fprintf(stderr, "vkrr: interrupted after %u of %u launches\n", done, nsel);
    rc = vkrr_status_exit_code(verdict);
    goto out;
fail:
    rc = vkrr_cli_fail(&err);
out:
    if (signals_caught)
        vkrr_cli_interrupts_done(&signals);
    vkrr_run_free(&run);
    vkrr_cli_coverage_free(cov, ncov);
    if (port_be.destroy)
        port_be.destroy(port_be.self);
    if (rerun_be.destroy)
        rerun_be.destroy(rerun_be.self);
    if (orig_be.destroy)
        orig_be.destroy(orig_be.self);
    vkrr_tex_unfiltered_free(unfiltered);
    vkrr_modules_free(&mods);
    vkrr_compare_tol_destroy(rules);
    vkrr_portdesc_set_destroy(ports);
    vkrr_cli_hw_done(hw);
    if (opened) {
        vkrr_fused_free(cap);
        cap = opened;
    }
    vkrr_capture_close(cap);
    free(mine);
    return rc;
}

static int validate_again(void *args)
{
    validate_args *a = args;
    return validate_run(a, a->argv);
}

int vkrr_cmd_validate(int argc, char **argv)
{
    validate_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    a.argv = argv;
    if (!a.watch)
        return validate_run(&a, argv);
    return vkrr_cli_watch(a.c.ports, a.watch_max, validate_again, &a);
}

int vkrr_cmd_bisect(int argc, char **argv)
{
    return vkrr_cmd_validate(argc, argv);
}
