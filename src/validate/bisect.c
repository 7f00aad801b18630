/* bisect.c - the verdict over a run's results (validate_chain.h): the first
 * chained launch out of tolerance, and whether its own isolated error makes
 * it the culprit or an amplifier of what it inherited. */
#include <stdio.h>

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

const char *vkrr_bisect_role(const vkrr_launch_result *r)
{
    if (!chained_bad(r))
        return "";
    if (!r->has_isolated)
        return "diverged";
    return isolated_bad(r) ? "culprit" : "amplifier";
}

void vkrr_bisect_analyze(const vkrr_launch_result *res, uint32_t n, vkrr_bisect *out)
{
    *out = (vkrr_bisect){.first_fail = -1, .first_inexact = -1};
    for (uint32_t i = 0; i < n; i++) {
        const vkrr_launch_result *r = &res[i];
        if (out->first_inexact < 0 && r->has_chained && !unjudged(r->chained_status, r->damaged) &&
            !r->chained_exact)
            out->first_inexact = (int)i;
        if (chained_bad(r)) {
            out->first_fail = (int)i;
            out->isolated_known = r->has_isolated;
            out->culprit = isolated_bad(r);
            return;
        }
    }
}

static void name(FILE *f, const vkrr_launch_result *r)
{
    fprintf(f, "#%llu %s (frame %u, occurrence %u)", (unsigned long long)r->launch->sequence,
            r->launch->kernel, r->launch->frame, r->launch->occurrence);
}

void vkrr_bisect_print(FILE *f, const vkrr_bisect *b, const vkrr_launch_result *res)
{
    if (b->first_fail < 0) {
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
    if (!b->isolated_known) {
        fprintf(f, "\n");
        return;
    }
    if (b->culprit) {
        fprintf(f, " is the CULPRIT: its isolated error is out of tolerance too\n");
        return;
    }
    fprintf(f, " is an AMPLIFIER: its isolated error is within tolerance;");
    if (b->first_inexact >= 0 && b->first_inexact < b->first_fail) {
        fprintf(f, " the chained error first grew at ");
        name(f, &res[b->first_inexact]);
        fputc('\n', f);
    } else {
        fprintf(f, " no earlier launch differs, so the state it reads (not in the capture) "
                   "diverged\n");
    }
}
