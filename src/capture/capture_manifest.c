/* capture_manifest.c - manifest.txt (docs/capture-format.md) and the strict
 * number parsing every capture parser shares. */
#include <stdlib.h>
#include <string.h>

#include "capture_parse.h"

vkrr_status vkrr_parse_u64(const char *s, size_t n, int hex_ok, uint64_t max, uint64_t *out)
{
    unsigned radix = 10;
    if (hex_ok && n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        radix = 16;
        s += 2;
        n -= 2;
    }
    if (n == 0)
        return VKRR_ERR_PARSE;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (radix == 16 && c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (radix == 16 && c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return VKRR_ERR_PARSE;
        if (v > (UINT64_MAX - d) / radix)
            return VKRR_ERR_RANGE;
        v = v * radix + d;
    }
    if (v > max)
        return VKRR_ERR_RANGE;
    *out = v;
    return VKRR_OK;
}

typedef struct tok {
    const char *s;
    size_t n;
} tok;

enum { MAX_TOKENS = 12 };
/* Distinct argument offsets a manifest can describe (bounds all its arrays). */
enum { MAX_ENTRIES = VKRR_ARGS_MAX_BYTES + 1 };

/* Splits a line into at most MAX_TOKENS whitespace-separated tokens; returns
 * the count, MAX_TOKENS + 1 when there are more. */
static int split(const char *s, size_t n, tok *t)
{
    int k = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
            i++;
        if (i == n)
            break;
        size_t b = i;
        while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            i++;
        if (k == MAX_TOKENS)
            return MAX_TOKENS + 1;
        t[k].s = s + b;
        t[k].n = i - b;
        k++;
    }
    return k;
}

static int tok_is(const tok *t, const char *word)
{
    size_t n = strlen(word);
    return t->n == n && !memcmp(t->s, word, n);
}

/* One numeric field; errors name the line and the field. */
static vkrr_status field(const tok *t, int hex, uint64_t max, uint64_t *out, const char *what,
                         const char *path, long line, vkrr_error *err)
{
    vkrr_status st = vkrr_parse_u64(t->s, t->n, hex, max, out);
    if (st == VKRR_ERR_PARSE)
        return vkrr_fail(err, st, path, line, -1, "%s is not a %snumber: '%.*s'", what,
                         hex ? "hex " : "", (int)(t->n > 64 ? 64 : t->n), t->s);
    if (st == VKRR_ERR_RANGE)
        return vkrr_fail(err, st, path, line, -1, "%s '%.*s' is out of range (max %llu)", what,
                         (int)(t->n > 64 ? 64 : t->n), t->s, (unsigned long long)max);
    return VKRR_OK;
}

void vkrr_manifest_free(vkrr_manifest *m)
{
    if (!m)
        return;
    free(m->kernel);
    free(m->allocs);
    free(m->pointers);
    free(m->images);
    memset(m, 0, sizeof *m);
}

static vkrr_status check_word(const vkrr_manifest *m, uint32_t off, const char *path, long line,
                              vkrr_error *err)
{
    if ((uint64_t)off + 8 > m->args_bytes)
        return vkrr_fail(err, VKRR_ERR_RANGE, path, line, off,
                         "argument word at offset %u is past the end of args.bin (%u bytes)", off,
                         m->args_bytes);
    for (uint32_t i = 0; i < m->npointers; i++)
        if (m->pointers[i].offset == off)
            return vkrr_fail(err, VKRR_ERR_INCONSISTENT, path, line, off,
                             "offset %u is described twice (first on line %ld)", off,
                             m->pointers[i].line);
    for (uint32_t i = 0; i < m->nimages; i++)
        if (m->images[i].offset == off)
            return vkrr_fail(err, VKRR_ERR_INCONSISTENT, path, line, off,
                             "offset %u is described twice (first on line %ld)", off,
                             m->images[i].line);
    return VKRR_OK;
}

static vkrr_status parse_line(vkrr_manifest *m, const tok *t, int nt, const char *path, long ln,
                              vkrr_error *err)
{
    uint64_t v[4];
    vkrr_status st;
    if (tok_is(&t[0], "alloc")) {
        if (nt != 4)
            return vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1, "expected 'alloc IDX 0xBASE BYTES'");
        if ((st = field(&t[1], 0, UINT32_MAX, &v[0], "alloc IDX", path, ln, err)) ||
            (st = field(&t[3], 0, UINT64_MAX, &v[2], "alloc BYTES", path, ln, err)))
            return st;
        if (t[2].n < 3 || t[2].s[0] != '0' || (t[2].s[1] != 'x' && t[2].s[1] != 'X'))
            return vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1, "alloc BASE must be hex with 0x");
        if ((st = field(&t[2], 1, UINT64_MAX, &v[1], "alloc BASE", path, ln, err)))
            return st;
        if (v[1] + v[2] < v[1])
            return vkrr_fail(err, VKRR_ERR_RANGE, path, ln, -1, "allocation wraps past 2^64");
        /* Allocations come from pointers, at most one per argument offset. */
        if (m->nallocs + 1 >= MAX_ENTRIES)
            return vkrr_fail(err, VKRR_ERR_RANGE, path, ln, -1,
                             "more allocations than a %u-byte parameter buffer can point to",
                             VKRR_ARGS_MAX_BYTES);
        for (uint32_t i = 0; i < m->nallocs; i++) {
            if (m->allocs[i].index == v[0])
                return vkrr_fail(err, VKRR_ERR_INCONSISTENT, path, ln, -1,
                                 "allocation %llu declared twice (first on line %ld)",
                                 (unsigned long long)v[0], m->allocs[i].line);
            if (m->allocs[i].base == v[1])
                return vkrr_fail(err, VKRR_ERR_INCONSISTENT, path, ln, -1,
                                 "base 0x%llx declared twice (first on line %ld)",
                                 (unsigned long long)v[1], m->allocs[i].line);
        }
        m->allocs[m->nallocs++] = (vkrr_manifest_alloc){(uint32_t)v[0], v[1], v[2], ln};
    } else if (tok_is(&t[0], "pointer")) {
        if (nt != 4)
            return vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1, "expected 'pointer OFF IDX DELTA'");
        if ((st = field(&t[1], 0, VKRR_ARGS_MAX_BYTES, &v[0], "pointer OFF", path, ln, err)) ||
            (st = field(&t[2], 0, UINT32_MAX, &v[1], "pointer IDX", path, ln, err)) ||
            (st = field(&t[3], 0, UINT64_MAX, &v[2], "pointer DELTA", path, ln, err)) ||
            (st = check_word(m, (uint32_t)v[0], path, ln, err)))
            return st;
        m->pointers[m->npointers++] =
            (vkrr_manifest_pointer){(uint32_t)v[0], (uint32_t)v[1], v[2], ln};
    } else if (tok_is(&t[0], "texture") || tok_is(&t[0], "surface")) {
        int tex = tok_is(&t[0], "texture");
        if (nt != 2)
            return vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1, "expected '%s OFF'",
                             tex ? "texture" : "surface");
        if ((st = field(&t[1], 0, VKRR_ARGS_MAX_BYTES, &v[0], "image OFF", path, ln, err)) ||
            (st = check_word(m, (uint32_t)v[0], path, ln, err)))
            return st;
        m->images[m->nimages++] = (vkrr_manifest_image){
            (uint32_t)v[0], tex ? VKRR_IMAGE_TEXTURE : VKRR_IMAGE_SURFACE, ln};
    } else if (tok_is(&t[0], "kernel") || tok_is(&t[0], "launch") || tok_is(&t[0], "args")) {
        return vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1, "'%.*s' line repeated after line 3",
                         (int)t[0].n, t[0].s);
    } else {
        vkrr_warn("%s:%ld: skipping unknown manifest line kind '%.*s'", path, ln,
                  (int)(t[0].n > 64 ? 64 : t[0].n), t[0].s);
        m->unknown_lines++;
    }
    return VKRR_OK;
}

static vkrr_status parse_header(vkrr_manifest *m, const tok *t, int nt, long ln, const char *path,
                                vkrr_error *err)
{
    uint64_t v;
    vkrr_status st;
    if (ln == 1) {
        if (nt != 2 || !tok_is(&t[0], "kernel"))
            return vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1, "expected 'kernel NAME' as line 1");
        m->kernel = strndup(t[1].s, t[1].n);
        if (!m->kernel)
            return vkrr_fail(err, VKRR_ERR_NOMEM, path, ln, -1, "out of memory");
        for (size_t i = 0; i < t[1].n; i++)
            if ((unsigned char)t[1].s[i] < 0x20 || t[1].s[i] == '/' || t[1].s[i] == 0x7f)
                return vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1,
                                 "kernel name has a control character or '/'");
    } else if (ln == 2) {
        if ((nt != 7 && nt != 8) || !tok_is(&t[0], "launch"))
            return vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1,
                             "expected 'launch GX GY GZ BX BY BZ [SHMEM]' as line 2");
        static const char *names[] = {"GX", "GY", "GZ", "BX", "BY", "BZ", "SHMEM"};
        for (int i = 0; i < nt - 1; i++) {
            if ((st = field(&t[1 + i], 0, UINT32_MAX, &v, names[i], path, ln, err)))
                return st;
            if (i < 6 && v == 0)
                return vkrr_fail(err, VKRR_ERR_RANGE, path, ln, -1, "%s is 0", names[i]);
            if (i < 3)
                m->grid[i] = (uint32_t)v;
            else if (i < 6)
                m->block[i - 3] = (uint32_t)v;
            else
                m->shared_bytes = (uint32_t)v;
        }
    } else {
        if (nt != 2 || !tok_is(&t[0], "args"))
            return vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1, "expected 'args NBYTES' as line 3");
        if ((st = field(&t[1], 0, VKRR_ARGS_MAX_BYTES, &v, "args NBYTES", path, ln, err)))
            return st;
        m->args_bytes = (uint32_t)v;
    }
    return VKRR_OK;
}

vkrr_status vkrr_manifest_parse(vkrr_manifest *m, const char *text, size_t len, const char *path,
                                vkrr_error *err)
{
    memset(m, 0, sizeof *m);
    vkrr_status st = VKRR_OK;
    /* Every entry takes a line, and each pointer or image its own argument
     * offset (duplicates are errors), so min(lines, 4 KiB) bounds every array. */
    size_t nlines = 1;
    for (size_t i = 0; i < len; i++)
        nlines += text[i] == '\n';
    if (nlines > MAX_ENTRIES)
        nlines = MAX_ENTRIES;
    m->allocs = calloc(nlines, sizeof *m->allocs);
    m->pointers = calloc(nlines, sizeof *m->pointers);
    m->images = calloc(nlines, sizeof *m->images);
    if (!m->allocs || !m->pointers || !m->images) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
        goto fail;
    }
    long ln = 0;
    size_t pos = 0;
    while (pos < len) {
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + (nl ? 1 : 0);
        ln++;
        if (memchr(s, 0, n)) {
            st = vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1, "NUL byte in a text line");
            goto fail;
        }
        tok t[MAX_TOKENS];
        int nt = split(s, n, t);
        if (nt > MAX_TOKENS) {
            st = vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1, "too many fields");
            goto fail;
        }
        if (nt > 0 && !nl) { /* the bridge ends every line: a cut file reads as valid numbers */
            st = vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1,
                           "the last line has no newline: the file was cut here");
            goto fail;
        }
        if (nt == 0) {
            if (ln <= 3) {
                st = vkrr_fail(err, VKRR_ERR_PARSE, path, ln, -1, "line %ld is empty", ln);
                goto fail;
            }
            continue;
        }
        st = ln <= 3 ? parse_header(m, t, nt, ln, path, err) : parse_line(m, t, nt, path, ln, err);
        if (st)
            goto fail;
    }
    if (ln < 3) {
        st = vkrr_fail(err, VKRR_ERR_PARSE, path, ln + 1, -1,
                       "truncated: expected kernel, launch and args lines");
        goto fail;
    }
    for (uint32_t i = 0; i < m->npointers; i++) {
        vkrr_manifest_pointer *p = &m->pointers[i];
        const vkrr_manifest_alloc *a = NULL;
        for (uint32_t j = 0; j < m->nallocs && !a; j++)
            if (m->allocs[j].index == p->index)
                a = &m->allocs[j];
        if (!a) {
            st = vkrr_fail(err, VKRR_ERR_INCONSISTENT, path, p->line, p->offset,
                           "pointer at offset %u points into undeclared allocation %u", p->offset,
                           p->index);
            goto fail;
        }
        /* A pointer one past the end is legal C; beyond it is not. */
        if (p->delta > a->size) {
            st = vkrr_fail(err, VKRR_ERR_RANGE, path, p->line, p->offset,
                           "pointer delta %llu is past the end of allocation %u (%llu bytes)",
                           (unsigned long long)p->delta, a->index, (unsigned long long)a->size);
            goto fail;
        }
    }
    return VKRR_OK;
fail:
    vkrr_manifest_free(m);
    return st;
}
