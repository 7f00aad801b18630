/* approx.h - the stand-ins for CUDA's approximate instructions, defined once.
 *
 * ex2.approx.ftz.f32 and rsqrt.approx.ftz.f32 are not specified to the bit
 * (PTX documents ~2 ULP).  vkrr defines what they return in ONE place, here:
 * the f32 nearest to the double-precision result (exp2, 1/sqrt), with f32
 * denormals flushed on input and output like .ftz.  The CPU backend calls
 * these functions; the Vulkan ports read the same values from tables over
 * every f16 input (rrref, like the production network, applies them to f16
 * values), so a port and the CPU backend agree to the bit instead of
 * differing wherever a GPU's exp2 differs from the C library's.
 *
 * The tables: VKRR_APPROX_TABLE_ENTRIES f32 bit patterns per function,
 * indexed by the f16 code of the input: [0, 65536) ex2, [65536, 131072)
 * rsqrt.  A table measured on an NVIDIA GPU can replace them later without
 * touching a port.  Built once, on first use (thread-safe); never freed.
 *
 * The other approximate instructions (for the PTX interpreter, which runs any
 * kernel): rcp, sqrt, rsqrt, lg2, ex2, sin, cos, tanh (.approx, with or
 * without .ftz) and the f64 approximations rcp.approx.ftz.f64 and
 * rsqrt.approx{.ftz}.f64.  They are stand-ins for the hardware, not measured
 * on it: the f32 (f64) nearest to the double-precision (long double) result
 * of the exact function, f32 denormals flushed on input and output where the
 * instruction says .ftz (rcp.approx.ftz.f64 flushes f64 denormals).  A GPU's
 * results differ in the last bits (PTX documents the error bounds of each,
 * e.g. 2 ULP for ex2.approx.f32, and a wider absolute error for sin/cos far
 * from zero).  The f16/bf16 forms (ex2.approx.f16 and friends) are the f32
 * stand-in of the widened input, rounded to nearest even.
 *
 * Does NOT: know about devices; vkbridge uploads the table.
 */
#ifndef VKRR_APPROX_H
#define VKRR_APPROX_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VKRR_APPROX_TABLE_ENTRIES 65536u
#define VKRR_APPROX_TABLE_BYTES (2u * VKRR_APPROX_TABLE_ENTRIES * 4u)

float vkrr_approx_ex2(float x);   /* ex2.approx.ftz.f32 stand-in */
float vkrr_approx_rsqrt(float x); /* rsqrt.approx.ftz.f32 stand-in */

/* OP.approx{.ftz}.f32 for any of them; vkrr_approx_f32(VKRR_APPROX_EX2, x, 1)
 * is vkrr_approx_ex2(x). */
typedef enum vkrr_approx_op {
    VKRR_APPROX_EX2,   /* 2^x */
    VKRR_APPROX_RSQRT, /* 1/sqrt(x) */
    VKRR_APPROX_RCP,   /* 1/x */
    VKRR_APPROX_SQRT,  /* sqrt(x) */
    VKRR_APPROX_LG2,   /* log2(x) */
    VKRR_APPROX_SIN,   /* sin(x), x in radians */
    VKRR_APPROX_COS,   /* cos(x) */
    VKRR_APPROX_TANH,  /* tanh(x) */
    VKRR_APPROX_COUNT
} vkrr_approx_op;
float vkrr_approx_f32(vkrr_approx_op op, float x, int ftz);
/* rcp.approx.ftz.f64 (op RCP, ftz 1) and rsqrt.approx{.ftz}.f64 (op RSQRT). */
double vkrr_approx_f64(vkrr_approx_op op, double x, int ftz);

/* The two tables back to back (VKRR_APPROX_TABLE_BYTES). */
const uint32_t *vkrr_approx_tables(void);

#ifdef __cplusplus
}
#endif

#endif
