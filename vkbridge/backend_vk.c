/* backend_vk.c - the "vulkan" backend: ports, pipeline cache, submit and wait. */
#include "backend_vk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "portdesc.h"
#include "ports.h"
#include "tensorcore.h"
#include "vkdev.h"
#include "vkfeat.h"

#define VKRR_VK_DEFAULT_TIMEOUT_S 60.0

typedef struct vk_module {
    char *kernel;
    VkShaderModule mod;
    bool has_own;     /* its descriptor says `interface own` */
    vkrr_vk_own own;
    char *missing;    /* a feature the device lacks (vkfeat.h): NO PORT, no module */
    uint32_t subgroup_size; /* `require subgroup-size N`; 0: the driver's */
    /* a split port (portpass.h): npass passes, the first mod/own above,
     * pass p > 0 pass_mod[p]/pass_own[p] */
    uint32_t npass;
    VkShaderModule pass_mod[VKRR_PORT_MAX_PASSES];
    vkrr_vk_own pass_own[VKRR_PORT_MAX_PASSES];
} vk_module;

static const vkrr_vk_own *own_at(const vk_module *m, uint32_t p)
{
    return p ? &m->pass_own[p] : &m->own;
}

#define VK_SPEC_MAX (VKRR_PORT_MAX_SPECS + 9)

/* A pipeline is its module and its specialisation constants (bindings.glsl:
 * CUDA's block and the tables' address; own: the port's and the workgroup). */
typedef struct vk_pipe {
    uint32_t module; /* index into modules */
    uint32_t pass;   /* a split port's pass */
    uint32_t nspec;
    uint32_t spec_id[VK_SPEC_MAX], spec[VK_SPEC_MAX];
    VkPipeline pipe;
} vk_pipe;

typedef struct vk_backend {
    vkrr_vk_ctx *vk;
    vkrr_vk_dev dev;
    double timeout_s;
    char *ports_dir;
    bool no_builtin;       /* only the ports folder's ports run */
    vkrr_portdesc_set *descs; /* the ports' descriptors: which say `interface own` */
    vk_module *modules;
    uint32_t nmodules, cap_modules;
    vk_pipe *pipes;
    uint32_t npipes, cap_pipes;
    bool busy;             /* a launch timed out and may still run */
    vkrr_vk_launch zombie; /* its resources, freed once the fence signals */
    vkrr_vk_launch kept;   /* the last finished launch: its outputs back post_view */
    vkrr_backend_stats stats;
    double last_gpu_ms;    /* NAN until a launch finished with timestamps */
} vk_backend;

static void module_free(vk_backend *b, vk_module *m)
{
    for (uint32_t p = 0; p < VKRR_PORT_MAX_PASSES; p++) {
        vkrr_vk_own_destroy(b->vk, p ? &m->pass_own[p] : &m->own);
        VkShaderModule mod = p ? m->pass_mod[p] : m->mod;
        if (mod)
            b->vk->fn.vkDestroyShaderModule(b->vk->device, mod, NULL);
    }
}

/* Every pass of a kernel's port held against its shader, each a module (one
 * pass unless its descriptor has `pass` lines). */
static vkrr_status module_of(vk_backend *b, const char *kernel, const vkrr_portdesc *desc,
                             const uint32_t *code, size_t bytes, vk_module *m, vkrr_error *err)
{
    const vkrr_port_iface *f = vkrr_portdesc_iface(desc);
    m->has_own = f != NULL;
    m->npass = f && f->npass ? f->npass : 1;
    for (uint32_t p = 0; p < m->npass; p++) {
        const char *port = desc ? vkrr_portdesc_name(desc) : kernel; /* none: a built-in port's */
        vkrr_status st = vkrr_vk_pass_module(b->vk, b->ports_dir, f && f->npass ? f->pass[p] : f, port,
                                             kernel, code, bytes,
                                             p ? &m->pass_own[p] : &m->own,
                                             p ? &m->pass_mod[p] : &m->mod, err);
        if (st != VKRR_OK)
            return st;
    }
    return VKRR_OK;
}

static void drop_cache(vk_backend *b)
{
    for (uint32_t i = 0; i < b->npipes; i++)
        b->vk->fn.vkDestroyPipeline(b->vk->device, b->pipes[i].pipe, NULL);
    for (uint32_t i = 0; i < b->nmodules; i++) {
        module_free(b, &b->modules[i]);
        free(b->modules[i].kernel);
        free(b->modules[i].missing);
    }
    b->npipes = b->nmodules = 0;
}

static bool has_builtin(const vk_backend *b, const char *kernel)
{
    return !b->no_builtin && vkrr_port_shader_find(kernel) != NULL;
}

static bool vk_has_kernel(void *self, const char *kernel)
{
    vk_backend *b = self;
    return vkrr_port_shader_dir_has(b->ports_dir, kernel) || has_builtin(b, kernel);
}

static vkrr_status get_module(vk_backend *b, const char *kernel, uint32_t *out, vkrr_error *err);

static vkrr_status vk_prepare(void *self, const char *kernel, vkrr_error *err)
{
    uint32_t idx;
    vkrr_status st = vk_has_kernel(self, kernel) ? get_module(self, kernel, &idx, err) : VKRR_OK;
    return st == VKRR_ERR_NO_PORT ? VKRR_OK : st; /* a feature the device lacks: its rows say so */
}

static bool vk_source_of(void *self, const char *kernel, char *out, size_t cap)
{
    vk_backend *b = self;
    if (vkrr_port_shader_dir_file(b->ports_dir, kernel, out, cap))
        return true;
    snprintf(out, cap, "%s", has_builtin(b, kernel) ? "built-in" : "");
    return out[0] != 0;
}

/* The features a port needs (its `require` lines, its SPIR-V's
 * capabilities) against the device's: m->missing says which it lacks. */
static vkrr_status needs_of(vk_backend *b, const char *kernel, const vkrr_portdesc *desc,
                            const uint32_t *code, size_t bytes, vk_module *m, vkrr_error *err)
{
    vkrr_port_needs needs = {0};
    if (vkrr_portdesc_needs(desc))
        needs = *vkrr_portdesc_needs(desc);
    vkrr_port_spirv_needs(code, bytes, &needs);
    for (uint32_t i = 0; i < needs.n; i++)
        if (needs.need[i].f == VKRR_FEAT_SUBGROUP_SIZE)
            m->subgroup_size = needs.need[i].value;
    char why[900], msg[1100];
    if (vkrr_vk_feat_has(b->vk, &needs, desc ? vkrr_portdesc_name(desc) : kernel, why, sizeof why))
        return VKRR_OK;
    snprintf(msg, sizeof msg, "the port of %s %s", kernel, why);
    if (!(m->missing = strdup(msg)) || !(m->kernel = strdup(kernel))) {
        free(m->missing);
        m->missing = NULL;
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
    }
    return VKRR_OK;
}

static vkrr_status get_module(vk_backend *b, const char *kernel, uint32_t *out, vkrr_error *err)
{
    for (uint32_t i = 0; i < b->nmodules; i++)
        if (strcmp(b->modules[i].kernel, kernel) == 0) {
            *out = i;
            return b->modules[i].missing ? vkrr_fail(err, VKRR_ERR_NO_PORT, NULL, 0, -1, "%s",
                                                     b->modules[i].missing)
                                         : VKRR_OK;
        }
    vkrr_status st;
    uint32_t *loaded = NULL;
    size_t bytes = 0;
    const uint32_t *code;
    if (vkrr_port_shader_dir_has(b->ports_dir, kernel)) {
        if ((st = vkrr_port_shader_load(b->ports_dir, kernel, &loaded, &bytes, err)) != VKRR_OK)
            return st;
        code = loaded;
    } else {
        const vkrr_port_shader *p = has_builtin(b, kernel) ? vkrr_port_shader_find(kernel) : NULL;
        if (!p)
            return vkrr_fail(err, VKRR_ERR_NO_PORT, NULL, 0, -1, "no Vulkan port of kernel %s%s%s%s",
                             kernel, b->no_builtin ? " in " : b->ports_dir ? " built in or in " : "",
                             b->ports_dir ? b->ports_dir : "",
                             b->no_builtin ? " (--no-builtin: the built-in ports are not used)" : "");
        code = p->code;
        bytes = p->bytes;
    }
    if (b->nmodules == b->cap_modules) {
        uint32_t cap = b->cap_modules ? 2 * b->cap_modules : 16;
        vk_module *m = realloc(b->modules, cap * sizeof *m);
        if (!m) {
            free(loaded);
            return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        }
        b->modules = m;
        b->cap_modules = cap;
    }
    vk_module m = {0};
    const vkrr_portdesc *desc = NULL;
    if ((st = vkrr_portdesc_set_get(b->descs, kernel, &desc, err)) != VKRR_OK ||
        (st = needs_of(b, kernel, desc, code, bytes, &m, err)) != VKRR_OK) {
        free(loaded);
        return st;
    }
    if (m.missing) { /* kept, so its other launches say it at once */
        free(loaded);
        b->modules[b->nmodules] = m;
        *out = b->nmodules++;
        return vkrr_fail(err, VKRR_ERR_NO_PORT, NULL, 0, -1, "%s", m.missing);
    }
    /* a shader with its own interface is held against its descriptor now,
     * before any of its launches runs (each pass of a split port) */
    st = module_of(b, kernel, desc, code, bytes, &m, err);
    free(loaded);
    if (st == VKRR_OK && !(m.kernel = strdup(kernel)))
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
    if (st != VKRR_OK) {
        module_free(b, &m);
        return st;
    }
    b->modules[b->nmodules] = m;
    *out = b->nmodules++;
    return VKRR_OK;
}

/* The specialisation constants of r's pipeline: bindings.glsl's (0..2:
 * CUDA's block as the local size; 5..8: the hardware model's tensor core
 * for tensorcore.glsl, src/hw/tensorcore.h; nothing that changes from one
 * process to the next, such as a device address, so the driver's shader
 * cache finds the pipeline again), or an own interface's (the port's, and
 * the workgroup where the shader's local size is local_size_*_id). */
static uint32_t spec_of(const vkrr_replay *r, const vk_module *m, uint32_t pass,
                        const vkrr_port_iface_run *run, uint32_t *id, uint32_t *val)
{
    uint32_t n = 0;
    if (!m->has_own) {
        static const uint32_t ids[7] = {0, 1, 2, 5, 6, 7, 8};
        uint32_t v[7] = {r->block[0], r->block[1], r->block[2]};
        vkrr_tensorcore tc = vkrr_tensorcore_current();
        vkrr_tensorcore_glsl_fp8(&tc, v + 3);
        for (; n < 7; n++)
            id[n] = ids[n], val[n] = v[n];
        return n;
    }
    for (uint32_t i = 0; i < run->nspec; i++)
        id[n] = run->spec_id[i], val[n++] = run->spec_value[i];
    const vkrr_vk_own *own = own_at(m, pass);
    for (int i = 0; i < 3; i++)
        if (own->local_spec[i] != UINT32_MAX)
            id[n] = own->local_spec[i], val[n++] = own->local[i];
    return n;
}

static vkrr_status get_pipeline(vk_backend *b, const vkrr_replay *r, uint32_t pass,
                                const vkrr_port_iface_run *run, VkPipeline *out, vkrr_error *err)
{
    vkrr_status st;
    uint32_t m = 0;
    if ((st = vkrr_vk_dev_approx_refresh(&b->dev, err)) != VKRR_OK ||
        (st = get_module(b, r->kernel, &m, err)) != VKRR_OK)
        return st;
    vk_pipe key = {.module = m, .pass = pass};
    key.nspec = spec_of(r, &b->modules[m], pass, run, key.spec_id, key.spec);
    for (uint32_t i = 0; i < b->npipes; i++)
        if (b->pipes[i].module == m && b->pipes[i].pass == pass && b->pipes[i].nspec == key.nspec &&
            !memcmp(b->pipes[i].spec_id, key.spec_id, key.nspec * sizeof *key.spec_id) &&
            !memcmp(b->pipes[i].spec, key.spec, key.nspec * sizeof *key.spec)) {
            b->stats.pipeline_hits++;
            *out = b->pipes[i].pipe;
            return VKRR_OK;
        }
    if (b->npipes == b->cap_pipes) {
        uint32_t cap = b->cap_pipes ? 2 * b->cap_pipes : 16;
        vk_pipe *p = realloc(b->pipes, cap * sizeof *p);
        if (!p)
            return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        b->pipes = p;
        b->cap_pipes = cap;
    }
    VkSpecializationMapEntry me[VK_SPEC_MAX];
    for (uint32_t i = 0; i < key.nspec; i++)
        me[i] = (VkSpecializationMapEntry){key.spec_id[i], 4 * i, 4};
    VkSpecializationInfo si = {.mapEntryCount = key.nspec, .pMapEntries = me,
                               .dataSize = 4 * key.nspec, .pData = key.spec};
    /* `require subgroup-size N` (vkfeat.h checked the device has it) */
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfoEXT sg = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO_EXT,
        .requiredSubgroupSize = b->modules[m].subgroup_size};
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .pNext = b->modules[m].subgroup_size ? &sg : NULL,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = pass ? b->modules[m].pass_mod[pass] : b->modules[m].mod,
                  .pName = "main",
                  .pSpecializationInfo = &si},
        .layout = b->modules[m].has_own ? own_at(&b->modules[m], pass)->layout : b->dev.layout,
    };
    VkPipeline pipe = VK_NULL_HANDLE;
    VkResult res = b->vk->fn.vkCreateComputePipelines(b->vk->device, VK_NULL_HANDLE, 1, &ci, NULL, &pipe);
    if (res != VK_SUCCESS)
        return vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "vkCreateComputePipelines(%s): %s",
                         r->kernel, vkrr_vk_result_name(res));
    key.pipe = pipe;
    b->pipes[b->npipes++] = key;
    b->stats.pipelines_created++;
    *out = pipe;
    return VKRR_OK;
}

/* r's own interface, evaluated (*own NULL: bindings.glsl's), its module
 * loaded. */
static vkrr_status own_of(vk_backend *b, const vkrr_replay *r, const vkrr_vk_own **own,
                          vkrr_port_iface_run *run, vkrr_error *err)
{
    uint32_t m;
    vkrr_status st = get_module(b, r->kernel, &m, err);
    *own = st == VKRR_OK && b->modules[m].has_own ? &b->modules[m].own : NULL;
    if (st != VKRR_OK || !*own)
        return st;
    return vkrr_port_iface_eval_replay((*own)->f, (*own)->port, r, run, err);
}

static vkrr_status check_dims(const vk_backend *b, const vkrr_replay *r, const vkrr_vk_own *own,
                              const vkrr_port_iface_run *run, vkrr_error *err);

/* A split port's passes after the first (portpass.h), each evaluated
 * against r, checked against the device and its pipeline made: *out
 * malloc'd, NULL and 0 for a port of one pass. */
static vkrr_status passes_of(vk_backend *b, const vkrr_replay *r, vkrr_vk_pass **out, uint32_t *n,
                             vkrr_error *err)
{
    uint32_t m;
    vkrr_status st = get_module(b, r->kernel, &m, err);
    *out = NULL;
    *n = 0;
    if (st != VKRR_OK || b->modules[m].npass < 2)
        return st;
    vkrr_vk_pass *P = calloc(b->modules[m].npass - 1, sizeof *P);
    if (!P)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
    for (uint32_t p = 1; p < b->modules[m].npass && st == VKRR_OK; p++) {
        vkrr_vk_pass *q = &P[p - 1];
        q->own = own_at(&b->modules[m], p);
        if ((st = vkrr_port_iface_eval_replay(q->own->f, q->own->port, r, &q->run, err)) == VKRR_OK &&
            (st = check_dims(b, r, q->own, &q->run, err)) == VKRR_OK)
            st = get_pipeline(b, r, p, &q->run, &q->pipe, err);
    }
    if (st != VKRR_OK) {
        free(P);
        return st;
    }
    *out = P;
    *n = b->modules[m].npass - 1;
    return VKRR_OK;
}

/* The workgroup and grid the dispatch uses against the device's limits:
 * CUDA's block and grid, or an own interface's. */
static vkrr_status check_dims(const vk_backend *b, const vkrr_replay *r, const vkrr_vk_own *own,
                              const vkrr_port_iface_run *run, vkrr_error *err)
{
    const VkPhysicalDeviceLimits *lim = &b->vk->props.limits;
    const uint32_t *block = own ? own->local : r->block, *grid = own ? run->dispatch : r->grid;
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    for (int i = 0; i < 3; i++) {
        if (block[i] == 0 || block[i] > lim->maxComputeWorkGroupSize[i])
            return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1,
                             "%s: %s[%d] = %u is outside 1..%u on %s", r->kernel,
                             own ? "workgroup" : "block", i, block[i],
                             lim->maxComputeWorkGroupSize[i], b->vk->props.deviceName);
        if (grid[i] == 0 || grid[i] > lim->maxComputeWorkGroupCount[i])
            return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1,
                             "%s: %s[%d] = %u is outside 1..%u on %s", r->kernel,
                             own ? "dispatch" : "grid", i, grid[i],
                             lim->maxComputeWorkGroupCount[i], b->vk->props.deviceName);
    }
    if (threads > lim->maxComputeWorkGroupInvocations)
        return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1, "%s: %llu threads a block exceed %u on %s",
                         r->kernel, (unsigned long long)threads, lim->maxComputeWorkGroupInvocations,
                         b->vk->props.deviceName);
    return VKRR_OK;
}

/* After VK_ERROR_DEVICE_LOST: everything on the device goes, the device is made again. */
static vkrr_status recover(vk_backend *b, vkrr_vk_launch *L, const char *kernel, vkrr_error *err)
{
    vkrr_vk_launch_free(b->vk, L);
    vkrr_vk_launch_free(b->vk, &b->kept);
    vkrr_vk_launch_free(b->vk, &b->zombie);
    b->busy = false;
    drop_cache(b);
    vkrr_vk_dev_fini(b->vk, &b->dev);
    b->stats.device_recreated++;
    vkrr_error e2 = {0};
    if (vkrr_vk_ctx_recreate_device(b->vk, &e2) != VKRR_OK || vkrr_vk_dev_init(b->vk, &b->dev, &e2) != VKRR_OK)
        return vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1,
                         "%s: the device was lost and could not be recreated: %s", kernel, e2.msg);
    return vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1,
                     "%s: VK_ERROR_DEVICE_LOST (the device was recreated for later launches)", kernel);
}

/* A launch that timed out earlier still owns the command buffer and fence. */
static vkrr_status settle(vk_backend *b, uint64_t wait_ns, vkrr_error *err)
{
    if (!b->busy)
        return VKRR_OK;
    VkResult r = b->vk->fn.vkWaitForFences(b->vk->device, 1, &b->dev.fence, VK_TRUE, wait_ns);
    if (r == VK_TIMEOUT)
        return vkrr_fail(err, VKRR_ERR_TIMEOUT, NULL, 0, -1,
                         "the device is still running a launch that timed out earlier");
    if (r == VK_ERROR_DEVICE_LOST)
        return recover(b, &b->zombie, "an earlier launch", err);
    vkrr_vk_launch_free(b->vk, &b->zombie);
    b->busy = false;
    b->vk->fn.vkResetFences(b->vk->device, 1, &b->dev.fence);
    return VKRR_OK;
}

/* After a launch finished, only its outputs are kept: the textures' upload
 * staging, the images (surfaces were read back into staging) and samplers go. */
static void keep_outputs_only(vk_backend *b, vkrr_vk_launch *L)
{
    vkrr_vk_buffer_destroy(b->vk, &L->upload);
    for (uint32_t i = 0; i < L->nimgs; i++) {
        vkrr_vk_image_destroy(b->vk, &L->imgs[i]);
        if (L->samplers[i])
            b->vk->fn.vkDestroySampler(b->vk->device, L->samplers[i], NULL);
        L->samplers[i] = VK_NULL_HANDLE;
    }
}

static void vk_stats(void *self, vkrr_backend_stats *out);
static double vk_last_gpu_ms(void *self);

static vkrr_status vk_run(void *self, vkrr_replay *r, vkrr_error *err)
{
    vk_backend *b = self;
    vkrr_status st;
    vkrr_vk_launch L;
    memset(&L, 0, sizeof L);
    vkrr_vk_launch_free(b->vk, &b->kept); /* one launch's resources at a time */
    uint64_t timeout_ns = (uint64_t)(b->timeout_s * 1e9);
    if ((st = settle(b, timeout_ns, err)) != VKRR_OK)
        return st;
    const vkrr_vk_own *own = NULL;
    vkrr_port_iface_run run;
    if ((st = own_of(b, r, &own, &run, err)) != VKRR_OK || (st = check_dims(b, r, own, &run, err)) != VKRR_OK)
        return st;
    b->last_gpu_ms = NAN;
    VkPipeline pipe = VK_NULL_HANDLE;
    vkrr_vk_pass *passes = NULL;
    uint32_t npasses = 0;
    if ((st = get_pipeline(b, r, 0, &run, &pipe, err)) != VKRR_OK ||
        (st = passes_of(b, r, &passes, &npasses, err)) != VKRR_OK)
        return st;
    if ((st = vkrr_vk_launch_prepare(b->vk, &b->dev, r, pipe, own, &run, passes, npasses, &L, err)) !=
        VKRR_OK)
        return st;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                       .pCommandBuffers = &b->dev.cmd};
    VkResult res = b->vk->fn.vkQueueSubmit(b->vk->queue, 1, &si, b->dev.fence);
    if (res == VK_ERROR_DEVICE_LOST)
        return recover(b, &L, r->kernel, err);
    if (res != VK_SUCCESS) {
        st = vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "%s: vkQueueSubmit: %s", r->kernel,
                       vkrr_vk_result_name(res));
        goto fail;
    }
    res = b->vk->fn.vkWaitForFences(b->vk->device, 1, &b->dev.fence, VK_TRUE, timeout_ns);
    if (res == VK_TIMEOUT) {
        b->zombie = L; /* still in use by the device: freed by settle() */
        b->busy = true;
        return vkrr_fail(err, VKRR_ERR_TIMEOUT, NULL, 0, -1, "%s did not finish within %g s",
                         r->kernel, b->timeout_s);
    }
    if (res == VK_ERROR_DEVICE_LOST)
        return recover(b, &L, r->kernel, err);
    if (res != VK_SUCCESS) {
        st = vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "%s: vkWaitForFences: %s", r->kernel,
                       vkrr_vk_result_name(res));
        goto fail;
    }
    b->vk->fn.vkResetFences(b->vk->device, 1, &b->dev.fence);
    b->last_gpu_ms = vkrr_vk_launch_gpu_ms(b->vk, &b->dev);
    if ((st = vkrr_vk_launch_finish(b->vk, &b->dev, r, &L, err)) != VKRR_OK)
        goto fail; /* a streamed launch's read-back failed */
    keep_outputs_only(b, &L);
    b->kept = L; /* post_view points into it until the next run or release */
    return VKRR_OK;
fail:
    vkrr_vk_launch_free(b->vk, &L);
    return st;
}

static vkrr_status vk_run_frame(void *self, vkrr_replay *const *r, uint32_t n, double *gpu_ms,
                                uint32_t *barriers, vkrr_error *err)
{
    vk_backend *b = self;
    vkrr_status st;
    *gpu_ms = NAN;
    *barriers = 0;
    vkrr_vk_launch_free(b->vk, &b->kept);
    uint64_t timeout_ns = (uint64_t)(b->timeout_s * 1e9);
    if ((st = settle(b, timeout_ns, err)) != VKRR_OK)
        return st;
    VkPipeline *pipes = calloc(n ? n : 1, sizeof *pipes);
    vkrr_vk_launch *L = calloc(n ? n : 1, sizeof *L);
    const vkrr_vk_own **own = calloc(n ? n : 1, sizeof *own);
    vkrr_port_iface_run *run = calloc(n ? n : 1, sizeof *run);
    VkDescriptorPool pool = VK_NULL_HANDLE;
    if (!pipes || !L || !own || !run) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory for a frame");
        goto done;
    }
    for (uint32_t k = 0; k < n; k++)
        if ((st = own_of(b, r[k], &own[k], &run[k], err)) != VKRR_OK ||
            (st = check_dims(b, r[k], own[k], &run[k], err)) != VKRR_OK ||
            (st = get_pipeline(b, r[k], 0, &run[k], &pipes[k], err)) != VKRR_OK)
            goto done;
    for (uint32_t k = 0; k < n; k++)
        if (own[k] && own[k]->f->head) {
            st = vkrr_fail(err, VKRR_ERR_UNSUPPORTED, own[k]->port, own[k]->f->line, -1,
                           "a port of several passes in a one-command-buffer frame is not "
                           "supported yet (%s)", r[k]->kernel);
            goto done;
        }
    if ((st = vkrr_vk_frame_prepare(b->vk, &b->dev, r, pipes, own, run, n, L, &pool, barriers, err)) !=
        VKRR_OK)
        goto done;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                       .pCommandBuffers = &b->dev.cmd};
    VkResult res = b->vk->fn.vkQueueSubmit(b->vk->queue, 1, &si, b->dev.fence);
    if (res == VK_SUCCESS)
        res = b->vk->fn.vkWaitForFences(b->vk->device, 1, &b->dev.fence, VK_TRUE, timeout_ns);
    if (res != VK_SUCCESS) {
        /* A frame is a timing run: a device that fails it is waited out, not recovered. */
        b->vk->fn.vkDeviceWaitIdle(b->vk->device);
        st = vkrr_fail(err, res == VK_TIMEOUT ? VKRR_ERR_TIMEOUT : VKRR_ERR_DEVICE, NULL, 0, -1,
                       "one-command-buffer frame: %s", vkrr_vk_result_name(res));
        goto done;
    }
    b->vk->fn.vkResetFences(b->vk->device, 1, &b->dev.fence);
    *gpu_ms = vkrr_vk_launch_gpu_ms(b->vk, &b->dev);
done:
    for (uint32_t k = n; L && k-- > 0;) /* last first: later launches borrow */
        vkrr_vk_launch_free(b->vk, &L[k]);
    if (pool)
        b->vk->fn.vkDestroyDescriptorPool(b->vk->device, pool, NULL);
    free(L);
    free(pipes);
    free(own);
    free(run);
    return st;
}

static void vk_release(void *self)
{
    vk_backend *b = self;
    if (b && b->vk)
        vkrr_vk_launch_free(b->vk, &b->kept);
}

static void vk_destroy(void *self)
{
    vk_backend *b = self;
    if (!b)
        return;
    if (b->vk && b->vk->device) {
        vkrr_error e = {0};
        if (settle(b, (uint64_t)(b->timeout_s * 1e9), &e) != VKRR_OK && b->busy) {
            /* Destroying a device that still runs work is undefined; leaking it is not. */
            vkrr_warn("vulkan: a timed-out launch is still running; the device is left to the process exit");
            free(b->ports_dir);
            vkrr_portdesc_set_destroy(b->descs);
            free(b->modules);
            free(b->pipes);
            free(b);
            return;
        }
        vkrr_vk_launch_free(b->vk, &b->kept);
        drop_cache(b);
        vkrr_vk_dev_fini(b->vk, &b->dev);
    }
    vkrr_vk_ctx_destroy(b->vk);
    vkrr_portdesc_set_destroy(b->descs);
    free(b->ports_dir);
    free(b->modules);
    free(b->pipes);
    free(b);
}

vkrr_status vkrr_vk_backend_create(vkrr_backend *out, const vkrr_vk_desc *desc, vkrr_error *err)
{
    vkrr_status st;
    memset(out, 0, sizeof *out);
    vk_backend *b = calloc(1, sizeof *b);
    if (!b)
        return vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
    vkrr_vk_desc d = desc ? *desc : (vkrr_vk_desc){0};
    b->last_gpu_ms = NAN;
    b->timeout_s = d.timeout_s > 0 && isfinite(d.timeout_s) ? d.timeout_s : VKRR_VK_DEFAULT_TIMEOUT_S;
    if (b->timeout_s > 1e9)
        b->timeout_s = 1e9;
    if (d.ports_dir && !(b->ports_dir = strdup(d.ports_dir))) {
        st = vkrr_fail(err, VKRR_ERR_NOMEM, NULL, 0, -1, "out of memory");
        goto fail;
    }
    b->no_builtin = d.no_builtin;
    if ((st = vkrr_portdesc_set_create(&b->descs, d.ports_dir, err)) != VKRR_OK)
        goto fail;
    vkrr_vk_ctx_desc cd = {.device = d.device, .validation = d.validation};
    if ((st = vkrr_vk_ctx_create(&b->vk, &cd, err)) != VKRR_OK)
        goto fail;
    if ((st = vkrr_vk_dev_init(b->vk, &b->dev, err)) != VKRR_OK)
        goto fail;
    out->name = "vulkan";
    out->self = b;
    out->has_kernel = vk_has_kernel;
    out->source_of = vk_source_of;
    out->prepare = vk_prepare;
    out->run = vk_run;
    out->destroy = vk_destroy;
    out->keeps_outputs = true;
    out->release = vk_release;
    out->stats = vk_stats;
    out->last_gpu_ms = vk_last_gpu_ms;
    out->run_frame = vk_run_frame;
    return VKRR_OK;
fail:
    vk_destroy(b);
    return st;
}

static void vk_stats(void *self, vkrr_backend_stats *out)
{
    const vk_backend *b = self;
    *out = b->stats;
    out->device_name = b->vk->props.deviceName;
    out->driver = b->vk->driver;
    out->uuid = b->vk->uuid;
    out->validation_messages = b->vk->messages;
}

static double vk_last_gpu_ms(void *self)
{
    const vk_backend *b = self;
    return b ? b->last_gpu_ms : NAN;
}
