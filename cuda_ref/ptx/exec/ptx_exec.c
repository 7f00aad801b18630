/* ptx_exec.c - running a launch: CTAs on host threads, warps of 32 lanes.
 *
 * A warp runs one group of lanes at a time, all at one pc: the lowest pc
 * among its runnable lanes (min-PC scheduling).  A divergent branch splits
 * the group; the lanes left behind keep their pc in lpc[].  When the running
 * group reaches a branch target while other lanes wait, the warp reschedules,
 * so lanes meet again at the first join point they share (for nvcc's
 * structured code, the immediate post-dominator of the branch).  A CTA
 * barrier blocks the lanes that reach it until every non-exited thread of the
 * CTA (or the given count) has arrived; a warp collective (.sync, .aligned)
 * parks its group until every non-exited member lane has reached it.  No
 * progress anywhere is a deadlock, reported as a fault. */
#include <stdio.h>
#include <stdlib.h>

#include "cores.h"
#include "ptx_internal.h"
#include "ptx_jcalls.h"

const ptx_jcalls ptx_jcalls_all = {ptx_sync_converged, ptx_approx32, ptx_cvt_f8x2_32};

/* ---- scheduling within a warp --------------------------------------------------- */
/* Chooses the next group: 1, or 0 when no lane of the warp can run now. */
static int pick(ptx_warp *w)
{
    uint32_t run = w->live & ~w->blocked, free_ = run & ~w->parked & ~w->ylanes;
    if (!free_) {
        w->active = 0;
        return 0;
    }
    /* over all 32 lanes without branches (the compiler vectorises it): a
     * divergent warp picks at every branch and join */
    uint32_t best = UINT32_MAX, g = 0, elig = run & ~w->ylanes;
    for (unsigned l = 0; l < 32; l++) {
        uint32_t pc = (free_ >> l) & 1u ? w->lpc[l] : UINT32_MAX;
        best = pc < best ? pc : best;
    }
    for (unsigned l = 0; l < 32; l++)
        g |= (uint32_t)(((elig >> l) & 1u) && w->lpc[l] == best) << l;
    w->parked &= ~g;
    w->active = g;
    w->pc = best;
    return 1;
}

/* Leaves the running group's lanes at pc and picks again. */
static void save_group(ptx_warp *w, uint32_t pc)
{
    for (uint32_t m = w->active; m; m &= m - 1)
        w->lpc[__builtin_ctz(m)] = pc;
}

static uint32_t first_value(ptx_warp *w, uint32_t slot, uint32_t m)
{
    return (uint32_t)PTX_R(w, slot)[__builtin_ctz(m)];
}

/* Arrival of lanes m at barrier instruction in. */
static int bar_arrive(ptx_warp *w, const ptx_inst *in, uint32_t m, uint32_t pc)
{
    ptx_cta *cta = w->cta;
    uint32_t b = first_value(w, in->o[0], m);
    if (b >= 16)
        return ptx_fault(w, in, __builtin_ctz(m), VKRR_ERR_FAULT, "barrier %u (0..15 exist)", b);
    if (in->c) {
        uint32_t n = first_value(w, in->o[1], m);
        if (n == 0 || n % 32u || n > 1024u)
            return ptx_fault(w, in, __builtin_ctz(m), VKRR_ERR_FAULT,
                             "thread count %u (a non-zero multiple of 32 up to 1024)", n);
        cta->bar_count[b] = n;
    }
    cta->bar_arrived[b] += (uint32_t)__builtin_popcount(m);
    if (in->a == 2) {
        uint32_t p = w->P[in->o[3]];
        if (in->d)
            p = ~p;
        p &= m;
        if (cta->bar_red_op[b] == 0xff) {
            cta->bar_red_op[b] = in->b;
            cta->bar_red[b] = in->b == 1 ? 1u : 0u;
        }
        if (in->b == 0)
            cta->bar_red[b] += (uint32_t)__builtin_popcount(p);
        else if (in->b == 1)
            cta->bar_red[b] &= p == m;
        else
            cta->bar_red[b] |= p != 0;
    }
    if (in->a == 1)
        return 0; /* bar.arrive does not wait */
    for (uint32_t k = m; k; k &= k - 1) {
        unsigned l = (unsigned)__builtin_ctz(k);
        w->lpc[l] = pc;
        w->lbar[l] = (uint8_t)b;
    }
    w->blocked |= m;
    w->active &= ~m;
    return 0;
}

/* Runs the warp until none of its lanes can run. 0, or -1 after a fault. */
static inline void cov_ran(uint8_t *cov, size_t pc)
{
    if (!(__atomic_load_n(&cov[pc], __ATOMIC_RELAXED) & PTX_COV_RAN))
        __atomic_fetch_or(&cov[pc], (uint8_t)PTX_COV_RAN, __ATOMIC_RELAXED);
}

/* A branch's target for lane l: bra's, call's, or the one brx.idx's index names */
static uint32_t lane_target(ptx_warp *w, const ptx_inst *in, unsigned l)
{
    return in->kind == K_BRX ? in->ox[(uint32_t)PTX_R(w, in->o[0])[l]] : in->target;
}

/* brx.idx: each lane's index within its list (past it, undefined in the ISA,
 * a fault); *one whether lanes m all go to one target */
static int brx_check(ptx_warp *w, const ptx_inst *in, uint32_t m, bool *one)
{
    const uint64_t *I = PTX_R(w, in->o[0]);
    for (uint32_t k = m; k; k &= k - 1) {
        unsigned l = (unsigned)__builtin_ctz(k);
        if ((uint32_t)I[l] >= in->imm)
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "brx.idx: index %u is past its %u targets "
                             "(undefined in the PTX ISA)", (uint32_t)I[l], (unsigned)in->imm);
        *one = *one && in->ox[(uint32_t)I[l]] == in->ox[(uint32_t)I[__builtin_ctz(m)]];
    }
    return 0;
}

static int run_warp(ptx_warp *w)
{
    ptx_rt *rt = w->cta->rt;
    const ptx_inst *code = rt->f->code;
    uint8_t *cov = rt->f->cov; /* coverage: each instruction some lane ran */
    uint64_t steps = w->cta->steps, limit = rt->max_steps;
    const ptx_jit_seq *jit = rt->jit; /* compiled runs of plain instructions, or NULL */
    w->yielded = false;
    w->ylanes = 0;
    if (!w->active && !pick(w))
        return 0;
    for (;;) {
        const ptx_inst *in = code + w->pc;
        uint32_t m;
        for (;;) {
            if (jit && jit[in - code].fn && steps + jit[in - code].len <= limit) {
                /* compiled runs: as the loop below would step through them.
                 * A run goes on through a branch or a .sync instruction
                 * where this loop would without regrouping the warp, within
                 * the step budget; w->pc is where it stopped, often the
                 * next run, which this loop then calls (not the run itself:
                 * a call there grew the stack a run's frame a run). */
                const ptx_jit_seq *run = &jit[in - code];
                w->jbudget = limit - steps - run->len;
                if (run->fn(w, w->active, code, run->tab))
                    goto fault;
                in = code + w->pc;
                steps = limit - w->jbudget;
                if ((in->flags & F_TARGET) && (w->live & ~w->active))
                    goto resched;
                continue;
            }
            m = w->active;
            if (in->guard >= 0) {
                uint32_t p = w->P[in->guard];
                m &= in->gneg ? ~p : p;
            }
            if (in->kind != K_PLAIN)
                break;
            if (m && cov)
                cov_ran(cov, (size_t)(in - code));
            if (m && in->fn(w, in, m))
                goto fault;
            in++;
            if (++steps > limit) {
                w->pc = (uint32_t)(in - code);
                goto timeout;
            }
            if ((in->flags & F_TARGET) && (w->live & ~w->active))
                goto resched;
        }
        uint32_t pc = (uint32_t)(in - code);
        bool one_target = true; /* brx.idx: every lane of m names the same target */
        w->pc = pc;
        if (++steps > limit)
            goto timeout;
        if (m && cov)
            cov_ran(cov, pc);
        switch (in->kind) {
        case K_CALL: {
            char why[300];
            int bad = m ? ptx_call_enter(w, in, m, pc, why, sizeof why) : -1;
            if (bad >= 0) {
                ptx_fault(w, in, bad, VKRR_ERR_FAULT, "%s", why);
                goto fault;
            }
            if (!in->a)
                goto branch; /* lanes m to the callee, the others on */
            goto gone;       /* through a pointer: each lane to its own callee */
        }
        case K_RET:
            if (m)
                ptx_call_leave(w, in, m); /* each lane to its own return address */
        gone: /* lanes m went to pcs of their own; the others go on */
            w->active &= ~m;
            w->pc = pc + 1;
            if (w->active)
                continue;
            if (!pick(w))
                goto out;
            continue;
        case K_BRX: /* each lane to the target its own index names */
            if (m && brx_check(w, in, m, &one_target) < 0)
                goto fault;
            goto branch;
        case K_BRA:
            if (rt->f->cov && in->guard >= 0) /* a conditional branch: which ways it went */
                __atomic_fetch_or(&rt->f->cov[pc],
                                  (uint8_t)(PTX_COV_RAN | (m ? PTX_COV_TAKEN : 0) |
                                            (w->active & ~m ? PTX_COV_FELL : 0)),
                                  __ATOMIC_RELAXED);
        branch:
            if (m == w->active && one_target) {
                w->pc = lane_target(w, in, (unsigned)__builtin_ctz(m));
                if (w->live & ~w->active)
                    goto resched_at;
                continue;
            }
            if (m == 0) {
                w->pc = pc + 1;
                continue;
            }
            for (uint32_t k = w->active; k; k &= k - 1) {
                unsigned l = (unsigned)__builtin_ctz(k);
                w->lpc[l] = (m >> l) & 1u ? lane_target(w, in, l) : pc + 1;
            }
            w->active = 0;
            if (!pick(w))
                goto out;
            continue;
        case K_EXIT:
            w->live &= ~m;
            w->active &= ~m;
            w->pc = pc + 1;
            if (w->active)
                continue;
            if (!pick(w))
                goto out;
            continue;
        case K_TRAP:
            if (m) {
                ptx_fault(w, in, __builtin_ctz(m), VKRR_ERR_FAULT, "the kernel executed trap");
                goto fault;
            }
            w->pc = pc + 1;
            continue;
        case K_BAR:
            w->pc = pc + 1;
            if (m && bar_arrive(w, in, m, pc) < 0)
                goto fault;
            if (w->active)
                continue;
            if (!pick(w))
                goto out;
            continue;
        case K_WAIT: /* a wait that has not completed ends this turn: the others run */
            w->pc = pc + 1;
            if (m && in->fn(w, in, m))
                goto fault;
            if (w->yield) { /* the warp's other lanes may be the ones to arrive */
                w->yield = false;
                save_group(w, pc + 1);
                w->ylanes |= w->active;
                w->active = 0;
                if (!pick(w)) {
                    w->yielded = true;
                    goto out;
                }
            }
            continue;
        case K_SYNC: {
            int conv = ptx_sync_converged(w, in); /* as compiled runs take it */
            if (conv < 0)
                goto fault;
            if (conv) {
                w->pc = pc + 1;
                continue;
            }
            /* lanes parked here join the group first */
            for (uint32_t k = w->parked; k; k &= k - 1)
                if (w->lpc[__builtin_ctz(k)] == pc)
                    w->active |= 1u << __builtin_ctz(k);
            w->parked &= ~w->active;
            m = w->active;
            if (in->guard >= 0) {
                uint32_t p = w->P[in->guard];
                m &= in->gneg ? ~p : p;
            }
            if (in->target == PTX_MASK_ACTIVE) { /* pre-.sync forms: the lanes here */
                if (m && in->fn(w, in, m))
                    goto fault;
                w->pc = pc + 1;
                continue;
            }
            /* each lane names its own membermask (cooperative groups pass a
             * tile's): a lane waits until every live lane of its mask is here */
            if (ptx_sync_check(w, in, m))
                goto fault;
            uint32_t wait = 0;
            for (uint32_t k = m; k; k &= k - 1)
                if (ptx_lane_mask(w, in, (unsigned)__builtin_ctz(k)) & w->live & ~w->active)
                    wait |= 1u << __builtin_ctz(k);
            if (wait && !(m & ~wait)) { /* nobody can go: the whole group waits */
                save_group(w, pc);
                w->parked |= w->active;
                w->active = 0;
                if (!pick(w))
                    goto out;
                continue;
            }
            if (wait) { /* those whose masks are complete go on; the others wait here */
                for (uint32_t k = wait; k; k &= k - 1)
                    w->lpc[__builtin_ctz(k)] = pc;
                w->parked |= wait;
                w->active &= ~wait;
                m &= ~wait;
            }
            if (m && ptx_sync_groups(w, in, m))
                goto fault;
            w->pc = pc + 1;
            continue;
        }
        default:
            ptx_fault(w, in, -1, VKRR_ERR_INTERNAL, "unknown instruction kind %u", in->kind);
            goto fault;
        }
    resched:
        w->pc = (uint32_t)(in - code);
    resched_at:
        save_group(w, w->pc);
        w->active = 0;
        if (!pick(w))
            goto out;
    }
out:
    w->cta->steps = steps;
    return 0;
timeout:
    w->cta->steps = steps;
    return ptx_fault(w, code + w->pc, -1, VKRR_ERR_FAULT,
                     "the block ran %llu warp instructions without finishing (a hang?)",
                     (unsigned long long)limit);
fault:
    w->cta->steps = steps;
    return -1;
}

/* ---- CTAs ------------------------------------------------------------------------ */
static uint32_t cta_live_threads(const ptx_cta *cta)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < cta->nwarps; i++)
        n += (uint32_t)__builtin_popcount(cta->warps[i].live);
    return n;
}

/* Releases every barrier whose count is reached.  true when one was. */
static bool release_barriers(ptx_cta *cta)
{
    bool any = false;
    uint32_t live = cta_live_threads(cta);
    const ptx_inst *code = cta->rt->f->code;
    for (uint32_t b = 0; b < 16; b++) {
        if (!cta->bar_arrived[b])
            continue;
        uint32_t want = cta->bar_count[b] ? cta->bar_count[b] : live;
        if (cta->bar_arrived[b] < want)
            continue;
        for (uint32_t i = 0; i < cta->nwarps; i++) {
            ptx_warp *w = &cta->warps[i];
            for (uint32_t k = w->blocked & w->live; k; k &= k - 1) {
                unsigned l = (unsigned)__builtin_ctz(k);
                if (w->lbar[l] != b)
                    continue;
                const ptx_inst *in = code + w->lpc[l];
                if (in->a == 2) {
                    if (in->b == 0)
                        PTX_R(w, in->o[2])[l] = cta->bar_red[b];
                    else if (cta->bar_red[b])
                        w->P[in->o[2]] |= 1u << l;
                    else
                        w->P[in->o[2]] &= ~(1u << l);
                }
                w->lpc[l]++;
                w->blocked &= ~(1u << l);
            }
        }
        cta->bar_arrived[b] = 0;
        cta->bar_count[b] = 0;
        cta->bar_red_op[b] = 0xff;
        any = true;
    }
    return any;
}

static int deadlock(ptx_cta *cta)
{
    const ptx_inst *code = cta->rt->f->code;
    for (uint32_t i = 0; i < cta->nwarps; i++) {
        ptx_warp *w = &cta->warps[i];
        uint32_t k = w->live & (w->blocked | w->parked);
        if (!k)
            continue;
        unsigned l = (unsigned)__builtin_ctz(k);
        const ptx_inst *in = code + w->lpc[l];
        if (w->blocked & (1u << l)) {
            uint32_t b = w->lbar[l];
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                             "deadlock: barrier %u waits for %u threads, %u arrived", b,
                             cta->bar_count[b] ? cta->bar_count[b] : cta_live_threads(cta),
                             cta->bar_arrived[b]);
        }
        return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                         "deadlock: a warp collective waits for lanes that never arrive");
    }
    return ptx_fault(&cta->warps[0], NULL, -1, VKRR_ERR_INTERNAL, "the block stopped making progress");
}

/* Every warp that ran only waited on mbarrier phases, twice in a row, and no
 * mbarrier changed: none of those phases can complete. */
static int mbarrier_deadlock(ptx_cta *cta)
{
    const ptx_inst *code = cta->rt->f->code;
    for (uint32_t i = 0; i < cta->nwarps; i++) {
        ptx_warp *w = &cta->warps[i];
        uint32_t k = w->live & ~w->blocked & ~w->parked;
        if (w->yielded && k) {
            unsigned l = (unsigned)__builtin_ctz(k);
            return ptx_fault(w, code + w->lpc[l] - 1, (int)l, VKRR_ERR_FAULT,
                             "deadlock: every running warp waits on an mbarrier phase that never "
                             "completes (nothing arrives)");
        }
    }
    return deadlock(cta);
}

static int run_cta(ptx_cta *cta)
{
    unsigned idle = 0;
    for (;;) {
        bool ran = false, live = false, only_waited = true;
        uint64_t epoch = cta->mbar_epoch;
        for (uint32_t i = 0; i < cta->nwarps; i++) {
            ptx_warp *w = &cta->warps[i];
            if (!w->live)
                continue;
            live = true;
            if (!(w->live & ~w->blocked & ~w->parked))
                continue;
            ran = true;
            if (run_warp(w) < 0)
                return -1;
            only_waited &= w->yielded;
        }
        if (!live)
            return 0;
        if (atomic_load_explicit(&cta->rt->failed, memory_order_relaxed))
            return -1;
        if (release_barriers(cta)) {
            idle = 0;
            continue;
        }
        if (!ran)
            return deadlock(cta);
        idle = only_waited && cta->mbar_epoch == epoch ? idle + 1 : 0;
        if (idle >= 2)
            return mbarrier_deadlock(cta);
    }
}

typedef struct worker {
    ptx_rt *rt;
    pthread_t th;
    bool started;
} worker;

static void *worker_main(void *arg)
{
    ptx_rt *rt = ((worker *)arg)->rt;
    const ptx_func *f = rt->f;
    const vkrr_ptx_launch *l = rt->l;
    uint32_t nthreads = l->block[0] * l->block[1] * l->block[2];
    uint32_t nwarps = (nthreads + 31) / 32;
    uint64_t nctas = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    ptx_cta cta;
    memset(&cta, 0, sizeof cta);
    cta.rt = rt;
    cta.nwarps = nwarps;
    cta.nthreads = nthreads;
    cta.warps = calloc(nwarps, sizeof *cta.warps);
    uint64_t *R = calloc((size_t)nwarps * f->nslots * 32u, sizeof *R);
    uint32_t *P = calloc((size_t)nwarps * (f->npreds ? f->npreds : 1), sizeof *P);
    /* the windows: host memory the kernel's generic addresses reach */
    size_t nlocal = (size_t)nwarps * 32u * (rt->local_bytes ? rt->local_bytes : 1);
    uint8_t *local = ptx_host_mem(l, nlocal);
    cta.shared = ptx_host_mem(l, rt->shared_bytes);
    if (!cta.warps || !R || !P || !local || !cta.shared) {
        pthread_mutex_lock(&rt->lock);
        if (!atomic_load(&rt->failed)) {
            vkrr_fail(&rt->err, VKRR_ERR_NOMEM, rt->m->name, 0, -1,
                      "no memory for a block's registers (%u warps x %u slots)", nwarps, f->nslots);
            atomic_store(&rt->failed, 1);
        }
        pthread_mutex_unlock(&rt->lock);
        goto done;
    }
    /* generic addresses of the shared and local windows are host addresses */
    if (ptx_rt_windows_clash(rt, cta.shared, rt->shared_bytes ? rt->shared_bytes : 1, local, nlocal))
        goto done;
    for (uint32_t i = 0; i < nwarps; i++) {
        ptx_warp *w = &cta.warps[i];
        w->R = R + (size_t)i * f->nslots * 32u;
        w->P = P + (size_t)i * (f->npreds ? f->npreds : 1);
        w->local = local + (size_t)i * 32u * rt->local_bytes;
        w->cta = &cta;
        w->index = i;
        w->jcalls = &ptx_jcalls_all;
        for (uint32_t k = 0; k < f->nconst; k++) {
            uint64_t *s = PTX_R(w, f->nsreg + k);
            for (unsigned lane = 0; lane < 32; lane++)
                s[lane] = rt->consts[k];
        }
    }
    for (;;) {
        if (atomic_load(&rt->failed))
            break;
        uint64_t idx = atomic_fetch_add(&rt->next_cta, 1);
        if (idx >= nctas)
            break;
        cta.ctaid[0] = (uint32_t)(idx % l->grid[0]);
        cta.ctaid[1] = (uint32_t)((idx / l->grid[0]) % l->grid[1]);
        cta.ctaid[2] = (uint32_t)(idx / ((uint64_t)l->grid[0] * l->grid[1]));
        cta.steps = 0;
        cta.mbar_epoch = 0;
        memset(cta.bar_arrived, 0, sizeof cta.bar_arrived);
        memset(cta.bar_count, 0, sizeof cta.bar_count);
        memset(cta.bar_red_op, 0xff, sizeof cta.bar_red_op);
        memset(cta.shared, 0, rt->shared_bytes);
        if (rt->local_static == rt->local_bytes) {
            memset(local, 0, (size_t)nwarps * 32u * rt->local_bytes);
        } else { /* the variables start zeroed; the call stack is written before it is read */
            for (size_t k = 0; k < (size_t)nwarps * 32u; k++)
                memset(local + k * rt->local_bytes, 0, rt->local_static);
        }
        for (uint32_t i = 0; i < nwarps; i++) {
            ptx_warp *w = &cta.warps[i];
            uint32_t n = nthreads - i * 32u;
            w->live = n >= 32 ? 0xffffffffu : (1u << n) - 1u;
            w->active = w->live;
            w->pc = 0;
            w->blocked = w->parked = w->cc = 0;
            w->clock = 0;
            w->yield = w->yielded = false;
            w->ylanes = 0;
            for (unsigned lane = 0; lane < 32; lane++) {
                w->fp[lane] = w->sp[lane] = (uint32_t)rt->local_static;
                w->depth[lane] = 0;
            }
            for (uint32_t s = 0; s < f->nsreg; s++) {
                uint64_t *d = PTX_R(w, s);
                for (unsigned lane = 0; lane < 32; lane++)
                    d[lane] = ptx_sreg_value(rt, &cta, w, f->sreg_at[s], lane);
            }
        }
        if (run_cta(&cta) < 0)
            break;
    }
done:
    free(cta.warps);
    free(R);
    free(P);
    ptx_host_mem_free(local);
    ptx_host_mem_free(cta.shared);
    return NULL;
}

vkrr_status ptx_run_launch(const vkrr_ptx_module *m, const char *entry, const vkrr_ptx_launch *l,
                          vkrr_error *err)
{
    const ptx_func *f = NULL;
    if (l && l->printf_out)
        *l->printf_out = NULL;
    for (uint32_t i = 0; m && entry && i < m->nfuncs; i++)
        if (m->funcs[i].entry && m->funcs[i].defined && !strcmp(m->funcs[i].name, entry))
            f = &m->funcs[i];
    if (!f)
        return vkrr_fail(err, VKRR_ERR_NO_PORT, m ? m->name : NULL, 0, -1, "no .entry named %s",
                         entry ? entry : "(null)");
    if (f->status != VKRR_OK) {
        /* What keeps a kernel from running costs only its launches (an ERROR
         * naming file and line); a parse error's scope would end the run. */
        vkrr_status st = f->status;
        if (st != VKRR_ERR_NOMEM && vkrr_status_ends_run(st, false))
            st = VKRR_ERR_UNSUPPORTED;
        if (err) {
            *err = f->err;
            err->status = st;
        }
        return st;
    }
    uint64_t nthreads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    uint64_t nctas = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (nthreads == 0 || nthreads > 1024 || nctas == 0 || l->block[2] > 64 || l->grid[1] > 65535 ||
        l->grid[2] > 65535)
        return vkrr_fail(err, VKRR_ERR_RANGE, m->name, (long)f->line, -1,
                         "%s: a launch of %ux%ux%u blocks of %ux%ux%u threads is not a valid CUDA launch",
                         f->name, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
                         l->block[2]);
    if (f->reqntid[0] && (l->block[0] != f->reqntid[0] || l->block[1] != f->reqntid[1] ||
                          l->block[2] != f->reqntid[2]))
        return vkrr_fail(err, VKRR_ERR_RANGE, m->name, (long)f->line, -1,
                         "%s requires blocks of %ux%ux%u threads (.reqntid), the launch has %ux%ux%u",
                         f->name, f->reqntid[0], f->reqntid[1], f->reqntid[2], l->block[0],
                         l->block[1], l->block[2]);
    if (f->maxntid[0] &&
        nthreads > (uint64_t)f->maxntid[0] * (f->maxntid[1] ? f->maxntid[1] : 1) *
                       (f->maxntid[2] ? f->maxntid[2] : 1))
        return vkrr_fail(err, VKRR_ERR_RANGE, m->name, (long)f->line, -1,
                         "%s allows at most %u threads a block (.maxntid), the launch has %llu",
                         f->name, f->maxntid[0] * (f->maxntid[1] ? f->maxntid[1] : 1) *
                                      (f->maxntid[2] ? f->maxntid[2] : 1),
                         (unsigned long long)nthreads);
    if (l->params_bytes < f->params_bytes)
        return vkrr_fail(err, VKRR_ERR_SIZE, m->name, (long)f->line, -1,
                         "%s takes %u bytes of parameters, the launch has %u", f->name,
                         f->params_bytes, l->params_bytes);
    uint64_t shared = f->shared_static + l->shared_bytes;
    if (shared > 227u * 1024u)
        return vkrr_fail(err, VKRR_ERR_RANGE, m->name, (long)f->line, -1,
                         "%s needs %llu bytes of shared memory (more than 227 KiB)", f->name,
                         (unsigned long long)shared);

    /* the JIT's code is the module's cache: the module stays logically const */
    const ptx_jit_seq *jit;
    const char *used;
    vkrr_status st = ptx_jit_choose((vkrr_ptx_module *)m, (ptx_func *)f, l->engine,
                                    !l->jit_no_cache, &jit, &used, err);
    if (st != VKRR_OK)
        return st;
    if (l->engine_used)
        *l->engine_used = used;
    if (l->jit_runs)
        *l->jit_runs = jit ? f->jit_runs : 0;
    if (l->jit_functions)
        *l->jit_functions = jit ? f->jit_fns : 0;
    st = VKRR_ERR_NOMEM;
    ptx_rt *rt = calloc(1, sizeof *rt);
    worker *ws = NULL;
    if (!rt)
        return vkrr_fail(err, VKRR_ERR_NOMEM, m->name, 0, -1, "out of memory");
    pthread_mutex_init(&rt->lock, NULL);
    rt->m = m;
    rt->f = f;
    rt->l = l;
    rt->params_bytes = l->params_bytes;
    rt->params = ptx_host_mem(l, l->params_bytes);
    rt->globals = ptx_host_mem(l, m->global_bytes);
    rt->constmem = ptx_host_mem(l, m->const_bytes);
    rt->consts = calloc(f->nconst ? f->nconst : 1, sizeof *rt->consts);
    rt->heap = f->uses_heap ? ptx_heap_new(l) : NULL;
    if (!rt->params || !rt->globals || !rt->constmem || !rt->consts || (f->uses_heap && !rt->heap))
        goto nomem;
    if (l->params_bytes)
        memcpy(rt->params, l->params, l->params_bytes);
    ptx_module_data(m, rt->globals, rt->constmem);
    if (l->memory_note && l->memory_note_cap)
        l->memory_note[0] = 0;
    if ((st = ptx_rt_regions(rt, err)) != VKRR_OK)
        goto out;
    for (uint32_t i = 0; i < f->nconst; i++) {
        uint64_t v = f->const_val[i];
        if (f->const_var[i] >= 0) {
            const ptx_var *var = &m->vars[f->const_var[i]];
            v += (uint64_t)(uintptr_t)(var->space == SP_GLOBAL ? rt->globals : rt->constmem) +
                 var->offset;
        }
        rt->consts[i] = v;
    }
    rt->local_bytes = f->local_bytes;
    rt->local_static = f->local_static;
    rt->shared_bytes = shared;
    rt->max_steps = l->max_steps ? l->max_steps : (1ull << 40);
    rt->jit = jit;
    unsigned threads = l->threads ? l->threads : vkrr_cores(64); /* CTAs on every core */
    const char *env = getenv("VKRR_PTX_THREADS");
    if (!l->threads && env && atoi(env) >= 1 && atoi(env) <= 64)
        threads = (unsigned)atoi(env);
    if (threads > nctas)
        threads = (unsigned)nctas;
    ws = calloc(threads, sizeof *ws);
    if (!ws)
        goto nomem;
    if (l->workers)
        *l->workers = threads;
    if (l->worker_bytes) { /* as worker_main allocates */
        uint64_t nwarps = ((uint64_t)l->block[0] * l->block[1] * l->block[2] + 31) / 32;
        *l->worker_bytes = nwarps * (sizeof(ptx_warp) + (uint64_t)f->nslots * 32u * sizeof(uint64_t) +
                                     (f->npreds ? f->npreds : 1) * sizeof(uint32_t) +
                                     32u * (rt->local_bytes ? rt->local_bytes : 1)) +
                           (rt->shared_bytes ? rt->shared_bytes : 1);
    }
    for (unsigned i = 0; i < threads; i++) {
        ws[i].rt = rt;
        if (i > 0)
            ws[i].started = pthread_create(&ws[i].th, NULL, worker_main, &ws[i]) == 0;
    }
    worker_main(&ws[0]);
    for (unsigned i = 1; i < threads; i++)
        if (ws[i].started)
            pthread_join(ws[i].th, NULL);
    if (l->standins)
        *l->standins = f->standins | atomic_load(&rt->standins);
    if (l->memory_note && l->memory_note_cap && rt->memory_note)
        snprintf(l->memory_note, l->memory_note_cap, "%s", rt->memory_note);
    {
        char *text = ptx_prints_collect(&rt->prints, l->printf_out != NULL);
        if (l->printf_out)
            *l->printf_out = text;
    }
    if (atomic_load(&rt->failed)) {
        st = rt->err.status;
        if (err)
            *err = rt->err;
    } else {
        st = VKRR_OK;
    }
    goto out;
nomem:
    st = vkrr_fail(err, VKRR_ERR_NOMEM, m->name, 0, -1, "out of memory for the launch");
out:
    free(ws);
    ptx_host_mem_free(rt->params);
    ptx_host_mem_free(rt->globals);
    ptx_host_mem_free(rt->constmem);
    free(rt->regions);
    free(rt->ihint);
    free(rt->memory_note);
    free(rt->consts);
    ptx_heap_free(rt->heap);
    pthread_mutex_destroy(&rt->lock);
    free(rt);
    return st;
}
