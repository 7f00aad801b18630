/* capture_internal.h - what the capture reader's files share (not public).
 *
 * Call direction, one way: capture.c (owns the launch list) -> capture_resolve.c
 * (ties dump/ and run/run.log to it) -> capture_fs.c (paths, sizes, listings). */
#ifndef VKRR_CAPTURE_INTERNAL_H
#define VKRR_CAPTURE_INTERNAL_H

#include "capture.h"

/* capture_fs.c */
char *vkrr_capture_join(const char *a, const char *b); /* "a/b", malloc'd; NULL on OOM */
/* The regular file at path must have exactly `want` bytes. */
vkrr_status vkrr_capture_stat_size(const char *path, uint64_t want, const char *what,
                                   vkrr_error *err);
/* Directory entries without dot files; free with vkrr_capture_free_names. */
vkrr_status vkrr_capture_list_dir(const char *path, char ***names, uint32_t *n, vkrr_error *err);
void vkrr_capture_free_names(char **names, uint32_t n);
/* capture_resolve.c: matches dump/ files to launches, and the log's state. */
/* W x H x texel bytes of an image (checked at open, so no overflow here). */
uint64_t vkrr_capture_image_bytes(const vkrr_image *im);
vkrr_status vkrr_capture_resolve_dumps(vkrr_capture *cap, vkrr_error *err);
vkrr_status vkrr_capture_resolve_log(vkrr_capture *cap, vkrr_error *err);

#endif
