/* ptx_link.c - an entry's program: the entry and every .func it calls,
 * directly or through others, appended to the entry's instruction, operand,
 * register and label arrays (one segment each, ptx_seg), so that the decoder
 * and the executor see one program with one register file.  Each function's
 * registers stay its own (ptx_slots.c never lets two functions share a
 * slot), so a call needs to save nothing, except into a function that is
 * already running on the thread's stack: recursion (a cycle of calls), for
 * which each call gets a frame holding its variables and its registers.
 *
 * Only what the entry reaches is linked: a function it never calls cannot
 * fail it, whatever that function holds.  Here too: `call` decoded against
 * that program (ptx_call.c runs it; the CUDA runtime's functions a module
 * declares but cannot define, vprintf, __assertfail, malloc and free, are
 * ptx_runtime.c's),
 * and the addresses of a recursive function's variables. */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_internal.h"

/* A call's target operand: the first that is not a parenthesised list. */
static const ptx_rop *call_target(const ptx_func *f, const ptx_raw *r)
{
    for (uint32_t i = 0; i < r->nops; i++)
        if (f->rops[r->ops + i].kind != RO_PAREN)
            return &f->rops[r->ops + i];
    return NULL;
}

/* The functions segment s names (calls, or takes the address of); true when
 * it calls through a register. */
static bool calls_of(const ptx_func *f, const ptx_seg *s, uint32_t nfuncs, bool *out)
{
    bool indirect = false;
    for (uint32_t pc = s->pc0; pc < s->pc1; pc++) {
        const ptx_raw *r = &f->raw[pc];
        for (uint32_t i = 0; i < r->nops; i++) {
            const ptx_rop *o = &f->rops[r->ops + i];
            if (o->kind == RO_FUNC && o->id < nfuncs)
                out[o->id] = true;
        }
        if (!strcmp(r->op, "call")) {
            const ptx_rop *t = call_target(f, r);
            indirect = indirect || (t && t->kind == RO_REG);
        }
    }
    return indirect;
}

/* The functions whose address the module takes anywhere (in a function,
 * not as a call's target, or in an initializer): what a call through a
 * register may reach. */
static void address_taken(const vkrr_ptx_module *m, bool *out)
{
    for (uint32_t i = 0; i < m->nrelocs; i++)
        if (m->relocs[i].func && m->relocs[i].target < m->nfuncs)
            out[m->relocs[i].target] = true;
    for (uint32_t g = 0; g < m->nfuncs; g++) {
        const ptx_func *f = &m->funcs[g];
        for (uint32_t pc = 0; !f->broken && pc < f->nraw; pc++) {
            const ptx_raw *r = &f->raw[pc];
            const ptx_rop *t = strcmp(r->op, "call") ? NULL : call_target(f, r);
            for (uint32_t i = 0; i < r->nops; i++) {
                const ptx_rop *o = &f->rops[r->ops + i];
                if (o != t && o->kind == RO_FUNC && o->id < m->nfuncs)
                    out[o->id] = true;
            }
        }
    }
}

/* An implicit ret at the end of a function (falling off the end returns). */
static bool add_ret(ptx_func *f, uint32_t line)
{
    if (!ptx_grow((void **)&f->raw, &f->capraw, f->nraw, sizeof *f->raw))
        return false;
    ptx_raw *r = &f->raw[f->nraw++];
    memset(r, 0, sizeof *r);
    r->line = line;
    r->op = "ret";
    r->text = "ret";
    r->guard = -1;
    r->pipe = -1;
    r->ops = f->nrops;
    return true;
}

/* Appends g's body to f: segment s. */
static bool append(ptx_func *f, const ptx_func *g, ptx_seg *s)
{
    uint32_t braw = f->nraw, brop = f->nrops, breg = f->nregs, blab = f->nlabels;
    s->pc0 = braw;
    s->reg0 = breg;
    s->lab0 = blab;
    for (uint32_t i = 0; i < g->nregs; i++) {
        if (!ptx_grow((void **)&f->regs, &f->capregs, f->nregs, sizeof *f->regs))
            return false;
        f->regs[f->nregs++] = g->regs[i];
    }
    for (uint32_t i = 0; i < g->nrops; i++) {
        if (!ptx_grow((void **)&f->rops, &f->caprops, f->nrops, sizeof *f->rops))
            return false;
        ptx_rop o = g->rops[i];
        if (o.kind == RO_REG)
            o.id += breg;
        if (o.kind == RO_MEM || o.kind == RO_VEC || o.kind == RO_PAREN)
            o.first += brop;
        f->rops[f->nrops++] = o;
    }
    for (uint32_t i = 0; i < g->nraw; i++) {
        if (!ptx_grow((void **)&f->raw, &f->capraw, f->nraw, sizeof *f->raw))
            return false;
        ptx_raw r = g->raw[i];
        r.ops += brop;
        if (r.guard >= 0)
            r.guard += (int32_t)breg;
        f->raw[f->nraw++] = r;
    }
    for (uint32_t i = 0; i < g->nlabels; i++) {
        if (!ptx_grow((void **)&f->labels, &f->caplabels, f->nlabels, sizeof *f->labels))
            return false;
        f->labels[f->nlabels] = g->labels[i];
        f->labels[f->nlabels++].at += braw;
    }
    if (!add_ret(f, g->nraw ? g->raw[g->nraw - 1].line : g->line))
        return false;
    s->pc1 = f->nraw;
    s->reg1 = f->nregs;
    s->lab1 = f->nlabels;
    return true;
}

/* Marks the segments on a cycle of calls. */
static void find_recursion(ptx_func *f, const bool *edge /* nsegs x nsegs */)
{
    uint32_t n = f->nsegs;
    bool *seen = malloc(n ? n : 1);
    uint32_t *stack = malloc(sizeof *stack * (n ? n : 1));
    if (!seen || !stack) {
        /* without memory to look, every callee is taken as recursive: slower, never wrong */
        for (uint32_t s = 1; s < n; s++)
            f->segs[s].recursive = true;
        free(seen);
        free(stack);
        return;
    }
    for (uint32_t s = 1; s < n; s++) {
        memset(seen, 0, n);
        uint32_t sp = 0;
        for (uint32_t t = 0; t < n; t++)
            if (edge[(size_t)s * n + t] && !seen[t])
                seen[t] = true, stack[sp++] = t;
        while (sp && !seen[s]) {
            uint32_t u = stack[--sp];
            for (uint32_t t = 0; t < n; t++)
                if (edge[(size_t)u * n + t] && !seen[t])
                    seen[t] = true, stack[sp++] = t;
        }
        f->segs[s].recursive = seen[s];
    }
    free(seen);
    free(stack);
}

int ptx_link(vkrr_ptx_module *m, ptx_func *f)
{
    uint32_t nf = m->nfuncs, fidx = (uint32_t)(f - m->funcs);
    f->seg_of = malloc(sizeof *f->seg_of * nf);
    f->segs = calloc(nf + 1, sizeof *f->segs);
    bool *callees = calloc(nf, 1);
    bool *edge = NULL, *taken = NULL;
    if (!f->seg_of || !f->segs || !callees)
        goto nomem;
    for (uint32_t i = 0; i < nf; i++)
        f->seg_of[i] = -1;
    f->seg_of[fidx] = 0;
    f->segs[0] = (ptx_seg){.func = (int32_t)fidx, .pc0 = 0, .lab0 = 0, .reg0 = 0};
    if (!add_ret(f, f->nraw ? f->raw[f->nraw - 1].line : f->line))
        goto nomem;
    f->segs[0].pc1 = f->nraw;
    f->segs[0].reg1 = f->nregs;
    f->segs[0].lab1 = f->nlabels;
    f->nsegs = 1;
    /* breadth first: each new segment's callees after it; a call through a
     * register may reach any function whose address is taken */
    for (uint32_t s = 0; s < f->nsegs; s++) {
        memset(callees, 0, nf);
        if (calls_of(f, &f->segs[s], nf, callees)) {
            if (!taken && (!(taken = calloc(nf, 1)) || (address_taken(m, taken), false)))
                goto nomem;
            for (uint32_t g = 0; g < nf; g++)
                callees[g] = callees[g] || taken[g];
        }
        for (uint32_t g = 0; g < nf; g++) {
            const ptx_func *gf = &m->funcs[g];
            if (!callees[g] || f->seg_of[g] >= 0 || gf->entry || !gf->defined || gf->broken)
                continue; /* calls of entries, of undefined and of broken functions fail
                           * when decoded */
            ptx_seg *ns = &f->segs[f->nsegs];
            ns->func = (int32_t)g;
            if (!append(f, gf, ns))
                goto nomem;
            f->seg_of[g] = (int32_t)f->nsegs++;
        }
    }
    if (f->nsegs > 1) {
        uint32_t n = f->nsegs;
        edge = calloc((size_t)n * n, 1);
        if (!edge)
            goto nomem;
        for (uint32_t s = 0; s < n; s++) {
            memset(callees, 0, nf);
            if (calls_of(f, &f->segs[s], nf, callees) && taken)
                for (uint32_t g = 0; g < nf; g++)
                    callees[g] = callees[g] || taken[g];
            for (uint32_t g = 0; g < nf; g++)
                if (callees[g] && f->seg_of[g] >= 0)
                    edge[(size_t)s * n + (uint32_t)f->seg_of[g]] = true;
        }
        find_recursion(f, edge);
    }
    free(callees);
    free(edge);
    free(taken);
    return 0;
nomem:
    free(callees);
    free(edge);
    free(taken);
    vkrr_fail(&f->err, VKRR_ERR_NOMEM, m->name, (long)f->line, -1, "out of memory linking '%s'",
              f->name);
    return -1;
}

uint32_t ptx_seg_at(const ptx_func *f, uint32_t pc)
{
    for (uint32_t s = 0; s < f->nsegs; s++)
        if (pc >= f->segs[s].pc0 && pc < f->segs[s].pc1)
            return s;
    return 0;
}


/* After decoding: slots (one group a function, so that a call clobbers
 * none of its caller's registers), then each recursive function's frame:
 * its variables, then its registers' slots and its predicates, saved by a
 * call into it and put back by its ret. */
int ptx_frames(ptx_dctx *c, const ptx_dref *refs, uint32_t nrefs, const uint32_t *pidx)
{
    ptx_func *f = c->f;
    uint32_t *group = malloc(sizeof *group * (f->nregs ? f->nregs : 1)), *reg_slot = NULL;
    if (!group)
        return -1;
    for (uint32_t s = 0; s < f->nsegs; s++)
        for (uint32_t r = f->segs[s].reg0; r < f->segs[s].reg1; r++)
            group[r] = s;
    int rc = ptx_finalize_slots(f, refs, nrefs, group, &reg_slot);
    free(group);
    if (rc < 0)
        return -1;
    uint8_t *seen = calloc(f->nslots, 1);
    if (!seen) {
        free(reg_slot);
        return -1;
    }
    for (uint32_t i = 0; i < f->nsegs; i++) {
        ptx_seg *s = &f->segs[i];
        s->frame_bytes = PTX_CALL_RECORD;
        if (!s->recursive)
            continue;
        uint32_t n = s->reg1 - s->reg0;
        s->save_slots = malloc(sizeof *s->save_slots * (n ? n : 1));
        s->save_preds = malloc(sizeof *s->save_preds * (n ? n : 1));
        if (!s->save_slots || !s->save_preds) {
            free(seen);
            free(reg_slot);
            return -1;
        }
        for (uint32_t r = s->reg0; r < s->reg1; r++) {
            if (f->regs[r].type == PT_PRED)
                s->save_preds[s->npsave++] = pidx[r];
            else if (reg_slot[r] != UINT32_MAX && !seen[reg_slot[r]])
                seen[reg_slot[r]] = 1, s->save_slots[s->nsave++] = reg_slot[r];
        }
        uint64_t bytes = PTX_CALL_RECORD + ((s->frame_locals + 15u) & ~15u) + 8ull * s->nsave +
                         s->npsave;
        s->frame_bytes = (uint32_t)((bytes + 15u) & ~15ull);
    }
    free(seen);
    free(reg_slot);
    return 0;
}

/* ---- calls --------------------------------------------------------------------- */
static int add_copy(ptx_dctx *c, ptx_copy cp)
{
    ptx_func *f = c->f;
    if (!ptx_grow((void **)&f->copies, &f->capcopies, f->ncopies, sizeof *f->copies))
        return ptx_dec_fail(c, VKRR_ERR_NOMEM, "out of memory");
    f->copies[f->ncopies++] = cp;
    return 0;
}

/* The caller's side of one argument or result: a .param (or .local)
 * variable of the caller at least `bytes` long. */
static int caller_var(ptx_dctx *c, const ptx_rop *o, uint64_t bytes, uint32_t *off, uint8_t *frame)
{
    if (o->kind == RO_REG)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "call arguments in registers (only .param "
                                                     "variables, as the PTX ABI passes them)");
    if (o->kind != RO_SYM || o->id >= c->m->nvars || c->m->vars[o->id].space != SP_LOCAL)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "a call argument must be a .param variable");
    const ptx_var *v = &c->m->vars[o->id];
    if ((uint64_t)o->ival + bytes > v->size)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "'%s' (%llu bytes) is smaller than the parameter "
                                               "it is passed for (%llu bytes)",
                            v->name, (unsigned long long)v->size, (unsigned long long)bytes);
    *off = (uint32_t)(c->f->var_off[o->id] + (uint64_t)o->ival);
    *frame = ptx_var_in_frame(c, o->id);
    return 0;
}

static int builtin_of(const char *name)
{
    if (!strcmp(name, "vprintf"))
        return PTX_BI_VPRINTF;
    if (!strcmp(name, "__assertfail"))
        return PTX_BI_ASSERTFAIL;
    if (!strcmp(name, "malloc"))
        return PTX_BI_MALLOC;
    if (!strcmp(name, "free"))
        return PTX_BI_FREE;
    return PTX_BI_NONE;
}

/* call{.uni} [(results),] function [, (arguments)]; through a register:
 * call [(results),] %rd [, (arguments)], prototype. */
int ptx_dec_call(ptx_dctx *c)
{
    ptx_func *f = c->f;
    ptx_inst *in = c->in;
    ptx_take(c, ".uni");
    if (ptx_rest_ok(c) < 0)
        return -1;
    unsigned n = ptx_nops(c), i = 0;
    const ptx_rop *rets = NULL, *args = NULL, *target;
    if (n && ptx_op(c, 0)->kind == RO_PAREN)
        rets = ptx_op(c, i++);
    target = ptx_op(c, i++);
    if (i < n && ptx_op(c, i)->kind == RO_PAREN)
        args = ptx_op(c, i++);
    bool indirect = target && target->kind == RO_REG;
    if (indirect && i < n && ptx_op(c, i)->kind == RO_NAME)
        i++; /* the prototype: the callee's own declaration is checked at the call */
    if (!target || i != n || (target->kind != RO_FUNC && !indirect) ||
        (!indirect && target->id >= c->m->nfuncs))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "call needs a function");
    const ptx_func *g = indirect ? NULL : &c->m->funcs[target->id];
    if (g && g->entry)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "'%s' is an .entry: it cannot be called", g->name);
    if (g && g->broken)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "'%s' does not parse (line %ld: %s)", g->name,
                            g->err.line, g->err.msg);
    int bi = !g || g->defined ? PTX_BI_NONE : builtin_of(g->name);
    if (g && !g->defined && bi == PTX_BI_NONE)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED,
                            "'%s' is declared but not defined in this module (calls into other "
                            "modules are not linked)", g->name);
    uint32_t nargs = args ? args->n : 0, nrets = rets ? rets->n : 0;
    if (g && (nargs != g->nparams || nrets != g->nrets))
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "'%s' takes %u arguments and %u results, the call "
                                               "passes %u and %u",
                            g->name, g->nparams, g->nrets, nargs, nrets);
    if (!ptx_grow((void **)&f->calls, &f->capcalls, f->ncalls, sizeof *f->calls))
        return ptx_dec_fail(c, VKRR_ERR_NOMEM, "out of memory");
    ptx_call call = {.builtin = (uint8_t)bi, .indirect = indirect, .args0 = f->ncopies,
                     .nargs = nargs, .nrets = nrets};
    if (g && f->seg_of[target->id] >= 0)
        call.seg = (uint32_t)f->seg_of[target->id];
    for (unsigned k = 0; k < nargs + nrets; k++) {
        bool arg = k < nargs;
        unsigned j = arg ? k : k - nargs;
        const ptx_rop *o = &f->rops[(arg ? args : rets)->first + j];
        ptx_copy cp = {0};
        uint64_t bytes = 0;
        if (g) {
            bytes = (arg ? g->params : g->rets)[j].size;
        } else if (o->kind == RO_SYM && o->id < c->m->nvars) {
            bytes = c->m->vars[o->id].size - (uint64_t)o->ival; /* checked against the callee */
        }
        if (caller_var(c, o, bytes, &cp.off, &cp.frame) < 0)
            return -1;
        cp.bytes = (uint32_t)bytes;
        if (k == nargs)
            call.rets0 = f->ncopies;
        if (add_copy(c, cp) < 0)
            return -1;
    }
    if (!nrets)
        call.rets0 = f->ncopies;
    in->imm = f->ncalls;
    f->calls[f->ncalls++] = call;
    if (bi) {
        static const ptx_fn fns[] = {NULL, ptx_bi_vprintf, ptx_bi_assertfail, ptx_bi_malloc, ptx_bi_free};
        in->fn = fns[bi];
        f->uses_heap |= bi == PTX_BI_MALLOC || bi == PTX_BI_FREE;
        return 1;
    }
    in->kind = K_CALL;
    in->a = indirect;
    if (indirect)
        return ptx_set_src(c, 0, target, PT_U64, false) < 0 ? -1 : 1;
    in->target = f->segs[call.seg].pc0;
    return 1;
}

/* d = the address of a recursive function's variable: its frame + offset
 * (in->a: as a generic address). o[0] d, o[1] the frame slot. */
static int x_frame_addr(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    uint64_t *d = PTX_R(w, in->o[0]);
    const uint64_t *fp = PTX_R(w, in->o[1]);
    uint64_t lb = w->cta->rt->local_bytes;
    PTX_LANES(m, {
        uint64_t a = fp[l] + in->imm;
        d[l] = in->a ? (uint64_t)(uintptr_t)(w->local + (size_t)l * lb) + a : a;
    });
    return 0;
}

/* mov.u64 d, V / cvta.local.u64 d, V where V lives in a recursive
 * function's frame (nvcc: `mov.u64 %SPL, __local_depot0;`). */
int ptx_dec_frame(ptx_dctx *c)
{
    const char *op = c->r->op;
    if ((strcmp(op, "mov") && strcmp(op, "cvta")) || ptx_nops(c) != 2)
        return 0;
    const ptx_rop *v = ptx_op(c, 1);
    if (v->kind != RO_SYM || !ptx_var_in_frame(c, v->id))
        return 0;
    bool generic = !strcmp(op, "cvta");
    if (generic && !ptx_take(c, ".local"))
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "cvta of a local variable to another space");
    ptx_type t = ptx_take_type(c);
    if (t != PT_U64 && t != PT_B64 && t != PT_S64)
        return ptx_dec_fail(c, VKRR_ERR_UNSUPPORTED, "a 32-bit address of '%s'",
                            c->m->vars[v->id].name);
    if (ptx_rest_ok(c) < 0 || ptx_set_dst(c, 0, ptx_op(c, 0), PT_U64, false) < 0 ||
        ptx_set_slot(c, 1, (int64_t)(TAG_SREG | SR_FRAME), true, false) < 0)
        return -1;
    c->in->imm = c->f->var_off[v->id] + (uint64_t)v->ival;
    c->in->a = generic;
    c->in->fn = x_frame_addr;
    return 1;
}
