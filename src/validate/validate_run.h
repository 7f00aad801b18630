/* validate_run.h - a whole validation run over a capture: isolated and/or
 * chained, a selection of launches, the bisect stop, what the results add
 * up to.  `vkrr validate` and `vkrr bisect` parse, call this, print and exit.
 *
 *     vkrr_run_desc d = {.opts = opts, .isolated = true, .chained = true};
 *     vkrr_run run;
 *     if (vkrr_run_capture(&d, cap, &run, &err) != VKRR_OK) ...;  // stops everything
 *     ... run.res[0 .. run.done), run.counts, run.bisect ...
 *     status = vkrr_run_verdict(&d, &run, cap->ndamage, 0);
 *     vkrr_run_free(&run);
 *
 * Selection: launches d.selected() accepts (NULL: all).  In chained mode the
 * unselected launches before the last selected one run too, unshown and
 * unrecorded, because selected ones read what they write.
 * Bisect: chained until the first launch out of tolerance, which also runs
 * isolated (its own error decides whether it is the culprit), then stop.
 * Callbacks (optional): before() ahead of each selected launch (progress),
 * after() with its result (the table row).  *d.interrupted set (Ctrl-C):
 * stop after the current launch; run.interrupted says whether it stopped
 * early.
 * Ownership: run.res belongs to the run until vkrr_run_free.
 */
#ifndef VKRR_VALIDATE_RUN_H
#define VKRR_VALIDATE_RUN_H

#include <signal.h>

#include "validate.h"
#include "validate_chain.h"

typedef struct vkrr_run_desc {
    vkrr_validate_opts opts;
    bool isolated, chained, bisect;
    bool strict;                 /* a kernel with no port is a failure */
    bool (*selected)(void *ctx, const vkrr_launch *l);
    void (*before)(void *ctx, uint32_t done, uint32_t total, const vkrr_launch *l);
    void (*after)(void *ctx, const vkrr_launch_result *r, bool chained_bad);
    void *ctx;
    const volatile sig_atomic_t *interrupted;
} vkrr_run_desc;

typedef struct vkrr_run {
    vkrr_launch_result *res;     /* the selected launches' results, in order */
    uint32_t done;               /* results in res */
    uint32_t selected;           /* launches selected */
    /* per status: isolated (or, chained only, chained) and, both, chained */
    unsigned counts[VKRR_LAUNCH_STATUS_COUNT], chained_counts[VKRR_LAUNCH_STATUS_COUNT];
    unsigned failed;             /* isolated failures (strict: NO PORT too) */
    unsigned chained_bad;        /* chained results out of tolerance */
    unsigned unreadable;         /* launches that could not be validated */
    unsigned rerun_failed;       /* launches whose original the rerun backend could not run */
    unsigned reused;             /* chained results that are the isolated ones */
    bool interrupted;
    vkrr_bisect bisect;          /* the verdict over res (chained runs) */
    uint64_t chain_peak;         /* most bytes of intermediate state the chain held */
} vkrr_run;

vkrr_status vkrr_run_capture(const vkrr_run_desc *d, const vkrr_capture *cap, vkrr_run *out,
                             vkrr_error *err);
void vkrr_run_free(vkrr_run *r); /* accepts a zeroed one */
/* A finished launch's result added to the run's counts (vkrr_run_capture
 * does it; `vkrr merge` does it for results read back). */
void vkrr_run_tally(const vkrr_run_desc *d, vkrr_run *run, const vkrr_launch_result *r);
/* What the run adds up to, with the capture's problems no launch owns
 * (cap->ndamage) and extra failures the caller found (validation layer
 * messages): VKRR_ERR_INTERRUPTED, VKRR_ERR_MISMATCH (a failure of the
 * port), VKRR_ERR_INCOMPLETE (launches or capture parts not validated), else
 * VKRR_OK. */
vkrr_status vkrr_run_verdict(const vkrr_run_desc *d, const vkrr_run *r, uint32_t capture_damage,
                             unsigned extra_failures);
/* How many launches make the run FAIL: those that failed, and in chained
 * mode alone (no isolated results to show a failure) those whose chained
 * result went bad.  vkrr_run_verdict and validate's summary line both ask. */
unsigned vkrr_run_failures(const vkrr_run *r, bool isolated, bool chained);
/* True when something was not validated: launches that could not be read,
 * originals that could not be rerun, damage no launch owns, or no port ran. */
bool vkrr_run_incomplete(const vkrr_run *r, uint32_t capture_damage);
/* True when launches were selected and not one had a port to run: nothing
 * was validated, which is never a pass (the verdict is INCOMPLETE). */
bool vkrr_run_no_port_ran(const vkrr_run *r);

#endif
