// int_ops.cu - integer and bit instructions for the PTX interpreter's tests
// (tests/test_ptx_int.c computes every expected value on its own).  Inline
// PTX pins the instruction under test; thread i reads a[i], b[i], c[i] and
// writes INT_NOUT words at out[i * INT_NOUT].
#include <stdint.h>

#define INT_NOUT 48

#define ASM2(op, d, a) asm(op " %0, %1;" : "=r"(d) : "r"(a))
#define ASM3(op, d, a, b) asm(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define ASM4(op, d, a, b, c) asm(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))

extern "C" __global__ void k_int(const uint32_t *A, const uint32_t *B, const uint32_t *C,
                                 uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t a = A[i], b = B[i], c = C[i], r;
    uint32_t *o = out + (size_t)i * INT_NOUT;
    ASM4("prmt.b32", r, a, b, c); o[0] = r;
    ASM4("prmt.b32.f4e", r, a, b, c); o[1] = r;
    ASM4("prmt.b32.b4e", r, a, b, c); o[2] = r;
    ASM4("prmt.b32.rc8", r, a, b, c); o[3] = r;
    ASM4("prmt.b32.ecl", r, a, b, c); o[4] = r;
    ASM4("prmt.b32.ecr", r, a, b, c); o[5] = r;
    ASM4("prmt.b32.rc16", r, a, b, c); o[6] = r;
    uint32_t pos = b & 0x3f, len = c & 0x3f;
    ASM4("bfe.u32", r, a, pos, len); o[7] = r;
    ASM4("bfe.s32", r, a, pos, len); o[8] = r;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(pos), "r"(len)); o[9] = r;
    ASM2("brev.b32", r, a); o[10] = r;
    ASM2("popc.b32", r, a); o[11] = r;
    ASM2("clz.b32", r, a); o[12] = r;
    ASM2("bfind.u32", r, a); o[13] = r;
    ASM2("bfind.s32", r, a); o[14] = r;
    ASM2("bfind.shiftamt.u32", r, a); o[15] = r;
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[16] = r;
    asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[17] = r;
    asm("lop3.b32 %0, %1, %2, %3, 0x1d;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[18] = r;
    ASM4("shf.l.clamp.b32", r, a, b, c & 63); o[19] = r;
    ASM4("shf.l.wrap.b32", r, a, b, c & 63); o[20] = r;
    ASM4("shf.r.clamp.b32", r, a, b, c & 63); o[21] = r;
    ASM4("shf.r.wrap.b32", r, a, b, c & 63); o[22] = r;
    ASM4("dp4a.u32.u32", r, a, b, c); o[23] = r;
    ASM4("dp4a.s32.s32", r, a, b, c); o[24] = r;
    ASM4("dp4a.s32.u32", r, a, b, c); o[25] = r;
    ASM4("dp2a.lo.s32.s32", r, a, b, c); o[26] = r;
    ASM4("dp2a.hi.u32.u32", r, a, b, c); o[27] = r;
    ASM3("mul.hi.s32", r, a, b); o[28] = r;
    ASM3("mul.hi.u32", r, a, b); o[29] = r;
    ASM4("mad.lo.u32", r, a, b, c); o[30] = r;
    ASM4("mad.hi.s32", r, a, b, c); o[31] = r;
    ASM4("sad.s32", r, a, b, c); o[32] = r;
    ASM3("div.u32", r, a, (b & 0xff) | 1); o[33] = r;
    ASM3("rem.s32", r, a, (b & 0xff) | 1); o[34] = r;
    ASM3("div.s32", r, a, ((b & 0xff) | 1) - 128); o[35] = r;
    ASM3("min.s32", r, a, b); o[36] = r;
    ASM3("max.u32", r, a, b); o[37] = r;
    ASM2("abs.s32", r, a); o[38] = r;
    ASM3("shl.b32", r, a, c & 63); o[39] = r;
    ASM3("shr.s32", r, a, c & 63); o[40] = r;
    ASM3("shr.u32", r, a, c & 63); o[41] = r;
    ASM3("mul24.lo.s32", r, a, b); o[42] = r;
    ASM3("mul24.hi.u32", r, a, b); o[43] = r;
    ASM3("add.sat.s32", r, a, b); o[44] = r;
    ASM3("sub.sat.s32", r, a, b); o[45] = r;
    /* a 64-bit add through the carry chain, and a 64x64 low/high product */
    uint32_t lo, hi;
    asm("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, %4, %5;"
        : "=r"(lo), "=r"(hi) : "r"(a), "r"(c), "r"(b), "r"(a));
    o[46] = lo ^ (hi * 0x9e3779b9u);
    uint64_t wide;
    asm("mul.wide.s32 %0, %1, %2;" : "=l"(wide) : "r"(a), "r"(b));
    o[47] = (uint32_t)(wide >> 17) ^ (uint32_t)wide;
}

// 64-bit forms: thread i writes 8 words.
extern "C" __global__ void k_int64(const uint64_t *A, const uint64_t *B, uint64_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t a = A[i], b = B[i], r;
    uint64_t *o = out + (size_t)i * 8;
    asm("mul.hi.u64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b)); o[0] = r;
    asm("mul.hi.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b)); o[1] = r;
    asm("brev.b64 %0, %1;" : "=l"(r) : "l"(a)); o[2] = r;
    uint32_t p;
    asm("popc.b64 %0, %1;" : "=r"(p) : "l"(a)); o[3] = p;
    asm("clz.b64 %0, %1;" : "=r"(p) : "l"(a)); o[4] = p;
    asm("bfe.s64 %0, %1, %2, %3;" : "=l"(r) : "l"(a), "r"((uint32_t)b & 127), "r"((uint32_t)(b >> 8) & 127)); o[5] = r;
    asm("div.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"((b % 1000) | 1)); o[6] = r;
    asm("shr.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "r"((uint32_t)b & 127)); o[7] = r;
}
