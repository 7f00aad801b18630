// Test port: one long serial loop (iters xorshift steps, which a compiler
// cannot fold into a closed form), for the timeout test.  Nested loops of at
// most 50000 trips: llvmpipe ends any one loop after 65535 iterations.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "bindings.glsl"

layout(buffer_reference, scalar) buffer U32s { uint v[]; };
struct Params { U32s out_u; uint iters; };
VKRR_PARAMS(Params);

void main()
{
    uint x = gl_GlobalInvocationID.x + 1u;
    uint done = 0;
    while (done < vkrr_p.iters) {
        uint n = min(vkrr_p.iters - done, 50000u);
        for (uint i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
        }
        done += n;
    }
    vkrr_p.out_u.v[gl_GlobalInvocationID.x] = x;
}
