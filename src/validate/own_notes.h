/* own_notes.h - what a launch's row says of a port with its own interface
 * (issue 48): it samples through the device's VkSampler, it runs as several
 * passes. */
#ifndef VKRR_OWN_NOTES_H
#define VKRR_OWN_NOTES_H

#include "portdesc.h"
#include "validate.h"

/* Adds the notes of d (NULL, or a port of bindings.glsl's: none) to out. */
void vkrr_own_notes(vkrr_launch_result *out, const vkrr_portdesc *d);

#endif
