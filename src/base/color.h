/* color.h - colour on a terminal for the words a reader scans for: PASS
 * (and diff's SAME) green, FAIL/BAD/ERROR/TIMEOUT/CULPRIT (and DIFFER) red,
 * NO PORT/SKIPPED/INCOMPLETE/AMPLIFIER yellow.
 *
 *     vkrr_color_set(VKRR_COLOR_AUTO);      // the CLI, from --color
 *     vkrr_color_word(stdout, "%-7s", vkrr_launch_status_name(s));
 *
 * When: auto (the default) colours only stdout or stderr, only when that
 * stream is a terminal, NO_COLOR is unset or empty (no-color.org) and TERM
 * is not "dumb"; always colours stdout and stderr whatever they are (the
 * user asked: NO_COLOR does not override it); never does not colour.  A
 * stream that is neither stdout nor stderr (a file a report is written to)
 * is never coloured, so no escape reaches a file or JSON however the
 * process was run.  The escape wraps the word alone, not its padding, so
 * columns stay aligned.
 *
 * Does NOT: colour anything but the words named above; the choice is one
 * process-wide setting (the CLI sets it once, before any output).
 */
#ifndef VKRR_COLOR_H
#define VKRR_COLOR_H

#include <stdbool.h>
#include <stdio.h>

typedef enum vkrr_color_when {
    VKRR_COLOR_AUTO = 0,
    VKRR_COLOR_ALWAYS,
    VKRR_COLOR_NEVER,
} vkrr_color_when;

void vkrr_color_set(vkrr_color_when when);
/* "always", "never", "auto" (and the GNU synonyms yes/force, no/none,
 * tty/if-tty); false for anything else. */
bool vkrr_color_parse(const char *s, vkrr_color_when *out);
/* Whether f gets colour now. */
bool vkrr_color_on(FILE *f);
/* Prints word through the printf format fmt (one %s, with any width), its
 * colour (by what the word says) around the word where f gets colour. */
void vkrr_color_word(FILE *f, const char *fmt, const char *word);

#endif
