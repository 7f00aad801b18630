/* hash.h - FNV-1a 64, the hash= value of the capture log's dump lines (the
 * value vkrr's writer logs; spec/capture-format.md).
 *
 * Incremental, so a reader can fold it into a pass it makes anyway, slice by
 * slice in file order:
 *
 *     uint64_t h = VKRR_FNV1A64_INIT;
 *     h = vkrr_fnv1a64_update(h, part1, n1);
 *     h = vkrr_fnv1a64_update(h, part2, n2);   // == vkrr_fnv1a64(whole, n1 + n2)
 *
 * Does NOT: allocate, or resist tampering (it is an identity check for
 * accidents: truncation, a copy gone wrong, a dump edited by hand).
 */
#ifndef VKRR_HASH_H
#define VKRR_HASH_H

#include <stddef.h>
#include <stdint.h>

#define VKRR_FNV1A64_INIT 0xcbf29ce484222325ull
#define VKRR_FNV1A64_PRIME 0x100000001b3ull

static inline uint64_t vkrr_fnv1a64_update(uint64_t h, const void *data, size_t size)
{
    const uint8_t *p = (const uint8_t *)data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * VKRR_FNV1A64_PRIME;
    return h;
}

static inline uint64_t vkrr_fnv1a64(const void *data, size_t size)
{
    return vkrr_fnv1a64_update(VKRR_FNV1A64_INIT, data, size);
}

#endif
