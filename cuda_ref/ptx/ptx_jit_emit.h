/* ptx_jit_emit.h - LLVM IR for the JIT's runs of instructions (ptx_jit.c
 * drives it; built only with LLVM). */
#ifndef VKRR_PTX_JIT_EMIT_H
#define VKRR_PTX_JIT_EMIT_H

#include <llvm-c/Core.h>

#include "ptx_internal.h"

typedef struct jit_emit {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMTypeRef i1, i8, i32, i64, ptr, fn_t, v64, vmask;
    const ptx_func *f;
    /* the function being emitted */
    LLVMValueRef fn, w, active, code, R, P;
    LLVMValueRef mrun; /* active as <32 x i1>: the lanes whose registers the run writes */
    unsigned id_mstore, id_gather; /* llvm.masked.store, llvm.masked.gather */
    LLVMBasicBlockRef fail;
    LLVMValueRef pbuf, vbuf; /* stack arrays for the memory helpers' lanes */
    /* registers held in SSA values between handler calls: a slot's vector
     * (R) or a predicate's mask (P), NULL when memory holds the value; dirty
     * ones are stored before a call and at the end */
    LLVMValueRef *rval, *pval;
    uint8_t *rdirty, *pdirty;
    uint32_t *touched, ntouched; /* slots and predicates (P: | 0x80000000) held or once held */
    uint8_t *listed;             /* per slot, then per predicate: in touched */
    uint32_t native, called; /* instructions emitted inline / as handler calls */
} jit_emit;

/* Types and builder for module mod; ptx_jit_emit_done frees the builder. */
bool ptx_jit_emit_init(jit_emit *e, LLVMContextRef ctx, LLVMModuleRef mod, const ptx_func *f); /* false: no memory */
void ptx_jit_emit_done(jit_emit *e);
/* The run of instructions [pc, pc + len) of e->f as function name, of type
 * ptx_seq_fn: the operations of ptx_jop's tables as vector code over the
 * 32 lanes, every other instruction a call of its handler, each under the
 * lanes its guard leaves. */
void ptx_jit_emit_run(jit_emit *e, uint32_t pc, uint32_t len, const char *name);
/* The functions the code calls by name (defined in each JIT). */
void vkrr_ptx_jit_gather(uint64_t *out, void *const *ptrs, uint32_t m, uint32_t eb, uint32_t sx,
                         uint32_t off);
void vkrr_ptx_jit_scatter(void *const *ptrs, const uint64_t *vals, uint32_t m, uint32_t eb,
                          uint32_t off);

#endif
