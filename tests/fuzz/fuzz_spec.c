/* fuzz_spec - libFuzzer target: the specs a user types on the command line.
 * The first byte picks the parser, the rest is the argument's text:
 *   0 --only KERNEL|KERNEL#OCC|SEQ        vkrr_cli_select_parse (+ matches)
 *   1 --perturb KERNEL[#OCC]=ULPS         vkrr_perturb_parse (+ one element moved)
 *   2 --atol/--rtol/--max-ulp, a .port or tolerance file's key=value
 *                                         vkrr_compare_tol_setting
 *   3 --size WxH                          vkrr_cli_parse_size
 *   4 a count or a number                 vkrr_cli_parse_u64, vkrr_cli_parse_double
 *   5 vkrr record --arg in:f32:256, f32:2.5, ...   vkrr_record_spec_bytes
 *   6 --shard K/N                         vkrr_cli_shard_parse
 * No crash; a spec that parses holds what its parser promises. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_summary.h"
#include "shard.h"
#include "perturb.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    char *s = malloc(size);
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = 0; /* an argv string ends at its first NUL */
    vkrr_launch l = {.sequence = 5, .kernel = "cuda_dldn_rrref_enc1_kernel", .occurrence = 1};
    switch (data[0] % 7) {
    case 0: {
        vkrr_cli_select sel;
        if (vkrr_cli_select_parse(s, &sel)) {
            if (!memchr(sel.kernel, 0, sizeof sel.kernel) || sel.occurrence < -1)
                abort();
            vkrr_cli_select_matches(&sel, &l);
        }
        break;
    }
    case 1: {
        vkrr_perturb p;
        if (vkrr_perturb_parse(s, &p)) {
            if (!memchr(p.kernel, 0, sizeof p.kernel) || !p.kernel[0])
                abort();
            vkrr_perturb_matches(&p, &l);
            for (int t = 0; t < VKRR_DT_COUNT; t++) {
                uint8_t e[8] = {0x7b, 0x3c, 0xff, 0x7f, 0, 0x80, 1, 2};
                vkrr_perturb_element((vkrr_dtype)t, e, p.ulps);
            }
        }
        break;
    }
    case 2: {
        vkrr_tol_override o;
        memset(&o, 0, sizeof o);
        const char *why = NULL;
        if (vkrr_compare_tol_setting(s, &o, &why)) {
            if (isnan(o.atol) || isnan(o.rtol) || (!o.has_atol && !o.has_rtol && !o.has_max_ulp))
                abort();
        } else if (!why || !why[0]) {
            abort(); /* a refusal says why */
        }
        break;
    }
    case 3: {
        uint32_t w = 0, h = 0;
        if (vkrr_cli_parse_size(s, 16384, &w, &h) && (w < 1 || h < 1 || w > 16384 || h > 16384))
            abort();
        break;
    }
    case 5: {
        uint32_t bytes = 0;
        vkrr_error err;
        memset(&err, 0, sizeof err);
        vkrr_status st = vkrr_record_spec_bytes(s, &bytes, &err);
        if (st == VKRR_OK ? (bytes != 4 && bytes != 8) : (st != VKRR_ERR_USAGE || !err.msg[0]))
            abort(); /* a parameter word, or a refusal that says why */
        break;
    }
    case 6: {
        uint32_t k = 0, n = 0;
        if (vkrr_cli_shard_parse(s, &k, &n) && (k < 1 || k > n || n > VKRR_SHARD_MAX))
            abort();
        break;
    }
    default: {
        uint64_t u;
        double d;
        if (vkrr_cli_parse_u64(s, 1000000, &u) && u > 1000000)
            abort();
        vkrr_cli_parse_double(s, &d);
        break;
    }
    }
    free(s);
    return 0;
}
