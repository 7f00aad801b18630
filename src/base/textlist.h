/* textlist.h - a list written into a fixed buffer ("a, b, c") for a line a
 * person reads: an item goes in whole or not at all, and once one does not
 * fit, the list ends with "..." (room for it is always kept), so a reader
 * never sees a cut item (a line number missing its last digits) nor takes a
 * shortened list for the whole. */
#ifndef VKRR_TEXTLIST_H
#define VKRR_TEXTLIST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct vkrr_textlist {
    char *buf;
    size_t cap, at; /* at: the length written */
    bool cut;       /* an item did not fit: "..." ends the list */
} vkrr_textlist;

/* An empty list in buf[cap] (cap at least 8). */
void vkrr_textlist_init(vkrr_textlist *l, char *buf, size_t cap);
/* Appends sep (unless the list is empty) and the formatted item. */
void vkrr_textlist_add(vkrr_textlist *l, const char *sep, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
