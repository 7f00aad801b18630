// Test port: every invocation runs min(iters, 60000) xorshift steps (a loop no
// compiler folds); the test makes it long with a large grid, because llvmpipe
// ends any outermost loop after 65535 trips in all.  Invocation 0 writes x.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "bindings.glsl"

layout(buffer_reference, scalar) buffer U32s { uint v[]; };
struct Params { U32s out_u; uint iters; };
VKRR_PARAMS(Params);

void main()
{
    uint x = gl_GlobalInvocationID.x + 1u;
    uint n = min(vkrr_p.iters, 60000u);
    for (uint i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    if (gl_GlobalInvocationID.x == 0u)
        vkrr_p.out_u.v[0] = x;
}
