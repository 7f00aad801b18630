/* capture_parse.h - the capture's three text parsers, on buffers.
 *
 * capture.c reads files and calls these; the fuzz targets (tests/fuzz/) call
 * them directly.  Each works on a buffer of len bytes (need not be
 * NUL-terminated), names `path` in its errors (file + 1-based line), and
 * allocates only in proportion to len, never by a number it read.
 *
 *   manifest.txt  -> vkrr_manifest     (vkrr_manifest_free)
 *   run/run.log   -> vkrr_log          (vkrr_log_free)
 *   a dump/ name  -> vkrr_dump_name    (no allocation; kernel points into the name)
 *
 * Does NOT: touch the file system, or check one file against another (that is
 * capture.c's job: args.bin sizes, alloc files, dumps against manifests).
 */
#ifndef VKRR_CAPTURE_PARSE_H
#define VKRR_CAPTURE_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "hash.h" /* vkrr_fnv1a64: the hash= value of dump lines */
#include "status.h"

/* ---- manifest.txt ---- */
typedef struct vkrr_manifest_alloc {
    uint32_t index;
    uint64_t base, size;
    long line;
} vkrr_manifest_alloc;

typedef struct vkrr_manifest_pointer {
    uint32_t offset, index; /* index: the manifest's alloc IDX */
    uint64_t delta;
    long line;
} vkrr_manifest_pointer;

typedef struct vkrr_manifest_image {
    uint32_t offset;
    vkrr_image_kind kind;
    long line;
} vkrr_manifest_image;

typedef struct vkrr_manifest {
    char *kernel;
    uint32_t grid[3], block[3];
    uint32_t shared_bytes; /* 0 when the launch line has no SHMEM field */
    uint32_t args_bytes;
    vkrr_manifest_alloc *allocs;
    uint32_t nallocs;
    vkrr_manifest_pointer *pointers;
    uint32_t npointers;
    vkrr_manifest_image *images;
    uint32_t nimages;
    unsigned unknown_lines; /* skipped with a warning */
} vkrr_manifest;

/* Checks the manifest on its own: every line ends with a newline (a last line
 * without one was cut), the fixed first three lines, fields, ranges
 * (args <= VKRR_ARGS_MAX_BYTES, words inside args), duplicate allocs and
 * offsets, pointers into declared allocations with DELTA <= BYTES. */
vkrr_status vkrr_manifest_parse(vkrr_manifest *m, const char *text, size_t len,
                                const char *path, vkrr_error *err);
void vkrr_manifest_free(vkrr_manifest *m); /* accepts a zeroed manifest */

/* ---- run/run.log ---- */
typedef struct vkrr_log_array {
    uint64_t array;
    uint32_t width, height, format, channels; /* height: the dump's rows, all planes */
    long line;
    vkrr_geometry geometry;
} vkrr_log_array;

typedef struct vkrr_log_texture {
    uint64_t handle, array; /* array 0 when not over an array */
    vkrr_sampler sampler;   /* from_log = true */
    int resource;           /* type=: CUresourcetype, VKRR_TEXRES_* (absent: array) */
    /* linear and pitch-2D resources (the resource descriptor's fields):
     * devptr= format= channels= and bytes= (linear) or width= height= pitch= */
    uint64_t devptr, bytes, width, height, pitch;
    uint32_t format, channels;
    long line;
} vkrr_log_texture;

typedef struct vkrr_log_surface {
    uint64_t handle, array; /* array 0 when the line lacks the vkrr extension */
    long line;
} vkrr_log_surface;

typedef struct vkrr_log_launch {
    uint64_t sequence;
    long line; /* first line of launch[N] */
} vkrr_log_launch;

/* A dump line: launch[N] KERNEL arg[OFF] KIND SHAPE ... bytes=B ... hash=H */
typedef struct vkrr_log_dump {
    uint64_t sequence;
    uint32_t arg_offset;
    int kind;               /* vkrr_dump_kind */
    uint64_t hash;
    uint64_t bytes;         /* bytes=, UINT64_MAX when absent */
    long line;
} vkrr_log_dump;

typedef struct vkrr_log {
    vkrr_log_array *arrays;
    uint32_t narrays;
    vkrr_log_texture *textures; /* in log order */
    uint32_t ntextures;
    vkrr_log_surface *surfaces;
    uint32_t nsurfaces;
    vkrr_log_launch *launches;  /* sorted by sequence, one per sequence */
    uint32_t nlaunches;
    vkrr_log_dump *dumps;       /* dump lines with hash=, sorted by (sequence, line) */
    uint32_t ndumps;
    uint32_t nmodules, nfunctions; /* cuModuleLoadData / cuModuleGetFunction lines */
    uint32_t nbad;              /* malformed lines, skipped */
    vkrr_error bad;             /* the first of them (file, line, reason) when nbad */
    vkrr_capture_device device; /* the last device line (present false: none) */
} vkrr_log;

/* Lines may start with "[...] " prefixes.  Lines of kinds vkrr does not use
 * are ignored; a used kind with a malformed field is skipped and counted
 * (nbad; the first one's error in `bad`), so one damaged line costs only what
 * depends on it; the caller decides what that is.  A last line without a
 * newline is such a line too: the log was cut there, so its numbers may be
 * cut short.  Creations with result != 0 are ignored (they made no object).
 * Returns an error only when out of memory. */
vkrr_status vkrr_log_parse(vkrr_log *log, const char *text, size_t len, const char *path,
                           vkrr_error *err);
void vkrr_log_free(vkrr_log *log);

/* First line of launch `sequence`, 0 when the log has none. */
long vkrr_log_launch_line(const vkrr_log *log, uint64_t sequence);
/* The last texture creation with this handle before `line` (0: anywhere), or NULL. */
const vkrr_log_texture *vkrr_log_texture_at(const vkrr_log *log, uint64_t handle, long line);
const vkrr_log_surface *vkrr_log_surface_at(const vkrr_log *log, uint64_t handle, long line);
const vkrr_log_array *vkrr_log_array_at(const vkrr_log *log, uint64_t array, long line);
/* The dump lines of launch `sequence`: *n entries from the returned one. */
const vkrr_log_dump *vkrr_log_dumps_of(const vkrr_log *log, uint64_t sequence, uint32_t *n);

/* ---- dump/ file names ---- */
typedef enum vkrr_dump_kind {
    VKRR_DUMP_BUFFER = 0,
    VKRR_DUMP_TEXTURE = 1,
    VKRR_DUMP_SURFACE = 2
} vkrr_dump_kind;

typedef struct vkrr_dump_name {
    uint64_t sequence;
    const char *kernel; /* points into the parsed name; kernel_len bytes */
    size_t kernel_len;
    uint32_t arg_offset;
    vkrr_dump_kind kind;
    uint64_t base, delta;                     /* buffers */
    uint32_t width, height, channels, format; /* textures and surfaces */
} vkrr_dump_name;

/* name: a file name (no directory), NUL-terminated.  Errors name `path`. */
vkrr_status vkrr_dump_name_parse(vkrr_dump_name *d, const char *name, const char *path,
                                 vkrr_error *err);

/* ---- shared helpers ---- */
/* out = the first index of arr[0..n), sorted by .field, whose field is >= key. */
#define VKRR_LOWER_BOUND(arr, n, field, key, out)                                \
    do {                                                                      \
        uint32_t lo_ = 0, hi_ = (n);                                          \
        while (lo_ < hi_) {                                                   \
            uint32_t mid_ = lo_ + (hi_ - lo_) / 2;                            \
            if ((arr)[mid_].field < (key))                                    \
                lo_ = mid_ + 1;                                               \
            else                                                              \
                hi_ = mid_;                                                   \
        }                                                                     \
        (out) = lo_;                                                          \
    } while (0)

/* Strict unsigned parse of [s, s+n): decimal, or hex with a 0x prefix when
 * hex_ok; VKRR_ERR_PARSE if not a number, VKRR_ERR_RANGE if above max. */
vkrr_status vkrr_parse_u64(const char *s, size_t n, int hex_ok, uint64_t max, uint64_t *out);

#endif
