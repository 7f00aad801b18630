// cuda.glsl - CUDA memory as seen by a port: typed pointers and their loads/stores.
//
// A CUDA pointer parameter arrives in the parameter block (bindings.glsl,
// binding 0) as a 64-bit device address, already moved to the Vulkan buffer
// and offset by the capture's delta.  Declare such fields as uint64_t in the
// VKRR_PARAMS struct (8 bytes, scalar layout, same offset as in the .cu
// struct) and wrap them at use: VkrrF16Ptr(vkrr_p.planes).v[i].
//
// Traps handled here, once:
// - f16 and f32 are accessed as raw bits (uint16_t / uint), never as
//   float16_t / float storage, so no driver converts, canonicalises NaNs or
//   flushes denormals on the way in or out.  half.glsl turns bits into exact
//   f32 values and rounds back with RNE at the bit level.
// - e4m3 is a byte (uint8_t); e4m3.glsl decodes/encodes it.
// - Window pointers (alloc + delta) may sit anywhere in an arena, so the
//   reference types only promise their element's natural alignment.
// - Texture/surface handle words are rewritten by vkbridge into table indexes;
//   declare them uint64_t and index the tables with vkrr_handle(word).
#ifndef VKRR_CUDA_GLSL
#define VKRR_CUDA_GLSL

#include "bindings.glsl"

#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

layout(buffer_reference, scalar, buffer_reference_align = 2) buffer VkrrF16Ptr { uint16_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer VkrrF32Ptr { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer VkrrU32Ptr { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer VkrrI32Ptr { int v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 1) buffer VkrrU8Ptr { uint8_t v[]; };
// e4m3 bytes: same storage as u8, separate name so a port reads like its .cu.
layout(buffer_reference, scalar, buffer_reference_align = 1) buffer VkrrE4m3Ptr { uint8_t v[]; };

// f16 element i of p as its 16 bits (in the low half of a uint).
uint vkrr_ld_h(VkrrF16Ptr p, uint i) { return uint(p.v[i]); }
void vkrr_st_h(VkrrF16Ptr p, uint i, uint bits) { p.v[i] = uint16_t(bits & 0xffffu); }

// f32 element i as a float; stores write the exact bits.
float vkrr_ld_f(VkrrF32Ptr p, uint i) { return uintBitsToFloat(p.v[i]); }
void vkrr_st_f(VkrrF32Ptr p, uint i, float x) { p.v[i] = floatBitsToUint(x); }

uint vkrr_ld_u8(VkrrU8Ptr p, uint i) { return uint(p.v[i]); }
void vkrr_st_u8(VkrrU8Ptr p, uint i, uint b) { p.v[i] = uint8_t(b & 0xffu); }
uint vkrr_ld_e4m3(VkrrE4m3Ptr p, uint i) { return uint(p.v[i]); }
void vkrr_st_e4m3(VkrrE4m3Ptr p, uint i, uint b) { p.v[i] = uint8_t(b & 0xffu); }

// A rewritten texture/surface handle word -> table index.  vkbridge keeps
// indexes below the table size; the clamp only keeps a corrupt block in bounds.
int vkrr_handle(uint64_t word) { return int(min(word, uint64_t(VKRR_MAX_TEXTURES - 1))); }
int vkrr_surf_handle(uint64_t word) { return int(min(word, uint64_t(VKRR_MAX_SURFACES - 1))); }

// CUDA's blockIdx * blockDim + threadIdx, in uint as CUDA computes it.
uvec3 vkrr_global_id() { return gl_WorkGroupID * gl_WorkGroupSize + gl_LocalInvocationID; }

#endif
