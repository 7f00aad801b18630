/* datadir.h - where vkrr's run-time data lives, found from the executable.
 *
 * What vkrr reads at run time besides what is built into it (the hardware
 * tables, the GLSL includes, the built-in ports and descriptors are embedded)
 * is rrref's CUDA modules, which `vkrr synth` copies into a capture and
 * `synth --backend cuda` launches.  They live in a data folder:
 *
 *   $VKRR_DATA_DIR             when set (the one variable that points elsewhere)
 *   EXEDIR/../share/vkrr       an installed vkrr (PREFIX/bin/vkrr)
 *   EXEDIR/share/vkrr          the build tree (build/vkrr, build/share/vkrr)
 *
 * the first that exists.  No path of the build tree is compiled in, so a
 * copied or installed binary finds its data wherever it is put.
 *
 *     char p[4096];
 *     if (vkrr_data_path("modules", p, sizeof p)) ... p is DATADIR/modules, which exists
 *
 * Does NOT: create anything, or cache beyond the process (the executable's
 * folder is read once, from /proc/self/exe).
 */
#ifndef VKRR_DATADIR_H
#define VKRR_DATADIR_H

#include <stdbool.h>
#include <stddef.h>

/* The data folder, or NULL when none of the places exists.  *how (may be
 * NULL) says which rule found it: "VKRR_DATA_DIR", "installed", "build tree". */
const char *vkrr_data_dir(const char **how);
/* DATADIR/rel into out when it exists; false (out "") otherwise. */
bool vkrr_data_path(const char *rel, char *out, size_t cap);
/* The folder of the running executable ("" when /proc/self/exe cannot be read). */
const char *vkrr_exe_dir(void);

#endif
