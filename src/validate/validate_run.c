/* validate_run.c - a whole validation run over a capture (validate_run.h). */
#include "validate_run.h"

#include <stdlib.h>
#include <string.h>

static bool is_selected(const vkrr_run_desc *d, const vkrr_launch *l)
{
    return !d->selected || d->selected(d->ctx, l);
}

void vkrr_run_tally(const vkrr_run_desc *d, vkrr_run *run, const vkrr_launch_result *r)
{
    bool iso = d->isolated, chn = d->chained;
    if (iso) {
        run->counts[r->status]++;
        run->failed += r->status == VKRR_LAUNCH_FAIL || r->status == VKRR_LAUNCH_TIMEOUT ||
                       (r->status == VKRR_LAUNCH_ERROR && !r->damaged) ||
                       (d->strict && r->status == VKRR_LAUNCH_NO_PORT);
    }
    if (chn)
        (iso ? run->chained_counts : run->counts)[r->chained_status]++;
    run->chained_bad += chn && vkrr_chain_result_bad(r);
    run->reused += chn && r->chained_reused;
    run->rerun_failed += r->rerun_failed;
    run->unreadable += (iso && r->status == VKRR_LAUNCH_ERROR && r->damaged) ||
                       (chn && (r->chained_status == VKRR_LAUNCH_SKIPPED ||
                                (r->chained_status == VKRR_LAUNCH_ERROR && r->damaged)));
}

/* A launch the selection leaves out that chained mode still needs (it writes
 * what a selected one reads): run on the chain, shown nowhere, no heatmaps. */
static vkrr_status chain_through(vkrr_chain *chain, const vkrr_validate_opts *opts, uint32_t i,
                                 vkrr_error *err)
{
    vkrr_validate_opts quiet = *opts;
    quiet.heatmap_dir = NULL;
    quiet.rerun = NULL; /* nothing shown: no comparison with the original either */
    vkrr_launch_result r = {0};
    vkrr_status s = vkrr_chain_run(chain, &quiet, i, &r, err);
    vkrr_launch_result_free(&r);
    return s;
}

/* Bisect: the first diverging launch's own (isolated) error decides. */
static vkrr_status add_isolated(const vkrr_run_desc *d, const vkrr_capture *cap,
                                const vkrr_launch *l, vkrr_launch_result *r, vkrr_error *err)
{
    vkrr_launch_result ir;
    vkrr_status s = vkrr_validate_launch(&d->opts, cap, l, &ir, err);
    if (s != VKRR_OK)
        return s;
    r->has_isolated = true;
    r->status = ir.status;
    if (!r->res && ir.res) { /* the chained run left no resources (an ERROR, a TIMEOUT) */
        r->res = ir.res;
        r->nres = ir.nres;
        ir.res = NULL;
        ir.nres = 0;
    }
    for (uint32_t k = 0; k < r->nres && k < ir.nres; k++)
        r->res[k].isolated = ir.res[k].isolated;
    /* an index into r's resources, whichever run made them */
    r->worst = ir.worst >= 0 && (uint32_t)ir.worst < r->nres ? ir.worst : -1;
    vkrr_launch_result_free(&ir);
    return VKRR_OK;
}

vkrr_status vkrr_run_capture(const vkrr_run_desc *d, const vkrr_capture *cap, vkrr_run *out,
                             vkrr_error *err)
{
    memset(out, 0, sizeof *out);
    out->bisect.first_fail = out->bisect.first_inexact = out->bisect.later_culprit = -1;
    uint32_t sel_end = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (is_selected(d, &cap->launches[i]))
            out->selected++, sel_end = i + 1;
    out->res = calloc(cap->nlaunches ? cap->nlaunches : 1, sizeof *out->res);
    if (!out->res)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
    vkrr_chain *chain = NULL;
    vkrr_status s = d->chained ? vkrr_chain_create(&chain, cap, err) : VKRR_OK;
    bool iso = d->isolated && !d->bisect;
    for (uint32_t at = 0; s == VKRR_OK && at < cap->nlaunches; at++) {
        if (d->interrupted && *d->interrupted)
            break;
        const vkrr_launch *l = &cap->launches[at];
        if (!is_selected(d, l)) {
            if (d->chained && at < sel_end)
                s = chain_through(chain, &d->opts, at, err);
            continue;
        }
        if (d->before)
            d->before(d->ctx, out->done, out->selected, l);
        vkrr_launch_result *r = &out->res[out->done];
        if (iso && (s = vkrr_validate_launch(&d->opts, cap, l, r, err)) != VKRR_OK)
            break;
        if (d->chained && (s = vkrr_chain_run(chain, &d->opts, at, r, err)) != VKRR_OK)
            break;
        vkrr_run_tally(d, out, r);
        bool cbad = d->chained && vkrr_chain_result_bad(r);
        if (d->bisect && cbad && (s = add_isolated(d, cap, l, r, err)) != VKRR_OK)
            break;
        if (d->after)
            d->after(d->ctx, r, cbad);
        out->done++;
        if (d->bisect && cbad)
            break;
    }
    out->interrupted = d->interrupted && *d->interrupted && out->done < out->selected;
    if (s == VKRR_OK && d->chained) {
        vkrr_bisect_analyze(out->res, out->done, &out->bisect);
        vkrr_chain_bytes(chain, &out->chain_peak);
    }
    vkrr_chain_destroy(chain);
    return s;
}

void vkrr_run_free(vkrr_run *r)
{
    for (uint32_t i = 0; r->res && i < r->done; i++)
        vkrr_launch_result_free(&r->res[i]);
    free(r->res);
    memset(r, 0, sizeof *r);
}

vkrr_status vkrr_run_verdict(const vkrr_run_desc *d, const vkrr_run *r, uint32_t capture_damage,
                             unsigned extra_failures)
{
    unsigned bad = extra_failures;
    if (d->bisect)
        bad += r->bisect.first_fail >= 0;
    else
        bad += vkrr_run_failures(r, d->isolated, d->chained);
    return r->interrupted                        ? VKRR_ERR_INTERRUPTED
           : bad                                 ? VKRR_ERR_MISMATCH
           : vkrr_run_incomplete(r, capture_damage) ? VKRR_ERR_INCOMPLETE
                                                 : VKRR_OK;
}

unsigned vkrr_run_failures(const vkrr_run *r, bool isolated, bool chained)
{
    return r->failed + (chained && !isolated ? r->chained_bad : 0);
}

bool vkrr_run_incomplete(const vkrr_run *r, uint32_t capture_damage)
{
    return r->unreadable || r->rerun_failed || capture_damage || vkrr_run_no_port_ran(r);
}

bool vkrr_run_no_port_ran(const vkrr_run *r)
{
    unsigned all = 0;
    for (int s = 0; s < VKRR_LAUNCH_STATUS_COUNT; s++)
        all += r->counts[s];
    return all > 0 && r->counts[VKRR_LAUNCH_NO_PORT] == all;
}
