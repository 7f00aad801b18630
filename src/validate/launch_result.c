/* launch_result.c - what a launch's result row carries besides its
 * comparisons: notes, damage, what the kernel printed, how it ran. */
#include "sampler_fit.h"
#include "validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bulk.h"

void vkrr_launch_result_free(vkrr_launch_result *r)
{
    if (!r)
        return;
    free(r->res);
    r->res = NULL;
    r->nres = 0;
    free(r->printed);
    r->printed = NULL;
    free(r->feeds);
    r->feeds = NULL;
    r->nfeeds = 0;
    vkrr_sampler_fit_free(r->fit);
    free(r->fit);
    r->fit = NULL;
}

/* Keeps what the kernel printed in this run of r (the first backend that
 * printed: the port, then the original), and says when r ran in a slower
 * engine than asked (the PTX JIT's fallback). */
void vkrr_launch_keep_run(vkrr_launch_result *out, const vkrr_replay *r)
{
    if (!out->printed && r->printed && r->printed[0])
        out->printed = strdup(r->printed);
    if (r->engine_note)
        vkrr_launch_note(out, "the original ran in the PTX interpreter: %s", r->engine_note);
    if (r->memory_note)
        vkrr_launch_note(out, "memory: %s", r->memory_note);
}

/* A launch larger than the memory limit runs streamed (bulk.h): the row
 * says so, with the figures, since it is slower and uses scratch files. */
void vkrr_launch_note_streamed(vkrr_launch_result *out, const vkrr_replay *r, const char *backend)
{
    uint64_t n = vkrr_replay_bytes(r);
    char sliced[96] = "";
    if (!strcmp(backend, "vulkan"))
        snprintf(sliced, sizeof sliced, ", moved to and from the device in slices of %.2f MiB",
                 vkrr_mem_slice() / 1048576.0);
    if (vkrr_mem_streamed(n))
        vkrr_launch_note(out,
                         "streamed: its %.2f MiB exceed the memory limit of %.2f MiB "
                         "(VKRR_MEM_LIMIT), so data past the limit is in scratch files%s",
                         n / 1048576.0, vkrr_mem_limit() / 1048576.0, sliced);
}

void vkrr_launch_note(vkrr_launch_result *r, const char *fmt, ...)
{
    size_t n = strlen(r->note);
    if (n && n + 2 < sizeof r->note) {
        memcpy(r->note + n, "; ", 3);
        n += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    if (n + 1 < sizeof r->note)
        vsnprintf(r->note + n, sizeof r->note - n, fmt, ap);
    va_end(ap);
}

void vkrr_launch_set_damaged(vkrr_launch_result *r, const vkrr_error *e, uint32_t more)
{
    char buf[1400];
    vkrr_error_format(e, buf, sizeof buf);
    r->status = VKRR_LAUNCH_ERROR;
    r->damaged = true;
    if (more)
        vkrr_launch_note(r, "%s (and %u more)", buf, more);
    else
        vkrr_launch_note(r, "%s", buf);
}
