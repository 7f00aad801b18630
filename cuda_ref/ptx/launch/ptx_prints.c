/* ptx_prints.c - a launch's printf output: each call's text kept with its
 * block, thread and order, handed over in thread order (block, then
 * thread, then call), at most 1 MiB of it, as much as the CUDA runtime's
 * default printf buffer holds.  And the growable string both use. */
#include <stdlib.h>

#include "ptx_internal.h"

#define PRINT_LIMIT (1u << 20)

struct ptx_print {
    uint64_t cta, seq;
    uint32_t thread;
    char *text;
};

void ptx_strbuf_put(ptx_strbuf *b, const char *s, size_t n)
{
    if (b->nomem)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->nomem = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

void ptx_prints_add(ptx_prints *p, uint64_t cta, uint32_t thread, ptx_strbuf *text)
{
    if (!text->n)
        return;
    if (p->bytes + text->n > PRINT_LIMIT) {
        p->cut = true;
        return;
    }
    if (!ptx_grow((void **)&p->v, &p->cap, p->n, sizeof *p->v)) {
        p->cut = true;
        return;
    }
    p->v[p->n++] = (struct ptx_print){cta, p->seq++, thread, text->p};
    p->bytes += text->n;
    text->p = NULL;
    text->n = text->cap = 0;
}

static int print_cmp(const void *a, const void *b)
{
    const struct ptx_print *x = a, *y = b;
    if (x->cta != y->cta)
        return x->cta < y->cta ? -1 : 1;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

char *ptx_prints_collect(ptx_prints *p, bool keep)
{
    ptx_strbuf all = {0};
    if (keep && p->n) {
        qsort(p->v, p->n, sizeof *p->v, print_cmp);
        for (uint32_t i = 0; i < p->n; i++)
            ptx_strbuf_put(&all, p->v[i].text, strlen(p->v[i].text));
    }
    if (keep && p->cut) {
        static const char cut[] = "[printf output beyond 1 MiB dropped, as the CUDA runtime's "
                                  "default buffer would]\n";
        ptx_strbuf_put(&all, cut, sizeof cut - 1);
    }
    for (uint32_t i = 0; i < p->n; i++)
        free(p->v[i].text);
    free(p->v);
    memset(p, 0, sizeof *p);
    if (all.nomem) {
        free(all.p);
        return NULL;
    }
    return all.p;
}
