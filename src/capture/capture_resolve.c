/* capture_resolve.c - ties dump/ files to the launches read from replay/:
 * buffers by base address (or, for a texture over linear memory, by its
 * argument), images by launch and argument offset (shape and format from the
 * dump's name).  A dump that cannot be used damages its launch, not the
 * capture. */
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"
#include "capture_parse.h"
#include "cuformat.h"

uint64_t vkrr_capture_image_bytes(const vkrr_image *im)
{
    return (uint64_t)im->width * im->height * vkrr_cuformat_texel_bytes(im->format, im->channels);
}

vkrr_launch *vkrr_capture_find_seq(vkrr_capture *cap, uint64_t seq)
{
    uint32_t lo;
    VKRR_LOWER_BOUND(cap->launches, cap->nlaunches, sequence, seq, lo);
    return lo < cap->nlaunches && cap->launches[lo].sequence == seq ? &cap->launches[lo] : NULL;
}

static vkrr_image *image_at(vkrr_launch *l, uint32_t offset)
{
    for (uint32_t i = 0; i < l->nimages; i++)
        if (l->images[i].offset == offset)
            return &l->images[i];
    return NULL;
}

/* A buffer dump of no declared allocation, named after a texture argument:
 * the texture reads linear memory (its shape comes from the log). */
static vkrr_damage_kind match_linear(vkrr_image *im, const vkrr_dump_name *d, char **path,
                                     vkrr_error *e)
{
    if (im->dump_path) {
        vkrr_fail(e, VKRR_ERR_INCONSISTENT, *path, 0, d->arg_offset,
                  "the texture at offset %u is dumped twice (also %s)", d->arg_offset,
                  im->dump_path);
        return VKRR_DAMAGE_INPUT;
    }
    uint64_t size = 0;
    if (vkrr_capture_file_size(*path, &size, "buffer dump of a linear texture", e))
        return VKRR_DAMAGE_INPUT;
    im->resource = VKRR_TEXRES_LINEAR; /* until the log says linear or pitch 2D */
    im->source_base = d->base;
    im->source_offset = d->delta;
    im->dump_bytes = size;
    im->dump_path = *path;
    *path = NULL;
    return VKRR_DAMAGE_NONE;
}

static vkrr_damage_kind match_buffer(vkrr_launch *l, const vkrr_dump_name *d, char **path,
                                     vkrr_error *e)
{
    vkrr_alloc *a = NULL;
    for (uint32_t i = 0; i < l->nallocs && !a; i++)
        if (l->allocs[i].base == d->base)
            a = &l->allocs[i];
    if (!a) {
        vkrr_image *im = image_at(l, d->arg_offset);
        if (im && im->kind == VKRR_IMAGE_TEXTURE)
            return match_linear(im, d, path, e);
        vkrr_fail(e, VKRR_ERR_INCONSISTENT, *path, 0, -1,
                  "launch %llu's manifest declares no allocation at base 0x%llx",
                  (unsigned long long)l->sequence, (unsigned long long)d->base);
        return VKRR_DAMAGE_DUMP;
    }
    if (a->post_path || a->post_damaged) {
        vkrr_fail(e, VKRR_ERR_INCONSISTENT, *path, 0, -1, "allocation 0x%llx is dumped twice (also %s)",
                  (unsigned long long)d->base, a->post_path ? a->post_path : "another dump");
        a->post_damaged = true; /* which one is CUDA's cannot be told */
        free(a->post_path);
        a->post_path = NULL;
        return VKRR_DAMAGE_DUMP;
    }
    if (d->delta > a->size) {
        vkrr_fail(e, VKRR_ERR_RANGE, *path, 0, -1,
                  "offset 0x%llx is past the end of the allocation (%llu bytes)",
                  (unsigned long long)d->delta, (unsigned long long)a->size);
        a->post_damaged = true;
        return VKRR_DAMAGE_DUMP;
    }
    if (vkrr_capture_stat_size(*path, a->size, "buffer dump", e)) {
        a->post_damaged = true;
        return VKRR_DAMAGE_DUMP;
    }
    a->post_path = *path;
    a->post_offset = d->arg_offset;
    *path = NULL;
    return VKRR_DAMAGE_NONE;
}

/* A texture is what the launch reads: trouble with its dump stops the launch.
 * A surface's dump is only compared: with its shape known the launch runs. */
static vkrr_damage_kind match_image(vkrr_launch *l, const vkrr_dump_name *d, char **path,
                                    vkrr_error *e)
{
    vkrr_image *im = image_at(l, d->arg_offset);
    vkrr_image_kind kind = d->kind == VKRR_DUMP_TEXTURE ? VKRR_IMAGE_TEXTURE : VKRR_IMAGE_SURFACE;
    const char *kname = kind == VKRR_IMAGE_TEXTURE ? "texture" : "surface";
    vkrr_damage_kind fatal = kind == VKRR_IMAGE_TEXTURE ? VKRR_DAMAGE_INPUT : VKRR_DAMAGE_DUMP;
    if (!im || im->kind != kind) {
        vkrr_fail(e, VKRR_ERR_INCONSISTENT, *path, 0, d->arg_offset,
                  "launch %llu's manifest has no %s at argument offset %u",
                  (unsigned long long)l->sequence, kname, d->arg_offset);
        return VKRR_DAMAGE_DUMP;
    }
    if (im->dump_path || im->dump_damaged) {
        vkrr_fail(e, VKRR_ERR_INCONSISTENT, *path, 0, d->arg_offset,
                  "the %s at offset %u is dumped twice (also %s)", kname, d->arg_offset,
                  im->dump_path ? im->dump_path : "another dump");
        im->dump_damaged = true;
        return fatal;
    }
    if (vkrr_cuformat_check(d->format, d->channels, e)) {
        snprintf(e->file, sizeof e->file, "%s", *path);
        return VKRR_DAMAGE_INPUT;
    }
    uint64_t texel = vkrr_cuformat_texel_bytes(d->format, d->channels), bytes;
    if (__builtin_mul_overflow((uint64_t)d->width, (uint64_t)d->height, &bytes) ||
        __builtin_mul_overflow(bytes, texel, &bytes)) {
        vkrr_fail(e, VKRR_ERR_RANGE, *path, 0, -1, "%ux%u texels overflow 64 bits", d->width,
                  d->height);
        return VKRR_DAMAGE_INPUT;
    }
    im->width = d->width;
    im->height = d->height;
    im->channels = d->channels;
    im->format = d->format;
    im->dump_bytes = bytes;
    if (vkrr_capture_stat_size(*path, bytes, "image dump (W x H x texel bytes)", e)) {
        im->dump_damaged = true;
        return fatal;
    }
    im->dump_path = *path;
    *path = NULL;
    return VKRR_DAMAGE_NONE;
}

/* A name that does not parse: its launch when "launch-SSS-" names one. */
static vkrr_launch *owner_of_bad_name(vkrr_capture *cap, const char *name)
{
    const char *s = name + 7;
    size_t k = 0;
    uint64_t seq;
    while (s[k] >= '0' && s[k] <= '9')
        k++;
    if (!k || s[k] != '-' || vkrr_parse_u64(s, k, 0, UINT64_MAX, &seq))
        return NULL;
    return vkrr_capture_find_seq(cap, seq);
}

static vkrr_status resolve_one(vkrr_capture *cap, const char *name, char **path, vkrr_error *err)
{
    vkrr_dump_name d;
    vkrr_error e = {0};
    if (vkrr_dump_name_parse(&d, name, *path, &e)) {
        vkrr_launch *l = owner_of_bad_name(cap, name);
        return vkrr_capture_damage(cap, l && l->damage != VKRR_DAMAGE_MANIFEST ? l : NULL, VKRR_DAMAGE_DUMP, &e,
                    err);
    }
    vkrr_launch *l = vkrr_capture_find_seq(cap, d.sequence);
    if (!l) /* dumped, not replayable: listed, not an error */
        return vkrr_capture_add_dump_only(cap, d.sequence, d.kernel, d.kernel_len, 1, err);
    if (l->damage == VKRR_DAMAGE_MANIFEST)
        return VKRR_OK; /* which resources it has is unknown: nothing to tie */
    if (strlen(l->kernel) != d.kernel_len || memcmp(l->kernel, d.kernel, d.kernel_len)) {
        vkrr_fail(&e, VKRR_ERR_INCONSISTENT, *path, 0, -1, "kernel differs from launch %llu's '%s'",
                  (unsigned long long)l->sequence, l->kernel);
        return vkrr_capture_damage(cap, l, VKRR_DAMAGE_DUMP, &e, err);
    }
    vkrr_damage_kind k = d.kind == VKRR_DUMP_BUFFER ? match_buffer(l, &d, path, &e)
                                                    : match_image(l, &d, path, &e);
    return k == VKRR_DAMAGE_NONE ? VKRR_OK : vkrr_capture_damage(cap, l, k, &e, err);
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
        if ((st = resolve_one(cap, names[i], &path, err)))
            goto fail;
    }
    /* A surface without a dump has no shape.  (Textures wait for the log: one
     * over linear memory may read an allocation's file instead.) */
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        vkrr_launch *l = &cap->launches[i];
        for (uint32_t j = 0; j < l->nimages; j++) {
            const vkrr_image *im = &l->images[j];
            if (im->kind == VKRR_IMAGE_SURFACE && !im->dump_path && !im->dump_damaged &&
                (st = vkrr_capture_no_dump(cap, l, j, err)))
                goto fail;
        }
    }
fail:
    free(path);
    vkrr_capture_free_names(names, n);
    free(ddir);
    return st;
}

vkrr_status vkrr_capture_no_dump(vkrr_capture *cap, vkrr_launch *l, uint32_t image,
                                 vkrr_error *err)
{
    const vkrr_image *im = &l->images[image];
    char *mp = vkrr_capture_join(l->dir, "manifest.txt");
    char *ddir = vkrr_capture_join(cap->path, "dump");
    vkrr_error e = {0};
    vkrr_fail(&e, VKRR_ERR_MISSING, mp ? mp : l->dir, 0, im->offset,
              "the %s at argument offset %u has no dump in %s (its shape and format come "
              "from there)",
              im->kind == VKRR_IMAGE_TEXTURE ? "texture" : "surface", im->offset,
              ddir ? ddir : "dump/");
    free(mp);
    free(ddir);
    return vkrr_capture_damage(cap, l, VKRR_DAMAGE_INPUT, &e, err);
}
