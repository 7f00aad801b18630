/* capture_internal.h - what the capture reader's files share (not public).
 *
 * Call direction, one way: capture.c (owns the launch list) ->
 * capture_resolve.c (ties dump/ to it) and capture_link.c (ties run/run.log
 * to it: sampler state, arrays, linear textures, hashes) -> capture_fs.c
 * (paths, sizes, listings, damage records). */
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
/* Records a problem e on launch l (kind: how far it reaches; a launch keeps
 * its first error and its worst kind) or, with l NULL, on the capture, and
 * as cap->first_damage when it is the first.  VKRR_ERR_NOMEM (in err) when it
 * cannot: only that stops the open. */
vkrr_status vkrr_capture_damage(vkrr_capture *cap, vkrr_launch *l, vkrr_damage_kind kind,
                                const vkrr_error *e, vkrr_error *err);
/* The size of the regular file at path. */
vkrr_status vkrr_capture_file_size(const char *path, uint64_t *size, const char *what,
                                   vkrr_error *err);

/* Records launch seq (kernel: kernel_len bytes, NULL: unnamed), which has
 * no replay folder, with ndumps more dump files; entries of one launch are
 * merged when the capture is opened. */
vkrr_status vkrr_capture_add_dump_only(vkrr_capture *cap, uint64_t seq, const char *kernel,
                                       size_t kernel_len, uint32_t ndumps, vkrr_error *err);

/* capture_resolve.c: matches dump/ files to launches. */
/* W x H x texel bytes of an image (checked at open, so no overflow here). */
uint64_t vkrr_capture_image_bytes(const vkrr_image *im);
vkrr_launch *vkrr_capture_find_seq(vkrr_capture *cap, uint64_t seq);
vkrr_status vkrr_capture_resolve_dumps(vkrr_capture *cap, vkrr_error *err);
/* Damages l: image `image` has no dump (so no shape). */
vkrr_status vkrr_capture_no_dump(vkrr_capture *cap, vkrr_launch *l, uint32_t image,
                                 vkrr_error *err);
/* capture_link.c: the log's state at each launch. */
vkrr_status vkrr_capture_resolve_log(vkrr_capture *cap, vkrr_error *err);

#endif
