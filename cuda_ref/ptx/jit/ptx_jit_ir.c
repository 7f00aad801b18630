/* ptx_jit_ir.c - the JIT's registers as LLVM values: a slot is a
 * <32 x i64> (32 lanes of ptx_internal.h's 64-bit registers), a predicate a
 * 32-bit lane mask; the values held between handler calls, put back in
 * memory before a handler reads them and at the end of a run; and the
 * calls of handlers themselves. */
#ifdef VKRR_PTX_JIT_LLVM

#include <stddef.h>
#include <stdlib.h>

#include "ptx_jit_emit.h"

bool ptx_jit_emit_init(jit_emit *e, LLVMContextRef ctx, LLVMModuleRef mod, const ptx_func *f)
{
    memset(e, 0, sizeof *e);
    size_t nr = f->nslots ? f->nslots : 1, np = f->npreds ? f->npreds : 1;
    e->rval = calloc(nr, sizeof *e->rval);
    e->pval = calloc(np, sizeof *e->pval);
    e->rdirty = calloc(nr, 1);
    e->pdirty = calloc(np, 1);
    e->touched = calloc(nr + np, sizeof *e->touched);
    e->listed = calloc(nr + np, 1);
    e->ctx = ctx;
    e->mod = mod;
    e->f = f;
    const char *check = getenv("VKRR_PTX_JIT_SHARE_CHECK");
    e->share_check = check && !strcmp(check, "1");
    /* prefetch only where the decoded instructions (80 bytes each) outgrow
     * what a core's caches keep: on rrref's kernels it cost compile time
     * (e2e_ptx_jit 12%) and saved nothing */
    const char *pf = getenv("VKRR_PTX_JIT_PREFETCH");
    e->prefetch = !(pf && !strcmp(pf, "0")) && f->ncode >= 8192u;
    e->b = LLVMCreateBuilderInContext(ctx);
    e->i1 = LLVMInt1TypeInContext(ctx);
    e->i8 = LLVMInt8TypeInContext(ctx);
    e->i32 = LLVMInt32TypeInContext(ctx);
    e->i64 = LLVMInt64TypeInContext(ctx);
    e->ptr = LLVMPointerTypeInContext(ctx, 0);
    e->v64 = LLVMVectorType(e->i64, 32);
    e->vmask = LLVMVectorType(e->i1, 32);
    LLVMTypeRef params[4] = {e->ptr, e->i32, e->ptr, e->ptr}; /* ptx_seq_fn */
    e->fn_t = LLVMFunctionType(e->i32, params, 4, 0);
    e->id_mstore = LLVMLookupIntrinsicID("llvm.masked.store", strlen("llvm.masked.store"));
    e->id_gather = LLVMLookupIntrinsicID("llvm.masked.gather", strlen("llvm.masked.gather"));
    e->id_scatter = LLVMLookupIntrinsicID("llvm.masked.scatter", strlen("llvm.masked.scatter"));
    return e->rval && e->pval && e->rdirty && e->pdirty && e->touched && e->listed;
}

void ptx_jit_emit_done(jit_emit *e)
{
    LLVMDisposeBuilder(e->b);
    free(e->rval);
    free(e->pval);
    free(e->rdirty);
    free(e->pdirty);
    free(e->touched);
    free(e->listed);
    for (uint32_t i = 0; i < e->capshapes; i++)
        free(e->shapes[i].tok);
    free(e->shapes);
}

/* ---- values ---------------------------------------------------------------- */
LLVMTypeRef jit_vec(jit_emit *e, unsigned bits)
{
    return LLVMVectorType(LLVMIntTypeInContext(e->ctx, bits), 32);
}

LLVMValueRef jit_splat(jit_emit *e, unsigned bits, uint64_t v)
{
    LLVMValueRef c[32];
    for (unsigned i = 0; i < 32; i++)
        c[i] = LLVMConstInt(LLVMIntTypeInContext(e->ctx, bits), v, 0);
    return LLVMConstVector(c, 32);
}

LLVMValueRef jit_field_ptr(jit_emit *e, LLVMValueRef base, LLVMTypeRef t, uint64_t index)
{
    LLVMValueRef idx = LLVMConstInt(e->i64, index, 0);
    return LLVMBuildGEP2(e->b, t, base, &idx, 1, "");
}

LLVMValueRef jit_k(jit_emit *e, LLVMTypeRef t, uint64_t v)
{
    jit_tabs *tb = e->tabs;
    if (!e->tab || e->tab_full)
        return LLVMConstInt(t, v, 0);
    if (tb->n == tb->cap) {
        size_t cap = tb->cap ? 2 * tb->cap : 4096;
        uint64_t *nv = realloc(tb->v, cap * sizeof *nv);
        if (!nv) { /* the run keeps its constants (ptx_jit_emit_runs does not share it) */
            e->tab_full = true;
            return LLVMConstInt(t, v, 0);
        }
        tb->v = nv;
        tb->cap = cap;
    }
    tb->v[tb->n] = v;
    LLVMValueRef ix = LLVMConstInt(e->i64, tb->n++ - e->tab0, 0);
    LLVMValueRef x = LLVMBuildLoad2(e->b, e->i64, LLVMBuildGEP2(e->b, e->i64, e->tab, &ix, 1, ""), "");
    return t == e->i64 ? x : LLVMBuildTrunc(e->b, x, t, "");
}

LLVMValueRef jit_splat_k(jit_emit *e, unsigned bits, uint64_t v)
{
    if (!e->tab || e->tab_full)
        return jit_splat(e, bits, v);
    return jit_splat_of(e, jit_k(e, LLVMIntTypeInContext(e->ctx, bits), v));
}

/* base + the run's value off (bytes) */
static LLVMValueRef at_k(jit_emit *e, LLVMValueRef base, uint64_t off)
{
    LLVMValueRef k = jit_k(e, e->i64, off);
    return LLVMBuildGEP2(e->b, e->i8, base, &k, 1, "");
}

LLVMValueRef jit_slot_ptr(jit_emit *e, uint32_t slot)
{
    return at_k(e, e->R, (uint64_t)slot * 32u * 8u);
}

LLVMValueRef jit_pred_ptr(jit_emit *e, uint32_t p)
{
    return at_k(e, e->P, (uint64_t)p * 4u);
}

LLVMValueRef jit_inst_ptr(jit_emit *e, const ptx_inst *in)
{
    return at_k(e, e->code, (uint64_t)(in - e->f->code) * sizeof *in);
}

static void touch(jit_emit *e, uint32_t id)
{
    size_t at = id & 0x80000000u ? e->f->nslots + (id & 0x7fffffffu) : id;
    if (e->listed[at])
        return;
    e->listed[at] = 1;
    e->touched[e->ntouched++] = id;
}

LLVMValueRef jit_load_slot(jit_emit *e, uint32_t slot)
{
    if (!e->rval[slot]) {
        LLVMValueRef v = LLVMBuildLoad2(e->b, e->v64, jit_slot_ptr(e, slot), "");
        LLVMSetAlignment(v, 8);
        e->rval[slot] = v;
        touch(e, slot);
    }
    return e->rval[slot];
}

/* Lanes of mask get v; the others keep what the slot holds.  A held value
 * need only be right in the running lanes (the others are never stored:
 * see put_slot), so an unguarded write is v itself, with no select. */
void jit_store_slot(jit_emit *e, uint32_t slot, LLVMValueRef v, LLVMValueRef mask)
{
    if (mask == e->mrun) {
        e->rval[slot] = v;
        touch(e, slot);
    } else {
        e->rval[slot] = LLVMBuildSelect(e->b, mask, v, jit_load_slot(e, slot), "");
    }
    e->rdirty[slot] = 1;
}

/* A held value to memory: the running lanes only (a masked store; the
 * others' values in memory are theirs). */
void jit_put_slot(jit_emit *e, uint32_t slot)
{
    LLVMTypeRef tys[2] = {e->v64, e->ptr};
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->mod, e->id_mstore, tys, 2);
    LLVMValueRef args[4] = {e->rval[slot], jit_slot_ptr(e, slot), LLVMConstInt(e->i32, 8, 0), e->mrun};
    LLVMBuildCall2(e->b, LLVMGlobalGetValueType(fn), fn, args, 4, "");
    e->rdirty[slot] = 0;
}

LLVMValueRef jit_load_pred(jit_emit *e, uint32_t p)
{
    if (!e->pval[p]) {
        e->pval[p] = LLVMBuildLoad2(e->b, e->i32, jit_pred_ptr(e, p), "");
        touch(e, p | 0x80000000u);
    }
    return e->pval[p];
}

/* P[p] = (P[p] & ~m) | (bits & m), as the handlers write predicates. */
void jit_store_pred(jit_emit *e, uint32_t p, LLVMValueRef bits, LLVMValueRef m)
{
    LLVMValueRef old = jit_load_pred(e, p);
    LLVMValueRef keep = LLVMBuildAnd(e->b, old, LLVMBuildNot(e->b, m, ""), "");
    e->pval[p] = LLVMBuildOr(e->b, keep, LLVMBuildAnd(e->b, bits, m, ""), "");
    e->pdirty[p] = 1;
}

/* Memory gets every changed register (before a handler reads them, and at
 * the end); forget: memory is the only copy after (a handler may write any). */
void jit_flush(jit_emit *e, bool forget)
{
    for (uint32_t i = 0; i < e->ntouched; i++) {
        uint32_t id = e->touched[i];
        if (id & 0x80000000u) {
            uint32_t p = id & 0x7fffffffu;
            if (e->pdirty[p])
                LLVMBuildStore(e->b, e->pval[p], jit_pred_ptr(e, p));
            e->pdirty[p] = 0;
            if (forget)
                e->pval[p] = NULL;
        } else {
            if (e->rdirty[id])
                jit_put_slot(e, id);
            if (forget)
                e->rval[id] = NULL;
        }
    }
    if (forget) {
        for (uint32_t i = 0; i < e->ntouched; i++) {
            uint32_t id = e->touched[i];
            e->listed[id & 0x80000000u ? e->f->nslots + (id & 0x7fffffffu) : id] = 0;
        }
        e->ntouched = 0;
    }
}

/* Before a call of in's handler: in memory what it may read or keep (its
 * registers; the predicates, which no table lists); held after it is what
 * it cannot have changed (ptx_inst.ruse/rdef: every register but through
 * ox). */
static void before_call(jit_emit *e, const ptx_inst *in)
{
    if (in->rox) {
        jit_flush(e, true);
        return;
    }
    for (uint32_t i = 0; i < e->ntouched; i++) {
        uint32_t id = e->touched[i];
        if (!(id & 0x80000000u))
            continue;
        uint32_t p = id & 0x7fffffffu;
        if (e->pdirty[p])
            LLVMBuildStore(e->b, e->pval[p], jit_pred_ptr(e, p));
        e->pdirty[p] = 0;
        e->pval[p] = NULL;
    }
    for (unsigned f = 0; f < 8; f++) {
        uint32_t slot = in->o[f];
        if (((in->ruse | in->rdef) >> f & 1u) && slot < e->f->nslots && e->rval[slot] &&
            e->rdirty[slot])
            jit_put_slot(e, slot);
    }
}

static void after_call(jit_emit *e, const ptx_inst *in)
{
    for (unsigned f = 0; f < 8 && !in->rox; f++)
        if ((in->rdef >> f & 1u) && in->o[f] < e->f->nslots)
            e->rval[in->o[f]] = NULL;
}

/* The call of in's handler for lanes m; the caller saw m non-empty and has
 * put in memory what the handler reads. */
void jit_call_handler(jit_emit *e, const ptx_inst *in, LLVMValueRef m)
{
    LLVMTypeRef params[3] = {e->ptr, e->ptr, e->i32};
    LLVMTypeRef ht = LLVMFunctionType(e->i32, params, 3, 0);
    /* no address in the code (it is cached across runs): in is code + pc,
     * its handler in->fn read there */
    LLVMValueRef ip = jit_inst_ptr(e, in);
    LLVMValueRef h = LLVMBuildLoad2(e->b, e->ptr, jit_field_ptr(e, ip, e->i8, offsetof(ptx_inst, fn)), "");
    LLVMValueRef args[3] = {e->w, ip, m};
    LLVMValueRef r = LLVMBuildCall2(e->b, ht, h, args, 3, "");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ran");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, r, LLVMConstInt(e->i32, 0, 0), ""),
                    e->fail, next);
    LLVMPositionBuilderAtEnd(e->b, next);
}

/* A call of in's handler for lanes m (when non-empty), as the interpreter
 * makes it: what it reads in memory first, what it writes read back after. */
void jit_emit_call(jit_emit *e, const ptx_inst *in, LLVMValueRef m)
{
    before_call(e, in);
    LLVMValueRef zero = LLVMConstInt(e->i32, 0, 0);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "call");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "next");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, m, zero, ""), run, next);
    LLVMPositionBuilderAtEnd(e->b, run);
    jit_call_handler(e, in, m);
    LLVMBuildBr(e->b, next);
    LLVMPositionBuilderAtEnd(e->b, next);
    after_call(e, in);
}

/* As jit_emit_call, but where every lane runs in (m all 32) a call of the
 * routine at offset off of ptx_warp.jcalls (type ft: void, w then args)
 * in place of the handler: the routine's law for a whole warp needs none
 * of the handler's decoding of in or its loop over the lanes. */
void jit_emit_call_whole(jit_emit *e, const ptx_inst *in, LLVMValueRef m, size_t off, LLVMTypeRef ft,
                         LLVMValueRef *args, unsigned nargs)
{
    before_call(e, in);
    LLVMBuilderRef b = e->b;
    LLVMBasicBlockRef whole = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "whole");
    LLVMBasicBlockRef part = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "part");
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "call");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "next");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, m, LLVMConstInt(e->i32, 0xffffffffu, 0), ""), whole, part);
    LLVMPositionBuilderAtEnd(b, whole);
    LLVMValueRef jc = jit_field(e, e->w, offsetof(ptx_warp, jcalls), e->ptr);
    LLVMValueRef fn = jit_field(e, jc, off, e->ptr);
    LLVMValueRef all[8] = {e->w};
    nargs = nargs < 7 ? nargs : 7; /* (ft's: at most 7 besides w) */
    for (unsigned i = 0; i < nargs; i++)
        all[1 + i] = args[i];
    LLVMBuildCall2(b, ft, fn, all, 1 + nargs, "");
    LLVMBuildBr(b, next);
    LLVMPositionBuilderAtEnd(b, part);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, m, LLVMConstInt(e->i32, 0, 0), ""), run, next);
    LLVMPositionBuilderAtEnd(b, run);
    jit_call_handler(e, in, m);
    LLVMBuildBr(b, next);
    LLVMPositionBuilderAtEnd(b, next);
    after_call(e, in);
}

/* A run-time scalar in every lane. */
LLVMValueRef jit_splat_of(jit_emit *e, LLVMValueRef x)
{
    LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(x), 32);
    LLVMValueRef v = LLVMBuildInsertElement(e->b, LLVMGetUndef(vt), x, LLVMConstInt(e->i32, 0, 0), "");
    return LLVMBuildShuffleVector(e->b, v, LLVMGetUndef(vt), LLVMConstNull(LLVMVectorType(e->i32, 32)),
                                  "");
}

LLVMValueRef jit_field(jit_emit *e, LLVMValueRef base, size_t off, LLVMTypeRef t)
{
    return LLVMBuildLoad2(e->b, t, jit_field_ptr(e, base, e->i8, off), "");
}

#else
typedef int ptx_jit_ir_unused; /* ISO C: a translation unit is not empty */
#endif
