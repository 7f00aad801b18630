/* capture_fs.c - the file-system helpers the capture reader's files share:
 * paths, sizes, directory listings.  Leaf of the reader: it calls nothing
 * else in capture/, so capture.c (the launch list) and capture_resolve.c
 * (dump/ and the log) both use it without calling each other back. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture_internal.h"

char *vkrr_capture_join(const char *a, const char *b)
{
    char *p = NULL;
    return asprintf(&p, "%s/%s", a, b) < 0 ? NULL : p;
}

vkrr_status vkrr_capture_stat_size(const char *path, uint64_t want, const char *what,
                                   vkrr_error *err)
{
    uint64_t size = 0;
    vkrr_status st = vkrr_capture_file_size(path, &size, what, err);
    if (st == VKRR_OK && size != want)
        st = vkrr_fail(err, VKRR_ERR_SIZE, path, 0, -1, "%s has %llu bytes, expected %llu", what,
                       (unsigned long long)size, (unsigned long long)want);
    return st;
}

vkrr_status vkrr_capture_file_size(const char *path, uint64_t *size, const char *what,
                                   vkrr_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        int e = errno;
        return vkrr_fail(err, e == ENOENT ? VKRR_ERR_MISSING : VKRR_ERR_IO, path, 0, -1,
                         "%s is missing: %s", what, strerror(e));
    }
    if (!S_ISREG(sb.st_mode))
        return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "%s is not a regular file", what);
    *size = (uint64_t)sb.st_size;
    return VKRR_OK;
}

vkrr_status vkrr_capture_list_dir(const char *path, char ***names, uint32_t *n, vkrr_error *err)
{
    *names = NULL;
    *n = 0;
    DIR *d = opendir(path);
    if (!d) {
        int e = errno;
        return vkrr_fail(err, e == ENOENT || e == ENOTDIR ? VKRR_ERR_MISSING : VKRR_ERR_IO, path,
                         0, -1, "cannot open directory: %s", strerror(e));
    }
    uint32_t cap = 0;
    vkrr_status st = VKRR_OK;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            uint32_t nc = cap ? cap * 2 : 64;
            char **p = nc > cap ? realloc(*names, nc * sizeof *p) : NULL;
            if (!p) {
                st = vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory listing");
                goto fail;
            }
            *names = p;
            cap = nc;
        }
        if (!((*names)[*n] = strdup(e->d_name))) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory listing");
            goto fail;
        }
        (*n)++;
    }
    closedir(d);
    return VKRR_OK;
fail:
    closedir(d);
    vkrr_capture_free_names(*names, *n);
    *names = NULL;
    *n = 0;
    return st;
}

void vkrr_capture_free_names(char **names, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

vkrr_status vkrr_capture_damage(vkrr_capture *cap, vkrr_launch *l, vkrr_damage_kind kind,
                                const vkrr_error *e, vkrr_error *err)
{
    const char *where = l ? l->dir : cap->path;
    if (cap->first_damage.status == VKRR_OK)
        cap->first_damage = *e;
    if (!l) {
        vkrr_error *d = realloc(cap->damage, (cap->ndamage + 1) * sizeof *d);
        if (!d)
            return vkrr_fail(err, VKRR_ERR_NOMEM, where, 0, -1, "out of memory");
        cap->damage = d;
        d[cap->ndamage++] = *e;
        return VKRR_OK;
    }
    if (!l->damage_error) {
        if (!(l->damage_error = malloc(sizeof *l->damage_error)))
            return vkrr_fail(err, VKRR_ERR_NOMEM, where, 0, -1, "out of memory");
        *l->damage_error = *e;
        cap->ndamaged++;
    }
    l->ndamage++;
    if (kind > l->damage)
        l->damage = kind;
    return VKRR_OK;
}

vkrr_status vkrr_capture_add_dump_only(vkrr_capture *cap, uint64_t seq, const char *kernel,
                                       size_t kernel_len, uint32_t ndumps, vkrr_error *err)
{
    if (cap->ndump_only == cap->dump_only_cap) {
        uint32_t nc = cap->dump_only_cap ? 2 * cap->dump_only_cap : 16;
        vkrr_dump_only *p = realloc(cap->dump_only, nc * sizeof *p);
        if (!p)
            return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
        cap->dump_only = p;
        cap->dump_only_cap = nc;
    }
    char *k = strndup(kernel ? kernel : "", kernel ? kernel_len : 0);
    if (!k)
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    cap->dump_only[cap->ndump_only++] = (vkrr_dump_only){.sequence = seq, .kernel = k, .ndumps = ndumps};
    return VKRR_OK;
}
