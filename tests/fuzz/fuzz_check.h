/* fuzz_check.h - the check every text parser's target makes of a refusal:
 * it names the file, and a parse error its line; otherwise the error is
 * shown and the target crashes (the finding). */
#ifndef VKRR_FUZZ_CHECK_H
#define VKRR_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"

static inline void fuzz_bad_error(const vkrr_error *err)
{
    fprintf(stderr, "error without its place: status %d, file '%s', line %ld: %s\n", (int)err->status,
            err->file, err->line, err->msg);
    abort();
}

/* A refusal of text read as `file`: names the file, and a parse error its line. */
static inline void fuzz_check_refusal(const vkrr_error *err, const char *file)
{
    if (err->status == VKRR_OK || strcmp(err->file, file) || (err->status == VKRR_ERR_PARSE && err->line < 1))
        fuzz_bad_error(err);
}

#endif
