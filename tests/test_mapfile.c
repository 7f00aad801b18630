/* test_mapfile: vkrr_write_file_atomic writes regular files through a
 * temporary name and rename(), and leaves alone what is not a regular file:
 * a FIFO (as /dev/null or /dev/stdout would be) is written in place and is
 * still a FIFO after, a symlink still a symlink (its target replaced).  A
 * rename over /dev/null, run as root, once replaced the device with a file. */
#include "mapfile.h"
#include "testutil.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct reader {
    const char *path;
    char got[64];
    ssize_t n;
} reader;

/* Waits up to 10 s for what is written into the FIFO (a writer that renames
 * a file over it instead never comes: then n is 0 and the test fails, it does
 * not hang). */
static void *read_fifo(void *arg)
{
    reader *r = arg;
    int fd = open(r->path, O_RDONLY | O_NONBLOCK);
    r->n = -1;
    if (fd < 0)
        return NULL;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    r->n = poll(&p, 1, 10000) == 1 ? read(fd, r->got, sizeof r->got - 1) : 0;
    close(fd);
    return NULL;
}

int main(void)
{
    char *dir = test_tmpdir("test_mapfile");
    char path[4096], link[4096], fifo[4096];
    vkrr_error err = {0};
    struct stat sb;

    /* a regular file: replaced whole, nothing left beside it */
    snprintf(path, sizeof path, "%s/out.json", dir);
    CHECK(test_write_file(path, "old contents", 12));
    CHECK_EQ_U64(vkrr_write_file_atomic(path, "{}\n", 3, &err), VKRR_OK);
    size_t len = 0;
    char *back = test_read_file(path, &len);
    CHECK(back && len == 3 && !memcmp(back, "{}\n", 3));
    free(back);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "test $(ls '%s' | wc -l) -eq 1", dir);
    CHECK(system(cmd) == 0);

    /* a symlink to it: the link stays, its target is replaced */
    snprintf(link, sizeof link, "%s/link.json", dir);
    CHECK(symlink(path, link) == 0);
    CHECK_EQ_U64(vkrr_write_file_atomic(link, "[1]\n", 4, &err), VKRR_OK);
    CHECK(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode));
    back = test_read_file(path, &len);
    CHECK(back && len == 4 && !memcmp(back, "[1]\n", 4));
    free(back);

    /* a FIFO: written in place, still a FIFO */
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    reader r = {.path = fifo};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, read_fifo, &r) == 0);
    CHECK_EQ_U64(vkrr_write_file_atomic(fifo, "streamed\n", 9, &err), VKRR_OK);
    pthread_join(t, NULL);
    CHECK(r.n == 9 && !memcmp(r.got, "streamed\n", 9));
    CHECK(stat(fifo, &sb) == 0 && S_ISFIFO(sb.st_mode));

    /* a folder not made yet is made with the file (--json out/r.json) */
    snprintf(path, sizeof path, "%s/missing/deeper/out.json", dir);
    CHECK_EQ_U64(vkrr_write_file_atomic(path, "x", 1, &err), VKRR_OK);
    CHECK(stat(path, &sb) == 0 && sb.st_size == 1);
    /* a folder that cannot be: an error naming the path, no file */
    snprintf(path, sizeof path, "%s/missing/deeper/out.json/under-a-file.json", dir);
    CHECK(vkrr_write_file_atomic(path, "x", 1, &err) != VKRR_OK);
    CHECK(strstr(err.file, "out.json") != NULL);

    int rc = test_finish("mapfile");
    if (rc == 0)
        test_rmtree(dir);
    free(dir);
    return rc;
}
