/* bisect.c - the verdict over a run's results (validate_chain.h): the first
 * chained launch out of tolerance, and whether the port is wrong there (the
 * culprit) or amplifies what it inherited: by the original kernel run on its
 * chained inputs where that ran, else by its own isolated error. */
#include <stdio.h>
#include <string.h>

#include "color.h"
#include "validate_chain.h"

/* Not a verdict on the port: no port, skipped, or a capture that could not be read. */
static bool unjudged(vkrr_launch_status s, bool damaged)
{
    return s == VKRR_LAUNCH_NO_PORT || s == VKRR_LAUNCH_SKIPPED ||
           (s == VKRR_LAUNCH_ERROR && damaged);
}

static bool chained_bad(const vkrr_launch_result *r)
{
    return r->has_chained && r->chained_status != VKRR_LAUNCH_PASS &&
           !unjudged(r->chained_status, r->damaged);
}

bool vkrr_chain_result_bad(const vkrr_launch_result *r)
{
    return chained_bad(r);
}

static bool isolated_bad(const vkrr_launch_result *r)
{
    return r->has_isolated && r->status != VKRR_LAUNCH_PASS && !unjudged(r->status, r->damaged);
}

vkrr_bisect_evidence vkrr_bisect_evidence_of(const vkrr_launch_result *r)
{
    if (!chained_bad(r))
        return VKRR_EVIDENCE_NONE;
    if (r->chained_original_ran)
        return VKRR_EVIDENCE_ORIGINAL;
    return r->has_isolated ? VKRR_EVIDENCE_ISOLATED : VKRR_EVIDENCE_NONE;
}

const char *vkrr_bisect_evidence_name(vkrr_bisect_evidence e)
{
    return e == VKRR_EVIDENCE_ORIGINAL ? "original" : e == VKRR_EVIDENCE_ISOLATED ? "isolated" : "";
}

/* By evidence e (not NONE): the port is wrong at this launch. */
static bool culprit_by(const vkrr_launch_result *r, vkrr_bisect_evidence e)
{
    return e == VKRR_EVIDENCE_ORIGINAL ? !r->chained_original_pass : isolated_bad(r);
}

const char *vkrr_bisect_role(const vkrr_launch_result *r)
{
    if (!chained_bad(r))
        return "";
    vkrr_bisect_evidence e = vkrr_bisect_evidence_of(r);
    if (e == VKRR_EVIDENCE_NONE)
        return "diverged";
    return culprit_by(r, e) ? "culprit" : "amplifier";
}

void vkrr_bisect_analyze(const vkrr_launch_result *res, uint32_t n, vkrr_bisect *out)
{
    *out = (vkrr_bisect){.first_fail = -1, .first_inexact = -1, .later_culprit = -1};
    for (uint32_t i = 0; i < n; i++) {
        const vkrr_launch_result *r = &res[i];
        out->unjudged += r->has_chained && unjudged(r->chained_status, r->damaged);
        if (out->first_inexact < 0 && r->has_chained && !unjudged(r->chained_status, r->damaged) &&
            !r->chained_exact)
            out->first_inexact = (int)i;
        if (out->first_fail >= 0) {
            if (!strcmp(vkrr_bisect_role(r), "culprit") && out->later_culprits++ == 0)
                out->later_culprit = (int)i;
        } else if (chained_bad(r)) {
            out->first_fail = (int)i;
            out->evidence = vkrr_bisect_evidence_of(r);
            out->isolated_known = r->has_isolated;
            out->isolated_bad = isolated_bad(r);
            out->isolated_error = r->has_isolated && r->status == VKRR_LAUNCH_ERROR;
            out->culprit = out->evidence != VKRR_EVIDENCE_NONE && culprit_by(r, out->evidence);
        }
    }
}

static void name(FILE *f, const vkrr_launch_result *r)
{
    fprintf(f, "#%llu %s (frame %u, occurrence %u%s)", (unsigned long long)r->launch->sequence,
            vkrr_launch_name(r->launch), r->launch->frame, r->launch->occurrence,
            r->launch->nfused ? "; a fused run, one step" : "");
}

/* The class of the first divergence and why. */
static void print_class(FILE *f, const vkrr_bisect *b)
{
    vkrr_color_word(f, b->culprit ? " is the %s" : " is an %s",
                    b->culprit ? "CULPRIT" : "AMPLIFIER");
    if (b->evidence == VKRR_EVIDENCE_ORIGINAL) {
        if (b->culprit)
            fprintf(f, ": on its chained inputs the port disagrees with the "
                       "original kernel run on the same inputs (evidence: the original kernel "
                       "on the chained inputs%s)\n",
                    !b->isolated_known ? ""
                    : b->isolated_bad  ? "; its isolated error is out of tolerance too"
                                       : "; its isolated error alone is within tolerance");
        else
            fprintf(f, ": on its chained inputs the port agrees with the "
                       "original kernel run on the same inputs, so the error is what it "
                       "inherited (evidence: the original kernel on the chained inputs%s);",
                    b->isolated_known && b->isolated_bad
                        ? "; its isolated error is out of tolerance, though" : "");
        return;
    }
    if (b->culprit)
        fprintf(f, ": %s (evidence: isolated; no original kernel ran on its "
                   "chained inputs)\n",
                b->isolated_error ? "its isolated run is an ERROR too (its row's note says why)"
                                  : "its isolated error is out of tolerance too");
    else
        fprintf(f, ": its isolated error is within tolerance (evidence: "
                   "isolated; no original kernel ran on its chained inputs);");
}

void vkrr_bisect_print(FILE *f, const vkrr_bisect *b, const vkrr_launch_result *res)
{
    if (b->first_fail < 0) {
        if (b->unjudged) /* never "every launch" of a run that could not judge some */
            fprintf(f, "bisect: no divergence among the chained launches judged (%u not judged: "
                       "no port, skipped or unreadable)", b->unjudged);
        else
            fprintf(f, "bisect: no divergence: every chained launch is within tolerance");
        if (b->first_inexact >= 0) {
            fprintf(f, " (first inexact: ");
            name(f, &res[b->first_inexact]);
            fputc(')', f);
        }
        fputc('\n', f);
        return;
    }
    const vkrr_launch_result *r = &res[b->first_fail];
    fprintf(f, "bisect: first divergence: ");
    name(f, r);
    if (b->evidence == VKRR_EVIDENCE_NONE) {
        fprintf(f, "\n");
    } else {
        print_class(f, b);
        if (b->culprit) {
            /* the class line is whole */
        } else if (b->first_inexact >= 0 && b->first_inexact < b->first_fail) {
            fprintf(f, " the chained error first grew at ");
            name(f, &res[b->first_inexact]);
            fputc('\n', f);
        } else {
            fprintf(f, " no earlier launch differs, so the state it reads (not in the capture) "
                       "diverged\n");
        }
    }
    if (b->later_culprit >= 0) {
        const vkrr_launch_result *c = &res[b->later_culprit];
        fprintf(f, "bisect: a later culprit: ");
        name(f, c);
        fprintf(f, " %s (evidence: %s)", vkrr_bisect_evidence_of(c) == VKRR_EVIDENCE_ORIGINAL
                                              ? "disagrees with the original kernel on its "
                                                "chained inputs"
                                              : "is out of tolerance isolated",
                vkrr_bisect_evidence_name(vkrr_bisect_evidence_of(c)));
        if (b->later_culprits > 1)
            fprintf(f, "; %u later culprits in all (role \"culprit\" in the table)",
                    b->later_culprits);
        fputc('\n', f);
    }
}
