// surface.glsl - surf2Dwrite with CUDA's byte x, storing exact bits.
//
// Traps handled here:
// - surface x: CUDA's surf2Dwrite(v, s, x_bytes, y) takes x in bytes.  Every
//   helper takes that byte x and divides by the texel size in exactly one
//   place (vkrr_surf_x); a misaligned x is dropped like an out-of-range one.
// - f32->f16 stores: a formatted (rgba16f) image store may truncate toward
//   zero.  Surfaces are bound through integer views (bindings.glsl 4..8), and
//   the helpers take f16 *bits* (from vkrr_f2h, RNE) or f32 bits, so the
//   memory gets exactly what __float2half_rn / the CUDA store wrote.
// - out of range: CUDA's default boundary mode traps; a port must not write
//   outside the image (Vulkan leaves it undefined), so such writes are skipped.
// Unwritten texels keep the sentinel vkbridge filled them with.
#ifndef VKRR_SURFACE_GLSL
#define VKRR_SURFACE_GLSL

#include "cuda.glsl"

// Byte x -> texel x, or -1 when misaligned.
int vkrr_surf_x(int x_bytes, int texel_bytes)
{
    if (x_bytes < 0 || (x_bytes % texel_bytes) != 0)
        return -1;
    return x_bytes / texel_bytes;
}

bool vkrr_surf_in(ivec2 p, ivec2 size) { return p.x >= 0 && p.y >= 0 && p.x < size.x && p.y < size.y; }

// Out of range (and misaligned, x = -1): Vulkan's texel coordinate
// validation turns a store to an invalid texel into no write, which is what a
// port wants where CUDA would trap.  No imageSize() check: on lavapipe (Mesa
// 22.3) imageSize() of a storage image array element inside a large shader
// came back 0 and the guarded store was dropped (validate showed every texel
// of rrref's output surface unwritten).  The writers are macros so the table
// index stays a local of the caller; each evaluates its arguments once, and
// names components by index (a `.y` in a body would be the macro's y).
#define VKRR_SURF_STORE_(table, s, p, v)  \
    {                                     \
        int s_ = (s);                     \
        imageStore(table[s_], (p), (v));  \
    }

// HALF x4 (8-byte texels): h = the four f16 bit patterns.
#define vkrr_surf2d_write_h4(s, h, x_bytes, y)                                                    \
    {                                                                                             \
        uvec4 h4_ = (h);                                                                          \
        VKRR_SURF_STORE_(vkrr_surf64, s, ivec2(vkrr_surf_x((x_bytes), 8), (y)),                   \
                         uvec4((h4_[0] & 0xffffu) | (h4_[1] << 16), (h4_[2] & 0xffffu) | (h4_[3] << 16), 0u, 0u)) \
    }

// HALF x2 (4-byte texels).
#define vkrr_surf2d_write_h2(s, h, x_bytes, y)                                                    \
    {                                                                                             \
        uvec2 h2_ = (h);                                                                          \
        VKRR_SURF_STORE_(vkrr_surf32, s, ivec2(vkrr_surf_x((x_bytes), 4), (y)),                   \
                         uvec4((h2_[0] & 0xffffu) | (h2_[1] << 16), 0u, 0u, 0u))                    \
    }

// HALF x1 (2-byte texels).
#define vkrr_surf2d_write_h1(s, h, x_bytes, y) \
    VKRR_SURF_STORE_(vkrr_surf16, s, ivec2(vkrr_surf_x((x_bytes), 2), (y)), uvec4(uint(h) & 0xffffu, 0u, 0u, 0u))

// FLOAT x1 (4-byte texels), exact bits.
#define vkrr_surf2d_write_f1(s, v, x_bytes, y) \
    VKRR_SURF_STORE_(vkrr_surf32, s, ivec2(vkrr_surf_x((x_bytes), 4), (y)), uvec4(floatBitsToUint(v), 0u, 0u, 0u))

// FLOAT x4 (16-byte texels), exact bits.
#define vkrr_surf2d_write_f4(s, v, x_bytes, y) \
    VKRR_SURF_STORE_(vkrr_surf128, s, ivec2(vkrr_surf_x((x_bytes), 16), (y)), floatBitsToUint(v))

// 8-bit texels (UNSIGNED_INT8 x1, or a UNORM8 mask written as its code).
#define vkrr_surf2d_write_u8(s, b, x_bytes, y) \
    VKRR_SURF_STORE_(vkrr_surf8, s, ivec2((x_bytes), (y)), uvec4(uint(b) & 0xffu, 0u, 0u, 0u))

#endif
