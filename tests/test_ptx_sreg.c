/* test_ptx_sreg.c - WARP_SZ and every special register of the PTX ISA, in the
 * interpreter, the JIT and both (the oracle), from nvcc's PTX of
 * tests/ptx/sreg_ops.cu (compute_80, compute_89, and compute_90 for the
 * cluster registers and %aggr_smem_size).  Every expected value is computed
 * here from the launch's shape and the choices cuda_ref/ptx/README.md
 * "Special registers" names (written out below, not read from vkrr):
 * %nsmid 132, %smid the CTA's linear index mod 132, %nwarpid 64, %warpid the
 * warp in its CTA, %gridid 0, each CTA a cluster of one, the shared memory
 * sizes in 128-byte units with nothing reserved, the performance counters
 * and driver registers 0, and the timers one counter a warp: its k-th read
 * gives 32k + %laneid.  Also: WARP_SZ in an initializer, an array size, an
 * address and as operands of hand-written PTX; what ptxas refuses is refused
 * with a message; and `vkrr record` of the warpSize kernel (the issue's
 * reproduction) records 32 in every thread. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_testutil.h"
#include "ptx/sreg_ops.h"

/* README "Special registers": vkrr's choices */
enum { NSMID = 132, NWARPID = 64, SMEM_UNIT = 128 };

/* the launch: 140 CTAs (more than NSMID) in 3D, CTAs of 48 threads in 3D
 * (a full warp and a half one), 1000 bytes of dynamic shared memory */
static const uint32_t GRID[3] = {35, 2, 2}, BLOCK[3] = {8, 3, 2};
enum { DYN = 1000 };
#define NCTA (35u * 2u * 2u)
#define NT (8u * 3u * 2u)

/* the kernel's shared memory: its static words, then the dynamic bytes
 * (nvcc aligns them to 16), in 128-byte units */
static uint32_t smem_size(void)
{
    uint32_t bytes = 4u * SREG_STATIC_WORDS;
    bytes = (bytes + 15u) / 16u * 16u + DYN;
    return (bytes + SMEM_UNIT - 1u) / SMEM_UNIT * SMEM_UNIT;
}

/* counts a wrong word, and names the first few */
static void check_word(unsigned *wrong, const char *what, unsigned row, unsigned i, uint32_t got,
                       uint32_t want)
{
    if (got != want && (*wrong)++ < 16)
        fprintf(stderr, "  %s: row %u word %u: 0x%x, want 0x%x\n", what, row, i, got, want);
}

/* the expected row of thread t of CTA (bx, by, bz) for vkrr_sregs */
static void expect80(uint32_t *w, unsigned bx, unsigned by, unsigned bz, unsigned t)
{
    unsigned tx = t % BLOCK[0], ty = t / BLOCK[0] % BLOCK[1], tz = t / (BLOCK[0] * BLOCK[1]);
    unsigned lane = t % 32, cta = bx + GRID[0] * (by + GRID[1] * bz);
    const unsigned ids[4][4] = {{tx, ty, tz, 0}, {BLOCK[0], BLOCK[1], BLOCK[2], 0},
                                {bx, by, bz, 0}, {GRID[0], GRID[1], GRID[2], 0}};
    memset(w, 0, SREG_W80 * sizeof *w);
    w[SW_WARPSIZE] = 32;
    w[SW_WARPSIZE_MAD] = 32 * 3 + tx;
    w[SW_WARP_ADD] = tx + 32;
    w[SW_WARP_MAD] = tx * 32 + 7;
    w[SW_WARP_SETP] = 1;
    w[SW_WARP_ADD64] = tx + 32;
    for (unsigned v = 0; v < 4; v++)
        for (unsigned c = 0; c < 4; c++) {
            w[SW_TID + 4 * v + c] = ids[v][c];   /* the components */
            w[SW_V_TID + 4 * v + c] = ids[v][c]; /* mov.v4 */
        }
    for (unsigned c = 0; c < 4; c++)
        w[SW_V16_CTAID + c] = ids[2][c];
    w[SW_H_TIDX] = tx;
    w[SW_H_CTAIDX] = bx;
    w[SW_CVT_TIDZ] = tz;
    w[SW_CVT_NTIDX] = BLOCK[0];
    w[SW_LANEID] = lane;
    w[SW_WARPID] = t / 32;
    w[SW_NWARPID] = NWARPID;
    w[SW_SMID] = cta % NSMID;
    w[SW_NSMID] = NSMID;
    w[SW_LANEMASK_EQ] = 1u << lane;
    w[SW_LANEMASK_LE] = (uint32_t)((2ull << lane) - 1u);
    w[SW_LANEMASK_LT] = (uint32_t)((1ull << lane) - 1u);
    w[SW_LANEMASK_GE] = ~w[SW_LANEMASK_LT];
    w[SW_LANEMASK_GT] = ~w[SW_LANEMASK_LE];
    w[SW_DYN_SMEM] = DYN;
    w[SW_TOTAL_SMEM] = smem_size();
    /* %gridid, the reserved shared memory, %current_graph_exec, %pm*, %envreg*: 0 */
    /* the timers, in the kernel's order: read k gives 32k + lane (64 bits; %clock,
     * _lo the low word, _hi the high one) */
    w[SW_CLOCK] = 0 * 32 + lane;
    w[SW_CLOCK_HI] = 0; /* (1 * 32 + lane) >> 32 */
    w[SW_CLOCK64] = 2 * 32 + lane;
    w[SW_GLOBALTIMER] = 3 * 32 + lane;
    w[SW_GLOBALTIMER_LO] = 4 * 32 + lane;
    w[SW_GLOBALTIMER_HI] = 0;
    w[SW_CVT_CLOCK] = 6 * 32 + lane;
    w[SW_CVT_CLOCK64] = 7 * 32 + lane;
    w[SW_CUDA_CLOCK] = 8 * 32 + lane;
    w[SW_CUDA_CLOCK64] = 9 * 32 + lane;
    w[SW_SMEM] = 4 * (NT - 1 - t);
}

static void expect90(uint32_t *w, unsigned bx, unsigned by, unsigned bz, unsigned t)
{
    const unsigned cid[4] = {bx, by, bz, 0}, ncid[4] = {GRID[0], GRID[1], GRID[2], 0},
                   cnct[4] = {1, 1, 1, 0};
    memset(w, 0, SREG_W90 * sizeof *w);
    for (unsigned c = 0; c < 4; c++) {
        w[SW90_CLUSTERID + c] = w[SW90_V_CLUSTERID + c] = cid[c];
        w[SW90_NCLUSTERID + c] = ncid[c];
        w[SW90_CLUSTER_NCTAID + c] = w[SW90_V_CLUSTER_NCTAID + c] = cnct[c];
        /* %cluster_ctaid: 0 */
    }
    w[SW90_CLUSTER_CTARANK] = 0;
    w[SW90_CLUSTER_NCTARANK] = 1;
    w[SW90_IS_EXPLICIT_CLUSTER] = 0;
    w[SW90_AGGR_SMEM] = smem_size(); /* nothing reserved */
    w[SW90_TOTAL_SMEM] = smem_size();
    w[SW90_SMEM] = 4 * (NT - 1 - t);
}

static const char *engine_name(int e)
{
    return e == VKRR_PTX_ENGINE_INTERP ? "interp" : e == VKRR_PTX_ENGINE_JIT ? "jit" : "both";
}

static bool run(const vkrr_ptx_module *m, const char *entry, int e, const uint32_t *grid,
                const uint32_t *block, uint32_t dyn, void *out, size_t bytes)
{
    ptxt_args a = {0};
    ptxt_ptr(&a, out, bytes);
    vkrr_ptx_launch l = {.grid = {grid[0], grid[1], grid[2]}, .block = {block[0], block[1], block[2]},
                         .shared_bytes = dyn, .params = a.bytes, .params_bytes = a.n,
                         .regions = a.regions, .nregions = a.nregions, .max_steps = 1u << 30,
                         .engine = (vkrr_ptx_engine)e};
    vkrr_error err = {0};
    vkrr_status st = vkrr_ptx_run(m, entry, &l, &err);
    if (st != VKRR_OK) {
        fprintf(stderr, "%s (%s): ", entry, engine_name(e));
        vkrr_error_print(&err, stderr);
    }
    return CHECK(st == VKRR_OK);
}

/* entry of m in every engine, each row against want(row's CTA, thread) */
static void check_kernel(const vkrr_ptx_module *m, const char *entry, unsigned words,
                         void (*want)(uint32_t *, unsigned, unsigned, unsigned, unsigned))
{
    size_t n = (size_t)NCTA * NT * words;
    uint32_t *out = malloc(n * sizeof *out), *w = malloc(words * sizeof *w);
    if (!CHECK(out && w))
        goto done;
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_BOTH; e++) {
        memset(out, 0xa5, n * sizeof *out);
        if (!run(m, entry, e, GRID, BLOCK, DYN, out, n * sizeof *out))
            continue;
        unsigned wrong = 0;
        for (unsigned b = 0; b < NCTA; b++)
            for (unsigned t = 0; t < NT; t++) {
                unsigned r = b * NT + t;
                want(w, b % GRID[0], b / GRID[0] % GRID[1], b / (GRID[0] * GRID[1]), t);
                for (unsigned i = 0; i < words; i++)
                    check_word(&wrong, entry, r, i, out[(size_t)r * words + i], w[i]);
            }
        if (!CHECK(wrong == 0))
            fprintf(stderr, "  %s (%s): %u wrong words\n", entry, engine_name(e), wrong);
    }
done:
    free(out);
    free(w);
}

/* the 16-bit reads of %ctaid.x and %nctaid.x past 65535 keep the low bits */
static void check_16bit(const vkrr_ptx_module *m)
{
    static const uint32_t grid[3] = {65536 + 70, 1, 1}, block[3] = {1, 1, 1};
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_BOTH; e++) {
        uint32_t o[SREG_W16];
        memset(o, 0xa5, sizeof o);
        if (!run(m, "vkrr_sregs16", e, grid, block, 0, o, sizeof o))
            continue;
        uint32_t last = grid[0] - 1;
        CHECK_EQ_U64(o[SW16_H_CTAIDX], last & 0xffffu);
        CHECK_EQ_U64(o[SW16_H_NCTAIDX], grid[0] & 0xffffu);
        CHECK_EQ_U64(o[SW16_V16_CTAID + 0], last & 0xffffu);
        CHECK_EQ_U64(o[SW16_V16_CTAID + 1], 0);
        CHECK_EQ_U64(o[SW16_V16_CTAID + 2], 0);
        CHECK_EQ_U64(o[SW16_V16_CTAID + 3], 0);
        CHECK_EQ_U64(o[SW16_CVT_CTAIDX], last & 0xffffu);
        CHECK_EQ_U64(o[SW16_CTAIDX], last);
    }
}

/* WARP_SZ wherever a number may be: an initializer, an array's size, an
 * address, operands of several types */
static const char warp_ptx[] =
    ".version 8.1\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".global .align 4 .u32 g[2] = {WARP_SZ, 5};\n"
    ".visible .entry w(.param .u64 p)\n"
    "{\n"
    " .reg .pred %p<2>;\n"
    " .reg .b32 %r<12>;\n"
    " .reg .b64 %rd<4>;\n"
    " .shared .align 4 .b8 buf[WARP_SZ];\n"
    " ld.param.u64 %rd1, [p];\n"
    " ld.global.u32 %r1, [g];\n"
    " ld.global.u32 %r2, [g+4];\n"
    " mov.u32 %r3, buf;\n"
    " mov.u32 %r4, 77;\n"
    " st.shared.u32 [%r3+WARP_SZ-4], %r4;\n"
    " ld.shared.u32 %r5, [buf+28];\n"
    " sub.u32 %r6, %r4, WARP_SZ;\n"
    " setp.eq.u32 %p1, %r1, WARP_SZ;\n"
    " selp.u32 %r7, 1, 0, %p1;\n"
    " mov.u32 %r8, %total_smem_size;\n"
    " mov.b64 %rd2, WARP_SZ;\n"
    " mul.wide.u32 %rd3, %r2, WARP_SZ;\n"
    " st.global.u32 [%rd1], %r1;\n"
    " st.global.u32 [%rd1+4], %r2;\n"
    " st.global.u32 [%rd1+8], %r5;\n"
    " st.global.u32 [%rd1+12], %r6;\n"
    " st.global.u32 [%rd1+16], %r7;\n"
    " st.global.u32 [%rd1+20], %r8;\n"
    " st.global.u64 [%rd1+24], %rd2;\n"
    " st.global.u64 [%rd1+32], %rd3;\n"
    " ret;\n"
    "}\n";

static void check_warp_sz(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, warp_ptx, sizeof warp_ptx - 1, "warp.ptx", &err) ==
               VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static const uint32_t one[3] = {1, 1, 1};
    for (int e = VKRR_PTX_ENGINE_INTERP; e <= VKRR_PTX_ENGINE_BOTH; e++) {
        uint32_t o[10];
        memset(o, 0xa5, sizeof o);
        if (!run(m, "w", e, one, one, 0, o, sizeof o))
            continue;
        CHECK_EQ_U64(o[0], 32);      /* the initializer */
        CHECK_EQ_U64(o[1], 5);
        CHECK_EQ_U64(o[2], 77);      /* [buf+WARP_SZ-4] is buf+28 */
        CHECK_EQ_U64(o[3], 77 - 32);
        CHECK_EQ_U64(o[4], 1);
        CHECK_EQ_U64(o[5], SMEM_UNIT); /* buf[WARP_SZ]: 32 bytes, in one unit */
        CHECK_EQ_U64(o[6] | (uint64_t)o[7] << 32, 32);
        CHECK_EQ_U64(o[8] | (uint64_t)o[9] << 32, 5 * 32);
    }
    vkrr_ptx_module_free(m);
}

/* what ptxas refuses is refused, saying what */
static const char bad_ptx[] =
    ".version 8.1\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry vec() { .reg .b32 %r<2>; mov.u32 %r1, %tid; ret; }\n"
    ".visible .entry add() { .reg .b32 %r<2>; add.u32 %r1, %clock, 1; ret; }\n"
    ".visible .entry fcvt() { .reg .f32 %f<2>; cvt.rn.f32.u32 %f1, %clock; ret; }\n"
    ".visible .entry pred() { .reg .b32 %r<2>; mov.u32 %r1, %is_explicit_cluster; ret; }\n"
    ".visible .entry v2() { .reg .b32 %r<4>; mov.v4.u32 {%r1, %r2, %r3, %r0}, %laneid; ret; }\n";

static void check_refused(void)
{
    static const struct {
        const char *entry, *msg;
        vkrr_status st;
    } cases[] = {
        {"vec", "the vector %tid outside mov.v4", VKRR_ERR_PARSE},
        {"add", "%clock outside mov and cvt", VKRR_ERR_UNSUPPORTED},
        {"fcvt", "cvt.f32.u32 of %clock", VKRR_ERR_PARSE},
        {"pred", "%is_explicit_cluster is a predicate", VKRR_ERR_PARSE},
        {"v2", "mov.v4 other than", VKRR_ERR_UNSUPPORTED},
    };
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, bad_ptx, sizeof bad_ptx - 1, "bad.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memset(&err, 0, sizeof err);
        vkrr_status st = vkrr_ptx_entry_status(m, cases[k].entry, &err);
        if (!CHECK(st == cases[k].st && strstr(err.msg, cases[k].msg) && err.line == 4 + (long)k))
            fprintf(stderr, "  %s: %s line %ld: %s\n", cases[k].entry, vkrr_status_name(st),
                    err.line, err.msg);
    }
    vkrr_ptx_module_free(m);
    /* PTX ISA 9.4's per-CTA memory (.minperctamemory, which vkrr refuses too) */
    static const char pcm[] = ".version 8.1\n.target sm_90\n.address_size 64\n"
                              ".visible .entry k() { .reg .b32 %r<2>;\n"
                              " mov.u32 %r1, %perctamemorysize; ret; }\n";
    m = NULL;
    memset(&err, 0, sizeof err);
    /* the module loads: a body that does not parse costs only its kernel */
    CHECK(vkrr_ptx_module_load(&m, pcm, sizeof pcm - 1, "pcm.ptx", &err) == VKRR_OK);
    vkrr_status st = vkrr_ptx_entry_status(m, "k", &err);
    if (!CHECK(st == VKRR_ERR_UNSUPPORTED && strstr(err.msg, "%perctamemorysize") && err.line == 5))
        fprintf(stderr, "  %%perctamemorysize: %s line %ld: %s\n", vkrr_status_name(st), err.line,
                err.msg);
    vkrr_ptx_module_free(m);
}

/* the reproduction: `vkrr record` of o[threadIdx.x] = warpSize */
static void check_record(void)
{
    char *dir = test_tmpdir("sreg_record"), args[8192], *err = NULL;
    if (!CHECK(dir != NULL))
        return;
    snprintf(args, sizeof args,
             "record '%s/cap' --ptx '%s/sreg_ops.sm80.ptx' --kernel vkrr_warpsize --grid 1 "
             "--block 32 --arg out:s32:32",
             dir, VKRR_PTX_KERNEL_DIR);
    int rc = test_run_vkrr(args, NULL, &err);
    if (!CHECK(rc == 0))
        fprintf(stderr, "  vkrr %s: exit %d: %s\n", args, rc, err ? err : "");
    free(err);
    char dump[4096];
    snprintf(dump, sizeof dump, "%s/cap/dump", dir);
    DIR *d = opendir(dump);
    unsigned found = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "launch-001-vkrr_warpsize-arg000-", 32))
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dump, e->d_name);
        size_t len = 0;
        char *bytes = test_read_file(path, &len);
        if (CHECK(bytes && len == 32 * sizeof(int32_t))) {
            unsigned wrong = 0;
            for (unsigned t = 0; t < 32; t++) {
                int32_t v;
                memcpy(&v, bytes + 4 * t, 4);
                wrong += v != 32;
            }
            CHECK(wrong == 0);
        }
        free(bytes);
        found++;
    }
    if (d)
        closedir(d);
    if (CHECK(found == 1))
        test_rmtree(dir);
    free(dir);
}

int main(void)
{
    static const unsigned sms[] = {80, 89, 90};
    for (unsigned k = 0; k < 3; k++) {
        unsigned sm = sms[k];
        vkrr_ptx_module *m = ptxt_load("sreg_ops", sm);
        if (!m)
            continue;
        check_kernel(m, "vkrr_sregs", SREG_W80, expect80);
        if (sm == 90)
            check_kernel(m, "vkrr_sregs90", SREG_W90, expect90);
        else
            check_16bit(m);
        vkrr_ptx_module_free(m);
    }
    check_warp_sz();
    check_refused();
    check_record();
    return test_finish("ptx_sreg");
}
