/* validate_report.h - how validate results are shown: a table for people,
 * one JSON document for scripts ("launches" array; per launch "sequence",
 * "kernel", "frame", "occurrence", "status", "resources" [{"offset", "kind",
 * "type", "exact_pct", "max_abs", "max_ulp", "psnr", "nmse",
 * "nan_mismatches", "left_at_pre_launch", "metrics": {every metric}, ...}]).  Chained mode adds,
 * per launch, "chained_status", "chained_exact", "role" ("culprit",
 * "amplifier", ""), "chained" ("same as isolated": the chained inputs were
 * the captured ones and the isolated result bit-exact, so it was not run again;
 * else "dispatched") and, per resource, "chained": {"pass", "exact_pct",
 * "max_abs", "max_ulp", "psnr", "nmse", "outside_window_bytes", "heatmap",
 * "metrics"}; a chained-only run has "status": null, and a resource not
 * compared in isolation "pass": null and "metrics": null (no headline).  With a rerun backend, per launch
 * "role_evidence" ("original", "isolated", "": what decided "role") and
 * "chained_vs_original": {"pass"} or null (the original kernel did not run
 * on its chained inputs), and per resource "chained_vs_original": {"pass",
 * "exact_pct", "max_abs", "max_ulp", "psnr", "nmse", "outside_window_bytes",
 * "metrics"}: the port against the original kernel, both on the chained
 * inputs (chain_ref.h).  A launch that could not be validated
 * has "damaged": true and its reason in "note" (ERROR), or is "SKIPPED"
 * chained ("skipped_for": the sequence of the launch it needed); the summary counts "error" and "skipped", "unreadable",
 * "interrupted" and "launches_total", and "damage" lists the capture's
 * problems no launch owns; mode "both" adds "chained_summary", and the summary counts the port's
 * "dispatches" and the "chained_reused" launches.  The summary gains "bisect":
 * {"first_divergence": sequence or null, "class", "evidence" ("original",
 * "isolated" or null), "upstream": sequence or null, "later_culprits":
 * [sequences of the later launches whose role is "culprit"]}.  "hardware_model":
 * {"name", "note"} names the model of the approximate instructions and the
 * texture filter; per launch "hw_note" (where that model is not exact for
 * it) and "standins" (the approximate instructions a reference computed with
 * a stand-in, compared within the ISA's bound).  PSNR of identical data
 * is infinite; JSON has no infinity, so it is written as null.
 * What `vkrr merge` needs to make one run of shards (results_read.h): at the
 * top "command", "vkrr_version", "capture_id" (vkrr_capture_identity, hex),
 * "capture_launches", "shard": {"index", "count"} or null, "only" (the
 * --only text or null) and "strict"; per launch "worst" and "chained_worst"
 * (the index of the resource the row shows, or null), "rerun",
 * "rerun_matches_capture", and with "skipped_for" also "skipped_for_launch":
 * {"sequence", "kernel", "frame"}.  The file is then all a table row, the
 * summary, the bisect verdict, the HTML page and JUnit are made from. */
#ifndef VKRR_VALIDATE_REPORT_H
#define VKRR_VALIDATE_REPORT_H

#include <stdio.h>

#include "validate.h"

/* --coverage: what the original kernels did over every launch of a run
 * (the ptx backend's coverage): per kernel, its conditional branches'
 * directions and its instructions, with each direction and each span of
 * instructions none reached (lines in the kernel's PTX module; the source's
 * where the PTX carries .loc, with the line's text when the file was at hand). */
typedef struct vkrr_cov_miss {
    bool span;               /* instructions [line0, line1] none reached; else a branch */
    uint32_t line0, line1, count;
    const char *what;        /* a branch: "never reached", "never taken", "never fell through" */
    char src[512];           /* "" when the PTX has no .loc for it */
    uint32_t src_line;
    char text[256];          /* the source line, "" when not at hand */
} vkrr_cov_miss;
typedef struct vkrr_kernel_coverage {
    char kernel[256], module[512];
    uint32_t dirs_taken, dirs_total;   /* branch directions */
    uint32_t ran, instructions;        /* instructions */
    vkrr_cov_miss *miss;               /* branches first, then spans */
    uint32_t nmiss;
} vkrr_kernel_coverage;

typedef struct vkrr_report_info {
    const char *capture;
    const char *command;     /* "validate", "rerun" (JSON "command"; NULL: "validate") */
    const char *version;     /* vkrr's version (JSON "vkrr_version"), NULL: none */
    uint64_t capture_id;     /* vkrr_capture_identity: one capture on any machine (0: none) */
    uint32_t capture_launches; /* launches in the capture, selected or not */
    uint32_t shard, shards;  /* --shard K/N (K 1-based); shards 0: not sharded */
    const char *only;        /* the --only selection as given, space-separated; NULL: all */
    bool strict;             /* --strict: a kernel with no port is a failure */
    const char *backend;     /* the ports' backend, by name (JSON "port") */
    const char *device;      /* device name or NULL */
    const char *reference;   /* "capture", "cpu", "cuda" */
    unsigned counts[VKRR_LAUNCH_STATUS_COUNT];         /* isolated (chained-only: chained) */
    unsigned chained_counts[VKRR_LAUNCH_STATUS_COUNT]; /* mode "both": the chained column */
    const char *mode;        /* "isolated", "chained", "both" */
    const char *perturb;     /* the --perturb text, or NULL */
    unsigned dispatches;     /* launches the port ran (both modes together) */
    uint32_t total;          /* launches in the capture (n is fewer when interrupted) */
    bool interrupted;        /* stopped early (Ctrl-C): the results are the first n */
    unsigned unreadable;     /* launches that could not be validated (damaged, changed, skipped) */
    const vkrr_error *damage;/* the capture's problems no launch owns */
    uint32_t ndamage;
    const char *hw_model;    /* the hardware model's name (src/hw/hw_model.h), NULL: none used */
    const char *hw_note;     /* why that model, "" or NULL */
    const vkrr_kernel_coverage *coverage; /* --coverage, per kernel; NULL: not asked */
    uint32_t ncoverage;
} vkrr_report_info;

/* "hardware model: sm_90, measured (NOTE)" and a newline; nothing when
 * info->hw_model is NULL. */
void vkrr_report_model_line(FILE *f, const vkrr_report_info *info);

/* Worst ULP/PSNR of a launch in one mode (for the table, HTML and JUnit). */
void vkrr_report_launch_worst(const vkrr_launch_result *r, bool chained, int64_t *max_ulp,
                              double *psnr, double *max_abs);
void vkrr_report_fmt_num(char *buf, size_t cap, double v);
/* Chained with a rerun: the worst max ULP of the port against the original
 * kernel on the chained inputs (0 when it did not run). */
int64_t vkrr_report_original_ulp(const vkrr_launch_result *r);

/* chained: add the chained columns (max ULP, PSNR, status, role); rerun
 * and chained: also the port against the original on the chained inputs. */
/* last: the heading of a last column, each row's r->port (validate: "port",
 * the port that ran it; rerun: "compared by", the descriptor), NULL: none. */
void vkrr_report_table_header(FILE *f, bool rerun, bool chained, const char *last);
void vkrr_report_table_row(FILE *f, const vkrr_launch_result *r, bool rerun, bool chained, bool port);
void vkrr_report_json(FILE *f, const vkrr_report_info *info, const vkrr_launch_result *res,
                      uint32_t n);

/* "N PASS, N FAIL, N NO PORT, N TIMEOUT, N ERROR, N SKIPPED" of counts. */
void vkrr_report_counts(char *buf, size_t cap, const unsigned *counts);
/* The JSON document at path, written atomically (whole or absent). */
vkrr_status vkrr_report_json_write(const char *path, const vkrr_report_info *info,
                                   const vkrr_launch_result *res, uint32_t n, vkrr_error *err);

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
