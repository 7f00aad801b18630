/* fuzz_fatbin - libFuzzer target: any file as vkrr looks for CUDA fatbins in
 * it (a .fatbin, a host ELF, a DLL): vkrr_fatbin_scan, then every entry's
 * payload decompressed (LZ4, zstd) where its stated size is small enough
 * for a fuzzer's memory.  An entry found lies inside the input; a payload
 * that decompresses has the size its header gives; every error names the
 * file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vkrr_warn_set_stream(NULL);
    vkrr_fatbin_list fl = {0};
    vkrr_error err = {0};
    if (vkrr_fatbin_scan(data, size, "fuzz.fatbin", &fl, &err) != VKRR_OK) {
        if (err.status == VKRR_OK || strcmp(err.file, "fuzz.fatbin"))
            abort(); /* an error names the file */
        vkrr_fatbin_list_free(&fl);
        return 0;
    }
    for (uint32_t i = 0; i < fl.n; i++) {
        const vkrr_fatbin_entry *e = &fl.entries[i];
        if (e->offset > size || e->stored > size - e->offset)
            abort(); /* what the scan hands out lies inside the input */
        if (e->size > (1u << 22))
            continue;
        char *out = NULL;
        size_t len = 0;
        vkrr_error pe = {0};
        if (vkrr_fatbin_payload(data, size, e, "fuzz.fatbin", &out, &len, &pe) == VKRR_OK) {
            if (len > e->size || out[len] != 0)
                abort(); /* trailing NULs removed, NUL-terminated, no longer than stated */
        } else if (pe.status == VKRR_OK) {
            abort();
        }
        free(out);
    }
    vkrr_fatbin_list_free(&fl);
    return 0;
}
