/* capture_resolve.c - ties dump/ files and run/run.log to the launches read
 * from replay/: buffers by base address, images by launch and argument
 * offset (shape and format from the dump's name), sampler state and arrays
 * from the log at each launch's position in it. */
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"
#include "capture_parse.h"
#include "cuformat.h"

uint64_t vkrr_capture_image_bytes(const vkrr_image *im)
{
    return (uint64_t)im->width * im->height * vkrr_cuformat_texel_bytes(im->format, im->channels);
}

static vkrr_launch *find_seq(vkrr_capture *cap, uint64_t seq)
{
    uint32_t lo = 0, hi = cap->nlaunches;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cap->launches[mid].sequence < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cap->nlaunches && cap->launches[lo].sequence == seq ? &cap->launches[lo] : NULL;
}

static vkrr_status match_buffer(vkrr_launch *l, const vkrr_dump_name *d, char **path,
                                vkrr_error *err)
{
    vkrr_alloc *a = NULL;
    for (uint32_t i = 0; i < l->nallocs && !a; i++)
        if (l->allocs[i].base == d->base)
            a = &l->allocs[i];
    if (!a)
        return vkrr_fail(err, VKRR_ERR_INCONSISTENT, *path, 0, -1,
                         "launch %llu's manifest declares no allocation at base 0x%llx",
                         (unsigned long long)l->sequence, (unsigned long long)d->base);
    if (a->post_path)
        return vkrr_fail(err, VKRR_ERR_INCONSISTENT, *path, 0, -1,
                         "allocation 0x%llx is dumped twice (also %s)",
                         (unsigned long long)d->base, a->post_path);
    if (d->delta > a->size)
        return vkrr_fail(err, VKRR_ERR_RANGE, *path, 0, -1,
                         "offset 0x%llx is past the end of the allocation (%llu bytes)",
                         (unsigned long long)d->delta, (unsigned long long)a->size);
    vkrr_status st = vkrr_capture_stat_size(*path, a->size, "buffer dump", err);
    if (st)
        return st;
    a->post_path = *path;
    a->post_offset = d->arg_offset;
    *path = NULL;
    return VKRR_OK;
}

static vkrr_status match_image(vkrr_launch *l, const vkrr_dump_name *d, char **path,
                               vkrr_error *err)
{
    vkrr_image *im = NULL;
    for (uint32_t i = 0; i < l->nimages && !im; i++)
        if (l->images[i].offset == d->arg_offset)
            im = &l->images[i];
    vkrr_image_kind kind = d->kind == VKRR_DUMP_TEXTURE ? VKRR_IMAGE_TEXTURE : VKRR_IMAGE_SURFACE;
    const char *kname = kind == VKRR_IMAGE_TEXTURE ? "texture" : "surface";
    if (!im || im->kind != kind)
        return vkrr_fail(err, VKRR_ERR_INCONSISTENT, *path, 0, d->arg_offset,
                         "launch %llu's manifest has no %s at argument offset %u",
                         (unsigned long long)l->sequence, kname, d->arg_offset);
    if (im->dump_path)
        return vkrr_fail(err, VKRR_ERR_INCONSISTENT, *path, 0, d->arg_offset,
                         "the %s at offset %u is dumped twice (also %s)", kname, d->arg_offset,
                         im->dump_path);
    vkrr_status st = vkrr_cuformat_check(d->format, d->channels, err);
    if (st) {
        if (err)
            snprintf(err->file, sizeof err->file, "%s", *path);
        return st;
    }
    uint64_t texel = vkrr_cuformat_texel_bytes(d->format, d->channels), bytes;
    if (__builtin_mul_overflow((uint64_t)d->width, (uint64_t)d->height, &bytes) ||
        __builtin_mul_overflow(bytes, texel, &bytes))
        return vkrr_fail(err, VKRR_ERR_RANGE, *path, 0, -1, "%ux%u texels overflow 64 bits",
                         d->width, d->height);
    if ((st = vkrr_capture_stat_size(*path, bytes, "image dump (W x H x texel bytes)", err)))
        return st;
    im->width = d->width;
    im->height = d->height;
    im->channels = d->channels;
    im->format = d->format;
    im->dump_path = *path;
    *path = NULL;
    return VKRR_OK;
}

vkrr_status vkrr_capture_resolve_dumps(vkrr_capture *cap, vkrr_error *err)
{
    char *ddir = vkrr_capture_join(cap->path, "dump");
    char **names = NULL, *path = NULL;
    uint32_t n = 0;
    vkrr_status st;
    if (!ddir)
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    if ((st = vkrr_capture_list_dir(ddir, &names, &n, err)))
        goto fail;
    for (uint32_t i = 0; i < n; i++) {
        free(path);
        if (!(path = vkrr_capture_join(ddir, names[i]))) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, ddir, 0, -1, "out of memory");
            goto fail;
        }
        if (strncmp(names[i], "launch-", 7)) {
            vkrr_warn("%s: not a launch dump; skipped", path);
            continue;
        }
        vkrr_dump_name d;
        if ((st = vkrr_dump_name_parse(&d, names[i], path, err)))
            goto fail;
        vkrr_launch *l = find_seq(cap, d.sequence);
        if (!l) {
            vkrr_warn("%s: launch %llu is not in replay/; skipped", path,
                      (unsigned long long)d.sequence);
            continue;
        }
        if (strlen(l->kernel) != d.kernel_len || memcmp(l->kernel, d.kernel, d.kernel_len)) {
            st = vkrr_fail(err, VKRR_ERR_INCONSISTENT, path, 0, -1,
                           "kernel differs from launch %llu's '%s'",
                           (unsigned long long)l->sequence, l->kernel);
            goto fail;
        }
        st = d.kind == VKRR_DUMP_BUFFER ? match_buffer(l, &d, &path, err)
                                        : match_image(l, &d, &path, err);
        if (st)
            goto fail;
    }
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        for (uint32_t j = 0; j < l->nimages; j++)
            if (!l->images[j].dump_path) {
                char *mp = vkrr_capture_join(l->dir, "manifest.txt");
                st = vkrr_fail(err, VKRR_ERR_MISSING, mp ? mp : l->dir, 0, l->images[j].offset,
                               "the %s at argument offset %u has no dump in %s (its shape and "
                               "format come from there)",
                               l->images[j].kind == VKRR_IMAGE_TEXTURE ? "texture" : "surface",
                               l->images[j].offset, ddir);
                free(mp);
                goto fail;
            }
    }
fail:
    free(path);
    vkrr_capture_free_names(names, n);
    free(ddir);
    return st;
}

/* CUDA-like defaults when the log does not say: point, clamp, unnormalized;
 * 32-bit integer arrays can only be read as integers. */
static vkrr_sampler default_sampler(uint32_t format)
{
    return (vkrr_sampler){.filter = VKRR_FILTER_POINT,
                          .address = {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP},
                          .read_as_integer = format == 3 || format == 10};
}

static vkrr_status check_array(const vkrr_log *log, const char *lpath, const vkrr_launch *l,
                               const vkrr_image *im, vkrr_error *err)
{
    const vkrr_log_array *a = vkrr_log_array_at(log, im->array, l->log_line);
    if (!a)
        return VKRR_OK;
    if (a->width != im->width || a->height != im->height || a->format != im->format ||
        a->channels != im->channels)
        return vkrr_fail(err, VKRR_ERR_INCONSISTENT, lpath, a->line, -1,
                         "array 0x%llx is %ux%ux%u fmt %u here, but launch %llu's dump of "
                         "argument %u is %ux%ux%u fmt %u",
                         (unsigned long long)a->array, a->width, a->height, a->channels, a->format,
                         (unsigned long long)l->sequence, im->offset, im->width, im->height,
                         im->channels, im->format);
    return VKRR_OK;
}

vkrr_status vkrr_capture_resolve_log(vkrr_capture *cap, vkrr_error *err)
{
    char *lpath = vkrr_capture_join(cap->path, "run/run.log");
    vkrr_mapfile m = {0};
    vkrr_log log = {0};
    vkrr_status st;
    if (!lpath)
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    st = vkrr_mapfile_open(&m, lpath, VKRR_MAPFILE_ANY_SIZE, err);
    if (st == VKRR_ERR_MISSING) {
        vkrr_warn("%s: no log; textures get default sampler state (point, clamp, unnormalized)",
                  lpath);
        st = VKRR_OK;
    } else if (st) {
        goto fail;
    } else {
        cap->has_log = true;
        if ((st = vkrr_log_parse(&log, (const char *)m.data, m.size, lpath, err)))
            goto fail;
    }
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        vkrr_launch *l = &cap->launches[i];
        l->log_line = vkrr_log_launch_line(&log, l->sequence);
        if (cap->has_log && !l->log_line && l->nimages)
            vkrr_warn("%s: launch %llu has no launch[N] line; its handles are looked up over "
                      "the whole log", lpath, (unsigned long long)l->sequence);
        for (uint32_t j = 0; j < l->nimages; j++) {
            vkrr_image *im = &l->images[j];
            if (im->kind == VKRR_IMAGE_SURFACE) {
                const vkrr_log_surface *s = vkrr_log_surface_at(&log, im->handle, l->log_line);
                im->array = s ? s->array : 0;
            } else {
                const vkrr_log_texture *t = vkrr_log_texture_at(&log, im->handle, l->log_line);
                if (t) {
                    im->sampler = t->sampler;
                    im->array = t->array;
                } else {
                    im->sampler = default_sampler(im->format);
                    if (cap->has_log)
                        vkrr_warn("%s: no cuTexObjectCreate of 0x%llx before launch %llu "
                                  "(argument %u); using default sampler state",
                                  lpath, (unsigned long long)im->handle,
                                  (unsigned long long)l->sequence, im->offset);
                }
            }
            if (im->array && (st = check_array(&log, lpath, l, im, err)))
                goto fail;
        }
    }
fail:
    vkrr_log_free(&log);
    vkrr_mapfile_close(&m);
    free(lpath);
    return st;
}
