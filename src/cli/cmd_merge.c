/* vkrr merge: the result files of the shards of one run (`validate --shard
 * K/N --json`, in a CI matrix) made into that run's table, summary, bisect
 * verdict, HTML report, JUnit and exit code, as one run would have given. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "heatmap.h"
#include "cli_summary.h"
#include "mapfile.h"
#include "results_read.h"
#include "validate_report.h"
#include "validate_run.h"

static const char merge_help[] =
    "usage: vkrr merge RESULT.json ... [options]\n"
    "\n"
    "Makes the result files of the shards of one run into that run: one table, the\n"
    "summary, the bisect verdict, and --report/--junit/--json, the same as the run\n"
    "without --shard gives on the same capture, and its exit code.  Each shard is a\n"
    "job of a CI matrix running\n"
    "  vkrr validate CAPDIR --shard K/N --json shard-K.json [--out DIR]\n"
    "(or vkrr rerun); the merge job downloads their files and runs\n"
    "  vkrr merge shard-*.json --report report --junit junit.xml\n"
    "(README \"Validating in CI, in shards\").\n"
    "\n"
    "The files must be of one capture (its identity, not its path), one vkrr\n"
    "version, one command and the same options (mode, reference, --only,\n"
    "--perturb, --strict), each shard once: files that disagree or overlap are exit 2\n"
    "naming them, and a missing shard is exit 2 naming it (never a smaller pass).\n"
    "One file without --shard is accepted as it is.\n"
    "\n"
    "options:\n"
    "  --report DIR         the HTML page DIR/index.html; each shard's heatmaps are\n"
    "                       copied to DIR/heatmaps (found at the path its file gives,\n"
    "                       or beside the file, or in a heatmaps folder beside it)\n"
    "  --junit FILE         JUnit XML, one test case per launch\n"
    "  --json FILE          the merged result file (no shard in it)\n"
    "  -q, --quiet          only the summary and the failing rows\n"
    "  --color WHEN         always, never or auto (default: on a terminal, unless\n"
    "                       NO_COLOR is set): PASS, FAIL and the verdicts in colour\n"
    "\n"
    "exit: as the run's: 0 every launch passes, 1 a launch failed, 2 a launch could\n"
    "not be validated, or bad input (unreadable, disagreeing, overlapping or missing\n"
    "result files), 130 interrupted (a shard was).\n";

typedef struct merge_args {
    const char **files;
    uint32_t nfiles;
    const char *report, *junit, *json;
    bool quiet;
} merge_args;

static int parse_args(int argc, char **argv, merge_args *a)
{
    *a = (merge_args){0};
    a->files = calloc((size_t)argc, sizeof *a->files);
    if (!a->files)
        return vkrr_cli_usage_error(argv[0], "out of memory");
    enum { O_QUIET, O_REPORT, O_JUNIT, O_JSON };
    static const vkrr_cli_opt opts[] = {
        {"quiet", 'q', false, O_QUIET, false}, {"report", 0, true, O_REPORT, false},
        {"junit", 0, true, O_JUNIT, false},    {"json", 0, true, O_JSON, false},
        {0}};
    vkrr_cli_opts p = vkrr_cli_opts_begin(argv[0], argc, argv, 1, opts, NULL);
    const char *v;
    for (int id; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;) {
        switch (id) {
        case VKRR_OPT_ERROR:
            return p.rc;
        case VKRR_OPT_HELP:
            fputs(merge_help, stdout);
            return -1;
        case VKRR_OPT_ARG: a->files[a->nfiles++] = v; break;
        case O_QUIET: a->quiet = true; break;
        case O_REPORT: a->report = v; break;
        case O_JUNIT: a->junit = v; break;
        default: a->json = v; /* O_JSON */
        }
    }
    if (!a->nfiles)
        return vkrr_cli_usage_error(argv[0], "needs the result files (RESULT.json ...)");
    return 0;
}

static bool same_str(const char *x, const char *y)
{
    return (!x && !y) || (x && y && !strcmp(x, y));
}

/* The files are one run's shards: VKRR_ERR_INCONSISTENT naming the two
 * files that disagree and how, VKRR_ERR_INCOMPLETE naming missing shards. */
static vkrr_status check(const vkrr_results *f, uint32_t n, vkrr_error *err)
{
    const vkrr_report_info *a = &f[0].info;
    for (uint32_t i = 1; i < n; i++) {
        const vkrr_report_info *b = &f[i].info;
        const char *what = a->capture_id != b->capture_id ? "captures (their identities differ)"
                         : !same_str(a->version, b->version) ? "vkrr versions"
                         : !same_str(a->command, b->command) ? "commands"
                         : !same_str(a->mode, b->mode) ? "modes"
                         : !same_str(a->reference, b->reference) ? "references (--ref)"
                         : !same_str(a->only, b->only) ? "selections (--only)"
                         : !same_str(a->perturb, b->perturb) ? "perturbations (--perturb)"
                         : a->strict != b->strict ? "settings of --strict"
                         : !same_str(a->backend, b->backend) ? "port backends"
                         : a->shards != b->shards ? "shard counts (--shard K/N)" : NULL;
        if (what)
            return vkrr_fail(err, VKRR_ERR_INCONSISTENT, f[i].path, 0, -1,
                             "%s and %s are results of different %s: not one run's shards",
                             f[0].path, f[i].path, what);
    }
    if (!a->shards) {
        if (n > 1)
            return vkrr_fail(err, VKRR_ERR_INCONSISTENT, f[0].path, 0, -1,
                             "%s is a whole run (no --shard): it merges with nothing", f[0].path);
        return VKRR_OK;
    }
    uint32_t shards = a->shards;
    int32_t *seen = malloc(shards * sizeof *seen);
    if (!seen)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
    for (uint32_t k = 0; k < shards; k++)
        seen[k] = -1;
    vkrr_status s = VKRR_OK;
    for (uint32_t i = 0; i < n && s == VKRR_OK; i++) {
        uint32_t k = f[i].info.shard;
        if (k < 1 || k > shards)
            s = vkrr_fail(err, VKRR_ERR_PARSE, f[i].path, 0, -1, "shard %u of %u is not a shard",
                          k, shards);
        else if (seen[k - 1] >= 0)
            s = vkrr_fail(err, VKRR_ERR_INCONSISTENT, f[i].path, 0, -1,
                          "%s and %s are both shard %u/%u: overlapping shards",
                          f[seen[k - 1]].path, f[i].path, k, shards);
        else
            seen[k - 1] = (int32_t)i;
    }
    if (s == VKRR_OK) {
        char missing[512] = "";
        uint32_t nmiss = 0;
        for (uint32_t k = 0; k < shards; k++)
            if (seen[k] < 0) {
                size_t l = strlen(missing);
                if (l < sizeof missing - 16)
                    snprintf(missing + l, sizeof missing - l, "%s%u/%u", nmiss ? ", " : "", k + 1,
                             shards);
                nmiss++;
            }
        if (nmiss)
            s = vkrr_fail(err, VKRR_ERR_INCOMPLETE, NULL, 0, -1,
                          "%s %s missing: %u of %u result files given, the merge would cover "
                          "only part of the run", nmiss == 1 ? "shard" : "shards", missing, n,
                          shards);
    }
    free(seen);
    return s;
}

typedef struct entry {
    vkrr_launch_result *r;
    uint32_t file;
} entry;

static int by_sequence(const void *x, const void *y)
{
    uint64_t a = ((const entry *)x)->r->launch->sequence, b = ((const entry *)y)->r->launch->sequence;
    return a < b ? -1 : a > b;
}

/* Where a shard's heatmap is on this machine: the path its file gives, else
 * beside the file, else in a heatmaps folder beside it; NULL: not found. */
static const char *find_heatmap(const char *h, const char *json, char *buf, size_t cap)
{
    if (access(h, R_OK) == 0)
        return h;
    char dir[4096], base[1024];
    snprintf(dir, sizeof dir, "%s", json);
    snprintf(base, sizeof base, "%s", h);
    const char *d = dirname(dir), *b = basename(base);
    const char *tries[3][2] = {{d, h}, {d, b}, {d, NULL}};
    for (int t = 0; t < 3; t++) {
        if (t == 1 && h[0] == '/')
            continue;
        if (tries[t][1])
            snprintf(buf, cap, "%s/%s", tries[t][0], tries[t][1]);
        else
            snprintf(buf, cap, "%s/heatmaps/%s", d, b);
        if (access(buf, R_OK) == 0)
            return buf;
    }
    return NULL;
}

/* s into dst[cap], cut when longer. */
static void put(char *dst, size_t cap, const char *s)
{
    size_t n = strnlen(s, cap - 1);
    memmove(dst, s, n);
    dst[n] = 0;
}

static vkrr_status copy_file(const char *from, const char *to, vkrr_error *err)
{
    vkrr_mapfile m = {0};
    vkrr_status s = vkrr_mapfile_open(&m, from, VKRR_MAPFILE_ANY_SIZE, err);
    if (s == VKRR_OK)
        s = vkrr_write_file_atomic(to, m.data, m.size, err);
    vkrr_mapfile_close(&m);
    return s;
}

/* Every heatmap of every comparison found on this machine and, with
 * --report, copied into DIR/heatmaps (the page links them there); its path
 * in the results becomes where it now is.  Counts those not found. */
static vkrr_status gather_heatmaps(const merge_args *a, entry *e, uint32_t n,
                                   const vkrr_results *files, unsigned *lost, vkrr_error *err)
{
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < e[i].r->nres; k++) {
            vkrr_resource_result *x = &e[i].r->res[k];
            vkrr_comparison *cs[] = {&x->isolated, &x->chained};
            for (int c = 0; c < 2; c++) {
                char *h = cs[c]->heatmap, buf[4096], to[4096];
                if (!h[0])
                    continue;
                const char *at = find_heatmap(h, files[e[i].file].path, buf, sizeof buf);
                if (!at) {
                    (*lost)++;
                    continue;
                }
                if (a->report) {
                    char tmp[4096];
                    put(tmp, sizeof tmp, at);
                    snprintf(to, sizeof to, "%s/heatmaps/%s", a->report, basename(tmp));
                    vkrr_status s = copy_file(at, to, err);
                    if (s != VKRR_OK)
                        return s;
                    /* a wrapped picture's table of worst values goes with it */
                    char tsv_at[4096], tsv_to[4096];
                    put(tsv_at, sizeof tsv_at, at);
                    put(tsv_to, sizeof tsv_to, to);
                    vkrr_heatmap_table_path(tsv_at);
                    vkrr_heatmap_table_path(tsv_to);
                    if (strcmp(tsv_at, at) && access(tsv_at, R_OK) == 0 &&
                        (s = copy_file(tsv_at, tsv_to, err)) != VKRR_OK)
                        return s;
                    at = to;
                }
                put(h, sizeof cs[c]->heatmap, at);
            }
        }
    return VKRR_OK;
}

int vkrr_cmd_merge(int argc, char **argv)
{
    merge_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        free(a.files);
        return rc < 0 ? 0 : rc;
    }
    vkrr_error err = {0};
    vkrr_results *files = calloc(a.nfiles, sizeof *files);
    entry *e = NULL;
    vkrr_launch *launches = NULL;
    vkrr_launch_result *res = NULL;
    rc = 2;
    if (!files) {
        vkrr_fail(&err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        goto fail;
    }
    uint32_t total = 0;
    for (uint32_t i = 0; i < a.nfiles; i++) {
        if (vkrr_results_read(a.files[i], &files[i], &err) != VKRR_OK)
            goto fail;
        total += files[i].n;
    }
    if (check(files, a.nfiles, &err) != VKRR_OK)
        goto fail;
    e = malloc((total ? total : 1) * sizeof *e);
    launches = malloc((total ? total : 1) * sizeof *launches);
    res = malloc((total ? total : 1) * sizeof *res);
    if (!e || !launches || !res) {
        vkrr_fail(&err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        goto fail;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < a.nfiles; i++)
        for (uint32_t k = 0; k < files[i].n; k++)
            e[n++] = (entry){&files[i].res[k], i};
    qsort(e, n, sizeof *e, by_sequence);
    for (uint32_t i = 1; i < n; i++)
        if (e[i].r->launch->sequence == e[i - 1].r->launch->sequence) {
            vkrr_fail(&err, VKRR_ERR_INCONSISTENT, files[e[i].file].path, 0, -1,
                      "%s and %s both hold launch #%llu: overlapping shards",
                      files[e[i - 1].file].path, files[e[i].file].path,
                      (unsigned long long)e[i].r->launch->sequence);
            goto fail;
        }
    unsigned lost = 0;
    if (gather_heatmaps(&a, e, n, files, &lost, &err) != VKRR_OK)
        goto fail;
    /* one run's results, in capture order, each pointing at its launch */
    for (uint32_t i = 0; i < n; i++) {
        launches[i] = *e[i].r->launch;
        res[i] = *e[i].r;
        res[i].launch = &launches[i];
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; res[i].skipped_for && k < n; k++)
            if (launches[k].sequence == res[i].skipped_for->sequence)
                res[i].skipped_for = &launches[k];

    vkrr_report_info info = files[0].info;
    info.shard = info.shards = 0;
    info.total = info.dispatches = 0;
    info.interrupted = false;
    for (uint32_t i = 0; i < a.nfiles; i++) {
        info.total += files[i].info.total;
        info.dispatches += files[i].info.dispatches;
        info.interrupted = info.interrupted || files[i].info.interrupted;
        if (!same_str(files[i].info.device, info.device))
            fprintf(stderr, "vkrr merge: warning: %s ran on %s, %s on %s\n", files[0].path,
                    info.device, files[i].path, files[i].info.device);
    }
    bool rerun = !strcmp(info.command, "rerun");
    bool iso = !strcmp(info.mode, "isolated") || !strcmp(info.mode, "both");
    bool chn = !strcmp(info.mode, "chained") || !strcmp(info.mode, "both");
    bool orig = strcmp(info.reference, "capture") != 0;
    vkrr_run_desc d = {.isolated = iso, .chained = chn, .strict = info.strict};
    vkrr_run run = {.res = res, .done = n, .selected = info.total, .interrupted = info.interrupted};
    run.bisect.first_fail = run.bisect.first_inexact = run.bisect.later_culprit = -1;
    for (uint32_t i = 0; i < n; i++)
        vkrr_run_tally(&d, &run, &res[i]);
    if (chn)
        vkrr_bisect_analyze(res, n, &run.bisect);
    memcpy(info.counts, run.counts, sizeof info.counts);
    memcpy(info.chained_counts, run.chained_counts, sizeof info.chained_counts);
    info.unreadable = run.unreadable;

    printf("merge: %u result file%s of %s (capture %016llx), %s %s, %u launches\n", a.nfiles,
           a.nfiles == 1 ? "" : "s", info.capture, (unsigned long long)info.capture_id,
           info.command, info.mode, n);
    for (uint32_t i = 0; i < info.ndamage; i++)
        printf("damaged: %s\n", info.damage[i].msg);
    vkrr_report_model_line(stdout, &info);
    bool port = true; /* validate's port, rerun's descriptor */
    if (!a.quiet)
        vkrr_report_table_header(stdout, orig && !rerun, chn, rerun ? "compared by" : "port");
    for (uint32_t i = 0; i < n; i++) {
        bool cbad = chn && vkrr_chain_result_bad(&res[i]);
        if (!a.quiet || res[i].status != VKRR_LAUNCH_PASS || cbad ||
            (chn && res[i].chained_status != VKRR_LAUNCH_PASS))
            vkrr_report_table_row(stdout, &res[i], orig && !rerun, chn, port);
    }
    vkrr_status verdict;
    if (rerun) {
        verdict = vkrr_cli_rerun_summary(stdout, &info, res, n);
    } else {
        vkrr_cli_summary sum = {.run = &run, .nsel = info.total, .iso = iso, .chn = chn,
                                .capture_damage = info.ndamage};
        vkrr_cli_summary_lines(stdout, &sum);
        vkrr_cli_summary_details(stdout, &sum);
        verdict = vkrr_run_verdict(&d, &run, info.ndamage, 0);
    }
    if (lost)
        printf("heatmaps: %u named by the shards' files were not found beside them (copy each "
               "shard's --out folder next to its file)\n", lost);
    /* the shards' heatmaps are not merge's: only what it wrote (copies in --report) */
    vkrr_cli_compare outputs = {.json = a.json, .report = a.report, .junit = a.junit};
    if (vkrr_cli_write_reports(&outputs, &info, res, n, 0, &err) != VKRR_OK)
        goto fail;
    rc = vkrr_status_exit_code(verdict);
    goto out;
fail:
    rc = vkrr_cli_fail(&err);
out:
    for (uint32_t i = 0; files && i < a.nfiles; i++)
        vkrr_results_free(&files[i]);
    free(files);
    free(e);
    free(launches);
    free(res);
    free(a.files);
    return rc;
}
