/* json.h - a small JSON reader: the whole text into a tree of values.
 *
 * What vkrr reads back is its own output (`vkrr merge` reads the result
 * files `validate --json` wrote), but the files come from users' CI
 * machines, so it is a strict RFC 8259 parser with errors that name the
 * file and line: no comments, no trailing commas, nesting at most
 * VKRR_JSON_MAX_DEPTH deep, strings decoded to UTF-8 (\u escapes and
 * surrogate pairs included; a NUL escape is refused: strings are C strings).
 * Numbers keep their text too, so a 64-bit count reads back exactly.
 *
 *     vkrr_json *doc;
 *     if (vkrr_json_parse(text, len, "run.json", &doc, &err) != VKRR_OK) ...
 *     const vkrr_json *l = vkrr_json_get(doc, "launches");
 *     for (uint32_t i = 0; l && i < l->n; i++) ... l->kids[i] ...
 *     vkrr_json_free(doc);
 */
#ifndef VKRR_JSON_H
#define VKRR_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

#define VKRR_JSON_MAX_DEPTH 64

typedef enum vkrr_json_type {
    VKRR_JSON_NULL,
    VKRR_JSON_BOOL,
    VKRR_JSON_NUMBER,
    VKRR_JSON_STRING,
    VKRR_JSON_ARRAY,
    VKRR_JSON_OBJECT,
} vkrr_json_type;

typedef struct vkrr_json vkrr_json;
struct vkrr_json {
    vkrr_json_type type;
    bool b;              /* BOOL */
    double num;          /* NUMBER */
    char *text;          /* STRING: the decoded value; NUMBER: its text */
    char *key;           /* a member of an object: its name; else NULL */
    vkrr_json *kids;     /* ARRAY elements, OBJECT members, in order */
    uint32_t n;
    long line;           /* where the value starts, 1-based */
};

/* Parses text[0, len) (NUL bytes are an error).  path names the file in
 * errors (VKRR_ERR_PARSE with the line). */
vkrr_status vkrr_json_parse(const char *text, size_t len, const char *path, vkrr_json **out,
                            vkrr_error *err);
void vkrr_json_free(vkrr_json *v); /* accepts NULL */

/* The member key of an object (the first, if repeated); NULL when v is not
 * an object or has no such member. */
const vkrr_json *vkrr_json_get(const vkrr_json *v, const char *key);

/* Typed reads of a value (v may be NULL): false when it is absent or not of
 * that type (an integer: a number whose text is a whole number that fits). */
bool vkrr_json_bool(const vkrr_json *v, bool *out);
bool vkrr_json_number(const vkrr_json *v, double *out);
bool vkrr_json_u64(const vkrr_json *v, uint64_t *out);
bool vkrr_json_i64(const vkrr_json *v, int64_t *out);
const char *vkrr_json_string(const vkrr_json *v); /* NULL when not a string */

/* Writing: s as a JSON string, quoted and escaped (", \\, control bytes and
 * DEL; \\n and \\t by name).  The one writer every JSON output uses. */
void vkrr_json_put_string(FILE *f, const char *s);

#endif
