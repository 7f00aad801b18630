/* watch.c - `vkrr validate --watch`: run, then run again each time a port
 * file in the ports folder changes (inotify), until SIGINT (cli.h). */
#include "cli.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define WATCH_QUIET_MS 150 /* an editor's save is several events: wait for quiet */

/* The files a run reads from the ports folder; editors' swap and backup
 * files are not among them. */
static bool is_port_file(const char *name)
{
    static const char *const ext[] = {".comp", ".spv", ".port", ".glsl"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        size_t e = strlen(ext[i]);
        if (n > e && !strcmp(name + n - e, ext[i]))
            return true;
    }
    return false;
}

/* Drains the events ready on fd; the name of a port file among them into
 * changed (when it is still empty).  False when reading failed. */
static bool drain(int fd, char *changed, size_t cap)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR;
    for (char *p = buf; p < buf + n;) {
        const struct inotify_event *ev = (const struct inotify_event *)p;
        if (ev->len && is_port_file(ev->name) && !changed[0])
            snprintf(changed, cap, "%s", ev->name);
        p += sizeof *ev + ev->len;
    }
    return true;
}

/* Waits for a change to a port file: true with its name, false on SIGINT
 * or an error.  SIGINT is caught only here: during a run it acts as usual. */
static bool wait_change(int fd, char *changed, size_t cap)
{
    vkrr_cli_signals saved;
    vkrr_cli_interrupts(&saved, false, false); /* no restart: poll returns at once */
    changed[0] = 0;
    bool ok = true;
    while (ok && !vkrr_cli_interrupted) {
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, changed[0] ? WATCH_QUIET_MS : -1);
        if (r < 0 && errno != EINTR)
            ok = false;
        else if (r > 0)
            ok = drain(fd, changed, cap);
        else if (r == 0)
            break; /* quiet after a change */
    }
    vkrr_cli_interrupts_done(&saved);
    return ok && !vkrr_cli_interrupted && changed[0];
}

int vkrr_cli_watch(const char *dir, unsigned max_runs, int (*run)(void *ctx), void *ctx)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0 || inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
                                                 IN_DELETE) < 0) {
        fprintf(stderr, "vkrr: error: %s: cannot watch it: %s\n", dir, strerror(errno));
        if (fd >= 0)
            close(fd);
        return vkrr_status_exit_code(VKRR_ERR_IO);
    }
    int rc = 0;
    char changed[256];
    for (unsigned runs = 1;; runs++) {
        rc = run(ctx);
        if (max_runs && runs >= max_runs)
            break;
        if (rc == vkrr_status_exit_code(VKRR_ERR_INTERRUPTED))
            break; /* Ctrl-C during a run: it stopped after a launch; so does the watch */
        printf("watching %s for changed .comp, .spv, .port and .glsl files (Ctrl-C stops)\n", dir);
        fflush(stdout);
        if (!wait_change(fd, changed, sizeof changed))
            break;
        printf("\n%s changed: running again\n", changed);
    }
    close(fd);
    return rc;
}
