// cpu_coop.cpp - a block's threads as fibers (see cpu_coop.h).
#include "cpu_coop.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <new>
#include <vector>

#include "cuda_cpu.h"

#if defined(__SANITIZE_ADDRESS__)
#define COOP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COOP_ASAN 1
#endif
#endif
#ifdef COOP_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

// Switching stacks.  swapcontext saves and restores the signal mask, a
// system call each switch, which cost more than the kernel's arithmetic; on
// x86-64 the switch is the callee-saved registers, the SSE and x87 control
// words and the stack pointer (coop_switch), and ucontext elsewhere.
#if defined(__x86_64__) && !defined(VKRR_COOP_UCONTEXT)
#define COOP_ASM 1
// coop_switch(&save_sp, to_sp): pushes what the callee must keep, saves rsp
// in *save_sp, takes to_sp and pops the other context's (its `ret` goes on
// where that context called coop_switch, or into a new fiber's entry).
extern "C" void vkrr_coop_switch(void **save_sp, void *to_sp);
asm(".text\n"
    ".globl vkrr_coop_switch\n"
    ".hidden vkrr_coop_switch\n"
    ".type vkrr_coop_switch, @function\n"
    "vkrr_coop_switch:\n"
    "    pushq %rbp\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    pushq %r13\n"
    "    pushq %r14\n"
    "    pushq %r15\n"
    "    subq $8, %rsp\n"
    "    stmxcsr (%rsp)\n"
    "    fnstcw 4(%rsp)\n"
    "    movq %rsp, (%rdi)\n"
    "    movq %rsi, %rsp\n"
    "    ldmxcsr (%rsp)\n"
    "    fldcw 4(%rsp)\n"
    "    addq $8, %rsp\n"
    "    popq %r15\n"
    "    popq %r14\n"
    "    popq %r13\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    popq %rbp\n"
    "    ret\n"
    ".size vkrr_coop_switch, .-vkrr_coop_switch\n");
#endif

namespace {

#ifdef COOP_ASM
struct coop_ctx {
    void *sp;
};
// A new fiber's stack as coop_switch leaves one: the control words of this
// thread, zeroed registers, and entry as the return address, 16-aligned so
// that entry starts as if called.
void ctx_make(coop_ctx *c, void *stack, size_t size, void (*entry)())
{
    uintptr_t a = ((uintptr_t)stack + size - 16) & ~(uintptr_t)15;
    uint64_t *top = (uint64_t *)a;
    top[1] = 0; // entry's own return address: it never returns
    top[0] = (uint64_t)(uintptr_t)entry;
    for (int i = 1; i <= 6; i++)
        top[-i] = 0;
    uint32_t ctl[2] = {0, 0};
    asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(ctl[0]), "=m"(ctl[1]));
    memcpy(&top[-7], ctl, 8);
    c->sp = &top[-7];
}
void ctx_swap(coop_ctx *from, coop_ctx *to) { vkrr_coop_switch(&from->sp, to->sp); }
#else
struct coop_ctx {
    ucontext_t uc;
};
void ctx_make(coop_ctx *c, void *stack, size_t size, void (*entry)())
{
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = stack;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = nullptr;
    makecontext(&c->uc, entry, 0);
}
void ctx_swap(coop_ctx *from, coop_ctx *to) { swapcontext(&from->uc, &to->uc); }
#endif

// A thread's stack: room for a kernel's frames and, in the lane that runs a
// collective, the model it calls (the tensor-core sum keeps its tiles on the
// stack); ASan's redzones make frames larger.
#ifdef COOP_ASAN
const size_t stack_bytes = 1u << 20;
#else
const size_t stack_bytes = 256u << 10;
#endif

// WAIT_BAR: at the block's barrier; WAIT_WARP: in its warp's collective
enum { RUNNABLE, WAIT_BAR, WAIT_WARP, DONE };

struct fiber {
    coop_ctx ctx;
    uint3 tid;
    int state;
};

struct warp_slot {
    unsigned arrived;
    unsigned in_bytes, out_bytes;
    cpu_coop_fn fn;
    unsigned char in[32 * CPU_COOP_IN_MAX];
    unsigned char out[32 * CPU_COOP_OUT_MAX];
};

struct block {
    coop_ctx sched;
    fiber *f;
    unsigned n, cur, live, bar_arrived;
    warp_slot *warps;
    bool failed;
    void (*body)(void *);
    void *ctx;
    unsigned char *shared;
#ifdef COOP_ASAN
    const void *sched_bottom;
    size_t sched_size;
#endif
};

// Per host thread: the stacks (mapped once, reused by every block), the
// shared memory and the block running now.
struct host_state {
    std::vector<void *> stacks;
    std::vector<unsigned char> shared;
    std::vector<fiber> fibers;
    std::vector<warp_slot> warps;
    block *cur = nullptr;
    ~host_state()
    {
        for (void *s : stacks)
            munmap(s, stack_bytes);
    }
};
thread_local host_state hs;

// Switches from the context from_ctx to to_ctx, whose stack is to_bottom;
// dying: from_ctx's fiber never runs again (ASan forgets its stack).
void switch_to(coop_ctx *from_ctx, coop_ctx *to_ctx, const void *to_bottom, size_t to_size, bool dying)
{
#ifdef COOP_ASAN
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(dying ? nullptr : &fake, to_bottom, to_size);
    ctx_swap(from_ctx, to_ctx);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
    (void)to_bottom, (void)to_size, (void)dying;
    ctx_swap(from_ctx, to_ctx);
#endif
}

// A fiber gives the host thread back to the scheduler (waiting or done).
void yield_to_scheduler(block *b, bool dying)
{
#ifdef COOP_ASAN
    switch_to(&b->f[b->cur].ctx, &b->sched, b->sched_bottom, b->sched_size, dying);
#else
    switch_to(&b->f[b->cur].ctx, &b->sched, nullptr, 0, dying);
#endif
}

void fiber_main()
{
    block *b = hs.cur;
#ifdef COOP_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &b->sched_bottom, &b->sched_size);
#endif
    b->body(b->ctx);
    b->f[b->cur].state = DONE;
    b->live--;
    // threads that returned no longer count at the block's barrier
    if (b->bar_arrived && b->bar_arrived == b->live) {
        b->bar_arrived = 0;
        for (unsigned i = 0; i < b->n; i++)
            if (b->f[i].state == WAIT_BAR)
                b->f[i].state = RUNNABLE;
    }
    yield_to_scheduler(b, true);
}

bool ensure_stacks(unsigned n)
{
    while (hs.stacks.size() < n) {
        void *s = mmap(nullptr, stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
        if (s == MAP_FAILED)
            return false;
        mprotect(s, 4096, PROT_NONE); // a guard page below the stack
        hs.stacks.push_back(s);
    }
    return true;
}

// The lane's warp and index within it.
warp_slot *lane_warp(block *b, unsigned *lane)
{
    unsigned linear = b->cur;
    *lane = linear % 32;
    return &b->warps[linear / 32];
}

// Waits (how: WAIT_BAR or WAIT_WARP) until released.
void wait_released(block *b, int how)
{
    b->f[b->cur].state = how;
    yield_to_scheduler(b, false);
}

} // namespace

bool cpu_coop_run_block(unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes, void (*body)(void *),
                        void *ctx)
{
    unsigned n = bx * by * bz;
    try {
        if (!ensure_stacks(n))
            return false;
        hs.fibers.resize(n);
        hs.warps.resize((n + 31) / 32);
        hs.shared.assign(shared_bytes ? shared_bytes : 1, 0);
    } catch (const std::bad_alloc &) {
        return false;
    }
    block b = {};
    b.f = hs.fibers.data();
    b.n = b.live = n;
    b.warps = hs.warps.data();
    b.body = body;
    b.ctx = ctx;
    b.shared = hs.shared.data();
    memset(b.warps, 0, sizeof(warp_slot) * hs.warps.size());
    for (unsigned i = 0; i < n; i++) {
        fiber &f = b.f[i];
        f.tid = uint3{i % bx, (i / bx) % by, i / (bx * by)};
        f.state = RUNNABLE;
        ctx_make(&f.ctx, hs.stacks[i], stack_bytes, fiber_main);
    }
    block *outer = hs.cur;
    hs.cur = &b;
    unsigned done = 0;
    while (done < n && !b.failed) {
        bool ran = false;
        done = 0;
        for (unsigned i = 0; i < n && !b.failed; i++) {
            if (b.f[i].state == DONE)
                done++;
            if (b.f[i].state != RUNNABLE)
                continue;
            b.cur = i;
            threadIdx = b.f[i].tid;
            switch_to(&b.sched, &b.f[i].ctx, hs.stacks[i], stack_bytes, false);
            ran = true;
        }
        if (!ran && done < n)
            b.failed = true; // every thread left waits: nothing can release them
    }
    hs.cur = outer;
#ifdef COOP_ASAN
    // Frames that never returned leave their redzones poisoned, and the next
    // block's frames on the same stacks would trip over them (clang's ASan
    // reports a bad access, then fails its own check describing it): a fiber
    // that finished never returns from fiber_main and the switch it died in,
    // frames at the top of its stack; one left waiting, anywhere in it.
    const size_t dead_top = 64u << 10;
    for (unsigned i = 0; i < n; i++) {
        size_t len = b.failed ? stack_bytes - 4096 : dead_top;
        __asan_unpoison_memory_region((char *)hs.stacks[i] + stack_bytes - len, len);
    }
#endif
    return !b.failed;
}

void cpu_coop_syncthreads()
{
    block *b = hs.cur;
    if (!b)
        return; // a kernel run outside a block of fibers has one thread at a time
    if (++b->bar_arrived < b->live) {
        wait_released(b, WAIT_BAR);
        return;
    }
    b->bar_arrived = 0;
    for (unsigned i = 0; i < b->n; i++)
        if (b->f[i].state == WAIT_BAR)
            b->f[i].state = RUNNABLE;
}

void cpu_coop_warp(const void *in, unsigned in_bytes, void *out, unsigned out_bytes, cpu_coop_fn fn, void *fn_ctx)
{
    block *b = hs.cur;
    unsigned lane;
    if (!b || in_bytes > CPU_COOP_IN_MAX || out_bytes > CPU_COOP_OUT_MAX) {
        if (b)
            b->failed = true;
        memset(out, 0, out_bytes);
        return;
    }
    warp_slot *w = lane_warp(b, &lane);
    if (w->arrived == 0) {
        w->fn = fn;
        w->in_bytes = in_bytes;
        w->out_bytes = out_bytes;
    } else if (w->fn != fn || w->in_bytes != in_bytes || w->out_bytes != out_bytes) {
        b->failed = true; // lanes of one warp at different collectives
    }
    memcpy(w->in + lane * in_bytes, in, in_bytes);
    if (++w->arrived < 32) {
        wait_released(b, WAIT_WARP);
    } else {
        fn(w->in, w->out, fn_ctx);
        w->arrived = 0;
        unsigned first = b->cur - lane;
        for (unsigned i = first; i < first + 32 && i < b->n; i++)
            if (b->f[i].state == WAIT_WARP)
                b->f[i].state = RUNNABLE;
    }
    // A lane resumes only after the warp's fn ran, and the next collective's
    // fn runs only after every lane has arrived there: out is still this one's.
    memcpy(out, w->out + lane * out_bytes, out_bytes);
}

unsigned char *cpu_coop_shared()
{
    return hs.cur ? hs.cur->shared : nullptr;
}
