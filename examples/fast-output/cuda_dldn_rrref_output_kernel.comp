#version 460
// rrref's output stage (cuda_ref/kernels/rrref_output.cu) written the way a
// fast production port is written, not for vkrr: it includes no vkrr header
// and declares its own interface, which the port's descriptor
// (cuda_dldn_rrref_output_kernel.port) maps onto the capture.
//
//   set 0: 0 the dec0 planes, a storage buffer view into the plane arena
//          1 the output stage's e4m3 weights, a storage buffer
//          2 the noisy colour, 3 the motion: sampled images read by texelFetch
//          4 the history, sampled through a hardware linear VkSampler at
//            normalized coordinates
//          5 the output, 6 the next frame's history: rgba16f storage images
//   push constants: the frame's width and height
//   local size: specialisation constants (the descriptor's `workgroup`),
//   8 x 8 by default; the descriptor sets 16 x 8, over a grid of its own
//
// Where it differs from the original on purpose (the differences vkrr
// measures): the 3x3 conv sums its 72 products in f32 in its own order
// (fma, tap-major) where rrref sums exact 32-term slices rounded to an f16
// accumulator; the logits stay f32; the softmax uses exp2 (the device's),
// not ex2.approx; the history is filtered by the device's bilinear filter,
// not CUDA's 8-bit-fraction one; imageStore rounds to f16 as the device does.
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer Planes { uint planes[]; };  // f16 pairs
layout(set = 0, binding = 1, std430) readonly buffer Weights { uint weights[]; }; // e4m3 x 4
layout(set = 0, binding = 2) uniform texture2D colour;
layout(set = 0, binding = 3) uniform texture2D motion;
layout(set = 0, binding = 4) uniform sampler2D history;
layout(set = 0, binding = 5, rgba16f) writeonly uniform image2D result;
layout(set = 0, binding = 6, rgba16f) writeonly uniform image2D history_out;
layout(push_constant, std430) uniform Frame { uint width; uint height; } frame;

const int C_DEC = 8;           // dec0 planes
const int K = 9 * C_DEC;       // conv inputs per logit
const int N_TAPS = 25;         // 5 x 5 colour taps
const int N_LOGITS = 26;       // + the history

float plane_value(uint i)
{
    vec2 pair = unpackHalf2x16(planes[i >> 1]);
    return (i & 1u) != 0u ? pair.y : pair.x;
}

uint weight_code(uint i)
{
    return (weights[i >> 2] >> (8u * (i & 3u))) & 0xffu;
}

// An e4m3 code's value (its NaN codes: NaN).
float e4m3_value(uint code)
{
    uint e = (code >> 3) & 15u, m = code & 7u;
    if ((code & 0x7fu) == 0x7fu)
        return uintBitsToFloat(0x7fc00000u);
    float v = e == 0u ? float(m) : float((8u + m) << (e - 1u));
    return ((code & 0x80u) != 0u ? -v : v) * (1.0 / 512.0);
}

// The activations are quantised to e4m3 as the model defines (round to
// nearest even, saturating at +-448, NaN stays NaN).
float to_e4m3(float x)
{
    if (isnan(x))
        return x;
    float v = min(abs(x) * 512.0, 448.0 * 512.0);  // in units of 2^-9
    float step = v < 16.0 ? 1.0 : exp2(float(findMSB(uint(v)) - 3));
    float q = min(roundEven(v / step) * step, 448.0 * 512.0);
    return (x < 0.0 ? -q : q) * (1.0 / 512.0);
}

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = ivec2(frame.width, frame.height);
    if (p.x >= size.x || p.y >= size.y)
        return;
    uint plane = frame.width * frame.height;
    float a[K];
    for (int tap = 0; tap < 9; tap++) {
        ivec2 s = clamp(p + ivec2(tap % 3 - 1, tap / 3 - 1), ivec2(0), size - 1);
        for (int c = 0; c < C_DEC; c++)
            a[tap * C_DEC + c] = to_e4m3(plane_value(uint(c) * plane + uint(s.y) * frame.width + uint(s.x)));
    }
    float e[N_LOGITS];
    float sum = 0.0;
    for (int o = 0; o < N_LOGITS; o++) {
        float acc = e4m3_value(weight_code(uint(N_LOGITS * K + o)));  // the bias
        for (int k = 0; k < K; k++)
            acc = fma(a[k], e4m3_value(weight_code(uint(o * K + k))), acc);
        e[o] = exp2(acc);
        sum += e[o];
    }
    float inv = 1.0 / sum;
    vec3 rgb = vec3(0.0);
    for (int t = 0; t < N_TAPS; t++) {
        ivec2 s = clamp(p + ivec2(t % 5 - 2, t / 5 - 2), ivec2(0), size - 1);
        rgb = fma(vec3(e[t] * inv), texelFetch(colour, s, 0).rgb, rgb);
    }
    vec2 centre = vec2(p) + 0.5;
    vec2 mv = texelFetch(motion, p, 0).xy;
    vec3 h = textureLod(history, (centre + mv) / vec2(size), 0.0).rgb;
    rgb = fma(vec3(e[N_TAPS] * inv), h, rgb);
    imageStore(result, p, vec4(rgb, 1.0));
    imageStore(history_out, p, vec4(rgb, 1.0));
}
