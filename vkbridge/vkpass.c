/* vkpass.c - the shader module of one pass of a port (portpass.h): its
 * shader (the pass's shader= in the ports folder, else the kernel's), held
 * against the pass's own interface lines (vkiface.c) before any launch runs. */
#include "vkdev.h"

#include <stdio.h>
#include <stdlib.h>

#include "ports.h"

vkrr_status vkrr_vk_pass_module(vkrr_vk_ctx *vk, const char *dir, const vkrr_port_iface *f,
                                const char *port, const char *kernel, const uint32_t *code,
                                size_t bytes, vkrr_vk_own *own, VkShaderModule *mod, vkrr_error *err)
{
    vkrr_status st;
    uint32_t *loaded = NULL;
    if (f && f->shader[0]) {
        if (!vkrr_port_shader_dir_has(dir, f->shader))
            return vkrr_fail(err, VKRR_ERR_PARSE, port, f->line, -1,
                             "pass shader=%s: there is no %s.spv or %s.comp in %s", f->shader,
                             f->shader, f->shader, dir ? dir : "a ports folder (no --ports given)");
        if ((st = vkrr_port_shader_load(dir, f->shader, &loaded, &bytes, err)) != VKRR_OK)
            return st;
        code = loaded;
    }
    if (f && (st = vkrr_vk_own_create(vk, f, port, code, bytes, own, err)) != VKRR_OK) {
        free(loaded);
        return st;
    }
    VkShaderModuleCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = bytes, .pCode = code};
    VkResult r = vk->fn.vkCreateShaderModule(vk->device, &ci, NULL, mod);
    free(loaded);
    if (r != VK_SUCCESS) {
        vkrr_vk_own_destroy(vk, own);
        return vkrr_fail(err, VKRR_ERR_DEVICE, NULL, 0, -1, "vkCreateShaderModule(%s%s%s): %s", kernel,
                         f && f->shader[0] ? ", pass shader " : "", f ? f->shader : "",
                         vkrr_vk_result_name(r));
    }
    return VKRR_OK;
}
