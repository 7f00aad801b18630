/* ptx_launch_mem.c - the memory a launch reaches besides its windows (shared,
 * local, param): the sorted table of its global regions (the launch's
 * allocations, the module's variables, the heap), and the device heap that
 * malloc and free use (their calls are ptx_runtime.c's).
 *
 * The heap: one arena a launch, of CUDA's default heap size (cudaLimitMallocHeapSize,
 * 8 MiB), registered as a writable global region so the kernel's loads and
 * stores reach it like any allocation.  Blocks are 16-byte aligned (CUDA
 * guarantees 16) and kept in address order: malloc takes from the top while
 * the arena has room, then the first freed block that fits (split); free
 * merges a block with its free neighbours.  malloc returns NULL when nothing
 * fits, as CUDA's does; free(NULL) does nothing; freeing anything else that
 * is not a live block is undefined in CUDA and a fault here.  Memory is zero
 * when first handed out (CUDA's is unspecified).
 *
 * Does NOT: keep the heap across launches (on a GPU it outlives them, but a
 * capture records no heap, so a pointer one launch leaves for another is not
 * a region of the next: its use faults, naming the address). */
#include <stdlib.h>

#include "ptx_internal.h"

typedef struct blk {
    uint64_t off, len;
    bool live;
} blk;

struct ptx_heap {
    uint8_t *base;
    uint64_t top; /* past the last block */
    blk *b;
    uint32_t n, cap;
};

ptx_heap *ptx_heap_new(void)
{
    ptx_heap *h = calloc(1, sizeof *h);
    if (h && !(h->base = calloc(1, PTX_HEAP_BYTES))) {
        free(h);
        h = NULL;
    }
    return h;
}

void ptx_heap_free(ptx_heap *h)
{
    if (h) {
        free(h->base);
        free(h->b);
        free(h);
    }
}

uint8_t *ptx_heap_base(const ptx_heap *h) { return h->base; }

void ptx_heap_span(const ptx_heap *h, uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)h->base;
    *hi = (uintptr_t)h->base + PTX_HEAP_BYTES;
}

/* a block of len bytes at index i (before the block now there); false without memory */
static bool insert(ptx_heap *h, uint32_t i, uint64_t off, uint64_t len, bool live)
{
    if (!ptx_grow((void **)&h->b, &h->cap, h->n, sizeof *h->b))
        return false;
    memmove(&h->b[i + 1], &h->b[i], sizeof *h->b * (h->n - i));
    h->b[i] = (blk){off, len, live};
    h->n++;
    return true;
}

static void drop(ptx_heap *h, uint32_t i)
{
    memmove(&h->b[i], &h->b[i + 1], sizeof *h->b * (h->n - i - 1));
    h->n--;
}

uint64_t ptx_heap_take(ptx_heap *h, uint64_t size)
{
    uint64_t len = size ? (size + 15u) & ~(uint64_t)15u : 16u;
    if (size > PTX_HEAP_BYTES)
        return UINT64_MAX;
    if (PTX_HEAP_BYTES - h->top >= len) {
        if (!insert(h, h->n, h->top, len, true))
            return UINT64_MAX;
        memset(h->base + h->top, 0, len); /* the top may come back down after a free */
        h->top += len;
        return h->top - len;
    }
    for (uint32_t i = 0; i < h->n; i++) {
        blk *b = &h->b[i];
        if (b->live || b->len < len)
            continue;
        uint64_t off = b->off, rest = b->len - len;
        b->len = len;
        b->live = true;
        if (rest && !insert(h, i + 1, off + len, rest, false)) {
            b->len += rest; /* no memory to split: hand out the whole block */
        }
        memset(h->base + off, 0, len);
        return off;
    }
    return UINT64_MAX;
}

bool ptx_heap_give(ptx_heap *h, uint64_t off)
{
    uint32_t lo = 0, hi = h->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (h->b[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == h->n || h->b[lo].off != off || !h->b[lo].live)
        return false;
    h->b[lo].live = false;
    if (lo + 1 < h->n && !h->b[lo + 1].live) {
        h->b[lo].len += h->b[lo + 1].len;
        drop(h, lo + 1);
    }
    if (lo > 0 && !h->b[lo - 1].live) {
        h->b[lo - 1].len += h->b[lo].len;
        drop(h, lo--);
    }
    if (lo + 1 == h->n) { /* the last block: back to the top */
        h->top = h->b[lo].off;
        drop(h, lo);
    }
    return true;
}

static int region_cmp(const void *a, const void *b)
{
    const ptx_region_rt *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

bool ptx_rt_regions(ptx_rt *rt)
{
    const vkrr_ptx_launch *l = rt->l;
    const vkrr_ptx_module *m = rt->m;
    rt->regions = calloc(l->nregions + 3, sizeof *rt->regions);
    if (!rt->regions)
        return false;
    for (uint32_t i = 0; i < l->nregions; i++)
        if (l->regions[i].size)
            rt->regions[rt->nregions++] = (ptx_region_rt){(uintptr_t)l->regions[i].base,
                                                          (uintptr_t)l->regions[i].base +
                                                              (uintptr_t)l->regions[i].size,
                                                          l->regions[i].writable};
    if (m->global_bytes)
        rt->regions[rt->nregions++] =
            (ptx_region_rt){(uintptr_t)rt->globals, (uintptr_t)rt->globals + m->global_bytes, true};
    if (m->const_bytes)
        rt->regions[rt->nregions++] =
            (ptx_region_rt){(uintptr_t)rt->constmem, (uintptr_t)rt->constmem + m->const_bytes, false};
    if (rt->heap) {
        ptx_region_rt *r = &rt->regions[rt->nregions++];
        ptx_heap_span(rt->heap, &r->lo, &r->hi);
        r->writable = true;
    }
    qsort(rt->regions, rt->nregions, sizeof *rt->regions, region_cmp);
    return true;
}
