/* vkrr rerun: run every captured launch's original kernel again (by default
 * from its PTX, on the CPU) from its own captured inputs, and compare every
 * output with what CUDA wrote.  No port, no GPU, no source needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "cli.h"
#include "tex_unfiltered.h"
#include "compare.h"
#include "backends.h"
#include "hw_model.h"
#include "portdesc.h"
#include "validate.h"
#include "validate_report.h"
#include "cli_summary.h"
#include "cli_coverage.h"
#include "shard.h"
#include "version.h"

static const char rerun_help[] =
    "usage: vkrr rerun CAPDIR [options]\n"
    "\n"
    "Runs the original kernel of every captured launch again, each from its own\n"
    "captured inputs, and compares every output (each allocation with a post-launch\n"
    "dump, every surface) with what CUDA wrote.  One row per launch, then a summary.\n"
    "\n"
    "  --backend ptx|cpu|cuda  ptx (default): vkrr's PTX JIT (or interpreter: --ptx-engine)\n"
    "                       on this CPU, from the modules' PTX alone (any kernel: no\n"
    "                       port, no source, no GPU; the header line says which engine);\n"
    "                       cpu: the rrref kernels compiled into vkrr; cuda: libcuda on\n"
    "                       an NVIDIA GPU (exit 3 without one)\n"
    "  --modules FILE|DIR   where the original's modules are (repeatable): PTX files,\n"
    "                       fatbins, or any binary holding fatbins (a DLL, a host ELF);\n"
    "                       a folder's *.ptx *.fatbin *.cubin *.dll *.so *.o *.exe\n"
    "                       *.bin.  Default: CAPDIR/modules, the files run.log's\n"
    "                       `cuModuleLoadData captured ... to PATH` lines name where\n"
    "                       they are here, and files of those names inside CAPDIR.\n"
    "                       ptx reads every PTX entry of every fatbin (LZ4 and zstd\n"
    "                       decompressed); of several PTX of a kernel it runs the\n"
    "                       highest target at most the capture's GPU, and says so.\n"
    "                       cuda: the first folder given, else CAPDIR/modules\n"
    "  --shard K/N          only part K (1..N) of the launches, balanced by cost, for a\n"
    "                       CI matrix; `vkrr merge` makes the shards' --json files into\n"
    "                       the run\n"
    "  --json FILE          every metric of every resource of every launch\n"
    "  --report DIR         a self-contained HTML page DIR/index.html\n"
    "  --junit FILE         JUnit XML, one test case per launch\n"
    "  --out DIR            heatmaps of what differs go to DIR/heatmaps (default:\n"
    "                       " VKRR_OUT_DEFAULT "/CAPNAME-HASH/heatmaps, made\n"
    "                       when the first is written; --heatmaps none for none)\n"
    "  --heatmaps WHICH     failing (default), all, or none\n"
    "  --dump-values        a heatmap's table (.tsv) holds every value; by default a\n"
    "                       resource of over 256 holds its worst 256 and the counts\n"
    "  -q, --quiet          only failing rows and the summary\n"
    "  --color WHEN         always, never or auto (default: on a terminal, unless\n"
    "                       NO_COLOR is set): PASS, FAIL and the verdicts in colour\n"
    "\n"
    "comparison: as vkrr validate compares a port: an output a .port descriptor\n"
    "names (built-in, or --ports DIR over them) in its window, its type and its\n"
    "tolerance, the rest of each allocation byte for byte; the last column names\n"
    "the descriptor a launch was compared by.  The approximate instructions and\n"
    "the bilinear texture filter follow the hardware model below, measured on the\n"
    "GPU, so a correct rerun is exact within it.  Where the model has no exact law\n"
    "(lg2/tanh.approx.f32 off f16 inputs, div.approx, the f64 approximations), the\n"
    "launch's row says so and its outputs are compared within the PTX ISA's bound\n"
    "of that instruction; a tolerance given (--tolerance, --atol, --rtol, --max-ulp)\n"
    "replaces that bound, and the row names the file's lines or the flags that\n"
    "decided.\n"
    "  --exact              every output bit for bit, whatever the descriptors allow\n"
    "\n"
    "  --coverage           (ptx) after the summary, per kernel: how many directions of\n"
    "                       its conditional branches and how many of its instructions\n"
    "                       the capture's launches reached, and each direction and run\n"
    "                       of instructions none reached, at its PTX line (and source\n"
    "                       line with nvcc -lineinfo); in --json and --report too\n"
    "  --tolerance FILE     per-kernel rules (as vkrr validate --help describes), on\n"
    "                       top of the per-type defaults (f16 2 ULP, f32 4 ULP, ...)\n"
    "  --atol X, --rtol X, --max-ulp N   override every rule\n"
    "  --ports DIR          port descriptors (KERNEL.port) in DIR over the built-in\n"
    "                       ones: which windows of which allocations a kernel writes,\n"
    "                       in which type (the errors are measured in it)\n"
    "  --buffer-type T      compare allocations no descriptor names as an output as T\n"
    "                       (f16, f32, e4m3, ...); by default byte for byte\n"
    "  --no-hash-check      do not check dumps against the log's hash=\n"
    "\n%s\n%s"
    "\n"
    "A damaged capture is rerun where it can be: a launch whose own files cannot be\n"
    "read is ERROR naming the file, the others run as usual.\n"
    "\n"
    "memory: a launch larger than the memory limit is streamed, never refused: its\n"
    "data past the limit in unlinked scratch files, and its row says so.\n"
    "VKRR_MEM_LIMIT=SIZE (512M, 8G) sets the limit (default: half of what the system\n"
    "or the process's cgroup has free); VKRR_SCRATCH_DIR the files' folder (else\n"
    "TMPDIR, else /var/tmp).\n"
    "\n"
    "exit: 0 every output matches, 1 an output differs (or a launch ran out of\n"
    "time), else 2 on bad input or usage, a launch the backend cannot run (an\n"
    "instruction it does not implement, a kernel no module has, a bad address:\n"
    "each named in its row; the other launches still run) or one that could not\n"
    "be read, 3 no usable device or library.\n"
    "\n"
    "example:\n"
    "  vkrr rerun cap --json rerun.json\n";

typedef struct rerun_args {
    const char *capdir, *backend;
    vkrr_cli_modules modules; /* --modules, repeatable */
    vkrr_cli_compare c;     /* --out, --json, --tolerance, ... (cli.h) */
    uint32_t shard, shards; /* --shard K/N; shards 0: all */
    bool exact;             /* --exact */
    bool coverage;          /* --coverage */
} rerun_args;

enum { O_BACKEND, O_MODULES, O_EXACT, O_COVERAGE, O_SHARD };
static const vkrr_cli_opt rerun_opts[] = {
    {"backend", 0, true, O_BACKEND, false}, {"modules", 0, true, O_MODULES, false},
    {"exact", 0, false, O_EXACT, false},    {"coverage", 0, false, O_COVERAGE, false},
    {"shard", 0, true, O_SHARD, false},
    {0},
};

static int take_option(const char *cmd, int id, const char *v, void *ctx)
{
    rerun_args *a = ctx;
    switch (id) {
    case O_BACKEND:
        if (strcmp(v, "ptx") && strcmp(v, "cpu") && strcmp(v, "cuda"))
            return vkrr_cli_usage_error(cmd, "--backend takes ptx, cpu or cuda, not '%s'", v);
        a->backend = v;
        return 0;
    case O_MODULES:
        return vkrr_cli_modules_take(cmd, v, &a->modules);
    case O_EXACT: a->exact = true; return 0;
    case O_COVERAGE: a->coverage = true; return 0;
    case O_SHARD:
        return vkrr_cli_shard_take(cmd, v, &a->shard, &a->shards);
    default:
        return vkrr_cli_compare_take(cmd, id, v, &a->c);
    }
}

static void print_help(void *ctx)
{
    (void)ctx;
    printf(rerun_help, vkrr_cli_hw_help, vkrr_cli_ptx_help);
}

static int parse_args(int argc, char **argv, rerun_args *a)
{
    *a = (rerun_args){.backend = "ptx",
                      .c = {.heatmaps = "failing", .buffer_type = "bytes"}};
    vkrr_cli_opts p = vkrr_cli_opts_begin(argv[0], argc, argv, 1, rerun_opts, vkrr_cli_compare_opts);
    vkrr_cli_opts_add(&p, vkrr_cli_report_opts);
    int rc = vkrr_cli_opts_one_arg(&p, "CAPDIR", &a->capdir, take_option, print_help, a);
    if (rc)
        return rc;
    if (a->coverage && strcmp(a->backend, "ptx"))
        return vkrr_cli_usage_error(argv[0], "--coverage is the PTX interpreter's: it needs --backend "
                                             "ptx (the default), not %s", a->backend);
    if (a->exact && a->c.tol_given)
        return vkrr_cli_usage_error(argv[0], "--exact and a tolerance (--tolerance, --atol, --rtol, "
                                             "--max-ulp) contradict each other");
    if (a->exact) /* every criterion off */
        a->c.flags = (vkrr_tol_override){true, true, true, -1, -1, -1};
    return 0;
}

static vkrr_status make_backend(const rerun_args *a, const vkrr_capture *cap, vkrr_backend *be,
                                vkrr_module_set *set, vkrr_error *err)
{
    return vkrr_cli_open_reference(a->backend, cap, &a->modules,
                                   (vkrr_backend_desc){.coverage = a->coverage,
                                                       .ptx_engine = a->c.ptx_engine,
                                                       .no_cache = a->c.no_cache},
                                   be, set, stdout, err);
}

int vkrr_cmd_rerun(int argc, char **argv)
{
    rerun_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    vkrr_error err = {0};
    vkrr_capture *cap = NULL;
    vkrr_tol_rules *rules = NULL;
    vkrr_backend be = {0};
    vkrr_launch_result *res = NULL;
    bool *mine = NULL;
    vkrr_portdesc_set *ports = NULL;
    vkrr_hw_model *hw = NULL;
    char heatmap_dir[4096] = "";
    vkrr_kernel_coverage *cov = NULL;
    uint32_t ncov = 0;
    vkrr_module_set mods = {0};
    struct vkrr_tex_unfiltered *unfiltered = NULL;
    rc = 2;
    if (vkrr_capture_open_ex(&cap, a.capdir, VKRR_CAPTURE_KEEP_DAMAGED, &err) != VKRR_OK)
        goto fail;
    if (vkrr_cli_hw_use(&a.c, cap, &hw, &err) != VKRR_OK)
        goto fail;
    uint32_t readable = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        readable += cap->launches[i].damage < VKRR_DAMAGE_INPUT;
    if (readable == 0) {
        err = cap->first_damage;
        if (err.status == VKRR_OK)
            vkrr_fail(&err, VKRR_ERR_MISSING, a.capdir, 0, -1, "the capture holds no launches");
        goto fail;
    }
    if (vkrr_portdesc_set_create(&ports, a.c.ports, &err) != VKRR_OK)
        goto fail;
    vkrr_portdesc_set_launchwise(ports, "rerun");
    if (vkrr_portdesc_set_check(ports, cap, &err) != VKRR_OK)
        goto fail;
    if (a.c.report && !strcmp(a.c.heatmaps, "failing") && !a.c.out)
        a.c.out = a.c.report; /* the page links the heatmaps beside it */
    if (vkrr_compare_tol_load(&rules, a.c.tolerance, &err) != VKRR_OK)
        goto fail;
    vkrr_compare_tol_set_flags(rules, &a.c.flags);
    if (strcmp(a.c.heatmaps, "none")) {
        if (vkrr_cli_heatmap_dir(a.c.out, a.capdir, heatmap_dir, sizeof heatmap_dir, &err) != VKRR_OK)
            goto fail;
    }
    if (make_backend(&a, cap, &be, &mods, &err) != VKRR_OK)
        goto fail;
    unfiltered = vkrr_cli_tex_unfiltered(cap, &a.modules, &mods); /* as validate's rows */
    vkrr_dtype bt = VKRR_DT_BYTES;
    vkrr_dtype_parse(a.c.buffer_type, &bt);
    vkrr_validate_opts opts = {.port_backend = &be, .original = &be, .rules = rules, .descs = ports, .buffer_dtype = bt,
                               .heatmap_dir = heatmap_dir[0] ? heatmap_dir : NULL,
                               .heatmaps_all = !strcmp(a.c.heatmaps, "all"),
                               .dump_values = a.c.dump_values,
                               .integrity = vkrr_cli_integrity(cap, a.c.no_hash_check),
                               .standin_bounds = !a.c.tol_given, .tex_unfiltered = unfiltered};
    res = calloc(cap->nlaunches ? cap->nlaunches : 1, sizeof *res);
    mine = malloc((cap->nlaunches ? cap->nlaunches : 1) * sizeof *mine);
    if (!res || !mine) {
        vkrr_fail(&err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        goto fail;
    }
    char engine[160];
    printf("rerun %s: %u launches in %u frames, original kernels on %s%s%s%s, compared %s\n",
           a.capdir, cap->nlaunches, cap->nframes, be.name, strcmp(be.name, "ptx") ? "" : " (",
           strcmp(be.name, "ptx") ? ""
               : vkrr_cli_ptx_engine_words(a.c.ptx_engine, a.coverage, engine, sizeof engine),
           strcmp(be.name, "ptx") ? "" : ")",
           a.exact ? "exactly (--exact)"
           : a.c.tol_given ? "within the tolerances given"
                           : "as validate compares (the .port descriptors' windows, types and "
                             "tolerances; each row's last column)");
    uint32_t n = cap->nlaunches;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        mine[i] = true;
    if (a.shards) {
        n = vkrr_shard_plan(cap, NULL, a.shard, a.shards, false, mine);
        if (n)
            printf("shard %u/%u: %u of the %u launches, balanced by cost (bytes and threads)\n",
                   a.shard, a.shards, n, cap->nlaunches);
        else
            printf("shard %u/%u: no launch falls to this shard (%u launches); nothing to do\n",
                   a.shard, a.shards, cap->nlaunches);
    }
    vkrr_report_info info = {.capture = a.capdir, .command = "rerun", .version = VKRR_VERSION,
                             .capture_id = vkrr_capture_identity(cap),
                             .capture_launches = cap->nlaunches, .shard = a.shard,
                             .shards = a.shards, .backend = be.name, .reference = "capture",
                             .mode = "isolated", .total = n,
                             .damage = cap->damage, .ndamage = cap->ndamage,
                             .hw_model = vkrr_hw_model_name(hw), .hw_note = vkrr_hw_model_note(hw)};
    vkrr_report_model_line(stdout, &info);
    if (!a.c.quiet)
        vkrr_report_table_header(stdout, false, false, "compared by");
    unsigned unreadable = 0;
    uint32_t done = 0;
    for (uint32_t at = 0; at < cap->nlaunches; at++) {
        if (!mine[at])
            continue;
        uint32_t i = done++;
        if (vkrr_validate_launch(&opts, cap, &cap->launches[at], &res[i], &err) != VKRR_OK)
            goto fail;
        info.counts[res[i].status]++;
        info.dispatches += res[i].ran;
        unreadable += res[i].damaged;
        if (!a.c.quiet || res[i].status != VKRR_LAUNCH_PASS)
            vkrr_report_table_row(stdout, &res[i], false, false, true);
        fflush(stdout);
    }
    info.unreadable = unreadable;
    vkrr_status verdict = vkrr_cli_rerun_summary(stdout, &info, res, n);
    if (a.coverage) {
        cov = vkrr_cli_coverage(&be, res, n, &ncov);
        vkrr_cli_coverage_print(stdout, cov, ncov);
        info.coverage = cov;
        info.ncoverage = ncov;
    }
    vkrr_cli_print_heatmap_dir(heatmap_dir, res, n);
    if (vkrr_cli_write_reports(&a.c, &info, res, n, n, &err) != VKRR_OK)
        goto fail;
    /* a differing output outranks a launch that could not run */
    rc = vkrr_status_exit_code(verdict);
    goto out;
fail:
    rc = vkrr_cli_fail(&err);
out:
    for (uint32_t i = 0; res && cap && i < cap->nlaunches; i++)
        vkrr_launch_result_free(&res[i]);
    free(res);
    free(mine);
    vkrr_cli_coverage_free(cov, ncov);
    if (be.destroy)
        be.destroy(be.self);
    vkrr_tex_unfiltered_free(unfiltered);
    vkrr_modules_free(&mods);
    vkrr_compare_tol_destroy(rules);
    vkrr_portdesc_set_destroy(ports);
    vkrr_cli_hw_done(hw);
    vkrr_capture_close(cap);
    return rc;
}
