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

typedef void (*cpu_kernel_range_fn)(const void *params, dim3 grid, dim3 block, size_t b0,
                                    size_t b1);

struct cpu_kernel_entry {
    const char *name;
    unsigned params_bytes;  /* the parameter struct's size: args.bin must match */
    cpu_kernel_range_fn run;
};

/* Blocks [b0, b1) of a launch of kernel K taking a P by value: block loop
 * outside, threads inside in x-fastest order. */
template <typename P, void (*K)(P)>
static void cpu_run_range(const void *params, dim3 grid, dim3 block, size_t b0, size_t b1)
{
    P p;
    memcpy(&p, params, sizeof p);
    gridDim = grid;
    blockDim = block;
    for (size_t b = b0; b < b1; b++) {
        blockIdx.x = (unsigned)(b % grid.x);
        blockIdx.y = (unsigned)((b / grid.x) % grid.y);
        blockIdx.z = (unsigned)(b / ((size_t)grid.x * grid.y));
        for (unsigned z = 0; z < block.z; z++)
            for (unsigned y = 0; y < block.y; y++)
                for (unsigned x = 0; x < block.x; x++) {
                    threadIdx.x = x;
                    threadIdx.y = y;
                    threadIdx.z = z;
                    K(p);
                }
    }
}

#define CPU_KERNEL(name, P) {#name, (unsigned)sizeof(P), cpu_run_range<P, name>}

/* NULL when the CPU has no such kernel. */
const cpu_kernel_entry *cpu_kernel_find(const char *name);

/* Adds a kernel compiled outside this library (the entry must outlive its
 * use; a name already known is refused).  Not thread safe: call it before
 * any backend runs.  False when the table (16 extra kernels) is full. */
bool cpu_kernel_register(const cpu_kernel_entry *k);

#endif
