/* cuda_modules.h - which CUDA module file holds a kernel.
 *
 * A capture's modules/ folder (or --modules DIR) holds the modules its
 * launches came from, as *.ptx, *.cubin or *.fatbin.  The libcuda backend
 * needs the file that defines a kernel, by its symbol name:
 *
 *     char path[4096];
 *     if (vkrr_cuda_module_find(dir, "rrref_blur_h", path, sizeof path, &err)) ...
 *
 * What counts as "holds":
 *   .ptx     a `.entry NAME` directive (with or without `.visible` / `.weak`);
 *   .cubin   an ELF64 symbol of type STT_FUNC named NAME;
 *   .fatbin  any embedded ELF or PTX image that holds it as above.
 * nvcc (12.8+, 13) compresses fatbin entries with zstd by default; compressed
 * entries cannot be searched here (no decompressor is linked), so such a
 * file answers VKRR_CUDA_MODULE_UNKNOWN and the libcuda backend asks the
 * driver instead (cuModuleLoadData + cuModuleGetFunction).  vkrr's own build
 * writes fatbins with --no-compress so they stay searchable.
 *
 * Every file is parsed defensively: all ELF and fatbin offsets are bounds
 * checked, a damaged file is VKRR_ERR_PARSE naming the file and byte offset,
 * and files larger than VKRR_CUDA_MODULE_MAX_BYTES are refused.
 * Does NOT: load anything into a driver.
 */
#ifndef VKRR_CUDA_MODULES_H
#define VKRR_CUDA_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define VKRR_CUDA_MODULE_MAX_BYTES (1024ull * 1024 * 1024)

typedef enum vkrr_cuda_module_kind {
    VKRR_CUDA_MODULE_NONE = 0, /* not a module file name */
    VKRR_CUDA_MODULE_PTX,
    VKRR_CUDA_MODULE_CUBIN,
    VKRR_CUDA_MODULE_FATBIN,
} vkrr_cuda_module_kind;

typedef enum vkrr_cuda_module_answer {
    VKRR_CUDA_MODULE_NO = 0,
    VKRR_CUDA_MODULE_YES,
    VKRR_CUDA_MODULE_UNKNOWN,  /* compressed fatbin entries: only the driver can tell */
} vkrr_cuda_module_answer;

/* By file name suffix. */
vkrr_cuda_module_kind vkrr_cuda_module_kind_of(const char *path);

/* Searches bytes [data, data+size) of a module of the given kind. */
vkrr_status vkrr_cuda_module_search(vkrr_cuda_module_kind kind, const uint8_t *data, size_t size,
                                    const char *kernel, const char *path,
                                    vkrr_cuda_module_answer *answer, vkrr_error *err);

/* Reads a whole file (at most VKRR_CUDA_MODULE_MAX_BYTES) plus a NUL byte, so
 * PTX can go to cuModuleLoadData as is.  Free *data with free(). */
vkrr_status vkrr_cuda_module_read(const char *path, uint8_t **data, size_t *size, vkrr_error *err);

/* Reads and searches one file. */
vkrr_status vkrr_cuda_module_file_has(const char *path, const char *kernel,
                                      vkrr_cuda_module_answer *answer, vkrr_error *err);

/* Every module file in dir (sorted by name) that may hold kernel, as a newly
 * allocated NUL-separated, double-NUL-terminated list (free() it): first those
 * that surely hold it, then those with compressed entries (UNKNOWN).  Damaged
 * files are skipped with a warning.  With no sure file the status is
 * VKRR_ERR_MISSING "no module in this folder holds kernel NAME" (saying how
 * many files were searched, compressed or damaged), and *list still holds the
 * UNKNOWN files (NULL when none) for the caller to ask the driver about. */
vkrr_status vkrr_cuda_module_candidates(const char *dir, const char *kernel, char **list,
                                        vkrr_error *err);

/* The first file that surely holds kernel (VKRR_ERR_MISSING otherwise). */
vkrr_status vkrr_cuda_module_find(const char *dir, const char *kernel, char *path_out,
                                  size_t cap, vkrr_error *err);

#endif
