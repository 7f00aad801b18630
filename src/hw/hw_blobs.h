/* hw_blobs.h - the built-in table set (src/hw/sm_90: tables.tsv and the
 * NAME.xz files), embedded in the binary at build time by src/CMakeLists.txt
 * (.incbin of the files themselves: the compressed bytes, nothing decoded).
 * The list ends with a {NULL} entry. */
#ifndef VKRR_HW_BLOBS_H
#define VKRR_HW_BLOBS_H

#include <stdint.h>

typedef struct vkrr_hw_blob {
    const char *name;           /* "tables.tsv", "delta_ex2_ftz_0_1.i8.xz" */
    const uint8_t *start, *end;
} vkrr_hw_blob;

extern const vkrr_hw_blob vkrr_hw_shipped_blobs[];

#endif
