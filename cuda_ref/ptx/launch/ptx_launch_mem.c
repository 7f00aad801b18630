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

ptx_heap *ptx_heap_new(const vkrr_ptx_launch *l)
{
    ptx_heap *h = calloc(1, sizeof *h);
    if (h && !(h->base = ptx_host_mem(l, PTX_HEAP_BYTES))) {
        free(h);
        h = NULL;
    }
    return h;
}

void ptx_heap_free(ptx_heap *h)
{
    if (h) {
        ptx_host_mem_free(h->base);
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

void ptx_region_name(const ptx_region_rt *rg, char *buf, size_t cap)
{
    switch (rg->index) {
    case PTX_RG_GLOBALS: snprintf(buf, cap, "the module's .global variables"); break;
    case PTX_RG_CONST: snprintf(buf, cap, "the module's .const variables"); break;
    case PTX_RG_HEAP: snprintf(buf, cap, "the malloc heap"); break;
    default:
        snprintf(buf, cap, "allocation %d (0x%llx, %llu bytes)", rg->index,
                 (unsigned long long)rg->lo, (unsigned long long)(rg->hi - rg->lo));
    }
}

bool ptx_rt_clashes(const ptx_rt *rt, const void *p, size_t n, vkrr_error *err)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + n;
    for (uint32_t k = 0; k < rt->nregions; k++) {
        const ptx_region_rt *rg = &rt->regions[k];
        if (rg->index >= 0 && rg->delta && lo < rg->hi && rg->lo < hi) {
            char name[96];
            ptx_region_name(rg, name, sizeof name);
            /* ptx_host_mem places host memory elsewhere: here only where it found no place */
            vkrr_fail(err, VKRR_ERR_INTERNAL, rt->m->name, 0, -1,
                      "this host's memory for the launch (0x%llx, %zu bytes) lies where the kernel "
                      "sees %s, and no free place outside the launch's allocations was found: "
                      "generic addresses would be ambiguous",
                      (unsigned long long)lo, n, name);
            return true;
        }
    }
    return false;
}

bool ptx_rt_windows_clash(ptx_rt *rt, const void *shared, size_t ns, const void *local, size_t nl)
{
    vkrr_error clash;
    if (!ptx_rt_clashes(rt, shared, ns, &clash) && !ptx_rt_clashes(rt, local, nl, &clash))
        return false;
    pthread_mutex_lock(&rt->lock);
    if (!atomic_load(&rt->failed)) {
        rt->err = clash;
        atomic_store(&rt->failed, 1);
    }
    pthread_mutex_unlock(&rt->lock);
    return true;
}

vkrr_status ptx_rt_regions(ptx_rt *rt, vkrr_error *err)
{
    const vkrr_ptx_launch *l = rt->l;
    const vkrr_ptx_module *m = rt->m;
    rt->regions = calloc(l->nregions + 3, sizeof *rt->regions);
    rt->ihint = malloc((rt->f->ncode ? rt->f->ncode : 1) * sizeof *rt->ihint);
    if (!rt->regions || !rt->ihint)
        return vkrr_fail(err, VKRR_ERR_NOMEM, m->name, 0, -1, "out of memory for the launch");
    memset(rt->ihint, 0xff, (rt->f->ncode ? rt->f->ncode : 1) * sizeof *rt->ihint);
    for (uint32_t i = 0; i < l->nregions; i++) {
        const vkrr_ptx_region *r = &l->regions[i];
        uintptr_t host = (uintptr_t)r->base, dev = r->device ? (uintptr_t)r->device : host;
        if (!r->size)
            continue;
        if (r->size > UINTPTR_MAX - dev)
            return vkrr_fail(err, VKRR_ERR_RANGE, m->name, 0, -1,
                             "allocation %u at 0x%llx of %llu bytes wraps the address space", i,
                             (unsigned long long)dev, (unsigned long long)r->size);
        rt->regions[rt->nregions++] =
            (ptx_region_rt){dev, dev + (uintptr_t)r->size, host - dev, (int32_t)i, r->writable};
    }
    if (m->global_bytes)
        rt->regions[rt->nregions++] = (ptx_region_rt){
            (uintptr_t)rt->globals, (uintptr_t)rt->globals + m->global_bytes, 0, PTX_RG_GLOBALS, true};
    if (m->const_bytes)
        rt->regions[rt->nregions++] = (ptx_region_rt){
            (uintptr_t)rt->constmem, (uintptr_t)rt->constmem + m->const_bytes, 0, PTX_RG_CONST, false};
    if (rt->heap) {
        ptx_region_rt *r = &rt->regions[rt->nregions++];
        ptx_heap_span(rt->heap, &r->lo, &r->hi);
        r->index = PTX_RG_HEAP;
        r->writable = true;
    }
    qsort(rt->regions, rt->nregions, sizeof *rt->regions, region_cmp);
    for (uint32_t k = 1; k < rt->nregions; k++) {
        const ptx_region_rt *a = &rt->regions[k - 1], *b = &rt->regions[k];
        if (b->lo >= a->hi)
            continue;
        char na[96], nb[96];
        ptx_region_name(a, na, sizeof na);
        ptx_region_name(b, nb, sizeof nb);
        return vkrr_fail(err, a->index >= 0 && b->index >= 0 ? VKRR_ERR_UNSUPPORTED
                                                               : VKRR_ERR_INTERNAL,
                         m->name, 0, -1, "%s and %s overlap where the kernel sees them%s", na, nb,
                         a->index >= 0 && b->index >= 0
                             ? ""
                             : " (this host's memory: no free place outside the launch's "
                               "allocations was found)");
    }
    if (rt->params_bytes && ptx_rt_clashes(rt, rt->params, rt->params_bytes, err))
        return err ? err->status : VKRR_ERR_INTERNAL;
    return VKRR_OK;
}
