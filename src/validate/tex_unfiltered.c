/* tex_unfiltered.c - texture arguments a kernel's PTX reads only
 * unfiltered (tex_unfiltered.h). */
#include "tex_unfiltered.h"

#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "ptx_params.h"
#include "texfilter.h"

typedef struct entry {
    const char *kernel; /* the capture's */
    uint32_t offset;
} entry;

struct vkrr_tex_unfiltered {
    entry *e;
    uint32_t n, cap;
};

const char *vkrr_image_filter_unmeasured(const vkrr_image *im, char *buf, size_t cap)
{
    vkrr_texcase tc = {im->format, im->channels, im->sampler.filter,
                       {im->sampler.address[0], im->sampler.address[1]}, im->sampler.normalized,
                       im->resource == VKRR_TEXRES_LINEAR || im->resource == VKRR_TEXRES_PITCH2D};
    return im->kind == VKRR_IMAGE_TEXTURE ? vkrr_texfilter_unmeasured(&tc, buf, cap) : NULL;
}

static bool unmeasured(const vkrr_image *im)
{
    char why[256];
    return vkrr_image_filter_unmeasured(im, why, sizeof why) != NULL;
}

bool vkrr_tex_unfiltered_wanted(const vkrr_capture *cap)
{
    for (uint32_t i = 0; i < cap->nlaunches; i++)
        for (uint32_t k = 0; k < cap->launches[i].nimages; k++)
            if (unmeasured(&cap->launches[i].images[k]))
                return true;
    return false;
}

static bool add(vkrr_tex_unfiltered *t, const char *kernel, uint32_t offset)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->e[i].offset == offset && !strcmp(t->e[i].kernel, kernel))
            return true;
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? 2 * t->cap : 16;
        entry *ne = realloc(t->e, nc * sizeof *ne);
        if (!ne)
            return false;
        t->e = ne, t->cap = nc;
    }
    t->e[t->n++] = (entry){kernel, offset};
    return true;
}

/* The texture arguments of kernel's launches worth asking about, asked of
 * its PTX (parsed here, once). */
static bool ask_kernel(vkrr_tex_unfiltered *t, const vkrr_capture *cap, const vkrr_module_set *ms,
                       const char *kernel)
{
    int at = vkrr_modules_pick(ms, kernel, NULL, 0);
    if (at < 0)
        return true;
    vkrr_ptx_module *m = NULL;
    vkrr_error e = {0};
    const vkrr_module_src *src = &ms->srcs[at];
    if (vkrr_ptx_module_load_keep(&m, src->text, src->len, src->name, &e) != VKRR_OK)
        return e.status != VKRR_ERR_NOMEM;
    bool ok = true;
    for (uint32_t i = 0; i < cap->nlaunches && ok; i++) {
        const vkrr_launch *l = &cap->launches[i];
        if (strcmp(l->kernel, kernel))
            continue;
        for (uint32_t k = 0; k < l->nimages && ok; k++)
            if (unmeasured(&l->images[k]) && !vkrr_tex_unfiltered_has(t, kernel, l->images[k].offset) &&
                !vkrr_ptx_texture_may_filter(m, kernel, l->images[k].offset))
                ok = add(t, l->kernel, l->images[k].offset);
    }
    vkrr_ptx_module_free(m);
    return ok;
}

vkrr_status vkrr_tex_unfiltered_create(vkrr_tex_unfiltered **out, const vkrr_capture *cap,
                                       const vkrr_module_set *ms, vkrr_error *err)
{
    *out = NULL;
    if (!ms || !ms->n)
        return VKRR_OK;
    vkrr_tex_unfiltered *t = calloc(1, sizeof *t);
    const char **asked = calloc(cap->nlaunches + 1, sizeof *asked); /* each kernel once */
    uint32_t nasked = 0;
    bool ok = t && asked;
    for (uint32_t i = 0; i < cap->nlaunches && ok; i++) {
        const vkrr_launch *l = &cap->launches[i];
        bool wanted = false, first = true;
        for (uint32_t k = 0; k < l->nimages && !wanted; k++)
            wanted = unmeasured(&l->images[k]);
        for (uint32_t j = 0; j < nasked && first && wanted; j++)
            first = strcmp(asked[j], l->kernel) != 0;
        if (wanted && first) {
            asked[nasked++] = l->kernel;
            ok = ask_kernel(t, cap, ms, l->kernel);
        }
    }
    free(asked);
    if (!ok) {
        vkrr_tex_unfiltered_free(t);
        return vkrr_fail(err, VKRR_ERR_NOMEM, cap->path, 0, -1, "out of memory");
    }
    *out = t;
    return VKRR_OK;
}

bool vkrr_tex_unfiltered_has(const vkrr_tex_unfiltered *t, const char *kernel, uint32_t offset)
{
    for (uint32_t i = 0; t && i < t->n; i++)
        if (t->e[i].offset == offset && !strcmp(t->e[i].kernel, kernel))
            return true;
    return false;
}

void vkrr_tex_unfiltered_free(vkrr_tex_unfiltered *t)
{
    if (t)
        free(t->e);
    free(t);
}
