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
    struct stat sb;
    if (stat(path, &sb) != 0) {
        int e = errno;
        return vkrr_fail(err, e == ENOENT ? VKRR_ERR_MISSING : VKRR_ERR_IO, path, 0, -1,
                         "%s is missing: %s", what, strerror(e));
    }
    if (!S_ISREG(sb.st_mode))
        return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "%s is not a regular file", what);
    if ((uint64_t)sb.st_size != want)
        return vkrr_fail(err, VKRR_ERR_SIZE, path, 0, -1, "%s has %llu bytes, expected %llu", what,
                         (unsigned long long)sb.st_size, (unsigned long long)want);
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
