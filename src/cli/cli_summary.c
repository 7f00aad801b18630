/* cli_summary.c - what validate prints after its table (cli_summary.h). */
#include "cli_summary.h"

#include <string.h>

#include "cli.h"
#include "color.h"
#include "shard.h"
#include "validate_report.h"

void vkrr_cli_summary_lines(FILE *f, const vkrr_cli_summary *s)
{
    const vkrr_run *run = s->run;
    if (s->bisect)
        return;
    char counts[200], when[96] = "";
    if (run->interrupted)
        snprintf(when, sizeof when, ", interrupted after %u of %u", run->done, s->nsel);
    vkrr_report_counts(counts, sizeof counts, run->counts);
    bool fails = vkrr_run_failures(run, s->iso, s->chn) > 0;
    bool none = vkrr_run_no_port_ran(run);
    fprintf(f, "summary: %u launches%s%s: %s -> ", s->nsel, s->iso ? "" : " (chained)", when,
            counts);
    vkrr_color_word(f, "%s\n", fails ? "FAIL" : none ? "NOTHING VALIDATED (no launch had a port)"
                                 : vkrr_run_incomplete(run, s->capture_damage) ? "INCOMPLETE"
                                                                               : "PASS");
    if (s->iso && s->chn) {
        vkrr_report_counts(counts, sizeof counts, run->chained_counts);
        fprintf(f, "summary (chained): %s\n", counts);
    }
}

/* Frames whose chained run needs what an earlier frame could not make (a
 * broken history link): one line each. */
static void broken_frames(FILE *f, const vkrr_launch_result *res, uint32_t n)
{
    for (uint32_t i = 0, k; i < n; i = k) {
        uint32_t frame = res[i].launch->frame, skipped = 0;
        const vkrr_launch *root = NULL;
        for (k = i; k < n && res[k].launch->frame == frame; k++)
            if (res[k].has_chained && res[k].chained_status == VKRR_LAUNCH_SKIPPED &&
                res[k].skipped_for && res[k].skipped_for->frame < frame) {
                skipped++;
                root = root ? root : res[k].skipped_for;
            }
        if (skipped)
            fprintf(f, "chained: frame %u: %u launches not validated: they need what frame %u "
                       "could not produce (#%llu %s could not be read)\n",
                    frame, skipped, root->frame, (unsigned long long)root->sequence, root->kernel);
    }
}

void vkrr_cli_summary_details(FILE *f, const vkrr_cli_summary *s)
{
    const vkrr_run *run = s->run;
    const vkrr_launch_result *res = run->res;
    if (run->unreadable || s->capture_damage)
        fprintf(f, "could not be validated: %u launches (damaged or changed capture files, or "
                   "needing what such a launch would have produced)%s\n", run->unreadable,
                s->capture_damage ? ", and the capture problems listed above" : "");
    for (uint32_t i = 0; run->rerun_failed && i < run->done; i++)
        if (res[i].rerun_failed) { /* the note begins "rerun failed: " */
            fprintf(f, "original not rerun: %u launches (first: #%llu %s: %s)\n", run->rerun_failed,
                    (unsigned long long)res[i].launch->sequence, vkrr_launch_name(res[i].launch), res[i].note);
            break;
        }
    for (uint32_t i = 0; s->iso && i < run->done; i++)
        if (res[i].status == VKRR_LAUNCH_FAIL) {
            fprintf(f, "first failing launch: #%llu %s (frame %u, occurrence %u)\n",
                    (unsigned long long)res[i].launch->sequence, vkrr_launch_name(res[i].launch),
                    res[i].launch->frame, res[i].launch->occurrence);
            break;
        }
    if (s->chn) {
        broken_frames(f, res, run->done);
        vkrr_bisect_print(f, &run->bisect, res);
    }
}

vkrr_status vkrr_cli_rerun_summary(FILE *f, const vkrr_report_info *info,
                                   const vkrr_launch_result *res, uint32_t n)
{
    const unsigned *c = info->counts;
    unsigned fails = c[VKRR_LAUNCH_FAIL] + c[VKRR_LAUNCH_TIMEOUT];
    unsigned errors = c[VKRR_LAUNCH_ERROR] + c[VKRR_LAUNCH_NO_PORT];
    fprintf(f, "summary: %u launches: %u PASS, %u FAIL, %u NO KERNEL, %u TIMEOUT, %u ERROR -> ",
            n, c[VKRR_LAUNCH_PASS], c[VKRR_LAUNCH_FAIL], c[VKRR_LAUNCH_NO_PORT],
            c[VKRR_LAUNCH_TIMEOUT], c[VKRR_LAUNCH_ERROR]);
    vkrr_color_word(f, "%s\n", fails ? "FAIL" : errors ? "INCOMPLETE" : "PASS");
    if (info->unreadable)
        fprintf(f, "could not be read: %u launches (damaged or changed capture files)\n",
                info->unreadable);
    for (uint32_t i = 0; i < n; i++)
        if (res[i].status != VKRR_LAUNCH_PASS) {
            fprintf(f, "first launch that %s: #%llu %s (frame %u, occurrence %u)%s%s\n",
                    res[i].status == VKRR_LAUNCH_FAIL ? "differs" : "did not run",
                    (unsigned long long)res[i].launch->sequence, vkrr_launch_name(res[i].launch),
                    res[i].launch->frame, res[i].launch->occurrence, res[i].note[0] ? ": " : "",
                    res[i].note);
            break;
        }
    return fails ? VKRR_ERR_MISMATCH : errors ? VKRR_ERR_INCOMPLETE : VKRR_OK;
}

vkrr_status vkrr_cli_write_reports(const vkrr_cli_compare *c, const vkrr_report_info *info,
                                   const vkrr_launch_result *res, uint32_t n, uint32_t nheat,
                                   vkrr_error *err)
{
    vkrr_status s;
    if (c->json) {
        if ((s = vkrr_report_json_write(c->json, info, res, n, err)) != VKRR_OK)
            return s;
        printf("json: %s\n", c->json);
    }
    if (c->report) {
        if ((s = vkrr_report_html_write(c->report, info, res, n, err)) != VKRR_OK)
            return s;
        printf("report: %s/index.html\n", c->report);
    }
    if (c->junit) {
        if ((s = vkrr_report_junit_write(c->junit, info, res, n, err)) != VKRR_OK)
            return s;
        printf("junit: %s\n", c->junit);
    }
    vkrr_cli_print_written(c, res, nheat);
    return VKRR_OK;
}

bool vkrr_cli_shard_parse(const char *s, uint32_t *k, uint32_t *n)
{
    const char *slash = s ? strchr(s, '/') : NULL;
    char head[32];
    uint64_t kk, nn;
    if (!slash || (size_t)(slash - s) >= sizeof head)
        return false;
    memcpy(head, s, (size_t)(slash - s));
    head[slash - s] = 0;
    if (!vkrr_cli_parse_u64(head, VKRR_SHARD_MAX, &kk) ||
        !vkrr_cli_parse_u64(slash + 1, VKRR_SHARD_MAX, &nn) || kk < 1 || nn < 1 || kk > nn)
        return false;
    *k = (uint32_t)kk;
    *n = (uint32_t)nn;
    return true;
}

int vkrr_cli_shard_take(const char *cmd, const char *v, uint32_t *k, uint32_t *n)
{
    if (!vkrr_cli_shard_parse(v, k, n))
        return vkrr_cli_usage_error(cmd, "--shard takes K/N with 1 <= K <= N <= %u, not '%s'",
                                    VKRR_SHARD_MAX, v);
    return 0;
}
