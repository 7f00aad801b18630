/* json.c - a small JSON reader (json.h). */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const char *p, *end, *path;
    long line;
    vkrr_error *err;
} reader;

static vkrr_status bad(reader *r, const char *what)
{
    return vkrr_fail(r->err, VKRR_ERR_PARSE, r->path, r->line, -1, "not valid JSON: %s", what);
}

static void skip_space(reader *r)
{
    for (; r->p < r->end; r->p++) {
        if (*r->p == '\n')
            r->line++;
        else if (*r->p != ' ' && *r->p != '\t' && *r->p != '\r')
            break;
    }
}

static bool take(reader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n))
        return false;
    r->p += n;
    return true;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t put_utf8(char *o, uint32_t c)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xc0 | c >> 6);
        o[1] = (char)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xe0 | c >> 12);
        o[1] = (char)(0x80 | (c >> 6 & 0x3f));
        o[2] = (char)(0x80 | (c & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | c >> 18);
    o[1] = (char)(0x80 | (c >> 12 & 0x3f));
    o[2] = (char)(0x80 | (c >> 6 & 0x3f));
    o[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

/* A string at r->p (the opening quote), decoded into a new C string. */
static vkrr_status string(reader *r, char **out)
{
    const char *s = ++r->p;
    while (r->p < r->end && *r->p != '"') {
        if ((unsigned char)*r->p < 0x20)
            return bad(r, "a control character in a string");
        r->p += *r->p == '\\' ? 2 : 1;
    }
    if (r->p >= r->end)
        return bad(r, "a string without its closing quote");
    /* decoded is never longer than the escaped text */
    char *o = malloc((size_t)(r->p - s) + 1), *w = o;
    if (!o)
        return vkrr_fail(r->err, VKRR_ERR_NOMEM, r->path, r->line, -1, "out of memory");
    for (const char *q = s; q < r->p;) {
        if (*q != '\\') {
            *w++ = *q++;
            continue;
        }
        char c = q[1];
        q += 2;
        const char *plain = strchr("\"\\/bfnrt", c);
        if (c && plain) {
            *w++ = "\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"];
            continue;
        }
        int u = c == 'u' && r->p - q >= 4 ? hex4(q) : -1;
        if (u < 0) {
            free(o);
            return bad(r, "a bad escape in a string");
        }
        q += 4;
        uint32_t cp = (uint32_t)u;
        if (cp >= 0xd800 && cp < 0xdc00) { /* a high surrogate: its low one must follow */
            int lo = r->p - q >= 6 && q[0] == '\\' && q[1] == 'u' ? hex4(q + 2) : -1;
            if (lo < 0xdc00 || lo >= 0xe000) {
                free(o);
                return bad(r, "a lone surrogate in a string");
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
            q += 6;
        } else if (cp >= 0xdc00 && cp < 0xe000) {
            free(o);
            return bad(r, "a lone surrogate in a string");
        }
        if (cp == 0) {
            free(o);
            return bad(r, "a NUL character (\\u0000) in a string");
        }
        w += put_utf8(w, cp);
    }
    *w = 0;
    r->p++; /* the closing quote */
    *out = o;
    return VKRR_OK;
}

static vkrr_status number(reader *r, vkrr_json *v)
{
    const char *s = r->p;
    if (r->p < r->end && *r->p == '-')
        r->p++;
    if (r->p >= r->end || *r->p < '0' || *r->p > '9')
        return bad(r, "a number without digits");
    if (*r->p == '0' && r->p + 1 < r->end && r->p[1] >= '0' && r->p[1] <= '9')
        return bad(r, "a number with a leading zero");
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
        r->p++;
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (r->p >= r->end || *r->p < '0' || *r->p > '9')
            return bad(r, "a number with no digit after its point");
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            r->p++;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if (r->p >= r->end || *r->p < '0' || *r->p > '9')
            return bad(r, "a number with no digit in its exponent");
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            r->p++;
    }
    size_t n = (size_t)(r->p - s);
    if (!(v->text = malloc(n + 1)))
        return vkrr_fail(r->err, VKRR_ERR_NOMEM, r->path, r->line, -1, "out of memory");
    memcpy(v->text, s, n);
    v->text[n] = 0;
    v->num = strtod(v->text, NULL);
    v->type = VKRR_JSON_NUMBER;
    return VKRR_OK;
}

static vkrr_status value(reader *r, vkrr_json *v, int depth);

/* An array or object at r->p: its elements (members: key, colon, value). */
static vkrr_status container(reader *r, vkrr_json *v, int depth)
{
    bool obj = *r->p == '{';
    char close = obj ? '}' : ']';
    v->type = obj ? VKRR_JSON_OBJECT : VKRR_JSON_ARRAY;
    if (depth >= VKRR_JSON_MAX_DEPTH)
        return bad(r, "nested too deep");
    r->p++;
    uint32_t cap = 0;
    skip_space(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return VKRR_OK;
    }
    for (;;) {
        if (v->n == cap) {
            uint32_t nc = cap ? 2 * cap : 8;
            vkrr_json *k = cap > UINT32_MAX / 2 ? NULL : realloc(v->kids, nc * sizeof *k);
            if (!k)
                return vkrr_fail(r->err, VKRR_ERR_NOMEM, r->path, r->line, -1, "out of memory");
            v->kids = k;
            cap = nc;
        }
        vkrr_json *kid = &v->kids[v->n];
        *kid = (vkrr_json){0};
        v->n++;
        skip_space(r);
        if (obj) {
            if (r->p >= r->end || *r->p != '"')
                return bad(r, "an object member without its quoted name");
            vkrr_status s = string(r, &kid->key);
            if (s != VKRR_OK)
                return s;
            skip_space(r);
            if (r->p >= r->end || *r->p != ':')
                return bad(r, "an object member without ':' after its name");
            r->p++;
        }
        vkrr_status s = value(r, kid, depth + 1);
        if (s != VKRR_OK)
            return s;
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return VKRR_OK;
        }
        if (r->p >= r->end)
            return bad(r, obj ? "the text ends inside an object" : "the text ends inside an array");
        return bad(r, obj ? "an object without ',' or '}' after a member"
                          : "an array without ',' or ']' after an element");
    }
}

static vkrr_status value(reader *r, vkrr_json *v, int depth)
{
    skip_space(r);
    v->line = r->line;
    if (r->p >= r->end)
        return bad(r, "the text ends where a value should be");
    char c = *r->p;
    if (c == '{' || c == '[')
        return container(r, v, depth);
    if (c == '"') {
        v->type = VKRR_JSON_STRING;
        return string(r, &v->text);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return number(r, v);
    if (take(r, "true") || take(r, "false")) {
        v->type = VKRR_JSON_BOOL;
        v->b = r->p[-1] == 'e' && r->p[-2] == 'u';
        return VKRR_OK;
    }
    if (take(r, "null")) {
        v->type = VKRR_JSON_NULL;
        return VKRR_OK;
    }
    return bad(r, "an unexpected character where a value should be");
}

static void clear(vkrr_json *v)
{
    for (uint32_t i = 0; i < v->n; i++)
        clear(&v->kids[i]);
    free(v->kids);
    free(v->text);
    free(v->key);
}

void vkrr_json_free(vkrr_json *v)
{
    if (!v)
        return;
    clear(v);
    free(v);
}

vkrr_status vkrr_json_parse(const char *text, size_t len, const char *path, vkrr_json **out,
                            vkrr_error *err)
{
    *out = NULL;
    reader r = {text, text + len, path, 1, err};
    if (memchr(text, 0, len)) {
        r.line = 1;
        for (const char *q = text; *q; q++)
            r.line += *q == '\n';
        return bad(&r, "a NUL byte");
    }
    vkrr_json *v = calloc(1, sizeof *v);
    if (!v)
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
    vkrr_status s = value(&r, v, 0);
    if (s == VKRR_OK) {
        skip_space(&r);
        if (r.p < r.end)
            s = bad(&r, "more text after the value");
    }
    if (s != VKRR_OK) {
        vkrr_json_free(v);
        return s;
    }
    *out = v;
    return VKRR_OK;
}

const vkrr_json *vkrr_json_get(const vkrr_json *v, const char *key)
{
    if (!v || v->type != VKRR_JSON_OBJECT)
        return NULL;
    for (uint32_t i = 0; i < v->n; i++)
        if (!strcmp(v->kids[i].key, key))
            return &v->kids[i];
    return NULL;
}

bool vkrr_json_bool(const vkrr_json *v, bool *out)
{
    if (!v || v->type != VKRR_JSON_BOOL)
        return false;
    *out = v->b;
    return true;
}

bool vkrr_json_number(const vkrr_json *v, double *out)
{
    if (!v || v->type != VKRR_JSON_NUMBER)
        return false;
    *out = v->num;
    return true;
}

bool vkrr_json_u64(const vkrr_json *v, uint64_t *out)
{
    if (!v || v->type != VKRR_JSON_NUMBER || v->text[0] == '-' || strpbrk(v->text, ".eE"))
        return false;
    errno = 0;
    unsigned long long x = strtoull(v->text, NULL, 10);
    if (errno)
        return false;
    *out = x;
    return true;
}

bool vkrr_json_i64(const vkrr_json *v, int64_t *out)
{
    if (!v || v->type != VKRR_JSON_NUMBER || strpbrk(v->text, ".eE"))
        return false;
    errno = 0;
    long long x = strtoll(v->text, NULL, 10);
    if (errno)
        return false;
    *out = x;
    return true;
}

const char *vkrr_json_string(const vkrr_json *v)
{
    return v && v->type == VKRR_JSON_STRING ? v->text : NULL;
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
