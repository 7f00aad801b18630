/* test_ptx_params: vkrr_ptx_param_uses (cuda_ref/ptx/ptx_params.h) on
 * hand-written PTX with each thing a kernel does to its parameters: a
 * struct passed by value (fields read at [param+8], ...), a pointer read as
 * f32 through a loop that advances it, one written with a conversion to
 * e4m3x2 behind a widening cvt, a texture handle, a register reused for
 * another parameter's pointer, a .b16 store that names no format, a field
 * and a parameter never read; then on nvcc's PTX of rrref (checked in). */
#include <string.h>

#include "ptx.h"
#include "ptx_params.h"
#include "testutil.h"

static const char ptx[] =
    ".version 7.8\n"
    ".target sm_89\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry k(\n"
    "\t.param .align 8 .b8 k_param_0[40],\n"
    "\t.param .u64 k_param_1,\n"
    "\t.param .u32 k_param_2\n"
    ")\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b16 %rs<4>;\n"
    "\t.reg .b32 %r<8>;\n"
    "\t.reg .f32 %f<8>;\n"
    "\t.reg .b64 %rd<16>;\n"
    "\n"
    "\tld.param.u64 %rd1, [k_param_0];\n"
    "\tld.param.u64 %rd2, [k_param_0+8];\n"
    "\tld.param.u64 %rd3, [k_param_0+16];\n"
    "\tld.param.u32 %r1, [k_param_0+24];\n"
    "\tld.param.u64 %rd4, [k_param_1];\n"
    "\tcvta.to.global.u64 %rd5, %rd1;\n"
    "\tcvta.to.global.u64 %rd6, %rd2;\n"
    "\tmov.u32 %r2, %tid.x;\n"
    "\tmul.wide.u32 %rd7, %r2, 4;\n"
    "\tadd.s64 %rd8, %rd5, %rd7;\n"
    "\tld.global.f32 %f1, [%rd8];\n"
    "\ttex.2d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [%rd3, {%f1, %f1}];\n"
    "\tcvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;\n"
    "\tcvt.u32.u16 %r4, %rs1;\n"
    "\tmul.wide.u32 %rd9, %r2, 2;\n"
    "\tadd.s64 %rd10, %rd6, %rd9;\n"
    "\tst.global.u8 [%rd10], %r4;\n"
    "\tmov.u64 %rd11, %rd5;\n"
    "\tmov.u32 %r3, 0;\n"
    "$L_loop:\n"
    "\tld.global.f32 %f6, [%rd11];\n"
    "\tadd.s64 %rd11, %rd11, 4;\n"
    "\tadd.s32 %r3, %r3, 1;\n"
    "\tsetp.lt.u32 %p1, %r3, %r1;\n"
    "\t@%p1 bra $L_loop;\n"
    "\tcvta.to.global.u64 %rd8, %rd4;\n"
    "\tmov.b16 %rs2, 15360;\n"
    "\tst.global.b16 [%rd8], %rs2;\n"
    "\tret;\n"
    "}\n";

static const vkrr_ptx_param_use *at(const vkrr_ptx_param_use *u, uint32_t n, uint32_t off)
{
    for (uint32_t i = 0; i < n; i++)
        if (u[i].offset == off)
            return &u[i];
    return NULL;
}

static void test_handwritten(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, ptx, strlen(ptx), "k.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    vkrr_ptx_param_use u[16];
    uint32_t n = 0;
    CHECK(vkrr_ptx_param_uses(m, "k", u, 16, &n, &err) == VKRR_OK);
    CHECK_EQ_U64(n, 6); /* five words read, one parameter never read */
    const vkrr_ptx_param_use *in = at(u, n, 0), *out = at(u, n, 8), *tex = at(u, n, 16),
                             *cnt = at(u, n, 24), *raw = at(u, n, 40), *unused = at(u, n, 48);
    if (!CHECK(in && out && tex && cnt && raw && unused))
        goto done;
    /* read as f32, twice (the direct load and the loop's, through an advanced copy) */
    CHECK(in->used && in->address && in->load.count == 2 && !in->store.count);
    CHECK(!strcmp(in->load.elem, "f32") && !strcmp(in->load.op, "ld.global.f32"));
    /* the e4m3x2 conversion found behind the widening cvt.u32.u16 */
    CHECK(out->address && out->store.count == 1 && !out->load.count);
    CHECK(!strcmp(out->store.elem, "u8") && !strcmp(out->store.cvt, "cvt.rn.satfinite.e4m3x2.f32"));
    CHECK(!tex->address && tex->texture && !tex->surface && !strcmp(tex->image_op, "tex.2d.v4.f32.f32"));
    CHECK(cnt->used && !cnt->address && cnt->size == 4);
    /* %rd8 reused: the .b16 store is param_1's, not param_0's */
    CHECK(raw->address && raw->store.count == 1 && !strcmp(raw->store.elem, "b16") && !raw->store.cvt[0]);
    CHECK(!unused->used && !unused->address && unused->size == 4);
    CHECK(vkrr_ptx_param_uses(m, "nope", u, 16, &n, &err) == VKRR_ERR_MISSING);
done:
    vkrr_ptx_module_free(m);
}

/* nvcc's PTX: rrref's kernels take their parameters as one struct */
static void test_rrref(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load_file(&m, VKRR_SOURCE_DIR "/tests/ptx/checked_in/rrref/rrref_conv.ptx",
                                         &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    vkrr_ptx_param_use u[32];
    uint32_t n = 0;
    CHECK(vkrr_ptx_param_uses(m, "cuda_dldn_rrref_enc0_kernel", u, 32, &n, &err) == VKRR_OK);
    const vkrr_ptx_param_use *in = at(u, n, 0), *out = at(u, n, 16), *w = at(u, n, 40);
    if (CHECK(in && out && w)) {
        CHECK(in->address && in->load.count && !in->store.count && !strcmp(in->load.elem, "u16") &&
              !strcmp(in->load.cvt, "cvt.f32.f16"));
        CHECK(out->address && out->store.count && !out->load.count &&
              !strcmp(out->store.cvt, "cvt.rn.f16.f32"));
        CHECK(w->address && w->load.count && !strcmp(w->load.elem, "u8"));
    }
    vkrr_ptx_module_free(m);
}

int main(void)
{
    test_handwritten();
    test_rrref();
    return test_finish("ptx_params");
}
