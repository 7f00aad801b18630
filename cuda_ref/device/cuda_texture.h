/* cuda_texture.h - CUDA texture sampling and surface access on the CPU,
 * defined once (C11, callable from C and C++).
 *
 * Both CPU-side executions of the original kernels use it: the CPU backend
 * (cuda_cpu.h's tex2D / surf2Dwrite call it) and the PTX interpreter
 * (cuda_ref/ptx: tex.2d, tld4.2d, suld.b.2d, sust.b.2d).  So the two agree
 * to the bit by construction, not by a second copy of the rules.
 *
 *     vkrr_cutex t = {.data = texels, .width = W, .height = H, .channels = 4,
 *                     .format = 16, .texel_bytes = 8, .filter = 1,
 *                     .address = {1, 1}};
 *     float rgba[4];
 *     vkrr_cutex_sample(&t, x, y, rgba);            // tex2D<float4>(t, x, y)
 *     vkrr_cusurf s = {.data = out, .width = W, .height = H, .texel_bytes = 8};
 *     if (!vkrr_cusurf_write(&s, v, 8, x * 8, y, VKRR_CUSURF_TRAP)) fault;
 *
 * Exact (what CUDA does): point sampling with unnormalized coordinates,
 * surface reads and writes with byte x, 16/32-bit float texels.
 * Measured on a GPU: bilinear filtering of 4-channel f16 arrays with clamp
 * addressing and unnormalized coordinates (src/hw/texfilter.h, the one
 * definition of that filter).
 * Documented choices (the texture unit's internals are undocumented):
 *   - other bilinear filtering (texfilter.h says which cases are not
 *     measured): weights are 9-bit fixed point (8 fractional bits) with
 *     alpha = floor(frac * 256 + 0.5) / 256; the weighted sum is done in f32
 *     in the order w00*T00 + w10*T10 + w01*T01 + w11*T11, unfused;
 *   - normalized coordinates: u = x * width in f32; wrap and mirror act on the
 *     integer texel index (mirror period 2*width); with unnormalized
 *     coordinates wrap and mirror act as clamp (CUDA supports only clamp and
 *     border there);
 *   - 8/16-bit normalized reads: unorm v/(2^n-1), snorm max(v/(2^(n-1)-1), -1),
 *     each an IEEE-rounded f32 division;
 *   - channels an array lacks read as 0 (float) / 0 (integer); the border
 *     colour is 0; a NaN coordinate reads as 0; an integer texture sampled
 *     as float returns the integer converted to float.
 *   - tld4 (gather): the four texels of the bilinear footprint of one
 *     component in the order PTX documents (counter-clockwise from the lower
 *     left): (i, j+1), (i+1, j+1), (i+1, j), (i, j) with (i, j) the
 *     upper-left texel of the footprint (rows grow downwards).
 *
 * Does NOT: filter 1D/3D/layered/cube textures, mipmaps, sRGB, or anisotropy;
 * allocate; know about captures.  Thread-safe (pure functions of their
 * arguments; a surface write touches only its texel).
 * Ownership: descriptors point at caller-owned texels.
 */
#ifndef VKRR_CUDA_TEXTURE_H
#define VKRR_CUDA_TEXTURE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkrr_cutex {
    const unsigned char *data;   /* width*height texels, rows packed */
    unsigned width, height, channels, format, texel_bytes; /* format: CUarray_format code */
    int filter;                  /* 0 point, 1 linear */
    int address[2];              /* 0 wrap, 1 clamp, 2 mirror, 3 border */
    bool normalized, read_as_integer;
    unsigned linear_count;       /* over linear memory (tex1Dfetch): texels; 0: an array */
} vkrr_cutex;

typedef struct vkrr_cusurf {
    unsigned char *data;
    unsigned width, height, texel_bytes;
    int *fault;                  /* optional: set to 1 (atomically) by a faulting access */
} vkrr_cusurf;

/* CUDA's surface boundary modes (PTX .trap, .clamp, .zero). */
typedef enum vkrr_cusurf_mode {
    VKRR_CUSURF_TRAP = 0,  /* out of range: a fault (nothing read or written) */
    VKRR_CUSURF_CLAMP = 1, /* coordinates clamped to the surface */
    VKRR_CUSURF_ZERO = 2   /* out of range: reads give zeros, writes are dropped */
} vkrr_cusurf_mode;

/* tex2D<float4>(t, x, y): filtered, addressed, as normalized float. */
void vkrr_cutex_sample(const vkrr_cutex *t, float x, float y, float out[4]);
/* The same with the bilinear filter chosen: AUTO as above (the measured
 * model where texfilter.h says it was measured, else the f32 filter),
 * MODEL the measured steps on any format, F32 the f32 filter (`vkrr hw
 * measure` compares both with a GPU). */
typedef enum vkrr_cutex_filter_how { VKRR_CUTEX_AUTO, VKRR_CUTEX_MODEL, VKRR_CUTEX_F32 } vkrr_cutex_filter_how;
void vkrr_cutex_filter(const vkrr_cutex *t, float x, float y, vkrr_cutex_filter_how how,
                       float out[4]);
/* tex1Dfetch on a texture over linear memory: texel i (rows of the replay's
 * packing, VKRR_LINEAR_ROW, hold them in order); outside [0, linear_count)
 * CUDA reads 0.  No filtering or addressing applies to linear fetches. */
void vkrr_cutex_fetch1d(const vkrr_cutex *t, int i, float out[4]);
/* The same with the channels as raw integers (as vkrr_cutex_fetch_int). */
void vkrr_cutex_fetch1d_int(const vkrr_cutex *t, int i, uint32_t out[4]);
/* tld4.COMP.2d / tex2Dgather(t, x, y, comp): comp 0..3 = r, g, b, a. */
void vkrr_cutex_gather(const vkrr_cutex *t, float x, float y, unsigned comp, float out[4]);
/* Point-sampled texel with the channels as raw integers (sign-extended for
 * signed formats, float texels as their bits): what tex.2d.v4.s32/.u32
 * returns from a texture read as integer.  Missing channels read 0. */
void vkrr_cutex_fetch_int(const vkrr_cutex *t, float x, float y, uint32_t out[4]);

/* surf2Dwrite / sust.b.2d: `bytes` bytes of v at byte x.  CUDA requires the
 * access to be exactly one texel at a texel boundary; anything else, and an
 * out-of-range coordinate in TRAP mode, is a fault: returns false, writes
 * nothing and sets *s->fault.  CLAMP clamps the texel index; ZERO drops the
 * write (true). */
bool vkrr_cusurf_write(const vkrr_cusurf *s, const void *v, unsigned bytes, int x_bytes, int y,
                       vkrr_cusurf_mode mode);
/* surf2Dread / suld.b.2d: the same rules; ZERO reads zeros out of range. */
bool vkrr_cusurf_read(const vkrr_cusurf *s, void *v, unsigned bytes, int x_bytes, int y,
                      vkrr_cusurf_mode mode);
/* sured.b.2d: an atomic reduction of v into the texel at byte x (4 or 8
 * bytes, the same rules as a write; ZERO drops it out of range).  op:
 * VKRR_CUSURF_ADD (wrapping), MIN, MAX (signed when sgn), AND, OR. */
enum { VKRR_CUSURF_ADD, VKRR_CUSURF_MIN, VKRR_CUSURF_MAX, VKRR_CUSURF_AND, VKRR_CUSURF_OR };
bool vkrr_cusurf_reduce(const vkrr_cusurf *s, int op, bool sgn, uint64_t v, unsigned bytes, int x_bytes,
                        int y, vkrr_cusurf_mode mode);

#ifdef __cplusplus
}
#endif

#endif
