/* fuzz_tolerance - libFuzzer target: a --tolerance file -> vkrr_compare_tol_parse,
 * then rules resolved for a few kernels, occurrences, arguments and types
 * (the '*' globs included): no crash or hang, every error names the file and
 * its line, and a resolved tolerance is a tolerance (each criterion off, or a
 * non-negative number). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "compare.h"

static void check(vkrr_tolerance t)
{
    if (isnan(t.atol) || isnan(t.rtol))
        abort();
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vkrr_warn_set_stream(NULL);
    vkrr_tol_rules *r = NULL;
    vkrr_error err;
    memset(&err, 0, sizeof err);
    if (vkrr_compare_tol_parse(&r, (const char *)data, size, "fuzz.tol", &err) != VKRR_OK) {
        fuzz_check_refusal(&err, "fuzz.tol"); /* names the file (and a bad line) */
        return 0;
    }
    /* a few queries, chosen by the input's length so that each rule kind is
     * reached without a thousand resolutions an input (speed is coverage) */
    static const char *const kernels[] = {"cuda_dldn_rrref_enc1_kernel", "k", "", "a*b",
                                          "swin_enc0_kernel"};
    static const vkrr_dtype types[] = {VKRR_DT_F16, VKRR_DT_F32, VKRR_DT_E4M3, VKRR_DT_U8};
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++)
        for (uint32_t q = 0; q < 4; q++)
            check(vkrr_compare_tol_resolve(r, kernels[k], (uint32_t)(size + q) % 3, 8 * (q + size % 5),
                                           types[(q + k) % 4]));
    vkrr_tolerance base = {.atol = 0.5, .rtol = -1, .max_ulp = 3};
    check(vkrr_compare_tol_resolve_from(r, base, "k", 1, 16));
    vkrr_compare_tol_destroy(r);
    return 0;
}
