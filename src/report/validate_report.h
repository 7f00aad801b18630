/* validate_report.h - how validate results are shown: a table for people,
 * one JSON document for scripts ("launches" array; per launch "sequence",
 * "kernel", "frame", "occurrence", "status", "resources" [{"offset", "kind",
 * "type", "exact_pct", "max_abs", "max_ulp", "psnr", "nmse",
 * "nan_mismatches", "metrics": {every metric}, ...}]).  Chained mode adds,
 * per launch, "chained_status", "chained_exact", "role" ("culprit",
 * "amplifier", ""), "chained" ("same as isolated": the chained inputs were
 * the captured ones and the isolated result bit-exact, so it was not run again;
 * else "dispatched") and, per resource, "chained": {"pass", "exact_pct",
 * "max_abs", "max_ulp", "psnr", "nmse", "heatmap", "metrics"}; a
 * chained-only run has "status": null.  "summary" counts the statuses, the
 * port's "dispatches" and the "chained_reused" launches.  The summary gains "bisect":
 * {"first_divergence": sequence or null, "class", "upstream": sequence or null}.  PSNR of identical data
 * is infinite; JSON has no infinity, so it is written as null. */
#ifndef VKRR_VALIDATE_REPORT_H
#define VKRR_VALIDATE_REPORT_H

#include <stdio.h>

#include "validate.h"

typedef struct vkrr_report_info {
    const char *capture;
    const char *port;        /* backend name */
    const char *device;      /* device name or NULL */
    const char *reference;   /* "capture", "cpu", "cuda" */
    unsigned counts[VKRR_LAUNCH_ERROR + 1];
    const char *mode;        /* "isolated", "chained", "both" */
    const char *perturb;     /* the --perturb text, or NULL */
    unsigned dispatches;     /* launches the port ran (both modes together) */
} vkrr_report_info;

/* Worst ULP/PSNR of a launch in one mode (for the table, HTML and JUnit). */
void vkrr_report_launch_worst(const vkrr_launch_result *r, bool chained, int64_t *max_ulp,
                              double *psnr, double *max_abs);
void vkrr_report_fmt_num(char *buf, size_t cap, double v);

/* chained: add the chained columns (max ULP, PSNR, status, role). */
void vkrr_report_table_header(FILE *f, bool rerun, bool chained);
void vkrr_report_table_row(FILE *f, const vkrr_launch_result *r, bool rerun, bool chained);
void vkrr_report_json(FILE *f, const vkrr_report_info *info, const vkrr_launch_result *res,
                      uint32_t n);

/* DIR/index.html: one self-contained page (inline CSS and SVG, no script,
 * nothing fetched): summary, bisect verdict, the error profile over launch
 * order (max ULP and PSNR per launch on log scales, isolated and chained, the
 * first divergence marked), the per-launch table, heatmap thumbnails linking
 * to the PNGs (linked relative to DIR when they lie under it, else copied
 * into DIR/heatmaps).  Written atomically (temp name, rename). */
vkrr_status vkrr_report_html_write(const char *dir, const vkrr_report_info *info,
                                   const vkrr_launch_result *res, uint32_t n, vkrr_error *err);
/* JUnit XML: one <testcase> per launch, classname = kernel, name =
 * "seq N frame F occ O"; a <failure> with the metrics when isolated or
 * chained is out of tolerance.  Atomic. */
vkrr_status vkrr_report_junit_write(const char *path, const vkrr_report_info *info,
                                    const vkrr_launch_result *res, uint32_t n, vkrr_error *err);

#endif
