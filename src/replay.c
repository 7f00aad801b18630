/* replay.c - the one parameter-block relocation every backend uses (replay.h). */
#include "replay.h"

#include <string.h>

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); /* args are little-endian */
}

vkrr_status vkrr_replay_relocate(const vkrr_replay *r, const uint64_t *alloc_addr,
                                 const uint64_t *image_word, uint8_t *params,
                                 vkrr_error *err)
{
    if (r->args_bytes > VKRR_ARGS_MAX_BYTES || (r->args_bytes && !r->args))
        return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, -1,
                         "kernel %s: parameter block of %u bytes (limit %u)", r->kernel,
                         r->args_bytes, VKRR_ARGS_MAX_BYTES);
    if (r->args_bytes) memcpy(params, r->args, r->args_bytes);
    for (uint32_t i = 0; i < r->npointers; i++) {
        const vkrr_pointer *p = &r->pointers[i];
        if (p->offset > r->args_bytes || r->args_bytes - p->offset < 8)
            return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, p->offset,
                             "kernel %s: pointer word at offset %u is outside the %u-byte parameter block",
                             r->kernel, p->offset, r->args_bytes);
        if (p->alloc >= r->nallocs)
            return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, p->offset,
                             "kernel %s: pointer at offset %u names allocation %u of %u", r->kernel,
                             p->offset, p->alloc, r->nallocs);
        put_u64(params + p->offset, alloc_addr[p->alloc] + p->delta);
    }
    for (uint32_t i = 0; i < r->nimages; i++) {
        const vkrr_replay_image *im = &r->images[i];
        if (im->offset > r->args_bytes || r->args_bytes - im->offset < 8)
            return vkrr_fail(err, VKRR_ERR_RANGE, NULL, 0, im->offset,
                             "kernel %s: %s handle at offset %u is outside the %u-byte parameter block",
                             r->kernel, im->kind == VKRR_IMAGE_SURFACE ? "surface" : "texture",
                             im->offset, r->args_bytes);
        put_u64(params + im->offset, image_word[i]);
    }
    return VKRR_OK;
}
