/* fatbin.h - CUDA fatbins: finding them in any file and reading their entries.
 *
 * A fatbin is what nvcc links into a program for its device code and what
 * cuModuleLoadData takes: a 16-byte header (magic 0xBA55ED50, version 1, the
 * header's size, the size of what follows) and entries, each a header of its
 * own and a payload: PTX text (kind 1) or a cubin ELF (kind 2), for one
 * architecture, optionally compressed (flag 0x2000 LZ4 block, 0x8000 zstd
 * frame; the entry gives both sizes).  The layout (checked against fatbins
 * nvcc 13 writes with --compress-mode none, speed and size):
 *
 *   entry +0  u16 kind      +4  u32 header bytes   +8  u64 payload bytes (padded)
 *        +16  u32 compressed payload bytes (0: not compressed)
 *        +24  u16 PTX ISA minor  +26 u16 major    +28 u32 architecture (80: sm_80)
 *        +40  u64 flags     +56  u64 uncompressed bytes (headers of 64 bytes or more)
 *
 * Fatbins sit whole in the bridge's dlss-module-PID-NNNN.fatbin files, in a
 * host ELF's .nv_fatbin section (several, back to back), and inside a PE DLL
 * or any other binary: vkrr_fatbin_scan finds every one in a buffer by its
 * magic and a header that holds together, as d4r's extractor does.
 *
 *     vkrr_fatbin_list fl = {0};
 *     vkrr_fatbin_scan(data, size, "x.dll", &fl, &err);
 *     for (i < fl.n) if (fl.entries[i].kind == VKRR_FATBIN_PTX)
 *         vkrr_fatbin_payload(data, size, &fl.entries[i], &text, &len, &err);  // free(text)
 *     vkrr_fatbin_list_free(&fl);
 *
 * Errors name the file and the byte offset of the entry at fault.
 * Does NOT: read cubins (their architecture and size are listed, nothing else).
 */
#ifndef VKRR_FATBIN_H
#define VKRR_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define VKRR_FATBIN_MAGIC 0xBA55ED50u
enum { VKRR_FATBIN_PTX = 1, VKRR_FATBIN_ELF = 2 };
enum { VKRR_FATBIN_RAW = 0, VKRR_FATBIN_LZ4 = 1, VKRR_FATBIN_ZSTD = 2 };

typedef struct vkrr_fatbin_entry {
    uint32_t fatbin;        /* which fatbin of the scan (0-based) */
    uint32_t index;         /* its place in that fatbin (0-based) */
    int kind;               /* VKRR_FATBIN_PTX, _ELF, or another code */
    uint32_t arch;          /* 80: compute_80 (PTX) / sm_80 (cubin) */
    uint32_t ptx_major, ptx_minor; /* PTX entries: the ISA version */
    uint64_t flags;
    int compression;        /* VKRR_FATBIN_RAW, _LZ4, _ZSTD */
    uint64_t offset;        /* of the payload in the scanned buffer */
    uint64_t stored;        /* its bytes as stored (compressed, unpadded) */
    uint64_t size;          /* its bytes once uncompressed */
} vkrr_fatbin_entry;

typedef struct vkrr_fatbin_list {
    vkrr_fatbin_entry *entries;
    uint32_t n;
    uint32_t nfatbins;
} vkrr_fatbin_list;

/* Every fatbin in data (at any offset), its entries appended to out. */
vkrr_status vkrr_fatbin_scan(const void *data, size_t size, const char *path, vkrr_fatbin_list *out,
                             vkrr_error *err);
void vkrr_fatbin_list_free(vkrr_fatbin_list *l);
/* An entry's payload, uncompressed, trailing NULs removed, NUL-terminated
 * (malloc'd: the caller frees *out). */
vkrr_status vkrr_fatbin_payload(const void *data, size_t size, const vkrr_fatbin_entry *e,
                                const char *path, char **out, size_t *len, vkrr_error *err);
/* "LZ4", "zstd", "" */
const char *vkrr_fatbin_compression_name(int c);

#endif
