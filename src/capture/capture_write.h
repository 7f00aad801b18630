/* capture_write.h - writing a capture exactly as the CUDA bridge does.
 *
 * `vkrr synth` and the tests record launches with this; the reader must read
 * back exactly what was written.  Usage:
 *
 *     vkrr_writer *w;
 *     vkrr_writer_open(&w, &(vkrr_writer_desc){ .dir = out, .log_prefix = "[d4r nvcuda] " }, &err);
 *     uint64_t arr = vkrr_writer_array_create(w, 64, 48, 16, 4);    // logs cuArrayCreate
 *     uint64_t tex = vkrr_writer_texture_create(w, arr, &sampler, 0);// logs cuTexObjectCreate
 *     vkrr_writer_module(w, "rrref.ptx", ptx, ptx_len, &err);        // modules/ + log lines
 *     vkrr_writer_launch(w, &(vkrr_launch_record){ ... }, &err);      // replay/, dump/, log
 *     vkrr_writer_close(w, &err);                                     // flushes run/run.log
 *
 * Sequence numbers start at desc.first_sequence and count up one per launch.
 * The writer creates dir (which must not exist, or be empty) and everything
 * under it.  Files are written whole; a failed writer leaves a directory that
 * the caller removes (synth writes to a temporary name and renames at the end).
 *
 * Ownership: the writer copies nothing it does not need; record contents are
 * read during the call only.
 */
#ifndef VKRR_CAPTURE_WRITE_H
#define VKRR_CAPTURE_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkrr_writer vkrr_writer;

typedef struct vkrr_writer_desc {
    const char *dir;
    const char *log_prefix;      /* e.g. "[d4r nvcuda] "; NULL: none */
    uint64_t first_sequence;     /* 0: start at 1 */
    bool omit_shared_bytes;      /* write "launch GX GY GZ BX BY BZ" like older bridges */
    bool log_surface_arrays;     /* add the vkrr extension line "vkrr surface object= array="
                                  * after each cuSurfObjectCreate (the bridge cannot say which
                                  * array a surface writes; readers infer it) */
    const char *logged_dir;      /* the capture's path as its module and replay capture lines
                                  * name it (synth writes into a temporary folder and renames
                                  * it); NULL: dir (made absolute) */
    bool omit_log;               /* no run/run.log at all */
} vkrr_writer_desc;

typedef struct vkrr_alloc_record {
    uint64_t base;
    uint64_t size;
    const void *pre;             /* size bytes before the launch */
    const void *post;            /* size bytes after it; NULL: no dump for it */
} vkrr_alloc_record;

typedef struct vkrr_pointer_record {
    uint32_t offset;             /* the word in args */
    uint32_t alloc;              /* index into the record's allocs */
    uint64_t delta;
} vkrr_pointer_record;

typedef struct vkrr_image_record {
    uint32_t offset;             /* the handle word in args */
    vkrr_image_kind kind;
    uint64_t handle;             /* must equal the word in args */
    uint32_t width, height, channels, format;
    const void *post;            /* contents after the launch (textures: unchanged) */
    /* A texture over linear memory (resource VKRR_TEXRES_LINEAR or PITCH2D,
     * created with vkrr_writer_texture_create_linear): dumped as a buffer, as
     * the bridge does, named base0xBASE+0xDELTA; post holds buffer_bytes
     * bytes (the whole allocation), the texels from byte delta on.  width,
     * height, channels and format are then unused. */
    int resource;
    uint64_t base, delta, buffer_bytes;
} vkrr_image_record;

/* The resource descriptor of a texture over linear memory
 * (CUDA_RESOURCE_DESC's linear or pitch2D member). */
typedef struct vkrr_linear_desc {
    int resource;                /* VKRR_TEXRES_LINEAR or VKRR_TEXRES_PITCH2D */
    uint64_t devptr;
    uint32_t format, channels;
    uint64_t bytes;              /* LINEAR: sizeInBytes */
    uint32_t width, height;      /* PITCH2D */
    uint64_t pitch;              /* PITCH2D: pitchInBytes */
} vkrr_linear_desc;

typedef struct vkrr_launch_record {
    const char *kernel;
    uint32_t grid[3], block[3];
    uint32_t shared_bytes;
    const void *args;
    uint32_t args_bytes;
    const vkrr_alloc_record *allocs; /* in the order the arguments first point into them */
    uint32_t nallocs;
    const vkrr_pointer_record *pointers;
    uint32_t npointers;
    const vkrr_image_record *images;
    uint32_t nimages;
    const char *extra_manifest_line; /* tests: an extra (unknown-kind) line, or NULL */
} vkrr_launch_record;

vkrr_status vkrr_writer_open(vkrr_writer **out, const vkrr_writer_desc *desc, vkrr_error *err);
/* Finishes run/run.log. Always frees the writer (accepts NULL). */
vkrr_status vkrr_writer_close(vkrr_writer *w, vkrr_error *err);

/* Log lines for the CUDA object calls; return the handle they logged. */
uint64_t vkrr_writer_array_create(vkrr_writer *w, uint32_t width, uint32_t height,
                                  uint32_t format, uint32_t channels);
/* cuArray3DCreate (CUDA_ARRAY3D_DESCRIPTOR): height 0 is 1D, depth 0 2D,
 * else depth slices or with VKRR_ARRAY_LAYERED layers; VKRR_ARRAY_CUBEMAP:
 * square, depth 6 (layered: 6 a cube).  Its images' records give height as
 * the rows of all planes (rows per plane x planes), their post the planes in
 * order. */
uint64_t vkrr_writer_array3d_create(vkrr_writer *w, uint32_t width, uint32_t height, uint32_t depth,
                                    uint32_t format, uint32_t channels, unsigned flags);
/* handle 0: the writer picks a fresh one; non-zero: reuse that value (handles
 * are reused across frames by real drivers). */
uint64_t vkrr_writer_texture_create(vkrr_writer *w, uint64_t array,
                                    const vkrr_sampler *s, uint64_t handle);
/* cuTexObjectCreate over linear memory: type=2 with devptr= format= channels=
 * bytes=, or type=3 with devptr= format= channels= width= height= pitch=. */
uint64_t vkrr_writer_texture_create_linear(vkrr_writer *w, const vkrr_linear_desc *d,
                                           const vkrr_sampler *s, uint64_t handle);
uint64_t vkrr_writer_surface_create(vkrr_writer *w, uint64_t array, uint64_t handle);
void vkrr_writer_log_line(vkrr_writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* run.log's device line of a capture read back (README "run.log's device
 * line"): name=, and cc= and model= where it gave them; nothing when it has
 * none.  A capture made from another (stress's reproducer) keeps its GPU. */
void vkrr_writer_device(vkrr_writer *w, const vkrr_capture_device *d);

/* The launch's GPU time as a profiler line, after its launch[N] lines:
 * "KERNEL_PROFILE launch=SEQ kernel=NAME gpu_ms=X" (what `vkrr bench` reads
 * as the CUDA time; a time that is not finite and >= 0 writes nothing). */
void vkrr_writer_profile(vkrr_writer *w, uint64_t seq, const char *kernel, double gpu_ms);

/* modules/NAME plus cuModuleLoadData / cuModuleGetFunction lines for the
 * given kernel names. */
vkrr_status vkrr_writer_module(vkrr_writer *w, const char *name, const void *data,
                               size_t size, const char *const *kernels,
                               unsigned nkernels, vkrr_error *err);

/* replay/replay-NNNNNN-KERNEL/{manifest.txt,args.bin,alloc-IDX.bin}, the
 * post-launch dumps in dump/, and the launch[N] lines in the log.  Returns the
 * sequence number through seq_out when non-NULL. */
vkrr_status vkrr_writer_launch(vkrr_writer *w, const vkrr_launch_record *rec,
                               uint64_t *seq_out, vkrr_error *err);

#ifdef __cplusplus
}
#endif

#endif
