/* port_new.h - the starting point of a port, made from one captured launch
 * (`vkrr port new KERNEL CAPDIR`).
 *
 *     vkrr_port_skeleton sk;
 *     vkrr_port_skeleton_make(cap, launch, "vkrr port new ...", &sk, &err);
 *     ... write sk.comp (KERNEL.comp) and sk.desc (KERNEL.port) ...
 *     vkrr_port_skeleton_free(&sk);
 *
 * KERNEL.comp compiles and runs: the shared includes, the parameter block as
 * a GLSL struct with a member at every captured offset (buffer references for
 * pointers, texture and surface handles as uint64_t with how to use them, the
 * remaining words as uint with their captured values in a comment), the
 * launch's block named as the local size (vkbridge sets it from the captured
 * block), and a main that writes nothing yet, so every output fails
 * validation until the port is written (surfaces as unwritten texels).
 *
 * KERNEL.port lists what the capture shows the kernel writes: every
 * allocation whose post-launch dump differs from its pre-launch bytes (the
 * changed byte range, widened to whole elements, as the window of the
 * pointer that points nearest below it) and every surface.  The element type
 * of a buffer is guessed from the changed bytes (f16, f32, u32 or bytes), and
 * a width/height pair of parameter words whose product divides the window is
 * offered as its shape; both are marked as guesses.
 *
 * Does NOT: write files or compile (the command does), or guess inputs'
 * types beyond a look at their first bytes.  Ownership: comp and port are
 * malloc'd; vkrr_port_skeleton_free frees them.
 */
#ifndef VKRR_PORT_NEW_H
#define VKRR_PORT_NEW_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "status.h"

typedef struct vkrr_port_skeleton {
    char *comp;             /* KERNEL.comp: the shader */
    size_t comp_len;
    char *desc;             /* KERNEL.port: its descriptor */
    size_t desc_len;
    uint32_t outputs;       /* output lines in desc */
    uint32_t guessed;       /* of which buffers whose type is a guess */
} vkrr_port_skeleton;

/* how: the command line that made it, quoted in both files' headers. */
vkrr_status vkrr_port_skeleton_make(const vkrr_capture *cap, const vkrr_launch *l,
                                    const char *how, vkrr_port_skeleton *out, vkrr_error *err);
void vkrr_port_skeleton_free(vkrr_port_skeleton *s); /* accepts a zeroed one */

/* The element type a PTX access reads or writes, from its type and the
 * conversion around it (ptx_params.h); *settled false when the PTX leaves
 * it open (bits moved without a conversion naming a format), alt then says
 * what else it could be.  `port new` and `stress` use it. */
#include "compare.h"
#include "ptx_params.h"
vkrr_dtype vkrr_port_access_dtype(const vkrr_ptx_access *a, bool *settled, const char **alt);

#endif
