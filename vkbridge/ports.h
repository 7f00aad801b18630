/* ports.h - the SPIR-V ports vkbridge can run, by CUDA kernel name.
 *
 * Built-in ports are every shaders/NAME.comp compiled at build time (file base name =
 * kernel name) and embedded by the vkrr_shaders library; with the tests
 * enabled, shaders/test/NAME.comp are registered the same way (names
 * vkrr_test_*).  A ports folder given at run time overrides them: DIR/NAME.spv,
 * or else DIR/NAME.comp, is used instead of the built-in NAME.  A .comp is
 * compiled at load time through glslang's C API (Vulkan 1.2, SPIR-V 1.5, as
 * the build does); `#include "x.glsl"` is resolved first in DIR, then in the
 * copy of shaders/common embedded at build time, so an engineer edits a
 * port (or a common include, copied into DIR) and reruns without rebuilding.
 * A compile error is VKRR_ERR_PARSE naming the file and line.
 *
 *     const vkrr_port_shader *p = vkrr_port_shader_find("my_kernel");   // built-in or NULL
 *     uint32_t *code; size_t bytes;
 *     vkrr_port_shader_load(dir, "my_kernel", &code, &bytes, &err); // caller frees code
 *
 * Does NOT: create shader modules (backend_vk.c does).
 */
#ifndef VKRR_PORTS_H
#define VKRR_PORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "embed.h"
#include "status.h"

typedef struct vkrr_port_shader {
    const char *kernel;    /* CUDA kernel name = the .comp file's base name */
    const uint32_t *code;  /* SPIR-V words */
    size_t bytes;
} vkrr_port_shader;

/* The generated registry (shaders/CMakeLists.txt): ends with a {NULL} entry. */
extern const vkrr_port_shader vkrr_port_shaders_builtin[];

const vkrr_port_shader *vkrr_port_shader_find(const char *kernel); /* NULL when no built-in port */
size_t vkrr_port_shader_count(void);

/* The build's shaders/common includes, embedded: ends with a {NULL} entry. */
typedef vkrr_embedded_file vkrr_glsl_include;
extern const vkrr_glsl_include vkrr_glsl_includes[];

/* Compiles DIR/KERNEL.comp (path) to SPIR-V; *code malloc'd, caller frees. */
vkrr_status vkrr_port_shader_compile_glsl(const char *path, const char *dir, uint32_t **code,
                                    size_t *bytes, vkrr_error *err);

/* True when DIR/KERNEL.spv or DIR/KERNEL.comp exists (dir may be NULL: false). */
bool vkrr_port_shader_dir_has(const char *dir, const char *kernel);
/* The same, with the file that would be used (.spv before .comp) in path. */
bool vkrr_port_shader_dir_file(const char *dir, const char *kernel, char *path, size_t cap);

/* Reads DIR/KERNEL.spv (checked: size a multiple of 4, at most 64 MiB, SPIR-V
 * magic), or compiles DIR/KERNEL.comp when there is no .spv.
 * VKRR_ERR_MISSING when neither exists.  *code is malloc'd; caller frees. */
vkrr_status vkrr_port_shader_load(const char *dir, const char *kernel, uint32_t **code, size_t *bytes,
                            vkrr_error *err);

#endif
