/* record.h - `vkrr record`: one launch of any kernel, from its PTX, recorded
 * as a capture, so a kernel vkrr has never seen can be ported and validated
 * before a capture from the GPU exists (the README's "Port your first
 * kernel" starts here).
 *
 *     const char *args[] = {"in:f32:256", "out:f32:256", "f32:2.5", "u32:256"};
 *     vkrr_record_run(&(vkrr_record_desc){.dir = "cap", .ptx = "scale.ptx", .kernel = "scale",
 *                                         .grid = {4, 1, 1}, .block = {64, 1, 1},
 *                                         .args = args, .nargs = 4}, &err);
 *
 * One argument spec per .param of the kernel, in order:
 *   in:TYPE:COUNT     a pointer to COUNT elements of TYPE (f32 f16 bf16 e4m3 u8
 *                     s8 u16 s16 u32 s32 ...), filled from the seed (floats in
 *                     [-4, 4), integers all bits)
 *   out:TYPE:COUNT    a pointer to COUNT zero elements the kernel writes
 *   inout:TYPE:COUNT  filled like in:, and written
 *   u32:V s32:V u64:V s64:V f32:V f64:V   a scalar
 * The kernel runs on vkrr's PTX backend (no GPU: its JIT, or its interpreter
 * where the JIT cannot compile the kernel or VKRR_PTX_ENGINE says interp);
 * engine, when not NULL, gets that backend's words for the engine that ran
 * it ("jit", "interp", "interp (WHY)").  The capture holds the launch as the
 * CUDA bridge records one, the module in modules/ and a device line naming
 * the backend.  Written to DIR.tmp-PID and put in
 * place whole; DIR must not exist or be empty unless force.
 * Errors: VKRR_ERR_USAGE naming the spec (its position and text) that does
 * not parse or does not fit the .param it stands for; the kernel's own
 * failures as the PTX backend reports them.
 */
#ifndef VKRR_RECORD_H
#define VKRR_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct vkrr_record_desc {
    const char *dir;
    const char *ptx;        /* the module file */
    const char *kernel;     /* its .entry */
    uint32_t grid[3], block[3];
    const char *const *args;
    uint32_t nargs;
    uint64_t seed;          /* 0: 1 */
    bool force;
} vkrr_record_desc;

vkrr_status vkrr_record_run(const vkrr_record_desc *d, char *engine, size_t engine_cap,
                            vkrr_error *err);

/* One argument spec alone: the bytes it takes in the parameter block (8 for
 * a buffer), or VKRR_ERR_USAGE saying why it does not parse (fuzzed). */
vkrr_status vkrr_record_spec_bytes(const char *spec, uint32_t *bytes, vkrr_error *err);

#endif
