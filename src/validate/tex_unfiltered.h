/* tex_unfiltered.h - which texture arguments of a capture's kernels their
 * PTX reads only unfiltered, so that a row does not say their linear filter
 * is "not measured on a GPU" (validate_hwnote.c) when the kernel cannot
 * filter them: rrref's attention block reads a LINEAR, normalized sampler
 * only with tex.base.2d.v4.f32.s32, integer coordinates that return one
 * texel (docs/rrref-attention.md).
 *
 *     vkrr_tex_unfiltered *t = NULL;
 *     vkrr_tex_unfiltered_create(&t, cap, &modules);   // once per run
 *     vkrr_tex_unfiltered_has(t, "k", 16)              // arg16 of k: never filtered
 *     vkrr_tex_unfiltered_free(t);
 *
 * Each kernel with a linear-filtered texture argument the hardware model
 * does not measure has its PTX (modules.h: the first source that defines
 * it) parsed once and asked (ptx_params.h vkrr_ptx_texture_may_filter).
 * Where there is no PTX, or it does not parse, nothing is proven: the note
 * stays. */
#ifndef VKRR_TEX_UNFILTERED_H
#define VKRR_TEX_UNFILTERED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "modules.h"

typedef struct vkrr_tex_unfiltered vkrr_tex_unfiltered;

/* *out NULL (nothing proven) when the set holds no PTX; VKRR_ERR_NOMEM only. */
vkrr_status vkrr_tex_unfiltered_create(vkrr_tex_unfiltered **out, const vkrr_capture *cap,
                                       const vkrr_module_set *ms, vkrr_error *err);
/* Whether the texture argument at offset of kernel is proven never filtered
 * (t NULL: false). */
bool vkrr_tex_unfiltered_has(const vkrr_tex_unfiltered *t, const char *kernel, uint32_t offset);
/* What a row says of texture im's linear filter when the hardware model
 * does not measure it (texfilter.h: "linear filtering of ... is not
 * measured on a GPU: ..." into buf), else NULL (point sampled, measured, or
 * not a texture). */
const char *vkrr_image_filter_unmeasured(const vkrr_image *im, char *buf, size_t cap);
/* Whether some launch of cap has a texture whose linear filter is not
 * measured (what is worth finding the PTX for). */
bool vkrr_tex_unfiltered_wanted(const vkrr_capture *cap);
void vkrr_tex_unfiltered_free(vkrr_tex_unfiltered *t); /* accepts NULL */

#endif
