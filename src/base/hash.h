/* hash.h - FNV-1a 64, the hash= value of the capture log's dump lines (the
 * value vkrr's writer logs; docs/capture-format.md).
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
/* The d4r bridge starts from 1469598103934665603 (the standard basis,
 * 14695981039346656037, with its last digit missing): its hash= values and
 * vkrr's writer's. */
#define VKRR_FNV1A64_BRIDGE_INIT 1469598103934665603ull

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

/* The same recurrence over little-endian 64-bit words (bytes of a last
 * partial word one at a time): the identity of the hardware tables
 * (src/hw/hw_tables.h), about eight times faster over tens of MB.  Every
 * call but the last must pass a multiple of 8 bytes for the result to equal
 * one call over the whole. */
static inline uint64_t vkrr_fnv1a64w_update(uint64_t h, const void *data, size_t size)
{
    const uint8_t *p = (const uint8_t *)data;
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        uint64_t w = 0;
        for (unsigned k = 0; k < 8; k++)
            w |= (uint64_t)p[i + k] << (8 * k);
        h = (h ^ w) * VKRR_FNV1A64_PRIME;
    }
    for (; i < size; i++)
        h = (h ^ p[i]) * VKRR_FNV1A64_PRIME;
    return h;
}

#endif
