/* ptx_tex.c - textures and surfaces in unified mode on every geometry (.1d .2d .3d .a1d
 * .a2d .cube .acube): tex, tld4, suld.b, sust.b, sured.b, txq, suq.  A handle word is the
 * address of one of the launch's cuda_texture.h descriptors (checked: any other value is
 * a fault); sampling and surface access are cuda_texture.c, the one implementation the
 * CPU backend uses too. */
#include "cuformat.h"
#include "ptx_internal.h"

#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

/* Handles.  A handle operand is a .u64 register, a kernel's .texref /
 * .samplerref / .surfref parameter (in->imm bits 0-23: its offset + 1; the
 * handle is read from the parameter block as the instruction runs) or an
 * opaque module variable (its address is its handle).  A tex's sampler
 * operand (independent mode: [t, s, c]) likewise: bit 24 says there is one
 * (slot ox[1]), bits 32-55 its parameter offset + 1. */
#define IMM_SAMPLER (1ull << 24)
static uint64_t handle_value(ptx_warp *w, const uint64_t *H, uint32_t l, uint64_t param)
{
    const ptx_rt *rt = w->cta->rt;
    uint64_t v = 0;
    if (!param)
        return H[l];
    if (param - 1 + 8 <= rt->params_bytes)
        memcpy(&v, rt->params + param - 1, 8);
    return v;
}

/* The opaque module variable whose address h is, or NULL */
static const ptx_var *opaque_var(ptx_warp *w, uint64_t h)
{
    const ptx_rt *rt = w->cta->rt;
    for (uint32_t i = 0; i < rt->m->nvars; i++) {
        const ptx_var *v = &rt->m->vars[i];
        if (v->ref && v->func < 0 && (uintptr_t)h == (uintptr_t)(rt->globals + v->offset))
            return v;
    }
    return NULL;
}

static const char *const ref_names[] = {"", ".texref", ".samplerref", ".surfref"};

/* A fault for a handle that names no texture (or surface) of the launch:
 * why, when it is an opaque module variable's */
static void not_an_image(ptx_warp *w, const ptx_inst *in, int l, uint64_t h, bool surf)
{
    const ptx_var *v = opaque_var(w, h);
    if (v && v->ref == (surf ? PTX_REF_SURF : PTX_REF_TEX))
        ptx_fault(w, in, l, VKRR_ERR_UNSUPPORTED, "'%s' is a %s module variable: the host binds it "
                  "(cuTexRefSetArray, cuSurfRefSetArray) and captures record no such binding (vkrr "
                  "replays texture and surface objects passed as kernel arguments)", v->name,
                  ref_names[v->ref]);
    else if (v)
        ptx_fault(w, in, l, VKRR_ERR_FAULT, "'%s', a %s, is no %s", v->name, ref_names[v->ref],
                  surf ? "surface" : "texture");
    else
        ptx_fault(w, in, l, VKRR_ERR_FAULT, "0x%llx is not a %s object of this launch",
                  (unsigned long long)h, surf ? "surface" : "texture");
}

static const vkrr_cutex *texture_of(ptx_warp *w, const ptx_inst *in, int l, uint64_t h)
{
    const vkrr_ptx_launch *lc = w->cta->rt->l;
    uintptr_t base = (uintptr_t)lc->textures, a = (uintptr_t)h;
    if (lc->textures && a >= base && (a - base) % sizeof(vkrr_cutex) == 0 &&
        (a - base) / sizeof(vkrr_cutex) < lc->ntextures)
        return (const vkrr_cutex *)a;
    not_an_image(w, in, l, h, false);
    return NULL;
}

static const vkrr_cusurf *surface_of(ptx_warp *w, const ptx_inst *in, int l, uint64_t h)
{
    const vkrr_ptx_launch *lc = w->cta->rt->l;
    uintptr_t base = (uintptr_t)lc->surfaces, a = (uintptr_t)h;
    if (lc->surfaces && a >= base && (a - base) % sizeof(vkrr_cusurf) == 0 &&
        (a - base) / sizeof(vkrr_cusurf) < lc->nsurfaces)
        return (const vkrr_cusurf *)a;
    not_an_image(w, in, l, h, true);
    return NULL;
}

/* Independent mode: t's sampling state replaced by the sampler sh names, a
 * .samplerref module variable (its initializer; force_unnormalized_coords 0
 * keeps the texture's own coordinates) or a texture object (its sampler). */
static bool apply_sampler(ptx_warp *w, const ptx_inst *in, int l, uint64_t sh, vkrr_cutex *t)
{
    const vkrr_ptx_launch *lc = w->cta->rt->l;
    uintptr_t base = (uintptr_t)lc->textures, a = (uintptr_t)sh;
    if (lc->textures && a >= base && (a - base) % sizeof(vkrr_cutex) == 0 &&
        (a - base) / sizeof(vkrr_cutex) < lc->ntextures) {
        const vkrr_cutex *s = (const vkrr_cutex *)a;
        t->filter = s->filter;
        memcpy(t->address, s->address, sizeof t->address);
        t->normalized = s->normalized;
        return true;
    }
    const ptx_var *v = opaque_var(w, sh);
    if (!v || v->ref != PTX_REF_SAMPLER) {
        ptx_fault(w, in, l, VKRR_ERR_FAULT, "the sampler operand %s%s is no .samplerref or texture "
                  "object", v ? v->name : "", v ? "" : "(a handle of no object)");
        return false;
    }
    for (unsigned k = 0; k < 3; k++) {
        if (v->smp.addr[k] == PTX_ADDR_CLAMP_OGL)
            return ptx_fault(w, in, l, VKRR_ERR_UNSUPPORTED, "the sampler '%s': addr_mode_%u clamp_ogl "
                             "(CUDA has no such address mode to model it on)", v->name, k) == 0;
        t->address[k] = v->smp.addr[k];
    }
    t->filter = v->smp.filter;
    if (v->smp.unnorm)
        t->normalized = false;
    return true;
}

/* The slots of a lookup's coordinates: o[1] x, o[2] y, o[7] z (3d, cube, acube)
 * or the layer index (a1d, a2d), ox[0] acube's layer index.  Fields of a
 * geometry that lacks them read x, never used. */
static bool geom_has_y(vkrr_cutex_geom g) { return g != VKRR_GEOM_1D && g != VKRR_GEOM_A1D; }
static bool geom_has_z(vkrr_cutex_geom g)
{
    return g == VKRR_GEOM_3D || g == VKRR_GEOM_CUBE || g == VKRR_GEOM_ACUBE;
}
static bool geom_layered(vkrr_cutex_geom g)
{
    return g == VKRR_GEOM_A1D || g == VKRR_GEOM_A2D || g == VKRR_GEOM_ACUBE;
}

/* tex / tld4: o[0] handle, coordinates as above, o[3..6] d (UINT32_MAX: '_'); in->a 0 tex
 * 1 tld4; in->b component (tld4); in->c 1 integer result; in->d geometry; in->e 1 s32
 * coordinates (tex.1d on linear memory: tex1Dfetch) */
HANDLER(x_tex)
{
    vkrr_cutex_geom g = (vkrr_cutex_geom)in->d;
    const uint64_t *H = PTX_R(w, in->o[0]), *X = PTX_R(w, in->o[1]);
    const uint64_t *S = in->imm & IMM_SAMPLER ? PTX_R(w, in->ox[1]) : NULL;
    const uint64_t *Y = geom_has_y(g) ? PTX_R(w, in->o[2]) : X;
    const uint64_t *Z = geom_has_z(g) ? PTX_R(w, in->o[7]) : X;
    const uint64_t *L = g == VKRR_GEOM_ACUBE ? PTX_R(w, in->ox[0]) : geom_layered(g) ? PTX_R(w, in->o[7]) : X;
    PTX_LANES(m, {
        const vkrr_cutex *t = texture_of(w, in, (int)l, handle_value(w, H, l, in->imm & 0xffffffu));
        if (!t)
            return -1;
        vkrr_cutex ts;
        if (S) {
            ts = *t;
            if (!apply_sampler(w, in, (int)l, handle_value(w, S, l, (in->imm >> 32) & 0xffffffu), &ts))
                return -1;
            t = &ts;
        }
        vkrr_cutex_at at = {.geom = g, .icoords = in->e, .layer = (uint32_t)L[l]};
        const uint64_t v[3] = {X[l], Y[l], Z[l]};
        for (unsigned k = 0; k < 3; k++) {
            at.c[k] = ptx_f(v[k]);
            at.ic[k] = (int32_t)(uint32_t)v[k];
        }
        bool fetch1d = in->e && g == VKRR_GEOM_1D && t->linear_count;
        if (in->c && !t->read_as_integer && !fetch1d)
            return ptx_fault(w, in, (int)l, VKRR_ERR_UNSUPPORTED,
                             "an integer result from a texture not read as integer");
        uint32_t r[4];
        if (in->a)
            vkrr_cutex_gather_at(t, &at, in->b, in->c, r);
        else
            vkrr_cutex_lookup(t, &at, in->c, r);
        for (unsigned k = 0; k < 4; k++)
            if (in->o[3 + k] != UINT32_MAX)
                PTX_R(w, in->o[3 + k])[l] = r[k];
    });
    return 0;
}

/* The plane of a surface access: 3D z (s32), a1d/a2d the layer (u32), else 0. */
static int64_t surf_plane(vkrr_cutex_geom g, uint64_t v)
{
    return g == VKRR_GEOM_3D ? (int64_t)(int32_t)(uint32_t)v
                             : geom_layered(g) ? (int64_t)(uint32_t)v : 0;
}

static int surf_fault(ptx_warp *w, const ptx_inst *in, uint32_t l, vkrr_cutex_geom g, const char *what,
                      unsigned bytes, int x, int y, int64_t plane, const vkrr_cusurf *s)
{
    if (g == VKRR_GEOM_2D)
        return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                         "%u-byte surface %s at byte x %d, y %d of a %ux%u surface of "
                         "%u-byte texels (out of range or not one texel)",
                         bytes, what, x, y, s->width, s->height, s->texel_bytes);
    return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                     "%u-byte surface %s at byte x %d, y %d, plane %lld of a %ux%u surface of %u "
                     "planes of %u-byte texels (out of range or not one texel)",
                     bytes, what, x, y, (long long)plane, s->width, s->height, vkrr_cusurf_planes(s),
                     s->texel_bytes);
}

/* suld / sust: o[0] handle, o[1] x (bytes), o[2] y, o[7] z or layer, o[3..] data; in->a
 * element bytes, in->b elements, in->c mode, in->d geometry, in->e 1 store */
HANDLER(x_surf)
{
    vkrr_cutex_geom g = (vkrr_cutex_geom)in->d;
    const uint64_t *H = PTX_R(w, in->o[0]), *X = PTX_R(w, in->o[1]);
    const uint64_t *Y = geom_has_y(g) ? PTX_R(w, in->o[2]) : NULL;
    const uint64_t *P = g == VKRR_GEOM_3D || geom_layered(g) ? PTX_R(w, in->o[7]) : NULL;
    unsigned eb = in->a, n = in->b, bytes = eb * n;
    PTX_LANES(m, {
        const vkrr_cusurf *s = surface_of(w, in, (int)l, handle_value(w, H, l, in->imm));
        if (!s)
            return -1;
        unsigned char buf[32];
        int x = (int32_t)(uint32_t)X[l], y = Y ? (int32_t)(uint32_t)Y[l] : 0;
        int64_t z = P ? surf_plane(g, P[l]) : 0;
        bool ok;
        if (in->e) {
            for (unsigned k = 0; k < n; k++) {
                uint64_t v = PTX_R(w, in->o[3 + k])[l];
                memcpy(buf + k * eb, &v, eb);
            }
            ok = vkrr_cusurf_write_at(s, buf, bytes, x, y, z, (vkrr_cusurf_mode)in->c);
        } else {
            ok = vkrr_cusurf_read_at(s, buf, bytes, x, y, z, (vkrr_cusurf_mode)in->c);
            if (ok)
                for (unsigned k = 0; k < n; k++) {
                    uint64_t v = 0;
                    memcpy(&v, buf + k * eb, eb);
                    if (in->o[3 + k] != UINT32_MAX)
                        PTX_R(w, in->o[3 + k])[l] = v;
                }
        }
        if (!ok)
            return surf_fault(w, in, l, g, "access", bytes, x, y, z, s);
    });
    return 0;
}

/* suld.p / sust.p (formatted): o[0] handle, o[1] x (texels), o[2] y, o[7] z, o[3..]
 * the values; in->b elements, in->c mode, in->d geometry (1d, 2d, 3d), in->e 1
 * store.  The texel is read at byte x * texel bytes (so the trap/clamp/zero
 * rules are the unformatted access's) and converted (cuformat.h); a store
 * converts the values into it (channels past them keep their bytes) and
 * writes it back. */
HANDLER(x_surf_p)
{
    vkrr_cutex_geom g = (vkrr_cutex_geom)in->d;
    const uint64_t *H = PTX_R(w, in->o[0]), *X = PTX_R(w, in->o[1]);
    const uint64_t *Y = geom_has_y(g) ? PTX_R(w, in->o[2]) : NULL;
    const uint64_t *P = g == VKRR_GEOM_3D ? PTX_R(w, in->o[7]) : NULL;
    unsigned n = in->b;
    PTX_LANES(m, {
        const vkrr_cusurf *s = surface_of(w, in, (int)l, handle_value(w, H, l, in->imm));
        if (!s)
            return -1;
        if (!s->format || !vkrr_cuformat_find(s->format) ||
            vkrr_cuformat_find(s->format)->texel_bytes_override)
            return ptx_fault(w, in, (int)l, VKRR_ERR_UNSUPPORTED,
                             "a formatted %s a surface of CUarray_format %u: vkrr converts "
                             "FLOAT, HALF, the 8/16/32-bit integer, UNORM and SNORM formats",
                             in->e ? "store to" : "load from", s->format);
        unsigned tb = s->texel_bytes;
        int64_t xb = (int64_t)(int32_t)(uint32_t)X[l] * tb; /* a sample offset, not bytes */
        int x = xb > INT32_MAX ? INT32_MAX : xb < INT32_MIN ? INT32_MIN : (int)xb;
        int y = Y ? (int32_t)(uint32_t)Y[l] : 0;
        int64_t z = P ? (int64_t)(int32_t)(uint32_t)P[l] : 0;
        unsigned char texel[16];
        uint32_t v[4];
        for (unsigned k = 0; in->e && k < n; k++)
            v[k] = (uint32_t)PTX_R(w, in->o[3 + k])[l];
        bool ok = tb <= sizeof texel && vkrr_cusurf_read_at(s, texel, tb, x, y, z, (vkrr_cusurf_mode)in->c);
        if (ok && in->e && vkrr_cuformat_store_formatted(s->format, s->channels, v, n, texel))
            ok = vkrr_cusurf_write_at(s, texel, tb, x, y, z, (vkrr_cusurf_mode)in->c);
        if (ok && !in->e && vkrr_cuformat_load_formatted(s->format, s->channels, texel, v))
            for (unsigned k = 0; k < n; k++)
                if (in->o[3 + k] != UINT32_MAX)
                    PTX_R(w, in->o[3 + k])[l] = v[k];
        if (!ok)
            return surf_fault(w, in, l, g, in->e ? "formatted store" : "formatted load", tb, x, y, z, s);
    });
    return 0;
}

/* sured.b: o[0] handle, o[1] x (bytes), o[2] y, o[7] z, o[3] value; in->a bytes,
 * in->b op, in->c mode, in->d 1 signed, 2 sured.p (x a sample, one whole
 * texel, signed when the array's format is SIGNED_INT*), in->e geometry (1d,
 * 2d, 3d) */
HANDLER(x_sured)
{
    vkrr_cutex_geom g = (vkrr_cutex_geom)in->e;
    const uint64_t *H = PTX_R(w, in->o[0]), *X = PTX_R(w, in->o[1]);
    const uint64_t *Y = geom_has_y(g) ? PTX_R(w, in->o[2]) : NULL;
    const uint64_t *Z = g == VKRR_GEOM_3D ? PTX_R(w, in->o[7]) : NULL;
    const uint64_t *V = PTX_R(w, in->o[3]);
    PTX_LANES(m, {
        const vkrr_cusurf *s = surface_of(w, in, (int)l, handle_value(w, H, l, in->imm));
        if (!s)
            return -1;
        int x = (int32_t)(uint32_t)X[l], y = Y ? (int32_t)(uint32_t)Y[l] : 0;
        int64_t z = Z ? surf_plane(g, Z[l]) : 0;
        bool sgn = in->d == 1;
        if (in->d == 2) { /* sured.p: x a sample, signedness the array's format's */
            if (s->texel_bytes != in->a)
                return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "a %u-byte sured.p on a surface of "
                                 "%u-byte texels", in->a, s->texel_bytes);
            int64_t xb = (int64_t)x * s->texel_bytes;
            x = xb > INT32_MAX ? INT32_MAX : xb < INT32_MIN ? INT32_MIN : (int)xb;
            sgn = s->format == 8 || s->format == 9 || s->format == 10; /* SIGNED_INT* */
        }
        if (!vkrr_cusurf_reduce_at(s, in->b, sgn, V[l], in->a, x, y, z, (vkrr_cusurf_mode)in->c))
            return surf_fault(w, in, l, g, "reduction", in->a, x, y, z, s);
    });
    return 0;
}

/* A texture's txq.array_size: the layers of a layered array, the cubes of a
 * cubemap (layers / 6: a plain cubemap reads 1, as the descriptor does not
 * tell it from an array of one cube), 0 otherwise. */
static uint32_t tex_array_size(const vkrr_cutex *t)
{
    if (t->cube)
        return t->layers >= 6 ? t->layers / 6 : 1;
    return t->dims == 3 ? 0 : t->layers;
}

/* txq on a .samplerref module variable: its sampler queries (in->a: 4
 * filter_mode, 5-7 addr_mode_0-2, 11 force_unnormalized_coords) */
static bool sampler_query(ptx_warp *w, const ptx_inst *in, int l, const ptx_var *v, uint32_t *out)
{
    if (in->a == 4 || in->a == 11) {
        *out = in->a == 4 ? v->smp.filter : v->smp.unnorm;
        return true;
    }
    if (in->a >= 5 && in->a <= 7 && v->smp.addr[in->a - 5] != PTX_ADDR_CLAMP_OGL) {
        *out = v->smp.addr[in->a - 5];
        return true;
    }
    return ptx_fault(w, in, l, VKRR_ERR_FAULT, "txq of the sampler '%s': a sampler has filter_mode, "
                     "addr_mode_0/1/2 (clamp_ogl has no value here) and force_unnormalized_coords",
                     v->name) == 0;
}

/* txq / suq: o[0] d, o[1] handle; in->a the query, an index into txq's list in the
 * decoder (suq's are mapped onto it); in->e 1 surface; in->imm as the handles' */
HANDLER(x_query)
{
    uint64_t *d = PTX_R(w, in->o[0]);
    const uint64_t *H = PTX_R(w, in->o[1]);
    PTX_LANES(m, {
        uint32_t v = 0;
        uint64_t h = handle_value(w, H, l, in->imm);
        const ptx_var *opq = in->e ? NULL : opaque_var(w, h);
        if (in->e) {
            const vkrr_cusurf *s = surface_of(w, in, (int)l, h);
            if (!s)
                return -1;
            v = in->a == 0   ? s->width
                : in->a == 1 ? s->height
                : in->a == 2 ? (s->dims == 3 ? vkrr_cusurf_planes(s) : 1u)
                             : (s->dims == 3 ? 0u : s->layers);
        } else if (opq && opq->ref == PTX_REF_SAMPLER) {
            if (!sampler_query(w, in, (int)l, opq, &v))
                return -1;
        } else {
            const vkrr_cutex *t = texture_of(w, in, (int)l, h);
            if (!t)
                return -1;
            switch (in->a) {
            case 0: v = t->width; break;
            case 1: v = t->height; break;
            case 2: v = t->dims == 3 ? vkrr_cutex_planes(t) : 1u; break;
            case 3: v = t->normalized; break;
            case 4: v = (uint32_t)t->filter; break;
            case 5: v = (uint32_t)t->address[0]; break;
            case 6: v = (uint32_t)t->address[1]; break;
            case 7: v = (uint32_t)t->address[2]; break;
            case 8: v = tex_array_size(t); break;
            case 9: v = 1; break; /* num_mipmap_levels: vkrr's arrays have one level */
            default: v = 0; break; /* num_samples: no multi-sample textures; force_unnormalized_coords:
                                    * a texture's coordinates are its normalized_coords */
            }
        }
        d[l] = v;
    });
    return 0;
}

/* ---- decoder ---------------------------------------------------------------------- */
static const char *const geom_names[] = {".1d", ".2d", ".3d", ".a1d", ".a2d", ".cube", ".acube"};

/* A handle operand into field (o[0], o[1] or ox[1]): a .u64 register, a
 * kernel's .texref/.samplerref/.surfref parameter (*param its offset + 1,
 * read as the instruction runs) or an opaque module variable (its address). */
static int handle_operand(ptx_dctx *c, unsigned field, const ptx_rop *h, uint32_t *param)
{
    *param = 0;
    if (h->kind == RO_PARAM && c->f->entry && c->f->params[h->id].ref && !h->ival)
        *param = c->f->params[h->id].offset + 1;
    else if (!(h->kind == RO_REG || (h->kind == RO_SYM && c->m->vars[h->id].ref && !h->ival)))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "a texture, sampler or surface operand is a .u64 register, "
                            "a .texref/.samplerref/.surfref kernel parameter or module variable");
    return ptx_set_src(c, field, h, PT_B64, false);
}

/* [handle, {coordinates}] of geometry g (or, for tex/tld4 when sampler_ok,
 * independent mode's [texture, sampler, {coordinates}]): the vector's
 * elements are the layer index first (a1d, a2d, acube: u32, into o[7], acube
 * ox[0]), then the coordinates of type ct into o[1], o[2], o[7], then an
 * ignored element (3d, a2d, cube: optional here).  1d also takes [handle, x]. */
static int image_operand(ptx_dctx *c, const ptx_rop *o, ptx_type ct, vkrr_cutex_geom g, bool sampler_ok)
{
    static const uint8_t ncoord[] = {1, 2, 3, 1, 2, 3, 3}, nvec[] = {1, 2, 4, 2, 4, 4, 4};
    if (!o || o->kind != RO_MEM)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected [handle, {coordinates}]");
    if (o->n == 3 && !sampler_ok)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "a sampler operand on %s (tex, tld4 and txq take one)",
                            c->r->op);
    if (o->n != 2 && o->n != 3)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected [handle, {coordinates}]");
    const ptx_rop *h = &c->f->rops[o->first], *v = &c->f->rops[o->first + o->n - 1];
    bool vec = v->kind == RO_VEC, lay = geom_layered(g);
    unsigned n = vec ? v->n : 1, need = ncoord[g] + lay;
    if (o->ival != 0 || (vec ? n != nvec[g] && n != need : g != VKRR_GEOM_1D || v->kind != RO_REG))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s coordinates: expected {%s%s%s}", geom_names[g],
                            lay ? "layer, " : "", ncoord[g] == 1 ? "x" : ncoord[g] == 2 ? "x, y" : "x, y, z",
                            nvec[g] > need ? ", _" : "");
    const ptx_rop *e = vec ? &c->f->rops[v->first] : v;
    static const unsigned field[3] = {1, 2, 7};
    uint32_t hp = 0, sp = 0;
    if (handle_operand(c, 0, h, &hp) < 0)
        return -1;
    c->in->imm = hp;
    if (lay && g == VKRR_GEOM_ACUBE) {
        if (!(c->in->ox = ptx_alloc_ox(c, 2)) || ptx_set_src(c, 8, &e[0], PT_B32, false) < 0)
            return -1;
    } else if (lay && ptx_set_src(c, 7, &e[0], PT_B32, false) < 0) {
        return -1;
    }
    if (o->n == 3) {
        if ((!c->in->ox && !(c->in->ox = ptx_alloc_ox(c, 2))) || handle_operand(c, 9, h + 1, &sp) < 0)
            return -1;
        c->in->imm |= IMM_SAMPLER | (uint64_t)sp << 32;
    }
    for (unsigned k = 0; k < ncoord[g]; k++)
        if (ptx_set_src(c, field[k], &e[lay + k], ct, false) < 0)
            return -1;
    return 0;
}

static int data_regs(ptx_dctx *c, const ptx_rop *o, unsigned n, ptx_type t, bool dst)
{
    const ptx_rop *e = o;
    unsigned ne = 1;
    if (o && o->kind == RO_VEC) {
        e = &c->f->rops[o->first];
        ne = o->n;
    }
    if (!o || ne != n)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected %u data registers", n);
    for (unsigned k = 0; k < n; k++) {
        if (dst && e[k].kind == RO_SINK) {
            c->in->o[3 + k] = UINT32_MAX;
            continue;
        }
        if (dst ? ptx_set_dst(c, 3 + k, &e[k], t, true) : ptx_set_src(c, 3 + k, &e[k], t, true))
            return -1;
    }
    return 0;
}

/* sust.p.{1d,2d,3d}{.v2,.v4}.b32{.trap,.clamp,.zero} [s, {x...}], values; suld.p the
 * same with the values first, as destinations */
static int dec_surf_p(ptx_dctx *c, bool st)
{
    static const char *const modes[] = {".trap", ".clamp", ".zero"};
    int g = ptx_take_any(c, geom_names, 3);
    int n = ptx_take(c, ".v2") ? 2 : ptx_take(c, ".v4") ? 4 : 1;
    ptx_take_ignorable(c);
    ptx_type t = ptx_take_type(c);
    int md = ptx_take_any(c, modes, 3);
    if (g < 0 || t != PT_B32 || ptx_rest_ok(c) < 0 || ptx_nops(c) != 2)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s.p form (.1d .2d .3d, .b32 values)", c->r->op);
    if (image_operand(c, ptx_op(c, st ? 0 : 1), PT_B32, (vkrr_cutex_geom)g, false) < 0 ||
        data_regs(c, ptx_op(c, st ? 1 : 0), (unsigned)n, t, !st) < 0)
        return -1;
    c->in->e = st;
    c->in->b = (uint8_t)n;
    c->in->c = (uint8_t)(md < 0 ? 0 : md);
    c->in->d = (uint8_t)g;
    c->in->fn = x_surf_p;
    return 1;
}

int ptx_dec_tex(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (!strcmp(op, "tex") || !strcmp(op, "tld4")) {
        bool g4 = op[1] == 'l';
        static const char *const comps[] = {".r", ".g", ".b", ".a"}, *const mips[] = {".level", ".grad"};
        /* .base: mip level 0, which is all a texture here has (what tex without it reads) */
        if (!g4)
            ptx_take(c, ".base");
        if (ptx_take_any(c, mips, 2) >= 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s.level/.grad (mipmaps)", op);
        int comp = g4 ? ptx_take_any(c, comps, 4) : 0;
        int g = ptx_take_any(c, geom_names, 7);
        if (g < 0 && (ptx_take(c, ".2dms") || ptx_take(c, ".a2dms")))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "multi-sample textures (.2dms, .a2dms)");
        bool cube = g == VKRR_GEOM_CUBE || g == VKRR_GEOM_ACUBE;
        if (g < 0 || (g4 && g != VKRR_GEOM_2D && g != VKRR_GEOM_A2D && !cube) || !ptx_take(c, ".v4") || comp < 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form (.v4 on tex .1d .2d .3d .a1d .a2d .cube "
                                ".acube, tld4 .2d .a2d .cube .acube)", op);
        ptx_type dt = ptx_take_type(c), ct = ptx_take_type(c);
        if ((dt != PT_F32 && dt != PT_S32 && dt != PT_U32) ||
            (ct != PT_F32 && (ct != PT_S32 || g4 || cube)) || ptx_rest_ok(c) < 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s types (results f32/s32/u32; coordinates "
                                "f32, or s32 on tex other than .cube/.acube)", op);
        if (ptx_nops(c) != 2 || c->r->pipe >= 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s with offsets, depth compare or a residency predicate", op);
        if (image_operand(c, ptx_op(c, 1), ct, (vkrr_cutex_geom)g, true) < 0 ||
            data_regs(c, ptx_op(c, 0), 4, dt, true) < 0)
            return -1;
        in->a = g4;
        in->b = (uint8_t)comp;
        in->c = dt != PT_F32;
        in->d = (uint8_t)g;
        in->e = ct == PT_S32;
        in->fn = x_tex;
        return 1;
    }
    static const char *const modes[] = {".trap", ".clamp", ".zero"};
    if (!strcmp(op, "suld") || !strcmp(op, "sust")) {
        bool st = op[1] == 'u' && op[2] == 's';
        if (ptx_take(c, ".p")) /* the ISA: .1d .2d .3d, .b32 values */
            return dec_surf_p(c, st);
        if (!ptx_take(c, ".b"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form (.b or .p)", op);
        int g = ptx_take_any(c, geom_names, 5);
        if (g < 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form (.1d .2d .3d .a1d .a2d)", op);
        int n = ptx_take(c, ".v2") ? 2 : ptx_take(c, ".v4") ? 4 : 1;
        ptx_take_ignorable(c);
        ptx_type t = ptx_take_type(c);
        int md = ptx_take_any(c, modes, 3);
        if ((t != PT_B8 && t != PT_B16 && t != PT_B32 && t != PT_B64) || ptx_rest_ok(c) < 0 ||
            ptx_nops(c) != 2)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form", op);
        if (image_operand(c, ptx_op(c, st ? 0 : 1), PT_B32, (vkrr_cutex_geom)g, false) < 0 ||
            data_regs(c, ptx_op(c, st ? 1 : 0), (unsigned)n, t, !st) < 0)
            return -1;
        in->a = (uint8_t)(ptx_type_bits(t) / 8);
        in->b = (uint8_t)n;
        in->c = (uint8_t)(md < 0 ? 0 : md);
        in->d = (uint8_t)g;
        in->e = st;
        in->fn = x_surf;
        return 1;
    }
    if (!strcmp(op, "sured")) {
        bool sample = ptx_take(c, ".p"); /* sured.p: sample-addressed, .b32/.b64 */
        if (!sample && !ptx_take(c, ".b"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "sured form (.b or .p)");
        static const char *const ops[] = {".add", ".min", ".max", ".and", ".or"};
        int rop = ptx_take_any(c, ops, 5);
        int g = ptx_take_any(c, geom_names, 3); /* the ISA's sured has .1d .2d .3d */
        if (g < 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "sured form (.1d .2d .3d)");
        ptx_type t = ptx_take_type(c);
        int md = ptx_take_any(c, modes, 3);
        /* the ISA's pairs: add on u32/u64/s32, min and max on u32/s32/u64/s64, and/or on b32;
         * sured.p: .b32 or .b64 for every op */
        bool ok = sample     ? t == PT_B32 || t == PT_B64
                  : rop == 0 ? t == PT_U32 || t == PT_U64 || t == PT_S32
                  : rop <= 2 ? t == PT_U32 || t == PT_S32 || t == PT_U64 || t == PT_S64
                             : t == PT_B32;
        if (rop < 0 || !ok || ptx_rest_ok(c) < 0 || ptx_nops(c) != 2)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "sured form (add on u32/u64/s32, min/max on "
                                "u32/s32/u64/s64, and/or on b32; sured.p on b32/b64)");
        if (image_operand(c, ptx_op(c, 0), PT_B32, (vkrr_cutex_geom)g, false) < 0 ||
            ptx_set_src(c, 3, ptx_op(c, 1), t, false) < 0)
            return -1;
        in->a = (uint8_t)(ptx_type_bits(t) / 8);
        in->b = (uint8_t)rop;
        in->c = (uint8_t)(md < 0 ? 0 : md);
        in->d = sample ? 2 : t == PT_S32 || t == PT_S64;
        in->e = (uint8_t)g;
        in->fn = x_sured;
        return 1;
    }
    if (!strcmp(op, "txq") || !strcmp(op, "suq")) {
        bool sq = op[0] == 's';
        static const char *const q[] = {".width", ".height", ".depth", ".normalized_coords", ".filter_mode",
                                        ".addr_mode_0", ".addr_mode_1", ".addr_mode_2", ".array_size",
                                        ".num_mipmap_levels", ".num_samples", ".force_unnormalized_coords"};
        static const char *const sqn[] = {".width", ".height", ".depth", ".array_size"};
        if (ptx_take(c, ".level"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "txq.level (mipmaps)");
        int k = sq ? ptx_take_any(c, sqn, 4) : ptx_take_any(c, q, 12);
        if (k < 0 || !ptx_take(c, ".b32") || ptx_rest_ok(c) < 0 || ptx_nops(c) != 2)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form (txq: .width .height .depth "
                                ".normalized_coords .filter_mode .addr_mode_0/1/2 .array_size "
                                ".num_mipmap_levels .num_samples .force_unnormalized_coords; suq: .width "
                                ".height .depth "
                                ".array_size)", op);
        const ptx_rop *a = ptx_op(c, 1);
        uint32_t hp = 0;
        if (a->kind != RO_MEM || a->n != 1 || a->ival)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "%s takes [handle]", op);
        if (ptx_set_dst(c, 0, ptx_op(c, 0), PT_B32, false) < 0 ||
            handle_operand(c, 1, &c->f->rops[a->first], &hp) < 0)
            return -1;
        in->imm = hp;
        in->a = (uint8_t)(sq && k == 3 ? 8 : k);
        in->e = sq;
        in->fn = x_query;
        return 1;
    }
    return 0;
}
