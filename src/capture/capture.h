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

/* What the log's statistics line says of one dump (the bridge's
 * `launch[N] K arg[OFF] KIND SHAPE fmt= bytes= nonzero_bytes= hash=
 * f16{nonzero= nan_inf= min= max= mean_abs=} f32{nan_inf= min= max=}`):
 * each group where the line has it.  f16 and f32 statistics read the whole
 * dump as little-endian halves / floats; min and max start from 0 and take
 * finite values only (docs/capture-format.md).  vkrr_dump_stats_check
 * (capture_hash.c) checks bytes against it. */
typedef struct vkrr_dump_stats {
    bool has_hash, has_nonzero, has_f16, has_f32;
    uint64_t hash;
    uint64_t nonzero_bytes;
    uint64_t f16_nonzero, f16_nan_inf, f32_nan_inf;
    double f16_min, f16_max, f32_min, f32_max; /* as the log printed them (%g) */
    double f16_mean_abs;   /* printed, not checked (its sum's order is the bridge's) */
    long line;             /* its line in run/run.log; 0: the log has none */
} vkrr_dump_stats;

typedef struct vkrr_alloc {
    uint32_t index;        /* launch-local index from the manifest */
    uint64_t base;         /* device base address: the identity across launches */
    uint64_t size;
    char *pre_path;        /* replay/.../alloc-IDX.bin */
    char *post_path;       /* dump/ file of this allocation after the launch, NULL if none */
    uint32_t post_offset;  /* argument offset named in the dump file's name */
    bool post_damaged;     /* a dump of it exists but cannot be used (size, twice): not compared */
    vkrr_dump_stats post_log; /* what the log says of the dump */
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

/* How an image's array is known (vkrr_image.link), and how a chain link
 * (a texture reading what an earlier launch wrote to a surface) was
 * established (vkrr_texture_link.how). */
typedef enum vkrr_link_how {
    VKRR_LINK_NONE = 0,  /* not known */
    VKRR_LINK_LOGGED,    /* the log says: a texture's array=, vkrr's surface array= */
    VKRR_LINK_SHAPE,     /* inferred from shape: the only array of the surface's shape and
                          * format the log created before the surface */
    VKRR_LINK_ORDER,     /* inferred from creation order among arrays of one shape (images
                          * only: a chain link on it is confirmed by bytes or not made) */
    VKRR_LINK_BYTES,     /* inferred from equal bytes: the texture's dump is the surface's */
} vkrr_link_how;
/* "logged", "inferred from shape", "inferred from creation order",
 * "inferred from equal bytes", "unknown". */
const char *vkrr_link_how_name(vkrr_link_how h);

typedef struct vkrr_image {
    uint32_t offset;       /* byte offset of the handle word in args.bin */
    vkrr_image_kind kind;
    uint64_t handle;       /* the CUtexObject / CUsurfObject word */
    uint32_t width, height, channels; /* height: rows of all planes (geometry) */
    uint32_t format;       /* CUarray_format code */
    uint64_t array;        /* CUarray behind it when known (link), else 0 */
    vkrr_link_how link;    /* how `array` is known: LOGGED, or for a surface SHAPE/ORDER */
    vkrr_geometry geometry; /* the array's, from the log (all zero: 2D) */
    vkrr_sampler sampler;  /* textures only */
    char *dump_path;       /* dump/ file: after the launch (== before, for a texture) */
    uint64_t dump_bytes;   /* its size (a linear texture's: the whole buffer dump) */
    bool dump_damaged;     /* surfaces: the dump names the shape but cannot be compared */
    vkrr_dump_stats dump_log; /* what the log says of the dump */
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
    uint64_t gap_before;   /* launches the bridge numbered between the previous launch with
                            * a replay folder and this one (their folders were not written:
                            * replay limit, skip, filter); 0 for the first */
    vkrr_damage_kind damage; /* VKRR_CAPTURE_KEEP_DAMAGED: what could not be read */
    vkrr_error *damage_error;/* the first problem (file, line or offset, reason); NULL: none */
    uint32_t ndamage;      /* problems found, damage_error being the first */
    /* set only in a capture src/port/fused_runs.h derived: a run of
     * consecutive launches a fused port stands for, as one launch (their
     * sequences; its row's name "A+B (#s..#e)"), or a launch a fused port
     * cannot run here (why: validate says NO PORT) */
    const uint64_t *fused_seq;
    uint32_t nfused;
    const char *label;
    const char *no_port;
} vkrr_launch;

/* The launch's name in tables: its kernel, or a fused run's label. */
static inline const char *vkrr_launch_name(const vkrr_launch *l)
{
    return l->label ? l->label : l->kernel;
}

/* A launch the capture shows without a replay folder: by its dumps (the
 * bridge dumps every launch; D4R_CUDA_REPLAY_DUMP_LIMIT (1 by default), _SKIP
 * and _FILTER choose which get a folder) or its log lines.  It cannot be
 * replayed; it counts in frames and occurrences. */
typedef struct vkrr_dump_only {
    uint64_t sequence;
    char *kernel;          /* "" when nothing names it */
    uint32_t ndumps;       /* its files in dump/ */
    uint32_t frame, occurrence;
} vkrr_dump_only;

/* A module the log says the bridge saved: `cuModuleLoadData captured PTX|CUDA
 * fatbin ... to PATH (complete)` (modules.h looks for it). */
typedef struct vkrr_logged_module {
    char *path;            /* PATH on the capturing machine */
    bool fatbin;           /* a .fatbin (else PTX) */
    uint64_t size;
    bool complete;         /* "(complete)", not "(short write)" */
    long line;
} vkrr_logged_module;

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
    vkrr_dump_only *dump_only; /* in sequence order */
    uint32_t ndump_only, dump_only_cap;
    vkrr_module_file *modules;
    uint32_t nmodules;
    vkrr_logged_module *logged_modules; /* in log order */
    uint32_t nlogged_modules;
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

/* What the log's hash= values are (capture_hash.c): FNV-1a 64 from the
 * standard basis (vkrr's older writer), FNV-1a 64 from the bridge's basis
 * 1469598103934665603 (the standard one with its last digit missing: the d4r
 * bridge, and vkrr's writer now), none to check, or FOREIGN: another
 * function (none of the smallest dumps that carry one agree with either), not
 * to be checked. */
typedef enum vkrr_capture_hashes {
    VKRR_HASHES_NONE = 0,
    VKRR_HASHES_FNV1A64,
    VKRR_HASHES_BRIDGE,
    VKRR_HASHES_FOREIGN,
} vkrr_capture_hashes;

/* How the log's evidence of the dumps is checked: found by probing the
 * smallest dumps that carry it (a dump changed after capture cannot agree by
 * chance, so one agreeing is proof of the function; none agreeing means the
 * capture's evidence is not ours to check). */
typedef struct vkrr_capture_integrity {
    vkrr_capture_hashes hashes;
    uint64_t basis;        /* the FNV-1a basis hash= starts from; 0: hashes not checked */
    bool stats;            /* nonzero_bytes and the f16/f32 statistics are checked */
    bool stats_foreign;    /* the capture has statistics, but computed another way */
    unsigned probed;       /* dumps read to tell */
} vkrr_capture_integrity;
vkrr_capture_integrity vkrr_capture_check_integrity(const vkrr_capture *cap);
/* "FNV-1a 64", "FNV-1a 64 (the bridge's basis)", "" (none), "foreign". */
const char *vkrr_capture_hashes_name(vkrr_capture_hashes h);

/* Checks a dump's bytes against what the log says of them, as ig says to:
 * hash= (from ig->basis; *hashed: the caller hashed the bytes already, NULL:
 * hashed here); where no hash is checked, nonzero_bytes and the f16/f32
 * statistics (ig->stats; a hash that agrees says the bytes are the ones the
 * statistics were taken of, and costs one pass less).  True
 * when they agree (or nothing is to be checked); else `why` (a clause: "its
 * FNV-1a hash is ..., the log (run/run.log:N) says ...") says what differs. */
bool vkrr_dump_stats_check(const vkrr_dump_stats *s, const vkrr_capture_integrity *ig,
                           const void *data, uint64_t size, const uint64_t *hashed, char *why,
                           size_t why_cap);
/* The bridge's statistics of size bytes (all has_* true; hash from basis),
 * as vkrr's writer logs them and the check recomputes them. */
vkrr_dump_stats vkrr_dump_stats_of(const void *data, uint64_t size, uint64_t basis);

/* The capture's identity (capture_hash.c): FNV-1a 64 of its index (each
 * launch's number, kernel, frame, shape, arguments, allocations, images) and
 * the log's hash= of its dumps.  The same capture gives the same value on any
 * machine and path (`vkrr merge` checks that shards validated one capture). */
uint64_t vkrr_capture_identity(const vkrr_capture *cap);

/* The earlier surface a texture reads in chained validation, and how that
 * is known (capture_links.c): links[i][j] for image j of launch i (only
 * textures over arrays can have one). */
#define VKRR_LINK_ALIKE_MAX 3
typedef struct vkrr_texture_link {
    uint32_t launch, image;   /* the surface: indices into cap->launches and its images;
                               * UINT32_MAX: none, the texture reads the capture */
    vkrr_link_how how;        /* LOGGED, SHAPE or BYTES */
    bool unknown;             /* none, though an earlier launch of its segment wrote a surface
                               * of its shape: the log does not say which array it reads and
                               * no dump's bytes tell */
    uint32_t nalike;          /* BYTES: other surfaces of that launch whose dumps are equal too
                               * (which one it reads, the bytes cannot tell: chained mode
                               * checks that the port wrote them alike as well) */
    struct { uint32_t launch, image; } alike[VKRR_LINK_ALIKE_MAX];
} vkrr_texture_link;
/* Reads the dumps it must compare (hashed once each).  Free with
 * vkrr_capture_links_free. */
vkrr_status vkrr_capture_texture_links(const vkrr_capture *cap, vkrr_texture_link ***links,
                                       vkrr_error *err);
void vkrr_capture_links_free(const vkrr_capture *cap, vkrr_texture_link **links); /* NULL ok */

/* Finds a launch by (kernel, occurrence); NULL when absent. */
const vkrr_launch *vkrr_capture_find(const vkrr_capture *cap, const char *kernel,
                                     uint32_t occurrence);

/* Writes `vkrr info` output: a table for people, or one JSON object; links
 * (vkrr_capture_texture_links, NULL: not shown) say what each texture reads
 * in chained validation. */
void vkrr_capture_print_table(const vkrr_capture *cap, vkrr_texture_link *const *links, FILE *f);
void vkrr_capture_print_json(const vkrr_capture *cap, vkrr_texture_link *const *links,
                             const char *vkrr_version, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
