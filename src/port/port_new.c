/* port_new.c - a port's starting point from one captured launch (port_new.h). */
#include "port_new.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuformat.h"
#include "ptx_params.h"

/* What the capture shows one allocation's launch did. */
typedef struct pn_alloc {
    bool changed;
    uint64_t start, end;  /* changed bytes, widened to whole elements: [start, end) */
    vkrr_dtype dtype;     /* guessed from them, or read off the PTX (why says) */
    int owner;            /* index into l->pointers: the window's argument */
    char why[320];        /* the PTX that settles dtype: "st.global.u16 after cvt...: e4m3" */
    bool settled;         /* the PTX settles the type (no GUESS) */
} pn_alloc;

/* The kernel's PTX, when the capture holds its module: how it uses each parameter. */
#define PN_MAX_PARAMS 256
typedef struct pn_ptx {
    bool have;
    char module[256];     /* the module's file name */
    vkrr_ptx_param_use u[PN_MAX_PARAMS];
    uint32_t n;
} pn_ptx;

static void ptx_of(const vkrr_capture *cap, const vkrr_launch *l, pn_ptx *px)
{
    px->have = false;
    for (uint32_t i = 0; i < cap->nmodules && !px->have; i++) {
        const char *name = cap->modules[i].name;
        size_t n = strlen(name);
        if (n < 4 || strcmp(name + n - 4, ".ptx"))
            continue;
        vkrr_ptx_module *m = NULL;
        vkrr_error e = {0};
        if (vkrr_ptx_module_load_file_keep(&m, cap->modules[i].path, &e) == VKRR_OK &&
            vkrr_ptx_module_has_entry(m, l->kernel) &&
            vkrr_ptx_param_uses(m, l->kernel, px->u, PN_MAX_PARAMS, &px->n, &e) == VKRR_OK) {
            px->have = true;
            if (px->n > PN_MAX_PARAMS)
                px->n = PN_MAX_PARAMS;
            snprintf(px->module, sizeof px->module, "%s", name);
        }
        vkrr_ptx_module_free(m);
    }
}

static const vkrr_ptx_param_use *use_at(const pn_ptx *px, uint32_t off)
{
    for (uint32_t i = 0; px->have && i < px->n; i++)
        if (px->u[i].offset == off)
            return &px->u[i];
    return NULL;
}

/* The element type an access reads or writes, from its type and the
 * conversion around it; *settled false when the PTX leaves it open (bits
 * moved without a conversion that names a format), alt then says what else
 * it could be. */
vkrr_dtype vkrr_port_access_dtype(const vkrr_ptx_access *a, bool *settled, const char **alt)
{
    const char *e = a->elem, *c = a->cvt;
    *settled = true;
    *alt = "";
    if (strstr(c, "e4m3"))
        return VKRR_DT_E4M3;
    if (strstr(c, "e5m2"))
        return VKRR_DT_E5M2;
    if (!strcmp(e, "f32"))
        return VKRR_DT_F32;
    if (!strncmp(e, "f16", 3))
        return VKRR_DT_F16;
    if (!strncmp(e, "bf16", 4))
        return VKRR_DT_BF16;
    if (!strcmp(e, "s32"))
        return VKRR_DT_S32;
    if (!strcmp(e, "u32"))
        return VKRR_DT_U32;
    if (!strcmp(e, "s16"))
        return VKRR_DT_S16;
    if (!strcmp(e, "u16"))
        return strstr(c, ".bf16") ? VKRR_DT_BF16 : strstr(c, ".f16") ? VKRR_DT_F16 : VKRR_DT_U16;
    if (!strcmp(e, "s8") || !strcmp(e, "u8") || !strcmp(e, "b8")) {
        /* bytes: an fp8 encoded or decoded in software looks just like u8 */
        *settled = false, *alt = "s8, or e4m3/e5m2 coded without a cvt";
        return VKRR_DT_U8;
    }
    if (!strcmp(e, "b16")) {
        if (strstr(c, ".bf16"))
            return VKRR_DT_BF16;
        if (strstr(c, ".f16"))
            return VKRR_DT_F16;
        *settled = false, *alt = "bf16 or u16";
        return VKRR_DT_F16;
    }
    if (!strcmp(e, "b32")) {
        if (strstr(c, ".f32"))
            return VKRR_DT_F32;
        *settled = false, *alt = "u32, s32 or f16x2";
        return VKRR_DT_F32;
    }
    *settled = false, *alt = "bytes";
    return VKRR_DT_BYTES;
}

/* "st.global.u16 (PTX line 88) after cvt.rn.satfinite.e4m3x2.f32 (line 86)" */
static void access_text(const vkrr_ptx_access *a, const char *verb, char *out, size_t cap)
{
    int n = a->cvt[0] ? snprintf(out, cap, "%s (PTX line %u) %s %s (line %u)", a->op, a->line, verb,
                                 a->cvt, a->cvt_line)
                      : snprintf(out, cap, "%s (PTX line %u)", a->op, a->line);
    (void)n; /* a cut description is still a description */
}

static uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Spread (standard deviation) of the f16 exponents of the nonzero halves at
 * p, p + 4, p + 8, ... (one of the two halves of each word). */
static double exp_spread(const uint8_t *p, uint64_t words)
{
    double n = 0, sum = 0, sq = 0;
    for (uint64_t i = 0; i < words; i++) {
        uint32_t h = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8, e = (h >> 10) & 0x1fu;
        if (h & 0x7fffu)
            n++, sum += e, sq += (double)e * e;
    }
    return n ? sq / n - (sum / n) * (sum / n) : 0;
}

/* A look at n bytes (p 4-aligned in its allocation): u32, f32, f16 or bytes.
 * Real data of a type is nearly all plausible in it and its f16 exponents
 * cluster, while the low halves of f32 words are mantissa noise as f16
 * (exponents spread evenly over 0..31: a variance near 85, not under 36). */
static vkrr_dtype guess_type(const uint8_t *p, uint64_t n)
{
    uint64_t words = n / 4, halves = n / 2;
    uint64_t small = 0, nonzero = 0, f32p = 0, lowzero = 0, finite16 = 0;
    for (uint64_t i = 0; i < words; i++) {
        uint32_t w = ld32(p + 4 * i), e = (w >> 23) & 0xffu;
        nonzero += w != 0;
        small += w != 0 && w <= 0xfffffu;
        f32p += (w & 0x7fffffffu) == 0 || (e >= 87 && e <= 167);
        lowzero += (w & 0xffffu) == 0 && (w & 0x7fff0000u) != 0;
    }
    for (uint64_t i = 0; i < halves; i++)
        finite16 += ((p[2 * i + 1] >> 2) & 0x1fu) != 0x1fu;
    if (small && small + (words - nonzero) >= words * 98 / 100)
        return VKRR_DT_U32;
    if (words && f32p >= words * 98 / 100 && lowzero * 2 >= words)
        return VKRR_DT_F32;
    if (halves && finite16 >= halves * 99 / 100 && exp_spread(p, words) < 36 &&
        exp_spread(p + 2, words) < 36)
        return VKRR_DT_F16;
    if (words && f32p >= words * 98 / 100)
        return VKRR_DT_F32;
    return VKRR_DT_BYTES;
}

static bool is_handle_or_pointer(const vkrr_launch *l, uint32_t off, const char **kind, uint32_t *index)
{
    for (uint32_t i = 0; i < l->npointers; i++)
        if (l->pointers[i].offset == off) {
            *kind = "pointer";
            *index = i;
            return true;
        }
    for (uint32_t i = 0; i < l->nimages; i++)
        if (l->images[i].offset == off) {
            *kind = l->images[i].kind == VKRR_IMAGE_SURFACE ? "surface" : "texture";
            *index = i;
            return true;
        }
    return false;
}

/* Does the 4-byte word at off overlap a pointer or handle word? */
static bool overlaps_word(const vkrr_launch *l, uint32_t off)
{
    for (uint32_t i = 0; i < l->npointers; i++)
        if (off + 4 > l->pointers[i].offset && off < l->pointers[i].offset + 8)
            return true;
    for (uint32_t i = 0; i < l->nimages; i++)
        if (off + 4 > l->images[i].offset && off < l->images[i].offset + 8)
            return true;
    return false;
}

static vkrr_status look_at(const vkrr_capture *cap, const vkrr_launch *l, uint32_t a, pn_alloc *r,
                           vkrr_error *err)
{
    memset(r, 0, sizeof *r);
    r->owner = -1;
    if (!l->allocs[a].post_path)
        return VKRR_OK;
    vkrr_mapfile pre = {0}, post = {0};
    vkrr_status st = vkrr_capture_map_alloc_pre(cap, l, a, &pre, err);
    if (st == VKRR_OK)
        st = vkrr_capture_map_alloc_post(cap, l, a, &post, err);
    uint64_t size = l->allocs[a].size, first = size, last = 0;
    for (uint64_t i = 0; st == VKRR_OK && i < size; i++)
        if (pre.data[i] != post.data[i]) {
            if (first == size)
                first = i;
            last = i;
        }
    if (st == VKRR_OK && first < size) {
        uint64_t g0 = first & ~(uint64_t)3, g1 = (last + 4) & ~(uint64_t)3;
        if (g1 > size)
            g1 = size;
        r->dtype = guess_type(post.data + g0, g1 - g0);
        uint64_t es = vkrr_dtype_size(r->dtype);
        r->start = first / es * es;
        r->end = (last / es + 1) * es;
        if (r->end > size) { /* an allocation that ends mid-element: bytes */
            r->dtype = VKRR_DT_BYTES;
            r->start = first;
            r->end = last + 1;
        }
        r->changed = true;
        /* the pointer nearest below the change names the window */
        for (uint32_t p = 0; p < l->npointers; p++) {
            const vkrr_pointer *pt = &l->pointers[p];
            if (pt->alloc != a)
                continue;
            const vkrr_pointer *o = r->owner >= 0 ? &l->pointers[r->owner] : NULL;
            bool below = pt->delta <= r->start, obelow = o && o->delta <= r->start;
            if (!o || (below && (!obelow || pt->delta > o->delta)) ||
                (!below && !obelow && pt->delta < o->delta))
                r->owner = (int)p;
        }
    }
    vkrr_mapfile_close(&pre);
    vkrr_mapfile_close(&post);
    return st;
}

/* An output's type from the PTX's stores through its pointer: the window
 * widened to whole elements of it. */
static void retype(const vkrr_launch *l, pn_alloc *r, const pn_ptx *px)
{
    if (!r->changed || r->owner < 0)
        return;
    const vkrr_ptx_param_use *u = use_at(px, l->pointers[r->owner].offset);
    const vkrr_ptx_access *a = u && u->store.count ? &u->store : u && u->atomic.count ? &u->atomic : NULL;
    if (!a)
        return;
    const char *alt;
    bool settled;
    vkrr_dtype t = vkrr_port_access_dtype(a, &settled, &alt);
    char how[200];
    access_text(a, "after", how, sizeof how);
    if (settled)
        snprintf(r->why, sizeof r->why, "%s: %s", how, vkrr_dtype_name(t));
    else
        snprintf(r->why, sizeof r->why, "%s names no format: %s, or %s", how, vkrr_dtype_name(t), alt);
    r->settled = settled;
    uint64_t es = vkrr_dtype_size(t), size = l->allocs[l->pointers[r->owner].alloc].size;
    uint64_t start = r->start / es * es, end = (r->end + es - 1) / es * es;
    if (end <= size) {
        r->dtype = t;
        r->start = start;
        r->end = end;
    }
}

/* A pair of parameter words W, H (W at a lower offset, adjacent ones first)
 * with n % (W*H) == 0: the window's likely shape. */
static bool guess_shape(const vkrr_launch *l, uint64_t n, uint32_t *wo, uint32_t *ho, uint64_t *planes)
{
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t a = 0; a + 4 <= l->args_bytes; a += 4)
            for (uint32_t b = a + 4; b + 4 <= l->args_bytes; b += 4) {
                if ((pass == 0) != (b == a + 4) || overlaps_word(l, a) || overlaps_word(l, b))
                    continue;
                uint64_t w = ld32(l->args + a), h = ld32(l->args + b);
                if (w < 2 || h < 2 || w > 65536 || h > 65536 || n % (w * h) || n / (w * h) > 4096)
                    continue;
                *wo = a, *ho = b, *planes = n / (w * h);
                return true;
            }
    return false;
}

static const char *ptr_type(vkrr_dtype t)
{
    switch (t) {
    case VKRR_DT_F16: case VKRR_DT_BF16: case VKRR_DT_U16: case VKRR_DT_S16:
    case VKRR_DT_UNORM16: case VKRR_DT_SNORM16: return "VkrrF16Ptr";
    case VKRR_DT_F32: return "VkrrF32Ptr";
    case VKRR_DT_U32: return "VkrrU32Ptr";
    case VKRR_DT_S32: return "VkrrI32Ptr";
    case VKRR_DT_E4M3: return "VkrrE4m3Ptr";
    default: return "VkrrU8Ptr";
    }
}

/* cuda.glsl's load (or store) of an element of the pointer type of t. */
static const char *accessor(vkrr_dtype t, bool load)
{
    switch (t) {
    case VKRR_DT_F32: return load ? "vkrr_ld_f" : "vkrr_st_f";
    case VKRR_DT_F16: case VKRR_DT_BF16: case VKRR_DT_U16: case VKRR_DT_S16:
    case VKRR_DT_UNORM16: case VKRR_DT_SNORM16: return load ? "vkrr_ld_h" : "vkrr_st_h";
    case VKRR_DT_E4M3: return load ? "vkrr_ld_e4m3" : "vkrr_st_e4m3";
    case VKRR_DT_U32: case VKRR_DT_S32: return NULL; /* .v[i] itself */
    default: return load ? "vkrr_ld_u8" : "vkrr_st_u8";
    }
}

static const char *cuformat_name(uint32_t code)
{
    const vkrr_cuformat_info *fi = vkrr_cuformat_find(code);
    return fi ? fi->name : "?";
}

static void port_lines(FILE *f, const vkrr_launch *l, const pn_alloc *pa, vkrr_port_skeleton *sk)
{
    for (uint32_t a = 0; a < l->nallocs; a++) {
        const pn_alloc *r = &pa[a];
        if (!r->changed || r->owner < 0)
            continue;
        const vkrr_pointer *pt = &l->pointers[r->owner];
        uint64_t es = vkrr_dtype_size(r->dtype), n = (r->end - r->start) / es;
        long long off = (long long)r->start - (long long)pt->delta;
        fprintf(f, "output arg%u %s", pt->offset, vkrr_dtype_name(r->dtype));
        if (off)
            fprintf(f, " offset=%lld", off);
        uint32_t wo, ho;
        uint64_t planes;
        bool shape = guess_shape(l, n, &wo, &ho, &planes);
        if (shape) {
            fprintf(f, " width=u32@%u height=u32@%u", wo, ho);
            if (planes > 1)
                fprintf(f, " planes=%llu", (unsigned long long)planes);
        } else {
            /* a parameter word equal to the count: the kernel's n */
            uint32_t at = UINT32_MAX;
            for (uint32_t a = 0; a + 4 <= l->args_bytes && at == UINT32_MAX; a += 4)
                if (!overlaps_word(l, a) && ld32(l->args + a) == n && n > 1)
                    at = a;
            if (at != UINT32_MAX)
                fprintf(f, " width=u32@%u", at);
            else
                fprintf(f, " width=%llu", (unsigned long long)n);
        }
        fputc('\n', f);
        if (r->why[0])
            fprintf(f, "    # %s: %s\n", r->settled ? "the type, from the PTX" : "GUESS: the type",
                    r->why);
        if (!r->settled && !r->why[0])
            fprintf(f, "    # GUESS: %s%s from the %llu bytes the launch changed (bytes %llu..%llu "
                       "of allocation %u,\n    # 0x%llx, %llu bytes): check the type and shape "
                       "against the kernel's source\n",
                    vkrr_dtype_name(r->dtype), shape ? " and the shape" : "",
                    (unsigned long long)(r->end - r->start), (unsigned long long)r->start,
                    (unsigned long long)r->end - 1, a, (unsigned long long)l->allocs[a].base,
                    (unsigned long long)l->allocs[a].size);
        else
            fprintf(f, "    # GUESS: the %s, from the bytes the launch changed (%llu..%llu of "
                       "allocation %u): check it against the kernel's source\n",
                    shape ? "shape" : "width", (unsigned long long)r->start,
                    (unsigned long long)r->end - 1, a);
        sk->outputs++;
        sk->guessed += !r->settled;
    }
    for (uint32_t i = 0; i < l->nimages; i++) {
        const vkrr_image *im = &l->images[i];
        if (im->kind != VKRR_IMAGE_SURFACE)
            continue;
        fprintf(f, "output arg%u %s    # surface: %s x%u, %ux%u (the shape is its array's)\n",
                im->offset, vkrr_dtype_name(vkrr_cuformat_dtype(im->format, false)),
                cuformat_name(im->format), im->channels, im->width, im->height);
        sk->outputs++;
    }
}

static void word_comment(FILE *f, uint32_t v)
{
    float x;
    memcpy(&x, &v, sizeof x);
    uint32_t e = (v >> 23) & 0xffu;
    fprintf(f, "    // = %u (0x%08x)", v, v);
    if (v > 0xfffffu && e >= 100 && e <= 154)
        fprintf(f, ", as f32 %g", x);
    fputc('\n', f);
}

/* surface.glsl's writer for a surface's format. */
static const char *surface_writer(const vkrr_image *im)
{
    unsigned tb = vkrr_cuformat_texel_bytes(im->format, im->channels);
    if (im->format == 16)
        return im->channels == 4 ? "vkrr_surf2d_write_h4" : im->channels == 2 ? "vkrr_surf2d_write_h2"
                                                                              : "vkrr_surf2d_write_h1";
    if (im->format == 32 && (im->channels == 1 || im->channels == 4))
        return im->channels == 4 ? "vkrr_surf2d_write_f4" : "vkrr_surf2d_write_f1";
    return tb == 1 ? "vkrr_surf2d_write_u8" : "VKRR_SURF_STORE_ (bindings 4..8 by texel size)";
}

/* A pointer member typed from the PTX: how the kernel uses it, in a comment. */
static void ptx_pointer_member(FILE *f, uint32_t off, const vkrr_ptx_param_use *u, const char *where)
{
    const vkrr_ptx_access *a = u->store.count ? &u->store : u->atomic.count ? &u->atomic : &u->load;
    const char *alt;
    bool settled;
    vkrr_dtype t = vkrr_port_access_dtype(a, &settled, &alt);
    bool rd = u->load.count, wr = u->store.count || u->atomic.count;
    fprintf(f, "    %s arg%u;%*s// pointer: %s; %s%s\n", ptr_type(t), off,
            off < 10 ? 2 : off < 100 ? 1 : 0, "", where,
            rd && wr ? "read and written" : wr ? "written only" : "read only",
            settled ? "" : " (type: see below)");
    char how[200];
    if (rd) {
        access_text(&u->load, "then", how, sizeof how);
        fprintf(f, "        // read: %s\n", how);
    }
    if (u->store.count) {
        access_text(&u->store, "after", how, sizeof how);
        fprintf(f, "        // written: %s\n", how);
    }
    if (u->atomic.count)
        fprintf(f, "        // atomics: %s (PTX line %u)\n", u->atomic.op, u->atomic.line);
    if (!settled)
        fprintf(f, "        // the PTX moves %s bits without naming a format: %s, or %s\n", a->elem,
                vkrr_dtype_name(t), alt);
}

static void comp_member(FILE *f, const vkrr_launch *l, const pn_alloc *pa, const pn_ptx *px,
                        uint32_t off, const char *kind, uint32_t idx)
{
    const vkrr_ptx_param_use *u = use_at(px, off);
    if (u && !u->used) {
        fprintf(f, "    uint64_t arg%u;  // unused: the kernel's PTX never reads this argument\n", off);
        return;
    }
    if (!strcmp(kind, "pointer")) {
        const vkrr_pointer *pt = &l->pointers[idx];
        const pn_alloc *r = &pa[pt->alloc];
        bool out = r->changed && r->owner == (int)idx;
        char where[160];
        snprintf(where, sizeof where, "allocation %u (0x%llx, %llu bytes) + %llu", pt->alloc,
                 (unsigned long long)l->allocs[pt->alloc].base,
                 (unsigned long long)l->allocs[pt->alloc].size, (unsigned long long)pt->delta);
        if (u && u->address) {
            ptx_pointer_member(f, off, u, where);
            return;
        }
        fprintf(f, "    %s arg%u;%*s// pointer: %s; %s\n",
                out ? ptr_type(r->dtype) : "VkrrU8Ptr", off, off < 10 ? 2 : off < 100 ? 1 : 0, "",
                where,
                u ? "the PTX loads it but never addresses memory with it here (passed on?)"
                  : out ? "written (an output: see the .port)"
                  : r->changed ? "in an allocation the launch wrote through another argument"
                               : "read (the launch left it unchanged): retype it");
        return;
    }
    const vkrr_image *im = &l->images[idx];
    fprintf(f, "    uint64_t arg%u;   // %s: %s x%u, %ux%u; ", off, kind, cuformat_name(im->format),
            im->channels, im->width, im->height);
    if (!vkrr_geometry_is_2d(&im->geometry)) /* no port can bind it (vklaunch.c) */
        fprintf(f, "a %s array (its %u planes stacked as rows): the Vulkan replay\n"
                   "        // binds 2D images only, so validate reports this launch as an error; "
                   "`vkrr rerun\n        // --backend ptx` runs it; ",
                vkrr_geometry_name(&im->geometry), vkrr_geometry_planes(&im->geometry));
    static const char *const mode[] = {"VKRR_WRAP", "VKRR_CLAMP", "VKRR_MIRROR", "VKRR_BORDER"};
    if (im->kind == VKRR_IMAGE_TEXTURE)
    {
        char state[160];
        if (im->sampler.from_log)
            snprintf(state, sizeof state, "%s filter, %s coordinates, address %s x %s",
                     im->sampler.filter == VKRR_FILTER_LINEAR ? "linear" : "point",
                     im->sampler.normalized ? "normalized" : "unnormalized",
                     mode[im->sampler.address[0] & 3], mode[im->sampler.address[1] & 3]);
        else
            snprintf(state, sizeof state, "sampler state not in the log (validate finds it by "
                     "running the original)");
        fprintf(f, "%s, read as %s;\n"
                   "        // read with tex.glsl, which takes that state from vkrr (never write it\n"
                   "        // into the port), e.g. vkrr_tex2d(vkrr_handle(vkrr_p.arg%u), x, y)%s\n",
                state, im->sampler.read_as_integer ? "integer" : "normalized float", off,
                im->sampler.read_as_integer ? " (read as integer: vkrr_utex/vkrr_itex tables)" : "");
    }
    else
        fprintf(f, "write exact bits with surface.glsl (x in bytes),\n        // e.g. %s(vkrr_surf_handle(vkrr_p.arg%u), v, x * %u, y)\n",
                surface_writer(im), off, vkrr_cuformat_texel_bytes(im->format, im->channels));
    if (im->kind == VKRR_IMAGE_TEXTURE && !im->sampler.read_as_integer &&
        (im->format == 1 || im->format == 8)) /* UNSIGNED_INT8, SIGNED_INT8 read normalized */
        fprintf(f, "        // 8-bit normalized: pass each fetched channel through %s (tex.glsl: CUDA's\n"
                   "        // %s, not the driver's conversion)\n",
                im->format == 1 ? "vkrr_unorm8()" : "vkrr_snorm8()",
                im->format == 1 ? "code/255" : "max(code/127, -1)");
    if (u && u->image_op[0])
        fprintf(f, "        // the PTX: %s (line %u)\n", u->image_op, u->image_line);
}

static void comp_text(FILE *f, const vkrr_capture *cap, const vkrr_launch *l, const pn_alloc *pa,
                      const pn_ptx *px, const char *how)
{
    bool tex = false, surf = false;
    for (uint32_t i = 0; i < l->nimages; i++) {
        surf = surf || l->images[i].kind == VKRR_IMAGE_SURFACE;
        tex = tex || l->images[i].kind == VKRR_IMAGE_TEXTURE;
    }
    fprintf(f, "#version 460\n"
               "// Port of %s: a starting point written by\n//   %s\n"
               "// from launch #%llu (frame %u, occurrence %u) of %s.\n"
               "// Grid %u x %u x %u; block %u x %u x %u, which is the local size (vkbridge sets it\n"
               "// from the captured block through specialization constants 0..2, see\n"
               "// bindings.glsl); %u bytes of dynamic shared memory (declare shared arrays\n"
               "// yourself).  What the launch writes is in %s.port beside this file.\n"
               "// Until main() writes it, every output fails:\n"
               "//   vkrr validate %s --ports DIR --only %s\n"
               "#extension GL_GOOGLE_include_directive : require\n"
               "#include \"cuda.glsl\"\n#include \"half.glsl\"\n%s%s\n",
            l->kernel, how, (unsigned long long)l->sequence, l->frame, l->occurrence, cap->path,
            l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
            l->shared_bytes, l->kernel, cap->path, l->kernel,
            tex ? "#include \"tex.glsl\"\n" : "", surf ? "#include \"surface.glsl\"\n" : "");
    if (l->args_bytes) {
        fprintf(f, "// The parameter block (args.bin, %u bytes) with CUDA's byte layout: member\n"
                   "// argN is the word at byte N.  Rename the members after the .cu's.\n", l->args_bytes);
        if (px->have)
            fprintf(f, "// Pointer types and uses are read off the kernel's PTX (modules/%s).\n",
                    px->module);
        else
            fprintf(f, "// The capture holds no PTX of this kernel: pointer types are guesses from\n"
                       "// the bytes (a pointer it only reads is VkrrU8Ptr: retype it, e.g.\n"
                       "// VkrrF32Ptr for floats read as 32-bit words).\n");
        fprintf(f, "struct Params {\n");
        for (uint32_t off = 0; off < l->args_bytes;) {
            const char *kind;
            uint32_t idx;
            if (is_handle_or_pointer(l, off, &kind, &idx) && off % 8 == 0 && off + 8 <= l->args_bytes) {
                comp_member(f, l, pa, px, off, kind, idx);
                off += 8;
            } else if (off % 8 == 0 && off + 8 <= l->args_bytes && !overlaps_word(l, off) &&
                       !overlaps_word(l, off + 4) && !ld32(l->args + off) && !ld32(l->args + off + 4) &&
                       (!px->have || (use_at(px, off) && use_at(px, off)->size == 8))) {
                /* a zero 8-byte word: a null pointer as the PTX reads it (or, without
                 * the PTX, perhaps two zero words) */
                const vkrr_ptx_param_use *u = use_at(px, off);
                fprintf(f, "    uint64_t arg%u;  // null in this launch: %s\n", off,
                        !u ? "a null pointer, or two zero uint words"
                        : u->address ? "a pointer the kernel addresses memory with (PTX)"
                                     : "the kernel reads it as 64 bits (PTX)");
                off += 8;
            } else if (off % 4 == 0 && off + 4 <= l->args_bytes && !overlaps_word(l, off)) {
                fprintf(f, "    uint arg%u;", off);
                word_comment(f, ld32(l->args + off));
                off += 4;
            } else {
                fprintf(f, "    uint8_t arg%u;   // = %u\n", off, l->args[off]);
                off++;
            }
        }
        fprintf(f, "};\nVKRR_PARAMS(Params);\n\n");
    }
    fprintf(f, "void main()\n{\n"
               "    uvec3 gid = vkrr_global_id(); // blockIdx * blockDim + threadIdx, as CUDA\n");
    /* cuda.glsl's loads and stores take a reference, not a member of the
     * read-only parameter block: local copies of the outputs to start from,
     * and of what the PTX shows the kernel reads */
    for (uint32_t p = 0; l->args_bytes && p < l->npointers; p++) {
        const vkrr_pointer *pt = &l->pointers[p];
        const pn_alloc *r = &pa[pt->alloc];
        const vkrr_ptx_param_use *u = use_at(px, pt->offset);
        if (r->changed && r->owner == (int)p && pt->offset % 8 == 0) {
            if (accessor(r->dtype, false))
                fprintf(f, "    %s out%u = vkrr_p.arg%u; // e.g. %s(out%u, i, ...) (cuda.glsl)\n",
                        ptr_type(r->dtype), pt->offset, pt->offset, accessor(r->dtype, false), pt->offset);
            else
                fprintf(f, "    %s out%u = vkrr_p.arg%u; // e.g. out%u.v[i] = ...\n", ptr_type(r->dtype),
                        pt->offset, pt->offset, pt->offset);
        } else if (u && u->address && u->load.count && pt->offset % 8 == 0) {
            const char *alt;
            bool settled;
            vkrr_dtype t = vkrr_port_access_dtype(&u->load, &settled, &alt);
            if (accessor(t, true))
                fprintf(f, "    %s in%u = vkrr_p.arg%u; // e.g. %s(in%u, i) (cuda.glsl)\n", ptr_type(t),
                        pt->offset, pt->offset, accessor(t, true), pt->offset);
            else
                fprintf(f, "    %s in%u = vkrr_p.arg%u; // e.g. in%u.v[i]\n", ptr_type(t), pt->offset,
                        pt->offset, pt->offset);
        }
    }
    fprintf(f, "    // The kernel's body goes here.  Nothing is written yet.\n}\n");
}

void vkrr_port_skeleton_free(vkrr_port_skeleton *s)
{
    free(s->comp);
    free(s->desc);
    memset(s, 0, sizeof *s);
}

vkrr_status vkrr_port_skeleton_make(const vkrr_capture *cap, const vkrr_launch *l,
                                    const char *how, vkrr_port_skeleton *out, vkrr_error *err)
{
    memset(out, 0, sizeof *out);
    pn_alloc *pa = calloc(l->nallocs + 1, sizeof *pa);
    if (!pa)
        return vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    pn_ptx *px = calloc(1, sizeof *px);
    vkrr_status st = px ? VKRR_OK : vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    if (px)
        ptx_of(cap, l, px);
    for (uint32_t a = 0; a < l->nallocs && st == VKRR_OK; a++) {
        st = look_at(cap, l, a, &pa[a], err);
        if (st == VKRR_OK)
            retype(l, &pa[a], px);
    }
    FILE *fc = NULL, *fp = NULL;
    if (st == VKRR_OK) {
        fc = open_memstream(&out->comp, &out->comp_len);
        fp = open_memstream(&out->desc, &out->desc_len);
        if (!fc || !fp)
            st = vkrr_fail(err, VKRR_ERR_NOMEM, l->dir, 0, -1, "out of memory");
    }
    if (st == VKRR_OK) {
        comp_text(fc, cap, l, pa, px, how);
        fprintf(fp, "# What the port of %s writes (format: README \"Port descriptors\").\n"
                    "# Written by\n#   %s\n# from launch #%llu (frame %u, occurrence %u) of %s: every "
                    "allocation whose\n# post-launch dump differs from its pre-launch bytes, and "
                    "every surface.\n"
                    "# output argOFF TYPE [offset=N] width=N [height=N] [channels=N] [planes=N]\n"
                    "#        [layout=planar|interleaved] [atol=X] [rtol=X] [max_ulp=N]\n"
                    "# (a number may read the parameter block: width=u32@24)\n",
                l->kernel, how, (unsigned long long)l->sequence, l->frame, l->occurrence, cap->path);
        port_lines(fp, l, pa, out);
        if (!out->outputs)
            fprintf(fp, "# (the capture shows no output: no allocation changed, no surface)\n");
    }
    if (fc)
        fclose(fc);
    if (fp)
        fclose(fp);
    free(pa);
    free(px);
    if (st != VKRR_OK)
        vkrr_port_skeleton_free(out);
    return st;
}
