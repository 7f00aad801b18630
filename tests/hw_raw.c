/* hw_raw.c - the measured tables read with liblzma alone (hw_raw.h). */
#include "hw_raw.h"

#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1u << 20, len = 0;
    uint8_t *b = malloc(cap);
    for (size_t got; b && (got = fread(b + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb)
                free(b);
            b = nb;
        }
    }
    fclose(f);
    *n = len;
    return b;
}

uint8_t *hwraw_read(const char *path, size_t *bytes)
{
    size_t in_len = 0, cap = 1u << 22;
    uint8_t *in = slurp(path, &in_len), *out = malloc(cap);
    lzma_stream s = LZMA_STREAM_INIT;
    lzma_ret r = in && out ? lzma_stream_decoder(&s, UINT64_MAX, 0) : LZMA_MEM_ERROR;
    s.next_in = in;
    s.avail_in = in_len;
    s.next_out = out;
    s.avail_out = cap;
    while (r == LZMA_OK) {
        r = lzma_code(&s, LZMA_FINISH);
        if (r == LZMA_OK && s.avail_out == 0) {
            uint8_t *no = realloc(out, cap * 2);
            if (!no) {
                r = LZMA_MEM_ERROR;
                break;
            }
            out = no;
            s.next_out = out + cap;
            s.avail_out = cap;
            cap *= 2;
        }
    }
    size_t n = (size_t)s.total_out;
    lzma_end(&s);
    free(in);
    if (r != LZMA_STREAM_END) {
        fprintf(stderr, "hw_raw: %s: %s\n", path, in ? "not a whole xz stream" : "cannot read");
        free(out);
        return NULL;
    }
    if (bytes)
        *bytes = n;
    return out;
}

uint8_t *hwraw_shipped(const char *name, size_t *bytes)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/src/hw/sm_90/%s.xz", VKRR_SOURCE_DIR, name);
    return hwraw_read(path, bytes);
}

uint32_t hwraw_u32(const uint8_t *t, size_t i)
{
    const uint8_t *p = t + 4 * i;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint16_t hwraw_u16(const uint8_t *t, size_t i)
{
    return (uint16_t)(t[2 * i] | t[2 * i + 1] << 8);
}
