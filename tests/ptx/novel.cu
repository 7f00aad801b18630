// novel.cu - a kernel vkrr has never seen (no port, no CPU build, no source
// in vkrr): a 3x3 box filter through a shared-memory tile with a clamped
// halo, written as f16, a 16-bin histogram by atomics, and per-warp maxima by
// shuffles.  tests/test_ptx_rerun.c makes a capture of it from values it
// computes itself and reruns it with `vkrr rerun` from this PTX alone.
// Arithmetic is pinned with the _rn intrinsics so the test can reproduce it.
#include <stdint.h>
#include <cuda_fp16.h>

#define TILE 16

extern "C" __global__ void vkrr_novel_box(const float *in, __half *out, unsigned *hist, float *wmax,
                                          int w, int h)
{
    __shared__ float tile[TILE + 2][TILE + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x0 = blockIdx.x * TILE - 1, y0 = blockIdx.y * TILE - 1;
    for (int k = ty * TILE + tx; k < (TILE + 2) * (TILE + 2); k += TILE * TILE) {
        int lx = k % (TILE + 2), ly = k / (TILE + 2);
        int gx = min(max(x0 + lx, 0), w - 1), gy = min(max(y0 + ly, 0), h - 1);
        tile[ly][lx] = in[gy * w + gx];
    }
    __syncthreads();
    int x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
    float s = 0.0f;
    for (int dy = 0; dy < 3; dy++)
        for (int dx = 0; dx < 3; dx++)
            s = __fadd_rn(s, tile[ty + dy][tx + dx]);
    float avg = __fmul_rn(s, 0.11111111f);
    float m = fabsf(avg);
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (x >= w || y >= h)
        return;
    out[y * w + x] = __float2half_rn(__fmaf_rn(avg, 2.0f, -0.5f));
    int bin = min(max((int)(avg * 4.0f), 0), 15);
    atomicAdd(&hist[bin], 1u);
    if ((threadIdx.x & 31) == 0 && ty % 2 == 0)
        wmax[(blockIdx.y * gridDim.x + blockIdx.x) * (TILE * TILE / 32) + (ty * TILE + tx) / 32] = m;
}
