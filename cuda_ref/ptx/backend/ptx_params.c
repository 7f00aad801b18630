/* ptx_params.c - a kernel's parameters followed through its PTX (ptx_params.h). */
#include "ptx_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

static bool has_mod(const ptx_raw *r, const char *mod)
{
    for (uint32_t i = 0; i < r->nmods; i++)
        if (!strcmp(r->mods[i], mod))
            return true;
    return false;
}

/* The element type among the modifiers: the last that is a type. */
static const char *elem_of(const ptx_raw *r)
{
    static const char *const types[] = {".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".b8",
                                        ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32",
                                        ".u64", ".s8", ".s16", ".s32", ".s64", ".e4m3x2", ".e5m2x2"};
    const char *t = "";
    for (uint32_t i = 0; i < r->nmods; i++)
        for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
            if (!strcmp(r->mods[i], types[k]))
                t = r->mods[i] + 1;
    return t;
}

/* A cvt that says what a value is (a float format), not a widening of bits. */
static bool informative_cvt(const ptx_raw *r)
{
    if (strcmp(r->op, "cvt"))
        return false;
    static const char *const f[] = {".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64",
                                    ".e4m3x2", ".e5m2x2", ".tf32"};
    for (uint32_t i = 0; i < r->nmods; i++)
        for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
            if (!strcmp(r->mods[i], f[k]))
                return true;
    return false;
}

static void note(vkrr_ptx_access *a, const ptx_raw *r)
{
    if (!a->count++) {
        snprintf(a->op, sizeof a->op, "%s", r->text);
        snprintf(a->elem, sizeof a->elem, "%s", elem_of(r));
        a->line = r->line;
    }
}

static void note_cvt(vkrr_ptx_access *a, const ptx_raw *r)
{
    if (!a->cvt[0] && informative_cvt(r)) {
        snprintf(a->cvt, sizeof a->cvt, "%s", r->text);
        a->cvt_line = r->line;
    }
}

/* Registers an operand names (a register, or each of a vector's). */
static uint32_t regs_of(const ptx_func *f, const ptx_rop *o, uint32_t *out, uint32_t cap)
{
    uint32_t n = 0;
    if (o->kind == RO_REG && cap)
        out[n++] = o->id;
    else if (o->kind == RO_VEC)
        for (uint32_t k = 0; k < o->n && n < cap; k++)
            if (f->rops[o->first + k].kind == RO_REG)
                out[n++] = f->rops[o->first + k].id;
    return n;
}

/* A "slot" is one word of the parameter block an ld.param reads (a kernel
 * taking a struct by value reads its fields at [param+8], [param+16], ...):
 * the unit a pointer or handle is. */
#define MAX_SLOTS 512
typedef struct flow {
    const ptx_func *f;
    int32_t *addr;      /* per register: the slot its value is derived from, -1 none */
    int32_t *loaded;    /* per register: the slot through which it was loaded */
    int32_t *def;       /* per register: the raw instruction that last wrote it */
    int64_t *poff;      /* per register: the parameter-block offset it holds the address
                         * of (mov %rd, kernel_param_0; add %rd, %rd, 40), else NO_POFF */
    vkrr_ptx_param_use use[MAX_SLOTS];
    uint32_t nslots;
    bool changed;
    bool record;        /* the last pass: note what each instruction does */
    uint32_t tex_float_untraced; /* tex with .f32 coordinates through a handle no slot owns */
} flow;

static int32_t slot_at(flow *fl, uint32_t offset, uint32_t size)
{
    for (uint32_t i = 0; i < fl->nslots; i++)
        if (fl->use[i].offset == offset)
            return (int32_t)i;
    if (fl->nslots == MAX_SLOTS)
        return -1;
    vkrr_ptx_param_use *u = &fl->use[fl->nslots];
    memset(u, 0, sizeof *u);
    u->offset = offset;
    u->size = size;
    u->used = true;
    return (int32_t)fl->nslots++;
}

static uint32_t type_bytes(const ptx_raw *r)
{
    const char *e = elem_of(r);
    if (strstr(e, "64"))
        return 8;
    if (strstr(e, "32"))
        return 4;
    if (strstr(e, "16"))
        return 2;
    return 1;
}

/* The parameter a value computed from sources a and b derives from: a
 * pointer (8 bytes) wins over an index derived from a scalar. */
static int32_t join(const flow *fl, int32_t a, int32_t b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return fl->use[a].size != 8 && fl->use[b].size == 8 ? b : a;
}

/* reg is written: its derivation is the instruction's (a strong update, so
 * a register reused for another pointer follows the new one). */
static void set_addr(flow *fl, uint32_t reg, int32_t p)
{
    if (fl->addr[reg] != p)
        fl->changed = true;
    fl->addr[reg] = p;
}

/* The parameter an address operand [base + off] is derived from, or -1. */
static int32_t base_param(const flow *fl, const ptx_rop *o)
{
    if (!o || o->kind != RO_MEM || !o->n)
        return -1;
    const ptx_rop *b = &fl->f->rops[o->first];
    return b->kind == RO_REG ? fl->addr[b->id] : -1;
}

/* Bits of a type name ("f16" 16, "e4m3x2" 16, "u8" 8). */
static unsigned type_bits(const char *t)
{
    if (strstr(t, "x2"))
        return strstr(t, "e4m3") || strstr(t, "e5m2") ? 16 : 32;
    if (strstr(t, "64"))
        return 64;
    if (strstr(t, "32"))
        return 32;
    if (strstr(t, "16"))
        return 16;
    return 8;
}

/* Does a conversion's result (its first type) fit a stored element: the
 * same width, or a pair of fp8 stored as one or two bytes. */
static bool fits(const ptx_raw *cvt, const char *elem)
{
    const char *to = "";
    for (uint32_t i = 0; i < cvt->nmods && !to[0]; i++)
        if (cvt->mods[i][1] == 'f' || cvt->mods[i][1] == 'b' || cvt->mods[i][1] == 'e' ||
            cvt->mods[i][1] == 'u' || cvt->mods[i][1] == 's')
            if (strcmp(cvt->mods[i], ".rn") && strcmp(cvt->mods[i], ".rz") && strcmp(cvt->mods[i], ".sat") &&
                strcmp(cvt->mods[i], ".satfinite") && strcmp(cvt->mods[i], ".ftz") &&
                strcmp(cvt->mods[i], ".rm") && strcmp(cvt->mods[i], ".rp") && strcmp(cvt->mods[i], ".rni") &&
                strcmp(cvt->mods[i], ".rzi") && strcmp(cvt->mods[i], ".rmi") && strcmp(cvt->mods[i], ".rpi") &&
                strcmp(cvt->mods[i], ".relu"))
                to = cvt->mods[i] + 1;
    bool fp8 = strstr(to, "e4m3") || strstr(to, "e5m2");
    return to[0] && (type_bits(to) == type_bits(elem) || (fp8 && type_bits(elem) <= 16));
}

/* Bit moves that keep a value what it was: widening, packing, masking. */
static bool bit_move(const ptx_raw *r)
{
    static const char *const ops[] = {"mov", "cvt", "and", "or", "shl", "shr", "prmt", "bfe", "bfi",
                                      "selp"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (!strcmp(r->op, ops[k]))
            return !informative_cvt(r);
    return false;
}

/* The conversion that made the value in reg, looking back through bit
 * moves (cvt.u32.u16 after cvt.rn.satfinite.e4m3x2.f32, ...). */
static void made_by(const flow *fl, uint32_t reg, vkrr_ptx_access *a, int depth)
{
    int32_t d = fl->def[reg];
    if (d < 0 || depth > 6 || a->cvt[0])
        return;
    const ptx_raw *r = &fl->f->raw[d];
    if (informative_cvt(r)) {
        if (fits(r, a->elem)) /* an f64 step inside software arithmetic says nothing */
            note_cvt(a, r);
        return;
    }
    if (!bit_move(r))
        return;
    const ptx_rop *ops = r->nops ? &fl->f->rops[r->ops] : NULL; /* none: rops may be NULL */
    for (uint32_t i = 1; i < r->nops && !a->cvt[0]; i++) {
        uint32_t src[8];
        for (uint32_t k = 0, n = regs_of(fl->f, &ops[i], src, 8); k < n; k++)
            made_by(fl, src[k], a, depth + 1);
    }
}

#define NO_POFF INT64_MIN

/* What r leaves in the registers it writes of a parameter's address: nvcc
 * reads a struct passed by value through one (mov.b64 %rd5, k_param_0;
 * add.s64 %rd3, %rd5, 40; ld.param.u64 %rd20, [%rd3+-40]). */
static void param_address(flow *fl, const ptx_raw *r, const ptx_rop *ops)
{
    const ptx_func *f = fl->f;
    uint32_t dst[8], nd = r->nops ? regs_of(f, &ops[0], dst, 8) : 0;
    int64_t v = NO_POFF;
    if (nd == 1 && r->nops == 2 && !strcmp(r->op, "mov") && ops[1].kind == RO_PARAM &&
        !f->params[ops[1].id].ref)
        v = (int64_t)f->params[ops[1].id].offset + ops[1].ival;
    else if (nd == 1 && r->nops == 3 && (!strcmp(r->op, "add") || !strcmp(r->op, "sub"))) {
        for (int k = 1; k <= 2 && v == NO_POFF; k++) {
            const ptx_rop *a = &ops[k], *b = &ops[3 - k];
            if (a->kind == RO_REG && fl->poff[a->id] != NO_POFF && b->kind == RO_INT &&
                (k == 1 || r->op[0] == 'a'))
                v = fl->poff[a->id] + (r->op[0] == 'a' ? b->ival : -b->ival);
        }
    }
    for (uint32_t k = 0; k < nd; k++) {
        if (fl->poff[dst[k]] != v)
            fl->changed = true;
        fl->poff[dst[k]] = v;
    }
}

static void step(flow *fl, uint32_t at)
{
    const ptx_func *f = fl->f;
    const ptx_raw *r = &f->raw[at];
    const ptx_rop *ops = r->nops ? &f->rops[r->ops] : NULL; /* none: rops may be NULL */
    uint32_t dst[8];
    const ptx_rop *mb = r->nops == 2 && ops[1].kind == RO_MEM && ops[1].n ? &f->rops[ops[1].first] : NULL;
    bool via_reg = mb && mb->kind == RO_REG && fl->poff[mb->id] != NO_POFF;
    param_address(fl, r, ops);
    if (!strcmp(r->op, "ld") && has_mod(r, ".param") && mb && (mb->kind == RO_PARAM || via_reg)) {
        /* [param+8]: the offset is the symbol's (mb->ival), [param]+8 the address's */
        uint32_t base = (uint32_t)(via_reg ? fl->poff[mb->id]
                                           : f->params[mb->id].offset + mb->ival) +
                        (uint32_t)ops[1].ival,
                 size = type_bytes(r);
        for (uint32_t k = 0, n = regs_of(f, &ops[0], dst, 8); k < n; k++) {
            set_addr(fl, dst[k], slot_at(fl, base + k * size, size));
            fl->loaded[dst[k]] = -1;
            fl->def[dst[k]] = (int32_t)at;
        }
        return;
    }
    bool image = !strcmp(r->op, "tex") || !strcmp(r->op, "tld4") || !strcmp(r->op, "suld") ||
                 !strcmp(r->op, "sust") || !strcmp(r->op, "sured") || !strcmp(r->op, "txq") ||
                 !strcmp(r->op, "suq");
    if (image) {
        /* tex's last type is its coordinates' (tex.2d.v4.f32.s32): integer
         * ones read a texel unfiltered; tld4 gathers, txq asks */
        bool tex = !strcmp(r->op, "tex"), tex_int = tex && !strcmp(elem_of(r), "s32"), owned = false;
        for (uint32_t i = 0; i < r->nops; i++) {
            /* a handle in a register, or .texref/.samplerref/.surfref parameters
             * named by the instruction itself ([img, smp, {x, y}], as NVPTX
             * emits OpenCL images; a sampler is a texture object too) */
            int32_t ps[2] = {base_param(fl, &ops[i]), -1};
            uint32_t nh = ops[i].kind != RO_MEM ? 0 : ops[i].n == 1 ? 1 : ops[i].n - 1; /* not {x, y} */
            for (uint32_t k = 0; base_param(fl, &ops[i]) < 0 && k < nh && k < 2; k++) {
                const ptx_rop *h = &f->rops[ops[i].first + k];
                if (h->kind == RO_PARAM && f->params[h->id].ref)
                    ps[k] = slot_at(fl, f->params[h->id].offset, 8);
            }
            for (int k = 0; k < 2 && fl->record; k++) {
                if (ps[k] < 0)
                    continue;
                vkrr_ptx_param_use *u = &fl->use[ps[k]];
                if (!u->image_op[0]) {
                    snprintf(u->image_op, sizeof u->image_op, "%s", r->text);
                    u->image_line = r->line;
                }
                u->texture = u->texture || r->op[0] == 't';
                u->surface = u->surface || r->op[0] == 's';
                if (tex)
                    (*(tex_int ? &u->tex_int : &u->tex_float))++;
                owned = true;
            }
        }
        if (tex && !tex_int && !owned && fl->record)
            fl->tex_float_untraced++;
        return;
    }
    bool ld = !strcmp(r->op, "ld") || !strcmp(r->op, "ldu");
    bool st = !strcmp(r->op, "st");
    bool at_op = !strcmp(r->op, "atom") || !strcmp(r->op, "red");
    if ((ld || st || at_op) && !has_mod(r, ".shared") && !has_mod(r, ".local") &&
        !has_mod(r, ".param") && !has_mod(r, ".const")) {
        for (uint32_t i = 0; i < r->nops; i++) {
            int32_t p = base_param(fl, &ops[i]);
            if (p < 0)
                continue;
            vkrr_ptx_param_use *u = &fl->use[p];
            if (fl->record) {
                u->address = true;
                note(ld ? &u->load : st ? &u->store : &u->atomic, r);
            }
            if (ld) {
                for (uint32_t k = 0, n = regs_of(f, &ops[0], dst, 8); k < n; k++)
                    fl->loaded[dst[k]] = p;
            } else if (st && i == 0 && r->nops > 1 && fl->record) {
                for (uint32_t k = 0, n = regs_of(f, &ops[1], dst, 8); k < n && !u->store.cvt[0]; k++)
                    made_by(fl, dst[k], &u->store, 0);
            }
            break;
        }
        for (uint32_t k = 0, n = (ld || at_op) && r->nops ? regs_of(f, &ops[0], dst, 8) : 0; k < n; k++) {
            set_addr(fl, dst[k], -1); /* a loaded value is data, not an address */
            fl->def[dst[k]] = (int32_t)at;
        }
        return;
    }
    /* everything else: the destination (first operand) is derived from any
     * source register derived from a parameter; a loaded value's first
     * informative conversion is noted against the parameter it came through */
    if (!r->nops)
        return;
    uint32_t nd = regs_of(f, &ops[0], dst, 8);
    int32_t from = -1, loaded = -1;
    for (uint32_t i = 1; i < r->nops; i++) {
        uint32_t src[8];
        for (uint32_t k = 0, n = regs_of(f, &ops[i], src, 8); k < n; k++) {
            from = join(fl, from, fl->addr[src[k]]);
            if (fl->loaded[src[k]] >= 0) {
                loaded = fl->loaded[src[k]];
                if (fl->record)
                    note_cvt(&fl->use[loaded].load, r);
            }
        }
    }
    for (uint32_t d = 0; d < nd; d++) {
        set_addr(fl, dst[d], from);
        /* a value moved (mov, widened, masked) stays "loaded" until converted */
        fl->loaded[dst[d]] = bit_move(r) ? loaded : -1;
        fl->def[dst[d]] = (int32_t)at;
    }
}

uint32_t vkrr_ptx_entry_params(const vkrr_ptx_module *m, const char *entry, vkrr_ptx_param_decl *out,
                               uint32_t cap, bool *found)
{
    *found = false;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        if (!f->entry || strcmp(f->name, entry))
            continue;
        *found = true;
        for (uint32_t p = 0; p < f->nparams && p < cap; p++)
            out[p] = (vkrr_ptx_param_decl){f->params[p].offset, (uint32_t)f->params[p].size,
                                           f->params[p].align};
        return f->nparams;
    }
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    uint32_t x = ((const vkrr_ptx_param_use *)a)->offset, y = ((const vkrr_ptx_param_use *)b)->offset;
    return x < y ? -1 : x > y;
}

static void flow_free(flow *fl)
{
    if (fl)
        free(fl->addr), free(fl->loaded), free(fl->def), free(fl->poff);
    free(fl);
}

/* entry's parameters followed to a fixed point and recorded: *out, which
 * flow_free frees. */
static vkrr_status run_flow(const vkrr_ptx_module *m, const char *entry, flow **out, vkrr_error *err)
{
    *out = NULL;
    const ptx_func *f = NULL;
    for (uint32_t i = 0; i < m->nfuncs && !f; i++)
        if (m->funcs[i].entry && !strcmp(m->funcs[i].name, entry))
            f = &m->funcs[i];
    if (!f)
        return vkrr_fail(err, VKRR_ERR_MISSING, m->name, 0, -1, "no .entry %s", entry);
    if (f->broken) /* its instructions stop where its body stopped parsing */
        return vkrr_fail(err, VKRR_ERR_UNSUPPORTED, f->err.file, f->err.line, -1, "%s", f->err.msg);
    flow *fl = calloc(1, sizeof *fl); /* large (the slots): not on the stack */
    if (fl) {
        fl->f = f;
        fl->addr = malloc((f->nregs + 1) * sizeof *fl->addr);
        fl->loaded = malloc((f->nregs + 1) * sizeof *fl->loaded);
        fl->def = malloc((f->nregs + 1) * sizeof *fl->def);
        fl->poff = malloc((f->nregs + 1) * sizeof *fl->poff);
    }
    if (!fl || !fl->addr || !fl->loaded || !fl->def || !fl->poff) {
        flow_free(fl);
        return vkrr_fail(err, VKRR_ERR_NOMEM, m->name, 0, -1, "out of memory");
    }
    for (uint32_t r = 0; r < f->nregs; r++) {
        fl->addr[r] = fl->loaded[r] = fl->def[r] = -1;
        fl->poff[r] = NO_POFF;
    }
    /* to a fixed point (a pointer carried round a loop reaches its uses),
     * then once more noting what each instruction does */
    for (int pass = 0; pass < 8; pass++) {
        fl->changed = false;
        for (uint32_t i = 0; i < f->nraw; i++)
            step(fl, i);
        if (!fl->changed)
            break;
    }
    fl->record = true;
    for (uint32_t i = 0; i < f->nraw; i++)
        step(fl, i);
    /* the words read, then every parameter no ld.param touches, by offset */
    for (uint32_t p = 0; p < f->nparams; p++) {
        bool touched = false;
        for (uint32_t i = 0; i < fl->nslots && !touched; i++)
            touched = fl->use[i].offset >= f->params[p].offset &&
                      fl->use[i].offset < f->params[p].offset + f->params[p].size;
        if (!touched && fl->nslots < MAX_SLOTS) {
            vkrr_ptx_param_use *u = &fl->use[fl->nslots++];
            memset(u, 0, sizeof *u);
            u->offset = f->params[p].offset;
            u->size = (uint32_t)f->params[p].size;
        }
    }
    qsort(fl->use, fl->nslots, sizeof fl->use[0], by_offset);
    *out = fl;
    return VKRR_OK;
}

vkrr_status vkrr_ptx_param_uses(const vkrr_ptx_module *m, const char *entry, vkrr_ptx_param_use *out,
                                uint32_t cap, uint32_t *n, vkrr_error *err)
{
    *n = 0;
    flow *fl;
    vkrr_status st = run_flow(m, entry, &fl, err);
    if (st != VKRR_OK)
        return st;
    for (uint32_t i = 0; i < fl->nslots && i < cap; i++)
        out[i] = fl->use[i];
    *n = fl->nslots;
    flow_free(fl);
    return VKRR_OK;
}

/* A tex instruction with other than .s32 coordinates in a function an
 * entry may call (any .func of the module: calls are not followed). */
static bool func_tex_float(const vkrr_ptx_module *m)
{
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        if (f->entry)
            continue;
        if (f->broken)
            return true;
        for (uint32_t k = 0; k < f->nraw; k++)
            if (!strcmp(f->raw[k].op, "tex") && strcmp(elem_of(&f->raw[k]), "s32"))
                return true;
    }
    return false;
}

bool vkrr_ptx_texture_may_filter(const vkrr_ptx_module *m, const char *entry, uint32_t offset)
{
    flow *fl;
    vkrr_error e = {0};
    if (run_flow(m, entry, &fl, &e) != VKRR_OK)
        return true;
    bool calls = false;
    for (uint32_t k = 0; k < fl->f->nraw && !calls; k++)
        calls = !strcmp(fl->f->raw[k].op, "call");
    bool may = fl->tex_float_untraced || (calls && func_tex_float(m));
    const vkrr_ptx_param_use *u = NULL;
    for (uint32_t i = 0; i < fl->nslots && !u; i++)
        if (fl->use[i].offset == offset)
            u = &fl->use[i];
    may = may || !u || !u->tex_int || u->tex_float;
    flow_free(fl);
    return may;
}
