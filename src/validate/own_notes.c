/* own_notes.c - the notes of a port with its own interface (own_notes.h). */
#include "own_notes.h"

#include "portpass.h"

void vkrr_own_notes(vkrr_launch_result *out, const vkrr_portdesc *d)
{
    const vkrr_port_iface *f = d ? vkrr_portdesc_iface(d) : NULL;
    /* its filtering is the device's, which the port's tolerance covers */
    const vkrr_port_bind *sb = vkrr_port_iface_sampler_bind(f);
    if (sb)
        vkrr_launch_note(out, "sampler: the device's, not NVIDIA's (binding %u.%u, %s:%ld)", sb->set,
                         sb->binding, vkrr_portdesc_name(d), sb->line);
    /* one launch, several dispatches: what is compared is the last pass's
     * effect on the launch's allocations, never the scratch between them */
    if (f && f->npass > 1)
        vkrr_launch_note(out, "split: %u passes, one launch (%s:%ld..%ld)", f->npass,
                         vkrr_portdesc_name(d), f->pass[0]->line, f->pass[f->npass - 1]->line);
}
