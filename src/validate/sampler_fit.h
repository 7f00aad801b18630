/* sampler_fit.h - the sampler state of textures the log does not give,
 * found by running the original kernel with candidate states.
 *
 * The bridge logs cuTexObjectCreate only with D4R_CUDA_VERBOSE=1, and a
 * capture may have no log at all; then a texture's filter, addressing and
 * coordinate mode are unknown, and guessing them makes a reference that
 * disagrees with the capture and a port judged on the wrong state.  So the
 * original kernel (the ptx, cpu or cuda backend) is run on the launch's
 * captured inputs with the textures' states varied, one texture at a time
 * from CUDA's defaults (point, clamp, unnormalized), keeping what brings its
 * outputs nearer the capture (fewer elements that differ), until they equal
 * the capture.  Then for each texture every other candidate is tried with
 * the rest held: a state is "inferred" when it alone reproduces the capture,
 * "ambiguous" when others do too (the launch never reads where they differ),
 * and "unknown" when nothing reproduces it.  Candidates: point and linear,
 * unnormalized with clamp or border, normalized with wrap, clamp, mirror or
 * border (the same on both axes); point only for textures read as integers.
 *
 *     vkrr_sampler_fit fit = {0};
 *     vkrr_validate_fit_sampler(&opts, cap, l, &fit, &err);  // validate.h: runs the original
 *     vkrr_sampler_fit_apply(&fit, &replay);       // before a backend runs it
 *     fit.verdict, fit.note
 *     vkrr_sampler_fit_free(&fit);
 *
 * Costs about 1 + 11 x textures x (passes + 1) runs of the original: only
 * launches with such textures pay it.  Textures over linear memory have no
 * state that matters (tex1Dfetch) and are left alone.
 */
#ifndef VKRR_SAMPLER_FIT_H
#define VKRR_SAMPLER_FIT_H

#include <stdlib.h>
#include <string.h>

#include "validate.h"

typedef enum vkrr_fit_verdict {
    VKRR_FIT_NONE = 0,    /* every texture's state is logged: nothing to find */
    VKRR_FIT_INFERRED,    /* one state a texture reproduces the capture */
    VKRR_FIT_AMBIGUOUS,   /* the capture is reproduced, but not by one state only */
    VKRR_FIT_UNKNOWN,     /* nothing tried reproduces it, or no original to run */
} vkrr_fit_verdict;

typedef struct vkrr_sampler_fit {
    vkrr_fit_verdict verdict;
    vkrr_sampler *state;  /* [image]: the state found (meaningful where fitted[] is) */
    bool *fitted;         /* [image]: the log does not give its state */
    uint16_t *also;       /* [image]: AMBIGUOUS: the other candidates that reproduce the
                           * capture too (bit c: vkrr_sampler_fit_candidate(c)) */
    bool port_fails_all;  /* AMBIGUOUS: the port FAILs under each of them as well */
    uint32_t n;           /* images */
    unsigned runs;        /* of the original */
    char note[1024];      /* "sampler state inferred (arg 8: linear clamp unnormalized); ...":
                           * room for the 383 characters of describe()'s list and the rest */
} vkrr_sampler_fit;

/* How a state is measured: the original run on the launch's captured
 * inputs with fit's states, *d the output elements that differ from the
 * capture (0: reproduced; UINT64_MAX: it could not run).  validate.c gives
 * it (vkrr_validate_fit_sampler). */
typedef struct vkrr_sampler_measure {
    vkrr_status (*distance)(void *ctx, const vkrr_sampler_fit *fit, uint64_t *d, vkrr_error *err);
    void *ctx;
    const char *name;     /* the backend that runs the original */
} vkrr_sampler_measure;

/* true when some texture of l has no logged state (fitting applies). */
bool vkrr_sampler_fit_needed(const vkrr_launch *l);
/* m NULL: the verdict is UNKNOWN, saying that no original could run. */
vkrr_status vkrr_sampler_fit_launch(const vkrr_sampler_measure *m, const vkrr_launch *l,
                                    vkrr_sampler_fit *fit, vkrr_error *err);
/* Candidate c (0..11) for image i of l; false when it cannot apply. */
bool vkrr_sampler_fit_candidate(const vkrr_launch *l, uint32_t i, unsigned c, vkrr_sampler *out);
/* Gives r's textures the states found (the defaults where none was). */
void vkrr_sampler_fit_apply(const vkrr_sampler_fit *fit, vkrr_replay *r);
/* After a comparison run with the fitted state: a FAIL where the state is
 * unknown, or ambiguous where the port agrees under another state the
 * capture allows (port_fails_all false), is not the port's: it becomes
 * ERROR, saying so; the note is added either way. */
void vkrr_sampler_fit_settle(const vkrr_sampler_fit *fit, vkrr_launch_result *r);
/* Zeroed fits and NULL too.  (Inline: a launch result frees its fit, and
 * this file calls the results' functions, not the other way round.) */
static inline void vkrr_sampler_fit_free(vkrr_sampler_fit *fit)
{
    if (!fit)
        return;
    free(fit->state);
    free(fit->fitted);
    free(fit->also);
    memset(fit, 0, sizeof *fit);
}

#endif
