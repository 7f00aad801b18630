/* fuzz_port - libFuzzer target: a KERNEL.port descriptor -> vkrr_portdesc_parse,
 * then every output evaluated against one launch (pointers, a surface, a
 * texture, parameter words that make the expressions divide by zero, overflow
 * and point past the block): whatever the text, no crash, every error names
 * the file and a line, and every output that evaluates lies inside its
 * allocation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "portdesc.h"


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vkrr_warn_set_stream(NULL);
    vkrr_portdesc *d = NULL;
    vkrr_error err;
    memset(&err, 0, sizeof err);
    if (vkrr_portdesc_parse(&d, (const char *)data, size, "fuzz.port", &err) != VKRR_OK) {
        fuzz_check_refusal(&err, "fuzz.port"); /* names the file (and a bad line) */
        return 0;
    }
    /* The launch: three pointers into two allocations, a surface, a texture. */
    static uint8_t args[128];
    static const uint32_t words[] = {16, 8, 3, 0, 0xffffffffu, 0x80000000u, 1, 4096};
    memset(args, 0, sizeof args);
    uint64_t p0 = 0x7f0000000000ull, p1 = 0x7f0000100000ull + 64, p2 = 0x7f0000100000ull;
    memcpy(args + 0, &p0, 8);
    memcpy(args + 8, &p1, 8);
    memcpy(args + 16, &p2, 8);
    uint64_t surf = 7, tex = 9;
    memcpy(args + 24, &surf, 8);
    memcpy(args + 32, &tex, 8);
    memcpy(args + 40, words, sizeof words);
    vkrr_alloc allocs[2] = {{.index = 0, .base = 0x7f0000000000ull, .size = 4096},
                            {.index = 1, .base = 0x7f0000100000ull, .size = 1024}};
    vkrr_pointer ptrs[3] = {{.offset = 0, .alloc = 0, .delta = 0},
                            {.offset = 8, .alloc = 1, .delta = 64},
                            {.offset = 16, .alloc = 1, .delta = 0}};
    vkrr_image images[2] = {
        {.offset = 24, .kind = VKRR_IMAGE_SURFACE, .handle = 7, .width = 16, .height = 8,
         .channels = 4, .format = 0x10},
        {.offset = 32, .kind = VKRR_IMAGE_TEXTURE, .handle = 9, .width = 16, .height = 8,
         .channels = 1, .format = 0x20},
    };
    vkrr_launch l = {.sequence = 1, .kernel = "fuzz_kernel", .args_bytes = 72, .args = args,
                     .allocs = allocs, .nallocs = 2, .pointers = ptrs, .npointers = 3,
                     .images = images, .nimages = 2};
    vkrr_port_output out[VKRR_PORT_MAX_OUTPUTS];
    uint32_t n = 0;
    memset(&err, 0, sizeof err);
    vkrr_status st = vkrr_portdesc_eval(d, &l, out, VKRR_PORT_MAX_OUTPUTS, &n, &err);
    if (st != VKRR_OK) {
        if (err.status != st || strcmp(err.file, "fuzz.port") || err.line < 1)
            fuzz_bad_error(&err);
    } else {
        for (uint32_t i = 0; i < n && i < VKRR_PORT_MAX_OUTPUTS; i++) {
            if (out[i].surface)
                continue;
            if (out[i].index >= 2)
                abort();
            uint64_t bytes = vkrr_view_bytes(&out[i].view);
            if (out[i].view.offset > allocs[out[i].index].size ||
                bytes > allocs[out[i].index].size - out[i].view.offset)
                abort(); /* the window is inside the allocation */
        }
    }
    uint32_t a[64];
    vkrr_portdesc_args(d, a, 64);
    vkrr_portdesc_destroy(d);
    return 0;
}
