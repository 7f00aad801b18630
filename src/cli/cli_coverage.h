/* cli_coverage.h - --coverage for rerun and validate --ref ptx: gathered
 * from the backend that ran the original kernels (with coverage on), once
 * per kernel of the results, printed after the summary, and given to the
 * reports through vkrr_report_info.coverage. */
#ifndef VKRR_CLI_COVERAGE_H
#define VKRR_CLI_COVERAGE_H

#include <stdint.h>
#include <stdio.h>

#include "replay.h"
#include "validate.h"
#include "validate_report.h"

/* One entry per kernel of res that be has (in first-launch order); NULL
 * (and *count 0) when be keeps no coverage.  Free with vkrr_cli_coverage_free. */
vkrr_kernel_coverage *vkrr_cli_coverage(const vkrr_backend *be, const vkrr_launch_result *res,
                                        uint32_t n, uint32_t *count);
/* "coverage: K: branches: 41 of 48 directions taken; instructions: 310 of 352 ran",
 * then each direction and span none reached, at its PTX (and source) line. */
void vkrr_cli_coverage_print(FILE *f, const vkrr_kernel_coverage *c, uint32_t n);
void vkrr_cli_coverage_free(vkrr_kernel_coverage *c, uint32_t n); /* accepts NULL */

#endif
