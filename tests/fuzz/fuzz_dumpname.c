/* fuzz_dumpname - libFuzzer target: a dump/ file name -> vkrr_dump_name_parse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1024)
        return 0; /* file names are at most 255 bytes */
    char *name = malloc(size + 1);
    if (!name)
        return 0;
    memcpy(name, data, size);
    name[size] = 0;
    vkrr_dump_name d;
    vkrr_error err;
    if (vkrr_dump_name_parse(&d, name, "fuzz/dump", &err) == VKRR_OK) {
        size_t n = strlen(name);
        if (!d.kernel || d.kernel < name || d.kernel_len == 0 || d.kernel + d.kernel_len > name + n)
            abort();
        if (d.kind != VKRR_DUMP_BUFFER && (!d.width || !d.height || !d.channels))
            abort();
    } else if (err.status == VKRR_OK || !err.file[0]) {
        abort();
    }
    free(name);
    return 0;
}
