/* replay.h - one launch, ready to run on any backend, and the backend interface.
 *
 * Every execution path (the Vulkan port, the original kernels on the CPU, the
 * original kernels through libcuda) is a vkrr_backend: a struct of function
 * pointers.  The validator never knows which one it drives.  A vkrr_replay is a
 * launch with its inputs in host memory (usually mapped capture files) and
 * caller-provided output storage:
 *
 *     vkrr_replay r;                       // from vkrr_replay_from_capture()
 *     backend.run(backend.self, &r, &err); // fills every alloc's and surface's post
 *
 * The backend creates its own resources for the launch (allocations with the
 * pre contents; textures from their contents and sampler state; surfaces
 * filled with pre, or with VKRR_SENTINEL_BYTE when pre is NULL), rewrites the
 * parameter block with vkrr_replay_relocate() (one relocation for every
 * backend: pointer words -> new address + delta, handle words -> what names
 * the image on the new side), launches with the recorded grid/block/shared
 * bytes, and copies every allocation and every surface back into post.
 *
 * Ownership: the caller owns every buffer in a vkrr_replay; a backend keeps no
 * pointer into it after run() returns.
 *
 * Optional, to hold one copy of a launch instead of three (issue 7):
 *   - Output views.  A backend with keeps_outputs set leaves its own copy of
 *     every output alive after run() and points each alloc's and surface's
 *     post_view at it (writable; valid until its next run(), release() or
 *     destroy()).  It still fills post where post is not NULL, so a caller may
 *     leave post NULL and read vkrr_replay_alloc_out()/vkrr_replay_image_out().
 *     Other backends leave post_view NULL and need post.
 *   - Consumed inputs.  When r->pre_done is set, a backend calls
 *     pre_done(pre_done_ctx, pre) once it holds its own copy of that pre, so
 *     the caller can drop it (vkrr_replay_from_capture unmaps the capture
 *     file); the backend never touches that pointer again.  A caller that
 *     runs one replay more than once clears pre_done first.
 */
#ifndef VKRR_REPLAY_H
#define VKRR_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Surfaces with no known contents start as this byte everywhere, so texels a
 * kernel never wrote can be told apart (0xFFFF is a NaN in f16, 0xFFFFFFFF in f32). */
#define VKRR_SENTINEL_BYTE 0xFFu

typedef struct vkrr_replay_alloc {
    uint64_t base;           /* base address in the capture (identity) */
    uint64_t size;
    const void *pre;         /* size bytes before the launch */
    void *post;              /* size bytes, written by the backend; NULL: not wanted */
    void *post_view;         /* set by a keeps_outputs backend (see above), else NULL */
} vkrr_replay_alloc;

/* A linear texture (tex1Dfetch) of n texels is replayed as a 2D texture of
 * rows of VKRR_LINEAR_ROW texels (one row when n is smaller; the last row
 * zero-padded), so every backend holds it as an image: texel i is at
 * (i % width, i / width), and a fetch past n reads 0, as in CUDA. */
#define VKRR_LINEAR_ROW 4096u

typedef struct vkrr_replay_image {
    uint32_t offset;         /* handle word in args */
    vkrr_image_kind kind;
    uint64_t handle;         /* the captured handle value */
    uint32_t width, height, channels, format;
    vkrr_sampler sampler;
    const void *pre;         /* texture: contents; surface: initial contents or NULL (sentinel) */
    void *post;              /* surface: W*H*texel bytes written by the backend; NULL: not wanted */
    void *post_view;         /* surface: set by a keeps_outputs backend, else NULL */
    int resource;            /* textures: VKRR_TEXRES_ARRAY, or LINEAR / PITCH2D: over linear
                              * memory (pre packed: rows of width texels, no pitch) */
    uint32_t linear_count;   /* LINEAR: its texels (width x height is the folded shape) */
    vkrr_geometry geometry;  /* an array's beyond 2D: height is then the rows of all planes */
} vkrr_replay_image;

typedef struct vkrr_replay {
    const char *kernel;
    uint32_t grid[3], block[3];
    uint32_t shared_bytes;
    const uint8_t *args;
    uint32_t args_bytes;
    vkrr_replay_alloc *allocs;
    uint32_t nallocs;
    const vkrr_pointer *pointers;  /* .alloc indexes allocs */
    uint32_t npointers;
    vkrr_replay_image *images;
    uint32_t nimages;
    /* optional: told when the backend no longer needs a pre (see above) */
    void (*pre_done)(void *ctx, const void *pre);
    void *pre_done_ctx;
    /* out: the VKRR_STANDIN_* bits (src/hw/approx.h) of the approximate
     * instructions a backend that models the GPU (cpu, ptx) could only
     * compute with a stand-in in this run; 0 from the others */
    unsigned standins;
    /* out: the launch's printf output (ptx backend), owned by the backend
     * until its next run; NULL when it printed nothing */
    const char *printed;
    /* out: why a backend ran this launch in a slower engine than it was
     * asked for (the ptx backend: the JIT did not compile the kernel, so the
     * interpreter ran it), owned by the backend; NULL when it did not */
    const char *engine_note;
    /* out: what the launch's memory accesses showed that is no fault (the
     * ptx backend: one instruction reached two neighbouring allocations),
     * owned by the backend; NULL when nothing */
    const char *memory_note;
    /* out: the engine that ran the launch, in the backend's words (the ptx
     * backend: "jit", "interp", or "interp (WHY the JIT did not run it)"),
     * valid until the backend's next run; NULL from backends with one engine */
    const char *engine;
} vkrr_replay;

/* The output a backend left: post when the caller gave one, else post_view. */
static inline void *vkrr_replay_alloc_out(const vkrr_replay_alloc *a)
{
    return a->post ? a->post : a->post_view;
}
static inline void *vkrr_replay_image_out(const vkrr_replay_image *im)
{
    return im->post ? im->post : im->post_view;
}

/* Writes the launch's parameter block into params (args_bytes bytes): args
 * with each pointer word replaced by alloc_addr[p.alloc] + p.delta and each
 * image handle word replaced by image_word[i].  Checks every offset. */
vkrr_status vkrr_replay_relocate(const vkrr_replay *r, const uint64_t *alloc_addr,
                                 const uint64_t *image_word, uint8_t *params,
                                 vkrr_error *err);

/* Bytes of one image's contents: width * height * texel bytes. */
uint64_t vkrr_replay_image_bytes(const vkrr_replay_image *im);
/* Bytes of the whole launch: every allocation and image (what bulk.h's
 * memory limit is held against: over it, the launch is streamed). */
uint64_t vkrr_replay_bytes(const vkrr_replay *r);

/* A captured texture over linear memory as a replay texture: the shape it
 * is replayed with (LINEAR folded, see VKRR_LINEAR_ROW), and its texels
 * packed from src, the bytes of its source (im->source_offset, im->pitch
 * into them) into dst (width * height * texel bytes). */
void vkrr_replay_linear_shape(const vkrr_image *im, uint32_t *width, uint32_t *height);
void vkrr_replay_linear_pack(const vkrr_image *im, const uint8_t *src, uint8_t *dst);

/* A replay of a captured launch: pre contents mapped from the capture, post
 * buffers allocated (allocations and surfaces).  Free with
 * vkrr_replay_capture_free().  Memory: the mapped inputs plus one copy of
 * every output. */
typedef struct vkrr_replay_storage vkrr_replay_storage;
vkrr_status vkrr_replay_from_capture(const vkrr_capture *cap, const vkrr_launch *l,
                                     vkrr_replay *r, vkrr_replay_storage **st,
                                     vkrr_error *err);
void vkrr_replay_capture_free(vkrr_replay_storage *st); /* accepts NULL */
/* The same; posts == false leaves every post NULL (for a keeps_outputs
 * backend), so the launch costs the backend's copy and no more.  Either way
 * r->pre_done unmaps each capture file once the backend has copied it. */
vkrr_status vkrr_replay_from_capture_ex(const vkrr_capture *cap, const vkrr_launch *l, bool posts,
                                        vkrr_replay *r, vkrr_replay_storage **st,
                                        vkrr_error *err);

/* What a backend says about itself (the optional stats operation). */
typedef struct vkrr_backend_stats {
    const char *device_name;      /* the device it runs on ("" when none) */
    const char *driver;           /* its driver and version ("" when unknown) */
    const uint8_t *uuid;          /* its 16-byte UUID (NVIDIA: the GPU's, as NVML and CUDA
                                   * give it); NULL when unknown */
    unsigned validation_messages; /* warnings/errors of a validation layer so far */
    unsigned pipelines_created;   /* compiled kernels (cache misses) */
    unsigned pipeline_hits;       /* launches that reused a compiled kernel */
    unsigned device_recreated;    /* times the device was rebuilt after it was lost */
} vkrr_backend_stats;

/* A run of instructions of an original kernel none of the runs reached. */
typedef struct vkrr_span_cov {
    uint32_t line0, line1;   /* PTX lines of its first and last instruction */
    uint32_t count;          /* instructions in it */
    const char *src;         /* the source of its first (the PTX's .loc), NULL: none */
    uint32_t src_line;
} vkrr_span_cov;

/* What one conditional branch of an original kernel did (coverage). */
typedef struct vkrr_branch_cov {
    uint32_t line;           /* in the kernel's module */
    bool ran, taken, fell;   /* reached; taken, fallen through by some lane */
    const char *src;         /* its source file (the PTX's .loc), NULL: none */
    uint32_t src_line;
} vkrr_branch_cov;

typedef struct vkrr_backend {
    const char *name;        /* "vulkan", "cpu", "ptx", "cuda" */
    void *self;
    /* true when the backend can run this kernel (a port, a CPU kernel, a module) */
    bool (*has_kernel)(void *self, const char *kernel);
    vkrr_status (*run)(void *self, vkrr_replay *r, vkrr_error *err);
    void (*destroy)(void *self);  /* accepts NULL self */
    /* optional (zero: absent): run() fills post_view and keeps the outputs
     * until the next run(), release() or destroy() */
    bool keeps_outputs;
    void (*release)(void *self);  /* frees the kept outputs; NULL when keeps_outputs is false */
    /* optional operations: NULL where a backend has none */
    /* optional: load now what running kernel needs (a run-time port is
     * compiled), so an error (glslang's, with file and line) stops a run
     * before it starts rather than in its middle */
    vkrr_status (*prepare)(void *self, const char *kernel, vkrr_error *err);
    /* what runs kernel, for the record (provenance): a port's file
     * ("ports/down.comp") or "built-in"; false (out "") when nothing does */
    bool (*source_of)(void *self, const char *kernel, char *out, size_t cap);
    /* the original kernel's conditional branches over every run() so far,
     * with coverage asked for (the ptx backend): at most cap in out, the count
     * returned; *module names the file they are in */
    uint32_t (*coverage)(void *self, const char *kernel, vkrr_branch_cov *out, uint32_t cap,
                         const char **module);
    /* and its instructions: *ran of *total reached; the spans none reached
     * (at most cap in out, the count returned) */
    uint32_t (*instr_coverage)(void *self, const char *kernel, uint32_t *ran, uint32_t *total,
                               vkrr_span_cov *out, uint32_t cap);
    /* the NVIDIA GPU it runs on (name, compute capability); false: not one */
    bool (*device)(void *self, char *name, size_t cap, int *cc_major, int *cc_minor);
    void (*stats)(void *self, vkrr_backend_stats *out);
    /* GPU time of the last successful run(), dispatch only (NaN: unknown) */
    double (*last_gpu_ms)(void *self);
    /* the launches of a frame in one submission, timed as a whole; nothing is
     * read back (posts untouched); *barriers: synchronisation points recorded */
    vkrr_status (*run_frame)(void *self, vkrr_replay *const *r, uint32_t n, double *gpu_ms,
                             uint32_t *barriers, vkrr_error *err);
} vkrr_backend;

#ifdef __cplusplus
}
#endif

#endif
