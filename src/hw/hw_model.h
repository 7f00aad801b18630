/* hw_model.h - which hardware model a run uses, and naming it.
 *
 * A model is what vkrr takes the approximate instructions to be
 * (approx.h): the laws over one architecture's measured tables
 * (hw_tables.h), or `rounded`, the correctly rounded values (what vkrr did
 * before it measured a GPU, kept for comparison).  One model is current in
 * the process; every backend reads it.
 *
 *     vkrr_hw_model *m;
 *     vkrr_hw_choice c = {.approx = "auto", .capture_arch = "sm_90"};
 *     if (vkrr_hw_model_open(&c, &m, &err) != VKRR_OK) ...;
 *     vkrr_hw_use(m);                         // before any backend runs
 *     printf("%s\n", vkrr_hw_model_name(m));  // "sm_90, measured"
 *     ...
 *     vkrr_hw_use(NULL);
 *     vkrr_hw_model_close(m);
 *
 * Choosing (vkrr_hw_model_open): approx "rounded" is rounded; "sm_NN" the
 * tables of that architecture (an error when none are found); NULL or
 * "auto" the capture's architecture (capture_arch, from run.log's device
 * line) when tables for it are found, else sm_90's, with a note saying so.
 * Tables are looked for, in order, in tables_dir (--hw-tables DIR: a set, or
 * a folder of sets named sm_NN), in $XDG_DATA_HOME/vkrr/hw/sm_NN
 * (~/.local/share when unset: where `vkrr hw measure` output goes to be
 * found), and built in (sm_90).
 *
 * Without vkrr_hw_use, the current model is sm_90's built-in tables.
 * Thread-safety: vkrr_hw_use while a backend runs is a programmer error.
 * Ownership: the caller closes what it opened, after vkrr_hw_use(NULL).
 */
#ifndef VKRR_HW_MODEL_H
#define VKRR_HW_MODEL_H

#include <stdbool.h>

#include "hw_tables.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkrr_hw_model vkrr_hw_model;

typedef struct vkrr_hw_choice {
    const char *approx;       /* NULL/"auto", "rounded", "sm_NN" (--approx) */
    const char *capture_arch; /* "sm_90" from the capture, NULL: not recorded */
    const char *tables_dir;   /* --hw-tables DIR, NULL: none */
} vkrr_hw_choice;

vkrr_status vkrr_hw_model_open(const vkrr_hw_choice *c, vkrr_hw_model **out, vkrr_error *err);
void vkrr_hw_model_close(vkrr_hw_model *m); /* accepts NULL */

/* "sm_90, measured" or "rounded"; what every report header shows. */
const char *vkrr_hw_model_name(const vkrr_hw_model *m);
/* Why this model when it is not the capture's own ("" when it is): "the
 * capture's GPU (sm_86) has no measured tables: sm_90's used". */
const char *vkrr_hw_model_note(const vkrr_hw_model *m);
/* The tables (NULL for rounded). */
vkrr_hw_tables *vkrr_hw_model_tables(const vkrr_hw_model *m);
bool vkrr_hw_model_rounded(const vkrr_hw_model *m);
/* The architecture the model stands for ("sm_86"): the capture's or
 * --approx's even where its tables are sm_90's ("" when rounded).  What the
 * tensor cores' sums follow (cuda_ref/ptx/isa/ptx_mma_sum.c). */
const char *vkrr_hw_model_arch(const vkrr_hw_model *m);

/* The process's current model (NULL: back to the default). */
void vkrr_hw_use(vkrr_hw_model *m);
vkrr_hw_model *vkrr_hw_current(void);

/* "sm_90" from a compute capability ("9.0", 9, 0). */
void vkrr_hw_arch_name(int major, int minor, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
