/* datadir.c - the run-time data folder, found from the executable (see datadir.h). */
#include "datadir.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char exe_dir[PATH_MAX];
static pthread_once_t exe_once = PTHREAD_ONCE_INIT;

static void find_exe_dir(void)
{
    ssize_t n = readlink("/proc/self/exe", exe_dir, sizeof exe_dir - 1);
    exe_dir[n > 0 ? n : 0] = 0;
    char *slash = strrchr(exe_dir, '/');
    if (slash)
        *slash = 0;
    else
        exe_dir[0] = 0;
}

const char *vkrr_exe_dir(void)
{
    pthread_once(&exe_once, find_exe_dir);
    return exe_dir;
}

static bool is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

const char *vkrr_data_dir(const char **how)
{
    /* Not cached: tests and users may set VKRR_DATA_DIR between calls. */
    static __thread char dir[PATH_MAX + 32];
    const char *env = getenv("VKRR_DATA_DIR");
    if (env && env[0]) {
        if (how)
            *how = "VKRR_DATA_DIR";
        snprintf(dir, sizeof dir, "%s", env);
        return is_dir(dir) ? dir : NULL;
    }
    const char *exe = vkrr_exe_dir();
    if (!exe[0])
        return NULL;
    static const struct {
        const char *rel, *how;
    } places[] = {{"/../share/vkrr", "installed"}, {"/share/vkrr", "build tree"}};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        char p[PATH_MAX + 32];
        snprintf(p, sizeof p, "%s%s", exe, places[i].rel);
        if (is_dir(p) && realpath(p, dir)) { /* shown to people: without "bin/.." */
            if (how)
                *how = places[i].how;
            return dir;
        }
    }
    return NULL;
}

bool vkrr_data_path(const char *rel, char *out, size_t cap)
{
    const char *d = vkrr_data_dir(NULL);
    out[0] = 0;
    if (!d || (size_t)snprintf(out, cap, "%s/%s", d, rel) >= cap || !is_dir(out)) {
        out[0] = 0;
        return false;
    }
    return true;
}
