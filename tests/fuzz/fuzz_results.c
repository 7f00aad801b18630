/* fuzz_results - libFuzzer target: a result file (`validate --json`, what
 * `vkrr merge` reads) -> vkrr_results_parse, then everything merge makes of
 * it: the counts and verdict, the table rows in every layout, the summary
 * lines, the bisect verdict and the JSON written again.  No crash or hang;
 * every refusal names the file, and its line (text that is not JSON) or the
 * member and the launch at fault (JSON that is no result file). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "cli_summary.h"
#include "results_read.h"
#include "validate_report.h"
#include "validate_run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vkrr_warn_set_stream(NULL);
    vkrr_results r;
    vkrr_error err;
    memset(&err, 0, sizeof err);
    if (vkrr_results_parse((const char *)data, size, "fuzz.json", &r, &err) != VKRR_OK) {
        /* json-c keeps no line per value: a file that parses but is no result
         * file is refused naming the member and the launch instead */
        if (err.status == VKRR_ERR_PARSE && err.line == 0 && !strcmp(err.file, "fuzz.json") &&
            (strstr(err.msg, "not a vkrr result file") || strstr(err.msg, "written at")))
            return 0;
        fuzz_check_refusal(&err, "fuzz.json");
        return 0;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    vkrr_run_desc d = {.isolated = true, .chained = r.chained, .strict = r.info.strict};
    vkrr_run run = {.res = r.res, .done = r.n, .selected = r.n};
    run.bisect.first_fail = run.bisect.first_inexact = run.bisect.later_culprit = -1;
    for (uint32_t i = 0; i < r.n; i++)
        vkrr_run_tally(&d, &run, &r.res[i]);
    vkrr_bisect_analyze(r.res, r.n, &run.bisect);
    for (uint32_t i = 0; i < r.n; i++)
        for (int layout = 0; layout < 8; layout++)
            vkrr_report_table_row(f, &r.res[i], layout & 1, layout & 2, layout & 4);
    vkrr_cli_summary s = {.run = &run, .nsel = r.n, .iso = true, .chn = r.chained,
                          .capture_damage = r.info.ndamage};
    vkrr_cli_summary_lines(f, &s);
    vkrr_cli_summary_details(f, &s);
    vkrr_cli_rerun_summary(f, &r.info, r.res, r.n);
    vkrr_report_json(f, &r.info, r.res, r.n);
    (void)vkrr_run_verdict(&d, &run, r.info.ndamage, 0);
    fclose(f);
    free(buf);
    vkrr_results_free(&r);
    return 0;
}
