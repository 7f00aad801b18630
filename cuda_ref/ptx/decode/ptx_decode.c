/* ptx_decode.c - raw instructions -> the compact executable form, once per
 * function: control flow (bra, ret, exit, trap, bar/barrier), variable
 * layout, and the driver that hands each instruction to its family and the
 * slots to ptx_slots.c.  The operand helpers every decoder uses are in
 * ptx_operand.c, below the families and this file. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_internal.h"


/* ---- control flow --------------------------------------------------------------- */
static int find_label(ptx_dctx *c, const char *name)
{
    const ptx_seg *s = &c->f->segs[c->seg];
    for (uint32_t i = s->lab0; i < s->lab1; i++)
        if (!strcmp(c->f->labels[i].name, name))
            return (int)c->f->labels[i].at;
    return -1;
}

static int dec_bar(ptx_dctx *c);

/* brx.idx{.uni} index, tlist: to the index-th label of tlist's .branchtargets
 * (each lane its own; an index past the list is a fault, undefined in the ISA) */
static int dec_brx(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    if (!ptx_take(c, ".idx"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "brx other than brx.idx");
    ptx_take(c, ".uni");
    const ptx_rop *t = ptx_op(c, 1);
    if (ptx_rest_ok(c) < 0)
        return -1;
    if (ptx_nops(c) != 2 || !t || t->kind != RO_NAME)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "brx.idx takes an index and a .branchtargets label");
    const ptx_seg *s = &c->f->segs[c->seg];
    const ptx_label *list = NULL;
    for (uint32_t i = s->lab0; i < s->lab1 && !list; i++)
        if (!strcmp(c->f->labels[i].name, t->name))
            list = &c->f->labels[i];
    if (!list || !list->targets)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "'%s' is no .branchtargets list of this function", t->name);
    if (!(in->ox = ptx_alloc_ox(c, list->ntargets)))
        return -1;
    for (uint32_t k = 0; k < list->ntargets; k++) {
        int at = find_label(c, list->targets[k]);
        if (at < 0)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "label '%s' of '%s' is not defined", list->targets[k],
                                t->name);
        in->ox[k] = (uint32_t)at;
    }
    if (ptx_set_src(c, 0, ptx_op(c, 0), PT_U32, false) < 0)
        return -1;
    in->imm = list->ntargets;
    in->kind = K_BRX;
    return 1;
}

static int dec_control(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (!strcmp(op, "bra")) {
        ptx_take(c, ".uni");
        const ptx_rop *t = ptx_op(c, 0);
        if (ptx_nops(c) != 1 || !t || t->kind != RO_NAME)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "bra needs one label");
        int at = find_label(c, t->name);
        if (at < 0)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "label '%s' is not defined in '%s'", t->name,
                                c->m->funcs[c->f->segs[c->seg].func].name);
        in->kind = K_BRA;
        in->target = (uint32_t)at;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "ret") || !strcmp(op, "exit")) {
        ptx_take(c, ".uni");
        if (ptx_nops(c) != 0)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "%s takes no operands", op);
        if (c->seg > 0 && !strcmp(op, "ret")) {
            in->kind = K_RET;
            in->imm = c->seg;
        } else {
            in->kind = K_EXIT;
        }
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "trap")) {
        in->kind = K_TRAP;
        return ptx_rest_ok(c) < 0 ? -1 : 1;
    }
    if (!strcmp(op, "bar") && c->r->nmods > 0 && !strcmp(c->r->mods[0], ".warp"))
        return ptx_dec_warpsync(c);
    if (!strcmp(op, "bar") || !strcmp(op, "barrier"))
        return dec_bar(c);
    if (!strcmp(op, "call"))
        return ptx_dec_call(c);
    if (!strcmp(op, "brx"))
        return dec_brx(c);
    if (!strcmp(op, "callp"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "%s is not implemented", op);
    return 0;
}

/* bar{.cta}.sync / barrier{.cta}.sync{.aligned} a{, b}; bar.arrive a, b;
 * bar.red.popc.u32 d, a{, b}, {!}c; bar.red.and|or.pred p, a{, b}, {!}c.
 * in->a: 0 sync, 1 arrive, 2 red; in->b: red op 0 popc 1 and 2 or;
 * o[0] barrier slot, o[1] count slot (in->c = 1 when present), o[2] red dst
 * (R for popc, P for and/or), o[3] red source predicate (in->d negated). */
static int dec_bar(ptx_dctx *c)
{
    ptx_inst *in = c->in;
    ptx_take(c, ".cta");
    ptx_take(c, ".aligned");
    int mode = ptx_take(c, ".sync") ? 0 : ptx_take(c, ".arrive") ? 1 : ptx_take(c, ".red") ? 2 : -1;
    if (mode < 0) {
        if (!strcmp(c->r->op, "bar") && c->r->nmods == 0)
            mode = 0; /* plain "bar a" is bar.sync */
        else
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "barrier form");
    }
    in->kind = K_BAR;
    in->a = (uint8_t)mode;
    unsigned i = 0, n = ptx_nops(c);
    if (mode == 2) {
        static const char *const ops[] = {".popc", ".and", ".or"};
        int rop = ptx_take_any(c, ops, 3);
        ptx_type t = ptx_take_type(c);
        if (rop < 0 || (rop == 0 && t != PT_U32) || (rop > 0 && t != PT_PRED))
            return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "bar.red form");
        in->b = (uint8_t)rop;
        if (rop == 0) {
            if (ptx_set_dst(c, 2, ptx_op(c, 0), PT_U32, false) < 0)
                return -1;
        } else {
            int64_t d = ptx_pdst(c, ptx_op(c, 0));
            if (d < 0)
                return -1;
            in->o[2] = (uint32_t)d;
        }
        i = 1;
        if (n != 3 && n != 4)
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "bar.red takes 3 or 4 operands");
        bool neg = false;
        int64_t p = ptx_psrc(c, ptx_op(c, n - 1), &neg);
        if (p < 0)
            return -1;
        in->o[3] = (uint32_t)p;
        in->d = neg;
        n--;
    }
    if (n < i + 1 || n > i + 2)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "wrong number of operands");
    if (mode == 1 && n != i + 2)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "bar.arrive needs a thread count");
    if (ptx_set_src(c, 0, ptx_op(c, i), PT_U32, false) < 0)
        return -1;
    if (n == i + 2) {
        if (ptx_set_src(c, 1, ptx_op(c, i + 1), PT_U32, false) < 0)
            return -1;
        in->c = 1;
    }
    return ptx_rest_ok(c) < 0 ? -1 : 1;
}

/* No effect here: hints, profiling, sleeping. */
static int nop_fn(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    (void)w, (void)in, (void)m;
    return 0;
}

static int dec_nop(ptx_dctx *c)
{
    const char *op = c->r->op;
    if (!strcmp(op, "nanosleep") || !strcmp(op, "pmevent") || !strcmp(op, "brkpt") ||
        !strcmp(op, "griddepcontrol")) {
        for (unsigned i = 0; i < c->r->nmods; i++)
            c->mod_used[i] = true;
        c->in->fn = nop_fn;
        return 1;
    }
    return 0;
}

/* ---- variable layout ------------------------------------------------------------ */
static uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

/* Module .global/.const variables: two images. */
static bool layout_module(vkrr_ptx_module *m)
{
    uint64_t g = 0, k = 0;
    for (uint32_t i = 0; i < m->nvars; i++) {
        ptx_var *v = &m->vars[i];
        if (v->func >= 0 || (v->space != SP_GLOBAL && v->space != SP_CONST))
            continue;
        uint64_t *at = v->space == SP_GLOBAL ? &g : &k;
        *at = align_up(*at, v->align ? v->align : 1);
        v->offset = *at;
        *at += v->size;
        if (*at > (1ull << 31))
            return false;
    }
    m->global_bytes = g;
    m->const_bytes = k;
    m->global_image = ptx_arena_alloc(&m->arena, g ? g : 1);
    m->const_image = ptx_arena_alloc(&m->arena, k ? k : 1);
    if (!m->global_image || !m->const_image)
        return false;
    for (uint32_t i = 0; i < m->nvars; i++) {
        ptx_var *v = &m->vars[i];
        if (v->func >= 0 || !v->init || (v->space != SP_GLOBAL && v->space != SP_CONST))
            continue;
        memcpy((v->space == SP_GLOBAL ? m->global_image : m->const_image) + v->offset, v->init, v->size);
    }
    return true;
}

/* This program's shared and local windows: the module-scope shared/local
 * variables it names plus its functions' own, in declaration order; dynamic
 * shared memory after the static part (16-byte aligned).  A recursive
 * function's .local/.param variables live in its frames instead (offsets
 * from the frame, var_frame); the thread's call stack follows the static
 * part of the local window. */
static int layout_function(ptx_dctx *c)
{
    vkrr_ptx_module *m = c->m;
    ptx_func *f = c->f;
    bool *used = calloc(m->nvars ? m->nvars : 1, 1);
    f->var_off = calloc(m->nvars ? m->nvars : 1, sizeof *f->var_off);
    f->var_frame = calloc(m->nvars ? m->nvars : 1, 1);
    if (!used || !f->var_off || !f->var_frame) {
        free(used);
        return -1;
    }
    for (uint32_t i = 0; i < f->nrops; i++)
        if (f->rops[i].kind == RO_SYM && f->rops[i].id < m->nvars)
            used[f->rops[i].id] = true;
    uint64_t sh = 0, lo = 0, dyn_align = 16;
    bool recursion = false;
    for (uint32_t i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        int32_t seg = v->func >= 0 ? f->seg_of[v->func] : -1;
        if (v->func >= 0 && seg < 0)
            continue; /* another function's, not linked here */
        if (!used[i] && !(seg > 0 && v->param))
            continue; /* a callee's parameters are written by its calls */
        if (v->space == SP_SHARED && !v->dynamic) {
            sh = align_up(sh, v->align);
            f->var_off[i] = sh;
            sh += v->size;
        } else if (v->space == SP_SHARED) {
            f->uses_dynamic_shared = true;
            if (v->align > dyn_align)
                dyn_align = v->align;
        } else if (v->space == SP_LOCAL && seg > 0 && f->segs[seg].recursive) {
            ptx_seg *s = &f->segs[seg];
            uint64_t at = align_up(s->frame_locals, v->align);
            if (at + v->size > (1u << 20)) {
                free(used);
                return -2;
            }
            f->var_off[i] = at;
            f->var_frame[i] = 1;
            s->frame_locals = (uint32_t)(at + v->size);
            recursion = true;
        } else if (v->space == SP_LOCAL) {
            lo = align_up(lo, v->align);
            f->var_off[i] = lo;
            lo += v->size;
        }
    }
    f->shared_static = align_up(sh, dyn_align);
    for (uint32_t i = 0; i < m->nvars; i++)
        if (used[i] && m->vars[i].space == SP_SHARED && m->vars[i].dynamic)
            f->var_off[i] = f->shared_static;
    f->local_static = align_up(lo, 16);
    for (uint32_t i = 0; i < f->nraw && !recursion; i++)
        recursion = ptx_is_stack_op(f->raw[i].op); /* alloca & co. use the stack too */
    /* the call stack: a record a call, and a recursive call's frame */
    f->local_bytes = f->local_static + (recursion ? PTX_STACK_BYTES
                                                  : f->nsegs > 1 ? 16u * f->nsegs : 0u);
    free(used);
    if (f->shared_static > (1u << 20) || f->local_static > (1u << 20)) {
        c->r = f->nraw ? &f->raw[0] : NULL;
        return -2;
    }
    return 0;
}

/* ---- one function ---------------------------------------------------------------- */
static void decode_function(vkrr_ptx_module *m, ptx_func *f)
{
    ptx_dstate s;
    memset(&s, 0, sizeof s);
    ptx_dctx *c = &s.c;
    c->m = m;
    c->f = f;
    c->err = &f->err;
    memset(&f->err, 0, sizeof f->err);
    f->status = VKRR_OK;
    bool used[32];
    c->mod_used = used;
    if (ptx_link(m, f) < 0)
        goto fail;
    s.pidx = calloc(f->nregs ? f->nregs : 1, sizeof *s.pidx);
    f->code = calloc(f->nraw + 1, sizeof *f->code);
    if (!s.pidx || !f->code)
        goto nomem;
    for (uint32_t r = 0; r < f->nregs; r++)
        if (f->regs[r].type == PT_PRED)
            s.pidx[r] = f->npreds++;
    s.sink = f->npreds++;
    int lay = layout_function(c);
    if (lay == -1)
        goto nomem;
    if (lay == -2) {
        vkrr_fail(&f->err, VKRR_ERR_UNSUPPORTED, m->name, (long)f->line, -1,
                  "'%s' uses more than 1 MiB of shared or local memory", f->name);
        goto fail;
    }
    for (uint32_t i = 0; i < f->nlabels; i++)
        if (f->labels[i].at < f->nraw)
            f->code[f->labels[i].at].flags |= F_TARGET;
    for (uint32_t pc = 0; pc < f->nraw; pc++) {
        const ptx_raw *r = &f->raw[pc];
        ptx_inst *in = &f->code[pc];
        c->r = r;
        c->in = in;
        c->pc = pc;
        if (pc == f->segs[c->seg].pc1)
            c->seg++;
        memset(used, 0, sizeof used);
        in->guard = -1;
        if (r->guard >= 0) {
            in->guard = (int32_t)s.pidx[r->guard];
            in->gneg = r->guard_neg;
        }
        int got = ptx_dec_frame(c);
        if (got == 0)
            got = dec_control(c);
        if (got == 0)
            got = dec_nop(c);
        if (got == 0)
            got = ptx_dec_int(c);
        if (got == 0)
            got = ptx_dec_bits(c);
        if (got == 0)
            got = ptx_dec_float(c);
        if (got == 0)
            got = ptx_dec_cvt(c);
        if (got == 0)
            got = ptx_dec_mbarrier(c);
        if (got == 0)
            got = ptx_dec_mem(c);
        if (got == 0)
            got = ptx_dec_warp(c);
        if (got == 0)
            got = ptx_dec_mma(c);
        if (got == 0)
            got = ptx_dec_ldmatrix(c);
        if (got == 0)
            got = ptx_dec_wmma(c);
        if (got == 0)
            got = ptx_dec_tex(c);
        if (got == 0)
            got = ptx_dec_stack(c);
        if (s.nomem)
            goto nomem;
        if (got == 0)
            ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "instruction %s is not implemented", r->op);
        if (got <= 0)
            goto fail;
        if (in->kind == K_PLAIN && !in->fn)
            goto internal;
    }
    f->ncode = f->nraw;
    /* falling off the end of an entry is a ret */
    f->code[f->ncode].kind = K_EXIT;
    f->code[f->ncode].guard = -1;
    f->ncode++;
    if (ptx_frames(c, s.refs, s.nrefs, s.pidx) < 0)
        goto nomem;
    free(s.refs);
    free(s.pidx);
    return;
internal:
    vkrr_fail(&f->err, VKRR_ERR_INTERNAL, m->name, (long)c->r->line, -1, "%s: decoded to nothing",
              c->r->text);
    goto fail;
nomem:
    if (f->err.status == VKRR_OK)
        vkrr_fail(&f->err, VKRR_ERR_NOMEM, m->name, (long)f->line, -1, "out of memory decoding '%s'",
                  f->name);
fail:
    f->status = f->err.status ? f->err.status : VKRR_ERR_INTERNAL;
    free(f->code);
    f->code = NULL;
    f->ncode = 0;
    free(s.refs);
    free(s.pidx);
}

void ptx_decode_module(vkrr_ptx_module *m)
{
    bool ok = layout_module(m);
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        ptx_func *f = &m->funcs[i];
        if (!f->entry || !f->defined || f->broken)
            continue; /* a broken body's status is its parse error */
        if (!ok) {
            f->status = vkrr_fail(&f->err, VKRR_ERR_UNSUPPORTED, m->name, (long)f->line, -1,
                                  "module variables larger than 2 GiB");
            continue;
        }
        decode_function(m, f);
    }
}

