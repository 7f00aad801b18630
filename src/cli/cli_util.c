#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vkrr_cli_fail(const vkrr_error *err)
{
    vkrr_error_print(err, stderr);
    return vkrr_status_exit_code(err->status);
}

int vkrr_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vkrr %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nRun 'vkrr %s --help' for usage.\n", cmd);
    va_end(ap);
    return 2;
}

bool vkrr_cli_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

bool vkrr_cli_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool vkrr_cli_parse_size(const char *s, uint32_t max, uint32_t *w, uint32_t *h)
{
    const char *x = s ? strchr(s, 'x') : NULL;
    if (!x)
        return false;
    char a[32];
    size_t n = (size_t)(x - s);
    if (n == 0 || n >= sizeof a)
        return false;
    memcpy(a, s, n);
    a[n] = 0;
    uint64_t vw, vh;
    if (!vkrr_cli_parse_u64(a, max, &vw) || !vkrr_cli_parse_u64(x + 1, max, &vh) || !vw || !vh)
        return false;
    *w = (uint32_t)vw;
    *h = (uint32_t)vh;
    return true;
}

bool vkrr_cli_is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}
