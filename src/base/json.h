/* json.h - JSON in and out: the documents vkrr writes open with what they
 * are, and JSON is read through json-c (Debian's libjson-c).
 *
 * Writing.  Every JSON document vkrr writes opens with
 *     "schema": NAME, "schema_version": "MAJOR.MINOR", "vkrr_version": V
 * NAME is one of the VKRR_SCHEMA_* below, and docs/json/NAME.schema.json
 * (JSON Schema 2020-12) describes it; docs/json.md says what every field
 * means and when each number changes: MAJOR when a field is removed,
 * renamed, moved or changes its type or meaning (a reader may break), MINOR
 * when one is added (a reader that ignores what it does not know keeps
 * working).  The versions live here, in one table (json.c), so the writer,
 * the reader (`vkrr merge`) and the docs name the same numbers.
 *
 *     fputc('{', f);
 *     vkrr_json_put_header(f, VKRR_SCHEMA_INFO, VKRR_VERSION);
 *     fputs(", \"launches\": [...]}", f);
 *
 * Reading.  vkrr_json_parse is json-c's tokener in its strict mode (RFC
 * 8259: no comments, no trailing commas, nothing after the value), nesting
 * at most VKRR_JSON_MAX_DEPTH deep; a refusal names the file and the line
 * of the offending byte.  The caller walks the tree with json-c's own API
 * and frees it with json_object_put.
 */
#ifndef VKRR_JSON_H
#define VKRR_JSON_H

#include <stddef.h>
#include <stdio.h>

#include <json-c/json.h>

#include "status.h"

#define VKRR_JSON_MAX_DEPTH 64

/* The documents (docs/json/NAME.schema.json). */
#define VKRR_SCHEMA_RESULTS "vkrr-results" /* validate, rerun, merge, diff --json */
#define VKRR_SCHEMA_BENCH "vkrr-bench"     /* bench --json */
#define VKRR_SCHEMA_INFO "vkrr-info"       /* info --json */
#define VKRR_SCHEMA_STRESS "vkrr-stress"   /* stress --json */

/* The "MAJOR.MINOR" a document of schema is written at; NULL for a name
 * that is none of the above. */
const char *vkrr_json_schema_version(const char *schema);

/* "schema": schema, "schema_version": its version, "vkrr_version":
 * vkrr_version (null when NULL): the members, no braces around them. */
void vkrr_json_put_header(FILE *f, const char *schema, const char *vkrr_version);

/* s as a JSON string, quoted and escaped (", \\, control bytes and DEL;
 * \\n and \\t by name).  The one string writer every JSON output uses. */
void vkrr_json_put_string(FILE *f, const char *s);

/* Parses text[0, len) into *out (the caller frees it with json_object_put).
 * path names the file in errors: VKRR_ERR_PARSE with the line and what
 * json-c said, VKRR_ERR_NOMEM. */
vkrr_status vkrr_json_parse(const char *text, size_t len, const char *path,
                            struct json_object **out, vkrr_error *err);

#endif
