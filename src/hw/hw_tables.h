/* hw_tables.h - one GPU architecture's measured tables: found, checked,
 * decompressed once, memory-mapped.
 *
 * The approximate instructions (ex2.approx, rsqrt.approx, sin.approx, ...)
 * are modelled from tables read off the hardware (src/hw/README.md says how,
 * approx.h uses them).  A table set is a folder: tables.tsv (the manifest:
 * the architecture, the device measured, and per table its decompressed size
 * and hash) and NAME.xz for each table.  The sm_90 set ships inside the vkrr
 * binary (src/hw/sm_90, embedded at build time); `vkrr hw measure` writes a
 * set for another GPU.
 *
 *     vkrr_hw_tables *t;
 *     if (vkrr_hw_tables_open_shipped(&t, &err) != VKRR_OK) ...;
 *     size_t n;
 *     const int8_t *d = vkrr_hw_tables_get(t, VKRR_HWT_EX2_POS, &n);  // lazy
 *     if (!d) vkrr_hw_tables_error(t, &err);                           // why
 *     vkrr_hw_tables_close(t);
 *
 * Lazy: a table is decompressed the first time it is asked for, so a run
 * that uses no sin never reads the sin table.  The decompressed copy is
 * written once to $XDG_CACHE_HOME/vkrr/hw/ARCH-SETHASH/NAME (~/.cache when
 * XDG_CACHE_HOME is unset) and memory-mapped, so a run's resident memory is
 * the pages it touches.  Every open of a cached copy checks its size and
 * hash against the manifest first (read, not mapped: the check costs no
 * resident memory); a copy that fails is rebuilt, never trusted.  Where no
 * cache folder can be written, the table is decompressed into memory.
 *
 * Errors: opening checks the manifest (every line, the sizes each table must
 * have) and that every NAME.xz is there; a table that cannot be read or
 * decompressed later makes get() return NULL and keeps the first such error.
 * Thread-safe: get() may be called from any thread.
 * Ownership: the set owns its mappings; pointers from get() live until close().
 * Does NOT: know what a table means (approx.h does), or measure anything.
 */
#ifndef VKRR_HW_TABLES_H
#define VKRR_HW_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tables of a set, in manifest order (approx.h says what each holds). */
#define VKRR_HW_TABLE_LIST(X)                                         \
    X(VKRR_HWT_EX2_POS, "delta_ex2_ftz_0_1.i8", 1u << 23)             \
    X(VKRR_HWT_EX2_NEG, "delta_ex2_ftz_neg_0_1.i8", 1u << 23)         \
    X(VKRR_HWT_RSQRT, "delta_rsqrt_ftz_1_4.i8", 1u << 24)             \
    X(VKRR_HWT_SQRT, "delta_sqrt_ftz_1_4.i8", 1u << 24)               \
    X(VKRR_HWT_RCP, "delta_rcp_ftz_1_2.i8", 1u << 23)                 \
    X(VKRR_HWT_SIN, "delta_sin_turn_K25.i8", 1u << 25)                \
    X(VKRR_HWT_COS, "delta_cos_turn_K25.i8", 1u << 25)                \
    X(VKRR_HWT_SIN_EXC, "exceptions_sin_turn_K25.u32", 0)             \
    X(VKRR_HWT_COS_EXC, "exceptions_cos_turn_K25.u32", 0)             \
    X(VKRR_HWT_LG2, "delta_lg2_ftz_1_2.i8", 1u << 23)                 \
    X(VKRR_HWT_F16_INPUTS, "f16_inputs.u32", 15u * 65536u * 4u)       \
    X(VKRR_HWT_NATIVE16, "native16.u16", 4u * 65536u * 2u)           \
    X(VKRR_HWT_EX2_POS_EXC, "exceptions_ex2_ftz_0_1.u32", 0)          \
    X(VKRR_HWT_EX2_NEG_EXC, "exceptions_ex2_ftz_neg_0_1.u32", 0)      \
    X(VKRR_HWT_RSQRT_EXC, "exceptions_rsqrt_ftz_1_4.u32", 0)          \
    X(VKRR_HWT_SQRT_EXC, "exceptions_sqrt_ftz_1_4.u32", 0)            \
    X(VKRR_HWT_RCP_EXC, "exceptions_rcp_ftz_1_2.u32", 0)              \
    X(VKRR_HWT_LG2_EXC, "exceptions_lg2_ftz_1_2.u32", 0)

typedef enum vkrr_hw_table_id {
#define VKRR_X_HWT(id, name, bytes) id,
    VKRR_HW_TABLE_LIST(VKRR_X_HWT)
#undef VKRR_X_HWT
    VKRR_HWT_COUNT
} vkrr_hw_table_id;

/* The file name of a table (without .xz), and the bytes it must have
 * decompressed (0: any multiple of 8, possibly none: the exception lists). */
const char *vkrr_hw_table_name(vkrr_hw_table_id id);
size_t vkrr_hw_table_bytes(vkrr_hw_table_id id);
/* The exceptions list of a delta table: sorted (j, hw bits) pairs for the
 * grid points whose hardware value an int8 delta cannot hold (the table
 * then holds the delta saturated at +-127; sin/cos: 127 or -127, README);
 * VKRR_HWT_COUNT for a table that is no delta table. */
vkrr_hw_table_id vkrr_hw_table_exceptions(vkrr_hw_table_id delta);

typedef struct vkrr_hw_tables vkrr_hw_tables;

/* The sm_90 set built into the binary. */
vkrr_status vkrr_hw_tables_open_shipped(vkrr_hw_tables **out, vkrr_error *err);
/* A set in a folder (tables.tsv and NAME.xz files).  VKRR_ERR_MISSING when
 * the folder has no tables.tsv; a malformed manifest names its line. */
vkrr_status vkrr_hw_tables_open_dir(const char *dir, vkrr_hw_tables **out, vkrr_error *err);
void vkrr_hw_tables_close(vkrr_hw_tables *t); /* accepts NULL */

const char *vkrr_hw_tables_arch(const vkrr_hw_tables *t);   /* "sm_90" */
const char *vkrr_hw_tables_device(const vkrr_hw_tables *t); /* the manifest's device line, or "" */
const char *vkrr_hw_tables_origin(const vkrr_hw_tables *t); /* "built in" or the folder */

/* Delta table id (an int8 a grid point) packed to 2 bits a point, four a
 * byte (point j in bits 2 (p mod 4) of byte p / 4, p = vkrr_hw_delta2_pos(j)):
 * 0, 1 and 2 are the deltas -1, 0 and +1, 3 says "another: read the table
 * itself" (the H200's ex2 and rcp tables hold -1..+1 but for 1 % of ex2's
 * negative one).  A warp's lanes read these at scattered points: a quarter
 * of the bytes stays in the cache.  Built on first use; NULL where the
 * table cannot be had or its length is not a multiple of 2^23.
 * Thread-safe. */
const uint8_t *vkrr_hw_tables_delta2(vkrr_hw_tables *t, vkrr_hw_table_id id);

/* Where point j sits in vkrr_hw_tables_delta2's copy: its low 23 bits
 * rotated by 13.  An f16 value as f32 (an activation, most often) has at
 * most 10 fraction bits, so its grid point's low 13 bits are zero: in j's
 * own order a warp's points lie 2 KiB apart, each in a line of its own and
 * all in two of the L1 cache's sets, so every look-up missed; rotated,
 * 1024 such points share four lines.  Points with no such zeros are
 * scattered either way. */
static inline uint32_t vkrr_hw_delta2_pos(uint32_t j)
{
    return (j & ~UINT32_C(0x7fffff)) | (j & 0x1fffu) << 10 | (j >> 13 & 0x3ffu);
}

/* The hash tables.tsv records for a table (vkrr_fnv1a64w of its bytes). */
uint64_t vkrr_hw_tables_hash(const vkrr_hw_tables *t, vkrr_hw_table_id id);
/* The set's identity: the hash of its tables.tsv (which holds every table's). */
uint64_t vkrr_hw_tables_set_hash(const vkrr_hw_tables *t);
/* Entries of delta table id that the measurement saturated at +-127 and
 * kept no value for ("cut TABLE N" in tables.tsv): there the hardware is
 * at least 127 ULP off and its value is not known, so the model's value is
 * a stand-in (the sm_90 set's lg2 table, src/hw/README.md).  0: none. */
uint64_t vkrr_hw_tables_cut(const vkrr_hw_tables *t, vkrr_hw_table_id id);

/* A simulated GPU's value that no table holds: "deviate FORM 0xIN 0xOUT"
 * in tables.tsv says the f32 form FORM (measure.h's op 0..14, by name)
 * returns OUT at the input bits IN, whatever the law says.  Only a test's
 * set has them (tests/test_hw_sim.c: a GPU that breaks laws, which
 * `vkrr hw measure` must find); a measurement never writes one, since a
 * law that fails means the tables cannot hold the value.  The model
 * returns them (approx.c) unless ignored. */
#define VKRR_HW_MAX_DEVIATIONS 64
typedef struct vkrr_hw_deviation {
    unsigned form;   /* 0..14 */
    uint32_t in, out;
} vkrr_hw_deviation;
bool vkrr_hw_tables_deviation(const vkrr_hw_tables *t, unsigned form, uint32_t in, uint32_t *out);
unsigned vkrr_hw_tables_deviations(const vkrr_hw_tables *t, const vkrr_hw_deviation **list);
/* Whether vkrr_hw_tables_deviation can return a value for form (a warp's
 * lanes then need not ask it each). */
bool vkrr_hw_tables_form_deviates(const vkrr_hw_tables *t, unsigned form);
/* From now on the model of t follows its laws everywhere (the deviations
 * are no longer returned): what a sampled `hw measure` checks against. */
void vkrr_hw_tables_ignore_deviations(vkrr_hw_tables *t);

/* The texture unit's bilinear weights: their fraction bits ("texfilter_bits
 * N" in tables.tsv, which `vkrr hw measure`'s texture survey writes; 8, as
 * on sm_90, when absent).  src/hw/texfilter.h. */
#define VKRR_HW_TEX_BITS_MIN 2
#define VKRR_HW_TEX_BITS_MAX 12
unsigned vkrr_hw_tables_tex_bits(const vkrr_hw_tables *t);

/* One line per table with cut entries, each starting with indent: what
 * they are and what makes them whole (`hw list`, `info`); and a line each
 * for weight bits other than 8 and for deviate lines. */
void vkrr_hw_tables_print_cuts(const vkrr_hw_tables *t, FILE *f, const char *indent);

/* The bytes tables.tsv records for a table (decompressed). */
size_t vkrr_hw_tables_size(const vkrr_hw_tables *t, vkrr_hw_table_id id);

/* The decompressed table (lazily); NULL when it cannot be had. */
const void *vkrr_hw_tables_get(vkrr_hw_tables *t, vkrr_hw_table_id id, size_t *bytes);
/* The first error get() met; false when none. */
bool vkrr_hw_tables_error(vkrr_hw_tables *t, vkrr_error *err);

/* The manifest line of a table: "table\tNAME\tBYTES\tHASH\n" for data of
 * `bytes` bytes (what `vkrr hw measure` writes beside NAME.xz). */
void vkrr_hw_tables_manifest_line(vkrr_hw_table_id id, const void *data, size_t bytes,
                                  char *line, size_t cap);

/* The forms the tables describe, as the measurement kernel numbers them
 * (src/hw/ptx/measure.ptx), and their names (a set's deviate lines name
 * them too). */
enum {
    VKRR_HWOP_F32_COUNT = 15,   /* 0..14: f16_inputs.u32's rows */
    VKRR_HWOP_EX2_F16 = 15,
    VKRR_HWOP_TANH_F16 = 16,
    VKRR_HWOP_EX2_BF16 = 17,    /* ex2.approx.ftz.bf16, sm_90 and later */
    VKRR_HWOP_TANH_BF16 = 18,
    VKRR_HWOP_COUNT = 19
};
/* "ex2.approx.ftz.f32", ... */
const char *vkrr_hw_op_name(unsigned op);

#ifdef __cplusplus
}
#endif

#endif
