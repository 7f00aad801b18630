/* capture_write.c - writes a capture in the bridge's format (docs/capture-format.md).
 * The log is kept in memory and written once at close; replay/ and dump/
 * files are written whole as each launch is recorded. */
#include "capture_write.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_parse.h"
#include "cuformat.h"
#include "mapfile.h"

struct vkrr_writer {
    char *dir;
    char *prefix;
    vkrr_writer_desc desc;
    uint64_t next_seq;
    uint64_t next_array, next_tex, next_surf, next_module;
    char *log;
    size_t len, cap;
    vkrr_error sticky; /* first failure of a void call (out of memory) */
};

static void log_vappend(vkrr_writer *w, const char *fmt, va_list ap)
{
    if (w->sticky.status)
        return;
    for (;;) {
        size_t room = w->cap - w->len;
        va_list aq;
        va_copy(aq, ap);
        int n = room ? vsnprintf(w->log + w->len, room, fmt, aq) : -1;
        va_end(aq);
        if (n >= 0 && (size_t)n < room) {
            w->len += (size_t)n;
            return;
        }
        size_t need = w->len + (n > 0 ? (size_t)n : 0) + 1;
        size_t nc = w->cap ? w->cap * 2 : 4096;
        while (nc < need)
            nc *= 2;
        char *p = realloc(w->log, nc);
        if (!p) {
            vkrr_fail(&w->sticky, VKRR_ERR_NOMEM, w->dir, 0, -1, "out of memory for the log");
            return;
        }
        w->log = p;
        w->cap = nc;
    }
}

static void log_append(vkrr_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_append(vkrr_writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vappend(w, fmt, ap);
    va_end(ap);
}

void vkrr_writer_log_line(vkrr_writer *w, const char *fmt, ...)
{
    log_append(w, "%s", w->prefix);
    va_list ap;
    va_start(ap, fmt);
    log_vappend(w, fmt, ap);
    va_end(ap);
    log_append(w, "\n");
}

void vkrr_writer_profile(vkrr_writer *w, uint64_t seq, const char *kernel, double gpu_ms)
{
    if (isfinite(gpu_ms) && gpu_ms >= 0)
        vkrr_writer_log_line(w, "KERNEL_PROFILE launch=%llu kernel=%s gpu_ms=%.6f", (unsigned long long)seq,
                             kernel, gpu_ms);
}

static char *path_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *path_of(const char *fmt, ...)
{
    char *p = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&p, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : p;
}

vkrr_status vkrr_writer_open(vkrr_writer **out, const vkrr_writer_desc *desc, vkrr_error *err)
{
    *out = NULL;
    if (!desc->dir || !*desc->dir)
        return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "writer: no directory given");
    DIR *d = opendir(desc->dir);
    if (d) {
        struct dirent *e;
        int empty = 1;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                empty = 0;
        closedir(d);
        if (!empty)
            return vkrr_fail(err, VKRR_ERR_USAGE, desc->dir, 0, -1,
                             "capture directory exists and is not empty");
    }
    vkrr_status st = VKRR_OK;
    char *sub = NULL;
    vkrr_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->dir = strdup(desc->dir)) ||
        !(w->prefix = strdup(desc->log_prefix ? desc->log_prefix : ""))) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, desc->dir, 0, -1, "out of memory");
        goto fail;
    }
    w->desc = *desc;
    w->desc.dir = w->dir;
    w->desc.log_prefix = w->prefix;
    w->next_seq = desc->first_sequence ? desc->first_sequence : 1;
    w->next_array = 0x7f3a20000000ull;
    w->next_tex = 1;
    w->next_surf = 0x1001;
    w->next_module = 0x55d0c0a00000ull;
    static const char *subdirs[] = {"replay", "dump", "run"};
    for (int i = 0; i < 3; i++) {
        if (i == 2 && desc->omit_log)
            break;
        free(sub);
        if (!(sub = path_of("%s/%s", w->dir, subdirs[i]))) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, w->dir, 0, -1, "out of memory");
            goto fail;
        }
        if ((st = vkrr_mkdirs(sub, err)))
            goto fail;
    }
    free(sub);
    vkrr_writer_log_line(w, "vkrr capture writer: bridge log format 1");
    *out = w;
    return VKRR_OK;
fail:
    free(sub);
    if (w) {
        free(w->dir);
        free(w->prefix);
        free(w);
    }
    return st;
}

vkrr_status vkrr_writer_close(vkrr_writer *w, vkrr_error *err)
{
    if (!w)
        return VKRR_OK;
    vkrr_status st = VKRR_OK;
    char *path = NULL;
    if (w->sticky.status) {
        if (err)
            *err = w->sticky;
        st = w->sticky.status;
    } else if (!w->desc.omit_log) {
        if (!(path = path_of("%s/run/run.log", w->dir)))
            st = vkrr_fail(err, VKRR_ERR_NOMEM, w->dir, 0, -1, "out of memory");
        else
            st = vkrr_write_file_atomic(path, w->log, w->len, err);
    }
    free(path);
    free(w->log);
    free(w->dir);
    free(w->prefix);
    free(w);
    return st;
}

uint64_t vkrr_writer_array_create(vkrr_writer *w, uint32_t width, uint32_t height,
                                  uint32_t format, uint32_t channels)
{
    uint64_t a = w->next_array;
    w->next_array += 0x200;
    vkrr_writer_log_line(w,
                         "cuArrayCreate width=%u height=%u depth=0 format=%u channels=%u "
                         "flags=0x0 result=0 array=0x%llx",
                         width, height, format, channels, (unsigned long long)a);
    return a;
}

uint64_t vkrr_writer_array3d_create(vkrr_writer *w, uint32_t width, uint32_t height, uint32_t depth,
                                    uint32_t format, uint32_t channels, unsigned flags)
{
    uint64_t a = w->next_array;
    w->next_array += 0x200;
    vkrr_writer_log_line(w,
                         "cuArray3DCreate width=%u height=%u depth=%u format=%u channels=%u "
                         "flags=0x%x result=0 array=0x%llx",
                         width, height, depth, format, channels, flags, (unsigned long long)a);
    return a;
}

/* One cuTexObjectCreate line; res: its resource fields ("type=0 array=0x..."). */
static uint64_t texture_line(vkrr_writer *w, const char *res, const vkrr_sampler *s,
                             uint64_t handle)
{
    uint64_t h = handle ? handle : w->next_tex++;
    unsigned flags = (s->read_as_integer ? VKRR_TEXFLAG_INTEGER : 0) |
                     (s->normalized ? VKRR_TEXFLAG_NORMALIZED : 0) |
                     (s->srgb ? VKRR_TEXFLAG_SRGB : 0);
    char addr[40]; /* the third axis's mode only where it differs (readers copy the second's) */
    int n = snprintf(addr, sizeof addr, "%d,%d", s->address[0], s->address[1]);
    if (s->address[2] != s->address[1])
        snprintf(addr + n, sizeof addr - (size_t)n, ",%d", s->address[2]);
    vkrr_writer_log_line(w,
                         "cuTexObjectCreate resource=0x7ffd5e2a1c40 %s addr=%s filter=%d "
                         "flags=0x%02x result=0 object=0x%llx",
                         res, addr, s->filter, flags, (unsigned long long)h);
    return h;
}

uint64_t vkrr_writer_texture_create(vkrr_writer *w, uint64_t array, const vkrr_sampler *s,
                                    uint64_t handle)
{
    char res[64];
    snprintf(res, sizeof res, "type=0 array=0x%llx", (unsigned long long)array);
    return texture_line(w, res, s, handle);
}

uint64_t vkrr_writer_texture_create_linear(vkrr_writer *w, const vkrr_linear_desc *d,
                                           const vkrr_sampler *s, uint64_t handle)
{
    char res[200];
    if (d->resource == VKRR_TEXRES_PITCH2D)
        snprintf(res, sizeof res, "type=3 devptr=0x%llx format=%u channels=%u width=%u height=%u "
                 "pitch=%llu", (unsigned long long)d->devptr, d->format, d->channels, d->width,
                 d->height, (unsigned long long)d->pitch);
    else
        snprintf(res, sizeof res, "type=2 devptr=0x%llx format=%u channels=%u bytes=%llu",
                 (unsigned long long)d->devptr, d->format, d->channels,
                 (unsigned long long)d->bytes);
    return texture_line(w, res, s, handle);
}

uint64_t vkrr_writer_surface_create(vkrr_writer *w, uint64_t array, uint64_t handle)
{
    uint64_t h = handle ? handle : w->next_surf++;
    if (w->desc.omit_surface_array)
        vkrr_writer_log_line(w, "cuSurfObjectCreate descriptor=0x7ffd5e2a1c80 result=0 object=0x%llx",
                             (unsigned long long)h);
    else
        vkrr_writer_log_line(w,
                             "cuSurfObjectCreate descriptor=0x7ffd5e2a1c80 result=0 object=0x%llx "
                             "array=0x%llx",
                             (unsigned long long)h, (unsigned long long)array);
    return h;
}

static int bad_name(const char *s)
{
    if (!s || !*s)
        return 1;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || *s == '/' || *s == 0x7f)
            return 1;
    return 0;
}

vkrr_status vkrr_writer_module(vkrr_writer *w, const char *name, const void *data, size_t size,
                               const char *const *kernels, unsigned nkernels, vkrr_error *err)
{
    if (bad_name(name) || !strcmp(name, ".") || !strcmp(name, ".."))
        return vkrr_fail(err, VKRR_ERR_USAGE, w->dir, 0, -1, "bad module file name");
    char *mdir = path_of("%s/modules", w->dir);
    char *path = path_of("%s/modules/%s", w->dir, name);
    vkrr_status st = VKRR_OK;
    if (!mdir || !path) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, w->dir, 0, -1, "out of memory");
        goto fail;
    }
    if ((st = vkrr_mkdirs(mdir, err)) || (st = vkrr_write_file_atomic(path, data, size, err)))
        goto fail;
    uint64_t m = w->next_module;
    w->next_module += 0x1000;
    vkrr_writer_log_line(w, "cuModuleLoadData image=%s bytes=%zu result=0 module=0x%llx", name,
                         size, (unsigned long long)m);
    for (unsigned i = 0; i < nkernels; i++)
        vkrr_writer_log_line(w, "cuModuleGetFunction module=0x%llx name=%s result=0 function=0x%llx",
                             (unsigned long long)m, kernels[i], (unsigned long long)(m + 0x10 * (i + 1)));
fail:
    free(mdir);
    free(path);
    return st;
}

static vkrr_status check_record(const vkrr_writer *w, const vkrr_launch_record *r, vkrr_error *err)
{
    if (bad_name(r->kernel))
        return vkrr_fail(err, VKRR_ERR_USAGE, w->dir, 0, -1, "writer: bad kernel name");
    if (r->args_bytes > VKRR_ARGS_MAX_BYTES || (r->args_bytes && !r->args))
        return vkrr_fail(err, VKRR_ERR_USAGE, w->dir, 0, -1, "writer: args must be 0..4096 bytes");
    for (uint32_t i = 0; i < r->npointers; i++) {
        const vkrr_pointer_record *p = &r->pointers[i];
        uint64_t word;
        if ((uint64_t)p->offset + 8 > r->args_bytes || p->alloc >= r->nallocs ||
            p->delta > r->allocs[p->alloc].size)
            return vkrr_fail(err, VKRR_ERR_USAGE, w->dir, 0, p->offset, "writer: bad pointer record");
        memcpy(&word, (const uint8_t *)r->args + p->offset, 8);
        if (word != r->allocs[p->alloc].base + p->delta)
            return vkrr_fail(err, VKRR_ERR_USAGE, w->dir, 0, p->offset,
                             "writer: args word is not base + delta");
    }
    for (uint32_t i = 0; i < r->nimages; i++) {
        const vkrr_image_record *im = &r->images[i];
        uint64_t word;
        if ((uint64_t)im->offset + 8 > r->args_bytes || !im->post ||
            (im->resource != VKRR_TEXRES_ARRAY &&
             (im->kind != VKRR_IMAGE_TEXTURE || im->delta > im->buffer_bytes)))
            return vkrr_fail(err, VKRR_ERR_USAGE, w->dir, 0, im->offset, "writer: bad image record");
        memcpy(&word, (const uint8_t *)r->args + im->offset, 8);
        if (word != im->handle)
            return vkrr_fail(err, VKRR_ERR_USAGE, w->dir, 0, im->offset,
                             "writer: args word is not the image handle");
    }
    return VKRR_OK;
}

static size_t count_nonzero(const uint8_t *p, size_t n)
{
    size_t z = 0;
    for (size_t i = 0; i < n; i++)
        z += p[i] != 0;
    return z;
}

/* One dump file plus its log line. */
static vkrr_status write_dump(vkrr_writer *w, uint64_t seq, const vkrr_launch_record *r,
                              uint32_t off, const char *kind, const char *shape, int fmt,
                              const void *data, uint64_t size, vkrr_error *err)
{
    char *path = path_of("%s/dump/launch-%03llu-%s-arg%03u-%s-%s-fmt%d.bin", w->dir,
                         (unsigned long long)seq, r->kernel, off, kind, shape, fmt);
    if (!path)
        return vkrr_fail(err, VKRR_ERR_NOMEM, w->dir, 0, -1, "out of memory");
    vkrr_status st = vkrr_write_file_atomic(path, data, (size_t)size, err);
    free(path);
    vkrr_writer_log_line(w, "launch[%llu] %s arg[%u] %s %s fmt=%d bytes=%llu nonzero_bytes=%zu "
                            "hash=0x%016llx",
                         (unsigned long long)seq, r->kernel, off, kind, shape, fmt,
                         (unsigned long long)size, count_nonzero(data, (size_t)size),
                         (unsigned long long)vkrr_fnv1a64(data, (size_t)size));
    return st;
}

static vkrr_status write_in(const char *dir, const char *name, const void *data, uint64_t size,
                            vkrr_error *err)
{
    char *path = path_of("%s/%s", dir, name);
    if (!path)
        return vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "out of memory");
    if (size > SIZE_MAX || (size && !data)) {
        vkrr_status st = vkrr_fail(err, VKRR_ERR_USAGE, path, 0, -1, "writer: no data to write");
        free(path);
        return st;
    }
    vkrr_status st = vkrr_write_file_atomic(path, data, (size_t)size, err);
    free(path);
    return st;
}

/* The manifest text: header, then lines in argument-word order, each alloc
 * just before the first pointer into it. */
static char *manifest_text(const vkrr_writer *w, const vkrr_launch_record *r, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    bool *done = calloc(r->nallocs + 1, 1);
    if (!f || !done) {
        if (f)
            fclose(f);
        free(buf);
        free(done);
        return NULL;
    }
    fprintf(f, "kernel %s\nlaunch %u %u %u %u %u %u", r->kernel, r->grid[0], r->grid[1],
            r->grid[2], r->block[0], r->block[1], r->block[2]);
    if (!w->desc.omit_shared_bytes)
        fprintf(f, " %u", r->shared_bytes);
    fprintf(f, "\nargs %u\n", r->args_bytes);
    if (r->extra_manifest_line)
        fprintf(f, "%s\n", r->extra_manifest_line);
    for (uint32_t off = 0; off + 8 <= r->args_bytes; off++) {
        for (uint32_t i = 0; i < r->npointers; i++) {
            const vkrr_pointer_record *p = &r->pointers[i];
            if (p->offset != off)
                continue;
            if (!done[p->alloc]) {
                done[p->alloc] = true;
                fprintf(f, "alloc %u 0x%llx %llu\n", p->alloc,
                        (unsigned long long)r->allocs[p->alloc].base,
                        (unsigned long long)r->allocs[p->alloc].size);
            }
            fprintf(f, "pointer %u %u %llu\n", off, p->alloc, (unsigned long long)p->delta);
        }
        for (uint32_t i = 0; i < r->nimages; i++)
            if (r->images[i].offset == off)
                fprintf(f, "%s %u\n", r->images[i].kind == VKRR_IMAGE_TEXTURE ? "texture" : "surface",
                        off);
    }
    for (uint32_t a = 0; a < r->nallocs; a++)
        if (!done[a]) /* no argument points into it: the bridge would not see it */
            fprintf(f, "alloc %u 0x%llx %llu\n", a, (unsigned long long)r->allocs[a].base,
                    (unsigned long long)r->allocs[a].size);
    free(done);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

vkrr_status vkrr_writer_launch(vkrr_writer *w, const vkrr_launch_record *r, uint64_t *seq_out,
                               vkrr_error *err)
{
    vkrr_status st = check_record(w, r, err);
    if (st)
        return st;
    uint64_t seq = w->next_seq++;
    char *rdir = path_of("%s/replay/replay-%06llu-%s", w->dir, (unsigned long long)seq, r->kernel);
    char *text = NULL;
    size_t len = 0;
    if (!rdir || !(text = manifest_text(w, r, &len))) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, w->dir, 0, -1, "out of memory");
        goto fail;
    }
    if ((st = vkrr_mkdirs(rdir, err)) || (st = write_in(rdir, "manifest.txt", text, len, err)) ||
        (st = write_in(rdir, "args.bin", r->args, r->args_bytes, err)))
        goto fail;
    for (uint32_t a = 0; a < r->nallocs; a++) {
        char name[32];
        snprintf(name, sizeof name, "alloc-%u.bin", a);
        if ((st = write_in(rdir, name, r->allocs[a].pre, r->allocs[a].size, err)))
            goto fail;
    }
    vkrr_writer_log_line(w, "launch[%llu] %s grid=(%u,%u,%u) block=(%u,%u,%u) shmem=%u args=%u",
                         (unsigned long long)seq, r->kernel, r->grid[0], r->grid[1], r->grid[2],
                         r->block[0], r->block[1], r->block[2], r->shared_bytes, r->args_bytes);
    for (uint32_t a = 0; a < r->nallocs; a++) {
        const vkrr_pointer_record *first = NULL;
        for (uint32_t i = 0; i < r->npointers; i++)
            if (r->pointers[i].alloc == a && (!first || r->pointers[i].offset < first->offset))
                first = &r->pointers[i];
        if (!r->allocs[a].post || !first)
            continue;
        char shape[64];
        snprintf(shape, sizeof shape, "base0x%llx+0x%llx", (unsigned long long)r->allocs[a].base,
                 (unsigned long long)first->delta);
        if ((st = write_dump(w, seq, r, first->offset, "buffer", shape, -1, r->allocs[a].post,
                             r->allocs[a].size, err)))
            goto fail;
    }
    for (uint32_t i = 0; i < r->nimages; i++) {
        const vkrr_image_record *im = &r->images[i];
        if (im->resource != VKRR_TEXRES_ARRAY) { /* linear memory: a buffer dump */
            char shape[64];
            snprintf(shape, sizeof shape, "base0x%llx+0x%llx", (unsigned long long)im->base,
                     (unsigned long long)im->delta);
            if ((st = write_dump(w, seq, r, im->offset, "buffer", shape, -1, im->post,
                                 im->buffer_bytes, err)))
                goto fail;
            continue;
        }
        unsigned texel = 0;
        uint64_t bytes = 0;
        texel = vkrr_cuformat_texel_bytes(im->format, im->channels);
        if (!texel || __builtin_mul_overflow((uint64_t)im->width, (uint64_t)im->height, &bytes) ||
            __builtin_mul_overflow(bytes, (uint64_t)texel, &bytes)) {
            st = vkrr_fail(err, VKRR_ERR_USAGE, w->dir, 0, im->offset, "writer: bad image shape");
            goto fail;
        }
        char shape[64];
        snprintf(shape, sizeof shape, "%ux%ux%u", im->width, im->height, im->channels);
        if ((st = write_dump(w, seq, r, im->offset,
                             im->kind == VKRR_IMAGE_TEXTURE ? "texture" : "surface", shape,
                             (int)im->format, im->post, bytes, err)))
            goto fail;
    }
    if (seq_out)
        *seq_out = seq;
fail:
    free(rdir);
    free(text);
    return st;
}
