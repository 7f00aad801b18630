/* record.c - one launch of a PTX kernel recorded as a capture (record.h). */
#include "record.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends.h"
#include "capture_write.h"
#include "cuformat.h"
#include "fpformat.h"
#include "mapfile.h"
#include "ptx.h"
#include "ptx_params.h"
#include "synth_internal.h"

#define MAX_ARGS 64
#define MAX_ELEMS (256ull << 20) /* elements of one buffer */

typedef enum { SPEC_IN, SPEC_OUT, SPEC_INOUT, SPEC_SCALAR } spec_kind;

typedef struct spec {
    spec_kind kind;
    vkrr_dtype type;     /* buffers */
    uint64_t count;
    uint8_t value[8];    /* scalars */
    uint32_t bytes;      /* what it takes in the parameter block */
} spec;

static vkrr_status spec_fail(vkrr_error *err, uint32_t i, const char *text, const char *why)
{
    return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "argument %u '%s': %s", i + 1, text, why);
}

static vkrr_status parse_spec(const char *text, uint32_t i, spec *s, vkrr_error *err)
{
    memset(s, 0, sizeof *s);
    char kind[16], rest[128];
    const char *colon = strchr(text, ':');
    if (!colon || (size_t)(colon - text) >= sizeof kind || strlen(colon + 1) >= sizeof rest)
        return spec_fail(err, i, text, "expected in:TYPE:COUNT, out:TYPE:COUNT, inout:TYPE:COUNT or "
                                       "u32:V, s32:V, u64:V, s64:V, f32:V, f64:V");
    snprintf(kind, sizeof kind, "%.*s", (int)(colon - text), text);
    snprintf(rest, sizeof rest, "%s", colon + 1);
    char *end = NULL;
    errno = 0;
    if (!strcmp(kind, "in") || !strcmp(kind, "out") || !strcmp(kind, "inout")) {
        char *c2 = strchr(rest, ':');
        if (!c2)
            return spec_fail(err, i, text, "a buffer is KIND:TYPE:COUNT");
        *c2 = 0;
        if (!vkrr_dtype_parse(rest, &s->type) || s->type == VKRR_DT_BYTES)
            return spec_fail(err, i, text, "unknown element type (f32 f16 bf16 e4m3 e5m2 u8 s8 u16 s16 u32 s32)");
        unsigned long long n = strtoull(c2 + 1, &end, 10);
        if (errno || *end || c2[1] == '-' || n == 0 || n > MAX_ELEMS)
            return spec_fail(err, i, text, "the count is a number of elements, 1 .. 2^28");
        s->kind = !strcmp(kind, "in") ? SPEC_IN : !strcmp(kind, "out") ? SPEC_OUT : SPEC_INOUT;
        s->count = n;
        s->bytes = 8;
        return VKRR_OK;
    }
    s->kind = SPEC_SCALAR;
    if (!strcmp(kind, "u32") || !strcmp(kind, "s32") || !strcmp(kind, "u64") || !strcmp(kind, "s64")) {
        bool sign = kind[0] == 's', wide = kind[1] == '6';
        long long v = sign ? strtoll(rest, &end, 0) : 0;
        unsigned long long u = sign ? (unsigned long long)v : strtoull(rest, &end, 0);
        if (errno || *end || !rest[0] || (!sign && rest[0] == '-') ||
            (!wide && (sign ? (v < INT32_MIN || v > INT32_MAX) : u > UINT32_MAX)))
            return spec_fail(err, i, text, "not an integer of that type");
        s->bytes = wide ? 8 : 4;
        for (uint32_t k = 0; k < s->bytes; k++)
            s->value[k] = (uint8_t)(u >> (8 * k));
        return VKRR_OK;
    }
    if (!strcmp(kind, "f32") || !strcmp(kind, "f64")) {
        double v = strtod(rest, &end);
        if (errno == ERANGE || *end || !rest[0])
            return spec_fail(err, i, text, "not a number");
        if (kind[1] == '3') {
            float f = (float)v;
            memcpy(s->value, &f, 4);
            s->bytes = 4;
        } else {
            memcpy(s->value, &v, 8);
            s->bytes = 8;
        }
        return VKRR_OK;
    }
    return spec_fail(err, i, text, "unknown kind (in, out, inout, u32, s32, u64, s64, f32, f64)");
}

vkrr_status vkrr_record_spec_bytes(const char *text, uint32_t *bytes, vkrr_error *err)
{
    spec s;
    vkrr_status st = parse_spec(text, 0, &s, err);
    *bytes = st == VKRR_OK ? s.bytes : 0;
    return st;
}

static uint64_t next(uint64_t *x) /* splitmix64 */
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An input's values: floats on a grid in [-4, 4) (exact in every float
 * type), integers all bits. */
static void fill(uint8_t *p, vkrr_dtype t, uint64_t count, uint64_t *rng)
{
    unsigned es = vkrr_dtype_size(t);
    for (uint64_t i = 0; i < count; i++, p += es) {
        uint64_t r = next(rng);
        float f = (float)((int64_t)(r % 1024) - 512) / 128.0f;
        uint32_t bits;
        switch (t) {
        case VKRR_DT_F32: memcpy(p, &f, 4); break;
        case VKRR_DT_F16: bits = vkrr_f32_to_f16_rne(f); memcpy(p, &bits, 2); break;
        case VKRR_DT_BF16: bits = vkrr_f32_to_bf16_rne(f); memcpy(p, &bits, 2); break;
        case VKRR_DT_E4M3: p[0] = vkrr_f32_to_e4m3_satfinite(f); break;
        case VKRR_DT_E5M2: p[0] = (uint8_t)(vkrr_f32_to_f16_rne(f) >> 8); break; /* f16 cut to its top byte */
        default: memcpy(p, &r, es); break;
        }
    }
}

vkrr_status vkrr_record_run(const vkrr_record_desc *d, char *engine, size_t engine_cap,
                            vkrr_error *err)
{
    if (engine && engine_cap)
        engine[0] = 0;
    if (!d->dir || !d->ptx || !d->kernel)
        return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "record: a capture folder, a PTX file and a kernel");
    if (d->nargs > MAX_ARGS)
        return vkrr_fail(err, VKRR_ERR_USAGE, NULL, 0, -1, "record: at most %d arguments", MAX_ARGS);
    if (strlen(d->dir) > 3000)
        return vkrr_fail(err, VKRR_ERR_USAGE, d->dir, 0, -1, "output path too long");
    vkrr_synth_dir_state ds = vkrr_synth_probe_dir(d->dir);
    if ((ds == DIR_FULL || ds == DIR_NOT_DIR) && !d->force)
        return vkrr_fail(err, VKRR_ERR_USAGE, d->dir, 0, -1,
                         "exists and is not an empty directory (use --force to replace it)");
    /* the kernel's parameters, and the specs against them */
    char *text = NULL;
    size_t len = 0;
    vkrr_status st = vkrr_read_text(d->ptx, 64u << 20, &text, &len, err);
    if (st != VKRR_OK)
        return st;
    vkrr_ptx_module *m = NULL;
    st = vkrr_ptx_module_load(&m, text, len, d->ptx, err);
    vkrr_ptx_param_decl decl[MAX_ARGS];
    bool found = false;
    uint32_t np = st == VKRR_OK ? vkrr_ptx_entry_params(m, d->kernel, decl, MAX_ARGS, &found) : 0;
    vkrr_ptx_module_free(m);
    if (st == VKRR_OK && !found)
        st = vkrr_fail(err, VKRR_ERR_USAGE, d->ptx, 0, -1, "no .entry %s in it", d->kernel);
    if (st == VKRR_OK && np != d->nargs)
        st = vkrr_fail(err, VKRR_ERR_USAGE, d->ptx, 0, -1,
                       "%s takes %u parameters; %u --arg given (one per .param, in order)", d->kernel,
                       np, d->nargs);
    spec sp[MAX_ARGS];
    uint32_t args_bytes = 0;
    for (uint32_t i = 0; st == VKRR_OK && i < d->nargs; i++) {
        st = parse_spec(d->args[i], i, &sp[i], err);
        if (st == VKRR_OK && sp[i].bytes != decl[i].size)
            st = spec_fail(err, i, d->args[i], sp[i].kind == SPEC_SCALAR
                                                   ? "its size is not the .param's"
                                                   : "a pointer is 8 bytes; the .param is not");
        if (st == VKRR_OK && decl[i].offset + decl[i].size > args_bytes)
            args_bytes = decl[i].offset + decl[i].size;
    }
    /* the inputs, the parameter block, the launch */
    uint8_t args[4096] = {0};
    vkrr_replay_alloc al[MAX_ARGS] = {{0}};
    vkrr_pointer ptr[MAX_ARGS];
    vkrr_alloc_record ar[MAX_ARGS];
    vkrr_pointer_record pr[MAX_ARGS];
    uint32_t na = 0;
    uint64_t rng = d->seed ? d->seed : 1;
    for (uint32_t i = 0; st == VKRR_OK && i < d->nargs; i++) {
        if (sp[i].kind == SPEC_SCALAR) {
            memcpy(args + decl[i].offset, sp[i].value, sp[i].bytes);
            continue;
        }
        uint64_t bytes = sp[i].count * vkrr_dtype_size(sp[i].type);
        uint64_t base = 0x7f1000000000ull + ((uint64_t)na << 32);
        void *pre = calloc(1, bytes), *post = calloc(1, bytes);
        al[na] = (vkrr_replay_alloc){base, bytes, pre, post, NULL};
        if (!pre || !post) {
            st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "record: %" PRIu64 " bytes", bytes);
            na++;
            break;
        }
        if (sp[i].kind != SPEC_OUT)
            fill(pre, sp[i].type, sp[i].count, &rng);
        memcpy(args + decl[i].offset, &base, 8);
        ptr[na] = (vkrr_pointer){decl[i].offset, na, 0};
        pr[na] = (vkrr_pointer_record){decl[i].offset, na, 0};
        ar[na] = (vkrr_alloc_record){base, bytes, pre, post};
        na++;
    }
    vkrr_backend be = {0};
    if (st == VKRR_OK)
        st = vkrr_backend_open(&(vkrr_backend_desc){.name = "ptx", .modules = d->ptx}, &be, err);
    vkrr_replay r = {d->kernel, {d->grid[0], d->grid[1], d->grid[2]},
                     {d->block[0], d->block[1], d->block[2]}, 0, args, args_bytes, al, na, ptr, na,
                     NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL};
    if (st == VKRR_OK)
        st = be.run(be.self, &r, err);
    if (engine && engine_cap && r.engine) /* the backend's words: copied before it closes */
        snprintf(engine, engine_cap, "%s", r.engine);
    /* written whole into DIR.tmp-PID, then put in place */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", d->dir, (long)getpid());
    vkrr_synth_rmtree(tmp);
    vkrr_writer *w = NULL;
    if (st == VKRR_OK)
        st = vkrr_writer_open(&w, &(vkrr_writer_desc){.dir = tmp, .log_prefix = "[d4r nvcuda] ", .logged_dir = d->dir}, err);
    if (st == VKRR_OK) {
        vkrr_synth_log_device(w, &be);
        const char *slash = strrchr(d->ptx, '/'), *name = slash ? slash + 1 : d->ptx;
        st = vkrr_writer_module(w, name, text, len, &d->kernel, 1, err);
    }
    vkrr_launch_record rec = {d->kernel, {d->grid[0], d->grid[1], d->grid[2]},
                              {d->block[0], d->block[1], d->block[2]}, 0, args, args_bytes,
                              ar, na, pr, na, NULL, 0, NULL};
    if (st == VKRR_OK)
        st = vkrr_writer_launch(w, &rec, NULL, err);
    if (w) {
        vkrr_status cs = vkrr_writer_close(w, err);
        st = st == VKRR_OK ? cs : st;
    }
    if (st == VKRR_OK)
        st = vkrr_synth_install(tmp, d->dir, err);
    if (st != VKRR_OK)
        vkrr_synth_rmtree(tmp);
    if (be.destroy)
        be.destroy(be.self);
    for (uint32_t i = 0; i < na; i++) {
        free((void *)al[i].pre);
        free(al[i].post);
    }
    free(text);
    return st;
}
