/* validate_hwnote.c - a launch's hw_note: where the hardware model is not
 * exact for it (texture filtering not measured on a GPU, stand-ins for
 * approximate instructions, the mma sum models), so its row says so. */
#include "validate.h"

#include <stdio.h>
#include <string.h>

#include "approx.h"
#include "tex_unfiltered.h"
#include "textlist.h"

/* How the outputs of a launch with bounded stand-ins were compared: within
 * the PTX ISA's bound (when the run widens tolerances by it), else within
 * what the user gave (the tolerance file's matching lines, the flags), which
 * replaces the bound, or the default where nothing given applies. */
static void compared_within(const vkrr_validate_opts *o, const vkrr_launch_result *out,
                            const vkrr_launch *l, char *buf, size_t cap)
{
    if (o->standin_bounds) {
        snprintf(buf, cap, "compared within the PTX ISA's bound");
        return;
    }
    char list[400], one[240];
    vkrr_textlist ls;
    vkrr_textlist_init(&ls, list, sizeof list);
    for (uint32_t i = 0; i < out->nres; i++) /* each output's own: rules name arguments */
        if (vkrr_compare_tol_decided(o->rules, l->kernel, l->occurrence, out->res[i].offset, one,
                                     sizeof one))
            vkrr_textlist_add(&ls, "; ", "arg%u %s", out->res[i].offset, one);
    if (ls.at)
        snprintf(buf, cap, "compared within the tolerance given (%s), not the PTX ISA's bound", list);
    else
        snprintf(buf, cap, "compared within the default tolerance: the tolerance given has no rule "
                           "for its outputs, and a tolerance given replaces the PTX ISA's bound");
}

void vkrr_validate_hw_note(vkrr_launch_result *out, const vkrr_validate_opts *o,
                           const vkrr_launch *l)
{
    vkrr_textlist note;
    vkrr_textlist_init(&note, out->hw_note, sizeof out->hw_note);
    for (uint32_t i = 0; i < l->nimages; i++) {
        const vkrr_image *im = &l->images[i];
        char why[256];
        /* a texture the kernel's PTX reads only at integer coordinates is
         * never filtered: nothing unmeasured (tex_unfiltered.h) */
        if (vkrr_image_filter_unmeasured(im, why, sizeof why) &&
            !vkrr_tex_unfiltered_has(o->tex_unfiltered, l->kernel, im->offset))
            vkrr_textlist_add(&note, "; ", "arg%u: %s", im->offset, why);
    }
    unsigned bounded = out->standins & ~(unsigned)(VKRR_STANDIN_DMMA | VKRR_STANDIN_TCSUM);
    if (bounded) {
        char names[160], within[640];
        bool untyped = false;
        for (uint32_t i = 0; i < out->nres; i++)
            untyped = untyped || !vkrr_dtype_is_float(out->res[i].view.dtype);
        vkrr_approx_standin_names(bounded, names, sizeof names);
        compared_within(o, out, l, within, sizeof within);
        vkrr_textlist_add(&note, "; ",
                          "the reference computed %s with a stand-in (not measured exactly on a "
                          "GPU): %s%s", names, within,
                          untyped ? ", but outputs compared as bytes cannot be (give their type: "
                                    "--buffer-type or a .port)" : "");
    }
    if (out->standins & VKRR_STANDIN_DMMA) /* no bound to widen the tolerance by */
        vkrr_textlist_add(&note, "; ",
                          "the reference computed mma.m8n8k4.f64 with a model of how the GPU sums "
                          "its products (fma in k order; the PTX ISA does not say): a difference in "
                          "the last bits may be the model's");
    if (out->standins & VKRR_STANDIN_TCSUM) /* nor here */
        vkrr_textlist_add(&note, "; ",
                          "the reference summed its f16/bf16/tf32/fp8 mma as a published model of "
                          "the tensor cores does (aligned, truncated terms; not yet measured by "
                          "vkrr): a difference in the last bits of an mma's output may be the "
                          "model's");
}
