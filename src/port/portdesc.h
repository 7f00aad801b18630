/* portdesc.h - port descriptors: what a port writes, read from KERNEL.port.
 *
 * A port's outputs (which argument, the window of the allocation, its
 * element type and planes, a tolerance) are data beside its shader, not C
 * code: shaders/KERNEL.port for the built-in ports (embedded at build time),
 * DIR/KERNEL.port for `--ports DIR` (wins over the built-in one).  validate,
 * bisect, diff, the rerun columns and the heatmaps all read outputs through
 * this one module.
 *
 * The format (also in README "Port descriptors"): plain text, '#' starts a
 * comment, one output a line:
 *
 *     output argOFF TYPE [key=VALUE ...]
 *
 *   argOFF   decimal byte offset of the argument word: a pointer (a buffer
 *            output: the window below, relative to where the pointer points)
 *            or a surface handle (shape and channels are the CUDA array's;
 *            only the type and tolerance keys apply).
 *   TYPE     element type: f16 bf16 f32 e4m3 u8 s8 u16 s16 u32 i32 (= s32)
 *            unorm8 snorm8 unorm16 snorm16, or bytes (exact, opaque).
 *   offset=  bytes from where the pointer points to the window (default 0;
 *            may be negative while the window stays inside the allocation)
 *   width=   elements per row (required for a buffer output)
 *   height=  rows (default 1)
 *   channels= values per element (default 1)
 *   planes=  width x height images back to back (default 1)
 *   layout=  interleaved (default: an element's channels are adjacent) or
 *            planar (each channel is its own plane: channels x planes planes)
 *   atol= rtol= max_ulp=  the tolerance of this output, as in a tolerance
 *            file (compare.h); over the type's default, under --tolerance
 *            rules and --atol/--rtol/--max-ulp.
 *
 * A number is an expression: decimal or 0x hex constants and words of the
 * launch's parameter block, TYPE@BYTE with TYPE u8 u16 u32 u64 i32 i64
 * (little-endian), joined by + - * / % and parentheses, no spaces, e.g.
 *     width=u32@24  planes=16  height=(u32@28+1)/2  offset=u32@32*2
 * so one descriptor serves every launch and resolution.
 *
 *     output arg16 f16 width=u32@24 height=u32@28 planes=8 max_ulp=2
 *     output arg32 f16                        # a HALF x4 surface
 *
 * and, for `vkrr stress` only, what it may feed the kernel (see below):
 *
 *     input arg0 f32 finite range -4 4
 *     input arg8 fixed
 *
 * and, for a shader that declares its own bindings instead of including
 * bindings.glsl, `interface own` and its lines (portiface.h), with passes
 * and scratch buffers (portpass.h) or `covers` for a fused run of launches
 * (fused_runs.h), whose launch K's arguments and words are K:argOFF and
 * K:TYPE@BYTE (portexpr.h); for a port that needs a device feature,
 * `require FEATURE` (portreq.h).
 *
 * Errors (VKRR_ERR_PARSE / VKRR_ERR_RANGE, exit 2) name the file, the line
 * and the field: a line that does not parse; at evaluation against a launch,
 * a word or argument past the parameter block, an argument that is neither a
 * pointer nor a surface there, a size below 1, a window outside the
 * allocation.  Built-in descriptors are named "KERNEL.port (built in)".
 *
 *     vkrr_portdesc_set *ps;
 *     vkrr_portdesc_set_create(&ps, ports_dir_or_NULL, &err);
 *     vkrr_portdesc_set_check(ps, cap, &err);          // every readable launch, before any runs
 *     vkrr_port_output out[VKRR_PORT_MAX_OUTPUTS]; uint32_t n;
 *     vkrr_portdesc_set_outputs(ps, launch, out, VKRR_PORT_MAX_OUTPUTS, &n, &err);
 *     vkrr_portdesc_set_destroy(ps);
 *
 * Ownership: a set owns the descriptors it loaded; outputs are plain values.
 * Does NOT: decide what is compared for undescribed allocations (validate.h).
 */
#ifndef VKRR_PORTDESC_H
#define VKRR_PORTDESC_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "compare.h"
#include "embed.h"
#include "portiface.h"
#include "portreq.h"
#include "status.h"
#include "view.h"

#define VKRR_PORT_MAX_OUTPUTS 64

/* The built-in descriptors (shaders/CMakeLists.txt): "KERNEL.port" entries. */
extern const vkrr_embedded_file vkrr_port_descs_builtin[];

typedef struct vkrr_portdesc vkrr_portdesc;

/* Parses a descriptor's text; name is the file name used in errors. */
vkrr_status vkrr_portdesc_parse(vkrr_portdesc **out, const char *text, size_t len,
                                const char *name, vkrr_error *err);
/* Reads and parses a file (VKRR_ERR_MISSING when it does not exist). */
vkrr_status vkrr_portdesc_load(vkrr_portdesc **out, const char *path, vkrr_error *err);
void vkrr_portdesc_destroy(vkrr_portdesc *d); /* accepts NULL */
const char *vkrr_portdesc_name(const vkrr_portdesc *d);
/* The outputs that rest on a guess: a comment line "# GUESS ..." under the
 * output line (as `vkrr port new` writes where the capture and the PTX
 * cannot settle a type or shape): their arguments and the comment's line
 * (at most cap); returns how many there are.  validate names them. */
uint32_t vkrr_portdesc_guesses(const vkrr_portdesc *d, uint32_t *args, long *lines, uint32_t cap);

/* One output of one launch, evaluated. */
typedef struct vkrr_port_output {
    uint32_t arg;          /* argument offset */
    bool surface;          /* a surface handle; else a pointer */
    uint32_t index;        /* into l->allocs (buffers) or l->images (surfaces) */
    vkrr_view view;        /* buffers: offset from the allocation's base */
    vkrr_tol_override tol; /* the descriptor's tolerance keys */
    long line;             /* its line in the descriptor */
} vkrr_port_output;

/* Evaluates d against launch l: at most cap outputs, in file order. */
vkrr_status vkrr_portdesc_eval(const vkrr_portdesc *d, const vkrr_launch *l,
                               vkrr_port_output *out, uint32_t cap, uint32_t *n,
                               vkrr_error *err);

/* What `vkrr stress` may feed a kernel through one pointer argument:
 *
 *     input argOFF [TYPE] [finite] [fixed] [range LO HI]
 *
 * TYPE: the element type its data is changed in (else the PTX's load type);
 * finite: no NaN or Inf; range: values within [LO, HI]; fixed: never changed
 * (indices, sizes, anything a kernel trusts). */
typedef struct vkrr_port_input {
    uint32_t arg;
    bool typed;            /* dtype given */
    vkrr_dtype dtype;
    bool finite, fixed, has_range;
    double lo, hi;
    long line;
} vkrr_port_input;
/* The input lines, in file order: at most cap into out; returns how many. */
uint32_t vkrr_portdesc_inputs(const vkrr_portdesc *d, vkrr_port_input *out, uint32_t cap);

/* The shader's own interface (`interface own`, portiface.h); NULL for a
 * port of bindings.glsl's (d NULL included). */
const vkrr_port_iface *vkrr_portdesc_iface(const vkrr_portdesc *d);

/* The features its `require` lines name (portreq.h); NULL when none (d NULL
 * included). */
const vkrr_port_needs *vkrr_portdesc_needs(const vkrr_portdesc *d);

/* The argument offsets a descriptor names, in file order (no launch needed). */
uint32_t vkrr_portdesc_args(const vkrr_portdesc *d, uint32_t *args, uint32_t cap);

/* ---- the descriptors of a run: built-in, and a --ports folder over them ---- */

typedef struct vkrr_portdesc_set vkrr_portdesc_set;

/* dir: the --ports folder (DIR/KERNEL.port wins), NULL: built-in only. */
vkrr_status vkrr_portdesc_set_create(vkrr_portdesc_set **out, const char *dir, vkrr_error *err);
void vkrr_portdesc_set_destroy(vkrr_portdesc_set *s); /* accepts NULL */
/* For cmd ("rerun", "diff"), which compares launch by launch and runs no
 * port: a fused port in the folder (`covers`), whose K: arguments no single
 * launch has, gives way to the kernel's built-in descriptor, with a warning. */
void vkrr_portdesc_set_launchwise(vkrr_portdesc_set *s, const char *cmd);

/* The descriptor of kernel, loaded once: *out NULL when there is none. */
vkrr_status vkrr_portdesc_set_get(vkrr_portdesc_set *s, const char *kernel,
                              const vkrr_portdesc **out, vkrr_error *err);

/* Loads every kernel's descriptor and evaluates it on every launch, so a bad
 * descriptor stops a run before anything is launched. */
vkrr_status vkrr_portdesc_set_check(vkrr_portdesc_set *s, const vkrr_capture *cap, vkrr_error *err);
/* The same for one launch: for a command that runs only some launches and
 * does not know fused runs (stress), so that a fused port of another kernel in
 * the folder, whose K: arguments no single launch has, does not stop it. */
vkrr_status vkrr_portdesc_set_check_launch(vkrr_portdesc_set *s, const vkrr_launch *l, vkrr_error *err);

/* The outputs of launch l; n = 0 when its kernel has no descriptor (s NULL
 * included). */
vkrr_status vkrr_portdesc_set_outputs(vkrr_portdesc_set *s, const vkrr_launch *l, vkrr_port_output *out,
                                  uint32_t cap, uint32_t *n, vkrr_error *err);

#endif
