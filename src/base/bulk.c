/* bulk.c - a launch's data in memory up to the limit, in scratch files beyond (bulk.h). */
#include "bulk.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Every block has this header HEAD bytes before the pointer handed out: 64
 * keeps the data aligned for any vector load.  A scratch file's data starts
 * a page in (page aligned), its header at the end of that first page. */
#define MAGIC_ANON 0x766b72726275616bull /* "vkrrbuak" */
#define MAGIC_FILE 0x766b727262756669ull /* "vkrrbufi" */
#define MAGIC_PAGES 0x766b727262757061ull /* "vkrrbupa": anonymous, mapped */
#define HEAD 64u

typedef struct head {
    uint64_t magic;
    uint64_t bytes; /* the caller's */
    uint64_t span;  /* what was mapped (file) */
} head;

static _Atomic uint64_t anon_now, file_now, file_peak;

uint64_t vkrr_bulk_page_bytes(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (uint64_t)p : 4096u;
}

/* "123", "64K", "1.5G": bytes; false when s is not a size. */
static bool parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0))
        return false;
    double mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1024.0; end++; break;
    case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'i' && mul > 1) /* KiB, MiB: the same powers of 1024 */
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    v *= mul;
    if (*end || v < 1 || v >= 1.8e19)
        return false;
    *out = (uint64_t)v;
    return true;
}

/* MemAvailable of /proc/meminfo, else the free pages. */
static uint64_t system_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    if (kb)
        return (uint64_t)kb * 1024u;
    long pages = sysconf(_SC_AVPHYS_PAGES);
    return pages > 0 ? (uint64_t)pages * vkrr_bulk_page_bytes() : UINT64_MAX / 4 * 3;
}

/* The number of a cgroup file ("max": none), or of its line starting with
 * key (memory.stat); 0 when unreadable. */
static uint64_t read_u64(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[256];
    unsigned long long v = 0;
    size_t k = key ? strlen(key) : 0;
    while (f && fgets(line, sizeof line, f))
        if (!key || (!strncmp(line, key, k) && line[k] == ' ')) {
            if (sscanf(line + k, "%llu", &v) != 1)
                v = 0;
            break;
        }
    if (f)
        fclose(f);
    return v;
}

/* What this process's memory cgroup still allows: its limit less its
 * anonymous memory (page cache it reclaims), v2 or v1, at the group's own
 * path and at the mount's root (a container's own group); UINT64_MAX where
 * none limits it.  A CI job is often held to a few GB on a machine with
 * many more, which MemAvailable alone would not say. */
static uint64_t cgroup_room(void)
{
    uint64_t room = UINT64_MAX;
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024], path[1400];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *rel = strchr(line, ':') ? strchr(strchr(line, ':') + 1, ':') : NULL;
        bool v2 = !strncmp(line, "0::", 3), v1 = strstr(line, ":memory:") != NULL;
        if (!rel || (!v2 && !v1))
            continue;
        static const char *const roots[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
                                            "/sys/fs/cgroup/memory"};
        for (int r = v2 ? 0 : 2; r < (v2 ? 2 : 3); r++)
            for (int own = 0; own < 2; own++) {
                const char *sub = own ? rel + 1 : "";
                snprintf(path, sizeof path, "%s%s/%s", roots[r], sub,
                         v2 ? "memory.max" : "memory.limit_in_bytes");
                uint64_t lim = read_u64(path, NULL);
                if (!lim || lim >= (1ull << 60)) /* v1 writes "no limit" as ~2^63 */
                    continue;
                snprintf(path, sizeof path, "%s%s/memory.stat", roots[r], sub);
                uint64_t anon = read_u64(path, v2 ? "anon" : "total_rss");
                uint64_t left = lim > anon ? lim - anon : 0;
                if (left < room)
                    room = left;
            }
    }
    if (f)
        fclose(f);
    return room;
}

/* MemAvailable of /proc/meminfo (else the free pages), or what the
 * process's cgroup allows where that is less. */
static uint64_t available(void)
{
    uint64_t room = cgroup_room();
    uint64_t sys = system_available();
    return room < sys ? room : sys;
}

static uint64_t env_limit; /* 0: not set (or not a size) */
static pthread_once_t limit_once = PTHREAD_ONCE_INIT;

static void find_limit(void)
{
    const char *env = getenv("VKRR_MEM_LIMIT");
    uint64_t v = 0;
    if (env && *env && parse_size(env, &v))
        env_limit = v;
}

/* Without VKRR_MEM_LIMIT the limit is taken anew at each call, from what
 * is free now: what the bulk data holds plus half of what is left (half
 * for everything else: the driver's images and compiled shaders, the
 * previous launch's outputs until the next one is read, the compare), so a
 * process whose driver alone takes a good part of a small cgroup still
 * streams where it must (bench/stream.sh). */
uint64_t vkrr_mem_limit(void)
{
    pthread_once(&limit_once, find_limit);
    if (env_limit)
        return env_limit;
    return atomic_load(&anon_now) + available() / 2;
}

vkrr_status vkrr_mem_limit_check(vkrr_error *err)
{
    const char *env = getenv("VKRR_MEM_LIMIT");
    uint64_t v;
    if (env && *env && !parse_size(env, &v))
        return vkrr_fail(err, VKRR_ERR_USAGE, "VKRR_MEM_LIMIT", 0, -1,
                         "'%s' is not a size (bytes, or a number with K, M, G or T: 512M, 1.5G)",
                         env);
    return VKRR_OK;
}

bool vkrr_mem_streamed(uint64_t bytes)
{
    return bytes > vkrr_mem_limit();
}

uint64_t vkrr_mem_slice(void)
{
    uint64_t s = vkrr_mem_limit() / 8;
    const uint64_t lo = 16u << 10, hi = 64u << 20;
    return s < lo ? lo : s > hi ? hi : s;
}

static void peak_max(uint64_t v)
{
    uint64_t p = atomic_load(&file_peak);
    while (v > p && !atomic_compare_exchange_weak(&file_peak, &p, v))
        ;
}

/* A scratch file of span bytes, unlinked, its blocks reserved now so that
 * a full disk is a NULL here and never a SIGBUS on a later write. */
static void *scratch_map(uint64_t span)
{
    const char *dir = getenv("VKRR_SCRATCH_DIR");
    if (!dir || !*dir)
        dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/var/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) { /* a file system without O_TMPFILE */
        char path[4096];
        snprintf(path, sizeof path, "%s/vkrr-scratch-XXXXXX", dir);
        fd = mkostemp(path, O_CLOEXEC);
        if (fd >= 0)
            unlink(path);
    }
    if (fd < 0) {
        vkrr_warn("scratch file in %s: %s (set VKRR_SCRATCH_DIR to a writable directory)", dir,
                  strerror(errno));
        return NULL;
    }
    int e = span > (uint64_t)INT64_MAX ? EFBIG : posix_fallocate(fd, 0, (off_t)span);
    void *p = MAP_FAILED;
    if (e == 0)
        p = mmap(NULL, (size_t)span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    else
        vkrr_warn("scratch file of %" PRIu64 " bytes in %s: %s", span, dir, strerror(e));
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/* A header page, then the data's pages: mapped from a scratch file (file,
 * `scratch_map`) or anonymous. */
static void *pages(uint64_t bytes, bool file)
{
    uint64_t pg = vkrr_bulk_page_bytes(), span = pg + (bytes + pg - 1) / pg * pg;
    if (span > SIZE_MAX)
        return NULL;
    char *base = file ? scratch_map(span)
                      : mmap(NULL, (size_t)span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!base || base == MAP_FAILED)
        return NULL;
    *(head *)(base + pg - HEAD) = (head){file ? MAGIC_FILE : MAGIC_PAGES, bytes, span};
    if (file)
        peak_max(atomic_fetch_add(&file_now, bytes) + bytes);
    return base + pg;
}

static void *bulk_alloc(uint64_t bytes, bool paged)
{
    if (bytes > UINT64_MAX / 2)
        return NULL;
    uint64_t limit = vkrr_mem_limit();
    uint64_t now = atomic_fetch_add(&anon_now, bytes);
    if (now + bytes <= limit && paged) {
        void *p = pages(bytes, false);
        if (!p)
            atomic_fetch_sub(&anon_now, bytes);
        return p;
    }
    if (now + bytes <= limit) {
        head *h = NULL;
        if (bytes <= SIZE_MAX - 2 * HEAD &&
            (h = aligned_alloc(HEAD, (size_t)(HEAD + (bytes + HEAD - 1) / HEAD * HEAD)))) {
            *h = (head){MAGIC_ANON, bytes, 0};
            return (char *)h + HEAD;
        }
        atomic_fetch_sub(&anon_now, bytes);
        return NULL;
    }
    atomic_fetch_sub(&anon_now, bytes);
    return pages(bytes, true);
}

void *vkrr_bulk_alloc(uint64_t bytes)
{
    return bulk_alloc(bytes, false);
}

void *vkrr_bulk_alloc_pages(uint64_t bytes)
{
    return bulk_alloc(bytes, true);
}

void vkrr_bulk_free(void *p)
{
    if (!p)
        return;
    head *h = (head *)((char *)p - HEAD);
    if (h->magic == MAGIC_FILE || h->magic == MAGIC_PAGES) {
        atomic_fetch_sub(h->magic == MAGIC_FILE ? &file_now : &anon_now, h->bytes);
        h->magic = 0;
        munmap((char *)p - vkrr_bulk_page_bytes(), (size_t)h->span);
        return;
    }
    atomic_fetch_sub(&anon_now, h->bytes);
    h->magic = 0;
    free(h);
}

void vkrr_bulk_scratch_bytes(uint64_t *now, uint64_t *peak)
{
    *now = atomic_load(&file_now);
    *peak = atomic_load(&file_peak);
}
