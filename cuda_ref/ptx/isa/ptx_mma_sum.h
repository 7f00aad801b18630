/* ptx_mma_sum.h - the tensor-core sum of the floating-point mma and wmma
 * forms (ptx_mma_sum.c): d = c + sum a[k] b[k] as the tensor cores of the
 * hardware model's GPU make it, one output (ptx_dot_sum_in) or a whole
 * instruction's tile (ptx_dot_tile_sum), bit for bit the same.  The caller
 * reads the model once an instruction (ptx_dot_arith_current) and passes it
 * to every sum of it.  Thread-safe: nothing that a result depends on is
 * kept between calls (a thread keeps which way it tries a tile first).
 * ptx_mma_sum.c's top comment states the model. */
#ifndef VKRR_PTX_MMA_SUM_H
#define VKRR_PTX_MMA_SUM_H

#include <stdbool.h>
#include <stdint.h>

/* One dot product of a floating-point mma/wmma, d = c + sum a[k] b[k]. */
typedef enum ptx_dot_type { DOT_F16, DOT_BF16, DOT_TF32, DOT_E4M3, DOT_E5M2 } ptx_dot_type;
typedef struct ptx_dot {
    ptx_dot_type ta, tb;
    unsigned n;            /* products, at most 32 */
    uint32_t a[32], b[32]; /* their factors' bits */
    uint32_t c;            /* c's bits */
    bool c16, d16;         /* c, d are .f16 (else .f32) */
    bool split;            /* a shape sm_80-sm_89 sum in two halves of k */
} ptx_dot;
/* The hardware model's arithmetic of these sums, read once an instruction
 * (ptx_dot_arith_current: the current model, vkrr_hw_current) and passed to
 * every sum of it. */
typedef struct ptx_dot_arith {
    int frac;     /* F: fraction bits the terms keep */
    bool split;   /* sm_80-sm_89: the split shapes in two halves of k */
    bool ada;     /* sm_89: fp8 keeps 13 bits */
    bool rounded; /* the `rounded` model */
} ptx_dot_arith;
ptx_dot_arith ptx_dot_arith_current(void);
uint32_t ptx_dot_sum_in(const ptx_dot *d, const ptx_dot_arith *ar); /* d's bits */
uint32_t ptx_dot_sum(const ptx_dot *d); /* the same under the current model */
/* A whole tile of such sums, one instruction's m x n outputs of k products
 * each: d[i n + j] = c[i n + j] + sum a[i k + kk] b[j k + kk] (b by
 * column), each exactly as ptx_dot_sum_in gives it; every factor is decoded
 * once, not once an output. */
typedef struct ptx_dot_tile {
    ptx_dot_type ta, tb;
    unsigned m, n, k;  /* k at most 32; m, n at most 32 */
    const uint32_t *a; /* m x k: row i's factors at a + i k */
    const uint32_t *b; /* n x k: column j's factors at b + j k */
    const uint8_t *a8, *b8; /* e4m3/e5m2 only, optional: the factors as bytes (a8 + i k, b8 + j k),
                             * read instead of a and b (which may then be NULL): an mma's fragments
                             * are bytes already, and the tile sum reads bytes faster */
    const uint32_t *c; /* m x n, c's bits */
    uint32_t *d;       /* m x n, d's bits */
    bool c16, d16, split;
} ptx_dot_tile;
void ptx_dot_tile_sum(const ptx_dot_tile *t, const ptx_dot_arith *ar);
/* Tests: every tile tries the exact-sum path first (on), or a thread skips
 * it for 15 tiles after one it did not fit (off, the default). */
void ptx_dot_tile_try_every(bool on);

#endif
