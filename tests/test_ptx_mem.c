/* test_ptx_mem: memory instructions (tests/ptx/mem_ops.cu): global and
 * shared atomics of every kind (their final values, and the old values they
 * return: a chain of partial sums, a permutation of exchanged values, one CAS
 * winner), red, f32 and f16x2 atomic adds, local arrays indexed by data,
 * vector and narrow sign-extending loads, ld.global.nc, stores of every
 * width, dynamic shared memory, and cp.async (with zero fill) across
 * commit/wait groups.  And an out-of-bounds store is a fault naming the
 * instruction, not a crash. */
#include <stdio.h>

#include "ptx_testutil.h"

#define MEM_NOUT 16
#define N 256

struct counters {
    uint32_t add, inc, dec, max, min, andv, orv, xorv, exch_seen, cas_wins;
    float fsum;
    uint32_t h2;
    uint64_t add64;
    int32_t smin;
    uint32_t pad;
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void check_atom(vkrr_ptx_module *m, const uint32_t *in)
{
    static struct counters g;
    static uint32_t out[N * 4];
    memset(&g, 0, sizeof g);
    g.dec = 5;
    g.min = 0xffffffffu;
    g.andv = 0xffffffffu;
    g.smin = INT32_MAX;
    g.exch_seen = 0xabcdef01u;
    memset(out, 0, sizeof out);
    ptxt_args a = {0};
    ptxt_ptr(&a, (void *)in, N * 4);
    ptxt_ptr(&a, &g, sizeof g);
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, N);
    if (!ptxt_run(m, "k_atom", &a, N / 64, 64, 0))
        return;
    uint32_t add = 0, mx = 0, mn = 0xffffffffu, an = 0xffffffffu, orv = 0, xr = 0;
    uint64_t add64 = 0;
    int32_t smin = INT32_MAX;
    float fsum = 0;
    for (int i = 0; i < N; i++) {
        uint32_t v = in[i];
        add += (v & 0xff) | 1u;
        mx = v > mx ? v : mx;
        mn = v < mn ? v : mn;
        an &= v | 0x0f0f0f0fu;
        orv |= v & 0x00ff00ffu;
        xr ^= v;
        add64 += (uint64_t)v << 8;
        smin = (int32_t)v < smin ? (int32_t)v : smin;
        fsum += (float)(v & 0xff) * 0.25f;
    }
    CHECK_EQ_U64(g.add, add);
    CHECK_EQ_U64(g.inc, N % 1001);
    CHECK_EQ_U64(g.dec, (uint32_t)(5 - N));
    CHECK_EQ_U64(g.max, mx);
    CHECK_EQ_U64(g.min, mn);
    CHECK_EQ_U64(g.andv, an);
    CHECK_EQ_U64(g.orv, orv);
    CHECK_EQ_U64(g.xorv, xr);
    CHECK_EQ_U64(g.add64, add64);
    CHECK_EQ_U64((uint32_t)g.smin, (uint32_t)smin);
    CHECK(g.fsum == fsum);
    CHECK_EQ_U64(g.h2, 0x5c00u | 0x5800u << 16); /* 256 x 1.0 | 256 x 0.5 */
    CHECK_EQ_U64(g.pad, 2 * N);
    /* the old values of atomicAdd, sorted, chain through every increment */
    static uint32_t olds[N], idx[N];
    for (int i = 0; i < N; i++)
        olds[i] = out[i * 4];
    memcpy(idx, olds, sizeof olds);
    qsort(idx, N, 4, cmp_u32);
    CHECK_EQ_U64(idx[0], 0);
    bool chain = true;
    for (int k = 0; k + 1 < N; k++) {
        int who = -1;
        for (int i = 0; i < N; i++)
            if (olds[i] == idx[k])
                who = i;
        chain = chain && who >= 0 && idx[k + 1] == idx[k] + ((in[who] & 0xff) | 1u);
    }
    CHECK(chain);
    /* exch: {previous values} + final == {initial} + {inputs} */
    static uint32_t got[N + 1], want[N + 1];
    for (int i = 0; i < N; i++) {
        got[i] = out[i * 4 + 1];
        want[i] = in[i];
    }
    got[N] = g.exch_seen;
    want[N] = 0xabcdef01u;
    qsort(got, N + 1, 4, cmp_u32);
    qsort(want, N + 1, 4, cmp_u32);
    CHECK(!memcmp(got, want, sizeof got));
    unsigned winners = 0;
    int winner = -1;
    for (int i = 0; i < N; i++)
        if (out[i * 4 + 2] == 1) {
            winners++;
            winner = i;
        }
    CHECK_EQ_U64(winners, 1);
    CHECK_EQ_U64(g.cas_wins, (uint32_t)winner + 1);
    for (int b = 0; b < N / 64; b++) {
        uint32_t smax = 0;
        for (int t = 0; t < 64; t++)
            smax = (in[b * 64 + t] & 0xffff) > smax ? in[b * 64 + t] & 0xffff : smax;
        CHECK_EQ_U64(out[(b * 64) * 4 + 3], 64);
        CHECK_EQ_U64(out[(b * 64 + 1) * 4 + 3], smax);
        CHECK(ptxt_f(out[(b * 64 + 2) * 4 + 3]) == 32.0f);
        CHECK_EQ_U64(out[(b * 64 + 3) * 4 + 3], 64); /* the CAS chain in lane order */
    }
}

static void check_mem(vkrr_ptx_module *m, const uint32_t *in, const int8_t *bytes)
{
    static uint32_t out[N * MEM_NOUT];
    memset(out, 0, sizeof out);
    ptxt_args a = {0};
    ptxt_ptr(&a, (void *)in, N * 4);
    ptxt_ptr(&a, (void *)bytes, N);
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, N);
    if (!ptxt_run(m, "k_mem", &a, N / 64, 64, 2 * 64 * 16))
        return;
    unsigned bad = 0;
    for (int i = 0; i < N; i++) {
        uint32_t v = in[i], e[MEM_NOUT], t = (uint32_t)i % 64, blk = (uint32_t)i / 64;
        e[0] = (v * (v % 37) + v % 37) + (v * ((v >> 8) % 37) + (v >> 8) % 37);
        const uint32_t *q = in + (i / 4) * 4;
        e[1] = q[0] ^ (q[1] << 1) ^ (q[2] << 2) ^ (q[3] << 3);
        e[2] = in[(i / 2) * 2] + in[(i / 2) * 2 + 1];
        e[3] = (uint32_t)(int32_t)bytes[i];
        int16_t sh;
        memcpy(&sh, bytes + (i / 2) * 2, 2);
        e[4] = (uint32_t)(int32_t)sh;
        uint32_t grp = ((t ^ 3) ^ 1) % 16;
        e[5] = in[blk * 64 + grp * 4];
        e[6] = in[blk * 64 + grp * 4 + 3];
        e[7] = v;
        e[8] = 0;
        e[9] = (v & 0xffff) | (v >> 16) << 16;
        e[10] = v + 1;
        e[11] = v + 2;
        e[12] = N;
        e[13] = t;
        e[14] = blk;
        e[15] = 64;
        for (int k = 0; k < MEM_NOUT; k++)
            if (out[i * MEM_NOUT + k] != e[k] && bad++ < 12)
                fprintf(stderr, "k_mem thread %d out[%d]: %08x, want %08x\n", i, k, out[i * MEM_NOUT + k], e[k]);
    }
    CHECK_EQ_U64(bad, 0);
    /* out of bounds: the output allocation one word too small */
    ptxt_args b = a;
    b.regions[2].size = sizeof out - 4;
    vkrr_error err = {0};
    vkrr_status st = ptxt_run_ex(m, "k_mem", &b, N / 64, 64, 2 * 64 * 16, NULL, 0, NULL, 0, &err);
    CHECK(st == VKRR_ERR_FAULT);
    CHECK(strstr(err.msg, "st.global") && strstr(err.msg, "past the end of allocation 2") &&
          err.line > 0);
    if (st != VKRR_ERR_FAULT)
        vkrr_error_print(&err, stderr);
    /* too little dynamic shared memory: a fault too */
    st = ptxt_run_ex(m, "k_mem", &a, N / 64, 64, 64 * 16, NULL, 0, NULL, 0, &err);
    CHECK(st == VKRR_ERR_FAULT && strstr(err.msg, "shared"));
}

/* .b128 registers, ld/st/mov (PTX 8.3; ptxas accepts this text for sm_80):
 * a register is 16 bytes in two 64-bit halves, loaded and stored whole
 * (16-aligned), packed and unpacked by mov; any other use is refused. */
static void check_b128(void)
{
    static const char head[] =
        ".version 8.3\n.target sm_80\n.address_size 64\n.global .align 16 .b128 gq;\n"
        ".visible .entry q(.param .u64 in, .param .u64 out)\n{\n .reg .b128 %q<3>;\n .reg .b64 %rd<8>;\n"
        " ld.param.u64 %rd1, [in];\n cvta.to.global.u64 %rd1, %rd1;\n"
        " ld.param.u64 %rd2, [out];\n cvta.to.global.u64 %rd2, %rd2;\n";
    char text[2048];
    snprintf(text, sizeof text, "%s%s", head,
             " ld.global.b128 %q0, [%rd1];\n mov.b128 {%rd3, %rd4}, %q0;\n add.s64 %rd5, %rd3, 1;\n"
             " mov.b128 %q1, {%rd4, %rd5};\n mov.b128 %q2, %q1;\n st.global.b128 [%rd2], %q2;\n"
             " st.global.b128 [%rd2+16], %q0;\n st.global.b128 [gq], %q0;\n"
             " ld.global.b128 %q2, [gq];\n st.global.b128 [%rd2+32], %q2;\n"
             " mov.b128 {_, %rd6}, %q1;\n st.global.u64 [%rd2+48], %rd6;\n ret;\n}\n");
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, text, strlen(text), "q.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static _Alignas(16) uint64_t in[2] = {0x0123456789abcdefull, 0xfedcba9876543210ull};
    static _Alignas(16) uint64_t out[8];
    ptxt_args a = {0};
    ptxt_ptr(&a, in, sizeof in);
    ptxt_ptr(&a, out, sizeof out);
    CHECK(ptxt_run(m, "q", &a, 1, 32, 0));
    CHECK_EQ_U64(out[0], in[1]);
    CHECK_EQ_U64(out[1], in[0] + 1);
    CHECK_EQ_U64(out[2], in[0]);
    CHECK_EQ_U64(out[3], in[1]);
    CHECK_EQ_U64(out[4], in[0]);
    CHECK_EQ_U64(out[5], in[1]);
    CHECK_EQ_U64(out[6], in[0] + 1);
    vkrr_ptx_module_free(m);

    /* 16 bytes from an address 8 bytes off: a misaligned access, not a guess */
    snprintf(text, sizeof text, "%s%s", head, " ld.global.b128 %q0, [%rd1+8];\n st.global.b128 [%rd2], %q0;\n"
             " ret;\n}\n");
    m = NULL;
    if (CHECK(vkrr_ptx_module_load(&m, text, strlen(text), "q.ptx", &err) == VKRR_OK)) {
        static _Alignas(16) uint64_t big[4];
        ptxt_args b = {0};
        ptxt_ptr(&b, big, sizeof big);
        ptxt_ptr(&b, out, sizeof out);
        if (!CHECK(ptxt_run_ex(m, "q", &b, 1, 1, 0, NULL, 0, NULL, 0, &err) == VKRR_ERR_FAULT && err.line == 13))
            vkrr_error_print(&err, stderr);
    }
    vkrr_ptx_module_free(m);

    /* any other use of a .b128 register is refused naming the line */
    snprintf(text, sizeof text, "%s%s", head, " add.s64 %rd3, %q0, 1;\n ret;\n}\n");
    m = NULL;
    CHECK(vkrr_ptx_module_load(&m, text, strlen(text), "q.ptx", &err) == VKRR_OK);
    if (m) {
        ptxt_args c = {0};
        ptxt_ptr(&c, in, sizeof in);
        ptxt_ptr(&c, out, sizeof out);
        vkrr_status st = ptxt_run_ex(m, "q", &c, 1, 1, 0, NULL, 0, NULL, 0, &err);
        if (!CHECK(st == VKRR_ERR_UNSUPPORTED && err.line == 13 && strstr(err.msg, ".b128 register")))
            vkrr_error_print(&err, stderr);
    }
    vkrr_ptx_module_free(m);
}

/* Cache policies and eviction hints change nothing a kernel computes:
 * createpolicy gives an opaque policy (0 here), ld/st/cp.async with
 * .L2::cache_hint take it as their last operand and ignore it. */
static const char cache_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry ch(.param .u64 in, .param .u64 out)\n"
    "{\n"
    " .reg .b32 %r<8>;\n"
    " .reg .b64 %rd<8>;\n"
    " .shared .align 16 .b8 sbuf[16];\n"
    " ld.param.u64 %rd1, [in];\n"
    " cvta.to.global.u64 %rd1, %rd1;\n"
    " ld.param.u64 %rd2, [out];\n"
    " cvta.to.global.u64 %rd2, %rd2;\n"
    " createpolicy.fractional.L2::evict_last.b64 %rd3, 1.0;\n"
    " ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd3;\n"
    " add.u32 %r2, %r1, 1;\n"
    " st.global.L2::cache_hint.u32 [%rd2], %r2, %rd3;\n"
    " cp.async.ca.shared.global.L2::cache_hint [sbuf], [%rd1+4], 4, %rd3;\n"
    " cp.async.wait_all;\n"
    " ld.shared.u32 %r3, [sbuf];\n"
    " st.global.L1::no_allocate.u32 [%rd2+4], %r3;\n"
    " st.global.u64 [%rd2+8], %rd3;\n"
    " ret;\n"
    "}\n"
;

static void check_cache_hints(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, cache_ptx, strlen(cache_ptx), "ch.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static _Alignas(16) uint32_t in[2] = {41, 77};
    static _Alignas(16) uint64_t out[2];
    ptxt_args a = {0};
    ptxt_ptr(&a, in, sizeof in);
    ptxt_ptr(&a, out, sizeof out);
    if (ptxt_run(m, "ch", &a, 1, 1, 0)) {
        CHECK_EQ_U64(out[0], 42u | (uint64_t)77 << 32);
        CHECK_EQ_U64(out[1], 0);
    }
    vkrr_ptx_module_free(m);
}

int main(void)
{
    check_b128();
    check_cache_hints();
    static _Alignas(16) uint32_t in[N];
    static _Alignas(16) int8_t bytes[N];
    uint64_t s = 17;
    for (int i = 0; i < N; i++) {
        in[i] = ptxt_rand(&s);
        bytes[i] = (int8_t)ptxt_rand(&s);
    }
    static const unsigned sms[2] = {80, 89};
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("mem_ops", sms[k]);
        if (!m)
            continue;
        check_atom(m, in);
        check_mem(m, in, bytes);
        /* module variables from their initializers, at every launch */
        for (int run = 0; run < 2; run++) {
            static uint32_t gout[2 * 96];
            ptxt_args g = {0};
            ptxt_ptr(&g, gout, sizeof gout);
            ptxt_u32(&g, 96);
            if (!ptxt_run(m, "k_globals", &g, 3, 32, 0))
                break;
            static const float tab[4] = {1.5f, -2.0f, 0.25f, 8.0f};
            bool seen[96] = {0}, ok = true;
            for (int i = 0; i < 96; i++) {
                ok = ok && ptxt_f(gout[2 * i]) == tab[i & 3] * 2.0f;
                uint32_t old = gout[2 * i + 1];
                ok = ok && old >= 100 && old < 196 && !seen[old - 100];
                if (old >= 100 && old < 196)
                    seen[old - 100] = true;
            }
            CHECK(ok);
        }
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_mem");
}
