// tile_ops.cu - cooperative_groups tiles of 2, 4, 8, 16 and 32 lanes for the
// PTX interpreter's tests (tests/test_ptx_tile.c computes the expected
// values): nvcc passes each lane its own tile's membermask
// (3 << (laneid & 30), 0xffff << (laneid & 16), ...) to shfl/vote/match/
// redux/bar.warp.sync, so a tile's result must come from its own lanes.
// k_mask_self and k_mask_mixed name masks the PTX ISA leaves undefined.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stdint.h>

namespace cg = cooperative_groups;

#define TILE_NOUT 10
#define TILE_SIZES 5

template <class T>
__device__ void tile_ops(const T &t, uint32_t v, uint32_t *o)
{
    o[0] = cg::reduce(t, v & 0xffffu, cg::plus<uint32_t>());
    o[1] = cg::reduce(t, v, cg::greater<uint32_t>());
    o[2] = t.ballot(v & 1);
    o[3] = t.all(v != 7u);
    o[4] = t.any((v & 0xf) == 3u);
    o[5] = t.shfl_xor(v, 1);
    o[6] = t.shfl_down(v, 1);
    o[7] = t.shfl(v, 0);
    o[8] = t.match_any(v & 1);
    t.sync();
    o[9] = t.thread_rank() | t.meta_group_rank() << 8;
}

extern "C" __global__ void k_tile(const uint32_t *in, uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t v = in[i];
    uint32_t *o = out + (size_t)i * TILE_SIZES * TILE_NOUT;
    cg::thread_block b = cg::this_thread_block();
    tile_ops(cg::tiled_partition<2>(b), v, o);
    tile_ops(cg::tiled_partition<4>(b), v, o + TILE_NOUT);
    tile_ops(cg::tiled_partition<8>(b), v, o + 2 * TILE_NOUT);
    tile_ops(cg::tiled_partition<16>(b), v, o + 3 * TILE_NOUT);
    tile_ops(cg::tiled_partition<32>(b), v, o + 4 * TILE_NOUT);
}

// The tiles after divergence: odd lanes only, in tiles of 16 by their mask.
extern "C" __global__ void k_tile_div(const uint32_t *in, uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    uint32_t v = in[i], r = 0;
    if (lane & 1)
        r = __reduce_add_sync(0xaaaau << (lane & 16), v & 0xffffu);
    out[i] = r;
}

// Lane 5 names a mask without itself.
extern "C" __global__ void k_mask_self(uint32_t *out)
{
    unsigned lane = threadIdx.x & 31, r;
    unsigned mask = lane == 5 ? 0xffffffdfu : 0xffffffffu;
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, %2; }"
                 : "=r"(r) : "r"(lane & 1), "r"(mask));
    out[threadIdx.x] = r;
}

// Lanes 0-15 name 0x0000ffff, lanes 16-31 the whole warp (which holds
// lanes 0-15): one group, two masks.
extern "C" __global__ void k_mask_mixed(uint32_t *out)
{
    unsigned lane = threadIdx.x & 31, r;
    unsigned mask = lane < 16 ? 0xffffu : 0xffffffffu;
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, %2; }"
                 : "=r"(r) : "r"(lane & 1), "r"(mask));
    out[threadIdx.x] = r;
}
