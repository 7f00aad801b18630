/* validate_report.h - how validate results are shown: a table for people,
 * one JSON document for scripts ("launches" array; per launch "sequence",
 * "kernel", "frame", "occurrence", "status", "resources" [{"offset", "kind",
 * "type", "exact_pct", "max_abs", "max_ulp", "psnr", "nmse",
 * "nan_mismatches", "metrics": {every metric}, ...}]).  PSNR of identical data
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
} vkrr_report_info;

void vkrr_report_table_header(FILE *f, bool rerun);
void vkrr_report_table_row(FILE *f, const vkrr_launch_result *r, bool rerun);
void vkrr_report_json(FILE *f, const vkrr_report_info *info, const vkrr_launch_result *res,
                      uint32_t n);

#endif
