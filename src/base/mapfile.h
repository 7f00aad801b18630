/* mapfile.h - read-only memory maps of capture files.
 *
 * Capture files can be gigabytes; they are mapped, never read into RAM, so a
 * launch's inputs cost nothing until they are touched, and the kernel can drop
 * the pages again.  An empty file maps to data == NULL, size == 0.
 *
 *     vkrr_mapfile m;
 *     if (vkrr_mapfile_open(&m, path, expected_size, &err)) ...
 *     use(m.data, m.size);
 *     vkrr_mapfile_close(&m);
 *
 * expected_size: VKRR_MAPFILE_ANY_SIZE, or the exact size the file must have
 * (VKRR_ERR_SIZE naming the file otherwise).  Also: whole-file reads of small
 * files (manifests, logs) with a size cap, and atomic whole-file writes.
 */
#ifndef VKRR_MAPFILE_H
#define VKRR_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VKRR_MAPFILE_ANY_SIZE UINT64_MAX

typedef struct vkrr_mapfile {
    const uint8_t *data;
    size_t size;
} vkrr_mapfile;

vkrr_status vkrr_mapfile_open(vkrr_mapfile *m, const char *path,
                              uint64_t expected_size, vkrr_error *err);
void vkrr_mapfile_close(vkrr_mapfile *m); /* accepts a zeroed or closed map */

/* Reads a whole small file into a NUL-terminated malloc'd buffer (caller frees).
 * Files larger than max_bytes are an error naming the file. */
vkrr_status vkrr_read_text(const char *path, size_t max_bytes, char **out,
                           size_t *len, vkrr_error *err);

/* Calls fn(ctx, line, lineno, err) for every line of text (len bytes), in
 * order: line is a writable NUL-terminated copy without its '\n', lineno
 * counts from 1.  Stops at the first status other than VKRR_OK and returns
 * it.  A NUL byte in text is VKRR_ERR_PARSE naming name and the byte.  The
 * one line loop of vkrr's small text formats (tolerance files, port
 * descriptors). */
typedef vkrr_status (*vkrr_line_fn)(void *ctx, char *line, long lineno, vkrr_error *err);
vkrr_status vkrr_text_each_line(const char *text, size_t len, const char *name, vkrr_line_fn fn,
                                void *ctx, vkrr_error *err);

/* Writes bytes to path through "path.tmp-PID" and rename(), so a reader never
 * sees a partial file.  A path that is not a regular file (/dev/null,
 * /dev/stdout, a FIFO) is written in place, never replaced; a symlink's target
 * is replaced, not the link. */
/* (Its folder is made first when missing.) */
vkrr_status vkrr_write_file_atomic(const char *path, const void *data,
                                   size_t size, vkrr_error *err);

/* mkdir -p; existing directories are fine. */
vkrr_status vkrr_mkdirs(const char *path, vkrr_error *err);
/* The user's cache folder for vkrr with sub appended ("hw/sm_90-..."):
 * $XDG_CACHE_HOME/vkrr/SUB when that is absolute, else $HOME/.cache/vkrr/SUB.
 * false (out "") when neither is set or the path does not fit; creates
 * nothing. */
bool vkrr_cache_path(char *out, size_t cap, const char *sub);

#ifdef __cplusplus
}
#endif

#endif
