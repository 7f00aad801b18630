/* bench.c - timing a launch or a frame until steady, CUDA per-launch times
 * from KERNEL_PROFILE lines, and a median. */
#include "bench.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "mapfile.h"

#define BENCH_LOG_MAX_BYTES (1024u * 1024u * 1024u)

typedef struct sample {
    uint32_t launch;
    double ms;
} sample;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double vkrr_bench_median(double *v, size_t n)
{
    if (!n || !v)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int cmp_sample(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    return (x->launch > y->launch) - (x->launch < y->launch);
}

/* A whole decimal number in [s, e); false otherwise. */
static bool parse_u64(const char *s, const char *e, uint64_t *out)
{
    uint64_t v = 0;
    if (s == e)
        return false;
    for (; s < e; s++) {
        if (!isdigit((unsigned char)*s) || v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return true;
}

static bool key_is(const char *tok, size_t klen, const char *key)
{
    return strlen(key) == klen && !strncmp(tok, key, klen);
}

typedef struct profile_line {
    bool has_seq, has_ms;
    uint64_t seq;
    const char *name;
    size_t name_len;
    double ms;
} profile_line;

/* Reads the tokens after KERNEL_PROFILE up to end. */
static void parse_line(const char *p, const char *end, profile_line *pl)
{
    memset(pl, 0, sizeof *pl);
    while (p < end) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        const char *t = p;
        while (p < end && !isspace((unsigned char)*p))
            p++;
        if (t == p)
            break;
        const char *eq = memchr(t, '=', (size_t)(p - t));
        if (!eq) {
            if (p - t > 8 && !strncmp(t, "launch[", 7) && p[-1] == ']')
                pl->has_seq = parse_u64(t + 7, p - 1, &pl->seq) || pl->has_seq;
            else if (!pl->name) {
                pl->name = t;
                pl->name_len = (size_t)(p - t);
                if (pl->name_len > 1 && t[pl->name_len - 1] == ':')
                    pl->name_len--;
            }
            continue;
        }
        size_t klen = (size_t)(eq - t);
        const char *v = eq + 1;
        if (key_is(t, klen, "gpu_ms")) {
            char buf[64];
            size_t n = (size_t)(p - v) < sizeof buf - 1 ? (size_t)(p - v) : sizeof buf - 1;
            memcpy(buf, v, n);
            buf[n] = 0;
            char *stop;
            double ms = strtod(buf, &stop);
            if (stop != buf && isfinite(ms) && ms >= 0) {
                pl->ms = ms;
                pl->has_ms = true;
            }
        } else if (key_is(t, klen, "launch") || key_is(t, klen, "seq") || key_is(t, klen, "sequence")) {
            uint64_t s;
            if (parse_u64(v, p, &s)) {
                pl->seq = s;
                pl->has_seq = true;
            }
        } else if (key_is(t, klen, "kernel") || key_is(t, klen, "name")) {
            pl->name = v;
            pl->name_len = (size_t)(p - v);
        }
    }
}

/* The launch a profiler line names; UINT32_MAX when none. seen[] counts the
 * name-only lines per kernel, kept at the kernel's first launch. */
static uint32_t attribute(const vkrr_capture *cap, const profile_line *pl, uint32_t *seen)
{
    if (pl->has_seq) {
        for (uint32_t i = 0; i < cap->nlaunches; i++)
            if (cap->launches[i].sequence == pl->seq)
                return i;
        return UINT32_MAX;
    }
    if (!pl->name)
        return UINT32_MAX;
    uint32_t first = UINT32_MAX;
    for (uint32_t i = 0; i < cap->nlaunches && first == UINT32_MAX; i++) {
        const char *k = cap->launches[i].kernel;
        if (strlen(k) == pl->name_len && !strncmp(k, pl->name, pl->name_len))
            first = i;
    }
    if (first == UINT32_MAX)
        return UINT32_MAX;
    uint32_t occ = seen[first]++;
    for (uint32_t i = first; i < cap->nlaunches; i++)
        if (!strcmp(cap->launches[i].kernel, cap->launches[first].kernel) &&
            cap->launches[i].occurrence == occ)
            return i;
    return UINT32_MAX;
}

vkrr_status vkrr_bench_profile_parse(const vkrr_capture *cap, const char *text, size_t len,
                                     double *cuda_ms, vkrr_bench_profile_stats *stats,
                                     vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    static const char tag[] = "KERNEL_PROFILE";
    vkrr_bench_profile_stats s = {0};
    sample *v = NULL;
    size_t nv = 0, capv = 0;
    double *vals = NULL;
    uint32_t *seen = calloc(cap->nlaunches ? cap->nlaunches : 1, sizeof *seen);
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        cuda_ms[i] = NAN;
    if (!seen)
        goto nomem;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *hit = NULL;
        for (const char *q = p; q + sizeof tag - 1 <= le && !hit; q++)
            if (*q == 'K' && !memcmp(q, tag, sizeof tag - 1))
                hit = q;
        if (hit) {
            s.lines++;
            profile_line pl;
            parse_line(hit + sizeof tag - 1, le, &pl);
            uint32_t li = pl.has_ms ? attribute(cap, &pl, seen) : UINT32_MAX;
            if (li != UINT32_MAX) {
                if (nv == capv) {
                    size_t nc = capv ? 2 * capv : 64;
                    sample *g = realloc(v, nc * sizeof *g);
                    if (!g)
                        goto nomem;
                    v = g;
                    capv = nc;
                }
                v[nv++] = (sample){li, pl.ms};
                s.matched++;
            }
        }
        p = nl ? nl + 1 : end;
    }
    if (nv)
        qsort(v, nv, sizeof *v, cmp_sample);
    if (nv && !(vals = malloc(nv * sizeof *vals)))
        goto nomem;
    for (size_t i = 0; i < nv;) {
        size_t j = i;
        while (j < nv && v[j].launch == v[i].launch) {
            vals[j - i] = v[j].ms;
            j++;
        }
        cuda_ms[v[i].launch] = vkrr_bench_median(vals, j - i);
        s.launches++;
        i = j;
    }
    goto done;
nomem:
    st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory reading profiler lines");
done:
    free(vals);
    free(v);
    free(seen);
    if (stats)
        *stats = s;
    return st;
}

vkrr_status vkrr_bench_profile_load(const vkrr_capture *cap, double *cuda_ms,
                                    vkrr_bench_profile_stats *stats, vkrr_error *err)
{
    char path[4096];
    char *text = NULL;
    size_t len = 0;
    if (stats)
        memset(stats, 0, sizeof *stats);
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        cuda_ms[i] = NAN;
    if (!cap->has_log)
        return VKRR_OK;
    if (snprintf(path, sizeof path, "%s/run/run.log", cap->path) >= (int)sizeof path)
        return vkrr_fail(err, VKRR_ERR_IO, cap->path, 0, -1, "capture path too long");
    vkrr_status st = vkrr_read_text(path, BENCH_LOG_MAX_BYTES, &text, &len, err);
    if (st != VKRR_OK)
        return st;
    st = vkrr_bench_profile_parse(cap, text, len, cuda_ms, stats, err);
    free(text);
    return st;
}

vkrr_bench_fig vkrr_bench_fig_none(void)
{
    return (vkrr_bench_fig){.min = NAN, .median = NAN, .max = NAN, .spread = NAN};
}

bool vkrr_bench_fig_spread(const vkrr_bench_fig *f)
{
    return f->spread > VKRR_BENCH_SPREAD; /* false for NAN */
}

/* runs timed runs into v (sorted on return); *any false when one had no time. */
static vkrr_status batch(vkrr_bench_run_fn run_once, void *ctx, double *v, unsigned runs, bool *timed,
                         vkrr_error *err)
{
    *timed = true;
    for (unsigned k = 0; k < runs; k++) {
        vkrr_status s = run_once(ctx, &v[k], err);
        if (s != VKRR_OK)
            return s;
        if (isnan(v[k]))
            *timed = false;
    }
    qsort(v, runs, sizeof *v, cmp_double);
    return VKRR_OK;
}

static double median_sorted(const double *v, unsigned n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

vkrr_status vkrr_bench_measure(const vkrr_bench_plan *plan, vkrr_bench_run_fn run_once, void *ctx,
                               vkrr_bench_fig *fig, vkrr_error *err)
{
    *fig = vkrr_bench_fig_none();
    const unsigned runs = plan->runs ? plan->runs : 1;
    unsigned max_batches = plan->max_batches ? plan->max_batches : VKRR_BENCH_MAX_BATCHES;
    if (max_batches < 2)
        max_batches = 2; /* two medians to compare */
    const double max_warmup_s = plan->max_warmup_s > 0 ? plan->max_warmup_s : VKRR_BENCH_MAX_WARMUP_S;
    double *prev = malloc(runs * sizeof *prev), *cur = malloc(runs * sizeof *cur);
    vkrr_status s = VKRR_OK;
    if (!prev || !cur) {
        s = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory for %u timings", runs);
        goto done;
    }
    const double t0 = vkrr_now_s();
    double first;
    if ((s = run_once(ctx, &first, err)) != VKRR_OK || isnan(first))
        goto done; /* no time at all: nothing to wait for */
    unsigned batches = 1;
    bool timed;
    if ((s = batch(run_once, ctx, prev, runs, &timed, err)) != VKRR_OK || !timed)
        goto done;
    for (;;) {
        /* the bound, checked before each further batch: the figures are then
         * the latest batch's (the first one's when it came at once) */
        if (batches >= max_batches || vkrr_now_s() - t0 >= max_warmup_s) {
            double *t = prev;
            prev = cur;
            cur = t;
            break;
        }
        if ((s = batch(run_once, ctx, cur, runs, &timed, err)) != VKRR_OK || !timed)
            goto done;
        batches++;
        double a = median_sorted(prev, runs), b = median_sorted(cur, runs);
        fig->steady = fabs(a - b) <= VKRR_BENCH_STEADY * fmax(a, b);
        if (fig->steady)
            break;
        double *t = prev;
        prev = cur;
        cur = t;
    }
    fig->min = cur[0];
    fig->max = cur[runs - 1];
    fig->median = median_sorted(cur, runs);
    fig->timed = runs;
    fig->warmup = 1 + runs * (batches - 1); /* every batch before the last */
    fig->spread = fig->median > 0 ? (fig->max - fig->min) / fig->median : 0;
done:
    free(prev);
    free(cur);
    return s;
}
