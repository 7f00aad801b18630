/* vkiface.c - a port with its own interface (`interface own`, portiface.h)
 * on Vulkan: the shader's interface read by reflection (SPIRV-Cross's C API)
 * and held against the descriptor before any launch runs; its descriptor
 * set and pipeline layouts; one launch's sets, views of its allocations. */
#include "vkdev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv_cross_c.h>

#include "spirv_strip.h"

/* In messages: "storage buffer", "combined image sampler", ... */
static const char *kind_name(vkrr_port_bind_kind k)
{
    static const char *const names[] = {"storage buffer", "uniform buffer", "storage image",
                                        "sampled image", "combined image sampler", "sampler"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* The SPIRV-Cross resource list of each binding kind, and its descriptor type. */
static const struct {
    spvc_resource_type t;
    VkDescriptorType d;
} kinds[] = {
    [VKRR_PORT_STORAGE_BUFFER] = {SPVC_RESOURCE_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
    [VKRR_PORT_UNIFORM_BUFFER] = {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER},
    [VKRR_PORT_STORAGE_IMAGE] = {SPVC_RESOURCE_TYPE_STORAGE_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE},
    [VKRR_PORT_SAMPLED_IMAGE] = {SPVC_RESOURCE_TYPE_SEPARATE_IMAGE, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE},
    [VKRR_PORT_COMBINED_IMAGE_SAMPLER] = {SPVC_RESOURCE_TYPE_SAMPLED_IMAGE,
                                          VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER},
    [VKRR_PORT_SAMPLER] = {SPVC_RESOURCE_TYPE_SEPARATE_SAMPLERS, VK_DESCRIPTOR_TYPE_SAMPLER},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* A storage image's declared format against the port's format= (a shader
 * without one, Unknown, takes the port's). */
static vkrr_status check_format(spvc_compiler c, const spvc_reflected_resource *r,
                                const vkrr_port_bind *b, const char *port, vkrr_error *err)
{
    spvc_type t = spvc_compiler_get_type_handle(c, r->type_id);
    if (spvc_type_get_image_dimension(t) == SpvDimBuffer)
        return vkrr_fail(err, VKRR_ERR_PARSE, port, b->line, -1,
                         "binding %u.%u: the shader declares a texel buffer (%s): not yet supported "
                         "in an own interface", b->set, b->binding, r->name);
    if (b->kind != VKRR_PORT_STORAGE_IMAGE)
        return VKRR_OK;
    SpvImageFormat sf = spvc_type_get_image_storage_format(t);
    const vkrr_imgformat *want = vkrr_imgformat_of_spv((unsigned)sf);
    if (sf != SpvImageFormatUnknown && want != b->format)
        return vkrr_fail(err, VKRR_ERR_PARSE, port, b->line, -1,
                         "binding %u.%u: the port gives format=%s, the shader declares %s (%s)",
                         b->set, b->binding, b->format->name,
                         want ? want->name : "a format vkrr does not map CUDA arrays to", r->name);
    return VKRR_OK;
}

/* The reflected resources of one kind, checked against the port's lines. */
static vkrr_status check_buffers(spvc_compiler c, spvc_resources res, vkrr_port_bind_kind kind,
                                 const vkrr_port_iface *f, const char *port, vkrr_vk_own *o,
                                 bool *seen, vkrr_error *err)
{
    const spvc_reflected_resource *list = NULL;
    size_t n = 0;
    spvc_resources_get_resource_list_for_type(res, kinds[kind].t, &list, &n);
    for (size_t i = 0; i < n; i++) {
        unsigned set = spvc_compiler_get_decoration(c, list[i].id, SpvDecorationDescriptorSet);
        unsigned binding = spvc_compiler_get_decoration(c, list[i].id, SpvDecorationBinding);
        const vkrr_port_bind *b = NULL;
        uint32_t k = 0;
        for (; k < f->nbind && !b; k++)
            if (f->bind[k].set == set && f->bind[k].binding == binding)
                b = &f->bind[k];
        if (!b)
            return vkrr_fail(err, VKRR_ERR_PARSE, port, f->line, -1,
                             "binding %u.%u: the shader declares a %s there (%s) and the port "
                             "leaves it empty (no 'binding %u.%u' line)", set, binding,
                             kind_name(kind), list[i].name, set, binding);
        if (b->kind != kind)
            return vkrr_fail(err, VKRR_ERR_PARSE, port, b->line, -1,
                             "binding %u.%u: the port binds a %s, the shader declares a %s (%s)",
                             set, binding, kind_name(b->kind), kind_name(kind), list[i].name);
        seen[k - 1] = true;
        vkrr_status st = kind >= VKRR_PORT_STORAGE_IMAGE && kind != VKRR_PORT_SAMPLER
                             ? check_format(c, &list[i], b, port, err) : VKRR_OK;
        if (st != VKRR_OK)
            return st;
        if (set >= VKRR_VK_OWN_SETS)
            return vkrr_fail(err, VKRR_ERR_PARSE, port, b->line, -1,
                             "binding %u.%u: sets 0..%u are supported", set, binding,
                             VKRR_VK_OWN_SETS - 1);
        if (set + 1 > o->nsets)
            o->nsets = set + 1;
    }
    return VKRR_OK;
}

/* Bindings of kinds an own interface cannot fill (yet). */
static vkrr_status refuse_later(spvc_compiler c, spvc_resources res, const vkrr_port_iface *f,
                                const char *port, vkrr_error *err)
{
    static const struct { spvc_resource_type t; const char *name; } later[] = {
        {SPVC_RESOURCE_TYPE_ACCELERATION_STRUCTURE, "acceleration structure"}};
    for (size_t t = 0; t < sizeof later / sizeof later[0]; t++) {
        const spvc_reflected_resource *list = NULL;
        size_t n = 0;
        spvc_resources_get_resource_list_for_type(res, later[t].t, &list, &n);
        if (n)
            return vkrr_fail(err, VKRR_ERR_PARSE, port, f->line, -1,
                             "binding %u.%u: the shader declares a %s (%s): not supported in an "
                             "own interface",
                             spvc_compiler_get_decoration(c, list[0].id, SpvDecorationDescriptorSet),
                             spvc_compiler_get_decoration(c, list[0].id, SpvDecorationBinding),
                             later[t].name, list[0].name);
    }
    return VKRR_OK;
}

/* Push-constant block, specialisation constants, local size. */
static vkrr_status check_constants(spvc_compiler c, spvc_resources res, const vkrr_port_iface *f,
                                   const char *port, vkrr_vk_own *o, vkrr_error *err)
{
    const spvc_reflected_resource *pc = NULL;
    size_t npc = 0;
    spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &pc, &npc);
    size_t block = 0;
    if (npc)
        spvc_compiler_get_declared_struct_size(c, spvc_compiler_get_type_handle(c, pc[0].base_type_id),
                                               &block);
    o->push_size = (uint32_t)block;
    for (uint32_t i = 0; i < f->npush; i++) {
        uint32_t end = f->push[i].where + (f->push[i].type >= VKRR_PORT_U64 ? 8u : 4u);
        if (end > block)
            return vkrr_fail(err, VKRR_ERR_PARSE, port, f->push[i].line, -1,
                             "push %u: bytes %u..%u are beyond the shader's push-constant block "
                             "(%zu bytes%s%s)", f->push[i].where, f->push[i].where, end - 1, block,
                             npc ? ", " : ": it declares none", npc ? pc[0].name : "");
    }
    const spvc_specialization_constant *sc = NULL;
    size_t nsc = 0;
    spvc_compiler_get_specialization_constants(c, &sc, &nsc);
    for (uint32_t i = 0; i < f->nspec; i++) {
        bool found = false;
        for (size_t k = 0; k < nsc && !found; k++)
            found = sc[k].constant_id == f->spec[i].where;
        if (!found)
            return vkrr_fail(err, VKRR_ERR_PARSE, port, f->spec[i].line, -1,
                             "specialize %u: the shader has no specialisation constant %u",
                             f->spec[i].where, f->spec[i].where);
    }
    spvc_specialization_constant wg[3];
    memset(wg, 0, sizeof wg);
    spvc_compiler_get_work_group_size_specialization_constants(c, &wg[0], &wg[1], &wg[2]);
    for (int i = 0; i < 3; i++) {
        o->local_spec[i] = UINT32_MAX;
        o->local[i] = spvc_compiler_get_execution_mode_argument_by_index(c, SpvExecutionModeLocalSize,
                                                                         (uint32_t)i);
        if (wg[i].id) { /* local_size_*_id: the workgroup line sets it, else its default */
            o->local_spec[i] = wg[i].constant_id;
            o->local[i] = spvc_constant_get_scalar_u32(spvc_compiler_get_constant_handle(c, wg[i].id),
                                                       0, 0);
        }
    }
    for (uint32_t k = 0; k < f->nspec; k++)
        for (int i = 0; i < 3; i++)
            if (o->local_spec[i] == f->spec[k].where)
                return vkrr_fail(err, VKRR_ERR_PARSE, port, f->spec[k].line, -1,
                                 "specialize %u: that constant is the shader's local size "
                                 "(local_size_%c_id): give it with 'workgroup'", f->spec[k].where,
                                 "xyz"[i]);
    if (!f->workgroup_line)
        return VKRR_OK;
    for (int i = 0; i < 3; i++) {
        if (o->local_spec[i] != UINT32_MAX) {
            o->local[i] = f->workgroup[i];
            continue;
        }
        if (o->local[i] != f->workgroup[i])
            return vkrr_fail(err, VKRR_ERR_PARSE, port, f->workgroup_line, -1,
                             "workgroup %u %u %u: the shader's local size is %u %u %u",
                             f->workgroup[0], f->workgroup[1], f->workgroup[2], o->local[0],
                             o->local[1], o->local[2]);
    }
    return VKRR_OK;
}

static vkrr_status reflect(const vkrr_port_iface *f, const char *port, const uint32_t *code,
                           size_t bytes, vkrr_vk_own *o, vkrr_error *err)
{
    spvc_context ctx = NULL;
    spvc_parsed_ir ir = NULL;
    spvc_compiler c = NULL;
    spvc_resources res = NULL;
    if (spvc_context_create(&ctx) != SPVC_SUCCESS)
        return vkrr_fail(err, VKRR_ERR_NOMEM, port, 0, -1, "SPIRV-Cross: out of memory");
    vkrr_status st = VKRR_OK;
    uint32_t *iface = NULL;
    if (spvc_context_parse_spirv(ctx, code, bytes / 4, &ir) != SPVC_SUCCESS) {
        /* a module this SPIRV-Cross cannot parse whole (cooperative matrices
         * in Debian 12's): its interface alone (spirv_strip.h) */
        char first[256];
        snprintf(first, sizeof first, "%s", spvc_context_get_last_error_string(ctx));
        size_t n = 0;
        if (!vkrr_spirv_interface_only(code, bytes / 4, &iface, &n) ||
            spvc_context_parse_spirv(ctx, iface, n, &ir) != SPVC_SUCCESS) {
            st = vkrr_fail(err, VKRR_ERR_FORMAT, port, f->line, -1,
                           "its shader cannot be reflected (SPIRV-Cross: %s)", first);
            goto done;
        }
    }
    if (spvc_context_create_compiler(ctx, SPVC_BACKEND_NONE, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP, &c) !=
            SPVC_SUCCESS ||
        spvc_compiler_create_shader_resources(c, &res) != SPVC_SUCCESS) {
        st = vkrr_fail(err, VKRR_ERR_FORMAT, port, f->line, -1,
                       "its shader cannot be reflected (SPIRV-Cross: %s)",
                       spvc_context_get_last_error_string(ctx));
        goto done;
    }
    bool seen[VKRR_PORT_MAX_BINDINGS] = {false};
    if ((st = refuse_later(c, res, f, port, err)) != VKRR_OK)
        goto done;
    for (size_t k = 0; k < NKINDS; k++)
        if ((st = check_buffers(c, res, (vkrr_port_bind_kind)k, f, port, o, seen, err)) != VKRR_OK)
            goto done;
    for (uint32_t k = 0; k < f->nbind; k++)
        if (!seen[k]) {
            st = vkrr_fail(err, VKRR_ERR_PARSE, port, f->bind[k].line, -1,
                           "binding %u.%u: the shader declares no such binding (a %s from arg%u "
                           "is given)", f->bind[k].set, f->bind[k].binding,
                           kind_name(f->bind[k].kind), f->bind[k].arg);
            goto done;
        }
    st = check_constants(c, res, f, port, o, err);
done:
    spvc_context_destroy(ctx);
    free(iface);
    return st;
}

vkrr_status vkrr_vk_own_create(vkrr_vk_ctx *vk, const vkrr_port_iface *f, const char *port,
                               const uint32_t *code, size_t bytes, vkrr_vk_own *o, vkrr_error *err)
{
    memset(o, 0, sizeof *o);
    o->f = f;
    snprintf(o->port, sizeof o->port, "%s", port);
    vkrr_status st = reflect(f, port, code, bytes, o, err);
    if (st != VKRR_OK)
        return st;
    if (o->push_size > vk->props.limits.maxPushConstantsSize || o->push_size > VKRR_PORT_PUSH_MAX)
        return vkrr_fail(err, VKRR_ERR_UNSUPPORTED, port, f->line, -1,
                         "the shader's push constants (%u bytes) exceed the device's %u or "
                         "vkrr's %u", o->push_size, vk->props.limits.maxPushConstantsSize,
                         VKRR_PORT_PUSH_MAX);
    for (uint32_t s = 0; s < o->nsets; s++) {
        VkDescriptorSetLayoutBinding lb[VKRR_PORT_MAX_BINDINGS];
        uint32_t n = 0;
        for (uint32_t k = 0; k < f->nbind; k++)
            if (f->bind[k].set == s)
                lb[n++] = (VkDescriptorSetLayoutBinding){
                    .binding = f->bind[k].binding, .descriptorCount = 1,
                    .descriptorType = kinds[f->bind[k].kind].d,
                    .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
        VkDescriptorSetLayoutCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = n, .pBindings = lb};
        if ((st = vkrr_vk_check(vk->fn.vkCreateDescriptorSetLayout(vk->device, &ci, NULL, &o->dsl[s]),
                                "vkCreateDescriptorSetLayout", err)) != VKRR_OK)
            goto fail;
    }
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, o->push_size};
    VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = o->nsets, .pSetLayouts = o->dsl,
                                     .pushConstantRangeCount = o->push_size ? 1 : 0,
                                     .pPushConstantRanges = &pr};
    if ((st = vkrr_vk_check(vk->fn.vkCreatePipelineLayout(vk->device, &pi, NULL, &o->layout),
                            "vkCreatePipelineLayout", err)) != VKRR_OK)
        goto fail;
    return VKRR_OK;
fail:
    vkrr_vk_own_destroy(vk, o);
    return st;
}

void vkrr_vk_own_destroy(vkrr_vk_ctx *vk, vkrr_vk_own *o)
{
    if (o->layout)
        vk->fn.vkDestroyPipelineLayout(vk->device, o->layout, NULL);
    for (uint32_t s = 0; s < VKRR_VK_OWN_SETS; s++)
        if (o->dsl[s])
            vk->fn.vkDestroyDescriptorSetLayout(vk->device, o->dsl[s], NULL);
    memset(o, 0, sizeof *o);
}

vkrr_status vkrr_vk_own_image(vkrr_vk_ctx *vk, const vkrr_vk_launch *L, uint32_t i,
                              const vkrr_replay_image *im, bool *bound, VkFormat *view,
                              VkImageUsageFlags *usage, const vkrr_imgformat **conv,
                              uint8_t *general, vkrr_error *err)
{
    *bound = false;
    *conv = NULL;
    *general = 0;
    for (uint32_t p = 0; p <= L->npasses; p++) { /* every pass of a split launch */
        const vkrr_port_iface_run *run = p ? &L->passes[p - 1].run : &L->own_run;
        const char *port = p ? L->passes[p - 1].own->port : L->own->port;
        for (uint32_t k = 0; k < run->nimg; k++) {
            const vkrr_port_image_use *u = &run->img[k];
            if (u->image != i || u->kind == VKRR_PORT_SAMPLER)
                continue;
            if (u->map == VKRR_IMGMAP_CONVERT) {
                uint8_t probe[64] = {0}, out[64];
                if (L->streamed || !vkrr_imgformat_convert_in(im->format, im->channels, u->format, probe, out, 1))
                    return vkrr_fail(err, VKRR_ERR_UNSUPPORTED, port, u->line, -1,
                                     "binding %u.%u: format=%s converts the CUDA array's texels, which "
                                     "the Vulkan replay does not do %s (docs/own-interface.md)", u->set,
                                     u->binding, u->format->name,
                                     L->streamed ? "for a launch past the memory limit (streamed)"
                                                 : "for this array's format");
                *conv = u->format;
            }
            if (u->kind == VKRR_PORT_STORAGE_IMAGE && im->kind == VKRR_IMAGE_TEXTURE) {
                if (L->streamed) /* vkstream.c lays textures out read-only */
                    return vkrr_fail(err, VKRR_ERR_UNSUPPORTED, port, u->line, -1,
                                     "binding %u.%u: a texture as a storage image in a launch past "
                                     "the memory limit (streamed) is not supported", u->set, u->binding);
                *general = 1; /* a texture read through imageLoad: GENERAL, never read back */
            }
            if (*bound && *view != u->format->vk)
                return vkrr_fail(err, VKRR_ERR_UNSUPPORTED, port, u->line, -1,
                                 "binding %u.%u: the same CUDA array in two formats is not supported",
                                 u->set, u->binding);
            bool storage = u->kind == VKRR_PORT_STORAGE_IMAGE;
            VkFormatFeatureFlags need = storage ? VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT
                                                : VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
            VkFormatProperties fp;
            vkGetPhysicalDeviceFormatProperties(vk->phys, u->format->vk, &fp);
            if ((fp.optimalTilingFeatures & need) != need)
                return vkrr_fail(err, VKRR_ERR_UNSUPPORTED, port, u->line, -1,
                                 "binding %u.%u: format=%s cannot be a %s on %s", u->set, u->binding,
                                 u->format->name, kind_name(u->kind), vk->props.deviceName);
            *bound = true;
            *view = u->format->vk;
            *usage |= storage ? VK_IMAGE_USAGE_STORAGE_BIT : VK_IMAGE_USAGE_SAMPLED_BIT;
        }
    }
    return VKRR_OK;
}

/* The samplers of a pass's combined-image-sampler and sampler bindings. */
static vkrr_status own_samplers(vkrr_vk_ctx *vk, const vkrr_port_iface_run *run, VkSampler *samplers,
                                vkrr_error *err)
{
    for (uint32_t k = 0; k < run->nimg; k++) {
        const vkrr_port_image_use *u = &run->img[k];
        if (u->kind != VKRR_PORT_COMBINED_IMAGE_SAMPLER && u->kind != VKRR_PORT_SAMPLER)
            continue;
        VkFormat f = u->format ? u->format->vk : VK_FORMAT_R16G16B16A16_SFLOAT;
        vkrr_dtype t = u->format ? u->format->dtype : VKRR_DT_F16;
        bool integer = t == VKRR_DT_U8 || t == VKRR_DT_S8 || t == VKRR_DT_U16 || t == VKRR_DT_S16 ||
                       t == VKRR_DT_U32 || t == VKRR_DT_S32;
        vkrr_status st = vkrr_vk_make_sampler(vk, &u->sampler, f, integer, &samplers[k], err);
        if (st != VKRR_OK)
            return st;
    }
    return VKRR_OK;
}

/* One pass's sets: o its interface, run its values, into *pool, sets, samplers. */
static vkrr_status pass_sets(vkrr_vk_ctx *vk, const vkrr_vk_launch *L, const vkrr_vk_own *o,
                             const vkrr_port_iface_run *run, VkDescriptorPool *pool,
                             VkDescriptorSet *sets, VkSampler *samplers, vkrr_error *err)
{
    const VkPhysicalDeviceLimits *lim = &vk->props.limits;
    vkrr_status st;
    uint32_t nuni = 0;
    for (uint32_t k = 0; k < run->nbuf; k++) {
        const vkrr_port_buffer_use *u = &run->buf[k];
        bool uni = u->kind == VKRR_PORT_UNIFORM_BUFFER;
        VkDeviceSize align = uni ? lim->minUniformBufferOffsetAlignment : lim->minStorageBufferOffsetAlignment;
        uint64_t range = uni ? lim->maxUniformBufferRange : lim->maxStorageBufferRange;
        nuni += uni;
        if (align && u->offset % align)
            return vkrr_fail(err, VKRR_ERR_RANGE, o->port, u->line, -1,
                             "binding %u.%u: the view starts at byte %llu of its allocation, not a "
                             "multiple of %s's %sBufferOffsetAlignment (%llu)", u->set, u->binding,
                             (unsigned long long)u->offset, vk->props.deviceName,
                             uni ? "minUniform" : "minStorage", (unsigned long long)align);
        if (u->size > range)
            return vkrr_fail(err, VKRR_ERR_RANGE, o->port, u->line, -1,
                             "binding %u.%u: %llu bytes exceed %s's max%sBufferRange (%llu)",
                             u->set, u->binding, (unsigned long long)u->size, vk->props.deviceName,
                             uni ? "Uniform" : "Storage", (unsigned long long)range);
    }
    (void)nuni;
    VkDescriptorPoolSize ps[NKINDS];
    for (size_t k = 0; k < NKINDS; k++) /* at most every binding of each type: simple, and small */
        ps[k] = (VkDescriptorPoolSize){kinds[k].d, run->nbuf + run->nimg ? run->nbuf + run->nimg : 1};
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = o->nsets ? o->nsets : 1, .poolSizeCount = NKINDS,
                                     .pPoolSizes = ps};
    if ((st = own_samplers(vk, run, samplers, err)) != VKRR_OK)
        return st;
    if ((st = vkrr_vk_check(vk->fn.vkCreateDescriptorPool(vk->device, &pi, NULL, pool),
                            "vkCreateDescriptorPool", err)) != VKRR_OK)
        return st;
    if (!o->nsets)
        return VKRR_OK;
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = *pool, .descriptorSetCount = o->nsets,
                                      .pSetLayouts = o->dsl};
    if ((st = vkrr_vk_check(vk->fn.vkAllocateDescriptorSets(vk->device, &ai, sets),
                            "vkAllocateDescriptorSets", err)) != VKRR_OK)
        return st;
    VkDescriptorBufferInfo bi[VKRR_PORT_MAX_BINDINGS];
    VkDescriptorImageInfo ii[VKRR_PORT_MAX_BINDINGS];
    VkWriteDescriptorSet w[2 * VKRR_PORT_MAX_BINDINGS];
    for (uint32_t k = 0; k < run->nbuf; k++) {
        const vkrr_port_buffer_use *u = &run->buf[k];
        bi[k] = (VkDescriptorBufferInfo){u->scratch ? L->scratch[u->alloc].buf : L->bufs[u->alloc].buf,
                                         u->offset, u->size};
        w[k] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = sets[u->set], .dstBinding = u->binding,
                                      .descriptorCount = 1,
                                      .descriptorType = u->kind == VKRR_PORT_UNIFORM_BUFFER
                                                            ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                            : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &bi[k]};
    }
    for (uint32_t k = 0; k < run->nimg; k++) {
        const vkrr_port_image_use *u = &run->img[k];
        bool img = u->image != UINT32_MAX && u->kind != VKRR_PORT_SAMPLER;
        ii[k] = (VkDescriptorImageInfo){
            .sampler = samplers[k],
            .imageView = img ? L->imgs[u->image].view : VK_NULL_HANDLE,
            .imageLayout = img ? vkrr_vk_bound_layout(L, u->image) : VK_IMAGE_LAYOUT_UNDEFINED};
        w[run->nbuf + k] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                                  .dstSet = sets[u->set], .dstBinding = u->binding,
                                                  .descriptorCount = 1,
                                                  .descriptorType = kinds[u->kind].d,
                                                  .pImageInfo = &ii[k]};
    }
    vk->fn.vkUpdateDescriptorSets(vk->device, run->nbuf + run->nimg, w, 0, NULL);
    return VKRR_OK;
}

vkrr_status vkrr_vk_own_sets(vkrr_vk_ctx *vk, vkrr_vk_launch *L, vkrr_error *err)
{
    vkrr_status st = pass_sets(vk, L, L->own, &L->own_run, &L->own_pool, L->own_sets, L->own_samplers,
                               err);
    for (uint32_t p = 0; p < L->npasses && st == VKRR_OK; p++) {
        vkrr_vk_pass *P = &L->passes[p];
        st = pass_sets(vk, L, P->own, &P->run, &P->pool, P->sets, P->samplers, err);
    }
    return st;
}
