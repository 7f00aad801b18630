/* ptx_fault.c - a launch's first error: the instruction, its FILE:LINE and
 * the thread, recorded once for the whole launch (ptx_internal.h). */
#include <stdarg.h>
#include <stdio.h>

#include "ptx_internal.h"

int ptx_fault(ptx_warp *w, const ptx_inst *in, int lane, vkrr_status st, const char *fmt, ...)
{
    ptx_cta *cta = w->cta;
    ptx_rt *rt = cta->rt;
    char msg[600], who[160] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (lane >= 0) {
        const uint32_t *b = rt->l->block;
        uint32_t t = w->index * 32u + (uint32_t)lane;
        snprintf(who, sizeof who, " (thread (%u,%u,%u) of block (%u,%u,%u))", t % b[0],
                 (t / b[0]) % b[1], t / (b[0] * b[1]), cta->ctaid[0], cta->ctaid[1], cta->ctaid[2]);
    }
    pthread_mutex_lock(&rt->lock);
    if (!atomic_load(&rt->failed)) {
        const ptx_func *f = rt->f;
        uint32_t pc = in ? (uint32_t)(in - f->code) : f->ncode;
        const char *text = pc < f->nraw ? f->raw[pc].text : "(end of function)";
        long line = pc < f->nraw ? (long)f->raw[pc].line : (long)f->line;
        vkrr_fail(&rt->err, st, rt->m->name, line, -1, "%s: %s%s", text, msg, who);
        atomic_store(&rt->failed, 1);
    }
    pthread_mutex_unlock(&rt->lock);
    return -1;
}
