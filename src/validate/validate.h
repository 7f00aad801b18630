/* validate.h - one captured launch replayed on a port and compared.
 *
 * What is compared: every allocation that has a post-launch dump, and every
 * surface.  A buffer output that a describe function knows (the window a
 * layer writes in an arena, in its own type) is compared as that window; the
 * rest of the allocation must be byte-identical, so a port that writes outside
 * its window is caught.  A buffer no describe function knows is compared whole
 * as opts.buffer_dtype.  A surface is compared in its array format's type,
 * texels the port never wrote (left at the sentinel) counted.
 *
 * With a rerun backend (the original kernels on the CPU or through libcuda),
 * the same inputs run there too, and every resource gets two more
 * comparisons: port vs rerun and rerun vs capture.  A rerun that disagrees
 * with its own capture means the capture or the replay is wrong.
 *
 *     vkrr_launch_result r;
 *     vkrr_validate_launch(&opts, cap, &cap->launches[i], &r, &err);
 *     ... r.status, r.res[k].port ...
 *     vkrr_launch_result_free(&r);
 *
 * With opts.perturb naming this launch, the port's outputs (described
 * windows and surfaces) are moved by the perturbation before comparing, in
 * both modes, so the launch shows as the culprit it was made into.
 *
 * Errors (returned) are bad input only (a dump missing or of the wrong size):
 * a port that fails, times out or has no shader is a result, not an error.
 */
#ifndef VKRR_VALIDATE_H
#define VKRR_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "compare.h"
#include "replay.h"
#include "perturb.h"
#include "view.h"

typedef enum vkrr_launch_status {
    VKRR_LAUNCH_PASS = 0,
    VKRR_LAUNCH_FAIL,
    VKRR_LAUNCH_NO_PORT,
    VKRR_LAUNCH_TIMEOUT,
    VKRR_LAUNCH_ERROR, /* the backend failed on this launch (device error) */
} vkrr_launch_status;

const char *vkrr_launch_status_name(vkrr_launch_status s); /* "PASS", "NO PORT", ... */

typedef struct vkrr_resource_result {
    vkrr_image_kind kind;       /* buffers are reported as "buffer" */
    bool is_buffer;
    uint32_t offset;            /* argument offset naming the resource */
    uint64_t base;              /* buffers: allocation base address */
    vkrr_view view;             /* the window compared */
    vkrr_metrics port;          /* port vs capture */
    uint64_t outside_diff;      /* buffers: differing bytes outside the compared windows */
    bool has_rerun;
    vkrr_metrics port_vs_rerun; /* port vs the original kernel rerun */
    vkrr_metrics rerun_vs_capture;
    bool pass;                  /* port vs capture within tolerance, nothing outside */
    char heatmap[1024];         /* path of its heatmap PNG, "" when none */
    /* chained mode (validate_chain.h): the same resource when the launch read
     * what the port's own earlier launches wrote */
    bool has_chained;
    vkrr_metrics chained;
    uint64_t chained_outside_diff;
    bool chained_pass;
    char chained_heatmap[1024];
} vkrr_resource_result;

typedef struct vkrr_launch_result {
    const vkrr_launch *launch;
    vkrr_launch_status status;
    char note[512];             /* why a launch is TIMEOUT/ERROR/NO PORT, rerun troubles */
    vkrr_resource_result *res;
    uint32_t nres;
    int worst;                  /* index into res of the worst resource, -1 when none */
    bool rerun;                 /* a rerun ran */
    bool rerun_matches_capture; /* every resource's rerun within tolerance of the capture */
    double seconds;             /* wall time of the port's run */
    bool has_isolated;          /* status/res[].port are meaningful (false: chained only) */
    bool has_chained;           /* chained_* and res[].chained are meaningful */
    vkrr_launch_status chained_status;
    int chained_worst;          /* index into res by chained metrics, -1 when none */
    bool chained_exact;         /* every chained resource bit-identical to the capture */
    bool chained_reused;        /* chained = isolated: the same inputs, not dispatched again */
    bool perturbed;             /* --perturb hit this launch */
} vkrr_launch_result;

typedef struct vkrr_validate_opts {
    const vkrr_backend *port;
    const vkrr_backend *rerun;     /* NULL: none */
    const vkrr_tol_rules *rules;   /* NULL: per-dtype defaults */
    vkrr_describe_fn describe;     /* NULL: buffers compared whole */
    vkrr_dtype buffer_dtype;       /* undescribed buffers; 0 (BYTES) means exact bytes */
    const char *heatmap_dir;       /* NULL: no heatmaps */
    bool heatmaps_all;             /* every resource, not only failing ones */
    const vkrr_perturb *perturb;   /* NULL: none; applied to the port's output */
} vkrr_validate_opts;

vkrr_status vkrr_validate_launch(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                 const vkrr_launch *l, vkrr_launch_result *out,
                                 vkrr_error *err);
void vkrr_launch_result_free(vkrr_launch_result *r);

/* Runs the port on a replay the caller built (chained mode substitutes the
 * pre contents), perturbs its output when asked, and compares it with the
 * capture's dumps of l.  No rerun.  chained: heatmaps get a "-chained" name.
 * The result's res[].port holds the metrics; the caller moves them. */
vkrr_status vkrr_validate_replay(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                 const vkrr_launch *l, vkrr_replay *r, bool chained,
                                 vkrr_launch_result *out, vkrr_error *err);

/* Compares a candidate's outputs (cand->allocs[].post, cand->images[].post,
 * laid out like l) with the capture's dumps of l: the windows and per-resource
 * metrics of vkrr_validate_launch.  `vkrr diff` passes another capture's dumps.
 * Sets out->status PASS/FAIL and worst. */
vkrr_status vkrr_validate_compare(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                  const vkrr_launch *l, const vkrr_replay *cand,
                                  vkrr_launch_result *out, vkrr_error *err);

#endif
