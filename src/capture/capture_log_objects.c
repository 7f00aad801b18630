/* capture_log_objects.c - the log's CUDA object lines: arrays
 * (`cuArrayCreate(v2) ...`, `cuArray3DCreate->v2 ...`, and vkrr's older
 * `cuArrayCreate width= ...`), texture objects (`cuTexObjectCreate ...`,
 * `d4rRegisterLinearTexture ...`), surface objects, vkrr's device line and
 * the compute capability of `cuDeviceGetAttribute`. */
#include <stdlib.h>
#include <string.h>

#include "capture_log_internal.h"
#include "cuformat.h"

/* key="TEXT" (no quote inside) into buf; 0 when absent, -1 when malformed. */
static int kv_quoted(const vkrr_log_ctx *c, const char *key, char *buf, size_t cap)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl + 2 <= c->n; i++) {
        bool boundary = i == 0 || c->s[i - 1] == ' ' || c->s[i - 1] == '\t';
        if (!boundary || memcmp(c->s + i, key, kl) || c->s[i + kl] != '=' || c->s[i + kl + 1] != '"')
            continue;
        const char *b = c->s + i + kl + 2;
        const char *e = memchr(b, '"', c->n - (size_t)(b - c->s));
        if (!e || (size_t)(e - b) >= cap)
            return -1;
        memcpy(buf, b, (size_t)(e - b));
        buf[e - b] = 0;
        return 1;
    }
    return 0;
}

/* device name="..." [cc=M.m] [model="..."] (a vkrr extension). */
vkrr_status vkrr_log_read_device(vkrr_log *log, const vkrr_log_ctx *c)
{
    vkrr_capture_device d = {.cc_major = -1, .cc_minor = -1};
    int r = kv_quoted(c, "name", d.name, sizeof d.name);
    if (r <= 0)
        return vkrr_log_bad(c, VKRR_ERR_PARSE, r ? "device: name=\"...\" is unterminated or too long"
                                                 : "device: missing name=\"...\"");
    if (kv_quoted(c, "model", d.model, sizeof d.model) < 0)
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "device: model=\"...\" is unterminated or too long");
    const char *v;
    size_t vn;
    if (vkrr_log_find_kv(c, "cc", &v, &vn)) {
        const char *dot = memchr(v, '.', vn);
        uint64_t ma, mi;
        if (!dot || vkrr_parse_u64(v, (size_t)(dot - v), 1, 99, &ma) ||
            vkrr_parse_u64(dot + 1, vn - (size_t)(dot + 1 - v), 1, 9, &mi))
            return vkrr_log_bad(c, VKRR_ERR_PARSE, "device: cc=%.*s is not MAJOR.MINOR",
                                (int)(vn > 16 ? 16 : vn), v);
        d.cc_major = (int)ma;
        d.cc_minor = (int)mi;
    }
    d.present = true;
    log->device = d;
    return VKRR_OK;
}

/* cuDeviceGetAttribute attribute=%d dev=%d result=%d value=%d: 75 and 76 are
 * CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR. */
vkrr_status vkrr_log_read_attribute(vkrr_log_build *b, const vkrr_log_ctx *c)
{
    uint64_t attr = 0, value = 0;
    bool ok;
    vkrr_status st;
    if ((st = vkrr_log_succeeded(c, &ok)) || !ok ||
        (st = vkrr_log_kv_u64(c, "attribute", true, UINT32_MAX, &attr)))
        return st;
    if (attr != 75 && attr != 76)
        return VKRR_OK;
    if ((st = vkrr_log_kv_u64(c, "value", true, 99, &value)))
        return st;
    *(attr == 75 ? &b->cc_major : &b->cc_minor) = (int)value;
    return VKRR_OK;
}

/* An array's geometry as CUDA_ARRAY3D_DESCRIPTOR gives it: height 0 is 1D,
 * depth 0 is 2D, else depth slices (3D) or, with the layered flag, layers;
 * a cubemap is square with six faces a cube.  *rows: the dump's rows. */
static vkrr_status array_geometry(const vkrr_log_ctx *c, uint64_t width, uint64_t height,
                                  uint64_t depth, uint64_t flags, vkrr_geometry *g, uint64_t *rows)
{
    bool layered = flags & VKRR_ARRAY_LAYERED, cube = flags & VKRR_ARRAY_CUBEMAP;
    *g = (vkrr_geometry){.dims = height ? 2 : 1};
    if (cube && (width != height || (layered ? depth == 0 || depth % 6 : depth != 6)))
        return vkrr_log_bad(c, VKRR_ERR_PARSE,
                            "a cubemap array is square with depth=6 (layered: a multiple of 6), "
                            "not %llux%llu depth=%llu", (unsigned long long)width,
                            (unsigned long long)height, (unsigned long long)depth);
    if (layered && !depth)
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "a layered array needs depth= (its layers) of at least 1");
    if (depth && !height && !layered)
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "a 3D array (depth=%llu) needs height= of at least 1",
                            (unsigned long long)depth);
    if (cube || layered) {
        g->layers = (uint32_t)depth;
        g->cube = cube;
    } else if (depth) {
        g->dims = 3;
        g->depth = (uint32_t)depth;
    }
    *rows = (height ? height : 1) * (depth ? depth : 1);
    if (*rows > UINT32_MAX)
        return vkrr_log_bad(c, VKRR_ERR_RANGE, "an array of %llu rows in all is more than vkrr "
                            "reads (2^32-1)", (unsigned long long)*rows);
    if (g->dims == 2 && !g->layers)
        *g = (vkrr_geometry){0}; /* plain 2D */
    return VKRR_OK;
}

/* cuArrayCreate(v2) descriptor=%p width= height= format= channels= result= array=%p
 * cuArray3DCreate->v2 width= height= depth= format= channels= flags=0x descriptor= result= array= metadata=
 * (and vkrr's older cuArrayCreate / cuArray3DCreate with depth= flags=). */
vkrr_status vkrr_log_read_array(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c)
{
    uint64_t v[5], depth = 0, flags = 0, rows = 0;
    vkrr_geometry g;
    bool ok;
    vkrr_status st;
    if ((st = vkrr_log_succeeded(c, &ok)) || !ok)
        return st;
    if ((st = vkrr_log_kv_u64(c, "width", true, UINT32_MAX, &v[0])) ||
        (st = vkrr_log_kv_u64(c, "height", true, UINT32_MAX, &v[1])) ||
        (st = vkrr_log_kv_u64(c, "format", true, UINT32_MAX, &v[2])) ||
        (st = vkrr_log_kv_u64(c, "channels", true, UINT32_MAX, &v[3])) ||
        (st = vkrr_log_kv_u64(c, "array", true, UINT64_MAX, &v[4])) ||
        (st = vkrr_log_kv_u64(c, "depth", false, UINT32_MAX, &depth)) ||
        (st = vkrr_log_kv_u64(c, "flags", false, 0xff, &flags)) ||
        (st = array_geometry(c, v[0], v[1], depth, flags, &g, &rows)))
        return st;
    if (!v[0])
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "width=0: an empty array");
    if (!v[4])
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "array=(nil) with result=0");
    vkrr_log_array *a = vkrr_log_grow((void **)&log->arrays, &log->narrays, &b->arrays, sizeof *a);
    if (!a)
        return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
    *a = (vkrr_log_array){v[4], (uint32_t)v[0], (uint32_t)rows, (uint32_t)v[2], (uint32_t)v[3],
                          c->line, g};
    return VKRR_OK;
}

/* vkrr's form of a linear (type=2) or pitch-2D (type=3) texture's resource
 * descriptor: devptr= format= channels= and bytes= or width= height= pitch=.
 * The bridge prints none of it (its array= holds devPtr). */
static vkrr_status read_linear_desc(vkrr_log_texture *t, const vkrr_log_ctx *c)
{
    uint64_t fmt = 0, ch = 0;
    const char *v;
    size_t vn;
    vkrr_status st;
    if (!vkrr_log_find_kv(c, "devptr", &v, &vn))
        return vkrr_log_kv_u64(c, "array", true, UINT64_MAX, &t->devptr);
    if ((st = vkrr_log_kv_u64(c, "devptr", true, UINT64_MAX, &t->devptr)) ||
        (st = vkrr_log_kv_u64(c, "format", true, UINT32_MAX, &fmt)) ||
        (st = vkrr_log_kv_u64(c, "channels", true, 4, &ch)))
        return st;
    t->format = (uint32_t)fmt;
    t->channels = (uint32_t)ch;
    t->has_desc = true;
    if (t->resource == VKRR_TEXRES_LINEAR)
        return vkrr_log_kv_u64(c, "bytes", true, UINT64_MAX, &t->bytes);
    if ((st = vkrr_log_kv_u64(c, "width", true, UINT32_MAX, &t->width)) ||
        (st = vkrr_log_kv_u64(c, "height", true, UINT32_MAX, &t->height)) ||
        (st = vkrr_log_kv_u64(c, "pitch", true, UINT64_MAX, &t->pitch)))
        return st;
    return VKRR_OK;
}

/* addr=A0,A1 (the bridge), or A0,A1,A2 with the third axis's (vkrr's, for
 * 3D arrays); with two, the third axis takes the second's. */
static vkrr_status read_address(const vkrr_log_ctx *c, int a[3])
{
    const char *v;
    size_t vn;
    if (!vkrr_log_find_kv(c, "addr", &v, &vn))
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "missing addr=");
    uint64_t m[3];
    unsigned na = 0;
    for (size_t b = 0, e; na < 4 && b <= vn; b = e + 1, na++) {
        const char *comma = memchr(v + b, ',', vn - b);
        e = comma ? (size_t)(comma - v) : vn;
        if (na == 3 || vkrr_parse_u64(v + b, e - b, 0, 3, &m[na])) {
            na = 0;
            break;
        }
    }
    if (na != 2 && na != 3)
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "addr= must be two or three address modes 0..3 as A0,A1[,A2]");
    for (unsigned k = 0; k < 3; k++)
        a[k] = (int)m[k < na ? k : 1];
    return VKRR_OK;
}

/* cuTexObjectCreate resource=%p type=%u array=0x%llx texture=%p addr=%u,%u
 * filter=%u flags=0x%x aniso=%u mipfilter=%u view=%p result=%d object=0x%llx */
vkrr_status vkrr_log_read_texture(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c)
{
    uint64_t obj = 0, arr = 0, filter = 0, flags = 0, type = VKRR_TEXRES_ARRAY;
    int addr[3];
    bool ok;
    vkrr_status st;
    if ((st = vkrr_log_succeeded(c, &ok)) || !ok)
        return st;
    if ((st = vkrr_log_kv_u64(c, "object", true, UINT64_MAX, &obj)) ||
        (st = vkrr_log_kv_u64(c, "type", false, VKRR_TEXRES_PITCH2D, &type)) ||
        (st = vkrr_log_kv_u64(c, "filter", true, 1, &filter)) ||
        (st = vkrr_log_kv_u64(c, "flags", true, 0xff, &flags)) || (st = read_address(c, addr)))
        return st;
    vkrr_log_texture lin = {.resource = (int)type};
    if (type == VKRR_TEXRES_LINEAR || type == VKRR_TEXRES_PITCH2D)
        st = read_linear_desc(&lin, c);
    else
        st = vkrr_log_kv_u64(c, "array", false, UINT64_MAX, &arr);
    if (st)
        return st;
    vkrr_log_texture *t = vkrr_log_grow((void **)&log->textures, &log->ntextures, &b->textures, sizeof *t);
    if (!t)
        return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
    *t = lin;
    t->handle = obj;
    t->array = arr;
    t->line = c->line;
    t->sampler = (vkrr_sampler){.filter = (int)filter,
                                .address = {addr[0], addr[1], addr[2]},
                                .normalized = (flags & VKRR_TEXFLAG_NORMALIZED) != 0,
                                .read_as_integer = (flags & VKRR_TEXFLAG_INTEGER) != 0,
                                .srgb = (flags & VKRR_TEXFLAG_SRGB) != 0,
                                .from_log = true};
    return VKRR_OK;
}

/* d4rRegisterLinearTexture object=0x%llx %zux%zu format=%u channels=%u
 * stand-in array=%p: the shape of the linear texture `object` (created just
 * before), which its cuTexObjectCreate line does not carry. */
vkrr_status vkrr_log_read_linear_register(vkrr_log *log, const vkrr_log_ctx *c)
{
    uint64_t obj = 0, fmt = 0, ch = 0, w = 0, h = 0;
    const char *t;
    size_t tn;
    vkrr_status st;
    if ((st = vkrr_log_kv_u64(c, "object", true, UINT64_MAX, &obj)) ||
        (st = vkrr_log_kv_u64(c, "format", true, UINT32_MAX, &fmt)) ||
        (st = vkrr_log_kv_u64(c, "channels", true, 4, &ch)))
        return st;
    const char *x = vkrr_log_token(c, 2, &t, &tn) ? memchr(t, 'x', tn) : NULL;
    if (!x || vkrr_parse_u64(t, (size_t)(x - t), 0, UINT32_MAX, &w) ||
        vkrr_parse_u64(x + 1, tn - (size_t)(x + 1 - t), 0, UINT32_MAX, &h))
        return vkrr_log_bad(c, VKRR_ERR_PARSE, "d4rRegisterLinearTexture: the third field is not WxH");
    for (uint32_t i = log->ntextures; i-- > 0;) {
        vkrr_log_texture *tx = &log->textures[i];
        if (tx->handle != obj)
            continue;
        if (tx->resource != VKRR_TEXRES_LINEAR && tx->resource != VKRR_TEXRES_PITCH2D)
            return vkrr_log_bad(c, VKRR_ERR_INCONSISTENT, "texture 0x%llx (line %ld) is not over "
                                "linear memory", (unsigned long long)obj, tx->line);
        tx->format = (uint32_t)fmt;
        tx->channels = (uint32_t)ch;
        tx->width = w;
        tx->height = h ? h : 1;
        tx->pitch = 0; /* unknown: a pitch-2D texture stays without a descriptor */
        tx->bytes = w * tx->height * vkrr_cuformat_texel_bytes((uint32_t)fmt, (uint32_t)ch);
        tx->has_desc = tx->resource == VKRR_TEXRES_LINEAR;
        return VKRR_OK;
    }
    return vkrr_log_bad(c, VKRR_ERR_INCONSISTENT, "d4rRegisterLinearTexture of 0x%llx, which no "
                        "cuTexObjectCreate line before it created", (unsigned long long)obj);
}

/* cuSurfObjectCreate descriptor=%p result=%d object=0x%llx [array=0x%llx, vkrr's] */
vkrr_status vkrr_log_read_surface(vkrr_log *log, vkrr_log_build *b, const vkrr_log_ctx *c)
{
    uint64_t obj = 0, arr = 0;
    bool ok;
    vkrr_status st;
    if ((st = vkrr_log_succeeded(c, &ok)) || !ok)
        return st;
    if ((st = vkrr_log_kv_u64(c, "object", true, UINT64_MAX, &obj)) ||
        (st = vkrr_log_kv_u64(c, "array", false, UINT64_MAX, &arr)))
        return st;
    vkrr_log_surface *s = vkrr_log_grow((void **)&log->surfaces, &log->nsurfaces, &b->surfaces, sizeof *s);
    if (!s)
        return vkrr_log_bad(c, VKRR_ERR_NOMEM, "out of memory");
    *s = (vkrr_log_surface){obj, arr, c->line};
    return VKRR_OK;
}

/* vkrr's extension lines, for what the bridge cannot print, each about the
 * object created just before it:
 *   vkrr surface object=0x.. array=0x..          the array a surface writes
 *   vkrr texture object=0x.. addr_z=A            a third axis's address mode
 *   vkrr texture object=0x.. devptr= format= channels= width= height= pitch=
 *                                                a pitch-2D texture's descriptor */
vkrr_status vkrr_log_read_extension(vkrr_log *log, const vkrr_log_ctx *c)
{
    const char *t, *v;
    size_t tn, vn;
    uint64_t obj = 0, x = 0;
    vkrr_status st;
    if (!vkrr_log_token(c, 1, &t, &tn))
        return VKRR_OK;
    bool surface = tn == 7 && !memcmp(t, "surface", 7), texture = tn == 7 && !memcmp(t, "texture", 7);
    if (!surface && !texture)
        return VKRR_OK; /* a later extension: not ours to read */
    if ((st = vkrr_log_kv_u64(c, "object", true, UINT64_MAX, &obj)))
        return st;
    if (surface) {
        for (uint32_t i = log->nsurfaces; i-- > 0;)
            if (log->surfaces[i].handle == obj)
                return vkrr_log_kv_u64(c, "array", true, UINT64_MAX, &log->surfaces[i].array);
        return vkrr_log_bad(c, VKRR_ERR_INCONSISTENT, "vkrr surface: no cuSurfObjectCreate of 0x%llx "
                            "before it", (unsigned long long)obj);
    }
    vkrr_log_texture *tx = NULL;
    for (uint32_t i = log->ntextures; !tx && i-- > 0;)
        if (log->textures[i].handle == obj)
            tx = &log->textures[i];
    if (!tx)
        return vkrr_log_bad(c, VKRR_ERR_INCONSISTENT, "vkrr texture: no cuTexObjectCreate of 0x%llx "
                            "before it", (unsigned long long)obj);
    if (vkrr_log_find_kv(c, "addr_z", &v, &vn)) {
        if ((st = vkrr_log_kv_u64(c, "addr_z", true, 3, &x)))
            return st;
        tx->sampler.address[2] = (int)x;
    }
    if (vkrr_log_find_kv(c, "devptr", &v, &vn)) {
        vkrr_log_texture d = {.resource = tx->resource};
        if ((st = read_linear_desc(&d, c)))
            return st;
        tx->devptr = d.devptr, tx->format = d.format, tx->channels = d.channels;
        tx->bytes = d.bytes, tx->width = d.width, tx->height = d.height, tx->pitch = d.pitch;
        tx->has_desc = true;
    }
    return VKRR_OK;
}
