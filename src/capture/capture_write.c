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
#include <unistd.h>

#include "capture_parse.h"
#include "cuformat.h"
#include "fatbin.h"
#include "hash.h"
#include "modules.h"
#include "mapfile.h"

/* The process id in module file names (dlss-module-PID-NNNN): fixed, so
 * that two runs write the same capture. */
#define VKRR_WRITER_PID 4242

struct vkrr_writer {
    char *dir;
    char *prefix;
    vkrr_writer_desc desc;
    uint64_t next_seq;
    uint64_t next_array, next_tex, next_surf, next_module;
    uint64_t profiled; /* KERNEL_PROFILE lines: the bridge's eligible= */
    struct writer_fn { char *name; uint64_t handle; } *functions; /* cuModuleGetFunction's */
    uint64_t *arrays3d;  /* arrays with a third axis: their textures' third address mode is said */
    uint32_t narrays3d;
    uint32_t nfunctions;
    unsigned modules;  /* module files written: the NNNN of dlss-module-PID-NNNN */
    char *logged_dir;  /* the capture's absolute path as module lines name it */
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

void vkrr_writer_device(vkrr_writer *w, const vkrr_capture_device *d)
{
    if (!d->present)
        return;
    char cc[32] = "", model[sizeof d->model + 16] = "";
    if (d->cc_major >= 0 && d->cc_minor >= 0)
        snprintf(cc, sizeof cc, " cc=%d.%d", d->cc_major, d->cc_minor);
    if (d->model[0])
        snprintf(model, sizeof model, " model=\"%s\"", d->model);
    vkrr_writer_log_line(w, "device name=\"%s\"%s%s", d->name, cc, model);
}

void vkrr_writer_profile(vkrr_writer *w, uint64_t seq, const char *kernel, double gpu_ms)
{
    if (isfinite(gpu_ms) && gpu_ms >= 0)
        vkrr_writer_log_line(w, "KERNEL_PROFILE launch=%llu eligible=%llu gpu_ms=%.6f name=%s",
                             (unsigned long long)seq, (unsigned long long)++w->profiled, gpu_ms,
                             kernel);
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
    sub = NULL;
    const char *ld = desc->logged_dir ? desc->logged_dir : w->dir;
    char cwd[4096];
    if (!(w->logged_dir = ld[0] == '/' || !getcwd(cwd, sizeof cwd) ? strdup(ld)
                                                                   : path_of("%s/%s", cwd, ld))) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, w->dir, 0, -1, "out of memory");
        goto fail;
    }
    /* what the bridge logs whatever it is asked to (its context setup) */
    vkrr_writer_log_line(w, "cuInit flags=0 result=0");
    vkrr_writer_log_line(w, "cuDeviceGetCount result=0 count=1");
    vkrr_writer_log_line(w, "cuDeviceGet ordinal=0 result=0 device=0");
    vkrr_writer_log_line(w, "cuCtxCreate_v2 flags=0x0 device=0 result=0 context=0x7f3a1c000b70");
    *out = w;
    return VKRR_OK;
fail:
    free(sub);
    if (w) {
        free(w->dir);
        free(w->prefix);
        free(w->logged_dir);
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
    free(w->logged_dir);
    for (uint32_t i = 0; i < w->nfunctions; i++)
        free(w->functions[i].name);
    free(w->functions);
    free(w->arrays3d);
    free(w);
    return st;
}

uint64_t vkrr_writer_array_create(vkrr_writer *w, uint32_t width, uint32_t height,
                                  uint32_t format, uint32_t channels)
{
    uint64_t a = w->next_array;
    w->next_array += 0x200;
    vkrr_writer_log_line(w,
                         "cuArrayCreate(v2) descriptor=0x7ffd5e2a1b00 width=%u height=%u format=%u "
                         "channels=%u result=0 array=0x%llx",
                         width, height, format, channels, (unsigned long long)a);
    return a;
}

uint64_t vkrr_writer_array3d_create(vkrr_writer *w, uint32_t width, uint32_t height, uint32_t depth,
                                    uint32_t format, uint32_t channels, unsigned flags)
{
    uint64_t a = w->next_array;
    w->next_array += 0x200;
    vkrr_writer_log_line(w,
                         "cuArray3DCreate->v2 width=%u height=%u depth=%u format=%u channels=%u "
                         "flags=0x%x descriptor=0x7ffd5e2a1b40 result=0 array=0x%llx metadata=stored",
                         width, height, depth, format, channels, flags, (unsigned long long)a);
    uint64_t *p = depth ? realloc(w->arrays3d, (w->narrays3d + 1) * sizeof *p) : NULL;
    if (p) {
        w->arrays3d = p;
        w->arrays3d[w->narrays3d++] = a;
    } else if (depth && !w->sticky.status) {
        vkrr_fail(&w->sticky, VKRR_ERR_NOMEM, w->dir, 0, -1, "out of memory");
    }
    return a;
}

/* One cuTexObjectCreate line as the bridge prints it (type, and in array=
 * the CUarray or, over linear memory, devPtr), and a vkrr extension line for
 * what it cannot print: a third axis's address mode. */
static bool has_z(const vkrr_writer *w, uint64_t array)
{
    for (uint32_t i = 0; i < w->narrays3d; i++)
        if (w->arrays3d[i] == array)
            return true;
    return false;
}

static uint64_t texture_line(vkrr_writer *w, int type, uint64_t array, const vkrr_sampler *s,
                             uint64_t handle)
{
    uint64_t h = handle ? handle : w->next_tex++;
    unsigned flags = (s->read_as_integer ? VKRR_TEXFLAG_INTEGER : 0) |
                     (s->normalized ? VKRR_TEXFLAG_NORMALIZED : 0) |
                     (s->srgb ? VKRR_TEXFLAG_SRGB : 0);
    vkrr_writer_log_line(w,
                         "cuTexObjectCreate resource=0x7ffd5e2a1c40 type=%d array=0x%llx "
                         "texture=0x7ffd5e2a1d00 addr=%d,%d filter=%d flags=0x%x aniso=0 "
                         "mipfilter=0 view=(nil) result=0 object=0x%llx",
                         type, (unsigned long long)array, s->address[0], s->address[1], s->filter,
                         flags, (unsigned long long)h);
    if (s->address[2] != s->address[1] && type == VKRR_TEXRES_ARRAY && has_z(w, array))
        /* readers give the third axis the second's */
        vkrr_writer_log_line(w, "vkrr texture object=0x%llx addr_z=%d", (unsigned long long)h,
                             s->address[2]);
    return h;
}

uint64_t vkrr_writer_texture_create(vkrr_writer *w, uint64_t array, const vkrr_sampler *s,
                                    uint64_t handle)
{
    return texture_line(w, VKRR_TEXRES_ARRAY, array, s, handle);
}

/* The bridge prints a linear texture's shape on d4rRegisterLinearTexture;
 * a pitch-2D one's pitch nowhere: that is a vkrr extension line. */
uint64_t vkrr_writer_texture_create_linear(vkrr_writer *w, const vkrr_linear_desc *d,
                                           const vkrr_sampler *s, uint64_t handle)
{
    uint64_t h = texture_line(w, d->resource, d->devptr, s, handle);
    unsigned texel = vkrr_cuformat_texel_bytes(d->format, d->channels);
    if (d->resource == VKRR_TEXRES_PITCH2D)
        vkrr_writer_log_line(w, "vkrr texture object=0x%llx devptr=0x%llx format=%u channels=%u "
                             "width=%u height=%u pitch=%llu", (unsigned long long)h,
                             (unsigned long long)d->devptr, d->format, d->channels, d->width,
                             d->height, (unsigned long long)d->pitch);
    else
        vkrr_writer_log_line(w, "d4rRegisterLinearTexture object=0x%llx %llux1 format=%u "
                             "channels=%u stand-in array=0x%llx", (unsigned long long)h,
                             (unsigned long long)(texel ? d->bytes / texel : 0), d->format,
                             d->channels, (unsigned long long)(w->next_array += 0x200));
    return h;
}

uint64_t vkrr_writer_surface_create(vkrr_writer *w, uint64_t array, uint64_t handle)
{
    uint64_t h = handle ? handle : w->next_surf++;
    vkrr_writer_log_line(w, "cuSurfObjectCreate descriptor=0x7ffd5e2a1c80 result=0 object=0x%llx",
                         (unsigned long long)h);
    if (w->desc.log_surface_arrays) /* what the bridge cannot say: a vkrr extension */
        vkrr_writer_log_line(w, "vkrr surface object=0x%llx array=0x%llx", (unsigned long long)h,
                             (unsigned long long)array);
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

/* Whether the module defines kernel k: its PTX text, or a fatbin's PTX
 * entries (a fatbin without PTX, or that does not hold together: every
 * kernel, as the caller named them). */
static bool module_defines(const void *data, size_t size, bool fatbin, const char *k)
{
    if (!fatbin)
        return vkrr_ptx_text_defines(data, size, k);
    vkrr_fatbin_list fl = {0};
    bool found = false, any = false;
    if (vkrr_fatbin_scan(data, size, "module", &fl, NULL) == VKRR_OK)
        for (uint32_t i = 0; i < fl.n && !found; i++) {
            char *text = NULL;
            size_t len = 0;
            if (fl.entries[i].kind != VKRR_FATBIN_PTX ||
                vkrr_fatbin_payload(data, size, &fl.entries[i], "module", &text, &len, NULL) != VKRR_OK)
                continue;
            any = true;
            found = vkrr_ptx_text_defines(text, len, k);
            free(text);
        }
    vkrr_fatbin_list_free(&fl);
    return found || !any;
}

vkrr_status vkrr_writer_module(vkrr_writer *w, const char *name, const void *data, size_t size,
                               const char *const *kernels, unsigned nkernels, vkrr_error *err)
{
    if (bad_name(name) || !strcmp(name, ".") || !strcmp(name, ".."))
        return vkrr_fail(err, VKRR_ERR_USAGE, w->dir, 0, -1, "bad module file name");
    const char *dot = strrchr(name, '.');
    bool fatbin = dot && !strcmp(dot, ".fatbin");
    const char *text = data;
    size_t skip = 0; /* the bridge saves PTX from its .version on */
    if (!fatbin) {
        const char *v = size >= 8 ? memmem(text, size, ".version", 8) : NULL;
        skip = v ? (size_t)(v - text) : 0;
    }
    unsigned seq = ++w->modules;
    char *mdir = path_of("%s/modules", w->dir);
    char *path = path_of("%s/modules/dlss-module-%u-%04u.%s", w->dir, VKRR_WRITER_PID, seq,
                         fatbin ? "fatbin" : "ptx");
    vkrr_status st = VKRR_OK;
    if (!mdir || !path) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, w->dir, 0, -1, "out of memory");
        goto fail;
    }
    if ((st = vkrr_mkdirs(mdir, err)) ||
        (st = vkrr_write_file_atomic(path, text + skip, size - skip, err)))
        goto fail;
    uint64_t m = w->next_module;
    w->next_module += 0x1000;
    const char *file = strrchr(path, '/') + 1;
    if (fatbin)
        vkrr_writer_log_line(w, "cuModuleLoadData captured CUDA fatbin v1 size=%zu (header=16 "
                             "payload=%zu) to %s/modules/%s (complete)", size,
                             size > 16 ? size - 16 : 0, w->logged_dir, file);
    else
        vkrr_writer_log_line(w, "cuModuleLoadData captured PTX size=%zu image+%zu to %s/modules/%s "
                             "(complete)", size - skip, skip, w->logged_dir, file);
    vkrr_writer_log_line(w, "cuModuleLoadData image=0x7f3a18%06x result=0 module=0x%llx",
                         seq * 0x1000u, (unsigned long long)m);
    for (unsigned i = 0; i < nkernels; i++) /* only what the module holds */
        if (module_defines(data, size, fatbin, kernels[i])) {
            uint64_t fn = m + 0x10 * (i + 1);
            vkrr_writer_log_line(w, "cuModuleGetFunction module=0x%llx name=%s result=0 function=0x%llx",
                                 (unsigned long long)m, kernels[i], (unsigned long long)fn);
            struct writer_fn *nf = realloc(w->functions, (w->nfunctions + 1) * sizeof *nf);
            char *nm = strdup(kernels[i]);
            if (!nf || !nm) {
                free(nm);
                if (nf)
                    w->functions = nf;
                st = vkrr_fail(err, VKRR_ERR_NOMEM, w->dir, 0, -1, "out of memory");
                goto fail;
            }
            w->functions = nf;
            w->functions[w->nfunctions++] = (struct writer_fn){nm, fn};
        }
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

/* One dump file plus its statistics line, as the bridge's summarize_resource
 * writes them (hash from the bridge's basis, no 0x). */
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
    vkrr_dump_stats d = vkrr_dump_stats_of(data, size, VKRR_FNV1A64_BRIDGE_INIT);
    vkrr_writer_log_line(w, "launch[%llu] %s arg[%u] %s %s fmt=%d bytes=%llu nonzero_bytes=%llu "
                            "hash=%016llx f16{nonzero=%llu nan_inf=%llu min=%g max=%g mean_abs=%g} "
                            "f32{nan_inf=%llu min=%g max=%g}",
                         (unsigned long long)seq, r->kernel, off, kind, shape, fmt,
                         (unsigned long long)size, (unsigned long long)d.nonzero_bytes,
                         (unsigned long long)d.hash, (unsigned long long)d.f16_nonzero,
                         (unsigned long long)d.f16_nan_inf, d.f16_min, d.f16_max, d.f16_mean_abs,
                         (unsigned long long)d.f32_nan_inf, d.f32_min, d.f32_max);
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

/* The pointer record of allocation a at the lowest offset, NULL: none. */
static const vkrr_pointer_record *first_pointer(const vkrr_launch_record *r, uint32_t a)
{
    const vkrr_pointer_record *first = NULL;
    for (uint32_t i = 0; i < r->npointers; i++)
        if (r->pointers[i].alloc == a && (!first || r->pointers[i].offset < first->offset))
            first = &r->pointers[i];
    return first;
}

/* A texture or surface dump (a texture over linear memory: its buffer). */
static vkrr_status write_image_dump(vkrr_writer *w, uint64_t seq, const vkrr_launch_record *r,
                                    const vkrr_image_record *im, vkrr_error *err)
{
    char shape[64];
    if (im->resource != VKRR_TEXRES_ARRAY) {
        snprintf(shape, sizeof shape, "base0x%llx+0x%llx", (unsigned long long)im->base,
                 (unsigned long long)im->delta);
        return write_dump(w, seq, r, im->offset, "buffer", shape, -1, im->post, im->buffer_bytes, err);
    }
    unsigned texel = vkrr_cuformat_texel_bytes(im->format, im->channels);
    uint64_t bytes = 0;
    if (!texel || __builtin_mul_overflow((uint64_t)im->width, (uint64_t)im->height, &bytes) ||
        __builtin_mul_overflow(bytes, (uint64_t)texel, &bytes))
        return vkrr_fail(err, VKRR_ERR_USAGE, w->dir, 0, im->offset, "writer: bad image shape");
    snprintf(shape, sizeof shape, "%ux%ux%u", im->width, im->height, im->channels);
    return write_dump(w, seq, r, im->offset, im->kind == VKRR_IMAGE_TEXTURE ? "texture" : "surface",
                      shape, (int)im->format, im->post, bytes, err);
}

/* The bridge's lines of one cuLaunchKernel: before it, the replay capture;
 * after it, the call with its packed parameters (D4R_CUDA_VERBOSE). */
static void log_call(vkrr_writer *w, uint64_t seq, const vkrr_launch_record *r)
{
    unsigned long long s = (unsigned long long)seq;
    vkrr_writer_log_line(w, "replay capture launch[%llu] %s -> %s/replay/replay-%06llu-%s", s,
                         r->kernel, w->logged_dir, s, r->kernel);
    vkrr_writer_log_line(w, "cuLaunchKernel[%llu] %s", s, r->kernel);
    uint64_t fn = 0;
    for (uint32_t i = 0; i < w->nfunctions && !fn; i++)
        if (!strcmp(w->functions[i].name, r->kernel))
            fn = w->functions[i].handle;
    char fns[32];
    snprintf(fns, sizeof fns, fn ? "0x%llx" : "(nil)", (unsigned long long)fn);
    vkrr_writer_log_line(w, "cuLaunchKernel function=%s grid=%u,%u,%u block=%u,%u,%u shared=%u "
                            "stream=(nil) kernel_params=(nil) extra=0x7ffd5e2a1e00 result=0",
                         fns, r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1],
                         r->block[2], r->shared_bytes);
    static const char *const extra[] = {"0x1", "0x7ffd5e2a1f00", "0x2", "0x7ffd5e2a1ef8", "0x0"};
    for (unsigned i = 0; i < 5; i++)
        vkrr_writer_log_line(w, "cuLaunchKernel extra[%u]=%s", i, extra[i]);
    vkrr_writer_log_line(w, "cuLaunchKernel packed_args function=%s buffer=0x7ffd5e2a1f00 bytes=%u",
                         fns, r->args_bytes);
    for (uint32_t off = 0; off < r->args_bytes && off < 128; off += 8) {
        uint64_t word = 0;
        memcpy(&word, (const uint8_t *)r->args + off, r->args_bytes - off < 8 ? r->args_bytes - off : 8);
        vkrr_writer_log_line(w, "cuLaunchKernel packed_arg[%u]=0x%016llx", off, (unsigned long long)word);
    }
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
    log_call(w, seq, r);
    vkrr_writer_log_line(w, "launch[%llu] %s synchronize result=0", (unsigned long long)seq, r->kernel);
    /* the bridge's walk: argument words in offset order, each allocation at
     * the first word pointing into it, linear textures as their buffer */
    for (uint32_t off = 0; off < r->args_bytes && st == VKRR_OK; off++) {
        for (uint32_t a = 0; a < r->nallocs && st == VKRR_OK; a++) {
            const vkrr_pointer_record *first = first_pointer(r, a);
            if (!r->allocs[a].post || !first || first->offset != off)
                continue;
            char shape[64];
            snprintf(shape, sizeof shape, "base0x%llx+0x%llx", (unsigned long long)r->allocs[a].base,
                     (unsigned long long)first->delta);
            st = write_dump(w, seq, r, off, "buffer", shape, -1, r->allocs[a].post, r->allocs[a].size, err);
        }
        for (uint32_t i = 0; i < r->nimages && st == VKRR_OK; i++)
            if (r->images[i].offset == off)
                st = write_image_dump(w, seq, r, &r->images[i], err);
    }
    if (st != VKRR_OK)
        goto fail;
    if (seq_out)
        *seq_out = seq;
fail:
    free(rdir);
    free(text);
    return st;
}
