// half2_cmp.cu - cuda_fp16.h's paired comparisons, which nvcc emits as the
// PTX `set` instruction on f16x2 sources (set.eq.f16x2.f16x2,
// set.ltu.f16x2.f16x2, set.ge.u32.f16x2): test_ptx_set runs them on the
// PTX interpreter against a C reference (NaN, +-0, +-inf, subnormals).
#include <cuda_fp16.h>

extern "C" __global__ void half2_cmp(const __half2 *a, const __half2 *b, __half2 *eq, __half2 *ltu,
                                     unsigned *ge_mask, __half2 *ne, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    eq[i] = __heq2(a[i], b[i]);
    ltu[i] = __hltu2(a[i], b[i]);
    ge_mask[i] = __hge2_mask(a[i], b[i]);
    ne[i] = __hne2(a[i], b[i]);
}
