/* test_ptx_int: integer and bit instructions (tests/ptx/int_ops.cu, PTX for
 * compute_80 and compute_89) run by the interpreter against values computed
 * here from the PTX ISA's definitions: prmt (every mode), bfe, bfi, brev,
 * popc, clz, bfind, lop3, shf, dp4a, dp2a, mul.hi, mad, sad, div, rem, min,
 * max, abs, shifts past the width, mul24, saturating add/sub, the carry
 * chain, mul.wide, and the 64-bit forms. */
#include "ptx_testutil.h"

#define INT_NOUT 48
#define N 200

static uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint8_t src[8];
    for (int i = 0; i < 4; i++) {
        src[i] = (uint8_t)(a >> (8 * i));
        src[4 + i] = (uint8_t)(b >> (8 * i));
    }
    uint32_t r = 0, c2 = c & 3;
    /* the selection tables of the PTX ISA (msb first there; index = result byte) */
    static const uint8_t f4e[4][4] = {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}};
    static const uint8_t b4e[4][4] = {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}};
    static const uint8_t rc8[4][4] = {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}};
    static const uint8_t ecl[4][4] = {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}};
    static const uint8_t ecr[4][4] = {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}};
    static const uint8_t rc16[4][4] = {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}};
    const uint8_t(*tab)[4] = mode == 1 ? f4e : mode == 2 ? b4e : mode == 3 ? rc8 : mode == 4 ? ecl
                           : mode == 5 ? ecr : rc16;
    for (int i = 0; i < 4; i++) {
        uint8_t v;
        if (mode == 0) {
            unsigned sel = (c >> (4 * i)) & 0xf;
            v = src[sel & 7];
            if (sel & 8)
                v = (v & 0x80) ? 0xff : 0;
        } else {
            v = src[tab[c2][i]];
        }
        r |= (uint32_t)v << (8 * i);
    }
    return r;
}

static uint64_t bfe_ref(uint64_t a, uint32_t b, uint32_t c, int bits, bool sgn)
{
    int msb = bits - 1;
    unsigned pos = b & 0xff, len = c & 0xff;
    int sbit = 0;
    if (sgn && len != 0) {
        unsigned t = pos + len - 1 < (unsigned)msb ? pos + len - 1 : (unsigned)msb;
        sbit = (int)((a >> t) & 1);
    }
    uint64_t d = 0;
    for (int i = 0; i <= msb; i++) {
        int bit = ((unsigned)i < len && pos + (unsigned)i <= (unsigned)msb) ? (int)((a >> (pos + i)) & 1) : sbit;
        d |= (uint64_t)bit << i;
    }
    return d;
}

static uint32_t lop3_ref(uint32_t a, uint32_t b, uint32_t c, uint8_t lut)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) {
        unsigned idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        r |= (uint32_t)((lut >> idx) & 1) << i;
    }
    return r;
}

static uint32_t shf_ref(uint32_t a, uint32_t b, uint32_t c, bool right, bool wrap)
{
    uint32_t n = wrap ? c & 31 : (c > 32 ? 32 : c);
    uint64_t v = (uint64_t)b << 32 | a;
    return right ? (uint32_t)(v >> n) : (uint32_t)((v << n) >> 32);
}

static int32_t sx8(uint32_t v, int i) { return (int8_t)(uint8_t)(v >> (8 * i)); }
static int32_t zx8(uint32_t v, int i) { return (uint8_t)(v >> (8 * i)); }

static uint32_t bfind_ref(uint32_t a, bool sgn, bool shiftamt)
{
    uint32_t v = (sgn && (a >> 31)) ? ~a : a;
    for (int i = 31; i >= 0; i--)
        if ((v >> i) & 1)
            return shiftamt ? (uint32_t)(31 - i) : (uint32_t)i;
    return 0xffffffffu;
}

static uint32_t sat32(int64_t v) { return (uint32_t)(int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v); }

static void expect32(const uint32_t *o, uint32_t a, uint32_t b, uint32_t c, uint32_t *e)
{
    (void)o;
    for (int m = 0; m < 7; m++)
        e[m] = prmt_ref(a, b, c, m);
    uint32_t pos = b & 0x3f, len = c & 0x3f;
    e[7] = (uint32_t)bfe_ref(a, pos, len, 32, false);
    e[8] = (uint32_t)bfe_ref(a, pos, len, 32, true);
    uint32_t f = b;
    for (uint32_t i = 0; i < len && pos + i <= 31; i++)
        f = (f & ~(1u << (pos + i))) | (((a >> i) & 1) << (pos + i));
    e[9] = f;
    uint32_t rv = 0;
    for (int i = 0; i < 32; i++)
        rv |= ((a >> i) & 1) << (31 - i);
    e[10] = rv;
    uint32_t pc = 0;
    for (int i = 0; i < 32; i++)
        pc += (a >> i) & 1;
    e[11] = pc;
    uint32_t lz = 0;
    while (lz < 32 && !((a >> (31 - lz)) & 1))
        lz++;
    e[12] = lz;
    e[13] = bfind_ref(a, false, false);
    e[14] = bfind_ref(a, true, false);
    e[15] = bfind_ref(a, false, true);
    e[16] = lop3_ref(a, b, c, 0x96);
    e[17] = lop3_ref(a, b, c, 0xe8);
    e[18] = lop3_ref(a, b, c, 0x1d);
    e[19] = shf_ref(a, b, c & 63, false, false);
    e[20] = shf_ref(a, b, c & 63, false, true);
    e[21] = shf_ref(a, b, c & 63, true, false);
    e[22] = shf_ref(a, b, c & 63, true, true);
    uint32_t d0 = c, d1 = c, d2 = c;
    for (int i = 0; i < 4; i++) {
        d0 += (uint32_t)(zx8(a, i) * zx8(b, i));
        d1 += (uint32_t)(sx8(a, i) * sx8(b, i));
        d2 += (uint32_t)(sx8(a, i) * zx8(b, i));
    }
    e[23] = d0;
    e[24] = d1;
    e[25] = d2;
    e[26] = c + (uint32_t)((int64_t)(int16_t)(a & 0xffff) * sx8(b, 0) + (int64_t)(int16_t)(a >> 16) * sx8(b, 1));
    e[27] = c + (a & 0xffff) * (uint32_t)zx8(b, 2) + (a >> 16) * (uint32_t)zx8(b, 3);
    e[28] = (uint32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32);
    e[29] = (uint32_t)(((uint64_t)a * b) >> 32);
    e[30] = a * b + c;
    e[31] = (uint32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32) + c;
    e[32] = c + (uint32_t)((int32_t)a > (int32_t)b ? (int64_t)(int32_t)a - (int32_t)b : (int64_t)(int32_t)b - (int32_t)a);
    uint32_t dv = (b & 0xff) | 1;
    e[33] = a / dv;
    e[34] = (uint32_t)((int32_t)a % (int32_t)dv);
    e[35] = (uint32_t)((int32_t)a / ((int32_t)dv - 128));
    e[36] = (int32_t)a < (int32_t)b ? a : b;
    e[37] = a > b ? a : b;
    e[38] = (int32_t)a < 0 ? 0u - a : a;
    uint32_t s = c & 63;
    e[39] = s >= 32 ? 0 : a << s;
    e[40] = s >= 32 ? ((int32_t)a < 0 ? 0xffffffffu : 0) : (uint32_t)((int32_t)a >> s);
    e[41] = s >= 32 ? 0 : a >> s;
    int64_t a24 = (int32_t)(a << 8) >> 8, b24 = (int32_t)(b << 8) >> 8;
    e[42] = (uint32_t)(a24 * b24);
    e[43] = (uint32_t)(((uint64_t)(a & 0xffffff) * (b & 0xffffff)) >> 16);
    e[44] = sat32((int64_t)(int32_t)a + (int32_t)b);
    e[45] = sat32((int64_t)(int32_t)a - (int32_t)b);
    uint64_t sum = ((uint64_t)b << 32 | a) + ((uint64_t)a << 32 | c);
    e[46] = (uint32_t)sum ^ ((uint32_t)(sum >> 32) * 0x9e3779b9u);
    int64_t wide = (int64_t)(int32_t)a * (int32_t)b;
    e[47] = (uint32_t)((uint64_t)wide >> 17) ^ (uint32_t)wide;
}

static void check_sm(unsigned sm)
{
    vkrr_ptx_module *m = ptxt_load("int_ops", sm);
    if (!m)
        return;
    static uint32_t A[N], B[N], C[N], out[N * INT_NOUT];
    uint64_t seed = 42;
    static const uint32_t edge[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x12345678u,
                                    0xdeadbeefu, 0x00ff00ffu};
    for (int i = 0; i < N; i++) {
        A[i] = i < 8 ? edge[i] : ptxt_rand(&seed);
        B[i] = i < 64 ? edge[(i / 8) % 8] : ptxt_rand(&seed);
        C[i] = ptxt_rand(&seed);
        if (i % 5 == 0)
            C[i] &= 0x3f; /* shift and field lengths in range */
    }
    memset(out, 0xa5, sizeof out);
    ptxt_args a = {0};
    ptxt_ptr(&a, A, sizeof A);
    ptxt_ptr(&a, B, sizeof B);
    ptxt_ptr(&a, C, sizeof C);
    ptxt_ptr(&a, out, sizeof out);
    ptxt_u32(&a, N);
    if (ptxt_run(m, "k_int", &a, (N + 63) / 64, 64, 0)) {
        unsigned bad = 0;
        for (int i = 0; i < N; i++) {
            uint32_t e[INT_NOUT];
            expect32(out, A[i], B[i], C[i], e);
            for (int k = 0; k < INT_NOUT; k++)
                if (out[i * INT_NOUT + k] != e[k] && bad++ < 10)
                    fprintf(stderr, "sm%u k_int out[%d] (a %08x b %08x c %08x): %08x, want %08x\n", sm,
                            k, A[i], B[i], C[i], out[i * INT_NOUT + k], e[k]);
        }
        CHECK_EQ_U64(bad, 0);
    }
    /* 64-bit forms */
    static uint64_t A64[N], B64[N], O64[N * 8];
    for (int i = 0; i < N; i++) {
        A64[i] = (uint64_t)ptxt_rand(&seed) << 32 | ptxt_rand(&seed);
        B64[i] = (uint64_t)ptxt_rand(&seed) << 32 | ptxt_rand(&seed);
        if (i < 4)
            A64[i] = i == 0 ? 0 : i == 1 ? ~0ull : i == 2 ? 1ull << 63 : 1;
    }
    ptxt_args b = {0};
    ptxt_ptr(&b, A64, sizeof A64);
    ptxt_ptr(&b, B64, sizeof B64);
    ptxt_ptr(&b, O64, sizeof O64);
    ptxt_u32(&b, N);
    if (ptxt_run(m, "k_int64", &b, (N + 31) / 32, 32, 0)) {
        unsigned bad = 0;
        for (int i = 0; i < N; i++) {
            uint64_t x = A64[i], y = B64[i], e[8];
            e[0] = (uint64_t)(((unsigned __int128)x * y) >> 64);
            e[1] = (uint64_t)(((__int128)(int64_t)x * (int64_t)y) >> 64);
            uint64_t rv = 0, pc = 0, lz = 0;
            for (int k = 0; k < 64; k++) {
                rv |= ((x >> k) & 1) << (63 - k);
                pc += (x >> k) & 1;
            }
            while (lz < 64 && !((x >> (63 - lz)) & 1))
                lz++;
            e[2] = rv;
            e[3] = pc;
            e[4] = lz;
            e[5] = bfe_ref(x, (uint32_t)y & 127, (uint32_t)(y >> 8) & 127, 64, true);
            e[6] = (uint64_t)((int64_t)x / (int64_t)((y % 1000) | 1));
            uint32_t s = (uint32_t)y & 127;
            e[7] = s >= 64 ? ((int64_t)x < 0 ? ~0ull : 0) : (uint64_t)((int64_t)x >> s);
            for (int k = 0; k < 8; k++)
                if (O64[i * 8 + k] != e[k] && bad++ < 10)
                    fprintf(stderr, "sm%u k_int64 out[%d] (a %016llx b %016llx): %016llx, want %016llx\n",
                            sm, k, (unsigned long long)x, (unsigned long long)y,
                            (unsigned long long)O64[i * 8 + k], (unsigned long long)e[k]);
        }
        CHECK_EQ_U64(bad, 0);
    }
    vkrr_ptx_module_free(m);
}

/* fns: the PTX ISA's four examples (0xaaaaaaaa from bits 3 and 2, either
 * way: 3 3 3 1), then a sweep against the ISA's pseudocode written here,
 * and a base over 31 (undefined): a fault. */
static const char fns_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry fns_ex(.param .u64 p)\n{\n .reg .b32 %r<8>;\n .reg .b64 %rd<2>;\n"
    " ld.param.u64 %rd0, [p];\n"
    " fns.b32 %r0, 0xaaaaaaaa, 3, 1;\n fns.b32 %r1, 0xaaaaaaaa, 3, -1;\n"
    " fns.b32 %r2, 0xaaaaaaaa, 2, 1;\n fns.b32 %r3, 0xaaaaaaaa, 2, -1;\n"
    " st.global.v4.u32 [%rd0], {%r0, %r1, %r2, %r3};\n ret;\n}\n"
    ".visible .entry fns_sweep(.param .u64 pin, .param .u64 pout)\n{\n"
    " .reg .b32 %r<8>;\n .reg .b64 %rd<6>;\n"
    " mov.u32 %r0, %tid.x;\n mov.u32 %r1, %ctaid.x;\n mad.lo.u32 %r0, %r1, 128, %r0;\n"
    " ld.param.u64 %rd0, [pin];\n ld.param.u64 %rd1, [pout];\n"
    " mul.wide.u32 %rd2, %r0, 12;\n add.s64 %rd2, %rd0, %rd2;\n"
    " ld.global.u32 %r2, [%rd2];\n ld.global.u32 %r3, [%rd2+4];\n ld.global.u32 %r4, [%rd2+8];\n"
    " fns.b32 %r5, %r2, %r3, %r4;\n"
    " mul.wide.u32 %rd3, %r0, 4;\n add.s64 %rd3, %rd1, %rd3;\n st.global.u32 [%rd3], %r5;\n"
    " ret;\n}\n";

static uint32_t ref_fns(uint32_t mask, uint32_t base, int32_t offset)
{
    uint32_t d = 0xffffffffu;
    if (offset == 0)
        return (mask >> base) & 1u ? base : d;
    int pos = (int)base, count = (offset < 0 ? -offset : offset) - 1, inc = offset > 0 ? 1 : -1;
    for (; pos >= 0 && pos < 32; pos += inc)
        if ((mask >> pos) & 1u) {
            if (count == 0)
                return (uint32_t)pos;
            count--;
        }
    return d;
}

static void check_fns(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, fns_ptx, sizeof fns_ptx - 1, "fns.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    uint32_t ex[4] = {0};
    ptxt_args a = {0};
    ptxt_ptr(&a, ex, sizeof ex);
    if (CHECK(ptxt_run(m, "fns_ex", &a, 1, 1, 0)))
        CHECK(ex[0] == 3 && ex[1] == 3 && ex[2] == 3 && ex[3] == 1);
    enum { NF = 1024 };
    static uint32_t in[3 * NF], out[NF];
    uint64_t rng = 5;
    static const uint32_t masks[] = {0, 0xffffffffu, 0xaaaaaaaau, 0x80000001u, 1, 0x80000000u};
    for (unsigned i = 0; i < NF; i++) {
        in[3 * i] = i < 6 * 32 ? masks[i % 6] : ptxt_rand(&rng);
        in[3 * i + 1] = ptxt_rand(&rng) % 32;
        in[3 * i + 2] = (uint32_t)((int32_t)(ptxt_rand(&rng) % 71) - 35);
    }
    ptxt_args b = {0};
    ptxt_ptr(&b, in, sizeof in);
    ptxt_ptr(&b, out, sizeof out);
    unsigned bad = 0;
    if (CHECK(ptxt_run(m, "fns_sweep", &b, NF / 128, 128, 0)))
        for (unsigned i = 0; i < NF; i++) {
            uint32_t want = ref_fns(in[3 * i], in[3 * i + 1], (int32_t)in[3 * i + 2]);
            if (out[i] != want && bad++ < 6)
                fprintf(stderr, "  fns 0x%08x base %u offset %d: %u, want %u\n", in[3 * i],
                        in[3 * i + 1], (int32_t)in[3 * i + 2], out[i], want);
        }
    printf("fns: the ISA's examples and %u cases, %u wrong\n", NF, bad);
    CHECK_EQ_U64(bad, 0);
    in[1] = 32; /* base 32: undefined */
    vkrr_status st = ptxt_run_ex(m, "fns_sweep", &b, NF / 128, 128, 0, NULL, 0, NULL, 0, &err);
    CHECK(st == VKRR_ERR_FAULT && strstr(err.msg, "undefined"));
    vkrr_ptx_module_free(m);
}

int main(void)
{
    check_fns();
    check_sm(80);
    check_sm(89);
    return test_finish("ptx_int");
}
