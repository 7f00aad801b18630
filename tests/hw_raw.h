/* hw_raw.h - the tables measured on the H200 (src/hw/sm_90/NAME.xz, the
 * files `vkrr hw measure` wrote on the GPU), read for tests without src/hw.
 *
 * The hardware model (src/hw: hw_tables.c reads a set, approx.c applies the
 * laws) is what the tests of the approximate instructions check, so their
 * expected values cannot come through it: this reader is liblzma and a
 * little-endian load, nothing of vkrr's.
 *
 *     size_t n;
 *     uint8_t *f16 = hwraw_shipped("f16_inputs.u32", &n);   // NULL: says why
 *     uint32_t y = hwraw_u32(f16, HWRAW_F16_EX2_FTZ * 65536 + code);
 *     free(f16);
 *
 * Ownership: the caller frees what hwraw_read / hwraw_shipped return. */
#ifndef VKRR_TEST_HW_RAW_H
#define VKRR_TEST_HW_RAW_H

#include <stddef.h>
#include <stdint.h>

/* Rows of f16_inputs.u32, 65,536 f32 results each (src/hw/README.md). */
enum {
    HWRAW_F16_EX2_FTZ, HWRAW_F16_EX2, HWRAW_F16_RSQRT_FTZ, HWRAW_F16_RSQRT, HWRAW_F16_RCP_FTZ,
    HWRAW_F16_RCP, HWRAW_F16_SQRT_FTZ, HWRAW_F16_SQRT, HWRAW_F16_LG2_FTZ, HWRAW_F16_LG2,
    HWRAW_F16_SIN_FTZ, HWRAW_F16_SIN, HWRAW_F16_COS_FTZ, HWRAW_F16_COS, HWRAW_F16_TANH
};
/* Rows of native16.u16, 65,536 16-bit results each. */
enum { HWRAW_N16_EX2_F16, HWRAW_N16_TANH_F16, HWRAW_N16_EX2_BF16, HWRAW_N16_TANH_BF16 };

/* The decompressed bytes of an .xz file (malloc'd), NULL after printing why. */
uint8_t *hwraw_read(const char *path, size_t *bytes);
/* The shipped table NAME ("f16_inputs.u32"): src/hw/sm_90/NAME.xz. */
uint8_t *hwraw_shipped(const char *name, size_t *bytes);
/* Entry i of a table of little-endian u32 / u16 words. */
uint32_t hwraw_u32(const uint8_t *t, size_t i);
uint16_t hwraw_u16(const uint8_t *t, size_t i);

#endif
