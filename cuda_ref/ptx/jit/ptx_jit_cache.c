/* ptx_jit_cache.c - the JIT's compiled kernels on disk, so a second run
 * compiles nothing.
 *
 * An entry is one kernel's object code under $XDG_CACHE_HOME/vkrr/ptx-jit
 * (vkrr_cache_path), named by its key: two 64-bit hashes of the kernel's
 * LLVM IR (as bitcode) as the JIT emitted it, before any optimisation, and
 * of everything else that shapes the code (LLVM's version, the host CPU and
 * its features, the passes, the JIT's version).  The IR holds every decoded operand and
 * the runtime's layout, so a changed kernel, a changed vkrr or another CPU
 * is another key.  The file repeats the key and carries the object's size
 * and hash: a damaged or stale entry (truncated, edited, another key's) is
 * compiled again and rewritten, never loaded.  Entries are written to a
 * temporary file and renamed into place, so a reader never sees half of
 * one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "mapfile.h"
#include "ptx_internal.h"

#define MAGIC "VKRRJIT1"
enum { HEADER = 48 }; /* magic, h0, h1, ir bytes, object bytes, object hash */
#define OBJ_MAX (256u << 20)

void ptx_jit_key_make(ptx_jit_key *k, const char *ir, size_t n, const char *env)
{
    uint64_t a = vkrr_fnv1a64_update(VKRR_FNV1A64_INIT, env, strlen(env));
    a = vkrr_fnv1a64_update(a, ir, n);
    /* a second hash, over the text in the other direction from another start */
    uint64_t b = VKRR_FNV1A64_INIT ^ 0x9e3779b97f4a7c15ull;
    for (size_t i = n; i > 0; i--)
        b = (b ^ (uint8_t)ir[i - 1]) * VKRR_FNV1A64_PRIME;
    b = vkrr_fnv1a64_update(b, env, strlen(env));
    k->h0 = a;
    k->h1 = b;
    k->bytes = n;
}

static bool entry_path(const ptx_jit_key *k, char *out, size_t cap, bool create)
{
    char dir[1024];
    if (!vkrr_cache_path(dir, sizeof dir, "ptx-jit"))
        return false;
    if (create && vkrr_mkdirs(dir, NULL) != VKRR_OK)
        return false;
    int n = snprintf(out, cap, "%s/%016llx%016llx.o", dir, (unsigned long long)k->h0,
                     (unsigned long long)k->h1);
    return n > 0 && (size_t)n < cap;
}

static void put64(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void *ptx_jit_cache_load(const ptx_jit_key *k, size_t *size)
{
    char path[1200];
    if (!entry_path(k, path, sizeof path, false))
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    uint8_t h[HEADER];
    struct stat sb;
    void *obj = NULL;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > HEADER &&
        pread(fd, h, HEADER, 0) == HEADER && !memcmp(h, MAGIC, 8) && get64(h + 8) == k->h0 &&
        get64(h + 16) == k->h1 && get64(h + 24) == k->bytes &&
        get64(h + 32) == (uint64_t)sb.st_size - HEADER && get64(h + 32) <= OBJ_MAX) {
        size_t n = (size_t)get64(h + 32);
        obj = malloc(n);
        if (obj && (pread(fd, obj, n, HEADER) != (ssize_t)n ||
                    vkrr_fnv1a64(obj, n) != get64(h + 40))) {
            free(obj);
            obj = NULL;
        }
        *size = n;
    }
    close(fd);
    return obj;
}

bool ptx_jit_cache_store(const ptx_jit_key *k, const void *obj, size_t n)
{
    char path[1200], tmp[1300];
    if (n > OBJ_MAX || !entry_path(k, path, sizeof path, true))
        return false;
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return false;
    uint8_t h[HEADER];
    memcpy(h, MAGIC, 8);
    put64(h + 8, k->h0);
    put64(h + 16, k->h1);
    put64(h + 24, k->bytes);
    put64(h + 32, n);
    put64(h + 40, vkrr_fnv1a64(obj, n));
    bool ok = write(fd, h, HEADER) == HEADER && write(fd, obj, n) == (ssize_t)n &&
              fchmod(fd, 0644) == 0;
    ok = close(fd) == 0 && ok && rename(tmp, path) == 0;
    if (!ok)
        unlink(tmp);
    return ok;
}
