/* ports_dir.h - a `--ports DIR` checked against the capture it is meant for.
 *
 * A run-time port is found by name (DIR/KERNEL.comp, .spv, .port), so a
 * misnamed file is silently not used and the built-in port runs in its
 * place.  Before anything runs:
 *   - a folder in which no file is named after a captured kernel is an error
 *     (VKRR_ERR_USAGE, exit 2) naming the folder and the kernels it could
 *     hold: the engineer believed a port of theirs would run, and none would;
 *   - each file whose name is no captured kernel is a warning naming it and
 *     the nearest kernel name (a typo, a kernel of another capture).
 * Other files (includes, notes) are not looked at: only .comp, .spv, .port.
 *
 * Does NOT: compile or parse anything (the backend and portdesc.h do).
 */
#ifndef VKRR_PORTS_DIR_H
#define VKRR_PORTS_DIR_H

#include "capture.h"
#include "status.h"

vkrr_status vkrr_ports_dir_check(const char *dir, const vkrr_capture *cap, vkrr_error *err);

/* The captured kernel name nearest to name (edit distance); NULL when the
 * capture has no launch. */
const char *vkrr_nearest_kernel(const vkrr_capture *cap, const char *name);

#endif
