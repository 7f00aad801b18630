/* cli_opts.h - the one option parser of every vkrr command.
 *
 * GNU style, as getopt_long: `--name value` and `--name=value`, `-x value`
 * and `-xVALUE`, short flags grouped (`-qh`), options and positional
 * arguments in any order, and `--` ending the options (what follows it is
 * positional even when it begins with '-'; a lone "-" is positional too).
 * Each command declares what it takes in tables of vkrr_cli_opt and reads
 * them one at a time:
 *
 *     enum { O_MODE, O_QUIET };
 *     static const vkrr_cli_opt opts[] = {
 *         {"mode", 0, true, O_MODE}, {"quiet", 'q', false, O_QUIET}, {0}};
 *     vkrr_cli_opts p = vkrr_cli_opts_begin(argv[0], argc, argv, 1, opts, NULL);
 *     const char *v;
 *     for (int id; (id = vkrr_cli_opts_next(&p, &v)) != VKRR_OPT_END;)
 *         switch (id) {
 *         case VKRR_OPT_ERROR: return p.rc;          // printed already
 *         case VKRR_OPT_HELP: print help; return 0;
 *         case VKRR_OPT_ARG: a positional argument, v
 *         case O_MODE: v is its value; p.name is "--mode" for messages
 *         ...
 *
 * Every command also takes `-h`/`--help` (VKRR_OPT_HELP) and `--color WHEN`
 * (always, never or auto; color.h), which the parser applies itself.
 *
 * Long names are taken whole only: a prefix is not an abbreviation (a
 * script's `--mo` would change meaning the day a `--model` came), but it is
 * answered with what it begins: "unknown option '--re'; did you mean --ref
 * or --report?".  Any other unknown name is answered with the nearest names
 * by edit distance ("'--mod' ... did you mean --mode?").
 *
 * Errors, each printed by vkrr_cli_usage_error (exit code 2 in p.rc) naming
 * the option: an unknown option, a missing value (the end of argv, an empty
 * `--name=`, or the next word being another of the command's options:
 * `--json --heatmaps none` says --json needs a value, where getopt would
 * write a file called --heatmaps; `--json=--heatmaps` still can), and a
 * value given to an option that takes none (`--quiet=yes`).
 *
 * Does NOT: check values (the command does, naming what it takes), or own
 * anything: v and p.name point into argv or p.
 */
#ifndef VKRR_CLI_OPTS_H
#define VKRR_CLI_OPTS_H

#include <stdbool.h>

typedef struct vkrr_cli_opt {
    const char *name;  /* the long name without "--"; NULL ends a table */
    char short_name;   /* 'q' for -q; 0: none */
    bool value;        /* takes a value */
    int id;            /* >= 0: what vkrr_cli_opts_next returns for it */
    bool hidden;       /* the tests' options: taken, never suggested */
} vkrr_cli_opt;

enum {
    VKRR_OPT_END = -1,   /* argv is done */
    VKRR_OPT_ARG = -2,   /* a positional argument (in *value) */
    VKRR_OPT_HELP = -3,  /* -h or --help */
    VKRR_OPT_ERROR = -4, /* a usage error, printed; return p.rc */
};

#define VKRR_CLI_OPTS_TABLES 6
typedef struct vkrr_cli_opts {
    const char *cmd;                 /* "validate": messages say "vkrr validate: ..." */
    const vkrr_cli_opt *tables[VKRR_CLI_OPTS_TABLES];
    int argc, i;                     /* the next word is argv[i] */
    char **argv;
    const char *group;               /* the rest of a group of short flags */
    bool args_only;                  /* after "--" */
    int rc;                          /* after VKRR_OPT_ERROR: the exit code */
    char name[80];                   /* the last option, as "--name" */
} vkrr_cli_opts;

/* Parses argv[first ..] by up to VKRR_CLI_OPTS_TABLES tables (NULL ends
 * the list; later ones NULL). */
vkrr_cli_opts vkrr_cli_opts_begin(const char *cmd, int argc, char **argv, int first,
                                  const vkrr_cli_opt *t0, const vkrr_cli_opt *t1);
/* Adds a table (false: no room: a programmer's error, asserted). */
bool vkrr_cli_opts_add(vkrr_cli_opts *p, const vkrr_cli_opt *table);
/* The next option's id (>= 0), or VKRR_OPT_*; *value: the option's value
 * (NULL for a flag) or the positional argument. */
int vkrr_cli_opts_next(vkrr_cli_opts *p, const char **value);

/* The whole loop of a command that takes one positional argument (what:
 * "CAPDIR"): each option's id and value go to take(cmd, id, value, ctx),
 * which returns 0 or an exit code to stop with; -h/--help calls help(ctx).
 * Returns 0 with *arg set, -1 after --help (the command exits 0), else an
 * exit code, the error printed: "one CAPDIR only ('X' is extra)" or
 * "needs CAPDIR" among them. */
int vkrr_cli_opts_one_arg(vkrr_cli_opts *p, const char *what, const char **arg,
                          int (*take)(const char *cmd, int id, const char *value, void *ctx),
                          void (*help)(void *ctx), void *ctx);

/* The option names nearest to `given` (with or without dashes), "--a, --b
 * or --c", into buf; "" when none is near.  The parser's suggestion, for
 * tests and for subcommand names (names: NULL-terminated, no dashes added
 * when dashes is false). */
void vkrr_cli_opts_suggest(const vkrr_cli_opts *p, const char *given, char *buf, unsigned cap);
void vkrr_cli_suggest_word(const char *given, const char *const *names, bool dashes, char *buf,
                           unsigned cap);
/* "unknown subcommand 'X'; did you mean Y? (A or B)" for cmd, whose
 * subcommands are names (NULL-terminated); returns the usage exit code. */
int vkrr_cli_unknown_subcommand(const char *cmd, const char *given, const char *const *names);

#endif
