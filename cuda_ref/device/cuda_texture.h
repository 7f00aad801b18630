/* cuda_texture.h - CUDA texture sampling and surface access on the CPU,
 * defined once (C11, callable from C and C++).
 *
 * Both CPU-side executions of the original kernels use it: the CPU backend
 * (cuda_cpu.h's tex2D / surf2Dwrite call it) and the PTX interpreter
 * (cuda_ref/ptx: tex, tld4, suld.b, sust.b, sured.b on every geometry:
 * vkrr_cutex_lookup, vkrr_cutex_gather_at, vkrr_cusurf_*_at).  So the two
 * agree to the bit by construction, not by a second copy of the rules.
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
 * Geometries other than 2D (all documented choices, none measured on a GPU):
 *   - 1D (and each layer of a1d): row 0 of its plane as a 2D texture of one
 *     row, clamped, read at y = 0.5: the 2D filter with the second weight 0
 *     (the same 9-bit weights; the measured model where texfilter.h says it
 *     applies).  .1d on a 2D array reads row 0; .1d with f32 coordinates on
 *     linear memory reads the linear_count texels as such a row;
 *   - a2d: the layer as a 2D texture (the 2D filter, measured model included);
 *   - 3D: trilinear, the 9-bit weights on each axis, w = (wx * wy) * wz in
 *     f32, summed in f32 over the eight texels with x fastest, then y, then z
 *     (w000*T000 + w100*T100 + w010*T010 + ... + w111*T111), unfused; z is
 *     addressed with address[2] over depth slices;
 *   - cube, acube: the face by the CUDA Programming Guide's cubemap table
 *     (major axis m; x >= 0: face 0, s = -z, t = -y; x < 0: 1, z, -y;
 *     y >= 0: 2, x, z; y < 0: 3, x, -z; z >= 0: 4, x, -y; z < 0: 5, -x, -y),
 *     normalized face coordinates ((s/m + 1)/2, (t/m + 1)/2) in f32; ties
 *     between axes of equal magnitude pick x over y over z, -0 counts as
 *     >= 0.  Filtering and tld4 clamp within the face (the f32 filter): the
 *     hardware's seamless filtering across faces is not modelled;
 *   - a layer index (a1d, a2d, acube) is an unsigned integer clamped to
 *     [0, layers - 1] (acube: to the last cube, layers / 6); the ISA leaves
 *     an index out of range undefined;
 *   - s32 coordinates: texel indices, unfiltered, addressed with the
 *     sampler's modes (wrap and mirror when normalized, as above);
 *   - surfaces: a 3D z or an array layer out of range follows the boundary
 *     mode as x and y do.
 *
 * Does NOT: mipmaps (tex.level/.grad), depth compare, offsets, seamless
 * cubemap filtering, sRGB, or anisotropy; allocate; know about captures.
 * Thread-safe (pure functions of their arguments; a surface write touches
 * only its texel).
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
    const unsigned char *data;   /* planes of height rows of width texels, packed */
    unsigned width, height, channels, format, texel_bytes; /* format: CUarray_format code */
    int filter;                  /* 0 point, 1 linear */
    int address[3];              /* per axis x, y, z: 0 wrap, 1 clamp, 2 mirror, 3 border */
    bool normalized, read_as_integer;
    unsigned linear_count;       /* over linear memory (tex1Dfetch): texels; 0: an array */
    /* The array's geometry (all zero: a 2D array, one plane).  dims: 1 (height
     * is 1), 2 or 3 (depth slices are the planes); layers: a layered array's
     * layers, the planes, 0 when not layered; cube: a cubemap, its layers six
     * faces a cube in CUDA's order +x -x +y -y +z -z (CUDA_ARRAY3D_CUBEMAP). */
    unsigned dims, depth, layers;
    bool cube;
    /* the measured filter's weight fraction bits (texfilter.h); 0: the
     * current hardware model's (8 on sm_90) */
    unsigned weight_bits;
} vkrr_cutex;

typedef struct vkrr_cusurf {
    unsigned char *data;         /* planes of height rows of width texels, packed */
    unsigned width, height, texel_bytes;
    int *fault;                  /* optional: set to 1 (atomically) by a faulting access */
    unsigned dims, depth, layers; /* as vkrr_cutex's (all zero: 2D, one plane) */
    bool cube;
    unsigned format, channels;   /* the array's CUarray_format code and channels (sust.p); 0: unknown */
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

/* ---- every geometry (PTX .1d .2d .3d .a1d .a2d .cube .acube) ----------------- */
typedef enum vkrr_cutex_geom {
    VKRR_GEOM_1D, VKRR_GEOM_2D, VKRR_GEOM_3D, VKRR_GEOM_A1D, VKRR_GEOM_A2D, VKRR_GEOM_CUBE,
    VKRR_GEOM_ACUBE
} vkrr_cutex_geom;

/* Where one lookup reads.  c: x, y, z (those the geometry lacks are ignored;
 * cube, acube: the direction); ic: the same as s32 texel indices, used when
 * icoords (tex with .s32 coordinates); layer: the array index of a1d, a2d and
 * acube (acube: the cube, whose face f is plane 6*layer+f). */
typedef struct vkrr_cutex_at {
    vkrr_cutex_geom geom;
    bool icoords;
    float c[3];
    int32_t ic[3];
    uint32_t layer;
} vkrr_cutex_at;

/* tex.GEOM.v4: the four result words, f32 bits (as_int false: filtered and
 * addressed as vkrr_cutex_sample) or, as_int, the point-sampled channels as
 * raw integers (vkrr_cutex_fetch_int).  icoords: the texel at ic, never
 * filtered, addressed with the sampler's modes (1D on linear memory:
 * vkrr_cutex_fetch1d / _int).  On .2d exactly vkrr_cutex_sample /
 * vkrr_cutex_fetch_int. */
void vkrr_cutex_lookup(const vkrr_cutex *t, const vkrr_cutex_at *at, bool as_int, uint32_t out[4]);
/* tld4.COMP.GEOM (2d, a2d, cube, acube): vkrr_cutex_gather on the plane the
 * lookup lands on; as_int: the raw integer component. */
void vkrr_cutex_gather_at(const vkrr_cutex *t, const vkrr_cutex_at *at, unsigned comp, bool as_int,
                          uint32_t out[4]);
/* The planes of a descriptor: depth (3D), layers (layered, cube), else 1. */
unsigned vkrr_cutex_planes(const vkrr_cutex *t);
unsigned vkrr_cusurf_planes(const vkrr_cusurf *s);

/* Surfaces on any geometry: plane is the 3D slice (z) or the array layer
 * (a1d, a2d; a cubemap's face f of cube L is layer 6*L+f), y 0 on 1D.  A plane
 * outside [0, planes) follows mode as x and y do.  The 2D functions above are
 * these with plane 0. */
bool vkrr_cusurf_write_at(const vkrr_cusurf *s, const void *v, unsigned bytes, int x_bytes, int y,
                          int64_t plane, vkrr_cusurf_mode mode);
bool vkrr_cusurf_read_at(const vkrr_cusurf *s, void *v, unsigned bytes, int x_bytes, int y, int64_t plane,
                         vkrr_cusurf_mode mode);
bool vkrr_cusurf_reduce_at(const vkrr_cusurf *s, int op, bool sgn, uint64_t v, unsigned bytes, int x_bytes,
                           int y, int64_t plane, vkrr_cusurf_mode mode);

#ifdef __cplusplus
}
#endif

#endif
