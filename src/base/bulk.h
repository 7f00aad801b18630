/* bulk.h - memory for a launch's data (outputs, copies of inputs, a chain's
 * state): anonymous memory while the process's bulk data fits the memory
 * limit, and beyond it pages of an unlinked scratch file, so a launch larger
 * than memory runs, paged through the file by the kernel, instead of being
 * refused or killed.
 *
 *     void *p = vkrr_bulk_alloc(bytes);   // NULL: no memory and no scratch file
 *     ... p[0 .. bytes) ...                // contents undefined
 *     vkrr_bulk_free(p);                   // accepts NULL
 *
 * The limit: VKRR_MEM_LIMIT (bytes, or with a K, M, G or T suffix: powers of
 * 1024), else, taken anew at each call, the bulk data held now plus half
 * of what is available now: the system's MemAvailable, or what
 * the process's memory cgroup leaves where that is less.  Scratch files go in VKRR_SCRATCH_DIR, else TMPDIR, else
 * /var/tmp (a disk on most systems, where /tmp may be memory); they are
 * unlinked at creation, so nothing is left behind, even after a crash.
 *
 * A launch is "streamed" when its bytes exceed the limit
 * (vkrr_mem_streamed): the Vulkan backend then also moves its data through
 * staging in slices of vkrr_mem_slice() bytes rather than all at once.
 *
 * Does NOT: free memory on another thread's behalf, or zero it.
 */
#ifndef VKRR_BULK_H
#define VKRR_BULK_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

void *vkrr_bulk_alloc(uint64_t bytes);
/* The same, page aligned and a whole number of pages (what a Vulkan device
 * can import as a buffer's memory); freed with vkrr_bulk_free. */
void *vkrr_bulk_alloc_pages(uint64_t bytes);
void vkrr_bulk_free(void *p);
uint64_t vkrr_bulk_page_bytes(void);

/* Bytes the limit allows (see above); a bad VKRR_MEM_LIMIT counts as unset,
 * vkrr_mem_limit_check is what reports it. */
uint64_t vkrr_mem_limit(void);
/* VKRR_ERR_USAGE naming VKRR_MEM_LIMIT when it is set and not a size. */
vkrr_status vkrr_mem_limit_check(vkrr_error *err);
/* A launch of `bytes` exceeds the limit. */
bool vkrr_mem_streamed(uint64_t bytes);
/* The staging slice of a streamed launch: an eighth of the limit, between
 * 16 KiB and 64 MiB. */
uint64_t vkrr_mem_slice(void);

/* Bulk bytes now in scratch files, and the most there at once so far. */
void vkrr_bulk_scratch_bytes(uint64_t *now, uint64_t *peak);

#endif
