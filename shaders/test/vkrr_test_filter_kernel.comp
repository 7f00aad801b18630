#version 460
// Test port: out[i] = vkrr_tex2d_linear(tex, coord[i]) with the sampler state
// in the parameters, so tests/test_texfilter.c can check shaders/common/tex.glsl
// against cuda_ref/device/cuda_texture.c (the CPU backends' filter) bit for bit.
#extension GL_GOOGLE_include_directive : require
#include "bindings.glsl"
#include "tex.glsl"

layout(buffer_reference, scalar) buffer Vec2s { vec2 v[]; };
layout(buffer_reference, scalar) buffer Vec4s { vec4 v[]; };
struct Params { uint64_t tex; Vec2s coord; Vec4s out_f; uint n; uint normalized; int mode_x; int mode_y; };
VKRR_PARAMS(Params);

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= vkrr_p.n)
        return;
    vec2 c = vkrr_p.coord.v[i];
    vkrr_p.out_f.v[i] = vkrr_tex2d_linear(int(vkrr_p.tex), c.x, c.y, vkrr_p.normalized != 0u,
                                          vkrr_p.mode_x, vkrr_p.mode_y);
}
