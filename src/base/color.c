/* color.c - colour for verdict words (color.h). */
#include "color.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static vkrr_color_when when_;

void vkrr_color_set(vkrr_color_when when)
{
    when_ = when;
}

bool vkrr_color_parse(const char *s, vkrr_color_when *out)
{
    static const struct {
        const char *name;
        vkrr_color_when when;
    } names[] = {{"auto", VKRR_COLOR_AUTO},     {"tty", VKRR_COLOR_AUTO},
                 {"if-tty", VKRR_COLOR_AUTO},   {"always", VKRR_COLOR_ALWAYS},
                 {"yes", VKRR_COLOR_ALWAYS},    {"force", VKRR_COLOR_ALWAYS},
                 {"never", VKRR_COLOR_NEVER},   {"no", VKRR_COLOR_NEVER},
                 {"none", VKRR_COLOR_NEVER}};
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i].name)) {
            *out = names[i].when;
            return true;
        }
    return false;
}

bool vkrr_color_on(FILE *f)
{
    if (when_ == VKRR_COLOR_NEVER || (f != stdout && f != stderr))
        return false;
    if (when_ == VKRR_COLOR_ALWAYS)
        return true;
    const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
    if ((nc && nc[0]) || (term && !strcmp(term, "dumb")))
        return false;
    return isatty(fileno(f)) == 1;
}

/* SGR codes: 32 green, 31 red, 33 yellow; bold (1) for the two verdicts of
 * bisect, which name a launch to look at. */
static const char *code_of(const char *w)
{
    static const struct {
        const char *word, *code;
    } words[] = {{"PASS", "32"},      {"ok", "32"},         {"FAIL", "31"},
                 {"BAD", "31"},       {"ERROR", "31"},      {"TIMEOUT", "31"},
                 {"CULPRIT", "1;31"}, {"culprit", "31"},    {"diverged", "31"},
                 {"NO PORT", "33"},   {"NO KERNEL", "33"},  {"SKIPPED", "33"},
                 {"INCOMPLETE", "33"}, {"AMPLIFIER", "1;33"}, {"amplifier", "33"},
                 {"NOTHING VALIDATED", "33"}, {"SAME", "32"}, {"DIFFER", "31"}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strncmp(w, words[i].word, strlen(words[i].word)))
            return words[i].code;
    return NULL;
}

void vkrr_color_word(FILE *f, const char *fmt, const char *word)
{
    const char *code = word ? code_of(word) : NULL;
    if (!code || !vkrr_color_on(f)) {
        fprintf(f, fmt, word);
        return;
    }
    /* the padding printf would add, outside the colour */
    const char *pct = strchr(fmt, '%');
    const char *tail = pct ? strchr(pct, 's') : NULL;
    if (!pct || !tail) {
        fprintf(f, fmt, word);
        return;
    }
    int width = 0;
    bool left = false;
    for (const char *p = pct + 1; p < tail; p++) {
        if (*p == '-')
            left = true;
        else if (*p >= '0' && *p <= '9')
            width = width * 10 + (*p - '0');
    }
    int pad = width - (int)strlen(word);
    fprintf(f, "%.*s", (int)(pct - fmt), fmt);
    if (!left && pad > 0)
        fprintf(f, "%*s", pad, "");
    fprintf(f, "\033[%sm%s\033[0m", code, word);
    if (left && pad > 0)
        fprintf(f, "%*s", pad, "");
    fputs(tail + 1, f);
}
