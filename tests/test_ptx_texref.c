/* test_ptx_texref: the PTX ISA's opaque types (.texref, .samplerref,
 * .surfref) as kernel parameters and module variables, and independent
 * texture/sampler mode (tex [t, s, {c}]), as LLVM's NVPTX back end emits them
 * for OpenCL images and samplers (.target texmode_independent).  PTX text here; expected texels worked out
 * from the definitions: a 4x4 f32 array whose texel (i, j) holds 10 j + i + 1,
 * sampled at texel centres (nearest, or linear with zero weights), so every
 * value is exact.  ptxas accepts this text.
 *   - kernel parameters: a .texref sampled through a .samplerref parameter
 *     (a texture object whose sampler is unnormalized, nearest, clamp), txq
 *     of the .texref, sust/suld through a .surfref;
 *   - a .samplerref module variable with an initializer overrides the
 *     texture's own sampler (force_unnormalized_coords, clamp_to_edge on x,
 *     clamp_to_border on y, nearest), also through its address in a register
 *     (mov.u64); txq reads the sampler's members (without a sampler operand
 *     the texture's own state applies: every other texture test);
 *   - a .texref or .surfref module variable (bound by the host, which captures
 *     do not record) is VKRR_ERR_UNSUPPORTED naming it when a kernel uses it, while
 *     the module's other kernels run; a sampler with clamp_ogl likewise; a
 *     .samplerref used as a texture faults; an unknown initializer member is
 *     a load error naming its line;
 *   - `vkrr port new`'s reading of the parameters (ptx_params.h) sees the
 *     named .texref, .samplerref and .surfref parameters as handles. */
#include "cuda_texture.h"
#include "ptx_params.h"
#include "ptx_testutil.h"

static const char module_ptx[] =
    ".version 8.0\n"
    ".target sm_80, texmode_independent\n"
    ".address_size 64\n"
    ".global .samplerref smpc = { addr_mode_0 = clamp_to_edge, addr_mode_1 = clamp_to_border,\n"
    "                             filter_mode = nearest, force_unnormalized_coords = 1 };\n"
    ".global .samplerref sogl = { addr_mode_0 = clamp_ogl, filter_mode = linear };\n"
    ".global .texref tref;\n"
    ".global .surfref sref;\n"
    ".visible .entry k_params(.param .texref img, .param .samplerref smp, .param .surfref sf,\n"
    "                         .param .u64 res)\n"
    "{\n"
    " .reg .b32 %r<8>;\n"
    " .reg .f32 %f<16>;\n"
    " .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd1, [res];\n"
    " mov.f32 %f1, 0f40200000;\n"     /* 2.5 */
    " mov.f32 %f2, 0f3FC00000;\n"     /* 1.5 */
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [img, smp, {%f1, %f2}];\n"
    " st.global.f32 [%rd1], %f3;\n"
    " mov.f32 %f7, 0fC0400000;\n"     /* -3 */
    " mov.f32 %f8, 0f41100000;\n"
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [img, smp, {%f7, %f8}];\n"
    " st.global.f32 [%rd1+4], %f3;\n"
    " txq.width.b32 %r1, [img];\n"
    " st.global.u32 [%rd1+8], %r1;\n"
    " txq.normalized_coords.b32 %r1, [img];\n"
    " st.global.u32 [%rd1+12], %r1;\n"
    " mov.u32 %r3, 0;\n"
    " suld.b.2d.b32.trap {%r2}, [sf, {%r3, %r3}];\n"
    " st.global.u32 [%rd1+16], %r2;\n"
    " mov.u32 %r4, 8;\n"
    " mov.u32 %r5, 1;\n"
    " mov.u32 %r6, 77;\n"
    " sust.b.2d.b32.trap [sf, {%r4, %r5}], {%r6};\n"
    " ret;\n"
    "}\n"
    ".visible .entry k_module(.param .texref timg, .param .u64 res)\n"
    "{\n"
    " .reg .b32 %r<8>;\n"
    " .reg .f32 %f<16>;\n"
    " .reg .b64 %rd<4>;\n"
    " ld.param.u64 %rd3, [res];\n"
    " mov.f32 %f1, 0f40200000;\n"     /* 2.5 */
    " mov.f32 %f2, 0f3FC00000;\n"     /* 1.5 */
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [timg, smpc, {%f1, %f2}];\n"
    " st.global.f32 [%rd3], %f3;\n"
    " mov.f32 %f7, 0fC0400000;\n"     /* -3: clamp_to_edge on x */
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [timg, smpc, {%f7, %f2}];\n"
    " st.global.f32 [%rd3+4], %f3;\n"
    " mov.f32 %f8, 0f40E00000;\n"     /* 7: clamp_to_border on y */
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [timg, smpc, {%f1, %f8}];\n"
    " st.global.f32 [%rd3+8], %f3;\n"
    " mov.u64 %rd2, smpc;\n"          /* the sampler through its address */
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [timg, %rd2, {%f1, %f2}];\n"
    " st.global.f32 [%rd3+12], %f3;\n"
    " txq.filter_mode.b32 %r1, [smpc];\n"
    " st.global.u32 [%rd3+20], %r1;\n"
    " txq.addr_mode_1.b32 %r1, [%rd2];\n"
    " st.global.u32 [%rd3+24], %r1;\n"
    " txq.force_unnormalized_coords.b32 %r1, [smpc];\n"
    " st.global.u32 [%rd3+28], %r1;\n"
    " ret;\n"
    "}\n"
    ".visible .entry k_bound(.param .u64 res)\n"
    "{\n"
    " .reg .f32 %f<8>;\n"
    " .reg .b64 %rd<2>;\n"
    " ld.param.u64 %rd1, [res];\n"
    " mov.f32 %f1, 0f3F000000;\n"
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [tref, smpc, {%f1, %f1}];\n"
    " st.global.f32 [%rd1], %f3;\n"
    " ret;\n"
    "}\n"
    ".visible .entry k_surf_bound()\n"
    "{\n"
    " .reg .b32 %r<4>;\n"
    " mov.u32 %r1, 0;\n"
    " suld.b.2d.b32.trap {%r2}, [sref, {%r1, %r1}];\n"
    " ret;\n"
    "}\n"
    ".visible .entry k_ogl(.param .texref timg)\n"
    "{\n"
    " .reg .f32 %f<8>;\n"
    " .reg .b64 %rd<2>;\n"
    " mov.f32 %f1, 0f3F000000;\n"
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [timg, sogl, {%f1, %f1}];\n"
    " ret;\n"
    "}\n"
    ".visible .entry k_smp_as_tex()\n"
    "{\n"
    " .reg .f32 %f<8>;\n"
    " .reg .b64 %rd<2>;\n"
    " mov.f32 %f1, 0f3F000000;\n"
    " mov.u64 %rd1, smpc;\n"
    " tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, smpc, {%f1, %f1}];\n"
    " ret;\n"
    "}\n";

static float texels[16];

static float texel(int i, int j) { return (float)(10 * j + i + 1); }

static void check_params(const vkrr_ptx_module *m, vkrr_cutex *tex, vkrr_cusurf *surf, uint32_t *sdata)
{
    static struct { float t0, t1; uint32_t width, norm, s00; } res;
    memset(&res, 0xff, sizeof res);
    ptxt_args a = {0};
    ptxt_ptr(&a, &tex[0], 0); /* img: the texture (normalized, linear, wrap) */
    ptxt_ptr(&a, &tex[1], 0); /* smp: a texture object whose sampler is unnormalized, nearest, clamp */
    ptxt_ptr(&a, &surf[0], 0);
    ptxt_ptr(&a, &res, sizeof res);
    vkrr_error err = {0};
    vkrr_status st = ptxt_run_ex(m, "k_params", &a, 1, 1, 0, tex, 2, surf, 1, &err);
    if (!CHECK(st == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    printf("k_params: tex [img, smp] %g %g (want %g %g), txq width %u normalized %u, suld %u\n", res.t0,
           res.t1, texel(2, 1), texel(0, 3), res.width, res.norm, res.s00);
    CHECK(res.t0 == texel(2, 1)); /* (2.5, 1.5) unnormalized, nearest */
    CHECK(res.t1 == texel(0, 3)); /* (-3, 9) clamped */
    CHECK_EQ_U64(res.width, 4);
    CHECK_EQ_U64(res.norm, 1); /* the texture's own, not the sampler's */
    CHECK_EQ_U64(res.s00, 500);
    CHECK_EQ_U64(sdata[1 * 4 + 2], 77); /* byte x 8 = texel 2 of row 1 */
    CHECK_EQ_U64(sdata[0], 500);
}

static void check_module_sampler(const vkrr_ptx_module *m, vkrr_cutex *tex)
{
    static struct { float c, edge, border, viareg, pad; uint32_t filter, addr1, unnorm; } res;
    memset(&res, 0xff, sizeof res);
    ptxt_args a = {0};
    ptxt_ptr(&a, &tex[0], 0);
    ptxt_ptr(&a, &res, sizeof res);
    vkrr_error err = {0};
    vkrr_status st = ptxt_run_ex(m, "k_module", &a, 1, 1, 0, tex, 2, NULL, 0, &err);
    if (!CHECK(st == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    printf("k_module: %g %g %g %g, txq filter %u addr_mode_1 %u force_unnormalized %u\n", res.c, res.edge,
           res.border, res.viareg, res.filter, res.addr1, res.unnorm);
    CHECK(res.c == texel(2, 1));
    CHECK(res.edge == texel(0, 1));
    CHECK(res.border == 0.0f);
    CHECK(res.viareg == texel(2, 1));
    CHECK_EQ_U64(res.filter, 0);
    CHECK_EQ_U64(res.addr1, 3); /* border (CU_TR_ADDRESS_MODE_BORDER) */
    CHECK_EQ_U64(res.unnorm, 1);
}

/* a kernel that needs what vkrr cannot give fails alone, naming why and where */
static void check_refused(const vkrr_ptx_module *m, vkrr_cutex *tex)
{
    static const struct { const char *entry; vkrr_status st; const char *inst, *says; } cases[] = {
        {"k_bound", VKRR_ERR_UNSUPPORTED, "[tref,", "'tref' is a .texref module variable"},
        {"k_surf_bound", VKRR_ERR_UNSUPPORTED, "[sref,", "'sref' is a .surfref module variable"},
        {"k_ogl", VKRR_ERR_UNSUPPORTED, "sogl, {", "clamp_ogl"},
        {"k_smp_as_tex", VKRR_ERR_FAULT, "[%rd1, smpc, {", "'smpc', a .samplerref, is no texture"},
    };
    static float res[4];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        ptxt_args a = {0};
        if (!strcmp(cases[k].entry, "k_bound"))
            ptxt_ptr(&a, res, sizeof res);
        else if (!strcmp(cases[k].entry, "k_ogl"))
            ptxt_ptr(&a, &tex[0], 0);
        vkrr_error err = {0};
        vkrr_status st = ptxt_run_ex(m, cases[k].entry, &a, 1, 1, 0, tex, 2, NULL, 0, &err);
        if (!CHECK(st == cases[k].st && err.line == ptxt_line_of(module_ptx, cases[k].inst) &&
                   strstr(err.msg, cases[k].says)))
            fprintf(stderr, "%s: status %d line %ld: %s\n", cases[k].entry, (int)st, (long)err.line, err.msg);
    }
}

static void check_param_uses(const vkrr_ptx_module *m)
{
    vkrr_ptx_param_use u[8];
    uint32_t n = 0;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_param_uses(m, "k_params", u, 8, &n, &err) == VKRR_OK && n == 4))
        return;
    CHECK(u[0].offset == 0 && u[0].texture && !u[0].surface && strstr(u[0].image_op, "tex.2d"));
    CHECK(u[1].offset == 8 && u[1].texture && strstr(u[1].image_op, "tex.2d")); /* the sampler */
    CHECK(u[2].offset == 16 && u[2].surface && !u[2].texture && strstr(u[2].image_op, "suld"));
    CHECK(u[3].offset == 24 && u[3].address && !u[3].texture && !u[3].surface);
}

static void check_bad_initializer(void)
{
    static const char text[] = ".version 8.0\n.target sm_80\n.address_size 64\n"
                               ".global .samplerref s = { filter_mode = cubic };\n"
                               ".visible .entry e()\n{\n ret;\n}\n";
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    vkrr_status st = vkrr_ptx_module_load(&m, text, strlen(text), "bad.ptx", &err);
    if (!CHECK(st == VKRR_ERR_PARSE && err.line == 4 && strstr(err.msg, "filter_mode = cubic")))
        fprintf(stderr, "status %d line %ld: %s\n", (int)st, (long)err.line, err.msg);
    vkrr_ptx_module_free(m);
}

int main(void)
{
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++)
            texels[j * 4 + i] = texel(i, j);
    vkrr_cutex tex[2];
    tex[0] = (vkrr_cutex){.data = (const unsigned char *)texels, .width = 4, .height = 4, .channels = 1,
                          .format = 32, .texel_bytes = 4, .filter = 1, .normalized = true};
    tex[1] = tex[0]; /* the same array; its sampler: unnormalized, nearest, clamp */
    tex[1].filter = 0;
    tex[1].normalized = false;
    for (int k = 0; k < 3; k++)
        tex[1].address[k] = 1;
    static uint32_t sdata[8];
    sdata[0] = 500;
    vkrr_cusurf surf[1] = {{.data = (unsigned char *)sdata, .width = 4, .height = 2, .texel_bytes = 4}};
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (CHECK(vkrr_ptx_module_load(&m, module_ptx, strlen(module_ptx), "texref.ptx", &err) == VKRR_OK)) {
        check_params(m, tex, surf, sdata);
        check_module_sampler(m, tex);
        check_refused(m, tex);
        check_param_uses(m);
    } else {
        vkrr_error_print(&err, stderr);
    }
    vkrr_ptx_module_free(m);
    check_bad_initializer();
    return test_finish("ptx_texref");
}
