/* fuzz_ptx - libFuzzer target: PTX text -> vkrr_ptx_module_load (lexer,
 * parser, decoder; a text that does not parse, kept as the backend keeps it), and every entry that decodes is run on a small launch
 * with no memory (2 blocks of 40 threads, zero parameters, one host thread,
 * a step limit): whatever the input, no crash, no hang, and every error
 * names the file and a line; each entry's parameters are followed
 * (vkrr_ptx_param_uses, what `vkrr port new` reads) without a crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "ptx_params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vkrr_warn_set_stream(NULL);
    vkrr_ptx_module *m = NULL;
    vkrr_error err;
    memset(&err, 0, sizeof err);
    vkrr_status st = vkrr_ptx_module_load(&m, (const char *)data, size, "fuzz.ptx", &err);
    if (st != VKRR_OK) {
        if (err.status != st || err.line < 1 || strcmp(err.file, "fuzz.ptx"))
            abort(); /* every error names the file and a line */
        if (st == VKRR_ERR_NOMEM)
            return 0;
        /* kept as the backend keeps it: every .entry its text names fails
         * with that error, which still names the file and the line */
        if (vkrr_ptx_module_load_keep(&m, (const char *)data, size, "fuzz.ptx", &err) != VKRR_OK)
            abort();
        const char *kept[8];
        uint32_t nk = vkrr_ptx_module_entries(m, kept, 8);
        for (uint32_t k = 0; k < nk && k < 8; k++)
            if (vkrr_ptx_entry_status(m, kept[k], &err) != VKRR_ERR_UNSUPPORTED || err.line < 1 ||
                strcmp(err.file, "fuzz.ptx"))
                abort();
        vkrr_ptx_module_free(m);
        return 0;
    }
    const char *names[8];
    uint32_t n = vkrr_ptx_module_entries(m, names, 8);
    static uint8_t params[4096];
    for (uint32_t k = 0; k < n && k < 8; k++) { /* `port new`'s reading of the parameters */
        static vkrr_ptx_param_use uses[64];
        uint32_t nu = 0;
        /* fails only for want of memory, or for a kernel whose body does not
         * parse (its instructions stop there), naming the file and line */
        if (vkrr_ptx_param_uses(m, names[k], uses, 64, &nu, &err) != VKRR_OK &&
            err.status != VKRR_ERR_NOMEM &&
            (vkrr_ptx_entry_status(m, names[k], NULL) == VKRR_OK || err.line < 1 ||
             strcmp(err.file, "fuzz.ptx")))
            abort();
        for (uint32_t i = 1; i < nu && i < 64; i++)
            if (uses[i - 1].offset > uses[i].offset)
                abort(); /* in offset order */
    }
    for (uint32_t k = 0; k < n && k < 8; k++) {
        if (vkrr_ptx_entry_status(m, names[k], &err) != VKRR_OK) {
            if (err.line < 1)
                abort();
            continue;
        }
        vkrr_ptx_launch l = {.grid = {2, 1, 1}, .block = {40, 1, 1}, .params = params,
                             .params_bytes = sizeof params, .threads = 1, .max_steps = 5000};
        st = vkrr_ptx_run(m, names[k], &l, &err);
        if (st != VKRR_OK && err.status != st)
            abort();
    }
    vkrr_ptx_module_free(m);
    return 0;
}
