/* capture_log.c - the bridge's run/run.log: walks the lines, strips their
 * prefixes, hands each kind to its reader (capture_log_objects.c,
 * capture_log_launch.c), and answers lookups on the result.  Lines of kinds
 * vkrr does not use (Wine's, the bridge's memory and context calls) are
 * ignored; a used line with a malformed field is skipped and counted (the
 * first one kept). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_log_internal.h"

/* Dispatches one line; *state: it may hold array/texture/surface state. */
static vkrr_status read_line(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c, bool *state)
{
    const char *s = c->s;
    size_t n = c->n;
    const char *t;
    size_t tn;
    *state = false;
    if (vkrr_log_starts(s, n, "cuArrayCreate") || vkrr_log_starts(s, n, "cuArrayCreate_v2") ||
        vkrr_log_starts(s, n, "cuArray3DCreate") || vkrr_log_starts(s, n, "cuArray3DCreate_v2"))
        return *state = true, vkrr_log_read_array(log, b, c);
    if (vkrr_log_starts(s, n, "cuTexObjectCreate")) {
        /* "cuTexObjectCreate descriptor tracking failed object=...": the
         * bridge's own bookkeeping, no state of the texture */
        if (vkrr_log_token(c, 1, &t, &tn) && tn == 10 && !memcmp(t, "descriptor", 10))
            return VKRR_OK;
        return *state = true, vkrr_log_read_texture(log, b, c);
    }
    if (vkrr_log_starts(s, n, "d4rRegisterLinearTexture"))
        return *state = true, vkrr_log_read_linear_register(log, c);
    if (vkrr_log_starts(s, n, "cuSurfObjectCreate"))
        return *state = true, vkrr_log_read_surface(log, b, c);
    if (vkrr_log_starts(s, n, "cuModuleLoadData") || vkrr_log_starts(s, n, "cuModuleLoadDataEx"))
        return vkrr_log_read_module(log, b, c);
    if (vkrr_log_starts(s, n, "cuModuleGetFunction"))
        return vkrr_log_read_function(log, b, c);
    if (vkrr_log_starts(s, n, "cuLaunchKernel"))
        return vkrr_log_read_call(log, b, c);
    if (vkrr_log_starts(s, n, "replay") && vkrr_log_token(c, 1, &t, &tn) && tn == 7 &&
        !memcmp(t, "capture", 7))
        return vkrr_log_read_replay(log, b, c);
    if (vkrr_log_starts(s, n, "KERNEL_PROFILE"))
        return vkrr_log_read_profile(log, b, c);
    if (n > 7 && !memcmp(s, "launch[", 7))
        return vkrr_log_read_launch(log, b, c);
    if (vkrr_log_starts(s, n, "device"))
        return vkrr_log_read_device(log, c);
    if (vkrr_log_starts(s, n, "vkrr"))
        return *state = true, vkrr_log_read_extension(log, c);
    if (vkrr_log_starts(s, n, "cuDeviceGetAttribute"))
        return vkrr_log_read_attribute(b, c);
    return VKRR_OK;
}

/* Strips "[tag] " prefixes, e.g. "[d4r nvcuda] " (but not "launch[N]"). */
static void strip_prefixes(const char **s, size_t *n)
{
    for (;;) {
        while (*n && (**s == ' ' || **s == '\t')) {
            (*s)++;
            (*n)--;
        }
        if (!*n || **s != '[')
            return;
        const char *close = memchr(*s, ']', *n);
        if (!close)
            return;
        *n -= (size_t)(close + 1 - *s);
        *s = close + 1;
    }
}

static int cmp_dump(const void *a, const void *b)
{
    const vkrr_log_dump *x = a, *y = b;
    if (x->sequence != y->sequence)
        return x->sequence < y->sequence ? -1 : 1;
    return (x->stats.line > y->stats.line) - (x->stats.line < y->stats.line);
}

vkrr_status vkrr_log_parse(vkrr_log *log, const char *text, size_t len, const char *path,
                           vkrr_error *err)
{
    memset(log, 0, sizeof *log);
    vkrr_log_build b = {.pending_module = -1, .cc_major = -1, .cc_minor = -1};
    vkrr_status st = VKRR_OK;
    long ln = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl ? 1 : 0);
        ln++;
        strip_prefixes(&s, &n);
        vkrr_error line_err = {0};
        vkrr_log_ctx c = {s, n, path, ln, &line_err};
        bool state = false;
        if (!nl && n)
            st = vkrr_log_bad(&c, VKRR_ERR_PARSE, "the last line has no newline: the log was cut here");
        else
            st = read_line(log, &b, &c, &state);
        if (st == VKRR_ERR_NOMEM) {
            if (err)
                *err = line_err;
            goto fail;
        }
        if (st) { /* the line is skipped; what depends on it is the caller's call */
            if (!log->nbad++)
                log->bad = line_err;
            if ((state || !nl) && log->bad_state.status == VKRR_OK)
                log->bad_state = line_err;
            st = VKRR_OK;
        }
    }
    if (!log->device.present && b.cc_major >= 0 && b.cc_minor >= 0)
        log->device = (vkrr_capture_device){.present = true, .name = "(cuDeviceGetAttribute)",
                                            .cc_major = b.cc_major, .cc_minor = b.cc_minor};
    if (log->ndumps > 1)
        qsort(log->dumps, log->ndumps, sizeof *log->dumps, cmp_dump);
    vkrr_log_merge_launches(log);
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
    free(log->modules);
    free(log->functions);
    free(log->names);
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

const vkrr_log_launch *vkrr_log_launch_find(const vkrr_log *log, uint64_t sequence)
{
    uint32_t lo;
    VKRR_LOWER_BOUND(log->launches, log->nlaunches, sequence, sequence, lo);
    return lo < log->nlaunches && log->launches[lo].sequence == sequence ? &log->launches[lo] : NULL;
}

long vkrr_log_launch_line(const vkrr_log *log, uint64_t sequence)
{
    const vkrr_log_launch *l = vkrr_log_launch_find(log, sequence);
    return l ? l->line : 0;
}

const vkrr_log_module *vkrr_log_module_of(const vkrr_log *log, uint64_t function)
{
    for (uint32_t i = log->nfunctions; function && i-- > 0;)
        if (log->functions[i].function == function)
            for (uint32_t m = log->nmodules; m-- > 0;)
                if (log->modules[m].handle == log->functions[i].module &&
                    log->modules[m].line < log->functions[i].line)
                    return &log->modules[m];
    return NULL;
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
