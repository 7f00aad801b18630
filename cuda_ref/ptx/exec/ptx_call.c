/* ptx_call.c - running calls: a call's entry and its return on each lane's
 * stack (ptx_link.c decodes them).
 *
 * A call copies its arguments (the caller's .param variables) into the
 * callee's parameters and, at ret, the callee's results into the caller's
 * variables, as the PTX ABI passes them through .param memory.  Each call
 * pushes a record (where to return, the caller's frame, which call) on the
 * thread's stack in its local window; a call into a recursive function
 * pushes the callee's frame too: its variables (zeroed, as local memory
 * starts) and its registers as they were, put back at ret.  vprintf and
 * __assertfail run in ptx_runtime.c; alloca and its kin in ptx_stack.c. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_internal.h"

typedef struct call_record {
    uint32_t ret_pc, caller_fp, call, depth;
} call_record;

/* ---- running ------------------------------------------------------------------------ */
static uint8_t *save_area(const ptx_seg *s, uint8_t *lane_local, uint32_t fp)
{
    return lane_local + fp + ((s->frame_locals + 15u) & ~15u);
}

/* The segment lane l calls, or -1 with why (a function pointer that is no
 * function of this program, or one whose parameters differ from the call's). */
static int32_t callee_of(const ptx_warp *w, const ptx_inst *in, unsigned l, char *why, size_t cap)
{
    const ptx_rt *rt = w->cta->rt;
    const ptx_func *f = rt->f;
    const ptx_call *call = &f->calls[in->imm];
    if (!call->indirect)
        return (int32_t)call->seg;
    uint64_t v = PTX_R(w, in->o[0])[l], k = (v - PTX_FN_BASE) / 16u;
    int32_t s = v >= PTX_FN_BASE && (v - PTX_FN_BASE) % 16u == 0 && k < rt->m->nfuncs
                    ? f->seg_of[k] : -1;
    if (s < 0) {
        snprintf(why, cap, "calls through the pointer 0x%llx, which is not the address of a "
                           "function of this kernel", (unsigned long long)v);
        return -1;
    }
    const ptx_func *g = &rt->m->funcs[k];
    bool ok = g->nparams == call->nargs && g->nrets == call->nrets;
    for (uint32_t j = 0; ok && j < call->nargs + call->nrets; j++)
        ok = f->copies[call->args0 + j].bytes >=
             (j < call->nargs ? g->params[j].size : g->rets[j - call->nargs].size);
    if (!ok) {
        snprintf(why, cap, "calls '%s' through a pointer with arguments and results that are not "
                           "its parameters (%u and %u passed, it takes %u and %u)",
                 g->name, call->nargs, call->nrets, g->nparams, g->nrets);
        return -1;
    }
    return s;
}

/* Where the callee's parameter or result variable var is for lane l, once
 * its frame is fp. */
static uint8_t *callee_var(const ptx_func *f, uint8_t *mine, uint32_t var, uint32_t fp)
{
    return mine + (f->var_frame[var] ? fp : 0) + f->var_off[var];
}

int ptx_call_enter(ptx_warp *w, const ptx_inst *in, uint32_t m, uint32_t pc, char *why, size_t cap)
{
    ptx_rt *rt = w->cta->rt;
    const ptx_func *f = rt->f;
    const ptx_call *call = &f->calls[in->imm];
    uint64_t lb = rt->local_bytes;
    uint8_t fs = f->sreg_of[SR_FRAME];
    PTX_LANES(m, {
        int32_t si = callee_of(w, in, l, why, cap);
        if (si < 0)
            return (int)l;
        const ptx_seg *s = &f->segs[si];
        const ptx_func *g = &rt->m->funcs[s->func];
        uint32_t sp = w->sp[l], fp = sp + PTX_CALL_RECORD;
        uint8_t *mine = w->local + (size_t)l * lb;
        if ((uint64_t)sp + s->frame_bytes > lb) {
            snprintf(why, cap, "calls nested too deep: '%s' at depth %u needs more than the "
                               "%llu-byte call stack a thread has here",
                     g->name, w->depth[l] + 1u, (unsigned long long)(lb - f->local_static));
            return (int)l;
        }
        call_record rec = {pc + 1u, w->fp[l], (uint32_t)in->imm, w->depth[l]};
        memcpy(mine + sp, &rec, sizeof rec);
        if (s->recursive) {
            memset(mine + fp, 0, s->frame_locals);
            uint64_t *save = (uint64_t *)(void *)save_area(s, mine, fp);
            for (uint32_t k = 0; k < s->nsave; k++)
                save[k] = PTX_R(w, s->save_slots[k])[l];
            uint8_t *pb = (uint8_t *)(save + s->nsave);
            for (uint32_t k = 0; k < s->npsave; k++)
                pb[k] = (uint8_t)((w->P[s->save_preds[k]] >> l) & 1u);
        }
        for (uint32_t k = 0; k < call->nargs; k++) {
            const ptx_copy *cp = &f->copies[call->args0 + k];
            memmove(callee_var(f, mine, g->param_var[k], fp),
                    mine + (cp->frame ? w->fp[l] : 0) + cp->off, g->params[k].size);
        }
        w->sp[l] = sp + s->frame_bytes;
        w->fp[l] = fp;
        w->depth[l]++;
        w->lpc[l] = s->pc0;
        if (fs != 0xff)
            PTX_R(w, fs)[l] = fp;
    });
    return -1;
}

void ptx_call_leave(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    ptx_rt *rt = w->cta->rt;
    const ptx_func *f = rt->f;
    const ptx_seg *s = &f->segs[in->imm];
    const ptx_func *g = &rt->m->funcs[s->func];
    uint64_t lb = rt->local_bytes;
    uint8_t fs = f->sreg_of[SR_FRAME];
    PTX_LANES(m, {
        uint32_t fp = w->fp[l];
        uint8_t *mine = w->local + (size_t)l * lb;
        call_record rec;
        memcpy(&rec, mine + fp - PTX_CALL_RECORD, sizeof rec);
        const ptx_call *call = &f->calls[rec.call];
        for (uint32_t k = 0; k < call->nrets; k++) {
            const ptx_copy *cp = &f->copies[call->rets0 + k];
            memmove(mine + (cp->frame ? rec.caller_fp : 0) + cp->off,
                    callee_var(f, mine, g->ret_var[k], fp), g->rets[k].size);
        }
        if (s->recursive) {
            const uint64_t *save = (const uint64_t *)(const void *)save_area(s, mine, fp);
            for (uint32_t k = 0; k < s->nsave; k++)
                PTX_R(w, s->save_slots[k])[l] = save[k];
            const uint8_t *pb = (const uint8_t *)(save + s->nsave);
            for (uint32_t k = 0; k < s->npsave; k++)
                w->P[s->save_preds[k]] = (w->P[s->save_preds[k]] & ~(1u << l)) | ((uint32_t)pb[k] << l);
        }
        w->sp[l] = fp - PTX_CALL_RECORD;
        w->fp[l] = rec.caller_fp;
        w->depth[l] = rec.depth;
        w->lpc[l] = rec.ret_pc;
        if (fs != 0xff)
            PTX_R(w, fs)[l] = rec.caller_fp;
    });
}
