#version 460
// vkrr_test_common - runs the shared includes on arrays so tests/test_ports.c
// can check them against independent C references (not an rrref kernel).
//   mode 0: f32 (bits) -> f16 bits (vkrr_f2h)        in u32[n]  out u16[n]
//   mode 1: f16 bits -> e4m3 (vkrr_e4m3_from_h)      in u16[n]  out u8[n]
//   mode 2: f16 bits -> f32 bits (vkrr_h2f)          in u16[n]  out u32[n]
//   mode 3: e4m3 -> f32 bits (vkrr_e4m3_to_f)        in u8[n]   out u32[n]
//   mode 4: e4m3 slices: in u8[n*64] (32 a, 32 b)    out u16[n] (vkrr_slice_round)
//   mode 5: (num | den << 16) -> f32 bits (vkrr_div_rn)  in u32[n] out u32[n]
//   mode 6: f32 -> e4m3 (vkrr_e4m3)                  in u32[n]  out u8[n]
//   mode 7: fmaf(a, b, c) (vkrr_fma)                 in u32[3n] out u32[n]
//   mode 8: f16 bits -> ex2, rsqrt stand-ins        in u16[n]  out u32[2n]
#extension GL_GOOGLE_include_directive : require
#include "cuda.glsl"
#include "half.glsl"
#include "e4m3.glsl"
#include "mma.glsl"
#include "tex.glsl"
#include "math.glsl"

struct SelftestParams {
    uint64_t src;
    uint64_t dst;
    uint n;
    uint mode;
};
VKRR_PARAMS(SelftestParams);

void main()
{
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= vkrr_p.n)
        return;
    uint mode = vkrr_p.mode;
    if (mode == 0u) {
        VkrrF16Ptr(vkrr_p.dst).v[i] = uint16_t(vkrr_f2h(uintBitsToFloat(VkrrU32Ptr(vkrr_p.src).v[i])));
    } else if (mode == 1u) {
        VkrrU8Ptr(vkrr_p.dst).v[i] = uint8_t(vkrr_e4m3_from_h(uint(VkrrF16Ptr(vkrr_p.src).v[i])));
    } else if (mode == 2u) {
        VkrrU32Ptr(vkrr_p.dst).v[i] = floatBitsToUint(vkrr_h2f(uint(VkrrF16Ptr(vkrr_p.src).v[i])));
    } else if (mode == 3u) {
        VkrrU32Ptr(vkrr_p.dst).v[i] = floatBitsToUint(vkrr_e4m3_to_f(uint(VkrrU8Ptr(vkrr_p.src).v[i])));
    } else if (mode == 4u) {
        VkrrSlice s = vkrr_slice_begin();
        for (uint k = 0u; k < 32u; k++)
            s = vkrr_slice_add(s, uint(VkrrU8Ptr(vkrr_p.src).v[i * 64u + k]),
                               uint(VkrrU8Ptr(vkrr_p.src).v[i * 64u + 32u + k]));
        VkrrF16Ptr(vkrr_p.dst).v[i] = uint16_t(vkrr_slice_round(s));
    } else if (mode == 5u) {
        uint w = VkrrU32Ptr(vkrr_p.src).v[i];
        VkrrU32Ptr(vkrr_p.dst).v[i] = floatBitsToUint(vkrr_div_rn(w & 0xffffu, w >> 16));
    } else if (mode == 7u) {
        VkrrU32Ptr in_ = VkrrU32Ptr(vkrr_p.src);
        float r = vkrr_fma(uintBitsToFloat(in_.v[3u * i]), uintBitsToFloat(in_.v[3u * i + 1u]),
                           uintBitsToFloat(in_.v[3u * i + 2u]));
        VkrrU32Ptr(vkrr_p.dst).v[i] = floatBitsToUint(r);
    } else if (mode == 8u) {
        float x = vkrr_h2f(uint(VkrrF16Ptr(vkrr_p.src).v[i]));
        VkrrU32Ptr(vkrr_p.dst).v[2u * i] = floatBitsToUint(vkrr_ex2_approx(x));
        VkrrU32Ptr(vkrr_p.dst).v[2u * i + 1u] = floatBitsToUint(vkrr_rsqrt_approx(x));
    } else if (mode == 6u) {
        VkrrU8Ptr(vkrr_p.dst).v[i] = uint8_t(vkrr_e4m3(uintBitsToFloat(VkrrU32Ptr(vkrr_p.src).v[i])));
    }
}
