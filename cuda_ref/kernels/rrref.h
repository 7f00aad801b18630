/* rrref.h - rrref's kernel parameter blocks, network shape and memory layout.
 *
 * The one description of every rrref kernel's parameters, shared by the CUDA
 * kernels (the .cu files beside this header), the CPU backend, the host side
 * (cuda_ref/host/rrref_host.c) and, mirrored by hand, the Vulkan port's
 * parameter blocks (scalar layout).  Valid C11, C++17 and CUDA.  A capture's
 * args.bin is exactly one of these structs (little-endian, no padding: every
 * offset is asserted below).
 *
 * Words:
 *   pointer words (uint64_t)  device address of an allocation + delta.
 *   texture words (uint64_t)  a CUtexObject (on the CPU: address of a texture
 *                             descriptor; in Vulkan: a table index).
 *   surface words (uint64_t)  a CUsurfObject (same remark).
 *
 * The network (all kernels extern "C", one thread per output pixel, 2D grid
 * of RRREF_BLOCK x RRREF_BLOCK blocks, except the exposure reduction and attn0):
 *
 *   expo0   colour tex -> per-tile (16x16) sums of log2 luminance (f32 partials)
 *   expo1   one thread: partials summed in index order -> exposure (f32)
 *   input   all textures -> RRREF_C_IN f16 planes, full res
 *   enc0    3x3 conv RRREF_C_IN -> RRREF_C_E0, full res, clamped cubic
 *   down    2x2 mean of enc0 -> RRREF_C_E0 e4m3 planes, half res (requantised)
 *   enc1    3x3 conv e4m3 RRREF_C_E0 -> RRREF_C_E1, half res, RMS norm, cubic
 *   dec0    3x3 conv over [nearest-upsampled enc1 | enc0 skip] -> RRREF_C_DEC, full res, cubic
 *   output  3x3 conv RRREF_C_DEC -> RRREF_N_LOGITS logits; softmax (ex2, no
 *           max subtraction) -> weights of a 5x5 neighbourhood of the noisy
 *           colour plus the reprojected history sample; writes the output and
 *           history surfaces (HALF x4) with byte x.
 *   tok0    enc1's 16 planes, down's 8 (e4m3 -> f16) and 8 zero channels ->
 *           RRREF_ATTN_C-channel tokens, half res, through a HALF x4 surface
 *   attn0   window attention on fp8 tensor cores (rrref_attn.cu,
 *           docs/rrref-attention.md), launched twice (two weight images):
 *           tokens -> tokens, texture in, surfaces out
 *   untok0  the second attention's tokens, channels 0..15 -> RRREF_C_E1 f16
 *           planes, half res (the window dec0 reads in place of enc1's)
 * Frame order: expo0 expo1 input enc0 down enc1 tok0 attn0 attn0 untok0 dec0
 * output (docs/rrref.md).
 *
 *
 * Numerics (the Vulkan port must reproduce each step; the device helpers are in
 * rrref_common.cuh).  Nothing relies on FMA contraction: nvcc builds with
 * -fmad=false and every fused op is an explicit fmaf(); the CPU build has
 * -ffp-contract=off.  f16 values: RNE conversions, __hadd = RNE f16 add.
 *   conv slice: activations f16 -> e4m3 (RNE, satfinite: +-Inf/overflow ->
 *     +-448, NaN -> 0x7f); every e4m3 value is k * 2^-9 with integer k; a
 *     slice of up to 32 products is summed exactly as the int64 sum of k_a*k_w
 *     (scale 2^-18), rounded once to f16 (RNE, overflow -> Inf) and added to
 *     the f16 accumulator with __hadd (slice order k = 0..K-1).  A NaN operand
 *     makes the slice 0x7fff.  The accumulator starts at the e4m3 bias.
 *   cubic: t = clamp(x, -2, 2); y = fmaf(t*t*t, -1/16, t) (t*t and *t are
 *     unfused __fmul_rn) -> f16 RNE.
 *   log2 (expo0), exp2 (expo1): dyadic polynomials with explicit fmaf, exactly
 *     reproducible (see rrref_common.cuh), not transcendental instructions.
 *   enc1 RMS norm: ms = sum over channels of v*v (unfused, channel order) *
 *     1/16; r = f16(ms + 2^-13); inv = rsqrt.approx.ftz.f32(r); y = cubic(v*inv).
 *   output softmax: e_i = ex2.approx.ftz.f32(logit_i) (logit f16), no max
 *     subtraction; s = sum e_i in order; inv = 1/s (IEEE div); w_i = e_i*inv;
 *     rgb = fmaf(w_i, c_i, rgb) over taps (dy,dx row-major) then the history.
 *
 * Half res is (W+1)/2 x (H+1)/2.  Planes are planar: plane c of a W x H
 * window starts at element c*W*H, rows of W elements, no padding.
 */
#ifndef RRREF_H
#define RRREF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define RRREF_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define RRREF_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* ---- network shape ---------------------------------------------------- */
#define RRREF_BLOCK 8          /* pixel kernels: blocks of 8 x 8 threads */
#define RRREF_TILE 16          /* expo0: one thread sums one 16 x 16 tile */
#define RRREF_EXPO0_BLOCK 64   /* expo0: 1D blocks of 64 threads (one per tile) */
#define RRREF_C_IN 16          /* input feature planes */
#define RRREF_C_E0 8           /* enc0 (and down) planes */
#define RRREF_C_E1 16          /* enc1 planes (half res) */
#define RRREF_C_DEC 8          /* dec0 planes */
#define RRREF_FILTER_R 2       /* output filter: (2R+1)^2 = 25 taps */
#define RRREF_N_TAPS 25
#define RRREF_N_LOGITS 26      /* 25 spatial taps + 1 history */
#define RRREF_SLICE 32         /* products summed exactly before one f16 rounding */

/* K (products per output channel) of each conv: 9 taps x input channels,
 * ordered k = tap * Cin + c with tap = (dy+1)*3 + (dx+1). */
#define RRREF_K_ENC0 (9 * RRREF_C_IN)                 /* 144 */
#define RRREF_K_ENC1 (9 * RRREF_C_E0)                 /* 72 */
#define RRREF_K_DEC0 (9 * (RRREF_C_E1 + RRREF_C_E0))  /* 216: per tap enc1 chans then skip chans */
#define RRREF_K_OUT (9 * RRREF_C_DEC)                 /* 72 */

/* ---- weight image (one allocation of e4m3 bytes) -----------------------
 * Per conv layer, at its offset: Cout x K weights (row o = output channel,
 * K bytes each, k ordered as above), then Cout bias bytes (e4m3, the f16
 * accumulator starts at the bias).  Each layer's +40 pointer is
 * weights + its offset (a non-zero delta). */
#define RRREF_W_ENC0 256u
#define RRREF_W_ENC1 (RRREF_W_ENC0 + 4096u)   /* enc0 uses 8*144+8 = 1160 bytes */
#define RRREF_W_DEC0 (RRREF_W_ENC1 + 4096u)   /* enc1 uses 16*72+16 = 1168 */
#define RRREF_W_OUT (RRREF_W_DEC0 + 4096u)    /* dec0 uses 8*216+8 = 1736 */
/* The two attention launches' images (RRREF_ATTN_W_BYTES = 4224 each, layout
 * below), appended so the conv layers' offsets stay where they were. */
#define RRREF_W_ATTN0 (RRREF_W_OUT + 4096u)   /* output uses 26*72+26 = 1898 */
#define RRREF_W_ATTN1 (RRREF_W_ATTN0 + 4352u) /* 4224 rounded up to 256 */
#define RRREF_W_BYTES (RRREF_W_ATTN1 + 4352u)

/* ---- stats allocation (f32) --------------------------------------------
 * exposure window at +RRREF_STATS_EXPOSURE: 4 f32
 *   [0] exposure scale  [1] mean log2 luminance  [2] sum of partials  [3] pixel count
 * partials window at +RRREF_STATS_PARTIALS: one f32 per 16x16 tile, row-major tiles. */
#define RRREF_STATS_EXPOSURE 64u
#define RRREF_STATS_PARTIALS 256u

/* ---- parameter blocks ------------------------------------------------- */

/* cuda_dldn_rrref_expo0_kernel: grid ceil(tiles/64) x 1, block 64 x 1. */
typedef struct rrref_expo0_params {
    uint64_t colour;      /*  0 texture: noisy colour, HALF x4, point, unnormalized */
    uint64_t partials;    /*  8 pointer: f32[tiles_x*tiles_y] (stats + RRREF_STATS_PARTIALS) */
    uint32_t width;       /* 16 image width */
    uint32_t height;      /* 20 image height */
    uint32_t tiles_x;     /* 24 ceil(width/16) */
    uint32_t tiles_y;     /* 28 ceil(height/16) */
} rrref_expo0_params;

/* cuda_dldn_rrref_expo1_kernel: grid 1 x 1, block 1 x 1. */
typedef struct rrref_expo1_params {
    uint64_t partials;    /*  0 pointer: f32[count] (stats + RRREF_STATS_PARTIALS) */
    uint64_t exposure;    /*  8 pointer: f32[4] (stats + RRREF_STATS_EXPOSURE), written */
    uint32_t count;       /* 16 number of partials */
    uint32_t pixels;      /* 20 width*height */
    float key;            /* 24 target mean luminance (0.18) */
    uint32_t pad;         /* 28 zero */
} rrref_expo1_params;

/* cuda_dldn_rrref_input_kernel: full-res grid. */
typedef struct rrref_input_params {
    uint64_t colour;      /*  0 texture HALF x4, point, clamp, unnormalized */
    uint64_t depth;       /*  8 texture FLOAT x1, point */
    uint64_t motion;      /* 16 texture HALF x2, point (pixels; pos + motion = previous pos) */
    uint64_t albedo;      /* 24 texture UNORM_INT8X4, point, normalized float */
    uint64_t normal;      /* 32 texture SNORM_INT8X4, point, normalized float */
    uint64_t mask;        /* 40 texture UNSIGNED_INT8 x1, point, read as normalized float */
    uint64_t history;     /* 48 texture HALF x4, LINEAR, clamp, unnormalized */
    uint64_t exposure;    /* 56 pointer: f32[4] (stats + RRREF_STATS_EXPOSURE) */
    uint64_t dst;         /* 64 pointer: f16 planes [RRREF_C_IN][H][W] (arena window) */
    uint32_t width;       /* 72 */
    uint32_t height;      /* 76 */
} rrref_input_params;

/* cuda_dldn_rrref_{enc0,enc1,dec0}_kernel: grid over the output (width x height).
 *   enc0: src f16 [C_IN] full res;  dst f16 [C_E0] full res;  skip 0
 *   enc1: src e4m3 [C_E0] half res; dst f16 [C_E1] half res;  skip 0
 *   dec0: src f16 [C_E1] half res (read at (x>>1, y>>1)); skip f16 [C_E0] full res;
 *         dst f16 [C_DEC] full res */
typedef struct rrref_conv_params {
    uint64_t src;         /*  0 pointer: input planes (arena window) */
    uint64_t skip;        /*  8 pointer: skip planes (dec0) or 0 */
    uint64_t dst;         /* 16 pointer: output planes (arena window) */
    uint32_t width;       /* 24 output width */
    uint32_t height;      /* 28 output height */
    uint32_t src_width;   /* 32 src plane width */
    uint32_t src_height;  /* 36 src plane height */
    uint64_t weights;     /* 40 pointer: e4m3 weight image + layer offset */
} rrref_conv_params;

/* cuda_dldn_rrref_down_kernel: grid over the half-res output. */
typedef struct rrref_down_params {
    uint64_t src;         /*  0 pointer: f16 [C_E0] full res (enc0 window) */
    uint64_t dst;         /*  8 pointer: e4m3 [C_E0] half res (arena window) */
    uint32_t width;       /* 16 half-res width */
    uint32_t height;      /* 20 half-res height */
    uint32_t src_width;   /* 24 */
    uint32_t src_height;  /* 28 */
} rrref_down_params;

/* cuda_dldn_rrref_output_kernel: full-res grid. */
typedef struct rrref_output_params {
    uint64_t src;         /*  0 pointer: f16 [C_DEC] full res (dec0 window) */
    uint64_t colour;      /*  8 texture HALF x4, point, clamp, unnormalized */
    uint64_t motion;      /* 16 texture HALF x2, point */
    uint64_t history;     /* 24 texture HALF x4, LINEAR, clamp, unnormalized */
    uint64_t out;         /* 32 surface HALF x4: denoised output (x in bytes = x*8) */
    uint64_t weights;     /* 40 pointer: e4m3 weight image + RRREF_W_OUT */
    uint64_t history_out; /* 48 surface HALF x4: next frame's history */
    uint32_t width;       /* 56 */
    uint32_t height;      /* 60 */
} rrref_output_params;

/* ---- the window-attention block (rrref_attn.cu; docs/rrref-attention.md) --
 * cuda_dldn_rrref_attn0_kernel: a window of 8 x 4 pixels is 32 tokens of
 * RRREF_ATTN_C channels; one warp a window, blocks of 32 x 1 x 4 threads
 * (threadIdx.z the warp: 2 x 2 windows), grid ceil(windows_x / 2) x
 * ceil(windows_y / 2), RRREF_ATTN_SHARED bytes of dynamic shared memory. */
#define RRREF_ATTN_C 32
#define RRREF_ATTN_WIN_W 8
#define RRREF_ATTN_WIN_H 4
#define RRREF_ATTN_SHARED 9600u
/* The attention weight image (e4m3 bytes): Wq, Wk, Wv, Wo, each C x C (row
 * o = output channel, C bytes of input channels), then bq, bk, bv, bo (C
 * each; the f16 accumulators start at the bias). */
#define RRREF_ATTN_W_Q 0u
#define RRREF_ATTN_W_K 1024u
#define RRREF_ATTN_W_V 2048u
#define RRREF_ATTN_W_O 3072u
#define RRREF_ATTN_W_BIAS 4096u /* + 32 * (0 q, 1 k, 2 v, 3 o) */
#define RRREF_ATTN_W_BYTES 4224u

/* Tokens in and out: HALF x 4 images of (width * 8) x height texels, pixel
 * (x, y)'s channels 4c..4c+3 in texel (8x + c, y). */
typedef struct rrref_attn_params {
    uint64_t src;         /*   0 texture HALF x4 tokens: LINEAR, normalized coordinates, clamp;
                           *     read at integer coordinates (tex.base.2d.v4.f32.s32), exact texels */
    uint64_t out;         /*   8 surface HALF x4: tokens + attention (the residual sum) */
    uint64_t branch;      /*  16 surface HALF x4: the attention branch alone */
    uint32_t width;       /*  24 pixels (tokens) across */
    uint32_t height;      /*  28 */
    uint32_t windows_x;   /*  32 ceil(width / 8) */
    uint32_t windows_y;   /*  36 ceil(height / 4) */
    uint64_t weights;     /*  40 pointer: the attention weight image */
    uint16_t log2_tau;    /*  48 f16: scores scale 2^log2_tau (ex2.approx) */
    uint16_t channels;    /*  50 f16: the RMS norm's divisor, 32.0 (div.approx) */
    uint16_t eps;         /*  52 f16: the RMS norm's epsilon */
    uint16_t pad;         /*  54 zero */
    uint32_t reserved[22]; /* 56 zero (the block is the 144 bytes of the notes' enc2) */
} rrref_attn_params;

/* cuda_dldn_rrref_tok0_kernel: grid over the half-res image, 8 x 8 blocks.
 * Token (x, y) is channels enc1[0..15], down[0..7] (e4m3 -> f16, exact; a NaN
 * code -> 0x7fff) and 8 zeros, written as 8 HALF x4 texels (8x + c, y). */
typedef struct rrref_tok_params {
    uint64_t enc1;        /*  0 pointer: f16 [C_E1] half res (enc1 window) */
    uint64_t down;        /*  8 pointer: e4m3 [C_E0] half res (down window) */
    uint64_t tokens;      /* 16 surface HALF x4: (width * 8) x height texels */
    uint32_t width;       /* 24 half-res width */
    uint32_t height;      /* 28 half-res height */
} rrref_tok_params;

/* cuda_dldn_rrref_untok0_kernel: grid over the half-res image, 8 x 8 blocks.
 * Plane c (0..15) at (x, y) = channel c of token (x, y): texel (8x + c/4, y)
 * read with tex2D at its centre, point filter, unnormalized, clamp. */
typedef struct rrref_untok_params {
    uint64_t tokens;      /*  0 texture HALF x4 tokens (the second attn0's out) */
    uint64_t dst;         /*  8 pointer: f16 [C_E1] half res (arena window) */
    uint32_t width;       /* 16 half-res width */
    uint32_t height;      /* 20 */
} rrref_untok_params;

#define RRREF_OFF(T, f) offsetof(T, f)
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_expo0_params, partials) == 8, "expo0.partials");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_expo0_params, tiles_y) == 28, "expo0.tiles_y");
RRREF_STATIC_ASSERT(sizeof(rrref_expo0_params) == 32, "expo0 size");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_expo1_params, exposure) == 8, "expo1.exposure");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_expo1_params, key) == 24, "expo1.key");
RRREF_STATIC_ASSERT(sizeof(rrref_expo1_params) == 32, "expo1 size");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_input_params, mask) == 40, "input.mask");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_input_params, history) == 48, "input.history");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_input_params, exposure) == 56, "input.exposure");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_input_params, dst) == 64, "input.dst");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_input_params, height) == 76, "input.height");
RRREF_STATIC_ASSERT(sizeof(rrref_input_params) == 80, "input size");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_conv_params, dst) == 16, "conv.dst");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_conv_params, src_height) == 36, "conv.src_height");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_conv_params, weights) == 40, "conv.weights at +40");
RRREF_STATIC_ASSERT(sizeof(rrref_conv_params) == 48, "conv size");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_down_params, src_height) == 28, "down.src_height");
RRREF_STATIC_ASSERT(sizeof(rrref_down_params) == 32, "down size");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_output_params, out) == 32, "output.out");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_output_params, weights) == 40, "output.weights at +40");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_output_params, history_out) == 48, "output.history_out");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_output_params, height) == 60, "output.height");
RRREF_STATIC_ASSERT(sizeof(rrref_output_params) == 64, "output size");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_attn_params, windows_y) == 36, "attn.windows_y");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_attn_params, weights) == 40, "attn.weights at +40");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_attn_params, eps) == 52, "attn.eps");
RRREF_STATIC_ASSERT(sizeof(rrref_attn_params) == 144, "attn size");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_tok_params, tokens) == 16, "tok.tokens");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_tok_params, height) == 28, "tok.height");
RRREF_STATIC_ASSERT(sizeof(rrref_tok_params) == 32, "tok size");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_untok_params, dst) == 8, "untok.dst");
RRREF_STATIC_ASSERT(RRREF_OFF(rrref_untok_params, height) == 20, "untok.height");
RRREF_STATIC_ASSERT(sizeof(rrref_untok_params) == 24, "untok size");

#endif
