// cpu_coop.cpp - a block's threads as fibers (see cpu_coop.h).
#include "cpu_coop.h"

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
#include <sanitizer/common_interface_defs.h>
#endif

namespace {

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
    ucontext_t ctx;
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
    ucontext_t sched;
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

// Switches from fiber `from` (NULL: the scheduler) to `to_ctx`.
void switch_to(ucontext_t *from_ctx, ucontext_t *to_ctx, const void *to_bottom, size_t to_size, bool dying)
{
#ifdef COOP_ASAN
    void *fake = nullptr;
    __sanitizer_start_switch_fiber(dying ? nullptr : &fake, to_bottom, to_size);
    if (dying) {
        setcontext(to_ctx);
        return;
    }
    swapcontext(from_ctx, to_ctx);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
    (void)to_bottom, (void)to_size;
    if (dying)
        setcontext(to_ctx);
    else
        swapcontext(from_ctx, to_ctx);
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
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = hs.stacks[i];
        f.ctx.uc_stack.ss_size = stack_bytes;
        f.ctx.uc_link = nullptr;
        makecontext(&f.ctx, fiber_main, 0);
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
