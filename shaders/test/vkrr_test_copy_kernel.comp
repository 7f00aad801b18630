// Test port: dst[i] = src[i] * scale for i < n, reading src through a pointer
// word that points DELTA bytes into its allocation (a window of an arena).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "bindings.glsl"

layout(buffer_reference, scalar) buffer F32s { float v[]; };
struct Params { F32s src; F32s dst; uint n; float scale; };
VKRR_PARAMS(Params);

void main()
{
    uint i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < vkrr_p.n)
        vkrr_p.dst.v[i] = vkrr_p.src.v[i] * vkrr_p.scale;
}
