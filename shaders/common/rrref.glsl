// rrref.glsl - rrref's parameter blocks and shared numerics for the Vulkan ports.
//
// Mirrors cuda_ref/kernels/rrref.h byte for byte (scalar layout: no padding,
// the offsets in the comments are the ones rrref.h asserts).  Pointer words
// are uint64_t device addresses (wrap with the Vkrr*Ptr types), texture and
// surface words are table indexes (vkrr_handle / vkrr_surf_handle).  Each
// port includes this and declares its block with VKRR_PARAMS(RrrefXParams).
//
// The shared numerics follow rrref_common.cuh step by step; see each helper.
#ifndef VKRR_RRREF_GLSL
#define VKRR_RRREF_GLSL

#include "cuda.glsl"
#include "half.glsl"
#include "e4m3.glsl"
#include "mma.glsl"
#include "math.glsl"

#define RRREF_BLOCK 8
#define RRREF_TILE 16
#define RRREF_C_IN 16
#define RRREF_C_E0 8
#define RRREF_C_E1 16
#define RRREF_C_DEC 8
#define RRREF_FILTER_R 2
#define RRREF_N_TAPS 25
#define RRREF_N_LOGITS 26
#define RRREF_SLICE 32
#define RRREF_K_ENC0 (9 * RRREF_C_IN)
#define RRREF_K_ENC1 (9 * RRREF_C_E0)
#define RRREF_K_DEC0 (9 * (RRREF_C_E1 + RRREF_C_E0))
#define RRREF_K_OUT (9 * RRREF_C_DEC)

struct RrrefExpo0Params {
    uint64_t colour;      //  0 texture
    uint64_t partials;    //  8 f32*
    uint width;           // 16
    uint height;          // 20
    uint tiles_x;         // 24
    uint tiles_y;         // 28
};

struct RrrefExpo1Params {
    uint64_t partials;    //  0 f32*
    uint64_t exposure;    //  8 f32[4]
    uint count;           // 16
    uint pixels;          // 20
    float key;            // 24
    uint pad;             // 28
};

struct RrrefInputParams {
    uint64_t colour;      //  0 texture HALF x4
    uint64_t depth;       //  8 texture FLOAT x1
    uint64_t motion;      // 16 texture HALF x2
    uint64_t albedo;      // 24 texture UNORM_INT8X4
    uint64_t normal;      // 32 texture SNORM_INT8X4
    uint64_t mask;        // 40 texture UNSIGNED_INT8 x1 as normalized float
    uint64_t history;     // 48 texture HALF x4, linear
    uint64_t exposure;    // 56 f32[4]
    uint64_t dst;         // 64 f16 planes
    uint width;           // 72
    uint height;          // 76
};

struct RrrefConvParams {
    uint64_t src;         //  0
    uint64_t skip;        //  8
    uint64_t dst;         // 16
    uint width;           // 24
    uint height;          // 28
    uint src_width;       // 32
    uint src_height;      // 36
    uint64_t weights;     // 40 e4m3 weight image + layer offset
};

struct RrrefDownParams {
    uint64_t src;         //  0 f16
    uint64_t dst;         //  8 e4m3
    uint width;           // 16
    uint height;          // 20
    uint src_width;       // 24
    uint src_height;      // 28
};

struct RrrefOutputParams {
    uint64_t src;         //  0 f16 [C_DEC]
    uint64_t colour;      //  8 texture
    uint64_t motion;      // 16 texture
    uint64_t history;     // 24 texture (linear)
    uint64_t out;         // 32 surface HALF x4
    uint64_t weights;     // 40 e4m3
    uint64_t history_out; // 48 surface HALF x4
    uint width;           // 56
    uint height;          // 60
};

#endif
