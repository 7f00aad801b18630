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

/* The two tables back to back (VKRR_APPROX_TABLE_BYTES). */
const uint32_t *vkrr_approx_tables(void);

#ifdef __cplusplus
}
#endif

#endif
