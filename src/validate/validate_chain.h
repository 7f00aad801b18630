/* validate_chain.h - chained validation and the bisect verdict.
 *
 * Chained mode runs the capture on the port from the first launch's captured
 * inputs, each launch reading what the port's own earlier launches wrote, so
 * each launch's error is the error accumulated up to it (docs/architecture.md
 * "Validation modes").  The chain keeps host-side copies of:
 *   - allocations, by base address: the port's post of the last launch that
 *     used that base; the first launch on a base reads the capture's pre.
 *     Host uploads between launches are NOT replayed (the chain reads only the
 *     port's bytes, so a corrupted captured input of a later launch does not
 *     reach it).  A base reused with another size starts over from the capture.
 *   - surfaces, by the texture that reads them later: a texture's producer is
 *     the latest earlier surface of the same CUDA array (the image's array
 *     field), else the latest earlier surface whose post-launch dump is
 *     byte-identical to the texture's dump (docs/capture-format.md).  So the
 *     history surface of frame k becomes the history texture of frame k+1.
 *     Textures with no producer (the application's inputs) read the capture.
 * One pass on an exact port: when every input of a launch in the chain is
 * byte for byte its captured input (compared with memcmp before running) and
 * its isolated result (already in res[i]) is bit-identical to the capture,
 * the chained result is that isolated one (res[i].chained_reused; a port is
 * deterministic: the same inputs give the same outputs) and nothing runs;
 * the chain's state then is that launch's dumps (mapped when read, nothing
 * held).  From the first inexact launch on, chained dispatches.
 * Memory: a copy is kept only while some later launch still reads it (a
 * pre-pass over the capture finds each copy's last reader), so the chain
 * holds at most the live intermediate state, never every launch's output.
 * A launch the port cannot run (NO PORT, ERROR, TIMEOUT) leaves no copies:
 * its readers fall back to the capture's bytes, and the chain goes on.
 * A launch whose capture files could not be read (damaged at open, or a file
 * that fails when it is mapped) is different: what it would have written is
 * missing, so every later launch that needs it (a base it used, a surface it
 * wrote, and so on downstream) is SKIPPED naming it (r->skipped_for); one
 * whose manifest is unreadable may have written anything, so every later
 * launch is.  A launch whose only damage is in its post-launch dumps (or
 * whose dumps changed since capture) still runs and feeds the chain.
 * Textures over linear memory read the chain's bytes of the base they lie in.
 * With a rerun backend (opts.rerun), each dispatched launch also runs the
 * original kernel on the same chained inputs, compared with the port into
 * res[].chained_original (chain_ref.h); the chain's state stays the port's.
 *
 *     vkrr_chain *c;
 *     vkrr_chain_create(&c, cap, &err);
 *     for (i = 0; i < cap->nlaunches; i++)       // in order, each once
 *         vkrr_chain_run(c, &opts, i, &res[i], &err);  // fills res[i].chained*
 *     vkrr_chain_destroy(c);
 *
 * res[i] may hold the launch's isolated result already (its resources line
 * up one to one) or be zeroed (chained only: has_isolated stays false).
 */
#ifndef VKRR_VALIDATE_CHAIN_H
#define VKRR_VALIDATE_CHAIN_H

#include <stdio.h>

#include "validate.h"

typedef struct vkrr_chain vkrr_chain;

vkrr_status vkrr_chain_create(vkrr_chain **out, const vkrr_capture *cap, vkrr_error *err);
vkrr_status vkrr_chain_run(vkrr_chain *c, const vkrr_validate_opts *o, uint32_t index,
                           vkrr_launch_result *r, vkrr_error *err);
void vkrr_chain_destroy(vkrr_chain *c); /* accepts NULL */

/* Bytes of copies the chain holds now, and the most it ever held. */
uint64_t vkrr_chain_bytes(const vkrr_chain *c, uint64_t *peak);
/* How texture `image` of launch `index` is fed: the surface it reads
 * (launch and image index, how that link is known), or none (launch
 * UINT32_MAX: it reads the capture; unknown: though an earlier launch may
 * have written it).  NULL for a bad index. */
const vkrr_texture_link *vkrr_chain_link(const vkrr_chain *c, uint32_t index, uint32_t image);

/* The verdict over a run's results (in launch order).  A launch whose
 * chained error is out of tolerance is the CULPRIT when the port is wrong at
 * that launch, else an AMPLIFIER of error it inherited.  The evidence: where
 * the original kernel ran on its chained inputs (chain_ref.h, a rerun
 * backend), whether the port disagrees with it there, even when the launch's
 * isolated error is within tolerance; else its isolated error (from its own
 * captured inputs). */
typedef enum vkrr_bisect_evidence {
    VKRR_EVIDENCE_NONE = 0,  /* undecided: no isolated result and no original */
    VKRR_EVIDENCE_ISOLATED,  /* its isolated error */
    VKRR_EVIDENCE_ORIGINAL,  /* the port against the original on its chained inputs */
} vkrr_bisect_evidence;

typedef struct vkrr_bisect {
    int first_fail;     /* first launch whose chained error is out of tolerance; -1 none */
    bool culprit;       /* by the evidence, it is the culprit */
    vkrr_bisect_evidence evidence; /* what decided culprit; NONE: its class is unknown */
    bool isolated_known;/* its isolated result exists */
    bool isolated_bad;  /* ... and is out of tolerance */
    bool isolated_error; /* ... because it could not run (ERROR) */
    int first_inexact;  /* first launch whose chained output is not bit-exact; -1 none */
    int later_culprit;  /* the first launch after first_fail that is a culprit too; -1 none */
    unsigned later_culprits; /* how many such launches */
    unsigned unjudged;  /* chained launches not judged (NO PORT, SKIPPED, unreadable) */
} vkrr_bisect;

void vkrr_bisect_analyze(const vkrr_launch_result *res, uint32_t n, vkrr_bisect *out);
/* The chained run of r is out of tolerance (or failed on the device): not
 * PASS, NO PORT, SKIPPED, nor an ERROR because the capture could not be read. */
bool vkrr_chain_result_bad(const vkrr_launch_result *r);
/* "culprit", "amplifier", "diverged" (undecided) or "" (chained within
 * tolerance / not run). */
const char *vkrr_bisect_role(const vkrr_launch_result *r);
/* What decides r's role (NONE when it has none), and its name: "original",
 * "isolated" or "". */
vkrr_bisect_evidence vkrr_bisect_evidence_of(const vkrr_launch_result *r);
const char *vkrr_bisect_evidence_name(vkrr_bisect_evidence e);
/* Lines naming the first divergence, its class and the evidence that decided
 * it, later culprits, or that there is none. */
void vkrr_bisect_print(FILE *f, const vkrr_bisect *b, const vkrr_launch_result *res);

#endif
