/* ptx_jit_mem.c - the JIT's ld and st: the bounds and alignment checks of
 * ptx_addr.c as vector compares, then one load broadcast (the whole warp at
 * one address), or LLVM's gather and scatter; a lane out of bounds takes the
 * instruction's handler, which faults as the interpreter does. */
#ifdef VKRR_PTX_JIT_LLVM

#include <stddef.h>

#include "ptx_jit_emit.h"

/* A call of LLVM's masked gather (val NULL) or scatter of eb-byte elements
 * at ptrs + off for lanes mv: a gather's result (as <32 x iN>), or NULL. */
static LLVMValueRef masked_mem(jit_emit *e, LLVMValueRef ptrs, LLVMValueRef val, LLVMValueRef mv,
                               unsigned eb, unsigned off)
{
    LLVMBuilderRef b = e->b;
    LLVMTypeRef vt = jit_vec(e, eb * 8u);
    LLVMValueRef k = LLVMConstInt(e->i64, off, 0);
    LLVMValueRef at = off ? LLVMBuildGEP2(b, e->i8, ptrs, &k, 1, "") : ptrs;
    LLVMTypeRef tys[2] = {vt, LLVMVectorType(e->ptr, 32)};
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(e->mod, val ? e->id_scatter : e->id_gather, tys, 2);
    LLVMValueRef align = LLVMConstInt(e->i32, eb, 0), args[4] = {at, align, mv, LLVMConstNull(vt)};
    if (val) { /* scatter(value, ptrs, align, mask) */
        args[0] = eb == 8 ? val : LLVMBuildTrunc(b, val, vt, "");
        args[1] = at;
        args[2] = align;
        args[3] = mv;
    }
    LLVMValueRef r = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 4, "");
    return val ? NULL : r;
}

/* Lanes mv of the eb-byte values at ptrs + off, extended to 64 bits (sign
 * when sx): an LLVM gather (loads have no order to keep). */
static LLVMValueRef gather(jit_emit *e, LLVMValueRef ptrs, LLVMValueRef mv, unsigned eb, bool sx,
                           unsigned off)
{
    LLVMValueRef v = masked_mem(e, ptrs, NULL, mv, eb, off);
    if (eb == 8)
        return v;
    return sx ? LLVMBuildSExt(e->b, v, e->v64, "") : LLVMBuildZExt(e->b, v, e->v64, "");
}

/* Lanes mv of val's low eb bytes to ptrs + off: an LLVM scatter, whose
 * lanes write in lane order (the last of lanes at one address wins, as in
 * the handler). */
static void scatter(jit_emit *e, LLVMValueRef ptrs, LLVMValueRef val, LLVMValueRef mv, unsigned eb,
                    unsigned off)
{
    masked_mem(e, ptrs, val, mv, eb, off);
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
        jit_put_slot(e, slot);
}

/* Addresses a in a window of memory at base, size bytes long: its host
 * addresses, and in *ok also the lanes whose access fits (as ptx_addr.c). */
static LLVMValueRef window(jit_emit *e, LLVMValueRef a, unsigned bytes, LLVMValueRef base,
                           LLVMValueRef size, LLVMValueRef *ok)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, size, LLVMConstInt(e->i64, bytes, 0), "");
    LLVMValueRef lim = LLVMBuildSub(b, size, LLVMConstInt(e->i64, bytes, 0), "");
    *ok = LLVMBuildAnd(b, *ok, LLVMBuildICmp(b, LLVMIntULE, a, jit_splat_of(e, lim), ""), "");
    *ok = LLVMBuildAnd(b, *ok, jit_splat_of(e, big), "");
    return LLVMBuildGEP2(b, e->i8, base, &a, 1, "");
}

/* The region a global or generic access at in hit last (regions has room
 * past nregions), and in *have whether there is one (for a store, one that
 * may be written): its lo, hi and delta (to its host memory) at
 * ptx_region_rt's offsets. */
static LLVMValueRef hinted_region(jit_emit *e, const ptx_inst *in, bool st, LLVMValueRef *have)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef cta = jit_field(e, e->w, offsetof(ptx_warp, cta), e->ptr);
    LLVMValueRef rt = jit_field(e, cta, offsetof(ptx_cta, rt), e->ptr);
    LLVMValueRef regions = jit_field(e, rt, offsetof(ptx_rt, regions), e->ptr);
    LLVMValueRef nreg = jit_field(e, rt, offsetof(ptx_rt, nregions), e->i32);
    LLVMValueRef ihint = jit_field(e, rt, offsetof(ptx_rt, ihint), e->ptr);
    LLVMValueRef at = jit_k(e, e->i64, (uint64_t)(in - e->f->code) * sizeof(uint32_t));
    LLVMValueRef hint = LLVMBuildLoad2(b, e->i32, LLVMBuildGEP2(b, e->i8, ihint, &at, 1, ""), "");
    LLVMSetAlignment(hint, 4);
    LLVMSetOrdering(hint, LLVMAtomicOrderingMonotonic); /* other host threads store it */
    *have = LLVMBuildICmp(b, LLVMIntULT, hint, nreg, "");
    hint = LLVMBuildSelect(b, *have, hint, LLVMConstInt(e->i32, 0, 0), "");
    LLVMValueRef off = LLVMBuildMul(b, LLVMBuildZExt(b, hint, e->i64, ""),
                                    LLVMConstInt(e->i64, sizeof(ptx_region_rt), 0), "");
    LLVMValueRef rg = LLVMBuildGEP2(b, e->i8, regions, &off, 1, "");
    if (st) {
        LLVMValueRef wr = jit_field(e, rg, offsetof(ptx_region_rt, writable), e->i8);
        *have = LLVMBuildAnd(b, *have, LLVMBuildICmp(b, LLVMIntNE, wr, LLVMConstInt(e->i8, 0, 0), ""), "");
    }
    return rg;
}

/* Whether an access of room bytes at a lies in [lo, hi): scalars or
 * vectors alike (room of a's type). */
static LLVMValueRef fits(jit_emit *e, LLVMValueRef a, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef room)
{
    LLVMBuilderRef b = e->b;
    LLVMValueRef in_rg = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntUGE, a, lo, ""),
                                      LLVMBuildICmp(b, LLVMIntULT, a, hi, ""), "");
    return LLVMBuildAnd(b, in_rg, LLVMBuildICmp(b, LLVMIntUGE, LLVMBuildSub(b, hi, a, ""), room, ""), "");
}

/* The lanes' host addresses of a ld/st at addresses a, and in *ok the
 * lanes whose access is in bounds and aligned (the checks of ptx_addr.c);
 * NULL when the space has no fast path.  A load of less than 4 bytes gets
 * the addresses of the aligned words that hold it (read by a gather of
 * words: x86 has no gather of bytes), and those words must be in bounds;
 * a lane whose word is not takes the handler (windows start 16-aligned). */
static LLVMValueRef mem_ptrs(jit_emit *e, const ptx_inst *in, LLVMValueRef a, unsigned bytes,
                             bool st, LLVMValueRef *ok)
{
    LLVMBuilderRef b = e->b;
    *ok = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, a, jit_splat(e, 64, bytes - 1u), ""),
                        jit_splat(e, 64, 0), "");
    if (!st && bytes < 4) {
        a = LLVMBuildAnd(b, a, jit_splat(e, 64, ~3ull), "");
        bytes = 4;
    }
    switch (in->d) {
    case SP_LOCAL: { /* lane l's window: local + l * local_bytes */
        uint64_t lb = e->f->local_bytes;
        if (lb < bytes)
            return NULL;
        *ok = LLVMBuildAnd(b, *ok, LLVMBuildICmp(b, LLVMIntULE, a, jit_splat(e, 64, lb - bytes), ""), "");
        LLVMValueRef local = jit_field(e, e->w, offsetof(ptx_warp, local), e->ptr);
        LLVMValueRef off = LLVMBuildAdd(b, a, LLVMBuildMul(b, lane_index(e), jit_splat(e, 64, lb), ""), "");
        return LLVMBuildGEP2(b, e->i8, local, &off, 1, "");
    }
    case SP_SHARED: { /* the CTA's window: shared + a, below shared_bytes */
        LLVMValueRef cta = jit_field(e, e->w, offsetof(ptx_warp, cta), e->ptr);
        LLVMValueRef rt = jit_field(e, cta, offsetof(ptx_cta, rt), e->ptr);
        LLVMValueRef size = jit_field(e, rt, offsetof(ptx_rt, shared_bytes), e->i64);
        return window(e, a, bytes, jit_field(e, cta, offsetof(ptx_cta, shared), e->ptr), size, ok);
    }
    case SP_PARAM: { /* the kernel's parameters, read only */
        if (st)
            return NULL;
        LLVMValueRef cta = jit_field(e, e->w, offsetof(ptx_warp, cta), e->ptr);
        LLVMValueRef rt = jit_field(e, cta, offsetof(ptx_cta, rt), e->ptr);
        LLVMValueRef size = LLVMBuildZExt(b, jit_field(e, rt, offsetof(ptx_rt, params_bytes), e->i32),
                                          e->i64, "");
        return window(e, a, bytes, jit_field(e, rt, offsetof(ptx_rt, params), e->ptr), size, ok);
    }
    case SP_GLOBAL:
    case SP_GENERIC: {
        LLVMValueRef have, rg = hinted_region(e, in, st, &have);
        LLVMValueRef lo = jit_splat_of(e, jit_field(e, rg, offsetof(ptx_region_rt, lo), e->i64));
        LLVMValueRef hi = jit_splat_of(e, jit_field(e, rg, offsetof(ptx_region_rt, hi), e->i64));
        *ok = LLVMBuildAnd(b, *ok, fits(e, a, lo, hi, jit_splat(e, 64, bytes)), "");
        *ok = LLVMBuildAnd(b, *ok, jit_splat_of(e, have), "");
        LLVMValueRef delta = jit_splat_of(e, jit_field(e, rg, offsetof(ptx_region_rt, delta), e->i64));
        return LLVMBuildIntToPtr(b, LLVMBuildAdd(b, a, delta, ""), LLVMVectorType(e->ptr, 32), "");
    }
    default:
        return NULL;
    }
}

/* Elements of less than 4 bytes (eb) from the words at ptrs (mem_ptrs'
 * word addresses; a: the lanes' addresses): element k of lanes mv, from
 * the word that holds it, shifted down (x86 is little-endian). */
static LLVMValueRef sub_word(jit_emit *e, LLVMValueRef ptrs, LLVMValueRef a, LLVMValueRef mv,
                             unsigned eb, unsigned bytes, bool sx, unsigned k, LLVMValueRef *words)
{
    LLVMBuilderRef b = e->b;
    unsigned off = k * eb, wo = bytes < 4 ? 0 : off / 4u; /* under 4 bytes: one word */
    if (!words[wo])
        words[wo] = gather(e, ptrs, mv, 4, false, wo * 4u);
    LLVMValueRef sh = jit_splat(e, 64, (uint64_t)(off % 4u) * 8u);
    if (bytes < 4) /* the element's place in its word: a's low bits */
        sh = LLVMBuildAdd(b, sh, LLVMBuildShl(b, LLVMBuildAnd(b, a, jit_splat(e, 64, 3), ""),
                                              jit_splat(e, 64, 3), ""), "");
    LLVMValueRef v = LLVMBuildTrunc(b, LLVMBuildLShr(b, words[wo], sh, ""), jit_vec(e, eb * 8u), "");
    return sx ? LLVMBuildSExt(b, v, e->v64, "") : LLVMBuildZExt(b, v, e->v64, "");
}

/* Element k of a ld (in->a bytes each) at host address p0, extended to 64
 * bits (sign when in->c). */
static LLVMValueRef load_one(jit_emit *e, const ptx_inst *in, LLVMValueRef p0, unsigned k)
{
    unsigned eb = in->a;
    LLVMValueRef off = LLVMConstInt(e->i64, (uint64_t)k * eb, 0);
    LLVMValueRef x = LLVMBuildLoad2(e->b, LLVMIntTypeInContext(e->ctx, eb * 8u),
                                    LLVMBuildGEP2(e->b, e->i8, p0, &off, 1, ""), "");
    LLVMSetAlignment(x, eb);
    if (eb < 8)
        x = in->c ? LLVMBuildSExt(e->b, x, e->i64, "") : LLVMBuildZExt(e->b, x, e->i64, "");
    return x;
}

/* The bits of a ld's destination register (in->e of them). */
static uint64_t reg_mask(const ptx_inst *in)
{
    return in->e >= 64 ? ~0ull : (1ull << in->e) - 1u;
}

/* The values a ld reads (vals[k] for each destination, NULL for a sink):
 * when the whole warp runs it at one address (weights, constants), one
 * load broadcast, unless one_done (uniform_ld has taken that case before,
 * so no such block is built); else gathers (of words, for elements under
 * 4 bytes). */
static void load_values(jit_emit *e, const ptx_inst *in, LLVMValueRef ptrs, LLVMValueRef a,
                        LLVMValueRef m, LLVMValueRef mv, bool one_done, LLVMValueRef *vals)
{
    LLVMBuilderRef b = e->b;
    unsigned eb = in->a, n = in->b;
    LLVMValueRef all = LLVMConstInt(e->i32, 0xffffffffu, 0);
    LLVMBasicBlockRef each = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ldeach");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "lddone");
    LLVMBasicBlockRef from[3];
    LLVMValueRef got[3][4]; /* each way's values: one address, then gathers whole and part */
    unsigned nways = 0;
    if (one_done) {
        LLVMBuildBr(b, each);
    } else {
        LLVMValueRef zero = LLVMConstInt(e->i32, 0, 0);
        LLVMValueRef p0 = LLVMBuildExtractElement(b, ptrs, zero, "");
        LLVMValueRef same = LLVMBuildICmp(b, LLVMIntEQ, ptrs, jit_splat_of(e, p0), "");
        if (eb * n < 4) { /* ptrs hold the words' addresses; a's low bits the place in them */
            LLVMValueRef low = LLVMBuildAnd(b, a, jit_splat(e, 64, 3), "");
            LLVMValueRef low0 = LLVMBuildExtractElement(b, low, zero, "");
            same = LLVMBuildAnd(b, same, LLVMBuildICmp(b, LLVMIntEQ, low, jit_splat_of(e, low0), ""), "");
            p0 = LLVMBuildGEP2(b, e->i8, p0, &low0, 1, "");
        }
        LLVMValueRef uni = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, m, all, ""),
                                        LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildBitCast(b, same, e->i32, ""),
                                                      all, ""), "");
        LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ldone");
        LLVMBuildCondBr(b, uni, one, each);
        LLVMPositionBuilderAtEnd(b, one);
        for (unsigned k = 0; k < n; k++)
            if (in->o[1 + k] != UINT32_MAX)
                got[nways][k] = jit_splat_of(e, load_one(e, in, p0, k));
        from[nways++] = LLVMGetInsertBlock(b);
        LLVMBuildBr(b, done);
    }
    /* gathers: a whole warp's by a constant mask, which LLVM makes plain
     * loads where the target has no masked gather (AVX2: a branch a lane) */
    LLVMBasicBlockRef whole = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ldwhole");
    LLVMBasicBlockRef part = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ldpart");
    LLVMPositionBuilderAtEnd(b, each);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, m, all, ""), whole, part);
    LLVMValueRef masks[2] = {LLVMConstAllOnes(e->vmask), mv};
    for (unsigned h = 0; h < 2; h++, nways++) {
        LLVMPositionBuilderAtEnd(b, h ? part : whole);
        LLVMValueRef words[4] = {NULL, NULL, NULL, NULL};
        for (unsigned k = 0; k < n; k++)
            if (in->o[1 + k] != UINT32_MAX)
                got[nways][k] = eb < 4 ? sub_word(e, ptrs, a, masks[h], eb, eb * n, in->c, k, words)
                                       : gather(e, ptrs, masks[h], eb, in->c, k * eb);
        from[nways] = LLVMGetInsertBlock(b);
        LLVMBuildBr(b, done);
    }
    LLVMPositionBuilderAtEnd(b, done);
    for (unsigned k = 0; k < n; k++) {
        if (in->o[1 + k] == UINT32_MAX)
            continue;
        vals[k] = LLVMBuildPhi(b, e->v64, "");
        LLVMValueRef in_v[3];
        for (unsigned w = 0; w < nways; w++)
            in_v[w] = got[w][k];
        LLVMAddIncoming(vals[k], in_v, from, nways);
    }
}

/* The loads of a global or generic ld whose 32 lanes all hold one address
 * (weights, constants: most of an unrolled layer's loads): that address
 * alone checked (as mem_ptrs checks each lane's, against the region the
 * instruction hit last) and read once, the running lanes (mv) given the
 * values: dests' values in uv (as jit_store_slot leaves them; e->rval as
 * it was), the builder left in the block where it is not such a ld.
 * Returns the block that ends with the values (no branch yet). */
static LLVMBasicBlockRef uniform_ld(jit_emit *e, const ptx_inst *in, LLVMValueRef a, LLVMValueRef mv,
                                    const uint32_t *dests, unsigned nd, LLVMValueRef *uv)
{
    LLVMBuilderRef b = e->b;
    unsigned eb = in->a, n = in->b, bytes = eb * n;
    LLVMValueRef a0 = LLVMBuildExtractElement(b, a, LLVMConstInt(e->i32, 0, 0), "");
    LLVMValueRef same = LLVMBuildBitCast(b, LLVMBuildICmp(b, LLVMIntEQ, a, jit_splat_of(e, a0), ""), e->i32, "");
    LLVMValueRef uni = LLVMBuildICmp(b, LLVMIntEQ, same, LLVMConstInt(e->i32, 0xffffffffu, 0), "");
    LLVMBasicBlockRef check = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ldunicheck");
    LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "lduni");
    LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "ldlanes");
    LLVMBuildCondBr(b, uni, check, other);
    LLVMPositionBuilderAtEnd(b, check);
    LLVMValueRef have, rg = hinted_region(e, in, false, &have);
    LLVMValueRef lo = jit_field(e, rg, offsetof(ptx_region_rt, lo), e->i64);
    LLVMValueRef hi = jit_field(e, rg, offsetof(ptx_region_rt, hi), e->i64);
    LLVMValueRef k0 = LLVMConstInt(e->i64, 0, 0);
    LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, a0, LLVMConstInt(e->i64, bytes - 1u, 0), ""), k0, "");
    ok = LLVMBuildAnd(b, ok, have, "");
    ok = LLVMBuildAnd(b, ok, fits(e, a0, lo, hi, LLVMConstInt(e->i64, bytes, 0)), "");
    LLVMBuildCondBr(b, ok, one, other);
    LLVMPositionBuilderAtEnd(b, one);
    LLVMValueRef delta = jit_field(e, rg, offsetof(ptx_region_rt, delta), e->i64);
    LLVMValueRef p0 = LLVMBuildIntToPtr(b, LLVMBuildAdd(b, a0, delta, ""), e->ptr, "");
    LLVMValueRef keep[4];
    uint8_t dirty[4];
    for (unsigned q = 0; q < nd; q++) {
        keep[q] = e->rval[dests[q]];
        dirty[q] = e->rdirty[dests[q]];
    }
    for (unsigned k = 0; k < n; k++) {
        if (in->o[1 + k] == UINT32_MAX)
            continue;
        LLVMValueRef x = LLVMBuildAnd(b, load_one(e, in, p0, k), LLVMConstInt(e->i64, reg_mask(in), 0), "");
        jit_store_slot(e, in->o[1 + k], jit_splat_of(e, x), mv);
    }
    for (unsigned q = 0; q < nd; q++) { /* the other paths start from the values as they were */
        uv[q] = e->rval[dests[q]];
        e->rval[dests[q]] = keep[q];
        e->rdirty[dests[q]] = dirty[q];
    }
    LLVMBasicBlockRef end = LLVMGetInsertBlock(b);
    LLVMPositionBuilderAtEnd(b, other);
    return end;
}

/* ld/st: the lanes' accesses through the helpers when every lane of the
 * mask is in bounds and aligned, else the handler (which faults as the
 * interpreter does); the registers it reads are in memory for it, and the
 * ones it writes are read back after it.  A global or generic ld of one
 * address for the whole warp checks that address alone (uniform_ld). */
bool jit_emit_mem(jit_emit *e, const ptx_inst *in, const ptx_jop *j, LLVMValueRef m,
                     LLVMValueRef mv)
{
    LLVMBuilderRef b = e->b;
    unsigned eb = in->a, n = in->b, bytes = eb * n;
    bool st = j->op == JOP_ST;
    if ((eb != 1 && eb != 2 && eb != 4 && eb != 8) || n < 1 || n > 4 || (bytes & (bytes - 1u)))
        return false;
    if (st && eb < 4) /* x86 has no scatter of bytes: the handler's loop is as quick */
        return false;
    jit_load_slot(e, in->o[0]);
    spill(e, in->o[0]);
    for (unsigned k = 0; k < n; k++)
        if (in->o[1 + k] != UINT32_MAX) {
            jit_load_slot(e, in->o[1 + k]);
            spill(e, in->o[1 + k]);
        }
    uint32_t slots[4]; /* each destination once (a ld's values: its last) */
    unsigned ns = 0;
    for (unsigned k = 0; !st && k < n; k++) {
        uint32_t sl = in->o[1 + k];
        bool seen = sl == UINT32_MAX;
        for (unsigned q = 0; q < ns; q++)
            seen |= slots[q] == sl;
        if (!seen)
            slots[ns++] = sl;
    }
    LLVMValueRef ok;
    LLVMValueRef a = LLVMBuildAdd(b, jit_load_slot(e, in->o[0]), jit_splat_k(e, 64, in->imm), "");
    LLVMValueRef univ[4];
    LLVMBasicBlockRef uni_end = NULL;
    if (!st && (in->d == SP_GLOBAL || in->d == SP_GENERIC))
        uni_end = uniform_ld(e, in, a, mv, slots, ns, univ);
    LLVMValueRef ptrs = mem_ptrs(e, in, a, bytes, st, &ok);
    if (!ptrs)
        return false;
    LLVMValueRef bad = LLVMBuildAnd(b, LLVMBuildNot(b, ok, ""), mv, "");
    bad = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildBitCast(b, bad, e->i32, ""), LLVMConstInt(e->i32, 0, 0), "");
    LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "mem");
    LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "memslow");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(e->ctx, e->fn, "memdone");
    LLVMBuildCondBr(b, bad, slow, fast);
    LLVMPositionBuilderAtEnd(b, fast);
    LLVMValueRef fastv[4], slowv[4];
    uint64_t rmask = reg_mask(in);
    LLVMValueRef vals[4] = {NULL, NULL, NULL, NULL};
    if (st) {
        for (unsigned k = 0; k < n; k++)
            scatter(e, ptrs, jit_load_slot(e, in->o[1 + k]), mv, eb, k * eb);
    } else {
        load_values(e, in, ptrs, a, m, mv, uni_end != NULL, vals);
    }
    for (unsigned k = 0; k < n; k++)
        if (vals[k])
            jit_store_slot(e, in->o[1 + k], LLVMBuildAnd(b, vals[k], jit_splat(e, 64, rmask), ""), mv);
    for (unsigned q = 0; q < ns; q++)
        fastv[q] = e->rval[slots[q]];
    LLVMBasicBlockRef fast_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, slow);
    jit_call_handler(e, in, m);
    for (unsigned q = 0; q < ns; q++) {
        slowv[q] = LLVMBuildLoad2(b, e->v64, jit_slot_ptr(e, slots[q]), "");
        LLVMSetAlignment(slowv[q], 8);
    }
    LLVMBasicBlockRef slow_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, join);
    if (uni_end) {
        LLVMPositionBuilderAtEnd(b, uni_end);
        LLVMBuildBr(b, join);
    }
    LLVMPositionBuilderAtEnd(b, join);
    for (unsigned q = 0; q < ns; q++) {
        LLVMValueRef phi = LLVMBuildPhi(b, e->v64, "");
        LLVMValueRef vals[3] = {fastv[q], slowv[q], uni_end ? univ[q] : NULL};
        LLVMBasicBlockRef from[3] = {fast_end, slow_end, uni_end};
        LLVMAddIncoming(phi, vals, from, uni_end ? 3 : 2);
        e->rval[slots[q]] = phi;
        e->rdirty[slots[q]] = 1;
    }
    return true;
}

#else
typedef int ptx_jit_mem_unused; /* ISO C: a translation unit is not empty */
#endif
