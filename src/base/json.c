/* json.c - JSON in (through json-c) and out (json.h). */
#include "json.h"

#include <stdint.h>
#include <string.h>

static const struct {
    const char *name, *version;
} schemas[] = {
    {VKRR_SCHEMA_RESULTS, "1.0"},
    {VKRR_SCHEMA_BENCH, "1.0"},
    {VKRR_SCHEMA_INFO, "1.0"},
    {VKRR_SCHEMA_STRESS, "1.0"},
};

const char *vkrr_json_schema_version(const char *schema)
{
    for (size_t i = 0; i < sizeof schemas / sizeof schemas[0]; i++)
        if (!strcmp(schema, schemas[i].name))
            return schemas[i].version;
    return NULL;
}

void vkrr_json_put_header(FILE *f, const char *schema, const char *vkrr_version)
{
    const char *v = vkrr_json_schema_version(schema);
    fputs("\"schema\": ", f);
    vkrr_json_put_string(f, schema);
    fputs(", \"schema_version\": ", f);
    vkrr_json_put_string(f, v ? v : "");
    fputs(", \"vkrr_version\": ", f);
    if (vkrr_version)
        vkrr_json_put_string(f, vkrr_version);
    else
        fputs("null", f);
}

void vkrr_json_put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static long line_of(const char *text, size_t off)
{
    long line = 1;
    for (size_t i = 0; i < off; i++)
        line += text[i] == '\n';
    return line;
}

vkrr_status vkrr_json_parse(const char *text, size_t len, const char *path,
                            struct json_object **out, vkrr_error *err)
{
    *out = NULL;
    if (len > (size_t)INT32_MAX) /* json-c takes an int length */
        return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, -1, "not valid JSON: over 2 GiB");
    if (!len) /* an empty file may come as NULL: memchr must not see it */
        text = "";
    /* json-c stops at a NUL inside the text as at its end: refused first */
    const char *nul = memchr(text, 0, len);
    if (nul)
        return vkrr_fail(err, VKRR_ERR_PARSE, path, line_of(text, (size_t)(nul - text)), -1,
                         "not valid JSON: a NUL byte");
    struct json_tokener *tok = json_tokener_new_ex(VKRR_JSON_MAX_DEPTH);
    if (!tok)
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    struct json_object *v = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t at = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    const char *why = NULL;
    if (e == json_tokener_continue)
        why = "the text ends inside a value";
    else if (e != json_tokener_success)
        why = json_tokener_error_desc(e);
    else if (!v && at < len) /* a bare null parses to NULL too: told apart by its end */
        why = "no value";
    for (size_t i = at; !why && i < len; i++)
        if (!strchr(" \t\r\n", text[i]))
            why = "more text after the value";
    if (why) {
        json_object_put(v);
        return vkrr_fail(err, VKRR_ERR_PARSE, path, line_of(text, at < len ? at : len), -1,
                         "not valid JSON: %s", why);
    }
    *out = v;
    return VKRR_OK;
}
