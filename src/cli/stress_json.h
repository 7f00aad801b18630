/* stress_json.h - `vkrr stress --json FILE`: what each launch's stress found,
 * for scripts (docs/json/vkrr-stress.schema.json, docs/json.md).
 *
 *     vkrr_stress_json j;
 *     vkrr_stress_json_open(&j);                       // false: no memory
 *     vkrr_stress_json_launch(&j, l, "disagree", &r, NULL);   // each launch
 *     vkrr_stress_json_write(&j, "stress.json", &(vkrr_stress_json_run){...}, &err);
 *     vkrr_stress_json_close(&j);
 *
 * The launches collect in memory; the file is written whole (atomically) at
 * the end, so a run that stops early leaves none. */
#ifndef VKRR_STRESS_JSON_H
#define VKRR_STRESS_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include "capture.h"
#include "stress.h"

typedef struct vkrr_stress_json {
    FILE *f;
    char *buf;
    size_t len;
    unsigned n;
} vkrr_stress_json;

/* The run as a whole: its settings and its counts. */
typedef struct vkrr_stress_json_run {
    const char *capture, *vkrr_version;
    uint64_t runs, seed;
    double seconds;          /* --time; 0: none */
    unsigned stressed, disagreements, nothing, errors;
} vkrr_stress_json_run;

bool vkrr_stress_json_open(vkrr_stress_json *j);
/* status: "stressed" (no disagreement), "disagree", "nothing" (no input to
 * change), "error" (could not run: note says why); r NULL for "error" before
 * any input ran. */
void vkrr_stress_json_launch(vkrr_stress_json *j, const vkrr_launch *l, const char *status,
                             const vkrr_stress_result *r, const char *note);
vkrr_status vkrr_stress_json_write(vkrr_stress_json *j, const char *path,
                                   const vkrr_stress_json_run *run, vkrr_error *err);
void vkrr_stress_json_close(vkrr_stress_json *j); /* accepts a zeroed one */

#endif
