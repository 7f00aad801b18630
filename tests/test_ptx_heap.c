/* test_ptx_heap: device malloc and free on nvcc's own PTX (tests/ptx/heap_ops.cu),
 * each result computed here: per-thread blocks filled, summed and freed; a
 * block one thread mallocs and the whole block uses through shared memory;
 * malloc of more than the heap returns NULL; 16-byte alignment; 52 MB of
 * malloc/free through the 8 MiB heap (freed blocks reused); a double free is
 * a fault naming free. */
#include "ptx_testutil.h"

#define BLOCKS 3u
#define THREADS 40u

static void check_heap(const vkrr_ptx_module *m)
{
    static int out[BLOCKS * THREADS], flags[2];
    memset(out, 0, sizeof out);
    memset(flags, 0, sizeof flags);
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    ptxt_ptr(&a, flags, sizeof flags);
    if (!CHECK(ptxt_run(m, "k_heap", &a, BLOCKS, THREADS, 0)))
        return;
    unsigned bad = 0;
    for (unsigned b = 0; b < BLOCKS; b++)
        for (unsigned t = 0; t < THREADS; t++) {
            unsigned gid = b * THREADS + t;
            int want = ptxt_heap_want(b, t, THREADS);
            if (out[gid] != want && bad++ < 4)
                fprintf(stderr, "  k_heap thread %u: %d, want %d\n", gid, out[gid], want);
        }
    printf("k_heap: %u of %u threads wrong; 1 GiB malloc NULL %d, aligned %d\n", bad, BLOCKS * THREADS,
           flags[0], flags[1]);
    CHECK_EQ_U64(bad, 0);
    CHECK_EQ_U64(flags[0], 1);
    CHECK_EQ_U64(flags[1], 1);
}

static void check_churn(const vkrr_ptx_module *m)
{
    static int out[64];
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    if (!CHECK(ptxt_run(m, "k_churn", &a, 1, 64, 0)))
        return;
    unsigned bad = 0;
    for (int g = 0; g < 64; g++)
        bad += out[g] != 199 * 200 / 2 + 200 * g;
    printf("k_churn: %u of 64 threads wrong\n", bad);
    CHECK_EQ_U64(bad, 0);
}

int main(void)
{
    for (unsigned sm = 80; sm <= 89; sm += 9) {
        vkrr_ptx_module *m = ptxt_load("heap_ops", sm);
        if (!m)
            continue;
        check_heap(m);
        check_churn(m);
        static int out[1];
        ptxt_args a = {0};
        ptxt_ptr(&a, out, sizeof out);
        vkrr_error err = {0};
        vkrr_status st = ptxt_run_ex(m, "k_double_free", &a, 1, 1, 0, NULL, 0, NULL, 0, &err);
        /* named by its offset in the heap: the same message from every run and engine */
        if (!CHECK(st == VKRR_ERR_FAULT && strstr(err.msg, "freed already") &&
                   strstr(err.msg, "free(heap + 0x")))
            vkrr_error_print(&err, stderr);
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_heap");
}
