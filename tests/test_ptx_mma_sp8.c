/* test_ptx_mma_sp8.c - sparse mma (mma.sp) on 8-bit and 4-bit types: .s8/.u8
 * m16n8k32 and m16n8k64, .s4/.u4 m16n8k64 and m16n8k128 (wrapping and
 * .satfinite s32), .e4m3/.e5m2 m16n8k64 (compute_89 PTX), nvcc's PTX of
 * tests/ptx/mma_sp8_ops.cu, against the dense product computed here; fp8
 * sums where the tensor cores' truncation shows, worked out by hand.
 *
 * Which lane holds which row's metadata is written out below (holders), not
 * taken from vkrr: the PTX ISA gives it only as figures, and this is the
 * layout TileLang's sparse GEMM loads int8 and fp8 metadata in (its
 * metadata_32bit_load_32x1_to_shared_16x2_layout_8bit: lane 4g + j holds row
 * g + 8 (j % 2), chunks 8 (j / 2) to 8 (j / 2) + 7, four bits a chunk, the
 * first chunk lowest), with the selector choosing the pair of lanes at k32
 * as ptxas's ranges imply (k32: selector 0-1, k64: 0 only).  Lanes that hold
 * nothing for the selector pass 0x55555555, metadata that faults if read (each
 * chunk names unit 1 twice).  4-bit metadata names pairs of columns (as
 * CUTLASS's host_uncompress reads it) and takes the 8-bit holders of the same
 * number of chunks a row (a chunk is 32 bits of A either way). */
#include "capture_write.h"
#include "hw_model.h"
#include "ptx_testutil.h"

enum { POISON = 0x55555555u };

/* lane 4g + j's metadata for rows of `chunks` chunks and selector sel: *row
 * = g + rowoff, chunks first..first+7; false if the lane holds none */
static bool holder(unsigned lane, int chunks, unsigned sel, unsigned *row, unsigned *first)
{
    static const unsigned c16[4][2] = {{0, 0}, {8, 0}, {0, 8}, {8, 8}}; /* (row offset, first chunk) */
    unsigned g = lane / 4, j = lane % 4;
    if (chunks == 8) {
        if (j / 2 != sel)
            return false;
        *row = g + 8 * (j % 2);
        *first = 0;
        return true;
    }
    *row = g + c16[j][0];
    *first = c16[j][1];
    return true;
}

/* A sparse A (16 x K of elements of `bits` bits, one code a byte here):
 * chunks of four units (8-bit: columns; 4-bit: pairs of columns), two units
 * of each kept, the kept pair varying by row and chunk through all six; the
 * lanes' metadata words and the kept elements row-major (Ac, 16 x K/2). */
typedef struct sp8 {
    int K, bits;
    unsigned sel;
    uint8_t Ac[16 * 64], Bt[8 * 128];
    uint32_t E[32];
    uint8_t nib[16][16]; /* [row][chunk] */
    uint8_t dense[16][128]; /* A's codes, 0 where not kept */
    bool kept[16][128];
} sp8;

static void sp8_build(sp8 *p, int K, int bits, unsigned sel, int variant, uint64_t *s,
                      uint8_t (*code)(uint64_t *))
{
    static const uint8_t keep[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    int unit = bits == 4 ? 2 : 1, chunks = K / (4 * unit);
    memset(p, 0, sizeof *p);
    p->K = K;
    p->bits = bits;
    p->sel = sel;
    for (int i = 0; i < 16; i++)
        for (int ch = 0; ch < chunks; ch++) {
            const uint8_t *kp = keep[(i * 5 + ch * 3 + variant) % 6];
            p->nib[i][ch] = (uint8_t)(kp[0] | kp[1] << 2);
            for (int e = 0; e < 2 * unit; e++) {
                uint8_t c = (uint8_t)(code(s) & ((1u << bits) - 1u));
                int col = 4 * unit * ch + unit * kp[e / unit] + e % unit;
                p->Ac[i * (K / 2) + 2 * unit * ch + e] = c;
                p->dense[i][col] = c;
                p->kept[i][col] = true;
            }
        }
    for (unsigned l = 0; l < 32; l++) {
        unsigned row, first;
        p->E[l] = POISON;
        if (!holder(l, chunks, sel, &row, &first))
            continue;
        p->E[l] = 0;
        for (unsigned c = 0; c < 8; c++)
            p->E[l] |= (uint32_t)p->nib[row][first + c] << (4 * c);
    }
    for (int i = 0; i < 8 * K; i++)
        p->Bt[i] = (uint8_t)(code(s) & ((1u << bits) - 1u));
}

static uint8_t any_byte(uint64_t *s) { return (uint8_t)ptxt_rand(s); }

static void sp8_args(ptxt_args *a, sp8 *p, void *C, void *D, int variant)
{
    memset(a, 0, sizeof *a);
    ptxt_ptr(a, p->Ac, sizeof p->Ac);
    ptxt_ptr(a, p->E, sizeof p->E);
    ptxt_ptr(a, p->Bt, sizeof p->Bt);
    ptxt_ptr(a, C, 128 * 4);
    ptxt_ptr(a, D, 128 * 4);
    ptxt_u32(a, (uint32_t)variant);
}

/* the integer variants: k_mma_sp8's 0-3, k_mma_sp4's 0-1 (kernel, variant,
 * K, element bits, selector, A and B signed, .satfinite) */
static const struct {
    const char *kernel;
    int variant, K, bits;
    unsigned sel;
    bool as, bs, satf;
} ivar[6] = {{"k_mma_sp8", 0, 32, 8, 0, true, true, false}, {"k_mma_sp8", 1, 32, 8, 1, false, true, true},
             {"k_mma_sp8", 2, 64, 8, 0, true, false, false}, {"k_mma_sp8", 3, 64, 8, 0, false, false, true},
             {"k_mma_sp4", 0, 64, 4, 1, true, true, false}, {"k_mma_sp4", 1, 128, 4, 0, false, true, true}};

static int64_t ival(uint8_t code, int bits, bool sgn)
{
    return !sgn ? code : bits == 8 ? (int8_t)code : (int64_t)(code ^ 8u) - 8;
}

static void check_int(vkrr_ptx_module *m)
{
    uint64_t s = 11;
    for (int v = 0; v < 6; v++) {
        static sp8 p;
        static int32_t C[128], D[128];
        sp8_build(&p, ivar[v].K, ivar[v].bits, ivar[v].sel, v, &s, any_byte);
        for (int i = 0; i < 128; i++) /* some near the s32 limits: wrapping and clamping show */
            C[i] = i % 5 == 0 ? INT32_MAX - (int32_t)(ptxt_rand(&s) % (ivar[v].bits == 8 ? 20000 : 500))
                 : i % 5 == 1 ? INT32_MIN + (int32_t)(ptxt_rand(&s) % (ivar[v].bits == 8 ? 20000 : 500))
                              : (int32_t)(ptxt_rand(&s) % 200001) - 100000;
        ptxt_args a;
        sp8_args(&a, &p, C, D, ivar[v].variant);
        if (!CHECK(ptxt_run(m, ivar[v].kernel, &a, 1, 32, 0)))
            return;
        unsigned bad = 0, beyond = 0;
        for (int i = 0; i < 16; i++)
            for (int n = 0; n < 8; n++) {
                int64_t sum = C[i * 8 + n];
                for (int k = 0; k < p.K; k++)
                    sum += ival(p.dense[i][k], p.bits, ivar[v].as) * ival(p.Bt[n * p.K + k], p.bits, ivar[v].bs);
                beyond += sum > INT32_MAX || sum < INT32_MIN;
                if (ivar[v].satf)
                    sum = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum;
                int32_t want = (int32_t)(uint32_t)sum;
                if (D[i * 8 + n] != want && bad++ < 4)
                    fprintf(stderr, "  %s variant %d d(%d,%d) = %d, want %d\n", ivar[v].kernel, ivar[v].variant,
                            i, n, D[i * 8 + n], want);
            }
        printf("mma.sp m16n8k%d %s.%s%d.%s%d (selector %u): %u of 128 elements wrong, %u beyond s32\n",
               ivar[v].K, ivar[v].satf ? ".satfinite" : "", ivar[v].as ? "s" : "u", p.bits, ivar[v].bs ? "s" : "u",
               p.bits, ivar[v].sel, bad, beyond);
        CHECK_EQ_U64(bad, 0);
        CHECK(beyond > 0);
    }
}

/* nonzero e4m3 codes of k / 8, |k| <= 15, that .e5m2 holds too (every
 * product and sum exact) */
static uint8_t small_fp8(uint64_t *s)
{
    for (;;) {
        uint8_t c = (uint8_t)ptxt_rand(s);
        double v = ptxt_decode(&PTXT_E4M3, c);
        if (v == v && v != 0 && fabs(v) <= 15.0 / 8 && v * 8 == floor(v * 8) &&
            ptxt_decode(&PTXT_E5M2, ptxt_round(&PTXT_E5M2, v, 0, false)) == v)
            return c;
    }
}

static void check_fp8(vkrr_ptx_module *m)
{
    uint64_t s = 23;
    for (int v = 0; v < 2; v++) {
        static sp8 p;
        static float C[128], D[128];
        sp8_build(&p, 64, 8, 0, v, &s, small_fp8);
        if (v == 1) /* A is .e5m2: the codes of the same values */
            for (int i = 0; i < 16 * 32; i++)
                p.Ac[i] = (uint8_t)ptxt_round(&PTXT_E5M2, ptxt_decode(&PTXT_E4M3, p.Ac[i]), 0, false);
        for (int i = 0; i < 128; i++)
            C[i] = (float)((int)(ptxt_rand(&s) % 1001) - 500) / 16.0f;
        ptxt_args a;
        sp8_args(&a, &p, C, D, v);
        if (!CHECK(ptxt_run(m, "k_mma_sp_fp8", &a, 1, 32, 0)))
            return;
        unsigned bad = 0;
        for (int i = 0; i < 16; i++)
            for (int n = 0; n < 8; n++) {
                double want = C[i * 8 + n];
                for (int k = 0; k < 64; k++)
                    if (p.kept[i][k])
                        want += ptxt_decode(&PTXT_E4M3, p.dense[i][k]) * ptxt_decode(&PTXT_E4M3, p.Bt[n * 64 + k]);
                if (D[i * 8 + n] != (float)want && bad++ < 4)
                    fprintf(stderr, "  fp8 variant %d d(%d,%d) = %g, want %g\n", v, i, n, D[i * 8 + n], want);
            }
        printf("mma.sp m16n8k64 %s.e4m3: %u of 128 elements wrong\n", v ? "e5m2" : "e4m3", bad);
        CHECK_EQ_U64(bad, 0);
    }
}

/* The tensor cores' sum (cuda_ref/ptx/isa/ptx_mma_sum.c's model: c and every
 * product aligned to the largest exponent among them, each truncated toward
 * zero to F fraction bits of it, summed exactly, rounded toward zero to f32;
 * F 25 on sm_90, 13 for sm_89's fp8 with the sum kept to 13 bits too) on
 * two elements worked out by hand, where truncating the terms shows: every
 * other product is 0 and c 0, so every other d is +0.
 *   d(0,0): c = 256 (2^8), eight products 3 2^-9 * 2^-9 = 3 2^-18 (e4m3
 *     subnormals 0x03 and 0x01).  Exact: 256 + 24 2^-18 = 256 + 3 2^-15,
 *     an f32 (its ULP at 256 is 2^-15): 0x43800003, the exact sum rounded
 *     once.  sm_90: the grid is 2^(8-25) = 2^-17, 3 2^-18 = 1.5 grid
 *     truncates to 2^-17, the sum is 256 + 8 2^-17 = 256 + 2 2^-15:
 *     0x43800002.  sm_89: the grid is 2^(8-13) = 2^-5, every product
 *     truncates to 0: 256, 0x43800000.
 *   d(1,1): c = 256, eight products 0.1875 * 0.25 = 3 2^-6 (0x24, 0x28).
 *     Exact: 256 + 24 2^-6 = 256.375 (0.375 is 3 2^12 ULPs of 2^-15:
 *     0x43803000), which sm_90 keeps (3 2^-6 is on its grid).  sm_89:
 *     3 2^-6 = 1.5 2^-5 truncates to 2^-5, the sum is 256.25, on the 13-bit
 *     grid of 256 (2^-5) and an f32: 0x43802000. */
static uint8_t zero_code(uint64_t *s)
{
    (void)s;
    return 0; /* e4m3 +0 */
}

/* the first n kept A elements of `row` (Ac holds them in column order) and
 * B's same k of column `col` */
static void sp8_set(sp8 *p, int row, int col, int n, uint8_t acode, uint8_t bcode)
{
    for (int k = 0, e = 0; k < p->K && e < n; k++) {
        if (!p->kept[row][k])
            continue;
        p->Ac[row * (p->K / 2) + e++] = acode;
        p->dense[row][k] = acode;
        p->Bt[col * p->K + k] = bcode;
    }
}

static void check_fp8_sums(vkrr_ptx_module *m)
{
    static const struct {
        const char *arch; /* the capture's GPU; NULL: the default, sm_90 */
        uint32_t d00, d11;
    } want[] = {{NULL, 0x43800002u, 0x43803000u}, {"sm_89", 0x43800000u, 0x43802000u}};
    static const uint32_t once00 = 0x43800003u, once11 = 0x43803000u; /* the exact sums, rounded */
    static sp8 p;
    static float C[128], D[128];
    uint64_t s = 3;
    sp8_build(&p, 64, 8, 0, 0, &s, zero_code);
    sp8_set(&p, 0, 0, 8, 0x03, 0x01);
    sp8_set(&p, 1, 1, 8, 0x24, 0x28);
    memset(C, 0, sizeof C);
    C[0 * 8 + 0] = C[1 * 8 + 1] = 256.0f;
    /* the worked sums are the inputs' (the codes as written above) */
    double x00 = 256, x11 = 256;
    for (int k = 0; k < 64; k++) {
        x00 += ptxt_decode(&PTXT_E4M3, p.dense[0][k]) * ptxt_decode(&PTXT_E4M3, p.Bt[0 * 64 + k]);
        x11 += ptxt_decode(&PTXT_E4M3, p.dense[1][k]) * ptxt_decode(&PTXT_E4M3, p.Bt[1 * 64 + k]);
    }
    CHECK_EQ_U64(ptxt_u((float)x00), once00);
    CHECK_EQ_U64(ptxt_u((float)x11), once11);
    for (int i = 0; i < 2; i++) {
        vkrr_hw_model *hw = NULL;
        vkrr_error err = {0};
        if (want[i].arch && !CHECK(vkrr_hw_model_open(&(vkrr_hw_choice){.capture_arch = want[i].arch}, &hw,
                                                      &err) == VKRR_OK))
            return;
        ptxt_args a;
        sp8_args(&a, &p, C, D, 0);
        vkrr_hw_use(hw);
        bool ok = ptxt_run(m, "k_mma_sp_fp8", &a, 1, 32, 0);
        vkrr_hw_use(NULL);
        vkrr_hw_model_close(hw);
        if (!CHECK(ok))
            return;
        unsigned zeros = 0;
        for (int e = 0; e < 128; e++)
            zeros += e != 0 && e != 9 && ptxt_u(D[e]) == 0;
        printf("mma.sp m16n8k64 e4m3 on the %s model: d(0,0) 0x%08x (want 0x%08x), d(1,1) 0x%08x "
               "(want 0x%08x); the exact sums rounded once 0x%08x, 0x%08x\n",
               want[i].arch ? want[i].arch : "sm_90", ptxt_u(D[0]), want[i].d00, ptxt_u(D[9]), want[i].d11,
               once00, once11);
        CHECK_EQ_U64(ptxt_u(D[0]), want[i].d00);
        CHECK_EQ_U64(ptxt_u(D[9]), want[i].d11);
        CHECK_EQ_U64(zeros, 126);
        /* each model's sum is seen: it differs from the exact sum rounded once */
        CHECK(want[i].d00 != once00 && (i == 0 || want[i].d11 != once11));
    }
}

/* A chunk that names one unit twice (row 9, chunk 13 of a k64 8-bit or k128
 * 4-bit A: lane 4 * 1 + 3, bits 20-23) is undefined in the ISA: the launch
 * faults, naming it. */
static void check_fault(vkrr_ptx_module *m)
{
    static const char *const want[2] = {"mma.sp metadata: row 9, columns 52-55 name column 54 twice",
                                        "mma.sp metadata: row 9, columns 104-111 name columns 108-109 twice"};
    for (int four = 0; four < 2; four++) {
        uint64_t s = 5;
        static sp8 p;
        static int32_t C[128], D[128];
        sp8_build(&p, four ? 128 : 64, four ? 4 : 8, 0, 2, &s, any_byte);
        p.E[4 * 1 + 3] = (p.E[4 * 1 + 3] & ~0x00f00000u) | 0x00a00000u; /* 0xa: unit 2 twice */
        ptxt_args a;
        sp8_args(&a, &p, C, D, four ? 1 : 2);
        vkrr_error err = {0};
        vkrr_status st = ptxt_run_ex(m, four ? "k_mma_sp4" : "k_mma_sp8", &a, 1, 32, 0, NULL, 0, NULL, 0, &err);
        CHECK(st == VKRR_ERR_FAULT);
        if (!CHECK(strstr(err.msg, want[four]) != NULL))
            fprintf(stderr, "  got: %s\n", err.msg);
    }
}

/* The forms vkrr refuses, each a per-launch error naming its line: a shape
 * no sparse form has (.s4 k32), a selector ptxas would refuse too (k64: 0
 * only), an f16 accumulator with fp8 (ptxas: not on
 * sm_89), and fp8 on an sm_80 target. */
static void check_refused(void)
{
    static const char *const forms[][2] = {
        {"m16n8k32.row.col.s32.s4.s4.s32 {%r0,%r1,%r2,%r3}, {%r4}, {%r8}, {%r12,%r13,%r14,%r15}, %r16, 0x0",
         "mma.sp other than"},
        {"m16n8k64.row.col.s32.s8.s8.s32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9,%r10,%r11}, "
         "{%r12,%r13,%r14,%r15}, %r16, 0x1", "selector is the constant 0 here"},
        {"m16n8k64.row.col.f16.e4m3.e4m3.f16 {%r0,%r1}, {%r4,%r5,%r6,%r7}, {%r8,%r9,%r10,%r11}, {%r12,%r13}, "
         "%r16, 0x0", "with these accumulator types"},
        {"m16n8k64.row.col.f32.e4m3.e4m3.f32 {%f0,%f1,%f2,%f3}, {%r4,%r5,%r6,%r7}, {%r8,%r9,%r10,%r11}, "
         "{%f4,%f5,%f6,%f7}, %r16, 0x0", "fp8 mma.sp needs sm_89 (.target sm_80)"},
    };
    for (int i = 0; i < 4; i++) {
        char src[1024];
        snprintf(src, sizeof src,
                 ".version 8.7\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"
                 " .reg .b32 %%r<20>;\n .reg .f32 %%f<8>;\n mma.sp::ordered_metadata.sync.aligned.%s;\n ret;\n}\n",
                 forms[i][0]);
        vkrr_ptx_module *m = NULL;
        vkrr_error err = {0};
        if (!CHECK(vkrr_ptx_module_load(&m, src, strlen(src), "refused.ptx", &err) == VKRR_OK))
            continue;
        ptxt_args none = {0};
        memset(&err, 0, sizeof err);
        vkrr_status st = ptxt_run_ex(m, "k", &none, 1, 32, 0, NULL, 0, NULL, 0, &err);
        if (!CHECK(st == VKRR_ERR_UNSUPPORTED || st == VKRR_ERR_PARSE) || !CHECK(err.line == 8) ||
            !CHECK(strstr(err.msg, forms[i][1]) != NULL))
            fprintf(stderr, "  form %d: status %d, line %ld: %s\n", i, (int)st, (long)err.line, err.msg);
        vkrr_ptx_module_free(m);
    }
}

/* The user's path: a capture (written here) of two launches of the compute_89
 * PTX, the fp8 m16n8k64 and the s8.u8 m16n8k64, each with the D computed
 * here, reruns through the vkrr binary with exit 0; the fp8 row says its
 * reference summed an mma as the tensor-core model does, in the table and as
 * the stand-in "mma sums (tensor cores)" in the JSON, the integer row does
 * not (its sum is exact).  One wrong word in the integer D: exit 1, that
 * launch alone fails. */
static void write_launch(vkrr_writer *w, const char *kernel, sp8 *p, const void *C, const void *D, int variant)
{
    static const uint64_t base[5] = {0x7f0000000000ull, 0x7f0000010000ull, 0x7f0000020000ull, 0x7f0000030000ull,
                                     0x7f0000040000ull};
    static const uint8_t zero[512];
    uint8_t a[48] = {0};
    for (int i = 0; i < 5; i++)
        memcpy(a + 8 * i, &base[i], 8);
    memcpy(a + 40, &variant, 4);
    vkrr_alloc_record al[5] = {{base[0], sizeof p->Ac, p->Ac, p->Ac}, {base[1], sizeof p->E, p->E, p->E},
                               {base[2], sizeof p->Bt, p->Bt, p->Bt}, {base[3], 512, C, C},
                               {base[4], 512, zero, D}};
    vkrr_pointer_record pr[5] = {{0, 0, 0}, {8, 1, 0}, {16, 2, 0}, {24, 3, 0}, {32, 4, 0}};
    vkrr_launch_record lr = {.kernel = kernel, .grid = {1, 1, 1}, .block = {32, 1, 1}, .args = a, .args_bytes = 44,
                             .allocs = al, .nallocs = 5, .pointers = pr, .npointers = 5};
    vkrr_error err = {0};
    if (!CHECK(vkrr_writer_launch(w, &lr, NULL, &err) == VKRR_OK))
        vkrr_error_print(&err, stderr);
}

static bool write_cap(const char *dir, const char *ptx, size_t plen, sp8 *pf, const float *Cf, const float *Df,
                      sp8 *pi, const int32_t *Ci, const int32_t *Di)
{
    vkrr_error err = {0};
    vkrr_writer *w = NULL;
    if (!CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir}, &err) == VKRR_OK))
        return false;
    const char *k[] = {"k_mma_sp8", "k_mma_sp4", "k_mma_sp_fp8"};
    CHECK(vkrr_writer_module(w, "mma_sp8_ops.ptx", ptx, plen, k, 3, &err) == VKRR_OK);
    vkrr_writer_log_line(w, "device name=\"NVIDIA H200\" cc=9.0");
    write_launch(w, "k_mma_sp_fp8", pf, Cf, Df, 0);
    write_launch(w, "k_mma_sp8", pi, Ci, Di, 2);
    if (!CHECK(vkrr_writer_close(w, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return false;
    }
    return true;
}

static void check_rerun(const char *root)
{
    char cap[4096], path[4200], args[8800], *o = NULL, *e = NULL;
    snprintf(path, sizeof path, "%s/mma_sp8_ops.sm89.ptx", VKRR_PTX_KERNEL_DIR);
    size_t plen = 0;
    char *ptx = test_read_file(path, &plen);
    if (!CHECK(ptx))
        return;
    static sp8 pf, pi;
    static float Cf[128], Df[128];
    static int32_t Ci[128], Di[128];
    uint64_t s = 77;
    sp8_build(&pf, 64, 8, 0, 0, &s, small_fp8);
    sp8_build(&pi, 64, 8, 0, 2, &s, any_byte);
    for (int i = 0; i < 16; i++)
        for (int n = 0; n < 8; n++) {
            double f = Cf[i * 8 + n] = (float)(i - n) / 4.0f;
            int64_t x = Ci[i * 8 + n] = 1000 * (i - n);
            for (int k = 0; k < 64; k++) {
                f += ptxt_decode(&PTXT_E4M3, pf.dense[i][k]) * ptxt_decode(&PTXT_E4M3, pf.Bt[n * 64 + k]);
                x += (int64_t)(int8_t)pi.dense[i][k] * pi.Bt[n * 64 + k];
            }
            Df[i * 8 + n] = (float)f;
            Di[i * 8 + n] = (int32_t)x;
        }
    snprintf(cap, sizeof cap, "%s/cap", root);
    if (write_cap(cap, ptx, plen, &pf, Cf, Df, &pi, Ci, Di)) {
        snprintf(args, sizeof args, "rerun '%s' --heatmaps none --ptx-engine interp --json '%s/r.json'", cap, root);
        int rc = test_run_vkrr(args, &o, &e);
        CHECK_EQ_U64(rc, 0);
        if (rc != 0)
            fprintf(stderr, "%s%s", o ? o : "", e ? e : "");
        CHECK(o && strstr(o, "2 PASS"));
        const char *note = o ? strstr(o, "model: the reference summed its f16/bf16/tf32/fp8 mma as a "
                                         "published model of the tensor cores does") : NULL;
        CHECK(note != NULL);
        CHECK(note && !strstr(note + 1, "model: the reference summed")); /* that row only */
        free(o);
        free(e);
        snprintf(path, sizeof path, "%s/r.json", root);
        char *json = test_read_file(path, NULL);
        CHECK(json && strstr(json, "\"standins\": [\"mma sums (tensor cores)\"]"));
        CHECK(json && strstr(json, "\"standins\": []"));
        free(json);
    }
    Di[77] ^= 1; /* one wrong word in the integer launch's D */
    snprintf(cap, sizeof cap, "%s/cap2", root);
    if (write_cap(cap, ptx, plen, &pf, Cf, Df, &pi, Ci, Di)) {
        snprintf(args, sizeof args, "rerun '%s' --heatmaps none --ptx-engine interp -q", cap);
        o = e = NULL;
        CHECK_EQ_U64(test_run_vkrr(args, &o, &e), 1);
        CHECK(o && strstr(o, "1 PASS, 1 FAIL"));
        free(o);
        free(e);
    }
    free(ptx);
}

int main(void)
{
    check_refused();
    char *root = test_tmpdir("ptx_mma_sp8");
    check_rerun(root);
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("mma_sp8_ops", k ? 89 : 80);
        if (!m)
            continue;
        check_int(m);
        check_fault(m);
        if (k) {
            check_fp8(m);
            check_fp8_sums(m);
        }
        vkrr_ptx_module_free(m);
    }
    int r = test_finish("ptx_mma_sp8");
    if (r == 0)
        test_rmtree(root);
    free(root);
    return r;
}
