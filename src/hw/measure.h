/* measure.h - measuring a GPU's approximate instructions: the tables of
 * hw_tables.h for the GPU at hand, and how well the laws of approx.h hold.
 *
 * What runs the instructions is the caller's (a callback: `vkrr hw measure`
 * runs the shipped kernels src/hw/ptx/measure*.ptx through libcuda, the
 * tests through the PTX interpreter), so this file only chooses inputs and
 * reads outputs:
 *
 *     vkrr_hw_measure_desc d = {.run = my_run, .ctx = gpu, .dir = "out/sm_89",
 *                               .arch = "sm_89", .device = "NVIDIA L4"};
 *     vkrr_hw_measure_result r;
 *     if (vkrr_hw_measure_run(&d, &r, &err) != VKRR_OK) ...;
 *
 * The tables (every grid point of every table, src/hw/README.md):
 *   delta tables: the grid point's input through the .ftz form (its output is
 *     the table entry itself: i = 0, k = 0, e = 1), delta = ord(hw) -
 *     ord(ref(j)); sin/cos: every positive finite f32 x (later turns reach
 *     indexes the first skips), the first of each turn index j kept (the
 *     others must agree: a law), |delta| > 126 into the exceptions list (the table
 *     then holds 127 when delta is 127, else -127), -128 where no input
 *     reaches j;
 *   f16_inputs: every f16 value through the 15 f32 forms; native16: every
 *     16-bit code through the four 16-bit forms (bf16 ones when bf16).
 * Every grid table's values beyond an int8 delta go to its exceptions list
 * (the table saturated at +-127 there), so no table is lossy.
 * Then the laws: every f32 input (2^32) through each of the fifteen f32
 * forms, compared with approx.h under the new tables (lg2 and tanh, with no
 * exact law, reported as the fraction the tables and stand-ins reach).
 *
 * sample > 1 (tests, a quick look): only every sample-th grid point, turn
 * index and 16-bit code; entries not measured are 0 (sin/cos: -128).  Such
 * a set says so in its manifest and is no model, so the laws are checked
 * only when the caller gives law_model, the model the hardware should
 * follow (the PTX interpreter's own set, its deviations ignored), at every
 * 2^20-th f32 input (4,096 per form: VKRR_HW_SAMPLED_LAW_STRIDE).
 * Errors: the callback's, I/O; a law that fails is a result, not an error.
 * Does NOT: know about devices, modules or captures.
 */
#ifndef VKRR_HW_MEASURE_H
#define VKRR_HW_MEASURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hw_tables.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif


/* out[i] = OP(in[i]) for i < n, on the hardware measured. */
typedef vkrr_status (*vkrr_hw_run_fn)(void *ctx, unsigned op, const uint32_t *in, uint32_t *out,
                                      uint32_t n, vkrr_error *err);

typedef struct vkrr_hw_measure_desc {
    vkrr_hw_run_fn run;
    void *ctx;
    const char *dir;          /* where the set goes (created; NAME.xz + tables.tsv) */
    const char *arch;         /* "sm_89" */
    const char *device;       /* the manifest's device line */
    uint32_t sample;          /* 0, 1: everything; N: every N-th point (laws: law_model) */
    bool bf16;                /* ops 17, 18 can run */
    bool no_laws;             /* every table point, but no law check (the 15 x 2^32 inputs) */
    uint32_t batch;           /* inputs per run() call; 0: 2^24 */
    FILE *progress;           /* NULL: quiet */
    /* the set whose "cut" lines (hw_tables.h) the manifest repeats: the
     * model's own when the PTX interpreter computes it; NULL for a GPU */
    const vkrr_hw_tables *cuts_from;
    /* sample > 1: the model the sampled law check compares with; NULL: none */
    struct vkrr_hw_model *law_model;
} vkrr_hw_measure_desc;

#define VKRR_HW_SAMPLED_LAW_STRIDE (1u << 20)

typedef struct vkrr_hw_law {
    char name[112];
    uint64_t tested, violations;
    bool standin;             /* no exact law (lg2, tanh): a fraction, not a failure */
} vkrr_hw_law;

typedef struct vkrr_hw_measure_result {
    vkrr_hw_law laws[24];
    unsigned nlaws;
    uint64_t exceptions[2];   /* sin, cos */
    uint64_t grid_exceptions[6]; /* ex2 +, ex2 -, rsqrt, sqrt, rcp, lg2: beyond an int8 delta */
    uint64_t unreachable[2];
} vkrr_hw_measure_result;

vkrr_status vkrr_hw_measure_run(const vkrr_hw_measure_desc *d, vkrr_hw_measure_result *res,
                                vkrr_error *err);

/* The grid point j of delta table id as an input of its .ftz op (not for
 * sin/cos, whose inputs are searched): x, and the op that reads it. */
float vkrr_hw_grid_input(vkrr_hw_table_id id, uint32_t j, unsigned *op);
/* ref(j) of a delta table (the correctly rounded f32 of the exact function). */
float vkrr_hw_grid_ref(vkrr_hw_table_id id, uint32_t j);

#ifdef __cplusplus
}
#endif

#endif
