/* ports_dir.c - a --ports folder checked against the capture (ports_dir.h). */
#include "ports_dir.h"
#include "portdesc.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Levenshtein distance, two rows. */
static size_t distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    size_t *prev = malloc((m + 1) * sizeof *prev), *cur = malloc((m + 1) * sizeof *cur);
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return n > m ? n : m;
    }
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        size_t *t = prev;
        prev = cur;
        cur = t;
    }
    size_t d = prev[m];
    free(prev);
    free(cur);
    return d;
}

const char *vkrr_nearest_kernel(const vkrr_capture *cap, const char *name)
{
    const char *best = NULL;
    size_t bd = 0;
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const char *k = cap->launches[i].kernel;
        if (best && !strcmp(best, k))
            continue;
        size_t d = distance(name, k);
        if (!best || d < bd)
            best = k, bd = d;
    }
    return best;
}

static bool captured(const vkrr_capture *cap, const char *kernel)
{
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (!strcmp(cap->launches[i].kernel, kernel))
            return true;
    return false;
}

/* Does a captured kernel's DIR/KERNEL.port name shader as a pass's shader=
 * (portpass.h)?  Then that file is used, though no kernel is called so.  A
 * descriptor that does not parse names nothing here (validate says why). */
static bool pass_shader(const char *dir, const vkrr_capture *cap, const char *shader)
{
    bool used = false;
    for (uint32_t i = 0; i < cap->nlaunches && !used; i++) {
        char path[4096];
        vkrr_portdesc *d = NULL;
        vkrr_error e = {0};
        if (i && !strcmp(cap->launches[i - 1].kernel, cap->launches[i].kernel))
            continue;
        snprintf(path, sizeof path, "%s/%s.port", dir, cap->launches[i].kernel);
        if (vkrr_portdesc_load(&d, path, &e) != VKRR_OK)
            continue;
        const vkrr_port_iface *f = vkrr_portdesc_iface(d);
        for (uint32_t p = 0; f && p < f->npass && !used; p++)
            used = !strcmp(f->pass[p]->shader, shader);
        vkrr_portdesc_destroy(d);
    }
    return used;
}

/* The kernel names, each once, comma-separated, into out. */
static void kernel_list(const vkrr_capture *cap, char *out, size_t cap_bytes)
{
    size_t at = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < cap->nlaunches && at < cap_bytes; i++) {
        const char *k = cap->launches[i].kernel;
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = !strcmp(cap->launches[j].kernel, k);
        if (!seen)
            at += (size_t)snprintf(out + at, cap_bytes - at, "%s%s", at ? ", " : "", k);
    }
}

vkrr_status vkrr_ports_dir_check(const char *dir, const vkrr_capture *cap, vkrr_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return vkrr_fail(err, VKRR_ERR_MISSING, dir, 0, -1, "--ports: cannot open the folder");
    unsigned matched = 0;
    static const char *const exts[] = {".comp", ".spv", ".port"};
    for (struct dirent *e; (e = readdir(d));) {
        const char *dot = strrchr(e->d_name, '.');
        bool port_file = false;
        for (size_t k = 0; dot && k < sizeof exts / sizeof exts[0]; k++)
            port_file = port_file || !strcmp(dot, exts[k]);
        if (!port_file || dot == e->d_name)
            continue;
        char kernel[256];
        snprintf(kernel, sizeof kernel, "%.*s", (int)(dot - e->d_name), e->d_name);
        if (captured(cap, kernel)) {
            matched++;
            continue;
        }
        if (strcmp(dot, ".port") && pass_shader(dir, cap, kernel))
            continue;
        const char *near = vkrr_nearest_kernel(cap, kernel);
        vkrr_warn("%s/%s: no captured kernel is called %s, so it is not used%s%s%s", dir, e->d_name,
                  kernel, near ? " (nearest: " : "", near ? near : "", near ? ")" : "");
    }
    closedir(d);
    if (matched)
        return VKRR_OK;
    char list[2048];
    kernel_list(cap, list, sizeof list);
    return vkrr_fail(err, VKRR_ERR_USAGE, dir, 0, -1,
                     "--ports: no .comp, .spv or .port file here is named after a kernel of the "
                     "capture, so no port of yours would run (the built-in ones would, in their "
                     "place); it could hold KERNEL.comp for: %s", list);
}
