/* ptx_jcalls.h - what compiled runs call directly rather than through an
 * instruction's handler (ptx_warp.jcalls; the JIT's code holds no address,
 * so it reads them there): the scheduler's step of a converged .sync
 * instruction, and the routines whose law, for a whole warp, needs none of
 * the handler's decoding of its instruction or its loop over the lanes. */
#ifndef VKRR_PTX_JCALLS_H
#define VKRR_PTX_JCALLS_H

#include "ptx_internal.h"

typedef struct ptx_jcalls {
    int (*sync)(ptx_warp *w, const ptx_inst *in); /* ptx_sync_converged */
    void (*approx32)(ptx_warp *w, uint32_t op_ftz, uint64_t *d, const uint64_t *a); /* ptx_approx32 */
    void (*cvt_f8x2)(ptx_warp *w, uint32_t form, uint64_t *d, const uint64_t *a);   /* ptx_cvt_f8x2_32 */
} ptx_jcalls;

extern const ptx_jcalls ptx_jcalls_all; /* ptx_exec.c: every warp's */

/* x_approx's .f32 law (ptx_float.c) for all 32 lanes of register a into d
 * (which may be a): op_ftz is the instruction's in->a | in->c << 8. */
void ptx_approx32(ptx_warp *w, uint32_t op_ftz, uint64_t *d, const uint64_t *a);

/* cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 (ptx_cvt.c's x_cvt_pack, by
 * its tables) for all 32 lanes of register a into d (which may be a): form
 * as ptx_cvt_f8x2_form gives it.  ptx_cvt_f8x2_form: e5m2 | relu << 1 for
 * an instruction of that form, -1 for any other. */
void ptx_cvt_f8x2_32(ptx_warp *w, uint32_t form, uint64_t *d, const uint64_t *a);
int ptx_cvt_f8x2_form(const ptx_inst *in);

#endif
