/* textlist.c - see textlist.h. */
#include "textlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MARK "..."

void vkrr_textlist_init(vkrr_textlist *l, char *buf, size_t cap)
{
    *l = (vkrr_textlist){buf, cap, 0, false};
    buf[0] = 0;
}

void vkrr_textlist_add(vkrr_textlist *l, const char *sep, const char *fmt, ...)
{
    if (l->cut)
        return;
    const char *s = l->at ? sep : "";
    size_t ls = strlen(s), room = l->cap - l->at; /* room > 0: the NUL's place */
    va_list ap;
    va_start(ap, fmt);
    int n = ls < room ? vsnprintf(l->buf + l->at + ls, room - ls, fmt, ap) : -1;
    va_end(ap);
    /* the item fits if sep, item, then sep and the mark after it still do */
    if (n >= 0 && ls + (size_t)n + strlen(sep) + strlen(MARK) < room) {
        memcpy(l->buf + l->at, s, ls);
        l->at += ls + (size_t)n;
        return;
    }
    l->cut = true; /* the kept room holds sep and the mark */
    snprintf(l->buf + l->at, room, "%s%s", s, MARK);
    l->at += strlen(l->buf + l->at);
}
