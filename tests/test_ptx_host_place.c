/* test_ptx_host_place: the host memory a kernel addresses as itself (its
 * shared and local windows, its parameters, the module's variables, the
 * malloc heap) never lies where the kernel sees one of the launch's
 * allocations, whatever device addresses the capture holds.
 *
 * A capture's device addresses are another process's, among the addresses
 * this one's mmap hands out; the CI once drew a process whose memory lay in
 * rrref's arena (0x7f3b00000000), and every launch of it failed "run
 * again".  Here the launch's allocations are made to cover, at the
 * addresses the kernel sees, the places this process's next memory would
 * take: its brk heap (and 256 MiB past its end) and everything from a
 * 512 MiB hole just unmapped below its mappings to the top of its mmap
 * area, gaps between mappings included: where the next mappings go (a
 * second worker thread's malloc arena among them).  Memory from malloc
 * would land there, and so would a plain mmap, so the memory must be
 * placed beside the covering allocations; the launches must still run,
 * on two threads, in the interpreter and the JIT, and compute what the
 * test computes itself:
 *
 * - place: a shared array, a local array and a .global variable, each
 *   reached through a generic address (cvta), and a parameter;
 * - heap_ops's k_heap (tests/ptx/heap_ops.cu): device malloc and free.
 *
 * The covering allocations' host memory is reserved, never touched (the
 * kernels do not address it). */
#include <stdio.h>
#include <sys/mman.h>

#include "ptx_testutil.h"

static const char place_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".global .align 4 .u32 g_bias = 1000;\n"
    ".visible .entry place(.param .u64 pout, .param .u32 pk)\n"
    "{\n"
    "  .reg .b32 %r<12>;\n"
    "  .reg .b64 %rd<16>;\n"
    "  .shared .align 4 .b8 sh[128];\n"
    "  .local .align 4 .b8 loc[16];\n"
    "  ld.param.u64 %rd1, [pout];\n"
    "  ld.param.u32 %r1, [pk];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  mov.u32 %r3, %ctaid.x;\n"
    "  mov.u64 %rd2, sh;\n"
    "  cvta.shared.u64 %rd3, %rd2;\n"
    "  mul.wide.u32 %rd4, %r2, 4;\n"
    "  add.s64 %rd5, %rd3, %rd4;\n"
    "  mul.lo.u32 %r4, %r2, 3;\n"
    "  st.u32 [%rd5], %r4;\n"
    "  bar.sync 0;\n"
    "  add.u32 %r5, %r2, 1;\n"
    "  and.b32 %r5, %r5, 31;\n"
    "  mul.wide.u32 %rd6, %r5, 4;\n"
    "  add.s64 %rd7, %rd3, %rd6;\n"
    "  ld.u32 %r6, [%rd7];\n"
    "  mov.u64 %rd8, loc;\n"
    "  cvta.local.u64 %rd9, %rd8;\n"
    "  add.u32 %r7, %r2, %r3;\n"
    "  st.u32 [%rd9+8], %r7;\n"
    "  ld.u32 %r8, [%rd9+8];\n"
    "  mov.u64 %rd10, g_bias;\n"
    "  cvta.global.u64 %rd11, %rd10;\n"
    "  ld.u32 %r9, [%rd11];\n"
    "  add.u32 %r10, %r6, %r8;\n"
    "  add.u32 %r10, %r10, %r9;\n"
    "  add.u32 %r10, %r10, %r1;\n"
    "  mad.lo.u32 %r11, %r3, 32, %r2;\n"
    "  cvta.to.global.u64 %rd12, %rd1;\n"
    "  mul.wide.u32 %rd13, %r11, 4;\n"
    "  add.s64 %rd14, %rd12, %rd13;\n"
    "  st.global.u32 [%rd14], %r10;\n"
    "  ret;\n"
    "}\n";

#define HOLE (512ull << 20)
#define PAST_HEAP (256ull << 20)
#define BLOCKS 4u

/* The regions that cover where this process's next memory goes, at the
 * addresses the kernel sees; their host memory reserved only. */
typedef struct cover {
    vkrr_ptx_region r[2];
    uint32_t n;
} cover;

/* From /proc/self/maps: [lo, hi) of this process's brk heap (false when it
 * has none: a sanitizer's allocator maps its own), or with top the end of
 * its highest mapping but the stack's and the kernel's pages (the top of
 * the area its mmap hands out from). */
static bool maps_find(bool top, uintptr_t *lo, uintptr_t *hi)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    bool found = false;
    unsigned long a, b;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx", &a, &b) != 2)
            continue;
        if (!top && strstr(line, "[heap]")) {
            *lo = a, *hi = b, found = true;
            break;
        }
        if (top && !strstr(line, "[stack") && !strstr(line, "[v") && (!found || b > *hi))
            *hi = b, found = true;
    }
    if (f)
        fclose(f);
    return found;
}

static void *reserve(size_t n)
{
    void *p = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Made just before the launch: the first covers the brk heap and past it,
 * the second a hole just unmapped below every mapping and every gap
 * between mappings up to the top of the mmap area, where the next
 * mappings go. */
static bool make_cover(cover *c)
{
    c->n = 0;
    uintptr_t lo = 0, hi = 0, top = 0;
    if (maps_find(false, &lo, &hi)) {
        size_t n = hi - lo + PAST_HEAP;
        void *host = reserve(n);
        if (!CHECK(host))
            return false;
        c->r[c->n++] = (vkrr_ptx_region){host, n, false, lo};
    }
    void *probe = reserve(HOLE);
    if (!CHECK(probe && maps_find(true, &lo, &top) && top > (uintptr_t)probe))
        return false;
    size_t n = top - (uintptr_t)probe;
    void *host = reserve(n); /* lands in another gap: not where the next ones go */
    munmap(probe, HOLE);
    if (!CHECK(host))
        return false;
    c->r[c->n++] = (vkrr_ptx_region){host, n, false, (uint64_t)(uintptr_t)probe};
    return true;
}

static void free_cover(cover *c)
{
    for (uint32_t i = 0; i < c->n; i++)
        munmap(c->r[i].base, c->r[i].size);
}

/* entry over a's parameters (device addresses) and regions, with the
 * cover's after them, on two threads */
static bool run_covered(const vkrr_ptx_module *m, const char *entry, ptxt_args *a, uint32_t grid,
                        uint32_t block, vkrr_ptx_engine engine)
{
    cover c;
    if (!make_cover(&c))
        return false;
    for (uint32_t i = 0; i < c.n; i++)
        a->regions[a->nregions + i] = c.r[i];
    vkrr_ptx_launch l = {.grid = {grid, 1, 1}, .block = {block, 1, 1}, .params = a->bytes,
                         .params_bytes = a->n, .regions = a->regions,
                         .nregions = a->nregions + c.n, .threads = 2, .engine = engine,
                         .max_steps = 1u << 26};
    vkrr_error err = {0};
    vkrr_status st = vkrr_ptx_run(m, entry, &l, &err);
    free_cover(&c);
    if (st != VKRR_OK) {
        fprintf(stderr, "%s (engine %d): ", entry, (int)engine);
        vkrr_error_print(&err, stderr);
    }
    return CHECK(st == VKRR_OK);
}

/* a's pointer parameter: device address dev for host memory p */
static void ptr_at(ptxt_args *a, void *p, size_t size, uint64_t dev)
{
    ptxt_u64(a, dev);
    a->regions[a->nregions++] = (vkrr_ptx_region){p, size, true, dev};
}

static void check_place(const vkrr_ptx_module *m, vkrr_ptx_engine engine)
{
    static uint32_t out[BLOCKS * 32];
    memset(out, 0, sizeof out);
    ptxt_args a = {0};
    ptr_at(&a, out, sizeof out, 0x100000000ull);
    ptxt_u32(&a, 5);
    if (!run_covered(m, "place", &a, BLOCKS, 32, engine))
        return;
    unsigned bad = 0;
    for (uint32_t b = 0; b < BLOCKS; b++)
        for (uint32_t t = 0; t < 32; t++) {
            uint32_t want = 3 * ((t + 1) % 32) + t + b + 1000 + 5;
            if (out[b * 32 + t] != want && bad++ < 4)
                fprintf(stderr, "  place block %u thread %u: %u, want %u\n", b, t, out[b * 32 + t], want);
        }
    CHECK_EQ_U64(bad, 0);
}

/* heap_ops's k_heap, as test_ptx_heap checks it */
static void check_heap(const vkrr_ptx_module *m, vkrr_ptx_engine engine)
{
    enum { B = 3, T = 40 };
    static int out[B * T], flags[2];
    memset(out, 0, sizeof out);
    memset(flags, 0, sizeof flags);
    ptxt_args a = {0};
    ptr_at(&a, out, sizeof out, 0x100000000ull);
    ptr_at(&a, flags, sizeof flags, 0x100001000ull);
    if (!run_covered(m, "k_heap", &a, B, T, engine))
        return;
    unsigned bad = 0;
    for (unsigned b = 0; b < B; b++)
        for (unsigned t = 0; t < T; t++)
            bad += out[b * T + t] != ptxt_heap_want(b, t, T);
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(flags[0], 1);
    CHECK_EQ_U64(flags[1], 1);
}

int main(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, place_ptx, sizeof place_ptx - 1, "place.ptx", &err) ==
               VKRR_OK))
        vkrr_error_print(&err, stderr);
    vkrr_ptx_module *heap = ptxt_load("heap_ops", 80);
    const vkrr_ptx_engine engines[] = {VKRR_PTX_ENGINE_INTERP, VKRR_PTX_ENGINE_JIT};
    for (unsigned e = 0; e < 2; e++) {
        if (m)
            check_place(m, engines[e]);
        if (heap)
            check_heap(heap, engines[e]);
    }
    printf("place and k_heap ran with the brk heap%s and the next mappings covered\n",
           m ? "" : " (place did not load)");
    vkrr_ptx_module_free(m);
    vkrr_ptx_module_free(heap);
    return test_finish("ptx_host_place");
}
