/* validate_hwnote.c - a launch's hw_note: where the hardware model is not
 * exact for it (texture filtering not measured on a GPU, stand-ins for
 * approximate instructions, the mma sum models), so its row says so. */
#include "validate.h"

#include <stdio.h>

#include "approx.h"
#include "texfilter.h"

void vkrr_validate_hw_note(vkrr_launch_result *out, const vkrr_launch *l)
{
    size_t at = 0;
    out->hw_note[0] = 0;
    for (uint32_t i = 0; i < l->nimages; i++) {
        const vkrr_image *im = &l->images[i];
        char why[256];
        vkrr_texcase tc = {im->format, im->channels, im->sampler.filter,
                           {im->sampler.address[0], im->sampler.address[1]}, im->sampler.normalized,
                           im->resource == VKRR_TEXRES_LINEAR || im->resource == VKRR_TEXRES_PITCH2D};
        if (im->kind != VKRR_IMAGE_TEXTURE || !vkrr_texfilter_unmeasured(&tc, why, sizeof why))
            continue;
        int n = snprintf(out->hw_note + at, sizeof out->hw_note - at, "%sarg%u: %s",
                         at ? "; " : "", im->offset, why);
        at = n > 0 && (size_t)n < sizeof out->hw_note - at ? at + (size_t)n : at;
    }
    unsigned bounded = out->standins & ~(unsigned)(VKRR_STANDIN_DMMA | VKRR_STANDIN_TCSUM);
    if (bounded) {
        char names[160];
        bool untyped = false;
        for (uint32_t i = 0; i < out->nres; i++)
            untyped = untyped || !vkrr_dtype_is_float(out->res[i].view.dtype);
        vkrr_approx_standin_names(bounded, names, sizeof names);
        int n = snprintf(out->hw_note + at, sizeof out->hw_note - at,
                         "%sthe reference computed %s with a stand-in (not measured exactly on a "
                         "GPU): compared within the PTX ISA's bound%s", at ? "; " : "", names,
                         untyped ? ", but outputs compared as bytes cannot be (give their type: "
                                   "--buffer-type or a .port)" : "");
        at = n > 0 && (size_t)n < sizeof out->hw_note - at ? at + (size_t)n : at;
    }
    if (out->standins & VKRR_STANDIN_DMMA) { /* no bound to widen the tolerance by */
        int n = snprintf(out->hw_note + at, sizeof out->hw_note - at,
                         "%sthe reference computed mma.m8n8k4.f64 with a model of how the GPU sums its "
                         "products (fma in k order; the PTX ISA does not say): a difference in the last "
                         "bits may be the model's", at ? "; " : "");
        at = n > 0 && (size_t)n < sizeof out->hw_note - at ? at + (size_t)n : at;
    }
    if (out->standins & VKRR_STANDIN_TCSUM) /* nor here */
        snprintf(out->hw_note + at, sizeof out->hw_note - at,
                 "%sthe reference summed its f16/bf16/tf32/fp8 mma as a published model of the tensor "
                 "cores does (aligned, truncated terms; not yet measured by vkrr): a difference in the "
                 "last bits of an mma's output may be the model's", at ? "; " : "");
}
