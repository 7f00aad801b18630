/* own_notes.h - what a launch's row says of a port with its own interface
 * (issue 48): it samples through the device's VkSampler, it runs as several
 * passes, it stands for a run of launches (fused) or does not match here. */
#ifndef VKRR_OWN_NOTES_H
#define VKRR_OWN_NOTES_H

#include "portdesc.h"
#include "validate.h"

/* Adds the notes of d (NULL, or a port of bindings.glsl's: none) for l to
 * out.  False, with out NO PORT and why, for a launch a fused port does not
 * match (l->no_port, fused_runs.h). */
bool vkrr_own_notes(vkrr_launch_result *out, const vkrr_portdesc *d, const vkrr_launch *l);

#endif
