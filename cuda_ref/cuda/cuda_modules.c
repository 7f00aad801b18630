/* cuda_modules.c - finding a kernel in PTX, cubin and fatbin files (cuda_modules.h). */
#include "cuda_modules.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_KIND_PTX 1u
#define FATBIN_KIND_ELF 2u
/* Entry flags seen in nvcc's fatbins: 0x2000 LZ4 (CUDA 11-12), 0x8000 zstd (12.8+). */
#define FATBIN_FLAG_COMPRESSED (0x2000ull | 0x8000ull)
#define ELF_SHT_SYMTAB 2u
#define ELF_SHT_DYNSYM 11u
#define ELF_STT_FUNC 2u
#define ELF64_SYM_BYTES 24u
#define ELF64_SHDR_BYTES 64u

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

vkrr_cuda_module_kind vkrr_cuda_module_kind_of(const char *path)
{
    size_t n = strlen(path);
    static const struct { const char *ext; vkrr_cuda_module_kind kind; } exts[] = {
        { ".ptx", VKRR_CUDA_MODULE_PTX },
        { ".cubin", VKRR_CUDA_MODULE_CUBIN },
        { ".fatbin", VKRR_CUDA_MODULE_FATBIN },
    };
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i].ext);
        if (n > e && strcmp(path + n - e, exts[i].ext) == 0) return exts[i].kind;
    }
    return VKRR_CUDA_MODULE_NONE;
}

static bool is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool is_ident(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c == '.';
}

/* `.entry NAME` anywhere in the text; the text need not be NUL-terminated. */
static bool ptx_has_entry(const uint8_t *d, size_t n, const char *kernel)
{
    static const char key[] = ".entry";
    const size_t klen = sizeof key - 1, nlen = strlen(kernel);
    for (size_t i = 0; i + klen < n; i++) {
        if (d[i] != '.' || memcmp(d + i, key, klen) != 0) continue;
        if (i > 0 && !is_space(d[i - 1])) continue;
        size_t j = i + klen;
        if (!is_space(d[j])) continue;
        while (j < n && is_space(d[j])) j++;
        if (n - j >= nlen && memcmp(d + j, kernel, nlen) == 0 &&
            (j + nlen == n || !is_ident(d[j + nlen])))
            return true;
    }
    return false;
}

/* STT_FUNC symbol named kernel in an ELF64 little-endian image.  base is the
 * image's offset in the file, for error messages. */
static vkrr_status elf_has_func(const uint8_t *d, size_t n, size_t base, const char *kernel,
                                const char *path, bool *found, vkrr_error *err)
{
    *found = false;
    if (n < 64 || memcmp(d, "\x7f" "ELF", 4) != 0)
        return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, (long)base, "not an ELF image (bad magic)");
    if (d[4] != 2 || d[5] != 1)
        return vkrr_fail(err, VKRR_ERR_FORMAT, path, 0, (long)base + 4,
                         "ELF class %u / data %u: only 64-bit little-endian cubins are read",
                         d[4], d[5]);
    const uint64_t shoff = rd64(d + 0x28);
    const uint32_t shentsize = rd16(d + 0x3a), shnum = rd16(d + 0x3c);
    if (shentsize < ELF64_SHDR_BYTES || shoff > n || (uint64_t)shentsize * shnum > n - shoff)
        return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, (long)(base + 0x28),
                         "ELF section table (offset %llu, %u x %u bytes) lies outside the %zu-byte image",
                         (unsigned long long)shoff, shnum, shentsize, n);
    const size_t klen = strlen(kernel);
    for (uint32_t i = 0; i < shnum; i++) {
        const uint8_t *sh = d + shoff + (uint64_t)i * shentsize;
        const uint32_t type = rd32(sh + 4);
        if (type != ELF_SHT_SYMTAB && type != ELF_SHT_DYNSYM) continue;
        const uint64_t off = rd64(sh + 0x18), size = rd64(sh + 0x20), ent = rd64(sh + 0x38);
        const uint32_t link = rd32(sh + 0x28);
        const long at = (long)(base + shoff + (uint64_t)i * shentsize);
        if (off > n || size > n - off || ent < ELF64_SYM_BYTES || link >= shnum)
            return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, at,
                             "ELF symbol table section %u is out of bounds or malformed", i);
        const uint8_t *lsh = d + shoff + (uint64_t)link * shentsize;
        const uint64_t soff = rd64(lsh + 0x18), ssize = rd64(lsh + 0x20);
        if (soff > n || ssize > n - soff)
            return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, at,
                             "ELF string table section %u is out of bounds", link);
        const uint8_t *strtab = d + soff;
        for (uint64_t s = 0; s + ent <= size; s += ent) {
            const uint8_t *sym = d + off + s;
            const uint32_t name = rd32(sym);
            if ((sym[4] & 0xf) != ELF_STT_FUNC) continue;
            if (name >= ssize || ssize - name <= klen) continue;
            if (memcmp(strtab + name, kernel, klen) == 0 && strtab[name + klen] == '\0') {
                *found = true;
                return VKRR_OK;
            }
        }
    }
    return VKRR_OK;
}

static bool is_zstd(const uint8_t *p, uint64_t n)
{
    return n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0;
}

/* One or more fatbin containers back to back (as in an .nv_fatbin section). */
static vkrr_status fatbin_search(const uint8_t *d, size_t n, const char *kernel, const char *path,
                                 vkrr_cuda_module_answer *answer, vkrr_error *err)
{
    unsigned unknown = 0;
    size_t off = 0;
    bool any = false;
    while (off + 16 <= n && rd32(d + off) == FATBIN_MAGIC) {
        const uint32_t hsize = rd16(d + off + 6);
        const uint64_t fatsize = rd64(d + off + 8);
        if (hsize < 16 || hsize > n - off || fatsize > n - off - hsize)
            return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, (long)off,
                             "fatbin header (header %u bytes, body %llu bytes) runs past the end of the %zu-byte file",
                             hsize, (unsigned long long)fatsize, n);
        any = true;
        size_t e = off + hsize;
        const size_t end = e + (size_t)fatsize;
        while (end - e >= 16) {
            const uint32_t kind = rd16(d + e), ehs = rd32(d + e + 4);
            const uint64_t psize = rd64(d + e + 8);
            if (ehs < 16 || ehs > end - e || psize > end - e - ehs)
                return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, (long)e,
                                 "fatbin entry (header %u bytes, payload %llu bytes) runs past its container",
                                 ehs, (unsigned long long)psize);
            const uint64_t flags = ehs >= 0x30 ? rd64(d + e + 0x28) : 0;
            const uint8_t *p = d + e + ehs;
            const bool packed = (flags & FATBIN_FLAG_COMPRESSED) != 0 || is_zstd(p, psize);
            bool found = false;
            if (kind == FATBIN_KIND_PTX) {
                if (packed) unknown++;
                else found = ptx_has_entry(p, (size_t)psize, kernel);
            } else if (kind == FATBIN_KIND_ELF) {
                if (packed || psize < 4 || memcmp(p, "\x7f" "ELF", 4) != 0) {
                    unknown++;
                } else {
                    vkrr_status st = elf_has_func(p, (size_t)psize, e + ehs, kernel, path, &found, err);
                    if (st != VKRR_OK) return st;
                }
            }
            if (found) {
                *answer = VKRR_CUDA_MODULE_YES;
                return VKRR_OK;
            }
            e += ehs + (size_t)psize;
        }
        off = end;
        while (off < n && (off & 7) != 0 && d[off] == 0) off++; /* alignment padding */
    }
    if (!any)
        return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, 0, "not a fatbin (no 0x%08X magic at the start)",
                         FATBIN_MAGIC);
    *answer = unknown ? VKRR_CUDA_MODULE_UNKNOWN : VKRR_CUDA_MODULE_NO;
    return VKRR_OK;
}

vkrr_status vkrr_cuda_module_search(vkrr_cuda_module_kind kind, const uint8_t *data, size_t size,
                                    const char *kernel, const char *path,
                                    vkrr_cuda_module_answer *answer, vkrr_error *err)
{
    bool found = false;
    vkrr_status st = VKRR_OK;
    *answer = VKRR_CUDA_MODULE_NO;
    switch (kind) {
    case VKRR_CUDA_MODULE_PTX:
        found = ptx_has_entry(data, size, kernel);
        break;
    case VKRR_CUDA_MODULE_CUBIN:
        st = elf_has_func(data, size, 0, kernel, path, &found, err);
        break;
    case VKRR_CUDA_MODULE_FATBIN:
        return fatbin_search(data, size, kernel, path, answer, err);
    default:
        return vkrr_fail(err, VKRR_ERR_FORMAT, path, 0, -1,
                         "not a CUDA module file name (expected .ptx, .cubin or .fatbin)");
    }
    if (st == VKRR_OK && found) *answer = VKRR_CUDA_MODULE_YES;
    return st;
}

vkrr_status vkrr_cuda_module_read(const char *path, uint8_t **data, size_t *size, vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    uint8_t *buf = NULL;
    struct stat sb;
    FILE *f = fopen(path, "rb");
    *data = NULL;
    *size = 0;
    if (!f) {
        return vkrr_fail(err, errno == ENOENT ? VKRR_ERR_MISSING : VKRR_ERR_IO, path, 0, -1,
                         "cannot open CUDA module: %s", strerror(errno));
    }
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "CUDA module is not a regular file");
        goto fail;
    }
    if ((uint64_t)sb.st_size > VKRR_CUDA_MODULE_MAX_BYTES) {
        st = vkrr_fail(err, VKRR_ERR_RANGE, path, 0, -1, "CUDA module of %lld bytes is over the %llu-byte limit",
                       (long long)sb.st_size, (unsigned long long)VKRR_CUDA_MODULE_MAX_BYTES);
        goto fail;
    }
    const size_t n = (size_t)sb.st_size;
    buf = malloc(n + 1);
    if (!buf) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "no memory for a %zu-byte CUDA module", n);
        goto fail;
    }
    if (fread(buf, 1, n, f) != n) {
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "short read of CUDA module");
        goto fail;
    }
    buf[n] = 0;
    fclose(f);
    *data = buf;
    *size = n;
    return VKRR_OK;
fail:
    free(buf);
    fclose(f);
    return st;
}

vkrr_status vkrr_cuda_module_file_has(const char *path, const char *kernel,
                                      vkrr_cuda_module_answer *answer, vkrr_error *err)
{
    uint8_t *data = NULL;
    size_t size = 0;
    *answer = VKRR_CUDA_MODULE_NO;
    vkrr_status st = vkrr_cuda_module_read(path, &data, &size, err);
    if (st != VKRR_OK) return st;
    st = vkrr_cuda_module_search(vkrr_cuda_module_kind_of(path), data, size, kernel, path, answer, err);
    free(data);
    return st;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends s and a NUL to the NUL-separated list *list (double-NUL terminated). */
static bool list_append(char **list, size_t *len, const char *s)
{
    const size_t n = strlen(s) + 1;
    char *p = realloc(*list, *len + n + 1);
    if (!p) return false;
    memcpy(p + *len, s, n);
    *len += n;
    p[*len] = '\0';
    *list = p;
    return true;
}

vkrr_status vkrr_cuda_module_candidates(const char *dir, const char *kernel, char **list,
                                        vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    char **names = NULL, *yes = NULL, *maybe = NULL;
    size_t nnames = 0, ylen = 0, mlen = 0;
    unsigned searched = 0, nunknown = 0, damaged = 0;
    char path[4096];
    *list = NULL;
    DIR *dp = opendir(dir);
    if (!dp)
        return vkrr_fail(err, VKRR_ERR_MISSING, dir, 0, -1, "cannot open the CUDA module folder: %s",
                         strerror(errno));
    for (struct dirent *de; (de = readdir(dp)) != NULL;) {
        if (vkrr_cuda_module_kind_of(de->d_name) == VKRR_CUDA_MODULE_NONE) continue;
        char **grown = realloc(names, (nnames + 1) * sizeof *names);
        if (grown) names = grown;
        if (!grown || !(names[nnames] = strdup(de->d_name))) goto nomem;
        nnames++;
    }
    if (nnames) qsort(names, nnames, sizeof *names, cmp_names);
    for (size_t i = 0; i < nnames; i++) {
        vkrr_cuda_module_answer a = VKRR_CUDA_MODULE_NO;
        vkrr_error ferr = { 0 };
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= sizeof path) continue;
        searched++;
        if (vkrr_cuda_module_file_has(path, kernel, &a, &ferr) != VKRR_OK) {
            char line[1400];
            vkrr_error_format(&ferr, line, sizeof line);
            vkrr_warn("skipping CUDA module: %s", line);
            damaged++;
        } else if (a == VKRR_CUDA_MODULE_YES) {
            if (!list_append(&yes, &ylen, path)) goto nomem;
        } else if (a == VKRR_CUDA_MODULE_UNKNOWN) {
            nunknown++;
            if (!list_append(&maybe, &mlen, path)) goto nomem;
        }
    }
    const bool sure = ylen != 0;
    for (const char *m = maybe; m && *m; m += strlen(m) + 1)
        if (!list_append(&yes, &ylen, m)) goto nomem;
    if (!sure)
        st = vkrr_fail(err, VKRR_ERR_MISSING, dir, 0, -1,
                       "no module in this folder holds kernel %s (%u .ptx/.cubin/.fatbin file(s) searched; "
                       "%u with compressed fatbin entries that only the driver can search "
                       "(rebuild with nvcc --no-compress); %u damaged file(s) skipped)",
                       kernel, searched, nunknown, damaged);
    *list = yes;
    yes = NULL;
    goto fail; /* shared cleanup */
nomem:
    st = vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "no memory to list CUDA modules");
fail:
    free(yes);
    free(maybe);
    for (size_t i = 0; i < nnames; i++) free(names[i]);
    free(names);
    closedir(dp);
    return st;
}

vkrr_status vkrr_cuda_module_find(const char *dir, const char *kernel, char *path_out,
                                  size_t cap, vkrr_error *err)
{
    char *list = NULL;
    vkrr_status st = vkrr_cuda_module_candidates(dir, kernel, &list, err);
    if (st == VKRR_OK && (size_t)snprintf(path_out, cap, "%s", list) >= cap)
        st = vkrr_fail(err, VKRR_ERR_RANGE, list, 0, -1, "module path too long");
    free(list);
    return st;
}
