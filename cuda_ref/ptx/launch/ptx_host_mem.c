/* ptx_host_mem.c - the host memory a kernel addresses as itself (the shared,
 * local and parameter windows, the module's variables, the heap), placed
 * where the kernel sees none of the launch's allocations.
 *
 * Why: the kernel sees each allocation at its captured device address, and
 * a capture's device addresses are another process's.  CUDA's unified
 * address space puts them among the addresses this host's mmap hands out
 * (0x7f..., as vkrr synth's are), so memory from malloc can land inside
 * one of them: with address-space randomisation, rarely, and then for every
 * launch of that allocation in the process.  A generic address there would
 * be ambiguous, so such a launch used to fail ("run again").  Here the
 * memory is mapped, and where it lands inside an allocation it is mapped
 * again beside an allocation's ends, at an address that is free
 * (MAP_FIXED_NOREPLACE: never over a mapping of ours).  Where no such place
 * is found the memory is returned where it landed and ptx_rt_regions and
 * ptx_rt_clashes fail the launch naming both. */
#include <sys/mman.h>
#include <unistd.h>

#include "ptx_internal.h"

#ifndef MAP_FIXED_NOREPLACE /* headers older than Linux 4.17's */
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static size_t page_bytes(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096u;
}

static size_t span_of(size_t n)
{
    size_t pg = page_bytes();
    return (n ? n + pg - 1 : pg) / pg * pg;
}

/* Whether [a, a + n) overlaps an allocation where the kernel sees it. */
static bool seen(const vkrr_ptx_launch *l, uintptr_t a, size_t n)
{
    for (uint32_t i = 0; l && i < l->nregions; i++) {
        const vkrr_ptx_region *r = &l->regions[i];
        uintptr_t lo = (uintptr_t)r->device;
        if (lo && r->size && lo != (uintptr_t)r->base && a < lo + r->size && lo < a + n)
            return true;
    }
    return false;
}

/* n bytes at exactly a, or NULL */
static void *map_at(uintptr_t a, size_t n)
{
    void *p = mmap((void *)a, n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if ((uintptr_t)p != a) { /* a kernel before 4.17 took the address as a hint */
        munmap(p, n);
        return NULL;
    }
    return p;
}

void *ptx_host_mem(const vkrr_ptx_launch *l, size_t n)
{
    size_t span = span_of(n), pg = page_bytes();
    void *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (!seen(l, (uintptr_t)p, span))
        return p;
    /* p stays mapped while a place is sought, so none offered is p's */
    for (uint32_t i = 0; i < l->nregions; i++) {
        const vkrr_ptx_region *r = &l->regions[i];
        uintptr_t lo = (uintptr_t)r->device, hi = lo + r->size;
        if (!lo || !r->size || r->size > UINTPTR_MAX - lo - pg)
            continue;
        uintptr_t at[2] = {(hi + pg - 1) / pg * pg, lo / pg * pg - span};
        for (unsigned k = 0; k < 2; k++) {
            if ((k == 0 && at[0] < hi) || (k == 1 && lo / pg * pg < span) ||
                seen(l, at[k], span))
                continue;
            void *q = map_at(at[k], span);
            if (q) {
                munmap(p, span);
                return q;
            }
        }
    }
    return p;
}

void ptx_host_mem_free(void *p, size_t n)
{
    if (p)
        munmap(p, span_of(n));
}
