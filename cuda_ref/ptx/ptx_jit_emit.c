/* ptx_jit_emit.c - the JIT's code for one run of plain instructions.
 *
 * A warp's registers are R slots of 32 lanes of 64 bits (ptx_internal.h),
 * so one slot is one <32 x i64> vector and an instruction of ptx_jop's
 * tables becomes a few vector operations: load the sources, truncate to
 * the operand width, compute, zero-extend, and store where the lane mask
 * (the running lanes under the guard, a <32 x i1>) is set.  Predicates are
 * 32-bit lane masks, written as the handlers write them.  Any other
 * instruction calls its handler with its decoded instruction, exactly as
 * the interpreter's loop does (only when some lane runs it). */
#ifdef VKRR_PTX_JIT_LLVM

#include <stddef.h>
#include <stdio.h>
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
    e->b = LLVMCreateBuilderInContext(ctx);
    e->i1 = LLVMInt1TypeInContext(ctx);
    e->i8 = LLVMInt8TypeInContext(ctx);
    e->i32 = LLVMInt32TypeInContext(ctx);
    e->i64 = LLVMInt64TypeInContext(ctx);
    e->ptr = LLVMPointerTypeInContext(ctx, 0);
    e->v64 = LLVMVectorType(e->i64, 32);
    e->vmask = LLVMVectorType(e->i1, 32);
    LLVMTypeRef params[3] = {e->ptr, e->i32, e->ptr}; /* ptx_seq_fn */
    e->fn_t = LLVMFunctionType(e->i32, params, 3, 0);
    e->id_mstore = LLVMLookupIntrinsicID("llvm.masked.store", strlen("llvm.masked.store"));
    e->id_gather = LLVMLookupIntrinsicID("llvm.masked.gather", strlen("llvm.masked.gather"));
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
}

static const ptx_jop *jop_of(ptx_fn fn)
{
    static const struct {
        const ptx_jop *t;
        const unsigned *n;
    } tabs[] = {{ptx_int_jops, &ptx_int_njops},
                {ptx_move_jops, &ptx_move_njops},
                {ptx_cvt_jops, &ptx_cvt_njops},
                {ptx_mem_jops, &ptx_mem_njops}};
    for (unsigned k = 0; k < sizeof tabs / sizeof tabs[0]; k++)
        for (unsigned i = 0; i < *tabs[k].n; i++)
            if (tabs[k].t[i].fn == fn)
                return &tabs[k].t[i];
    return NULL;
}

/* ---- values ---------------------------------------------------------------- */
static LLVMTypeRef vec(jit_emit *e, unsigned bits)
{
    return LLVMVectorType(LLVMIntTypeInContext(e->ctx, bits), 32);
}

static LLVMValueRef splat(jit_emit *e, unsigned bits, uint64_t v)
{
    LLVMValueRef c[32];
    for (unsigned i = 0; i < 32; i++)
        c[i] = LLVMConstInt(LLVMIntTypeInContext(e->ctx, bits), v, 0);
    return LLVMConstVector(c, 32);
}

static LLVMValueRef field_ptr(jit_emit *e, LLVMValueRef base, LLVMTypeRef t, uint64_t index)
{
    LLVMValueRef idx = LLVMConstInt(e->i64, index, 0);
    return LLVMBuildGEP2(e->b, t, base, &idx, 1, "");
}

static LLVMValueRef slot_ptr(jit_emit *e, uint32_t slot)
{
    return field_ptr(e, e->R, e->i8, (uint64_t)slot * 32u * 8u);
}

static LLVMValueRef pred_ptr(jit_emit *e, uint32_t p)
{
    return field_ptr(e, e->P, e->i32, p);
}

static void touch(jit_emit *e, uint32_t id)
{
    size_t at = id & 0x80000000u ? e->f->nslots + (id & 0x7fffffffu) : id;
    if (e->listed[at])
        return;
    e->listed[at] = 1;
    e->touched[e->ntouched++] = id;
}

static LLVMValueRef load_slot(jit_emit *e, uint32_t slot)
{
    if (!e->rval[slot]) {
        LLVMValueRef v = LLVMBuildLoad2(e->b, e->v64, slot_ptr(e, slot), "");
        LLVMSetAlignment(v, 8);
        e->rval[slot] = v;
        touch(e, slot);
    }
    return e->rval[slot];
}

/* Lanes of mask get v; the others keep what the slot holds.  A held value
 * need only be right in the running lanes (the others are never stored:
 * see put_slot), so an unguarded write is v itself, with no select. */
static void store_slot(jit_emit *e, uint32_t slot, LLVMValueRef v, LLVMValueRef mask)
{
    if (mask == e->mrun) {
        e->rval[slot] = v;
        touch(e, slot);
    } else {
        e->rval[slot] = LLVMBuildSelect(e->b, mask, v, load_slot(e, slot), "");
    }
    e->rdirty[slot] = 1;
}

/* A held value to memory: the running lanes only (a masked store; the
 * others' values in memory are theirs). */
static void put_slot(jit_emit *e, uint32_t slot)
{
    LLVMTypeRef tys[2] = {e->v64, e->ptr};
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->mod, e->id_mstore, tys, 2);
    LLVMValueRef args[4] = {e->rval[slot], slot_ptr(e, slot), LLVMConstInt(e->i32, 8, 0), e->mrun};
    LLVMBuildCall2(e->b, LLVMGlobalGetValueType(fn), fn, args, 4, "");
    e->rdirty[slot] = 0;
}

static LLVMValueRef load_pred(jit_emit *e, uint32_t p)
{
    if (!e->pval[p]) {
        e->pval[p] = LLVMBuildLoad2(e->b, e->i32, pred_ptr(e, p), "");
        touch(e, p | 0x80000000u);
    }
    return e->pval[p];
}

/* P[p] = (P[p] & ~m) | (bits & m), as the handlers write predicates. */
static void store_pred(jit_emit *e, uint32_t p, LLVMValueRef bits, LLVMValueRef m)
{
    LLVMValueRef old = load_pred(e, p);
    LLVMValueRef keep = LLVMBuildAnd(e->b, old, LLVMBuildNot(e->b, m, ""), "");
    e->pval[p] = LLVMBuildOr(e->b, keep, LLVMBuildAnd(e->b, bits, m, ""), "");
    e->pdirty[p] = 1;
}

/* Memory gets every changed register (before a handler reads them, and at
 * the end); forget: memory is the only copy after (a handler may write any). */
static void flush(jit_emit *e, bool forget)
{
    for (uint32_t i = 0; i < e->ntouched; i++) {
        uint32_t id = e->touched[i];
        if (id & 0x80000000u) {
            uint32_t p = id & 0x7fffffffu;
            if (e->pdirty[p])
                LLVMBuildStore(e->b, e->pval[p], pred_ptr(e, p));
            e->pdirty[p] = 0;
            if (forget)
                e->pval[p] = NULL;
        } else {
            if (e->rdirty[id])
                put_slot(e, id);
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
        flush(e, true);
        return;
    }
    for (uint32_t i = 0; i < e->ntouched; i++) {
        uint32_t id = e->touched[i];
        if (!(id & 0x80000000u))
            continue;
        uint32_t p = id & 0x7fffffffu;
        if (e->pdirty[p])
            LLVMBuildStore(e->b, e->pval[p], pred_ptr(e, p));
        e->pdirty[p] = 0;
        e->pval[p] = NULL;
    }
    for (unsigned f = 0; f < 8; f++) {
        uint32_t slot = in->o[f];
        if (((in->ruse | in->rdef) >> f & 1u) && slot < e->f->nslots && e->rval[slot] &&
            e->rdirty[slot])
            put_slot(e, slot);
    }
}

static void after_call(jit_emit *e, const ptx_inst *in)
{
    for (unsigned f = 0; f < 8 && !in->rox; f++)
        if ((in->rdef >> f & 1u) && in->o[f] < e->f->nslots)
            e->rval[in->o[f]] = NULL;
}

/* Source slot as <32 x iN> (its low N bits). */
static LLVMValueRef src(jit_emit *e, uint32_t slot, unsigned bits)
{
    LLVMValueRef v = load_slot(e, slot);
    return bits == 64 ? v : LLVMBuildTrunc(e->b, v, vec(e, bits), "");
}

static LLVMValueRef widen(jit_emit *e, LLVMValueRef v, unsigned bits)
{
    return bits == 64 ? v : LLVMBuildZExt(e->b, v, e->v64, "");
}

/* Shifts: amounts are the u32 of b; past the width the result is 0 (or the
 * sign, .s) as in ptx_int.c's SHIFT. */
static LLVMValueRef shift(jit_emit *e, const ptx_jop *j, LLVMValueRef a, uint32_t bslot)
{
    unsigned n = j->bits;
    LLVMValueRef s = src(e, bslot, 32);
    LLVMValueRef big = LLVMBuildICmp(e->b, LLVMIntUGE, s, splat(e, 32, n), "");
    LLVMValueRef s0 = LLVMBuildSelect(e->b, big, splat(e, 32, 0), s, "");
    LLVMValueRef sn = n == 32   ? s0
                      : n < 32  ? LLVMBuildTrunc(e->b, s0, vec(e, n), "")
                                : LLVMBuildZExt(e->b, s0, vec(e, n), "");
    if (j->op == JOP_SHL)
        return LLVMBuildSelect(e->b, big, splat(e, n, 0), LLVMBuildShl(e->b, a, sn, ""), "");
    if (j->op == JOP_SHRU)
        return LLVMBuildSelect(e->b, big, splat(e, n, 0), LLVMBuildLShr(e->b, a, sn, ""), "");
    return LLVMBuildAShr(e->b, a,
                         LLVMBuildSelect(e->b, big, splat(e, n, n - 1), sn, ""), "");
}

static void emit_setp(jit_emit *e, const ptx_inst *in, const ptx_jop *j, LLVMValueRef m)
{
    static const LLVMIntPredicate su[6][2] = {
        {LLVMIntEQ, LLVMIntEQ},   {LLVMIntNE, LLVMIntNE},   {LLVMIntULT, LLVMIntSLT},
        {LLVMIntULE, LLVMIntSLE}, {LLVMIntUGT, LLVMIntSGT}, {LLVMIntUGE, LLVMIntSGE}};
    LLVMValueRef a = src(e, in->o[4], j->bits), b = src(e, in->o[5], j->bits);
    LLVMValueRef cmp = LLVMBuildICmp(e->b, su[j->op - JOP_SETP_EQ][j->sign ? 1 : 0], a, b, "");
    LLVMValueRef p = LLVMBuildBitCast(e->b, cmp, e->i32, "");
    LLVMValueRef q = LLVMBuildNot(e->b, p, "");
    if (in->b) {
        LLVMValueRef c = load_pred(e, in->o[3]);
        if (in->c)
            c = LLVMBuildNot(e->b, c, "");
        LLVMOpcode op = in->b == 1 ? LLVMAnd : in->b == 2 ? LLVMOr : LLVMXor;
        p = LLVMBuildBinOp(e->b, op, p, c, "");
        q = LLVMBuildBinOp(e->b, op, q, c, "");
    }
    store_pred(e, in->o[0], p, m);
    if (in->d)
        store_pred(e, in->o[1], q, m);
}

static bool emit_mem(jit_emit *e, const ptx_inst *in, const ptx_jop *j, LLVMValueRef m,
                     LLVMValueRef mv);

/* Instruction in as vector code; false when this one is not (the caller
 * calls its handler). */
static bool emit_jop(jit_emit *e, const ptx_inst *in, const ptx_jop *j, LLVMValueRef m)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef mv = m == e->active ? e->mrun : LLVMBuildBitCast(b, m, e->vmask, "");
    unsigned n = j->bits;
    LLVMValueRef a, bb, r;
    switch (j->op) {
    case JOP_MOV:
        store_slot(e, in->o[0], load_slot(e, in->o[1]), mv);
        return true;
    case JOP_ZEXT:
        store_slot(e, in->o[0], LLVMBuildAnd(b, load_slot(e, in->o[1]), splat(e, 64, in->imm), ""),
                   mv);
        return true;
    case JOP_SEXT: {
        if (in->a == 0 || in->a > 64)
            return false;
        LLVMValueRef sh = splat(e, 64, 64u - in->a);
        r = LLVMBuildAShr(b, LLVMBuildShl(b, load_slot(e, in->o[1]), sh, ""), sh, "");
        store_slot(e, in->o[0], LLVMBuildAnd(b, r, splat(e, 64, in->imm), ""), mv);
        return true;
    }
    case JOP_SELP: {
        LLVMValueRef p = LLVMBuildBitCast(b, load_pred(e, in->o[3]), e->vmask, "");
        r = LLVMBuildSelect(b, p, load_slot(e, in->o[1]), load_slot(e, in->o[2]), "");
        store_slot(e, in->o[0], r, mv);
        return true;
    }
    case JOP_SETP_EQ: case JOP_SETP_NE: case JOP_SETP_LT: case JOP_SETP_LE: case JOP_SETP_GT:
    case JOP_SETP_GE:
        emit_setp(e, in, j, m);
        return true;
    case JOP_LD: case JOP_ST:
        return emit_mem(e, in, j, m, mv);
    case JOP_PIMM:
        store_pred(e, in->o[0], LLVMConstInt(e->i32, in->imm ? 0xffffffffu : 0, 0), m);
        return true;
    case JOP_PLOGIC: { /* as ptx_int.c's x_plogic */
        LLVMValueRef pa = load_pred(e, in->o[1]);
        LLVMValueRef pb = in->a < 3 ? load_pred(e, in->o[2]) : LLVMConstInt(e->i32, 0, 0);
        if (in->b)
            pa = LLVMBuildNot(b, pa, "");
        if (in->c)
            pb = LLVMBuildNot(b, pb, "");
        r = in->a == 0   ? LLVMBuildAnd(b, pa, pb, "")
            : in->a == 1 ? LLVMBuildOr(b, pa, pb, "")
            : in->a == 2 ? LLVMBuildXor(b, pa, pb, "")
            : in->a == 3 ? LLVMBuildNot(b, pa, "")
                         : pa;
        store_pred(e, in->o[0], r, m);
        return true;
    }
    default:
        break;
    }
    a = src(e, in->o[1], n);
    switch (j->op) {
    case JOP_NOT:
        r = LLVMBuildNot(b, a, "");
        break;
    case JOP_CNOT:
        r = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, a, splat(e, n, 0), ""), vec(e, n), "");
        break;
    case JOP_NEG:
        r = LLVMBuildSub(b, splat(e, n, 0), a, "");
        break;
    case JOP_ABS:
        r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, a, splat(e, n, 0), ""),
                            LLVMBuildSub(b, splat(e, n, 0), a, ""), a, "");
        break;
    case JOP_SHL: case JOP_SHRU: case JOP_SHRS:
        r = shift(e, j, a, in->o[2]);
        break;
    case JOP_MULWIDE: {
        if (n > 32)
            return false;
        LLVMTypeRef w2 = vec(e, 2 * n);
        bb = src(e, in->o[2], n);
        a = j->sign ? LLVMBuildSExt(b, a, w2, "") : LLVMBuildZExt(b, a, w2, "");
        bb = j->sign ? LLVMBuildSExt(b, bb, w2, "") : LLVMBuildZExt(b, bb, w2, "");
        store_slot(e, in->o[0], widen(e, LLVMBuildMul(b, a, bb, ""), 2 * n), mv);
        return true;
    }
    default:
        bb = src(e, in->o[2], n);
        switch (j->op) {
        case JOP_ADD: r = LLVMBuildAdd(b, a, bb, ""); break;
        case JOP_SUB: r = LLVMBuildSub(b, a, bb, ""); break;
        case JOP_MULLO: r = LLVMBuildMul(b, a, bb, ""); break;
        case JOP_AND: r = LLVMBuildAnd(b, a, bb, ""); break;
        case JOP_OR: r = LLVMBuildOr(b, a, bb, ""); break;
        case JOP_XOR: r = LLVMBuildXor(b, a, bb, ""); break;
        case JOP_MIN: case JOP_MAX: {
            LLVMIntPredicate lt = j->sign ? LLVMIntSLT : LLVMIntULT;
            LLVMValueRef c = j->op == JOP_MIN ? LLVMBuildICmp(b, lt, a, bb, "")
                                              : LLVMBuildICmp(b, lt, bb, a, "");
            r = LLVMBuildSelect(b, c, a, bb, "");
            break;
        }
        default:
            return false;
        }
    }
    store_slot(e, in->o[0], widen(e, r, n), mv);
    return true;
}

/* The call of in's handler for lanes m; the caller saw m non-empty and has
 * put in memory what the handler reads. */
static void call_handler(jit_emit *e, const ptx_inst *in, LLVMValueRef m)
{
    LLVMTypeRef params[3] = {e->ptr, e->ptr, e->i32};
    LLVMTypeRef ht = LLVMFunctionType(e->i32, params, 3, 0);
    /* no address in the code (it is cached across runs): in is code + pc,
     * its handler in->fn read there */
    LLVMValueRef ip = field_ptr(e, e->code, e->i8, (uint64_t)(in - e->f->code) * sizeof *in);
    LLVMValueRef h = LLVMBuildLoad2(e->b, e->ptr, field_ptr(e, ip, e->i8, offsetof(ptx_inst, fn)), "");
    LLVMValueRef args[3] = {e->w, ip, m};
    LLVMValueRef r = LLVMBuildCall2(e->b, ht, h, args, 3, "");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ran");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, r, LLVMConstInt(e->i32, 0, 0), ""),
                    e->fail, next);
    LLVMPositionBuilderAtEnd(e->b, next);
}

/* A call of in's handler for lanes m (when non-empty), as the interpreter
 * makes it: what it reads in memory first, what it writes read back after. */
static void emit_call(jit_emit *e, const ptx_inst *in, LLVMValueRef m)
{
    before_call(e, in);
    LLVMValueRef zero = LLVMConstInt(e->i32, 0, 0);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "call");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "next");
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, m, zero, ""), run, next);
    LLVMPositionBuilderAtEnd(e->b, run);
    call_handler(e, in, m);
    LLVMBuildBr(e->b, next);
    LLVMPositionBuilderAtEnd(e->b, next);
    after_call(e, in);
}

/* ---- memory ------------------------------------------------------------------ */
/* Lanes m of out get the eb bytes at ptrs[l] + off (sign-extended when sx),
 * lane by lane, as ptx_mem.c's handlers read them. */
void vkrr_ptx_jit_gather(uint64_t *out, void *const *ptrs, uint32_t m, uint32_t eb, uint32_t sx,
                         uint32_t off)
{
#define GATHER(T, ST)                                                                         \
    PTX_LANES(m, {                                                                            \
        T v;                                                                                  \
        memcpy(&v, (const unsigned char *)ptrs[l] + off, sizeof v);                           \
        out[l] = sx ? (uint64_t)(int64_t)(ST)v : (uint64_t)v;                                 \
    })
    switch (eb) {
    case 1: GATHER(uint8_t, int8_t); break;
    case 2: GATHER(uint16_t, int16_t); break;
    case 4: GATHER(uint32_t, int32_t); break;
    default: GATHER(uint64_t, int64_t); break;
    }
#undef GATHER
}

/* The low eb bytes of vals[l] to ptrs[l] + off for lanes m, in lane order
 * (the last of lanes writing one address wins, as in the handler). */
void vkrr_ptx_jit_scatter(void *const *ptrs, const uint64_t *vals, uint32_t m, uint32_t eb,
                          uint32_t off)
{
#define SCATTER(T)                                                                            \
    PTX_LANES(m, {                                                                            \
        T v = (T)vals[l];                                                                     \
        memcpy((unsigned char *)ptrs[l] + off, &v, sizeof v);                                 \
    })
    switch (eb) {
    case 1: SCATTER(uint8_t); break;
    case 2: SCATTER(uint16_t); break;
    case 4: SCATTER(uint32_t); break;
    default: SCATTER(uint64_t); break;
    }
#undef SCATTER
}

/* A call of vkrr_ptx_jit_gather (val NULL) or _scatter, by name (the code
 * holds no address; ptx_jit.c defines the names in each JIT): the lanes'
 * pointers and values through arrays on the stack. */
static LLVMValueRef mem_helper(jit_emit *e, LLVMValueRef ptrs, LLVMValueRef val, LLVMValueRef m,
                               unsigned eb, bool sx, unsigned off)
{
    LLVMBuilderRef b = e->b;
    if (!e->pbuf) { /* one pair of arrays a function, in its entry block */
        LLVMBasicBlockRef here = LLVMGetInsertBlock(b);
        LLVMValueRef first = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(e->fn));
        LLVMPositionBuilderBefore(b, first);
        e->pbuf = LLVMBuildAlloca(b, LLVMVectorType(e->ptr, 32), "ptrs");
        e->vbuf = LLVMBuildAlloca(b, e->v64, "vals");
        LLVMPositionBuilderAtEnd(b, here);
    }
    LLVMBuildStore(b, ptrs, e->pbuf);
    const char *name = val ? "vkrr_ptx_jit_scatter" : "vkrr_ptx_jit_gather";
    LLVMTypeRef params[6] = {e->ptr, e->ptr, e->i32, e->i32, e->i32, e->i32};
    LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(e->ctx), params, val ? 5 : 6, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(e->mod, name);
    if (!fn)
        fn = LLVMAddFunction(e->mod, name, ft);
    LLVMValueRef k_eb = LLVMConstInt(e->i32, eb, 0), k_off = LLVMConstInt(e->i32, off, 0);
    if (val) {
        LLVMBuildStore(b, val, e->vbuf);
        LLVMValueRef args[5] = {e->pbuf, e->vbuf, m, k_eb, k_off};
        LLVMBuildCall2(b, ft, fn, args, 5, "");
        return NULL;
    }
    LLVMValueRef args[6] = {e->vbuf, e->pbuf, m, k_eb, LLVMConstInt(e->i32, sx, 0), k_off};
    LLVMBuildCall2(b, ft, fn, args, 6, "");
    return LLVMBuildLoad2(b, e->v64, e->vbuf, "");
}

/* Lanes mv of the eb-byte values at ptrs + off, extended to 64 bits (sign
 * when sx): an LLVM gather (loads have no order to keep). */
static LLVMValueRef gather(jit_emit *e, LLVMValueRef ptrs, LLVMValueRef mv, unsigned eb, bool sx,
                           unsigned off)
{
    LLVMBuilderRef b = e->b;
    LLVMTypeRef vt = vec(e, eb * 8u), vp = LLVMVectorType(e->ptr, 32);
    LLVMValueRef k = LLVMConstInt(e->i64, off, 0);
    LLVMValueRef at = off ? LLVMBuildGEP2(b, e->i8, ptrs, &k, 1, "") : ptrs;
    LLVMTypeRef tys[2] = {vt, vp};
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->mod, e->id_gather, tys, 2);
    LLVMValueRef args[4] = {at, LLVMConstInt(e->i32, eb, 0), mv, LLVMConstNull(vt)};
    LLVMValueRef v = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 4, "");
    if (eb == 8)
        return v;
    return sx ? LLVMBuildSExt(b, v, e->v64, "") : LLVMBuildZExt(b, v, e->v64, "");
}

/* A run-time scalar in every lane. */
static LLVMValueRef splat_of(jit_emit *e, LLVMValueRef x)
{
    LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(x), 32);
    LLVMValueRef v = LLVMBuildInsertElement(e->b, LLVMGetUndef(vt), x, LLVMConstInt(e->i32, 0, 0), "");
    return LLVMBuildShuffleVector(e->b, v, LLVMGetUndef(vt), LLVMConstNull(LLVMVectorType(e->i32, 32)),
                                  "");
}

static LLVMValueRef field(jit_emit *e, LLVMValueRef base, size_t off, LLVMTypeRef t)
{
    return LLVMBuildLoad2(e->b, t, field_ptr(e, base, e->i8, off), "");
}

static LLVMValueRef lane_index(jit_emit *e)
{
    LLVMValueRef c[32];
    for (unsigned i = 0; i < 32; i++)
        c[i] = LLVMConstInt(e->i64, i, 0);
    return LLVMConstVector(c, 32);
}

/* Puts slot in memory now if only its value holds it (it stays held). */
static void spill(jit_emit *e, uint32_t slot)
{
    if (slot != UINT32_MAX && e->rval[slot] && e->rdirty[slot])
        put_slot(e, slot);
}

/* Addresses a in a window of memory at base, size bytes long: its host
 * addresses, and in *ok also the lanes whose access fits (as ptx_addr.c). */
static LLVMValueRef window(jit_emit *e, LLVMValueRef a, unsigned bytes, LLVMValueRef base,
                           LLVMValueRef size, LLVMValueRef *ok)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, size, LLVMConstInt(e->i64, bytes, 0), "");
    LLVMValueRef lim = LLVMBuildSub(b, size, LLVMConstInt(e->i64, bytes, 0), "");
    *ok = LLVMBuildAnd(b, *ok, LLVMBuildICmp(b, LLVMIntULE, a, splat_of(e, lim), ""), "");
    *ok = LLVMBuildAnd(b, *ok, splat_of(e, big), "");
    return LLVMBuildGEP2(b, e->i8, base, &a, 1, "");
}

/* The lanes' host addresses of a ld/st, and in *ok the lanes whose access
 * is in bounds and aligned (the checks of ptx_addr.c); NULL when the space
 * has no fast path. */
static LLVMValueRef mem_ptrs(jit_emit *e, const ptx_inst *in, unsigned bytes, bool st,
                             LLVMValueRef *ok)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef a = LLVMBuildAdd(b, load_slot(e, in->o[0]), splat(e, 64, in->imm), "");
    *ok = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, a, splat(e, 64, bytes - 1u), ""),
                        splat(e, 64, 0), "");
    switch (in->d) {
    case SP_LOCAL: { /* lane l's window: local + l * local_bytes */
        uint64_t lb = e->f->local_bytes;
        if (lb < bytes)
            return NULL;
        *ok = LLVMBuildAnd(b, *ok, LLVMBuildICmp(b, LLVMIntULE, a, splat(e, 64, lb - bytes), ""), "");
        LLVMValueRef local = field(e, e->w, offsetof(ptx_warp, local), e->ptr);
        LLVMValueRef off = LLVMBuildAdd(b, a, LLVMBuildMul(b, lane_index(e), splat(e, 64, lb), ""), "");
        return LLVMBuildGEP2(b, e->i8, local, &off, 1, "");
    }
    case SP_SHARED: { /* the CTA's window: shared + a, below shared_bytes */
        LLVMValueRef cta = field(e, e->w, offsetof(ptx_warp, cta), e->ptr);
        LLVMValueRef rt = field(e, cta, offsetof(ptx_cta, rt), e->ptr);
        LLVMValueRef size = field(e, rt, offsetof(ptx_rt, shared_bytes), e->i64);
        return window(e, a, bytes, field(e, cta, offsetof(ptx_cta, shared), e->ptr), size, ok);
    }
    case SP_PARAM: { /* the kernel's parameters, read only */
        if (st)
            return NULL;
        LLVMValueRef cta = field(e, e->w, offsetof(ptx_warp, cta), e->ptr);
        LLVMValueRef rt = field(e, cta, offsetof(ptx_cta, rt), e->ptr);
        LLVMValueRef size = LLVMBuildZExt(b, field(e, rt, offsetof(ptx_rt, params_bytes), e->i32),
                                          e->i64, "");
        return window(e, a, bytes, field(e, rt, offsetof(ptx_rt, params), e->ptr), size, ok);
    }
    case SP_GLOBAL:
    case SP_GENERIC: { /* the region the warp hit last (regions has room past nregions) */
        LLVMValueRef cta = field(e, e->w, offsetof(ptx_warp, cta), e->ptr);
        LLVMValueRef rt = field(e, cta, offsetof(ptx_cta, rt), e->ptr);
        LLVMValueRef regions = field(e, rt, offsetof(ptx_rt, regions), e->ptr);
        LLVMValueRef nreg = field(e, rt, offsetof(ptx_rt, nregions), e->i32);
        LLVMValueRef hint = field(e, e->w, offsetof(ptx_warp, rhint), e->i32);
        LLVMValueRef have = LLVMBuildICmp(b, LLVMIntULT, hint, nreg, "");
        hint = LLVMBuildSelect(b, have, hint, LLVMConstInt(e->i32, 0, 0), "");
        LLVMValueRef off = LLVMBuildMul(b, LLVMBuildZExt(b, hint, e->i64, ""),
                                        LLVMConstInt(e->i64, sizeof(ptx_region_rt), 0), "");
        LLVMValueRef rg = LLVMBuildGEP2(b, e->i8, regions, &off, 1, "");
        LLVMValueRef lo = splat_of(e, field(e, rg, offsetof(ptx_region_rt, lo), e->i64));
        LLVMValueRef hi = splat_of(e, field(e, rg, offsetof(ptx_region_rt, hi), e->i64));
        LLVMValueRef in_rg = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntUGE, a, lo, ""),
                                          LLVMBuildICmp(b, LLVMIntULT, a, hi, ""), "");
        LLVMValueRef room = LLVMBuildICmp(b, LLVMIntUGE, LLVMBuildSub(b, hi, a, ""),
                                          splat(e, 64, bytes), "");
        *ok = LLVMBuildAnd(b, *ok, LLVMBuildAnd(b, in_rg, room, ""), "");
        if (st) {
            LLVMValueRef wr = field(e, rg, offsetof(ptx_region_rt, writable), e->i8);
            have = LLVMBuildAnd(b, have, LLVMBuildICmp(b, LLVMIntNE, wr, LLVMConstInt(e->i8, 0, 0), ""), "");
        }
        *ok = LLVMBuildAnd(b, *ok, splat_of(e, have), "");
        return LLVMBuildIntToPtr(b, a, LLVMVectorType(e->ptr, 32), "");
    }
    default:
        return NULL;
    }
}

/* The values a ld reads (vals[k] for each destination, NULL for a sink):
 * when the whole warp runs it at one address (weights, constants), one
 * load broadcast; else the gather helper lane by lane. */
static void load_values(jit_emit *e, const ptx_inst *in, LLVMValueRef ptrs, LLVMValueRef m,
                        LLVMValueRef mv, LLVMValueRef *vals)
{
    LLVMBuilderRef b = e->b;
    unsigned eb = in->a, n = in->b;
    LLVMValueRef zero = LLVMConstInt(e->i32, 0, 0);
    LLVMValueRef p0 = LLVMBuildExtractElement(b, ptrs, zero, "");
    LLVMValueRef same = LLVMBuildICmp(b, LLVMIntEQ, ptrs, splat_of(e, p0), "");
    LLVMValueRef all = LLVMConstInt(e->i32, 0xffffffffu, 0);
    LLVMValueRef uni = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, m, all, ""),
                                    LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildBitCast(b, same, e->i32, ""),
                                                  all, ""), "");
    LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ldone");
    LLVMBasicBlockRef each = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ldeach");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "lddone");
    LLVMBuildCondBr(b, uni, one, each);
    LLVMValueRef v1[4], v2[4];
    LLVMPositionBuilderAtEnd(b, one);
    for (unsigned k = 0; k < n; k++) {
        if (in->o[1 + k] == UINT32_MAX)
            continue;
        LLVMValueRef off = LLVMConstInt(e->i64, (uint64_t)k * eb, 0);
        LLVMTypeRef t = LLVMIntTypeInContext(e->ctx, eb * 8u);
        LLVMValueRef x = LLVMBuildLoad2(b, t, LLVMBuildGEP2(b, e->i8, p0, &off, 1, ""), "");
        LLVMSetAlignment(x, eb);
        if (eb < 8)
            x = in->c ? LLVMBuildSExt(b, x, e->i64, "") : LLVMBuildZExt(b, x, e->i64, "");
        v1[k] = splat_of(e, x);
    }
    LLVMBasicBlockRef one_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, each);
    for (unsigned k = 0; k < n; k++)
        if (in->o[1 + k] != UINT32_MAX)
            v2[k] = gather(e, ptrs, mv, eb, in->c, k * eb);
    LLVMBasicBlockRef each_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, done);
    for (unsigned k = 0; k < n; k++) {
        if (in->o[1 + k] == UINT32_MAX)
            continue;
        vals[k] = LLVMBuildPhi(b, e->v64, "");
        LLVMValueRef in_v[2] = {v1[k], v2[k]};
        LLVMBasicBlockRef from[2] = {one_end, each_end};
        LLVMAddIncoming(vals[k], in_v, from, 2);
    }
}

/* ld/st: the lanes' accesses through the helpers when every lane of the
 * mask is in bounds and aligned, else the handler (which faults as the
 * interpreter does); the registers it reads are in memory for it, and the
 * ones it writes are read back after it. */
static bool emit_mem(jit_emit *e, const ptx_inst *in, const ptx_jop *j, LLVMValueRef m,
                     LLVMValueRef mv)
{
    LLVMBuilderRef b = e->b;
    unsigned eb = in->a, n = in->b, bytes = eb * n;
    bool st = j->op == JOP_ST;
    if ((eb != 1 && eb != 2 && eb != 4 && eb != 8) || n < 1 || n > 4 || (bytes & (bytes - 1u)))
        return false;
    load_slot(e, in->o[0]);
    spill(e, in->o[0]);
    for (unsigned k = 0; k < n; k++)
        if (in->o[1 + k] != UINT32_MAX) {
            load_slot(e, in->o[1 + k]);
            spill(e, in->o[1 + k]);
        }
    LLVMValueRef ok;
    LLVMValueRef ptrs = mem_ptrs(e, in, bytes, st, &ok);
    if (!ptrs)
        return false;
    LLVMValueRef bad = LLVMBuildAnd(b, LLVMBuildNot(b, ok, ""), mv, "");
    bad = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildBitCast(b, bad, e->i32, ""), LLVMConstInt(e->i32, 0, 0), "");
    LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "mem");
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "memslow");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "memdone");
    LLVMBuildCondBr(b, bad, slow, fast);
    LLVMPositionBuilderAtEnd(b, fast);
    uint32_t slots[4];
    LLVMValueRef fastv[4], slowv[4];
    unsigned ns = 0, rb = in->e;
    uint64_t rmask = rb >= 64 ? ~0ull : (1ull << rb) - 1u;
    LLVMValueRef vals[4] = {NULL, NULL, NULL, NULL};
    if (st) {
        for (unsigned k = 0; k < n; k++)
            mem_helper(e, ptrs, load_slot(e, in->o[1 + k]), m, eb, false, k * eb);
    } else {
        load_values(e, in, ptrs, m, mv, vals);
    }
    for (unsigned k = 0; k < n; k++)
        if (vals[k])
            store_slot(e, in->o[1 + k], LLVMBuildAnd(b, vals[k], splat(e, 64, rmask), ""), mv);
    for (unsigned k = 0; !st && k < n; k++) { /* each destination once (its last value) */
        uint32_t sl = in->o[1 + k];
        bool seen = sl == UINT32_MAX;
        for (unsigned q = 0; q < ns; q++)
            seen |= slots[q] == sl;
        if (!seen) {
            slots[ns] = sl;
            fastv[ns++] = e->rval[sl];
        }
    }
    LLVMBasicBlockRef fast_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, slow);
    call_handler(e, in, m);
    for (unsigned q = 0; q < ns; q++) {
        slowv[q] = LLVMBuildLoad2(b, e->v64, slot_ptr(e, slots[q]), "");
        LLVMSetAlignment(slowv[q], 8);
    }
    LLVMBasicBlockRef slow_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    for (unsigned q = 0; q < ns; q++) {
        LLVMValueRef phi = LLVMBuildPhi(b, e->v64, "");
        LLVMValueRef vals[2] = {fastv[q], slowv[q]};
        LLVMBasicBlockRef from[2] = {fast_end, slow_end};
        LLVMAddIncoming(phi, vals, from, 2);
        e->rval[slots[q]] = phi;
        e->rdirty[slots[q]] = 1;
    }
    return true;
}

void ptx_jit_emit_run(jit_emit *e, uint32_t pc, uint32_t len, const char *name)
{
    e->fn = LLVMAddFunction(e->mod, name, e->fn_t);
    e->w = LLVMGetParam(e->fn, 0);
    e->active = LLVMGetParam(e->fn, 1);
    e->code = LLVMGetParam(e->fn, 2);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "entry");
    e->fail = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "fault");
    LLVMPositionBuilderAtEnd(e->b, e->fail);
    LLVMBuildRet(e->b, LLVMConstInt(e->i32, (unsigned long long)-1, 1));
    LLVMPositionBuilderAtEnd(e->b, entry);
    /* handlers never change where a warp's registers are */
    e->pbuf = e->vbuf = NULL;
    e->R = LLVMBuildLoad2(e->b, e->ptr, field_ptr(e, e->w, e->i8, offsetof(ptx_warp, R)), "R");
    e->P = LLVMBuildLoad2(e->b, e->ptr, field_ptr(e, e->w, e->i8, offsetof(ptx_warp, P)), "P");
    e->mrun = LLVMBuildBitCast(e->b, e->active, e->vmask, "run");
    for (uint32_t k = 0; k < len; k++) {
        const ptx_inst *in = &e->f->code[pc + k];
        LLVMValueRef m = e->active;
        if (in->guard >= 0) {
            LLVMValueRef p = load_pred(e, (uint32_t)in->guard);
            m = LLVMBuildAnd(e->b, m, in->gneg ? LLVMBuildNot(e->b, p, "") : p, "m");
        }
        const ptx_jop *j = jop_of(in->fn);
        if (j && emit_jop(e, in, j, m)) {
            e->native++;
        } else {
            emit_call(e, in, m);
            e->called++;
        }
    }
    flush(e, true);
    LLVMBuildRet(e->b, LLVMConstInt(e->i32, 0, 0));
}

#else
typedef int ptx_jit_emit_unused; /* ISO C: a translation unit is not empty */
#endif
