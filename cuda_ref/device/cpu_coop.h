/* cpu_coop.h - the threads of one block as fibers on one host thread, for
 * the kernels whose threads talk to each other (__syncthreads, and the warp
 * instructions that need every lane's registers: mma, movmatrix, shfl).
 *
 *     cpu_coop_run_block(block, shared_bytes, body, ctx);   // body(ctx) once a thread
 *
 * Each CUDA thread of the block runs body(ctx) on its own stack (switched by
 * hand on x86-64, by ucontext elsewhere); threadIdx is set to the fiber's
 * before each switch into it, so a kernel reads its own.  A thread runs
 * until it waits:
 *   - cpu_coop_syncthreads: bar.sync 0, the block's barrier: it opens when
 *     every thread that has not returned has arrived (as the PTX interpreter
 *     counts, so a thread that returned early does not hang the block);
 *   - cpu_coop_warp: a warp collective.  Each lane deposits its operand
 *     bytes; the 32nd lane to arrive runs fn once over all 32 deposits,
 *     which writes the 32 lanes' results, and each lane takes its own.  A
 *     warp whose 32 lanes cannot all arrive (a lane returned, or the block
 *     has fewer than 32 threads in it) never completes.
 * The threads are switched in a fixed order (round robin from thread 0),
 * so a launch is deterministic; the results do not depend on the order.
 * Dynamic shared memory: shared_bytes, zeroed for every block (as the PTX
 * interpreter does), at cpu_coop_shared().
 *
 * Errors: threads that wait for each other in a way that can never complete
 * (a deadlock), a collective whose lanes name different operations, or no
 * memory for the stacks: the block stops, and cpu_coop_run_block returns
 * false; the caller fails the launch (cpu_backend.cpp: VKRR_ERR_FAULT).
 * Fibers left waiting are abandoned (kernels hold no resources that need
 * unwinding).
 * Thread-safety: one block at a time per host thread; the stacks are kept
 * per host thread and reused.  ASan is told about every switch.
 * Does NOT: model independent thread scheduling (lanes run in lockstep only
 * where they meet), warps of partial membermasks, or named barriers.
 */
#ifndef VKRR_CPU_COOP_H
#define VKRR_CPU_COOP_H

#include <stddef.h>

/* What a collective deposits and takes per lane, at most. */
#define CPU_COOP_IN_MAX 64u
#define CPU_COOP_OUT_MAX 32u

/* The block's threads: x, y, z extents (x fastest, warps of 32 in that order). */
bool cpu_coop_run_block(unsigned bx, unsigned by, unsigned bz, unsigned shared_bytes,
                        void (*body)(void *ctx), void *ctx);

/* __syncthreads() */
void cpu_coop_syncthreads(void);

/* fn(in_all, out_all, fn_ctx): in_all holds the 32 lanes' in_bytes each, lane
 * l's at in_all + l * in_bytes; it writes out_bytes a lane the same way. */
typedef void (*cpu_coop_fn)(const void *in_all, void *out_all, void *fn_ctx);
void cpu_coop_warp(const void *in, unsigned in_bytes, void *out, unsigned out_bytes, cpu_coop_fn fn,
                   void *fn_ctx);

/* The current block's dynamic shared memory (NULL outside a block). */
unsigned char *cpu_coop_shared(void);

#endif
