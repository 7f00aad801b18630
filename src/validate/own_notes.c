/* own_notes.c - the notes of a port with its own interface (own_notes.h). */
#include "own_notes.h"

#include <stdio.h>

#include "portpass.h"

bool vkrr_own_notes(vkrr_launch_result *out, const vkrr_portdesc *d, const vkrr_launch *l)
{
    if (l->no_port) {
        out->status = VKRR_LAUNCH_NO_PORT;
        snprintf(out->note, sizeof out->note, "%s", l->no_port);
        return false;
    }
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
    /* several launches, one port: one step in isolated and chained mode and
     * in bisect, compared where its output lines say */
    if (l->nfused)
        vkrr_launch_note(out, "fused: %u launches as one step, #%llu..#%llu (%s:%ld)", l->nfused,
                         (unsigned long long)l->fused_seq[0],
                         (unsigned long long)l->fused_seq[l->nfused - 1], vkrr_portdesc_name(d),
                         f ? f->covers_line : 0L);
    return true;
}
