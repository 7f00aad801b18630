/* capture_modules.c - a capture's CUDA modules (see modules.h): finding the
 * files, reading PTX out of them, ordering the sources by how well their
 * target fits the capture's device. */
#include "modules.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mapfile.h"

#define SEARCH_DEPTH 4 /* folders deep inside CAPDIR that files named by the log are looked for */

bool vkrr_ptx_text_defines(const char *text, size_t len, const char *k)
{
    size_t kl = strlen(k);
    for (const char *p = len >= 7 ? memmem(text, len, ".entry ", 7) : NULL; p;
         p = memmem(p + 1, len - (size_t)(p + 1 - text), ".entry ", 7)) {
        const char *q = p + 7;
        while ((size_t)(q - text) < len && (*q == ' ' || *q == '\t'))
            q++;
        if ((size_t)(q - text) + kl >= len || memcmp(q, k, kl))
            continue;
        char c = q[kl];
        if (c == '(' || c == ' ' || c == '\n' || c == '\t' || c == '\r')
            return true;
        if ((size_t)(p + 1 - text) >= len)
            break;
    }
    return false;
}

/* ".target sm_90a" -> 90; 0 when there is none. */
static uint32_t ptx_target(const char *text, size_t len)
{
    const char *t = len >= 8 ? memmem(text, len, ".target", 7) : NULL;
    if (!t)
        return 0;
    for (size_t i = (size_t)(t - text) + 7; i + 4 < len && text[i] != '\n'; i++)
        if (!memcmp(text + i, "sm_", 3)) {
            uint32_t a = 0;
            for (i += 3; i < len && text[i] >= '0' && text[i] <= '9' && a < 100000; i++)
                a = a * 10 + (uint32_t)(text[i] - '0');
            return a;
        }
    return 0;
}

/* PTX text: .version within the first 4 KiB, no NUL byte before it. */
static bool is_ptx_text(const uint8_t *d, size_t n)
{
    size_t k = n < 4096 ? n : 4096;
    const uint8_t *v = memmem(d, k, ".version", 8);
    return v && !memchr(d, 0, (size_t)(v - d));
}

static vkrr_status add_src(vkrr_module_set *s, const char *name, const char *path, char *text,
                           size_t len, uint32_t arch, int compression, bool in_fatbin, vkrr_error *err)
{
    vkrr_module_src *p = realloc(s->srcs, (s->n + 1) * sizeof *p);
    char *n = strdup(name), *pa = strdup(path);
    if (!p || !n || !pa) {
        if (p)
            s->srcs = p;
        free(n), free(pa), free(text);
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
    }
    s->srcs = p;
    s->srcs[s->n] = (vkrr_module_src){n, pa, text, len, arch ? arch : ptx_target(text, len),
                                      compression, in_fatbin, s->n};
    s->n++;
    return VKRR_OK;
}

/* The PTX entries of every fatbin in the file; cubins are counted. */
static vkrr_status add_fatbins(vkrr_module_set *s, vkrr_module_found *f, const vkrr_mapfile *m,
                               vkrr_error *err)
{
    vkrr_fatbin_list fl = {0};
    vkrr_status st = vkrr_fatbin_scan(m->data, m->size, f->path, &fl, err);
    f->nfatbins = fl.nfatbins;
    for (uint32_t i = 0; st == VKRR_OK && i < fl.n; i++) {
        const vkrr_fatbin_entry *e = &fl.entries[i];
        if (e->kind != VKRR_FATBIN_PTX) {
            f->ncubins += e->kind == VKRR_FATBIN_ELF;
            continue;
        }
        char *text = NULL, name[4200];
        size_t len = 0;
        if ((st = vkrr_fatbin_payload(m->data, m->size, e, f->path, &text, &len, err)))
            break;
        snprintf(name, sizeof name, "%s[fatbin %u, PTX entry %u]", f->path, e->fatbin, e->index);
        st = add_src(s, name, f->path, text, len, e->arch, e->compression, true, err);
        f->nptx += st == VKRR_OK;
    }
    vkrr_fatbin_list_free(&fl);
    return st;
}

vkrr_status vkrr_modules_add_file(vkrr_module_set *s, const char *path, const char *found,
                                  vkrr_error *err)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    for (uint32_t i = 0; i < s->nfiles; i++)
        if (!strcmp(s->files[i].path, real))
            return VKRR_OK; /* the same file by two ways */
    vkrr_module_found *fp = realloc(s->files, (s->nfiles + 1) * sizeof *fp);
    if (!fp)
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
    s->files = fp;
    vkrr_module_found *f = &s->files[s->nfiles];
    *f = (vkrr_module_found){.path = strdup(real), .found = strdup(found)};
    if (!f->path || !f->found) {
        free(f->path), free(f->found);
        return vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
    }
    s->nfiles++;
    vkrr_mapfile m = {0};
    vkrr_status st = vkrr_mapfile_open(&m, f->path, VKRR_MAPFILE_ANY_SIZE, err);
    if (st != VKRR_OK)
        return st;
    if (is_ptx_text(m.data, m.size)) {
        char *text = malloc(m.size + 1);
        if (!text)
            st = vkrr_fail(err, VKRR_ERR_NOMEM, path, 0, -1, "out of memory");
        else {
            memcpy(text, m.data, m.size);
            text[m.size] = 0;
            st = add_src(s, f->path, f->path, text, m.size, 0, VKRR_FATBIN_RAW, false, err);
            f->nptx = st == VKRR_OK;
        }
    } else {
        st = add_fatbins(s, f, &m, err);
    }
    vkrr_mapfile_close(&m);
    return st;
}

static bool module_name(const char *n)
{
    static const char *const ext[] = {".ptx", ".fatbin", ".cubin", ".dll", ".so", ".o", ".exe", ".bin"};
    const char *dot = strrchr(n, '.');
    for (size_t i = 0; dot && i < sizeof ext / sizeof *ext; i++)
        if (!strcmp(dot, ext[i]) || (!strcmp(ext[i], ".so") && strstr(n, ".so.")))
            return true;
    return false;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's module files, in name order. */
static vkrr_status add_dir(vkrr_module_set *s, const char *dir, const char *found, vkrr_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return vkrr_fail(err, VKRR_ERR_MISSING, dir, 0, -1, "cannot open the module folder");
    char **names = NULL;
    uint32_t n = 0;
    vkrr_status st = VKRR_OK;
    struct dirent *e;
    while ((e = readdir(d)) && st == VKRR_OK) {
        if (e->d_name[0] == '.' || !module_name(e->d_name))
            continue;
        char **p = realloc(names, (n + 1) * sizeof *names);
        if (!p || !(p[n] = strdup(e->d_name))) {
            names = p ? p : names;
            st = vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "out of memory");
            break;
        }
        names = p;
        n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_name);
    for (uint32_t i = 0; i < n && st == VKRR_OK; i++) {
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            st = vkrr_modules_add_file(s, path, found, err);
    }
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return st;
}

/* Files named `base` anywhere under dir (depth levels down). */
static vkrr_status find_by_name(vkrr_module_set *s, const char *dir, const char *base, int depth,
                                vkrr_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return VKRR_OK;
    vkrr_status st = VKRR_OK;
    struct dirent *e;
    while ((e = readdir(d)) && st == VKRR_OK) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode) && depth > 0 && strcmp(e->d_name, "dump") && strcmp(e->d_name, "replay"))
            st = find_by_name(s, path, base, depth - 1, err);
        else if (S_ISREG(sb.st_mode) && !strcmp(e->d_name, base))
            st = vkrr_modules_add_file(s, path, "found by name in CAPDIR", err);
    }
    closedir(d);
    return st;
}

/* Preferred first: fits the device (highest first), then the rest (highest
 * first); file order among equals. */
static uint32_t g_device;
static int cmp_pref(const void *a, const void *b)
{
    const vkrr_module_src *x = a, *y = b;
    bool fx = g_device && x->arch && x->arch <= g_device, fy = g_device && y->arch && y->arch <= g_device;
    if (fx != fy)
        return fx ? -1 : 1;
    if (x->arch != y->arch)
        return x->arch > y->arch ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

vkrr_status vkrr_modules_find(const vkrr_capture *cap, const char *const *given, uint32_t ngiven,
                              vkrr_module_set *out, vkrr_error *err)
{
    vkrr_status st = VKRR_OK;
    memset(out, 0, sizeof *out);
    if (cap && cap->device.present && cap->device.cc_major >= 0)
        out->device_arch = (uint32_t)(cap->device.cc_major * 10 + cap->device.cc_minor);
    for (uint32_t i = 0; i < ngiven && st == VKRR_OK; i++) {
        struct stat sb;
        if (stat(given[i], &sb) != 0)
            st = vkrr_fail(err, VKRR_ERR_MISSING, given[i], 0, -1, "--modules: no such file or folder");
        else
            st = S_ISDIR(sb.st_mode) ? add_dir(out, given[i], "given", err)
                                     : vkrr_modules_add_file(out, given[i], "given", err);
    }
    if (!ngiven && cap) {
        char dir[PATH_MAX + 16];
        struct stat sb;
        snprintf(dir, sizeof dir, "%s/modules", cap->path);
        if (stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))
            st = add_dir(out, dir, "CAPDIR/modules", err);
        for (uint32_t i = 0; i < cap->nlogged_modules && st == VKRR_OK; i++) {
            const char *p = cap->logged_modules[i].path, *slash = strrchr(p, '/');
            if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
                st = vkrr_modules_add_file(out, p, "named by run.log", err);
            if (st == VKRR_OK)
                st = find_by_name(out, cap->path, slash ? slash + 1 : p, SEARCH_DEPTH, err);
        }
    }
    g_device = out->device_arch;
    if (st == VKRR_OK && out->n > 1)
        qsort(out->srcs, out->n, sizeof *out->srcs, cmp_pref);
    if (st != VKRR_OK)
        vkrr_modules_free(out);
    return st;
}

void vkrr_modules_free(vkrr_module_set *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        free(s->srcs[i].name), free(s->srcs[i].path), free(s->srcs[i].text);
    for (uint32_t i = 0; i < s->nfiles; i++)
        free(s->files[i].path), free(s->files[i].found);
    free(s->srcs);
    free(s->files);
    memset(s, 0, sizeof *s);
}

int vkrr_modules_pick(const vkrr_module_set *s, const char *k, char *buf, size_t cap)
{
    int first = -1;
    size_t used = 0;
    if (cap)
        buf[0] = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (!vkrr_ptx_text_defines(s->srcs[i].text, s->srcs[i].len, k))
            continue;
        if (first < 0)
            first = (int)i;
        if (used < cap)
            used += (size_t)snprintf(buf + used, cap - used, "%ssm_%u", used ? ", " : "", s->srcs[i].arch);
    }
    bool differ = false;
    for (uint32_t i = 0; first >= 0 && i < s->n; i++)
        differ = differ || (s->srcs[i].arch != s->srcs[first].arch &&
                            vkrr_ptx_text_defines(s->srcs[i].text, s->srcs[i].len, k));
    if (first >= 0 && cap) {
        if (!differ) { /* one target: nothing was chosen */
            buf[0] = 0;
        } else {
            char tail[256];
            if (s->device_arch)
                snprintf(tail, sizeof tail, ": took sm_%u, the highest target at most the capture's "
                         "device (sm_%u)", s->srcs[first].arch, s->device_arch);
            else
                snprintf(tail, sizeof tail, ": took sm_%u, the highest (the capture does not record its GPU)",
                         s->srcs[first].arch);
            size_t l = strlen(buf);
            snprintf(buf + l, cap - l, "%s", tail);
        }
    }
    return first;
}

void vkrr_modules_summary(const vkrr_module_set *s, char *buf, size_t cap)
{
    uint32_t fat = 0, comp[3] = {0}, cubins = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        fat += s->srcs[i].in_fatbin;
        comp[s->srcs[i].compression < 3 ? s->srcs[i].compression : 0]++;
    }
    for (uint32_t i = 0; i < s->nfiles; i++)
        cubins += s->files[i].ncubins;
    size_t n = (size_t)snprintf(buf, cap, "%u PTX (%u from fatbins: %u LZ4, %u zstd; %u cubins "
                                "beside them) from %u file%s", s->n, fat, comp[VKRR_FATBIN_LZ4],
                                comp[VKRR_FATBIN_ZSTD], cubins, s->nfiles, s->nfiles == 1 ? "" : "s");
    /* the files by folder and by how they were found */
    for (uint32_t i = 0; i < s->nfiles && n < cap; i++) {
        const vkrr_module_found *f = &s->files[i];
        const char *slash = strrchr(f->path, '/');
        int dl = slash ? (int)(slash - f->path) : 0;
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++) {
            const char *sj = strrchr(s->files[j].path, '/');
            seen = (sj ? (int)(sj - s->files[j].path) : 0) == dl && !strncmp(s->files[j].path, f->path, (size_t)dl) &&
                   !strcmp(s->files[j].found, f->found);
        }
        if (seen)
            continue;
        uint32_t count = 0;
        for (uint32_t j = i; j < s->nfiles; j++) {
            const char *sj = strrchr(s->files[j].path, '/');
            count += (sj ? (int)(sj - s->files[j].path) : 0) == dl &&
                     !strncmp(s->files[j].path, f->path, (size_t)dl) && !strcmp(s->files[j].found, f->found);
        }
        n += (size_t)snprintf(buf + n, cap - n, "%s %u in %.*s (%s)", i ? "," : ":", count, dl ? dl : 1,
                              dl ? f->path : ".", f->found);
    }
}
