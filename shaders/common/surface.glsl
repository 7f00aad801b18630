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

// HALF x4 (8-byte texels): h = the four f16 bit patterns.
void vkrr_surf2d_write_h4(int s, uvec4 h, int x_bytes, int y)
{
    ivec2 p = ivec2(vkrr_surf_x(x_bytes, 8), y);
    if (vkrr_surf_in(p, imageSize(vkrr_surf64[s])))
        imageStore(vkrr_surf64[s], p, uvec4((h.x & 0xffffu) | (h.y << 16), (h.z & 0xffffu) | (h.w << 16), 0u, 0u));
}

// HALF x2 (4-byte texels).
void vkrr_surf2d_write_h2(int s, uvec2 h, int x_bytes, int y)
{
    ivec2 p = ivec2(vkrr_surf_x(x_bytes, 4), y);
    if (vkrr_surf_in(p, imageSize(vkrr_surf32[s])))
        imageStore(vkrr_surf32[s], p, uvec4((h.x & 0xffffu) | (h.y << 16), 0u, 0u, 0u));
}

// HALF x1 (2-byte texels).
void vkrr_surf2d_write_h1(int s, uint h, int x_bytes, int y)
{
    ivec2 p = ivec2(vkrr_surf_x(x_bytes, 2), y);
    if (vkrr_surf_in(p, imageSize(vkrr_surf16[s])))
        imageStore(vkrr_surf16[s], p, uvec4(h & 0xffffu, 0u, 0u, 0u));
}

// FLOAT x1 (4-byte texels), exact bits.
void vkrr_surf2d_write_f1(int s, float v, int x_bytes, int y)
{
    ivec2 p = ivec2(vkrr_surf_x(x_bytes, 4), y);
    if (vkrr_surf_in(p, imageSize(vkrr_surf32[s])))
        imageStore(vkrr_surf32[s], p, uvec4(floatBitsToUint(v), 0u, 0u, 0u));
}

// FLOAT x4 (16-byte texels), exact bits.
void vkrr_surf2d_write_f4(int s, vec4 v, int x_bytes, int y)
{
    ivec2 p = ivec2(vkrr_surf_x(x_bytes, 16), y);
    if (vkrr_surf_in(p, imageSize(vkrr_surf128[s])))
        imageStore(vkrr_surf128[s], p, floatBitsToUint(v));
}

// 8-bit texels (UNSIGNED_INT8 x1, or a UNORM8 mask written as its code).
void vkrr_surf2d_write_u8(int s, uint b, int x_bytes, int y)
{
    ivec2 p = ivec2(x_bytes, y);
    if (vkrr_surf_in(p, imageSize(vkrr_surf8[s])))
        imageStore(vkrr_surf8[s], p, uvec4(b & 0xffu, 0u, 0u, 0u));
}

#endif
