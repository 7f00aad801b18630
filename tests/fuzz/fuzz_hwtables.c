/* fuzz_hwtables - libFuzzer target: a hardware table set as `--hw-tables DIR`
 * or a damaged cache gives it (src/hw/hw_tables.h).  The input is
 *     tables.tsv text, a NUL byte, then either
 *     the bytes of exceptions_sin_turn_K25.u32.xz, or
 *     'C' and the bytes of that table's cached (decompressed) copy.
 * The set is written to a scratch folder (the other tables' .xz empty) and
 * opened; the exception table is fetched.  Whatever the bytes: no crash; an
 * error names a file (and the manifest's line); a table handed out has the
 * size and hash tables.tsv gives, however damaged the cached copy was; the
 * cache folder is named by a plain sm_NN, so nothing is written outside it. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "hw_tables.h"

static char root[256], set[300], cache[300];

static void put(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (n && fwrite(data, 1, n, f) != n)
        abort();
    fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(root, sizeof root, "%s/vkrr-fuzz-hw.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root))
        abort();
    snprintf(set, sizeof set, "%s/set", root);
    snprintf(cache, sizeof cache, "%s/cache", root);
    mkdir(set, 0755);
    mkdir(cache, 0755);
    setenv("XDG_CACHE_HOME", cache, 1);
    for (int i = 0; i < VKRR_HWT_COUNT; i++) {
        char p[400];
        snprintf(p, sizeof p, "%s/%s.xz", set, vkrr_hw_table_name((vkrr_hw_table_id)i));
        put(p, "", 0);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!root[0])
        LLVMFuzzerInitialize(NULL, NULL);
    vkrr_warn_set_stream(NULL);
    const uint8_t *nul = memchr(data, 0, size);
    size_t mlen = nul ? (size_t)(nul - data) : size;
    const uint8_t *rest = nul ? nul + 1 : data + size;
    size_t rlen = (size_t)(data + size - rest);
    bool cached = rlen && rest[0] == 'C';
    char p[400];
    snprintf(p, sizeof p, "%s/tables.tsv", set);
    put(p, data, mlen);
    snprintf(p, sizeof p, "%s/%s.xz", set, vkrr_hw_table_name(VKRR_HWT_SIN_EXC));
    put(p, cached ? "" : (const char *)rest, cached ? 0 : rlen);

    vkrr_hw_tables *t = NULL;
    vkrr_error err;
    memset(&err, 0, sizeof err);
    vkrr_status st = vkrr_hw_tables_open_dir(set, &t, &err);
    if (st != VKRR_OK) {
        if (err.status != st || !strstr(err.file, set) || (st == VKRR_ERR_PARSE && !strstr(err.file, "tables.tsv")))
            abort();
        return 0;
    }
    const char *arch = vkrr_hw_tables_arch(t);
    if (strncmp(arch, "sm_", 3) || strchr(arch, '/') || strstr(arch, ".."))
        abort(); /* the cache folder's name stays one plain component */
    /* where load() keeps the copy: CACHE/vkrr/hw/ARCH-SETHASH/NAME */
    char dir[600], copy[700];
    snprintf(dir, sizeof dir, "%s/vkrr/hw/%s-%016llx", cache, arch,
             (unsigned long long)vkrr_fnv1a64(data, mlen));
    snprintf(copy, sizeof copy, "%s/%s", dir, vkrr_hw_table_name(VKRR_HWT_SIN_EXC));
    size_t want = vkrr_hw_tables_size(t, VKRR_HWT_SIN_EXC);
    if (want <= (4u << 20)) { /* larger tables only cost time here */
        if (cached) {
            char d[600];
            snprintf(d, sizeof d, "%s/vkrr", cache);
            mkdir(d, 0755);
            snprintf(d, sizeof d, "%s/vkrr/hw", cache);
            mkdir(d, 0755);
            mkdir(dir, 0755);
            put(copy, rest + 1, rlen - 1);
        }
        size_t n = 0;
        const void *d = vkrr_hw_tables_get(t, VKRR_HWT_SIN_EXC, &n);
        if (d && (n != want || vkrr_fnv1a64w_update(VKRR_FNV1A64_INIT, d, n) !=
                                   vkrr_hw_tables_hash(t, VKRR_HWT_SIN_EXC)))
            abort(); /* handed out only whole and unchanged */
        if (!d && (!vkrr_hw_tables_error(t, &err) || !err.file[0]))
            abort(); /* a table that cannot be had says why, naming its file */
    }
    vkrr_hw_tables_close(t);
    /* the cache holds the copy and nothing else (no temporary left behind) */
    unlink(copy);
    if (rmdir(dir) != 0 && errno != ENOENT)
        abort();
    return 0;
}
