// bindings.glsl - the contract between vkbridge and every port shader.
//
// vkbridge binds, for every launch, descriptor set 0 as follows.  A port
// shader includes this file and never declares bindings of its own.
//
//   binding 0  the CUDA parameter block: a read-only storage buffer holding the
//              launch's args.bin bytes with pointer words rewritten to device
//              addresses (+ delta) and texture/surface handle words rewritten
//              to table indices.  Declare the kernel's parameter struct with
//              the same byte layout (scalar block layout) after including this:
//                  VKRR_PARAMS(MyKernelParams);   // then read vkrr_p.field
//   binding 1  float textures: sampler2D table (HALF, FLOAT, UNORM/SNORM read as
//              normalized float).  Index = the rewritten handle word.
//   binding 2  unsigned integer textures (usampler2D), binding 3 signed (isampler2D):
//              arrays read with the integer flag (0x01).  These two tables hold
//              VKRR_MAX_INT_TEXTURES each, so the three texture tables together
//              (16 + 8 + 8 combined image samplers) stay within
//              maxPerStageDescriptorSamplers of lavapipe (32).
//   binding 4..8  surfaces as storage images, through an unsigned integer view
//              of the same texel size, so a port stores exact bits:
//              4: r8ui (1-byte texels), 5: r16ui (2), 6: r32ui (4),
//              7: rg32ui (8, e.g. HALF x4), 8: rgba32ui (16, e.g. FLOAT x4).
//              Index = the rewritten handle word; x is in texels here (the
//              helpers in surface.glsl take CUDA's byte x and divide once).
//
//   push constants: vkrr_texinfo[h], one word per float texture slot h:
//              CUarray format (bits 0-7), channels (8-15), bit 16 set for an
//              array (clear for linear memory); the sampler state the original
//              ran with: bit 17 linear filtering, bit 18 normalized
//              coordinates, bits 19-20 and 21-22 the x and y address modes
//              (0 wrap, 1 clamp, 2 mirror, 3 border); bits 23-26 the
//              measured filter's weight fraction bits (the hardware model's,
//              src/hw/texfilter.h; 0: 8); 0 for an empty slot.
//              tex.glsl's vkrr_tex2d samples by it (a port never writes a
//              texture's state into its code: the capture's log gives it, or
//              vkrr finds it by running the original), and its filter reads
//              the format to know when the measured model applies.
//
// Every table slot is always bound (slots without a resource get a 1x1 dummy),
// because lavapipe has no descriptor indexing / partially bound descriptors.
// Local size comes from specialization constants 0, 1, 2 = CUDA's block;
// 5-8 are tensorcore.glsl's model (the capture's hardware model's tensor
// core).  The push constants: a word per float texture slot (tex.glsl),
// then the address of math.glsl's tables, low and high word.
#ifndef VKRR_BINDINGS_GLSL
#define VKRR_BINDINGS_GLSL

#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require

#define VKRR_MAX_TEXTURES 16
#define VKRR_MAX_INT_TEXTURES 8
#define VKRR_MAX_SURFACES 8

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(set = 0, binding = 1) uniform sampler2D vkrr_tex[VKRR_MAX_TEXTURES];
layout(set = 0, binding = 2) uniform usampler2D vkrr_utex[VKRR_MAX_INT_TEXTURES];
layout(set = 0, binding = 3) uniform isampler2D vkrr_itex[VKRR_MAX_INT_TEXTURES];
layout(set = 0, binding = 4, r8ui) uniform writeonly uimage2D vkrr_surf8[VKRR_MAX_SURFACES];
layout(set = 0, binding = 5, r16ui) uniform writeonly uimage2D vkrr_surf16[VKRR_MAX_SURFACES];
layout(set = 0, binding = 6, r32ui) uniform writeonly uimage2D vkrr_surf32[VKRR_MAX_SURFACES];
layout(set = 0, binding = 7, rg32ui) uniform writeonly uimage2D vkrr_surf64[VKRR_MAX_SURFACES];
layout(set = 0, binding = 8, rgba32ui) uniform writeonly uimage2D vkrr_surf128[VKRR_MAX_SURFACES];

layout(push_constant, std430) uniform VkrrPush {
    uint vkrr_texinfo[VKRR_MAX_TEXTURES];
    uint vkrr_approx_lo, vkrr_approx_hi;
};

#define VKRR_PARAMS(T) \
    layout(set = 0, binding = 0, scalar) readonly buffer VkrrParamBlock { T vkrr_p; }

// CUDA's built-in indices.
#define threadIdx gl_LocalInvocationID
#define blockIdx gl_WorkGroupID
#define blockDim gl_WorkGroupSize
#define gridDim gl_NumWorkGroups

#endif
