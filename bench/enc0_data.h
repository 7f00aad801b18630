/* enc0_data.h - the buffers of bench/enc0_gen.py's kernel, and its result
 * computed on the host (enc0_bench --check).
 *
 * Layout, in 32-bit words (the generator's docstring is the other half of
 * this contract): for warp (block) b of B, phase p of N, lane L
 *   act  (b N + p) 128 + 4 L + r      A register r (16 e4m3 of a 16x32 A)
 *   w    p 192 + 4 L + {0,1 | 2,3}    B registers | C registers (f16x2);
 *        p 192 + 128 + j              the f32 scales of the extra fma
 *   out  (b N + p) 64 + 2 L + {0, 1}  q (4 e4m3) of lane L, then of lane L^1
 *
 * enc0_fill: deterministic data (a fixed xorshift).  Random: e4m3 of
 * magnitude 1/8 .. 3.75, f16 bias 1/4 .. 4, scales 1/64 .. 1/16 (never NaN or
 * Inf).  Exact: A in {0, 1, -1}, B nonzero (+-1) only at k = 0 mod 4 (8 terms
 * a column), bias in {-1, 0, 1, 2}, scales 0, so every D is an integer of
 * magnitude <= 10 and every step after it is exact.
 *
 * enc0_expect: what the kernel must write for exact data, from the PTX ISA's
 * m16n8k32 fragment layouts (not from vkrr's mma), x -> relu(x 2^-x) -> e4m3.
 * Returns false, with why, for data it cannot compute exactly.
 *
 * Ownership: enc0_bufs_free frees what enc0_bufs_alloc allocated.
 */
#ifndef ENC0_DATA_H
#define ENC0_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { ENC0_ACT_WORDS = 128, ENC0_W_WORDS = 192, ENC0_OUT_WORDS = 64 };

typedef struct enc0_bufs {
    uint32_t phases, warps;
    uint32_t *act, *w, *out;
    size_t act_bytes, w_bytes, out_bytes;
} enc0_bufs;

bool enc0_bufs_alloc(enc0_bufs *b, uint32_t phases, uint32_t warps);
void enc0_bufs_free(enc0_bufs *b);
void enc0_fill(enc0_bufs *b, bool exact);
bool enc0_expect(const enc0_bufs *b, uint32_t *expect, char *why, size_t cap);

#endif
