// Test port of tests/cuda/vkrr_test_linear.cu: a FLOAT x1 texture over linear
// memory read with tex1Dfetch, and a HALF x4 texture over pitch-2D memory
// read point-sampled; both come to the port as ordinary 2D textures.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "bindings.glsl"
#include "tex.glsl"

layout(buffer_reference, scalar) buffer F32s { float v[]; };
struct Params { uint64_t lin; uint64_t pitch; F32s out_; uint n; uint w; uint h; uint pad; };
VKRR_PARAMS(Params);

void main()
{
    uint i = blockIdx.x * blockDim.x + threadIdx.x, m = vkrr_p.n + 3u;
    if (i < m) {
        vkrr_p.out_.v[i] = vkrr_tex1dfetch(int(vkrr_p.lin), int(i)).x;
    } else if (i < m + vkrr_p.w * vkrr_p.h) {
        uint k = i - m, x = k % vkrr_p.w, y = k / vkrr_p.w;
        vec4 v = vkrr_tex2d_point(int(vkrr_p.pitch), float(x) + 0.5, float(y) + 0.5, false,
                                  VKRR_CLAMP, VKRR_CLAMP);
        for (uint c = 0u; c < 4u; c++)
            vkrr_p.out_.v[m + 4u * k + c] = v[c];
    }
}
