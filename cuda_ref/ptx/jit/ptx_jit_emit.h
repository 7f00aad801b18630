/* ptx_jit_emit.h - LLVM IR for the JIT's runs of instructions (ptx_jit.c
 * drives it; built only with LLVM): ptx_jit_ir.c holds registers and calls
 * handlers, ptx_jit_mem.c emits ld/st, ptx_jit_float.c float arithmetic,
 * ptx_jit_emit.c the other inline operations and each run with the branch that ends it. */
#ifndef VKRR_PTX_JIT_EMIT_H
#define VKRR_PTX_JIT_EMIT_H

#include <llvm-c/Core.h>

#include "ptx_internal.h"
#include "ptx_jcalls.h"

/* Runs of one shape share one function (the quick tier: an unrolled
 * kernel's phases are the same code over other registers): what differs
 * between them, their registers' slots, pcs and offsets, each run reads from
 * its table (ptx_jit_seq.tab), v[at[pc]...]; rep[pc] is the run whose
 * function the run at pc calls (pc itself when the function is its own). */
typedef struct jit_tabs {
    uint64_t *v;
    size_t n, cap;
    uint32_t *at, *rep; /* per pc */
} jit_tabs;

typedef struct jit_shape { /* a function the module keeps, by its IR (ptx_jit_shape_of) */
    uint64_t hash;
    uint64_t *tok; /* NULL: an empty entry */
    uint32_t ntok, pc;
} jit_shape;

typedef struct jit_emit {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMTypeRef i1, i8, i32, i64, ptr, fn_t, v64, vmask;
    const ptx_func *f;
    LLVMValueRef *fns;        /* per pc: the function of the run that starts there, or NULL */
    const ptx_jit_seq *seq;   /* per pc: that run's length */
    /* the function being emitted */
    LLVMValueRef fn, w, active, code, R, P;
    LLVMValueRef mrun; /* active as <32 x i1>: the lanes whose registers the run writes */
    LLVMBasicBlockRef fail;
    unsigned id_mstore, id_gather, id_scatter; /* llvm.masked.store, .gather, .scatter */
    /* registers held in SSA values between handler calls: a slot's vector
     * (R) or a predicate's mask (P), NULL when memory holds the value; dirty
     * ones are stored before a call and at the end */
    LLVMValueRef *rval, *pval;
    uint8_t *rdirty, *pdirty;
    uint32_t *touched, ntouched; /* slots and predicates (P: | 0x80000000) held or once held */
    uint8_t *listed;             /* per slot, then per predicate: in touched */
    uint32_t native, called; /* instructions emitted inline / as handler calls */
    /* sharing code between runs of one shape (NULL tabs: each run its own,
     * its values constants in its code) */
    jit_tabs *tabs;
    LLVMValueRef tab;  /* the function's table (its 4th parameter), when tabs */
    size_t tab0;       /* where the run being emitted starts in tabs->v */
    bool tab_full;     /* out of memory for tabs: the run is not shared */
    jit_shape *shapes; /* this module's functions by their IR (open addressing) */
    uint32_t nshapes, capshapes;
    bool share_check;  /* VKRR_PTX_JIT_SHARE_CHECK=1, read once an emit */
    bool prefetch;     /* a run asks early for the instructions it calls: kernels of 8,192
                        * instructions or more (VKRR_PTX_JIT_PREFETCH=0: none) */
} jit_emit;

/* Types and builder for module mod; ptx_jit_emit_done frees the builder. */
bool ptx_jit_emit_init(jit_emit *e, LLVMContextRef ctx, LLVMModuleRef mod, const ptx_func *f); /* false: no memory */
void ptx_jit_emit_done(jit_emit *e);
/* 0 when ptx_jit_emit_runs emits in as a call of its handler, else what
 * its inline code costs LLVM's -O0 code generator against an integer
 * operation's (ld/st, with their address checks and gathers: about 4, on
 * enc0_bench).  The JIT compiles a large kernel's runs where enough are
 * inline, within a budget (ptx_jit.c). */
unsigned ptx_jit_emit_weight(const ptx_inst *in);
/* Defines a function (type ptx_seq_fn, named names[pc]) for every run of
 * seq that starts in [lo, hi): the operations of ptx_jop's tables as vector
 * code over the 32 lanes, every other instruction a call of its handler,
 * each under the lanes its guard leaves, and at the end the branch or
 * branch target that ended the run, taken in compiled code where the
 * scheduler would not regroup the warp (see ptx_jit_emit.c).  fns (f->ncode
 * entries, NULL) gets the functions it defines by pc.  With e->tabs set
 * (after ptx_jit_emit_init), runs share functions: a run's function is kept
 * only when no earlier run of the module has the same IR; else it is
 * deleted, fns[pc] left NULL and tabs->rep[pc] names the earlier run.
 * False: out of memory. */
bool ptx_jit_emit_runs(jit_emit *e, const ptx_jit_seq *seq, LLVMValueRef *fns,
                       char (*names)[48], uint32_t lo, uint32_t hi);

/* ---- ptx_jit_select.c ---- */
/* Marks the runs to compile (seq[pc].len where one starts, names[pc] its
 * name for now): at least inline_pct percent inline instructions and, past
 * budget (0: none), those saving the most a unit of cost.  Returns how many
 * instructions they hold, or UINT32_MAX when out of memory. */
uint32_t ptx_jit_select_runs(const ptx_func *f, unsigned inline_pct, uint32_t budget, ptx_jit_seq *seq,
                             char (*names)[48]);
/* After emitting runs that share functions: keeps the functions within
 * budget (0: all), deleting the others (fns) and uncompiling their runs
 * (seq[pc].len 0); *kept_cost gets what those kept cost.  Returns the
 * instructions left compiled, or UINT32_MAX. */
uint32_t ptx_jit_budget_shapes(const ptx_func *f, uint32_t budget, ptx_jit_seq *seq, const jit_tabs *tabs,
                               LLVMValueRef *fns, uint64_t *kept_cost);
void ptx_jit_tabs_free(jit_tabs *t); /* its arrays (t may be NULL) */
/* ---- ptx_jit_shape.c ---- */
/* fn's IR as numbers (*tok, malloc'd; *ntok of them): equal for two
 * functions of one context exactly when their code is the same.  False
 * (nothing allocated) for IR it does not know, or out of memory. */
bool ptx_jit_shape_of(LLVMValueRef fn, uint64_t **tok, uint32_t *ntok);
/* ---- ptx_jit_ir.c ---- */
/* A value of the run being emitted that another run of its shape has
 * different (a slot's offset, a pc, an address offset) as type t: a
 * constant, or where runs share code, loaded from the run's table. */
LLVMValueRef jit_k(jit_emit *e, LLVMTypeRef t, uint64_t v);
LLVMValueRef jit_splat_k(jit_emit *e, unsigned bits, uint64_t v); /* jit_k's in every lane */
LLVMTypeRef jit_vec(jit_emit *e, unsigned bits);                      /* <32 x iN> */
LLVMValueRef jit_splat(jit_emit *e, unsigned bits, uint64_t v);       /* constant in every lane */
LLVMValueRef jit_splat_of(jit_emit *e, LLVMValueRef x);               /* a run-time scalar, every lane */
LLVMValueRef jit_field_ptr(jit_emit *e, LLVMValueRef base, LLVMTypeRef t, uint64_t index);
LLVMValueRef jit_field(jit_emit *e, LLVMValueRef base, size_t off, LLVMTypeRef t); /* load at base + off */
LLVMValueRef jit_slot_ptr(jit_emit *e, uint32_t slot);
LLVMValueRef jit_inst_ptr(jit_emit *e, const ptx_inst *in); /* in's ptx_inst in the code */
LLVMValueRef jit_pred_ptr(jit_emit *e, uint32_t p);          /* predicate p's 32-bit mask */
LLVMValueRef jit_load_slot(jit_emit *e, uint32_t slot);
void jit_store_slot(jit_emit *e, uint32_t slot, LLVMValueRef v, LLVMValueRef mask);
void jit_put_slot(jit_emit *e, uint32_t slot);
LLVMValueRef jit_load_pred(jit_emit *e, uint32_t p);
void jit_store_pred(jit_emit *e, uint32_t p, LLVMValueRef bits, LLVMValueRef m);
void jit_flush(jit_emit *e, bool forget);
void jit_call_handler(jit_emit *e, const ptx_inst *in, LLVMValueRef m);
void jit_emit_call(jit_emit *e, const ptx_inst *in, LLVMValueRef m);
/* jit_emit_call, but a whole warp calls ptx_warp.jcalls' routine at off
 * (type ft) with w and args instead of in's handler. */
void jit_emit_call_whole(jit_emit *e, const ptx_inst *in, LLVMValueRef m, size_t off, LLVMTypeRef ft,
                         LLVMValueRef *args, unsigned nargs);
/* ---- ptx_jit_mem.c ---- */
/* ld/st (ptx_mem_jops) for lanes m (mv as <32 x i1>); false: not inline. */
bool jit_emit_mem(jit_emit *e, const ptx_inst *in, const ptx_jop *j, LLVMValueRef m,
                  LLVMValueRef mv);
/* ---- ptx_jit_float.c ---- */
/* x_approx (JOP_APPROX): a direct call where the whole warp runs its .f32
 * forms (ptx_approx32); false: the handler is called. */
bool jit_emit_approx(jit_emit *e, const ptx_inst *in, LLVMValueRef m);
/* x_cvt_pack's f8x2.f16x2 forms (JOP_CVT_F8X2): a direct call where the
 * whole warp runs it (ptx_cvt_f8x2_32); false: the handler is called. */
bool jit_emit_cvt_f8x2(jit_emit *e, const ptx_inst *in, LLVMValueRef m);
/* f32 add/sub/mul/fma, setp.f32 and cvt.rn.f16.f32 (ptx_float_jops,
 * JOP_F32_F16) for lanes m (mv as <32 x i1>); false: not inline (the
 * handler is called). */
bool jit_emit_float(jit_emit *e, const ptx_inst *in, const ptx_jop *j, LLVMValueRef m,
                    LLVMValueRef mv);

#endif
