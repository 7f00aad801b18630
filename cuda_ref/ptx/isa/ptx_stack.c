/* ptx_stack.c - alloca, stacksave and stackrestore: they move the stack
 * pointer that calls push their records and frames at (ptx_call.c), so an
 * allocation lies past the caller's frame and is freed when its function
 * returns.  A program using them gets the stack a recursive one does
 * (PTX_STACK_BYTES a thread, ptx_decode.c). */
#include <string.h>

#include "ptx_internal.h"

/* alloca.{u32,u64} d, size{, align}: size bytes of the lane's stack at its
 * pointer rounded up to align (default 8); d their local address (a window
 * offset, as `mov %rd, localvar` gives); freed when the function returns.
 * o[0] d, o[1] size; in->imm align. */
static int x_alloca(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    uint64_t *d = PTX_R(w, in->o[0]);
    const uint64_t *n = PTX_R(w, in->o[1]);
    const ptx_rt *rt = w->cta->rt;
    uint64_t lb = rt->local_bytes;
    PTX_LANES(m, {
        uint64_t at = ((uint64_t)w->sp[l] + in->imm - 1u) & ~(in->imm - 1u), end = at + n[l];
        if (end > lb || end < at)
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                             "alloca of %llu bytes overflows the %llu-byte stack a thread has here",
                             (unsigned long long)n[l], (unsigned long long)(lb - rt->f->local_static));
        w->sp[l] = (uint32_t)end;
        d[l] = at;
    });
    return 0;
}

/* stacksave d: the stack pointer; stackrestore a: back to one saved in
 * this function (below its frame or past the pointer: undefined, a fault). */
static int x_stacksave(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    uint64_t *d = PTX_R(w, in->o[0]);
    PTX_LANES(m, { d[l] = w->sp[l]; });
    return 0;
}

static int x_stackrestore(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    const uint64_t *a = PTX_R(w, in->o[0]);
    PTX_LANES(m, {
        if (a[l] < w->fp[l] || a[l] > w->sp[l])
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT,
                             "stackrestore to %llu, outside this function's stack [%u, %u]",
                             (unsigned long long)a[l], w->fp[l], w->sp[l]);
        w->sp[l] = (uint32_t)a[l];
    });
    return 0;
}

bool ptx_is_stack_op(const char *op)
{
    return !strcmp(op, "alloca") || !strcmp(op, "stacksave") || !strcmp(op, "stackrestore");
}

int ptx_dec_stack(ptx_dctx *c)
{
    const char *op = c->r->op;
    ptx_inst *in = c->in;
    if (!ptx_is_stack_op(op))
        return 0;
    ptx_type t = ptx_take_type(c);
    if (t != PT_U32 && t != PT_U64)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "%s takes .u32 or .u64", op);
    if (ptx_rest_ok(c) < 0)
        return -1;
    unsigned n = ptx_nops(c);
    if (op[0] == 'a') {
        const ptx_rop *al = n == 3 ? ptx_op(c, 2) : NULL;
        if ((n != 2 && n != 3) || (al && (al->kind != RO_INT || al->ival < 1 || al->ival > 4096 ||
                                          (al->ival & (al->ival - 1)))))
            return ptx_dec_fail(c, VKRR_ERR_PARSE, "alloca takes d, a size and an optional alignment "
                                "(a power of two)");
        if (ptx_set_dst(c, 0, ptx_op(c, 0), t, false) < 0 || ptx_set_src(c, 1, ptx_op(c, 1), t, false) < 0)
            return -1;
        in->imm = al ? (uint64_t)al->ival : 8u;
        in->fn = x_alloca;
        return 1;
    }
    if (n != 1)
        return ptx_dec_fail(c, VKRR_ERR_PARSE, "%s takes one operand", op);
    bool save = op[5] == 's';
    if (save ? ptx_set_dst(c, 0, ptx_op(c, 0), t, false) < 0 : ptx_set_src(c, 0, ptx_op(c, 0), t, false) < 0)
        return -1;
    in->fn = save ? x_stacksave : x_stackrestore;
    return 1;
}
