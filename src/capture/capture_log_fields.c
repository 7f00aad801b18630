/* capture_log_fields.c - the run.log parser's leaf: reading `key=value`
 * fields as the bridge prints them (decimal, 0x-hex, %p's "(nil)"), tokens,
 * the call at the start of a line, and growing the log's arrays.  Calls
 * nothing else in capture/. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_log_internal.h"

void *vkrr_log_grow(void **arr, uint32_t *n, uint32_t *cap, size_t sz)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 16;
        if (nc < *cap)
            return NULL;
        void *p = realloc(*arr, (size_t)nc * sz);
        if (!p)
            return NULL;
        *arr = p;
        *cap = nc;
    }
    void *e = (char *)*arr + (size_t)(*n)++ * sz;
    memset(e, 0, sz);
    return e;
}

bool vkrr_log_name_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return n > 0;
}

uint32_t vkrr_log_keep_name(vkrr_log *log, vkrr_log_build *b, const char *s, size_t n)
{
    if (!n || n > UINT32_MAX / 4 || log->names_len + n + 1 > UINT32_MAX)
        return 0;
    if (!log->names_len)
        log->names_len = 1; /* offset 0 is "" */
    if (log->names_len + n + 1 > b->names) {
        size_t nc = b->names ? b->names : 256;
        while (nc < log->names_len + n + 1)
            nc *= 2;
        char *p = realloc(log->names, nc);
        if (!p)
            return 0;
        if (!b->names)
            p[0] = 0;
        log->names = p;
        b->names = nc;
    }
    uint32_t off = (uint32_t)log->names_len;
    memcpy(log->names + off, s, n);
    log->names[off + n] = 0;
    log->names_len += n + 1;
    return off;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

bool vkrr_log_starts(const char *s, size_t n, const char *word)
{
    size_t k = strlen(word);
    if (n < k || memcmp(s, word, k))
        return false;
    return n == k || blank(s[k]) || s[k] == '(' || s[k] == '[' ||
           (s[k] == '-' && k + 1 < n && s[k + 1] == '>');
}

bool vkrr_log_token(const vkrr_log_ctx *c, int n, const char **t, size_t *tn)
{
    size_t i = 0;
    for (int k = 0;; k++) {
        while (i < c->n && blank(c->s[i]))
            i++;
        size_t b = i;
        while (i < c->n && !blank(c->s[i]))
            i++;
        if (b == i)
            return false;
        if (k == n) {
            *t = c->s + b;
            *tn = i - b;
            return true;
        }
    }
}

bool vkrr_log_find_kv(const vkrr_log_ctx *c, const char *key, const char **v, size_t *vn)
{
    size_t kl = strlen(key);
    size_t i = 0;
    while (i < c->n) {
        while (i < c->n && blank(c->s[i]))
            i++;
        size_t b = i;
        while (i < c->n && !blank(c->s[i]))
            i++;
        if (i - b > kl && !memcmp(c->s + b, key, kl) && c->s[b + kl] == '=') {
            *v = c->s + b + kl + 1;
            *vn = i - b - kl - 1;
            return true;
        }
    }
    return false;
}

vkrr_status vkrr_log_bad(const vkrr_log_ctx *c, vkrr_status st, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return vkrr_fail(c->err, st, c->path, c->line, -1, "%s", msg);
}

vkrr_status vkrr_log_kv_u64(const vkrr_log_ctx *c, const char *key, bool required, uint64_t max,
                            uint64_t *out)
{
    const char *v;
    size_t vn;
    if (!vkrr_log_find_kv(c, key, &v, &vn))
        return required ? vkrr_log_bad(c, VKRR_ERR_PARSE, "missing %s=", key) : VKRR_OK;
    if (vn == 5 && !memcmp(v, "(nil)", 5)) { /* glibc's %p of a null pointer */
        *out = 0;
        return VKRR_OK;
    }
    vkrr_status st = vkrr_parse_u64(v, vn, 1, max, out);
    if (st)
        vkrr_log_bad(c, st, "%s=%.*s is %s", key, (int)(vn > 64 ? 64 : vn), v,
                     st == VKRR_ERR_RANGE ? "out of range" : "not a number");
    return st;
}

vkrr_status vkrr_log_kv_i64(const vkrr_log_ctx *c, const char *key, bool required, int64_t *out)
{
    const char *v;
    size_t vn;
    if (!vkrr_log_find_kv(c, key, &v, &vn))
        return required ? vkrr_log_bad(c, VKRR_ERR_PARSE, "missing %s=", key) : VKRR_OK;
    bool neg = vn > 1 && v[0] == '-';
    uint64_t u = 0;
    vkrr_status st = vkrr_parse_u64(v + neg, vn - neg, 0, (uint64_t)INT64_MAX, &u);
    if (st)
        return vkrr_log_bad(c, st, "%s=%.*s is not a number", key, (int)(vn > 64 ? 64 : vn), v);
    *out = neg ? -(int64_t)u : (int64_t)u;
    return VKRR_OK;
}

vkrr_status vkrr_log_succeeded(const vkrr_log_ctx *c, bool *ok)
{
    int64_t r = 0;
    vkrr_status st = vkrr_log_kv_i64(c, "result", false, &r);
    *ok = r == 0;
    return st;
}
