/* ptx_params.h - how a kernel uses its parameters, read off its PTX: which
 * are pointers, what it loads and stores through each (the element type, the
 * conversion around it), which are texture or surface handles, which it
 * never reads.  For `vkrr port new`, so a port starts from what the kernel
 * does rather than from guesses at bytes.
 *
 *     vkrr_ptx_param_use u[64];
 *     uint32_t n;
 *     if (vkrr_ptx_param_uses(m, "my_kernel", u, 64, &n, &err) == VKRR_OK) ...
 *
 * The analysis follows each parameter from its ld.param through the address
 * arithmetic (mov, cvta, add, mad, ...; loops to a fixed point) to the memory
 * instructions whose address it is, and the loaded values to the first
 * conversion applied to them (cvt.f32.f16, cvt.rn.f16x2.e4m3x2, ...); a
 * stored value back to the conversion that made it.  It reads the parsed
 * text, so it works on kernels whose instructions the interpreter cannot run.
 * Does NOT: prove anything (a pointer passed through memory, or to a called
 * function, is seen as unused: said so in the scaffold).
 */
#ifndef VKRR_PTX_PARAMS_H
#define VKRR_PTX_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "ptx.h"

typedef struct vkrr_ptx_access {
    char op[48];           /* the first such instruction's opcode: "ld.global.nc.v4.f32" */
    char elem[8];          /* its element type: "f32", "b16", "u8", ... */
    char cvt[48];          /* the conversion of the value: the first informative cvt
                            * applied to what was loaded, or the one that made what
                            * was stored ("cvt.rn.satfinite.e4m3x2.f32"); "" none */
    uint32_t line, cvt_line;
    uint32_t count;        /* instructions of this kind through it */
} vkrr_ptx_access;

/* One word of the parameter block: each one an ld.param reads (a struct
 * passed by value gives one per field read), then each parameter no
 * ld.param touches (used false), in offset order. */
typedef struct vkrr_ptx_param_use {
    uint32_t offset, size;  /* in the parameter block */
    bool used;              /* read by an ld.param */
    bool address;           /* used as (part of) a memory address: a pointer */
    vkrr_ptx_access load, store, atomic;
    char image_op[48];      /* a texture or surface instruction taking it as its handle */
    uint32_t image_line;
    bool texture, surface;
    uint32_t tex_int, tex_float; /* tex instructions taking it as their handle, by coordinate
                                  * type: .s32 (the texel, never filtered) or .f32 */
} vkrr_ptx_param_use;

/* An entry's .param declarations, as its PTX lays them out. */
typedef struct vkrr_ptx_param_decl {
    uint32_t offset, size, align; /* in the parameter block */
} vkrr_ptx_param_decl;
/* At most cap into out; returns how many there are (0 with no such entry,
 * *found false). */
uint32_t vkrr_ptx_entry_params(const vkrr_ptx_module *m, const char *entry, vkrr_ptx_param_decl *out,
                               uint32_t cap, bool *found);

/* The parameter words of entry (at most cap into out; *n gets how many
 * there are).  VKRR_ERR_MISSING when the module has no such entry. */
vkrr_status vkrr_ptx_param_uses(const vkrr_ptx_module *m, const char *entry, vkrr_ptx_param_use *out,
                                uint32_t cap, uint32_t *n, vkrr_error *err);

/* Whether entry can read the texture whose handle is the parameter word at
 * offset filtered.  False only when the PTX shows it cannot: every tex
 * instruction taking that handle has integer (.s32) coordinates, which read
 * one texel unfiltered whatever the sampler says (PTX ISA, tex), and no tex
 * instruction with .f32 coordinates takes a handle not traced to a parameter
 * or sits in a function the entry may call.  True otherwise: no such entry,
 * a body that did not parse, a handle no tex instruction takes (a tld4 or
 * txq alone says nothing of filtering, but neither does it prove). */
bool vkrr_ptx_texture_may_filter(const vkrr_ptx_module *m, const char *entry, uint32_t offset);

#endif
