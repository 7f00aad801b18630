/* portpass.h - one launch, several dispatches: the `pass` and `scratch`
 * lines of an `interface own` descriptor (README "A shader with its own
 * interface", docs/own-interface.md "Launches and dispatches").
 *
 * A production port often splits one CUDA launch into passes with buffers
 * of its own between them (a reduction, then a normalisation).  The
 * descriptor says so:
 *
 *     interface own
 *     scratch partial size=(u32@16+63)/64*4     # bytes, an expression
 *     pass shader=my_norm_sum                   # ports/my_norm_sum.comp|.spv
 *     binding 0.0 storage-buffer arg0
 *     binding 0.1 storage-buffer scratch:partial
 *     dispatch (u32@16+63)/64 1 1
 *     pass                                      # the kernel's own shader
 *     binding 0.0 storage-buffer scratch:partial
 *     binding 0.1 storage-buffer arg8
 *     output arg8 f32 width=u32@16
 *
 *   scratch NAME size=EXPR   a storage buffer of the port's own, zeroed
 *       before the first pass, alive for the launch, never compared; NAME a
 *       C identifier, declared above the bindings that name it.
 *   pass [shader=NAME]       starts a pass: the binding, push, specialize,
 *       workgroup and dispatch lines below it are its own (the same lines
 *       as a one-pass port's).  NAME: a shader in the ports folder
 *       (NAME.spv, else NAME.comp); none: the kernel's own shader.  Passes
 *       run in file order in one command buffer, a compute barrier between
 *       each and the next.
 *   binding S.B storage-buffer|uniform-buffer scratch:NAME [offset=] [size=]
 *       a view of scratch NAME (offset and size within it).
 *
 * With `pass` lines, every binding, push, specialize, workgroup and
 * dispatch line belongs to a pass: one above the first pass is refused.
 * Errors name the file and the line (VKRR_ERR_PARSE / VKRR_ERR_RANGE).
 *
 * Does NOT: run anything (vkbridge/vkiface.c, vkrecord.c do).
 */
#ifndef VKRR_PORTPASS_H
#define VKRR_PORTPASS_H

#include "portiface.h"

typedef struct vkrr_port_scratch {
    char name[32];
    vkrr_port_expr size;
    long line;
} vkrr_port_scratch;

/* Is tok a pass keyword (pass scratch)? */
bool vkrr_port_pass_keyword(const char *tok);
/* A `pass` or `scratch` line into head f. */
vkrr_status vkrr_port_pass_line(vkrr_port_iface *f, char **tok, int nt, const char *name, long line,
                                vkrr_error *err);
/* Where the other interface lines go: the last pass, or f itself. */
vkrr_port_iface *vkrr_port_pass_current(vkrr_port_iface *f);
/* `scratch:NAME` (ref, after the colon) of a binding in f (a pass or the
 * head): b->arg the scratch's index, b->scratch set. */
vkrr_status vkrr_port_scratch_ref(const vkrr_port_iface *f, vkrr_port_bind *b, const char *ref,
                                  const char *name, long line, vkrr_error *err);
/* The sizes of f's head's scratch buffers against a launch (what: "launch
 * #3 k", for errors) into run->scratch_size. */
vkrr_status vkrr_port_scratch_eval(const vkrr_port_iface *f, const char *name,
                                   const vkrr_port_env *env, const char *what,
                                   vkrr_port_iface_run *run, vkrr_error *err);
/* The first binding of f or any of its passes that samples through a
 * VkSampler (combined-image-sampler or sampler); NULL: none. */
const vkrr_port_bind *vkrr_port_iface_sampler_bind(const vkrr_port_iface *f);

#endif
