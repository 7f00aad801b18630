/* test_ptx_checked_in: the PTX checked in under tests/ptx/checked_in/ (used
 * when a build has no nvcc) is what this build's nvcc makes from the same
 * sources, ignoring '//' comment lines (the compiler's banner) and the
 * path-derived digits of internal symbol names; and every
 * checked-in module parses and decodes every entry. */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "testutil.h"

/* text without '//' lines */
static char *strip(const char *s)
{
    size_t n = strlen(s);
    char *o = malloc(n + 1), *q = o;
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s + 1) : strlen(s);
        const char *p = s;
        while (p < s + len && (*p == ' ' || *p == '\t'))
            p++;
        if (!(p[0] == '/' && p[1] == '/')) {
            memcpy(q, s, len);
            q += len;
        }
        s += len;
    }
    *q = 0;
    return o;
}

/* nvcc names a translation unit's internal symbols (libcu++'s, pulled in by
 * cooperative_groups) _INTERNAL_<8 hex digits>_ and _GLOBAL__N__<8 hex>_,
 * the digits a hash of the source's path: they differ between checkouts, so
 * they are masked before comparing. */
static void mask_internal(char *s)
{
    static const char *const prefixes[] = {"_INTERNAL_", "_GLOBAL__N__"};
    for (unsigned k = 0; k < 2; k++)
        for (char *p = s; (p = strstr(p, prefixes[k]));) {
            p += strlen(prefixes[k]);
            unsigned n = 0;
            while (n < 8 && isxdigit((unsigned char)p[n]))
                n++;
            if (n == 8 && p[8] == '_')
                memset(p, '#', 8);
        }
}

static void check_dir(const char *checked, const char *built)
{
    DIR *d = opendir(checked);
    if (!CHECK(d != NULL))
        return;
    struct dirent *e;
    unsigned n = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".ptx"))
            continue;
        char a[4096], b[4096];
        snprintf(a, sizeof a, "%s/%s", checked, e->d_name);
        vkrr_ptx_module *m = NULL;
        vkrr_error err = {0};
        if (CHECK(vkrr_ptx_module_load_file(&m, a, &err) == VKRR_OK)) {
            const char *names[32];
            uint32_t ne = vkrr_ptx_module_entries(m, names, 32);
            CHECK(ne >= 1 && ne <= 32);
            for (uint32_t k = 0; k < ne && k < 32; k++)
                if (!CHECK(vkrr_ptx_entry_status(m, names[k], &err) == VKRR_OK))
                    vkrr_error_print(&err, stderr);
            n++;
            vkrr_ptx_module_free(m);
        } else {
            vkrr_error_print(&err, stderr);
        }
        if (!built)
            continue;
        snprintf(b, sizeof b, "%s/%s", built, e->d_name);
        char *x = test_read_file(a, NULL), *y = test_read_file(b, NULL);
        if (CHECK(x && y)) {
            char *sx = strip(x), *sy = strip(y);
            mask_internal(sx);
            mask_internal(sy);
            if (!CHECK(!strcmp(sx, sy)))
                fprintf(stderr, "%s differs from the build's %s: refresh tests/ptx/checked_in\n", a, b);
            free(sx);
            free(sy);
        }
        free(x);
        free(y);
    }
    closedir(d);
    CHECK(n >= 4);
}

#ifdef VKRR_PTX_FROM_NVCC
/* every .ptx the build made has its checked-in copy */
static void check_complete(const char *built, const char *checked)
{
    DIR *d = opendir(built);
    if (!CHECK(d != NULL))
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".ptx"))
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", checked, e->d_name);
        char *x = test_read_file(p, NULL);
        if (!CHECK(x != NULL))
            fprintf(stderr, "%s is not checked in (copy it from %s)\n", p, built);
        free(x);
    }
    closedir(d);
}
#endif

int main(void)
{
#ifdef VKRR_PTX_FROM_NVCC
    check_dir(VKRR_PTX_CHECKED_IN, VKRR_PTX_KERNEL_DIR);
    check_dir(VKRR_PTX_CHECKED_IN "/rrref", VKRR_PTX_RRREF_DIR);
    check_complete(VKRR_PTX_KERNEL_DIR, VKRR_PTX_CHECKED_IN);
    check_complete(VKRR_PTX_RRREF_DIR, VKRR_PTX_CHECKED_IN "/rrref");
#else
    fprintf(stderr, "test_ptx_checked_in: no nvcc in this build: only loading the checked-in PTX\n");
    check_dir(VKRR_PTX_CHECKED_IN, NULL);
    check_dir(VKRR_PTX_CHECKED_IN "/rrref", NULL);
#endif
    return test_finish("ptx_checked_in");
}
