/* embed.h - a text file embedded in the binary at build time.
 *
 * The build turns source-tree text files into C arrays
 * (shaders/embed_files.cmake): the shared GLSL includes (vkbridge/ports.h)
 * and the built-in port descriptors shaders/KERNEL.port (src/port/portdesc.h).
 * Each table ends with a {NULL} entry; text is NUL-terminated, len excludes it.
 */
#ifndef VKRR_EMBED_H
#define VKRR_EMBED_H

#include <stddef.h>

typedef struct vkrr_embedded_file {
    const char *name; /* file name without directories: "half.glsl", "K.port" */
    const char *text;
    size_t len;
} vkrr_embedded_file;

#endif
