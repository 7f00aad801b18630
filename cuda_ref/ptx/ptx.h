/* ptx.h - the PTX interpreter: the original kernels from their PTX, on any CPU.
 *
 * Runs a kernel from the PTX text nvcc emits (ISA 8.x/9.x, .target sm_80 ..
 * sm_90), with no GPU, no port and no source.  Two ways in:
 *
 *   1. As the "ptx" vkrr_backend (see replay.h), from a list of module files:
 *
 *        const char *mods[] = {"build/cuda_ref/modules/rrref_conv.ptx", ...};
 *        vkrr_backend ptx;
 *        if (vkrr_ptx_backend_create(&ptx, mods, 4, &err) != VKRR_OK) ...
 *        ptx.run(ptx.self, &replay, &err);   // the kernel found by .entry name
 *        ptx.destroy(ptx.self);
 *
 *      Per launch, exactly as the CPU backend: every allocation is a host copy
 *      of its pre contents (run in place in post when post is given), pointer
 *      words become host addresses + delta, texture and surface handle words
 *      become the addresses of cuda_texture.h descriptors, surfaces start from
 *      pre or VKRR_SENTINEL_BYTE.
 *
 *   2. Directly, on host memory (the tests, the fuzzer):
 *
 *        vkrr_ptx_module *m;
 *        vkrr_ptx_module_load(&m, text, len, "k.ptx", &err);   // parse + decode
 *        vkrr_ptx_run(m, "kernel", &(vkrr_ptx_launch){...}, &err);
 *        vkrr_ptx_module_free(m);
 *
 * What it does: parses the whole module (directives, .entry/.func with
 * .param, .reg, .local, .shared, .global/.const variables with initializers,
 * calls and recursion, printf and assert,
 * predicates, labels, .maxntid/.reqntid/...), decodes each function once into
 * a compact instruction array (operands are register-file slots; immediates
 * and special registers are slots too; registers are packed by liveness),
 * and runs a launch CTA by CTA (CTAs in parallel on `threads` host threads),
 * each CTA as warps of 32 lanes: per-lane PCs, the lowest-PC group runs,
 * lanes reconverge where they meet at a branch target (for the structured
 * code nvcc emits that is the immediate post-dominator), bar.sync waits for
 * every non-exited thread of the CTA, warp collectives (.sync/.aligned) wait
 * for their member lanes.  The implemented instructions are listed in
 * cuda_ref/ptx/README.md.
 *
 * Numerics: integer ops exact; f32/f64/f16/bf16 arithmetic IEEE with every
 * rounding mode, .ftz and .sat; NaN results of f32/f16 arithmetic are the
 * canonical NaN (0x7fffffff, 0x7fff) as NVIDIA GPUs make them; the
 * approximate instructions (ex2, rcp, rsqrt, sqrt, lg2, sin, cos, tanh
 * .approx) follow the hardware model, src/hw/approx.h; textures and surfaces are
 * cuda_texture.h (shared with the CPU backend); mma is documented in ptx_mma.c.
 *
 * Does NOT: run an instruction, modifier, state space or type it does not
 * implement: that is VKRR_ERR_UNSUPPORTED naming the instruction and
 * FILE:LINE, at load time for the kernel using it (the other kernels of
 * the module still run; a .func no kernel calls fails nothing); brx.idx;
 * textures
 * other than 2D; clusters, mbarrier, TMA, tcgen05/wgmma.
 *
 * Errors: malformed PTX -> VKRR_ERR_PARSE (file and line); unsupported ->
 * VKRR_ERR_UNSUPPORTED; at run time every global/shared/local/param access is
 * checked against the memory the launch owns (VKRR_ERR_FAULT naming the
 * instruction, FILE:LINE, the address and the thread), as are misaligned
 * accesses, bad texture/surface handles, trap, a barrier or warp collective
 * that can never complete, and the step limit; VKRR_ERR_SIZE when the
 * parameter block is smaller than the kernel's .param list.  Never exits,
 * never aborts.
 *
 * Ownership: a module owns everything it parsed; vkrr_ptx_run keeps no
 * pointer into the launch after it returns.
 */
#ifndef VKRR_PTX_H
#define VKRR_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_texture.h"
#include "replay.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkrr_ptx_module vkrr_ptx_module;

/* Parses and decodes a module.  name is used in messages (a path).  A
 * function that uses something unsupported does not fail the load: its
 * error is kept and returned when that kernel is launched. */
vkrr_status vkrr_ptx_module_load(vkrr_ptx_module **out, const char *text, size_t len,
                                 const char *name, vkrr_error *err);
vkrr_status vkrr_ptx_module_load_file(vkrr_ptx_module **out, const char *path, vkrr_error *err);
/* The same, but a module that does not parse is kept: the .entry names its
 * text declares, each failing when launched with VKRR_ERR_UNSUPPORTED and the
 * parse error (file, line), so the other modules' kernels still run. */
vkrr_status vkrr_ptx_module_load_file_keep(vkrr_ptx_module **out, const char *path,
                                           vkrr_error *err);
vkrr_status vkrr_ptx_module_load_keep(vkrr_ptx_module **out, const char *text, size_t len,
                                      const char *name, vkrr_error *err);
void vkrr_ptx_module_free(vkrr_ptx_module *m); /* accepts NULL */

/* true when the module has an .entry of that name (decoded or not). */
bool vkrr_ptx_module_has_entry(const vkrr_ptx_module *m, const char *entry);
/* The module's .entry names (up to cap of them into names, which point into
 * the module); returns how many there are. */
uint32_t vkrr_ptx_module_entries(const vkrr_ptx_module *m, const char **names, uint32_t cap);
/* VKRR_OK when that entry decoded; else its decode error. */
vkrr_status vkrr_ptx_entry_status(const vkrr_ptx_module *m, const char *entry, vkrr_error *err);

/* Memory a kernel may address (generic/global space): size bytes of host
 * memory at base, which the kernel sees at device (the address the capture
 * gave the allocation, so pointers, messages and an access past the end land
 * where they did on the GPU), or at base itself when device is 0. */
typedef struct vkrr_ptx_region {
    void *base;
    uint64_t size;
    bool writable;
    uint64_t device;
} vkrr_ptx_region;

/* How a launch runs the kernel's instructions: the JIT (straight runs of
 * instructions compiled to native code through LLVM, byte-identical to the
 * interpreter: ptx_jit.c) or the interpreter alone, the oracle.  DEFAULT:
 * the VKRR_PTX_ENGINE environment variable ("jit", "interp" or "both"),
 * else the JIT where this build has one.  A kernel the JIT cannot compile,
 * and any launch with coverage on, is interpreted; engine_used says so.
 * BOTH is the oracle check (ptx_run.c): the launch runs in the interpreter,
 * then from the same memory in the JIT, one host thread each, and every
 * byte it may write, its printf text and its error must agree, else
 * VKRR_ERR_INTERNAL names the first difference; the JIT's results stay. */
typedef enum vkrr_ptx_engine {
    VKRR_PTX_ENGINE_DEFAULT = 0,
    VKRR_PTX_ENGINE_INTERP,
    VKRR_PTX_ENGINE_JIT,
    VKRR_PTX_ENGINE_BOTH,
} vkrr_ptx_engine;
/* "jit", "interp" or "both" -> *out; false for anything else. */
bool vkrr_ptx_engine_parse(const char *s, vkrr_ptx_engine *out);
/* Whether this build has the JIT. */
bool vkrr_ptx_jit_built(void);
/* The version of the LLVM the JIT was built with ("15.0.6", static storage);
 * NULL in a build without the JIT. */
const char *vkrr_ptx_jit_llvm_version(void);

typedef struct vkrr_ptx_launch {
    uint32_t grid[3], block[3];
    uint32_t shared_bytes;          /* dynamic shared memory */
    const uint8_t *params;          /* the parameter block, pointer words already host addresses */
    uint32_t params_bytes;
    const vkrr_ptx_region *regions; /* every allocation the kernel may touch */
    uint32_t nregions;
    const vkrr_cutex *textures;     /* handle words are these descriptors' addresses */
    uint32_t ntextures;
    const vkrr_cusurf *surfaces;    /* likewise */
    uint32_t nsurfaces;
    uint32_t threads;               /* host threads; 0: every core (VKRR_PTX_THREADS overrides) */
    uint64_t max_steps;             /* warp instructions before VKRR_ERR_FAULT; 0: 2^40 */
    vkrr_ptx_engine engine;         /* see vkrr_ptx_engine */
    bool jit_no_cache;              /* compile without the JIT's cache (ptx_jit_cache.c) */
    const char **engine_used;       /* out, optional: "jit", "interp", or "interp (WHY the JIT
                                     * did not run it)"; valid while the module is loaded */
    unsigned *standins;             /* out, optional: the VKRR_STANDIN_* bits (src/hw/approx.h)
                                     * of the stand-ins the launch computed with */
    char **printf_out;              /* out, optional: the launch's printf output in thread order
                                     * (block, thread, call; malloc'd, the caller frees; NULL
                                     * when it printed nothing), set also when the launch fails */
    char *memory_note;              /* out, optional (memory_note_cap bytes): what its accesses
                                     * showed that is no fault (one instruction reached two
                                     * neighbouring regions: an overrun the GPU would have made
                                     * too, or a choice between them); "" when nothing */
    size_t memory_note_cap;
    uint64_t *worker_bytes;         /* out, optional: the heap memory each host thread holds
                                     * while it runs blocks (one block's warps, registers,
                                     * predicates, local and shared memory); besides it, each
                                     * thread's stack holds the frame of a compiled run */
    unsigned *workers;              /* out, optional: the host threads the launch ran on */
    uint32_t *jit_runs;             /* out, optional: the JIT's compiled runs of the entry (0
                                     * when the interpreter ran it) ... */
    uint32_t *jit_functions;        /* ... and the functions they are: runs of one shape
                                     * (an unrolled loop's bodies) share one in large kernels */
} vkrr_ptx_launch;

vkrr_status vkrr_ptx_run(const vkrr_ptx_module *m, const char *entry, const vkrr_ptx_launch *l,
                         vkrr_error *err);

/* Branch coverage: from vkrr_ptx_coverage_on, every run of m records, for
 * each conditional branch (bra under a guard) of its functions, whether it
 * was reached, taken and fallen through by some lane (the counts are kept by
 * the module, across runs, under threads).  vkrr_ptx_coverage lists the
 * conditional branches of entry in PTX order: at most cap in out, the count
 * returned (0 for an unknown entry or coverage off). */
typedef struct vkrr_ptx_branch {
    uint32_t line;      /* its PTX line */
    bool ran, taken, fell;
    const char *src;    /* the source file of the .loc before it (nvcc -lineinfo), or NULL */
    uint32_t src_line;
} vkrr_ptx_branch;
/* Instructions of entry (and of the functions it calls) none of the runs
 * reached: *ran of *total ran; the spans of consecutive instructions that
 * never ran, in PTX order (at most cap in out, the count returned). */
typedef struct vkrr_ptx_span {
    uint32_t line0, line1;  /* PTX lines of its first and last instruction */
    uint32_t count;         /* instructions in it */
    const char *src;        /* the .loc source of its first, or NULL */
    uint32_t src_line;
} vkrr_ptx_span;
uint32_t vkrr_ptx_instr_coverage(const vkrr_ptx_module *m, const char *entry, uint32_t *ran,
                                 uint32_t *total, vkrr_ptx_span *out, uint32_t cap);
vkrr_status vkrr_ptx_coverage_on(vkrr_ptx_module *m, vkrr_error *err);
uint32_t vkrr_ptx_coverage(const vkrr_ptx_module *m, const char *entry, vkrr_ptx_branch *out,
                           uint32_t cap);

/* The "ptx" backend (see the top of this file).  Every module is loaded once,
 * here; a path that cannot be read fails the create, a module that does not
 * parse fails only the launches of the kernels it declares. */
vkrr_status vkrr_ptx_backend_create(vkrr_backend *out, const char *const *module_paths, uint32_t n,
                                    vkrr_error *err);
/* The same with every *.ptx file of dir (in name order); VKRR_ERR_MISSING
 * when dir has none. */
vkrr_status vkrr_ptx_backend_create_dir(vkrr_backend *out, const char *dir, vkrr_error *err);
/* Modules from PTX texts already read (a fatbin's entries), named names[i]
 * in messages; a kernel runs from the first module that defines it. */
vkrr_status vkrr_ptx_backend_create_texts(vkrr_backend *out, const char *const *names,
                                          const char *const *texts, const size_t *lens, uint32_t n,
                                          vkrr_error *err);
/* Coverage on in every module of a ptx backend: its `coverage` op answers. */
vkrr_status vkrr_ptx_backend_coverage_on(vkrr_backend *be, vkrr_error *err);
/* The engine the backend's launches run with: "jit", "interp", "both" or
 * NULL (the default, VKRR_PTX_ENGINE); no_cache: the JIT compiles without
 * its cache.  VKRR_ERR_USAGE for another name, or "jit" in a build without
 * the JIT. */
vkrr_status vkrr_ptx_backend_engine(vkrr_backend *be, const char *engine, bool no_cache,
                                    vkrr_error *err);

#ifdef __cplusplus
}
#endif

#endif
