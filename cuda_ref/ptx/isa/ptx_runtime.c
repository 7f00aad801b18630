/* ptx_runtime.c - the CUDA runtime's device functions a module declares
 * (.extern .func) and the GPU's runtime supplies: vprintf (printf) and
 * __assertfail (assert); malloc and free, on the heap of ptx_launch_mem.c.
 *
 * printf: nvcc passes the format string's generic address and a buffer of
 * the arguments, each at an offset aligned to its size (int, unsigned,
 * char: 4 bytes; long, long long, pointers, size_t: 8; float is promoted to
 * double: 8).  The CUDA runtime formats that buffer on the host with the
 * host's printf; so does this, conversion by conversion (%d %i %u %x %X %o
 * %c %s %p %f %F %e %E %g %G %a %A, flags, width, precision, h hh l ll z j t).
 * The output is kept per thread (ptx_prints.c). */
#include <stdio.h>
#include <stdlib.h>

#include "ptx_internal.h"

/* Argument k of the call (a .param variable of the caller), little-endian. */
uint64_t ptx_call_arg(ptx_warp *w, const ptx_inst *in, unsigned l, uint32_t k)
{
    ptx_rt *rt = w->cta->rt;
    const ptx_call *call = &rt->f->calls[in->imm];
    const ptx_copy *cp = &rt->f->copies[call->args0 + k];
    uint64_t v = 0;
    memcpy(&v, w->local + (size_t)l * rt->local_bytes + (cp->frame ? w->fp[l] : 0) + cp->off,
           cp->bytes < 8 ? cp->bytes : 8);
    return v;
}

void ptx_call_result(ptx_warp *w, const ptx_inst *in, unsigned l, uint64_t v)
{
    ptx_rt *rt = w->cta->rt;
    const ptx_call *call = &rt->f->calls[in->imm];
    if (!call->nrets)
        return;
    const ptx_copy *cp = &rt->f->copies[call->rets0];
    memcpy(w->local + (size_t)l * rt->local_bytes + (cp->frame ? w->fp[l] : 0) + cp->off, &v,
           cp->bytes < 8 ? cp->bytes : 8);
}

/* A NUL-terminated string at generic address a, at most cap-1 bytes of it;
 * NULL after a fault. */
static char *read_string(ptx_warp *w, const ptx_inst *in, unsigned l, uint64_t a, char *buf,
                         size_t cap)
{
    size_t n = 0;
    for (;;) {
        const char *p = ptx_addr(w, in, (int)l, SP_GENERIC, a + n, 1, 1, false);
        if (!p)
            return NULL;
        if (!*p || n + 1 == cap)
            break;
        buf[n++] = *p;
    }
    buf[n] = 0;
    return buf;
}

int ptx_bi_assertfail(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    unsigned l = (unsigned)__builtin_ctz(m);
    char msg[256], file[256], fn[256];
    if (!read_string(w, in, l, ptx_call_arg(w, in, l, 0), msg, sizeof msg) ||
        !read_string(w, in, l, ptx_call_arg(w, in, l, 1), file, sizeof file) ||
        !read_string(w, in, l, ptx_call_arg(w, in, l, 3), fn, sizeof fn))
        return -1;
    return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "%s:%u: %s: Assertion `%s` failed.", file,
                     (uint32_t)ptx_call_arg(w, in, l, 2), fn, msg);
}

/* ---- printf ------------------------------------------------------------------------- */
/* Reads `bytes` (4 or 8) at the argument buffer's next offset aligned to it. */
static int next_arg(ptx_warp *w, const ptx_inst *in, unsigned l, uint64_t args, uint64_t *off,
                    unsigned bytes, uint64_t *v)
{
    *off = (*off + bytes - 1) & ~(uint64_t)(bytes - 1);
    const void *p = ptx_addr(w, in, (int)l, SP_GENERIC, args + *off, bytes, 1, false);
    if (!p)
        return -1;
    *v = 0;
    memcpy(v, p, bytes);
    *off += bytes;
    return 0;
}

/* Formats one printf call of lane l; returns the number of arguments it
 * read, or -2 after a fault. */
static int format(ptx_warp *w, const ptx_inst *in, unsigned l, const char *fmt, uint64_t args,
                  ptx_strbuf *out)
{
    uint64_t off = 0;
    int nargs = 0;
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            const char *q = strchr(p, '%');
            size_t n = q ? (size_t)(q - p) : strlen(p);
            ptx_strbuf_put(out, p, n);
            p += n;
            continue;
        }
        const char *start = p++;
        char spec[64];
        size_t sn = 0;
        spec[sn++] = '%';
        while (*p && strchr("-+ #0", *p) && sn < 40)
            spec[sn++] = *p++;
        while (*p >= '0' && *p <= '9' && sn < 48)
            spec[sn++] = *p++;
        if (*p == '.') {
            spec[sn++] = *p++;
            while (*p >= '0' && *p <= '9' && sn < 56)
                spec[sn++] = *p++;
        }
        bool wide = false, h = false, hh = false;
        for (;;) {
            if (*p == 'l' || *p == 'z' || *p == 'j' || *p == 't' || *p == 'L')
                wide = true;
            else if (*p == 'h')
                hh = h, h = true;
            else
                break;
            p++;
        }
        char conv = *p ? *p++ : 0;
        char buf[512];
        uint64_t v = 0;
        int n = -1;
        if (conv == '%') {
            ptx_strbuf_put(out, "%", 1);
            continue;
        }
        if (conv && strchr("diuxXoc", conv)) {
            if (next_arg(w, in, l, args, &off, wide ? 8u : 4u, &v) < 0)
                return -2;
            if (conv == 'c') {
                spec[sn++] = 'c', spec[sn] = 0;
                n = snprintf(buf, sizeof buf, spec, (int)(uint32_t)v);
            } else if (wide) {
                spec[sn++] = 'l', spec[sn++] = 'l', spec[sn++] = conv, spec[sn] = 0;
                n = snprintf(buf, sizeof buf, spec, (long long)v);
            } else {
                if (h)
                    spec[sn++] = 'h';
                if (hh)
                    spec[sn++] = 'h';
                spec[sn++] = conv, spec[sn] = 0;
                n = snprintf(buf, sizeof buf, spec, (int)(uint32_t)v);
            }
        } else if (conv && strchr("fFeEgGaA", conv)) {
            if (next_arg(w, in, l, args, &off, 8, &v) < 0)
                return -2;
            spec[sn++] = conv, spec[sn] = 0;
            n = snprintf(buf, sizeof buf, spec, ptx_d(v));
        } else if (conv == 's' || conv == 'p') {
            if (next_arg(w, in, l, args, &off, 8, &v) < 0)
                return -2;
            spec[sn++] = conv, spec[sn] = 0;
            if (conv == 'p') {
                n = snprintf(buf, sizeof buf, spec, (void *)(uintptr_t)v);
            } else {
                char str[4096];
                if (v && !read_string(w, in, l, v, str, sizeof str))
                    return -2;
                n = snprintf(buf, sizeof buf, spec, v ? str : "(null)");
            }
        } else {
            /* not a conversion CUDA's printf takes (%n, %*d ...): copied as written */
            ptx_strbuf_put(out, start, (size_t)(p - start));
            continue;
        }
        nargs++;
        if (n > 0)
            ptx_strbuf_put(out, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    }
    return nargs;
}

int ptx_bi_vprintf(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    ptx_rt *rt = w->cta->rt;
    const uint32_t *g = rt->l->grid;
    ptx_cta *cta = w->cta;
    uint64_t ctalin = cta->ctaid[0] + (uint64_t)g[0] * (cta->ctaid[1] + (uint64_t)g[1] * cta->ctaid[2]);
    PTX_LANES(m, {
        char fmt[4096];
        ptx_strbuf out = {0};
        if (!read_string(w, in, l, ptx_call_arg(w, in, l, 0), fmt, sizeof fmt))
            return -1;
        int nargs = format(w, in, l, fmt, ptx_call_arg(w, in, l, 1), &out);
        if (nargs < 0 || out.nomem) {
            free(out.p);
            if (nargs < 0)
                return -1;
            return ptx_fault(w, in, (int)l, VKRR_ERR_NOMEM, "no memory for printf's output");
        }
        pthread_mutex_lock(&rt->lock);
        ptx_prints_add(&rt->prints, ctalin, w->index * 32u + l, &out);
        pthread_mutex_unlock(&rt->lock);
        free(out.p);
        ptx_call_result(w, in, l, (uint32_t)nargs); /* printf returns the number of arguments it took */
    });
    return 0;
}

/* malloc(size) and free(p): the launch's heap (ptx_launch_mem.c) */
int ptx_bi_malloc(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    ptx_rt *rt = w->cta->rt;
    PTX_LANES(m, {
        pthread_mutex_lock(&rt->lock);
        uint64_t off = ptx_heap_take(rt->heap, ptx_call_arg(w, in, l, 0));
        pthread_mutex_unlock(&rt->lock);
        ptx_call_result(w, in, l, off == UINT64_MAX ? 0 : (uint64_t)(uintptr_t)(ptx_heap_base(rt->heap) + off));
    });
    return 0;
}

int ptx_bi_free(ptx_warp *w, const ptx_inst *in, uint32_t m)
{
    ptx_rt *rt = w->cta->rt;
    PTX_LANES(m, {
        uint64_t p = ptx_call_arg(w, in, l, 0), base = (uint64_t)(uintptr_t)ptx_heap_base(rt->heap);
        if (!p)
            continue;
        bool in_heap = p >= base && p - base < PTX_HEAP_BYTES;
        pthread_mutex_lock(&rt->lock);
        bool ok = in_heap && ptx_heap_give(rt->heap, p - base);
        pthread_mutex_unlock(&rt->lock);
        /* a heap address by its offset: the same in every run (and engine) */
        if (!ok && in_heap)
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "free(heap + 0x%llx): no block malloc returned "
                             "starts there, or it was freed already", (unsigned long long)(p - base));
        if (!ok)
            return ptx_fault(w, in, (int)l, VKRR_ERR_FAULT, "free(0x%llx): not an address malloc returned "
                             "(the device heap does not outlive its launch)", (unsigned long long)p);
    });
    return 0;
}
