/* cpu_kernels.h - the rrref kernels compiled for the CPU, by name.
 *
 * cpu_kernels.cpp includes the .cu files themselves (against cuda_cpu.h), so
 * the CPU runs the one copy of the kernel math.  Each entry runs a range of
 * blocks of a launch on the calling thread (threadIdx/blockIdx are
 * thread_local); the backend splits the blocks over threads.
 */
#ifndef VKRR_CPU_KERNELS_H
#define VKRR_CPU_KERNELS_H

#include <stddef.h>

#include "cuda_cpu.h"

typedef void (*cpu_kernel_range_fn)(const void *params, dim3 grid, dim3 block, size_t b0,
                                    size_t b1);

struct cpu_kernel_entry {
    const char *name;
    unsigned params_bytes;  /* the parameter struct's size: args.bin must match */
    cpu_kernel_range_fn run;
};

/* NULL when the CPU has no such kernel. */
const cpu_kernel_entry *cpu_kernel_find(const char *name);

#endif
