/* capture.c - opening a capture: replay/ launches (manifest, args.bin, alloc
 * files), then dump/ and run/run.log (capture_resolve.c), identity, modules/.
 * Only stats and small reads; big files are mapped on demand. */
#include "capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture_internal.h"
#include "capture_parse.h"

#define MANIFEST_MAX_BYTES (1u << 20)

static void launch_free(vkrr_launch *l)
{
    free(l->kernel);
    free(l->args);
    free(l->dir);
    for (uint32_t i = 0; i < l->nallocs; i++) {
        free(l->allocs[i].pre_path);
        free(l->allocs[i].post_path);
    }
    free(l->allocs);
    free(l->pointers);
    for (uint32_t i = 0; i < l->nimages; i++)
        free(l->images[i].dump_path);
    free(l->images);
    free(l->damage_error);
}

void vkrr_capture_close(vkrr_capture *cap)
{
    if (!cap)
        return;
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        launch_free(&cap->launches[i]);
    free(cap->launches);
    for (uint32_t i = 0; i < cap->nmodules; i++) {
        free(cap->modules[i].path);
        free(cap->modules[i].name);
    }
    free(cap->modules);
    for (uint32_t i = 0; i < cap->ndump_only; i++)
        free(cap->dump_only[i].kernel);
    for (uint32_t i = 0; i < cap->nlogged_modules; i++)
        free(cap->logged_modules[i].path);
    free(cap->logged_modules);
    free(cap->dump_only);
    free(cap->damage);
    free(cap->path);
    free(cap);
}

/* args.bin: exactly `args NBYTES` bytes, at most 4 KiB, into l->args (which
 * holds args_bytes bytes, zeroed, whatever happens). */
static vkrr_status load_args(vkrr_launch *l, const char *path, vkrr_error *err)
{
    vkrr_mapfile m = {0};
    vkrr_status st = vkrr_mapfile_open(&m, path, VKRR_MAPFILE_ANY_SIZE, err);
    if (st)
        return st;
    if (m.size != l->args_bytes)
        st = vkrr_fail(err, VKRR_ERR_SIZE, path, 0, -1,
                       "args.bin has %zu bytes, but manifest.txt line 3 says 'args %u'", m.size,
                       l->args_bytes);
    else if (l->args_bytes)
        memcpy(l->args, m.data, l->args_bytes);
    vkrr_mapfile_close(&m);
    return st;
}

static uint64_t word_at(const vkrr_launch *l, uint32_t off)
{
    uint64_t w;
    memcpy(&w, l->args + off, 8); /* little-endian hosts only, like CUDA */
    return w;
}

/* The launch's resources as the manifest declares them (checked on its own by
 * the parser), before any file is compared with them. */
static vkrr_status take_manifest(vkrr_launch *l, vkrr_manifest *m, const char *mpath,
                                 vkrr_error *err)
{
    free(l->kernel);
    l->kernel = m->kernel;
    m->kernel = NULL;
    memcpy(l->grid, m->grid, sizeof l->grid);
    memcpy(l->block, m->block, sizeof l->block);
    l->shared_bytes = m->shared_bytes;
    l->args_bytes = m->args_bytes;
    free(l->args);
    free(l->allocs);
    free(l->pointers);
    free(l->images);
    l->args = calloc(l->args_bytes + 1, 1);
    l->allocs = calloc(m->nallocs + 1, sizeof *l->allocs);
    l->pointers = calloc(m->npointers + 1, sizeof *l->pointers);
    l->images = calloc(m->nimages + 1, sizeof *l->images);
    if (!l->args || !l->allocs || !l->pointers || !l->images)
        return vkrr_fail(err, VKRR_ERR_NOMEM, mpath, 0, -1, "out of memory");
    for (uint32_t i = 0; i < m->nallocs; i++) {
        vkrr_alloc *a = &l->allocs[l->nallocs++];
        a->index = m->allocs[i].index;
        a->base = m->allocs[i].base;
        a->size = m->allocs[i].size;
        char name[32];
        snprintf(name, sizeof name, "alloc-%u.bin", a->index);
        if (!(a->pre_path = vkrr_capture_join(l->dir, name)))
            return vkrr_fail(err, VKRR_ERR_NOMEM, mpath, 0, -1, "out of memory");
    }
    for (uint32_t i = 0; i < m->npointers; i++) {
        const vkrr_manifest_pointer *mp = &m->pointers[i];
        uint32_t k = 0;
        while (l->allocs[k].index != mp->index)
            k++; /* the manifest parser checked it is declared */
        l->pointers[l->npointers++] = (vkrr_pointer){mp->offset, k, mp->delta};
    }
    for (uint32_t i = 0; i < m->nimages; i++) {
        vkrr_image *im = &l->images[l->nimages++];
        im->offset = m->images[i].offset;
        im->kind = m->images[i].kind;
        im->source_alloc = -1;
    }
    return VKRR_OK;
}

/* Fills l from replay/<name>: manifest, args.bin, alloc files.  A file that
 * is missing, short or malformed damages the launch (recorded in cap); only
 * running out of memory fails. */
static vkrr_status load_launch(vkrr_capture *cap, vkrr_launch *l, const char *dir,
                               const char *dirkernel, vkrr_error *err)
{
    vkrr_manifest m = {0};
    char *text = NULL, *mpath = NULL, *apath = NULL;
    size_t len = 0;
    vkrr_error e = {0};
    vkrr_status st = VKRR_OK;
    if (!(l->dir = strdup(dir)) || !(l->kernel = strdup(dirkernel)) ||
        !(mpath = vkrr_capture_join(dir, "manifest.txt")) ||
        !(apath = vkrr_capture_join(dir, "args.bin")) || !(l->args = calloc(1, 1)) ||
        !(l->allocs = calloc(1, sizeof *l->allocs)) ||
        !(l->pointers = calloc(1, sizeof *l->pointers)) ||
        !(l->images = calloc(1, sizeof *l->images))) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "out of memory");
        goto fail;
    }
    if (vkrr_read_text(mpath, MANIFEST_MAX_BYTES, &text, &len, &e) ||
        vkrr_manifest_parse(&m, text, len, mpath, &e)) {
        st = e.status == VKRR_ERR_NOMEM ? vkrr_fail(err, VKRR_ERR_NOMEM, mpath, 0, -1, "out of memory")
                                        : vkrr_capture_damage(cap, l, VKRR_DAMAGE_MANIFEST, &e, err);
        goto fail;
    }
    if (strcmp(m.kernel, dirkernel)) {
        vkrr_fail(&e, VKRR_ERR_INCONSISTENT, mpath, 1, -1,
                  "kernel '%s' differs from the directory name's '%s'", m.kernel, dirkernel);
        if ((st = vkrr_capture_damage(cap, l, VKRR_DAMAGE_INPUT, &e, err)))
            goto fail;
    }
    if ((st = take_manifest(l, &m, mpath, err)))
        goto fail;
    bool args_ok = load_args(l, apath, &e) == VKRR_OK;
    if (!args_ok && (st = vkrr_capture_damage(cap, l, VKRR_DAMAGE_INPUT, &e, err)))
        goto fail;
    for (uint32_t i = 0; i < l->nallocs; i++)
        if (vkrr_capture_stat_size(l->allocs[i].pre_path, l->allocs[i].size, "allocation file",
                                   &e) &&
            (st = vkrr_capture_damage(cap, l, VKRR_DAMAGE_INPUT, &e, err)))
            goto fail;
    for (uint32_t i = 0; args_ok && i < m.npointers; i++) {
        const vkrr_manifest_pointer *mp = &m.pointers[i];
        const vkrr_pointer *p = &l->pointers[i];
        uint64_t want = l->allocs[p->alloc].base + mp->delta;
        if (word_at(l, mp->offset) == want)
            continue;
        vkrr_fail(&e, VKRR_ERR_INCONSISTENT, apath, 0, mp->offset,
                  "word 0x%llx at offset %u is not allocation %u's base + %llu (0x%llx, "
                  "manifest line %ld)",
                  (unsigned long long)word_at(l, mp->offset), mp->offset, mp->index,
                  (unsigned long long)mp->delta, (unsigned long long)want, mp->line);
        if ((st = vkrr_capture_damage(cap, l, VKRR_DAMAGE_INPUT, &e, err)))
            goto fail;
    }
    for (uint32_t i = 0; i < l->nimages; i++)
        l->images[i].handle = word_at(l, l->images[i].offset);
fail:
    vkrr_manifest_free(&m);
    free(text);
    free(mpath);
    free(apath);
    return st;
}

/* "replay-NNNNNN-KERNEL" -> sequence and kernel (pointing into name). */
static vkrr_status parse_replay_name(const char *name, const char *path, uint64_t *seq,
                                     const char **kernel, vkrr_error *err)
{
    const char *s = name + 7;
    size_t k = 0;
    while (s[k] >= '0' && s[k] <= '9')
        k++;
    if (k == 0 || s[k] != '-' || !s[k + 1])
        return vkrr_fail(err, VKRR_ERR_PARSE, path, 0, -1,
                         "bad replay directory name: expected replay-NNNNNN-KERNEL");
    vkrr_status st = vkrr_parse_u64(s, k, 0, UINT64_MAX, seq);
    if (st)
        return vkrr_fail(err, st, path, 0, -1, "launch number in the directory name is out of range");
    *kernel = s + k + 1;
    return VKRR_OK;
}

static int cmp_launch(const void *a, const void *b)
{
    const vkrr_launch *x = a, *y = b;
    return (x->sequence > y->sequence) - (x->sequence < y->sequence);
}

static vkrr_status load_replay(vkrr_capture *cap, vkrr_error *err)
{
    char *rdir = vkrr_capture_join(cap->path, "replay");
    char **names = NULL;
    uint32_t n = 0;
    vkrr_status st;
    if (!rdir)
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    if ((st = vkrr_capture_list_dir(rdir, &names, &n, err)))
        goto fail;
    cap->launches = calloc(n + 1, sizeof *cap->launches);
    if (!cap->launches) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, rdir, 0, -1, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < n; i++) {
        char *path = vkrr_capture_join(rdir, names[i]);
        if (!path) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, rdir, 0, -1, "out of memory");
            goto fail;
        }
        struct stat sb;
        if (strncmp(names[i], "replay-", 7) || stat(path, &sb) || !S_ISDIR(sb.st_mode)) {
            vkrr_warn("%s: not a replay-NNNNNN-KERNEL directory; skipped", path);
            free(path);
            continue;
        }
        uint64_t seq = 0;
        const char *kernel = NULL;
        vkrr_error e = {0};
        if (parse_replay_name(names[i], path, &seq, &kernel, &e)) {
            /* no launch number: no launch to hang it on */
            st = vkrr_capture_damage(cap, NULL, VKRR_DAMAGE_MANIFEST, &e, err);
        } else {
            vkrr_launch *l = &cap->launches[cap->nlaunches++];
            l->sequence = seq;
            st = load_launch(cap, l, path, kernel, err);
        }
        free(path);
        if (st)
            goto fail;
    }
    if (cap->nlaunches == 0) {
        if (cap->ndamage) /* the reason there is none */
            st = err ? (*err = cap->damage[0]).status : cap->damage[0].status;
        else
            st = vkrr_fail(err, VKRR_ERR_MISSING, rdir, 0, -1, "no replay-NNNNNN-KERNEL directories");
        goto fail;
    }
    qsort(cap->launches, cap->nlaunches, sizeof *cap->launches, cmp_launch);
    for (uint32_t i = 1; i < cap->nlaunches; i++) {
        vkrr_launch *a = &cap->launches[i - 1], *b = &cap->launches[i];
        if (a->sequence != b->sequence)
            continue;
        /* which one dump/ and the log speak of cannot be told: neither is read */
        vkrr_error e = {0};
        vkrr_fail(&e, VKRR_ERR_INCONSISTENT, b->dir, 0, -1, "launch %llu recorded twice (also %s)",
                  (unsigned long long)b->sequence, a->dir);
        if ((st = vkrr_capture_damage(cap, b, VKRR_DAMAGE_MANIFEST, &e, err)) ||
            (st = vkrr_capture_damage(cap, a, VKRR_DAMAGE_MANIFEST, &e, err)))
            goto fail;
    }
fail:
    vkrr_capture_free_names(names, n);
    free(rdir);
    return st;
}

static int cmp_dump_only(const void *a, const void *b)
{
    const vkrr_dump_only *x = a, *y = b;
    return (x->sequence > y->sequence) - (x->sequence < y->sequence);
}

/* One entry a dump-only launch (its dumps summed, the first name kept). */
static void merge_dump_only(vkrr_capture *cap)
{
    if (cap->ndump_only > 1)
        qsort(cap->dump_only, cap->ndump_only, sizeof *cap->dump_only, cmp_dump_only);
    uint32_t k = 0;
    for (uint32_t i = 0; i < cap->ndump_only; i++) {
        vkrr_dump_only *e = &cap->dump_only[i];
        if (k && cap->dump_only[k - 1].sequence == e->sequence) {
            vkrr_dump_only *m = &cap->dump_only[k - 1];
            m->ndumps += e->ndumps;
            if (!m->kernel[0] && e->kernel[0]) {
                char *t = m->kernel;
                m->kernel = e->kernel;
                e->kernel = t;
            }
            free(e->kernel);
            continue;
        }
        cap->dump_only[k++] = *e;
    }
    cap->ndump_only = k;
}

/* Frame k starts at the k-th launch of the first kernel; occurrence counts
 * earlier launches of the same kernel: over every launch the capture shows,
 * replayable or dump-only, so a capture with replay folders for some
 * launches numbers them as one with folders for all.  gap_before: launches
 * the bridge numbered (its counter counts every cuLaunchKernel) between two
 * replayable ones. */
static vkrr_status assign_identity(vkrr_capture *cap, vkrr_error *err)
{
    merge_dump_only(cap);
    const char *first = NULL;
    uint32_t frame = 0, i = 0, d = 0;
    typedef struct { const char *k; uint32_t n; } count; /* launches of kernel k so far */
    count *c = calloc(cap->nlaunches + cap->ndump_only + 1, sizeof *c);
    uint32_t nc = 0;
    if (!c)
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    while (i < cap->nlaunches || d < cap->ndump_only) {
        bool replay = d == cap->ndump_only ||
                      (i < cap->nlaunches && cap->launches[i].sequence < cap->dump_only[d].sequence);
        const char *k = replay ? cap->launches[i].kernel : cap->dump_only[d].kernel;
        if (!first && k[0])
            first = k;
        else if (first && !strcmp(k, first))
            frame++;
        uint32_t occ = 0, j = 0;
        while (j < nc && strcmp(c[j].k, k))
            j++;
        if (j == nc)
            c[nc++] = (count){k, 0};
        occ = c[j].n++;
        if (replay) {
            vkrr_launch *l = &cap->launches[i];
            l->frame = frame, l->occurrence = occ;
            l->gap_before = i ? l->sequence - cap->launches[i - 1].sequence - 1 : 0;
            i++;
        } else {
            cap->dump_only[d].frame = frame, cap->dump_only[d].occurrence = occ;
            d++;
        }
    }
    free(c);
    cap->nframes = frame + 1;
    return VKRR_OK;
}

static int cmp_module(const void *a, const void *b)
{
    return strcmp(((const vkrr_module_file *)a)->name, ((const vkrr_module_file *)b)->name);
}

/* modules/ is a vkrr extension: absent is fine. */
static vkrr_status load_modules(vkrr_capture *cap, vkrr_error *err)
{
    char *mdir = vkrr_capture_join(cap->path, "modules");
    char **names = NULL;
    uint32_t n = 0;
    vkrr_status st = VKRR_OK;
    struct stat sb;
    if (!mdir)
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    if (stat(mdir, &sb) != 0)
        goto fail;
    if ((st = vkrr_capture_list_dir(mdir, &names, &n, err)))
        goto fail;
    cap->modules = calloc(n + 1, sizeof *cap->modules);
    if (!cap->modules) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, mdir, 0, -1, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *dot = strrchr(names[i], '.');
        if (!dot || (strcmp(dot, ".ptx") && strcmp(dot, ".cubin") && strcmp(dot, ".fatbin")))
            continue;
        vkrr_module_file *mf = &cap->modules[cap->nmodules++];
        mf->name = strdup(names[i]);
        mf->path = vkrr_capture_join(mdir, names[i]);
        if (!mf->name || !mf->path) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, mdir, 0, -1, "out of memory");
            goto fail;
        }
    }
    qsort(cap->modules, cap->nmodules, sizeof *cap->modules, cmp_module);
fail:
    vkrr_capture_free_names(names, n);
    free(mdir);
    return st;
}

vkrr_status vkrr_capture_open_ex(vkrr_capture **out, const char *dir, unsigned flags,
                                 vkrr_error *err)
{
    *out = NULL;
    unsigned warn0 = vkrr_warning_count();
    vkrr_status st;
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return vkrr_fail(err, VKRR_ERR_MISSING, dir, 0, -1, "capture directory is missing");
    vkrr_capture *cap = calloc(1, sizeof *cap);
    if (!cap || !(cap->path = strdup(dir))) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, dir, 0, -1, "out of memory");
        goto fail;
    }
    if ((st = load_replay(cap, err)) || (st = vkrr_capture_resolve_dumps(cap, err)) ||
        (st = vkrr_capture_resolve_log(cap, err)) || (st = load_modules(cap, err)))
        goto fail;
    if (!(flags & VKRR_CAPTURE_KEEP_DAMAGED) && cap->first_damage.status != VKRR_OK) {
        st = cap->first_damage.status;
        if (err)
            *err = cap->first_damage;
        goto fail;
    }
    if ((st = assign_identity(cap, err)))
        goto fail;
    cap->warnings = vkrr_warning_count() - warn0;
    *out = cap;
    return VKRR_OK;
fail:
    vkrr_capture_close(cap);
    return st;
}

vkrr_status vkrr_capture_open(vkrr_capture **out, const char *dir, vkrr_error *err)
{
    return vkrr_capture_open_ex(out, dir, 0, err);
}

const char *vkrr_capture_arch(const vkrr_capture *cap, char *buf, size_t cap_bytes)
{
    const vkrr_capture_device *d = &cap->device;
    if (!d->present)
        return NULL;
    if (d->cc_major >= 0)
        snprintf(buf, cap_bytes, "sm_%d%d", d->cc_major, d->cc_minor);
    else if (!strcmp(d->model, "rounded"))
        snprintf(buf, cap_bytes, "rounded");
    else if (!strncmp(d->model, "sm_", 3))
        snprintf(buf, cap_bytes, "%.*s", (int)strcspn(d->model, ", "), d->model);
    else
        return NULL;
    return buf;
}

const char *vkrr_damage_name(vkrr_damage_kind k)
{
    switch (k) {
    case VKRR_DAMAGE_DUMP: return "dump";
    case VKRR_DAMAGE_INPUT: return "input";
    case VKRR_DAMAGE_MANIFEST: return "manifest";
    default: return "";
    }
}

const vkrr_launch *vkrr_capture_find(const vkrr_capture *cap, const char *kernel,
                                     uint32_t occurrence)
{
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        if (cap->launches[i].occurrence == occurrence && !strcmp(cap->launches[i].kernel, kernel))
            return &cap->launches[i];
    return NULL;
}

vkrr_status vkrr_capture_map_alloc_pre(const vkrr_capture *cap, const vkrr_launch *l,
                                       uint32_t alloc, vkrr_mapfile *m, vkrr_error *err)
{
    if (alloc >= l->nallocs)
        return vkrr_fail(err, VKRR_ERR_USAGE, cap->path, 0, -1, "launch %llu has no allocation %u",
                         (unsigned long long)l->sequence, alloc);
    return vkrr_mapfile_open(m, l->allocs[alloc].pre_path, l->allocs[alloc].size, err);
}

vkrr_status vkrr_capture_map_alloc_post(const vkrr_capture *cap, const vkrr_launch *l,
                                        uint32_t alloc, vkrr_mapfile *m, vkrr_error *err)
{
    if (alloc >= l->nallocs)
        return vkrr_fail(err, VKRR_ERR_USAGE, cap->path, 0, -1, "launch %llu has no allocation %u",
                         (unsigned long long)l->sequence, alloc);
    if (!l->allocs[alloc].post_path)
        return vkrr_fail(err, VKRR_ERR_MISSING, cap->path, 0, -1,
                         "no dump of allocation 0x%llx after launch %llu",
                         (unsigned long long)l->allocs[alloc].base, (unsigned long long)l->sequence);
    return vkrr_mapfile_open(m, l->allocs[alloc].post_path, l->allocs[alloc].size, err);
}

vkrr_status vkrr_capture_map_image(const vkrr_capture *cap, const vkrr_launch *l, uint32_t image,
                                   vkrr_mapfile *m, vkrr_error *err)
{
    if (image >= l->nimages)
        return vkrr_fail(err, VKRR_ERR_USAGE, cap->path, 0, -1, "launch %llu has no image %u",
                         (unsigned long long)l->sequence, image);
    const vkrr_image *im = &l->images[image];
    if (im->source_alloc >= 0 && (uint32_t)im->source_alloc < l->nallocs)
        return vkrr_capture_map_alloc_pre(cap, l, (uint32_t)im->source_alloc, m, err);
    if (!im->dump_path)
        return vkrr_fail(err, VKRR_ERR_MISSING, l->dir, 0, im->offset,
                         "the %s at argument offset %u has no dump",
                         im->kind == VKRR_IMAGE_TEXTURE ? "texture" : "surface", im->offset);
    bool linear = im->resource == VKRR_TEXRES_LINEAR || im->resource == VKRR_TEXRES_PITCH2D;
    return vkrr_mapfile_open(m, im->dump_path, linear ? im->dump_bytes : vkrr_capture_image_bytes(im),
                             err);
}
