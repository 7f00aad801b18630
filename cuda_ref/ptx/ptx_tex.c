/* ptx_tex.c - textures and surfaces in unified mode: tex.2d, tex.1d (tex1Dfetch), tld4.2d,
 * suld.b.2d, sust.b.2d, sured.b.2d, txq, suq.  A handle word is the address of one of
 * the launch's cuda_texture.h descriptors (checked: any other value is a
 * fault); sampling and surface access are cuda_texture.c, the one
 * implementation the CPU backend uses too. */
#include "ptx_internal.h"

#define HANDLER(name) static int name(ptx_warp *w, const ptx_inst *in, uint32_t m)

static const vkrr_cutex *texture_of(ptx_warp *w, const ptx_inst *in, int l, uint64_t h)
{
    const vkrr_ptx_launch *lc = w->cta->rt->l;
    uintptr_t base = (uintptr_t)lc->textures, a = (uintptr_t)h;
    if (lc->textures && a >= base && (a - base) % sizeof(vkrr_cutex) == 0 &&
        (a - base) / sizeof(vkrr_cutex) < lc->ntextures)
        return (const vkrr_cutex *)a;
    ptx_fault(w, in, l, VKRR_ERR_FAULT, "0x%llx is not a texture object of this launch",
              (unsigned long long)h);
    return NULL;
}

static const vkrr_cusurf *surface_of(ptx_warp *w, const ptx_inst *in, int l, uint64_t h)
{
    const vkrr_ptx_launch *lc = w->cta->rt->l;
    uintptr_t base = (uintptr_t)lc->surfaces, a = (uintptr_t)h;
    if (lc->surfaces && a >= base && (a - base) % sizeof(vkrr_cusurf) == 0 &&
        (a - base) / sizeof(vkrr_cusurf) < lc->nsurfaces)
        return (const vkrr_cusurf *)a;
    ptx_fault(w, in, l, VKRR_ERR_FAULT, "0x%llx is not a surface object of this launch",
              (unsigned long long)h);
    return NULL;
}

/* tex / tld4: o[0] handle, o[1] x, o[2] y, o[3..6] d (UINT32_MAX: '_'); in->a 0 tex
 * 1 tld4; in->b component (tld4); in->c 1 integer result; in->e 1: tex.1d (x an s32
 * texel index into a texture over linear memory: tex1Dfetch) */
HANDLER(x_tex)
{
    const uint64_t *H = PTX_R(w, in->o[0]), *X = PTX_R(w, in->o[1]), *Y = PTX_R(w, in->o[2]);
    PTX_LANES(m, {
        const vkrr_cutex *t = texture_of(w, in, (int)l, H[l]);
        if (!t)
            return -1;
        uint32_t r[4];
        float x = ptx_f(X[l]), y = ptx_f(Y[l]);
        if (in->e) {
            float f[4];
            if (in->c)
                vkrr_cutex_fetch1d_int(t, (int32_t)X[l], r);
            else
                vkrr_cutex_fetch1d(t, (int32_t)X[l], f);
            for (unsigned k = 0; !in->c && k < 4; k++)
                r[k] = (uint32_t)ptx_fb(f[k]);
        } else if (in->c) {
            if (!t->read_as_integer || in->a)
                return ptx_fault(w, in, (int)l, VKRR_ERR_UNSUPPORTED,
                                 "an integer result from a texture not read as integer");
            vkrr_cutex_fetch_int(t, x, y, r);
        } else {
            float f[4];
            if (in->a)
                vkrr_cutex_gather(t, x, y, in->b, f);
            else
                vkrr_cutex_sample(t, x, y, f);
            for (unsigned k = 0; k < 4; k++)
                r[k] = (uint32_t)ptx_fb(f[k]);
        }
        for (unsigned k = 0; k < 4; k++)
            if (in->o[3 + k] != UINT32_MAX)
                PTX_R(w, in->o[3 + k])[l] = r[k];
    });
    return 0;
}

/* suld / sust: o[0] handle, o[1] x (bytes), o[2] y, o[3..] data; in->a element bytes,
 * in->b elements, in->c mode, in->e 1 store */
HANDLER(x_surf)
{
    const uint64_t *H = PTX_R(w, in->o[0]), *X = PTX_R(w, in->o[1]), *Y = PTX_R(w, in->o[2]);
    unsigned eb = in->a, n = in->b, bytes = eb * n;
    PTX_LANES(m, {
        const vkrr_cusurf *s = surface_of(w, in, (int)l, H[l]);
        if (!s)
            return -1;
        unsigned char buf[32];
        int x = (int32_t)(uint32_t)X[l], y = (int32_t)(uint32_t)Y[l];
        bool ok;
        if (in->e) {
            for (unsigned k = 0; k < n; k++) {
                uint64_t v = PTX_R(w, in->o[3 + k])[l];
                memcpy(buf + k * eb, &v, eb);
            }
            ok = vkrr_cusurf_write(s, buf, bytes, x, y, (vkrr_cusurf_mode)in->c);
        } else {
            ok = vkrr_cusurf_read(s, buf, bytes, x, y, (vkrr_cusurf_mode)in->c);
            if (ok)
                for (unsigned k = 0; k < n; k++) {
                    uint64_t v = 0;
                    memcpy(&v, buf + k * eb, eb);
                    if (in->o[3 + k] != UINT32_MAX)
                        PTX_R(w, in->o[3 + k])[l] = v;
                }
        }
        if (!ok)
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                             "%u-byte surface access at byte x %d, y %d of a %ux%u surface of "
                             "%u-byte texels (out of range or not one texel)",
                             bytes, x, y, s->width, s->height, s->texel_bytes);
    });
    return 0;
}

/* sured.b.2d: o[0] handle, o[1] x (bytes), o[2] y, o[3] value; in->a bytes,
 * in->b op, in->c mode, in->d signed */
HANDLER(x_sured)
{
    const uint64_t *H = PTX_R(w, in->o[0]), *X = PTX_R(w, in->o[1]), *Y = PTX_R(w, in->o[2]);
    const uint64_t *V = PTX_R(w, in->o[3]);
    PTX_LANES(m, {
        const vkrr_cusurf *s = surface_of(w, in, (int)l, H[l]);
        if (!s)
            return -1;
        int x = (int32_t)(uint32_t)X[l], y = (int32_t)(uint32_t)Y[l];
        if (!vkrr_cusurf_reduce(s, in->b, in->d, V[l], in->a, x, y, (vkrr_cusurf_mode)in->c))
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                             "%u-byte surface reduction at byte x %d, y %d of a %ux%u surface of "
                             "%u-byte texels (out of range or not one texel)",
                             in->a, x, y, s->width, s->height, s->texel_bytes);
    });
    return 0;
}

/* txq / suq: o[0] d, o[1] handle; in->a query; in->e 1 surface */
HANDLER(x_query)
{
    uint64_t *d = PTX_R(w, in->o[0]);
    const uint64_t *H = PTX_R(w, in->o[1]);
    PTX_LANES(m, {
        uint32_t v = 0;
        if (in->e) {
            const vkrr_cusurf *s = surface_of(w, in, (int)l, H[l]);
            if (!s)
                return -1;
            v = in->a == 0 ? s->width : in->a == 1 ? s->height : 1u;
        } else {
            const vkrr_cutex *t = texture_of(w, in, (int)l, H[l]);
            if (!t)
                return -1;
            switch (in->a) {
            case 0: v = t->width; break;
            case 1: v = t->height; break;
            case 2: v = 1; break;
            case 3: v = t->normalized; break;
            case 4: v = (uint32_t)t->filter; break;
            case 5: v = (uint32_t)t->address[0]; break;
            default: v = (uint32_t)t->address[1]; break;
            }
        }
        d[l] = v;
    });
    return 0;
}

/* ---- decoder ---------------------------------------------------------------------- */
/* [handle, {x, y}], or with dims 1 [handle, {x}] (then o[2] repeats x) */
static int image_operand(ptx_dctx *c, const ptx_rop *o, ptx_type ct, unsigned dims)
{
    if (!o || o->kind != RO_MEM)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "expected [handle, {coordinates}]");
    if (o->n == 3)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "independent texture/sampler mode");
    const ptx_rop *h = &c->f->rops[o->first], *v = &c->f->rops[o->first + 1];
    bool vec = v->kind == RO_VEC;
    if (o->n != 2 || o->ival != 0 || (vec ? v->n != dims : dims != 1 || v->kind != RO_REG))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "only [handle, {x, y}] (2D) or [handle, {x}] (1D)");
    if (h->kind != RO_REG)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "texture/surface references by name (.texref)");
    const ptx_rop *x = vec ? &c->f->rops[v->first] : v;
    const ptx_rop *y = dims == 2 ? &c->f->rops[v->first + 1] : x;
    if (ptx_set_src(c, 0, h, PT_B64, false) < 0 || ptx_set_src(c, 1, x, ct, false) < 0 ||
        ptx_set_src(c, 2, y, ct, false) < 0)
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

int ptx_dec_tex(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (!strcmp(op, "tex") || !strcmp(op, "tld4")) {
        bool g4 = op[1] == 'l';
        static const char *const comps[] = {".r", ".g", ".b", ".a"};
        int comp = g4 ? ptx_take_any(c, comps, 4) : 0;
        bool d1 = !g4 && ptx_take(c, ".1d"); /* tex1Dfetch: an s32 index */
        if ((!d1 && !ptx_take(c, ".2d")) || !ptx_take(c, ".v4") || comp < 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form (only .2d.v4, and tex.1d.v4)", op);
        ptx_type dt = ptx_take_type(c), ct = ptx_take_type(c);
        if ((dt != PT_F32 && dt != PT_S32 && dt != PT_U32) || ct != (d1 ? PT_S32 : PT_F32) ||
            ptx_rest_ok(c) < 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s types (results f32/s32/u32, "
                                "coordinates f32; .1d: s32)", op);
        if (ptx_nops(c) != 2 || c->r->pipe >= 0)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s with offsets, depth compare or a residency predicate", op);
        if (image_operand(c, ptx_op(c, 1), ct, d1 ? 1 : 2) < 0 ||
            data_regs(c, ptx_op(c, 0), 4, dt, true) < 0)
            return -1;
        in->a = g4;
        in->b = (uint8_t)comp;
        in->c = dt != PT_F32;
        in->e = d1;
        in->fn = x_tex;
        return 1;
    }
    if (!strcmp(op, "suld") || !strcmp(op, "sust")) {
        bool st = op[1] == 'u' && op[2] == 's';
        if (!ptx_take(c, ".b"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s.p (formatted surface access)", op);
        if (!ptx_take(c, ".2d"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form (only .2d)", op);
        int n = ptx_take(c, ".v2") ? 2 : ptx_take(c, ".v4") ? 4 : 1;
        ptx_take_ignorable(c);
        ptx_type t = ptx_take_type(c);
        static const char *const modes[] = {".trap", ".clamp", ".zero"};
        int md = ptx_take_any(c, modes, 3);
        if ((t != PT_B8 && t != PT_B16 && t != PT_B32 && t != PT_B64) || ptx_rest_ok(c) < 0 ||
            ptx_nops(c) != 2)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form", op);
        if (image_operand(c, ptx_op(c, st ? 0 : 1), PT_B32, 2) < 0 ||
            data_regs(c, ptx_op(c, st ? 1 : 0), (unsigned)n, t, !st) < 0)
            return -1;
        in->a = (uint8_t)(ptx_type_bits(t) / 8);
        in->b = (uint8_t)n;
        in->c = (uint8_t)(md < 0 ? 0 : md);
        in->e = st;
        in->fn = x_surf;
        return 1;
    }
    if (!strcmp(op, "sured")) {
        if (!ptx_take(c, ".b"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "sured.p (sample-addressed reductions)");
        static const char *const ops[] = {".add", ".min", ".max", ".and", ".or"};
        int rop = ptx_take_any(c, ops, 5);
        if (!ptx_take(c, ".2d"))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "sured form (only .2d)");
        ptx_type t = ptx_take_type(c);
        static const char *const modes[] = {".trap", ".clamp", ".zero"};
        int md = ptx_take_any(c, modes, 3);
        /* the ISA's pairs: add on u32/u64/s32, min and max on u32/s32/u64/s64, and/or on b32 */
        bool ok = rop == 0   ? t == PT_U32 || t == PT_U64 || t == PT_S32
                  : rop <= 2 ? t == PT_U32 || t == PT_S32 || t == PT_U64 || t == PT_S64
                             : t == PT_B32;
        if (rop < 0 || !ok || ptx_rest_ok(c) < 0 || ptx_nops(c) != 2)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "sured form (add on u32/u64/s32, min/max on "
                                "u32/s32/u64/s64, and/or on b32)");
        if (image_operand(c, ptx_op(c, 0), PT_B32, 2) < 0 || ptx_set_src(c, 3, ptx_op(c, 1), t, false) < 0)
            return -1;
        in->a = (uint8_t)(ptx_type_bits(t) / 8);
        in->b = (uint8_t)rop;
        in->c = (uint8_t)(md < 0 ? 0 : md);
        in->d = t == PT_S32 || t == PT_S64;
        in->fn = x_sured;
        return 1;
    }
    if (!strcmp(op, "txq") || !strcmp(op, "suq")) {
        bool sq = op[0] == 's';
        static const char *const q[] = {".width", ".height", ".depth", ".normalized_coords",
                                        ".filter_mode", ".addr_mode_0", ".addr_mode_1"};
        int k = ptx_take_any(c, q, sq ? 3 : 7);
        if (k < 0 || !ptx_take(c, ".b32") || ptx_rest_ok(c) < 0 || ptx_nops(c) != 2)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s form", op);
        const ptx_rop *a = ptx_op(c, 1);
        if (a->kind != RO_MEM || a->n != 1 || c->f->rops[a->first].kind != RO_REG)
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s of a named texture", op);
        if (ptx_set_dst(c, 0, ptx_op(c, 0), PT_B32, false) < 0 ||
            ptx_set_src(c, 1, &c->f->rops[a->first], PT_B64, false) < 0)
            return -1;
        in->a = (uint8_t)k;
        in->e = sq;
        in->fn = x_query;
        return 1;
    }
    return 0;
}
