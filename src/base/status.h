/* status.h - vkrr's error model.
 *
 * Every fallible function returns a vkrr_status and, when it fails, fills a
 * vkrr_error the caller owns (stack storage, no allocation): which status, the
 * file at fault, the line or the byte offset in it where known, and a message.
 * Only main.c turns a status into an exit code and prints the error.
 *
 *     vkrr_error err = {0};
 *     if (vkrr_capture_open(&cap, dir, &err) != VKRR_OK) {
 *         vkrr_error_print(&err, stderr);
 *         return vkrr_status_exit_code(err.status);
 *     }
 *
 * Exit codes of the whole tool: 0 all pass, 1 a mismatch was found, 2 bad input
 * or usage (a capture, or part of one, that could not be read), 3 no usable
 * device or library, 130 interrupted (Ctrl-C, as shells report SIGINT).  The
 * status list below says which exit code each status maps to; there is one
 * list and no second copy.
 *
 * Does NOT: allocate, log, or abort.  Warnings (non-fatal) go through
 * vkrr_warn(), which writes one line to stderr and counts it.
 */
#ifndef VKRR_STATUS_H
#define VKRR_STATUS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, exit code, scope, message).  The scope says where a status lands
 * when one launch meets it (vkrr_status_ends_run): RUN ends the run; LAUNCH
 * is that launch's own result (a row: ERROR, TIMEOUT, NO PORT, FAIL); INPUT
 * is bad input: a capture file of one launch stays with that launch (it is
 * "damaged"), while what the run itself was given (a port that does not
 * compile, a descriptor) ends the run, naming it.  (A PTX kernel that does
 * not parse or decode costs only its own launches: the ptx backend returns
 * VKRR_ERR_UNSUPPORTED for them, and the others run; cuda_ref/ptx/README.md.) */
#define VKRR_STATUS_LIST(X)                                                            \
    X(VKRR_OK, 0, LAUNCH, "ok")                                                         \
    X(VKRR_ERR_MISMATCH, 1, LAUNCH, "a result is out of tolerance")                    \
    X(VKRR_ERR_USAGE, 2, RUN, "bad usage")                                             \
    X(VKRR_ERR_IO, 2, INPUT, "cannot read or write a file")                            \
    X(VKRR_ERR_MISSING, 2, INPUT, "a file or directory is missing")                    \
    X(VKRR_ERR_PARSE, 2, INPUT, "malformed input")                                     \
    X(VKRR_ERR_RANGE, 2, INPUT, "a number is out of range")                            \
    X(VKRR_ERR_SIZE, 2, INPUT, "a file's size disagrees with its description")        \
    X(VKRR_ERR_FORMAT, 2, INPUT, "unsupported format")                                 \
    X(VKRR_ERR_INCONSISTENT, 2, INPUT, "the capture contradicts itself")               \
    X(VKRR_ERR_CHANGED, 2, INPUT, "a file changed since capture")                      \
    X(VKRR_ERR_INCOMPLETE, 2, RUN, "some launches could not be validated")             \
    X(VKRR_ERR_NOMEM, 2, RUN, "out of memory")                                         \
    X(VKRR_ERR_NO_PORT, 1, LAUNCH, "no port for this kernel")                          \
    X(VKRR_ERR_NO_DEVICE, 3, RUN, "no usable device")                                  \
    X(VKRR_ERR_NO_LIBRARY, 3, RUN, "a required library cannot be loaded")              \
    X(VKRR_ERR_DEVICE, 3, LAUNCH, "the device failed")                                 \
    X(VKRR_ERR_TIMEOUT, 1, LAUNCH, "a launch did not finish in time")                  \
    X(VKRR_ERR_INTERRUPTED, 130, RUN, "interrupted")                                   \
    X(VKRR_ERR_UNSUPPORTED, 2, LAUNCH, "unsupported instruction or feature")           \
    X(VKRR_ERR_FAULT, 2, LAUNCH, "the kernel faulted (bad address, trap or deadlock)") \
    X(VKRR_ERR_INTERNAL, 2, LAUNCH, "internal error")

typedef enum vkrr_status {
#define VKRR_X_ENUM(name, code, scope, msg) name,
    VKRR_STATUS_LIST(VKRR_X_ENUM)
#undef VKRR_X_ENUM
    VKRR_STATUS_COUNT
} vkrr_status;

typedef struct vkrr_error {
    vkrr_status status;
    char file[512];   /* the file at fault, "" when none */
    long line;        /* 1-based line in file, 0 when not a line */
    long offset;      /* byte offset (argument offset, file offset), -1 when none */
    char msg[768];    /* one sentence, no trailing newline */
} vkrr_error;

const char *vkrr_status_name(vkrr_status s);     /* "VKRR_ERR_PARSE" */
const char *vkrr_status_message(vkrr_status s);  /* "malformed input" */
int vkrr_status_exit_code(vkrr_status s);

/* Where a status one launch met lands (the table's scope): true when it
 * ends the run.  from_capture: it came from reading that launch's capture
 * files (INPUT then stays with the launch, which is damaged), not from
 * what the run was given to run it with (a backend: INPUT ends the run). */
bool vkrr_status_ends_run(vkrr_status s, bool from_capture);

/* Fills err (when non-NULL) and returns status, so a caller writes
 *     return vkrr_fail(err, VKRR_ERR_PARSE, path, lineno, -1, "expected ...");
 * file may be NULL; line 0 and offset -1 mean "not known". */
vkrr_status vkrr_fail(vkrr_error *err, vkrr_status status, const char *file,
                      long line, long offset, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* "FILE:LINE: message" or "FILE: at byte OFF: message"; one line. */
void vkrr_error_format(const vkrr_error *err, char *buf, size_t cap);
void vkrr_error_print(const vkrr_error *err, FILE *f);

/* Non-fatal warnings: "vkrr: warning: ..." on stderr; counted. */
void vkrr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
unsigned vkrr_warning_count(void);
/* Tests and --quiet: route warnings to f (NULL silences them); still counted. */
void vkrr_warn_set_stream(FILE *f);

#ifdef __cplusplus
}
#endif

#endif
