/* stress.h - `vkrr stress`: a captured launch driven with new inputs through
 * the original kernel (the PTX interpreter) and the port, until they
 * disagree.
 *
 * The inputs are the data the launch's pointers lead to that the kernel
 * reads (from its PTX: each pointer parameter with a load, in the element
 * type of that load; without the PTX, every allocation as f32 words or
 * bytes) and the texels of its textures (in their CUDA array's type); the
 * .port's input lines bound them (portdesc.h).  Pointers, sizes, the grid
 * and texture descriptors are never changed.  Each run starts from the captured inputs or from one kept
 * earlier, and changes 1 to 4 elements: a special value of the element's
 * type (+-0, +-Inf, NaN, the largest finite, the smallest subnormal and
 * normal, 1, -1, f16's 65504 and 65520, e4m3's 448 and 464, ...), a value
 * drawn within the input's captured range, the value negated, one ULP
 * either way, or scaled by a power of two.  An input is kept when the
 * original took a branch direction (ptx coverage) no earlier input took, as
 * libFuzzer keeps inputs that reach new edges.  Every output the capture
 * dumps is compared as validate compares it: a window a .port descriptor
 * names in its type and tolerance, the rest byte for byte, surfaces in their
 * format.  Deterministic for a seed.
 *
 * The first disagreement is minimised (the changed elements put back to
 * their captured values, one at a time, while the disagreement stays) and
 * written as a capture of that one launch: its inputs and the original's
 * outputs, which `vkrr validate` FAILs and `vkrr rerun` PASSes.
 *
 *     vkrr_stress_opts o = {.port = &vk, .original = &ptx, .descs = ps, .runs = 500,
 *                           .seed = 1, .out_dir = "stress-out"};
 *     vkrr_stress_result r;
 *     vkrr_stress_launch(&o, cap, &cap->launches[i], &r, &err);
 *
 * Does NOT: change surfaces' starting bytes (a launch writes them) or a
 * texture over linear memory other than through its allocation; write a
 * reproducer of a launch with such a texture (it says so).
 */
#ifndef VKRR_STRESS_H
#define VKRR_STRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "compare.h"
#include "modules.h"
#include "portdesc.h"
#include "replay.h"
#include "status.h"

typedef struct vkrr_stress_opts {
    const vkrr_backend *port;      /* runs the port */
    const vkrr_backend *original;  /* runs the original: the ptx backend (coverage on) */
    vkrr_portdesc_set *descs;      /* what is compared how; NULL: bytes */
    const vkrr_tol_rules *rules;   /* NULL: per-type defaults */
    uint64_t runs;                 /* inputs a launch, at most */
    double seconds;                /* a launch, at most; 0: no limit */
    uint64_t seed;
    const char *out_dir;           /* where a reproducer goes (made when one is written) */
    const vkrr_module_set *modules; /* the original's PTX (how it reads its pointers) */
    bool progress;                 /* a progress line on stderr (a terminal) */
} vkrr_stress_opts;

typedef struct vkrr_stress_result {
    uint64_t runs;                 /* inputs tried */
    uint32_t kept;                 /* inputs kept for the coverage they reached */
    uint32_t mutable_inputs;       /* allocations whose data is changed */
    uint32_t dirs_captured;        /* branch directions the captured inputs took */
    uint32_t dirs_taken;           /* ... and every input together */
    uint32_t dirs_total;           /* directions of the kernel's conditional branches */
    bool disagree;
    bool nothing;                  /* no input stress changes (note says why): not an error */
    uint32_t changed;              /* elements the reproducer's inputs change */
    char reproducer[4096];         /* its capture folder; "" when none was written */
    char detail[1024];             /* which output differs, where, the values */
    char inputs[1024];             /* the changed input elements: "arg0[17] = -inf, ..." */
    char note[1024];               /* why a launch could not be stressed, or a caveat */
} vkrr_stress_result;

/* 0 (VKRR_OK) with res filled; a launch that cannot run (the original or
 * the port fails on the captured inputs) has res->note set and returns
 * VKRR_OK; errors of the run itself (memory, writing the reproducer)
 * return their status. */
vkrr_status vkrr_stress_launch(const vkrr_stress_opts *o, const vkrr_capture *cap,
                               const vkrr_launch *l, vkrr_stress_result *res, vkrr_error *err);

#endif
