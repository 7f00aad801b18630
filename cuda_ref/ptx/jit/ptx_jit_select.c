/* ptx_jit_select.c - which runs of a kernel the JIT compiles (ptx_jit.c's
 * tiers say why): runs of plain instructions, those with enough inline
 * instructions, within a budget weighed by what compiling each saves; where
 * runs share functions (the quick tier), the budget weighs the functions
 * once emitting has found them. */
#ifdef VKRR_PTX_JIT_LLVM

#include <stdio.h>
#include <stdlib.h>

#include "ptx_jit_emit.h"

/* A run starts at pc: plain instructions, none after the first a branch
 * target (where the scheduler may regroup the warp's lanes). */
static uint32_t run_length(const ptx_func *f, uint32_t pc)
{
    uint32_t n = 0;
    while (pc + n < f->ncode && f->code[pc + n].kind == K_PLAIN &&
           (n == 0 || !(f->code[pc + n].flags & F_TARGET)))
        n++;
    return n;
}

typedef struct jit_cand { /* a run select_runs may compile */
    uint32_t pc, n, inl, cost;
} jit_cand;

/* The more inline instructions a unit of cost first; then the earlier run. */
static int cand_cmp(const void *pa, const void *pb)
{
    const jit_cand *a = pa, *b = pb;
    uint64_t x = (uint64_t)a->inl * b->cost, y = (uint64_t)b->inl * a->cost;
    return x != y ? (x < y ? 1 : -1) : (a->pc > b->pc) - (a->pc < b->pc);
}

/* What compiling the run at pc (n instructions) costs and saves. */
static jit_cand cand_of(const ptx_func *f, uint32_t pc, uint32_t n)
{
    jit_cand c = {pc, n, 0, 0};
    for (uint32_t k = 0; k < n; k++) {
        unsigned x = ptx_jit_emit_weight(&f->code[pc + k]);
        c.inl += x != 0;
        c.cost += x ? x : 1;
    }
    return c;
}

/* Marks the runs a tier compiles (seq[pc].len where one starts, names[pc]
 * its name for now): those with at least inline_pct percent inline
 * instructions, and of them, past a cost of budget (instructions
 * weighed by ptx_jit_emit_weight, a call 1), those with the largest share
 * that fit (where runs share functions, ptx_jit_budget_shapes weighs the functions
 * instead, once they are known).  Returns how many instructions they hold,
 * or UINT32_MAX when out of memory. */
uint32_t ptx_jit_select_runs(const ptx_func *f, unsigned inline_pct, uint32_t budget, ptx_jit_seq *seq,
                             char (*names)[48])
{
    jit_cand *c = calloc(f->ncode ? f->ncode : 1, sizeof *c);
    uint32_t nc = 0, total = 0;
    uint64_t cost = 0;
    if (!c)
        return UINT32_MAX;
    for (uint32_t pc = 0; pc < f->ncode;) {
        uint32_t n = run_length(f, pc);
        if (!n) {
            pc++;
            continue;
        }
        jit_cand r = cand_of(f, pc, n);
        if ((uint64_t)r.inl * 100u >= (uint64_t)n * inline_pct) {
            c[nc++] = r;
            total += n;
            cost += r.cost;
        }
        pc += n;
    }
    if (budget && cost > budget) {
        qsort(c, nc, sizeof *c, cand_cmp);
        uint32_t kept = 0;
        total = 0;
        cost = 0;
        for (uint32_t i = 0; i < nc; i++)
            if (cost + c[i].cost <= budget) {
                cost += c[i].cost;
                total += c[i].n;
                c[kept++] = c[i];
            }
        nc = kept;
    }
    for (uint32_t i = 0; i < nc; i++) {
        snprintf(names[c[i].pc], sizeof names[c[i].pc], "vkrr_pc%u", c[i].pc);
        seq[c[i].pc].len = c[i].n;
    }
    free(c);
    return total;
}

void ptx_jit_tabs_free(jit_tabs *t)
{
    if (t) {
        free(t->v);
        free(t->at);
        free(t->rep);
    }
}

/* The budget where runs share functions (tabs->rep after emitting):
 * a function costs its run's weight once and saves the interpreter its
 * inline instructions in every run that calls it, so those saving the most
 * a unit of cost are kept first, up to budget; a dropped function is
 * deleted (fns) and its runs are interpreted (seq[pc].len 0).  An unrolled
 * kernel's runs are a few shapes, all kept.  Returns how many instructions
 * the runs compiled hold, or UINT32_MAX when out of memory. */
uint32_t ptx_jit_budget_shapes(const ptx_func *f, uint32_t budget, ptx_jit_seq *seq, const jit_tabs *tabs,
                               LLVMValueRef *fns, uint64_t *kept_cost)
{
    uint32_t *uses = calloc(f->ncode ? f->ncode : 1, sizeof *uses), nc = 0, total = 0;
    jit_cand *c = calloc(f->ncode ? f->ncode : 1, sizeof *c);
    if (!uses || !c) {
        free(uses);
        free(c);
        return UINT32_MAX;
    }
    for (uint32_t pc = 0; pc < f->ncode; pc++)
        if (seq[pc].len)
            uses[tabs->rep[pc]]++;
    uint64_t cost = 0;
    for (uint32_t pc = 0; pc < f->ncode; pc++)
        if (seq[pc].len && tabs->rep[pc] == pc) {
            c[nc] = cand_of(f, pc, seq[pc].len);
            c[nc].inl *= uses[pc];
            cost += c[nc++].cost;
        }
    if (budget && cost > budget) {
        qsort(c, nc, sizeof *c, cand_cmp);
        cost = 0;
        for (uint32_t i = 0; i < nc; i++) /* uses[pc]: 0 for a function dropped */
            if (cost + c[i].cost <= budget) {
                cost += c[i].cost;
            } else {
                LLVMDeleteFunction(fns[c[i].pc]);
                fns[c[i].pc] = NULL;
                uses[c[i].pc] = 0;
            }
    }
    for (uint32_t pc = 0; pc < f->ncode; pc++)
        if (seq[pc].len && !uses[tabs->rep[pc]])
            seq[pc].len = 0;
        else
            total += seq[pc].len;
    *kept_cost = cost;
    free(uses);
    free(c);
    return total;
}

#else
typedef int ptx_jit_select_unused; /* ISO C: a translation unit is not empty */
#endif
