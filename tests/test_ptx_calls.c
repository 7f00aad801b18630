/* test_ptx_calls: function calls on the PTX interpreter, on nvcc's own PTX
 * (tests/ptx/calls.cu), each result computed here in C:
 *   - __noinline__ functions with scalar arguments and a struct result;
 *   - recursion: fib (registers live across a call into the same function),
 *     sumdown (each call's local array, passed by pointer to the next: frames
 *     must not overlap), and a recursion too deep for the stack: an ERROR
 *     naming the function, never a wrong answer;
 *   - f64 sin and cos, whose large-argument path the math library calls
 *     (__internal_trig_reduction_slowpathd): within the 2 ULP the CUDA
 *     Programming Guide gives them, against the host's libm (itself within 1);
 *   - printf: the text the host's printf makes of the same format and
 *     values, in thread order, and its return value (the argument count);
 *   - assert: the launch fails with the assertion's text, file and thread;
 *   - calls through function pointers from a table a __device__ initializer
 *     fills, a different function in neighbouring lanes, a pointer
 *     initialized to a variable's element (generic(gvals)+8), and a pointer
 *     that is no function: a fault naming it.
 * And on PTX written here: a function the kernel never calls may hold an
 * instruction the interpreter does not implement without failing the
 * kernel; the kernel that does call it fails, naming the line.
 * And `vkrr rerun` on a capture of `say` and `check` written here: what the
 * kernel printed under its row, in --json, in --report; the assertion an
 * ERROR row with the GPU's message while the other launch passes. */
#include <stdio.h>
#include <stdlib.h>

#include "capture_write.h"
#include "ptx_testutil.h"

#define N 96u

static int c_sumdown(const int *acc, int n)
{
    int mine[4] = {n, n * 2, n * 3, n * 4};
    if (n == 0) {
        int s = 0;
        for (int i = 0; i < 4; i++)
            s += acc[i] * (i + 1);
        return s;
    }
    for (int i = 0; i < 4; i++)
        mine[i] += acc[i];
    return c_sumdown(mine, n - 1) + mine[n & 3];
}

static unsigned c_fib(unsigned n) { return n < 2 ? n : c_fib(n - 1) + c_fib(n - 2); }

static int64_t ulps(double a, double b)
{
    int64_t x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    if (x < 0)
        x = INT64_MIN - x;
    if (y < 0)
        y = INT64_MIN - y;
    return x > y ? x - y : y - x;
}

static void test_calls(const vkrr_ptx_module *m)
{
    static int out[4 * N];
    static float fout[N];
    static double dout[3 * N], din[N];
    static const double big[] = {1e6, -3.5e9, 1e22, 6.0e300, 1.0e15 + 0.5, 4.0e7, 1e100, -2e200};
    for (unsigned i = 0; i < N; i++)
        din[i] = i % 3 == 0 ? big[(i / 3) % 8] * (1.0 + i / 1000.0) : (double)i * 0.37 - 9.0;
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    ptxt_ptr(&a, fout, sizeof fout);
    ptxt_ptr(&a, dout, sizeof dout);
    ptxt_ptr(&a, din, sizeof din);
    ptxt_u32(&a, N);
    if (!ptxt_run(m, "calls", &a, 3, 40, 0)) /* 120 threads, the last 24 return early */
        return;
    unsigned bad = 0;
    int64_t worst = 0;
    for (unsigned i = 0; i < N; i++) {
        int z[4] = {1, 2, 3, 4};
        bool ok = out[4 * i] == (int)(3 * i) && fout[i] == ((float)i + 0.25f) * 0.5f &&
                  out[4 * i + 1] == c_sumdown(z, (int)(i % 6)) &&
                  out[4 * i + 2] == (int)c_fib(i % 12) &&
                  dout[3 * i + 2] == (double)i + (double)((float)i + 0.25f);
        int64_t us = ulps(dout[3 * i], sin(din[i])), uc = ulps(dout[3 * i + 1], cos(din[i]));
        if (us > worst)
            worst = us;
        if (uc > worst)
            worst = uc;
        ok = ok && us <= 3 && uc <= 3;
        if (!ok && bad++ < 6)
            fprintf(stderr, "  thread %u: %d %g %d %d | sin(%.17g) %.17g (%lld ulp) cos %.17g (%lld ulp)\n",
                    i, out[4 * i], (double)fout[i], out[4 * i + 1], out[4 * i + 2], din[i],
                    dout[3 * i], (long long)us, dout[3 * i + 1], (long long)uc);
    }
    printf("calls: %u threads, %u wrong; f64 sin/cos worst %lld ulp from the host's libm\n", N, bad,
           (long long)worst);
    CHECK_EQ_U64(bad, 0);
}

static void test_recursion_depth(const vkrr_ptx_module *m)
{
    static unsigned out[64];
    for (unsigned i = 0; i < 64; i++)
        out[i] = 1000u * i;
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, 20);
    if (!ptxt_run(m, "recurse", &a, 1, 64, 0))
        return;
    unsigned bad = 0;
    for (unsigned i = 0; i < 64; i++) {
        unsigned d = 20 + i;
        if (out[i] != 1000u * i + d * (d + 1) / 2 && bad++ < 4)
            fprintf(stderr, "  recurse thread %u: %u\n", i, out[i]);
    }
    CHECK_EQ_U64(bad, 0);
    /* far deeper than a thread's stack: an error naming the function */
    ptxt_args b = {0};
    ptxt_ptr(&b, out, sizeof out);
    ptxt_u32(&b, 100000);
    vkrr_error err = {0};
    vkrr_status st = ptxt_run_ex(m, "recurse", &b, 1, 32, 0, NULL, 0, NULL, 0, &err);
    printf("recursion 100000 deep: %s\n", err.msg);
    CHECK(st == VKRR_ERR_FAULT);
    CHECK(strstr(err.msg, "nested too deep") && strstr(err.msg, "'deep'"));
}

/* alloca in a kernel and in a function called 200 times (64 ints each:
 * 51 KB in all, more than a thread's stack unless each return frees its
 * allocation), against host C; an allocation larger than the stack is a
 * fault naming it */
static void test_alloca(const vkrr_ptx_module *m)
{
    static int in[64], out[32];
    uint64_t s = 3;
    for (int i = 0; i < 64; i++)
        in[i] = (int)(ptxt_rand(&s) % 2001) - 1000;
    ptxt_args a = {0};
    ptxt_ptr(&a, in, sizeof in);
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, 64);
    ptxt_u32(&a, 200);
    if (!ptxt_run(m, "stack", &a, 1, 32, 0))
        return;
    unsigned bad = 0;
    for (int t = 0; t < 32; t++) {
        int want = 0;
        for (int c = 0; c < 200; c++)
            for (int i = 0; i < 64; i++)
                want += in[(i * 7) % 64] ^ (c + t);
        for (int i = 0; i < 64; i++)
            want += in[(i * 5) % 64] * t;
        bad += out[t] != want;
    }
    printf("alloca: %u of 32 threads wrong\n", bad);
    CHECK_EQ_U64(bad, 0);
    ptxt_args b = {0};
    ptxt_ptr(&b, in, sizeof in);
    ptxt_ptr(&b, out, sizeof out);
    ptxt_u32(&b, 8192); /* 32 KiB */
    ptxt_u32(&b, 0);
    vkrr_error err = {0};
    vkrr_status st = ptxt_run_ex(m, "stack", &b, 1, 32, 0, NULL, 0, NULL, 0, &err);
    printf("alloca of 32 KiB: %s\n", err.msg);
    CHECK(st == VKRR_ERR_FAULT);
    CHECK(strstr(err.msg, "alloca of 32768 bytes overflows") != NULL);
}

static void test_printf(const vkrr_ptx_module *m)
{
    static int out[80];
    memset(out, 0xff, sizeof out);
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, 70);
    char *text = NULL;
    vkrr_ptx_launch l = {.grid = {2, 1, 1}, .block = {40, 1, 1}, .params = a.bytes,
                         .params_bytes = a.n, .regions = a.regions, .nregions = a.nregions,
                         .max_steps = 1u << 26, .printf_out = &text};
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_run(m, "say", &l, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        free(text);
        return;
    }
    char want[16384];
    size_t n = 0;
    for (unsigned i = 0; i < 70; i++)
        if (i % 3 != 1)
            n += (size_t)snprintf(want + n, sizeof want - n, "t%u: %d %5.2f|%-4x|%s %lld %c %e %p%%\n",
                                  i, -(int)i, 1.5 * i, i, "ok", (long long)i << 40,
                                  'a' + (int)(i % 26), (double)i / 7.0, (void *)0);
    bool same = text && !strcmp(text, want);
    if (!same)
        fprintf(stderr, "  printf gave:\n%s\n  want:\n%.400s\n", text ? text : "(nothing)", want);
    CHECK(same);
    unsigned bad = 0;
    for (unsigned i = 0; i < 80; i++)
        if (out[i] != (i < 70 && i % 3 != 1 ? 9 : -1))
            bad++;
    CHECK_EQ_U64(bad, 0); /* printf returned its 9 arguments */
    printf("printf: %zu bytes from %u threads, as the host formats them\n", n, 47u);
    free(text);
}

static void test_assert(const vkrr_ptx_module *m)
{
    static int out[64];
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, 37);
    vkrr_error err = {0};
    vkrr_status st = ptxt_run_ex(m, "check", &a, 2, 32, 0, NULL, 0, NULL, 0, &err);
    printf("assert: %s\n", err.msg);
    CHECK(st == VKRR_ERR_FAULT);
    CHECK(strstr(err.msg, "Assertion `i != n` failed.") && strstr(err.msg, "calls.cu") &&
          strstr(err.msg, "thread (5,0,0) of block (1,0,0)"));
}

static void test_pointers(const vkrr_ptx_module *m)
{
    enum { NP = 50 };
    static int out[2 * NP], a[NP], b[NP];
    for (int i = 0; i < NP; i++)
        a[i] = i * 7 - 100, b[i] = 3 * i + 1;
    for (int bad = -1; bad <= 5; bad += 6) {
        memset(out, 0, sizeof out);
        ptxt_args args = {0};
        ptxt_ptr(&args, out, sizeof out);
        ptxt_ptr(&args, a, sizeof a);
        ptxt_ptr(&args, b, sizeof b);
        ptxt_u32(&args, NP);
        ptxt_u32(&args, (uint32_t)bad);
        vkrr_error err = {0};
        vkrr_status st = ptxt_run_ex(m, "fptr", &args, 2, 32, 0, NULL, 0, NULL, 0, &err);
        if (bad >= 0) {
            printf("function pointer to data: %s\n", err.msg);
            CHECK(st == VKRR_ERR_FAULT && strstr(err.msg, "not the address of a function") &&
                  strstr(err.msg, "thread (5,0,0)"));
            continue;
        }
        if (!CHECK(st == VKRR_OK)) {
            vkrr_error_print(&err, stderr);
            continue;
        }
        unsigned wrong = 0;
        for (int i = 0; i < NP; i++) {
            int f = i % 3 == 0 ? a[i] + b[i] : i % 3 == 1 ? a[i] * b[i] : a[i] - b[i];
            int g = i & 1 ? a[i] + 3 : a[i] * 3;
            if ((out[i] != f + 3 || out[i + NP] != g) && wrong++ < 4)
                fprintf(stderr, "  fptr %d: %d %d\n", i, out[i], out[i + NP]);
        }
        printf("function pointers: %d threads, %u wrong\n", NP, wrong);
        CHECK_EQ_U64(wrong, 0);
    }
}

/* A function nobody calls may hold anything; one that is called may not. */
static void test_uncalled(void)
{
    static const char text[] =
        ".version 8.0\n.target sm_80\n.address_size 64\n"
        ".func (.param .b32 r) odd(.param .b32 x)\n{\n .reg .b32 %r<2>;\n"
        " ld.param.b32 %r0, [x];\n wgmma.fence.sync.aligned;\n"
        " st.param.b32 [r], %r0;\n ret;\n}\n"
        ".func (.param .b32 r) twice(.param .b32 x)\n{\n .reg .b32 %r<2>;\n"
        " ld.param.b32 %r0, [x];\n add.s32 %r1, %r0, %r0;\n st.param.b32 [r], %r1;\n}\n"
        ".visible .entry uses_odd(.param .u64 p)\n{\n .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n"
        " ld.param.u64 %rd0, [p];\n mov.u32 %r0, 7;\n"
        " { .param .b32 a; .param .b32 b; st.param.b32 [a], %r0;\n"
        "   call.uni (b), odd, (a); ld.param.b32 %r1, [b]; }\n st.global.u32 [%rd0], %r1;\n}\n"
        ".visible .entry plain(.param .u64 p)\n{\n .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n"
        " ld.param.u64 %rd0, [p];\n mov.u32 %r0, 21;\n"
        " { .param .b32 a; .param .b32 b; st.param.b32 [a], %r0;\n"
        "   call (b), twice, (a); ld.param.b32 %r1, [b]; }\n st.global.u32 [%rd0], %r1;\n}\n";
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, text, sizeof text - 1, "uncalled.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    uint32_t v = 0;
    ptxt_args a = {0};
    ptxt_ptr(&a, &v, sizeof v);
    CHECK(ptxt_run(m, "plain", &a, 1, 1, 0));
    CHECK_EQ_U64(v, 42);
    vkrr_status st = ptxt_run_ex(m, "uses_odd", &a, 1, 1, 0, NULL, 0, NULL, 0, &err);
    printf("uses_odd: %s\n", err.msg);
    CHECK(st == VKRR_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "wgmma") != NULL && err.line == 8);
    vkrr_ptx_module_free(m);
}

/* A capture of say (70 threads print, out[] gets printf's return value)
 * and check (thread 37 fails its assert). */
static bool say_capture(const char *dir, const char *ptx, size_t len)
{
    vkrr_error err = {0};
    vkrr_writer *w = NULL;
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir, .log_prefix = "[d4r nvcuda] "},
                                &err) == VKRR_OK))
        return false;
    const char *k[] = {"say", "check"};
    static int pre[80], post[80], cpost[64];
    memset(pre, 0xff, sizeof pre);
    for (unsigned i = 0; i < 80; i++)
        post[i] = i < 70 && i % 3 != 1 ? 9 : -1;
    for (unsigned i = 0; i < 64; i++)
        cpost[i] = (int)i;
    const uint64_t base = 0x7f0000000000ull;
    uint8_t args[16] = {0};
    memcpy(args, &base, 8);
    uint32_t n = 70;
    memcpy(args + 8, &n, 4);
    vkrr_alloc_record a1 = {base, sizeof pre, pre, post}, a2 = {base, sizeof cpost, pre, cpost};
    vkrr_pointer_record ptr = {0, 0, 0};
    vkrr_launch_record say = {.kernel = "say", .grid = {2, 1, 1}, .block = {40, 1, 1}, .args = args,
                              .args_bytes = 12, .allocs = &a1, .nallocs = 1, .pointers = &ptr,
                              .npointers = 1};
    uint8_t cargs[16];
    memcpy(cargs, args, 16);
    n = 37;
    memcpy(cargs + 8, &n, 4);
    vkrr_launch_record check = {.kernel = "check", .grid = {2, 1, 1}, .block = {32, 1, 1},
                                .args = cargs, .args_bytes = 12, .allocs = &a2, .nallocs = 1,
                                .pointers = &ptr, .npointers = 1};
    bool ok = CHECK(vkrr_writer_module(w, "calls.ptx", ptx, len, k, 2, &err) == VKRR_OK) &&
              CHECK(vkrr_writer_launch(w, &say, NULL, &err) == VKRR_OK) &&
              CHECK(vkrr_writer_launch(w, &check, NULL, &err) == VKRR_OK);
    if (!CHECK(vkrr_writer_close(w, &err) == VKRR_OK) || !ok) {
        vkrr_error_print(&err, stderr);
        return false;
    }
    return true;
}

static void test_rerun_capture(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/calls.sm80.ptx", VKRR_PTX_KERNEL_DIR);
    size_t len = 0;
    char *ptx = test_read_file(path, &len);
    char *root = test_tmpdir("ptx_calls");
    char cap[4096], cmd[12288];
    snprintf(cap, sizeof cap, "%s/say", root);
    if (!CHECK(ptx && say_capture(cap, ptx, len))) {
        free(ptx);
        return;
    }
    snprintf(cmd, sizeof cmd, "rerun '%s' --heatmaps none --json '%s/r.json' --report '%s/html'", cap,
             root, root);
    char *o = NULL, *e = NULL;
    int rc = test_run_vkrr(cmd, &o, &e);
    CHECK_EQ_U64(rc, 2); /* say passes, check is an ERROR */
    CHECK(o && strstr(o, "1 PASS, 0 FAIL") && strstr(o, "1 ERROR"));
    CHECK(o && strstr(o, "printf: t0: 0  0.00|0   |ok 0 a 0.000000e+00 (nil)%") &&
          strstr(o, "printf: ... 39 more lines"));
    CHECK(o && strstr(o, "Assertion `i != n` failed.") && strstr(o, "thread (5,0,0) of block (1,0,0)"));
    if (o)
        fprintf(rc != 2 ? stderr : stdout, "%s%s", o, rc != 2 && e ? e : "");
    snprintf(path, sizeof path, "%s/r.json", root);
    char *json = test_read_file(path, &len);
    CHECK(json && strstr(json, "\"printf\": \"t0: 0  0.00|0   |ok 0 a 0.000000e+00 (nil)%\\nt2: -2"));
    CHECK(json && strstr(json, "t69: -69 103.50|45  |ok 75866302316544 r 9.857143e+00 (nil)%\\n\""));
    snprintf(path, sizeof path, "%s/html/index.html", root);
    char *html = test_read_file(path, &len);
    CHECK(html && strstr(html, "<summary>printf</summary><pre>t0: 0"));
    /* merge reads it back */
    snprintf(cmd, sizeof cmd, "merge '%s/r.json'", root);
    char *mo = NULL;
    test_run_vkrr(cmd, &mo, NULL);
    CHECK(mo && strstr(mo, "printf: t0: 0  0.00|0   |ok"));
    free(mo);
    free(o);
    free(e);
    free(json);
    free(html);
    free(ptx);
    test_rmtree(root);
    free(root);
}

int main(void)
{
    static const unsigned sms[] = {80, 89};
    for (unsigned k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("calls", sms[k]);
        if (!m)
            continue;
        test_calls(m);
        test_recursion_depth(m);
        test_alloca(m);
        test_printf(m);
        test_assert(m);
        test_pointers(m);
        vkrr_ptx_module_free(m);
    }
    test_uncalled();
    test_rerun_capture();
    return test_finish("ptx_calls");
}
