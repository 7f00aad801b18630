/* test_ptx_robust: malformed and truncated PTX never crashes the
 * interpreter.  Every prefix of several real modules (nvcc's PTX of rrref and
 * of the instruction kernels) loads or fails with an error naming the file
 * and a line; thousands of corruptions (flipped bytes, dropped, duplicated
 * and swapped lines, spliced tokens) likewise, and every entry of a corrupted
 * module that still decodes is run on a small launch with no memory: it must
 * come back (a fault, a deadlock, the step limit, or success), never crash
 * or hang.  Run under ASan+UBSan by the sanitizer build.  Also: an
 * unimplemented instruction is VKRR_ERR_UNSUPPORTED naming it and its line. */
#include "ptx_testutil.h"

static unsigned loaded, failed;

static void try_load(const char *text, size_t len, bool run)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    vkrr_status st = vkrr_ptx_module_load(&m, text, len, "robust.ptx", &err);
    if (st != VKRR_OK) {
        failed++;
        /* every load error names the file and a line */
        if (!CHECK(err.line >= 1 && !strcmp(err.file, "robust.ptx") && err.status == st))
            vkrr_error_print(&err, stderr);
        return;
    }
    loaded++;
    const char *names[16];
    uint32_t n = vkrr_ptx_module_entries(m, names, 16);
    for (uint32_t k = 0; k < n && k < 16; k++) {
        if (vkrr_ptx_entry_status(m, names[k], &err) != VKRR_OK) {
            CHECK(err.line >= 1 && err.file[0]);
            continue;
        }
        if (!run)
            continue;
        static uint8_t params[4096];
        /* The JIT compiles each module anew (LLVM, about a second a kernel on
         * CI's machines, cold cache): every 16th decoded module runs on the
         * default engine (the JIT, or both under the oracle), the rest on the
         * interpreter, which is what corruptions reach first. */
        static unsigned runs;
        vkrr_ptx_launch l = {.grid = {2, 1, 1}, .block = {40, 1, 1}, .params = params,
                             .params_bytes = sizeof params, .threads = 1, .max_steps = 20000,
                             .engine = runs++ % 16 ? VKRR_PTX_ENGINE_INTERP : VKRR_PTX_ENGINE_DEFAULT};
        vkrr_status rs = vkrr_ptx_run(m, names[k], &l, &err);
        CHECK(rs == VKRR_OK || err.status == rs);
    }
    vkrr_ptx_module_free(m);
}

static void prefixes(const char *path, size_t step)
{
    size_t len = 0;
    char *text = test_read_file(path, &len);
    if (!CHECK(text != NULL))
        return;
    for (size_t n = 0; n <= len; n += step)
        try_load(text, n, false);
    try_load(text, len, false);
    free(text);
}

/* one random corruption of text into out; returns its length */
static size_t corrupt(const char *text, size_t len, char *out, uint64_t *s)
{
    size_t n = len;
    memcpy(out, text, len);
    int kind = (int)(ptxt_rand(s) % 6);
    size_t at = len ? ptxt_rand(s) % len : 0;
    switch (kind) {
    case 0: /* flip bytes */
        for (int k = 0; k < 1 + (int)(ptxt_rand(s) % 4); k++)
            out[ptxt_rand(s) % len] ^= (char)(1u << (ptxt_rand(s) % 8));
        break;
    case 1: { /* drop a line */
        size_t a = at, b = at;
        while (a > 0 && out[a - 1] != '\n')
            a--;
        while (b < n && out[b] != '\n')
            b++;
        memmove(out + a, out + b, n - b);
        n -= b - a;
        break;
    }
    case 2: { /* duplicate a line */
        size_t a = at, b = at;
        while (a > 0 && out[a - 1] != '\n')
            a--;
        while (b < len && out[b] != '\n')
            b++;
        memcpy(out, text, b);
        memcpy(out + b, text + a, b - a);
        memcpy(out + b + (b - a), text + b, len - b);
        n = len + (b - a);
        break;
    }
    case 3: { /* a byte from elsewhere */
        static const char pick[] = "{}[];,.%@!|<>-+0x0f_$\"/*\n ";
        out[at] = pick[ptxt_rand(s) % (sizeof pick - 1)];
        break;
    }
    case 4: { /* swap two lines' starts */
        size_t b = ptxt_rand(s) % len;
        char t = out[at];
        out[at] = out[b];
        out[b] = t;
        break;
    }
    default: { /* insert a random token */
        static const char *const tok[] = {" bra $L__BB0_1;", " bar.sync 0;", " }", " {", " ret;",
                                          " .reg .b32 %r<9999999>;", " shfl.sync.idx.b32 %r1, %r1, 0, 31, 3;",
                                          " ld.global.u32 %r1, [%rd1+-8];", " @%p1 exit;", ".local .b8 x[1048577];"};
        const char *t = tok[ptxt_rand(s) % 10];
        size_t tl = strlen(t);
        memcpy(out, text, at);
        memcpy(out + at, t, tl);
        memcpy(out + at + tl, text + at, len - at);
        n = len + tl;
        break;
    }
    }
    return n;
}

static void corruptions(const char *path, unsigned count)
{
    size_t len = 0;
    char *text = test_read_file(path, &len);
    if (!CHECK(text != NULL))
        return;
    char *buf = malloc(2 * len + 256);
    uint64_t s = 1234;
    for (unsigned i = 0; i < count; i++) {
        size_t n = corrupt(text, len, buf, &s);
        try_load(buf, n, true);
    }
    free(buf);
    free(text);
}

static void unsupported(void)
{
    const char *text = ".version 9.0\n.target sm_80\n.address_size 64\n"
                       ".visible .entry k(.param .u64 p)\n{\n .reg .b32 %r<3>;\n"
                       " mov.u32 %r1, 1;\n wgmma.fence.sync.aligned;\n ret;\n}\n";
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, text, strlen(text), "u.ptx", &err) == VKRR_OK))
        return;
    CHECK(vkrr_ptx_entry_status(m, "k", &err) == VKRR_ERR_UNSUPPORTED);
    CHECK(err.line == 8 && strstr(err.msg, "wgmma") && !strcmp(err.file, "u.ptx"));
    /* and running it is that error too, with the exit code of bad input */
    uint64_t p = 0;
    vkrr_ptx_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .params = (uint8_t *)&p, .params_bytes = 8};
    CHECK(vkrr_ptx_run(m, "k", &l, &err) == VKRR_ERR_UNSUPPORTED);
    CHECK_EQ_U64(vkrr_status_exit_code(VKRR_ERR_UNSUPPORTED), 2);
    vkrr_ptx_module_free(m);
    /* a hang is the step limit, not a hang */
    const char *spin = ".version 9.0\n.target sm_80\n.address_size 64\n"
                       ".visible .entry s()\n{\n$L: bra $L;\n}\n";
    CHECK(vkrr_ptx_module_load(&m, spin, strlen(spin), "s.ptx", &err) == VKRR_OK);
    vkrr_ptx_launch ls = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .max_steps = 1000};
    CHECK(vkrr_ptx_run(m, "s", &ls, &err) == VKRR_ERR_FAULT && strstr(err.msg, "hang") && err.line == 6);
    vkrr_ptx_module_free(m);
}

/* An array element as an operand (PTX "Arrays as Operands"), as tinygrad's
 * PTX renderer writes it (`mov.u64 %rd2, local0[0];`: the array's address). */
static void array_operand(void)
{
    const char *text = ".version 7.8\n.target sm_80\n.address_size 64\n"
                       ".visible .entry r(.param .u64 out)\n{\n .reg .b32 %r<4>;\n .reg .b64 %rd<6>;\n"
                       " .shared .align 4 .b8 local0[256];\n ld.param.u64 %rd1, [out];\n"
                       " mov.u32 %r1, %tid.x;\n mov.u64 %rd2, local0[0];\n mul.wide.u32 %rd3, %r1, 4;\n"
                       " add.s64 %rd4, %rd2, %rd3;\n st.shared.u32 [%rd4], %r1;\n bar.sync 0;\n"
                       " ld.shared.u32 %r2, [%rd2+20];\n cvta.to.global.u64 %rd5, %rd1;\n"
                       " st.global.u32 [%rd5], %r2;\n ret;\n}\n";
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, text, strlen(text), "a.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    uint32_t out = 0;
    ptxt_args a = {0};
    ptxt_ptr(&a, &out, sizeof out);
    CHECK(ptxt_run(m, "r", &a, 1, 32, 0));
    CHECK_EQ_U64(out, 5); /* thread 5 stored its id at local0 + 20 */
    vkrr_ptx_module_free(m);
}

/* Another index counts scalars of the array's type, as ptxas compiles it
 * (checked byte for byte against `a+OFFSET` with ptxas 13): `a[3]` of a
 * .u32 array is a+12, of a .u64 one a+24, of a .f16 one a+6, `a[1]` of a
 * .v2 .u32 one a+4; in ld/st it is the element itself.  A register or an
 * expression as the index is refused naming the line. */
static void array_index(void)
{
    static const char head[] =
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".global .align 4 .u32 arr[8] = {10, 11, 12, 13, 14, 15, 16, 17};\n"
        ".global .align 8 .u64 arr64[4] = {100, 101, 102, 103};\n"
        ".global .align 8 .v2 .u32 av[4];\n"
        ".global .align 2 .f16 ah[8];\n"
        ".visible .entry r(.param .u64 out)\n{\n .reg .b32 %r<8>;\n .reg .b64 %rd<12>;\n"
        " ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd1, %rd1;\n";
    char text[2048];
    snprintf(text, sizeof text, "%s%s", head,
             " mov.u64 %rd2, arr[3];\n ld.global.u32 %r1, [%rd2];\n"   /* 13 */
             " ld.global.u32 %r2, arr[5];\n"                            /* 15 */
             " mov.u64 %rd3, arr64[2];\n ld.global.u64 %rd4, [%rd3];\n" /* 102 */
             " ld.global.u64 %rd5, arr64[3];\n"                         /* 103 */
             " st.global.u32 arr[1], %r2;\n ld.global.u32 %r3, [arr+4];\n" /* 15 */
             " mov.u64 %rd6, av[1];\n mov.u64 %rd7, av;\n sub.s64 %rd8, %rd6, %rd7;\n"
             " mov.u64 %rd9, ah[3];\n mov.u64 %rd10, ah;\n sub.s64 %rd11, %rd9, %rd10;\n"
             " st.global.u32 [%rd1], %r1;\n st.global.u32 [%rd1+4], %r2;\n"
             " st.global.u32 [%rd1+8], %r3;\n st.global.u64 [%rd1+16], %rd4;\n"
             " st.global.u64 [%rd1+24], %rd5;\n st.global.u64 [%rd1+32], %rd8;\n"
             " st.global.u64 [%rd1+40], %rd11;\n ret;\n}\n");
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, text, strlen(text), "i.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    uint64_t out[6] = {0};
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    CHECK(ptxt_run(m, "r", &a, 1, 1, 0));
    uint32_t w[3];
    memcpy(w, out, sizeof w);
    CHECK_EQ_U64(w[0], 13);
    CHECK_EQ_U64(w[1], 15);
    CHECK_EQ_U64(w[2], 15);
    CHECK_EQ_U64(out[2], 102);
    CHECK_EQ_U64(out[3], 103);
    CHECK_EQ_U64(out[4], 4); /* .v2 .u32: the scalar's size */
    CHECK_EQ_U64(out[5], 6); /* .f16 */
    vkrr_ptx_module_free(m);

    static const char *const refused[] = {" mov.u32 %r1, 1;\n mov.u64 %rd2, arr[%r1];\n ret;\n}\n",
                                          " ld.global.u32 %r1, arr[5+1];\n ret;\n}\n"};
    for (int i = 0; i < 2; i++) {
        snprintf(text, sizeof text, "%s%s", head, refused[i]);
        m = NULL;
        /* the module loads (a body that does not parse costs only its kernel) */
        CHECK(vkrr_ptx_module_load(&m, text, strlen(text), "i.ptx", &err) == VKRR_OK);
        vkrr_status st = vkrr_ptx_entry_status(m, "r", &err);
        if (!CHECK(st == VKRR_ERR_UNSUPPORTED && err.line == 15 - i && strstr(err.msg, "only NAME[N]")))
            vkrr_error_print(&err, stderr);
        vkrr_ptx_module_free(m);
    }
}

int main(void)
{
    char path[4096];
    static const char *const small[] = {"int_ops.sm80.ptx", "warp_ops.sm89.ptx", "cvt_ops.sm89.ptx",
                                        "mma_ops.sm89.ptx", "tex_ops.sm80.ptx"};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", VKRR_PTX_KERNEL_DIR, small[i]);
        prefixes(path, 1);
        corruptions(path, 400);
    }
    snprintf(path, sizeof path, "%s/rrref_expo.ptx", VKRR_PTX_RRREF_DIR);
    prefixes(path, 1);
    corruptions(path, 400);
    snprintf(path, sizeof path, "%s/rrref_output.ptx", VKRR_PTX_RRREF_DIR);
    prefixes(path, 97);
    fprintf(stderr, "ptx_robust: %u loads succeeded, %u failed cleanly\n", loaded, failed);
    CHECK(loaded > 100 && failed > 1000);
    unsupported();
    array_operand();
    array_index();
    return test_finish("ptx_robust");
}
