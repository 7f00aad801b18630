/* fatbin.c - CUDA fatbins: scanning a buffer for them, reading entries
 * (see fatbin.h for the layout).  LZ4 and zstd come from Debian's liblz4
 * and libzstd. */
#include "fatbin.h"

#include <lz4.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define HEADER_MIN 16u
#define HEADER_MAX 4096u
#define ENTRY_MIN 64u
#define PAYLOAD_MAX (1ull << 30) /* 1 GiB: far past any module, and within LZ4's int */

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

const char *vkrr_fatbin_compression_name(int c)
{
    return c == VKRR_FATBIN_LZ4 ? "LZ4" : c == VKRR_FATBIN_ZSTD ? "zstd" : "";
}

/* A fatbin header at p that holds together: its size (header + entries). */
static uint64_t header_at(const uint8_t *p, size_t left)
{
    if (left < HEADER_MIN || rd32(p) != VKRR_FATBIN_MAGIC || rd16(p + 4) != 1)
        return 0;
    uint64_t hs = rd16(p + 6), body = rd64(p + 8);
    if (hs < HEADER_MIN || hs > HEADER_MAX || hs > left || body > left - hs || body < ENTRY_MIN)
        return 0;
    return hs + body;
}

static vkrr_status add(vkrr_fatbin_list *l, uint32_t *cap, const vkrr_fatbin_entry *e,
                       const char *path, vkrr_error *err)
{
    if (l->n == *cap) {
        uint32_t nc = *cap ? 2 * *cap : 8;
        vkrr_fatbin_entry *p = realloc(l->entries, nc * sizeof *p);
        if (!p)
            return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
        l->entries = p;
        *cap = nc;
    }
    l->entries[l->n++] = *e;
    return VKRR_OK;
}

/* The entries of the fatbin at base (total bytes), whose offset is at. */
static vkrr_status read_entries(const uint8_t *data, uint64_t at, uint64_t total, uint32_t fb,
                                const char *path, vkrr_fatbin_list *l, uint32_t *cap, vkrr_error *err)
{
    const uint8_t *b = data + at;
    uint64_t off = rd16(b + 6);
    for (uint32_t idx = 0; off + ENTRY_MIN <= total; idx++) {
        const uint8_t *e = b + off;
        uint64_t eh = rd32(e + 4), payload = rd64(e + 8);
        if (eh < ENTRY_MIN || eh > total - off || payload > total - off - eh)
            return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, (long)(at + off),
                             "fatbin entry %u: its header (%llu bytes) or payload (%llu bytes) "
                             "runs past the fatbin's end", idx, (unsigned long long)eh,
                             (unsigned long long)payload);
        uint64_t flags = rd64(e + 40), compressed = rd32(e + 16), full = rd64(e + 56);
        vkrr_fatbin_entry x = {.fatbin = fb, .index = idx, .kind = rd16(e), .arch = rd32(e + 28),
                               .ptx_minor = rd16(e + 24), .ptx_major = rd16(e + 26),
                               .flags = flags, .offset = at + off + eh, .stored = payload,
                               .size = payload};
        if (flags & 0x2000)
            x.compression = VKRR_FATBIN_LZ4;
        else if (flags & 0x8000)
            x.compression = VKRR_FATBIN_ZSTD;
        if (x.compression) {
            if (!compressed || compressed > payload || !full || full > PAYLOAD_MAX)
                return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, (long)(at + off),
                                 "fatbin entry %u: compressed (%s) with sizes %llu -> %llu in a "
                                 "payload of %llu bytes", idx, vkrr_fatbin_compression_name(x.compression),
                                 (unsigned long long)compressed, (unsigned long long)full,
                                 (unsigned long long)payload);
            x.stored = compressed;
            x.size = full;
        }
        vkrr_status st = add(l, cap, &x, path, err);
        if (st != VKRR_OK)
            return st;
        off += eh + payload;
    }
    return VKRR_OK;
}

vkrr_status vkrr_fatbin_scan(const void *data, size_t size, const char *path, vkrr_fatbin_list *out,
                             vkrr_error *err)
{
    static const uint8_t magic[4] = {0x50, 0xed, 0x55, 0xba};
    const uint8_t *d = data;
    uint32_t cap = out->n;
    size_t at = 0;
    while (at + HEADER_MIN <= size) {
        const uint8_t *p = memmem(d + at, size - at, magic, 4);
        if (!p)
            break;
        at = (size_t)(p - d);
        uint64_t total = header_at(p, size - at);
        if (!total) { /* the magic by chance: go on past it */
            at++;
            continue;
        }
        vkrr_status st = read_entries(d, at, total, out->nfatbins, path, out, &cap, err);
        if (st != VKRR_OK)
            return st;
        out->nfatbins++;
        at += total;
    }
    return VKRR_OK;
}

void vkrr_fatbin_list_free(vkrr_fatbin_list *l)
{
    if (!l)
        return;
    free(l->entries);
    memset(l, 0, sizeof *l);
}

vkrr_status vkrr_fatbin_payload(const void *data, size_t size, const vkrr_fatbin_entry *e,
                                const char *path, char **out, size_t *len, vkrr_error *err)
{
    *out = NULL;
    *len = 0;
    if (e->offset > size || e->stored > size - e->offset)
        return vkrr_fail(err, VKRR_ERR_RANGE, path, 0, (long)e->offset, "fatbin entry past the file's end");
    const char *src = (const char *)data + e->offset;
    char *buf = malloc(e->size + 1);
    if (!buf)
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory for a %llu-byte fatbin entry",
                         (unsigned long long)e->size);
    uint64_t n = e->size;
    bool ok = true;
    if (e->compression == VKRR_FATBIN_LZ4) {
        int r = LZ4_decompress_safe(src, buf, (int)e->stored, (int)e->size);
        ok = r >= 0 && (uint64_t)r == e->size;
    } else if (e->compression == VKRR_FATBIN_ZSTD) {
        size_t r = ZSTD_decompress(buf, (size_t)e->size, src, (size_t)e->stored);
        ok = !ZSTD_isError(r) && r == e->size;
    } else {
        memcpy(buf, src, (size_t)n);
    }
    if (!ok) {
        free(buf);
        return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, (long)e->offset,
                         "fatbin %u entry %u: its %s payload (%llu bytes) does not decompress to "
                         "the %llu bytes its header gives", e->fatbin, e->index,
                         vkrr_fatbin_compression_name(e->compression), (unsigned long long)e->stored,
                         (unsigned long long)e->size);
    }
    while (n > 0 && buf[n - 1] == 0)
        n--;
    buf[n] = 0;
    *out = buf;
    *len = (size_t)n;
    return VKRR_OK;
}
