/* results_read.h - a result file (`validate --json`, `rerun --json`) read
 * back into the results it was written from, for `vkrr merge`.
 *
 * validate_report.h says what the file holds; everything a table row, the
 * summary, the bisect verdict, the HTML page, JUnit and the JSON itself are
 * made from comes back, so a merge renders with the very code a run does.
 * What the file does not carry stays zero: the launches' shapes and
 * arguments (only sequence, kernel, frame and occurrence), a comparison's
 * first failing element and the values at its largest error.
 *
 *     vkrr_results r;
 *     if (vkrr_results_read("shard-1.json", &r, &err) != VKRR_OK) ...
 *     ... r.info, r.res[0 .. r.n) (r.res[i].launch == &r.launches[i]) ...
 *     vkrr_results_free(&r);
 *
 * Errors: VKRR_ERR_IO (unreadable), VKRR_ERR_PARSE (not JSON: the line; not
 * a result file: the member at fault and the launch and resource it is in;
 * another "schema", or another major "schema_version", than json.h's).
 */
#ifndef VKRR_RESULTS_READ_H
#define VKRR_RESULTS_READ_H

#include "json.h"
#include "validate_report.h"

typedef struct vkrr_results {
    char *path;
    struct json_object *doc;     /* the strings below point into it (json-c) */
    vkrr_report_info info;       /* counts as the file says */
    vkrr_launch *launches;       /* n, in the file's order */
    vkrr_launch_result *res;     /* n; res[i].launch == &launches[i] */
    uint32_t n;
    vkrr_launch *stubs;          /* the launches "skipped_for" names (sequence, kernel, frame) */
    vkrr_launch **feed_stubs;    /* [launch]: the launches its "links" name (sequence, kernel) */
    uint32_t nstubs;
    vkrr_error *damage;          /* info.damage: the capture's problems, as text */
    bool chained;                /* "mode" is chained or both */
} vkrr_results;

vkrr_status vkrr_results_read(const char *path, vkrr_results *out, vkrr_error *err);
/* The same from text[0, len) (path names it in errors). */
vkrr_status vkrr_results_parse(const char *text, size_t len, const char *path, vkrr_results *out,
                               vkrr_error *err);
void vkrr_results_free(vkrr_results *r); /* accepts a zeroed one */

#endif
