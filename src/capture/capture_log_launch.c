/* capture_log_launch.c - the log's lines about launches and modules:
 *   launch[N] K arg[OFF] KIND SHAPE fmt= bytes= nonzero_bytes= hash=H
 *       f16{nonzero= nan_inf= min= max= mean_abs=} f32{nan_inf= min= max=}
 *   launch[N] K synchronize result=R          (and vkrr's older launch[N] K grid=...)
 *   cuLaunchKernel[N] K / cuLaunchKernel function= grid= ... result=R (extra[], packed_arg[])
 *   replay capture launch[N] K -> DIR
 *   KERNEL_PROFILE launch=N eligible=E gpu_ms=X name=K
 *   cuModuleLoadData[Ex] captured PTX|CUDA fatbin v1 size=... to PATH (complete)
 *   cuModuleLoadData[Ex] image=%p [options=] result=R module=%p
 *   cuModuleGetFunction module=%p name=K result=R function=%p
 * Each launch line adds an event to log->launches; vkrr_log_merge_launches
 * folds them into one record a launch. */
#include <stdlib.h>
#include <string.h>

#include "capture_log_internal.h"

/* A kernel name, kept once while the same name repeats. */
static uint32_t keep_kernel(vkrr_log *log, vkrr_log_build *b, const char *k, size_t kn)
{
    for (uint32_t i = log->nlaunches; i-- > 0 && i + 4 >= log->nlaunches;) {
        uint32_t off = log->launches[i].kernel;
        if (off && strlen(log->names + off) == kn && !memcmp(log->names + off, k, kn))
            return off;
    }
    return vkrr_log_keep_name(log, b, k, kn);
}

/* A launch event: launch N, kernel (token `ktoken` of the line, -1: none). */
static vkrr_log_launch *event(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c,
                              uint64_t seq, int ktoken)
{
    const char *k = NULL;
    size_t kn = 0;
    uint32_t koff = 0;
    if (ktoken >= 0 && vkrr_log_token(c, ktoken, &k, &kn) && vkrr_log_name_ok(k, kn) &&
        !(koff = keep_kernel(log, b, k, kn)))
        return NULL; /* a name with control characters stays unnamed */
    vkrr_log_launch *l = vkrr_log_grow((void **)&log->launches, &log->nlaunches, &b->launches, sizeof *l);
    if (l)
        *l = (vkrr_log_launch){.sequence = seq, .line = c->line, .kernel = koff};
    return l;
}

/* "[N]" at s (n bytes): N, the bytes it took in *used. */
static vkrr_status bracket(const vkrr_log_ctx *c, const char *s, size_t n, uint64_t *seq, size_t *used)
{
    const char *close = n > 1 && s[0] == '[' ? memchr(s, ']', n) : NULL;
    vkrr_status st = close ? vkrr_parse_u64(s + 1, (size_t)(close - s - 1), 0, UINT64_MAX, seq)
                           : VKRR_ERR_PARSE;
    if (st)
        return vkrr_log_bad(c, st, "launch[N]: N is %s", st == VKRR_ERR_RANGE ? "out of range" : "not a number");
    *used = (size_t)(close + 1 - s);
    return VKRR_OK;
}

/* hash=H: the bridge's %016llx (bare hex), or 0x-hex (vkrr's older writer). */
static vkrr_status read_hash(const vkrr_log_ctx *c, uint64_t *h)
{
    const char *v;
    size_t vn;
    if (!vkrr_log_find_kv(c, "hash", &v, &vn))
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "missing hash=");
    if (vn > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
        v += 2, vn -= 2;
    uint64_t x = 0;
    bool ok = vn >= 1 && vn <= 16;
    for (size_t i = 0; ok && i < vn; i++) {
        char ch = v[i];
        unsigned d = ch >= '0' && ch <= '9' ? (unsigned)(ch - '0')
                   : ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10)
                   : ch >= 'A' && ch <= 'F' ? (unsigned)(ch - 'A' + 10) : 16u;
        ok = d < 16;
        x = x << 4 | d;
    }
    if (!ok)
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "hash=%.*s is not a 64-bit hex number", (int)(vn > 32 ? 32 : vn), v);
    *h = x;
    return VKRR_OK;
}

/* key=%g inside a group into *out. */
static vkrr_status group_double(const vkrr_log_ctx *g, const char *key, double *out)
{
    const char *v;
    size_t vn;
    char buf[64];
    if (!vkrr_log_find_kv(g, key, &v, &vn))
        return vkrr_log_bad(g, VKRR_ERR_PARSE, "missing %s= in its {...} group", key);
    char *end = NULL;
    if (vn >= sizeof buf)
        vn = sizeof buf - 1;
    memcpy(buf, v, vn);
    buf[vn] = 0;
    *out = strtod(buf, &end);
    if (!vn || *end)
        return vkrr_log_bad(g, VKRR_ERR_PARSE, "%s=%s is not a number", key, buf);
    return VKRR_OK;
}

/* name{...}: the group's text as a line of its own; false when absent. */
static bool group(const vkrr_log_ctx *c, const char *name, vkrr_log_ctx *g)
{
    size_t kl = strlen(name);
    for (size_t i = 0; i + kl + 1 < c->n; i++) {
        if ((i && c->s[i - 1] != ' ') || memcmp(c->s + i, name, kl) || c->s[i + kl] != '{')
            continue;
        const char *b = c->s + i + kl + 1;
        const char *e = memchr(b, '}', c->n - (size_t)(b - c->s));
        *g = *c;
        g->s = b;
        g->n = e ? (size_t)(e - b) : c->n - (size_t)(b - c->s);
        return e != NULL;
    }
    return false;
}

/* The statistics after KIND SHAPE: hash, nonzero_bytes, f16{} and f32{}. */
static vkrr_status read_stats(const vkrr_log_ctx *c, vkrr_dump_stats *s)
{
    vkrr_log_ctx g;
    vkrr_status st;
    const char *v;
    size_t vn;
    if ((st = read_hash(c, &s->hash)))
        return st;
    s->has_hash = true;
    if (vkrr_log_find_kv(c, "nonzero_bytes", &v, &vn)) {
        if ((st = vkrr_log_kv_u64(c, "nonzero_bytes", true, UINT64_MAX, &s->nonzero_bytes)))
            return st;
        s->has_nonzero = true;
    }
    if (group(c, "f16", &g)) {
        if ((st = vkrr_log_kv_u64(&g, "nonzero", true, UINT64_MAX, &s->f16_nonzero)) ||
            (st = vkrr_log_kv_u64(&g, "nan_inf", true, UINT64_MAX, &s->f16_nan_inf)) ||
            (st = group_double(&g, "min", &s->f16_min)) || (st = group_double(&g, "max", &s->f16_max)) ||
            (vkrr_log_find_kv(&g, "mean_abs", &v, &vn) && (st = group_double(&g, "mean_abs", &s->f16_mean_abs))))
            return st;
        s->has_f16 = true;
    }
    if (group(c, "f32", &g)) {
        if ((st = vkrr_log_kv_u64(&g, "nan_inf", true, UINT64_MAX, &s->f32_nan_inf)) ||
            (st = group_double(&g, "min", &s->f32_min)) || (st = group_double(&g, "max", &s->f32_max)))
            return st;
        s->has_f32 = true;
    }
    s->line = c->line;
    return VKRR_OK;
}

/* launch[N] K arg[OFF] KIND SHAPE ... hash=H ...: what the log says of one dump. */
static vkrr_status read_dump_line(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c, uint64_t seq)
{
    const char *a, *k;
    size_t an, kn;
    uint64_t off, bytes = UINT64_MAX;
    static const char *kinds[] = {"buffer", "texture", "surface"};
    int kind = -1;
    if (!vkrr_log_token(c, 2, &a, &an) || an < 6 || memcmp(a, "arg[", 4) || a[an - 1] != ']' ||
        vkrr_parse_u64(a + 4, an - 5, 0, VKRR_ARGS_MAX_BYTES, &off))
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "a statistics line (hash=) needs arg[OFF] as its third field");
    for (int i = 0; i < 3 && vkrr_log_token(c, 3, &k, &kn); i++)
        if (kn == strlen(kinds[i]) && !memcmp(k, kinds[i], kn))
            kind = i;
    if (kind < 0)
        return vkrr_log_bad(c, VKRR_ERR_PARSE,
                            "a statistics line (hash=) needs buffer, texture or surface after arg[OFF]");
    vkrr_dump_stats s = {0};
    vkrr_status st;
    if ((st = read_stats(c, &s)) || (st = vkrr_log_kv_u64(c, "bytes", false, UINT64_MAX, &bytes)))
        return st;
    vkrr_log_dump *d = vkrr_log_grow((void **)&log->dumps, &log->ndumps, &b->dumps, sizeof *d);
    if (!d)
        return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
    *d = (vkrr_log_dump){seq, (uint32_t)off, kind, bytes, s};
    return VKRR_OK;
}

vkrr_status vkrr_log_read_launch(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c)
{
    uint64_t seq;
    size_t used;
    const char *v, *t;
    size_t vn, tn;
    vkrr_status st = bracket(c, c->s + 6, c->n - 6, &seq, &used);
    if (st)
        return st;
    if (vkrr_log_find_kv(c, "hash", &v, &vn) && (st = read_dump_line(log, b, c, seq)))
        return st;
    vkrr_log_launch *l = event(log, b, c, seq, 1);
    if (!l)
        return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
    if (vkrr_log_token(c, 2, &t, &tn) && tn == 11 && !memcmp(t, "synchronize", 11)) {
        if ((st = vkrr_log_kv_i64(c, "result", true, &l->sync_result)))
            return st;
        l->has_sync = true;
        l->sync_line = c->line;
    }
    return VKRR_OK;
}

/* cuLaunchKernel[N] K, then cuLaunchKernel function=%p grid=... result=R,
 * extra[i]=..., packed_args ..., packed_arg[i]=... */
vkrr_status vkrr_log_read_call(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c)
{
    size_t k = strlen("cuLaunchKernel");
    if (c->n > k && c->s[k] == '[') {
        uint64_t seq;
        size_t used;
        vkrr_status st = bracket(c, c->s + k, c->n - k, &seq, &used);
        if (st)
            return st;
        if (!event(log, b, c, seq, 1))
            return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
        b->has_call_seq = true;
        b->call_seq = seq;
        return VKRR_OK;
    }
    const char *v;
    size_t vn;
    if (!vkrr_log_find_kv(c, "function", &v, &vn) || !vkrr_log_find_kv(c, "grid", &v, &vn))
        return VKRR_OK; /* extra[], packed_args, packed_arg[]: the parameters, also in args.bin */
    if (!b->has_call_seq)
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "cuLaunchKernel function=... with no "
                            "cuLaunchKernel[N] line before it");
    vkrr_log_launch *l = event(log, b, c, b->call_seq, -1);
    if (!l)
        return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
    b->has_call_seq = false;
    vkrr_status st;
    if ((st = vkrr_log_kv_u64(c, "function", true, UINT64_MAX, &l->function)) ||
        (st = vkrr_log_kv_i64(c, "result", true, &l->call_result)))
        return st;
    l->has_call = true;
    l->call_line = c->line;
    return VKRR_OK;
}

/* replay capture launch[N] K -> DIR */
vkrr_status vkrr_log_read_replay(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c)
{
    const char *t;
    size_t tn, used;
    uint64_t seq;
    vkrr_status st;
    if (!vkrr_log_token(c, 2, &t, &tn) || tn < 8 || memcmp(t, "launch[", 7))
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "replay capture: expected launch[N] as the third field");
    if ((st = bracket(c, t + 6, tn - 6, &seq, &used)))
        return st;
    vkrr_log_launch *l = event(log, b, c, seq, 3);
    if (!l)
        return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
    l->replayed = true;
    return VKRR_OK;
}

/* KERNEL_PROFILE launch=N eligible=E gpu_ms=X name=K (the times are bench's,
 * src/cli/bench.c; here the line only says launch N ran kernel K). */
vkrr_status vkrr_log_read_profile(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c)
{
    const char *v, *k;
    size_t vn, kn;
    uint64_t seq;
    if (!vkrr_log_find_kv(c, "launch", &v, &vn) || !vkrr_log_find_kv(c, "name", &k, &kn))
        return VKRR_OK; /* other profilers' forms, which bench reads */
    if (!vkrr_log_name_ok(k, kn))
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "KERNEL_PROFILE: name= is empty or holds a control character");
    vkrr_status st = vkrr_log_kv_u64(c, "launch", true, UINT64_MAX, &seq);
    if (st)
        return st;
    uint32_t koff = keep_kernel(log, b, k, kn);
    vkrr_log_launch *l = koff ? event(log, b, c, seq, -1) : NULL;
    if (!l)
        return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
    l->kernel = koff;
    return VKRR_OK;
}

/* "... to PATH (complete)": PATH, the state in *complete. */
static bool capture_path(const vkrr_log_ctx *c, const char **p, size_t *pn, bool *complete)
{
    const char *to = NULL;
    for (size_t i = 0; i + 4 <= c->n; i++)
        if (!memcmp(c->s + i, " to ", 4)) {
            to = c->s + i + 4;
            break;
        }
    if (!to)
        return false;
    const char *end = c->s + c->n;
    while (end > to && (end[-1] == ' ' || end[-1] == '\r'))
        end--;
    const char *open = NULL;
    for (const char *q = end; q > to; q--)
        if (q[-1] == '(' && q - 1 > to && q[-2] == ' ') {
            open = q - 2;
            break;
        }
    if (!open || end[-1] != ')')
        return false;
    *complete = (size_t)(end - open) == strlen(" (complete)") && !memcmp(open, " (complete)", 11);
    *p = to;
    *pn = (size_t)(open - to);
    return *pn > 0;
}

/* The module capture line (before its load line): the file it went to. */
static vkrr_status read_capture(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c)
{
    const char *t, *p;
    size_t tn, pn;
    bool complete;
    uint64_t size = 0;
    vkrr_status st;
    if (!vkrr_log_token(c, 2, &t, &tn))
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "a module capture line needs PTX or CUDA fatbin");
    int kind = tn == 3 && !memcmp(t, "PTX", 3) ? VKRR_LOG_MODULE_PTX
             : tn == 4 && !memcmp(t, "CUDA", 4) ? VKRR_LOG_MODULE_FATBIN : VKRR_LOG_MODULE_UNKNOWN;
    if (kind == VKRR_LOG_MODULE_UNKNOWN)
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "a module capture line needs PTX or CUDA fatbin, not '%.*s'",
                            (int)(tn > 32 ? 32 : tn), t);
    if ((st = vkrr_log_kv_u64(c, "size", true, UINT64_MAX, &size)))
        return st;
    if (!capture_path(c, &p, &pn, &complete) || !vkrr_log_name_ok(p, pn))
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "a module capture line ends 'to PATH (complete)'");
    vkrr_log_module *m = vkrr_log_grow((void **)&log->modules, &log->nmodules, &b->modules, sizeof *m);
    uint32_t off = m ? vkrr_log_keep_name(log, b, p, pn) : 0;
    if (!m || !off)
        return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
    *m = (vkrr_log_module){.path = off, .kind = kind, .size = size, .complete = complete, .line = c->line};
    b->pending_module = (int32_t)(log->nmodules - 1);
    return VKRR_OK;
}

vkrr_status vkrr_log_read_module(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c)
{
    const char *t, *v;
    size_t tn, vn;
    if (!vkrr_log_token(c, 1, &t, &tn))
        return VKRR_OK;
    if (tn == 8 && !memcmp(t, "captured", 8))
        return read_capture(log, b, c);
    if (!vkrr_log_find_kv(c, "module", &v, &vn))
        return VKRR_OK; /* the bridge's notes on an image it could not capture */
    bool ok;
    uint64_t h = 0;
    vkrr_status st;
    if ((st = vkrr_log_succeeded(c, &ok)) || (ok && (st = vkrr_log_kv_u64(c, "module", true, UINT64_MAX, &h))))
        return st;
    int32_t pend = b->pending_module;
    b->pending_module = -1;
    if (!ok)
        return VKRR_OK; /* no module was made */
    vkrr_log_module *m = pend >= 0 ? &log->modules[pend] : NULL;
    if (!m) {
        if (!(m = vkrr_log_grow((void **)&log->modules, &log->nmodules, &b->modules, sizeof *m)))
            return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
        m->line = c->line;
        /* vkrr's older writer: image=FILE (a name, not a pointer) */
        if (vkrr_log_find_kv(c, "image", &v, &vn) && vkrr_log_name_ok(v, vn) && v[0] != '0' && v[0] != '(') {
            if (!(m->path = vkrr_log_keep_name(log, b, v, vn)))
                return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
            m->complete = true;
            size_t l = vn;
            m->kind = l > 4 && !memcmp(v + l - 4, ".ptx", 4) ? VKRR_LOG_MODULE_PTX : VKRR_LOG_MODULE_FATBIN;
        }
    }
    m->handle = h;
    return VKRR_OK;
}

vkrr_status vkrr_log_read_function(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c)
{
    bool ok;
    uint64_t mod = 0, fn = 0;
    const char *k;
    size_t kn;
    vkrr_status st;
    if ((st = vkrr_log_succeeded(c, &ok)) || !ok)
        return st;
    if ((st = vkrr_log_kv_u64(c, "module", true, UINT64_MAX, &mod)) ||
        (st = vkrr_log_kv_u64(c, "function", true, UINT64_MAX, &fn)))
        return st;
    if (!vkrr_log_find_kv(c, "name", &k, &kn) || !kn)
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "missing name=");
    if (!vkrr_log_name_ok(k, kn))
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "name= holds a control character");
    vkrr_log_function *f = vkrr_log_grow((void **)&log->functions, &log->nfunctions, &b->functions, sizeof *f);
    uint32_t off = f ? vkrr_log_keep_name(log, b, k, kn) : 0;
    if (!f || !off)
        return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
    *f = (vkrr_log_function){mod, fn, off, c->line};
    return VKRR_OK;
}

static int cmp_event(const void *a, const void *b)
{
    const vkrr_log_launch *x = a, *y = b;
    if (x->sequence != y->sequence)
        return x->sequence < y->sequence ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

void vkrr_log_merge_launches(vkrr_log *log)
{
    if (log->nlaunches > 1)
        qsort(log->launches, log->nlaunches, sizeof *log->launches, cmp_event);
    uint32_t k = 0;
    for (uint32_t i = 0; i < log->nlaunches; i++) {
        const vkrr_log_launch *e = &log->launches[i];
        if (k && log->launches[k - 1].sequence == e->sequence) {
            vkrr_log_launch *m = &log->launches[k - 1];
            if (!m->kernel)
                m->kernel = e->kernel;
            m->replayed = m->replayed || e->replayed;
            if (e->has_sync && !m->has_sync)
                m->has_sync = true, m->sync_result = e->sync_result, m->sync_line = e->sync_line;
            if (e->has_call && !m->has_call)
                m->has_call = true, m->function = e->function, m->call_result = e->call_result,
                m->call_line = e->call_line;
            continue;
        }
        log->launches[k++] = *e;
    }
    log->nlaunches = k;
}
