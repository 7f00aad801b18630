/* capture_link.c - ties run/run.log to the launches: sampler state and
 * arrays at each launch's position in the log, textures over linear memory
 * (their resource descriptor is on the creation line), surfaces without
 * array= tied to the array created before them, and the dumps' hash= values.
 * What the log cannot tell a launch damages that launch. */
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"
#include "capture_parse.h"
#include "cuformat.h"

/* CUDA-like defaults when the log does not say: point, clamp, unnormalized;
 * 32-bit integer arrays can only be read as integers. */
static vkrr_sampler default_sampler(uint32_t format)
{
    return (vkrr_sampler){.filter = VKRR_FILTER_POINT,
                          .address = {VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP, VKRR_ADDRESS_CLAMP},
                          .read_as_integer = format == 3 || format == 10};
}

/* The array behind im agrees with its dump; im takes the array's geometry. */
static bool check_array(const vkrr_log *log, const char *lpath, const vkrr_launch *l,
                        vkrr_image *im, vkrr_error *e)
{
    const vkrr_log_array *a = vkrr_log_array_at(log, im->array, l->log_line);
    if (!a)
        return true;
    if (a->width == im->width && a->height == im->height && a->format == im->format &&
        a->channels == im->channels) {
        im->geometry = a->geometry;
        return true;
    }
    vkrr_fail(e, VKRR_ERR_INCONSISTENT, lpath, a->line, -1,
              "array 0x%llx is %ux%ux%u fmt %u here, but launch %llu's dump of argument %u is "
              "%ux%ux%u fmt %u",
              (unsigned long long)a->array, a->width, a->height, a->channels, a->format,
              (unsigned long long)l->sequence, im->offset, im->width, im->height, im->channels,
              im->format);
    return false;
}

/* The shape and source of a texture over linear memory (t: its creation). */
static bool link_linear(const char *lpath, vkrr_launch *l, vkrr_image *im,
                        const vkrr_log_texture *t, vkrr_error *e)
{
    if (!t->has_desc)
        return vkrr_fail(e, VKRR_ERR_MISSING, lpath, t->line, im->offset,
                         "the texture at argument offset %u reads %s memory at 0x%llx, but the "
                         "log gives no format or size of it (the bridge's cuTexObjectCreate line "
                         "does not print them; a d4rRegisterLinearTexture line gives a linear "
                         "texture's, nothing a pitch-2D one's pitch)", im->offset,
                         t->resource == VKRR_TEXRES_PITCH2D ? "pitch-2D" : "linear",
                         (unsigned long long)t->devptr), false;
    if (vkrr_cuformat_check(t->format, t->channels, e)) {
        snprintf(e->file, sizeof e->file, "%s", lpath);
        e->line = t->line;
        return false;
    }
    uint64_t texel = vkrr_cuformat_texel_bytes(t->format, t->channels), w, h, need;
    if (t->resource == VKRR_TEXRES_LINEAR) {
        w = t->bytes / texel;
        h = 1;
        im->pitch = t->bytes;
        need = t->bytes;
        if (t->bytes % texel || !w || w > UINT32_MAX)
            return vkrr_fail(e, VKRR_ERR_RANGE, lpath, t->line, -1,
                             "a linear texture of %llu bytes is not 1..2^32-1 texels of %llu "
                             "bytes", (unsigned long long)t->bytes, (unsigned long long)texel), false;
    } else {
        w = t->width;
        h = t->height;
        im->pitch = t->pitch;
        if (!w || !h || w > UINT32_MAX || h > UINT32_MAX || t->pitch / texel < w ||
            __builtin_mul_overflow(h - 1, t->pitch, &need) || __builtin_add_overflow(need, w * texel, &need))
            return vkrr_fail(e, VKRR_ERR_RANGE, lpath, t->line, -1,
                             "a pitch-2D texture of %llux%llu texels of %llu bytes, rows %llu "
                             "bytes apart, is not a valid shape", (unsigned long long)w,
                             (unsigned long long)h, (unsigned long long)texel,
                             (unsigned long long)t->pitch), false;
    }
    im->resource = t->resource;
    im->width = (uint32_t)w;
    im->height = (uint32_t)h;
    im->format = t->format;
    im->channels = t->channels;
    uint64_t size = 0;
    if (im->dump_path) {
        if (t->devptr != im->source_base + im->source_offset)
            return vkrr_fail(e, VKRR_ERR_INCONSISTENT, im->dump_path, 0, -1,
                             "the dump of the texture at offset %u starts at 0x%llx, but its "
                             "cuTexObjectCreate (%s line %ld) reads 0x%llx", im->offset,
                             (unsigned long long)(im->source_base + im->source_offset), lpath,
                             t->line, (unsigned long long)t->devptr), false;
        size = im->dump_bytes;
    } else {
        for (uint32_t k = 0; k < l->nallocs && im->source_alloc < 0; k++)
            if (t->devptr >= l->allocs[k].base && t->devptr - l->allocs[k].base < l->allocs[k].size)
                im->source_alloc = (int32_t)k;
        if (im->source_alloc < 0)
            return vkrr_fail(e, VKRR_ERR_MISSING, lpath, t->line, im->offset,
                             "the texture at argument offset %u reads linear memory at 0x%llx: "
                             "it has no buffer dump and no allocation of launch %llu holds it",
                             im->offset, (unsigned long long)t->devptr,
                             (unsigned long long)l->sequence), false;
        const vkrr_alloc *a = &l->allocs[im->source_alloc];
        im->source_base = a->base;
        im->source_offset = t->devptr - a->base;
        im->dump_bytes = size = a->size;
    }
    if (im->source_offset > size || need > size - im->source_offset)
        return vkrr_fail(e, VKRR_ERR_RANGE, im->dump_path ? im->dump_path : lpath, 0, -1,
                         "the texture at offset %u reads %llu bytes from byte %llu of %llu",
                         im->offset, (unsigned long long)need,
                         (unsigned long long)im->source_offset, (unsigned long long)size), false;
    return true;
}

/* Real bridges log no array on cuSurfObjectCreate (vkrr's extension line
 * does).  Each creation without one is tied, in log order, to an array
 * created before it with the shape its launches' dumps show: the only one
 * (SHAPE), or among several the earliest no texture or surface was made over
 * yet, else the latest no other surface took (ORDER: a guess, which chained
 * validation follows only where the bytes confirm it, capture_links.c).
 * tie[j], how[j]: the array of log->surfaces[j] and how it is known. */
static vkrr_status tie_surfaces(const vkrr_capture *cap, const vkrr_log *log, uint64_t *tie,
                                vkrr_link_how *how, vkrr_error *err)
{
    const vkrr_image **shape = calloc(log->nsurfaces + 1, sizeof *shape);
    if (!shape)
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        for (uint32_t j = 0; j < l->nimages; j++) {
            const vkrr_log_surface *s = l->images[j].kind == VKRR_IMAGE_SURFACE && l->images[j].dump_path
                                            ? vkrr_log_surface_at(log, l->images[j].handle, l->log_line)
                                            : NULL;
            if (s && !shape[s - log->surfaces])
                shape[s - log->surfaces] = &l->images[j];
        }
    }
    for (uint32_t j = 0; j < log->nsurfaces; j++) {
        const vkrr_log_surface *s = &log->surfaces[j];
        const vkrr_image *im = shape[j];
        tie[j] = s->array;
        how[j] = s->array ? VKRR_LINK_LOGGED : VKRR_LINK_NONE;
        if (s->array || !im)
            continue;
        uint64_t fresh = 0, free_latest = 0;
        unsigned candidates = 0;
        for (uint32_t a = 0; a < log->narrays && log->arrays[a].line < s->line; a++) {
            const vkrr_log_array *ar = &log->arrays[a];
            if (ar->width != im->width || ar->height != im->height || ar->format != im->format ||
                ar->channels != im->channels)
                continue;
            candidates++;
            bool by_surface = false, by_texture = false;
            for (uint32_t k = 0; k < j; k++)
                by_surface = by_surface || (log->surfaces[k].line < s->line && tie[k] == ar->array);
            for (uint32_t k = 0; k < log->ntextures && log->textures[k].line < s->line; k++)
                by_texture = by_texture || log->textures[k].array == ar->array;
            if (!fresh && !by_surface && !by_texture)
                fresh = ar->array;
            if (!by_surface)
                free_latest = ar->array;
        }
        tie[j] = fresh ? fresh : free_latest;
        how[j] = !tie[j] ? VKRR_LINK_NONE : candidates == 1 ? VKRR_LINK_SHAPE : VKRR_LINK_ORDER;
    }
    free(shape);
    return VKRR_OK;
}

/* A texture's state at launch l: sampler, array or linear source. */
static bool link_texture(const vkrr_log *log, const char *lpath,
                         vkrr_launch *l, vkrr_image *im, vkrr_error *e)
{
    const vkrr_log_texture *t = vkrr_log_texture_at(log, im->handle, l->log_line);
    bool buffer_dump = im->resource == VKRR_TEXRES_LINEAR; /* set by match_linear */
    if (!t) {
        im->sampler = default_sampler(im->format);
        if (buffer_dump)
            return vkrr_fail(e, VKRR_ERR_MISSING, im->dump_path, 0, im->offset,
                             "the texture at offset %u is dumped as a buffer (linear memory), "
                             "but no cuTexObjectCreate of 0x%llx before launch %llu gives its "
                             "shape", im->offset, (unsigned long long)im->handle,
                             (unsigned long long)l->sequence), false;
        return true; /* its state is found by running the original (sampler_fit.h) */
    }
    im->sampler = t->sampler;
    im->array = t->array;
    im->link = t->array ? VKRR_LINK_LOGGED : VKRR_LINK_NONE;
    if (t->resource == VKRR_TEXRES_LINEAR || t->resource == VKRR_TEXRES_PITCH2D)
        return link_linear(lpath, l, im, t, e);
    if (t->resource != VKRR_TEXRES_ARRAY)
        return vkrr_fail(e, VKRR_ERR_FORMAT, lpath, t->line, im->offset,
                         "the texture at offset %u reads a mipmapped array (type=%d): not "
                         "supported", im->offset, t->resource), false;
    if (buffer_dump)
        return vkrr_fail(e, VKRR_ERR_INCONSISTENT, im->dump_path, 0, im->offset,
                         "the texture at offset %u is dumped as a buffer, but its "
                         "cuTexObjectCreate (%s line %ld) reads an array", im->offset, lpath,
                         t->line), false;
    return true;
}

/* A buffer dump is named after the first argument that points into its
 * allocation: that allocation of l when it has no dump (it went missing),
 * else -1. */
static int missing_listed_dump(const vkrr_launch *l, uint32_t arg_offset, uint64_t *delta)
{
    for (uint32_t a = 0; a < l->nallocs; a++) {
        const vkrr_pointer *first = NULL;
        for (uint32_t p = 0; p < l->npointers; p++)
            if (l->pointers[p].alloc == a && (!first || l->pointers[p].offset < first->offset))
                first = &l->pointers[p];
        if (first && first->offset == arg_offset) {
            *delta = first->delta;
            return l->allocs[a].post_path || l->allocs[a].post_damaged ? -1 : (int)a;
        }
    }
    return -1; /* not an allocation the manifest knows: nothing to miss */
}

/* What the log says of each of l's dumps (hash=, bytes=, the statistics). */
static bool link_hashes(const vkrr_log *log, const char *lpath, vkrr_launch *l, vkrr_error *e)
{
    uint32_t n = 0;
    const vkrr_log_dump *d = vkrr_log_dumps_of(log, l->sequence, &n);
    for (uint32_t i = 0; i < n; i++, d++) {
        vkrr_dump_stats *ev = NULL;
        uint64_t bytes = 0;
        for (uint32_t a = 0; d->kind == VKRR_DUMP_BUFFER && !ev && a < l->nallocs; a++)
            if (l->allocs[a].post_path && l->allocs[a].post_offset == d->arg_offset)
                ev = &l->allocs[a].post_log, bytes = l->allocs[a].size;
        for (uint32_t k = 0; !ev && k < l->nimages; k++) {
            vkrr_image *im = &l->images[k];
            bool kind = d->kind == VKRR_DUMP_BUFFER
                            ? im->kind == VKRR_IMAGE_TEXTURE && im->source_alloc < 0 &&
                                  (im->resource == VKRR_TEXRES_LINEAR || im->resource == VKRR_TEXRES_PITCH2D)
                            : (d->kind == VKRR_DUMP_TEXTURE) == (im->kind == VKRR_IMAGE_TEXTURE);
            if (im->offset == d->arg_offset && kind && im->dump_path)
                ev = &im->dump_log, bytes = im->dump_bytes;
        }
        uint64_t delta = 0;
        int gone = !ev && d->kind == VKRR_DUMP_BUFFER ? missing_listed_dump(l, d->arg_offset, &delta) : -1;
        if (gone >= 0) {
            vkrr_fail(e, VKRR_ERR_MISSING, lpath, 0, -1,
                      "buffer dump is missing (%s line %ld lists it for argument %u)", lpath,
                      d->stats.line, d->arg_offset);
            int n = snprintf(e->file, sizeof e->file, "%.*s", (int)(strlen(lpath) - strlen("run/run.log")), lpath);
            snprintf(e->file + n, sizeof e->file - (size_t)n,
                     "dump/launch-%03llu-%s-arg%03u-buffer-base0x%llx+0x%llx-fmt-1.bin",
                     (unsigned long long)l->sequence, l->kernel, d->arg_offset,
                     (unsigned long long)l->allocs[gone].base, (unsigned long long)delta);
            return false;
        }
        if (!ev || ev->line)
            continue; /* a dump of nothing known, or its second line */
        if (d->bytes != UINT64_MAX && d->bytes != bytes)
            return vkrr_fail(e, VKRR_ERR_CHANGED, lpath, d->stats.line, d->arg_offset,
                             "changed since capture: the dump of argument %u has %llu bytes, "
                             "the log's bytes= says %llu", d->arg_offset,
                             (unsigned long long)bytes, (unsigned long long)d->bytes), false;
        *ev = d->stats;
    }
    return true;
}

/* The log could not be read (read error, or a malformed line at `bad_line`):
 * a launch with textures at or after it may have lost its sampler state. */
static bool texture_state_lost(const vkrr_launch *l, long bad_line)
{
    bool tex = false;
    for (uint32_t j = 0; j < l->nimages; j++)
        tex = tex || l->images[j].kind == VKRR_IMAGE_TEXTURE;
    return tex && bad_line > 0 && (l->log_line == 0 || l->log_line > bad_line);
}

static vkrr_status link_launch(vkrr_capture *cap, const vkrr_log *log, const uint64_t *tie,
                               const vkrr_link_how *how, const char *lpath, long bad_line,
                               vkrr_launch *l, vkrr_error *err)
{
    vkrr_error e = {0};
    vkrr_status st;
    l->log_line = vkrr_log_launch_line(log, l->sequence);
    if (cap->has_log && !l->log_line && l->nimages)
        vkrr_warn("%s: launch %llu has no launch[N] line; its handles are looked up over "
                  "the whole log", lpath, (unsigned long long)l->sequence);
    if (texture_state_lost(l, bad_line)) {
        vkrr_fail(&e, log->bad_state.status ? log->bad_state.status : VKRR_ERR_IO, lpath,
                  log->bad_state.status ? log->bad_state.line : 0, -1,
                  "the state of launch %llu's textures may be on a line of the log that could "
                  "not be read: %s", (unsigned long long)l->sequence,
                  log->bad_state.status ? log->bad_state.msg : "the log is unreadable");
        if ((st = vkrr_capture_damage(cap, l, VKRR_DAMAGE_INPUT, &e, err)))
            return st;
    }
    for (uint32_t j = 0; j < l->nimages; j++) {
        vkrr_image *im = &l->images[j];
        bool ok = true;
        if (im->kind == VKRR_IMAGE_SURFACE) {
            const vkrr_log_surface *s = vkrr_log_surface_at(log, im->handle, l->log_line);
            im->array = s ? tie[s - log->surfaces] : 0;
            im->link = s ? how[s - log->surfaces] : VKRR_LINK_NONE;
        } else {
            ok = link_texture(log, lpath, l, im, &e);
            if (ok && !im->dump_path && im->source_alloc < 0 && !im->dump_damaged) {
                if ((st = vkrr_capture_no_dump(cap, l, j, err)))
                    return st;
                continue;
            }
        }
        bool linear = im->resource == VKRR_TEXRES_LINEAR || im->resource == VKRR_TEXRES_PITCH2D;
        if (ok && im->array && !linear && im->dump_path)
            ok = check_array(log, lpath, l, im, &e);
        if (!ok && (st = vkrr_capture_damage(cap, l, VKRR_DAMAGE_INPUT, &e, err)))
            return st;
    }
    /* the launch failed on the capturing GPU: what it left is no launch's output */
    const vkrr_log_launch *ll = vkrr_log_launch_find(log, l->sequence);
    if (ll && ((ll->has_call && ll->call_result) || (ll->has_sync && ll->sync_result))) {
        bool call = ll->has_call && ll->call_result;
        vkrr_fail(&e, VKRR_ERR_INCONSISTENT, lpath, call ? ll->call_line : ll->sync_line, -1,
                  "launch %llu failed on the capturing GPU (%s result=%lld): its dumps are not "
                  "what the kernel wrote", (unsigned long long)l->sequence,
                  call ? "cuLaunchKernel" : "synchronize", (long long)(call ? ll->call_result : ll->sync_result));
        if ((st = vkrr_capture_damage(cap, l, VKRR_DAMAGE_DUMP, &e, err)))
            return st;
    }
    if (!link_hashes(log, lpath, l, &e))
        return vkrr_capture_damage(cap, l, VKRR_DAMAGE_DUMP, &e, err);
    return VKRR_OK;
}

/* The modules the log says the bridge saved, for modules.h to look for. */
static vkrr_status keep_modules(vkrr_capture *cap, const vkrr_log *log, const char *lpath,
                                vkrr_error *err)
{
    if (!(cap->logged_modules = calloc(log->nmodules + 1, sizeof *cap->logged_modules)))
        return vkrr_fail(err, VKRR_ERR_NOMEM, lpath, 0, -1, "out of memory");
    for (uint32_t i = 0; i < log->nmodules; i++) {
        const vkrr_log_module *m = &log->modules[i];
        if (!m->path)
            continue;
        vkrr_logged_module *d = &cap->logged_modules[cap->nlogged_modules];
        *d = (vkrr_logged_module){.path = strdup(vkrr_log_name(log, m->path)),
                                  .fatbin = m->kind == VKRR_LOG_MODULE_FATBIN, .size = m->size,
                                  .complete = m->complete, .line = m->line};
        if (!d->path)
            return vkrr_fail(err, VKRR_ERR_NOMEM, lpath, 0, -1, "out of memory");
        cap->nlogged_modules++;
    }
    return VKRR_OK;
}

vkrr_status vkrr_capture_resolve_log(vkrr_capture *cap, vkrr_error *err)
{
    char *lpath = vkrr_capture_join(cap->path, "run/run.log");
    vkrr_mapfile m = {0};
    vkrr_log log = {0};
    uint64_t *tie = NULL;
    vkrr_link_how *how = NULL;
    long bad_line = 0;
    vkrr_error e = {0};
    vkrr_status st;
    if (!lpath)
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    st = vkrr_mapfile_open(&m, lpath, VKRR_MAPFILE_ANY_SIZE, &e);
    if (st == VKRR_ERR_MISSING) {
        vkrr_warn("%s: no log: the textures' sampler state is found by running the original "
                  "kernels, where they can run", lpath);
        st = VKRR_OK;
    } else if (st) { /* there but unreadable: what needs it is damaged */
        bad_line = 1;
        if ((st = vkrr_capture_damage(cap, NULL, VKRR_DAMAGE_INPUT, &e, err)))
            goto fail;
    } else {
        cap->has_log = true;
        if ((st = vkrr_log_parse(&log, (const char *)m.data, m.size, lpath, err)))
            goto fail;
        if (log.nbad) {
            bad_line = log.bad_state.line;
            e = log.bad;
            if (log.nbad > 1) {
                size_t k = strlen(e.msg);
                snprintf(e.msg + k, sizeof e.msg - k, " (and %u more malformed lines)", log.nbad - 1);
            }
            if ((st = vkrr_capture_damage(cap, NULL, VKRR_DAMAGE_INPUT, &e, err)))
                goto fail;
        }
    }
    if (!(tie = calloc(log.nsurfaces + 1, sizeof *tie)) || !(how = calloc(log.nsurfaces + 1, sizeof *how))) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, lpath, 0, -1, "out of memory");
        goto fail;
    }
    cap->device = log.device;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        cap->launches[i].log_line = vkrr_log_launch_line(&log, cap->launches[i].sequence);
    if ((st = keep_modules(cap, &log, lpath, err)))
        goto fail;
    for (uint32_t i = 0; i < log.nlaunches; i++) { /* launches only the log shows */
        const vkrr_log_launch *ll = &log.launches[i];
        const char *k = vkrr_log_name(&log, ll->kernel);
        if (!vkrr_capture_find_seq(cap, ll->sequence) &&
            (st = vkrr_capture_add_dump_only(cap, ll->sequence, k, strlen(k), 0, err)))
            goto fail;
    }
    if ((st = tie_surfaces(cap, &log, tie, how, err)))
        goto fail;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (cap->launches[i].damage != VKRR_DAMAGE_MANIFEST &&
            (st = link_launch(cap, &log, tie, how, lpath, bad_line, &cap->launches[i], err)))
            goto fail;
fail:
    free(tie);
    free(how);
    vkrr_log_free(&log);
    vkrr_mapfile_close(&m);
    free(lpath);
    return st;
}
