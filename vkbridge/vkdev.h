/* vkdev.h - vkbridge's device-level state and launch internals, shared by
 * backend_vk.c and the files that implement them:
 *   vkdev.c    device-level state (vkrr_vk_dev) and dispatch timing
 *   vktables.c the descriptor tables of bindings.glsl: formats, samplers, writes
 *   vkrecord.c command recording: barriers, upload, dispatch, read-back, frames
 *   vklaunch.c one launch's resources (vkrr_vk_launch), prepare, finish, free
 *   vkstream.c a streamed launch's data through staging, a slice at a time
 *   vkiface.c  a port with its own interface (portiface.h): reflection, layouts, sets
 *
 * Internal to vkbridge.  vkrr_vk_dev holds what outlives a launch: the
 * descriptor set layout of bindings.glsl, the pipeline layout, one descriptor
 * pool/set, one command buffer and fence, the 1x1 dummies for unused table
 * slots, the timestamp query pool around the dispatch (none when the queue
 * family has no timestampValidBits), and the cache of shader modules and
 * pipelines, and the approximate-instruction tables (src/hw/approx.h).
 * vkrr_vk_launch holds
 * what one launch creates; vkrr_vk_launch_free() releases it.
 */
#ifndef VKRR_VKDEV_H
#define VKRR_VKDEV_H

#include "portiface.h"
#include "replay.h"
#include "vkmem.h"

/* bindings.glsl: table sizes and the binding numbers. */
#define VKRR_VK_MAX_TEXTURES 16u
/* bindings.glsl's push constants: a word per float texture slot, then the
 * approximate-instruction tables' address, low and high word (math.glsl). */
#define VKRR_VK_PUSH_WORDS (VKRR_VK_MAX_TEXTURES + 2u)
#define VKRR_VK_MAX_INT_TEXTURES 8u
#define VKRR_VK_MAX_SURFACES 8u
enum {
    VKRR_VK_BIND_PARAMS = 0,
    VKRR_VK_BIND_TEX = 1,   /* float */
    VKRR_VK_BIND_UTEX = 2,  /* unsigned integer */
    VKRR_VK_BIND_ITEX = 3,  /* signed integer */
    VKRR_VK_BIND_SURF8 = 4, /* .. 8: r8ui r16ui r32ui rg32ui rgba32ui */
    VKRR_VK_BIND_COUNT = 9
};

typedef struct vkrr_vk_dev {
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkDescriptorPool pool;
    VkCommandPool cmdpool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkSampler dummy_sampler;
    vkrr_vk_image dummy[VKRR_VK_BIND_COUNT]; /* [1..8]: one per table binding */
    VkQueryPool timestamps;  /* 2 queries: before and after the dispatch; NULL: none */
    uint32_t timestamp_bits; /* timestampValidBits of the queue family */
    vkrr_vk_buffer approx;   /* src/hw/approx.h port tables; ports get its address in the
                              * push constants after the texture words (VKRR_VK_PUSH_WORDS) */
    const uint32_t *approx_src; /* the model's tables approx holds a copy of */
} vkrr_vk_dev;

/* A port with its own interface, held against its shader (vkiface.c): made
 * once per shader module. */
#define VKRR_VK_OWN_SETS 4u
typedef struct vkrr_vk_own {
    const vkrr_port_iface *f;          /* the descriptor's lines (the backend's set owns them) */
    char port[512];                    /* the descriptor's file, for errors */
    uint32_t nsets;                    /* descriptor sets 0..nsets-1 */
    VkDescriptorSetLayout dsl[VKRR_VK_OWN_SETS];
    VkPipelineLayout layout;
    uint32_t push_size;                /* the shader's push-constant block */
    uint32_t local[3];                 /* the workgroup size it runs with */
    uint32_t local_spec[3];            /* local_size_*_id's constant, UINT32_MAX: a literal */
} vkrr_vk_own;

/* A pass after the first of a split launch (portpass.h): its own
 * interface, this launch's values, its pipeline and sets (from its pool). */
typedef struct vkrr_vk_pass {
    const vkrr_vk_own *own;
    vkrr_port_iface_run run;
    VkPipeline pipe;
    VkDescriptorPool pool;
    VkDescriptorSet sets[VKRR_VK_OWN_SETS];
    VkSampler samplers[VKRR_PORT_MAX_BINDINGS];
} vkrr_vk_pass;

typedef struct vkrr_vk_launch {
    /* Buffers live in mapped device memory where the device has it
     * (vkmem.h VKRR_VK_MEM_DEVICE_MAPPED): pre is copied straight in and the
     * results are read straight out.  Everything else (images, buffers in
     * unmapped memory) goes through staging: textures through `upload`,
     * freed as soon as the launch finished, the
     * outputs through `stage`, each region used for the upload and then
     * for the read-back. */
    vkrr_vk_buffer params, stage, upload; /* parameter block, staging */
    vkrr_vk_buffer *bufs;              /* one per allocation */
    uint32_t nbufs;
    vkrr_vk_image *imgs;               /* one per replay image */
    VkSampler *samplers;               /* textures only */
    uint32_t *binding, *slot;          /* where each image is bound */
    uint64_t *img_off;                 /* staging offset per image */
    uint64_t *buf_off;                 /* staging offset per allocation; unused when mapped */
    uint32_t nimgs;
    /* frame mode: [nbufs + nimgs], 1 where the buffer/image (and sampler)
     * is an earlier launch's of the same frame, neither uploaded nor freed here */
    uint8_t *borrowed;
    const vkrr_replay *r;              /* the replay it was made for (frame lookups) */
    VkDescriptorSet set;
    /* streamed (bulk.h: the launch exceeds the memory limit): `stage` is
     * one slice that vkstream.c moves everything not mapped through, and
     * outs [nbufs + nimgs] the read-back outputs the caller gave no post
     * for, in bulk memory */
    bool streamed;
    void **outs;
    /* an own interface: its layouts, this launch's values, its sets (from
     * own_pool, the launch's); own NULL: bindings.glsl's set above */
    const vkrr_vk_own *own;
    vkrr_port_iface_run own_run;
    VkDescriptorPool own_pool;
    VkDescriptorSet own_sets[VKRR_VK_OWN_SETS];
    VkSampler own_samplers[VKRR_PORT_MAX_BINDINGS]; /* per own_run.img, where it has one */
    /* per image: the own format its texels are converted into (NULL: the
     * capture's bytes as they are), and a surface's read-back converted
     * back to its array's type */
    const vkrr_imgformat **own_conv;
    void **own_conv_post;
    uint8_t *own_general;              /* per image: 1 for a texture an own binding uses as a
                                        * storage image (GENERAL layout, as surfaces are) */
    /* a split launch: the passes after the first (the fields above are the
     * first's), and the port's scratch buffers, zeroed, shared by all */
    vkrr_vk_pass *passes;
    uint32_t npasses;
    vkrr_vk_buffer scratch[VKRR_PORT_MAX_SCRATCH];
} vkrr_vk_launch;

vkrr_status vkrr_vk_dev_init(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err);
void vkrr_vk_dev_fini(vkrr_vk_ctx *vk, vkrr_vk_dev *d);
/* Copies the current hardware model's port tables into d->approx when they
 * are not what it holds (a process may change its model between runs);
 * the device must be idle. */
vkrr_status vkrr_vk_dev_approx_refresh(vkrr_vk_dev *d, vkrr_error *err);

/* Creates the launch's resources, fills the staging buffer and parameter
 * block, and records the command buffer (upload, dispatch with pipe, read
 * back).  passes (npasses, malloc'd; NULL, 0: one dispatch): a split
 * launch's later passes, owned by L from here on (freed with it, also on
 * failure).  On failure everything made so far is freed. */
vkrr_status vkrr_vk_launch_prepare(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r,
                                   VkPipeline pipe, const vkrr_vk_own *own,
                                   const vkrr_port_iface_run *run, vkrr_vk_pass *passes,
                                   uint32_t npasses, vkrr_vk_launch *L, vkrr_error *err);
/* Points every output's post_view at the launch's copy (mapped buffer or
 * staging region) and copies it into every wanted post.  The views stay
 * valid until vkrr_vk_launch_free(L).  A streamed launch: reads its outputs
 * back first (vkrr_vk_stream_readback). */
vkrr_status vkrr_vk_launch_finish(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_replay *r,
                                  vkrr_vk_launch *L, vkrr_error *err);
void vkrr_vk_launch_free(vkrr_vk_ctx *vk, vkrr_vk_launch *L);
/* Frame mode (`vkrr bench`): n launches recorded into d->cmd, every buffer
 * shared by base address and every image by handle with the launches before
 * it, uploads first, then timestamp, the dispatches with a compute barrier
 * only before a launch that uses a resource an earlier launch since the last
 * barrier used (every bound buffer and surface may be written), timestamp.
 * No read-back.  L: n zeroed launches, each freed with vkrr_vk_launch_free
 * (last first); *pool: the frame's descriptor pool, destroyed by the caller
 * (also on failure). */
vkrr_status vkrr_vk_frame_prepare(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_replay *const *r,
                                  const VkPipeline *pipes, const vkrr_vk_own *const *own,
                                  const vkrr_port_iface_run *run, uint32_t n, vkrr_vk_launch *L,
                                  VkDescriptorPool *pool, uint32_t *barriers, vkrr_error *err);
/* Milliseconds between the two timestamps of the last finished launch; NAN
 * when the device has no timestamps or the results cannot be read. */
double vkrr_vk_launch_gpu_ms(vkrr_vk_ctx *vk, const vkrr_vk_dev *d);

/* ---- between the files above ---- */

/* vktables.c */
/* VKRR_OK, or VKRR_ERR_DEVICE naming what failed and the VkResult. */
vkrr_status vkrr_vk_check(VkResult r, const char *what, vkrr_error *err);
extern const VkFormat vkrr_vk_surf_view_format[5]; /* bindings 4..8, by texel size */
uint32_t vkrr_vk_table_size(uint32_t binding);     /* descriptors in a binding */
/* The image format of replay image i, the view format it is bound with and
 * its binding; VKRR_ERR_FORMAT when the device cannot bind it so. */
vkrr_status vkrr_vk_image_formats(vkrr_vk_ctx *vk, const vkrr_replay_image *im, uint32_t i,
                                  VkFormat *fmt, VkFormat *view, uint32_t *binding,
                                  vkrr_error *err);
vkrr_status vkrr_vk_make_sampler(vkrr_vk_ctx *vk, const vkrr_sampler *s, VkFormat f,
                                 bool integer, VkSampler *out, vkrr_error *err);
/* Every table slot: L's images where bound, the dummies elsewhere. */
void vkrr_vk_write_descriptors(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_vk_launch *L,
                               VkDescriptorSet set);

/* vkiface.c */
/* Reflects code (SPIR-V, bytes long) and holds it against f: every buffer
 * binding the shader declares given, of its kind, none it lacks, pushes
 * inside its push-constant block, specialisation constants it has, the
 * workgroup its local size; images and samplers refused (not yet
 * supported).  VKRR_ERR_PARSE naming port, the line and the binding.  Then
 * the set and pipeline layouts. */
vkrr_status vkrr_vk_own_create(vkrr_vk_ctx *vk, const vkrr_port_iface *f, const char *port,
                               const uint32_t *code, size_t bytes, vkrr_vk_own *o, vkrr_error *err);
void vkrr_vk_own_destroy(vkrr_vk_ctx *vk, vkrr_vk_own *o); /* accepts a zeroed one */

/* vkpass.c */
/* The shader module of a pass: f's shader= from dir (f NULL or shader=
 * empty: code, the kernel's), held against f (vkrr_vk_own_create into
 * *own; f NULL: bindings.glsl's port, nothing held).  Errors name port. */
vkrr_status vkrr_vk_pass_module(vkrr_vk_ctx *vk, const char *dir, const vkrr_port_iface *f,
                                const char *port, const char *kernel, const uint32_t *code,
                                size_t bytes, vkrr_vk_own *own, VkShaderModule *mod, vkrr_error *err);
/* L's sets (L->own, L->own_run, L->bufs made), and each later pass's: a
 * pool of its own, each binding a view of its allocation's buffer or of a
 * scratch buffer (device alignment and range checked, VKRR_ERR_RANGE
 * naming the line). */
vkrr_status vkrr_vk_own_sets(vkrr_vk_ctx *vk, vkrr_vk_launch *L, vkrr_error *err);
/* Image i of L (L->own_run and L->passes set) as its own bindings need it: *bound false
 * when none names it; else the view format (the port's format=) and the
 * usage they add, checked against the device's format features, and *conv
 * the format its texels are converted into where the pairing converts
 * (imgformat.h; the image is then made in that format), else NULL. */
vkrr_status vkrr_vk_own_image(vkrr_vk_ctx *vk, const vkrr_vk_launch *L, uint32_t i,
                              const vkrr_replay_image *im, bool *bound, VkFormat *view,
                              VkImageUsageFlags *usage, const vkrr_imgformat **conv,
                              uint8_t *general, vkrr_error *err);
/* The layout image i of L is bound in: GENERAL for surfaces and
 * L->own_general images, SHADER_READ_ONLY_OPTIMAL for textures. */
static inline VkImageLayout vkrr_vk_bound_layout(const vkrr_vk_launch *L, uint32_t i)
{
    return L->r->images[i].kind == VKRR_IMAGE_SURFACE || (L->own_general && L->own_general[i])
               ? VK_IMAGE_LAYOUT_GENERAL
               : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
}

/* vkrecord.c */
void vkrr_vk_image_barrier(vkrr_vk_ctx *vk, VkCommandBuffer cmd, VkImage img, VkImageLayout from,
                           VkImageLayout to, VkAccessFlags src_access, VkAccessFlags dst_access,
                           VkPipelineStageFlags src_stage, VkPipelineStageFlags dst_stage);
void vkrr_vk_memory_barrier(vkrr_vk_ctx *vk, VkCommandBuffer cmd, VkAccessFlags src_access,
                            VkAccessFlags dst_access, VkPipelineStageFlags src_stage,
                            VkPipelineStageFlags dst_stage);
/* Resets d's command pool and begins d->cmd for one submission. */
vkrr_status vkrr_vk_cmd_begin(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err);
/* Ends d->cmd, submits it and waits for it on d->fence (reset after). */
vkrr_status vkrr_vk_submit_wait(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_error *err);

/* One launch into d->cmd: upload, timestamp, dispatch, timestamp, read-back
 * (a streamed launch: the dispatch alone, vkstream.c moves its data). */
void vkrr_vk_record_launch(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r,
                           const vkrr_vk_launch *L, VkPipeline pipe);
/* vkstream.c: a streamed launch's pre contents to the device before its
 * dispatch (what is not mapped), and its outputs back after it, each
 * setting post_view (and filling post where given). */
vkrr_status vkrr_vk_stream_upload(vkrr_vk_ctx *vk, vkrr_vk_dev *d, const vkrr_replay *r,
                                  vkrr_vk_launch *L, vkrr_error *err);
vkrr_status vkrr_vk_stream_readback(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_replay *r,
                                    vkrr_vk_launch *L, vkrr_error *err);

/* A frame's n launches into d->cmd (see vkrr_vk_frame_prepare); returns the
 * number of barriers between dispatches. */
uint32_t vkrr_vk_record_frame(vkrr_vk_ctx *vk, vkrr_vk_dev *d, vkrr_replay *const *r,
                              const vkrr_vk_launch *L, const VkPipeline *pipes, uint32_t n);

#endif
