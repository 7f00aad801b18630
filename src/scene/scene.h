/* scene.h - the procedural scene `vkrr synth` renders rrref's inputs from.
 *
 * No downloads: a seeded, deterministic scene with edges, gradients, thin
 * lines and small bright features, rendered per frame with a camera that moves
 * between frames.  Each frame gives the clean image, a Monte-Carlo-like noisy
 * version of it (heavy-tailed noise with fireflies), and a G-buffer consistent
 * with it, already in the formats rrref's input textures use:
 *
 *   noisy colour   HALF x4        (RGBA f16, A = 1)
 *   depth          FLOAT x1       (linear view depth, > 0)
 *   motion         HALF x2        (pixels; current pos + motion = pos in previous frame)
 *   albedo         UNORM_INT8 x4  (CUarray_format 1, 4 channels, read as normalized float)
 *   normal         SNORM_INT8 x4  (CUarray_format 8, 4 channels; xyz view normal, w = 0)
 *   mask           UNSIGNED_INT8 x1 (format 1, 1 channel; 255 = geometry, 0 = sky)
 *   clean          f32 x4         (host only: what a perfect denoiser would output)
 *
 * Usage:
 *     vkrr_scene_frame f = {0};
 *     vkrr_scene_render(&(vkrr_scene_desc){ .width = 64, .height = 48, .seed = 1, .name = "default" }, 0, &f, &err);
 *     ... f.noisy, f.depth ...
 *     vkrr_scene_frame_free(&f);
 *
 * Same desc and frame index -> byte-identical output on every machine (no
 * libm transcendental results feed the bytes except through float math that
 * is IEEE-exact: the renderer uses +,-,*,/ and sqrt only, with no FMA contraction).
 */
#ifndef VKRR_SCENE_H
#define VKRR_SCENE_H

#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vkrr_scene_desc {
    uint32_t width, height;  /* >= 1 each */
    uint64_t seed;
    const char *name;        /* NULL or "default"; vkrr_scene_names() lists the others */
} vkrr_scene_desc;

typedef struct vkrr_scene_frame {
    uint32_t width, height;
    uint16_t *noisy;   /* W*H*4 f16 */
    float *depth;      /* W*H */
    uint16_t *motion;  /* W*H*2 f16 */
    uint8_t *albedo;   /* W*H*4 */
    int8_t *normal;    /* W*H*4 */
    uint8_t *mask;     /* W*H */
    float *clean;      /* W*H*4 */
} vkrr_scene_frame;

/* NULL-terminated list of scene names. */
const char *const *vkrr_scene_names(void);
vkrr_status vkrr_scene_render(const vkrr_scene_desc *desc, uint32_t frame,
                              vkrr_scene_frame *out, vkrr_error *err);
void vkrr_scene_frame_free(vkrr_scene_frame *f);

#ifdef __cplusplus
}
#endif

#endif
