/* test_ptx_warp: warp collectives and barriers (tests/ptx/warp_ops.cu):
 * shfl.sync in every mode and segment width (and its predicate), vote
 * (ballot, all, any, uni), match.any/all, redux.sync, activemask and shfl in
 * divergent branches, reconvergence after a data-dependent loop, and CTA
 * barriers after half the block has exited (bar.sync, bar.red.popc/.or).
 * Expected values are computed here lane by lane. */
#include "ptx_testutil.h"

#define WARP_NOUT 24
#define NT 256

static void expect_warp(const uint32_t *v, unsigned lane, uint32_t *e)
{
    uint32_t me = v[lane];
    e[0] = v[(me >> 3) & 31];
    e[1] = lane >= 3 ? v[lane - 3] : me;
    e[2] = lane + 5 <= 31 ? v[lane + 5] : me;
    e[3] = v[lane ^ 6];
    e[4] = v[(lane & ~7u) + 2];
    e[5] = (lane % 16) >= 1 ? v[lane - 1] : me;
    e[6] = (lane % 4) + 3 <= 3 ? v[lane + 3] : me;
    e[7] = lane + 7 <= 31;
    uint32_t ballot = 0, all = 1, any = 0, sgn0 = v[0] >> 31, uni = 1, sum = 0, mx = 0, orv = 0, xr = 0;
    int32_t mn = INT32_MAX;
    for (unsigned l = 0; l < 32; l++) {
        ballot |= (v[l] & 1u) << l;
        all &= v[l] != 12345;
        any |= (v[l] & 0xff) == 0x17;
        uni &= (v[l] >> 31) == sgn0;
        sum += v[l] & 0xffff;
        mn = (int32_t)v[l] < mn ? (int32_t)v[l] : mn;
        mx = v[l] > mx ? v[l] : mx;
        orv |= v[l] & 0x0f0f0f0fu;
        xr ^= v[l];
    }
    e[8] = ballot;
    e[9] = all;
    e[10] = any;
    e[11] = uni;
    uint32_t mm = 0;
    for (unsigned l = 0; l < 32; l++)
        if ((v[l] & 3) == (me & 3))
            mm |= 1u << l;
    e[12] = mm;
    e[13] = 0xffffffffu;
    e[14] = 1;
    e[15] = sum;
    e[16] = (uint32_t)mn;
    e[17] = mx;
    e[18] = orv;
    e[19] = xr;
    e[20] = (lane & 1) ? 0xaaaaaaaau : 0x55555555u;
    e[21] = (lane & 1) ? v[lane ^ 2] : me * 3;
    unsigned nb = (lane + 1) & 31;
    uint32_t k = 0, x = v[nb];
    while (x > 1000u && k < 40) {
        x = x / 3 + (x & 7);
        k++;
    }
    e[22] = k;
    e[23] = 0xffffffffu;
}

int main(void)
{
    static uint32_t in[NT], out[NT * WARP_NOUT], bout[3 * 3];
    uint64_t s = 99;
    for (int i = 0; i < NT; i++) {
        in[i] = ptxt_rand(&s);
        if (i % 5 == 0)
            in[i] &= 0xfff; /* short loops */
        if (i == 77)
            in[i] = 77;
    }
    static const unsigned sms[2] = {80, 89};
    for (int k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("warp_ops", sms[k]);
        if (!m)
            continue;
        memset(out, 0, sizeof out);
        ptxt_args a = {0};
        ptxt_ptr(&a, in, sizeof in);
        ptxt_ptr(&a, out, sizeof out);
        ptxt_u32(&a, NT);
        if (ptxt_run(m, "k_warp", &a, NT / 64, 64, 0)) {
            unsigned bad = 0;
            for (int i = 0; i < NT; i++) {
                uint32_t e[WARP_NOUT];
                expect_warp(in + (i & ~31), (unsigned)i & 31, e);
                for (int j = 0; j < WARP_NOUT; j++)
                    if (out[i * WARP_NOUT + j] != e[j] && bad++ < 12)
                        fprintf(stderr, "sm%u k_warp thread %d out[%d]: %08x, want %08x\n", sms[k], i, j,
                                out[i * WARP_NOUT + j], e[j]);
            }
            CHECK_EQ_U64(bad, 0);
        }
        /* 3 blocks of 256 reading 768 words: reuse in[] cyclically */
        static uint32_t bin[768];
        for (int i = 0; i < 768; i++)
            bin[i] = i == 300 ? 77u : in[(i * 7) % NT] + (uint32_t)i;
        ptxt_args b = {0};
        ptxt_ptr(&b, bin, sizeof bin);
        ptxt_ptr(&b, bout, sizeof bout);
        ptxt_u32(&b, 768);
        memset(bout, 0, sizeof bout);
        if (ptxt_run(m, "k_bar", &b, 3, 256, 0)) {
            for (int blk = 0; blk < 3; blk++) {
                uint32_t sum = 0, cnt = 0, any = 0;
                for (int t = 0; t < 256; t++) {
                    uint32_t v = bin[blk * 256 + t];
                    sum += v;
                    cnt += v & 1;
                    any |= v == 77;
                }
                CHECK_EQ_U64(bout[blk * 3], sum);
                CHECK_EQ_U64(bout[blk * 3 + 1], cnt);
                CHECK_EQ_U64(bout[blk * 3 + 2], any);
            }
        }
        /* one barrier reached from two branches, warps divergent at it */
        static uint32_t dout[128];
        ptxt_args c = {0};
        ptxt_ptr(&c, dout, sizeof dout);
        memset(dout, 0, sizeof dout);
        if (ptxt_run(m, "k_bar_div", &c, 1, 128, 0)) {
            unsigned bad = 0;
            for (uint32_t t = 0; t < 128; t++) {
                uint32_t nb = t ^ 1, v = (nb & 1) ? nb * 3u + 1u : nb * 5u;
                bad += dout[t] != ((t & 1) ? v + 7u : v * 2u);
            }
            CHECK_EQ_U64(bad, 0);
        }
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_warp");
}
