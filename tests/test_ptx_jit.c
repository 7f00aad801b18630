/* test_ptx_jit: the operations the PTX JIT compiles inline (ptx_jit_emit.c:
 * integer arithmetic, shifts past the width, min/max/abs/neg, mul.wide,
 * compares into predicates with and/or/xor of a negated predicate and both
 * outputs, predicate logic and moves, selp, sign and zero extension, and
 * ld/st of local, shared and global memory) against C, each under a guard
 * that leaves some lanes out and in a last warp of 20 lanes, run by the JIT
 * and by the interpreter (explicitly: both must give C's bytes).  And the
 * JIT's memory fast path falls back to the handler, which faults naming the
 * line, when one lane's address is out of bounds.  And the JIT's runs going
 * on through branches (ptx_jit_emit.c's run_end): a loop whose branches go
 * every way (taken by the whole warp, by none, by some; into a target with
 * lanes waiting or not) gives C's values, and under every step limit both
 * engines stop at the same instruction with the same message.  And loads
 * of under 4 bytes (read from words in the JIT) at the end of a buffer, and
 * cvt.f32.f16 and cvt.f64.f32 (inline in the JIT) on every kind of value.
 * And a kernel's cache entry serves every later load of the same PTX: a
 * second process, with other buffers (other addresses) and other
 * parameters, loads the first one's entry and writes none.  And a run that
 * goes on into the next does not grow the stack.  And in the quick tier
 * (large kernels), runs of one shape share a function and give C's values. */
#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptx_testutil.h"

static const char ops_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry ops(.param .u64 pa, .param .u64 pb, .param .u64 pd)\n{\n"
    " .reg .b32 %r<40>;\n .reg .b16 %h<4>;\n .reg .b64 %rd<20>;\n .reg .pred %p<12>;\n"
    " .local .align 8 .b8 loc[32];\n .shared .align 8 .b8 sh[2048];\n"
    " mov.u32 %r0, %tid.x;\n mul.wide.u32 %rd0, %r0, 4;\n mul.wide.u32 %rd1, %r0, 128;\n"
    " ld.param.u64 %rd2, [pa];\n ld.param.u64 %rd3, [pb];\n ld.param.u64 %rd4, [pd];\n"
    " add.s64 %rd2, %rd2, %rd0;\n add.s64 %rd3, %rd3, %rd0;\n add.s64 %rd4, %rd4, %rd1;\n"
    " ld.global.u32 %r1, [%rd2];\n ld.global.u32 %r2, [%rd3];\n"
    /* guard: lanes whose a is odd skip the guarded ones (their slots keep 7) */
    " and.b32 %r3, %r1, 1;\n setp.eq.u32 %p0, %r3, 0;\n"
    " mov.u32 %r10, 7;\n mov.u32 %r11, 7;\n mov.u32 %r12, 7;\n mov.u32 %r13, 7;\n"
    " @%p0 add.u32 %r10, %r1, %r2;\n @%p0 sub.u32 %r11, %r1, %r2;\n"
    " @!%p0 mul.lo.u32 %r12, %r1, %r2;\n @%p0 xor.b32 %r13, %r1, %r2;\n"
    " and.b32 %r31, %r2, 63;\n shl.b32 %r14, %r1, %r31;\n shr.s32 %r15, %r1, %r31;\n"
    " shr.u32 %r16, %r1, %r31;\n min.s32 %r17, %r1, %r2;\n max.u32 %r18, %r1, %r2;\n"
    " abs.s32 %r19, %r1;\n neg.s32 %r20, %r2;\n not.b32 %r21, %r1;\n cnot.b32 %r22, %r3;\n"
    " mul.wide.s32 %rd5, %r1, %r2;\n mul.wide.u32 %rd6, %r1, %r2;\n"
    " cvt.u16.u32 %h0, %r1;\n cvt.s32.s16 %r23, %h0;\n cvt.u32.u16 %r24, %h0;\n"
    " cvt.s64.s32 %rd7, %r2;\n"
    /* compares with a bool op on a negated predicate, both outputs; predicate logic */
    " setp.lt.s32 %p1, %r1, %r2;\n setp.ge.and.u32 %p2|%p3, %r1, %r2, !%p0;\n"
    " setp.ne.or.s32 %p4|%p5, %r1, %r2, %p1;\n setp.gt.xor.u32 %p6, %r1, %r2, %p0;\n"
    " and.pred %p7, %p1, !%p0;\n or.pred %p8, !%p2, %p4;\n xor.pred %p9, %p1, %p6;\n"
    " not.pred %p10, %p9;\n mov.pred %p11, 1;\n @%p1 mov.pred %p11, 0;\n"
    " selp.u32 %r25, 1, 0, %p2;\n selp.u32 %r26, 2, 0, %p3;\n selp.u32 %r27, 4, 0, %p4;\n"
    " selp.u32 %r28, 8, 0, %p5;\n selp.u32 %r29, 16, 0, %p6;\n selp.u32 %r30, 32, 0, %p7;\n"
    " selp.u32 %r32, 64, 0, %p8;\n selp.u32 %r33, 128, 0, %p10;\n selp.u32 %r34, 256, 0, %p11;\n"
    " add.u32 %r25, %r25, %r26;\n add.u32 %r25, %r25, %r27;\n add.u32 %r25, %r25, %r28;\n"
    " add.u32 %r25, %r25, %r29;\n add.u32 %r25, %r25, %r30;\n add.u32 %r25, %r25, %r32;\n"
    " add.u32 %r25, %r25, %r33;\n add.u32 %r25, %r25, %r34;\n"
    /* local and shared round trips, a guarded store leaving the old value */
    " mov.u64 %rd8, loc;\n st.local.v2.u32 [%rd8+8], {%r1, %r2};\n"
    " @%p1 st.local.u32 [%rd8+8], %r10;\n ld.local.v2.u32 {%r35, %r36}, [%rd8+8];\n"
    " mov.u64 %rd9, sh;\n mul.wide.u32 %rd10, %r0, 8;\n add.s64 %rd9, %rd9, %rd10;\n"
    " st.shared.u64 [%rd9], %rd5;\n bar.sync 0;\n xor.b32 %r37, %r0, 1;\n"
    " mul.wide.u32 %rd11, %r37, 8;\n mov.u64 %rd12, sh;\n add.s64 %rd12, %rd12, %rd11;\n"
    " ld.shared.s16 %r38, [%rd12];\n ld.shared.u8 %r39, [%rd12+1];\n"
    " st.global.v4.u32 [%rd4], {%r10, %r11, %r12, %r13};\n"
    " st.global.v4.u32 [%rd4+16], {%r14, %r15, %r16, %r17};\n"
    " st.global.v4.u32 [%rd4+32], {%r18, %r19, %r20, %r21};\n"
    " st.global.v4.u32 [%rd4+48], {%r22, %r23, %r24, %r25};\n"
    " st.global.u64 [%rd4+64], %rd5;\n st.global.u64 [%rd4+72], %rd6;\n"
    " st.global.u64 [%rd4+80], %rd7;\n st.global.v2.u32 [%rd4+88], {%r35, %r36};\n"
    " st.global.v2.u32 [%rd4+96], {%r38, %r39};\n"
    " ret;\n}\n"
    /* one lane (tid 5) reads past its buffer: a fault naming the line */
    ".visible .entry oob(.param .u64 pa, .param .u64 pd)\n{\n"
    " .reg .b32 %r<4>;\n .reg .b64 %rd<6>;\n .reg .pred %p<1>;\n"
    " mov.u32 %r0, %tid.x;\n ld.param.u64 %rd0, [pa];\n ld.param.u64 %rd1, [pd];\n"
    " mul.wide.u32 %rd2, %r0, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
    " setp.eq.u32 %p0, %r0, 5;\n selp.u32 %r1, 100000, 0, %p0;\n"
    " mul.wide.u32 %rd4, %r1, 4;\n add.s64 %rd5, %rd0, %rd4;\n add.s64 %rd5, %rd5, %rd2;\n"
    " ld.global.u32 %r2, [%rd5];\n st.global.u32 [%rd3], %r2;\n ret;\n}\n"
    /* every lane loads the same bytes (one load broadcast in the JIT), then lane 7
     * of a half-warp guard the same way */
    ".visible .entry uni(.param .u64 pa, .param .u64 pd)\n{\n"
    " .reg .b32 %r<8>;\n .reg .b64 %rd<6>;\n .reg .pred %p<1>;\n"
    " mov.u32 %r0, %tid.x;\n ld.param.u64 %rd0, [pa];\n ld.param.u64 %rd1, [pd];\n"
    " mul.wide.u32 %rd2, %r0, 16;\n add.s64 %rd3, %rd1, %rd2;\n"
    " ld.global.s8 %r1, [%rd0+3];\n ld.global.u16 %r2, [%rd0+4];\n ld.global.s16 %r3, [%rd0+6];\n"
    " setp.lt.u32 %p0, %r0, 16;\n mov.u32 %r4, 9;\n @%p0 ld.global.s8 %r4, [%rd0+3];\n"
    " st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};\n ret;\n}\n";

/* A loop with a branch some lanes take inside; then branches the whole
 * warp takes (tid < 32 in warp 0), none takes (warp 1) and some take, and
 * a jump past the lanes that took it (the scheduler runs those first). */
static const char chain_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry chain(.param .u64 pd, .param .u32 n)\n{\n"
    " .reg .b32 %r<8>;\n .reg .b64 %rd<4>;\n .reg .pred %p<4>;\n"
    " mov.u32 %r0, %tid.x;\n ld.param.u64 %rd0, [pd];\n ld.param.u32 %r1, [n];\n"
    " mov.u32 %r2, 0;\n mov.u32 %r3, %r0;\n"
    "$LOOP:\n mul.lo.u32 %r3, %r3, 1664525;\n add.u32 %r3, %r3, 1013904223;\n"
    " and.b32 %r4, %r3, 768;\n setp.eq.u32 %p0, %r4, 0;\n @%p0 bra $SKIP;\n"
    " xor.b32 %r3, %r3, %r2;\n shr.u32 %r5, %r3, 7;\n add.u32 %r3, %r3, %r5;\n"
    "$SKIP:\n add.u32 %r2, %r2, 1;\n setp.lt.u32 %p1, %r2, %r1;\n @%p1 bra $LOOP;\n"
    " setp.lt.u32 %p2, %r0, 32;\n @%p2 bra $WARP0;\n add.u32 %r3, %r3, 5;\n"
    "$WARP0:\n setp.lt.u32 %p3, %r0, 8;\n @%p3 bra $X;\n add.u32 %r3, %r3, 11;\n"
    " bra.uni $DONE;\n"
    "$X:\n mul.lo.u32 %r3, %r3, 3;\n"
    "$DONE:\n mul.wide.u32 %rd1, %r0, 4;\n add.s64 %rd2, %rd0, %rd1;\n"
    " st.global.u32 [%rd2], %r3;\n ret;\n}\n";

static uint32_t chain_expect(uint32_t t, uint32_t n)
{
    uint32_t r = t;
    for (uint32_t i = 0; i < n; i++) {
        r = r * 1664525u + 1013904223u;
        if (r & 768u) {
            r ^= i;
            r += r >> 7;
        }
    }
    r += t < 32 ? 0 : 5;
    return t < 8 ? r * 3u : r + 11u;
}

static vkrr_status run_chain(const vkrr_ptx_module *m, vkrr_ptx_engine engine, uint32_t *out,
                             uint32_t n, uint64_t max_steps, vkrr_error *err)
{
    ptxt_args args = {0};
    ptxt_ptr(&args, out, 40 * sizeof *out);
    ptxt_u32(&args, n);
    const char *used = NULL;
    vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {40, 1, 1}, .params = args.bytes,
                         .params_bytes = args.n, .regions = args.regions,
                         .nregions = args.nregions, .max_steps = max_steps, .engine = engine,
                         .engine_used = &used};
    vkrr_status st = vkrr_ptx_run(m, "chain", &l, err);
    /* the JIT ran it (not the interpreter after a failed compile) */
    if (engine == VKRR_PTX_ENGINE_JIT && vkrr_ptx_jit_built() && !CHECK(used && !strcmp(used, "jit")))
        fprintf(stderr, "  the chain kernel ran in: %s\n", used ? used : "(nothing)");
    return st;
}

static void test_chain(const char *parts)
{
    /* compiled in parts (ptx_jit.c): runs go on into other parts' runs
     * (through the scheduler's loop) */
    setenv("VKRR_PTX_JIT_PARTS", parts, 1);
    printf("the chain kernel in %s part(s):\n", parts);
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, chain_ptx, sizeof chain_ptx - 1, "chain.ptx", &err) ==
               VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint32_t out[40];
    unsigned wrong = 0;
    static const uint32_t ns[] = {1, 2, 7, 3000};
    for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
            memset(out, 0, sizeof out);
            CHECK(run_chain(m, (vkrr_ptx_engine)e, out, ns[k], 0, &err) == VKRR_OK);
            for (uint32_t t = 0; t < 40; t++)
                wrong += out[t] != chain_expect(t, ns[k]);
        }
    printf("runs through branches: %u values wrong\n", wrong);
    CHECK_EQ_U64(wrong, 0);
    /* every step limit up to past the end: the same stop in both engines */
    unsigned differ = 0, faults = 0;
    for (uint64_t limit = 1; limit <= 400; limit++) {
        vkrr_error ei = {0}, ej = {0};
        vkrr_status si = run_chain(m, VKRR_PTX_ENGINE_INTERP, out, 9, limit, &ei);
        vkrr_status sj = run_chain(m, VKRR_PTX_ENGINE_JIT, out, 9, limit, &ej);
        faults += si != VKRR_OK;
        if (si != sj || ei.line != ej.line || strcmp(ei.msg, ej.msg)) {
            if (!differ++)
                printf("step limit %llu: interp line %ld \"%s\", jit line %ld \"%s\"\n",
                       (unsigned long long)limit, ei.line, ei.msg, ej.line, ej.msg);
        }
    }
    printf("step limits 1..400: %u stopped the block, %u differ between the engines\n", faults,
           differ);
    CHECK(faults > 100 && faults < 400);
    CHECK_EQ_U64(differ, 0);
    vkrr_ptx_module_free(m);
    unsetenv("VKRR_PTX_JIT_PARTS");
}

/* A compiled run that goes on into the next returns to the scheduler's
 * loop, which calls it: the stack holds one run's frame at a time.  When a
 * run called the next (no tail call in LLVM's -O0 code), a chain of 64 runs
 * of 270 KB frames overflowed an 8 MB stack (bench/enc0's 10k kernel).
 * The deep kernel's loop is two runs an iteration (a shfl.sync between
 * them, a branch the whole warp takes after), with 48 mixing steps in the
 * first, compiled in the quick tier (-O0 code, as a large kernel's); its 200
 * iterations run on a thread of STACK_KB (the kernel is compiled first on
 * this thread, whose stack LLVM needs).  Measured here: the code before
 * overflowed 128 KB (not 256); this runs in 48 KB. */
#if defined(__SANITIZE_ADDRESS__)
enum { STACK_KB = 1024 }; /* ASan's redzones make the C frames larger; the check is the plain build's */
#else
enum { STACK_KB = 128 };
#endif
enum { DEEP_MIX = 8, DEEP_N = 200 };
#define DEEP_STEP " mul.lo.u32 %r3, %r3, 1664525;\n add.u32 %r3, %r3, 1013904223;\n" \
    " xor.b32 %r4, %r3, %r2;\n shl.b32 %r5, %r4, 3;\n shr.u32 %r6, %r5, 5;\n xor.b32 %r3, %r3, %r6;\n"
static const char deep_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry deep(.param .u64 pd, .param .u32 n)\n{\n"
    " .reg .b32 %r<10>;\n .reg .b64 %rd<4>;\n .reg .pred %p<2>;\n"
    " mov.u32 %r0, %tid.x;\n ld.param.u64 %rd0, [pd];\n ld.param.u32 %r1, [n];\n"
    " mov.u32 %r2, 0;\n mov.u32 %r3, %r0;\n"
    "$L:\n" DEEP_STEP DEEP_STEP DEEP_STEP DEEP_STEP DEEP_STEP DEEP_STEP DEEP_STEP DEEP_STEP
    " shfl.sync.bfly.b32 %r7, %r3, 1, 31, -1;\n add.u32 %r3, %r3, %r7;\n"
    " add.u32 %r2, %r2, 1;\n setp.lt.u32 %p0, %r2, %r1;\n @%p0 bra $L;\n"
    " mul.wide.u32 %rd1, %r0, 4;\n add.s64 %rd2, %rd0, %rd1;\n st.global.u32 [%rd2], %r3;\n ret;\n}\n";

static void deep_expect(uint32_t n, uint32_t r[32])
{
    for (uint32_t t = 0; t < 32; t++)
        r[t] = t;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x[32];
        for (uint32_t t = 0; t < 32; t++) {
            for (unsigned k = 0; k < DEEP_MIX; k++) {
                r[t] = r[t] * 1664525u + 1013904223u;
                r[t] ^= ((r[t] ^ i) << 3) >> 5;
            }
            x[t] = r[t];
        }
        for (uint32_t t = 0; t < 32; t++)
            r[t] = x[t] + x[t ^ 1u];
    }
}

static uint64_t deep_worker_bytes;
static unsigned deep_workers;
static vkrr_status run_deep(const vkrr_ptx_module *m, uint32_t *out, uint32_t n, vkrr_error *err)
{
    ptxt_args args = {0};
    ptxt_ptr(&args, out, 32 * sizeof *out);
    ptxt_u32(&args, n);
    const char *used = NULL;
    vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = args.bytes,
                         .params_bytes = args.n, .regions = args.regions, .nregions = args.nregions,
                         .threads = 1, .engine = VKRR_PTX_ENGINE_JIT, .engine_used = &used,
                         .worker_bytes = &deep_worker_bytes, .workers = &deep_workers};
    vkrr_status st = vkrr_ptx_run(m, "deep", &l, err);
    if (st == VKRR_OK && !(used && !strcmp(used, "jit")))
        return vkrr_fail(err, VKRR_ERR_INTERNAL, NULL, 0, -1, "ran in %s, not the JIT", used ? used : "?");
    return st;
}

typedef struct stack_job {
    const vkrr_ptx_module *m;
    uint32_t *out;
    vkrr_status st;
    vkrr_error err;
} stack_job;
static void *stack_job_main(void *arg)
{
    stack_job *j = arg;
    j->st = run_deep(j->m, j->out, DEEP_N, &j->err);
    return NULL;
}

static void test_small_stack(void)
{
    if (!vkrr_ptx_jit_built()) {
        printf("SKIPPED: the deep kernel on a small stack: this build has no PTX JIT\n");
        return;
    }
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, deep_ptx, sizeof deep_ptx - 1, "deep.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint32_t out[32], want[32];
    setenv("VKRR_PTX_JIT_QUICK", "0", 1);
    if (!CHECK(run_deep(m, out, 2, &err) == VKRR_OK)) /* compiled here */
        vkrr_error_print(&err, stderr);
    memset(out, 0, sizeof out);
    stack_job j = {m, out, VKRR_ERR_INTERNAL, {0}};
    pthread_attr_t at;
    pthread_t th;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, (size_t)STACK_KB << 10);
    if (CHECK(pthread_create(&th, &at, stack_job_main, &j) == 0))
        pthread_join(th, NULL);
    pthread_attr_destroy(&at);
    unsetenv("VKRR_PTX_JIT_QUICK");
    if (j.st != VKRR_OK)
        vkrr_error_print(&j.err, stderr);
    deep_expect(DEEP_N, want);
    unsigned wrong = 0;
    for (uint32_t t = 0; t < 32; t++)
        wrong += out[t] != want[t];
    printf("the deep kernel's %u iterations on a %u KB stack: %s, %u values wrong\n", DEEP_N, STACK_KB,
           j.st == VKRR_OK ? "ran" : "failed", wrong);
    CHECK(j.st == VKRR_OK);
    CHECK_EQ_U64(wrong, 0);
    /* what the launch says a worker holds: at least the 14 registers the
     * kernel declares (%r<10>, %rd<4>) in 32 lanes of 8 bytes, on 1 thread */
    printf("the deep kernel's launch: %u worker(s), %llu bytes each\n", deep_workers,
           (unsigned long long)deep_worker_bytes);
    CHECK_EQ_U64(deep_workers, 1);
    CHECK(deep_worker_bytes >= 14u * 32u * 8u && deep_worker_bytes < (1u << 20));
    vkrr_ptx_module_free(m);
}

/* Runs of one shape share one function in the quick tier (ptx_jit_emit.h's
 * jit_tabs): an unrolled loop of SHARE_N bodies, each over its own
 * registers, guard predicate, immediate and address offsets, ended by a
 * shfl.sync (so each body after the first, with the store of the one
 * before, is a run of its own).  Its values are C's, in both engines, and
 * the JIT's runs are more than its functions: the first run (with the
 * prologue), the middle ones (one shape, where their slots fall alike)
 * and the last (with ret). */
enum { SHARE_N = 6 };
static char share_ptx[8192];

static void share_make(void)
{
    int at = snprintf(share_ptx, sizeof share_ptx,
                      ".version 8.0\n.target sm_80\n.address_size 64\n"
                      ".visible .entry share(.param .u64 pa, .param .u64 pd)\n{\n"
                      " .reg .b32 %%r<64>;\n .reg .b64 %%rd<8>;\n .reg .pred %%p<8>;\n"
                      " mov.u32 %%r0, %%tid.x;\n ld.param.u64 %%rd0, [pa];\n ld.param.u64 %%rd1, [pd];\n"
                      " mul.wide.u32 %%rd2, %%r0, 4;\n add.s64 %%rd3, %%rd0, %%rd2;\n"
                      " add.s64 %%rd4, %%rd1, %%rd2;\n");
    for (unsigned k = 0; k < SHARE_N; k++) {
        unsigned a = 10 + 4 * k, x = a + 1, y = a + 2, z = a + 3;
        if (k) /* the body before's store, at the start of this run */
            at += snprintf(share_ptx + at, sizeof share_ptx - (size_t)at,
                           " st.global.u32 [%%rd4+%u], %%r%u;\n", 128 * (k - 1), a - 1);
        at += snprintf(share_ptx + at, sizeof share_ptx - (size_t)at,
                       " ld.global.u32 %%r%u, [%%rd3+%u];\n setp.lt.u32 %%p%u, %%r%u, %u;\n"
                       " mov.u32 %%r%u, %%r%u;\n @%%p%u add.u32 %%r%u, %%r%u, %u;\n"
                       " shfl.sync.bfly.b32 %%r%u, %%r%u, 1, 31, -1;\n add.u32 %%r%u, %%r%u, %%r%u;\n",
                       a, 128 * k, k, a, 1000 * (k + 1), x, a, k, x, a, 7 * k + 3, y, x, z, x, y);
    }
    snprintf(share_ptx + at, sizeof share_ptx - (size_t)at,
             " st.global.u32 [%%rd4+%u], %%r%u;\n ret;\n}\n", 128 * (SHARE_N - 1), 10 + 4 * (SHARE_N - 1) + 3);
}

static void test_shared_runs(void)
{
    if (!vkrr_ptx_jit_built()) {
        printf("SKIPPED: runs sharing functions: this build has no PTX JIT\n");
        return;
    }
    share_make();
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, share_ptx, strlen(share_ptx), "share.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint32_t a[32 * SHARE_N], d[32 * SHARE_N], want[32 * SHARE_N];
    for (unsigned i = 0; i < 32 * SHARE_N; i++)
        a[i] = (i * 2654435761u) % (2000u * SHARE_N); /* about half the lanes under each guard */
    for (unsigned k = 0; k < SHARE_N; k++)
        for (unsigned t = 0; t < 32; t++) {
            uint32_t x = a[32 * k + t], o = a[32 * k + (t ^ 1u)];
            x += x < 1000 * (k + 1) ? 7 * k + 3 : 0;
            o += o < 1000 * (k + 1) ? 7 * k + 3 : 0;
            want[32 * k + t] = x + o;
        }
    /* the quick tier, with no budget (ctest's test_ptx_jit_quick_oracle sets one) */
    char *budget = getenv("VKRR_PTX_JIT_BUDGET") ? strdup(getenv("VKRR_PTX_JIT_BUDGET")) : NULL;
    char *quick = getenv("VKRR_PTX_JIT_QUICK") ? strdup(getenv("VKRR_PTX_JIT_QUICK")) : NULL;
    setenv("VKRR_PTX_JIT_QUICK", "0", 1);
    setenv("VKRR_PTX_JIT_BUDGET", "0", 1);
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        memset(d, 0, sizeof d);
        ptxt_args args = {0};
        ptxt_ptr(&args, a, sizeof a);
        ptxt_ptr(&args, d, sizeof d);
        const char *used = NULL;
        uint32_t runs = 0, fns = 0;
        vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = args.bytes,
                             .params_bytes = args.n, .regions = args.regions, .nregions = args.nregions,
                             .threads = 1, .engine = (vkrr_ptx_engine)e, .engine_used = &used,
                             .jit_runs = &runs, .jit_functions = &fns,
                             .max_steps = 100000}; /* a run sent to a wrong pc fails, not hangs */
        if (!CHECK(vkrr_ptx_run(m, "share", &l, &err) == VKRR_OK))
            vkrr_error_print(&err, stderr);
        unsigned wrong = 0;
        for (unsigned i = 0; i < 32 * SHARE_N; i++)
            wrong += d[i] != want[i];
        bool jit = e == VKRR_PTX_ENGINE_JIT;
        printf("%u unrolled bodies, %s: %u values wrong; %u compiled runs in %u functions\n", SHARE_N,
               used ? used : "?", wrong, runs, fns);
        CHECK_EQ_U64(wrong, 0);
        if (jit) {
            CHECK(used && !strcmp(used, "jit"));
            /* at least the three shapes (the prologue's, the middle ones', the
             * last with ret); one more where the slots' packing by liveness
             * makes a middle run's registers coincide otherwise */
            CHECK_EQ_U64(runs, SHARE_N + 1);
            CHECK(fns >= 3 && fns <= SHARE_N - 1);
        } else {
            CHECK_EQ_U64(runs, 0);
        }
    }
    const char *names[2] = {"VKRR_PTX_JIT_BUDGET", "VKRR_PTX_JIT_QUICK"};
    char *was[2] = {budget, quick};
    for (unsigned i = 0; i < 2; i++) { /* the environment as it was */
        if (was[i])
            setenv(names[i], was[i], 1);
        else
            unsetenv(names[i]);
        free(was[i]);
    }
    vkrr_ptx_module_free(m);
}

/* One process's load and run of the chain kernel, its output at a buffer
 * pad words into a heap block (another address each time); exits 0 when
 * the JIT ran it and every value is right. */
static void cache_child(size_t pad, uint32_t n)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    uint32_t *buf = calloc(pad + 40, sizeof *buf);
    if (!buf || vkrr_ptx_module_load(&m, chain_ptx, sizeof chain_ptx - 1, "chain.ptx", &err) != VKRR_OK)
        _exit(3);
    unsigned wrong = run_chain(m, VKRR_PTX_ENGINE_JIT, buf + pad, n, 0, &err) != VKRR_OK;
    for (uint32_t t = 0; t < 40; t++)
        wrong += buf[pad + t] != chain_expect(t, n);
    vkrr_ptx_module_free(m);
    free(buf);
    _exit(wrong ? 1 : 0);
}

/* The cache's entries: how many, and the inode of the last one seen. */
static unsigned cache_entries(const char *dir, ino_t *ino)
{
    DIR *d = opendir(dir);
    unsigned n = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        char path[1200];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (de->d_name[0] != '.' && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
            n++;
            *ino = sb.st_ino;
        }
    }
    if (d)
        closedir(d);
    return n;
}

static int run_child(size_t pad, uint32_t n)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        cache_child(pad, n);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_cache_reuse(void)
{
    if (!vkrr_ptx_jit_built()) {
        printf("cache reuse: no JIT in this build, not checked\n");
        return;
    }
    char tmp[] = "/tmp/vkrr-test-jit-cache.XXXXXX", dir[1100];
    if (!CHECK(mkdtemp(tmp) != NULL))
        return;
    const char *old = getenv("XDG_CACHE_HOME");
    char *saved = old ? strdup(old) : NULL;
    setenv("XDG_CACHE_HOME", tmp, 1);
    snprintf(dir, sizeof dir, "%s/vkrr/ptx-jit", tmp);
    ino_t first = 0, second = 0;
    int rc1 = run_child(0, 7);
    unsigned n1 = cache_entries(dir, &first);
    int rc2 = run_child(4099, 3000); /* another address, another n */
    unsigned n2 = cache_entries(dir, &second);
    printf("cache reuse: first process exit %d, %u entries; second (other buffer and n) exit %d, "
           "%u entries, the entry %s\n", rc1, n1, rc2, n2,
           first == second ? "kept (loaded, not compiled again)" : "rewritten");
    CHECK_EQ_U64(rc1, 0);
    CHECK_EQ_U64(rc2, 0);
    CHECK_EQ_U64(n1, 1);
    CHECK_EQ_U64(n2, 1);
    CHECK(first != 0 && first == second);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    CHECK(system(cmd) == 0);
    if (saved)
        setenv("XDG_CACHE_HOME", saved, 1);
    else
        unsetenv("XDG_CACHE_HOME");
    free(saved);
}

/* Loads of under 4 bytes, per lane (the JIT reads the aligned words that
 * hold them): u8 from both ends of a 37-byte buffer (the word of its last
 * byte runs past it: that lane takes the handler, and reads right), s16,
 * v2.u8, v4.u8 and v2.s16. */
static const char sub_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry sub(.param .u64 pa, .param .u64 pd)\n{\n"
    " .reg .b32 %r<16>;\n .reg .b16 %h<8>;\n .reg .b64 %rd<12>;\n"
    " mov.u32 %r0, %tid.x;\n ld.param.u64 %rd0, [pa];\n ld.param.u64 %rd1, [pd];\n"
    " mul.wide.u32 %rd2, %r0, 48;\n add.s64 %rd1, %rd1, %rd2;\n"
    " cvt.u64.u32 %rd3, %r0;\n add.s64 %rd4, %rd0, %rd3;\n ld.global.u8 %r1, [%rd4];\n"
    " sub.s64 %rd5, %rd0, %rd3;\n ld.global.u8 %r2, [%rd5+36];\n"
    " rem.u32 %r3, %r0, 18;\n mul.wide.u32 %rd6, %r3, 2;\n add.s64 %rd6, %rd0, %rd6;\n"
    " ld.global.s16 %r4, [%rd6];\n ld.global.v2.u8 {%h0, %h1}, [%rd6];\n"
    " rem.u32 %r5, %r0, 9;\n mul.wide.u32 %rd7, %r5, 4;\n add.s64 %rd7, %rd0, %rd7;\n"
    " ld.global.v4.u8 {%r6, %r7, %r8, %r9}, [%rd7];\n ld.global.v2.s16 {%r10, %r11}, [%rd7];\n"
    " cvt.u32.u16 %r12, %h0;\n cvt.u32.u16 %r13, %h1;\n"
    " st.global.v4.u32 [%rd1], {%r1, %r2, %r4, %r12};\n"
    " st.global.v4.u32 [%rd1+16], {%r13, %r6, %r7, %r8};\n"
    " st.global.v4.u32 [%rd1+32], {%r9, %r10, %r11, %r0};\n ret;\n}\n";

static void test_sub_word(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, sub_ptx, sizeof sub_ptx - 1, "sub.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint8_t buf[37] __attribute__((aligned(16)));
    for (unsigned i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(0x81u + 37u * i);
    static uint32_t out[32 * 12];
    unsigned wrong[2] = {0, 0};
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        memset(out, 0, sizeof out);
        ptxt_args args = {0};
        ptxt_ptr(&args, buf, sizeof buf);
        ptxt_ptr(&args, out, sizeof out);
        vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = args.bytes,
                             .params_bytes = args.n, .regions = args.regions,
                             .nregions = args.nregions, .engine = (vkrr_ptx_engine)e};
        if (!CHECK(vkrr_ptx_run(m, "sub", &l, &err) == VKRR_OK))
            vkrr_error_print(&err, stderr);
        for (unsigned t = 0; t < 32; t++) {
            unsigned h = 2 * (t % 18), q = 4 * (t % 9);
            uint32_t want[12] = {buf[t], buf[36 - t],
                                 (uint32_t)(int32_t)(int16_t)(buf[h] | buf[h + 1] << 8), buf[h],
                                 buf[h + 1], buf[q], buf[q + 1], buf[q + 2], buf[q + 3],
                                 (uint32_t)(int32_t)(int16_t)(buf[q] | buf[q + 1] << 8),
                                 (uint32_t)(int32_t)(int16_t)(buf[q + 2] | buf[q + 3] << 8), t};
            for (unsigned k = 0; k < 12; k++)
                wrong[e == VKRR_PTX_ENGINE_JIT] += out[t * 12 + k] != want[k];
        }
    }
    printf("loads under 4 bytes: interpreter %u wrong, JIT %u wrong\n", wrong[0], wrong[1]);
    CHECK_EQ_U64(wrong[0], 0);
    CHECK_EQ_U64(wrong[1], 0);
    vkrr_ptx_module_free(m);
}

/* cvt.f32.f16 of every f16 code and cvt.f64.f32 of 65536 f32 patterns (every
 * sign, exponent and NaN kind; the JIT computes both inline) */
static const char cvt_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry cvt(.param .u64 pf, .param .u64 pd)\n{\n"
    " .reg .b16 %h<2>;\n .reg .b32 %r<8>;\n .reg .f32 %f<2>;\n .reg .f64 %fd<2>;\n"
    " .reg .b64 %rd<8>;\n"
    " mov.u32 %r0, %tid.x;\n mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n"
    " mad.lo.u32 %r3, %r1, %r2, %r0;\n cvt.u16.u32 %h0, %r3;\n cvt.f32.f16 %f0, %h0;\n"
    " shl.b32 %r4, %r3, 16;\n mul.lo.u32 %r5, %r3, 7;\n and.b32 %r5, %r5, 65535;\n"
    " or.b32 %r4, %r4, %r5;\n mov.b32 %f1, %r4;\n cvt.f64.f32 %fd0, %f1;\n"
    " ld.param.u64 %rd0, [pf];\n ld.param.u64 %rd1, [pd];\n"
    " mul.wide.u32 %rd2, %r3, 4;\n add.s64 %rd3, %rd0, %rd2;\n st.global.f32 [%rd3], %f0;\n"
    " mul.wide.u32 %rd4, %r3, 8;\n add.s64 %rd5, %rd1, %rd4;\n st.global.f64 [%rd5], %fd0;\n"
    " ret;\n}\n";

static void test_cvt(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, cvt_ptx, sizeof cvt_ptx - 1, "cvt.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint32_t f[65536];
    static uint64_t d[65536];
    unsigned wrong[2] = {0, 0};
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        memset(f, 0, sizeof f);
        memset(d, 0, sizeof d);
        ptxt_args args = {0};
        ptxt_ptr(&args, f, sizeof f);
        ptxt_ptr(&args, d, sizeof d);
        vkrr_ptx_launch l = {.grid = {256, 1, 1}, .block = {256, 1, 1}, .params = args.bytes,
                             .params_bytes = args.n, .regions = args.regions,
                             .nregions = args.nregions, .engine = (vkrr_ptx_engine)e};
        if (!CHECK(vkrr_ptx_run(m, "cvt", &l, &err) == VKRR_OK))
            vkrr_error_print(&err, stderr);
        for (uint32_t t = 0; t < 65536; t++) {
            uint32_t p = t << 16 | ((t * 7u) & 0xffffu);
            double want_d = (double)vkrr_f32_from_bits(p);
            uint64_t wd;
            memcpy(&wd, &want_d, 8);
            unsigned bad = (f[t] != vkrr_f32_bits(vkrr_f16_to_f32((uint16_t)t))) + (d[t] != wd);
            if (bad && wrong[e == VKRR_PTX_ENGINE_JIT]++ < 3)
                fprintf(stderr, "  %s: f16 0x%04x -> 0x%08x, f32 0x%08x -> 0x%016llx\n",
                        e == VKRR_PTX_ENGINE_JIT ? "jit" : "interp", t, f[t], p,
                        (unsigned long long)d[t]);
        }
    }
    printf("cvt.f32.f16 and cvt.f64.f32 of 65536 codes: interpreter %u wrong, JIT %u wrong\n",
           wrong[0], wrong[1]);
    CHECK_EQ_U64(wrong[0], 0);
    CHECK_EQ_U64(wrong[1], 0);
    vkrr_ptx_module_free(m);
}

enum { NT = 52, WORDS = 32 };

static uint32_t expect(unsigned t, const uint32_t *a, const uint32_t *b, unsigned k,
                       const uint32_t *all_a)
{
    uint32_t x = a[t], y = b[t], s = y & 63;
    int32_t sx = (int32_t)x, sy = (int32_t)y;
    bool g = !(x & 1), p1 = sx < sy, ge = x >= y, ne = x != y, gt = x > y;
    bool p2 = ge && !g, p3 = !ge && !g, p4 = ne || p1, p5 = !ne || p1, p6 = gt != g;
    bool p7 = p1 && !g, p8 = !p2 || p4, p10 = !(p1 != p6), p11 = !p1;
    int64_t w = (int64_t)sx * sy;
    uint64_t uw = (uint64_t)x * y, sext = (uint64_t)(int64_t)sy;
    int16_t h = (int16_t)(uint16_t)x;
    unsigned peer = t ^ 1u;
    uint32_t neighbour = peer < NT ? all_a[peer] : 0; /* unused when peer is past the block */
    (void)neighbour;
    switch (k) {
    case 0: return g ? x + y : 7;
    case 1: return g ? x - y : 7;
    case 2: return !g ? x * y : 7;
    case 3: return g ? x ^ y : 7;
    case 4: return s >= 32 ? 0 : x << s;
    case 5: return s >= 32 ? (sx < 0 ? 0xffffffffu : 0) : (uint32_t)(sx >> s);
    case 6: return s >= 32 ? 0 : x >> s;
    case 7: return (uint32_t)(sx < sy ? sx : sy);
    case 8: return x > y ? x : y;
    case 9: return sx < 0 ? 0u - x : x;
    case 10: return 0u - y;
    case 11: return ~x;
    case 12: return (x & 1) == 0;
    case 13: return (uint32_t)(int32_t)h;
    case 14: return (uint16_t)x;
    case 15: return p2 * 1u + p3 * 2u + p4 * 4u + p5 * 8u + p6 * 16u + p7 * 32u + p8 * 64u +
                    p10 * 128u + p11 * 256u;
    case 16: return (uint32_t)w;
    case 17: return (uint32_t)((uint64_t)w >> 32);
    case 18: return (uint32_t)uw;
    case 19: return (uint32_t)(uw >> 32);
    case 20: return (uint32_t)sext;
    case 21: return (uint32_t)(sext >> 32);
    case 22: return p1 ? (g ? x + y : 7) : x;
    case 23: return y;
    default: return 0;
    }
}

/* the shared-memory reads: lane t reads its neighbour t^1's mul.wide.s32 */
static void expect_shared(unsigned t, const uint32_t *a, const uint32_t *b, uint32_t *lo,
                          uint32_t *hi)
{
    unsigned q = t ^ 1u;
    int64_t w = (int64_t)(int32_t)a[q] * (int32_t)b[q];
    uint64_t u = (uint64_t)w;
    *lo = (uint32_t)(int32_t)(int16_t)(uint16_t)u;
    *hi = (uint8_t)(u >> 8);
}

static unsigned run_ops(const vkrr_ptx_module *m, vkrr_ptx_engine engine, const uint32_t *a,
                        const uint32_t *b)
{
    static uint32_t d[NT * WORDS];
    memset(d, 0, sizeof d);
    ptxt_args args = {0};
    ptxt_ptr(&args, (void *)a, NT * 4);
    ptxt_ptr(&args, (void *)b, NT * 4);
    ptxt_ptr(&args, d, sizeof d);
    vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {NT, 1, 1}, .params = args.bytes,
                         .params_bytes = args.n, .regions = args.regions,
                         .nregions = args.nregions, .max_steps = 1u << 26, .engine = engine};
    const char *used = NULL;
    l.engine_used = &used;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_run(m, "ops", &l, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return 1;
    }
    if (engine == VKRR_PTX_ENGINE_JIT && vkrr_ptx_jit_built())
        CHECK(used && !strcmp(used, "jit"));
    unsigned bad = 0;
    /* the slots after a guarded store (k 22, 23) sit at words 22, 23 */
    static const unsigned word_of[24] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                         12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23};
    for (unsigned t = 0; t < NT; t++) {
        for (unsigned k = 0; k < 24; k++) {
            uint32_t want = expect(t, a, b, k, a), got = d[t * WORDS + word_of[k]];
            if (got != want && bad++ < 8)
                fprintf(stderr, "  %s: thread %u value %u: 0x%08x, want 0x%08x (a 0x%08x b 0x%08x)\n",
                        engine == VKRR_PTX_ENGINE_JIT ? "jit" : "interp", t, k, got, want, a[t],
                        b[t]);
        }
        if ((t ^ 1u) < NT) {
            uint32_t lo, hi;
            expect_shared(t, a, b, &lo, &hi);
            if ((d[t * WORDS + 24] != lo || d[t * WORDS + 25] != hi) && bad++ < 8)
                fprintf(stderr, "  thread %u shared: 0x%08x 0x%08x, want 0x%08x 0x%08x\n", t,
                        d[t * WORDS + 24], d[t * WORDS + 25], lo, hi);
        }
    }
    return bad;
}

static void test_ops(void)
{
    static const uint32_t edge[] = {0, 1, 2, 31, 32, 33, 63, 64, 0x7fffffffu, 0x80000000u,
                                    0xffffffffu, 0xfffffffeu, 0x8000u, 0xffffu, 0x12345678u};
    static uint32_t a[NT], b[NT];
    uint64_t seed = 7;
    for (unsigned i = 0; i < NT; i++) {
        a[i] = i < 15 ? edge[i] : ptxt_rand(&seed);
        b[i] = i < 15 ? edge[(i * 4 + 3) % 15] : (i % 3 ? ptxt_rand(&seed) : a[i]);
    }
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, ops_ptx, sizeof ops_ptx - 1, "ops.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    unsigned bj = run_ops(m, VKRR_PTX_ENGINE_JIT, a, b);
    unsigned bi = run_ops(m, VKRR_PTX_ENGINE_INTERP, a, b);
    printf("inline operations: %u threads, JIT %u wrong, interpreter %u wrong (JIT %s)\n", NT, bj,
           bi, vkrr_ptx_jit_built() ? "built" : "not in this build");
    CHECK_EQ_U64(bj, 0);
    CHECK_EQ_U64(bi, 0);

    /* a lane out of bounds: the handler's fault, naming the ld's line, in both engines */
    static uint32_t in[64], out[64];
    long ld_line = 1;
    for (const char *c = ops_ptx; c < strstr(ops_ptx, "ld.global.u32 %r2, [%rd5]"); c++)
        ld_line += *c == '\n';
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        ptxt_args args = {0};
        ptxt_ptr(&args, in, sizeof in);
        ptxt_ptr(&args, out, sizeof out);
        vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = args.bytes,
                             .params_bytes = args.n, .regions = args.regions,
                             .nregions = args.nregions, .engine = (vkrr_ptx_engine)e};
        vkrr_error fe = {0};
        CHECK(vkrr_ptx_run(m, "oob", &l, &fe) == VKRR_ERR_FAULT);
        CHECK(strstr(fe.msg, "ld.global.u32") != NULL);
        CHECK(strstr(fe.msg, "past the end of allocation") || strstr(fe.msg, "in no allocation"));
        CHECK(strstr(fe.msg, "thread (5,0,0)") != NULL);
        CHECK(fe.line == ld_line);
        if (fe.line != ld_line || !strstr(fe.msg, "thread (5,0,0)"))
            vkrr_error_print(&fe, stderr);
    }
    /* one address for the warp: sign and zero extension of the broadcast load */
    static const uint8_t bytes[8] = {1, 2, 3, 0x80, 0xfe, 0xff, 0x01, 0x80};
    static uint32_t du[64 * 4];
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_JIT; e++) {
        memset(du, 0, sizeof du);
        ptxt_args args = {0};
        ptxt_ptr(&args, (void *)bytes, sizeof bytes);
        ptxt_ptr(&args, du, sizeof du);
        vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {64, 1, 1}, .params = args.bytes,
                             .params_bytes = args.n, .regions = args.regions,
                             .nregions = args.nregions, .engine = (vkrr_ptx_engine)e};
        vkrr_error ue = {0};
        CHECK(vkrr_ptx_run(m, "uni", &l, &ue) == VKRR_OK);
        unsigned wrong = 0;
        for (unsigned t = 0; t < 64; t++)
            wrong += du[t * 4] != 0xffffff80u || du[t * 4 + 1] != 0xfffeu ||
                     du[t * 4 + 2] != 0xffff8001u || du[t * 4 + 3] != (t < 16 ? 0xffffff80u : 9u);
        printf("one address for the warp (%s): %u of 64 threads wrong\n",
               e == VKRR_PTX_ENGINE_JIT ? "jit" : "interp", wrong);
        CHECK_EQ_U64(wrong, 0);
    }
    vkrr_ptx_module_free(m);
}

int main(void)
{
    test_ops();
    test_chain("1");
    test_chain("4");
    test_shared_runs();
    test_small_stack();
    test_sub_word();
    test_cvt();
    test_cache_reuse();
    return test_finish("ptx_jit");
}
