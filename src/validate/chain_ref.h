/* chain_ref.h - the original kernel on a chained launch's own inputs.
 *
 * A launch deep in a chained frame reads inputs that earlier launches of the
 * port already moved; its error against the capture mixes what it inherited
 * with what it adds.  With a rerun backend (validate --ref cpu|ptx|cuda),
 * every chained launch that is dispatched also runs the original kernel
 * (opts.rerun) on the port's chained inputs, the same substituted pre
 * pointers, and each resource of the port is compared with it in the port's
 * tolerance: res[].chained_original.  Out of tolerance there, the port
 * itself is wrong at this launch, whatever it inherited; within it, the
 * launch faithfully amplifies what it was given.  The bisect verdict
 * (bisect.c) decides culprit or amplifier by it when it is there.
 *
 *     vkrr_chain_original x = {0};
 *     vkrr_chain_original_run(o, l, &rp, &x, &err);      // before the port runs
 *     vkrr_validate_replay(o, cap, l, &rp, x.ran ? &x.r : NULL, true, &t, &err);
 *     ... vkrr_chain_original_move(&r->res[k], &t.res[k]) per resource,
 *         vkrr_chain_original_settle(r, t.rerun) ...
 *     vkrr_chain_original_free(o, &x);
 *
 * Inputs: the original runs first, on a copy of the replay with its
 * pre_done hook off, so every input is still there when the port runs (the
 * chain's hook then drops held bytes as the port copies them).  Memory: one
 * more copy of the launch's outputs (none when the rerun backend keeps its
 * own).  The original is run only where both backends have the kernel.
 * A rerun that fails on the chained inputs is a note on the launch, and its
 * verdict falls back to the isolated evidence; only what stops everything
 * (out of memory, bad input the backend names) returns.
 *
 * A launch whose chained result was reused from isolated mode (its chained
 * inputs were the captured ones) takes isolated_original as its
 * chained_original (the same inputs), outside bytes not measured (0).
 */
#ifndef VKRR_CHAIN_REF_H
#define VKRR_CHAIN_REF_H

#include "validate.h"

typedef struct vkrr_chain_original {
    vkrr_replay r;            /* the original's replay: the port's inputs, its own outputs */
    bool tried;               /* it was wanted and run */
    bool ran;                 /* it ran: r's outputs are there */
    char note[1024];          /* why it did not run */
} vkrr_chain_original;

/* Runs the original kernel on rp's inputs when o has a rerun backend and
 * both backends have l's kernel (x->tried); x is zeroed first. */
vkrr_status vkrr_chain_original_run(const vkrr_validate_opts *o, const vkrr_launch *l,
                                    const vkrr_replay *rp, vkrr_chain_original *x,
                                    vkrr_error *err);
/* Frees x's outputs (and the rerun backend's kept ones); accepts a zeroed x. */
void vkrr_chain_original_free(const vkrr_validate_opts *o, vkrr_chain_original *x);

/* The launch-level flags from its resources: ran says the original ran. */
void vkrr_chain_original_settle(vkrr_launch_result *r, bool ran);
/* chained_reused: isolated_original stands for chained_original. */
void vkrr_chain_original_reuse(vkrr_launch_result *r);

#endif
