/* capture_log.c - the bridge's run/run.log: array, texture and surface
 * creations, the first line of each launch, module lines.  Everything else in
 * the log is ignored; a used line with a malformed field is an error. */
#include <stdlib.h>
#include <string.h>

#include "capture_parse.h"

/* Grows *arr (of *n elements of size sz) by one zeroed element; NULL on OOM.
 * Growth is bounded by the lines of the log, never by a number in it. */
static void *grow(void **arr, uint32_t *n, uint32_t *cap, size_t sz)
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

/* Finds `key=` among the whitespace-separated tokens of [s, s+n). */
static int find_kv(const char *s, size_t n, const char *key, const char **v, size_t *vn)
{
    size_t kl = strlen(key);
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
            i++;
        size_t b = i;
        while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            i++;
        if (i - b > kl && !memcmp(s + b, key, kl) && s[b + kl] == '=') {
            *v = s + b + kl + 1;
            *vn = i - b - kl - 1;
            return 1;
        }
    }
    return 0;
}

typedef struct lctx {
    const char *s;
    size_t n;
    const char *path;
    long line;
    vkrr_error *err;
} lctx;

/* Reads key=NUMBER; `required` 0 makes a missing key leave *out alone. */
static vkrr_status kv_u64(const lctx *c, const char *key, int required, uint64_t max,
                          uint64_t *out)
{
    const char *v;
    size_t vn;
    if (!find_kv(c->s, c->n, key, &v, &vn)) {
        if (!required)
            return VKRR_OK;
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1, "missing %s=", key);
    }
    vkrr_status st = vkrr_parse_u64(v, vn, 1, max, out);
    if (st)
        vkrr_fail(c->err, st, c->path, c->line, -1, "%s=%.*s is %s", key, (int)(vn > 64 ? 64 : vn),
                  v, st == VKRR_ERR_RANGE ? "out of range" : "not a number");
    return st;
}

/* result= absent counts as success (older lines); non-zero: the call failed. */
static vkrr_status succeeded(const lctx *c, int *ok)
{
    uint64_t r = 0;
    vkrr_status st = kv_u64(c, "result", 0, UINT64_MAX, &r);
    *ok = r == 0;
    return st;
}

static int starts(const char *s, size_t n, const char *word)
{
    size_t k = strlen(word);
    return n >= k && !memcmp(s, word, k) && (n == k || s[k] == ' ' || s[k] == '\t');
}

typedef struct caps {
    uint32_t arrays, textures, surfaces, launches;
} caps;

static vkrr_status parse_texture(vkrr_log *log, caps *cp, const lctx *c)
{
    uint64_t obj = 0, arr = 0, filter = 0, flags = 0;
    int ok;
    vkrr_status st;
    if ((st = succeeded(c, &ok)) || !ok)
        return st;
    if ((st = kv_u64(c, "object", 1, UINT64_MAX, &obj)) ||
        (st = kv_u64(c, "array", 0, UINT64_MAX, &arr)) ||
        (st = kv_u64(c, "filter", 1, 1, &filter)) ||
        (st = kv_u64(c, "flags", 1, 0xff, &flags)))
        return st;
    const char *v;
    size_t vn;
    if (!find_kv(c->s, c->n, "addr", &v, &vn))
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1, "missing addr=");
    const char *comma = memchr(v, ',', vn);
    uint64_t a0, a1;
    if (!comma || vkrr_parse_u64(v, (size_t)(comma - v), 0, 3, &a0) ||
        vkrr_parse_u64(comma + 1, vn - (size_t)(comma - v) - 1, 0, 3, &a1))
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1,
                         "addr= must be two address modes 0..3 as A0,A1");
    vkrr_log_texture *t = grow((void **)&log->textures, &log->ntextures, &cp->textures, sizeof *t);
    if (!t)
        return vkrr_fail(c->err, VKRR_ERR_NOMEM, c->path, c->line, -1, "out of memory");
    t->handle = obj;
    t->array = arr;
    t->line = c->line;
    t->sampler = (vkrr_sampler){.filter = (int)filter,
                                .address = {(int)a0, (int)a1},
                                .normalized = (flags & VKRR_TEXFLAG_NORMALIZED) != 0,
                                .read_as_integer = (flags & VKRR_TEXFLAG_INTEGER) != 0,
                                .srgb = (flags & VKRR_TEXFLAG_SRGB) != 0,
                                .from_log = true};
    return VKRR_OK;
}

static vkrr_status parse_array(vkrr_log *log, caps *cp, const lctx *c)
{
    uint64_t v[5];
    int ok;
    vkrr_status st;
    if ((st = succeeded(c, &ok)) || !ok)
        return st;
    if ((st = kv_u64(c, "width", 1, UINT32_MAX, &v[0])) ||
        (st = kv_u64(c, "height", 1, UINT32_MAX, &v[1])) ||
        (st = kv_u64(c, "format", 1, UINT32_MAX, &v[2])) ||
        (st = kv_u64(c, "channels", 1, UINT32_MAX, &v[3])) ||
        (st = kv_u64(c, "array", 1, UINT64_MAX, &v[4])))
        return st;
    vkrr_log_array *a = grow((void **)&log->arrays, &log->narrays, &cp->arrays, sizeof *a);
    if (!a)
        return vkrr_fail(c->err, VKRR_ERR_NOMEM, c->path, c->line, -1, "out of memory");
    *a = (vkrr_log_array){v[4], (uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3],
                          c->line};
    return VKRR_OK;
}

static vkrr_status parse_surface(vkrr_log *log, caps *cp, const lctx *c)
{
    uint64_t obj = 0, arr = 0;
    int ok;
    vkrr_status st;
    if ((st = succeeded(c, &ok)) || !ok)
        return st;
    if ((st = kv_u64(c, "object", 1, UINT64_MAX, &obj)) ||
        (st = kv_u64(c, "array", 0, UINT64_MAX, &arr)))
        return st;
    vkrr_log_surface *s = grow((void **)&log->surfaces, &log->nsurfaces, &cp->surfaces, sizeof *s);
    if (!s)
        return vkrr_fail(c->err, VKRR_ERR_NOMEM, c->path, c->line, -1, "out of memory");
    *s = (vkrr_log_surface){obj, arr, c->line};
    return VKRR_OK;
}

static vkrr_status parse_launch(vkrr_log *log, caps *cp, const lctx *c)
{
    const char *s = c->s + 7; /* after "launch[" */
    const char *close = memchr(s, ']', c->n - 7);
    uint64_t seq;
    vkrr_status st = close ? vkrr_parse_u64(s, (size_t)(close - s), 0, UINT64_MAX, &seq)
                           : VKRR_ERR_PARSE;
    if (st)
        return vkrr_fail(c->err, st, c->path, c->line, -1, "launch[N]: N is %s",
                         st == VKRR_ERR_RANGE ? "out of range" : "not a number");
    /* Lines of one launch are usually together: only a change of N adds one. */
    if (log->nlaunches && log->launches[log->nlaunches - 1].sequence == seq)
        return VKRR_OK;
    vkrr_log_launch *l = grow((void **)&log->launches, &log->nlaunches, &cp->launches, sizeof *l);
    if (!l)
        return vkrr_fail(c->err, VKRR_ERR_NOMEM, c->path, c->line, -1, "out of memory");
    *l = (vkrr_log_launch){seq, c->line};
    return VKRR_OK;
}

static int cmp_launch(const void *a, const void *b)
{
    const vkrr_log_launch *x = a, *y = b;
    if (x->sequence != y->sequence)
        return x->sequence < y->sequence ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

vkrr_status vkrr_log_parse(vkrr_log *log, const char *text, size_t len, const char *path,
                           vkrr_error *err)
{
    memset(log, 0, sizeof *log);
    caps cp = {0};
    vkrr_status st = VKRR_OK;
    long ln = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl ? 1 : 0);
        ln++;
        /* Strip "[tag] " prefixes, e.g. "[d4r nvcuda] ". */
        for (;;) {
            while (n && (*s == ' ' || *s == '\t')) {
                s++;
                n--;
            }
            if (!n || *s != '[' || starts(s, n, "launch["))
                break;
            const char *close = memchr(s, ']', n);
            if (!close)
                break;
            n -= (size_t)(close + 1 - s);
            s = close + 1;
        }
        lctx c = {s, n, path, ln, err};
        if (starts(s, n, "cuArrayCreate") || starts(s, n, "cuArrayCreate_v2"))
            st = parse_array(log, &cp, &c);
        else if (starts(s, n, "cuTexObjectCreate"))
            st = parse_texture(log, &cp, &c);
        else if (starts(s, n, "cuSurfObjectCreate"))
            st = parse_surface(log, &cp, &c);
        else if (n > 7 && !memcmp(s, "launch[", 7))
            st = parse_launch(log, &cp, &c);
        else if (starts(s, n, "cuModuleLoadData") || starts(s, n, "cuModuleGetFunction")) {
            int fn = starts(s, n, "cuModuleGetFunction");
            uint64_t h = 0;
            int ok;
            if (!(st = succeeded(&c, &ok)) && ok &&
                !(st = kv_u64(&c, "module", 1, UINT64_MAX, &h)))
                *(fn ? &log->nfunctions : &log->nmodules) += 1;
        }
        if (st)
            goto fail;
    }
    if (log->nlaunches > 1) {
        qsort(log->launches, log->nlaunches, sizeof *log->launches, cmp_launch);
        uint32_t k = 1;
        for (uint32_t i = 1; i < log->nlaunches; i++)
            if (log->launches[i].sequence != log->launches[k - 1].sequence)
                log->launches[k++] = log->launches[i];
        log->nlaunches = k;
    }
    return VKRR_OK;
fail:
    vkrr_log_free(log);
    return st;
}

void vkrr_log_free(vkrr_log *log)
{
    if (!log)
        return;
    free(log->arrays);
    free(log->textures);
    free(log->surfaces);
    free(log->launches);
    memset(log, 0, sizeof *log);
}

long vkrr_log_launch_line(const vkrr_log *log, uint64_t sequence)
{
    uint32_t lo = 0, hi = log->nlaunches;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (log->launches[mid].sequence < sequence)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < log->nlaunches && log->launches[lo].sequence == sequence ? log->launches[lo].line
                                                                         : 0;
}

#define LAST_BEFORE(arr, n, field, key, line)                                     \
    for (uint32_t i = (n); i-- > 0;)                                              \
        if ((arr)[i].field == (key) && ((line) <= 0 || (arr)[i].line < (line)))   \
            return &(arr)[i];                                                     \
    return NULL

const vkrr_log_texture *vkrr_log_texture_at(const vkrr_log *log, uint64_t handle, long line)
{
    LAST_BEFORE(log->textures, log->ntextures, handle, handle, line);
}

const vkrr_log_surface *vkrr_log_surface_at(const vkrr_log *log, uint64_t handle, long line)
{
    LAST_BEFORE(log->surfaces, log->nsurfaces, handle, handle, line);
}

const vkrr_log_array *vkrr_log_array_at(const vkrr_log *log, uint64_t array, long line)
{
    LAST_BEFORE(log->arrays, log->narrays, array, array, line);
}
