/* test_bisect_rule: the bisect verdict (src/validate/bisect.c) over
 * hand-made results, every branch of it, with the printed lines compared
 * whole.  The expectations are worked from the rule as README "culprit" and
 * validate_chain.h state it, not from the code:
 *  - a chained result is judged unless it is NO PORT, SKIPPED, or an ERROR of
 *    a damaged capture; a judged one not PASS is bad;
 *  - the first bad launch is the first divergence; the original on its
 *    chained inputs decides culprit (disagrees) or amplifier (agrees); where
 *    it did not run, the isolated error decides (bad or ERROR: culprit);
 *    with neither, the class is unknown ("diverged");
 *  - an amplifier names where the chained error first grew (the first judged
 *    launch not bit-exact) when that is earlier;
 *  - later culprits are counted and the first is named with its evidence. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "validate_chain.h"

enum { N = 6 };
static vkrr_launch L[N] = {{.sequence = 10, .kernel = "k0", .frame = 0, .occurrence = 0},
                           {.sequence = 11, .kernel = "k1", .frame = 0, .occurrence = 0},
                           {.sequence = 12, .kernel = "k2", .frame = 1, .occurrence = 0},
                           {.sequence = 13, .kernel = "k0", .frame = 1, .occurrence = 1},
                           {.sequence = 14, .kernel = "k1", .frame = 1, .occurrence = 1},
                           {.sequence = 15, .kernel = "k2", .frame = 2, .occurrence = 1}};

/* A launch whose chained and isolated runs both pass bit-exact. */
static vkrr_launch_result clean(int i)
{
    return (vkrr_launch_result){.launch = &L[i], .worst = -1, .chained_worst = -1,
                                .has_isolated = true, .status = VKRR_LAUNCH_PASS,
                                .has_chained = true, .chained_status = VKRR_LAUNCH_PASS,
                                .chained_exact = true};
}

static char *printed(const vkrr_launch_result *res, uint32_t n, vkrr_bisect *b)
{
    vkrr_bisect_analyze(res, n, b);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    vkrr_bisect_print(f, b, res);
    fclose(f);
    return text;
}

#define CHECK_PRINTED(res, n, b, want)                                                             \
    do {                                                                                           \
        char *t_ = printed(res, n, b);                                                             \
        CHECK_STR(t_ ? t_ : "(none)", want);                                                       \
        free(t_);                                                                                  \
    } while (0)

/* Which chained statuses are judged: NO PORT, SKIPPED and a damaged ERROR are
 * not (counted, never a divergence, never the first inexact); an ERROR of an
 * intact capture and a FAIL even of a damaged one are. */
static void check_unjudged(void)
{
    vkrr_launch_result r[N];
    vkrr_bisect b;
    for (int i = 0; i < N; i++)
        r[i] = clean(i);
    r[0].chained_status = VKRR_LAUNCH_NO_PORT, r[0].chained_exact = false;
    r[1].chained_status = VKRR_LAUNCH_SKIPPED, r[1].chained_exact = false;
    r[2].chained_status = VKRR_LAUNCH_ERROR, r[2].damaged = true, r[2].chained_exact = false;
    r[3].has_chained = false, r[3].chained_exact = false, r[3].chained_status = VKRR_LAUNCH_FAIL;
    r[4].chained_exact = false; /* judged, within tolerance, not bit-exact */
    for (int i = 0; i < 4; i++) {
        CHECK(!vkrr_chain_result_bad(&r[i]));
        CHECK_STR(vkrr_bisect_role(&r[i]), "");
        CHECK(vkrr_bisect_evidence_of(&r[i]) == VKRR_EVIDENCE_NONE);
    }
    CHECK_PRINTED(r, N, &b,
                  "bisect: no divergence among the chained launches judged (3 not judged: no "
                  "port, skipped or unreadable) (first inexact: #14 k1 (frame 1, occurrence 1))\n");
    CHECK(b.first_fail == -1 && b.first_inexact == 4 && b.unjudged == 3 && b.later_culprit == -1);

    /* every launch judged and clean: the plain line, no inexact */
    for (int i = 0; i < N; i++)
        r[i] = clean(i);
    CHECK_PRINTED(r, N, &b, "bisect: no divergence: every chained launch is within tolerance\n");
    CHECK(b.unjudged == 0 && b.first_inexact == -1);
    /* the very first launch inexact is still named (index 0) */
    r[0].chained_exact = false;
    CHECK_PRINTED(r, N, &b, "bisect: no divergence: every chained launch is within tolerance "
                            "(first inexact: #10 k0 (frame 0, occurrence 0))\n");

    /* an ERROR of an intact capture and a FAIL of a damaged one are divergences */
    for (int i = 0; i < N; i++)
        r[i] = clean(i);
    r[1].chained_status = VKRR_LAUNCH_ERROR, r[1].chained_exact = false;
    CHECK(vkrr_chain_result_bad(&r[1]));
    r[1].chained_status = VKRR_LAUNCH_FAIL, r[1].damaged = true;
    CHECK(vkrr_chain_result_bad(&r[1]));
    vkrr_bisect_analyze(r, N, &b);
    CHECK(b.first_fail == 1 && b.unjudged == 0);
}

/* Evidence and class at the first divergence. */
static void check_first_divergence(void)
{
    vkrr_launch_result r[N];
    vkrr_bisect b;
    for (int i = 0; i < N; i++)
        r[i] = clean(i);
    /* #12 fails chained; the original ran there and agrees with the port; the
     * chained error first grew at #11 (within tolerance but inexact) */
    r[1].chained_exact = false;
    r[2].chained_status = VKRR_LAUNCH_FAIL, r[2].chained_exact = false;
    r[2].chained_original_ran = true, r[2].chained_original_pass = true;
    CHECK_STR(vkrr_bisect_role(&r[2]), "amplifier");
    CHECK_STR(vkrr_bisect_evidence_name(vkrr_bisect_evidence_of(&r[2])), "original");
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #12 k2 (frame 1, occurrence 0) is an AMPLIFIER: on "
                  "its chained inputs the port agrees with the original kernel run on the same "
                  "inputs, so the error is what it inherited (evidence: the original kernel on "
                  "the chained inputs); the chained error first grew at #11 k1 (frame 0, "
                  "occurrence 0)\n");
    CHECK(b.first_fail == 2 && b.first_inexact == 1 && !b.culprit && b.isolated_known &&
          !b.isolated_bad && !b.isolated_error);

    /* the same, but nothing earlier is inexact: the state it reads diverged */
    r[1].chained_exact = true;
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #12 k2 (frame 1, occurrence 0) is an AMPLIFIER: on "
                  "its chained inputs the port agrees with the original kernel run on the same "
                  "inputs, so the error is what it inherited (evidence: the original kernel on "
                  "the chained inputs); no earlier launch differs, so the state it reads (not in "
                  "the capture) diverged\n");
    CHECK(b.first_inexact == 2);

    /* the original disagrees: culprit, whatever the isolated error says */
    r[2].chained_original_pass = false;
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #12 k2 (frame 1, occurrence 0) is the CULPRIT: on its "
                  "chained inputs the port disagrees with the original kernel run on the same "
                  "inputs (evidence: the original kernel on the chained inputs; its isolated error "
                  "alone is within tolerance)\n");
    r[2].status = VKRR_LAUNCH_FAIL;
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #12 k2 (frame 1, occurrence 0) is the CULPRIT: on its "
                  "chained inputs the port disagrees with the original kernel run on the same "
                  "inputs (evidence: the original kernel on the chained inputs; its isolated error "
                  "is out of tolerance too)\n");
    r[2].has_isolated = false;
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #12 k2 (frame 1, occurrence 0) is the CULPRIT: on its "
                  "chained inputs the port disagrees with the original kernel run on the same "
                  "inputs (evidence: the original kernel on the chained inputs)\n");
    CHECK(!b.isolated_known && !b.isolated_bad);

    /* no original: the isolated error decides */
    r[2].chained_original_ran = false, r[2].has_isolated = true, r[2].status = VKRR_LAUNCH_PASS;
    CHECK_STR(vkrr_bisect_evidence_name(vkrr_bisect_evidence_of(&r[2])), "isolated");
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #12 k2 (frame 1, occurrence 0) is an AMPLIFIER: its "
                  "isolated error is within tolerance (evidence: isolated; no original kernel ran "
                  "on its chained inputs); no earlier launch differs, so the state it reads (not "
                  "in the capture) diverged\n");
    /* an isolated NO PORT or SKIPPED is no evidence against the port */
    r[2].status = VKRR_LAUNCH_NO_PORT;
    CHECK_STR(vkrr_bisect_role(&r[2]), "amplifier");
    r[2].status = VKRR_LAUNCH_ERROR, r[2].damaged = true;
    CHECK_STR(vkrr_bisect_role(&r[2]), "amplifier");
    r[2].damaged = false; /* an ERROR of an intact capture is */
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #12 k2 (frame 1, occurrence 0) is the CULPRIT: its "
                  "isolated run is an ERROR too (its row's note says why) (evidence: isolated; no "
                  "original kernel ran on its chained inputs)\n");
    CHECK(b.isolated_error && b.isolated_bad && b.culprit);
    r[2].status = VKRR_LAUNCH_FAIL;
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #12 k2 (frame 1, occurrence 0) is the CULPRIT: its "
                  "isolated error is out of tolerance too (evidence: isolated; no original kernel "
                  "ran on its chained inputs)\n");
    CHECK(!b.isolated_error);

    /* neither: diverged, class unknown */
    r[2].has_isolated = false;
    CHECK_STR(vkrr_bisect_role(&r[2]), "diverged");
    CHECK_STR(vkrr_bisect_evidence_name(vkrr_bisect_evidence_of(&r[2])), "");
    CHECK_PRINTED(r, N, &b, "bisect: first divergence: #12 k2 (frame 1, occurrence 0)\n");
    CHECK(!b.culprit && b.evidence == VKRR_EVIDENCE_NONE);
}

/* Later culprits: counted after the first divergence only, the first named
 * with its evidence; amplifiers and earlier launches are not counted. */
static void check_later_culprits(void)
{
    vkrr_launch_result r[N];
    vkrr_bisect b;
    for (int i = 0; i < N; i++) {
        r[i] = clean(i);
        r[i].chained_status = VKRR_LAUNCH_FAIL, r[i].chained_exact = false;
    }
    r[0].chained_status = VKRR_LAUNCH_PASS; /* inexact, judged: where the error first grew */
    r[1].status = VKRR_LAUNCH_PASS;         /* first divergence: amplifier by isolated */
    r[2].status = VKRR_LAUNCH_FAIL;         /* culprit by isolated */
    r[3].chained_original_ran = true, r[3].chained_original_pass = true; /* amplifier by original */
    r[4].chained_original_ran = true, r[4].chained_original_pass = false; /* culprit by original */
    r[5].status = VKRR_LAUNCH_FAIL;         /* culprit by isolated */
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #11 k1 (frame 0, occurrence 0) is an AMPLIFIER: its "
                  "isolated error is within tolerance (evidence: isolated; no original kernel ran "
                  "on its chained inputs); the chained error first grew at #10 k0 (frame 0, "
                  "occurrence 0)\n"
                  "bisect: a later culprit: #12 k2 (frame 1, occurrence 0) is out of tolerance "
                  "isolated (evidence: isolated); 3 later culprits in all (role \"culprit\" in the "
                  "table)\n");
    CHECK(b.first_fail == 1 && b.later_culprit == 2 && b.later_culprits == 3);
    /* two: still "in all" (the count is named from two on) */
    r[5].status = VKRR_LAUNCH_PASS;
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #11 k1 (frame 0, occurrence 0) is an AMPLIFIER: its "
                  "isolated error is within tolerance (evidence: isolated; no original kernel ran "
                  "on its chained inputs); the chained error first grew at #10 k0 (frame 0, "
                  "occurrence 0)\n"
                  "bisect: a later culprit: #12 k2 (frame 1, occurrence 0) is out of tolerance "
                  "isolated (evidence: isolated); 2 later culprits in all (role \"culprit\" in the "
                  "table)\n");
    /* the first later culprit decided by the original */
    r[2].status = VKRR_LAUNCH_PASS;
    r[5].status = VKRR_LAUNCH_PASS;
    CHECK_PRINTED(r, N, &b,
                  "bisect: first divergence: #11 k1 (frame 0, occurrence 0) is an AMPLIFIER: its "
                  "isolated error is within tolerance (evidence: isolated; no original kernel ran "
                  "on its chained inputs); the chained error first grew at #10 k0 (frame 0, "
                  "occurrence 0)\n"
                  "bisect: a later culprit: #14 k1 (frame 1, occurrence 1) disagrees with the "
                  "original kernel on its chained inputs (evidence: original)\n");
    CHECK(b.later_culprit == 4 && b.later_culprits == 1);
    /* a culprit before the first divergence cannot be: the first bad launch
     * is the first divergence, so a culprit first divergence has none earlier */
    r[1].status = VKRR_LAUNCH_FAIL;
    vkrr_bisect_analyze(r, N, &b);
    CHECK(b.first_fail == 1 && b.culprit && b.later_culprit == 4 && b.later_culprits == 1);
}

int main(void)
{
    check_unjudged();
    check_first_divergence();
    check_later_culprits();
    return test_finish("bisect_rule");
}
