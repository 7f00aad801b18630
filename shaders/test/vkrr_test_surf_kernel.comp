// Test port: writes a HALF x4 surface through its rg32ui view with exact bits
// taken from src (four u16 per texel), except the last column, which keeps
// whatever the surface held (the sentinel).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "bindings.glsl"

layout(buffer_reference, scalar) buffer U16s { uint16_t v[]; };
struct Params { uint64_t surf; U16s src; uint w; uint h; };
VKRR_PARAMS(Params);

void main()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    if (x + 1 >= vkrr_p.w || y >= vkrr_p.h)
        return;
    uint i = (y * vkrr_p.w + x) * 4;
    uint lo = uint(vkrr_p.src.v[i]) | (uint(vkrr_p.src.v[i + 1]) << 16);
    uint hi = uint(vkrr_p.src.v[i + 2]) | (uint(vkrr_p.src.v[i + 3]) << 16);
    imageStore(vkrr_surf64[uint(vkrr_p.surf)], ivec2(x, y), uvec4(lo, hi, 0, 0));
}
