/* portiface.h - a port whose shader has its own interface: the `interface
 * own` lines of KERNEL.port (README "A shader with its own interface",
 * docs/own-interface.md).
 *
 * A built-in-interface port includes shaders/common/bindings.glsl and gets
 * vkrr's fixed interface (the parameter block at binding 0, pointers as
 * device addresses, local size = CUDA's block, one dispatch of CUDA's grid).
 * A port that says `interface own` states instead what fills each of its
 * shader's bindings, its push and specialisation constants, its workgroup
 * size and its dispatch grid:
 *
 *     interface own
 *     workgroup 64 1 1
 *     dispatch (u32@16+63)/64 1 1
 *     binding 0.0 storage-buffer arg0 size=u32@16*4
 *     binding 0.1 storage-buffer arg8 offset=0 size=u32@16*4
 *     push 0 u32 u32@16
 *     push 4 f32 f32@20
 *     specialize 3 u32 block.x
 *
 *   binding SET.BINDING KIND argOFF [offset=EXPR] [size=EXPR]
 *       KIND storage-buffer or uniform-buffer: a view of the allocation the
 *       pointer at argOFF points into, from offset bytes past where it
 *       points (default 0; may be negative while inside the allocation), size
 *       bytes (default: to the allocation's end).  Texel buffer kinds are not
 *       yet supported (a parse error says so).
 *   binding SET.BINDING storage-image|sampled-image argOFF format=FMT
 *   binding SET.BINDING combined-image-sampler argOFF format=FMT SAMPLER
 *   binding SET.BINDING sampler argOFF|- SAMPLER
 *       the CUDA array of the texture or surface whose handle is at argOFF,
 *       as an image in FMT, a GLSL image format (imgformat.h: rgba16f r32f
 *       rgba8 rgba8ui ...) that the array's CUarray format maps onto
 *       (checked per launch); SAMPLER is sampler=captured|linear|nearest
 *       [address=clamp|repeat|mirror|border] [normalized=0|1]: the texture's
 *       captured sampler state, or a hardware sampler the port states
 *       (address and normalized default to the captured texture's; a
 *       sampler binding with '-' has no texture: it states all three).
 *   push OFFSET TYPE VALUE      push-constant bytes OFFSET.. (a multiple of 4)
 *   specialize ID TYPE VALUE    specialisation constant ID
 *       TYPE u32 i32 f32 (push also u64 i64); VALUE an expression
 *       (portexpr.h), converted for f32, or for f32 a decimal constant (2.5)
 *       or f32@BYTE, the parameter word's bits unchanged.
 *   workgroup X Y Z   the shader's local size, constants (default: the
 *       shader's own; checked against it, or given to its local_size_*_id
 *       specialisation constants)
 *   dispatch X Y Z    workgroups, expressions (default grid.x grid.y grid.z)
 *
 * and, for one launch as several dispatches, `pass` and `scratch` lines
 * (portpass.h: each pass is a vkrr_port_iface of its own under the head),
 * and for several launches as one, `covers` (portpass.h, fused_runs.h).
 *
 * Lines are parsed here; vkbridge/vkiface.c holds them against the shader's
 * reflection (before any launch runs) and binds them.  Errors name the file,
 * the line and the field (VKRR_ERR_PARSE / VKRR_ERR_RANGE, exit 2).
 */
#ifndef VKRR_PORTIFACE_H
#define VKRR_PORTIFACE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "imgformat.h"
#include "portexpr.h"
#include "replay.h"
#include "status.h"

#define VKRR_PORT_MAX_BINDINGS 32
#define VKRR_PORT_MAX_SPECS 32
#define VKRR_PORT_PUSH_MAX 256
#define VKRR_PORT_MAX_PASSES 8       /* `pass` blocks of a split launch (portpass.h) */
#define VKRR_PORT_MAX_SCRATCH 8      /* `scratch` buffers of the port's own */

typedef enum vkrr_port_bind_kind {
    VKRR_PORT_STORAGE_BUFFER = 0,
    VKRR_PORT_UNIFORM_BUFFER = 1,
    VKRR_PORT_STORAGE_IMAGE = 2,          /* a texture's or surface's CUDA array */
    VKRR_PORT_SAMPLED_IMAGE = 3,
    VKRR_PORT_COMBINED_IMAGE_SAMPLER = 4,
    VKRR_PORT_SAMPLER = 5
} vkrr_port_bind_kind;

/* Is k one of the image kinds (a CUDA array behind it)? */
static inline bool vkrr_port_kind_is_image(vkrr_port_bind_kind k)
{
    return k == VKRR_PORT_STORAGE_IMAGE || k == VKRR_PORT_SAMPLED_IMAGE ||
           k == VKRR_PORT_COMBINED_IMAGE_SAMPLER;
}
const char *vkrr_port_kind_name(vkrr_port_bind_kind k); /* "storage-image", ... */

/* The sampler of a combined-image-sampler or sampler binding: the
 * captured texture's (filter, addressing, coordinates), or one the port
 * states; address and normalized left at -1 keep the captured ones. */
typedef enum { VKRR_PORT_SAMPLER_CAPTURED = 0, VKRR_PORT_SAMPLER_LINEAR, VKRR_PORT_SAMPLER_NEAREST } vkrr_port_filter;
typedef struct vkrr_port_sampler {
    vkrr_port_filter filter;
    int address;             /* VKRR_ADDRESS_* (capture.h), -1: captured */
    int normalized;          /* 0, 1, -1: captured */
} vkrr_port_sampler;

typedef enum vkrr_port_scalar { VKRR_PORT_U32, VKRR_PORT_I32, VKRR_PORT_F32, VKRR_PORT_U64, VKRR_PORT_I64 } vkrr_port_scalar;

typedef struct vkrr_port_bind {
    uint32_t set, binding;
    vkrr_port_bind_kind kind;
    uint32_t arg;
    bool has_offset, has_size;
    vkrr_port_expr offset, size;
    const vkrr_imgformat *format; /* image kinds: format= (imgformat.h) */
    vkrr_port_sampler sampler;    /* combined-image-sampler, sampler */
    bool no_arg;                  /* a sampler the port states alone ('-') */
    bool scratch;                 /* buffers: `scratch:NAME`, arg is the scratch's index */
    long line;
} vkrr_port_bind;

/* A push or specialisation constant. */
typedef struct vkrr_port_const {
    uint32_t where;          /* push: byte offset; specialize: the constant's ID */
    vkrr_port_scalar type;
    enum { VKRR_PORT_VALUE_EXPR, VKRR_PORT_VALUE_F32_WORD, VKRR_PORT_VALUE_F32_CONST } kind;
    vkrr_port_expr e;        /* EXPR */
    uint32_t at;             /* F32_WORD: f32@BYTE */
    float f;                 /* F32_CONST */
    long line;
} vkrr_port_const;

typedef struct vkrr_port_iface {
    long line;               /* the `interface own` line */
    vkrr_port_bind bind[VKRR_PORT_MAX_BINDINGS];
    uint32_t nbind;
    vkrr_port_const push[VKRR_PORT_PUSH_MAX / 4];
    uint32_t npush;
    vkrr_port_const spec[VKRR_PORT_MAX_SPECS];
    uint32_t nspec;
    uint32_t workgroup[3];   /* 0 0 0: the shader's own */
    long workgroup_line;
    vkrr_port_expr dispatch[3];
    long dispatch_line;      /* 0: CUDA's grid */
    /* a split launch (portpass.h): the head holds the scratch buffers and
     * the passes, each pass its own lines above and its shader */
    struct vkrr_port_scratch *scratch;   /* the head's, nscratch of them */
    uint32_t nscratch;
    struct vkrr_port_iface *pass[VKRR_PORT_MAX_PASSES];
    uint32_t npass;
    const struct vkrr_port_iface *head; /* a pass: the head it belongs to; NULL: the head */
    char shader[64];         /* a pass: its shader's name in the ports folder; "": the kernel's */
    /* a fused port (portpass.h `covers`): the kernels of the run of
     * consecutive launches it stands for, in order, the first its own */
    char **covers;
    uint32_t ncovers;
    long covers_line;
} vkrr_port_iface;

/* Is tok[0] an interface keyword (interface binding push specialize
 * workgroup dispatch)? */
bool vkrr_port_iface_keyword(const char *tok);
/* One line of them into *f (allocated at `interface own`; the other lines
 * need it above them; below a `pass` line they go to that pass). */
vkrr_status vkrr_port_iface_line(vkrr_port_iface **f, char **tok, int nt, const char *name,
                                 long line, vkrr_error *err);

/* One launch's interface, evaluated. */
typedef struct vkrr_port_buffer_use {
    uint32_t set, binding;
    vkrr_port_bind_kind kind;
    uint32_t alloc;          /* into the launch's allocs; scratch: the scratch's index */
    bool scratch;            /* a scratch buffer of the port's own */
    uint64_t offset, size;   /* bytes in the allocation */
    long line;
} vkrr_port_buffer_use;

/* An image or sampler binding, evaluated: the launch's image behind it. */
typedef struct vkrr_port_image_use {
    uint32_t set, binding;
    vkrr_port_bind_kind kind;
    uint32_t image;          /* into the launch's images; UINT32_MAX: a stated sampler alone */
    const vkrr_imgformat *format; /* NULL for a sampler */
    vkrr_imgmap map;         /* how the array's texels go into format */
    vkrr_sampler sampler;    /* combined-image-sampler, sampler: the one to create */
    long line;
} vkrr_port_image_use;

typedef struct vkrr_port_iface_run {
    vkrr_port_buffer_use buf[VKRR_PORT_MAX_BINDINGS];
    uint32_t nbuf;
    vkrr_port_image_use img[VKRR_PORT_MAX_BINDINGS];
    uint32_t nimg;
    uint8_t push[VKRR_PORT_PUSH_MAX];
    uint32_t push_bytes;     /* past the last constant pushed */
    uint32_t spec_id[VKRR_PORT_MAX_SPECS], spec_value[VKRR_PORT_MAX_SPECS];
    uint32_t nspec;
    uint32_t dispatch[3];
    uint64_t scratch_size[VKRR_PORT_MAX_SCRATCH]; /* the head's scratch buffers, bytes */
    uint32_t nscratch;
} vkrr_port_iface_run;

/* Evaluates f against a captured launch / a replay (name: the descriptor's
 * file, for errors): each argument a pointer, each window inside its
 * allocation, each value in its type's range, each dispatch dimension >= 1. */
vkrr_status vkrr_port_iface_eval_launch(const vkrr_port_iface *f, const char *name,
                                        const vkrr_launch *l, vkrr_port_iface_run *out,
                                        vkrr_error *err);
vkrr_status vkrr_port_iface_eval_replay(const vkrr_port_iface *f, const char *name,
                                        const vkrr_replay *r, vkrr_port_iface_run *out,
                                        vkrr_error *err);

/* Frees f and its passes (accepts NULL). */
void vkrr_port_iface_free(vkrr_port_iface *f);

#endif
