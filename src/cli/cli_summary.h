/* cli_summary.h - what `vkrr validate` prints after its table, from the
 * results alone, so that `vkrr merge` prints the same for shards merged:
 * the summary lines, then what could not be validated, the first failing
 * launch, frames a broken history link left out and the bisect verdict. */
#ifndef VKRR_CLI_SUMMARY_H
#define VKRR_CLI_SUMMARY_H

#include <stdio.h>

#include "validate_report.h"
#include "validate_run.h"
#include "cli.h"

typedef struct vkrr_cli_summary {
    const vkrr_run *run;       /* res[0 .. done), counts, bisect, interrupted */
    uint32_t nsel;             /* launches selected (shown when all are done) */
    bool iso, chn, bisect;     /* the run's modes (bisect: no summary lines) */
    uint32_t capture_damage;   /* the capture's problems no launch owns */
} vkrr_cli_summary;

/* "summary: N launches: COUNTS -> VERDICT" (and the chained counts). */
void vkrr_cli_summary_lines(FILE *f, const vkrr_cli_summary *s);
/* Not validated, first failing launch, broken frames, bisect verdict. */
void vkrr_cli_summary_details(FILE *f, const vkrr_cli_summary *s);

/* `vkrr rerun`'s summary after its table: the counts and verdict word, the
 * launches that could not be read, the first that differs or did not run.
 * Returns the verdict (rerun and merge exit with it): VKRR_ERR_MISMATCH for a
 * FAIL or TIMEOUT, else VKRR_ERR_INCOMPLETE for an ERROR or NO KERNEL, else
 * VKRR_OK. */
vkrr_status vkrr_cli_rerun_summary(FILE *f, const vkrr_report_info *info, const vkrr_launch_result *res,
                            uint32_t n);

/* The run's files: --json, --report, --junit, each written whole (atomically)
 * and named on its line ("json: FILE"), then "wrote N files, SIZE" (the
 * heatmaps of res[0 .. nheat) counted too: 0 where they are not this run's). */
vkrr_status vkrr_cli_write_reports(const vkrr_cli_compare *c, const vkrr_report_info *info,
                                   const vkrr_launch_result *res, uint32_t n, uint32_t nheat,
                                   vkrr_error *err);

/* --shard K/N: true with *k, *n (1 <= K <= N <= VKRR_SHARD_MAX). */
bool vkrr_cli_shard_parse(const char *s, uint32_t *k, uint32_t *n);
/* --shard V for cmd: 0, or the usage error's exit code. */
int vkrr_cli_shard_take(const char *cmd, const char *v, uint32_t *k, uint32_t *n);

#endif
