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
/* The bridge's lines (docs/capture-format.md "run/run.log"), each read by
 * capture_log_objects.c (arrays, textures, surfaces, the device) or
 * capture_log_launch.c (launches, statistics, modules, functions). */
typedef struct vkrr_log_array {
    uint64_t array;
    uint32_t width, height, format, channels; /* height: the dump's rows, all planes */
    long line;
    vkrr_geometry geometry;
} vkrr_log_array;

typedef struct vkrr_log_texture {
    uint64_t handle, array; /* array: the CUarray (type=0); 0 when not over an array */
    vkrr_sampler sampler;   /* from_log = true */
    int resource;           /* type=: CUresourcetype, VKRR_TEXRES_* (absent: array) */
    /* linear and pitch-2D resources: the address (devptr=, or the bridge's
     * array= field, which holds devPtr for them) always; the descriptor's
     * format= channels= and bytes= (linear) or width= height= pitch= only
     * where the line (vkrr's form) or a d4rRegisterLinearTexture line says */
    uint64_t devptr, bytes, width, height, pitch;
    uint32_t format, channels;
    bool has_desc;          /* format/channels and the size fields are known */
    long line;
} vkrr_log_texture;

typedef struct vkrr_log_surface {
    uint64_t handle, array; /* array 0 when the line lacks the vkrr extension */
    long line;
} vkrr_log_surface;

/* Everything the log says of one launch N, gathered from its lines:
 * `cuLaunchKernel[N] K` (+ `cuLaunchKernel function= grid= ...`), `replay
 * capture launch[N] K -> DIR`, `launch[N] K synchronize result=R`, its
 * statistics lines, `KERNEL_PROFILE launch=N ... name=K`, vkrr's own
 * `launch[N] K grid=...`. */
typedef struct vkrr_log_launch {
    uint64_t sequence;
    long line;              /* the first line naming it */
    uint32_t kernel;        /* vkrr_log_name offset; 0: no line named the kernel */
    bool replayed;          /* a `replay capture launch[N]` line */
    bool has_sync;          /* a `launch[N] K synchronize result=R` line */
    int64_t sync_result;
    long sync_line;
    bool has_call;          /* a `cuLaunchKernel function=` line */
    uint64_t function;
    int64_t call_result;
    long call_line;
} vkrr_log_launch;

/* A statistics line: launch[N] KERNEL arg[OFF] KIND SHAPE ... hash=H ... */
typedef struct vkrr_log_dump {
    uint64_t sequence;
    uint32_t arg_offset;
    int kind;               /* vkrr_dump_kind */
    uint64_t bytes;         /* bytes=, UINT64_MAX when absent */
    vkrr_dump_stats stats;  /* stats.line: the line */
} vkrr_log_dump;

enum { VKRR_LOG_MODULE_UNKNOWN = 0, VKRR_LOG_MODULE_PTX = 1, VKRR_LOG_MODULE_FATBIN = 2 };

/* A module the application loaded: `cuModuleLoadData[Ex] image= result=0
 * module=M`, with the file the bridge saved it to from the `... captured
 * PTX|CUDA fatbin ... to PATH (complete)` line just before it. */
typedef struct vkrr_log_module {
    uint64_t handle;        /* module=; 0: the capture line has no load line after it */
    uint32_t path;          /* vkrr_log_name offset of PATH; 0: not captured */
    int kind;               /* VKRR_LOG_MODULE_* */
    uint64_t size;          /* size= of the capture line */
    bool complete;          /* "(complete)", not "(short write)" */
    long line;              /* the capture line, else the load line */
} vkrr_log_module;

/* cuModuleGetFunction module=M name=K result=0 function=F */
typedef struct vkrr_log_function {
    uint64_t module, function;
    uint32_t name;          /* vkrr_log_name offset */
    long line;
} vkrr_log_function;

typedef struct vkrr_log {
    vkrr_log_array *arrays;
    uint32_t narrays;
    vkrr_log_texture *textures; /* in log order */
    uint32_t ntextures;
    vkrr_log_surface *surfaces;
    uint32_t nsurfaces;
    vkrr_log_launch *launches;  /* sorted by sequence, one per sequence */
    uint32_t nlaunches;
    vkrr_log_dump *dumps;       /* statistics lines, sorted by (sequence, line) */
    uint32_t ndumps;
    vkrr_log_module *modules;   /* in log order */
    uint32_t nmodules;
    vkrr_log_function *functions;
    uint32_t nfunctions;
    char *names;                /* kernel names and paths, NUL-separated; offset 0 is "" */
    size_t names_len;
    uint32_t nbad;              /* malformed lines, skipped */
    vkrr_error bad;             /* the first of them (file, line, reason) when nbad */
    vkrr_error bad_state;       /* the first malformed line that may hold sampler or
                                 * array state (arrays, textures, surfaces, a cut last
                                 * line); status VKRR_OK: none */
    vkrr_capture_device device; /* the last device line (present false: none), else the
                                 * compute capability from cuDeviceGetAttribute 75/76 */
} vkrr_log;

/* Lines may start with "[...] " prefixes (the bridge's "[d4r nvcuda] " on
 * stderr; none in its D4R_CUDA_TRACE file) and come between foreign lines
 * (Wine's), which are ignored, as are lines of kinds vkrr does not use; a
 * used kind with a malformed field is skipped and counted (nbad; the first
 * one's error in `bad`), so one damaged line costs only what depends on it;
 * the caller decides what that is.  A last line without a newline is such a
 * line too: the log was cut there, so its numbers may be cut short.
 * Creations with result != 0 are ignored (they made no object); pointers
 * print as glibc's %p: 0x..., or (nil).  Returns an error only when out of
 * memory. */
vkrr_status vkrr_log_parse(vkrr_log *log, const char *text, size_t len, const char *path,
                           vkrr_error *err);
void vkrr_log_free(vkrr_log *log);

/* A name the log holds ("" for offset 0). */
static inline const char *vkrr_log_name(const vkrr_log *log, uint32_t off)
{
    return off && log->names ? log->names + off : "";
}
/* First line of launch `sequence`, 0 when the log has none. */
long vkrr_log_launch_line(const vkrr_log *log, uint64_t sequence);
/* What the log says of launch `sequence`, NULL when nothing. */
const vkrr_log_launch *vkrr_log_launch_find(const vkrr_log *log, uint64_t sequence);
/* The last texture creation with this handle before `line` (0: anywhere), or NULL. */
const vkrr_log_texture *vkrr_log_texture_at(const vkrr_log *log, uint64_t handle, long line);
const vkrr_log_surface *vkrr_log_surface_at(const vkrr_log *log, uint64_t handle, long line);
const vkrr_log_array *vkrr_log_array_at(const vkrr_log *log, uint64_t array, long line);
/* The dump lines of launch `sequence`: *n entries from the returned one. */
const vkrr_log_dump *vkrr_log_dumps_of(const vkrr_log *log, uint64_t sequence, uint32_t *n);
/* The module a function handle came from, NULL when the log does not say. */
const vkrr_log_module *vkrr_log_module_of(const vkrr_log *log, uint64_t function);

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
