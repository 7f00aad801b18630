/* ptx_addr.c - a lane's address to host memory: the state space's window
 * (shared, local, param, const, the module's globals) or one of the launch's
 * regions, checked for bounds, alignment and writability; a fault otherwise. */
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
        /* global regions: the last hit first, then a binary search */
        const ptx_region_rt *rg = rt->regions;
        uint32_t k = w->rhint;
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
                break;
            k = lo - 1;
            w->rhint = k;
        }
        if (bytes > rg[k].hi - h)
            break;
        if (sp == SP_CONST && (h < (uintptr_t)rt->constmem ||
                               h - (uintptr_t)rt->constmem >= rt->m->const_bytes))
            break;
        if (write && !rg[k].writable)
            return ptx_fault(w, in, l, VKRR_ERR_FAULT, "write to read-only memory at 0x%llx",
                             (unsigned long long)a),
                   NULL;
        return (void *)h;
    }
    }
    ptx_fault(w, in, l, VKRR_ERR_FAULT,
              "%s address 0x%llx (%u bytes) is outside the memory this launch owns", space_name(sp),
              (unsigned long long)a, bytes);
    return NULL;
}

