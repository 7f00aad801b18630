/* ptx_sync.c - the membermask of a .sync instruction (shfl.sync, vote.sync,
 * mma.sync, ...): which lanes meet there, checked as the PTX ISA requires,
 * and the instruction run once a group of lanes naming one mask
 * (ptx_exec.c's scheduler calls both); and the whole step where the warp
 * is converged, which the scheduler and the JIT's code both take. */
#include "ptx_internal.h"

/* Lanes m at a .sync instruction: every one in its own membermask, and the
 * lanes of one mask all naming it (else undefined in the PTX ISA: an error
 * naming them, never a guess). */
int ptx_sync_check(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    if (!m || in->target == UINT32_MAX)
        return 0; /* no lanes, or the full mask for every lane */
    /* the common case, in 32 steps rather than 32 x 32: one mask holding them all */
    uint32_t m0 = ptx_lane_mask(w, in, (unsigned)__builtin_ctz(m)), k1 = m & (m - 1);
    while (k1 && ptx_lane_mask(w, in, (unsigned)__builtin_ctz(k1)) == m0)
        k1 &= k1 - 1;
    if (!k1 && (m0 & m) == m)
        return 0;
    for (uint32_t k = m; k; k &= k - 1) {
        unsigned l = (unsigned)__builtin_ctz(k);
        uint32_t mk = ptx_lane_mask(w, in, l);
        if (!((mk >> l) & 1u))
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                             "membermask 0x%08x omits the lane itself (undefined in the PTX ISA)",
                             mk);
    }
    for (uint32_t k = m; k; k &= k - 1) {
        unsigned l = (unsigned)__builtin_ctz(k);
        uint32_t mk = ptx_lane_mask(w, in, l);
        for (uint32_t q = mk & m; q; q &= q - 1) {
            unsigned j = (unsigned)__builtin_ctz(q);
            if (ptx_lane_mask(w, in, j) != mk)
                return ptx_fault(w, in, (int)j, VKRR_ERR_FAULT,
                                 "lanes %u and %u meet here with different membermasks "
                                 "(0x%08x, 0x%08x): undefined in the PTX ISA",
                                 l, j, mk, ptx_lane_mask(w, in, j));
        }
    }
    return 0;
}

/* Runs a .sync instruction once per group of lanes m that name one mask. */
int ptx_sync_groups(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    for (uint32_t todo = m; todo;) {
        uint32_t g = ptx_lane_mask(w, in, (unsigned)__builtin_ctz(todo)) & m;
        if (in->fn(w, in, g))
            return -1;
        todo &= ~g;
    }
    return 0;
}

/* Where every live lane is running and none is parked, no lane can wait
 * for another: the scheduler's K_SYNC step (ptx_exec.c) is then the
 * instruction run for the running lanes under its guard, and nothing else.
 * Compiled runs take it without going back to the scheduler (ptx_jcalls.h). */
int ptx_sync_converged(ptx_warp *w, const ptx_inst *in)
{
    if (w->parked || (w->live & ~w->active))
        return 0;
    uint32_t m = w->active;
    if (in->guard >= 0) {
        uint32_t p = w->P[in->guard];
        m &= in->gneg ? ~p : p;
    }
    if (in->target == PTX_MASK_ACTIVE) /* pre-.sync forms: the lanes here */
        return m && in->fn(w, in, m) ? -1 : 1;
    if (ptx_sync_check(w, in, m))
        return -1;
    return m && ptx_sync_groups(w, in, m) ? -1 : 1;
}
