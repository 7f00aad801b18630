/* cpu_kernels.h - the kernels compiled for the CPU, by name.
 *
 * cpu_kernels.cpp includes the rrref .cu files themselves (against
 * cuda_cpu.h), so the CPU runs the one copy of the kernel math.  Each entry
 * runs a range of blocks of a launch on the calling thread (threadIdx/blockIdx
 * are thread_local); the backend splits the blocks over threads.
 *
 * Other kernels (a test's own .cu) join the table the same way: a C++ file
 * includes cuda_cpu.h and the .cu, and registers CPU_KERNEL(name, Params)
 * with cpu_kernel_register before any backend runs (tests/kernels/).
 */
#ifndef VKRR_CPU_KERNELS_H
#define VKRR_CPU_KERNELS_H

#include <stddef.h>
#include <string.h>

#include "cuda_cpu.h"

/* Runs blocks [b0, b1) of a launch; false when a block could not finish
 * (cpu_coop.h: threads that wait for each other forever). */
typedef bool (*cpu_kernel_range_fn)(const void *params, dim3 grid, dim3 block, unsigned shared_bytes,
                                    size_t b0, size_t b1);

struct cpu_kernel_entry {
    const char *name;
    unsigned params_bytes;  /* the parameter struct's size: args.bin must match */
    cpu_kernel_range_fn run;
    unsigned approx_ops;    /* bit (1 << vkrr_approx_op) of each approximate instruction it uses */
    unsigned standins;      /* the VKRR_STANDIN_* bits its launches report (its PTX's) */
};

/* blockIdx of the launch's b-th block, x fastest. */
static inline void cpu_set_block(size_t b, dim3 grid)
{
    blockIdx.x = (unsigned)(b % grid.x);
    blockIdx.y = (unsigned)((b / grid.x) % grid.y);
    blockIdx.z = (unsigned)(b / ((size_t)grid.x * grid.y));
}

/* Blocks [b0, b1) of a launch of kernel K taking a P by value: block loop
 * outside, threads inside in x-fastest order, each to its end (the kernels
 * whose threads never meet). */
template <typename P, void (*K)(P)>
static bool cpu_run_range(const void *params, dim3 grid, dim3 block, unsigned, size_t b0, size_t b1)
{
    P p;
    memcpy(&p, params, sizeof p);
    gridDim = grid;
    blockDim = block;
    for (size_t b = b0; b < b1; b++) {
        cpu_set_block(b, grid);
        for (unsigned z = 0; z < block.z; z++)
            for (unsigned y = 0; y < block.y; y++)
                for (unsigned x = 0; x < block.x; x++) {
                    threadIdx.x = x;
                    threadIdx.y = y;
                    threadIdx.z = z;
                    K(p);
                }
    }
    return true;
}

/* The same for a kernel whose threads meet (__syncthreads, warp collectives):
 * each block's threads as fibers (cpu_coop.h), with shared_bytes of dynamic
 * shared memory. */
template <typename P, void (*K)(P)>
static void cpu_coop_body(void *p)
{
    K(*(const P *)p);
}
template <typename P, void (*K)(P)>
static bool cpu_run_range_coop(const void *params, dim3 grid, dim3 block, unsigned shared_bytes, size_t b0,
                               size_t b1)
{
    P p;
    memcpy(&p, params, sizeof p);
    gridDim = grid;
    blockDim = block;
    for (size_t b = b0; b < b1; b++) {
        cpu_set_block(b, grid);
        if (!cpu_coop_run_block(block.x, block.y, block.z, shared_bytes, cpu_coop_body<P, K>, &p))
            return false;
    }
    return true;
}

/* rrref's first kernels: ex2.approx.ftz.f32 and rsqrt.approx.ftz.f32, no stand-in */
#define CPU_APPROX_RRREF ((1u << VKRR_APPROX_EX2) | (1u << VKRR_APPROX_RSQRT))
#define CPU_KERNEL(name, P) {#name, (unsigned)sizeof(P), cpu_run_range<P, name>, CPU_APPROX_RRREF, 0u}
#define CPU_KERNEL_COOP(name, P, approx_ops, standins)                                             \
    {#name, (unsigned)sizeof(P), cpu_run_range_coop<P, name>, approx_ops, standins}

/* NULL when the CPU has no such kernel. */
const cpu_kernel_entry *cpu_kernel_find(const char *name);

/* Adds a kernel compiled outside this library (the entry must outlive its
 * use; a name already known is refused).  Not thread safe: call it before
 * any backend runs.  False when the table (16 extra kernels) is full. */
bool cpu_kernel_register(const cpu_kernel_entry *k);

#endif
