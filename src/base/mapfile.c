/* mapfile.c - read-only maps, capped whole-file reads, atomic writes, mkdir -p. */
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static vkrr_status errno_status(int e)
{
    return e == ENOENT || e == ENOTDIR ? VKRR_ERR_MISSING : VKRR_ERR_IO;
}

vkrr_status vkrr_mapfile_open(vkrr_mapfile *m, const char *path, uint64_t expected_size,
                              vkrr_error *err)
{
    m->data = NULL;
    m->size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return vkrr_fail(err, errno_status(e), path, 0, -1, "cannot open: %s", strerror(e));
    }
    vkrr_status st = VKRR_OK;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot stat: %s", strerror(errno));
        goto fail;
    }
    if (!S_ISREG(sb.st_mode)) {
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "not a regular file");
        goto fail;
    }
    uint64_t size = (uint64_t)sb.st_size;
    if (expected_size != VKRR_MAPFILE_ANY_SIZE && size != expected_size) {
        st = vkrr_fail(err, VKRR_ERR_SIZE, path, 0, -1,
                       "file has %llu bytes, expected %llu", (unsigned long long)size,
                       (unsigned long long)expected_size);
        goto fail;
    }
    if (size > SIZE_MAX) {
        st = vkrr_fail(err, VKRR_ERR_RANGE, path, 0, -1, "file too large to map");
        goto fail;
    }
    if (size > 0) {
        void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot map: %s", strerror(errno));
            goto fail;
        }
        m->data = p;
        m->size = (size_t)size;
    }
fail:
    close(fd);
    return st;
}

void vkrr_mapfile_close(vkrr_mapfile *m)
{
    if (!m)
        return;
    if (m->data && m->size)
        munmap((void *)m->data, m->size);
    m->data = NULL;
    m->size = 0;
}

vkrr_status vkrr_read_text(const char *path, size_t max_bytes, char **out, size_t *len,
                           vkrr_error *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    char *buf = NULL;
    vkrr_status st = VKRR_OK;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return vkrr_fail(err, errno_status(e), path, 0, -1, "cannot open: %s", strerror(e));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "not a readable regular file");
        goto fail;
    }
    if ((uint64_t)sb.st_size > max_bytes) {
        st = vkrr_fail(err, VKRR_ERR_SIZE, path, 0, -1, "file has %llu bytes, more than the %zu allowed",
                       (unsigned long long)sb.st_size, max_bytes);
        goto fail;
    }
    size_t cap = (size_t)sb.st_size;
    buf = malloc(cap + 1);
    if (!buf) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory reading the file");
        goto fail;
    }
    size_t n = 0;
    /* Read one byte past the stat size: a file that grew is an error, not a
     * silent truncation. */
    while (n <= cap) {
        char extra;
        ssize_t r = n < cap ? read(fd, buf + n, cap - n) : read(fd, &extra, 1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "read failed: %s", strerror(errno));
            goto fail;
        }
        if (r == 0)
            break;
        if (n == cap) {
            st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "file changed while being read");
            goto fail;
        }
        n += (size_t)r;
    }
    buf[n] = 0;
    close(fd);
    *out = buf;
    if (len)
        *len = n;
    return VKRR_OK;
fail:
    free(buf);
    close(fd);
    return st;
}

/* All of data into fd; VKRR_ERR_IO naming what (the path) on failure. */
static vkrr_status write_all(int fd, const void *data, size_t size, const char *what,
                             vkrr_error *err)
{
    const uint8_t *p = data;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, p + done, size - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return vkrr_fail(err, VKRR_ERR_IO, what, 0, -1, "write failed: %s", strerror(errno));
        done += (size_t)w;
    }
    return VKRR_OK;
}

vkrr_status vkrr_write_file_atomic(const char *path, const void *data, size_t size,
                                   vkrr_error *err)
{
    /* Not a regular file (/dev/null, /dev/stdout, a pipe): written as it is;
     * a rename over it would replace the device with a file.  A symlink to a
     * regular file: its target is what gets replaced. */
    struct stat sb;
    char real[PATH_MAX];
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            return vkrr_fail(err, errno_status(e), path, 0, -1, "cannot open: %s", strerror(e));
        }
        vkrr_status st = write_all(fd, data, size, path, err);
        close(fd);
        return st;
    }
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) && realpath(path, real))
        path = real;
    char tmp[PATH_MAX];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof tmp)
        return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "path too long");
    vkrr_status st = VKRR_OK;
    /* the folder the file was asked for in (--json out/r.json) is made with it:
     * nothing is made before a file goes into it */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        if ((st = vkrr_mkdirs(dir, err)) != VKRR_OK)
            return st;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        return vkrr_fail(err, errno_status(e), tmp, 0, -1, "cannot create: %s", strerror(e));
    }
    if ((st = write_all(fd, data, size, tmp, err)) != VKRR_OK)
        goto fail;
    if (close(fd) != 0) {
        fd = -1;
        st = vkrr_fail(err, VKRR_ERR_IO, tmp, 0, -1, "close failed: %s", strerror(errno));
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0) {
        st = vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "rename failed: %s", strerror(errno));
        goto fail;
    }
    return VKRR_OK;
fail:
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    return st;
}

vkrr_status vkrr_mkdirs(const char *path, vkrr_error *err)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "bad directory path");
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != 0)
            continue;
        char c = buf[i];
        buf[i] = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            buf[i] = c;
            return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "cannot create directory: %s",
                             strerror(e));
        }
        struct stat sb;
        if (stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            buf[i] = c;
            return vkrr_fail(err, VKRR_ERR_IO, path, 0, -1, "a path component is not a directory");
        }
        buf[i] = c;
    }
    return VKRR_OK;
}

vkrr_status vkrr_text_each_line(const char *text, size_t len, const char *name, vkrr_line_fn fn,
                                void *ctx, vkrr_error *err)
{
    char *buf = malloc(len + 1);
    if (!buf)
        return vkrr_fail(err, VKRR_ERR_NOMEM, name, 0, -1, "out of memory");
    memcpy(buf, text, len);
    buf[len] = '\0';
    vkrr_status st = VKRR_OK;
    size_t nul = strlen(buf);
    if (nul != len) { /* named by its line, as every other fault in the text is */
        long ln = 1;
        for (size_t i = 0; i < nul; i++)
            ln += buf[i] == '\n';
        st = vkrr_fail(err, VKRR_ERR_PARSE, name, ln, (long)nul, "a NUL byte (byte %zu of the file)", nul);
    }
    long lineno = 0;
    for (char *line = buf; line && st == VKRR_OK;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        st = fn(ctx, line, ++lineno, err);
        line = nl ? nl + 1 : NULL;
    }
    free(buf);
    return st;
}

bool vkrr_cache_path(char *out, size_t cap, const char *sub)
{
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = -1;
    if (x && x[0] == '/')
        n = snprintf(out, cap, "%s/vkrr/%s", x, sub);
    else if (home && home[0] == '/')
        n = snprintf(out, cap, "%s/.cache/vkrr/%s", home, sub);
    if (n < 0 || (size_t)n >= cap) {
        if (cap)
            out[0] = 0;
        return false;
    }
    return true;
}
