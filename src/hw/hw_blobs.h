/* hw_blobs.h - files embedded in the binary at build time by
 * src/CMakeLists.txt (.incbin of the files themselves: nothing decoded):
 * the built-in table set (src/hw/sm_90: tables.tsv and the NAME.xz files)
 * and the measurement kernels (src/hw/ptx: measure.ptx, measure_bf16.ptx;
 * not NUL-terminated).  Each list ends with a {NULL} entry. */
#ifndef VKRR_HW_BLOBS_H
#define VKRR_HW_BLOBS_H

#include <stdint.h>

typedef struct vkrr_hw_blob {
    const char *name;           /* "tables.tsv", "delta_ex2_ftz_0_1.i8.xz" */
    const uint8_t *start, *end;
} vkrr_hw_blob;

extern const vkrr_hw_blob vkrr_hw_shipped_blobs[];
extern const vkrr_hw_blob vkrr_hw_kernel_blobs[];

#endif
