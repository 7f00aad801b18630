/* capture_log_internal.h - what the run.log parser's files share (not public).
 *
 * capture_log.c walks the lines (prefixes stripped) and hands each to a line
 * reader of capture_log_objects.c or capture_log_launch.c, with an lctx: the
 * line without its prefix, where it is, and an error to fill.  A reader
 * returns VKRR_OK, VKRR_ERR_NOMEM (the parse stops), or another status with
 * the error filled (the line is skipped and counted).  The helpers
 * (capture_log_fields.c, which calls nothing back) read
 * `key=value` fields of the whitespace-separated tokens as the bridge
 * prints them: decimal, 0x-hex, %p (0x... or "(nil)"), bare %016llx hashes.
 */
#ifndef VKRR_CAPTURE_LOG_INTERNAL_H
#define VKRR_CAPTURE_LOG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture_parse.h"

typedef struct vkrr_log_ctx {
    const char *s;   /* the line, prefix stripped */
    size_t n;
    const char *path;
    long line;
    vkrr_error *err;
} vkrr_log_ctx;

/* Growth state of the log's arrays (capacities), and what spans lines:
 * the launch a `cuLaunchKernel function=` line belongs to (the
 * `cuLaunchKernel[N]` line before it), the module capture waiting for its
 * load line, the device attributes seen. */
typedef struct vkrr_log_build {
    uint32_t arrays, textures, surfaces, launches, dumps, modules, functions;
    size_t names;
    bool has_call_seq;
    uint64_t call_seq;
    int32_t pending_module;  /* index of a captured module without its load line; -1 none */
    int cc_major, cc_minor;  /* cuDeviceGetAttribute 75 / 76; -1 unseen */
} vkrr_log_build;

/* Grows *arr (of *n elements of size sz, capacity *cap) by one zeroed
 * element; NULL on OOM.  Growth is bounded by the lines of the log. */
void *vkrr_log_grow(void **arr, uint32_t *n, uint32_t *cap, size_t sz);
/* A name (kernel, path) a log line may hold: no control characters, not empty. */
bool vkrr_log_name_ok(const char *s, size_t n);
/* Copies [s, s+n) into log->names; its offset, 0 on OOM (or n == 0). */
uint32_t vkrr_log_keep_name(vkrr_log *log, vkrr_log_build *b, const char *s, size_t n);
/* The line starts with the call `word` followed by a space, '(', '[' or
 * "->" (the bridge's "cuArrayCreate(v2)", "cuArray3DCreate->v2",
 * "cuLaunchKernel[7]"). */
bool vkrr_log_starts(const char *s, size_t n, const char *word);
/* Finds `key=` among the tokens; its value in *v, *vn. */
bool vkrr_log_find_kv(const vkrr_log_ctx *c, const char *key, const char **v, size_t *vn);
/* The n-th (0-based) whitespace-separated token. */
bool vkrr_log_token(const vkrr_log_ctx *c, int n, const char **t, size_t *tn);
/* key=NUMBER (decimal or 0x-hex; "(nil)" is 0).  `required` false: a
 * missing key leaves *out alone. */
vkrr_status vkrr_log_kv_u64(const vkrr_log_ctx *c, const char *key, bool required, uint64_t max,
                            uint64_t *out);
/* key=[-]NUMBER (a result= code). */
vkrr_status vkrr_log_kv_i64(const vkrr_log_ctx *c, const char *key, bool required, int64_t *out);
/* result= absent counts as success (older lines); *ok false: the call failed. */
vkrr_status vkrr_log_succeeded(const vkrr_log_ctx *c, bool *ok);
/* Fails the line: fills c->err naming file and line; returns st. */
vkrr_status vkrr_log_bad(const vkrr_log_ctx *c, vkrr_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* capture_log_objects.c: arrays, textures (and d4rRegisterLinearTexture),
 * surfaces, the device line and cuDeviceGetAttribute. */
vkrr_status vkrr_log_read_array(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_texture(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_linear_register(vkrr_log *log, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_surface(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_device(vkrr_log *log, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_attribute(vkrr_log_build *b, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_extension(vkrr_log *log, const vkrr_log_ctx *c);

/* capture_log_launch.c: launch[N] lines (statistics, synchronize, vkrr's
 * own), cuLaunchKernel lines, replay capture lines, KERNEL_PROFILE lines,
 * module capture / load lines and cuModuleGetFunction. */
vkrr_status vkrr_log_read_launch(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_call(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_replay(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_profile(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_module(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c);
vkrr_status vkrr_log_read_function(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c);
/* After the last line: one launch record per sequence (merged), sorted. */
void vkrr_log_merge_launches(vkrr_log *log);

#endif
