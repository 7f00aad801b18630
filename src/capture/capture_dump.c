/* capture_dump.c - dump/ file names:
 *   launch-SSS-KERNEL-argOOO-buffer-base0xBASE+0xOFF-fmt-1.bin
 *   launch-SSS-KERNEL-argOOO-{texture,surface}-WxHxC-fmtF.bin
 * Parsed from both ends, so a kernel name is taken whole whatever it holds. */
#include <string.h>

#include "capture_parse.h"

/* Number of leading decimal digits of s (at most n). */
static size_t digits(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i;
}

static vkrr_status bad(vkrr_error *err, const char *path, vkrr_status st, const char *what)
{
    return vkrr_fail(err, st, path, 0, -1, "bad dump file name: %s", what);
}

/* "WxHxC-fmtF" */
static vkrr_status parse_shape(vkrr_dump_name *d, const char *s, size_t n, const char *path,
                               vkrr_error *err)
{
    uint64_t v[4];
    for (int i = 0; i < 3; i++) {
        size_t k = digits(s, n);
        char want = i < 2 ? 'x' : '-';
        if (k == 0 || k == n || s[k] != want)
            return bad(err, path, VKRR_ERR_PARSE, "expected WxHxC-fmtF after the kind");
        vkrr_status st = vkrr_parse_u64(s, k, 0, UINT32_MAX, &v[i]);
        if (st)
            return bad(err, path, st, "W, H or C out of range");
        s += k + 1;
        n -= k + 1;
    }
    if (n < 4 || memcmp(s, "fmt", 3))
        return bad(err, path, VKRR_ERR_PARSE, "expected fmtF after the shape");
    vkrr_status st = vkrr_parse_u64(s + 3, n - 3, 0, UINT32_MAX, &v[3]);
    if (st)
        return bad(err, path, st, "format code is not a number in range");
    if (!v[0] || !v[1] || !v[2])
        return bad(err, path, VKRR_ERR_RANGE, "zero width, height or channels");
    d->width = (uint32_t)v[0];
    d->height = (uint32_t)v[1];
    d->channels = (uint32_t)v[2];
    d->format = (uint32_t)v[3];
    return VKRR_OK;
}

/* "base0xBASE+0xOFF-fmt-1" */
static vkrr_status parse_buffer(vkrr_dump_name *d, const char *s, size_t n, const char *path,
                                vkrr_error *err)
{
    static const char tail[] = "-fmt-1";
    size_t tl = sizeof tail - 1;
    if (n < 4 + tl || memcmp(s, "base", 4) || memcmp(s + n - tl, tail, tl))
        return bad(err, path, VKRR_ERR_PARSE, "expected base0xBASE+0xOFF-fmt-1 after 'buffer'");
    s += 4;
    n -= 4 + tl;
    const char *plus = memchr(s, '+', n);
    if (!plus || plus - s < 3 || s[0] != '0' || s[1] != 'x' || (size_t)(plus + 1 - s) + 3 > n ||
        plus[1] != '0' || plus[2] != 'x')
        return bad(err, path, VKRR_ERR_PARSE, "expected base0xBASE+0xOFF");
    vkrr_status st = vkrr_parse_u64(s, (size_t)(plus - s), 1, UINT64_MAX, &d->base);
    if (!st)
        st = vkrr_parse_u64(plus + 1, n - (size_t)(plus + 1 - s), 1, UINT64_MAX, &d->delta);
    if (st)
        return bad(err, path, st, "BASE or OFF is not a hex number in range");
    return VKRR_OK;
}

vkrr_status vkrr_dump_name_parse(vkrr_dump_name *d, const char *name, const char *path,
                                 vkrr_error *err)
{
    memset(d, 0, sizeof *d);
    size_t n = strlen(name);
    if (n < 11 || memcmp(name, "launch-", 7) || memcmp(name + n - 4, ".bin", 4))
        return bad(err, path, VKRR_ERR_PARSE, "expected launch-SSS-...bin");
    const char *s = name + 7;
    n -= 11;
    size_t k = digits(s, n);
    if (k == 0 || k == n || s[k] != '-')
        return bad(err, path, VKRR_ERR_PARSE, "expected the launch number after 'launch-'");
    vkrr_status st = vkrr_parse_u64(s, k, 0, UINT64_MAX, &d->sequence);
    if (st)
        return bad(err, path, st, "launch number out of range");
    const char *kern = s + k + 1;
    size_t rest = n - k - 1;
    /* The kind is found from the right: "-argOOO-KIND-" with OOO digits. */
    static const struct {
        const char *word;
        vkrr_dump_kind kind;
    } kinds[] = {{"-buffer-", VKRR_DUMP_BUFFER},
                 {"-texture-", VKRR_DUMP_TEXTURE},
                 {"-surface-", VKRR_DUMP_SURFACE}};
    for (size_t i = rest; i-- > 0;) {
        if (kern[i] != '-' || i < 5)
            continue;
        for (size_t j = 0; j < 3; j++) {
            size_t wl = strlen(kinds[j].word);
            if (rest - i < wl || memcmp(kern + i, kinds[j].word, wl))
                continue;
            /* kern[..a) "-arg" digits [i) */
            size_t ds = i;
            while (ds > 0 && kern[ds - 1] >= '0' && kern[ds - 1] <= '9')
                ds--;
            if (ds == i || ds < 5 || memcmp(kern + ds - 4, "-arg", 4))
                continue;
            uint64_t off;
            st = vkrr_parse_u64(kern + ds, i - ds, 0, VKRR_ARGS_MAX_BYTES, &off);
            if (st)
                return bad(err, path, st, "argument offset out of range");
            d->kernel = kern;
            d->kernel_len = ds - 4;
            d->arg_offset = (uint32_t)off;
            d->kind = kinds[j].kind;
            const char *tail = kern + i + wl;
            size_t tn = rest - i - wl;
            return d->kind == VKRR_DUMP_BUFFER ? parse_buffer(d, tail, tn, path, err)
                                               : parse_shape(d, tail, tn, path, err);
        }
    }
    return bad(err, path, VKRR_ERR_PARSE, "expected -argOOO-buffer|texture|surface-");
}
