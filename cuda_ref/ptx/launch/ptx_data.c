/* ptx_data.c - a launch's copy of its module's .global and .const
 * variables: the images their initializers made, with the addresses some
 * initializers hold (of variables, of functions: ptx_reloc) patched in for
 * this copy's place in memory. */
#include "ptx_internal.h"

void ptx_module_data(const vkrr_ptx_module *m, uint8_t *globals, uint8_t *constmem)
{
    memcpy(globals, m->global_image, m->global_bytes);
    memcpy(constmem, m->const_image, m->const_bytes);
    for (uint32_t i = 0; i < m->nrelocs; i++) {
        const ptx_reloc *x = &m->relocs[i];
        const ptx_var *v = &m->vars[x->var], *t = x->func ? NULL : &m->vars[x->target];
        uint64_t a = x->func ? ptx_fn_addr(x->target)
                             : (uint64_t)(uintptr_t)(t->space == SP_GLOBAL ? globals : constmem) +
                                   t->offset;
        a += (uint64_t)x->addend;
        memcpy((v->space == SP_GLOBAL ? globals : constmem) + v->offset + x->at, &a, 8);
    }
}
