/* capture_log.c - the bridge's run/run.log: array, texture and surface
 * creations, the first line of each launch, its dump lines (hash=), module
 * lines.  Everything else in the log is ignored; a used line with a
 * malformed field is skipped and counted (the first one kept). */
#include <stdbool.h>
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

/* key="TEXT" (no quote inside) into buf; 0 when absent, -1 when malformed. */
static int kv_quoted(const lctx *c, const char *key, char *buf, size_t cap)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl + 2 <= c->n; i++) {
        bool boundary = i == 0 || c->s[i - 1] == ' ' || c->s[i - 1] == '\t';
        if (!boundary || memcmp(c->s + i, key, kl) || c->s[i + kl] != '=' || c->s[i + kl + 1] != '"')
            continue;
        const char *b = c->s + i + kl + 2;
        const char *e = memchr(b, '"', c->n - (size_t)(b - c->s));
        if (!e || (size_t)(e - b) >= cap)
            return -1;
        memcpy(buf, b, (size_t)(e - b));
        buf[e - b] = 0;
        return 1;
    }
    return 0;
}

/* device name="..." [cc=M.m] [model="..."] (a vkrr extension). */
static vkrr_status parse_device(vkrr_log *log, const lctx *c)
{
    vkrr_capture_device d = {.cc_major = -1, .cc_minor = -1};
    int r = kv_quoted(c, "name", d.name, sizeof d.name);
    if (r <= 0)
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1,
                         r ? "device: name=\"...\" is unterminated or too long" : "device: missing name=\"...\"");
    if (kv_quoted(c, "model", d.model, sizeof d.model) < 0)
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1,
                         "device: model=\"...\" is unterminated or too long");
    const char *v;
    size_t vn;
    if (find_kv(c->s, c->n, "cc", &v, &vn)) {
        const char *dot = memchr(v, '.', vn);
        uint64_t ma, mi;
        if (!dot || vkrr_parse_u64(v, (size_t)(dot - v), 1, 99, &ma) ||
            vkrr_parse_u64(dot + 1, vn - (size_t)(dot + 1 - v), 1, 9, &mi))
            return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1,
                             "device: cc=%.*s is not MAJOR.MINOR", (int)(vn > 16 ? 16 : vn), v);
        d.cc_major = (int)ma;
        d.cc_minor = (int)mi;
    }
    d.present = true;
    log->device = d;
    return VKRR_OK;
}

typedef struct caps {
    uint32_t arrays, textures, surfaces, launches, dumps;
} caps;

/* The resource descriptor of a linear (type=2) or pitch-2D (type=3) texture. */
static vkrr_status parse_linear(vkrr_log_texture *t, const lctx *c)
{
    uint64_t fmt = 0, ch = 0;
    vkrr_status st;
    if ((st = kv_u64(c, "devptr", 1, UINT64_MAX, &t->devptr)) ||
        (st = kv_u64(c, "format", 1, UINT32_MAX, &fmt)) ||
        (st = kv_u64(c, "channels", 1, 4, &ch)))
        return st;
    t->format = (uint32_t)fmt;
    t->channels = (uint32_t)ch;
    if (t->resource == VKRR_TEXRES_LINEAR)
        return kv_u64(c, "bytes", 1, UINT64_MAX, &t->bytes);
    if ((st = kv_u64(c, "width", 1, UINT32_MAX, &t->width)) ||
        (st = kv_u64(c, "height", 1, UINT32_MAX, &t->height)) ||
        (st = kv_u64(c, "pitch", 1, UINT64_MAX, &t->pitch)))
        return st;
    return VKRR_OK;
}

static vkrr_status parse_texture(vkrr_log *log, caps *cp, const lctx *c)
{
    uint64_t obj = 0, arr = 0, filter = 0, flags = 0, type = VKRR_TEXRES_ARRAY;
    int ok;
    vkrr_status st;
    if ((st = succeeded(c, &ok)) || !ok)
        return st;
    if ((st = kv_u64(c, "object", 1, UINT64_MAX, &obj)) ||
        (st = kv_u64(c, "array", 0, UINT64_MAX, &arr)) ||
        (st = kv_u64(c, "type", 0, VKRR_TEXRES_PITCH2D, &type)) ||
        (st = kv_u64(c, "filter", 1, 1, &filter)) ||
        (st = kv_u64(c, "flags", 1, 0xff, &flags)))
        return st;
    vkrr_log_texture lin = {.resource = (int)type};
    if ((type == VKRR_TEXRES_LINEAR || type == VKRR_TEXRES_PITCH2D) &&
        (st = parse_linear(&lin, c)))
        return st;
    const char *v;
    size_t vn;
    if (!find_kv(c->s, c->n, "addr", &v, &vn))
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1, "missing addr=");
    /* A0,A1 (the bridge), or A0,A1,A2 with the third axis's (3D arrays);
     * with two, the third axis takes the second's */
    uint64_t a[3];
    unsigned na = 0;
    for (size_t b = 0, e; na < 4 && b <= vn; b = e + 1, na++) {
        const char *comma = memchr(v + b, ',', vn - b);
        e = comma ? (size_t)(comma - v) : vn;
        if (na == 3 || vkrr_parse_u64(v + b, e - b, 0, 3, &a[na])) {
            na = 0;
            break;
        }
    }
    if (na != 2 && na != 3)
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1,
                         "addr= must be two or three address modes 0..3 as A0,A1[,A2]");
    if (na == 2)
        a[2] = a[1];
    vkrr_log_texture *t = grow((void **)&log->textures, &log->ntextures, &cp->textures, sizeof *t);
    if (!t)
        return vkrr_fail(c->err, VKRR_ERR_NOMEM, c->path, c->line, -1, "out of memory");
    *t = lin;
    t->handle = obj;
    t->array = arr;
    t->line = c->line;
    t->sampler = (vkrr_sampler){.filter = (int)filter,
                                .address = {(int)a[0], (int)a[1], (int)a[2]},
                                .normalized = (flags & VKRR_TEXFLAG_NORMALIZED) != 0,
                                .read_as_integer = (flags & VKRR_TEXFLAG_INTEGER) != 0,
                                .srgb = (flags & VKRR_TEXFLAG_SRGB) != 0,
                                .from_log = true};
    return VKRR_OK;
}

/* An array's geometry as CUDA_ARRAY3D_DESCRIPTOR gives it: height 0 is 1D,
 * depth 0 is 2D, else depth slices (3D) or, with the layered flag, layers;
 * a cubemap is square with six faces a cube.  *rows: the dump's rows. */
static vkrr_status array_geometry(const lctx *c, uint64_t width, uint64_t height, uint64_t depth,
                                  uint64_t flags, vkrr_geometry *g, uint64_t *rows)
{
    bool layered = flags & VKRR_ARRAY_LAYERED, cube = flags & VKRR_ARRAY_CUBEMAP;
    *g = (vkrr_geometry){.dims = height ? 2 : 1};
    if (cube && (width != height || (layered ? depth == 0 || depth % 6 : depth != 6)))
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1,
                         "a cubemap array is square with depth=6 (layered: a multiple of 6), "
                         "not %llux%llu depth=%llu", (unsigned long long)width,
                         (unsigned long long)height, (unsigned long long)depth);
    if (layered && !depth)
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1,
                         "a layered array needs depth= (its layers) of at least 1");
    if (depth && !height && !layered)
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1,
                         "a 3D array (depth=%llu) needs height= of at least 1", (unsigned long long)depth);
    if (cube || layered) {
        g->layers = (uint32_t)depth;
        g->cube = cube;
    } else if (depth) {
        g->dims = 3;
        g->depth = (uint32_t)depth;
    }
    *rows = (height ? height : 1) * (depth ? depth : 1);
    if (*rows > UINT32_MAX)
        return vkrr_fail(c->err, VKRR_ERR_RANGE, c->path, c->line, -1,
                         "an array of %llu rows in all is more than vkrr reads (2^32-1)",
                         (unsigned long long)*rows);
    if (g->dims == 2 && !g->layers)
        *g = (vkrr_geometry){0}; /* plain 2D */
    return VKRR_OK;
}

/* cuArrayCreate, and cuArray3DCreate (depth= and flags=; vkrr's writer puts
 * them on cuArrayCreate too, as 0). */
static vkrr_status parse_array(vkrr_log *log, caps *cp, const lctx *c)
{
    uint64_t v[5], depth = 0, flags = 0, rows = 0;
    vkrr_geometry g;
    int ok;
    vkrr_status st;
    if ((st = succeeded(c, &ok)) || !ok)
        return st;
    if ((st = kv_u64(c, "width", 1, UINT32_MAX, &v[0])) ||
        (st = kv_u64(c, "height", 1, UINT32_MAX, &v[1])) ||
        (st = kv_u64(c, "format", 1, UINT32_MAX, &v[2])) ||
        (st = kv_u64(c, "channels", 1, UINT32_MAX, &v[3])) ||
        (st = kv_u64(c, "array", 1, UINT64_MAX, &v[4])) ||
        (st = kv_u64(c, "depth", 0, UINT32_MAX, &depth)) ||
        (st = kv_u64(c, "flags", 0, 0xff, &flags)) ||
        (st = array_geometry(c, v[0], v[1], depth, flags, &g, &rows)))
        return st;
    if (!v[0])
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1, "width=0: an empty array");
    vkrr_log_array *a = grow((void **)&log->arrays, &log->narrays, &cp->arrays, sizeof *a);
    if (!a)
        return vkrr_fail(c->err, VKRR_ERR_NOMEM, c->path, c->line, -1, "out of memory");
    *a = (vkrr_log_array){v[4], (uint32_t)v[0], (uint32_t)rows, (uint32_t)v[2], (uint32_t)v[3],
                          c->line, g};
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

/* The n-th (0-based) whitespace-separated token of the line. */
static int token(const lctx *c, int n, const char **t, size_t *tn)
{
    size_t i = 0;
    for (int k = 0;; k++) {
        while (i < c->n && (c->s[i] == ' ' || c->s[i] == '\t' || c->s[i] == '\r'))
            i++;
        size_t b = i;
        while (i < c->n && c->s[i] != ' ' && c->s[i] != '\t' && c->s[i] != '\r')
            i++;
        if (b == i)
            return 0;
        if (k == n) {
            *t = c->s + b;
            *tn = i - b;
            return 1;
        }
    }
}

/* launch[N] KERNEL arg[OFF] KIND SHAPE ... hash=H: the hash of one dump. */
static vkrr_status parse_dump_line(vkrr_log *log, caps *cp, const lctx *c, uint64_t seq)
{
    const char *a, *k;
    size_t an, kn;
    uint64_t off, hash, bytes = UINT64_MAX;
    static const char *kinds[] = {"buffer", "texture", "surface"};
    int kind = -1;
    if (!token(c, 2, &a, &an) || an < 6 || memcmp(a, "arg[", 4) || a[an - 1] != ']' ||
        vkrr_parse_u64(a + 4, an - 5, 0, VKRR_ARGS_MAX_BYTES, &off))
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1,
                         "a dump line (hash=) needs arg[OFF] as its third field");
    for (int i = 0; i < 3 && token(c, 3, &k, &kn); i++)
        if (kn == strlen(kinds[i]) && !memcmp(k, kinds[i], kn))
            kind = i;
    if (kind < 0)
        return vkrr_fail(c->err, VKRR_ERR_PARSE, c->path, c->line, -1,
                         "a dump line (hash=) needs buffer, texture or surface after arg[OFF]");
    vkrr_status st;
    if ((st = kv_u64(c, "hash", 1, UINT64_MAX, &hash)) ||
        (st = kv_u64(c, "bytes", 0, UINT64_MAX, &bytes)))
        return st;
    vkrr_log_dump *d = grow((void **)&log->dumps, &log->ndumps, &cp->dumps, sizeof *d);
    if (!d)
        return vkrr_fail(c->err, VKRR_ERR_NOMEM, c->path, c->line, -1, "out of memory");
    *d = (vkrr_log_dump){seq, (uint32_t)off, kind, hash, bytes, c->line};
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
    const char *v;
    size_t vn;
    if (find_kv(c->s, c->n, "hash", &v, &vn) && (st = parse_dump_line(log, cp, c, seq)))
        return st;
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

static int cmp_dump(const void *a, const void *b)
{
    const vkrr_log_dump *x = a, *y = b;
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
        vkrr_error line_err = {0};
        lctx c = {s, n, path, ln, &line_err};
        if (!nl && n) {
            st = vkrr_fail(&line_err, VKRR_ERR_PARSE, path, ln, -1,
                           "the last line has no newline: the log was cut here");
        } else if (starts(s, n, "cuArrayCreate") || starts(s, n, "cuArrayCreate_v2") ||
                   starts(s, n, "cuArray3DCreate") || starts(s, n, "cuArray3DCreate_v2"))
            st = parse_array(log, &cp, &c);
        else if (starts(s, n, "cuTexObjectCreate"))
            st = parse_texture(log, &cp, &c);
        else if (starts(s, n, "cuSurfObjectCreate"))
            st = parse_surface(log, &cp, &c);
        else if (n > 7 && !memcmp(s, "launch[", 7))
            st = parse_launch(log, &cp, &c);
        else if (starts(s, n, "device"))
            st = parse_device(log, &c);
        else if (starts(s, n, "cuModuleLoadData") || starts(s, n, "cuModuleGetFunction")) {
            int fn = starts(s, n, "cuModuleGetFunction");
            uint64_t h = 0;
            int ok;
            if (!(st = succeeded(&c, &ok)) && ok &&
                !(st = kv_u64(&c, "module", 1, UINT64_MAX, &h)))
                *(fn ? &log->nfunctions : &log->nmodules) += 1;
        }
        if (st == VKRR_ERR_NOMEM) {
            if (err)
                *err = line_err;
            goto fail;
        }
        if (st) { /* the line is skipped; what depends on it is the caller's call */
            if (!log->nbad++)
                log->bad = line_err;
            st = VKRR_OK;
        }
    }
    if (log->ndumps > 1)
        qsort(log->dumps, log->ndumps, sizeof *log->dumps, cmp_dump);
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
    free(log->dumps);
    memset(log, 0, sizeof *log);
}

const vkrr_log_dump *vkrr_log_dumps_of(const vkrr_log *log, uint64_t sequence, uint32_t *n)
{
    uint32_t lo;
    VKRR_LOWER_BOUND(log->dumps, log->ndumps, sequence, sequence, lo);
    uint32_t e = lo;
    while (e < log->ndumps && log->dumps[e].sequence == sequence)
        e++;
    *n = e - lo;
    return log->dumps ? log->dumps + lo : NULL;
}

long vkrr_log_launch_line(const vkrr_log *log, uint64_t sequence)
{
    uint32_t lo;
    VKRR_LOWER_BOUND(log->launches, log->nlaunches, sequence, sequence, lo);
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
