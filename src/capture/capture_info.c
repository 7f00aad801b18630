/* capture_info.c - `vkrr info` output: a table for people, JSON for scripts.
 * The JSON names are an interface (tests and scripts read them). */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "capture.h"
#include "cuformat.h"

static const char *address_name(int a)
{
    static const char *names[] = {"wrap", "clamp", "mirror", "border"};
    return a >= 0 && a < 4 ? names[a] : "?";
}

static const char *kind_name(vkrr_image_kind k)
{
    return k == VKRR_IMAGE_TEXTURE ? "texture" : "surface";
}

static const char *resource_name(int r)
{
    return r == VKRR_TEXRES_LINEAR ? "linear" : r == VKRR_TEXRES_PITCH2D ? "pitch2d" : "array";
}

/* {"status", "file", "line", "offset", "message"} of one problem. */
static void json_error(const vkrr_error *e, FILE *f)
{
    fputs("{\"status\":", f);
    vkrr_json_put_string(f, vkrr_status_name(e->status));
    fputs(",\"file\":", f);
    vkrr_json_put_string(f, e->file);
    fprintf(f, ",\"line\":%ld,\"offset\":%ld,\"message\":", e->line, e->offset);
    vkrr_json_put_string(f, e->msg[0] ? e->msg : vkrr_status_message(e->status));
    fputc('}', f);
}

/* "reads": the surface a texture is fed from in chained validation. */
static void json_link(const vkrr_capture *cap, const vkrr_texture_link *k, FILE *f)
{
    fputs(",\"reads\":", f);
    if (k->launch >= cap->nlaunches) {
        fputs(k->unknown ? "\"unknown\"" : "null", f);
        return;
    }
    const vkrr_launch *p = &cap->launches[k->launch];
    fprintf(f, "{\"launch\":%llu,\"kernel\":", (unsigned long long)p->sequence);
    vkrr_json_put_string(f, p->kernel);
    fprintf(f, ",\"arg\":%u,\"how\":\"%s\",\"alike\":%u}", p->images[k->image].offset,
            vkrr_link_how_name(k->how), k->nalike);
}

static void json_launch(const vkrr_capture *cap, const vkrr_launch *l, const vkrr_texture_link *links,
                        FILE *f)
{
    fprintf(f, "{\"sequence\":%llu,\"kernel\":", (unsigned long long)l->sequence);
    vkrr_json_put_string(f, l->kernel);
    fprintf(f,
            ",\"frame\":%u,\"occurrence\":%u,\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],"
            "\"shared_bytes\":%u,\"args_bytes\":%u,\"gap_before\":%llu,\"allocs\":[",
            l->frame, l->occurrence, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
            l->block[2], l->shared_bytes, l->args_bytes, (unsigned long long)l->gap_before);
    for (uint32_t i = 0; i < l->nallocs; i++)
        fprintf(f, "%s{\"index\":%u,\"base\":\"0x%llx\",\"size\":%llu}", i ? "," : "",
                l->allocs[i].index, (unsigned long long)l->allocs[i].base,
                (unsigned long long)l->allocs[i].size);
    fputs("],\"pointers\":[", f);
    for (uint32_t i = 0; i < l->npointers; i++)
        fprintf(f, "%s{\"offset\":%u,\"alloc\":%u,\"delta\":%llu}", i ? "," : "",
                l->pointers[i].offset, l->allocs[l->pointers[i].alloc].index,
                (unsigned long long)l->pointers[i].delta);
    fputs("],\"images\":[", f);
    for (uint32_t i = 0; i < l->nimages; i++) {
        const vkrr_image *im = &l->images[i];
        fprintf(f,
                "%s{\"offset\":%u,\"kind\":\"%s\",\"width\":%u,\"height\":%u,\"channels\":%u,"
                "\"format\":%u,\"format_name\":\"%s%s\",\"filter\":\"%s\",\"address\":[%d,%d],"
                "\"address_names\":[\"%s\",\"%s\"],\"normalized\":%s,"
                "\"read_as_integer\":%s",
                i ? "," : "", im->offset, kind_name(im->kind), im->width, im->height, im->channels,
                im->format, vkrr_cuformat_find(im->format) ? "CU_AD_FORMAT_" : "",
                vkrr_cuformat_find(im->format) ? vkrr_cuformat_find(im->format)->name : "unknown",
                im->sampler.filter == VKRR_FILTER_LINEAR ? "linear" : "point",
                im->sampler.address[0], im->sampler.address[1],
                address_name(im->sampler.address[0]), address_name(im->sampler.address[1]),
                im->sampler.normalized ? "true" : "false",
                im->sampler.read_as_integer ? "true" : "false");
        if (!vkrr_geometry_is_2d(&im->geometry)) /* arrays beyond 2D: only then */
            fprintf(f, ",\"geometry\":{\"name\":\"%s\",\"dims\":%u,\"depth\":%u,\"layers\":%u,"
                       "\"cube\":%s,\"plane_height\":%u}", vkrr_geometry_name(&im->geometry),
                    im->geometry.dims, im->geometry.depth, im->geometry.layers,
                    im->geometry.cube ? "true" : "false",
                    im->height / vkrr_geometry_planes(&im->geometry));
        if (im->array)
            fprintf(f, ",\"array\":\"0x%llx\",\"array_link\":\"%s\"", (unsigned long long)im->array,
                    vkrr_link_how_name(im->link));
        if (links && im->kind == VKRR_IMAGE_TEXTURE)
            json_link(cap, &links[i], f);
        if (im->resource != VKRR_TEXRES_ARRAY) /* over linear memory: only then */
            fprintf(f, ",\"resource\":\"%s\",\"pitch\":%llu,\"source_base\":\"0x%llx\","
                       "\"source_offset\":%llu", resource_name(im->resource),
                    (unsigned long long)im->pitch, (unsigned long long)im->source_base,
                    (unsigned long long)im->source_offset);
        fputc('}', f);
    }
    fputs("]", f);
    if (l->damage_error) { /* only damaged launches carry the key */
        fprintf(f, ",\"damage\":{\"kind\":\"%s\",\"problems\":%u,\"first\":",
                vkrr_damage_name(l->damage), l->ndamage);
        json_error(l->damage_error, f);
        fputc('}', f);
    }
    fputc('}', f);
}

static void json_device(const vkrr_capture_device *d, FILE *f)
{
    if (!d->present) {
        fputs("null", f);
        return;
    }
    fputs("{\"name\":", f);
    vkrr_json_put_string(f, d->name);
    if (d->cc_major >= 0)
        fprintf(f, ",\"cc\":\"%d.%d\"", d->cc_major, d->cc_minor);
    else
        fputs(",\"cc\":null", f);
    fputs(",\"model\":", f);
    vkrr_json_put_string(f, d->model);
    fputc('}', f);
}

void vkrr_capture_print_json(const vkrr_capture *cap, vkrr_texture_link *const *links,
                             const char *vkrr_version, FILE *f)
{
    fputc('{', f);
    vkrr_json_put_header(f, VKRR_SCHEMA_INFO, vkrr_version);
    fputs(",\n\"capture\":", f);
    vkrr_json_put_string(f, cap->path);
    fputs(",\"launches\":[", f);
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        fputs(i ? ",\n" : "\n", f);
        json_launch(cap, &cap->launches[i], links ? links[i] : NULL, f);
    }
    fputs("\n],\"dump_only\":[", f);
    for (uint32_t i = 0; i < cap->ndump_only; i++) {
        const vkrr_dump_only *d = &cap->dump_only[i];
        fprintf(f, "%s{\"sequence\":%llu,\"kernel\":", i ? "," : "", (unsigned long long)d->sequence);
        vkrr_json_put_string(f, d->kernel);
        fprintf(f, ",\"frame\":%u,\"occurrence\":%u,\"dumps\":%u}", d->frame, d->occurrence, d->ndumps);
    }
    fprintf(f, "\n],\"damaged_launches\":%u,\"damage\":[", cap->ndamaged);
    for (uint32_t i = 0; i < cap->ndamage; i++) {
        fputs(i ? "," : "", f);
        json_error(&cap->damage[i], f);
    }
    fputs("],\"device\":", f);
    json_device(&cap->device, f);
    fputs("}\n", f);
}


/* Launches without a replay folder, and what that means for chained mode. */
static void print_dump_only(const vkrr_capture *cap, FILE *f)
{
    if (!cap->ndump_only)
        return;
    fprintf(f, "dump-only: %u launches have dumps or log lines but no replay folder (the bridge's "
               "D4R_CUDA_REPLAY_DUMP_LIMIT, 1 by default, _SKIP and _FILTER): their outputs are "
               "listed, not validated\n", cap->ndump_only);
    fprintf(f, "%8s  %-40s %5s %4s %6s\n", "seq", "kernel", "frame", "occ", "dumps");
    for (uint32_t i = 0; i < cap->ndump_only; i++) {
        const vkrr_dump_only *d = &cap->dump_only[i];
        fprintf(f, "%8llu  %-40.40s %5u %4u %6u\n", (unsigned long long)d->sequence,
                d->kernel[0] ? d->kernel : "?", d->frame, d->occurrence, d->ndumps);
    }
    unsigned segs = 1;
    for (uint32_t i = 1; i < cap->nlaunches; i++)
        segs += cap->launches[i].gap_before > 0;
    fprintf(f, "chained mode: %u segment%s of consecutive replayable launches; it restarts from the "
               "captured state at each segment's first launch (a launch after a gap reads what the "
               "capture holds, never what an earlier replayed launch wrote), so bisect judges "
               "each segment from its start\n", segs, segs == 1 ? "" : "s");
}

void vkrr_capture_print_table(const vkrr_capture *cap, vkrr_texture_link *const *links, FILE *f)
{
    fprintf(f, "capture %s: %u launches, %u frames, %u modules, %s\n", cap->path, cap->nlaunches,
            cap->nframes, cap->nmodules, cap->has_log ? "run.log present" : "no run.log");
    const vkrr_capture_device *d = &cap->device;
    if (!d->present)
        fputs("made on: not recorded (run.log has no device line)\n", f);
    else if (d->cc_major >= 0)
        fprintf(f, "made on: %s, compute capability %d.%d (sm_%d%d)\n", d->name, d->cc_major,
                d->cc_minor, d->cc_major, d->cc_minor);
    else
        fprintf(f, "made on: %s, hardware model %s\n", d->name, d->model[0] ? d->model : "?");
    size_t kw = 6;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (strlen(cap->launches[i].kernel) > kw)
            kw = strlen(cap->launches[i].kernel);
    if (kw > 60)
        kw = 60;
    fprintf(f, "%8s  %-*s %5s %4s  %-18s %-14s %7s %5s %6s %6s %6s\n", "seq", (int)kw, "kernel",
            "frame", "occ", "grid", "block", "shmem", "args", "allocs", "ptrs", "images");
    for (uint32_t i = 0; i < cap->nlaunches; i++) {
        const vkrr_launch *l = &cap->launches[i];
        char grid[40], block[40];
        snprintf(grid, sizeof grid, "%ux%ux%u", l->grid[0], l->grid[1], l->grid[2]);
        snprintf(block, sizeof block, "%ux%ux%u", l->block[0], l->block[1], l->block[2]);
        fprintf(f, "%8llu  %-*.*s %5u %4u  %-18s %-14s %7u %5u %6u %6u %6u\n",
                (unsigned long long)l->sequence, (int)kw, (int)kw, l->kernel, l->frame,
                l->occurrence, grid, block, l->shared_bytes, l->args_bytes, l->nallocs,
                l->npointers, l->nimages);
        for (uint32_t j = 0; j < l->nallocs; j++)
            fprintf(f, "%10s alloc %-3u base 0x%-14llx %12llu bytes%s\n", "", l->allocs[j].index,
                    (unsigned long long)l->allocs[j].base, (unsigned long long)l->allocs[j].size,
                    l->allocs[j].post_path ? "" : "  (no dump after)");
        for (uint32_t j = 0; j < l->npointers; j++)
            fprintf(f, "%10s arg %-4u -> alloc %u + %llu\n", "", l->pointers[j].offset,
                    l->allocs[l->pointers[j].alloc].index,
                    (unsigned long long)l->pointers[j].delta);
        for (uint32_t j = 0; j < l->nimages; j++) {
            const vkrr_image *im = &l->images[j];
            const vkrr_cuformat_info *fi = vkrr_cuformat_find(im->format);
            fprintf(f, "%10s arg %-4u %s %ux%ux%u %s", "", im->offset, kind_name(im->kind),
                    im->width, im->height, im->channels, fi ? fi->name : "?");
            if (im->kind == VKRR_IMAGE_TEXTURE)
                fprintf(f, " %s %s/%s%s%s%s", im->sampler.filter ? "linear" : "point",
                        address_name(im->sampler.address[0]), address_name(im->sampler.address[1]),
                        im->sampler.normalized ? " normalized" : "",
                        im->sampler.read_as_integer ? " integer" : "",
                        im->sampler.from_log ? "" : " (defaults)");
            if (im->array)
                fprintf(f, " array 0x%llx (%s)", (unsigned long long)im->array, vkrr_link_how_name(im->link));
            const vkrr_texture_link *k = links && im->kind == VKRR_IMAGE_TEXTURE ? &links[i][j] : NULL;
            if (k && k->launch < cap->nlaunches)
                fprintf(f, " <- #%llu %s arg %u (%s%s)", (unsigned long long)cap->launches[k->launch].sequence,
                        cap->launches[k->launch].kernel, cap->launches[k->launch].images[k->image].offset,
                        vkrr_link_how_name(k->how),
                        k->nalike ? "; other surfaces of that launch are alike: chained mode checks "
                                    "the port writes them alike too" : "");
            else if (k && k->unknown)
                fputs(" <- capture (which earlier surface, if any, wrote it is unknown)", f);
            const vkrr_geometry *g = &im->geometry;
            if (g->dims == 1 && !g->layers)
                fputs(" 1D", f);
            else if (!vkrr_geometry_is_2d(g))
                fprintf(f, " %s, %u %s of %u rows", vkrr_geometry_name(g), vkrr_geometry_planes(g),
                        g->dims == 3 ? "slices" : g->cube ? "faces" : "layers",
                        im->height / vkrr_geometry_planes(g));
            if (im->resource != VKRR_TEXRES_ARRAY)
                fprintf(f, " over %s memory 0x%llx+%llu (pitch %llu)", resource_name(im->resource),
                        (unsigned long long)im->source_base, (unsigned long long)im->source_offset,
                        (unsigned long long)im->pitch);
            fputc('\n', f);
        }
        if (l->damage_error) {
            char buf[1400];
            vkrr_error_format(l->damage_error, buf, sizeof buf);
            fprintf(f, "%10s DAMAGED (%s): %s", "", vkrr_damage_name(l->damage), buf);
            if (l->ndamage > 1)
                fprintf(f, " (and %u more)", l->ndamage - 1);
            fputc('\n', f);
        }
    }
    print_dump_only(cap, f);
    for (uint32_t i = 0; i < cap->ndamage; i++) {
        char buf[1400];
        vkrr_error_format(&cap->damage[i], buf, sizeof buf);
        fprintf(f, "damaged: %s\n", buf);
    }
    if (cap->ndamaged || cap->ndamage)
        fprintf(f, "damage: %u of %u launches could not be read, %u problems no launch owns\n",
                cap->ndamaged, cap->nlaunches, cap->ndamage);
}
