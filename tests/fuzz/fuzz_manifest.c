/* fuzz_manifest - libFuzzer target: manifest.txt text -> vkrr_manifest_parse. */
#include <stdint.h>
#include <stdlib.h>

#include "capture_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vkrr_warn_set_stream(NULL);
    vkrr_manifest m;
    vkrr_error err;
    if (vkrr_manifest_parse(&m, (const char *)data, size, "fuzz/manifest.txt", &err) == VKRR_OK) {
        /* What the reader relies on after a successful parse. */
        if (m.args_bytes > VKRR_ARGS_MAX_BYTES || !m.kernel)
            abort();
        for (uint32_t i = 0; i < m.npointers; i++)
            if (m.pointers[i].offset + 8u > m.args_bytes)
                abort();
        for (uint32_t i = 0; i < m.nimages; i++)
            if (m.images[i].offset + 8u > m.args_bytes)
                abort();
        vkrr_manifest_free(&m);
    } else if (err.status == VKRR_OK || err.line < 1 || !err.file[0]) {
        abort(); /* every error names the file and a line */
    }
    return 0;
}
