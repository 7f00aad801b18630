/* rrref_host.h - rrref's host side: the network, its weights, and one frame
 * run launch by launch on a backend and recorded into a capture.
 *
 * This is what the CUDA application around the kernels does: allocate the
 * plane arena and the weight image, create the input textures and the output
 * and history surfaces, launch the layers in order.  `vkrr synth` calls it per
 * frame; the recording goes through capture_write.h exactly as the bridge
 * would record the real thing (array/texture/surface log lines, the history
 * texture re-created every frame with the same handle value).
 *
 *     rrref_net *net;
 *     rrref_net_create(&net, &(rrref_net_desc){ .width = 64, .height = 48, .seed = 1 }, &err);
 *     for (k = 0; k < frames; k++) {
 *         vkrr_scene_render(&sd, k, &scene, &err);
 *         rrref_net_run_frame(net, &cpu_backend, &scene, writer, output, &err);
 *     }
 *     rrref_net_destroy(net);
 *
 * What each layer's port writes (the arena window, its type and planes) is
 * data, not code here: shaders/KERNEL.port (src/port/portdesc.h).
 *
 * The net keeps the history between frames itself (frame 0 gets the noisy
 * colour as history).  output: W*H*4 f16 (the denoised frame, as written to
 * the output surface).
 */
#ifndef RRREF_HOST_H
#define RRREF_HOST_H

#include <stdint.h>

#include "capture_write.h"
#include "replay.h"
#include "scene.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rrref_net rrref_net;

typedef struct rrref_net_desc {
    uint32_t width, height;
    uint64_t seed;        /* weights are derived from it deterministically */
} rrref_net_desc;

vkrr_status rrref_net_create(rrref_net **out, const rrref_net_desc *desc, vkrr_error *err);
void rrref_net_destroy(rrref_net *net); /* accepts NULL */

/* Runs one frame; records every launch into w when w is non-NULL. */
vkrr_status rrref_net_run_frame(rrref_net *net, const vkrr_backend *be,
                                const vkrr_scene_frame *scene, vkrr_writer *w,
                                uint16_t *output, vkrr_error *err);

/* The kernels of one frame, each once, in launch order (NULL-terminated;
 * attn0 runs twice a frame, so a frame has more launches than names). */
const char *const *rrref_kernel_names(void);
/* The launches net has run so far, every frame's. */
uint64_t rrref_net_launches(const rrref_net *net);

#ifdef __cplusplus
}
#endif

#endif
