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
} ptx_jcalls;

extern const ptx_jcalls ptx_jcalls_all; /* ptx_exec.c: every warp's */

/* x_approx's .f32 law (ptx_float.c) for all 32 lanes of register a into d
 * (which may be a): op_ftz is the instruction's in->a | in->c << 8. */
void ptx_approx32(ptx_warp *w, uint32_t op_ftz, uint64_t *d, const uint64_t *a);

#endif
