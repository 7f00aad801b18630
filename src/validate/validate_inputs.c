/* validate_inputs.c - after a FAIL: were the textures the launch read what
 * CUDA read?  Their dumps checked against what the log says of them (a
 * second read, paid only by failing launches; see validate.h). */
#include "validate.h"

#include <stdio.h>

bool vkrr_validate_inputs_changed(const vkrr_validate_opts *o, const vkrr_capture *cap,
                                  const vkrr_launch *l, const bool *from_capture,
                                  vkrr_launch_result *out)
{
    bool changed = false;
    for (uint32_t i = 0; (o->integrity.basis || o->integrity.stats) && i < l->nimages; i++) {
        const vkrr_image *im = &l->images[i];
        if (im->kind != VKRR_IMAGE_TEXTURE || !im->dump_log.line ||
            (from_capture && !from_capture[i]))
            continue;
        vkrr_mapfile m = {0};
        vkrr_error e = {0};
        if (vkrr_capture_map_image(cap, l, i, &m, &e) != VKRR_OK) {
            vkrr_launch_set_damaged(out, &e, 0);
            changed = true;
            continue;
        }
        char why[320];
        bool same = vkrr_dump_stats_check(&im->dump_log, &o->integrity, m.data, m.size, NULL, why,
                                          sizeof why);
        vkrr_mapfile_close(&m);
        if (same)
            continue;
        vkrr_launch_note(out, "the texture at arg %u, %s, changed since capture: %s", im->offset,
                         im->dump_path, why);
        changed = true;
    }
    if (changed) {
        out->status = VKRR_LAUNCH_ERROR;
        out->damaged = true;
    }
    return changed;
}

