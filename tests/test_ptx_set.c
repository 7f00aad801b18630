/* test_ptx_set: the PTX `set` instruction as nvcc emits it for cuda_fp16.h's
 * paired comparisons (tests/ptx/half2_cmp.cu: __heq2, __hltu2, __hge2_mask,
 * __hne2 -> set.eq.f16x2.f16x2, set.ltu.f16x2.f16x2, set.ge.u32.f16x2,
 * set.ne.f16x2.f16x2), run on the PTX interpreter for every pair of a set
 * of halves (NaN, +-0, +-inf, subnormals, neighbours) against a C reference:
 * 1.0 (0x3c00) or 0 a half for the f16x2 results, 0xffff or 0 a half for
 * the mask; ordered comparisons false on NaN, unordered true. */
#include "ptx_testutil.h"

static const uint16_t vals[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0xfe01,
                                0x0001, 0x8001, 0x03ff, 0x3c01, 0x3bff, 0x7bff, 0x4000, 0x5640};
#define NV (sizeof vals / sizeof vals[0])
#define N (NV * NV)

int main(void)
{
    static const unsigned sms[] = {80, 89};
    for (unsigned k = 0; k < 2; k++) {
        vkrr_ptx_module *m = ptxt_load("half2_cmp", sms[k]);
        if (!m)
            continue;
        /* half h of element i compares vals[x] with vals[y], two pairs an element */
        static uint32_t a[N], b[N], eq[N], ltu[N], ge[N], ne[N];
        for (uint32_t i = 0; i < N; i++) {
            uint32_t x0 = i % NV, y0 = i / NV, x1 = (i * 7 + 3) % NV, y1 = (i * 5 + 1) % NV;
            a[i] = vals[x0] | (uint32_t)vals[x1] << 16;
            b[i] = vals[y0] | (uint32_t)vals[y1] << 16;
        }
        ptxt_args args = {0};
        ptxt_ptr(&args, a, sizeof a);
        ptxt_ptr(&args, b, sizeof b);
        ptxt_ptr(&args, eq, sizeof eq);
        ptxt_ptr(&args, ltu, sizeof ltu);
        ptxt_ptr(&args, ge, sizeof ge);
        ptxt_ptr(&args, ne, sizeof ne);
        ptxt_u32(&args, N);
        if (!CHECK(ptxt_run(m, "half2_cmp", &args, (N + 63) / 64, 64, 0))) {
            vkrr_ptx_module_free(m);
            continue;
        }
        unsigned bad = 0;
        for (uint32_t i = 0; i < N; i++)
            for (unsigned h = 0; h < 2; h++) {
                float x = vkrr_f16_to_f32((uint16_t)(a[i] >> (16 * h)));
                float y = vkrr_f16_to_f32((uint16_t)(b[i] >> (16 * h)));
                bool un = x != x || y != y;
                uint32_t want_eq = !un && x == y ? 0x3c00u : 0, want_ltu = un || x < y ? 0x3c00u : 0;
                uint32_t want_ge = !un && x >= y ? 0xffffu : 0, want_ne = !un && x != y ? 0x3c00u : 0;
                bool ok = ((eq[i] >> (16 * h)) & 0xffff) == want_eq &&
                          ((ltu[i] >> (16 * h)) & 0xffff) == want_ltu &&
                          ((ge[i] >> (16 * h)) & 0xffff) == want_ge &&
                          ((ne[i] >> (16 * h)) & 0xffff) == want_ne;
                if (!ok && bad++ < 8)
                    fprintf(stderr, "  sm%u element %u half %u: %g vs %g: eq %08x ltu %08x ge %08x ne %08x\n",
                            sms[k], i, h, (double)x, (double)y, eq[i], ltu[i], ge[i], ne[i]);
            }
        printf("half2_cmp sm%u: %u pairs of halves, %u wrong\n", sms[k], 2 * (unsigned)N, bad);
        CHECK_EQ_U64(bad, 0);
        vkrr_ptx_module_free(m);
    }
    return test_finish("ptx_set");
}
