/* fuzz_log - libFuzzer target: run.log text -> vkrr_log_parse and lookups. */
#include <stdint.h>
#include <stdlib.h>

#include "capture_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vkrr_warn_set_stream(NULL);
    vkrr_log log;
    vkrr_error err;
    if (vkrr_log_parse(&log, (const char *)data, size, "fuzz/run.log", &err) != VKRR_OK) {
        if (err.status != VKRR_ERR_NOMEM) /* only out of memory fails: bad lines are skipped */
            abort();
        return 0;
    }
    if (log.nbad && (log.bad.status == VKRR_OK || log.bad.line < 1 || !log.bad.file[0]))
        abort(); /* a skipped line is named */
    uint32_t n = 0;
    for (uint32_t i = 0; i < log.nlaunches; i++)
        vkrr_log_dumps_of(&log, log.launches[i].sequence, &n);
    for (uint32_t i = 1; i < log.ndumps; i++)
        if (log.dumps[i - 1].sequence > log.dumps[i].sequence)
            abort(); /* sorted by launch */
    for (uint32_t i = 1; i < log.nlaunches; i++)
        if (log.launches[i - 1].sequence >= log.launches[i].sequence)
            abort(); /* sorted, one entry per launch */
    for (uint32_t i = 0; i < log.nlaunches; i++) {
        long line = vkrr_log_launch_line(&log, log.launches[i].sequence);
        if (line != log.launches[i].line)
            abort();
        for (uint32_t t = 0; t < log.ntextures; t++) {
            const vkrr_log_texture *x = vkrr_log_texture_at(&log, log.textures[t].handle, line);
            if (x && (x->line >= line || x->handle != log.textures[t].handle))
                abort();
        }
        vkrr_log_surface_at(&log, 1, line);
        vkrr_log_array_at(&log, 1, line);
        const vkrr_log_launch *ll = vkrr_log_launch_find(&log, log.launches[i].sequence);
        if (ll != &log.launches[i] || (ll->kernel && ll->kernel >= log.names_len))
            abort(); /* found, and its name inside the names */
        vkrr_log_module_of(&log, ll->function);
    }
    for (uint32_t m = 0; m < log.nmodules; m++)
        if (log.modules[m].path >= (log.names_len ? log.names_len : 1))
            abort();
    for (uint32_t f = 0; f < log.nfunctions; f++)
        if (!log.functions[f].name || log.functions[f].name >= log.names_len ||
            !vkrr_log_name(&log, log.functions[f].name)[0])
            abort(); /* a function has a name */
    vkrr_log_free(&log);
    return 0;
}
