/* spirv_strip.h - a SPIR-V module reduced to its interface, for reflection.
 *
 * SPIRV-Cross as Debian 12 packages it (2021.01.15) cannot parse a module
 * that uses cooperative matrices ("Currently no block to insert opcode"),
 * so an `interface own` port using them could not be held against its
 * descriptor on a device that has them.  Reflection needs only the module's
 * interface: its decorations, interface variables, entry point, execution
 * modes and specialisation constants.  vkrr_spirv_interface_only() keeps
 * those and drops what reflection never reads: every function body (each
 * becomes OpLabel; OpUnreachable), the cooperative-matrix types
 * (OpTypeCooperativeMatrixNV/KHR), every global instruction that names a
 * dropped id (and so on, transitively), their capabilities, and dropped ids
 * from OpEntryPoint's interface list.  The copy is for reflection alone,
 * never for a pipeline (vkiface.c uses it when the module itself does not
 * parse).
 *
 *     uint32_t *w; size_t n;
 *     if (vkrr_spirv_interface_only(code, words, &w, &n)) { ...; free(w); }
 */
#ifndef VKRR_SPIRV_STRIP_H
#define VKRR_SPIRV_STRIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* false: not a well-formed module (header, instruction lengths), or no
 * memory; *out is then NULL.  Caller frees *out. */
bool vkrr_spirv_interface_only(const uint32_t *code, size_t words, uint32_t **out, size_t *out_words);

#endif
