/* ptx_jit_shape.c - a function's IR as a string of numbers, for finding
 * runs of one shape (ptx_jit_emit.c's share_run): two functions of one
 * LLVM context with the same string are the same code.  Printing the IR
 * and comparing the text says the same, but took most of an 80k-instruction
 * kernel's compile (LLVM's printer formats every element of every constant
 * vector); this walks the instructions once.
 *
 * The string holds, for each block in order and each instruction in it:
 * its opcode, its type and operand count, each operand (an instruction or
 * block of the function by its number, a parameter by its index, anything
 * else, constants, intrinsics and types being unique in their context, by
 * its address), and what the operands leave out (compare predicates,
 * alignment, volatility and ordering of loads and stores, a GEP's element
 * type and inbounds, a shuffle's mask, a phi's blocks, a call's function
 * type).  An opcode the JIT does not emit makes the function unshareable:
 * false. */
#ifdef VKRR_PTX_JIT_LLVM

#include <stdlib.h>

#include "ptx_jit_emit.h"

typedef struct shape_buf {
    uint64_t *v;
    uint32_t n, cap;
    bool nomem;
} shape_buf;

static void put(shape_buf *b, uint64_t x)
{
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? 2u * b->cap : 1024u;
        uint64_t *nv = realloc(b->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            b->nomem = true;
            return;
        }
        b->v = nv;
        b->cap = cap;
    }
    b->v[b->n++] = x;
}

/* The function's instructions and blocks, numbered: an open-addressing map
 * from the value's address to 1 + its number. */
typedef struct value_ids {
    const void **key;
    uint32_t *id, cap;
} value_ids;

static uint32_t slot_of(const value_ids *m, const void *p)
{
    uint32_t k = (uint32_t)(((uintptr_t)p >> 4) * 2654435761u) & (m->cap - 1u);
    while (m->key[k] && m->key[k] != p)
        k = (k + 1u) & (m->cap - 1u);
    return k;
}

static uint64_t id_of(const value_ids *m, const void *p)
{
    uint32_t k = slot_of(m, p);
    return m->key[k] ? m->id[k] : 0;
}

static bool known_opcode(LLVMOpcode op)
{
    switch (op) {
    case LLVMRet: case LLVMBr: case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMFAdd:
    case LLVMFSub: case LLVMFMul: case LLVMFDiv: case LLVMUDiv: case LLVMSDiv: case LLVMURem:
    case LLVMSRem: case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr:
    case LLVMXor: case LLVMFNeg: case LLVMAlloca: case LLVMLoad: case LLVMStore:
    case LLVMGetElementPtr: case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPToUI:
    case LLVMFPToSI: case LLVMUIToFP: case LLVMSIToFP: case LLVMFPTrunc: case LLVMFPExt:
    case LLVMPtrToInt: case LLVMIntToPtr: case LLVMBitCast: case LLVMICmp: case LLVMFCmp:
    case LLVMPHI: case LLVMCall: case LLVMSelect: case LLVMExtractElement:
    case LLVMInsertElement: case LLVMShuffleVector: case LLVMUnreachable:
        return true;
    default:
        return false;
    }
}

bool ptx_jit_shape_of(LLVMValueRef fn, uint64_t **tok, uint32_t *ntok)
{
    uint32_t count = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
        count++;
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in))
            count++;
    }
    value_ids m = {0};
    for (m.cap = 16; m.cap < 2u * count; m.cap *= 2)
        ;
    m.key = calloc(m.cap, sizeof *m.key);
    m.id = calloc(m.cap, sizeof *m.id);
    shape_buf b = {0};
    bool ok = m.key && m.id;
    uint32_t next = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); ok && bb; bb = LLVMGetNextBasicBlock(bb)) {
        uint32_t k = slot_of(&m, bb);
        m.key[k] = bb;
        m.id[k] = ++next;
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            k = slot_of(&m, in);
            m.key[k] = in;
            m.id[k] = ++next;
        }
    }
    unsigned nparams = LLVMCountParams(fn);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); ok && bb; bb = LLVMGetNextBasicBlock(bb)) {
        put(&b, 0xb10cb10cull);
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); ok && in; in = LLVMGetNextInstruction(in)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(in);
            if (!known_opcode(op)) {
                ok = false;
                break;
            }
            int nops = LLVMGetNumOperands(in);
            put(&b, (uint64_t)op << 32 | (uint32_t)nops);
            put(&b, (uint64_t)(uintptr_t)LLVMTypeOf(in));
            for (int i = 0; i < nops; i++) {
                LLVMValueRef o = LLVMGetOperand(in, (unsigned)i);
                uint64_t id = o ? id_of(&m, LLVMValueIsBasicBlock(o) ? (const void *)LLVMValueAsBasicBlock(o)
                                                                    : (const void *)o)
                                : 0;
                if (id) { /* an instruction or block of this function */
                    put(&b, 1);
                    put(&b, id);
                    continue;
                }
                unsigned p = nparams;
                for (unsigned q = 0; o && q < nparams; q++)
                    if (LLVMGetParam(fn, q) == o)
                        p = q;
                put(&b, p < nparams ? 2 : 3);
                put(&b, p < nparams ? p : (uint64_t)(uintptr_t)o); /* a constant, unique in its context */
            }
            switch (op) {
            case LLVMICmp: put(&b, (uint64_t)LLVMGetICmpPredicate(in)); break;
            case LLVMFCmp: put(&b, (uint64_t)LLVMGetFCmpPredicate(in)); break;
            case LLVMLoad: case LLVMStore:
                put(&b, (uint64_t)LLVMGetAlignment(in) << 16 | (uint64_t)LLVMGetVolatile(in) << 8 |
                            (uint64_t)LLVMGetOrdering(in));
                break;
            case LLVMAlloca:
                put(&b, (uint64_t)(uintptr_t)LLVMGetAllocatedType(in));
                put(&b, LLVMGetAlignment(in));
                break;
            case LLVMGetElementPtr:
                put(&b, (uint64_t)(uintptr_t)LLVMGetGEPSourceElementType(in));
                put(&b, (uint64_t)LLVMIsInBounds(in));
                break;
            case LLVMShuffleVector: {
                unsigned n = LLVMGetNumMaskElements(in);
                put(&b, n);
                for (unsigned i = 0; i < n; i++)
                    put(&b, (uint64_t)(int64_t)LLVMGetMaskValue(in, i));
                break;
            }
            case LLVMPHI: {
                unsigned n = LLVMCountIncoming(in);
                for (unsigned i = 0; i < n; i++)
                    put(&b, id_of(&m, LLVMGetIncomingBlock(in, i)));
                break;
            }
            case LLVMCall:
                put(&b, (uint64_t)(uintptr_t)LLVMGetCalledFunctionType(in));
                put(&b, (uint64_t)LLVMGetInstructionCallConv(in) << 1 | (uint64_t)LLVMIsTailCall(in));
                break;
            default:
                break;
            }
        }
    }
    free(m.key);
    free(m.id);
    if (!ok || b.nomem) {
        free(b.v);
        return false;
    }
    *tok = b.v;
    *ntok = b.n;
    return true;
}

#else
typedef int ptx_jit_shape_unused; /* ISO C: a translation unit is not empty */
#endif
