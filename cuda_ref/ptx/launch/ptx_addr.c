/* ptx_addr.c - a lane's address to host memory: the state space's window
 * (shared, local, param, const, the module's globals) or one of the launch's
 * regions, checked for bounds, alignment and writability; a fault otherwise. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_internal.h"

static const char *space_name(unsigned sp)
{
    switch (sp) {
    case SP_GLOBAL: return "global";
    case SP_SHARED: return "shared";
    case SP_LOCAL: return "local";
    case SP_PARAM: return "param";
    case SP_CONST: return "const";
    default: return "generic";
    }
}

/* An access of bytes at a that no region holds whole: after is the first
 * region that begins above a.  The device would not have served it from the
 * region below (the capture holds nothing past its end), so a fault naming
 * that region, how far past its end the access reaches, and what follows. */
static void outside(ptx_warp *w, const ptx_inst *in, int l, unsigned sp, uint64_t a,
                    unsigned bytes, uint32_t after)
{
    const ptx_rt *rt = w->cta->rt;
    const ptx_region_rt *below = after ? &rt->regions[after - 1] : NULL;
    const ptx_region_rt *above = after < rt->nregions ? &rt->regions[after] : NULL;
    char nb[96], na[96], next[160] = "";
    if (above) {
        ptx_region_name(above, na, sizeof na);
        snprintf(next, sizeof next, "; the next is %s", na);
    }
    if (!below || a + bytes <= below->lo) {
        ptx_fault(w, in, l, VKRR_ERR_FAULT,
                  "%s address 0x%llx (%u bytes) is in no allocation of this launch%s",
                  space_name(sp), (unsigned long long)a, bytes, next);
        return;
    }
    ptx_region_name(below, nb, sizeof nb);
    uint64_t end = (uint64_t)below->hi;
    if (a >= end)
        ptx_fault(w, in, l, VKRR_ERR_FAULT, "%s address 0x%llx (%u bytes) is %llu bytes past the "
                  "end of %s%s", space_name(sp), (unsigned long long)a, bytes,
                  (unsigned long long)(a - end), nb, next);
    else
        ptx_fault(w, in, l, VKRR_ERR_FAULT, "%s address 0x%llx (%u bytes) runs %llu bytes past the "
                  "end of %s%s", space_name(sp), (unsigned long long)a, bytes,
                  (unsigned long long)(a + bytes - end), nb, next);
}

/* One instruction reached regions i and then j of the table.  Where both are
 * the launch's and lie next to each other, that may be an overrun from one
 * into the other, which the GPU (the same layout) served too: the first such
 * is the launch's memory note, never silent and never a fault. */
static void neighbours(ptx_warp *w, const ptx_inst *in, uint32_t i, uint32_t j)
{
    ptx_rt *rt = w->cta->rt;
    const ptx_region_rt *a = &rt->regions[i < j ? i : j], *b = &rt->regions[i < j ? j : i];
    if (a->index < 0 || b->index < 0 || (i < j ? j - i : i - j) != 1 || rt->memory_note)
        return;
    const ptx_func *f = rt->f;
    uint32_t pc = (uint32_t)(in - f->code);
    char na[96], nb[96], *note = malloc(640);
    if (!note)
        return;
    ptx_region_name(a, na, sizeof na);
    ptx_region_name(b, nb, sizeof nb);
    snprintf(note, 640, "%s:%u: %s reached %s and %s, which lie %llu bytes apart in the capture: "
             "if it indexed past one into the other, the GPU read the other too (as here)",
             rt->m->name, pc < f->nraw ? f->raw[pc].line : f->line,
             pc < f->nraw ? f->raw[pc].text : "?", na, nb, (unsigned long long)(b->lo - a->hi));
    pthread_mutex_lock(&rt->lock);
    if (!rt->memory_note) {
        rt->memory_note = note;
        note = NULL;
    }
    pthread_mutex_unlock(&rt->lock);
    free(note);
}

void *ptx_addr(ptx_warp *w, const ptx_inst *in, int l, unsigned sp, uint64_t a, unsigned bytes,
               unsigned align, bool write)
{
    ptx_cta *cta = w->cta;
    ptx_rt *rt = cta->rt;
    if (align > 1 && (a & (align - 1u)))
        return ptx_fault(w, in, l, VKRR_ERR_FAULT, "misaligned %s address 0x%llx (%u-byte access)",
                         space_name(sp), (unsigned long long)a, bytes),
               NULL;
    uint64_t lb = rt->local_bytes;
    switch (sp) {
    case SP_LOCAL:
        if (a > lb || bytes > lb - a)
            break;
        return w->local + (size_t)l * lb + a;
    case SP_SHARED:
        if (a > rt->shared_bytes || bytes > rt->shared_bytes - a)
            break;
        return cta->shared + a;
    case SP_PARAM:
        if (write || a > rt->params_bytes || bytes > rt->params_bytes - a)
            break;
        return rt->params + a;
    default: {
        uintptr_t h = (uintptr_t)a;
        if (sp == SP_GENERIC) {
            uintptr_t s0 = (uintptr_t)cta->shared, l0 = (uintptr_t)w->local;
            if (h >= s0 && h - s0 < rt->shared_bytes) {
                if (bytes > rt->shared_bytes - (h - s0))
                    break;
                return (void *)h;
            }
            if (lb && h >= l0 && h - l0 < 32u * lb) {
                uintptr_t mine = l0 + (uintptr_t)l * lb;
                if (h < mine || h - mine >= lb || bytes > lb - (h - mine))
                    return ptx_fault(w, in, l, VKRR_ERR_FAULT,
                                     "generic address 0x%llx is another thread's local memory",
                                     (unsigned long long)a),
                           NULL;
                return (void *)h;
            }
            uintptr_t p0 = (uintptr_t)rt->params;
            if (h >= p0 && h - p0 < rt->params_bytes) {
                if (write || bytes > rt->params_bytes - (h - p0))
                    break;
                return (void *)h;
            }
        }
        /* global regions: the one this instruction hit last, then a binary search */
        const ptx_region_rt *rg = rt->regions;
        uint32_t pc = (uint32_t)(in - rt->f->code);
        uint32_t k = __atomic_load_n(&rt->ihint[pc], __ATOMIC_RELAXED);
        if (k >= rt->nregions || h < rg[k].lo || h >= rg[k].hi) {
            uint32_t lo = 0, hi = rt->nregions;
            while (lo < hi) {
                uint32_t mid = (lo + hi) / 2;
                if (rg[mid].lo <= h)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == 0 || h >= rg[lo - 1].hi)
                return outside(w, in, l, sp, a, bytes, lo), NULL;
            if (k < rt->nregions)
                neighbours(w, in, k, lo - 1);
            k = lo - 1;
            __atomic_store_n(&rt->ihint[pc], k, __ATOMIC_RELAXED);
        }
        if (bytes > rg[k].hi - h)
            return outside(w, in, l, sp, a, bytes, k + 1), NULL;
        if (sp == SP_CONST && rg[k].index != PTX_RG_CONST)
            break;
        if (write && !rg[k].writable)
            return ptx_fault(w, in, l, VKRR_ERR_FAULT, "write to read-only memory at 0x%llx",
                             (unsigned long long)a),
                   NULL;
        return (void *)(h + rg[k].delta);
    }
    }
    uint64_t size = sp == SP_LOCAL ? lb : sp == SP_SHARED ? rt->shared_bytes : rt->params_bytes;
    if (sp == SP_LOCAL || sp == SP_SHARED || sp == SP_PARAM)
        ptx_fault(w, in, l, VKRR_ERR_FAULT, "%s address 0x%llx (%u bytes) is outside the %s's "
                  "%llu bytes of %s memory%s", space_name(sp), (unsigned long long)a, bytes,
                  sp == SP_SHARED ? "block" : sp == SP_LOCAL ? "thread" : "kernel",
                  (unsigned long long)size, space_name(sp),
                  write && sp == SP_PARAM ? " (and a kernel's parameters are read only)" : "");
    else
        ptx_fault(w, in, l, VKRR_ERR_FAULT,
                  "%s address 0x%llx (%u bytes) is outside the memory this launch owns",
                  space_name(sp), (unsigned long long)a, bytes);
    return NULL;
}

