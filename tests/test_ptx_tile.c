/* test_ptx_tile: warp collectives where each lane names its own membermask
 * (tests/ptx/tile_ops.cu): cooperative_groups tiles of 2, 4, 8, 16 and 32
 * (reduce by redux and by shuffles, ballot, all, any, shfl_xor/down/idx,
 * match_any, sync), a tile reduce after divergence, the two masks the PTX
 * ISA leaves undefined (a lane outside its own mask; one group, two masks)
 * as errors naming the PTX line, and the pre-.sync vote and shfl on the
 * lanes running.  Expected values are computed here, tile by tile. */
#include "ptx_testutil.h"

#define TILE_NOUT 10
#define TILE_SIZES 5
#define NT 128

static void expect_tile(const uint32_t *warp, unsigned lane, unsigned size, unsigned warp_base,
                        uint32_t *e)
{
    unsigned base = lane & ~(size - 1), rank = lane - base;
    const uint32_t *t = warp + base;
    uint32_t sum = 0, mx = 0, ballot = 0, all = 1, any = 0, match = 0, me = warp[lane];
    for (unsigned k = 0; k < size; k++) {
        sum += t[k] & 0xffffu;
        mx = t[k] > mx ? t[k] : mx;
        ballot |= (t[k] & 1u) << k;
        all &= t[k] != 7u;
        any |= (t[k] & 0xfu) == 3u;
        match |= (uint32_t)((t[k] & 1u) == (me & 1u)) << k;
    }
    e[0] = sum;
    e[1] = mx;
    e[2] = ballot;
    e[3] = all;
    e[4] = any;
    e[5] = t[rank ^ 1u];
    e[6] = rank + 1 < size ? t[rank + 1] : me;
    e[7] = t[0];
    e[8] = match;
    e[9] = rank | ((warp_base + lane) / size) << 8;
}

/* A pre-.sync module (PTX 5.0, sm_60): ballot of odd lanes and a butterfly
 * shuffle, inside a branch only even lanes take: the group is who runs. */
static const char old_ptx[] =
    ".version 5.0\n.target sm_60\n.address_size 64\n"
    ".visible .entry k_old(.param .u64 out)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n  and.b32 %r2, %r1, 1;\n"
    "  mov.u32 %r5, 0;\n  mov.u32 %r6, 0;\n"
    "  setp.ne.u32 %p1, %r2, 0;\n  @%p1 bra DONE;\n"
    "  and.b32 %r3, %r1, 2;\n  setp.ne.u32 %p2, %r3, 0;\n"
    "  vote.ballot.b32 %r5, %p2;\n"
    "  shfl.bfly.b32 %r6, %r1, 2, 0x1f;\n"
    "DONE:\n"
    "  mul.wide.u32 %rd2, %r1, 8;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.v2.u32 [%rd3], {%r5, %r6};\n  ret;\n}\n";

static void check_old_forms(void)
{
    vkrr_ptx_module *m = NULL;
    vkrr_error err = {0};
    if (!CHECK(vkrr_ptx_module_load(&m, old_ptx, sizeof old_ptx - 1, "old.ptx", &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        return;
    }
    static uint32_t out[32 * 2];
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    if (ptxt_run(m, "k_old", &a, 1, 32, 0)) {
        unsigned bad = 0;
        for (uint32_t l = 0; l < 32; l++) {
            /* even lanes run: the ballot has bit l for even l with l & 2 */
            uint32_t ballot = 0;
            for (uint32_t k = 0; k < 32; k += 2)
                ballot |= (uint32_t)((k & 2) != 0) << k;
            uint32_t want0 = (l & 1) ? 0 : ballot, want1 = (l & 1) ? 0 : (l ^ 2);
            bad += out[2 * l] != want0 || out[2 * l + 1] != want1;
        }
        printf("pre-.sync vote.ballot and shfl.bfly on the lanes running: %u wrong\n", bad);
        CHECK_EQ_U64(bad, 0);
    }
    vkrr_ptx_module_free(m);
}

/* An undefined mask is an error naming the PTX line and the lane, not a guess. */
static void check_undefined(vkrr_ptx_module *m, const char *entry, const char *want)
{
    static uint32_t out[32];
    ptxt_args a = {0};
    ptxt_ptr(&a, out, sizeof out);
    vkrr_error err = {0};
    vkrr_status st = ptxt_run_ex(m, entry, &a, 1, 32, 0, NULL, 0, NULL, 0, &err);
    char buf[1024];
    vkrr_error_format(&err, buf, sizeof buf);
    printf("%s: %s\n", entry, buf);
    CHECK(st != VKRR_OK && strstr(buf, want) && strstr(buf, "vote.sync") && err.line > 0);
}

int main(void)
{
    static uint32_t in[NT], out[NT * TILE_SIZES * TILE_NOUT], dout[NT];
    uint64_t s = 7;
    for (int i = 0; i < NT; i++) {
        in[i] = ptxt_rand(&s);
        if (i % 9 == 0)
            in[i] = 7; /* all() false in some tiles */
        if (i % 13 == 0)
            in[i] = (in[i] & ~0xfu) | 3u; /* any() true in some */
    }
    static const unsigned sms[2] = {80, 89};
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("tile_ops", sms[k]);
        if (!m)
            continue;
        ptxt_args a = {0};
        ptxt_ptr(&a, in, sizeof in);
        ptxt_ptr(&a, out, sizeof out);
        ptxt_u32(&a, NT);
        memset(out, 0, sizeof out);
        if (ptxt_run(m, "k_tile", &a, NT / 64, 64, 0)) {
            unsigned bad = 0;
            for (int i = 0; i < NT; i++)
                for (unsigned z = 0; z < TILE_SIZES; z++) {
                    uint32_t e[TILE_NOUT];
                    unsigned base = (unsigned)i & ~31u;
                    expect_tile(in + base, (unsigned)i & 31u, 2u << z, base % 64u, e);
                    for (int j = 0; j < TILE_NOUT; j++) {
                        uint32_t got = out[(i * TILE_SIZES + z) * TILE_NOUT + j];
                        if (got != e[j] && bad++ < 12)
                            fprintf(stderr, "sm%u k_tile thread %d tile %u out[%d]: %08x, want %08x\n",
                                    sms[k], i, 2u << z, j, got, e[j]);
                    }
                }
            printf("sm%u tiles of 2..32, 10 collectives each: %u wrong\n", sms[k], bad);
            CHECK_EQ_U64(bad, 0);
        }
        ptxt_args d = {0};
        ptxt_ptr(&d, in, sizeof in);
        ptxt_ptr(&d, dout, sizeof dout);
        ptxt_u32(&d, NT);
        if (ptxt_run(m, "k_tile_div", &d, NT / 64, 64, 0)) {
            unsigned bad = 0;
            for (unsigned i = 0; i < NT; i++) {
                uint32_t want = 0;
                if (i & 1)
                    for (unsigned l = (i & ~15u) | 1u; l < (i & ~15u) + 16; l += 2)
                        want += in[l] & 0xffffu;
                bad += dout[i] != want;
            }
            printf("sm%u reduce of the odd lanes of each half-warp after divergence: %u wrong\n",
                   sms[k], bad);
            CHECK_EQ_U64(bad, 0);
        }
        check_undefined(m, "k_mask_self", "omits the lane itself");
        check_undefined(m, "k_mask_mixed", "different membermasks");
        vkrr_ptx_module_free(m);
    }
    check_old_forms();
    return test_finish("ptx_tile");
}
