/* capture.h - reading a CUDA bridge capture (docs/capture-format.md).
 *
 * Usage:
 *     vkrr_capture *cap = NULL;
 *     vkrr_error err = {0};
 *     if (vkrr_capture_open(&cap, "CAPDIR", &err) != VKRR_OK) { print; exit 2 }
 *     for (uint32_t i = 0; i < cap->nlaunches; i++) {
 *         const vkrr_launch *l = &cap->launches[i];
 *         vkrr_mapfile pre;   // contents of allocation 0 before the launch
 *         vkrr_capture_map_alloc_pre(cap, l, 0, &pre, &err);
 *         ...
 *         vkrr_mapfile_close(&pre);
 *     }
 *     vkrr_capture_close(cap);
 *
 * Opening parses every manifest and args.bin (small), lists dump/ and parses
 * run/run.log, and checks everything that can be checked without reading the
 * big files: sizes of alloc files and dumps against the manifest and the
 * array shapes, pointers inside args.bin and into declared allocations.  The
 * big files are memory-mapped on demand (vkrr_capture_map_*), so opening a
 * multi-GB capture costs no RAM.  Every malformed piece is an error naming
 * the file and the line or byte offset (exit 2); unknown manifest line kinds
 * are skipped with a warning.
 *
 * Damage.  vkrr_capture_open fails on the first malformed piece.  With
 * VKRR_CAPTURE_KEEP_DAMAGED (vkrr_capture_open_ex), damage stays with what it
 * damages: a launch whose own files are missing, short or unparsable
 * (manifest.txt, args.bin, alloc-IDX.bin, a dump of it) is kept with
 * l->damage and the first problem in l->damage_error, and the rest of the
 * capture is read as usual.  What no launch owns (a replay/ folder or dump
 * name whose launch number cannot be read, a malformed run/run.log line) is in
 * cap->damage; a malformed log line also damages every launch with textures
 * that comes after it in the log (their sampler state may be on that line).
 * The open still fails when nothing could be validated at all: CAPDIR,
 * replay/ or dump/ missing, no replay-NNNNNN-KERNEL folder.
 *
 * Linear memory.  A texture whose cuTexObjectCreate has type=2 (linear) or
 * type=3 (pitch 2D) reads device memory, not an array: its resource
 * descriptor is on the log line (devptr= format= channels= and bytes= or
 * width= height= pitch=), and its texels are the texture's own buffer dump
 * (dump/...-argOFF-buffer-..., the bridge dumps linear textures as buffers),
 * else the launch's allocation that holds devptr (its alloc-IDX.bin).
 *
 * Surfaces and arrays.  A surface's CUarray is the log's array= (vkrr's
 * writer); without it (real bridges) the surface is tied at open to the
 * array the log created before it: among the arrays of its shape, the
 * earliest no texture or surface was created over yet, else the latest not
 * taken by another surface.
 *
 * Hashes.  A dump with a log line carrying hash= gets it (has_post_hash /
 * has_dump_hash); readers check it as they read the dump (validate).
 *
 * Identity: launches are in sequence order; frame k starts at the k-th launch
 * of the capture's first kernel; occurrence is how many earlier launches of
 * the same kernel the capture has, so (kernel, occurrence) names a launch
 * across captures whose sequence numbers differ.
 *
 * Sampler state of a texture at launch N is the last cuTexObjectCreate with
 * that object handle before launch N's first line in the log (handles are
 * reused); with none, CUDA-like defaults and a warning.
 *
 * Ownership: everything hangs off the vkrr_capture and is freed by
 * vkrr_capture_close().  Never writes into CAPDIR.
 */
#ifndef VKRR_CAPTURE_H
#define VKRR_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "mapfile.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VKRR_ARGS_MAX_BYTES 4096u /* CUDA's kernel parameter limit */

typedef struct vkrr_alloc {
    uint32_t index;        /* launch-local index from the manifest */
    uint64_t base;         /* device base address: the identity across launches */
    uint64_t size;
    char *pre_path;        /* replay/.../alloc-IDX.bin */
    char *post_path;       /* dump/ file of this allocation after the launch, NULL if none */
    uint32_t post_offset;  /* argument offset named in the dump file's name */
    bool post_damaged;     /* a dump of it exists but cannot be used (size, twice): not compared */
    bool has_post_hash;    /* the log's hash= of the dump (FNV-1a 64) */
    uint64_t post_hash;
    long post_hash_line;
} vkrr_alloc;

typedef struct vkrr_pointer {
    uint32_t offset;       /* byte offset of the 8-byte word in args.bin */
    uint32_t alloc;        /* index into vkrr_launch.allocs (not the manifest index) */
    uint64_t delta;        /* bytes past the allocation's base */
} vkrr_pointer;

typedef enum vkrr_image_kind { VKRR_IMAGE_TEXTURE = 0, VKRR_IMAGE_SURFACE = 1 } vkrr_image_kind;

/* CUDA_ARRAY3D_* flags of the log's array lines. */
enum { VKRR_ARRAY_LAYERED = 0x01, VKRR_ARRAY_SURFACE_LDST = 0x02, VKRR_ARRAY_CUBEMAP = 0x04 };

/* An array's geometry, from its creation line in the log (cuArrayCreate /
 * cuArray3DCreate: height=0 is 1D, depth= slices or layers, flags=); all
 * zero: 2D.  Its dump holds the planes (3D slices, layers, a cubemap's
 * faces) one after another, so the image's height is the rows of all planes:
 * rows per plane x planes.  dims: 1, 2 or 3; depth: a 3D array's slices;
 * layers: a layered array's layers, a cubemap's 6 faces a cube. */
typedef struct vkrr_geometry {
    uint32_t dims, depth, layers;
    bool cube;
} vkrr_geometry;

/* Planes of a geometry (1 for 2D) and whether it is anything but 2D. */
static inline uint32_t vkrr_geometry_planes(const vkrr_geometry *g)
{
    return g->dims == 3 ? g->depth : g->layers ? g->layers : 1;
}
static inline bool vkrr_geometry_is_2d(const vkrr_geometry *g)
{
    return (g->dims == 0 || g->dims == 2) && !g->layers && !g->cube;
}
/* "2D", "1D", "3D", "layered 1D", "layered 2D", "cubemap" */
static inline const char *vkrr_geometry_name(const vkrr_geometry *g)
{
    if (g->cube)
        return "cubemap";
    if (g->dims == 3)
        return "3D";
    if (g->layers)
        return g->dims == 1 ? "layered 1D" : "layered 2D";
    return g->dims == 1 ? "1D" : "2D";
}

enum { VKRR_FILTER_POINT = 0, VKRR_FILTER_LINEAR = 1 };
enum { VKRR_ADDRESS_WRAP = 0, VKRR_ADDRESS_CLAMP = 1, VKRR_ADDRESS_MIRROR = 2, VKRR_ADDRESS_BORDER = 3 };
enum { VKRR_TEXFLAG_INTEGER = 0x01, VKRR_TEXFLAG_NORMALIZED = 0x02, VKRR_TEXFLAG_SRGB = 0x10 };
/* CUresourcetype: what a texture reads (the log's cuTexObjectCreate type=). */
enum { VKRR_TEXRES_ARRAY = 0, VKRR_TEXRES_MIPMAPPED = 1, VKRR_TEXRES_LINEAR = 2, VKRR_TEXRES_PITCH2D = 3 };

typedef struct vkrr_sampler {
    int filter;            /* VKRR_FILTER_* */
    int address[3];        /* VKRR_ADDRESS_* per axis (x, y, z) */
    bool normalized;       /* normalized coordinates */
    bool read_as_integer;  /* flags 0x01 */
    bool srgb;             /* flags 0x10 */
    bool from_log;         /* false: defaults were applied (and warned about) */
} vkrr_sampler;

typedef struct vkrr_image {
    uint32_t offset;       /* byte offset of the handle word in args.bin */
    vkrr_image_kind kind;
    uint64_t handle;       /* the CUtexObject / CUsurfObject word */
    uint32_t width, height, channels; /* height: rows of all planes (geometry) */
    uint32_t format;       /* CUarray_format code */
    uint64_t array;        /* CUarray behind it when the log says, else 0 */
    vkrr_geometry geometry; /* the array's, from the log (all zero: 2D) */
    vkrr_sampler sampler;  /* textures only */
    char *dump_path;       /* dump/ file: after the launch (== before, for a texture) */
    uint64_t dump_bytes;   /* its size (a linear texture's: the whole buffer dump) */
    bool dump_damaged;     /* surfaces: the dump names the shape but cannot be compared */
    bool has_dump_hash;    /* the log's hash= of the dump (FNV-1a 64) */
    uint64_t dump_hash;
    long dump_hash_line;
    /* textures over linear memory (resource LINEAR: width elements, height 1;
     * PITCH2D: width x height texels, rows pitch bytes apart) */
    int resource;          /* VKRR_TEXRES_* */
    uint64_t pitch;        /* PITCH2D: bytes between rows in the source */
    uint64_t source_base;  /* base address of the allocation holding the texels */
    uint64_t source_offset;/* bytes into it of texel 0 (devPtr - base) */
    int32_t source_alloc;  /* -1: the texture's own buffer dump (dump_path); else the
                            * allocation of this launch whose alloc file holds them */
} vkrr_image;

typedef enum vkrr_damage_kind {
    VKRR_DAMAGE_NONE = 0,
    VKRR_DAMAGE_DUMP,      /* only post-launch dumps: it runs, those are not compared */
    VKRR_DAMAGE_INPUT,     /* what it reads or its shapes: it cannot run */
    VKRR_DAMAGE_MANIFEST,  /* manifest.txt: even which resources it uses is unknown */
} vkrr_damage_kind;

typedef struct vkrr_launch {
    uint64_t sequence;     /* the bridge's launch number */
    char *kernel;
    uint32_t frame;        /* 0-based */
    uint32_t occurrence;   /* 0-based, per kernel across the capture */
    uint32_t grid[3], block[3];
    uint32_t shared_bytes;
    uint32_t args_bytes;
    uint8_t *args;         /* args.bin contents (<= 4 KiB) */
    char *dir;             /* replay/replay-NNNNNN-KERNEL */
    vkrr_alloc *allocs;
    uint32_t nallocs;
    vkrr_pointer *pointers;
    uint32_t npointers;
    vkrr_image *images;    /* in argument order */
    uint32_t nimages;
    long log_line;         /* first log line of this launch, 0 when not in the log */
    vkrr_damage_kind damage; /* VKRR_CAPTURE_KEEP_DAMAGED: what could not be read */
    vkrr_error *damage_error;/* the first problem (file, line or offset, reason); NULL: none */
    uint32_t ndamage;      /* problems found, damage_error being the first */
} vkrr_launch;

typedef struct vkrr_module_file {
    char *path;            /* CAPDIR/modules/NAME */
    char *name;
} vkrr_module_file;

/* The GPU that made the capture: run.log's device line (a vkrr extension,
 * README "The capture format"):
 *     device name="NVIDIA H200" cc=9.0
 *     device name="vkrr cpu backend" model="sm_90, measured"
 * cc: the compute capability; model: the hardware model a synthetic
 * capture's approximate instructions were computed with. */
typedef struct vkrr_capture_device {
    bool present;
    char name[128];
    int cc_major, cc_minor;   /* -1 when the line gives no cc= */
    char model[64];           /* "" when the line gives no model= */
} vkrr_capture_device;

typedef struct vkrr_capture {
    char *path;
    vkrr_launch *launches;
    uint32_t nlaunches;
    uint32_t nframes;
    vkrr_module_file *modules;
    uint32_t nmodules;
    bool has_log;
    unsigned warnings;     /* warnings issued while opening */
    vkrr_error *damage;    /* problems no launch owns (see "Damage" above) */
    uint32_t ndamage;
    uint32_t ndamaged;     /* launches with damage */
    vkrr_error first_damage; /* the first problem found anywhere (status VKRR_OK: none) */
    vkrr_capture_device device; /* the last device line of run.log */
} vkrr_capture;

/* The architecture the capture's values come from: "sm_90" from cc=, or
 * from model="sm_90, ...", "rounded" for model="rounded"; NULL: unknown. */
const char *vkrr_capture_arch(const vkrr_capture *cap, char *buf, size_t cap_bytes);

enum { VKRR_CAPTURE_KEEP_DAMAGED = 1u };

vkrr_status vkrr_capture_open(vkrr_capture **out, const char *dir, vkrr_error *err);
/* flags: VKRR_CAPTURE_KEEP_DAMAGED, or 0 (== vkrr_capture_open). */
vkrr_status vkrr_capture_open_ex(vkrr_capture **out, const char *dir, unsigned flags,
                                 vkrr_error *err);
/* "dump", "input", "manifest" ("" for none). */
const char *vkrr_damage_name(vkrr_damage_kind k);
void vkrr_capture_close(vkrr_capture *cap); /* accepts NULL */

/* Maps the allocation's contents before the launch (alloc-IDX.bin) or after it
 * (its dump; VKRR_ERR_MISSING when the capture has none).  Sizes are checked. */
vkrr_status vkrr_capture_map_alloc_pre(const vkrr_capture *cap, const vkrr_launch *l,
                                       uint32_t alloc, vkrr_mapfile *m, vkrr_error *err);
vkrr_status vkrr_capture_map_alloc_post(const vkrr_capture *cap, const vkrr_launch *l,
                                        uint32_t alloc, vkrr_mapfile *m, vkrr_error *err);
/* Maps an image's dump (W x H x texel bytes; a linear texture's whole
 * source: its buffer dump, or the alloc file that holds it). */
vkrr_status vkrr_capture_map_image(const vkrr_capture *cap, const vkrr_launch *l,
                                   uint32_t image, vkrr_mapfile *m, vkrr_error *err);

/* What the log's hash= values are (capture_hash.c): FNV-1a 64, which vkrr
 * checks; none to check; or FOREIGN, another function (none of the smallest
 * dumps that carry one agree with it), not to be checked.  probed: how many
 * dumps were hashed to tell (NULL: not wanted). */
typedef enum vkrr_capture_hashes {
    VKRR_HASHES_NONE = 0,
    VKRR_HASHES_FNV1A64,
    VKRR_HASHES_FOREIGN,
} vkrr_capture_hashes;
vkrr_capture_hashes vkrr_capture_check_hashes(const vkrr_capture *cap, unsigned *probed);

/* The capture's identity (capture_hash.c): FNV-1a 64 of its index (each
 * launch's number, kernel, frame, shape, arguments, allocations, images) and
 * the log's hash= of its dumps.  The same capture gives the same value on any
 * machine and path (`vkrr merge` checks that shards validated one capture). */
uint64_t vkrr_capture_identity(const vkrr_capture *cap);

/* Finds a launch by (kernel, occurrence); NULL when absent. */
const vkrr_launch *vkrr_capture_find(const vkrr_capture *cap, const char *kernel,
                                     uint32_t occurrence);

/* Writes `vkrr info` output: a table for people, or one JSON object. */
void vkrr_capture_print_table(const vkrr_capture *cap, FILE *f);
void vkrr_capture_print_json(const vkrr_capture *cap, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
