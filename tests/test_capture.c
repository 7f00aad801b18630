/* test_capture - writer -> reader round trips on small asymmetric captures,
 * and `vkrr info --json` on the same captures.
 *
 * `test_capture --write-demo DIR` writes the main demo capture and exits
 * (scripts/demo.sh uses it). */
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "capture_write.h"
#include "testutil.h"

#define KA "cuda_dldn_engine_swin_enc0_kernel"
#define KB "_Z10blur_pass1PKfPfy"
#define MAXL 16

typedef struct exp_image {
    uint32_t offset;
    vkrr_image_kind kind;
    uint64_t handle, array;
    uint32_t w, h, c, fmt;
    vkrr_sampler s;
    uint8_t post[64];
    uint32_t bytes;
} exp_image;

typedef struct exp_launch {
    uint64_t seq;
    const char *kernel;
    uint32_t frame, occ, grid[3], block[3], shmem, args_bytes;
    uint8_t args[64];
    uint32_t nallocs;
    uint64_t base[2], size[2];
    uint8_t pre[2][128], post[2][128];
    bool has_post[2];
    uint32_t npointers;
    vkrr_pointer_record ptr[3];
    uint32_t nimages;
    exp_image img[2];
} exp_launch;

typedef struct opts {
    const char *prefix;
    uint64_t first_sequence;
    bool omit_shared, log_surface_arrays, omit_log;
    const char *extra_line;
    uint32_t frames;
} opts;

static exp_launch L[MAXL];
static uint32_t NL;

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(seed * 31u + i * 7u + (i >> 3));
}

static void put64(uint8_t *args, uint32_t off, uint64_t v)
{
    memcpy(args + off, &v, 8);
}

static vkrr_sampler frame_sampler(uint32_t f)
{
    return (vkrr_sampler){.filter = (int)(f % 2),
                          .address = {(int)(f % 4), (int)((f + 1) % 4)},
                          .normalized = f % 2 == 0,
                          .read_as_integer = f == 2,
                          .from_log = true};
}

static vkrr_status record(vkrr_writer *w, exp_launch *e, const char *extra, vkrr_error *err)
{
    vkrr_alloc_record ar[2];
    for (uint32_t a = 0; a < e->nallocs; a++)
        ar[a] = (vkrr_alloc_record){e->base[a], e->size[a], e->pre[a],
                                    e->has_post[a] ? e->post[a] : NULL};
    vkrr_image_record ir[2];
    for (uint32_t i = 0; i < e->nimages; i++)
        ir[i] = (vkrr_image_record){.offset = e->img[i].offset, .kind = e->img[i].kind,
                                    .handle = e->img[i].handle, .width = e->img[i].w,
                                    .height = e->img[i].h, .channels = e->img[i].c,
                                    .format = e->img[i].fmt, .post = e->img[i].post};
    vkrr_launch_record r = {.kernel = e->kernel,
                            .grid = {e->grid[0], e->grid[1], e->grid[2]},
                            .block = {e->block[0], e->block[1], e->block[2]},
                            .shared_bytes = e->shmem,
                            .args = e->args,
                            .args_bytes = e->args_bytes,
                            .allocs = ar,
                            .nallocs = e->nallocs,
                            .pointers = e->ptr,
                            .npointers = e->npointers,
                            .images = ir,
                            .nimages = e->nimages,
                            .extra_manifest_line = extra};
    return vkrr_writer_launch(w, &r, &e->seq, err);
}

/* Per frame: kernel A (2 allocs, a texture whose handle is re-created with
 * new state every frame, a surface), then kernel B twice (two pointers into
 * one allocation, the second launch without a dump of it). */
static vkrr_status write_capture(const char *dir, const opts *o, vkrr_error *err)
{
    vkrr_writer *w = NULL;
    NL = 0;
    memset(L, 0, sizeof L);
    vkrr_status st = vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = dir,
                                                             .log_prefix = o->prefix,
                                                             .first_sequence = o->first_sequence,
                                                             .omit_shared_bytes = o->omit_shared,
                                                             .log_surface_arrays =
                                                                 o->log_surface_arrays,
                                                             .omit_log = o->omit_log},
                                      err);
    if (st)
        return st;
    static const char ptx[] = "// demo module\n.version 7.8\n";
    const char *kernels[] = {KA, KB};
    if ((st = vkrr_writer_module(w, "rrref.ptx", ptx, sizeof ptx - 1, kernels, 2, err)))
        goto fail;
    uint64_t texarr = vkrr_writer_array_create(w, 5, 3, 1, 4);
    uint64_t surfarr = vkrr_writer_array_create(w, 7, 2, 32, 1);
    uint64_t surf = vkrr_writer_surface_create(w, surfarr, 0);
    uint64_t tex = 0;
    for (uint32_t f = 0; f < o->frames; f++) {
        vkrr_sampler s = frame_sampler(f);
        tex = vkrr_writer_texture_create(w, texarr, &s, tex);
        exp_launch *a = &L[NL++];
        *a = (exp_launch){.kernel = KA, .frame = f, .occ = f, .grid = {3, 2, 1},
                          .block = {32, 4, 1}, .shmem = o->omit_shared ? 0 : 1536 + f,
                          .args_bytes = 44, .nallocs = 2,
                          .base = {0x7f0000000000ull, 0x7f0000100000ull}, .size = {37, 100},
                          .has_post = {true, true}, .npointers = 2, .nimages = 2};
        a->ptr[0] = (vkrr_pointer_record){0, 0, 0};
        a->ptr[1] = (vkrr_pointer_record){8, 1, 16};
        put64(a->args, 0, a->base[0]);
        put64(a->args, 8, a->base[1] + 16);
        put64(a->args, 16, tex);
        put64(a->args, 24, 7);
        put64(a->args, 32, surf);
        memcpy(a->args + 40, "\xef\xbe\xad\xde", 4);
        for (int k = 0; k < 2; k++) {
            pattern(a->pre[k], a->size[k], 10 * f + (unsigned)k);
            pattern(a->post[k], a->size[k], 100 + 10 * f + (unsigned)k);
        }
        a->img[0] = (exp_image){.offset = 16, .kind = VKRR_IMAGE_TEXTURE, .handle = tex,
                                .array = texarr, .w = 5, .h = 3, .c = 4, .fmt = 1, .s = s,
                                .bytes = 60};
        a->img[1] = (exp_image){.offset = 32, .kind = VKRR_IMAGE_SURFACE, .handle = surf,
                                .array = o->omit_log ? 0 : surfarr, /* without array=: tied by the log's order */
                                .w = 7, .h = 2,
                                .c = 1, .fmt = 32, .bytes = 56};
        pattern(a->img[0].post, 60, 200 + f);
        pattern(a->img[1].post, 56, 300 + f);
        if ((st = record(w, a, o->extra_line, err)))
            goto fail;
        /* Same handle, different state, after launch A: must not leak into it. */
        vkrr_sampler junk = {.filter = 1, .address = {3, 3}, .normalized = true,
                             .read_as_integer = true};
        vkrr_writer_texture_create(w, texarr, &junk, tex);
        for (uint32_t k = 0; k < 2; k++) {
            exp_launch *b = &L[NL++];
            *b = (exp_launch){.kernel = KB, .frame = f, .occ = 2 * f + k, .grid = {17, 1, 1},
                              .block = {64 + 64 * k, 1, 1}, .shmem = 0, .args_bytes = 16,
                              .nallocs = 1, .base = {0x7f0000100000ull}, .size = {100},
                              .has_post = {k == 0}, .npointers = 2};
            b->ptr[0] = (vkrr_pointer_record){0, 0, 0};
            b->ptr[1] = (vkrr_pointer_record){8, 0, 8 + k};
            put64(b->args, 0, b->base[0]);
            put64(b->args, 8, b->base[0] + 8 + k);
            pattern(b->pre[0], 100, 500 + f * 2 + k);
            pattern(b->post[0], 100, 600 + f * 2 + k);
            if ((st = record(w, b, NULL, err)))
                goto fail;
        }
    }
    return vkrr_writer_close(w, err);
fail:
    vkrr_writer_close(w, NULL);
    return st;
}

static bool same_file(const vkrr_capture *cap, vkrr_status (*map)(const vkrr_capture *,
                                                                   const vkrr_launch *, uint32_t,
                                                                   vkrr_mapfile *, vkrr_error *),
                      const vkrr_launch *l, uint32_t i, const void *want, size_t n)
{
    vkrr_mapfile m = {0};
    vkrr_error err = {0};
    if (map(cap, l, i, &m, &err) != VKRR_OK) {
        vkrr_error_print(&err, stderr);
        return false;
    }
    bool ok = m.size == n && !memcmp(m.data, want, n);
    vkrr_mapfile_close(&m);
    return ok;
}

static void check_launch(const vkrr_capture *cap, const vkrr_launch *l, const exp_launch *e,
                         const opts *o)
{
    CHECK_EQ_U64(l->sequence, e->seq);
    CHECK_STR(l->kernel, e->kernel);
    CHECK_EQ_U64(l->frame, e->frame);
    CHECK_EQ_U64(l->occurrence, e->occ);
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_U64(l->grid[k], e->grid[k]);
        CHECK_EQ_U64(l->block[k], e->block[k]);
    }
    CHECK_EQ_U64(l->shared_bytes, e->shmem);
    CHECK_EQ_U64(l->args_bytes, e->args_bytes);
    CHECK(!memcmp(l->args, e->args, e->args_bytes));
    CHECK_EQ_U64(l->nallocs, e->nallocs);
    for (uint32_t a = 0; a < l->nallocs && a < e->nallocs; a++) {
        CHECK_EQ_U64(l->allocs[a].index, a);
        CHECK_EQ_U64(l->allocs[a].base, e->base[a]);
        CHECK_EQ_U64(l->allocs[a].size, e->size[a]);
        CHECK(same_file(cap, vkrr_capture_map_alloc_pre, l, a, e->pre[a], e->size[a]));
        CHECK_EQ_U64(l->allocs[a].post_path != NULL, e->has_post[a]);
        if (e->has_post[a]) {
            CHECK(same_file(cap, vkrr_capture_map_alloc_post, l, a, e->post[a], e->size[a]));
            CHECK_EQ_U64(l->allocs[a].post_offset, e->ptr[a == 0 ? 0 : 1].offset);
        } else {
            vkrr_mapfile m = {0};
            vkrr_error err = {0};
            CHECK(vkrr_capture_map_alloc_post(cap, l, a, &m, &err) == VKRR_ERR_MISSING);
        }
    }
    CHECK_EQ_U64(l->npointers, e->npointers);
    for (uint32_t p = 0; p < l->npointers && p < e->npointers; p++) {
        CHECK_EQ_U64(l->pointers[p].offset, e->ptr[p].offset);
        CHECK_EQ_U64(l->pointers[p].alloc, e->ptr[p].alloc);
        CHECK_EQ_U64(l->pointers[p].delta, e->ptr[p].delta);
    }
    CHECK_EQ_U64(l->nimages, e->nimages);
    for (uint32_t i = 0; i < l->nimages && i < e->nimages; i++) {
        const vkrr_image *im = &l->images[i];
        const exp_image *x = &e->img[i];
        CHECK_EQ_U64(im->offset, x->offset);
        CHECK_EQ_U64(im->kind, x->kind);
        CHECK_EQ_U64(im->handle, x->handle);
        CHECK_EQ_U64(im->width, x->w);
        CHECK_EQ_U64(im->height, x->h);
        CHECK_EQ_U64(im->channels, x->c);
        CHECK_EQ_U64(im->format, x->fmt);
        CHECK(same_file(cap, vkrr_capture_map_image, l, i, x->post, x->bytes));
        if (x->kind == VKRR_IMAGE_SURFACE) {
            CHECK_EQ_U64(im->array, x->array);
            continue;
        }
        if (o->omit_log) {
            CHECK(!im->sampler.from_log);
            CHECK_EQ_U64(im->sampler.filter, VKRR_FILTER_POINT);
            CHECK_EQ_U64(im->sampler.address[0], VKRR_ADDRESS_CLAMP);
            CHECK_EQ_U64(im->sampler.address[1], VKRR_ADDRESS_CLAMP);
            CHECK(!im->sampler.normalized && !im->sampler.read_as_integer);
            CHECK_EQ_U64(im->array, 0);
        } else {
            CHECK(im->sampler.from_log);
            CHECK_EQ_U64(im->sampler.filter, x->s.filter);
            CHECK_EQ_U64(im->sampler.address[0], x->s.address[0]);
            CHECK_EQ_U64(im->sampler.address[1], x->s.address[1]);
            CHECK_EQ_U64(im->sampler.normalized, x->s.normalized);
            CHECK_EQ_U64(im->sampler.read_as_integer, x->s.read_as_integer);
            CHECK_EQ_U64(im->array, x->array);
        }
    }
}

/* The JSON object vkrr info must print for e, built here independently. */
static void expected_json(const exp_launch *e, const opts *o, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap,
                                "{\"sequence\":%llu,\"kernel\":\"%s\",\"frame\":%u,\"occurrence\":%u,"
                                "\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"shared_bytes\":%u,"
                                "\"args_bytes\":%u,\"gap_before\":0,\"allocs\":[",
                                (unsigned long long)e->seq, e->kernel, e->frame, e->occ,
                                e->grid[0], e->grid[1], e->grid[2], e->block[0], e->block[1],
                                e->block[2], e->shmem, e->args_bytes);
    for (uint32_t a = 0; a < e->nallocs; a++)
        n += (size_t)snprintf(buf + n, cap - n, "%s{\"index\":%u,\"base\":\"0x%llx\",\"size\":%llu}",
                              a ? "," : "", a, (unsigned long long)e->base[a],
                              (unsigned long long)e->size[a]);
    n += (size_t)snprintf(buf + n, cap - n, "],\"pointers\":[");
    for (uint32_t p = 0; p < e->npointers; p++)
        n += (size_t)snprintf(buf + n, cap - n, "%s{\"offset\":%u,\"alloc\":%u,\"delta\":%llu}",
                              p ? "," : "", e->ptr[p].offset, e->ptr[p].alloc,
                              (unsigned long long)e->ptr[p].delta);
    static const char *const address_names[] = {"wrap", "clamp", "mirror", "border"};
    n += (size_t)snprintf(buf + n, cap - n, "],\"images\":[");
    for (uint32_t i = 0; i < e->nimages; i++) {
        const exp_image *x = &e->img[i];
        vkrr_sampler s = x->s;
        if (x->kind == VKRR_IMAGE_SURFACE)
            s = (vkrr_sampler){0}; /* surfaces have no sampler */
        else if (o->omit_log)
            s = (vkrr_sampler){.address = {1, 1}};
        n += (size_t)snprintf(buf + n, cap - n,
                              "%s{\"offset\":%u,\"kind\":\"%s\",\"width\":%u,\"height\":%u,"
                              "\"channels\":%u,\"format\":%u,\"format_name\":\"%s\",\"filter\":\"%s\","
                              "\"address\":[%d,%d],\"address_names\":[\"%s\",\"%s\"],"
                              "\"normalized\":%s,\"read_as_integer\":%s",
                              i ? "," : "", x->offset,
                              x->kind == VKRR_IMAGE_TEXTURE ? "texture" : "surface", x->w, x->h,
                              x->c, x->fmt,
                              x->fmt == 1 ? "CU_AD_FORMAT_UNSIGNED_INT8"
                                          : x->fmt == 32 ? "CU_AD_FORMAT_FLOAT" : "?",
                              s.filter ? "linear" : "point", s.address[0], s.address[1],
                              address_names[s.address[0] & 3], address_names[s.address[1] & 3],
                              s.normalized ? "true" : "false",
                              s.read_as_integer ? "true" : "false");
        /* the array and how it is known: a texture's logged; a surface's by
         * vkrr's extension line, else the only array of its shape */
        if (x->array && !o->omit_log)
            n += (size_t)snprintf(buf + n, cap - n, ",\"array\":\"0x%llx\",\"array_link\":\"%s\"",
                                  (unsigned long long)x->array,
                                  x->kind == VKRR_IMAGE_TEXTURE || o->log_surface_arrays
                                      ? "logged" : "inferred from shape");
        if (x->kind == VKRR_IMAGE_TEXTURE) /* no surface writes its array */
            n += (size_t)snprintf(buf + n, cap - n, ",\"reads\":null");
        n += (size_t)snprintf(buf + n, cap - n, "}");
    }
    snprintf(buf + n, cap - n, "]}");
}

static void check_info_json(const char *dir, const opts *o)
{
    char args[4200], *out = NULL, *errs = NULL;
    snprintf(args, sizeof args, "info --json '%s'", dir);
    int rc = test_run_vkrr(args, &out, &errs);
    CHECK_EQ_U64(rc, 0);
    CHECK(out && !strncmp(out, "{\"schema\": \"vkrr-info\", \"schema_version\": \"1.", 45));
    CHECK(out && strstr(out, ",\"launches\":["));
    char want[4096];
    for (uint32_t i = 0; out && i < NL; i++) {
        expected_json(&L[i], o, want, sizeof want);
        if (!CHECK(strstr(out, want) != NULL))
            fprintf(stderr, "    missing in vkrr info --json output:\n    %s\n", want);
    }
    /* Exactly NL launch objects. */
    unsigned n = 0;
    for (const char *p = out; p && (p = strstr(p, "{\"sequence\":")); p++)
        n++;
    CHECK_EQ_U64(n, NL);
    free(out);
    free(errs);
    snprintf(args, sizeof args, "info '%s'", dir);
    rc = test_run_vkrr(args, &out, NULL);
    CHECK_EQ_U64(rc, 0);
    CHECK(out && strstr(out, KA) && strstr(out, KB) && strstr(out, "UNSIGNED_INT8"));
    free(out);
}

/* Writes, reads back, checks every field; returns the number of warnings. */
static unsigned round_trip(const char *name, const opts *o, const char *want_warning)
{
    char *dir = test_tmpdir(name);
    char *capdir = malloc(strlen(dir) + 8);
    sprintf(capdir, "%s/cap", dir);
    vkrr_error err = {0};
    unsigned warnings = 0;
    if (!CHECK(write_capture(capdir, o, &err) == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        goto done;
    }
    FILE *wf = tmpfile();
    vkrr_warn_set_stream(wf);
    vkrr_capture *cap = NULL;
    vkrr_status st = vkrr_capture_open(&cap, capdir, &err);
    vkrr_warn_set_stream(stderr);
    if (!CHECK(st == VKRR_OK)) {
        vkrr_error_print(&err, stderr);
        fclose(wf);
        goto done;
    }
    char wbuf[8192] = {0};
    rewind(wf);
    size_t wn = fread(wbuf, 1, sizeof wbuf - 1, wf);
    wbuf[wn] = 0;
    fclose(wf);
    if (want_warning && !CHECK(strstr(wbuf, want_warning) != NULL))
        fprintf(stderr, "    warnings were:\n%s", wbuf);
    warnings = cap->warnings;
    CHECK_EQ_U64(cap->nlaunches, NL);
    CHECK_EQ_U64(cap->nframes, o->frames);
    CHECK_EQ_U64(cap->has_log, !o->omit_log);
    CHECK_EQ_U64(cap->nmodules, 1);
    if (cap->nmodules) { /* the bridge's name, and its PTX from .version on */
        CHECK_STR(cap->modules[0].name, "dlss-module-4242-0001.ptx");
        char *text = NULL;
        size_t len = 0;
        vkrr_error e = {0};
        if (CHECK(vkrr_read_text(cap->modules[0].path, 1 << 20, &text, &len, &e) == VKRR_OK))
            CHECK_STR(text, ".version 7.8\n");
        free(text);
    }
    for (uint32_t i = 0; i < cap->nlaunches && i < NL; i++)
        check_launch(cap, &cap->launches[i], &L[i], o);
    const vkrr_launch *f = vkrr_capture_find(cap, KB, 3);
    CHECK(f && f->sequence == L[o->frames > 1 ? 5 : 0].seq);
    CHECK(vkrr_capture_find(cap, KA, o->frames) == NULL);
    vkrr_capture_close(cap);
    check_info_json(capdir, o);
done:
    if (!test_failed)
        test_rmtree(dir);
    free(capdir);
    free(dir);
    return warnings;
}

/* A kernel name with a quote and a backslash must come out escaped. */
static void json_escape_case(void)
{
    char *dir = test_tmpdir("cap_json");
    char capdir[4200];
    snprintf(capdir, sizeof capdir, "%s/cap", dir);
    vkrr_writer *w = NULL;
    vkrr_error err = {0};
    uint8_t args[8] = {1};
    CHECK(vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = capdir}, &err) == VKRR_OK);
    CHECK(vkrr_writer_launch(w, &(vkrr_launch_record){.kernel = "k\"q\\z", .grid = {1, 1, 1},
                                                      .block = {1, 1, 1}, .args = args,
                                                      .args_bytes = 8},
                             NULL, &err) == VKRR_OK);
    CHECK(vkrr_writer_close(w, &err) == VKRR_OK);
    char cmd[4300], *out = NULL;
    snprintf(cmd, sizeof cmd, "info --json '%s'", capdir);
    CHECK_EQ_U64(test_run_vkrr(cmd, &out, NULL), 0);
    CHECK(out && strstr(out, "\"kernel\":\"k\\\"q\\\\z\""));
    free(out);
    if (!test_failed)
        test_rmtree(dir);
    free(dir);
}

int main(int argc, char **argv)
{
    opts demo = {.prefix = "[d4r nvcuda] ", .first_sequence = 998, .frames = 3,
                 .log_surface_arrays = true};
    if (argc == 3 && !strcmp(argv[1], "--write-demo")) {
        vkrr_error err = {0};
        if (write_capture(argv[2], &demo, &err) != VKRR_OK) {
            vkrr_error_print(&err, stderr);
            return 2;
        }
        printf("%s\n", argv[2]);
        return 0;
    }
    /* Bridge-like: prefix, sequence numbers crossing 999, three frames,
     * a texture handle re-created with new state between launches. */
    CHECK_EQ_U64(round_trip("cap_main", &demo, NULL), 0);
    /* Older bridge, no log: no SHMEM field, an unknown line kind, defaults,
     * sequence numbers crossing 6 digits. */
    opts old = {.first_sequence = 999998, .omit_shared = true, .omit_log = true, .extra_line = "stream 0x1234 7", .frames = 2};
    CHECK(round_trip("cap_old", &old, "manifest.txt:4: skipping unknown manifest line kind 'stream'") >
          0);
    /* Real-bridge log: no array= on surface lines, no prefix. */
    opts real = {.first_sequence = 1, .frames = 2};
    CHECK_EQ_U64(round_trip("cap_real", &real, NULL), 0);
    json_escape_case();
    return test_finish("capture");
}
