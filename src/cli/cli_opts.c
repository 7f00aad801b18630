/* cli_opts.c - the one option parser of every command (cli_opts.h). */
#include "cli_opts.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "color.h"

enum { OPT_COLOR = -100 };

/* Every command's own: -h/--help and --color WHEN. */
static const vkrr_cli_opt builtin[] = {
    {"help", 'h', false, VKRR_OPT_HELP, false},
    {"color", 0, true, OPT_COLOR, false},
    {0},
};

vkrr_cli_opts vkrr_cli_opts_begin(const char *cmd, int argc, char **argv, int first,
                                  const vkrr_cli_opt *t0, const vkrr_cli_opt *t1)
{
    vkrr_cli_opts p = {.cmd = cmd, .argc = argc, .argv = argv, .i = first};
    p.tables[0] = builtin;
    p.tables[1] = t0;
    p.tables[2] = t0 ? t1 : NULL;
    return p;
}

bool vkrr_cli_opts_add(vkrr_cli_opts *p, const vkrr_cli_opt *table)
{
    for (int t = 0; t < VKRR_CLI_OPTS_TABLES; t++)
        if (!p->tables[t]) {
            p->tables[t] = table;
            return true;
        }
    assert(!"VKRR_CLI_OPTS_TABLES is too small");
    return false;
}

/* The option named by the len bytes at name (long) or by c (short). */
static const vkrr_cli_opt *find(const vkrr_cli_opts *p, const char *name, size_t len, char c)
{
    for (int t = 0; t < VKRR_CLI_OPTS_TABLES && p->tables[t]; t++)
        for (const vkrr_cli_opt *o = p->tables[t]; o->name; o++)
            if (name ? strlen(o->name) == len && !strncmp(o->name, name, len)
                     : c && o->short_name == c)
                return o;
    return NULL;
}

/* Whether w is one of the command's options (as the word after an option
 * that needs a value: then the value is missing). */
static bool is_option(const vkrr_cli_opts *p, const char *w)
{
    if (w[0] != '-' || !w[1])
        return false;
    if (w[1] != '-')
        return !w[2] && find(p, NULL, 0, w[1]);
    const char *eq = strchr(w + 2, '=');
    return w[2] && find(p, w + 2, eq ? (size_t)(eq - w - 2) : strlen(w + 2), 0);
}

/* Edit distance with transpositions (optimal string alignment: "nwe" is one
 * step from "new"), ignoring case (--JSON is --json mistyped). */
static unsigned distance(const char *a, size_t na, const char *b)
{
    enum { MAX = 64 };
    size_t nb = strlen(b);
    if (na >= MAX || nb >= MAX)
        return MAX;
    unsigned d[MAX + 1][MAX + 1];
    for (size_t i = 0; i <= na; i++)
        d[i][0] = (unsigned)i;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = (unsigned)j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            int x = tolower((unsigned char)a[i - 1]), y = tolower((unsigned char)b[j - 1]);
            unsigned best = d[i - 1][j - 1] + (x != y);
            best = d[i - 1][j] + 1 < best ? d[i - 1][j] + 1 : best;
            best = d[i][j - 1] + 1 < best ? d[i][j - 1] + 1 : best;
            if (i > 1 && j > 1 && x == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == y && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[na][nb];
}

/* Up to four names: those `given` begins (a prefix of them), else the
 * nearest within a small distance (1 for short words, 2 from 4 letters, 3
 * from 9: a typo, not another word). */
static void suggest(const char *given, const char *const *names, unsigned n, bool dashes,
                    char *buf, unsigned cap)
{
    size_t len = strcspn(given, "=");
    const char *pick[4];
    unsigned npick = 0, best = len >= 9 ? 3 : len >= 4 ? 2 : 1;
    buf[0] = 0;
    if (len == 0)
        return;
    for (unsigned k = 0; k < n; k++) /* "-mode": --mode itself, not --modules too */
        if (strlen(names[k]) == len && !strncmp(names[k], given, len)) {
            snprintf(buf, cap, "%s%s", dashes ? "--" : "", names[k]);
            return;
        }
    /* the shortest first: --mo is likelier --mode than --modules */
    for (unsigned k = 0; k < n; k++)
        if (!strncmp(names[k], given, len)) {
            unsigned at = npick < 4 ? npick++ : 4;
            while (at > 0 && strlen(pick[at - 1]) > strlen(names[k])) {
                if (at < 4)
                    pick[at] = pick[at - 1];
                at--;
            }
            if (at < 4)
                pick[at] = names[k];
        }
    for (unsigned pass = 0; !npick && pass < 2; pass++) /* the least distance, then who has it */
        for (unsigned k = 0; k < n; k++) {
            unsigned d = distance(given, len, names[k]);
            if (pass == 0 && d < best)
                best = d;
            else if (pass == 1 && d == best && npick < 4)
                pick[npick++] = names[k];
        }
    size_t at = 0;
    for (unsigned k = 0; k < npick && at < cap; k++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s%s",
                               k == 0 ? "" : k + 1 == npick ? " or " : ", ", dashes ? "--" : "",
                               pick[k]);
}

void vkrr_cli_suggest_word(const char *given, const char *const *names, bool dashes, char *buf,
                           unsigned cap)
{
    unsigned n = 0;
    while (names[n])
        n++;
    while (*given == '-')
        given++;
    suggest(given, names, n, dashes, buf, cap);
}

void vkrr_cli_opts_suggest(const vkrr_cli_opts *p, const char *given, char *buf, unsigned cap)
{
    enum { MAX = 128 };
    const char *names[MAX + 1];
    unsigned n = 0;
    for (int t = 0; t < VKRR_CLI_OPTS_TABLES && p->tables[t]; t++)
        for (const vkrr_cli_opt *o = p->tables[t]; o->name && n < MAX; o++)
            if (!o->hidden)
                names[n++] = o->name;
    names[n] = NULL;
    vkrr_cli_suggest_word(given, names, true, buf, cap);
}

static int unknown(vkrr_cli_opts *p, const char *word, const char *as_long)
{
    char near[300];
    vkrr_cli_opts_suggest(p, as_long, near, sizeof near);
    int len = (int)strcspn(word, "=");
    if (near[0])
        p->rc = vkrr_cli_usage_error(p->cmd, "unknown option '%.*s'; did you mean %s?", len, word,
                                     near);
    else
        p->rc = vkrr_cli_usage_error(p->cmd, "unknown option '%.*s'", len, word);
    return VKRR_OPT_ERROR;
}

static int missing(vkrr_cli_opts *p)
{
    if (p->i < p->argc && p->argv[p->i][0])
        p->rc = vkrr_cli_usage_error(p->cmd, "%s needs a value (before %s; %s=VALUE gives one "
                                     "that begins with '-')", p->name, p->argv[p->i], p->name);
    else
        p->rc = vkrr_cli_usage_error(p->cmd, "%s needs a value", p->name);
    return VKRR_OPT_ERROR;
}

/* o was given (inline: its "=VALUE" or "-xVALUE" text, else NULL): its id
 * with its value, or an error; --color is applied here. */
static int take(vkrr_cli_opts *p, const vkrr_cli_opt *o, const char *in, bool eq,
                const char **value)
{
    snprintf(p->name, sizeof p->name, "--%s", o->name);
    *value = NULL;
    if (!o->value) {
        if (eq) {
            p->rc = vkrr_cli_usage_error(p->cmd, "%s takes no value (given '%s')", p->name, in);
            return VKRR_OPT_ERROR;
        }
        return o->id;
    }
    if (in) {
        if (!in[0])
            return missing(p);
        *value = in;
    } else {
        if (p->i >= p->argc || is_option(p, p->argv[p->i]))
            return missing(p);
        *value = p->argv[p->i++];
    }
    if (o->id != OPT_COLOR)
        return o->id;
    vkrr_color_when w;
    if (!vkrr_color_parse(*value, &w)) {
        p->rc = vkrr_cli_usage_error(p->cmd, "--color takes always, never or auto, not '%s'",
                                     *value);
        return VKRR_OPT_ERROR;
    }
    vkrr_color_set(w);
    return OPT_COLOR;
}

static int next_short(vkrr_cli_opts *p, const char *word, const char **value)
{
    char c = *p->group++;
    const vkrr_cli_opt *o = find(p, NULL, 0, c);
    if (!o) {
        p->group = NULL;
        if (word && word[2]) /* "-mode": --mode meant? */
            return unknown(p, word, word + 1);
        char one[3] = {'-', c, 0};
        return unknown(p, one, "");
    }
    const char *rest = p->group;
    if (!o->value)
        return take(p, o, NULL, false, value);
    p->group = NULL;
    return take(p, o, *rest ? rest : NULL, false, value);
}

int vkrr_cli_opts_next(vkrr_cli_opts *p, const char **value)
{
    for (;;) {
        int id;
        *value = NULL;
        if (p->group && *p->group)
            id = next_short(p, NULL, value);
        else if (p->i >= p->argc)
            return VKRR_OPT_END;
        else {
            const char *w = p->argv[p->i++];
            p->group = NULL;
            if (p->args_only || w[0] != '-' || !w[1]) {
                *value = w;
                return VKRR_OPT_ARG;
            }
            if (!strcmp(w, "--")) {
                p->args_only = true;
                continue;
            }
            if (w[1] != '-') {
                p->group = w + 1;
                id = next_short(p, w, value);
            } else {
                const char *eq = strchr(w + 2, '=');
                size_t len = eq ? (size_t)(eq - w - 2) : strlen(w + 2);
                const vkrr_cli_opt *o = find(p, w + 2, len, 0);
                if (!o)
                    return unknown(p, w, w + 2);
                id = take(p, o, eq ? eq + 1 : NULL, eq != NULL, value);
            }
        }
        if (id != OPT_COLOR)
            return id;
    }
}

int vkrr_cli_opts_one_arg(vkrr_cli_opts *p, const char *what, const char **arg,
                          int (*take)(const char *cmd, int id, const char *value, void *ctx),
                          void (*help)(void *ctx), void *ctx)
{
    const char *v;
    *arg = NULL;
    for (int id, rc; (id = vkrr_cli_opts_next(p, &v)) != VKRR_OPT_END;) {
        if (id == VKRR_OPT_ERROR)
            return p->rc;
        if (id == VKRR_OPT_HELP) {
            help(ctx);
            return -1;
        }
        if (id == VKRR_OPT_ARG && *arg)
            return vkrr_cli_usage_error(p->cmd, "one %s only ('%s' is extra)", what, v);
        if (id == VKRR_OPT_ARG)
            *arg = v;
        else if ((rc = take(p->cmd, id, v, ctx)) != 0)
            return rc;
    }
    if (!*arg)
        return vkrr_cli_usage_error(p->cmd, "needs %s", what);
    return 0;
}

int vkrr_cli_unknown_subcommand(const char *cmd, const char *given, const char *const *names)
{
    char near[200], all[200] = "";
    vkrr_cli_suggest_word(given, names, false, near, sizeof near);
    for (size_t k = 0, at = 0; names[k] && at < sizeof all; k++)
        at += (size_t)snprintf(all + at, sizeof all - at, "%s%s", k ? (names[k + 1] ? ", " : " or ")
                                                                    : "", names[k]);
    if (near[0])
        return vkrr_cli_usage_error(cmd, "unknown subcommand '%s'; did you mean %s? (%s)", given,
                                    near, all);
    return vkrr_cli_usage_error(cmd, "unknown subcommand '%s' (%s)", given, all);
}
