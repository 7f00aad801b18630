/* vkrr diff CAPA CAPB: two captures of the same frames compared launch by
 * launch.  Launches are matched by (kernel, occurrence), never by sequence
 * number (two runs number launches differently); every post-launch resource
 * of A is compared with B's, with the metrics, tolerance and heatmaps of
 * validate (B is the candidate, A the reference). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "cli.h"
#include "color.h"
#include "compare.h"
#include "portdesc.h"
#include "validate.h"
#include "validate_report.h"

static const char diff_help[] =
    "usage: vkrr diff CAPA CAPB [--out DIR] [--heatmaps failing|all|none] [--json FILE]\n"
    "                 [--tolerance FILE] [--atol X] [--rtol X] [--max-ulp N]\n"
    "                 [--ports DIR] [-q] [--color always|never|auto]\n"
    "\n"
    "Compares two captures of the same frames: launches are matched by (kernel,\n"
    "occurrence); every allocation dump and surface after each launch of CAPA is\n"
    "compared with CAPB's (same metrics and tolerance as validate; heatmaps of the\n"
    "differing ones in DIR/heatmaps, by default " VKRR_OUT_DEFAULT "/CAPANAME-HASH/\n"
    "heatmaps, made when the first is written).  Launches present in only one capture are\n"
    "listed.  The summary names the first launch that differs.  Outputs are compared\n"
    "in the windows and types their port descriptors give (built-in KERNEL.port, or\n"
    "DIR/KERNEL.port with --ports DIR).\n"
    "\n"
    "exit: 0 identical or within tolerance, 1 differences, 2 bad input or usage.\n";

/* B's launch as a candidate laid out like A's: its dumps mapped as posts. */
static vkrr_status candidate(const vkrr_capture *cb, const vkrr_launch *la, const vkrr_launch *lb,
                             vkrr_replay *r, vkrr_replay_alloc *al, vkrr_replay_image *im,
                             vkrr_mapfile *maps, char *why, size_t why_cap, vkrr_error *err)
{
    if (la->nallocs != lb->nallocs || la->nimages != lb->nimages) {
        snprintf(why, why_cap, "different resources: %u/%u allocations, %u/%u images",
                 la->nallocs, lb->nallocs, la->nimages, lb->nimages);
        return VKRR_OK;
    }
    memset(r, 0, sizeof *r);
    r->nallocs = la->nallocs;
    r->nimages = la->nimages;
    r->allocs = al;
    r->images = im;
    for (uint32_t a = 0; a < la->nallocs; a++) {
        al[a] = (vkrr_replay_alloc){.base = lb->allocs[a].base, .size = lb->allocs[a].size};
        if (!la->allocs[a].post_path)
            continue;
        if (!lb->allocs[a].post_path || lb->allocs[a].size != la->allocs[a].size) {
            snprintf(why, why_cap, "allocation %u: no dump or another size in B", a);
            return VKRR_OK;
        }
        vkrr_status s = vkrr_capture_map_alloc_post(cb, lb, a, &maps[a], err);
        if (s != VKRR_OK)
            return s;
        al[a].post = (void *)maps[a].data; /* read only: compare never writes */
    }
    for (uint32_t i = 0; i < la->nimages; i++) {
        const vkrr_image *x = &la->images[i], *y = &lb->images[i];
        im[i] = (vkrr_replay_image){.kind = y->kind, .width = y->width, .height = y->height,
                                    .channels = y->channels, .format = y->format};
        if (x->kind != VKRR_IMAGE_SURFACE)
            continue;
        if (y->kind != x->kind || y->width != x->width || y->height != x->height ||
            y->format != x->format || y->channels != x->channels) {
            snprintf(why, why_cap, "image at arg %u: another kind or shape in B", x->offset);
            return VKRR_OK;
        }
        vkrr_status s = vkrr_capture_map_image(cb, lb, i, &maps[la->nallocs + i], err);
        if (s != VKRR_OK)
            return s;
        im[i].post = (void *)maps[la->nallocs + i].data;
    }
    return VKRR_OK;
}

/* the comparison options diff shares with validate (cli.h) */
static const vkrr_cli_opt diff_opts[] = {
    {"out", 0, true, VKRR_CLI_CMP_OUT, false},
    {"heatmaps", 0, true, VKRR_CLI_CMP_HEATMAPS, false},
    {"json", 0, true, VKRR_CLI_CMP_JSON, false},
    {"tolerance", 0, true, VKRR_CLI_CMP_TOLERANCE, false},
    {"atol", 0, true, VKRR_CLI_CMP_ATOL, false},
    {"rtol", 0, true, VKRR_CLI_CMP_RTOL, false},
    {"max-ulp", 0, true, VKRR_CLI_CMP_MAX_ULP, false},
    {"ports", 0, true, VKRR_CLI_CMP_PORTS, false},
    {"quiet", 'q', false, VKRR_CLI_CMP_QUIET, false},
    {0},
};

int vkrr_cmd_diff(int argc, char **argv)
{
    const char *pa = NULL, *pb = NULL;
    vkrr_cli_compare c = {.heatmaps = "failing"};
    vkrr_cli_opts p = vkrr_cli_opts_begin("diff", argc, argv, 1, diff_opts, NULL);
    const char *v;
    for (int id, rc; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;) {
        if (id == VKRR_OPT_ERROR)
            return p.rc;
        if (id == VKRR_OPT_HELP) {
            fputs(diff_help, stdout);
            return 0;
        }
        if (id == VKRR_OPT_ARG && pb)
            return vkrr_cli_usage_error("diff", "unexpected argument '%s'", v);
        if (id == VKRR_OPT_ARG)
            *(pa ? &pb : &pa) = v;
        else if ((rc = vkrr_cli_compare_take("diff", id, v, &c)) != 0)
            return rc;
    }
    const char *out = c.out, *heat = c.heatmaps, *json = c.json, *tolfile = c.tolerance,
               *ports_dir = c.ports;
    vkrr_tol_override flags = c.flags;
    bool quiet = c.quiet;
    if (!pa || !pb)
        return vkrr_cli_usage_error("diff", "needs two capture directories");

    vkrr_error err = {0};
    vkrr_capture *ca = NULL, *cb = NULL;
    vkrr_tol_rules *rules = NULL;
    vkrr_launch_result *res = NULL;
    vkrr_replay_alloc *al = NULL;
    vkrr_replay_image *im = NULL;
    vkrr_mapfile *maps = NULL;
    vkrr_portdesc_set *ports = NULL;
    char hdir[4096] = "";
    int rc = 2;
    if (vkrr_capture_open(&ca, pa, &err) != VKRR_OK || vkrr_capture_open(&cb, pb, &err) != VKRR_OK ||
        vkrr_compare_tol_load(&rules, tolfile, &err) != VKRR_OK ||
        vkrr_portdesc_set_create(&ports, ports_dir, &err) != VKRR_OK)
        goto fail;
    vkrr_portdesc_set_launchwise(ports, "diff");
    if (vkrr_portdesc_set_check(ports, ca, &err) != VKRR_OK)
        goto fail;
    vkrr_compare_tol_set_flags(rules, &flags);
    if (strcmp(heat, "none")) {
        if (vkrr_cli_heatmap_dir(out, pa, hdir, sizeof hdir, &err) != VKRR_OK)
            goto fail;
    }
    vkrr_validate_opts o = {.rules = rules, .descs = ports,
                            .buffer_dtype = VKRR_DT_BYTES, .heatmap_dir = hdir[0] ? hdir : NULL,
                            .heatmaps_all = !strcmp(heat, "all")};
    res = calloc(ca->nlaunches + 1, sizeof *res);
    if (!res) {
        vkrr_fail(&err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        goto fail;
    }
    printf("diff %s (reference) vs %s: %u and %u launches\n", pa, pb, ca->nlaunches, cb->nlaunches);
    if (!quiet)
        vkrr_report_table_header(stdout, false, false, NULL);
    unsigned differ = 0, only = 0, same = 0;
    int first = -1;
    vkrr_report_info info = {.capture = pa, .backend = pb, .reference = "capture", .mode = "diff"};
    for (uint32_t i = 0; i < ca->nlaunches; i++) {
        const vkrr_launch *la = &ca->launches[i];
        const vkrr_launch *lb = vkrr_capture_find(cb, la->kernel, la->occurrence);
        if (!lb) {
            printf("only in %s: #%llu %s (frame %u, occurrence %u)\n", pa,
                   (unsigned long long)la->sequence, la->kernel, la->frame, la->occurrence);
            only++;
            continue;
        }
        uint32_t nm = la->nallocs + la->nimages + 1;
        free(al), free(im), free(maps);
        al = calloc(la->nallocs + 1, sizeof *al);
        im = calloc(la->nimages + 1, sizeof *im);
        maps = calloc(nm, sizeof *maps);
        if (!al || !im || !maps) {
            vkrr_fail(&err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
            goto fail;
        }
        char why[256] = "";
        vkrr_replay cand;
        vkrr_status s = candidate(cb, la, lb, &cand, al, im, maps, why, sizeof why, &err);
        if (s == VKRR_OK && !why[0])
            s = vkrr_validate_compare(&o, ca, la, &cand, &res[i], &err);
        for (uint32_t k = 0; k < nm; k++)
            vkrr_mapfile_close(&maps[k]);
        if (s != VKRR_OK)
            goto fail;
        if (why[0]) {
            res[i] = (vkrr_launch_result){.launch = la, .status = VKRR_LAUNCH_FAIL, .worst = -1,
                                          .chained_worst = -1, .has_isolated = true};
            snprintf(res[i].note, sizeof res[i].note, "%s", why);
        }
        info.counts[res[i].status]++;
        if (res[i].status != VKRR_LAUNCH_PASS) {
            differ++;
            if (first < 0)
                first = (int)i;
        } else {
            same++;
        }
        if (!quiet || res[i].status != VKRR_LAUNCH_PASS)
            vkrr_report_table_row(stdout, &res[i], false, false, false);
    }
    for (uint32_t i = 0; i < cb->nlaunches; i++) {
        const vkrr_launch *lb = &cb->launches[i];
        if (!vkrr_capture_find(ca, lb->kernel, lb->occurrence)) {
            printf("only in %s: #%llu %s (frame %u, occurrence %u)\n", pb,
                   (unsigned long long)lb->sequence, lb->kernel, lb->frame, lb->occurrence);
            only++;
        }
    }
    printf("summary: %u matched launches: %u within tolerance, %u differ; %u in one capture "
           "only -> ", same + differ, same, differ, only);
    vkrr_color_word(stdout, "%s\n", differ || only ? "DIFFER" : "SAME");
    if (first >= 0)
        printf("first launch that differs: #%llu %s (frame %u, occurrence %u)\n",
               (unsigned long long)res[first].launch->sequence, res[first].launch->kernel,
               res[first].launch->frame, res[first].launch->occurrence);
    vkrr_cli_print_heatmap_dir(hdir, res, ca->nlaunches);
    if (json) {
        /* launches only in B have no row; rows of launches only in A are empty */
        uint32_t n = 0;
        for (uint32_t i = 0; i < ca->nlaunches; i++)
            if (res[i].launch) {
                vkrr_launch_result t = res[i];
                memset(&res[i], 0, sizeof res[i]); /* moved, so freed once */
                res[n++] = t;
            }
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m)
            goto fail;
        vkrr_report_json(m, &info, res, n);
        fclose(m);
        vkrr_status s = vkrr_write_file_atomic(json, buf, len, &err);
        free(buf);
        if (s != VKRR_OK)
            goto fail;
    }
    rc = vkrr_status_exit_code(differ || only ? VKRR_ERR_MISMATCH : VKRR_OK);
    goto out;
fail:
    rc = vkrr_cli_fail(&err);
out:
    for (uint32_t i = 0; res && ca && i < ca->nlaunches; i++)
        vkrr_launch_result_free(&res[i]);
    free(res), free(al), free(im), free(maps);
    vkrr_compare_tol_destroy(rules);
    vkrr_portdesc_set_destroy(ports);
    vkrr_capture_close(ca);
    vkrr_capture_close(cb);
    return rc;
}
