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

#include "hash.h"
#include "ptx_jit_emit.h"

static const ptx_jop *jop_of(ptx_fn fn)
{
    static const struct {
        const ptx_jop *t;
        const unsigned *n;
    } tabs[] = {{ptx_int_jops, &ptx_int_njops},
                {ptx_move_jops, &ptx_move_njops},
                {ptx_cvt_jops, &ptx_cvt_njops},
                {ptx_mem_jops, &ptx_mem_njops},
                {ptx_float_jops, &ptx_float_njops}};
    for (unsigned k = 0; k < sizeof tabs / sizeof tabs[0]; k++)
        for (unsigned i = 0; i < *tabs[k].n; i++)
            if (tabs[k].t[i].fn == fn)
                return &tabs[k].t[i];
    return NULL;
}

unsigned ptx_jit_emit_weight(const ptx_inst *in)
{
    const ptx_jop *j = jop_of(in->fn); /* (emit_jop may still call the handler for a few forms) */
    return !j || j->op == JOP_APPROX || j->op == JOP_CVT_F8X2 ? 0 : j->op == JOP_LD || j->op == JOP_ST ? 4 : 1; /* a call either way */
}

/* Source slot as <32 x iN> (its low N bits). */
static LLVMValueRef src(jit_emit *e, uint32_t slot, unsigned bits)
{
    LLVMValueRef v = jit_load_slot(e, slot);
    return bits == 64 ? v : LLVMBuildTrunc(e->b, v, jit_vec(e, bits), "");
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
    LLVMValueRef big = LLVMBuildICmp(e->b, LLVMIntUGE, s, jit_splat(e, 32, n), "");
    LLVMValueRef s0 = LLVMBuildSelect(e->b, big, jit_splat(e, 32, 0), s, "");
    LLVMValueRef sn = n == 32   ? s0
                      : n < 32  ? LLVMBuildTrunc(e->b, s0, jit_vec(e, n), "")
                                : LLVMBuildZExt(e->b, s0, jit_vec(e, n), "");
    if (j->op == JOP_SHL)
        return LLVMBuildSelect(e->b, big, jit_splat(e, n, 0), LLVMBuildShl(e->b, a, sn, ""), "");
    if (j->op == JOP_SHRU)
        return LLVMBuildSelect(e->b, big, jit_splat(e, n, 0), LLVMBuildLShr(e->b, a, sn, ""), "");
    return LLVMBuildAShr(e->b, a,
                         LLVMBuildSelect(e->b, big, jit_splat(e, n, n - 1), sn, ""), "");
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
        LLVMValueRef c = jit_load_pred(e, in->o[3]);
        if (in->c)
            c = LLVMBuildNot(e->b, c, "");
        LLVMOpcode op = in->b == 1 ? LLVMAnd : in->b == 2 ? LLVMOr : LLVMXor;
        p = LLVMBuildBinOp(e->b, op, p, c, "");
        q = LLVMBuildBinOp(e->b, op, q, c, "");
    }
    jit_store_pred(e, in->o[0], p, m);
    if (in->d)
        jit_store_pred(e, in->o[1], q, m);
}

/* Instruction in as vector code; false when this one is not (the caller
 * calls its handler). */
/* f16 codes (<32 x i16>) to f32 bits (<32 x i32>) exactly as
 * vkrr_f16_to_f32 (fpformat.h): the exponent rebiased, a subnormal by one
 * exact float subtraction, Inf and NaN with their payload kept. */
static LLVMValueRef f16_to_f32(jit_emit *e, LLVMValueRef h16)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef h = LLVMBuildZExt(b, h16, jit_vec(e, 32), "");
    LLVMValueRef o = LLVMBuildShl(b, LLVMBuildAnd(b, h, jit_splat(e, 32, 0x7fffu), ""), jit_splat(e, 32, 13), "");
    LLVMValueRef ex = LLVMBuildAnd(b, o, jit_splat(e, 32, 0x0f800000u), "");
    LLVMValueRef special = LLVMBuildICmp(b, LLVMIntEQ, ex, jit_splat(e, 32, 0x0f800000u), "");
    LLVMValueRef tiny = LLVMBuildICmp(b, LLVMIntEQ, ex, jit_splat(e, 32, 0), "");
    LLVMTypeRef vf = LLVMVectorType(LLVMFloatTypeInContext(e->ctx), 32);
    LLVMValueRef lo = LLVMBuildBitCast(b, LLVMBuildAdd(b, o, jit_splat(e, 32, 113u << 23), ""), vf, "");
    LLVMValueRef k = LLVMConstReal(LLVMFloatTypeInContext(e->ctx), 0x1p-14), ks[32];
    for (unsigned i = 0; i < 32; i++)
        ks[i] = k;
    lo = LLVMBuildBitCast(b, LLVMBuildFSub(b, lo, LLVMConstVector(ks, 32), ""), jit_vec(e, 32), "");
    LLVMValueRef r = LLVMBuildSelect(
        b, special, LLVMBuildAdd(b, o, jit_splat(e, 32, (255u - 31u) << 23), ""),
        LLVMBuildSelect(b, tiny, lo, LLVMBuildAdd(b, o, jit_splat(e, 32, (127u - 15u) << 23), ""), ""), "");
    LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildAnd(b, h, jit_splat(e, 32, 0x8000u), ""), jit_splat(e, 32, 16), "");
    return LLVMBuildOr(b, r, sign, "");
}

static bool emit_jop(jit_emit *e, const ptx_inst *in, const ptx_jop *j, LLVMValueRef m)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef mv = m == e->active ? e->mrun : LLVMBuildBitCast(b, m, e->vmask, "");
    unsigned n = j->bits;
    LLVMValueRef a, bb, r;
    switch (j->op) {
    case JOP_MOV:
        jit_store_slot(e, in->o[0], jit_load_slot(e, in->o[1]), mv);
        return true;
    case JOP_ZEXT:
        jit_store_slot(e, in->o[0], LLVMBuildAnd(b, jit_load_slot(e, in->o[1]), jit_splat(e, 64, in->imm), ""),
                   mv);
        return true;
    case JOP_SEXT: {
        if (in->a == 0 || in->a > 64)
            return false;
        LLVMValueRef sh = jit_splat(e, 64, 64u - in->a);
        r = LLVMBuildAShr(b, LLVMBuildShl(b, jit_load_slot(e, in->o[1]), sh, ""), sh, "");
        jit_store_slot(e, in->o[0], LLVMBuildAnd(b, r, jit_splat(e, 64, in->imm), ""), mv);
        return true;
    }
    case JOP_SELP: {
        LLVMValueRef p = LLVMBuildBitCast(b, jit_load_pred(e, in->o[3]), e->vmask, "");
        r = LLVMBuildSelect(b, p, jit_load_slot(e, in->o[1]), jit_load_slot(e, in->o[2]), "");
        jit_store_slot(e, in->o[0], r, mv);
        return true;
    }
    case JOP_SETP_EQ: case JOP_SETP_NE: case JOP_SETP_LT: case JOP_SETP_LE: case JOP_SETP_GT:
    case JOP_SETP_GE:
        emit_setp(e, in, j, m);
        return true;
    case JOP_LD: case JOP_ST:
        return jit_emit_mem(e, in, j, m, mv);
    case JOP_APPROX:
        return jit_emit_approx(e, in, m);
    case JOP_CVT_F8X2:
        return jit_emit_cvt_f8x2(e, in, m);
    case JOP_F16_F32:
        jit_store_slot(e, in->o[0], LLVMBuildZExt(b, f16_to_f32(e, src(e, in->o[1], 16)), e->v64, ""), mv);
        return true;
    case JOP_F32_F64: { /* the host's conversion, as the handler's (double)float */
        LLVMTypeRef vf = LLVMVectorType(LLVMFloatTypeInContext(e->ctx), 32);
        LLVMTypeRef vd = LLVMVectorType(LLVMDoubleTypeInContext(e->ctx), 32);
        r = LLVMBuildFPExt(b, LLVMBuildBitCast(b, src(e, in->o[1], 32), vf, ""), vd, "");
        jit_store_slot(e, in->o[0], LLVMBuildBitCast(b, r, e->v64, ""), mv);
        return true;
    }
    case JOP_FADD: case JOP_FSUB: case JOP_FMUL: case JOP_FFMA: case JOP_F32_GEN: case JOP_F32_F16:
    case JOP_FSETP: case JOP_FMINMAX: case JOP_FABSNEG:
        return jit_emit_float(e, in, j, m, mv);
    case JOP_PACK: { /* as ptx_move.c's x_pack: element k from o[1 + k], masked */
        uint64_t em = in->b >= 64 ? ~0ull : (1ull << in->b) - 1u;
        r = jit_splat(e, 64, 0);
        for (unsigned k = 0; k < in->a && k < 4; k++)
            if (in->o[1 + k] != UINT32_MAX) {
                LLVMValueRef x = LLVMBuildAnd(b, jit_load_slot(e, in->o[1 + k]), jit_splat(e, 64, em), "");
                r = LLVMBuildOr(b, r, LLVMBuildShl(b, x, jit_splat(e, 64, k * in->b), ""), "");
            }
        jit_store_slot(e, in->o[0], r, mv);
        return true;
    }
    case JOP_UNPACK: { /* as x_unpack: o[1 + k] gets element k of o[0] ('_': UINT32_MAX) */
        uint64_t em = in->b >= 64 ? ~0ull : (1ull << in->b) - 1u;
        LLVMValueRef v = jit_load_slot(e, in->o[0]);
        for (unsigned k = 0; k < in->a && k < 4; k++)
            if (in->o[1 + k] != UINT32_MAX)
                jit_store_slot(e, in->o[1 + k],
                               LLVMBuildAnd(b, LLVMBuildLShr(b, v, jit_splat(e, 64, k * in->b), ""),
                                            jit_splat(e, 64, em), ""),
                               mv);
        return true;
    }
    case JOP_PIMM:
        jit_store_pred(e, in->o[0], LLVMConstInt(e->i32, in->imm ? 0xffffffffu : 0, 0), m);
        return true;
    case JOP_PLOGIC: { /* as ptx_int.c's x_plogic */
        LLVMValueRef pa = jit_load_pred(e, in->o[1]);
        LLVMValueRef pb = in->a < 3 ? jit_load_pred(e, in->o[2]) : LLVMConstInt(e->i32, 0, 0);
        if (in->b)
            pa = LLVMBuildNot(b, pa, "");
        if (in->c)
            pb = LLVMBuildNot(b, pb, "");
        r = in->a == 0   ? LLVMBuildAnd(b, pa, pb, "")
            : in->a == 1 ? LLVMBuildOr(b, pa, pb, "")
            : in->a == 2 ? LLVMBuildXor(b, pa, pb, "")
            : in->a == 3 ? LLVMBuildNot(b, pa, "")
                         : pa;
        jit_store_pred(e, in->o[0], r, m);
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
        r = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, a, jit_splat(e, n, 0), ""), jit_vec(e, n), "");
        break;
    case JOP_NEG:
        r = LLVMBuildSub(b, jit_splat(e, n, 0), a, "");
        break;
    case JOP_ABS:
        r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, a, jit_splat(e, n, 0), ""),
                            LLVMBuildSub(b, jit_splat(e, n, 0), a, ""), a, "");
        break;
    case JOP_SHL: case JOP_SHRU: case JOP_SHRS:
        r = shift(e, j, a, in->o[2]);
        break;
    case JOP_MULWIDE: {
        if (n > 32)
            return false;
        LLVMTypeRef w2 = jit_vec(e, 2 * n);
        bb = src(e, in->o[2], n);
        a = j->sign ? LLVMBuildSExt(b, a, w2, "") : LLVMBuildZExt(b, a, w2, "");
        bb = j->sign ? LLVMBuildSExt(b, bb, w2, "") : LLVMBuildZExt(b, bb, w2, "");
        jit_store_slot(e, in->o[0], widen(e, LLVMBuildMul(b, a, bb, ""), 2 * n), mv);
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
    jit_store_slot(e, in->o[0], widen(e, r, n), mv);
    return true;
}

/* ---- the end of a run ---------------------------------------------------------- */
/* Returns to the scheduler with the warp at pc (its first instruction not run). */
static void stop_at(jit_emit *e, uint32_t pc)
{
    LLVMBuildStore(e->b, jit_k(e, e->i32, pc), jit_field_ptr(e, e->w, e->i8, offsetof(ptx_warp, pc)));
    LLVMBuildRet(e->b, LLVMConstInt(e->i32, 0, 0));
}

/* Goes on in the run at pc when the step budget allows cost more steps
 * (ptx_warp.jbudget, set by the scheduler), else stops at stop_pc.  Going
 * on is returning with w->pc = pc, the steps before that run charged: the
 * scheduler's loop (ptx_exec.c's run_warp) calls the run's function next.
 * A call from here would be no tail call in LLVM's -O0 code: each run's
 * frame holds its vectors (hundreds of KB), and a chain of 64 runs overflowed
 * an 8 MB stack (bench/enc0's 10k-instruction kernel). */
static void chain(jit_emit *e, uint32_t pc, uint32_t cost, uint32_t stop_pc)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef bp = jit_field_ptr(e, e->w, e->i8, offsetof(ptx_warp, jbudget));
    LLVMValueRef budget = LLVMBuildLoad2(b, e->i64, bp, "");
    LLVMValueRef go = LLVMBuildICmp(b, LLVMIntUGE, budget, jit_k(e, e->i64, cost), "");
    LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "chain");
    LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "stop");
    LLVMBuildCondBr(b, go, yes, no);
    LLVMPositionBuilderAtEnd(b, yes);
    uint32_t before = cost - e->seq[pc].len; /* the bra's step; the run's are the scheduler's */
    if (before)
        LLVMBuildStore(b, LLVMBuildSub(b, budget, jit_k(e, e->i64, before), ""), bp);
    stop_at(e, pc);
    LLVMPositionBuilderAtEnd(b, no);
    stop_at(e, stop_pc);
}

/* true when every live lane of the warp is running (no lane waits
 * elsewhere to regroup with): the scheduler's test at a branch target. */
static LLVMValueRef all_here(jit_emit *e)
{
    LLVMValueRef live = jit_field(e, e->w, offsetof(ptx_warp, live), e->i32);
    LLVMValueRef away = LLVMBuildAnd(e->b, live, LLVMBuildNot(e->b, e->active, ""), "");
    return LLVMBuildICmp(e->b, LLVMIntEQ, away, LLVMConstInt(e->i32, 0, 0), "");
}

/* A .sync instruction at pc, after a run (mma, shfl, ldmatrix, ...): run
 * here, as the scheduler would, through ptx_sync_converged (ptx_warp.jcalls)
 * where the warp is converged and the chain's budgets allow it (one step)
 * and the run after it, which it goes on into; else (lanes parked or
 * elsewhere, budgets spent) the scheduler's. */
static void sync_end(jit_emit *e, uint32_t pc)
{
    LLVMBuilderRef b = e->b;
    const ptx_func *f = e->f;
    uint32_t next = pc + 1;
    bool to_next = next < f->ncode && f->code[next].kind == K_PLAIN && e->seq[next].len;
    uint64_t cost = 1u + (to_next ? e->seq[next].len : 0u);
    LLVMValueRef bp = jit_field_ptr(e, e->w, e->i8, offsetof(ptx_warp, jbudget));
    LLVMValueRef budget = LLVMBuildLoad2(b, e->i64, bp, "");
    LLVMValueRef go = LLVMBuildICmp(b, LLVMIntUGE, budget, jit_k(e, e->i64, cost), "");
    LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "sync");
    LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "syncsched");
    LLVMBasicBlockRef ran = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "synced");
    LLVMBuildCondBr(b, go, yes, no);
    LLVMPositionBuilderAtEnd(b, yes);
    LLVMTypeRef params[2] = {e->ptr, e->ptr};
    LLVMTypeRef st = LLVMFunctionType(e->i32, params, 2, 0);
    LLVMValueRef jc = jit_field(e, e->w, offsetof(ptx_warp, jcalls), e->ptr);
    LLVMValueRef fp = jit_field(e, jc, offsetof(ptx_jcalls, sync), e->ptr);
    LLVMValueRef args[2] = {e->w, jit_inst_ptr(e, &f->code[pc])};
    LLVMValueRef r = LLVMBuildCall2(b, st, fp, args, 2, "");
    LLVMBasicBlockRef notfault = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "syncok");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, r, LLVMConstInt(e->i32, 0, 0), ""), e->fail, notfault);
    LLVMPositionBuilderAtEnd(b, notfault);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, r, LLVMConstInt(e->i32, 0, 0), ""), no, ran);
    LLVMPositionBuilderAtEnd(b, ran);
    LLVMBuildStore(b, LLVMBuildSub(b, budget, LLVMConstInt(e->i64, 1, 0), ""), bp);
    if (to_next)
        chain(e, next, e->seq[next].len, next);
    else
        stop_at(e, next);
    LLVMPositionBuilderAtEnd(b, no);
    stop_at(e, pc);
}

/* At pc, the first instruction after a run: what ptx_exec.c's run_warp
 * would do there, where that is to go on without regrouping the warp.  A
 * branch target with every lane here runs on; a branch that the running
 * lanes take together (and no lane waits elsewhere) or none takes runs on
 * at its target or after it; a .sync instruction of a converged warp runs
 * here too (sync_end).  Anything else (a divergent branch, lanes to
 * regroup, any other kind of instruction) is the scheduler's. */
static void run_end(jit_emit *e, uint32_t pc)
{
    LLVMBuilderRef b = e->b;
    const ptx_func *f = e->f;
    const ptx_inst *in = pc < f->ncode ? &f->code[pc] : NULL;
    if (in && in->kind == K_PLAIN && e->seq[pc].len) { /* a branch target (a run ends before one) */
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "target");
        LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "regroup");
        LLVMBuildCondBr(b, all_here(e), go, no);
        LLVMPositionBuilderAtEnd(b, go);
        chain(e, pc, e->seq[pc].len, pc);
        LLVMPositionBuilderAtEnd(b, no);
        stop_at(e, pc);
        return;
    }
    if (in && in->kind == K_SYNC) {
        sync_end(e, pc);
        return;
    }
    if (!in || in->kind != K_BRA) {
        stop_at(e, pc);
        return;
    }
    /* the bra itself is one step; a run at its target or after it, more */
    uint32_t t = in->target, next = pc + 1;
    bool to_t = t < f->ncode && f->code[t].kind == K_PLAIN && e->seq[t].len;
    bool to_next = in->guard >= 0 && next < f->ncode && f->code[next].kind == K_PLAIN &&
                   e->seq[next].len;
    LLVMValueRef m = e->active;
    if (in->guard >= 0) {
        LLVMValueRef p = LLVMBuildLoad2(b, e->i32, jit_pred_ptr(e, (uint32_t)in->guard), "");
        m = LLVMBuildAnd(b, m, in->gneg ? LLVMBuildNot(b, p, "") : p, "");
    }
    LLVMBasicBlockRef taken = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "taken");
    LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "nottaken");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, m, e->active, ""), taken, other);
    LLVMPositionBuilderAtEnd(b, taken);
    if (to_t) {
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "jump");
        LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "regroup");
        LLVMBuildCondBr(b, all_here(e), go, no);
        LLVMPositionBuilderAtEnd(b, go);
        chain(e, t, 1 + e->seq[t].len, pc);
        LLVMPositionBuilderAtEnd(b, no);
    }
    stop_at(e, pc);
    LLVMPositionBuilderAtEnd(b, other);
    if (to_next) { /* no lane takes it: on after it (the scheduler does not regroup there) */
        LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "fall");
        LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "diverge");
        LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, m, LLVMConstInt(e->i32, 0, 0), ""), go, no);
        LLVMPositionBuilderAtEnd(b, go);
        chain(e, next, 1 + e->seq[next].len, pc);
        LLVMPositionBuilderAtEnd(b, no);
    }
    stop_at(e, pc);
}

/* Asks for the lines of [at, at + bytes), bytes at most a line (a ptx_inst
 * of 80 bytes mostly spans two). */
static void prefetch(jit_emit *e, LLVMValueRef at, size_t bytes)
{
    LLVMTypeRef tys[1] = {e->ptr};
    unsigned id = LLVMLookupIntrinsicID("llvm.prefetch", strlen("llvm.prefetch"));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->mod, id, tys, 1);
    LLVMValueRef last = LLVMConstInt(e->i64, bytes - 1u, 0);
    LLVMValueRef ends[2] = {at, LLVMBuildGEP2(e->b, e->i8, at, &last, 1, "")};
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef args[4] = {ends[h], LLVMConstInt(e->i32, 0, 0), LLVMConstInt(e->i32, 3, 0),
                                LLVMConstInt(e->i32, 1, 0)};
        LLVMBuildCall2(e->b, LLVMGlobalGetValueType(fn), fn, args, 4, "");
    }
}

/* The instructions of the run whose handlers it calls, asked for at its
 * start: a handler's first reads are its ptx_inst (in->fn for the call
 * itself, then its operands), on lines of their own in a large kernel's
 * code, which nothing else brought near; fetched together they overlap,
 * where one after another each call would wait for its own. */
static void prefetch_calls(jit_emit *e, uint32_t pc, uint32_t len)
{
    if (!e->prefetch)
        return;
    for (uint32_t k = 0; k < len; k++) {
        const ptx_inst *in = &e->f->code[pc + k];
        if (!jop_of(in->fn))
            prefetch(e, jit_inst_ptr(e, in), sizeof *in);
    }
    /* and the instruction that ends it (a .sync it runs, a bra), and where
     * it will most likely stop (run_end: after a converged .sync, at a
     * branch target, at a uniform branch's target): that instruction and
     * the scheduler's entry for it, which its loop reads next */
    const ptx_func *f = e->f;
    uint32_t end = pc + len, at = end;
    if (end < f->ncode && f->code[end].kind == K_SYNC)
        at = end + 1;
    else if (end < f->ncode && f->code[end].kind == K_BRA)
        at = f->code[end].target;
    if (at >= f->ncode)
        return;
    if (at != end)
        prefetch(e, jit_inst_ptr(e, &f->code[end]), sizeof(ptx_inst));
    prefetch(e, jit_inst_ptr(e, &f->code[at]), sizeof(ptx_inst));
    LLVMValueRef cta = jit_field(e, e->w, offsetof(ptx_warp, cta), e->ptr);
    LLVMValueRef rt = jit_field(e, cta, offsetof(ptx_cta, rt), e->ptr);
    LLVMValueRef seq = jit_field(e, rt, offsetof(ptx_rt, jit), e->ptr);
    LLVMValueRef off = jit_k(e, e->i64, (uint64_t)at * sizeof(ptx_jit_seq));
    prefetch(e, LLVMBuildGEP2(e->b, e->i8, seq, &off, 1, ""), sizeof(ptx_jit_seq));
}

static void emit_run(jit_emit *e, uint32_t pc, uint32_t len)
{
    e->fn = e->fns[pc];
    e->w = LLVMGetParam(e->fn, 0);
    e->active = LLVMGetParam(e->fn, 1);
    e->code = LLVMGetParam(e->fn, 2);
    e->tab = e->tabs ? LLVMGetParam(e->fn, 3) : NULL;
    e->tab_full = false;
    if (e->tabs)
        e->tab0 = e->tabs->n;
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "entry");
    e->fail = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "fault");
    LLVMPositionBuilderAtEnd(e->b, e->fail);
    LLVMBuildRet(e->b, LLVMConstInt(e->i32, (unsigned long long)-1, 1));
    LLVMPositionBuilderAtEnd(e->b, entry);
    /* handlers never change where a warp's registers are */
    e->R = LLVMBuildLoad2(e->b, e->ptr, jit_field_ptr(e, e->w, e->i8, offsetof(ptx_warp, R)), "R");
    e->P = LLVMBuildLoad2(e->b, e->ptr, jit_field_ptr(e, e->w, e->i8, offsetof(ptx_warp, P)), "P");
    e->mrun = LLVMBuildBitCast(e->b, e->active, e->vmask, "run");
    prefetch_calls(e, pc, len);
    for (uint32_t k = 0; k < len; k++) {
        const ptx_inst *in = &e->f->code[pc + k];
        LLVMValueRef m = e->active;
        if (in->guard >= 0) {
            LLVMValueRef p = jit_load_pred(e, (uint32_t)in->guard);
            m = LLVMBuildAnd(e->b, m, in->gneg ? LLVMBuildNot(e->b, p, "") : p, "m");
        }
        const ptx_jop *j = jop_of(in->fn);
        if (j && emit_jop(e, in, j, m)) {
            e->native++;
        } else {
            jit_emit_call(e, in, m);
            e->called++;
        }
    }
    jit_flush(e, true);
    run_end(e, pc + len);
}

/* ---- runs of one shape, one function ---------------------------------------- */
/* VKRR_PTX_JIT_SHARE_CHECK=1 (tests): the printed IR of two functions, after
 * their names, is the same exactly when their shapes are; else abort. */
static void share_check(LLVMValueRef fn, LLVMValueRef kept, bool same)
{
    char *a = LLVMPrintValueToString(fn), *b = LLVMPrintValueToString(kept);
    bool text = !strcmp(strchr(a, '('), strchr(b, '('));
    if (text != same) {
        fprintf(stderr, "ptx-jit: shapes %s, IR %s:\n%s\n%s\n", same ? "equal" : "differ",
                text ? "equal" : "differs", a, b);
        abort();
    }
    LLVMDisposeMessage(a);
    LLVMDisposeMessage(b);
}

/* The run just emitted at pc: kept as a shape of its own, or, when a kept
 * function has its shape (the values that differ are in the tables),
 * deleted for that one.  False: out of memory. */
static bool share_run(jit_emit *e, uint32_t pc)
{
    jit_tabs *tb = e->tabs;
    tb->rep[pc] = pc;
    uint64_t *tok;
    uint32_t ntok;
    if (e->tab_full || !ptx_jit_shape_of(e->fn, &tok, &ntok)) /* its own */
        return true;
    if (2u * (e->nshapes + 1u) > e->capshapes) { /* grow the open-addressing table */
        uint32_t cap = e->capshapes ? 2u * e->capshapes : 256u;
        jit_shape *ns = calloc(cap, sizeof *ns);
        if (!ns) {
            free(tok);
            return false;
        }
        for (uint32_t i = 0; i < e->capshapes; i++)
            if (e->shapes[i].tok) {
                uint32_t k = (uint32_t)e->shapes[i].hash & (cap - 1u);
                while (ns[k].tok)
                    k = (k + 1u) & (cap - 1u);
                ns[k] = e->shapes[i];
            }
        free(e->shapes);
        e->shapes = ns;
        e->capshapes = cap;
    }
    uint64_t h = vkrr_fnv1a64(tok, (size_t)ntok * sizeof *tok);
    uint32_t k = (uint32_t)h & (e->capshapes - 1u);
    for (; e->shapes[k].tok; k = (k + 1u) & (e->capshapes - 1u)) {
        bool same = e->shapes[k].hash == h && e->shapes[k].ntok == ntok &&
                    !memcmp(e->shapes[k].tok, tok, (size_t)ntok * sizeof *tok);
        if (e->share_check)
            share_check(e->fn, e->fns[e->shapes[k].pc], same);
        if (same) {
            tb->rep[pc] = e->shapes[k].pc;
            LLVMDeleteFunction(e->fn);
            e->fns[pc] = NULL;
            free(tok);
            return true;
        }
    }
    e->shapes[k] = (jit_shape){h, tok, ntok, pc};
    e->nshapes++;
    return true;
}

bool ptx_jit_emit_runs(jit_emit *e, const ptx_jit_seq *seq, LLVMValueRef *fns,
                       char (*names)[48], uint32_t lo, uint32_t hi)
{
    e->seq = seq;
    e->fns = fns;
    for (uint32_t pc = lo; pc < hi; pc++) /* each run's function, by the name the JIT looks up */
        if (seq[pc].len)
            e->fns[pc] = LLVMAddFunction(e->mod, names[pc], e->fn_t);
    for (uint32_t pc = lo; pc < hi; pc++)
        if (seq[pc].len) {
            if (e->tabs)
                e->tabs->at[pc] = (uint32_t)e->tabs->n;
            emit_run(e, pc, seq[pc].len);
            if (e->tabs && !share_run(e, pc))
                return false;
        }
    return true;
}

#else
typedef int ptx_jit_emit_unused; /* ISO C: a translation unit is not empty */
#endif
