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
} vkrr_launch_result;

typedef struct vkrr_validate_opts {
    const vkrr_backend *port;
    const vkrr_backend *rerun;     /* NULL: none */
    const vkrr_tol_rules *rules;   /* NULL: per-dtype defaults */
    vkrr_describe_fn describe;     /* NULL: buffers compared whole */
    vkrr_dtype buffer_dtype;       /* undescribed buffers; 0 (BYTES) means exact bytes */
    const char *heatmap_dir;       /* NULL: no heatmaps */
    bool heatmaps_all;             /* every resource, not only failing ones */
} vkrr_validate_opts;

vkrr_status vkrr_validate_launch(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                 const vkrr_launch *l, vkrr_launch_result *out,
                                 vkrr_error *err);
void vkrr_launch_result_free(vkrr_launch_result *r);

#endif
