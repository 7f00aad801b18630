/* compare.h - metrics of one compared resource and the pass/fail decision.
 *
 * Usage:
 *     vkrr_tol_rules *rules = NULL;
 *     if (vkrr_compare_tol_load(&rules, path_or_NULL, &err) != VKRR_OK) ...;
 *     vkrr_compare_tol_set_flags(rules, &(vkrr_tol_override){.has_atol = true, .atol = 1e-3});
 *     vkrr_tolerance tol = vkrr_compare_tol_resolve(rules, kernel, occurrence, arg_offset, view.dtype);
 *     vkrr_metrics m;
 *     if (vkrr_compare(&view, ref, cand, resource_bytes, &tol, &m, &err) != VKRR_OK) ...;
 *     if (!m.pass) ...;                       // vkrr_compare_pass(&m) says the same
 *     vkrr_compare_tol_destroy(rules);
 *
 * A view's window is contiguous (planes back to back, rows packed), so it is
 * compared as one run of elements; the view only turns an element index into
 * (x, y, plane, channel).  A whole buffer is a flat view: vkrr_compare_flat_view().
 *
 * Order of classification of one element (each element lands in one class):
 *   1. unwritten: the candidate element is all VKRR_SENTINEL_BYTE and the
 *      reference element is not (the port never wrote it);
 *   2. bit-identical, or NaN on both sides (any NaN bits): exact match;
 *   3. NaN on one side only: nan_mismatch; Inf on one side only, or opposite
 *      Infs: inf_mismatch;
 *   4. otherwise numeric: counted in the error statistics, and out_of_tol
 *      when it fails the tolerance.
 * Error statistics (mean abs, RMSE, NMSE, PSNR, max abs) are over the exact
 * and numeric elements; PSNR's peak is max |reference| over finite reference
 * elements; PSNR is +inf when RMSE is 0.  ULPs are in the element's own float
 * type (f16, bf16, f32, e4m3), +0 and -0 being 0 apart; the within-1/4-ULP
 * percentages are of all elements.  A bit-identical window is found first
 * with memcmp and reported as a perfect match without decoding it; its
 * peak, ref_min and ref_max are then 0 (not computed).
 *
 * Tolerance: an element passes when it is exact, or
 *   (atol >= 0 or rtol >= 0) and |ref - cand| <= max(atol,0) + max(rtol,0)*|ref|, or
 *   (a float type and max_ulp >= 0) and its ULP distance <= max_ulp.
 * A negative field is "not used"; all unused means exact only.  A resource
 * passes when it has no unwritten, NaN/Inf mismatching or out-of-tolerance
 * element.  Defaults per dtype (vkrr_tolerance_default):
 *   f16, bf16: max_ulp 2          (RNE stores, a reordered sum or an approximate
 *                                   instruction cost 1-2 ULP)
 *   f32:       max_ulp 4, atol 1e-6, rtol 1e-5 (sums that cancel near zero
 *                                   have huge ULP distances but tiny errors)
 *   e4m3, e5m2: max_ulp 1         (one rounding step)
 *   integers, unorm/snorm, bytes: exact (they are stored bits, not arithmetic)
 *
 * Tolerance file (--tolerance FILE), one rule a line, '#' starts a comment:
 *     KERNEL[#OCC] [argOFF] key=value ...
 *   KERNEL  the kernel's symbol name; '*' matches any run of characters
 *   #OCC    0-based occurrence of the kernel in the capture; absent: any
 *   argOFF  decimal byte offset of the argument (arg16, arg016); arg* or
 *           absent: any argument
 *   keys    atol=X  rtol=X  max_ulp=N  (X >= 0, N an integer >= 0, or "off"
 *           to turn that criterion off)
 * e.g.
 *     *                     max_ulp=4
 *     swin_enc*             atol=1e-3
 *     swin_enc0_kernel#2 arg24 max_ulp=off atol=0.01
 * Precedence: per-dtype default, then the port descriptor's keys for that
 * output (KERNEL.port, src/port/portdesc.h), then every matching rule in
 * file order (a later line overrides only the keys it names), then the global flags
 * (--atol, --rtol, --max-ulp), which override everything.  A malformed line is
 * VKRR_ERR_PARSE naming FILE:LINE.
 *
 * Memory: vkrr_compare allocates nothing.  Rules are owned by the caller and
 * freed with vkrr_compare_tol_destroy (accepts NULL).
 * Does NOT: print, decide what to compare, or know about launches.
 */
#ifndef VKRR_COMPARE_H
#define VKRR_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuformat.h"
#include "hash.h"
#include "status.h"
#include "view.h"

typedef struct vkrr_tolerance {
    double atol;     /* < 0: not used */
    double rtol;     /* < 0: not used */
    int64_t max_ulp; /* < 0: not used; float types only */
} vkrr_tolerance;

vkrr_tolerance vkrr_tolerance_default(vkrr_dtype t);

/* Where an element of a view is. */
typedef struct vkrr_elem_pos {
    uint32_t x, y, plane, channel;
} vkrr_elem_pos;

vkrr_elem_pos vkrr_compare_position(const vkrr_view *v, uint64_t index);

typedef struct vkrr_metrics {
    vkrr_dtype dtype;
    vkrr_tolerance tol;      /* the tolerance applied */
    uint64_t count;          /* elements compared */
    uint64_t exact;          /* bit-identical or NaN on both sides */
    double exact_pct;
    uint64_t unwritten;      /* candidate all sentinel, reference not */
    uint64_t nan_mismatch;
    uint64_t inf_mismatch;
    uint64_t out_of_tol;     /* numeric elements beyond tolerance */
    uint64_t first_bad;      /* index of the first failing element; UINT64_MAX: none */
    double max_abs;          /* over exact and numeric elements */
    uint64_t max_abs_index;  /* UINT64_MAX when max_abs is 0 */
    vkrr_elem_pos max_abs_pos;
    double max_abs_ref, max_abs_cand;
    double mean_abs, rmse, nmse, psnr;
    double peak;             /* max |reference| over finite elements */
    double ref_min, ref_max; /* over finite reference elements; 0 when none */
    int64_t max_ulp;         /* float types; 0 otherwise */
    double within1_ulp_pct, within4_ulp_pct;
    bool pass;
} vkrr_metrics;

/* A flat view of a whole buffer of `bytes` bytes as dtype (trailing bytes
 * that do not fill an element are not covered). */
vkrr_view vkrr_compare_flat_view(vkrr_dtype t, uint64_t bytes);

/* Compares the view's window of two resources of resource_bytes bytes each.
 * tol NULL: the dtype's default.  VKRR_ERR_RANGE when the view does not fit. */
vkrr_status vkrr_compare(const vkrr_view *view, const void *ref, const void *cand,
                         uint64_t resource_bytes, const vkrr_tolerance *tol,
                         vkrr_metrics *out, vkrr_error *err);

/* Hashing the reference while comparing it (the capture log's hash= of a
 * dump, FNV-1a 64, hash.h): h over the reference's bytes [0, pos) so far.
 * Start with {VKRR_FNV1A64_INIT, 0}. */
typedef struct vkrr_hash_cursor {
    uint64_t h;
    uint64_t pos;
} vkrr_hash_cursor;

/* vkrr_compare, folding the reference's bytes from hc->pos to the window's
 * end into hc as it reads them (in slices that stay in cache between hash
 * and compare: one pass over the reference).  The caller hashes what lies
 * between hc->pos and the window's start first; bytes before hc->pos are
 * not hashed again.  hc NULL: vkrr_compare. */
vkrr_status vkrr_compare_hashed(const vkrr_view *view, const void *ref, const void *cand,
                                uint64_t resource_bytes, const vkrr_tolerance *tol,
                                vkrr_hash_cursor *hc, vkrr_metrics *out, vkrr_error *err);

/* The decision: no unwritten, NaN/Inf mismatching or out-of-tolerance element. */
bool vkrr_compare_pass(const vkrr_metrics *m);

/* Per-element |ref - cand| as float into out (view element count entries):
 * 0 for exact elements, +inf for unwritten and NaN/Inf mismatches. */
vkrr_status vkrr_compare_error_map(const vkrr_view *view, const void *ref, const void *cand,
                                   uint64_t resource_bytes, float *out, vkrr_error *err);

/* Every element of the view's window as float (NaN and Inf kept). */
vkrr_status vkrr_compare_decode(const vkrr_view *view, const void *data, uint64_t resource_bytes,
                                float *out, vkrr_error *err);

/* ---- tolerance rules ---- */

typedef struct vkrr_tol_override {
    bool has_atol, has_rtol, has_max_ulp;
    double atol, rtol;   /* negative: turn off */
    int64_t max_ulp;     /* negative: turn off */
} vkrr_tol_override;

typedef struct vkrr_tol_rules vkrr_tol_rules;

/* path NULL: an empty rule set (defaults and flags only). */
vkrr_status vkrr_compare_tol_load(vkrr_tol_rules **out, const char *path, vkrr_error *err);
/* Parses text (len bytes); name is the file name used in errors. */
vkrr_status vkrr_compare_tol_parse(vkrr_tol_rules **out, const char *text, size_t len,
                                   const char *name, vkrr_error *err);
/* Global flags, applied after every rule. */
void vkrr_compare_tol_set_flags(vkrr_tol_rules *rules, const vkrr_tol_override *flags);
/* rules NULL: the dtype's default. */
vkrr_tolerance vkrr_compare_tol_resolve(const vkrr_tol_rules *rules, const char *kernel,
                                        uint32_t occurrence, uint32_t arg_offset,
                                        vkrr_dtype dtype);
/* The same from a base tolerance instead of the dtype's default (a port
 * descriptor's tolerance over the default): rules, then flags, apply on top. */
vkrr_tolerance vkrr_compare_tol_resolve_from(const vkrr_tol_rules *rules, vkrr_tolerance base,
                                             const char *kernel, uint32_t occurrence,
                                             uint32_t arg_offset);
/* What the user gave that decides this output's tolerance, into buf: the
 * matching rules' "FILE:LINE[,LINE...]" and the flags ("--atol" ...) given;
 * false (buf "") when nothing given applies, so the port's or the type's
 * default decides. */
bool vkrr_compare_tol_decided(const vkrr_tol_rules *rules, const char *kernel, uint32_t occurrence,
                              uint32_t arg_offset, char *buf, size_t cap);
void vkrr_compare_tol_destroy(vkrr_tol_rules *rules);
/* Sets in t the fields o has. */
void vkrr_compare_tol_apply(vkrr_tolerance *t, const vkrr_tol_override *o);
/* One "atol=X", "rtol=X" or "max_ulp=N" token (value "off" turns it off)
 * into o; false with a reason in *why.  Shared by the tolerance file and
 * port descriptors, so both read the same keys the same way. */
bool vkrr_compare_tol_setting(const char *tok, vkrr_tol_override *o, const char **why);

/* '*' wildcard match of a whole string. */
bool vkrr_compare_glob(const char *pattern, const char *s);

#endif
