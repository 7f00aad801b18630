/* ptx_jit_float.c - the JIT's inline float operations (ptx_float_jops, and
 * cvt.rn.f16.f32 of ptx_cvt_jops) as <32 x float> code, bit for bit what
 * their handlers compute:
 *   - add/sub/mul/fma .rn .f32 (ptx_float.c's x_fadd ... x_ffma, and
 *     x_f32_gen's .rn forms of them with .ftz and .sat): LLVM's fadd, fsub,
 *     fmul and llvm.fma are the IEEE operations in the host's default mode,
 *     as the handlers' C operators and fmaf are; .ftz flushes each source
 *     and the result whose exponent field is 0 to its sign (vkrr_ftz_f32);
 *     .sat clamps to [0, 1] with NaN -> +0 and -0 kept (sat01); a NaN result
 *     is the canonical 0x7fffffff (ptx_canon_f32).
 *   - cvt.rn.f16.f32 (vkrr_f32_to_f16_rne): normal results rebiased and
 *     rounded by integer adds, subnormal ones by one float add of 0.5 (its
 *     ulp is f16's smallest subnormal, so the host's rounding to nearest
 *     even is the conversion's), NaN -> 0x7fff, past 65520 -> Inf.
 *   - setp.f32 (x_fsetp), .ftz flushing both sources first; min/max.f32
 *     (x_minmax) and abs/neg (x_absneg) .f32 and .f64.
 * Any other form (another rounding mode, div, sqrt, rcp) returns false: its
 * handler is called. */
#ifdef VKRR_PTX_JIT_LLVM

#include "ptx_jit_emit.h"

enum { OP_ADD, OP_SUB, OP_MUL, OP_FMA }; /* ptx_float.c's in->a of x_f32_gen */

static LLVMTypeRef vf32(jit_emit *e)
{
    return LLVMVectorType(LLVMFloatTypeInContext(e->ctx), 32);
}

static LLVMValueRef fsplat(jit_emit *e, float v)
{
    LLVMValueRef c[32], k = LLVMConstReal(LLVMFloatTypeInContext(e->ctx), v);
    for (unsigned i = 0; i < 32; i++)
        c[i] = k;
    return LLVMConstVector(c, 32);
}

static LLVMValueRef as_f(jit_emit *e, LLVMValueRef bits)
{
    return LLVMBuildBitCast(e->b, bits, vf32(e), "");
}

static LLVMValueRef as_i(jit_emit *e, LLVMValueRef f)
{
    return LLVMBuildBitCast(e->b, f, jit_vec(e, 32), "");
}

/* The low 32 bits of a slot. */
static LLVMValueRef bits32(jit_emit *e, uint32_t slot)
{
    return LLVMBuildTrunc(e->b, jit_load_slot(e, slot), jit_vec(e, 32), "");
}

/* vkrr_ftz_f32 on bits: an exponent field of 0 leaves the sign. */
static LLVMValueRef ftz(jit_emit *e, LLVMValueRef x)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef ex = LLVMBuildAnd(b, x, jit_splat(e, 32, 0x7f800000u), "");
    LLVMValueRef tiny = LLVMBuildICmp(b, LLVMIntEQ, ex, jit_splat(e, 32, 0), "");
    return LLVMBuildSelect(b, tiny, LLVMBuildAnd(b, x, jit_splat(e, 32, 0x80000000u), ""), x, "");
}

static LLVMValueRef fma32(jit_emit *e, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
    unsigned id = LLVMLookupIntrinsicID("llvm.fma", 8);
    LLVMTypeRef t = vf32(e);
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->mod, id, &t, 1);
    LLVMValueRef args[3] = {a, b, c};
    return LLVMBuildCall2(e->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
}

/* d = a op b (op c) for the lanes mv: op an OP_*, ftz and sat as .ftz, .sat. */
static void arith(jit_emit *e, const ptx_inst *in, int op, bool ftz_, bool sat, LLVMValueRef mv)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef x = bits32(e, in->o[1]), y = bits32(e, in->o[2]), z = NULL;
    if (op == OP_FMA)
        z = bits32(e, in->o[3]);
    if (ftz_) {
        x = ftz(e, x);
        y = ftz(e, y);
        z = z ? ftz(e, z) : NULL;
    }
    LLVMValueRef fx = as_f(e, x), fy = as_f(e, y), r;
    switch (op) {
    case OP_ADD: r = LLVMBuildFAdd(b, fx, fy, ""); break;
    case OP_SUB: r = LLVMBuildFSub(b, fx, fy, ""); break;
    case OP_MUL: r = LLVMBuildFMul(b, fx, fy, ""); break;
    default: r = fma32(e, fx, fy, as_f(e, z)); break;
    }
    if (ftz_)
        r = as_f(e, ftz(e, as_i(e, r)));
    if (sat) { /* NaN and below 0 -> +0 (-0 stays), above 1 -> 1 */
        LLVMValueRef zero = fsplat(e, 0.0f);
        LLVMValueRef low = LLVMBuildFCmp(b, LLVMRealULT, r, zero, ""); /* NaN or < 0 */
        r = LLVMBuildSelect(b, low, zero, r, "");
        r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, r, fsplat(e, 1.0f), ""), fsplat(e, 1.0f),
                            r, "");
    }
    LLVMValueRef ri = as_i(e, r);
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, r, r, "");
    ri = LLVMBuildSelect(b, nan, jit_splat(e, 32, 0x7fffffffu), ri, "");
    jit_store_slot(e, in->o[0], LLVMBuildZExt(b, ri, e->v64, ""), mv);
}

/* x_approx: its .f32 forms for a whole warp call ptx_approx32 directly
 * (ptx_jcalls.h), on the registers in memory, as the handler reads them;
 * the others, and a partial warp, call the handler. */
bool jit_emit_approx(jit_emit *e, const ptx_inst *in, LLVMValueRef m)
{
    if (in->d != 0 || in->o[0] >= e->f->nslots || in->o[1] >= e->f->nslots)
        return false;
    LLVMTypeRef params[4] = {e->ptr, e->i32, e->ptr, e->ptr};
    LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(e->ctx), params, 4, 0);
    LLVMValueRef args[3] = {LLVMConstInt(e->i32, (uint64_t)in->a | (uint64_t)in->c << 8, 0),
                            jit_slot_ptr(e, in->o[0]), jit_slot_ptr(e, in->o[1])};
    jit_emit_call_whole(e, in, m, offsetof(ptx_jcalls, approx32), ft, args, 3);
    return true;
}

/* x_cvt_pack's cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2, for a whole
 * warp: a direct call of ptx_cvt_f8x2_32 (its tables, as the handler's);
 * the other forms, and a partial warp, call the handler. */
bool jit_emit_cvt_f8x2(jit_emit *e, const ptx_inst *in, LLVMValueRef m)
{
    int form = ptx_cvt_f8x2_form(in);
    if (form < 0 || in->o[0] >= e->f->nslots || in->o[1] >= e->f->nslots)
        return false;
    LLVMTypeRef params[4] = {e->ptr, e->i32, e->ptr, e->ptr};
    LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(e->ctx), params, 4, 0);
    LLVMValueRef args[3] = {LLVMConstInt(e->i32, (uint64_t)form, 0), jit_slot_ptr(e, in->o[0]),
                            jit_slot_ptr(e, in->o[1])};
    jit_emit_call_whole(e, in, m, offsetof(ptx_jcalls, cvt_f8x2), ft, args, 3);
    return true;
}

/* vkrr_f32_to_f16_rne over the lanes, as <32 x i32> holding the f16 code. */
static LLVMValueRef f32_to_f16(jit_emit *e, LLVMValueRef x)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef ax = LLVMBuildAnd(b, x, jit_splat(e, 32, 0x7fffffffu), "");
    LLVMValueRef sign = LLVMBuildAnd(b, LLVMBuildLShr(b, x, jit_splat(e, 32, 16), ""),
                                     jit_splat(e, 32, 0x8000u), "");
    /* normal: rebias, round the 13 dropped bits to nearest even */
    LLVMValueRef mn = LLVMBuildSub(b, ax, jit_splat(e, 32, 0x38000000u), "");
    LLVMValueRef odd = LLVMBuildAnd(b, LLVMBuildLShr(b, mn, jit_splat(e, 32, 13), ""), jit_splat(e, 32, 1), "");
    mn = LLVMBuildAdd(b, mn, LLVMBuildAdd(b, odd, jit_splat(e, 32, 0xfffu), ""), "");
    LLVMValueRef normal = LLVMBuildLShr(b, mn, jit_splat(e, 32, 13), "");
    /* below 2^-14: |x| + 0.5 rounds |x| to a multiple of 2^-24 */
    LLVMValueRef s = LLVMBuildFAdd(b, as_f(e, ax), fsplat(e, 0.5f), "");
    LLVMValueRef sub = LLVMBuildSub(b, as_i(e, s), jit_splat(e, 32, 0x3f000000u), "");
    LLVMValueRef r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, ax, jit_splat(e, 32, 0x38800000u), ""),
                                     normal, sub, "");
    r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, ax, jit_splat(e, 32, 0x477ff000u), ""),
                        jit_splat(e, 32, 0x7c00u), r, "");
    r = LLVMBuildOr(b, r, sign, "");
    return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, ax, jit_splat(e, 32, 0x7f800000u), ""),
                           jit_splat(e, 32, 0x7fffu), r, "");
}

/* setp.cmp{.bool}{.ftz}.f32 as x_fsetp: the handler compares the values
 * (exact in double) by in->a's order eq ne lt le gt ge equ neu ltu leu gtu
 * geu num nan, an LLVM float predicate each; p, and q = !cmp, combined
 * with the predicate operand by in->b (and, or, xor) as emit_setp does. */
static void fsetp(jit_emit *e, const ptx_inst *in, LLVMValueRef m)
{
    static const LLVMRealPredicate cmp[14] = {
        LLVMRealOEQ, LLVMRealONE, LLVMRealOLT, LLVMRealOLE, LLVMRealOGT, LLVMRealOGE, LLVMRealUEQ,
        LLVMRealUNE, LLVMRealULT, LLVMRealULE, LLVMRealUGT, LLVMRealUGE, LLVMRealORD, LLVMRealUNO};
    LLVMBuilderRef b = e->b;
    LLVMValueRef x = bits32(e, in->o[4]), y = bits32(e, in->o[5]);
    if (in->e) {
        x = ftz(e, x);
        y = ftz(e, y);
    }
    LLVMValueRef c = LLVMBuildFCmp(b, cmp[in->a], as_f(e, x), as_f(e, y), "");
    LLVMValueRef p = LLVMBuildBitCast(b, c, e->i32, "");
    LLVMValueRef q = LLVMBuildNot(b, p, "");
    if (in->b) {
        LLVMValueRef k = jit_load_pred(e, in->o[3]);
        if (in->c)
            k = LLVMBuildNot(b, k, "");
        LLVMOpcode op = in->b == 1 ? LLVMAnd : in->b == 2 ? LLVMOr : LLVMXor;
        p = LLVMBuildBinOp(b, op, p, k, "");
        q = LLVMBuildBinOp(b, op, q, k, "");
    }
    jit_store_pred(e, in->o[0], p, m);
    if (in->o[1] != UINT32_MAX)
        jit_store_pred(e, in->o[1], q, m);
}

/* min/max{.ftz}{.NaN}.f32 as x_minmax: a NaN operand gives the other one
 * (both, or .NaN: the canonical NaN); equal values (+0 and -0) by sign;
 * the result's low 32 bits. */
static void minmax(jit_emit *e, const ptx_inst *in, LLVMValueRef mv)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef x = bits32(e, in->o[1]), y = bits32(e, in->o[2]);
    if (in->a & 2) {
        x = ftz(e, x);
        y = ftz(e, y);
    }
    LLVMValueRef fx = as_f(e, x), fy = as_f(e, y);
    LLVMValueRef nx = LLVMBuildFCmp(b, LLVMRealUNO, fx, fx, ""), ny = LLVMBuildFCmp(b, LLVMRealUNO, fy, fy, "");
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, x, jit_splat(e, 32, 0), ""); /* x's sign bit */
    LLVMValueRef eqv = in->b ? LLVMBuildSelect(b, neg, y, x, "") : LLVMBuildSelect(b, neg, x, y, "");
    LLVMValueRef pick = LLVMBuildFCmp(b, in->b ? LLVMRealOGT : LLVMRealOLT, fx, fy, "");
    LLVMValueRef r = LLVMBuildSelect(b, pick, x, y, "");
    r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, fx, fy, ""), eqv, r, "");
    r = LLVMBuildSelect(b, nx, y, LLVMBuildSelect(b, ny, x, r, ""), "");
    LLVMValueRef canon = in->a & 1 ? LLVMBuildOr(b, nx, ny, "") : LLVMBuildAnd(b, nx, ny, "");
    r = LLVMBuildSelect(b, canon, jit_splat(e, 32, 0x7fffffffu), r, "");
    jit_store_slot(e, in->o[0], LLVMBuildZExt(b, r, e->v64, ""), mv);
}

/* abs/neg{.ftz}.f32 and abs/neg.f64 as x_absneg: the sign bit of the whole
 * register cleared or flipped; .ftz first flushes an f32 subnormal (not a
 * zero) to its signed zero, the register's upper bits cleared, as flush does. */
static void absneg(jit_emit *e, const ptx_inst *in, LLVMValueRef mv)
{
    LLVMBuilderRef b = e->b;
    uint64_t sb = in->d == 0 ? 1ull << 31 : 1ull << 63;
    LLVMValueRef v = jit_load_slot(e, in->o[1]);
    if (in->c) {
        LLVMValueRef low = LLVMBuildAnd(b, v, jit_splat(e, 64, 0x7fffffffu), ""); /* subnormal: 1 .. 0x7fffff */
        LLVMValueRef tiny = LLVMBuildICmp(b, LLVMIntULT, LLVMBuildSub(b, low, jit_splat(e, 64, 1), ""),
                                          jit_splat(e, 64, 0x7fffffu), "");
        v = LLVMBuildSelect(b, tiny, LLVMBuildAnd(b, v, jit_splat(e, 64, sb), ""), v, "");
    }
    v = in->a ? LLVMBuildXor(b, v, jit_splat(e, 64, sb), "") : LLVMBuildAnd(b, v, jit_splat(e, 64, ~sb), "");
    jit_store_slot(e, in->o[0], v, mv);
}

bool jit_emit_float(jit_emit *e, const ptx_inst *in, const ptx_jop *j, LLVMValueRef m,
                    LLVMValueRef mv)
{
    switch (j->op) {
    case JOP_FADD: arith(e, in, OP_ADD, false, false, mv); return true;
    case JOP_FSUB: arith(e, in, OP_SUB, false, false, mv); return true;
    case JOP_FMUL: arith(e, in, OP_MUL, false, false, mv); return true;
    case JOP_FFMA: arith(e, in, OP_FMA, false, false, mv); return true;
    case JOP_F32_GEN:
        if (in->a > OP_FMA || in->b != RND_RN)
            return false;
        arith(e, in, in->a, in->c != 0, in->d != 0, mv);
        return true;
    case JOP_FSETP:
        if (in->d != 0 || in->a >= 14) /* ptx_float.c's TY_F32 only */
            return false;
        fsetp(e, in, m);
        return true;
    case JOP_FMINMAX:
        if (in->d != 0 || in->e != 1 || (in->a & 4)) /* .f32 without .xorsign.abs */
            return false;
        minmax(e, in, mv);
        return true;
    case JOP_FABSNEG:
        if (in->e != 1 || (in->d != 0 && (in->d != 1 || in->c))) /* .f32, .f64 without .ftz */
            return false;
        absneg(e, in, mv);
        return true;
    case JOP_F32_F16:
        jit_store_slot(e, in->o[0], LLVMBuildZExt(e->b, f32_to_f16(e, bits32(e, in->o[1])), e->v64, ""),
                       mv);
        return true;
    default:
        return false;
    }
}

#else
typedef int ptx_jit_float_unused; /* ISO C: a translation unit is not empty */
#endif
