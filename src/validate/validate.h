/* validate.h - one captured launch replayed on a port and compared.
 *
 * What is compared: every allocation that has a post-launch dump, and every
 * surface.  A buffer output the kernel's port descriptor names (KERNEL.port,
 * portdesc.h: the window a layer writes in an arena, in its own type, with
 * its tolerance) is compared as that window; the rest of the allocation must
 * be byte-identical, so a port that writes outside its window is caught.  An
 * allocation no descriptor names is compared whole as opts.buffer_dtype.  A
 * surface is compared in the descriptor's type, else its array format's,
 * texels the port never wrote (left at the sentinel) counted.
 *
 * With a rerun backend (the original kernels on the CPU or through libcuda),
 * the same inputs run there too, and every resource gets two more
 * comparisons: port vs original (isolated_original) and original vs capture
 * (original_capture).  A rerun that disagrees
 * with its own capture means the capture or the replay is wrong.
 *
 *     vkrr_launch_result r;
 *     vkrr_validate_launch(&opts, cap, &cap->launches[i], &r, &err);
 *     ... r.status, r.res[k].isolated.m ...
 *     vkrr_launch_result_free(&r);
 *
 * With opts.perturb naming this launch, the port's outputs (described
 * windows and surfaces) are moved by the perturbation before comparing, in
 * both modes, so the launch shows as the culprit it was made into.
 *
 * Damage is a result too, kept with its launch: a launch whose capture files
 * could not be read (l->damage, or a file that fails when it is mapped) is
 * ERROR with `damaged` set and the file and reason in its note, not run; a
 * launch whose only damage is in its post-launch dumps runs and is compared
 * where it can be, and is ERROR unless what could be compared FAILs.
 *
 * Hashes: with opts.integrity.basis, every compared dump whose log line
 * carries hash= is hashed as it is compared (vkrr_compare_hashed: one pass
 * over the file), and with opts.integrity.stats its nonzero_bytes and f16/f32
 * statistics are checked; a dump that disagrees is marked `changed`, left out of the verdict,
 * and the launch is ERROR "changed since capture" (damaged) unless something
 * else FAILs.  Textures (inputs) are hashed only when the launch would FAIL:
 * a changed texture turns that FAIL into ERROR; a PASS needs no proof that
 * its inputs are CUDA's.
 *
 * The hardware model (src/hw): a launch whose reference (the rerun, or the
 * backend validated, as in `vkrr rerun`) computed an approximate
 * instruction with a stand-in (lg2/tanh off f16 inputs, div.approx, the f64
 * forms) has `standins` set and says so in hw_note; with opts.standin_bounds
 * its comparisons with that reference get the ISA's bound of it as their
 * default tolerance (vkrr_approx_standin_bound), not an exact compare that
 * cries wolf.  A linear-filtered texture of a case not measured on a GPU is
 * named in hw_note too, unless opts.tex_unfiltered shows the kernel reads it
 * only unfiltered.
 *
 * Errors (returned) are only what stops everything (out of memory, misuse, a
 * port descriptor that does not parse or does not fit the launch);
 * a port that fails, times out or has no shader is a result, not an error.
 */
#ifndef VKRR_VALIDATE_H
#define VKRR_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "compare.h"
#include "replay.h"
#include "perturb.h"
#include "portdesc.h"
#include "view.h"

typedef enum vkrr_launch_status {
    VKRR_LAUNCH_PASS = 0,
    VKRR_LAUNCH_FAIL,
    VKRR_LAUNCH_NO_PORT,
    VKRR_LAUNCH_TIMEOUT,
    VKRR_LAUNCH_ERROR, /* the backend failed (device error), or `damaged`: see above */
    VKRR_LAUNCH_SKIPPED, /* chained: it needs what a launch that could not run would have made */
    VKRR_LAUNCH_STATUS_COUNT
} vkrr_launch_status;

const char *vkrr_launch_status_name(vkrr_launch_status s); /* "PASS", "NO PORT", ... */

/* One resource compared once: a candidate against a reference, in one pass. */
typedef struct vkrr_comparison {
    bool done;                  /* this comparison was made */
    vkrr_metrics m;
    uint64_t outside;           /* buffers: bytes outside the compared windows that differ */
    bool pass;                  /* m within tolerance and nothing outside differs */
    char heatmap[1024];         /* its heatmap PNG, "" when none */
} vkrr_comparison;

/* A resource of a launch and every comparison of it, one member a pass.
 * Isolated: from the captured inputs; chained: from what the port's earlier
 * launches wrote (validate_chain.h).  "original": the original kernel run on
 * the same inputs by a rerun backend (cpu, ptx, cuda). */
typedef struct vkrr_resource_result {
    vkrr_image_kind kind;       /* buffers are reported as "buffer" */
    bool is_buffer;
    uint32_t offset;            /* argument offset naming the resource */
    uint64_t base;              /* buffers: allocation base address */
    vkrr_view view;             /* the window compared */
    bool changed;               /* its dump disagrees with the log's hash=: not judged */
    bool output;                /* what the launch writes: a surface, or a window its port
                                 * descriptor describes (not an input compared whole) */
    uint64_t unchanged;         /* a failing described window of the isolated pass:
                                   elements the port left at the pre-launch bytes where
                                   the capture changed them, a buffer's "unwritten" */
    uint64_t cuda_unchanged;    /* the other side: elements CUDA left at the pre-launch
                                   bytes where the port wrote something else */
    vkrr_comparison isolated;          /* the port vs the capture */
    vkrr_comparison isolated_original; /* the port vs the original, same inputs */
    vkrr_comparison original_capture;  /* the original vs the capture */
    vkrr_comparison chained;           /* the port vs the capture, chained inputs */
    vkrr_comparison chained_original;  /* the port vs the original on the chained
                                        * inputs, in the port's tolerance: out of it,
                                        * the port itself is wrong at this launch */
} vkrr_resource_result;

/* Chained mode: where one texture of a launch came from. */
typedef struct vkrr_chain_feed {
    uint32_t arg;               /* the texture's argument offset */
    const vkrr_launch *from;    /* the launch whose surface it read; NULL: the capture */
    uint32_t from_arg;          /* that surface's argument offset */
    vkrr_link_how how;          /* how the link is known (NONE when from is NULL) */
    bool unknown;               /* from the capture, though an earlier launch of its segment
                                 * may have written it (vkrr_texture_link.unknown) */
    uint32_t nalike;            /* other surfaces of `from` with equal dumps (their offsets) */
    uint32_t alike_arg[VKRR_LINK_ALIKE_MAX];
} vkrr_chain_feed;

typedef struct vkrr_launch_result {
    const vkrr_launch *launch;
    vkrr_launch_status status;
    bool damaged;               /* ERROR (or, chained, SKIPPED) because the capture could not
                                 * be read or changed since capture: exit 2, not a failure */
    char note[1024];            /* why a launch is TIMEOUT/ERROR/NO PORT/SKIPPED, rerun troubles */
    char port[512];             /* the port that ran it: its file ("ports/down.comp") or
                                 * "built-in"; "" when none (NO PORT) or not asked */
    vkrr_resource_result *res;
    uint32_t nres;
    int worst;                  /* index into res of the worst resource, -1 when none */
    bool rerun;                 /* a rerun ran */
    bool rerun_failed;          /* the rerun backend could not run the original (note: why) */
    bool rerun_matches_capture; /* every resource's rerun within tolerance of the capture */
    double seconds;             /* wall time of the port's run */
    bool has_isolated;          /* status, worst and res[].isolated* are meaningful (false:
                                 * chained only) */
    bool has_chained;           /* chained_* and res[].chained* are meaningful */
    vkrr_launch_status chained_status;
    int chained_worst;          /* index into res by chained metrics, -1 when none */
    bool chained_exact;         /* every chained resource bit-identical to the capture */
    bool chained_reused;        /* chained = isolated: the same inputs, not dispatched again */
    bool perturbed;             /* --perturb hit this launch */
    bool ran;                   /* the port ran it: its outputs exist (chained mode keeps them) */
    bool chained_original_ran;  /* the original kernel ran on the chained inputs too (or,
                                 * chained_reused, isolated's rerun stands for it):
                                 * res[].chained_original hold the comparison */
    bool chained_original_pass; /* every resource within tolerance of it */
    const vkrr_launch *skipped_for; /* chained SKIPPED: the launch that could not be read */
    uint64_t chain_gap;         /* chained: the chain restarted from the capture here, after
                                 * this many launches without a replay folder (0: it did not) */
    vkrr_chain_feed *feeds;     /* chained: how each texture was fed (malloc'd; nfeeds) */
    struct vkrr_sampler_fit *fit; /* the sampler state found for textures the log does not
                                 * give (sampler_fit.h; malloc'd, NULL: none needed) */
    uint32_t nfeeds;
    unsigned standins;          /* VKRR_STANDIN_* (src/hw/approx.h) a reference computed with:
                                 * its comparisons were within the ISA's bound (see opts) */
    char hw_note[1024];         /* where the hardware model is not exact for this launch:
                                 * stand-ins, texture filtering not measured; "" when exact */
    char *printed;              /* what the kernel printed (printf) when a backend that runs
                                 * the original (ptx) ran it; malloc'd, NULL when nothing */
} vkrr_launch_result;

typedef struct vkrr_validate_opts {
    const vkrr_backend *port_backend; /* runs the ports (vulkan) */
    const vkrr_backend *rerun;     /* runs the original kernels; NULL: none */
    const vkrr_backend *original;  /* runs the original kernels to find the sampler state the
                                    * log does not give (sampler_fit.h); NULL: rerun's */
    const vkrr_tol_rules *rules;   /* NULL: per-dtype defaults */
    vkrr_portdesc_set *descs;      /* port descriptors; NULL: buffers compared whole */
    vkrr_dtype buffer_dtype;       /* undescribed buffers; 0 (BYTES) means exact bytes */
    const char *heatmap_dir;       /* NULL: no heatmaps */
    bool heatmaps_all;             /* every resource, not only failing ones */
    bool dump_values;              /* a heatmap's table: every value, not the worst few hundred */
    const vkrr_perturb *perturb;   /* NULL: none; applied to the port's output */
    vkrr_capture_integrity integrity; /* how dumps are checked against the log's hash= and
                                    * statistics (see above); zero: not at all */
    bool standin_bounds;           /* an output of a backend that used a stand-in for an
                                    * approximate instruction (replay.standins) is compared
                                    * within the PTX ISA's bound of that instruction, at least
                                    * (set when no tolerance was given) */
    const struct vkrr_tex_unfiltered *tex_unfiltered; /* textures the kernels' PTX never
                                    * filters: no "not measured" note (tex_unfiltered.h);
                                    * NULL: none proven */
} vkrr_validate_opts;

vkrr_status vkrr_validate_launch(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                 const vkrr_launch *l, vkrr_launch_result *out,
                                 vkrr_error *err);
/* The sampler state of l's textures the log does not give, found by
 * running the original (opts.original, else opts.rerun; sampler_fit.h). */
vkrr_status vkrr_validate_fit_sampler(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                      const vkrr_launch *l, struct vkrr_sampler_fit *fit,
                                      vkrr_error *err);
void vkrr_launch_result_free(vkrr_launch_result *r);

/* After an isolated comparison: for each failing buffer window with
 * elements the port left equal to their pre-launch bytes (res[].unchanged),
 * runs the port again from those windows' bytes inverted and keeps the count
 * of those that held the starting bytes both times (validate_left.c).  pr:
 * the first run (its outputs still there). */
vkrr_status vkrr_validate_confirm_left(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                       const vkrr_launch *l, const vkrr_replay *pr,
                                       vkrr_launch_result *out, vkrr_error *err);
/* How a surface's texels are compared when no descriptor names it: its
 * CUDA array's format and shape. */
vkrr_view vkrr_surface_view(const vkrr_image *im);
/* Fills r->hw_note for l and r->standins (called by every comparison). */
void vkrr_validate_hw_note(vkrr_launch_result *r, const vkrr_validate_opts *o, const vkrr_launch *l);
/* "; "-separated: adds one sentence to r->note (cut when it is full). */
void vkrr_launch_note(vkrr_launch_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Keeps what the kernel printed in this run of r (the first backend that
 * printed), and notes a run in a slower engine than asked (the PTX JIT's
 * fallback). */
void vkrr_launch_keep_run(vkrr_launch_result *out, const vkrr_replay *r);
/* Notes that r, larger than the memory limit, ran streamed (bulk.h) on the
 * backend of that name (vulkan: also in slices). */
void vkrr_launch_note_streamed(vkrr_launch_result *out, const vkrr_replay *r, const char *backend);
/* r becomes ERROR, damaged, its note naming e (and how many more problems). */
void vkrr_launch_set_damaged(vkrr_launch_result *r, const vkrr_error *e, uint32_t more);
/* True for a status that says the launch's input could not be read (exit 2),
 * as opposed to what stops everything (out of memory, internal errors). */
bool vkrr_validate_unreadable(vkrr_status s);

/* After a FAIL with opts.integrity: true when a texture l read from the
 * capture (from_capture[i], or every texture when NULL) disagrees with its
 * hash=; then out is ERROR "changed since capture".  The check reads those
 * dumps (a second read, paid only by failing launches). */
bool vkrr_validate_inputs_changed(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                  const vkrr_launch *l, const bool *from_capture,
                                  vkrr_launch_result *out);

/* Runs the port on a replay the caller built (chained mode substitutes the
 * pre contents), perturbs its output when asked, and compares it with the
 * capture's dumps of l.  rerun: the outputs of the original kernel run on
 * the same inputs (NULL: none), compared with the port's into
 * res[].isolated_original (chained: res[].chained_original; no original vs
 * capture).
 * chained: heatmaps get a "-chained" name, and out (a fresh result: its
 * status and worst are the chained pass's) holds the comparisons in
 * res[].chained and res[].chained_original; the caller merges them. */
vkrr_status vkrr_validate_replay(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                 const vkrr_launch *l, vkrr_replay *r, const vkrr_replay *rerun,
                                 bool chained, vkrr_launch_result *out, vkrr_error *err);

/* Runs backend be on r.  A backend failure is a result: *status TIMEOUT,
 * NO PORT or ERROR, with the backend's message in note; only bad input the
 * backend names returns an error.  PASS: it ran. */
vkrr_status vkrr_validate_run(const vkrr_backend *be, vkrr_replay *r, vkrr_launch_status *status,
                              char *note, size_t note_cap, vkrr_error *err);

/* Compares a candidate's outputs (cand->allocs[].post, cand->images[].post,
 * laid out like l) with the capture's dumps of l: the windows and per-resource
 * metrics of vkrr_validate_launch.  `vkrr diff` passes another capture's dumps.
 * Sets out->status PASS/FAIL and worst. */
vkrr_status vkrr_validate_compare(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                  const vkrr_launch *l, const vkrr_replay *cand,
                                  vkrr_launch_result *out, vkrr_error *err);

#endif
