// Test port: out[(k * h + y) * w + x] = texelFetch(texture k, (x, y)) for four
// float-read textures, and uout[y * w + x] = texelFetch of one unsigned
// integer texture; handles are table indices rewritten by vkbridge.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "bindings.glsl"

layout(buffer_reference, scalar) buffer Vec4s { vec4 v[]; };
layout(buffer_reference, scalar) buffer UVec4s { uvec4 v[]; };
struct Params { uint64_t tex[4]; uint64_t utex; Vec4s out_f; UVec4s out_u; uint w; uint h; };
VKRR_PARAMS(Params);

void main()
{
    uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
    uint w = vkrr_p.w, h = vkrr_p.h;
    if (x >= w || y >= h)
        return;
    for (uint k = 0; k < 4; k++)
        vkrr_p.out_f.v[(k * h + y) * w + x] = texelFetch(vkrr_tex[uint(vkrr_p.tex[k])], ivec2(x, y), 0);
    vkrr_p.out_u.v[y * w + x] = texelFetch(vkrr_utex[uint(vkrr_p.utex)], ivec2(x, y), 0);
}
