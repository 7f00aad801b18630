// Test port: one long serial loop (iters steps of an LCG), for the timeout test.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "bindings.glsl"

layout(buffer_reference, scalar) buffer U32s { uint v[]; };
struct Params { U32s out_u; uint iters; };
VKRR_PARAMS(Params);

void main()
{
    uint x = gl_GlobalInvocationID.x;
    for (uint i = 0; i < vkrr_p.iters; i++)
        x = x * 1664525u + 1013904223u;
    vkrr_p.out_u.v[gl_GlobalInvocationID.x] = x;
}
