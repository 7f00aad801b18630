#include "status.h"

#include <string.h>

enum { SCOPE_RUN, SCOPE_LAUNCH, SCOPE_INPUT };

static const struct {
    const char *name;
    int code;
    int scope;
    const char *msg;
} status_table[] = {
#define VKRR_X_ROW(name, code, scope, msg) {#name, code, SCOPE_##scope, msg},
    VKRR_STATUS_LIST(VKRR_X_ROW)
#undef VKRR_X_ROW
};

static unsigned warnings;
static FILE *warn_stream;
static int warn_stream_set;

const char *vkrr_status_name(vkrr_status s)
{
    return (unsigned)s < VKRR_STATUS_COUNT ? status_table[s].name : "VKRR_ERR_?";
}

const char *vkrr_status_message(vkrr_status s)
{
    return (unsigned)s < VKRR_STATUS_COUNT ? status_table[s].msg : "unknown status";
}

int vkrr_status_exit_code(vkrr_status s)
{
    return (unsigned)s < VKRR_STATUS_COUNT ? status_table[s].code : 2;
}

bool vkrr_status_ends_run(vkrr_status s, bool from_capture)
{
    int scope = (unsigned)s < VKRR_STATUS_COUNT ? status_table[s].scope : SCOPE_RUN;
    return scope == SCOPE_RUN || (scope == SCOPE_INPUT && !from_capture);
}

vkrr_status vkrr_fail(vkrr_error *err, vkrr_status status, const char *file,
                      long line, long offset, const char *fmt, ...)
{
    if (!err)
        return status;
    err->status = status;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return status;
}

void vkrr_error_format(const vkrr_error *err, char *buf, size_t cap)
{
    const char *msg = err->msg[0] ? err->msg : vkrr_status_message(err->status);
    if (err->file[0] && err->line > 0)
        snprintf(buf, cap, "%s:%ld: %s", err->file, err->line, msg);
    else if (err->file[0] && err->offset >= 0)
        snprintf(buf, cap, "%s: at byte %ld: %s", err->file, err->offset, msg);
    else if (err->file[0])
        snprintf(buf, cap, "%s: %s", err->file, msg);
    else
        snprintf(buf, cap, "%s", msg);
}

void vkrr_error_print(const vkrr_error *err, FILE *f)
{
    char buf[1400];
    vkrr_error_format(err, buf, sizeof buf);
    fprintf(f, "vkrr: error: %s\n", buf);
}

void vkrr_warn_set_stream(FILE *f)
{
    warn_stream = f;
    warn_stream_set = 1;
}

void vkrr_warn(const char *fmt, ...)
{
    warnings++;
    FILE *f = warn_stream_set ? warn_stream : stderr;
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("vkrr: warning: ", f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    va_end(ap);
}

unsigned vkrr_warning_count(void)
{
    return warnings;
}
