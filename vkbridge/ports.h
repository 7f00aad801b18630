/* ports.h - the SPIR-V ports vkbridge can run, by CUDA kernel name.
 *
 * Built-in ports are every shaders/NAME.comp compiled at build time (file base name =
 * kernel name) and embedded by the vkrr_shaders library; with the tests
 * enabled, shaders/test/NAME.comp are registered the same way (names
 * vkrr_test_*).  A ports folder given at run time overrides them: DIR/NAME.spv
 * is used instead of the built-in NAME.  Only SPIR-V is read from a folder;
 * compiling NAME.comp at run time (glslang's C API) is not supported, compile
 * it with glslangValidator -V --target-env vulkan1.2 -I shaders/common.
 *
 *     const vkrr_port *p = vkrr_ports_find("my_kernel");   // built-in or NULL
 *     uint32_t *code; size_t bytes;
 *     vkrr_ports_load(dir, "my_kernel", &code, &bytes, &err); // caller frees code
 *
 * Does NOT: create shader modules (backend_vk.c does).
 */
#ifndef VKRR_PORTS_H
#define VKRR_PORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct vkrr_port {
    const char *kernel;    /* CUDA kernel name = the .comp file's base name */
    const uint32_t *code;  /* SPIR-V words */
    size_t bytes;
} vkrr_port;

/* The generated registry (shaders/CMakeLists.txt): ends with a {NULL} entry. */
extern const vkrr_port vkrr_ports_builtin[];

const vkrr_port *vkrr_ports_find(const char *kernel); /* NULL when no built-in port */
size_t vkrr_ports_count(void);

/* True when DIR/KERNEL.spv exists (dir may be NULL: false). */
bool vkrr_ports_dir_has(const char *dir, const char *kernel);

/* Reads DIR/KERNEL.spv (checked: size a multiple of 4, at most 64 MiB, SPIR-V
 * magic).  VKRR_ERR_MISSING when absent.  *code is malloc'd; caller frees. */
vkrr_status vkrr_ports_load(const char *dir, const char *kernel, uint32_t **code, size_t *bytes,
                            vkrr_error *err);

#endif
