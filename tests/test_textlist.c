/* test_textlist: lists written into fixed buffers (textlist.h), the rows'
 * "FILE:1,2,3" and "; "-joined notes.  Each expected string is written out
 * here: whole items only, then "..." once one does not fit. */
#include <string.h>

#include "testutil.h"
#include "textlist.h"

/* The list's buffer is the first 16 bytes of area; the rest must stay '#'
 * (nothing is written past the buffer). */
static char area[48];
static char *const buf = area;
#define CAP 16

static bool untouched(void)
{
    for (size_t i = CAP; i < sizeof area; i++)
        if (area[i] != '#')
            return false;
    return true;
}

int main(void)
{
    vkrr_textlist l;
    memset(area, '#', sizeof area);

    vkrr_textlist_init(&l, buf, CAP);
    CHECK_STR(buf, "");
    CHECK(l.at == 0 && !l.cut);

    /* everything fits: separators between items only */
    vkrr_textlist_add(&l, ",", "%d", 1);
    vkrr_textlist_add(&l, ",", "%d", 22);
    CHECK_STR(buf, "1,22");
    CHECK(l.at == 4 && !l.cut);

    /* "1,22,333" leaves room for ",..." (8 + 4 < 16); "1,22,333,4444" would
     * not (13 + 4 >= 16): the list ends "..." and takes nothing more */
    vkrr_textlist_add(&l, ",", "%d", 333);
    CHECK_STR(buf, "1,22,333");
    vkrr_textlist_add(&l, ",", "%d", 4444);
    CHECK_STR(buf, "1,22,333,...");
    CHECK(l.cut && l.at == strlen(buf));
    vkrr_textlist_add(&l, ",", "%d", 5);
    CHECK_STR(buf, "1,22,333,...");

    /* an item the whole buffer cannot hold: only the mark */
    vkrr_textlist_init(&l, buf, CAP);
    vkrr_textlist_add(&l, "; ", "%s", "a note far longer than the buffer");
    CHECK_STR(buf, "...");
    CHECK(l.cut);

    /* the longest first item, with room kept for "; ..." after it: 16 - 1
     * (NUL) - 2 ("; ") - 3 ("...") = 10 characters go in; 11 do not */
    vkrr_textlist_init(&l, buf, CAP);
    vkrr_textlist_add(&l, "; ", "%s", "1234567890");
    CHECK_STR(buf, "1234567890");
    vkrr_textlist_init(&l, buf, CAP);
    vkrr_textlist_add(&l, "; ", "%s", "12345678901");
    CHECK_STR(buf, "...");

    /* a longer separator after a first item */
    vkrr_textlist_init(&l, buf, CAP);
    vkrr_textlist_add(&l, "; ", "a%d", 1);
    vkrr_textlist_add(&l, "; ", "b%d", 2);
    CHECK_STR(buf, "a1; b2");
    vkrr_textlist_add(&l, "; ", "%s", "c3");
    CHECK_STR(buf, "a1; b2; c3");
    vkrr_textlist_add(&l, "; ", "%s", "d4");
    CHECK_STR(buf, "a1; b2; c3; ...");
    CHECK(l.at == 15);
    CHECK(untouched());

    /* an empty item is an item: "1,,2" */
    vkrr_textlist_init(&l, buf, CAP);
    vkrr_textlist_add(&l, ",", "%d", 1);
    vkrr_textlist_add(&l, ",", "%s", "");
    vkrr_textlist_add(&l, ",", "%d", 2);
    CHECK_STR(buf, "1,,2");

    /* long items against a full buffer, at every length: never a byte past it */
    for (int len = 0; len < 40; len++) {
        memset(area, '#', sizeof area);
        vkrr_textlist_init(&l, buf, CAP);
        for (int k = 0; k < 4; k++)
            vkrr_textlist_add(&l, "; ", "%.*s", len, "0123456789012345678901234567890123456789");
        CHECK(untouched() && strlen(buf) < CAP);
    }
    return test_finish("textlist");
}
