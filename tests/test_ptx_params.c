/* test_ptx_params: vkrr_ptx_param_uses (cuda_ref/ptx/ptx_params.h) on
 * hand-written PTX with each thing a kernel does to its parameters: a
 * struct passed by value (fields read at [param+8], ...), a pointer read as
 * f32 through a loop that advances it, one written with a conversion to
 * e4m3x2 behind a widening cvt, a texture handle, a register reused for
 * another parameter's pointer, a .b16 store that names no format, a field
 * and a parameter never read; then on nvcc's PTX of rrref (checked in).
 * And vkrr_ptx_texture_may_filter: a handle read only at .s32 coordinates
 * (directly, or through a struct parameter's address in a register, as nvcc
 * writes it) is never filtered; one read at .f32 coordinates too, a tex
 * through a handle not traced to a parameter, a call to a function that
 * samples at .f32, a handle only gathered (tld4) or never read, and no such
 * entry all leave it possible; rrref's attention block reads its texture
 * unfiltered, its output kernel filters the history. */
#include <stdio.h>
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
    CHECK(tex->tex_float == 1 && !tex->tex_int);
    CHECK(vkrr_ptx_texture_may_filter(m, "k", 16));
    CHECK(cnt->used && !cnt->address && cnt->size == 4);
    /* %rd8 reused: the .b16 store is param_1's, not param_0's */
    CHECK(raw->address && raw->store.count == 1 && !strcmp(raw->store.elem, "b16") && !raw->store.cvt[0]);
    CHECK(!unused->used && !unused->address && unused->size == 4);
    CHECK(vkrr_ptx_param_uses(m, "nope", u, 16, &n, &err) == VKRR_ERR_MISSING);
done:
    vkrr_ptx_module_free(m);
}

/* Kernels reading textures at integer (.s32) and float coordinates. */
static const char tex_ptx[] =
    ".version 7.8\n"
    ".target sm_89\n"
    ".address_size 64\n"
    "\n"
    ".func g(.param .b64 g_param_0)\n"
    "{\n"
    "\t.reg .f32 %f<8>;\n"
    "\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [g_param_0];\n"
    "\tmov.f32 %f5, 0f3F000000;\n"
    "\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5}];\n"
    "\tret;\n"
    "}\n"
    "\n"
    /* ints: param_0 a struct whose field 0 is a handle, read through its
     * address in a register (nvcc's form), field 8 never a texture; param_1
     * a handle read directly, twice, all at .s32 */
    ".visible .entry ints(\n"
    "\t.param .align 8 .b8 ints_param_0[48],\n"
    "\t.param .u64 ints_param_1\n"
    ")\n"
    "{\n"
    "\t.reg .b32 %r<4>;\n"
    "\t.reg .f32 %f<16>;\n"
    "\t.reg .b64 %rd<8>;\n"
    "\tmov.b64 %rd1, ints_param_0;\n"
    "\tadd.s64 %rd2, %rd1, 40;\n"
    "\tld.param.u64 %rd3, [%rd2+-40];\n"
    "\tld.param.u64 %rd4, [%rd2+-32];\n"
    "\tld.param.u64 %rd5, [ints_param_1];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmov.u32 %r2, %tid.y;\n"
    "\ttex.base.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd3, {%r1, %r2}];\n"
    "\ttex.2d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd5, {%r1, %r2}];\n"
    "\ttex.2d.v4.f32.s32 {%f9, %f10, %f11, %f12}, [%rd5, {%r2, %r1}];\n"
    "\tcvta.to.global.u64 %rd6, %rd4;\n"
    "\tst.global.f32 [%rd6], %f1;\n"
    "\tret;\n"
    "}\n"
    "\n"
    /* mixed: one handle read at .s32 and at .f32 */
    ".visible .entry mixed(.param .u64 mixed_param_0)\n"
    "{\n"
    "\t.reg .b32 %r<4>;\n"
    "\t.reg .f32 %f<16>;\n"
    "\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [mixed_param_0];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tcvt.rn.f32.u32 %f9, %r1;\n"
    "\ttex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r1}];\n"
    "\ttex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f9, %f9}];\n"
    "\tret;\n"
    "}\n"
    "\n"
    /* lost: param_0 read at .s32, and a handle loaded from memory at .f32 */
    ".visible .entry lost(.param .u64 lost_param_0, .param .u64 lost_param_1)\n"
    "{\n"
    "\t.reg .b32 %r<4>;\n"
    "\t.reg .f32 %f<16>;\n"
    "\t.reg .b64 %rd<8>;\n"
    "\tld.param.u64 %rd1, [lost_param_0];\n"
    "\tld.param.u64 %rd2, [lost_param_1];\n"
    "\tcvta.to.global.u64 %rd3, %rd2;\n"
    "\tld.global.u64 %rd4, [%rd3];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmov.f32 %f9, 0f3F000000;\n"
    "\ttex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r1}];\n"
    "\ttex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd4, {%f9, %f9}];\n"
    "\tret;\n"
    "}\n"
    "\n"
    /* caller: param_0 read at .s32 here, and passed to g, which samples */
    ".visible .entry caller(.param .u64 caller_param_0)\n"
    "{\n"
    "\t.reg .b32 %r<4>;\n"
    "\t.reg .f32 %f<8>;\n"
    "\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [caller_param_0];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\ttex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r1}];\n"
    "\t{\n"
    "\t.param .b64 param0;\n"
    "\tst.param.b64 [param0+0], %rd1;\n"
    "\tcall.uni g, (param0);\n"
    "\t}\n"
    "\tret;\n"
    "}\n"
    "\n"
    /* gather: param_0 only gathered */
    ".visible .entry gather(.param .u64 gather_param_0)\n"
    "{\n"
    "\t.reg .f32 %f<8>;\n"
    "\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [gather_param_0];\n"
    "\tmov.f32 %f5, 0f3F000000;\n"
    "\ttld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5}];\n"
    "\tret;\n"
    "}\n";

static void test_may_filter(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, tex_ptx, strlen(tex_ptx), "tex.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static const char *const entries[] = {"ints", "mixed", "lost", "caller", "gather"};
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) /* no answer for want of a parse */
        if (!CHECK(vkrr_ptx_entry_status(m, entries[i], &err) == VKRR_OK))
            vkrr_error_print(&err, stderr);
    vkrr_ptx_param_use u[16];
    uint32_t n = 0;
    CHECK(vkrr_ptx_param_uses(m, "ints", u, 16, &n, &err) == VKRR_OK);
    const vkrr_ptx_param_use *h0 = at(u, n, 0), *p8 = at(u, n, 8), *h1 = at(u, n, 48);
    if (CHECK(h0 && p8 && h1)) {
        CHECK(h0->texture && h0->tex_int == 1 && !h0->tex_float);
        CHECK(p8->address && p8->store.count == 1 && !p8->texture); /* the field's pointer, traced */
        CHECK(h1->texture && h1->tex_int == 2 && !h1->tex_float);
    }
    CHECK(!vkrr_ptx_texture_may_filter(m, "ints", 0));
    CHECK(!vkrr_ptx_texture_may_filter(m, "ints", 48));
    CHECK(vkrr_ptx_texture_may_filter(m, "ints", 8));  /* no tex takes it */
    CHECK(vkrr_ptx_texture_may_filter(m, "ints", 16)); /* nor a word never read */
    CHECK(vkrr_ptx_texture_may_filter(m, "mixed", 0));
    CHECK(vkrr_ptx_texture_may_filter(m, "lost", 0));
    CHECK(vkrr_ptx_texture_may_filter(m, "caller", 0));
    CHECK(vkrr_ptx_texture_may_filter(m, "gather", 0));
    CHECK(vkrr_ptx_texture_may_filter(m, "nope", 0));
    vkrr_ptx_module_free(m);
}

/* rrref's attention block reads its LINEAR, normalized texture with
 * tex.base.2d.v4.f32.s32 only (docs/rrref-attention.md); the output kernel
 * samples the history (arg24) bilinearly, at f32 coordinates. */
static void test_rrref_textures(void)
{
    static const struct {
        const char *file, *kernel;
        uint32_t offset;
        bool may;
    } cases[] = {
        {"rrref_attn.ptx", "cuda_dldn_rrref_attn0_kernel", 0, false},
        {"rrref_output.ptx", "cuda_dldn_rrref_output_kernel", 24, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/ptx/checked_in/rrref/%s", VKRR_SOURCE_DIR, cases[i].file);
        vkrr_ptx_module *m = NULL;
        vkrr_error err = {0};
        if (!CHECK(vkrr_ptx_module_load_file(&m, path, &err) == VKRR_OK)) {
            vkrr_error_print(&err, stderr);
            continue;
        }
        if (!CHECK(vkrr_ptx_texture_may_filter(m, cases[i].kernel, cases[i].offset) == cases[i].may))
            fprintf(stderr, "  %s arg%u\n", cases[i].kernel, cases[i].offset);
        /* traced to its parameter either way: the answer is not for want of it */
        vkrr_ptx_param_use u[64];
        uint32_t n = 0;
        CHECK(vkrr_ptx_param_uses(m, cases[i].kernel, u, 64, &n, &err) == VKRR_OK);
        const vkrr_ptx_param_use *h = at(u, n < 64 ? n : 64, cases[i].offset);
        CHECK(h && h->texture && (cases[i].may ? h->tex_float > 0 : h->tex_int > 0 && !h->tex_float));
        vkrr_ptx_module_free(m);
    }
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
    test_may_filter();
    test_rrref_textures();
    return test_finish("ptx_params");
}
