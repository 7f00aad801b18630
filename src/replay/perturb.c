/* Deliberate ULP error, applied to a port's output (see perturb.h). */
#include "perturb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool vkrr_perturb_parse(const char *s, vkrr_perturb *out)
{
    memset(out, 0, sizeof *out);
    const char *eq = strrchr(s, '=');
    if (!eq || eq == s)
        return false;
    const char *hash = memchr(s, '#', (size_t)(eq - s));
    size_t klen = (size_t)((hash ? hash : eq) - s);
    if (klen == 0 || klen >= sizeof out->kernel)
        return false;
    memcpy(out->kernel, s, klen);
    char *end;
    if (hash) {
        errno = 0;
        unsigned long long occ = strtoull(hash + 1, &end, 10);
        if (end != eq || end == hash + 1 || errno || occ > UINT32_MAX || hash[1] == '-')
            return false;
        out->occurrence = (uint32_t)occ;
    }
    errno = 0;
    long long u = strtoll(eq + 1, &end, 10);
    if (*end || end == eq + 1 || errno)
        return false;
    out->ulps = u;
    return true;
}

bool vkrr_perturb_matches(const vkrr_perturb *p, const vkrr_launch *l)
{
    return p && p->ulps != 0 && l->occurrence == p->occurrence && !strcmp(l->kernel, p->kernel);
}

static uint64_t load(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void store(uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* lo + ulps, without overflowing int64 */
static int64_t add_sat(int64_t v, int64_t d)
{
    if (d > 0 && v > INT64_MAX - d)
        return INT64_MAX;
    if (d < 0 && v < INT64_MIN - d)
        return INT64_MIN;
    return v + d;
}

void vkrr_perturb_element(vkrr_dtype t, void *elem, int64_t ulps)
{
    if (ulps == 0)
        return;
    uint8_t *p = elem;
    unsigned n = vkrr_dtype_size(t);
    uint64_t bits = load(p, n);
    uint64_t sign, maxmag; /* the sign bit and the largest finite magnitude code */
    switch (t) {
    case VKRR_DT_F16:
        if ((bits & 0x7c00u) == 0x7c00u)
            return;
        sign = 0x8000u, maxmag = 0x7bffu;
        break;
    case VKRR_DT_BF16:
        if ((bits & 0x7f80u) == 0x7f80u)
            return;
        sign = 0x8000u, maxmag = 0x7f7fu;
        break;
    case VKRR_DT_F32:
        if ((bits & 0x7f800000u) == 0x7f800000u)
            return;
        sign = 0x80000000u, maxmag = 0x7f7fffffu;
        break;
    case VKRR_DT_E4M3:
        if ((bits & 0x7fu) == 0x7fu) /* e4m3 has no Inf; 0x7f/0xff are NaN */
            return;
        sign = 0x80u, maxmag = 0x7eu;
        break;
    case VKRR_DT_E5M2:
        if ((bits & 0x7cu) == 0x7cu) /* Inf 0x7c, NaN 0x7d..0x7f, like f16's top byte */
            return;
        sign = 0x80u, maxmag = 0x7bu;
        break;
    case VKRR_DT_U8: case VKRR_DT_UNORM8:
        store(p, 1, (uint64_t)clamp64(add_sat((int64_t)bits, ulps), 0, 0xff));
        return;
    case VKRR_DT_U16: case VKRR_DT_UNORM16:
        store(p, 2, (uint64_t)clamp64(add_sat((int64_t)bits, ulps), 0, 0xffff));
        return;
    case VKRR_DT_U32:
        store(p, 4, (uint64_t)clamp64(add_sat((int64_t)bits, ulps), 0, 0xffffffffll));
        return;
    case VKRR_DT_S8: case VKRR_DT_SNORM8:
        store(p, 1, (uint64_t)clamp64(add_sat((int8_t)bits, ulps), INT8_MIN, INT8_MAX));
        return;
    case VKRR_DT_S16: case VKRR_DT_SNORM16:
        store(p, 2, (uint64_t)clamp64(add_sat((int16_t)bits, ulps), INT16_MIN, INT16_MAX));
        return;
    case VKRR_DT_S32:
        store(p, 4, (uint64_t)clamp64(add_sat((int32_t)bits, ulps), INT32_MIN, INT32_MAX));
        return;
    case VKRR_DT_S64:
        store(p, 8, (uint64_t)add_sat((int64_t)bits, ulps));
        return;
    case VKRR_DT_U64: /* saturating at 0 and at 2^64 - 1 */
        store(p, 8, ulps < 0 ? (bits < (uint64_t)-(ulps + 1) + 1 ? 0 : bits - ((uint64_t)-(ulps + 1) + 1))
                             : (bits > UINT64_MAX - (uint64_t)ulps ? UINT64_MAX : bits + (uint64_t)ulps));
        return;
    case VKRR_DT_F64:
        if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull)
            return;
        sign = 1ull << 63, maxmag = 0x7fefffffffffffffull;
        break;
    default:
        return; /* opaque bytes have no order to move along */
    }
    /* sign-magnitude -> one ordered line, move, back (both zeros are 0) */
    int64_t mag = (int64_t)(bits & (sign - 1u));
    int64_t idx = (bits & sign) ? -mag : mag;
    idx = clamp64(add_sat(idx, ulps), -(int64_t)maxmag, (int64_t)maxmag);
    uint64_t out = idx < 0 ? (sign | (uint64_t)(-idx)) : (uint64_t)idx;
    store(p, n, out);
}

bool vkrr_perturb_view(const vkrr_view *v, void *data, uint64_t bytes, int64_t ulps)
{
    uint64_t n = vkrr_view_bytes(v);
    if (v->offset > bytes || n > bytes - v->offset)
        return false;
    unsigned es = vkrr_dtype_size(v->dtype);
    uint8_t *p = (uint8_t *)data + v->offset;
    for (uint64_t i = 0; i + es <= n; i += es)
        vkrr_perturb_element(v->dtype, p + i, ulps);
    return true;
}
