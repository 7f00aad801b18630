/* approx.h - NVIDIA's approximate instructions as the GPU computes them,
 * defined once, for every backend.
 *
 * PTX gives ex2.approx, rsqrt.approx, sin.approx and the rest only an error
 * bound, so a reference that computes them any other way differs from the
 * GPU in the last bits, and chained validation amplifies those bits into
 * failures of a correct port.  Here they follow the hardware model the
 * process uses (hw_model.h: the laws over tables measured on a GPU, by
 * default sm_90's; or `rounded`, the correctly rounded values, kept for
 * comparison).  The CPU backend (rrref's rr_ex2_approx / rr_rsqrt_approx),
 * the PTX interpreter (every .approx form) and the tables the Vulkan ports
 * read (vkrr_approx_port_tables) all call this file.
 *
 *     float y = vkrr_approx_f32(VKRR_APPROX_EX2, x, 1);   // ex2.approx.ftz.f32
 *     unsigned si = 0;
 *     y = vkrr_approx_f32_noted(VKRR_APPROX_LG2, x, 0, &si); // lg2.approx.f32
 *     if (si) ...;   // a stand-in answered: VKRR_STANDIN_LG2
 *
 * Exact for sm_90 (measured: src/hw/README.md): ex2, rsqrt, rcp, sqrt, sin,
 * cos, with and without .ftz, for every f32 input; ex2.approx.f16,
 * tanh.approx.f16, ex2.approx.ftz.bf16, tanh.approx.bf16 (and their x2
 * forms, a half at a time) for every input; lg2 and tanh (f32) for inputs
 * that are f16 values, and lg2 for inputs in [1, 2).  Stand-ins, reported
 * through the `standins` bits so a launch that used one says so: lg2 and
 * tanh on other inputs (lg2: RZ(e + L(m)), 99.4 % right; tanh: correctly
 * rounded, 94.4 %), div.approx.f32 / div.full.f32 (the correctly rounded
 * quotient; vkrr_approx_div_standin), rcp.approx.ftz.f64 (the ISA's 20-bit
 * recipe) and rsqrt.approx.f64 (correctly rounded).  Their bounds
 * (vkrr_approx_standin_bound) are the PTX ISA's.
 *
 * Errors: a table that cannot be read makes the value a NaN; callers that
 * can report errors call vkrr_approx_require(op) before running, which loads
 * what op needs and says why it cannot.  Thread-safe.
 * Does NOT: know about devices (vkbridge uploads the port tables), or choose
 * the model (hw_model.h does).
 */
#ifndef VKRR_APPROX_H
#define VKRR_APPROX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw_tables.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vkrr_approx_op {
    VKRR_APPROX_EX2,   /* 2^x */
    VKRR_APPROX_RSQRT, /* 1/sqrt(x) */
    VKRR_APPROX_RCP,   /* 1/x */
    VKRR_APPROX_SQRT,  /* sqrt(x) */
    VKRR_APPROX_LG2,   /* log2(x) */
    VKRR_APPROX_SIN,   /* sin(x), x in radians */
    VKRR_APPROX_COS,   /* cos(x) */
    VKRR_APPROX_TANH,  /* tanh(x) */
    VKRR_APPROX_COUNT
} vkrr_approx_op;

/* What a stand-in answered (bits). */
enum {
    VKRR_STANDIN_LG2 = 1u << 0,  /* lg2.approx.f32 off f16 values and [1, 2) */
    VKRR_STANDIN_TANH = 1u << 1, /* tanh.approx.f32 off f16 values */
    VKRR_STANDIN_DIV = 1u << 2,  /* div.approx.f32, div.full.f32 */
    VKRR_STANDIN_F64 = 1u << 3,  /* rcp.approx.ftz.f64, rsqrt.approx{.ftz}.f64 */
    VKRR_STANDIN_DMMA = 1u << 4, /* mma.m8n8k4.f64: a model of its sums, no ISA bound */
    VKRR_STANDIN_TCSUM = 1u << 5, /* f16/bf16/tf32/fp8 mma: a model of the tensor cores' sums
                                     (cuda_ref/ptx/isa/ptx_mma_sum.c), not measured here */
    VKRR_STANDIN_ALL = 0x3fu,
    VKRR_STANDIN_COUNT = 6
};

/* OP.approx{.ftz}.f32 */
float vkrr_approx_f32(vkrr_approx_op op, float x, int ftz);
/* The same, or-ing into *standins the bit of a stand-in that answered. */
float vkrr_approx_f32_noted(vkrr_approx_op op, float x, int ftz, unsigned *standins);
/* The same for n values at once (a warp's lanes): y[k] is
 * vkrr_approx_f32_noted(op, x[k], ftz, standins), with the model read once
 * and the table lines all n need fetched before the first is used. */
void vkrr_approx_f32_many(vkrr_approx_op op, const float *x, float *y, unsigned n, int ftz,
                          unsigned *standins);
/* ex2.approx.ftz.f32 and rsqrt.approx.ftz.f32, rrref's two. */
float vkrr_approx_ex2(float x);
float vkrr_approx_rsqrt(float x);
/* ex2.approx.f16 / ex2.approx.ftz.bf16 (op EX2) and tanh.approx.f16/.bf16
 * (op TANH) on one 16-bit code; other ops are not PTX forms (NaN). */
uint16_t vkrr_approx_16(vkrr_approx_op op, uint16_t h, bool bf16);
/* rcp.approx.ftz.f64 (op RCP) and rsqrt.approx{.ftz}.f64 (op RSQRT): stand-ins. */
double vkrr_approx_f64(vkrr_approx_op op, double x, int ftz, unsigned *standins);

/* Loads the tables op needs under the current model, now.  16-bit: the
 * native forms' table. */
vkrr_status vkrr_approx_require(vkrr_approx_op op, bool f16_forms, vkrr_error *err);

/* The ports' tables (shaders/common/math.glsl): ex2.approx.ftz.f32, then
 * rsqrt.approx.ftz.f32, then rcp.approx.ftz.f32 of every f16 code, f32 bits,
 * built from the current model once per model.  VKRR_APPROX_PORT_TABLE_BYTES
 * bytes. */
#define VKRR_APPROX_TABLE_ENTRIES 65536u
#define VKRR_APPROX_PORT_TABLES 3u
#define VKRR_APPROX_PORT_TABLE_BYTES (VKRR_APPROX_PORT_TABLES * VKRR_APPROX_TABLE_ENTRIES * 4u)
vkrr_status vkrr_approx_port_tables(const uint32_t **tables, vkrr_error *err);

/* ref(j) of delta table id (hw_tables.h): the exact function at grid point
 * j, rounded once to f32 (in double; exact at every grid point); the
 * hardware's value is inverse(ord(ref) + delta[j]) (src/hw/README.md). */
float vkrr_hw_grid_ref(vkrr_hw_table_id id, uint32_t j);
/* The same of the ex2 tables (neg: VKRR_HWT_EX2_NEG), the same bits, with
 * no libm call for nearly every j (exp2_grid.h: what a warp's lanes use). */
float vkrr_hw_ex2_grid_ref(bool neg, uint32_t j);
/* The model's turn index of sin/cos.approx for input x: floor(|t| 2^25)
 * mod 2^25, t = FMUL.RZ(x, 1/(2 pi) as f32). */
uint32_t vkrr_hw_turn_index(float x);

/* The PTX ISA's bound of the stand-ins in `standins`, as a tolerance on an
 * output computed with them (the widest of each; negative: not used):
 *   lg2: atol 2^-22 and rtol 2^-22;  tanh: rtol 2^-11;  div: 2 ULP;
 *   f64: rtol 2^-19 (rcp.approx.ftz.f64 keeps 20 mantissa bits). */
void vkrr_approx_standin_bound(unsigned standins, double *atol, double *rtol, int64_t *max_ulp);
/* "lg2.approx.f32, tanh.approx.f32" */
void vkrr_approx_standin_names(unsigned standins, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
