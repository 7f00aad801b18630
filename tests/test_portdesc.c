/* test_portdesc: port descriptors (src/port/portdesc.h) on hand-made launches:
 * expressions over the parameter block, layouts, surfaces, the --ports folder
 * over the built-in descriptors, the tolerance order (type default <
 * descriptor < --tolerance rules < flags), and errors naming file, line and
 * field; a shader's own interface (`interface own`): its values and errors.  The user's whole path is tests/test_port_user.c. */
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "portdesc.h"
#include "testutil.h"

/* A launch: 64 bytes of parameters, a pointer at 0 (delta 64) and at 8
 * (delta 0) into one 8192-byte allocation, a HALF x4 surface at 16 and a
 * texture at 24; words: 32 = 20, 36 = 6, 40 = 3, 48 = u64 100, 56 = i32 -8. */
typedef struct fixture {
    uint8_t args[64];
    vkrr_alloc alloc;
    vkrr_pointer ptr[2];
    vkrr_image im[2];
    vkrr_launch l;
} fixture;

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void fixture_init(fixture *f)
{
    memset(f, 0, sizeof *f);
    put32(f->args + 32, 20);
    put32(f->args + 36, 6);
    put32(f->args + 40, 3);
    uint64_t big = 100;
    memcpy(f->args + 48, &big, 8);
    put32(f->args + 56, (uint32_t)-8);
    f->alloc = (vkrr_alloc){.base = 0x10000, .size = 8192};
    f->ptr[0] = (vkrr_pointer){0, 0, 64};
    f->ptr[1] = (vkrr_pointer){8, 0, 0};
    f->im[0] = (vkrr_image){.offset = 16, .kind = VKRR_IMAGE_SURFACE, .width = 5, .height = 3,
                            .channels = 4, .format = 16};
    f->im[1] = (vkrr_image){.offset = 24, .kind = VKRR_IMAGE_TEXTURE, .width = 5, .height = 3,
                            .channels = 1, .format = 32};
    f->l = (vkrr_launch){.sequence = 42, .kernel = "k", .args_bytes = 64, .args = f->args,
                         .allocs = &f->alloc, .nallocs = 1, .pointers = f->ptr, .npointers = 2,
                         .images = f->im, .nimages = 2};
}

/* Parses text and evaluates it on the fixture: the status, outputs in out. */
static vkrr_status eval(const char *text, fixture *f, vkrr_port_output *out, uint32_t *n,
                        vkrr_error *err)
{
    vkrr_portdesc *d = NULL;
    vkrr_status st = vkrr_portdesc_parse(&d, text, strlen(text), "k.port", err);
    if (st == VKRR_OK)
        st = vkrr_portdesc_eval(d, &f->l, out, VKRR_PORT_MAX_OUTPUTS, n, err);
    vkrr_portdesc_destroy(d);
    return st;
}

static void check_views(void)
{
    fixture f;
    fixture_init(&f);
    vkrr_port_output o[VKRR_PORT_MAX_OUTPUTS];
    uint32_t n = 0;
    vkrr_error err = {0};
    const char *text =
        "# comment line\n"
        "\n"
        "output arg0 f16 width=u32@32 height=u32@36 channels=u32@40 layout=planar  # 3 planes\n"
        "output arg0 f32 offset=u32@32*4+4 width=(u32@32+1)/2 height=u32@36%4 channels=2\n"
        "output arg8 e5m2 offset=i32@56+u64@48-92 width=0x10 planes=2 max_ulp=off atol=0.5\n"
        "output arg16 f16 rtol=1e-3\n"
        "output arg16 bytes\n"
        "output arg8 i32 width=3\n"
        "output arg8 i64 width=1\n"
        "output arg8 f64 width=2 max_ulp=8\n";
    if (!CHECK(eval(text, &f, o, &n, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    CHECK_EQ_U64(n, 8);
    /* planar: channels become planes of one channel; offset adds the delta */
    CHECK(!o[0].surface && o[0].arg == 0 && o[0].index == 0 && o[0].line == 3);
    CHECK(o[0].view.dtype == VKRR_DT_F16 && o[0].view.offset == 64 && o[0].view.width == 20 &&
          o[0].view.height == 6 && o[0].view.planes == 3 && o[0].view.channels == 1);
    /* interleaved channels; arithmetic: 20*4+4 = 84, (20+1)/2 = 10, 6%4 = 2 */
    CHECK(o[1].view.dtype == VKRR_DT_F32 && o[1].view.offset == 64 + 84 && o[1].view.width == 10 &&
          o[1].view.height == 2 && o[1].view.planes == 1 && o[1].view.channels == 2);
    /* signed words: -8 + 100 - 92 = 0 */
    CHECK(o[2].view.dtype == VKRR_DT_E5M2 && o[2].view.offset == 0 && o[2].view.width == 16 &&
          o[2].view.planes == 2 && vkrr_view_bytes(&o[2].view) == 32);
    CHECK(o[2].tol.has_max_ulp && o[2].tol.max_ulp < 0 && o[2].tol.has_atol && o[2].tol.atol == 0.5);
    CHECK(!o[2].tol.has_rtol);
    /* a surface: the array's shape, the line's type: 8-byte texels of f16 = 4
     * channels, of bytes = 8 */
    CHECK(o[3].surface && o[3].index == 0 && o[3].view.width == 5 && o[3].view.height == 3 &&
          o[3].view.channels == 4 && o[3].view.dtype == VKRR_DT_F16);
    CHECK(o[3].tol.has_rtol && o[3].tol.rtol == 1e-3);
    CHECK(o[4].surface && o[4].view.channels == 8 && o[4].view.dtype == VKRR_DT_BYTES);
    CHECK(o[5].view.dtype == VKRR_DT_S32 && vkrr_view_bytes(&o[5].view) == 12);
    /* 64-bit elements */
    CHECK(o[6].view.dtype == VKRR_DT_S64 && vkrr_view_bytes(&o[6].view) == 8);
    CHECK(o[7].view.dtype == VKRR_DT_F64 && vkrr_view_bytes(&o[7].view) == 16 &&
          o[7].tol.has_max_ulp && o[7].tol.max_ulp == 8);
    /* one descriptor, another launch: the words are read again */
    put32(f.args + 32, 40);
    CHECK(eval(text, &f, o, &n, &err) == VKRR_OK);
    CHECK(o[0].view.width == 40 && o[1].view.offset == 64 + 164 && o[1].view.width == 20);
    vkrr_portdesc *d = NULL;
    CHECK(vkrr_portdesc_parse(&d, text, strlen(text), "k.port", &err) == VKRR_OK);
    uint32_t args[8];
    CHECK(d && vkrr_portdesc_args(d, args, 8) == 8 && args[0] == 0 && args[3] == 16 && args[5] == 8 &&
          args[7] == 8);
    vkrr_portdesc_destroy(d);
}

/* Each error: the status, line 1 of "k.port", and the text naming the field. */
static void check_errors(void)
{
    static const struct { const char *line; vkrr_status st; const char *says; } cases[] = {
        {"output", VKRR_ERR_PARSE, "'output': expected the argument"},
        {"output arg0", VKRR_ERR_PARSE, "'arg0': expected an element type"},
        {"output arg0 f16 width=2 garbage", VKRR_ERR_PARSE, "'garbage': expected key=value"},
        {"output arg4096 f16 width=2", VKRR_ERR_PARSE, "'arg4096'"},
        {"output arg0 f16 width=u32@4096", VKRR_ERR_PARSE, "'width=u32@4096'"},
        {"output arg0 f16 width=u16@1x", VKRR_ERR_PARSE, "'width=u16@1x': unexpected characters"},
        {"output arg0 f16 width=99999999999999999999", VKRR_ERR_PARSE, "too large"},
        {"output arg0 f16 width=((((((((((1))))))))))", VKRR_ERR_PARSE, "nest too deep"},
        {"output arg0 f16 width=u32@62", VKRR_ERR_RANGE, "'width=u32@62': bytes 62..65 are past"},
        {"output arg0 f16 width=u32@32*0", VKRR_ERR_RANGE, "width is 0"},
        {"output arg0 f16 width=u64@48*0x100000000", VKRR_ERR_RANGE, "width is 429496729600"},
        {"output arg0 f16 width=i32@56", VKRR_ERR_RANGE, "width is -8"},
        {"output arg0 f16 width=u64@48*u64@48*u64@48*u64@48*u64@48*u64@48*u64@48*u64@48*u64@48*u64@48",
         VKRR_ERR_RANGE, "overflows"},
        {"output arg0 f16 width=4 offset=-65", VKRR_ERR_RANGE, "arg0: the window"},
        {"output arg0 f16 width=4065", VKRR_ERR_RANGE, "outside the 8192-byte allocation"},
        {"output arg0 f16 width=65536 height=65536 planes=65536 channels=65536", VKRR_ERR_RANGE,
         "outside the 8192-byte allocation"},
        {"output arg24 f16 width=4", VKRR_ERR_RANGE, "arg24: a texture"},
        {"output arg32 f16 width=4", VKRR_ERR_RANGE, "arg32: neither a pointer nor a surface"},
        {"output arg60 f16 width=4", VKRR_ERR_RANGE, "arg60: the word at byte 60 is past"},
        {"output arg16 f16 layout=planar", VKRR_ERR_PARSE, "'layout=': arg16 is a surface"},
        {"output arg16 f16 planes=2", VKRR_ERR_PARSE, "'planes=2': arg16 is a surface"},
        {"output arg16 bytes atol=x", VKRR_ERR_PARSE, "'atol=x': expects a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f;
        fixture_init(&f);
        vkrr_port_output o[VKRR_PORT_MAX_OUTPUTS];
        uint32_t n = 0;
        vkrr_error err = {0};
        vkrr_status st = eval(cases[i].line, &f, o, &n, &err);
        bool ok = st == cases[i].st && !strcmp(err.file, "k.port") && err.line == 1 &&
                  strstr(err.msg, cases[i].says);
        if (!CHECK(ok))
            fprintf(stderr, "    '%s': status %s, %s:%ld: %s\n", cases[i].line,
                    vkrr_status_name(st), err.file, err.line, err.msg);
    }
    /* the line number counts comments and blank lines; a NUL is refused */
    vkrr_portdesc *d = NULL;
    vkrr_error err = {0};
    const char two[] = "# a\n\noutput arg0 f16 widht=2\n";
    CHECK(vkrr_portdesc_parse(&d, two, strlen(two), "x.port", &err) == VKRR_ERR_PARSE && err.line == 3);
    CHECK(vkrr_portdesc_parse(&d, "output\0", 7, "x.port", &err) == VKRR_ERR_PARSE && err.line == 1);
    /* ... named by its line, like any other fault (a fuzz run found it at line 0) */
    CHECK(vkrr_portdesc_parse(&d, "# a\noutput arg0 f16 wi\0dth=2\n", 30, "x.port", &err) == VKRR_ERR_PARSE &&
          err.line == 2 && strstr(err.msg, "NUL"));
    CHECK(d == NULL);
}

/* DIR/KERNEL.port wins over the built-in one; a kernel with neither has none;
 * a name that could leave DIR is never a path. */
static void check_set(void)
{
    char *dir = test_tmpdir("test_portdesc");
    char path[4200];
    snprintf(path, sizeof path, "%s/cuda_dldn_rrref_enc0_kernel.port", dir);
    const char *mine = "output arg16 f32 width=4\n";
    CHECK(test_write_file(path, mine, strlen(mine)));
    snprintf(path, sizeof path, "%s/mine.port", dir);
    CHECK(test_write_file(path, "bogus\n", 6));
    vkrr_portdesc_set *s = NULL, *b = NULL;
    vkrr_error err = {0};
    const vkrr_portdesc *d = NULL;
    CHECK(vkrr_portdesc_set_create(&s, dir, &err) == VKRR_OK);
    CHECK(vkrr_portdesc_set_create(&b, NULL, &err) == VKRR_OK);
    uint8_t args[48] = {0};
    put32(args + 24, 7);
    put32(args + 28, 5);
    vkrr_alloc al = {.base = 0x1000, .size = 4096};
    vkrr_pointer pt = {16, 0, 256};
    vkrr_launch l = {.sequence = 1, .kernel = "cuda_dldn_rrref_enc0_kernel", .args_bytes = 48,
                     .args = args, .allocs = &al, .nallocs = 1, .pointers = &pt, .npointers = 1};
    vkrr_port_output o[VKRR_PORT_MAX_OUTPUTS];
    uint32_t n = 0;
    CHECK(vkrr_portdesc_set_outputs(s, &l, o, VKRR_PORT_MAX_OUTPUTS, &n, &err) == VKRR_OK);
    CHECK(n == 1 && o[0].view.dtype == VKRR_DT_F32 && o[0].view.width == 4 && o[0].view.planes == 1);
    CHECK(vkrr_portdesc_set_outputs(b, &l, o, VKRR_PORT_MAX_OUTPUTS, &n, &err) == VKRR_OK);
    CHECK(n == 1 && o[0].view.dtype == VKRR_DT_F16 && o[0].view.width == 7 &&
          o[0].view.height == 5 && o[0].view.planes == 8 && o[0].view.offset == 256);
    CHECK(vkrr_portdesc_set_get(s, "no_such_kernel", &d, &err) == VKRR_OK && d == NULL);
    CHECK(vkrr_portdesc_set_outputs(NULL, &l, o, VKRR_PORT_MAX_OUTPUTS, &n, &err) == VKRR_OK && n == 0);
    /* a bad DIR file is an error naming it, each time it is asked for */
    CHECK(vkrr_portdesc_set_get(s, "mine", &d, &err) == VKRR_ERR_PARSE && strstr(err.file, "mine.port"));
    CHECK(vkrr_portdesc_set_get(s, "mine", &d, &err) == VKRR_ERR_PARSE);
    CHECK(vkrr_portdesc_set_get(s, "../mine", &d, &err) == VKRR_OK && d == NULL);
    /* built-in ones are named as such in errors */
    l.args_bytes = 20;
    CHECK(vkrr_portdesc_set_outputs(b, &l, o, VKRR_PORT_MAX_OUTPUTS, &n, &err) == VKRR_ERR_RANGE);
    CHECK_STR(err.file, "cuda_dldn_rrref_enc0_kernel.port (built in)");
    vkrr_portdesc_set_destroy(s);
    vkrr_portdesc_set_destroy(b);
    if (!test_failed)
        test_rmtree(dir);
    free(dir);
}

/* default < descriptor < --tolerance rules < flags */
static void check_tolerance_order(void)
{
    vkrr_tol_rules *rules = NULL;
    vkrr_error err = {0};
    const char *text = "k arg8 max_ulp=7\n";
    CHECK(vkrr_compare_tol_parse(&rules, text, strlen(text), "t", &err) == VKRR_OK);
    vkrr_tolerance t = vkrr_tolerance_default(VKRR_DT_F16);
    vkrr_tol_override desc = {0};
    const char *why = NULL;
    CHECK(vkrr_compare_tol_setting("max_ulp=0", &desc, &why) && vkrr_compare_tol_setting("atol=0.25", &desc, &why));
    CHECK(!vkrr_compare_tol_setting("max_ulps=0", &desc, &why) && strstr(why, "unknown key"));
    vkrr_compare_tol_apply(&t, &desc);
    CHECK(t.max_ulp == 0 && t.atol == 0.25);
    vkrr_tolerance r = vkrr_compare_tol_resolve_from(rules, t, "k", 0, 16);
    CHECK(r.max_ulp == 0 && r.atol == 0.25); /* the rule names arg8 only */
    r = vkrr_compare_tol_resolve_from(rules, t, "k", 0, 8);
    CHECK(r.max_ulp == 7 && r.atol == 0.25);
    vkrr_compare_tol_set_flags(rules, &(vkrr_tol_override){.has_atol = true, .atol = 1});
    r = vkrr_compare_tol_resolve_from(rules, t, "k", 0, 8);
    CHECK(r.max_ulp == 7 && r.atol == 1);
    vkrr_compare_tol_destroy(rules);
    /* e5m2: the top byte of an f16, one ULP by default */
    uint8_t e = 0x3c; /* 1.0 */
    CHECK(vkrr_dtype_to_double(VKRR_DT_E5M2, &e) == 1.0);
    e = 0x7c;
    CHECK(vkrr_dtype_to_double(VKRR_DT_E5M2, &e) > 1e300);
    CHECK(vkrr_tolerance_default(VKRR_DT_E5M2).max_ulp == 1 && vkrr_dtype_is_float(VKRR_DT_E5M2));
    vkrr_dtype dt;
    CHECK(vkrr_dtype_parse("i32", &dt) && dt == VKRR_DT_S32 && vkrr_dtype_parse("e5m2", &dt));
}

/* The README's example descriptor parses, as printed. */
static void check_readme_example(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/README.md", VKRR_SOURCE_DIR);
    char *text = test_read_file(path, NULL);
    const char *start = text ? strstr(text, "```\n# What the port of my_kernel writes.") : NULL;
    const char *end = start ? strstr(start + 4, "```") : NULL;
    if (!CHECK(start && end)) {
        free(text);
        return;
    }
    vkrr_portdesc *d = NULL;
    vkrr_error err = {0};
    CHECK(vkrr_portdesc_parse(&d, start + 4, (size_t)(end - start - 4), "README.md", &err) == VKRR_OK);
    uint32_t args[8];
    CHECK(d && vkrr_portdesc_args(d, args, 8) == 3 && args[0] == 8 && args[1] == 16 && args[2] == 40);
    vkrr_portdesc_destroy(d);
    free(text);
}

/* `interface own` (portiface.h) on the fixture, with CUDA's grid 7x2x1 and
 * block 32x4x1: every value as the lines say; each error naming line 2 and
 * the field (line 1 is `interface own`). */
static void check_iface(void)
{
    fixture f;
    fixture_init(&f);
    f.l.grid[0] = 7, f.l.grid[1] = 2, f.l.grid[2] = 1;
    f.l.block[0] = 32, f.l.block[1] = 4, f.l.block[2] = 1;
    const char *text =
        "interface own\n"
        "workgroup 8 8 1\n"
        "dispatch (u32@32+7)/8 grid.y*block.y 1\n"
        "binding 0.0 storage-buffer arg0 size=u32@32*4\n"
        "binding 1.2 uniform-buffer arg8 offset=256\n"
        "push 0 u32 u32@36\n"
        "push 4 f32 f32@40\n"
        "push 8 f32 2.5\n"
        "push 12 i32 i32@56\n"
        "push 16 u64 u64@48\n"
        "push 24 f32 u32@32\n"
        "specialize 5 u32 block.x*block.y\n"
        "specialize 6 f32 -0.5\n"
        "output arg8 f32 width=grid.x*block.x\n";
    vkrr_portdesc *d = NULL;
    vkrr_error err = {0};
    vkrr_port_iface_run run;
    if (!CHECK(vkrr_portdesc_parse(&d, text, strlen(text), "k.port", &err) == VKRR_OK) ||
        !CHECK(vkrr_portdesc_iface(d) != NULL) ||
        !CHECK(vkrr_port_iface_eval_launch(vkrr_portdesc_iface(d), "k.port", &f.l, &run, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        vkrr_portdesc_destroy(d);
        return;
    }
    const vkrr_port_iface *fi = vkrr_portdesc_iface(d);
    CHECK(fi->line == 1 && fi->workgroup[0] == 8 && fi->workgroup[1] == 8 && fi->workgroup[2] == 1);
    CHECK_EQ_U64(run.nbuf, 2);
    /* arg0 points 64 bytes in: n = 20 floats from there; arg8 at 0, from 256 to the end */
    CHECK(run.buf[0].set == 0 && run.buf[0].binding == 0 && run.buf[0].kind == VKRR_PORT_STORAGE_BUFFER &&
          run.buf[0].alloc == 0 && run.buf[0].offset == 64 && run.buf[0].size == 80 && run.buf[0].line == 4);
    CHECK(run.buf[1].set == 1 && run.buf[1].binding == 2 && run.buf[1].kind == VKRR_PORT_UNIFORM_BUFFER &&
          run.buf[1].offset == 256 && run.buf[1].size == 8192 - 256);
    uint8_t want[28] = {6, 0, 0, 0, 3, 0, 0, 0};
    float f25 = 2.5f, f20 = 20.0f, fm = -0.5f;
    int32_t m8 = -8;
    uint64_t u100 = 100;
    memcpy(want + 8, &f25, 4);
    memcpy(want + 12, &m8, 4);
    memcpy(want + 16, &u100, 8);
    memcpy(want + 24, &f20, 4);
    CHECK_EQ_U64(run.push_bytes, 28);
    CHECK(!memcmp(run.push, want, sizeof want));
    uint32_t fmbits;
    memcpy(&fmbits, &fm, 4);
    CHECK(run.nspec == 2 && run.spec_id[0] == 5 && run.spec_value[0] == 128 && run.spec_id[1] == 6 &&
          run.spec_value[1] == fmbits);
    /* (20 + 7) / 8 = 3; 2 * 4 = 8 */
    CHECK(run.dispatch[0] == 3 && run.dispatch[1] == 8 && run.dispatch[2] == 1);
    vkrr_port_output o[VKRR_PORT_MAX_OUTPUTS];
    uint32_t n = 0;
    CHECK(vkrr_portdesc_eval(d, &f.l, o, VKRR_PORT_MAX_OUTPUTS, &n, &err) == VKRR_OK && n == 1 &&
          o[0].view.width == 224);
    vkrr_portdesc_destroy(d);

    /* images: the surface at arg16 (HALF x 4), the texture at arg24 (FLOAT x 1,
     * point, wrap, unnormalized as captured) */
    const char *itext = "interface own\n"
                        "binding 0.0 storage-image arg16 format=rgba16f\n"
                        "binding 0.1 combined-image-sampler arg24 format=r32f sampler=captured\n"
                        "binding 0.2 sampled-image arg16 format=rgba32f\n"
                        "binding 1.0 sampler arg24 sampler=linear address=clamp\n"
                        "binding 1.1 sampler - sampler=nearest address=border normalized=1\n";
    d = NULL;
    if (CHECK(vkrr_portdesc_parse(&d, itext, strlen(itext), "k.port", &err) == VKRR_OK) &&
        CHECK(vkrr_port_iface_eval_launch(vkrr_portdesc_iface(d), "k.port", &f.l, &run, &err) == VKRR_OK)) {
        CHECK(run.nbuf == 0 && run.nimg == 5);
        CHECK(run.img[0].kind == VKRR_PORT_STORAGE_IMAGE && run.img[0].image == 0 &&
              run.img[0].format->vk == VK_FORMAT_R16G16B16A16_SFLOAT && run.img[0].map == VKRR_IMGMAP_BITCOPY &&
              run.img[0].line == 2);
        CHECK(run.img[1].kind == VKRR_PORT_COMBINED_IMAGE_SAMPLER && run.img[1].image == 1 &&
              run.img[1].map == VKRR_IMGMAP_BITCOPY && run.img[1].sampler.filter == VKRR_FILTER_POINT &&
              run.img[1].sampler.address[0] == VKRR_ADDRESS_WRAP && !run.img[1].sampler.normalized);
        CHECK(run.img[2].kind == VKRR_PORT_SAMPLED_IMAGE && run.img[2].map == VKRR_IMGMAP_CONVERT);
        CHECK(run.img[3].kind == VKRR_PORT_SAMPLER && run.img[3].image == 1 &&
              run.img[3].sampler.filter == VKRR_FILTER_LINEAR && run.img[3].sampler.address[1] == VKRR_ADDRESS_CLAMP &&
              !run.img[3].sampler.normalized);
        CHECK(run.img[4].kind == VKRR_PORT_SAMPLER && run.img[4].image == UINT32_MAX &&
              run.img[4].sampler.filter == VKRR_FILTER_POINT && run.img[4].sampler.address[0] == VKRR_ADDRESS_BORDER &&
              run.img[4].sampler.normalized && run.img[4].set == 1 && run.img[4].binding == 1);
    } else
        vkrr_error_print(&err, stderr);
    vkrr_portdesc_destroy(d);

    static const struct { const char *line; vkrr_status st; const char *says; } cases[] = {
        {"binding 0.0 storage-texel-buffer arg0", VKRR_ERR_PARSE, "binding 0.0: storage-texel-buffer bindings are not yet supported"},
        {"binding 0.0 storage-image arg16", VKRR_ERR_PARSE, "binding 0.0: a storage-image needs format=FMT"},
        {"binding 0.0 storage-image arg16 format=rgb16f", VKRR_ERR_PARSE, "'format=rgb16f': not an image format"},
        {"binding 0.0 storage-image arg16 format=rgba16f sampler=linear", VKRR_ERR_PARSE,
         "'sampler=linear': expected format= (a sampler's keys are for samplers)"},
        {"binding 0.0 combined-image-sampler arg24 format=r32f", VKRR_ERR_PARSE,
         "a combined-image-sampler needs sampler=captured|linear|nearest"},
        {"binding 0.0 combined-image-sampler arg24 format=r32f sampler=cubic", VKRR_ERR_PARSE,
         "'sampler=cubic': expected sampler=captured, linear or nearest"},
        {"binding 0.0 sampler arg24 sampler=linear address=wrap", VKRR_ERR_PARSE, "expected address=clamp, repeat"},
        {"binding 0.0 sampler arg24 sampler=linear normalized=2", VKRR_ERR_PARSE, "expected normalized=0 or 1"},
        {"binding 0.0 sampler - sampler=linear", VKRR_ERR_PARSE, "a sampler of no texture ('-') states"},
        {"binding 0.0 storage-image - format=r32f", VKRR_ERR_PARSE, "'-': expected the texture or surface argument"},
        {"binding 0.0 storage-image arg0 format=rgba16f", VKRR_ERR_RANGE,
         "binding 0.0: arg0 is not a texture or surface in launch #42 k"},
        {"binding 0.0 storage-image arg16 format=r32f", VKRR_ERR_RANGE,
         "binding 0.0: format=r32f does not fit arg16's CUDA array (HALF x 4;"},
        {"binding 0.0 sampled-image arg24 format=rgba32f", VKRR_ERR_RANGE,
         "format=rgba32f does not fit arg24's CUDA array (FLOAT x 1;"},
        {"binding 0 storage-buffer arg0", VKRR_ERR_PARSE, "'0': expected SET.BINDING"},
        {"binding 32.0 storage-buffer arg0", VKRR_ERR_PARSE, "set below 32"},
        {"binding 0.0 texel arg0", VKRR_ERR_PARSE, "'texel': expected storage-buffer, uniform-buffer, storage-image, sampled-image"},
        {"binding 0.0 storage-buffer ptr", VKRR_ERR_PARSE, "'ptr': expected the pointer argument"},
        {"binding 0.0 storage-buffer arg0 stride=4", VKRR_ERR_PARSE, "'stride=4': expected offset= or size="},
        {"binding 0.0 storage-buffer arg0 size=u32@", VKRR_ERR_PARSE, "'size=u32@': expected a decimal"},
        {"push 2 u32 1", VKRR_ERR_PARSE, "multiple of 4"},
        {"push 0 f64 1", VKRR_ERR_PARSE, "'f64': expected a type"},
        {"push 0 f32 1.5x", VKRR_ERR_PARSE, "'1.5x': unexpected characters"},
        {"push 0 f32 1e99", VKRR_ERR_PARSE, "'1e99': not a finite f32 constant"},
        {"push 252 u64 1", VKRR_ERR_PARSE, "ends past byte 256"},
        {"specialize 1 u64 1", VKRR_ERR_PARSE, "expected a type (u32 i32 f32)"},
        {"specialize x u32 1", VKRR_ERR_PARSE, "a line is 'specialize ID"},
        {"workgroup 8 8", VKRR_ERR_PARSE, "a line is 'workgroup X Y Z'"},
        {"workgroup 0 1 1", VKRR_ERR_PARSE, "workgroup '0': 1..65535"},
        {"workgroup u32@0 1 1", VKRR_ERR_PARSE, "a decimal constant"},
        {"dispatch grid.w 1 1", VKRR_ERR_PARSE, "expected grid.x"},
        {"interface own", VKRR_ERR_PARSE, "interface is given twice (first on line 1)"},
        {"interface mine", VKRR_ERR_PARSE, "a line is 'interface own'"},
        {"binding 0.0 storage-buffer arg16", VKRR_ERR_RANGE, "binding 0.0: arg16 is not a pointer"},
        {"binding 0.0 storage-buffer arg0 size=8129", VKRR_ERR_RANGE,
         "binding 0.0: 8129 bytes from byte 64 are not inside arg0's 8192-byte allocation (launch #42 k)"},
        {"binding 0.0 storage-buffer arg0 offset=-65", VKRR_ERR_RANGE, "starts at byte -1"},
        {"binding 0.0 storage-buffer arg0 size=0", VKRR_ERR_RANGE, "0 bytes from byte 64"},
        {"binding 0.0 storage-buffer arg0 size=u32@62", VKRR_ERR_RANGE, "bytes 62..65 are past"},
        {"push 0 u32 i32@56", VKRR_ERR_RANGE, "push 0: 'i32@56' is -8, outside its type's range"},
        {"push 0 f32 f32@62", VKRR_ERR_RANGE, "'f32@62' is past the 64-byte parameter block"},
        {"specialize 0 i32 u64@48*0x100000000", VKRR_ERR_RANGE, "outside its type's range"},
        {"dispatch 0 1 1", VKRR_ERR_RANGE, "dispatch '0' is 0 workgroups"},
        {"dispatch 1 1 1/(u32@32-20)", VKRR_ERR_RANGE, "division by zero"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char t[300];
        snprintf(t, sizeof t, "interface own\n%s\n", cases[i].line);
        d = NULL;
        err = (vkrr_error){0};
        vkrr_status st = vkrr_portdesc_parse(&d, t, strlen(t), "k.port", &err);
        if (st == VKRR_OK)
            st = vkrr_port_iface_eval_launch(vkrr_portdesc_iface(d), "k.port", &f.l, &run, &err);
        vkrr_portdesc_destroy(d);
        bool ok = st == cases[i].st && !strcmp(err.file, "k.port") && err.line == 2 &&
                  strstr(err.msg, cases[i].says);
        if (!CHECK(ok))
            fprintf(stderr, "    '%s': status %s, %s:%ld: %s\n", cases[i].line, vkrr_status_name(st),
                    err.file, err.line, err.msg);
    }
    /* lines that need another: interface own above; no binding or push twice */
    static const struct { const char *text; long line; const char *says; } more[] = {
        {"binding 0.0 storage-buffer arg0\n", 1, "'binding' describes a shader's own interface: it needs 'interface own' above it"},
        {"interface own\nbinding 0.1 storage-buffer arg0\nbinding 0.1 storage-buffer arg8\n", 3,
         "binding 0.1 is given twice (first on line 2)"},
        {"interface own\npush 0 u64 1\npush 4 u32 1\n", 3, "push 4: its bytes overlap the push of line 2"},
        {"interface own\nspecialize 3 u32 1\nspecialize 3 f32 1.0\n", 3, "specialize 3 is given twice"},
        {"interface own\ndispatch 1 1 1\ndispatch 1 1 1\n", 3, "dispatch is given twice (first on line 2)"},
        {"interface builtin\nbinding 0.0 storage-buffer arg0\n", 2, "needs 'interface own' above it"},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        d = NULL;
        err = (vkrr_error){0};
        vkrr_status st = vkrr_portdesc_parse(&d, more[i].text, strlen(more[i].text), "k.port", &err);
        vkrr_portdesc_destroy(d);
        if (!CHECK(st == VKRR_ERR_PARSE && err.line == more[i].line && strstr(err.msg, more[i].says)))
            fprintf(stderr, "    case %zu: status %s, line %ld: %s\n", i, vkrr_status_name(st), err.line,
                    err.msg);
    }
    /* interface builtin alone: bindings.glsl's, as without the line */
    d = NULL;
    CHECK(vkrr_portdesc_parse(&d, "interface builtin\n", 18, "k.port", &err) == VKRR_OK && d &&
          vkrr_portdesc_iface(d) == NULL);
    vkrr_portdesc_destroy(d);
}

int main(void)
{
    check_readme_example();
    check_views();
    check_errors();
    check_iface();
    check_set();
    check_tolerance_order();
    return test_finish("portdesc");
}
