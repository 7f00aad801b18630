#include "backends.h"
#include "cli.h"
#include "hash.h"
#include "heatmap.h"
#include "hw_model.h"
#include "mapfile.h"
#include "validate.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t vkrr_cli_interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    vkrr_cli_interrupted = 1;
}

void vkrr_cli_interrupts(vkrr_cli_signals *saved, bool restart, bool once)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_interrupt;
    sa.sa_flags = (restart ? SA_RESTART : 0) | (once ? SA_RESETHAND : 0);
    sigemptyset(&sa.sa_mask);
    vkrr_cli_interrupted = 0;
    sigaction(SIGINT, &sa, &saved->old_int);
    sigaction(SIGTERM, &sa, &saved->old_term);
}

void vkrr_cli_interrupts_done(const vkrr_cli_signals *saved)
{
    sigaction(SIGINT, &saved->old_int, NULL);
    sigaction(SIGTERM, &saved->old_term, NULL);
}

int vkrr_cli_fail(const vkrr_error *err)
{
    vkrr_error_print(err, stderr);
    return vkrr_status_exit_code(err->status);
}

int vkrr_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *sp = cmd[0] ? " " : ""; /* "": before the command (main.c) */
    fprintf(stderr, "vkrr%s%s: ", sp, cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nRun 'vkrr%s%s --help' for usage.\n", sp, cmd);
    va_end(ap);
    return vkrr_status_exit_code(VKRR_ERR_USAGE);
}

bool vkrr_cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

bool vkrr_cli_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool vkrr_cli_parse_size(const char *s, uint32_t max, uint32_t *w, uint32_t *h)
{
    const char *x = s ? strchr(s, 'x') : NULL;
    if (!x)
        return false;
    char a[32];
    size_t n = (size_t)(x - s);
    if (n == 0 || n >= sizeof a)
        return false;
    memcpy(a, s, n);
    a[n] = 0;
    uint64_t vw, vh;
    if (!vkrr_cli_parse_u64(a, max, &vw) || !vkrr_cli_parse_u64(x + 1, max, &vh) || !vw || !vh)
        return false;
    *w = (uint32_t)vw;
    *h = (uint32_t)vh;
    return true;
}

bool vkrr_cli_is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

bool vkrr_cli_select_parse(const char *s, vkrr_cli_select *out)
{
    memset(out, 0, sizeof *out);
    uint64_t seq;
    if (s && s[0] >= '0' && s[0] <= '9' && vkrr_cli_parse_u64(s, UINT64_MAX, &seq)) {
        out->sequence = seq;
        return true;
    }
    const char *hash = s ? strchr(s, '#') : NULL;
    size_t n = hash ? (size_t)(hash - s) : (s ? strlen(s) : 0);
    if (n == 0 || n >= sizeof out->kernel)
        return false;
    memcpy(out->kernel, s, n);
    uint64_t occ = 0;
    if (hash && !vkrr_cli_parse_u64(hash + 1, UINT32_MAX, &occ))
        return false;
    out->occurrence = hash ? (int64_t)occ : -1;
    return true;
}

bool vkrr_cli_select_matches(const vkrr_cli_select *sel, const vkrr_launch *l)
{
    if (!sel->kernel[0])
        return l->sequence == sel->sequence;
    return !strcmp(sel->kernel, l->kernel) &&
           (sel->occurrence < 0 || (uint64_t)sel->occurrence == l->occurrence);
}

vkrr_capture_integrity vkrr_cli_integrity(const vkrr_capture *cap, bool asked_off)
{
    if (asked_off)
        return (vkrr_capture_integrity){0};
    vkrr_capture_integrity ig = vkrr_capture_check_integrity(cap);
    if (ig.hashes == VKRR_HASHES_FOREIGN)
        vkrr_warn("%s/run/run.log: its hash= values are not FNV-1a 64 of the dumps from the "
                  "standard or the bridge's basis (none of the %u smallest agrees): the bridge "
                  "hashes another way, so dumps are not checked against them (--no-hash-check "
                  "silences this)", cap->path, ig.probed);
    if (ig.stats_foreign)
        vkrr_warn("%s/run/run.log: its nonzero_bytes/f16/f32 statistics do not describe the "
                  "smallest dumps as the bridge computes them: they are not checked "
                  "(--no-hash-check silences this)", cap->path);
    return ig;
}

const vkrr_cli_opt vkrr_cli_compare_opts[] = {
    {"out", 0, true, VKRR_CLI_CMP_OUT, false},
    {"json", 0, true, VKRR_CLI_CMP_JSON, false},
    {"heatmaps", 0, true, VKRR_CLI_CMP_HEATMAPS, false},
    {"tolerance", 0, true, VKRR_CLI_CMP_TOLERANCE, false},
    {"atol", 0, true, VKRR_CLI_CMP_ATOL, false},
    {"rtol", 0, true, VKRR_CLI_CMP_RTOL, false},
    {"max-ulp", 0, true, VKRR_CLI_CMP_MAX_ULP, false},
    {"buffer-type", 0, true, VKRR_CLI_CMP_BUFFER_TYPE, false},
    {"ports", 0, true, VKRR_CLI_CMP_PORTS, false},
    {"approx", 0, true, VKRR_CLI_CMP_APPROX, false},
    {"hw-tables", 0, true, VKRR_CLI_CMP_HW_TABLES, false},
    {"ptx-engine", 0, true, VKRR_CLI_CMP_PTX_ENGINE, false},
    {"no-hash-check", 0, false, VKRR_CLI_CMP_NO_HASH_CHECK, false},
    {"quiet", 'q', false, VKRR_CLI_CMP_QUIET, false},
    {"no-cache", 0, false, VKRR_CLI_CMP_NO_CACHE, false},
    {"dump-values", 0, false, VKRR_CLI_CMP_DUMP_VALUES, false},
    {0},
};

const vkrr_cli_opt vkrr_cli_report_opts[] = {
    {"report", 0, true, VKRR_CLI_CMP_REPORT, false},
    {"junit", 0, true, VKRR_CLI_CMP_JUNIT, false},
    {0},
};

static int take_choice(const char *cmd, const char *opt, const char *v, const char *const *choices,
                       const char *said, const char **out)
{
    for (size_t k = 0; choices[k]; k++)
        if (!strcmp(v, choices[k])) {
            *out = v;
            return 0;
        }
    return vkrr_cli_usage_error(cmd, "%s takes %s, not '%s'", opt, said, v);
}

int vkrr_cli_compare_take(const char *cmd, int id, const char *v, vkrr_cli_compare *c)
{
    static const char *const engines[] = {"jit", "interp", "both", NULL};
    static const char *const heatmaps[] = {"failing", "all", "none", NULL};
    double x;
    uint64_t u;
    vkrr_dtype t;
    switch (id) {
    case VKRR_CLI_CMP_OUT: c->out = v; return 0;
    case VKRR_CLI_CMP_JSON: c->json = v; return 0;
    case VKRR_CLI_CMP_PORTS: c->ports = v; return 0;
    case VKRR_CLI_CMP_APPROX: c->approx = v; return 0; /* checked by vkrr_hw_model_open, which names the choices */
    case VKRR_CLI_CMP_HW_TABLES: c->hw_tables = v; return 0;
    case VKRR_CLI_CMP_REPORT: c->report = v; return 0;
    case VKRR_CLI_CMP_JUNIT: c->junit = v; return 0;
    case VKRR_CLI_CMP_NO_HASH_CHECK: c->no_hash_check = true; return 0;
    case VKRR_CLI_CMP_QUIET: c->quiet = true; return 0;
    case VKRR_CLI_CMP_NO_CACHE: c->no_cache = true; return 0;
    case VKRR_CLI_CMP_DUMP_VALUES: c->dump_values = true; return 0;
    case VKRR_CLI_CMP_PTX_ENGINE:
        return take_choice(cmd, "--ptx-engine", v, engines, "jit, interp or both", &c->ptx_engine);
    case VKRR_CLI_CMP_HEATMAPS:
        return take_choice(cmd, "--heatmaps", v, heatmaps, "failing, all or none", &c->heatmaps);
    case VKRR_CLI_CMP_BUFFER_TYPE:
        if (!vkrr_dtype_parse(v, &t))
            return vkrr_cli_usage_error(cmd, "--buffer-type: unknown type '%s'", v);
        c->buffer_type = v;
        return 0;
    case VKRR_CLI_CMP_TOLERANCE:
        c->tolerance = v;
        c->tol_given = true;
        return 0;
    case VKRR_CLI_CMP_ATOL:
    case VKRR_CLI_CMP_RTOL:
        if (!vkrr_cli_parse_double(v, &x) || x < 0)
            return vkrr_cli_usage_error(cmd, "%s takes a number >= 0, not '%s'",
                                        id == VKRR_CLI_CMP_ATOL ? "--atol" : "--rtol", v);
        if (id == VKRR_CLI_CMP_ATOL)
            c->flags.has_atol = true, c->flags.atol = x;
        else
            c->flags.has_rtol = true, c->flags.rtol = x;
        c->tol_given = true;
        return 0;
    case VKRR_CLI_CMP_MAX_ULP:
        if (!strcmp(v, "off"))
            c->flags.max_ulp = -1;
        else if (vkrr_cli_parse_u64(v, INT64_MAX, &u))
            c->flags.max_ulp = (int64_t)u;
        else
            return vkrr_cli_usage_error(cmd, "--max-ulp takes an integer >= 0 or off, not '%s'", v);
        c->flags.has_max_ulp = true;
        c->tol_given = true;
        return 0;
    default:
        return vkrr_cli_usage_error(cmd, "option %d is not a comparison option", id);
    }
}

const char vkrr_cli_ptx_help[] =
    "the original kernels from PTX (--backend ptx, --ref ptx):\n"
    "  --ptx-engine E       jit (default where this build has LLVM 15): each straight\n"
    "                       run of instructions compiled to native code, byte for byte\n"
    "                       what the interpreter gives (a kernel it cannot compile is\n"
    "                       interpreted and its row says so); interp: the interpreter\n"
    "                       alone, the JIT's reference; both: each launch in both, any\n"
    "                       difference an ERROR (slow; for checking the JIT).  Also\n"
    "                       VKRR_PTX_ENGINE.\n"
    "  --no-cache           the JIT compiles every kernel again rather than loading it\n"
    "                       from ${XDG_CACHE_HOME:-~/.cache}/vkrr/ptx-jit, and keeps\n"
    "                       nothing there\n";

const char vkrr_cli_hw_help[] =
    "hardware model (what the approximate instructions ex2.approx, rsqrt.approx,\n"
    "sin.approx, ... and the bilinear texture filter give, in every reference, and\n"
    "how the PTX reference's tensor cores sum an f16/bf16/tf32/fp8 mma: the\n"
    "architecture's own, even where its tables fall back to sm_90's):\n"
    "  --approx WHICH       auto (default): the tables measured on the architecture\n"
    "                       that made the capture (run.log's device line), else\n"
    "                       sm_90's, and the header says so; sm_NN: that\n"
    "                       architecture's tables; rounded: correctly rounded values\n"
    "                       (not the GPU's; for comparison)\n"
    "  --hw-tables DIR      measured tables (`vkrr hw measure` output) in DIR or\n"
    "                       DIR/sm_NN, searched before $XDG_DATA_HOME/vkrr/hw/sm_NN\n"
    "                       and the built-in sm_90\n";

vkrr_status vkrr_cli_hw_use(const vkrr_cli_compare *c, const vkrr_capture *cap,
                            struct vkrr_hw_model **out, vkrr_error *err)
{
    char arch[32];
    vkrr_hw_choice ch = {.approx = c->approx, .tables_dir = c->hw_tables,
                         .capture_arch = cap ? vkrr_capture_arch(cap, arch, sizeof arch) : NULL};
    vkrr_status st = vkrr_hw_model_open(&ch, out, err);
    if (st == VKRR_OK)
        vkrr_hw_use(*out);
    return st;
}

void vkrr_cli_hw_done(struct vkrr_hw_model *m)
{
    if (!m)
        return;
    vkrr_hw_use(NULL);
    vkrr_hw_model_close(m);
}

vkrr_status vkrr_cli_heatmap_dir(const char *out, const char *capdir, char *dir, size_t cap,
                                 vkrr_error *err)
{
    if (out) {
        if ((size_t)snprintf(dir, cap, "%s/heatmaps", out) >= cap)
            return vkrr_fail(err, VKRR_ERR_USAGE, out, 0, -1, "--out: the path is too long");
        /* made by the first heatmap; now only: could it be?  The nearest
         * existing folder on the way must be one we may write in */
        char probe[PATH_MAX];
        snprintf(probe, sizeof probe, "%s", dir);
        struct stat sb;
        while (stat(probe, &sb) != 0) {
            char *slash = strrchr(probe, '/');
            if (!slash) {
                snprintf(probe, sizeof probe, ".");
                continue;
            }
            *slash = 0;
            if (!probe[0])
                snprintf(probe, sizeof probe, "/");
        }
        if (!S_ISDIR(sb.st_mode) || access(probe, W_OK | X_OK) != 0)
            return vkrr_fail(err, VKRR_ERR_IO, out, 0, -1, "--out: heatmaps cannot be written under %s (%s)",
                             probe, S_ISDIR(sb.st_mode) ? "not writable" : "not a folder");
        return VKRR_OK;
    }
    /* the default: one folder per capture under the user's cache */
    char abs[PATH_MAX];
    if (!realpath(capdir, abs))
        snprintf(abs, sizeof abs, "%s", capdir);
    const char *name = strrchr(abs, '/') && strrchr(abs, '/')[1] ? strrchr(abs, '/') + 1 : abs;
    char base[PATH_MAX];
    if (!vkrr_cache_path(base, sizeof base, "out"))
        snprintf(base, sizeof base, "%s/vkrr-%u/out", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                 (unsigned)getuid());
    if ((size_t)snprintf(dir, cap, "%s/%s-%08x/heatmaps", base, name,
                         (unsigned)(vkrr_fnv1a64(abs, strlen(abs)) & 0xffffffffu)) >= cap)
        return vkrr_fail(err, VKRR_ERR_USAGE, capdir, 0, -1, "the path is too long");
    return VKRR_OK;
}

void vkrr_cli_print_heatmap_dir(const char *dir, const vkrr_launch_result *res, uint32_t n)
{
    unsigned wrote = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < res[i].nres; k++)
            wrote += (res[i].res[k].isolated.heatmap[0] != 0) + (res[i].res[k].chained.heatmap[0] != 0);
    if (dir[0] && wrote)
        printf("heatmaps: %u in %s\n", wrote, dir);
}

/* what nftw walks into: one run's --report folder */
static uint64_t walk_bytes;
static unsigned walk_files;
static int walk_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)path, (void)ftw;
    if (type == FTW_F && S_ISREG(sb->st_mode))
        walk_bytes += (uint64_t)sb->st_size, walk_files++;
    return 0;
}

static void count_file(const char *path, unsigned *files, uint64_t *bytes)
{
    struct stat sb;
    if (path && path[0] && stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        *bytes += (uint64_t)sb.st_size, ++*files;
}

void vkrr_cli_print_written(const vkrr_cli_compare *c, const vkrr_launch_result *res, uint32_t n)
{
    unsigned files = 0;
    uint64_t bytes = 0;
    size_t rl = c->report ? strlen(c->report) : 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < res[i].nres; k++) {
            const char *h[2] = {res[i].res[k].isolated.heatmap, res[i].res[k].chained.heatmap};
            for (int j = 0; j < 2; j++) {
                if (rl && !strncmp(h[j], c->report, rl) && h[j][rl] == '/')
                    continue; /* in --report's folder: counted with it */
                char tsv[sizeof res[i].res[k].isolated.heatmap];
                snprintf(tsv, sizeof tsv, "%s", h[j]);
                vkrr_heatmap_table_path(tsv); /* a wrapped picture's table beside it */
                count_file(h[j], &files, &bytes);
                if (strcmp(tsv, h[j]))
                    count_file(tsv, &files, &bytes);
            }
        }
    count_file(c->json, &files, &bytes);
    count_file(c->junit, &files, &bytes);
    if (c->report) {
        walk_bytes = 0;
        walk_files = 0;
        nftw(c->report, walk_one, 16, FTW_PHYS);
        files += walk_files;
        bytes += walk_bytes;
    }
    if (files)
        printf("wrote %u file%s, %.1f %s\n", files, files == 1 ? "" : "s",
               bytes >= 1u << 20 ? bytes / 1048576.0 : bytes / 1024.0,
               bytes >= 1u << 20 ? "MiB" : "KiB");
}

const char *vkrr_cli_ptx_engine_words(const char *ptx_engine, bool coverage, char *buf, size_t cap)
{
    const char *e = ptx_engine ? ptx_engine : getenv("VKRR_PTX_ENGINE");
    const char *llvm = vkrr_backend_ptx_jit_llvm();
    if (!e || (strcmp(e, "interp") && strcmp(e, "both")))
        e = "jit"; /* the default; a bad VKRR_PTX_ENGINE is refused by the first launch */
    if (coverage)
        snprintf(buf, cap, "the PTX interpreter: coverage counts its steps");
    else if (!llvm)
        snprintf(buf, cap, "the PTX interpreter: no JIT in this build");
    else if (!strcmp(e, "interp"))
        snprintf(buf, cap, "the PTX interpreter");
    else
        snprintf(buf, cap, "the PTX JIT, LLVM %s%s", llvm,
                 !strcmp(e, "both") ? " checked against the interpreter" : "");
    return buf;
}
