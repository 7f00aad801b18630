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
 * memory comes from the C heap as before unless it lies inside one; then
 * it is mapped, and where that lands inside one too, mapped again beside an
 * allocation's ends, at an address that is free (MAP_FIXED_NOREPLACE: never
 * over a mapping of ours).  Where no such place is found the memory is
 * returned where it landed and ptx_rt_regions and ptx_rt_clashes fail the
 * launch naming both. */
#include <stdlib.h>
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
        uintptr_t hi = r->size > UINTPTR_MAX - lo ? UINTPTR_MAX : lo + r->size;
        if (lo && r->size && lo != (uintptr_t)r->base && a < hi && lo < a + n)
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

/* Every block starts HEAD bytes before the pointer handed out (aligned as
 * calloc aligns), its header saying how it was made. */
#define HEAD 64u
typedef struct head {
    size_t span; /* mapped bytes from the header on; 0: from the C heap */
} head;

/* span bytes mapped where the kernel sees none of l's allocations, NULL
 * where none was found (PLACES tried beside each end of each allocation) */
#define PLACES 64u
static void *map_outside(const vkrr_ptx_launch *l, size_t span)
{
    size_t pg = page_bytes();
    void *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (!seen(l, (uintptr_t)p, span))
        return p;
    /* p stays mapped while a place is sought, so none offered is p's: from
     * each allocation's ends outwards, span by span (an end's first place
     * may hold the launch's other blocks already) */
    for (uint32_t i = 0; i < l->nregions; i++) {
        const vkrr_ptx_region *r = &l->regions[i];
        uintptr_t dev = (uintptr_t)r->device;
        if (!dev || !r->size || r->size > UINTPTR_MAX - dev - pg)
            continue;
        uintptr_t lo = dev / pg * pg, hi = (dev + r->size + pg - 1) / pg * pg;
        for (uintptr_t j = 1; j <= PLACES; j++) { /* [hi + (j-1) span, hi + j span), [lo - j span, ...) */
            void *q = NULL;
            if (j * span <= UINTPTR_MAX - hi && !seen(l, hi + (j - 1) * span, span))
                q = map_at(hi + (j - 1) * span, span);
            if (!q && j * span <= lo && !seen(l, lo - j * span, span))
                q = map_at(lo - j * span, span);
            if (q) {
                munmap(p, span);
                return q;
            }
        }
    }
    munmap(p, span);
    return NULL;
}

void *ptx_host_mem(const vkrr_ptx_launch *l, size_t n)
{
    size_t want = n ? n : 1;
    if (want > SIZE_MAX - 2 * (size_t)page_bytes() - HEAD)
        return NULL;
    /* the C heap's, as before, unless it lies where the kernel sees an allocation */
    uint8_t *h = calloc(1, HEAD + want);
    if (h) {
        if (!seen(l, (uintptr_t)(h + HEAD), want)) {
            ((head *)h)->span = 0;
            return h + HEAD;
        }
    }
    size_t span = span_of(HEAD + want);
    uint8_t *m = map_outside(l, span);
    if (!m) /* left where it landed: ptx_rt_regions and ptx_rt_clashes name both */
        return h ? (((head *)h)->span = 0, h + HEAD) : NULL;
    free(h);
    ((head *)m)->span = span;
    return m + HEAD;
}

void ptx_host_mem_free(void *p)
{
    if (!p)
        return;
    head *h = (head *)((uint8_t *)p - HEAD);
    if (h->span)
        munmap(h, h->span);
    else
        free(h);
}
