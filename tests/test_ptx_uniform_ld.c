/* test_ptx_uniform_ld: a global or generic ld that the whole warp runs at
 * one address, which the JIT checks and reads once (ptx_jit_mem.c's
 * uniform_ld: most of an unrolled layer's loads, its weights), gives what
 * the interpreter gives, whatever the address: in the region the
 * instruction hit last, in another one (the region hint misses: a loop
 * whose one ld reads two allocations, each twice in turn), a byte, a sign-extended
 * byte, a 64-bit word and a vector of two, under a partial mask, through a
 * generic address into shared memory (no region), and past an
 * allocation's end (the same fault, at thread 0).  Each kernel runs in the
 * interpreter and in the JIT, against values this test computes. */
#include <stdio.h>

#include "ptx_testutil.h"

static const char uni_ptx[] =
    ".version 7.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry uni(.param .u64 pa, .param .u64 pb, .param .u64 pout, .param .u32 pn)\n"
    "{\n"
    "  .reg .pred %p<4>;\n"
    "  .reg .b32 %r<24>;\n"
    "  .reg .b64 %rd<16>;\n"
    "  .shared .align 8 .b8 sh[16];\n"
    "  ld.param.u64 %rd1, [pa];\n"
    "  ld.param.u64 %rd2, [pb];\n"
    "  ld.param.u64 %rd3, [pout];\n"
    "  ld.param.u32 %r1, [pn];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  setp.eq.u32 %p3, %r2, 0;\n"
    "  mov.u32 %r20, 77;\n"
    "  @%p3 st.shared.u32 [sh+4], %r20;\n"
    "  bar.sync 0;\n"
    "  mov.u32 %r3, 0;\n"
    "  mov.u32 %r4, 0;\n"
    "LOOP:\n"
    "  and.b32 %r5, %r3, 2;\n"
    "  setp.eq.u32 %p1, %r5, 0;\n"
    "  selp.b64 %rd4, %rd1, %rd2, %p1;\n"
    "  mul.wide.u32 %rd5, %r3, 4;\n"
    "  add.s64 %rd6, %rd4, %rd5;\n"
    "  ld.global.u32 %r6, [%rd6];\n"
    "  ld.global.s8 %r7, [%rd6+1];\n"
    "  ld.global.u8 %r8, [%rd6+2];\n"
    "  and.b32 %r9, %r3, 3;\n"
    "  mul.wide.u32 %rd7, %r9, 8;\n"
    "  add.s64 %rd8, %rd4, %rd7;\n"
    "  ld.global.u64 %rd9, [%rd8];\n"
    "  ld.global.v2.u32 {%r10, %r11}, [%rd4+16];\n"
    "  add.u32 %r4, %r4, %r6;\n"
    "  add.u32 %r4, %r4, %r7;\n"
    "  add.u32 %r4, %r4, %r8;\n"
    "  cvt.u32.u64 %r12, %rd9;\n"
    "  shr.u64 %rd10, %rd9, 32;\n"
    "  cvt.u32.u64 %r13, %rd10;\n"
    "  xor.b32 %r12, %r12, %r13;\n"
    "  add.u32 %r4, %r4, %r12;\n"
    "  add.u32 %r4, %r4, %r10;\n"
    "  xor.b32 %r4, %r4, %r11;\n"
    "  add.u32 %r3, %r3, 1;\n"
    "  setp.lt.u32 %p2, %r3, %r1;\n"
    "  @%p2 bra LOOP;\n"
    "  mov.u32 %r14, 0;\n"
    "  setp.lt.u32 %p3, %r2, 16;\n"
    "  @%p3 ld.global.u32 %r14, [%rd1+8];\n"
    "  mov.u64 %rd11, sh;\n"
    "  cvta.shared.u64 %rd12, %rd11;\n"
    "  ld.u32 %r15, [%rd12+4];\n"
    "  mul.wide.u32 %rd13, %r2, 4;\n"
    "  add.s64 %rd14, %rd2, %rd13;\n"
    "  ld.global.u32 %r16, [%rd14];\n"
    "  add.u32 %r4, %r4, %r14;\n"
    "  add.u32 %r4, %r4, %r15;\n"
    "  mad.lo.u32 %r4, %r16, 3, %r4;\n"
    "  add.s64 %rd15, %rd3, %rd13;\n"
    "  st.global.u32 [%rd15], %r4;\n"
    "  ret;\n"
    "}\n"
    ".visible .entry unifault(.param .u64 pa, .param .u64 poff0, .param .u64 poff1)\n"
    "{\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .b32 %r<3>;\n"
    "  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [pa];\n"
    "  ld.param.u64 %rd2, [poff0];\n"
    "  ld.param.u64 %rd3, [poff1];\n"
    "  mov.u32 %r2, 0;\n"
    "AGAIN:\n"
    "  setp.eq.u32 %p1, %r2, 0;\n"
    "  selp.b64 %rd4, %rd2, %rd3, %p1;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n"
    "  ld.global.u32 %r1, [%rd5];\n"
    "  add.u32 %r2, %r2, 1;\n"
    "  setp.lt.u32 %p2, %r2, 2;\n"
    "  @%p2 bra AGAIN;\n"
    "  st.global.u32 [%rd1], %r1;\n"
    "  ret;\n"
    "}\n";

enum { WORDS = 64, ITERS = 10 };

/* What uni leaves in out[t], computed here as the kernel says. */
static uint32_t uni_want(const uint32_t *A, const uint32_t *B, uint32_t t)
{
    uint32_t acc = 0;
    for (uint32_t i = 0; i < ITERS; i++) {
        const uint32_t *base = i & 2 ? B : A;
        uint32_t w = base[i];
        int8_t s8 = (int8_t)(w >> 8);
        uint64_t d;
        memcpy(&d, (const uint8_t *)base + 8 * (i % 4), 8);
        acc += w;
        acc += (uint32_t)(int32_t)s8;
        acc += (w >> 16) & 0xffu;
        acc += (uint32_t)d ^ (uint32_t)(d >> 32);
        acc += base[4];
        acc ^= base[5];
    }
    acc += t < 16 ? A[2] : 0;
    acc += 77;
    return acc + 3 * B[t];
}

static void check_uni(const vkrr_ptx_module *m, vkrr_ptx_engine engine, const char *name)
{
    static uint64_t a64[WORDS / 2], b64[WORDS / 2]; /* 8-aligned */
    uint32_t *A = (uint32_t *)(void *)a64, *B = (uint32_t *)(void *)b64, out[32];
    for (uint32_t i = 0; i < WORDS; i++) {
        A[i] = 0x9e3779b9u * (i + 1u);
        B[i] = 0x85ebca6bu * (i + 7u);
    }
    memset(out, 0, sizeof out);
    ptxt_args a = {0};
    ptxt_ptr(&a, A, WORDS * 4);
    ptxt_ptr(&a, B, WORDS * 4);
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, ITERS);
    vkrr_error err = {0};
    vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = a.bytes, .params_bytes = a.n,
                         .regions = a.regions, .nregions = a.nregions, .threads = 1, .engine = engine};
    for (unsigned run = 0; run < 2; run++) { /* the second launch starts from no region hint too */
        if (!CHECK(vkrr_ptx_run(m, "uni", &l, &err) == VKRR_OK)) {
            vkrr_error_print(&err, stderr);
            return;
        }
        unsigned bad = 0;
        for (uint32_t t = 0; t < 32; t++)
            if (out[t] != uni_want(A, B, t) && bad++ < 4)
                fprintf(stderr, "  %s: uni thread %u: 0x%08x, want 0x%08x\n", name, t, out[t], uni_want(A, B, t));
        CHECK_EQ_U64(bad, 0);
    }
}

/* unifault: every thread reads the allocation (size bytes) at off0, then,
 * with the instruction's region hint on it, at off1, which must fault;
 * the engines' messages must be the same, the interpreter's hold want. */
static void check_fault(const vkrr_ptx_module *m, uint32_t size, uint64_t off1, const char *want)
{
    static uint32_t A[WORDS];
    char msg[2][sizeof ((vkrr_error *)0)->msg];
    const vkrr_ptx_engine engines[2] = {VKRR_PTX_ENGINE_INTERP, VKRR_PTX_ENGINE_JIT};
    for (unsigned k = 0; k < 2; k++) {
        ptxt_args a = {0};
        ptxt_ptr(&a, A, size);
        ptxt_u64(&a, 0);
        ptxt_u64(&a, off1);
        vkrr_error err = {0};
        vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .params = a.bytes, .params_bytes = a.n,
                             .regions = a.regions, .nregions = a.nregions, .threads = 1, .engine = engines[k]};
        CHECK(vkrr_ptx_run(m, "unifault", &l, &err) == VKRR_ERR_FAULT);
        snprintf(msg[k], sizeof msg[k], "%s", err.msg);
    }
    if (!CHECK(strstr(msg[0], want) && strstr(msg[0], "thread (0,0,0)")))
        fprintf(stderr, "want '%s' in: %s\n", want, msg[0]);
    if (!CHECK(!strcmp(msg[0], msg[1])))
        fprintf(stderr, "interp: %s\njit:    %s\n", msg[0], msg[1]);
}

int main(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, uni_ptx, sizeof uni_ptx - 1, "uni.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return test_finish("ptx_uniform_ld");
    }
    check_uni(m, VKRR_PTX_ENGINE_INTERP, "interp");
    check_uni(m, VKRR_PTX_ENGINE_JIT, "jit");
    check_fault(m, sizeof(uint32_t) * WORDS, sizeof(uint32_t) * WORDS + 64, "64 bytes past the end");
    check_fault(m, sizeof(uint32_t) * WORDS - 2, sizeof(uint32_t) * WORDS - 4, "runs 2 bytes past the end");
    check_fault(m, sizeof(uint32_t) * WORDS, 2, "misaligned");
    vkrr_ptx_module_free(m);
    return test_finish("ptx_uniform_ld");
}
